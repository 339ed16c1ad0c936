#!/usr/bin/env bash
# test_realprog_inherit.sh - pvm-examples' inherit1 and `task1 svc`, as
# they come from Debian, record and replay.
#
# Design.  inherit1 started by hand sends its reports to pvm_parent(),
# which is PvmNoParent: PVM refuses each such send (PvmBadParam) before any
# traffic.  The recording has no event for them, so the replay must not
# check them as sends (it used to diverge at once).  Nor may the
# coordinator print PVM's own complaints ("pvm_pstat(): Bad parameter")
# into the program's output.
# `task1 svc` finds the server `task0 svc` (started by hand, outside the
# run) in a mailbox and talks to it.  Recorded on a fresh pvmd, task0 has
# t40001; the replay runs on another fresh pvmd with task0 gone, where
# t40001 is `pangaea`'s own: the replayed send to the recorded t40001 must
# be taken as a send outside the run at once, not wait for a task of the
# run to register as t40001 (the coordinator says so when it gives up).
set -u
. "$(dirname "$0")/lib.sh"

command -v inherit1 >/dev/null && command -v task0 >/dev/null ||
    pg_skip "pvm-examples not installed (install-deps.sh test installs it)"
PANGAEA=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
t0pid=
stop_task0() {
    [ -n "$t0pid" ] || return 0
    kill "$t0pid" 2>/dev/null; wait "$t0pid" 2>/dev/null; t0pid=
}
trap 'stop_task0; pg_cleanup' EXIT

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
rc=0
(cd "$dir" && timeout 60 "$PANGAEA" -log -logdir "$dir/in.logs" inherit1) \
    </dev/null >"$dir/in.rec" 2>&1 || rc=$?
rrc=0
(cd "$dir" && timeout 60 "$PANGAEA" -replay -logdir "$dir/in.logs" inherit1) \
    </dev/null >"$dir/in.rep" 2>&1 || rrc=$?
nbad=$(grep -c 'pvm_send(): Bad parameter' "$dir/in.rep")
if [ "$rc" -eq 0 ] && [ "$rrc" -eq 0 ] && [ "$nbad" -eq 5 ] &&
   ! grep -q 'diverged' "$dir/in.rep"; then
    pg_pass "inherit1 records and replays; its 5 refused sends to PvmNoParent fail again, unchecked"
else
    pg_fail "inherit1: record exit $rc, replay exit $rrc, $nbad refused sends"
    cat "$dir/in.rec" "$dir/in.rep"
fi
if ! grep -q '^\[coord\]' "$dir/in.rec" "$dir/in.rep"; then
    pg_pass "the coordinator prints nothing into the program's output"
else
    pg_fail "the coordinator spoke:"; grep -h '^\[coord\]' "$dir/in.rec" "$dir/in.rep"
fi

pg_pvm_stop
pg_pvm_start || { pg_fail "cannot start a second private pvmd"; pg_summary; exit 1; }
task0 svc >"$dir/task0.out" 2>&1 &
t0pid=$!
for i in $(seq 100); do grep -q 'task0: t' "$dir/task0.out" && break; sleep 0.1; done
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/svc.logs" task1 svc </dev/null \
    >"$dir/svc.rec" 2>&1 || rc=$?
stop_task0
server=$(sed -n 's/.*from task t\([0-9a-f]*\) welcome.*/\1/p' "$dir/svc.rec")
pg_pvm_stop
pg_pvm_start || { pg_fail "cannot start a third private pvmd"; pg_summary; exit 1; }
rrc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/svc.logs" task1 svc </dev/null \
    >"$dir/svc.rep" 2>&1 || rrc=$?
# tids differ between runs: compare the server's words, not task1's tid.
words() { grep -o 'from task t[0-9a-f]* welcome.*\|service name <svc>.*' "$1"; }
if [ "$rc" -eq 0 ] && [ "$rrc" -eq 0 ] && [ "$server" = 40001 ] &&
   [ -n "$(words "$dir/svc.rec")" ] &&
   [ "$(words "$dir/svc.rec")" = "$(words "$dir/svc.rep")" ] &&
   ! grep -q 'registered' "$dir/svc.rep"; then
    pg_pass "task1 svc replays with task0 gone and its tid t$server now pangaea's, with no wait for a task to register"
else
    pg_fail "task1 svc: record exit $rc (server t$server), replay exit $rrc"
    cat "$dir/svc.rec" "$dir/svc.rep"
fi

pg_summary
