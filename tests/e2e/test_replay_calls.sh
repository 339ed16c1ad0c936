#!/usr/bin/env bash
# test_replay_calls.sh - a program per row of src/lib/pg_api.def that is
# replayed beyond messages: its output depends on what the call returned.
#
# Design.  For each case (pg_replay_case): 6 runs under `pangaea -none` must
# print at least two different outputs (else the replays prove nothing),
# one run is recorded, and 5 replays must each print exactly what the
# recording printed.  The cases:
# - plain_mailbox mbox: workers race to pvm_putinfo; the master reads the
#   entries with pvm_recvinfo and unpacks each as the active receive
#   buffer, asks pvm_getmboxinfo, and the workers pvm_delinfo;
# - plain_mailbox db: the same through pvm_insert, pvm_lookup, pvm_delete.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
PG_RUNS=5
PG_FREE_RUNS=6

pg_replay_case "plain_mailbox mbox (pvm_putinfo, pvm_recvinfo, pvm_getmboxinfo, pvm_delinfo)" \
    "$PG_BUILD/tests/plain_mailbox" mbox
pg_replay_case "plain_mailbox db (pvm_insert, pvm_lookup, pvm_delete)" \
    "$PG_BUILD/tests/plain_mailbox" db

pg_pvm_stop
pg_summary
