#!/usr/bin/env bash
# test_crash.sh - a task that crashes under one message order only.
#
# Design.  plain_crash's master writes through NULL when its 6th receive
# is from worker 2 (about one run in three).  On a private pvmd, record it
# with `pangaea -log` up to PG_CRASH_TRIES (30) times, each into a fresh
# log dir, until a run fails.  Then: pangaea exits non-zero and its stderr
# names the task that died (ltid 1, plain_crash); the master's comm log,
# cut short by the crash, still holds every receive the master printed
# before dying, in the same order (worker I is ltid I+1, its J-th message
# has msgid J).  Then 10 replays of the crashed recording must each die
# the same way, at the same event of the same task.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
CRASH=$PG_BUILD/tests/plain_crash
TRIES=${PG_CRASH_TRIES:-30}
dir=$(pg_tmpdir)

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

rc=0
for i in $(seq "$TRIES"); do
    logs=$dir/run$i
    rc=0
    timeout 60 "$PANGAEA" -log -logdir "$logs" "$CRASH" >"$dir/out" 2>"$dir/err" || rc=$?
    [ "$rc" -ne 0 ] && break
done

if [ "$rc" -eq 0 ]; then
    pg_fail "no run of $TRIES crashed"
    pg_pvm_stop; pg_summary; exit 1
fi
if grep -q "crashing at receive" "$dir/out"; then
    pg_pass "run $i of at most $TRIES crashed: $(grep crashing "$dir/out")"
else
    pg_fail "run $i failed (exit $rc) without crashing"; cat "$dir/out" "$dir/err"
fi
died=$(grep -Eo "ltid 1 \(.*plain_crash\) died of SIGSEGV after event [0-9]+" "$dir/err")
if [ -n "$died" ]; then
    pg_pass "pangaea exits $rc and says which task died, how and after which event: $died"
else
    pg_fail "pangaea (exit $rc) does not name the task that died:"; cat "$dir/err"
fi

# The receives the master printed, as "from msgid", against those logged.
sed -nE 's/^\[1\] recv [0-9]+: worker ([0-9]+) msg ([0-9]+)$/\1 \2/p' "$dir/out" |
    while read -r w j; do echo "$((w + 1)) $j"; done >"$dir/printed"
pg_comm_xml "$logs" 1 | grep -o '<recv [^>]*>' |
    sed -E 's/.* from="([0-9]+)".* msgid="([0-9]+)".*/\1 \2/' >"$dir/logged"
if [ -s "$dir/printed" ] && cmp -s "$dir/printed" "$dir/logged"; then
    pg_pass "the crashed task's comm log holds all $(wc -l <"$dir/logged") receives it made, in order"
else
    pg_fail "the crashed task's comm log differs from what it printed"
    diff "$dir/printed" "$dir/logged" | head
fi
# The cut log still reads back through the library, up to the cut.
if "$PG_BUILD/fuzz/replay_corpus" "$logs/ltid-1.comm.pgc" >/dev/null 2>&1; then
    pg_pass "the cut comm log reads back through the log reader without a crash"
else
    pg_fail "the log reader crashed on the cut comm log"
fi

# Replayed, the run takes the same order and dies at the same event.
same=0
for j in $(seq 10); do
    rrc=0
    timeout 60 "$PANGAEA" -replay -logdir "$logs" "$CRASH" >"$dir/rout" 2>"$dir/rerr" || rrc=$?
    if [ "$rrc" -ne 0 ] && [ -n "$died" ] && grep -qF "$died" "$dir/rerr"; then
        same=$((same + 1))
    else
        echo "replay $j: exit $rrc"; cat "$dir/rerr"
    fi
done
if [ "$same" -eq 10 ]; then
    pg_pass "10 replays of the crashed run crash at the same event of the same task"
else
    pg_fail "$same of 10 replays crashed like the recording"
fi

pg_pvm_stop
pg_summary
