#!/usr/bin/env bash
# test_freeze.sh - pvm_freezegroup is replayed: the group freezes with the
# members it had when recorded, and the call answers as recorded.
#
# tests/programs/plain_freeze.c in `now` mode: the master and one worker
# join a group and both freeze it at its current size (-1).  Whether the
# worker is a member when the master's freeze reaches the server is
# timing: recorded with plain_freeze.slow (the master waits, the worker
# has joined: "worker joined: 1"), an unrecorded run with plain_freeze.late
# (the worker waits) prints another line ("worker joined: -20"); replays
# with plain_freeze.late must print the recorded line and end with status
# 0 (each freeze asks the server after the joins it came after when
# recorded).  Also: pvm_freezegroup is no longer named as not replayed,
# and its answer is a <query> of the log.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_freeze
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

out() { sed -n 's/^\[1\] //p' "$1"; }
want="worker joined: 1, its freeze: 2, the master's freeze: 2"

: >plain_freeze.slow
rc=0
timeout 120 "$PANGAEA" -log -logdir rec "$PROG" now >rec.out 2>&1 || rc=$?
rm -f plain_freeze.slow
if [ "$rc" -eq 0 ] && [ "$(out rec.out)" = "$want" ] &&
        ! grep -q "not replayed" rec.out &&
        "$PANGAEA" -dump rec 1 | grep -q 'call="pvm_freezegroup" about="plain_freeze -1" value="2"'; then
    pg_pass "recorded: '$want', pvm_freezegroup's answer logged, not named as unreplayed"
else
    pg_fail "the recording: exit $rc, want '$want' and a pvm_freezegroup query"
    cat rec.out
fi

: >plain_freeze.late
rc=0
timeout 120 "$PANGAEA" -log -logdir free "$PROG" now >free.out 2>&1 || rc=$?
[ "$(out free.out)" != "$want" ] &&
    pg_pass "an unrecorded run with the worker late prints another line ($(out free.out))" ||
    pg_fail "the run with the worker late printed '$(out free.out)' (exit $rc): the test's race did not happen"
bad=0
for i in 1 2 3; do
    rc=0
    timeout 120 "$PANGAEA" -replay -logdir rec "$PROG" now >rp$i.out 2>&1 || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(out rp$i.out)" != "$want" ]; then
        bad=$((bad + 1)); echo "replay $i: exit $rc"; cat rp$i.out
    fi
done
rm -f plain_freeze.late
[ "$bad" -eq 0 ] &&
    pg_pass "3 of 3 replays with the worker late print the recorded line" ||
    pg_fail "$bad of 3 replays with the worker late differ from the recording"

cd / && pg_summary
