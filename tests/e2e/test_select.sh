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

# count LOGDIR LTID ELEMENT: how many <ELEMENT> a communication log holds.
count() { pg_comm_xml "$1" "$2" | grep -c "<$3 "; }

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

K=3 M=15
pg_replay_case "suspended region (pangaea_suspend/resume)" \
    "$PG_BUILD/tests/select" -suspend
n=$(count "$PG_CASE_LOGS" 1 recv)
if [ "$n" -eq $((K * M)) ]; then
    pg_pass "suspended region: the master logged $n receives, none of the $((K * M)) suspended ones"
else
    pg_fail "suspended region: the master logged $n receives, wanted $((K * M))"
fi

PG_OPTS=(-only tag=5)
pg_replay_case "-only tag=5 (no recompilation)" "$PG_BUILD/tests/select"
PG_OPTS=()
n=$(count "$PG_CASE_LOGS" 1 recv)
s=$(for l in 2 3 4; do pg_comm_xml "$PG_CASE_LOGS" $l; done | grep -c "<send ")
if [ "$n" -eq $((K * M)) ] && [ "$s" -eq $((K * M)) ] &&
   pg_comm_xml "$PG_CASE_LOGS" 1 | grep -q 'select="tag=5"' &&
   ! pg_comm_xml "$PG_CASE_LOGS" | grep -q 'tag="9"'; then
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

# -move rewrites an execution log: its header must keep select=, or a
# moved selective recording would replay as a full one.
host=$(grep -o '<child ltid="1" host="[^"]*"' "$PG_CASE_LOGS/ltid-0.exec.xml" |
       sed 's/.*host="//; s/"$//')
# (moved away and back: a move to the host it has already changes nothing)
if "$PG_BUILD/pangaea" -move 1 elsewhere -logdir "$PG_CASE_LOGS" >"$dir/move" 2>&1 &&
   grep -q 'select="tag=5"' "$PG_CASE_LOGS/ltid-0.exec.xml" &&
   "$PG_BUILD/pangaea" -move 1 "$host" -logdir "$PG_CASE_LOGS" >>"$dir/move" 2>&1 &&
   grep -q 'select="tag=5"' "$PG_CASE_LOGS/ltid-0.exec.xml" &&
   "$PG_BUILD/pangaea" -replay -logdir "$PG_CASE_LOGS" "$PG_BUILD/tests/select" \
       >/dev/null 2>"$dir/err3" &&
   grep -q "replaying with the selection the recording was made with: tag=5" "$dir/err3"; then
    pg_pass "-move 1 elsewhere, then back to $host, keeps select=\"tag=5\" in ltid-0.exec.xml, and the replay follows it"
else
    pg_fail "-move 1 $host lost the selection of ltid-0.exec.xml"
    cat "$dir/move" "$PG_CASE_LOGS/ltid-0.exec.xml" "$dir/err3"
fi

pg_replay_case "failed nrecv polls and trecv time-outs counted and replayed" \
    "$PG_BUILD/tests/plain_poll"

pg_summary
