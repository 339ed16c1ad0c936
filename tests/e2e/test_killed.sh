#!/usr/bin/env bash
# test_killed.sh - a task killed from outside (SIGKILL) and a task that
# calls abort(), while recording: what pangaea says, and what the logs keep.
#
# Design.  (a) plain_load with 4 tasks and messages enough for minutes is
# recorded on a private pvmd with PANGAEA_STALL=5; after a second, task 2
# (ltid 3, found among the children of our own pvmd by its arguments) gets
# SIGKILL.  Nothing in the task can react, so all of this rests on the
# mapped log and on pangaea.  Checks: pangaea exits 4 within the stall time;
# it names ltid 3 as killed or crashed and says after which event its log
# ends; it stops the others; no event is lost around the death: every
# message any log says was received was logged as sent by its sender (the
# (sender, msgid, receiver) triples of the receives are a subset of those of
# the sends; the sends are logged before PVM takes them for that); a replay
# of the recording stops where ltid 3 died, and says so.
# (b) plain_crash with "abort" is recorded until a run crashes (the crash
# needs one order): pangaea names ltid 1 as dead of SIGABRT after event N,
# and its log ends after that same event N.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
LOAD=$PG_BUILD/tests/plain_load
CRASH=$PG_BUILD/tests/plain_crash
dir=$(pg_tmpdir)
logs=$dir/logs

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# --- (a) SIGKILL from outside ------------------------------------------

PANGAEA_STALL=5 timeout 120 "$PANGAEA" -log -logdir "$logs" "$LOAD" 4 100000000 \
    >"$dir/rec.out" 2>"$dir/rec.err" &
run=$!
victim=
for i in $(seq 100); do
    victim=$(pgrep -P "$PG_PVMD_PID" -f "plain_load -task 2\$")
    [ -n "$victim" ] && [ -s "$logs/ltid-3.comm.pgc" ] && break
    sleep 0.1
done
sleep 1
t0=$(date +%s)
[ -n "$victim" ] && kill -KILL "$victim"
rc=0
wait "$run" || rc=$?
took=$(($(date +%s) - t0))

if [ -n "$victim" ] && [ "$rc" -eq 4 ] && [ "$took" -le 60 ]; then
    pg_pass "task killed with SIGKILL (PID $victim): pangaea exits 4 after $took s"
else
    pg_fail "victim '${victim}', pangaea exit $rc after $took s"; cat "$dir/rec.err"
fi
said=$(grep -Eo "ltid 3 \(.*plain_load, t[0-9a-f]+ on .*\) ended abnormally: it was killed or crashed" "$dir/rec.err")
last=$(sed -nE 's/^pangaea:   its log .*ltid-3\.comm\.pgc ends after event ([0-9]+), the last it completed$/\1/p' "$dir/rec.err")
if [ -n "$said" ] && [ -n "$last" ]; then
    pg_pass "pangaea names the task and its last event: $said; its log ends after event $last"
else
    pg_fail "no report of ltid 3's death and last event:"; cat "$dir/rec.err"
fi
if [ "$(grep -c 'stopped: the run was ended after a task died' "$dir/rec.err")" -eq 3 ] &&
   [ "$(grep -c 'a task died and .*: stopping' "$dir/rec.err")" -eq 1 ]; then
    pg_pass "the three other tasks were stopped"
else
    pg_fail "the other tasks were not all stopped:"; cat "$dir/rec.err"
fi

pg_log_messages "$logs" "$dir/sends" "$dir/recvs"
sort -u "$dir/sends" >"$dir/sends.s"; sort -u "$dir/recvs" >"$dir/recvs.s"
lost=$(comm -13 "$dir/sends.s" "$dir/recvs.s" | wc -l)
from3=$(grep -c '^3 ' "$dir/recvs.s")
to3=$(grep -c ' 3$' "$dir/recvs.s")
if [ "$lost" -eq 0 ] && [ "$from3" -gt 0 ] && [ "$to3" -gt 0 ]; then
    pg_pass "no event lost around the death: all $(wc -l <"$dir/recvs.s") receives logged as sent ($from3 from ltid 3, $to3 by it)"
else
    pg_fail "$lost receives without a logged send (from ltid 3: $from3, by it: $to3)"
    comm -13 "$dir/sends.s" "$dir/recvs.s" | head -5
fi

rc=0
PANGAEA_STALL=5 timeout 120 "$PANGAEA" -replay -logdir "$logs" "$LOAD" 4 100000000 \
    >"$dir/rep.out" 2>"$dir/rep.err" || rc=$?
if [ "$rc" -ne 0 ] && [ -n "$last" ] &&
   grep -q "ltid 3 (.*) at event $((last + 1)): recorded nothing more (the task died here when recorded)" "$dir/rep.err"; then
    pg_pass "the replay stops where ltid 3 died (event $last), says so, exit $rc"
else
    pg_fail "replay of the killed run: exit $rc"; head -5 "$dir/rep.err"
fi

# --- (b) abort() under one order -----------------------------------------

rc=0
for i in $(seq 30); do
    rc=0
    timeout 60 "$PANGAEA" -log -logdir "$dir/abort$i" "$CRASH" 2 4 3 abort \
        >"$dir/ab.out" 2>"$dir/ab.err" || rc=$?
    [ "$rc" -ne 0 ] && break
done
n=$(sed -nE 's/.*ltid 1 \(.*plain_crash\) died of SIGABRT after event ([0-9]+) of its log.*/\1/p' "$dir/ab.err" | head -1)
"$PANGAEA" -tasks "$dir/abort$i" >"$dir/ab.tasks" 2>&1
if [ "$rc" -ne 0 ] && [ -n "$n" ] &&
   grep -q "ltid-1.comm.pgc: stops after event $n without closing" "$dir/ab.tasks"; then
    pg_pass "abort() in run $i: pangaea says ltid 1 died of SIGABRT after event $n, and its log ends there"
else
    pg_fail "abort() run $i: exit $rc, event '${n}':"; cat "$dir/ab.err" "$dir/ab.tasks"
fi

pg_pvm_stop
pg_summary
