#!/usr/bin/env bash
# install-deps.sh - installs the Debian packages Pangaea builds and runs with.
#
# The one place the package lists live, in two groups:
#   install-deps.sh demo   what building Pangaea and running the demo need
#                          (examples/sor/demo.sh)
#   install-deps.sh test   that and what the tests need (.ci/run); the
#                          default
# Installs only when something is missing (checked with dpkg-query), so on
# a machine that has everything it needs no network and no root.  Needs
# root (or sudo) otherwise; non-interactive.
set -euo pipefail

DEMO=(
    build-essential pkg-config      # cc, make
    pvm pvm-dev libpvm3             # PVM 3.4: daemon, console, headers
    libxml2-dev                     # the logs: libxml2
    libdw-dev                       # -races: call sites to file:line (elfutils)
    nettle-dev                      # SHA-256 of programs (replay checks)
    libarchive-dev                  # -pack: tar + zstd archives (libarchive)
    libmicrohttpd-dev               # -live: the HTTP server of the live view
)
TEST=(
    pvm-examples                    # PVM programs written by others
    python3                         # tests: checks and page drivers (its standard library only)
    libxml2-utils                   # tests: xmllint
    netpipe-pvm                     # tests: NPpvm counts the machine's tasks
    slsh slang-pvm                  # tests: PVM tasks that are scripts (#!/usr/bin/env slsh)
    gdb tmux                        # -replay -debug: gdb in a tmux window
    gfortran                        # tests: a Fortran PVM program's call sites
    check                           # unit tests
    iproute2                        # tests: hosts in network namespaces
    util-linux                      # tests: unshare (a host name per host)
    chromium chromium-driver        # tests: the event graph page (-display)
    curl                            # tests: the live view's HTTP API (test_live, test_interactive)
    man-db                          # tests: the man pages render (man -l)
    zstd                            # tests: packs opened with tar --zstd
    strace                          # tests: a task's attempts to reach a dead pvmd (test_exit_enrol)
    e2fsprogs                       # tests: chattr +i, a log directory made immutable (test_survive)
    dpkg-dev debhelper              # tests: debian/ builds a package
    valgrind                        # tests: -races and -min linear, counted in instructions (test_scaling)
    protobuf-compiler               # tests: protoc --decode_raw reads -export perfetto's trace (test_perfetto)
    mpich libmpich-dev              # MPI programs (src/mpi/): libpangaea-mpich.so is built against
    openmpi-bin libopenmpi-dev      #   each MPI's mpi.h (their ABIs differ); tests: test_mpi.sh
    hpcc                            # tests: a Debian MPI program recorded and replayed (test_mpi_hpcc)
)

case "${1:-test}" in
    demo) PACKAGES=("${DEMO[@]}") ;;
    test) PACKAGES=("${DEMO[@]}" "${TEST[@]}") ;;
    *) echo "usage: install-deps.sh [demo|test]" >&2; exit 2 ;;
esac

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
