#!/usr/bin/env bash
# bench/fanin.sh - the fan-in a user tries first (bench/fanin.c: W workers
# send M 8-byte messages each to one pvm_recv(-1, 1), no flow control),
# raw, recorded (-log) and replayed (-replay of that recording), R rounds
# interleaved; prints each run's messages per second and the medians.
#
#   bash bench/fanin.sh [--reps R] [W [M]]      (defaults: 5 rounds, 16 10000)
#
# Wall-clock figures: they vary with the machine's load (BENCHMARKS.md
# says how much); compare medians of runs taken side by side.  A run that
# fails (fanin.c dies on a message out of order, a replay that diverges)
# stops the script with its output's end.  BUILD=DIR runs another build
# (its pangaea and bench/fanin), for a before/after pair.
# A private pvmd is started and halted (tests/e2e/lib.sh).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPS=5
[ "${1:-}" = --reps ] && { REPS=$2; shift 2; }
W=${1:-16} M=${2:-10000}
BUILD=${BUILD:-$ROOT/build}
PROG=$BUILD/bench/fanin
[ -x "$PROG" ] || { echo "bench/fanin.sh: build $PROG first (make bench-programs)" >&2; exit 1; }
# shellcheck source=../tests/e2e/lib.sh
source "$ROOT/tests/e2e/lib.sh"
pg_pvm_start || exit 1
D=$(pg_tmpdir)

# run MODE: one run's messages per second (its BENCH line's rate).
run() {
    local out=$D/out.$1
    [ "$1" = log ] && rm -rf "$D/logs" && mkdir -p "$D/logs"
    if [ "$1" = raw ]; then "$PROG" "$W" "$M" >"$out" 2>&1
    else "$BUILD/pangaea" "-$1" -logdir "$D/logs" "$PROG" "$W" "$M" >"$out" 2>&1
    fi || { echo "bench/fanin.sh: $1 run failed:" >&2; tail -3 "$out" >&2; return 1; }
    sed -n "s/^.*BENCH .* rate=\([0-9]*\) .*/\1/p" "$out"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
rc=0
for r in $(seq "$REPS"); do
    line="round=$r"
    for m in raw log replay; do
        v=$(run $m) || { rc=1; break 2; }
        echo "$v" >>"$D/$m.all"
        line="$line $m=$v"
    done
    echo "$line msgs/s"
done
[ "$rc" = 0 ] && echo "median: raw=$(median <"$D/raw.all") log=$(median <"$D/log.all") replay=$(median <"$D/replay.all") msgs/s ($W workers x $M messages)"
pg_pvm_stop
exit $rc
