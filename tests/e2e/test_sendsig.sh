#!/usr/bin/env bash
# test_sendsig.sh - a signal sent with pvm_sendsig lands, in replay, where
# it landed when recorded (src/lib/wrap_sig.c).
#
# plain_signal's child polls with pvm_nrecv until SIGUSR1 from its parent
# lands, and reports how many polls that took: unrecorded runs differ, and
# 5 replays of a recording print the recorded count (pg_replay_case).
# Then the signals files of that recording: the sender's "sent 0", the
# receiver's one landing; and a copy of the recording whose receiver's file
# has a line that is not one: its replay fails, naming the file and line.
# Last, plain_signal -term: SIGTERM, uncaught, ends the child inside its
# pvm_recv; 4 replays end it there too: the same output, the same exit
# status as the recording (4: a task ended abnormally).  And -compute, at
# the end.  The parent sends
# it 0.2 s after the child's word came: a replay that raised it in the
# child at once, not after the parent's call, ended the child before PVM
# delivered that word in about 1 replay in 3, and the parent waited for
# it until pangaea stopped the run.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
PG_RUNS=5
PG_FREE_RUNS=6

pg_replay_case "plain_signal (pvm_sendsig: where SIGUSR1 lands among the child's polls)" \
    "$PG_BUILD/tests/plain_signal"
if grep -q '^\[1\] child: SIGUSR1 landed after [0-9]* polls$' "$(dirname "$PG_CASE_LOGS")/rec.out"; then
    pg_pass "plain_signal: the recorded signal landed and the child counted its polls"
else
    pg_fail "plain_signal: the recording did not say where the signal landed:"
    cat "$(dirname "$PG_CASE_LOGS")/rec.out"
fi
if [ "$(cat "$PG_CASE_LOGS"/ltid-1.signals.pgc 2>/dev/null)" = "sent 0" ] &&
   grep -qx 'signal [0-9]* 10 [01]' "$PG_CASE_LOGS"/ltid-2.signals.pgc 2>/dev/null &&
   [ "$(wc -l <"$PG_CASE_LOGS"/ltid-2.signals.pgc)" -eq 1 ]; then
    pg_pass "plain_signal: the sender's signals file holds its call, the receiver's the one landing"
else
    pg_fail "plain_signal: unexpected signals files:"
    head "$PG_CASE_LOGS"/ltid-*.signals.pgc
fi

bad=$(pg_tmpdir)/logs
cp -r "$PG_CASE_LOGS" "$bad"
echo 'signal soon 10' >>"$bad/ltid-2.signals.pgc"
rc=0
timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$bad" "$PG_BUILD/tests/plain_signal" \
    >"$bad.out" 2>"$bad.err" || rc=$?
if [ "$rc" -ne 0 ] && grep -q "ltid-2.signals.pgc:2: not a line of a signals file" "$bad.out" "$bad.err"; then
    pg_pass "plain_signal: a replay refuses a bad line of a signals file, naming file and line (exit $rc)"
else
    pg_fail "plain_signal: a bad signals file: exit $rc, and no message naming it:"
    cat "$bad.out" "$bad.err" | head -8
fi

dir=$(pg_tmpdir)
rrc=0
timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$PG_BUILD/tests/plain_signal" -term \
    >"$dir/rec" 2>"$dir/rec.err" || rrc=$?
same=0
for i in 1 2 3 4; do
    rc=0
    timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$dir/logs" "$PG_BUILD/tests/plain_signal" -term \
        >"$dir/rep$i" 2>"$dir/rep$i.err" || rc=$?
    if [ "$rc" -eq "$rrc" ] && cmp -s "$dir/rec" "$dir/rep$i"; then
        same=$((same + 1))
    else
        bad=$i badrc=$rc
    fi
done
if [ "$rrc" -eq 4 ] && [ "$same" -eq 4 ] && grep -qx 'signal [0-9]* 15 1' "$dir/logs/ltid-2.signals.pgc" &&
   grep -q '^\[1\] parent: the child ended$' "$dir/rec"; then
    pg_pass "plain_signal -term: an uncaught SIGTERM ends the child inside its receive, in 4 of 4 replays as recorded (exit $rrc)"
else
    pg_fail "plain_signal -term: recording exit $rrc, $same of 4 replays the same:"
    cat "$dir/rec" "$dir/rec.err" "$dir/logs/ltid-2.signals.pgc" | head -12
    [ -n "${bad:-}" ] && echo "replay $bad (exit $badrc):" &&
        cat "$dir/rep$bad" "$dir/rep$bad.err" | head -12
fi

# plain_signal -compute: the child computes, without calling PVM, until
# SIGUSR1 lands, and prints how many rounds it made.  That instant is not
# kept: the recording and every replay name it at run time ("... is not
# replayed: this run may not repeat", on pangaea's stderr, naming the two
# calls it landed between), and a replay raises the signal as the call
# before it returns (its signals file: "signal N 10 0"), so the child
# counts 0 rounds there (its report prints the count ten wide: the same
# size as the recorded one, whose count grows with the machine's load).
dir=$(pg_tmpdir)
rrc=0
timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$PG_BUILD/tests/plain_signal" -compute \
    >"$dir/rec" 2>"$dir/rec.err" || rrc=$?
named="where signal 10 landed in the program's own code, between its PVM calls [0-9]* and [0-9]*, is not replayed: this run may not repeat"
said=0 zero=0
for i in 1 2 3; do
    timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$dir/logs" "$PG_BUILD/tests/plain_signal" -compute \
        >"$dir/rep$i" 2>"$dir/rep$i.err" || true
    grep -q "$named" "$dir/rep$i.err" && said=$((said + 1))
    grep -q '^\[1\] child: SIGUSR1 landed after  *0 rounds$' "$dir/rep$i" && zero=$((zero + 1))
done
if [ "$rrc" -eq 0 ] && grep -q "$named" "$dir/rec.err" && [ "$said" -eq 3 ] && [ "$zero" -eq 3 ] &&
   grep -qx 'signal [0-9]* 10 0' "$dir/logs/ltid-2.signals.pgc"; then
    pg_pass "plain_signal -compute: a signal landing in the program's own code is named as not replayed, recorded and in 3 of 3 replays, which raise it as the call before returns"
else
    pg_fail "plain_signal -compute: recording exit $rrc, named in $said of 3 replays, 0 rounds in $zero:"
    cat "$dir/rec" "$dir/rec.err" "$dir/logs/ltid-2.signals.pgc" "$dir/rep1" "$dir/rep1.err" | head -14
fi

pg_pvm_stop
pg_summary
