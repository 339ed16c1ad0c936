#!/usr/bin/env bash
# test_whatif_poll.sh - -whatif forces polls both ways, on
# tests/programs/plain_pollorders.c (one pvm_nrecv(-1, 1), then pvm_recv
# for the rest of two workers' results; it prints "poll P order AB"):
#
#  - a recording whose poll found nothing (<poll>): forcing it to find
#    worker 2's result (ltid 3, msg 1) prints "poll 2 order 21", the plan
#    says "poll-recv", and the what-if recording replays identically;
#  - a recording whose poll found a result (`late`): LTID:SEQ=none makes it
#    find nothing ("poll 0 order ..", the plan says "nothing"), and that
#    recording replays identically;
#  - `last`: the polls just before the master's end (its <end> carries
#    them), forced to find worker 1's late message, find it ("last 1");
#  - =none at the blocking pvm_recv, and a malformed choice, are refused
#    with exit 2, named, and make no new recording.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_pollorders
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# out FILE: the master's output line, prefix removed.
out() { sed -n 's/^\[1\] //p' "$1"; }
# seq_of DIR PATTERN: the seq of ltid 1's first event matching PATTERN
seq_of() { "$PANGAEA" -dump "$1" 1 2>/dev/null | grep "$2" | sed -n '1s/.* seq="\([0-9]*\)".*/\1/p'; }

# --- polls that found nothing, forced to find a message ------------------------
timeout 120 "$PANGAEA" -log -logdir early "$PROG" "$dir/o" >early.out 2>&1
poll=$(seq_of early '<poll ')
if [ -z "$poll" ]; then
    pg_fail "the free run's poll found a message (no <poll>): $(out early.out)"
else
    rc=0
    timeout 120 "$PANGAEA" -whatif "1:$poll=3:1" -logdir early -o found "$PROG" "$dir/o" \
        >found.out 2>&1 || rc=$?
    rc2=0
    timeout 120 "$PANGAEA" -replay -logdir found "$PROG" "$dir/o" >found-r.out 2>&1 || rc2=$?
    if [ "$rc" -eq 0 ] && [ "$(out found.out)" = "poll 2 order 21" ] &&
            grep -q "^force 1 $poll poll-recv 3 1 1$" found/whatif.plan &&
            [ "$rc2" -eq 0 ] && [ "$(out found-r.out)" = "poll 2 order 21" ]; then
        pg_pass "polls that found nothing, forced: 'poll 2 order 21', and its recording replays so"
    else
        pg_fail "forcing the failed poll: exit $rc, replay $rc2"; cat found.out found-r.out
    fi
fi

# --- a poll that found a message, forced to find nothing -----------------------
timeout 120 "$PANGAEA" -log -logdir late "$PROG" "$dir/o" late >late.out 2>&1
nrecv=$(seq_of late 'call="pvm_nrecv"')
if [ -z "$nrecv" ] || [ "$(seq_of late '<poll ')" != "" ]; then
    pg_fail "the free late run's poll found nothing: $(out late.out)"
else
    rc=0
    timeout 120 "$PANGAEA" -whatif "1:$nrecv=none" -logdir late -o none "$PROG" "$dir/o" late \
        >none.out 2>&1 || rc=$?
    rc2=0
    timeout 120 "$PANGAEA" -replay -logdir none "$PROG" "$dir/o" late >none-r.out 2>&1 || rc2=$?
    got=$(out none.out)
    if [ "$rc" -eq 0 ] && [ "${got#poll 0 order }" != "$got" ] &&
            grep -q "^force 1 $nrecv nothing 0 0 0$" none/whatif.plan &&
            grep -q "event $nrecv (a poll) finds nothing instead" none.out &&
            [ "$rc2" -eq 0 ] && [ "$(out none-r.out)" = "$got" ]; then
        pg_pass "a poll that found a message, forced to find nothing: '$got', and its recording replays so"
    else
        pg_fail "forcing nothing: exit $rc, replay $rc2"; cat none.out none-r.out
    fi
fi

# --- the polls just before a task's end, forced to find a message -------------
timeout 120 "$PANGAEA" -log -logdir last "$PROG" "$dir/o" last >last.out 2>&1
# the last <poll> of ltid 1, with its <end> right after it
lastpoll=$("$PANGAEA" -dump last 1 2>/dev/null | grep -A1 '<poll ' | tail -2 |
    sed -n '1s/.*<poll seq="\([0-9]*\)".*asked_tag="3".*/\1/p')
if [ -z "$lastpoll" ] || ! "$PANGAEA" -dump last 1 | grep -q "<end seq=\"$((lastpoll + 1))\""; then
    pg_fail "the free run's last poll is not just before its end: $(out last.out)"
else
    rc=0
    timeout 120 "$PANGAEA" -whatif "1:$lastpoll=2:2" -logdir last -o lastfound "$PROG" "$dir/o" last \
        >lastfound.out 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && [ "$(out lastfound.out | tail -1)" = "last 1" ]; then
        pg_pass "the polls just before the end, forced: 'last 1'"
    else
        pg_fail "forcing the last polls: exit $rc"; cat lastfound.out
    fi
fi

# --- refused: =none at a blocking receive, a malformed choice -------------------
recv=$(seq_of late 'call="pvm_recv"')
rc=0 rc2=0
"$PANGAEA" -whatif "1:${recv:-0}=none" -logdir late -o no1 "$PROG" "$dir/o" late >no1.out 2>&1 || rc=$?
"$PANGAEA" -whatif "1:${nrecv:-0}=nothing" -logdir late -o no2 "$PROG" "$dir/o" late >no2.out 2>&1 || rc2=$?
if [ -n "$recv" ] && [ "$rc" -eq 2 ] && grep -q "ltid 1 event $recv cannot find nothing" no1.out &&
        [ "$rc2" -eq 2 ] && grep -q 'the choice "1:[0-9]*=nothing" is not LTID:SEQ=SENDER:MSGID or LTID:SEQ=none' no2.out &&
        [ ! -e no1 ] && [ ! -e no2 ]; then
    pg_pass "=none at a blocking receive and a malformed choice: exit 2, named, nothing recorded"
else
    pg_fail "refusals: exit $rc and $rc2"; cat no1.out no2.out
fi

cd / && pg_summary
