#!/usr/bin/env bash
# demo.sh - records a run of the SOR demo and replays it (`make demo`).
#
# Works on a fresh Debian 12 machine as root: installs what is missing
# (scripts/install-deps.sh), builds, then runs
#     build/pangaea -log    build/sor 4
#     build/pangaea -replay build/sor 4
# and shows that the replay printed exactly what the recording did, though
# unrecorded runs of sor differ (the order in which task 0 receives the
# reductions races).  `pangaea` starts a private pvmd when none is
# reachable; PVM_TMP points it at a fresh temp dir, so the demo never
# touches another daemon, and the exit trap halts any pvmd still serving
# that dir (by its PID, via tests/e2e/lib.sh) and removes the dir.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

bash scripts/install-deps.sh demo
make all >/dev/null

source tests/e2e/lib.sh         # pg_tmpdir, pg_pvmd_halt; its trap cleans up
work=$(pg_tmpdir)
PVM_TMP=$(pg_tmpdir)
export PVM_TMP PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1

echo "== two unrecorded runs: build/pangaea -none build/sor 4"
for i in 1 2; do
    build/pangaea -none -logdir "$work/none" build/sor 4
done
echo
echo "== recording: build/pangaea -log build/sor 4"
build/pangaea -log build/sor 4 >"$work/record.out"
cat "$work/record.out"
echo
echo "== replaying: build/pangaea -replay build/sor 4"
build/pangaea -replay build/sor 4 >"$work/replay.out"
cat "$work/replay.out"
echo
if diff "$work/record.out" "$work/replay.out"; then
    echo "demo: the replay printed exactly what the recording printed"
    echo "demo: the logs: $(echo logs/ltid-*.comm.pgc logs/ltid-*.exec.xml)"
    echo "demo: read the communication logs as XML with: build/pangaea -dump logs"
else
    echo "demo: the replay differs from the recording (diff above)" >&2
    exit 1
fi
