#!/usr/bin/env bash
# test_mhf.sh - messages taken by message handlers (pvm_addmhf) are
# recorded and replayed like receives.
#
# Design.  tests/programs/plain_mhf.c: the master's handler takes the
# workers' notes while its main loop takes their results, both from any
# worker, and it prints the interleaving.  Checks: unrecorded runs differ
# (so the replay check can fail); the recording logs every note as a
# <recv call="pvm_addmhf">; 10 replays print exactly the recorded trace;
# and so do the replays of 8 more recordings: where a handler ran relative
# to the program's code is decided when recording, so each recording must
# be tried (a handler run at the end of one call and one run at the start
# of the next were once logged alike, and 1 recording in 3 replayed
# another trace under load).  tests/programs/plain_mhf_late.c: a handler
# that runs while the main loop waits in a receive replays at that point.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
W=3 M=6
PG_RUNS=10
pg_replay_case "plain_mhf (a pvm_addmhf handler takes notes, the main loop results)" \
    "$PG_BUILD/tests/plain_mhf" $W $M
n=$(pg_comm_xml "$PG_CASE_LOGS" 1 | grep -c '<recv .*call="pvm_addmhf"')
if [ "$n" -eq $((W * M)) ]; then
    pg_pass "the $((W * M)) notes the handler took are logged as receives (call=\"pvm_addmhf\")"
else
    pg_fail "the handler's receives logged: $n, want $((W * M))"
fi

# More recordings, one replay each.
dir=$(pg_tmpdir)
bad=0
for i in 1 2 3 4 5 6 7 8; do
    timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/l$i" "$PG_BUILD/tests/plain_mhf" $W $M \
        >"$dir/rec$i.out" 2>"$dir/rec$i.err" || { bad=$((bad + 1)); continue; }
    timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$dir/l$i" "$PG_BUILD/tests/plain_mhf" $W $M \
        >"$dir/rep$i.out" 2>"$dir/rep$i.err" && cmp -s "$dir/rec$i.out" "$dir/rep$i.out" ||
        { bad=$((bad + 1)); diff "$dir/rec$i.out" "$dir/rep$i.out" | head -4; }
done
if [ "$bad" -eq 0 ]; then
    pg_pass "8 more recordings: each replay prints its recording's trace"
else
    pg_fail "$bad of 8 recordings did not replay their trace"
fi

# A note that arrives while the master waits in pvm_recv for the next
# result: its handler runs inside that receive (between the slices of
# the wait), after the master appended the previous result.  The replay
# must run it there too, not at the end of the previous receive: the log
# puts both between the two receives.  Three replays print the trace of
# the recording.
dir=$(pg_tmpdir)
if "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$PG_BUILD/tests/plain_mhf_late" 4 \
    >"$dir/rec.out" 2>"$dir/rec.err"; then
    same=0
    for i in 1 2 3; do
        "$PG_BUILD/pangaea" -replay -logdir "$dir/logs" \
            "$PG_BUILD/tests/plain_mhf_late" 4 >"$dir/rep$i.out" 2>"$dir/rep$i.err" &&
            cmp -s "$dir/rec.out" "$dir/rep$i.out" && same=$((same + 1))
    done
    if [ "$same" = 3 ]; then
        pg_pass "plain_mhf_late: a handler run inside a waiting pvm_recv replays there, 3 of 3 ($(cat "$dir/rec.out"))"
    else
        pg_fail "plain_mhf_late: $same of 3 replays print the recorded trace: $(cat "$dir/rec.out") / $(head -2 "$dir/rep1.out")"
    fi
else
    pg_fail "plain_mhf_late: recording failed: $(tail -2 "$dir/rec.err")"
fi
pg_summary
