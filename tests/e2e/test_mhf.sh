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
# of the next once logged alike, and 1 recording in 3 replayed another
# trace under load).
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
pg_summary
