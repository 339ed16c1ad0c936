#!/usr/bin/env bash
# test_replay_cost.sh - a replayed receive costs the same whatever the
# number of senders: the replay takes the run's messages out of PVM's
# queue into an index of its own (src/lib/replay_index.c), so PVM never
# walks a queue that grows while the senders run ahead.
#
# Measured without the clock: the instructions of the receiving task of
# bench/stream (T-1 workers stream 8-byte messages to one pvm_recv(-1,
# tag)), counted by valgrind (callgrind) in its replay, at N and 3N
# messages; the difference over 2N is the cost of one replayed receive,
# start-up, spawns and warm-up cancelling out.  At 64 senders it must be
# within 20% of the cost at 8 senders.  Before the index, PVM walked the
# whole queue at each receive (our matcher called for each queued
# message): this test measured 6,442 instructions a receive at 8 tasks
# and 15,537 at 64; with it, ~3,800-4,000 at both.
# The recordings are made without valgrind (the replay runs the same
# program: valgrind shows the task its program, not itself).
set -u
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    pg_skip "valgrind is not installed (scripts/install-deps.sh test)"
PROG=$PG_BUILD/bench/stream
[ -x "$PROG" ] || pg_skip "$PROG is not built (make test-programs)"
N=${PG_COST_N:-3000}

pg_pvm_start || exit 1
W=$(pg_tmpdir)
pg_callgrind_first "$W" "$PROG" # the first task under callgrind

# replayed T M: the instructions of the receiving task replaying a
# recording of T tasks and M messages (empty if a run failed).
replayed() {
    local logs=$W/logs-$1-$2
    mkdir -p "$logs"
    NOVG=1 PVM_EXPORT="NOVG${PVM_EXPORT:+:$PVM_EXPORT}" \
        "$PG_BUILD/pangaea" -log -logdir "$logs" "$W/under-vg" "$1" "$2" \
        >"$W/out" 2>&1 || { pg_fail "recording stream $1 $2: $(tail -2 "$W/out")"; return; }
    rm -f "$W/cg.out"
    "$PG_BUILD/pangaea" -replay -logdir "$logs" "$W/under-vg" "$1" "$2" \
        >"$W/out" 2>&1 || { pg_fail "replay of stream $1 $2: $(tail -2 "$W/out")"; return; }
    sed -n 's/^summary: *//p' "$W/cg.out"
}

# per_receive T: instructions per replayed receive at T tasks.
per_receive() {
    local a b
    a=$(replayed "$1" "$N")
    b=$(replayed "$1" $((3 * N)))
    [ -n "$a" ] && [ -n "$b" ] && echo $(((b - a) / (2 * N)))
}

c8=$(per_receive 8)
c64=$(per_receive 64)
if [ -n "$c8" ] && [ -n "$c64" ] && [ "$c8" -gt 0 ] &&
    [ $((c64 * 100)) -le $((c8 * 120)) ] && [ $((c64 * 100)) -ge $((c8 * 80)) ]; then
    pg_pass "a replayed receive: $c8 instructions at 8 tasks, $c64 at 64 (within 20%)"
else
    pg_fail "a replayed receive: '$c8' instructions at 8 tasks, '$c64' at 64 (not within 20%)"
fi
pg_pvm_stop
pg_summary
