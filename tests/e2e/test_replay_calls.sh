#!/usr/bin/env bash
# test_replay_calls.sh - a program per row of src/pvm/wrap/pg_api.def that is
# replayed beyond messages: its output depends on what the call returned.
#
# Design.  For each case (pg_replay_case): 6 runs under `pangaea -none` must
# print at least two different outputs (else the replays prove nothing),
# one run is recorded, and 5 replays must each print exactly what the
# recording printed.  The cases:
# - plain_mailbox mbox: workers race to pvm_putinfo; the master reads the
#   entries with pvm_recvinfo and unpacks each as the active receive
#   buffer, asks pvm_getmboxinfo, and the workers pvm_delinfo;
# - plain_mailbox db: the same through pvm_insert, pvm_lookup, pvm_delete;
# - plain_select: the master waits in select() on pvm_getfds() and takes
#   messages with pvm_nrecv (a replay hung when the next message was
#   already in PVM's queue);
# - plain_freeze: workers join, all members pvm_freezegroup, a late join
#   fails, then the members leave (a replay stalled: the failed join's
#   turn among joins and leaves was not taken).
# - plain_hostsync: pvm_hostsync's clock and offset, given back in replay.
# And pvm_getopt: plain_getopt's output and trace settings under pangaea
# -log are those of a plain run (they were pangaea's), also in a parent
# that called pvm_catchout and in its child.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
PG_RUNS=5
PG_FREE_RUNS=6

pg_replay_case "plain_mailbox mbox (pvm_putinfo, pvm_recvinfo, pvm_getmboxinfo, pvm_delinfo)" \
    "$PG_BUILD/tests/plain_mailbox" mbox
pg_replay_case "plain_mailbox db (pvm_insert, pvm_lookup, pvm_delete)" \
    "$PG_BUILD/tests/plain_mailbox" db

pg_replay_case "plain_select (select() on pvm_getfds, then pvm_nrecv)" \
    "$PG_BUILD/tests/plain_select"
if grep -q '^\[1\] empty polls: some' "$(dirname "$PG_CASE_LOGS")/rec.out"; then
    pg_pass "plain_select: the recording waited in select() (some polls found nothing)"
else
    pg_fail "plain_select: the recording never waited in select(): the case proves nothing"
fi
pg_replay_case "plain_freeze (joins, pvm_freezegroup, a join that fails, leaves)" \
    "$PG_BUILD/tests/plain_freeze"
pg_replay_case "plain_hostsync (a host's clock, to the microsecond)" \
    "$PG_BUILD/tests/plain_hostsync"

for how in "" -catchout; do
    dir=$(pg_tmpdir)
    "$PG_BUILD/tests/plain_getopt" $how >"$dir/plain" 2>&1
    timeout 60 "$PG_BUILD/pangaea" -log -logdir "$dir/logs" "$PG_BUILD/tests/plain_getopt" $how \
        >"$dir/rec" 2>"$dir/rec.err"
    sed 's/^\[1\] //' "$dir/rec" >"$dir/rec.bare"
    if [ "$(wc -l <"$dir/plain")" -eq 2 ] && cmp -s "$dir/plain" "$dir/rec.bare"; then
        pg_pass "pvm_getopt${how:+ after pvm_catchout}: a task and its child see a plain run's output settings under pangaea -log"
    else
        pg_fail "pvm_getopt${how:+ after pvm_catchout} under pangaea differs from a plain run (< plain, > pangaea):"
        diff "$dir/plain" "$dir/rec.bare" | head -6
    fi
done

pg_pvm_stop
pg_summary
