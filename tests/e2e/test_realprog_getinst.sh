#!/usr/bin/env bash
# test_realprog_getinst.sh - a group lookup that fails (pvm_getinst of a
# task not in the group, of a group that does not exist; pvm_gettid of an
# instance nobody has) is recorded as a failure and replayed with the same
# error (the race in pvm-examples' `ge` fails a
# pvm_getinst now and then, and such a recording could never be replayed).
#
# Design.  group_lookup makes the three failing lookups every run, so no
# luck is needed.  The log must say which ltid the pvm_getinst asked about
# (ltid 2, its child) with the error as the instance; 5 replays must print
# exactly the recorded answers.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/group_lookup
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$PROG" </dev/null >"$dir/rec.out" 2>"$dir/rec.err" || rc=$?
err=$(sed -n 's/^\[1\] instance of the child, not a member: //p' "$dir/rec.out")
if [ "$rc" -eq 0 ] && [ -n "$err" ] && [ "$err" -lt 0 ] &&
   pg_comm_xml "$dir/logs" 1 | grep -q "<gettid [^>]*group=\"lookup\" inst=\"$err\" ltid=\"2\""; then
    pg_pass "the failed pvm_getinst of ltid 2 is logged as a failure ($err) about ltid 2"
else
    pg_fail "recording: exit $rc, error '$err'"; cat "$dir/rec.out" "$dir/rec.err"; pg_comm_xml "$dir/logs" 1
fi
pg_repeat 5 "$dir/rep" "$PANGAEA" -replay -logdir "$dir/logs" "$PROG"
same=0
for i in 1 2 3 4 5; do cmp -s "$dir/rec.out" "$dir/rep/$i.out" && same=$((same + 1)); done
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq 5 ]; then
    pg_pass "5 replays return the recorded errors (output identical)"
else
    pg_fail "$same of 5 replays match, $PG_REPEAT_BAD failed"; diff "$dir/rec.out" "$dir/rep/1.out"; cat "$dir/rep/1.err"
fi

pg_pvm_stop
pg_summary
