#!/usr/bin/env bash
# test_mhf.sh - messages taken by message handlers (pvm_addmhf) are
# recorded and replayed like receives.
#
# Design.  tests/programs/plain_mhf.c: the master's handler takes the
# workers' notes while its main loop takes their results, both from any
# worker, and it prints the interleaving.  Checks: unrecorded runs differ
# (so the replay check can fail); the recording logs every note as a
# <recv call="pvm_addmhf">; 10 replays print exactly the recorded trace.
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
pg_summary
