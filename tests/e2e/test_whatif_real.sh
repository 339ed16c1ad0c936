#!/usr/bin/env bash
# test_whatif_real.sh - what-if, -explore and -chaos on programs as people
# write them: master1 from pvm-examples (it asks pvm_config first), a group
# program (tests/programs/group_race.c: joins, barriers, reductions) and a
# polling one (tests/programs/plain_fifo.c poll: pvm_nrecv(-1, -1) until
# every worker's last message).
#
#  - -whatif on master1 and on group_race: the run follows the recording
#    (queries, group joins in their recorded turns) up to the forced
#    receive, ends with status 0, and its recording replays identically;
#    the group's followed turns are in the plan;
#  - -whatif on tests/programs/plain_clock.c (workers seed rand() from
#    the clock and poll a random number of times) follows the recorded
#    clock values and pids, and on plain_stdio.c (ltid 1 reads numbers
#    from stdin) the recorded input, given /dev/null, and on plain_mhf
#    (a pvm_addmhf handler) the handlers' messages: all end well;
#  - -whatif -o DIR with DIR the recording forked (or a directory holding
#    it) is refused with exit 2 before anything moves;
#  - -explore on each ends without a false failure and says what it tried
#    and skipped; -chaos on each too (5 runs);
#  - -explore where no what-if can follow its recording (plain_fifo drift:
#    workers count their messages from a file that grows every run) says
#    "skipped" with why, counts it, fails nothing, keeps nothing;
#  - -chaos on 2000 receives of one task ends well within -timeout 120
#    (its delays shrink), and its summary marks each kept run.
# Runs and seconds of each -explore and -chaos are printed.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
GROUP=$PG_BUILD/tests/group_race
FIFO=$PG_BUILD/tests/plain_fifo
dir=$(pg_tmpdir)
cd "$dir" || exit 1
command -v master1 >/dev/null || pg_skip "master1 (package pvm-examples) is not installed"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

out() { sed -n 's/^\[[0-9]*\] //p' "$1"; }
# first_alt DIR: "LTID:SEQ=SENDER:MSGID" for the first race of ltid 1
# last_alt DIR: the same for its last race (a receive's, not a handler's)
first_alt() { pick_alt "$1" 0; }
last_alt() { pick_alt "$1" -1; }
pick_alt() {
    "$PANGAEA" -races -json "$1" | python3 -S -c 'import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["ltid"] == 1 and x["took"] and x["call"] != "pvm_addmhf"]
r.sort(key=lambda x: x["seq"])
r = [r[int(sys.argv[1])]] if r else []
a = r[0]["alternatives"][0] if r else None
print("%d:%d=%d:%d" % (1, r[0]["seq"], a["ltid"], a["msgid"]) if a else "-")' "$2"
}

# --- -whatif follows queries (master1) and groups (group_race) --------------
for prog in master1 "$GROUP"; do
    name=$(basename "$prog")
    if ! timeout 120 "$PANGAEA" -log -logdir "$name" "$prog" >"$name.out" 2>&1; then
        pg_fail "$name: the recording failed"; cat "$name.out"; continue
    fi
    alt=$(first_alt "$name")
    rc=0
    timeout 300 "$PANGAEA" -whatif "$alt" -logdir "$name" -o "$name.wi" "$prog" \
        >"$name.wi.out" 2>&1 || rc=$?
    rc2=0
    timeout 120 "$PANGAEA" -replay -logdir "$name.wi" "$prog" >"$name.rp" 2>&1 || rc2=$?
    if [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] &&
            [ "$(out "$name.rp")" = "$(out "$name.wi.out")" ]; then
        pg_pass "$name: -whatif $alt follows the recording to the forced receive, ends well, replays identically"
    else
        pg_fail "$name: -whatif $alt: exit $rc, its replay $rc2"
        tail -5 "$name.wi.out" "$name.rp"
    fi
done
turns=$(sed -n 's/^turns \([0-9]*\) race$/\1/p' group_race.wi/whatif.plan 2>/dev/null)
if [ -n "$turns" ] && [ "$turns" -ge 4 ]; then
    pg_pass "group_race: the plan follows the group's first $turns turns (its 4 joins)"
else
    pg_fail "group_race: no turns line for group race in the plan"
    cat group_race.wi/whatif.plan
fi

# --- clocks, pids and stdin in the part followed ---------------------------
CLOCK=$PG_BUILD/tests/plain_clock
if timeout 120 "$PANGAEA" -log -logdir clock "$CLOCK" >clock.out 2>&1; then
    alt=$(last_alt clock) rc=0
    timeout 300 "$PANGAEA" -whatif "$alt" -logdir clock -o clock.wi "$CLOCK" \
        >clock.wi.out 2>&1 || rc=$?
    # the workers' lines (pid, sum of clock-seeded values) are as recorded
    if [ "$rc" -eq 0 ] && [ "$(out clock.wi.out | grep '^worker' | sort)" = "$(out clock.out | grep '^worker' | sort)" ]; then
        pg_pass "plain_clock: -whatif $alt follows the recorded clocks and pids (workers' pids and sums as recorded)"
    else
        pg_fail "plain_clock: -whatif $alt: exit $rc"; tail -5 clock.wi.out
    fi
else
    pg_fail "plain_clock: the recording failed"; cat clock.out
fi
STDIO=$PG_BUILD/tests/plain_stdio
if printf '1\n2\n3\n0\n' | timeout 120 "$PANGAEA" -log -logdir stdio "$STDIO" >stdio.out 2>&1; then
    alt=$(last_alt stdio) rc=0
    timeout 300 "$PANGAEA" -whatif "$alt" -logdir stdio -o stdio.wi "$STDIO" \
        </dev/null >stdio.wi.out 2>&1 || rc=$?
    rc2=0
    timeout 120 "$PANGAEA" -replay -logdir stdio.wi "$STDIO" </dev/null >stdio.rp 2>&1 || rc2=$?
    if [ "$rc" -eq 0 ] && grep -q "read 3 numbers, sum 6" stdio.wi.out &&
            [ "$rc2" -eq 0 ] && grep -q "read 3 numbers, sum 6" stdio.rp; then
        pg_pass "plain_stdio: -whatif $alt reads the recorded input (stdin /dev/null), and so does its replay"
    else
        pg_fail "plain_stdio: -whatif $alt: exit $rc, replay $rc2"; cat stdio.wi.out
    fi
else
    pg_fail "plain_stdio: the recording failed"; cat stdio.out
fi

# message handlers (pvm_addmhf) in the part followed: their messages come
# at the recorded points (the what-if used to leave its recording there)
MHF=$PG_BUILD/tests/plain_mhf
if timeout 120 "$PANGAEA" -log -logdir mhf "$MHF" 2 3 >mhf.out 2>&1; then
    alt=$(last_alt mhf) rc=0 rc2=0
    timeout 300 "$PANGAEA" -whatif "$alt" -logdir mhf -o mhf.wi "$MHF" 2 3 \
        >mhf.wi.out 2>&1 || rc=$?
    timeout 120 "$PANGAEA" -replay -logdir mhf.wi "$MHF" 2 3 >mhf.rp 2>&1 || rc2=$?
    if [ "$rc" -eq 0 ] && [ "$rc2" -eq 0 ] && grep -q "notes 6 results 6" mhf.wi.out; then
        pg_pass "plain_mhf: -whatif $alt follows the handlers' messages, ends well, its recording replays"
    else
        pg_fail "plain_mhf: -whatif $alt: exit $rc, its replay $rc2"; tail -4 mhf.wi.out mhf.rp
    fi
else
    pg_fail "plain_mhf: the recording failed"; cat mhf.out
fi

# --- -o DIR: never the recording forked -------------------------------------
ls -R master1 >before.ls
for o in master1 .; do
    rc=0
    "$PANGAEA" -whatif "$(first_alt master1)" -logdir master1 -o "$o" master1 \
        >same.out 2>&1 || rc=$?
    ls -R master1 >after.ls
    if [ "$rc" -eq 2 ] && grep -q "nothing was moved" same.out &&
            cmp -s before.ls after.ls && [ ! -e master1/previous ]; then
        pg_pass "-whatif -o $o (holds the recording forked): refused (exit 2), nothing moved"
    else
        pg_fail "-whatif -o $o: exit $rc, recording moved or changed"
        cat same.out; diff before.ls after.ls
    fi
done

# --- -explore and -chaos end without a false failure -------------------------
for p in master1 "$GROUP" "$FIFO poll 2"; do
    name=$(basename "${p%% *}")
    s=$SECONDS rc=0
    # shellcheck disable=SC2086
    timeout 900 "$PANGAEA" -explore -runs 8 -logdir "ex-$name" $p >"ex-$name.out" 2>&1 || rc=$?
    runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' "ex-$name.out")
    echo "explore $name: ${runs:-?} runs, $((SECONDS - s)) s"
    if [ "$rc" -eq 0 ] && grep -q "^$runs runs: none failed" "ex-$name.out" &&
            grep -q "^alternatives: [0-9]* tried" "ex-$name.out" &&
            ! grep -q ": failed" "ex-$name.out"; then
        pg_pass "-explore $name: $runs runs, none failed; $(grep '^alternatives' "ex-$name.out" | cut -c1-90)"
    else
        pg_fail "-explore $name: exit $rc"; cat "ex-$name.out"
    fi
    s=$SECONDS rc=0
    # shellcheck disable=SC2086
    timeout 900 "$PANGAEA" -chaos -runs 5 -seed 1 -logdir "ch-$name" $p >"ch-$name.out" 2>&1 || rc=$?
    echo "chaos $name: 5 runs, $((SECONDS - s)) s"
    if [ "$rc" -eq 0 ] && grep -q "^5 runs, 0 failed" "ch-$name.out"; then
        pg_pass "-chaos $name: 5 runs, none failed"
    else
        pg_fail "-chaos $name: exit $rc"; cat "ch-$name.out"
    fi
done

# --- what cannot be forced is skipped, never failed --------------------------
rc=0
timeout 900 "$PANGAEA" -explore -runs 5 -logdir drift "$FIFO" drift 2 >drift.out 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -q "^run [0-9]*: forced .*: skipped: it left its recording before the forced receive: .*diverged" drift.out &&
        grep -q "could not force their choice (skipped, not failed)" drift.out &&
        ! grep -q "failed (" drift.out && ! ls -d drift/run-[1-9]* >/dev/null 2>&1; then
    pg_pass "-explore: a choice that cannot be followed is 'skipped: why', not failed, and leaves no recording or replay command"
else
    pg_fail "-explore on drift: exit $rc"; cat drift.out; ls drift
fi

# --- -chaos on 2000 receives: not stalled; kept runs marked ------------------
# Seed 2 draws the longest delays (up to 250 ms): 2000 of them would take
# minutes; shrinking past the 32nd receive, they take seconds.
rc=0
timeout 900 "$PANGAEA" -chaos -runs 1 -seed 2 -timeout 120 -logdir long "$FIFO" recv 1 2000 \
    >long.out 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -q "^run 0 seed 2: ended well" long.out &&
        grep -q "^run 0 (seed 2, new output): pangaea -replay -logdir long/chaos-0 " long.out; then
    pg_pass "-chaos: 2000 receives end well within -timeout 120; the kept run is marked 'new output'"
else
    pg_fail "-chaos on 2000 receives: exit $rc"; cat long.out
fi

cd / && pg_summary
