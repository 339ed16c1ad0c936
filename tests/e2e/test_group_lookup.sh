#!/usr/bin/env bash
# test_group_lookup.sh - a collective's lookups of its group's members are
# replayed between the same joins and leaves as recorded.
#
# tests/programs/group_barriers.c ends with a pvm_reduce to instance 0,
# after which each member leaves the group; who takes part in the reduce
# is what each task's lookups inside libgpvm3 find in the group.  Recorded
# with group_barriers.slow (members wait before leaving, task 1 longer:
# task 1's lookups find all three, and the members leave before task 1
# does), replayed with group_barriers.late instead (task 1 waits
# before its pvm_reduce: unordered, the members would have left by its
# lookups, and it would take none of their values).  Each replay must end
# with status 0 and print the recorded lines ("total 6", "max instance
# N"): the lookups hold a turn of the group (a "pvm_group_lookup" query in
# the log), so the members' leaves wait for them.
#
# A program may also ask the server itself with pvm_grphostinfo (exported
# by libgpvm3, not in pvm3.h): tests/programs/group_hostinfo.c does; its
# recording and replay name the call as not replayed, and the pvm_reduce
# of group_barriers, which asks it inside libgpvm3, names nothing.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/group_barriers
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

lines() { sed -n 's/^\[[0-9]*\] //p' "$1" | sort; }

: >group_barriers.slow
rc=0
timeout 120 "$PANGAEA" -log -logdir rec "$PROG" >rec.out 2>&1 || rc=$?
rm -f group_barriers.slow
if [ "$rc" -ne 0 ] || ! grep -q "max instance 2" rec.out; then
    pg_fail "the recording: exit $rc, want 'max instance 2' (the three members)"
    cat rec.out
fi
n=$("$PANGAEA" -dump rec 1 | grep -c 'call="pvm_group_lookup" about="bars"')
[ "$n" -eq 1 ] && pg_pass "task 1's pvm_reduce logged its lookups' turn" ||
    pg_fail "task 1's log has $n pvm_group_lookup queries, want 1"

: >group_barriers.late
bad=0
for i in 1 2 3; do
    rc=0
    timeout 120 "$PANGAEA" -replay -logdir rec "$PROG" >rp$i.out 2>&1 || rc=$?
    if [ "$rc" -ne 0 ] || [ "$(lines rp$i.out)" != "$(lines rec.out)" ]; then
        bad=$((bad + 1)); echo "replay $i: exit $rc"; cat rp$i.out
    fi
done
rm -f group_barriers.late
[ "$bad" -eq 0 ] &&
    pg_pass "3 of 3 replays with task 1 late to its pvm_reduce print the recorded lines" ||
    pg_fail "$bad of 3 replays with task 1 late differ from the recording"

if grep -q "is not replayed" rec.out rp1.out 2>/dev/null; then
    pg_fail "a pvm_reduce named a call of libgpvm3's own as not replayed"
    grep "is not replayed" rec.out rp1.out
else
    pg_pass "pvm_reduce's own lookups are not named as unreplayed"
fi
HPROG=$PG_BUILD/tests/group_hostinfo
rc=0 rc2=0
timeout 120 "$PANGAEA" -log -logdir hinfo "$HPROG" >hinfo.out 2>&1 || rc=$?
timeout 120 "$PANGAEA" -replay -logdir hinfo "$HPROG" >hinfo.rp 2>&1 || rc2=$?
if [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] &&
        grep -q "pvm_grphostinfo is not replayed: this run may not repeat" hinfo.out &&
        grep -q "pvm_grphostinfo is not replayed: this run may not repeat" hinfo.rp; then
    pg_pass "a program's own pvm_grphostinfo is named as not replayed, recording and replay"
else
    pg_fail "group_hostinfo: exit $rc/$rc2, want pvm_grphostinfo named"
    cat hinfo.out hinfo.rp
fi

cd / && pg_summary
