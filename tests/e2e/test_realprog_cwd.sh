#!/usr/bin/env bash
# test_realprog_cwd.sh - the program's tasks start in the directory
# pangaea was started in, which the execution log records, and a replay
# starts them in the recorded one.
#
# Design.  plain_stdio's first task prints its directory and each child
# reads ./input.txt (a relative path) and sends back its directory and the
# line.  Recorded in directory A (not the pvmd's, which is $HOME): every
# task must say A and read A's input.txt, and ltid-0.exec.xml must say
# cwd="A".  Replayed from directory B, the replay is refused (a recording
# chooses no directory unasked), naming A, B and -cwd recorded; with -cwd
# recorded the output must be the recorded one (tasks in A again, B's own
# input.txt unread) and pangaea must say where they start.  With A gone, the replay must warn that the recorded
# directory does not exist here and run the tasks in the current one.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_stdio
dir=$(pg_tmpdir)
A=$dir/here-A B=$dir/here-B # same length: the messages keep their sizes
mkdir -p "$A" "$B"
echo "input of A" >"$A/input.txt"
echo "input of B" >"$B/input.txt"
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

cd "$A" || exit 1
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$PROG" 3 </dev/null >"$dir/rec.out" 2>"$dir/rec.err" || rc=$?
n=$(grep -c "^\[1\] child [0-9]: cwd $A, input.txt: input of A\$" "$dir/rec.out")
if [ "$rc" -eq 0 ] && grep -q "^\[1\] cwd $A\$" "$dir/rec.out" && [ "$n" -eq 3 ]; then
    pg_pass "the first task and its 3 children ran in $A and read its input.txt"
else
    pg_fail "recording: exit $rc, $n children in A"; cat "$dir/rec.out" "$dir/rec.err"
fi
if grep -q "<header [^>]*ltid=\"0\"[^>]* cwd=\"$A\"" "$dir/logs/ltid-0.exec.xml" &&
   grep -q " cwd=\"$A\"" "$dir/logs/ltid-2.exec.xml"; then
    pg_pass "the execution logs record the working directory (cwd=\"$A\")"
else
    pg_fail "no cwd= in the execution logs"; head -3 "$dir/logs/ltid-0.exec.xml"
fi

cd "$B" || exit 1
rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$PROG" 3 </dev/null >"$dir/no.out" 2>"$dir/no.err" || rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$dir/no.out" ] &&
   grep -q "ran its tasks in $A, not in this directory ($B).*-cwd recorded" "$dir/no.err"; then
    pg_pass "a replay started in $B is refused without -cwd recorded, naming $A and $B"
else
    pg_fail "replay from B without -cwd recorded: exit $rc"; cat "$dir/no.out" "$dir/no.err"
fi
rc=0
timeout 60 "$PANGAEA" -replay -cwd recorded -logdir "$dir/logs" "$PROG" 3 </dev/null >"$dir/rep.out" 2>"$dir/rep.err" || rc=$?
if [ "$rc" -eq 0 ] && cmp -s "$dir/rec.out" "$dir/rep.out" &&
   grep -q "tasks start in $A, the directory of the recording" "$dir/rep.err"; then
    pg_pass "a replay started in $B with -cwd recorded runs the tasks in the recorded $A, and says so"
else
    pg_fail "replay from B: exit $rc"; diff "$dir/rec.out" "$dir/rep.out"; cat "$dir/rep.err"
fi

mv "$A" "$dir/moved-A"
rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$PROG" 3 </dev/null >"$dir/gone.out" 2>"$dir/gone.err" || rc=$?
n=$(grep -c "^\[1\] child [0-9]: cwd $B, input.txt: input of B\$" "$dir/gone.out")
if [ "$rc" -eq 0 ] && [ "$n" -eq 3 ] &&
   grep -q "warning: the recorded working directory $A does not exist here: tasks start in $B" "$dir/gone.err"; then
    pg_pass "with $A gone, the replay warns and runs the tasks in the current directory"
else
    pg_fail "replay with the recorded directory gone: exit $rc, $n children in B"; cat "$dir/gone.out" "$dir/gone.err"
fi

cd / && pg_pvm_stop
pg_summary
