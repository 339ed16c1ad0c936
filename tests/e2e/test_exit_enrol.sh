#!/usr/bin/env bash
# test_exit_enrol.sh - an exit path never enrols in PVM.
#
# A task whose pvmd is gone while it starts (its socket file is there and
# young, naming no daemon: libpvm then waits for the daemon to come up)
# fails to enrol once, and its exit path (the report to pangaea, leaving
# PVM) must not try again: each try waits for the daemon again, and tasks
# stayed alive about 110 s after pangaea ended.  Counted without timing:
# strace counts the task's reads of the pvmd file (libpvm reads it at
# each try); the task may read it no more than a plain PVM program that
# calls pvm_mytid and pvm_exit (once each) reads it, twice over.
set -u
. "$(dirname "$0")/lib.sh"

command -v strace >/dev/null || pg_skip "strace is not installed"
x=$(pg_tmpdir)
mkdir "$x/pvm" "$x/logs"
export PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
pvmd_file=$x/pvm/pvmd.$(id -u)
echo "$x/pvm/pvmtmp999999.0" >"$pvmd_file" # no such daemon

# reads TRACE: how often the traced processes opened the pvmd file.
reads() { grep -c "pvmd\.$(id -u)\"" "$1"; }

touch "$pvmd_file"
PVM_TMP=$x/pvm timeout 300 strace -f -o "$x/plain.trace" -e trace=openat \
    "$PG_BUILD/tests/plain_exit" -mytid >/dev/null 2>&1
touch "$pvmd_file"
PVM_TMP=$x/pvm timeout 300 strace -f -o "$x/task.trace" -e trace=openat \
    env PANGAEA_MODE=log PANGAEA_LTID=3 PANGAEA_LOGDIR="$x/logs" PANGAEA_CTX=5 \
    PANGAEA_COORD=262145 PANGAEA_TOP=262146 LD_PRELOAD="$PG_BUILD/libpangaea.so" \
    "$PG_BUILD/tests/plain_exit" >/dev/null 2>"$x/task.err"
rc=$?
plain=$(reads "$x/plain.trace") task=$(reads "$x/task.trace")
if [ "$rc" -ne 124 ] && [ "$plain" -ge 1 ] && [ "$task" -le $((2 * plain)) ]; then
    pg_pass "exit never enrols: the task tried the dead pvmd $task times (plain pvm_mytid + pvm_exit: $plain)"
else
    pg_fail "exit never enrols: exit $rc, the task tried the dead pvmd $task times (plain pvm_mytid + pvm_exit: $plain)"
fi
pg_summary
