#!/usr/bin/env bash
# bench/insn.sh - instructions the runtime adds per message, counted by
# valgrind (callgrind) in the first task of a benchmark: a figure that does
# not depend on the machine's load, unlike the wall-clock ratios of run.sh.
#
#   bash bench/insn.sh [--reps R] N1 N2 PROGRAM [ARGS...]
#   e.g.  bash bench/insn.sh 5000 10000 build/bench/pingpong 8
#         bash bench/insn.sh 20000 40000 build/bench/stream 4
#
# The program's last argument is the message count: each mode (raw,
# -log, -replay of that recording) runs with N1 and with N2 messages, and
# the figure is (instructions at N2 - instructions at N1) / (N2 - N1), so
# start-up, spawns and warm-up cancel out.  Only the first task runs under
# valgrind: `pangaea` (or the shell, raw) starts a small script that execs
# valgrind on the program, and a task started with -worker or -child (the
# benchmarks' children; pingpong's is -child) runs plain (before, the
# ping-pong's child ran under valgrind too, into the same profile file:
# whichever task ended last was counted).  Its receives are what the
# matcher, the reader and the writer cost; with many senders PVM's walk
# over the queue (our matcher called for each queued message) depends on
# how far the receiver lags,
# which valgrind's slowness exaggerates: compare runs of the same kind.
# Prints one line per repetition: raw=I log=+I replay=+I (added to raw),
# then the part of that executed in libpangaea.so itself (own_log=I
# own_replay=I), which does not move with how PVM's reads fall (the raw
# count varies by a few hundred from run to run; the added PVM calls are
# the rest).
# With --keep DIR, each run's callgrind profile is kept as DIR/MODE.N.out
# (the last repetition's), for `callgrind_annotate DIR/replay.N2.out`.
# BUILD=DIR runs another build's pangaea (a before/after pair).
# Needs valgrind; a private pvmd is started and halted (tests/e2e/lib.sh).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
REPS=1 KEEP=
while :; do
    case "${1:-}" in
    --reps) REPS=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2; mkdir -p "$KEEP" || exit 1 ;;
    *) break ;;
    esac
done
[ $# -ge 3 ] || { echo "usage: bench/insn.sh [--reps R] [--keep DIR] N1 N2 PROGRAM [ARGS...]" >&2; exit 2; }
N1=$1 N2=$2 PROG=$(realpath "$3"); shift 3
command -v valgrind >/dev/null || { echo "bench/insn.sh: needs valgrind" >&2; exit 1; }
# shellcheck source=../tests/e2e/lib.sh
source "$ROOT/tests/e2e/lib.sh"
pg_pvm_start || exit 1
W=$(pg_tmpdir)
cat >"$W/under-vg" <<EOS
#!/bin/sh
case "\$1" in -worker|-child) exec "$PROG" "\$@" ;; esac
exec valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$PROG" "\$@" 2>>"$W/vg.err"
EOS
chmod +x "$W/under-vg"

# count MODE N: the first task's instructions in one run (a replay
# replays the recording just made with the same N).
count() {
    rm -f "$W/cg.out"
    [ "$1" = log ] && rm -rf "$W/logs" && mkdir -p "$W/logs"
    if [ "$1" = raw ]; then "$W/under-vg" "${ARGS[@]}" "$2" >"$W/out" 2>&1
    else "$BUILD/pangaea" "-$1" -logdir "$W/logs" "$W/under-vg" "${ARGS[@]}" "$2" >"$W/out" 2>&1
    fi || { echo "bench/insn.sh: $1 run failed:" >&2; tail -3 "$W/out" >&2; return 1; }
    [ -z "$KEEP" ] || cp "$W/cg.out" "$KEEP/$1.$2.out"
    printf '%s %s\n' "$(awk '/^summary:/ { print $2 }' "$W/cg.out")" \
        "$(callgrind_annotate --auto=no --threshold=100 --inclusive=no "$W/cg.out" |
           awk '/libpangaea\.so\]$/ { gsub(",", "", $1); s += $1 } END { print s + 0 }')"
}
ARGS=("$@")
rc=0
declare -A I O
for r in $(seq "$REPS"); do
    for n in "$N1" "$N2"; do
        for m in raw log replay; do
            read -r I[$m.$n] O[$m.$n] < <(count $m "$n") || rc=1
        done
    done
    [ "$rc" = 0 ] || break
    raw=$(( (I[raw.$N2] - I[raw.$N1]) / (N2 - N1) ))
    per() { echo $(( (${2}[$1.$N2] - ${2}[$1.$N1]) / (N2 - N1) )); }
    echo "rep=$r raw=$raw log=+$(( $(per log I) - raw )) replay=+$(( $(per replay I) - raw )) own_log=$(per log O) own_replay=$(per replay O)"
done
pg_pvm_stop
exit $rc
