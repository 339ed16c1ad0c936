#!/usr/bin/env bash
# test_whatif.sh - making the other order happen: `pangaea -whatif`,
# `-explore` and `-chaos` on tests/programs/plain_whatif.c, a master that
# takes two results with pvm_recv(-1, 10) and (in `crash` mode) aborts when
# the slow worker's result comes first, which free runs never give (the
# slow worker sends only after the fast one has sent, through one pvmd).
#
#  - -whatif on the recorded race: a choice that is not one of the
#    receive's alternatives (per -races) is refused with exit 2 and the
#    list; the alternative makes the output change exactly as predicted
#    ("took 2 then 1" instead of "took 1 then 2"), the workers' logs repeat
#    the recording's events, and the what-if recording replays identically
#    (while free runs keep printing the other order).  In `ack` mode the
#    master answers each result: each worker follows its recording exactly
#    up to its receive of that answer (the first event that depends on the
#    forced receive), as the plan says.
#  - -explore finds the crash, says in how many runs, keeps the failing
#    recording only, and that recording crashes the same way in 10 of 10
#    replays.
#  - -chaos finds the crash in some of its runs, where free recorded runs
#    find it in none: both rates are printed.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_whatif
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# out FILE: the tasks' output lines of a pangaea run, prefix removed.
out() { sed -n 's/^\[1\] //p' "$1"; }

# --- -whatif ----------------------------------------------------------------
if ! timeout 120 "$PANGAEA" -log -logdir base "$PROG" print >base.out 2>&1; then
    pg_fail "the recording failed"; cat base.out
fi
want_free="took 1 then 2"
[ "$(out base.out)" = "$want_free" ] ||
    pg_fail "a free run printed '$(out base.out)', not '$want_free'"

"$PANGAEA" -races -json base >races.json 2>races.err
# The race: the master's first receive; its alternative: W2's message.
read -r seq took alt <<<"$(python3 -S - races.json <<'EOF'
import json, sys, races_json
r = races_json.load(open(sys.argv[1]))["races"]
one = [x for x in r if x["ltid"] == 1]
if len(one) != 1 or len(one[0]["alternatives"]) != 1:
    print("- - -"); sys.exit(0)
x = one[0]
a = x["alternatives"][0]
print(x["seq"], "%d:%d" % (x["took"]["ltid"], x["took"]["msgid"]),
      "%d:%d" % (a["ltid"], a["msgid"]))
EOF
)"
if [ "$seq" = - ] || [ "$took" != 2:1 ] || [ "$alt" != 3:1 ]; then
    pg_fail "-races does not report the master's race as expected"
    cat races.json
else
    pg_pass "-races: ltid 1 event $seq took $took, could have taken $alt"
fi

rc=0
"$PANGAEA" -whatif "1:$seq=2:7" -logdir base "$PROG" print >bad.out 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "not one of its alternatives" bad.out &&
        grep -q "^    $alt\$" bad.out && [ ! -e base.whatif-1.$seq-2.7 ]; then
    pg_pass "a choice that is no alternative is refused (exit 2, lists $alt)"
else
    pg_fail "a bad choice: exit $rc, want 2 with the alternatives"; cat bad.out
fi
rc=0
"$PANGAEA" -whatif "1:999=3:1" -logdir base "$PROG" print >bad2.out 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "is not a receive that could" bad2.out; then
    pg_pass "a receive that does not race is refused (exit 2)"
else
    pg_fail "a non-racing receive: exit $rc, want 2"; cat bad2.out
fi

rc=0
"$PANGAEA" -whatif "1:$seq=$alt" -whatif "1:$((seq + 1))=2:1" -logdir base \
    "$PROG" print >two.out 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "two choices for ltid 1" two.out; then
    pg_pass "two forced receives of one task are refused (exit 2): the second depends on the first"
else
    pg_fail "two choices for ltid 1: exit $rc, want 2"; cat two.out
fi

rc=0
timeout 120 "$PANGAEA" -whatif "1:$seq=$alt" -logdir base -o wi "$PROG" print \
    >wi.out 2>&1 || rc=$?
want_wi="took 2 then 1"
if [ "$rc" -eq 0 ] && [ "$(out wi.out)" = "$want_wi" ] &&
        grep -q "recorded in $dir/wi" wi.out; then
    pg_pass "-whatif $alt: the output changes as forced ('$want_wi')"
else
    pg_fail "-whatif: exit $rc, output '$(out wi.out)', want '$want_wi'"
    cat wi.out
fi
# The workers' events do not follow the forced receive: they are repeated.
same=1
for l in 2 3; do
    a=$("$PANGAEA" -dump base "$l" | sed 's/ t="[^"]*"//; s/ recording="[^"]*"//; s/ waited="[^"]*"//')
    b=$("$PANGAEA" -dump wi "$l" | sed 's/ t="[^"]*"//; s/ recording="[^"]*"//; s/ waited="[^"]*"//')
    [ "$a" = "$b" ] || same=0
done
[ "$same" = 1 ] && pg_pass "the workers' logs of the what-if repeat the recording's" ||
    pg_fail "the workers' what-if logs differ from the recording's"

bad=0 free_other=0
for i in 1 2 3; do
    rc=0
    timeout 120 "$PANGAEA" -replay -logdir wi "$PROG" print >rp$i.out 2>&1 || rc=$?
    { [ "$rc" -eq 0 ] && [ "$(out rp$i.out)" = "$want_wi" ]; } || bad=$((bad + 1))
    timeout 120 "$PANGAEA" -log -logdir free$i "$PROG" print >free$i.out 2>&1
    [ "$(out free$i.out)" = "$want_free" ] && free_other=$((free_other + 1))
done
if [ "$bad" -eq 0 ] && [ "$free_other" -eq 3 ]; then
    pg_pass "the what-if recording replays identically (3 of 3), free runs print '$want_free' (3 of 3)"
else
    pg_fail "$bad of 3 replays differ; $free_other of 3 free runs print '$want_free'"
    cat rp*.out
fi

# Events that follow the forced receive are not followed: in `ack` mode
# the master answers each result after taking it, so each worker follows
# its recording exactly up to its receive of the answer (tag 30).
if timeout 120 "$PANGAEA" -log -logdir ack "$PROG" ack >ack.out 2>&1 &&
   timeout 120 "$PANGAEA" -whatif "1:$seq=$alt" -logdir ack -o ackwi "$PROG" ack \
       >ackwi.out 2>&1 && [ "$(out ackwi.out)" = "$want_wi" ]; then
    bad=
    for l in 2 3; do
        want=$("$PANGAEA" -dump ack "$l" | sed -n 's/.*<recv seq="\([0-9]*\)".* tag="30".*/\1/p')
        got=$(sed -n "s/^stop $l //p" ackwi/whatif.plan)
        [ -n "$want" ] && [ "$want" = "$got" ] || bad="$bad ltid $l stops at ${got:-?}, its answer is event ${want:-?};"
        # up to there, the same events
        a=$("$PANGAEA" -dump ack "$l" | sed 's/ t="[^"]*"//; s/ recording="[^"]*"//; s/ waited="[^"]*"//' | awk -v s="${want:-0}" 'match($0, /seq="[0-9]+"/) { n = substr($0, RSTART + 5, RLENGTH - 6) + 0; if (n >= s) exit } { print }')
        b=$("$PANGAEA" -dump ackwi "$l" | sed 's/ t="[^"]*"//; s/ recording="[^"]*"//; s/ waited="[^"]*"//' | awk -v s="${want:-0}" 'match($0, /seq="[0-9]+"/) { n = substr($0, RSTART + 5, RLENGTH - 6) + 0; if (n >= s) exit } { print }')
        [ "$a" = "$b" ] || bad="$bad ltid $l's events before its answer differ;"
    done
    [ -z "$bad" ] && pg_pass "each worker follows its recording exactly up to the answer that depends on the forced receive" ||
        { pg_fail "the what-if's cut:$bad"; cat ackwi/whatif.plan; }
else
    pg_fail "ack mode: the recording or its what-if failed"; cat ack.out ackwi.out
fi

# --- -explore ---------------------------------------------------------------
rc=0
timeout 600 "$PANGAEA" -explore -runs 10 -logdir ex "$PROG" crash >ex.out 2>&1 || rc=$?
runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' ex.out)
kept=$(sed -n 's/^run \([0-9]*\) failed.*pangaea -replay -logdir \([^ ]*\) .*/\2/p' ex.out)
if [ "$rc" -eq 1 ] && [ -n "$runs" ] && [ "$runs" -le 3 ] && [ -n "$kept" ] &&
        [ -d "$kept" ] && [ "$(ls -d ex/run-* | grep -vc '\.\(out\|err\)$')" -eq 1 ]; then
    pg_pass "-explore finds the crash in $runs runs and keeps only $kept"
else
    pg_fail "-explore: exit $rc, runs '$runs', kept '$kept'"; cat ex.out; ls ex
fi
crashed=0
for i in $(seq 10); do
    rc=0
    timeout 120 "$PANGAEA" -replay -logdir "${kept:-none}" "$PROG" crash \
        >exr.out 2>&1 || rc=$?
    [ "$rc" -eq 4 ] && grep -q "died of SIGABRT after event $seq of its log" exr.out &&
        crashed=$((crashed + 1))
done
[ "$crashed" -eq 10 ] && pg_pass "the kept recording crashes the same way in 10 of 10 replays" ||
    { pg_fail "the kept recording crashed in $crashed of 10 replays"; cat exr.out; }

# --- -chaos -----------------------------------------------------------------
# Free recorded runs never take the slow result first; chaos runs do, in
# some of them (about one in six when measured: the delays are drawn, and the
# workers' delays hold the slow result back too).
N=50 FREE=20
free_crash=0
for i in $(seq "$FREE"); do
    rc=0
    timeout 120 "$PANGAEA" -log -logdir fr "$PROG" crash >fr.out 2>&1 || rc=$?
    [ "$rc" -ne 0 ] && free_crash=$((free_crash + 1))
done
rc=0
timeout 900 "$PANGAEA" -chaos -runs "$N" -seed 1 -logdir ch "$PROG" crash \
    >ch.out 2>&1 || rc=$?
failed=$(sed -n "s/^$N runs, \([0-9]*\) failed.*/\1/p" ch.out)
echo "chaos: the crash in ${failed:-?} of $N chaos runs, $free_crash of $FREE free runs"
first=$(sed -n 's/^run \([0-9]*\) seed \([0-9]*\): failed.*died of SIGABRT.*/\1/p' ch.out | head -1)
if [ "$rc" -eq 1 ] && [ "${failed:-0}" -ge 1 ] && [ "$free_crash" -eq 0 ] &&
        [ -n "$first" ] && [ -d "ch/chaos-$first" ]; then
    pg_pass "-chaos finds the crash ($failed of $N runs; free runs $free_crash of $FREE)"
else
    pg_fail "-chaos: exit $rc, failed '${failed:-}', free crashes $free_crash"
    cat ch.out
fi
rc=0
timeout 120 "$PANGAEA" -replay -logdir "ch/chaos-${first:-none}" "$PROG" crash \
    >chr.out 2>&1 || rc=$?
[ "$rc" -eq 4 ] && grep -q "died of SIGABRT" chr.out &&
    pg_pass "a chaos run's recording replays its crash" ||
    { pg_fail "replaying chaos run ${first:-?}: exit $rc"; cat chr.out; }

cd / && pg_summary
