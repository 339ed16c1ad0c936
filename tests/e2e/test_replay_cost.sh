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
# start-up, spawns and warm-up cancelling out.  Before the index, PVM
# walked the whole queue at each receive (our matcher called for each
# queued message): this test measured 6,442 instructions a receive at 8
# tasks and 15,537 at 64.
# Two parts are counted apart (callgrind's inclusive cost of
# pg_bufid_seen, bufid.c, is the second):
#  - the receive without its buffer-id move: at 64 senders within 20% of
#    its cost at 8 (~3,500 at both);
#  - the move of the message to its recorded buffer id, whose work
#    depends on arrival timing (which id PVM gave the message, in the
#    recording and in the replay; and now and then a rescan of PVM's
#    table of free ids): measured over all 3N receives, at 8 and at 64
#    senders it must stay under twice the receive's own cost (measured
#    ~550 and ~1,100 a receive at 8 and 64, ~4,900 at 64 over N
#    receives; when a move took up to 64 pvm_mkbuf, the totals were
#    15,344 and 27,329 a receive).  Counted in one total, its timing
#    made the ratio of 64 to 8 tasks vary from 0.78 to 1.2 between runs.
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

# replayed T M: "TOTAL BUFID", the instructions of the receiving task
# replaying a recording of T tasks and M messages, and those of its
# buffer-id moves (empty if a run failed).
replayed() {
    local logs=$W/logs-$1-$2 total bufid
    mkdir -p "$logs"
    NOVG=1 PVM_EXPORT="NOVG${PVM_EXPORT:+:$PVM_EXPORT}" \
        "$PG_BUILD/pangaea" -log -logdir "$logs" "$W/under-vg" "$1" "$2" \
        >"$W/out" 2>&1 || { pg_fail "recording stream $1 $2: $(tail -2 "$W/out")"; return; }
    rm -f "$W/cg.out"
    "$PG_BUILD/pangaea" -replay -logdir "$logs" "$W/under-vg" "$1" "$2" \
        >"$W/out" 2>&1 || { pg_fail "replay of stream $1 $2: $(tail -2 "$W/out")"; return; }
    total=$(sed -n 's/^summary: *//p' "$W/cg.out")
    bufid=$(callgrind_annotate --inclusive=yes --threshold=100 "$W/cg.out" 2>/dev/null |
            sed -nE 's/^ *([0-9,]+) .*bufid\.c:pg_bufid_seen .*/\1/p' | tr -d , | head -n 1)
    [ -n "$total" ] && [ -n "$bufid" ] && echo "$total $bufid"
}

# per_receive T: "CORE BUFID" instructions per replayed receive at T
# tasks: without its buffer-id move (the difference of 3N and N messages
# over 2N), and its move (over the 3N receives).
per_receive() {
    local a b
    a=$(replayed "$1" "$N")
    b=$(replayed "$1" $((3 * N)))
    [ -n "$a" ] && [ -n "$b" ] || return
    set -- $a $b
    echo $(((($3 - $4) - ($1 - $2)) / (2 * N))) $(($4 / (3 * N)))
}

read -r c8 m8 <<<"$(per_receive 8)"
read -r c64 m64 <<<"$(per_receive 64)"
if [ -n "$c8" ] && [ -n "$c64" ] && [ "$c8" -gt 0 ] &&
    [ $((c64 * 100)) -le $((c8 * 120)) ] && [ $((c64 * 100)) -ge $((c8 * 80)) ]; then
    pg_pass "a replayed receive, its buffer-id move apart: $c8 instructions at 8 tasks, $c64 at 64 (within 20%)"
else
    pg_fail "a replayed receive, its buffer-id move apart: '$c8' instructions at 8 tasks, '$c64' at 64 (not within 20%)"
fi
if [ -n "$m8" ] && [ -n "$m64" ] && [ "$c8" -gt 0 ] && [ "$c64" -gt 0 ] &&
    [ "$m8" -lt $((2 * c8)) ] && [ "$m64" -lt $((2 * c64)) ]; then
    pg_pass "its buffer-id move: $m8 instructions a receive at 8 tasks, $m64 at 64 (under twice the receive's $c8 and $c64)"
else
    pg_fail "its buffer-id move: '$m8' instructions a receive at 8 tasks, '$m64' at 64 (not under twice the receive's '$c8' and '$c64')"
fi
pg_pvm_stop
pg_summary
