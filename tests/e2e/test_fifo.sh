#!/usr/bin/env bash
# test_fifo.sh - the other orders Pangaea makes are orders PVM can give:
# PVM keeps each sender's messages in order, so a receive may take another
# sender's message, never a sender's later one before its earlier one.
# tests/programs/plain_fifo.c: workers send 10 numbered messages each; the
# master ends with 1 ("out of order") if it ever takes one out of order.
#
#  - -chaos, 50 runs of one sender's 10 messages (pvm_recv(-1, -1)): no run
#    takes them out of order (each receive's random pick is among each
#    sender's first queued message only);
#  - -races flags a receive that took a message out of its sender's order
#    (a recording edited so; text and JSON), and says so in neither a
#    recording as made.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_fifo
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# --- -chaos never breaks a sender's order -----------------------------------
N=50
rc=0
timeout 900 "$PANGAEA" -chaos -runs "$N" -seed 1 -logdir ch "$PROG" recv 1 \
    >ch.out 2>&1 || rc=$?
failed=$(sed -n "s/^$N runs, \([0-9]*\) failed.*/\1/p" ch.out)
if [ "$rc" -eq 0 ] && [ "$failed" = 0 ] && ! grep -q "out of order" ch.out &&
        [ "$(grep -c '^run [0-9]* seed [0-9]*: ended well' ch.out)" -eq "$N" ]; then
    pg_pass "-chaos: $N runs of one sender's 10 messages, none out of order"
else
    pg_fail "-chaos broke a sender's order: exit $rc, failed '${failed:-?}'"
    grep -v "ended well" ch.out | head -20
    for k in ch/chaos-*; do [ -d "$k" ] && cat "$k.out" 2>/dev/null | head -3; done
fi

# --- -races flags a receive out of its sender's order ------------------------
if timeout 120 "$PANGAEA" -log -logdir rec "$PROG" recv 1 >rec.out 2>&1; then
    rc=0
    "$PANGAEA" -races rec >r0.out 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && ! grep -q "Out of the sender's order" r0.out; then
        pg_pass "-races: a recording as made is in each sender's order"
    else
        pg_fail "-races on a recording as made: exit $rc"; cat r0.out
    fi
    # the master's receives of msgs 2 and 3 swapped: it takes 3 before 2
    cp -r rec edited
    at() { "$PANGAEA" -dump rec 1 | sed -n "s/.*<recv seq=\"\([0-9]*\)\".* from=\"2\" tag=\"1\" msgid=\"$1\".*/\1/p"; }
    s2=$(at 2) s3=$(at 3)
    pg_comm_edit edited 1 -e "/<recv seq=\"$s2\"/s/msgid=\"2\"/msgid=\"X\"/" \
        -e "/<recv seq=\"$s3\"/s/msgid=\"3\"/msgid=\"2\"/" \
        -e "/<recv seq=\"$s2\"/s/msgid=\"X\"/msgid=\"3\"/"
    rc=0
    "$PANGAEA" -races edited >r1.out 2>&1 || rc=$?
    "$PANGAEA" -races -json edited >r1.json 2>&1
    ooo=$(python3 -S -c 'import json,sys
r = json.load(open(sys.argv[1]))["races"]
print(" ".join("%d:%d<%d:%d" % (x["ltid"], x["seq"], x["out_of_order"]["ltid"], x["out_of_order"]["msgid"]) for x in r if "out_of_order" in x))' r1.json)
    if [ "$rc" -eq 1 ] && grep -q "Out of the sender's order" r1.out &&
            grep -q "ltid 1 event $s2 took ltid 2 msg 3 while ltid 2 msg 2, sent before it" r1.out &&
            [ "$ooo" = "1:$s2<2:2" ]; then
        pg_pass "-races flags the receive that took ltid 2's msg 3 before its msg 2 (text, JSON)"
    else
        pg_fail "-races on an out-of-order recording: exit $rc, JSON '$ooo'"; cat r1.out
    fi
else
    pg_fail "the recording failed"; cat rec.out
fi

cd / && pg_summary
