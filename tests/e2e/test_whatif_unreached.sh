#!/usr/bin/env bash
# test_whatif_unreached.sh - a what-if whose forced receive is never
# reached, on tests/programs/plain_whatif.c in `once` mode: the master
# takes its two results only the first time it runs in a directory (it
# leaves plain_whatif.once there), so a what-if of that recording follows
# it up to the forced receive and then ends without making it, without
# any recorded call going otherwise.
#
#  - -whatif says the forced receive was never reached, naming ltid, event
#    and call site (pvm_recv at plain_whatif.c:LINE), and exits 3, not 0
#    ("ended well" would claim a choice that was never tried);
#  - -explore counts that run as skipped (could not force its choice), not
#    as a distinct order, and says the exploration is not complete.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_whatif
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# The forced receive's line in the program: the pvm_recv of take_from.
line=$(grep -n 'check("pvm_recv", pvm_recv(tid, tag))' \
    "$PG_ROOT/tests/programs/plain_whatif.c" | cut -d: -f1)

if ! timeout 120 "$PANGAEA" -log -logdir base "$PROG" once >base.out 2>&1 ||
        ! grep -q '^\[1\] took 1 then 2$' base.out; then
    pg_fail "the recording failed"; cat base.out
fi
seq=$("$PANGAEA" -races -json base 2>/dev/null | python3 -S -c '
import json, sys
r = [x for x in json.load(sys.stdin)["races"] if x["ltid"] == 1]
print(r[0]["seq"] if r else "")')

rc=0
timeout 120 "$PANGAEA" -whatif "1:$seq=3:1" -logdir base -o wi "$PROG" once \
    >wi.out 2>&1 || rc=$?
if [ -n "$seq" ] && [ "$rc" -eq 3 ] && grep -q '^\[1\] results not taken$' wi.out &&
        grep -q "replay diverged in ltid 1 .*ended with status 0 before its forced receive, event $seq (pvm_recv at plain_whatif.c:$line), which was never reached" wi.out &&
        grep -q "ended with status 3 (it left its recording before the forced receive)" wi.out; then
    pg_pass "-whatif: the forced receive never reached is named (ltid 1, event $seq, plain_whatif.c:$line), exit 3"
else
    pg_fail "-whatif whose receive is not reached: exit $rc, want 3 and the receive named"
    cat wi.out
fi

rm -f plain_whatif.once # run 0 of -explore takes its results, its children not
rc=0
timeout 300 "$PANGAEA" -explore -runs 10 -logdir ex "$PROG" once >ex.out 2>&1 || rc=$?
if [ "$rc" -eq 0 ] &&
        grep -q "^run 1: forced 1:$seq=3:1: skipped: it left its recording before the forced receive: .*never reached" ex.out &&
        grep -q "^orders: 1 distinct order of the receives run; not complete" ex.out &&
        grep -q "1 of the runs could not force their choice (skipped, not failed)" ex.out; then
    pg_pass "-explore counts the run that never reached its forced receive as skipped, not as an order"
else
    pg_fail "-explore: exit $rc, want the run skipped and the exploration not complete"
    cat ex.out
fi

cd / && pg_summary
