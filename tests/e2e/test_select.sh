#!/usr/bin/env bash
# test_select.sh - selective logging and exact replay of polls.
#
# A program that suspends Pangaea around a region records only the rest and
# still replays with identical output; the same selection made from the
# command line (-only tag=5) needs no change to the program; a program that
# prints how many polls found nothing prints other numbers in every free run
# and the recorded numbers in every replay.
set -u
. "$(dirname "$0")/lib.sh"

# count FILE ELEMENT: how many <ELEMENT> a log holds.
count() { grep -c "<$2 " "$1"; }

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

K=3 M=15
pg_replay_case "suspended region (pangaea_suspend/resume)" \
    "$PG_BUILD/tests/select" -suspend
n=$(count "$PG_CASE_LOGS/ltid-1.comm.xml" recv)
if [ "$n" -eq $((K * M)) ]; then
    pg_pass "suspended region: the master logged $n receives, none of the $((K * M)) suspended ones"
else
    pg_fail "suspended region: the master logged $n receives, wanted $((K * M))"
fi

PG_OPTS=(-only tag=5)
pg_replay_case "-only tag=5 (no recompilation)" "$PG_BUILD/tests/select"
PG_OPTS=()
n=$(count "$PG_CASE_LOGS/ltid-1.comm.xml" recv)
s=$(cat "$PG_CASE_LOGS"/ltid-[234].comm.xml | grep -c "<send ")
if [ "$n" -eq $((K * M)) ] && [ "$s" -eq $((K * M)) ] &&
   grep -q 'select="tag=5"' "$PG_CASE_LOGS/ltid-1.comm.xml" &&
   ! grep -q 'tag="9"' "$PG_CASE_LOGS"/ltid-*.comm.xml; then
    pg_pass "-only tag=5: only tag 5 in the logs ($n receives, $s sends), and the logs say select=\"tag=5\""
else
    pg_fail "-only tag=5: logs hold $n receives and $s sends, or tag 9, or no select attribute"
fi
dir=$(pg_tmpdir)
if "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$PG_BUILD/tests/select" \
       >/dev/null 2>"$dir/err" &&
   grep -q "replaying with the selection the recording was made with: tag=5" "$dir/err"; then
    pg_pass "a replay says it uses the recording's selection"
else
    pg_fail "the replay did not say which selection it follows"; cat "$dir/err"
fi
rc=0
"$PG_BUILD/pangaea" -replay -only tag=9 -logdir "$PG_CASE_LOGS" \
    "$PG_BUILD/tests/select" >/dev/null 2>"$dir/err2" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "uses the selection its recording was made with" "$dir/err2"; then
    pg_pass "a replay refuses another selection than its recording's"
else
    pg_fail "replay with another -only: exit $rc"; cat "$dir/err2"
fi

pg_replay_case "failed nrecv polls and trecv time-outs counted and replayed" \
    "$PG_BUILD/tests/plain_poll"

pg_summary
