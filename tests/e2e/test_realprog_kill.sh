#!/usr/bin/env bash
# test_realprog_kill.sh - a task killed with pvm_kill while it waits in a
# receive is killed at the same point in replay, and the run does not wait
# for an exit report that cannot come.
#
# Design.  plain_kill's children each send "ready" and wait in pvm_recv
# for a message that never comes; the parent takes the readies in arrival
# order (so unrecorded runs differ) and kills each child in that order.
# Recorded: exit 0, each child reported as killed by the program, none as
# ended abnormally.  20 replays must each print exactly the recorded
# output with exit 0: a child that reaches its receive before the replayed
# kill must wait for it, not report a divergence ("recorded nothing
# more").  The coordinator used to wait 2 s (its grace for exit reports)
# after each killed task's end; the median run time of the replays must
# now be under that (the old code can never be).
set -u
. "$(dirname "$0")/lib.sh"

PROG=$PG_BUILD/tests/plain_kill
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

PG_RUNS=20
pg_replay_case "pvm_kill of children waiting in pvm_recv" "$PROG" 3
dir=$(dirname "$PG_CASE_LOGS")
if [ "$(grep -c 'was killed by the program (pvm_kill)' "$dir/rec.err")" -eq 3 ] &&
   ! grep -q 'abnormally' "$dir/rec.err"; then
    pg_pass "the recording reports the 3 children as killed by the program, not as abnormal ends"
else
    pg_fail "recording's report of the killed children:"; cat "$dir/rec.err"
fi
times=() bad=0
for i in $(seq 5); do
    s=$(date +%s.%N)
    timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$PROG" 3 >/dev/null 2>&1 || bad=$((bad + 1))
    times+=("$(echo "$(date +%s.%N) - $s" | bc)")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
if [ "$bad" -eq 0 ] && [ "$(echo "$median < 2.0" | bc)" = 1 ]; then
    pg_pass "no wait for reports that cannot come: median replay ${median} s (times: ${times[*]})"
else
    pg_fail "$bad of 5 timed replays failed; median ${median} s (2 s: the grace for a killed task's report): ${times[*]}"
fi

pg_pvm_stop
pg_summary
