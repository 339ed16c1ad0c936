#!/usr/bin/env bash
# install-deps.sh - installs the Debian packages Pangaea builds and runs with.
#
# The one place the package list lives: examples/sor/demo.sh and .ci/run
# both call this.  Installs only when something is missing (checked with
# dpkg-query), so on a machine that has everything it needs no network and
# no root.  Needs root (or sudo) otherwise; non-interactive.
set -euo pipefail

PACKAGES=(
    build-essential pkg-config      # cc, make
    pvm pvm-dev libpvm3             # PVM 3.4: daemon, console, headers
    pvm-examples                    # PVM programs written by others
    slsh slang-pvm                  # tests: PVM tasks that are scripts (#!/usr/bin/env slsh)
    libxml2-dev libxml2-utils       # the logs: libxml2, xmllint
    libdw-dev                       # -races: call sites to file:line (elfutils)
    nettle-dev                      # SHA-256 of programs (replay checks)
    check                           # unit tests
    iproute2                        # tests: hosts in network namespaces
    util-linux                      # tests: unshare (a host name per host)
    chromium chromium-driver        # tests: the event graph page (-display)
)

missing=()
for p in "${PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-deps: all packages present"
    exit 0
fi

as_root=(env DEBIAN_FRONTEND=noninteractive)
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || {
        echo "install-deps: need root to install: ${missing[*]}" >&2
        exit 1
    }
    as_root=(sudo "${as_root[@]}")
fi
echo "install-deps: installing ${missing[*]}"
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q "${missing[@]}"
