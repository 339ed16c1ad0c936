#!/usr/bin/env bash
# test_abnormal_end.sh - an abnormal end (a crash, a divergence that ends
# the run) costs no fixed wait.
#
# Design.  The coordinator waits PANGAEA_REPORT_GRACE seconds after a task
# ended without an exit report, in case the report is on another route.
# A crash the task caught reports itself, and the tasks `pangaea` kills
# after a divergence are announced first: neither may wait.  The test
# sets the grace to 600 s (exported to the coordinator) and gives each run
# 60 s: a run that waits out the grace is cut off by `timeout` (exit 124),
# whatever the load of the machine.  Each run must also end as it should:
# the crash named with its signal (exit 4), the divergence (exit 3).
# Last, a PVM error is told in its words, not only its number.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
export PANGAEA_REPORT_GRACE=600 PVM_EXPORT=PANGAEA_REPORT_GRACE

rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/segv" "$PG_BUILD/tests/plain_segv" </dev/null \
    >"$dir/segv.out" 2>"$dir/segv.err" || rc=$?
if [ "$rc" -eq 4 ] && grep -q 'ltid 1 (.*plain_segv) died of SIGSEGV' "$dir/segv.err"; then
    pg_pass "a crash ends the run at once, named: $(grep -m1 'died of' "$dir/segv.err")"
else
    pg_fail "crash: exit $rc (124: the grace was waited out)"; cat "$dir/segv.out" "$dir/segv.err"
fi

rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/args" "$PG_BUILD/tests/plain_args" 2000000 </dev/null \
    >/dev/null 2>"$dir/args.err" || rc=$?
[ "$rc" -eq 0 ] || { pg_fail "recording plain_args: exit $rc"; cat "$dir/args.err"; }
rc=0
timeout 60 "$PANGAEA" -replay -otherargs -logdir "$dir/args" "$PG_BUILD/tests/plain_args" 5 \
    </dev/null >"$dir/div.out" 2>"$dir/div.err" || rc=$?
if [ "$rc" -eq 3 ] && grep -q 'replay diverged in ltid 2' "$dir/div.err" &&
   grep -q 'ltid 1 .* stopped: the run was ended after an error' "$dir/div.err"; then
    pg_pass "a divergence ends the run at once, the task pangaea stopped named so"
else
    pg_fail "divergence: exit $rc (124: the grace was waited out)"; cat "$dir/div.out" "$dir/div.err"
fi

# A host the machine lacks is told in words, before anything starts (the
# host is checked before the spawn, so no PVM code reaches the user).
rc=0
timeout 60 "$PANGAEA" -log -host nohost -logdir "$dir/nohost" "$PG_BUILD/tests/plain_args" \
    </dev/null >/dev/null 2>"$dir/nohost.err" || rc=$?
if [ "$rc" -eq 4 ] && grep -q 'nohost: no host of that name' "$dir/nohost.err" &&
   ! grep -qE '(^|[^0-9])-[0-9]+\)' "$dir/nohost.err"; then
    pg_pass "a missing host is told in words: $(cat "$dir/nohost.err")"
else
    pg_fail "-host nohost: exit $rc"; cat "$dir/nohost.err"
fi

pg_pvm_stop
pg_summary
