#!/usr/bin/env bash
# test_debug_kill.sh - `pangaea` killed during -debug leaves nothing
# behind: not the tmux session it named, not gdb, not the task gdb holds.
#
# Design.  A recording of plain_race is replayed with -debug 1:N outside
# tmux (pangaea then makes a tmux session of its own, on a socket it
# names).  Once gdb holds the task at event N, the task's pid (pangaea's
# "is at event" line names it) and gdb's (its parent) are noted, and
# pangaea gets SIGTERM, as a user's kill would send.  Then the socket's
# tmux server, gdb and the task must all be gone, within 30 seconds
# (gdb alone was still there after 10 on a machine at load 30-50).
# Whatever this test started is ended by its PID or socket on the way out.
# Then gdb is quit at a task's crash: no "bad log" may follow.
set -u
. "$(dirname "$0")/lib.sh"

command -v gdb >/dev/null && command -v tmux >/dev/null ||
    pg_skip "gdb or tmux not installed (install-deps.sh test installs them)"
PANGAEA=$PG_BUILD/pangaea
RACE=$PG_BUILD/tests/plain_race
export PVM_DEBUGGER=$PG_BUILD/pangaea-debugger # the pvmd's, for -debug
dir=$(pg_tmpdir)
sock= runner= task= gdbpid=
leftovers() {
    [ -n "$sock" ] && tmux -S "$sock" kill-server 2>/dev/null
    [ -n "$runner" ] && kill -KILL "$runner" 2>/dev/null
    [ -n "$task" ] && kill -KILL "$task" 2>/dev/null
    [ -n "$gdbpid" ] && kill -KILL "$gdbpid" 2>/dev/null
}
trap 'leftovers; pg_cleanup' EXIT
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$RACE" >/dev/null 2>"$dir/rec.err" ||
    { pg_fail "recording plain_race failed"; cat "$dir/rec.err"; pg_summary; exit 1; }
N=$(pg_comm_xml "$dir/logs" 1 | grep '<recv ' | sed -n '5s/.* seq="\([0-9]*\)".*/\1/p')

( unset TMUX; export TMPDIR=$dir; exec timeout 120 "$PANGAEA" -replay -debug "1:$N" \
    -logdir "$dir/logs" "$RACE" >"$dir/dbg.out" 2>"$dir/dbg.err" ) &
runner=$!
for i in $(seq 600); do
    grep -q "is at event $N: .* pid [0-9]*" "$dir/dbg.err" 2>/dev/null && break
    sleep 0.1
done
sock=$(grep -Eo 'tmux -S [^ ]+ attach' "$dir/dbg.err" | awk '{print $3}')
task=$(grep -Eo "is at event $N: .* pid [0-9]+" "$dir/dbg.err" | grep -Eo '[0-9]+$')
[ -n "$task" ] && gdbpid=$(awk '/^PPid:/ {print $2}' "/proc/$task/status" 2>/dev/null)
# pangaea itself: the child of timeout (the subshell exec'd it).  The
# stat files are read through cat, which goes past a process that ended
# meanwhile; Debian's awk (mawk) stops at the first file it cannot open.
top=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$runner" '$4 == p {print $1}' | head -n 1)
if [ -n "$task" ] && [ -n "$gdbpid" ] && [ "$(cat "/proc/$gdbpid/comm" 2>/dev/null)" = gdb ] &&
   [ -n "$sock" ] && [ "$(cat "/proc/$top/comm" 2>/dev/null)" = pangaea ]; then
    kill -TERM "$top"
    gone= # gdb leaves its killed inferior slowly on a loaded machine: 30 s
    for i in $(seq 300); do
        if [ ! -e "/proc/$task" ] && [ ! -e "/proc/$gdbpid" ] &&
           ! tmux -S "$sock" has-session 2>/dev/null; then
            gone=1; break
        fi
        sleep 0.1
    done
    if [ -n "$gone" ]; then
        pg_pass "pangaea killed during -debug: its tmux session, gdb ($gdbpid) and the task ($task) are gone"
    else
        pg_fail "left behind: task $([ -e "/proc/$task" ] && echo alive), gdb $([ -e "/proc/$gdbpid" ] && echo alive), tmux $(tmux -S "$sock" has-session 2>/dev/null && echo alive)"
    fi
else
    pg_fail "-debug 1:$N: no task held in gdb (task '$task', gdb '$gdbpid', socket '$sock', pangaea '$top')"; cat "$dir/dbg.err"
fi
wait "$runner" 2>/dev/null
runner=

# Quitting gdb at a task's crash (the logs in a -logdir of their own, the
# run started elsewhere): the task was killed, and that is all pangaea
# says; no "bad log" of a log looked for in logs/ (pangaea-debugger's own
# shell, which carries the library, used to take itself for the task).
timeout 60 "$PANGAEA" -log -logdir "$dir/crashlogs" "$PG_BUILD/tests/plain_segv" >/dev/null 2>&1
mkdir -p "$dir/elsewhere"
( cd "$dir/elsewhere" && unset TMUX && export TMPDIR=$dir/elsewhere &&
  exec timeout 120 "$PANGAEA" -replay -debug 1 -cwd recorded -logdir "$dir/crashlogs" \
      "$PG_BUILD/tests/plain_segv" >"$dir/q.out" 2>"$dir/q.err" ) &
runner=$!
sock=
for i in $(seq 300); do
    sock=$(grep -Eo 'tmux -S [^ ]+ attach' "$dir/q.err" 2>/dev/null | awk '{print $3}')
    [ -n "$sock" ] && tmux -S "$sock" capture-pane -p -t pangaea 2>/dev/null |
        grep -q 'received signal SIGSEGV' && break
    sleep 0.1
done
[ -n "$sock" ] && tmux -S "$sock" send-keys -t pangaea quit Enter
rc=0; wait "$runner" || rc=$?
runner=
if [ -n "$sock" ] && [ "$rc" -eq 4 ] && ! grep -q 'bad log' "$dir/q.err" &&
   grep -q 'ltid 1 (.*plain_segv.*) ended abnormally' "$dir/q.err"; then
    pg_pass "quitting gdb at the crash: the task ended abnormally, no 'bad log' (exit 4)"
else
    pg_fail "quitting gdb at the crash: exit $rc, socket '$sock'"; cat "$dir/q.err"
fi

pg_pvm_stop
pg_summary
