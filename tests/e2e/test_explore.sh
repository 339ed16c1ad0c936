#!/usr/bin/env bash
# test_explore.sh - -explore runs every order of the racing receives once:
# tests/programs/plain_orders.c, a master taking three workers' results
# with pvm_recv(-1, PHASE) at one call site, in one or two phases.
#
#  - one phase (3! = 6 orders): explored completely in 6 runs, each order
#    once (6 distinct outputs), "complete"; with -jobs 2 (runs at once) the
#    same 6 orders in 6 runs;
#  - `crash` (an abort when the SECOND receive takes worker 3's result):
#    found, by a run that forces that second receive;
#  - `exit2` (the program itself ends with status 2 there): a failure,
#    with the status and the program's last output, not "skipped";
#  - two phases (3! x 3! = 36 orders): 36 distinct outputs in at most 37
#    runs, "complete";
#  - two phases cut short by -runs 15, then -explore -resume -runs 30:
#    the same 36 orders in 36 runs in all, complete;
#  - polls (tests/programs/plain_pollorders.c: one pvm_nrecv(-1, 1), then
#    pvm_recv for the rest, each run appending its order to a file): the
#    4 orders PVM can give ("poll 0 order 12", "poll 0 order 21", "poll 1
#    order 12", "poll 2 order 21"), each exactly once, in 4 runs, complete:
#    from a free run whose poll found nothing (forced to find each worker's
#    result) and, with `late` and -jobs 2, from one whose poll found worker
#    1's (forced to find nothing, and worker 2's); `crash` (an abort when
#    the poll found worker 2's result) found by forcing that poll;
#  - a busy-polling program (plain_fifo poll) ends, none failed.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_orders
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# distinct FILE: how many distinct outputs its runs printed
distinct() { sed -n 's/^run [0-9]*: .*, output \([0-9a-f]*\).*/\1/p' "$1" | sort -u | wc -l; }

# outputs FILE: the outputs its runs printed, sorted
outputs() { sed -n 's/^run [0-9]*: .*, output \([0-9a-f]*\).*/\1/p' "$1" | sort; }
for jobs in 1 2; do
    rc=0
    timeout 600 "$PANGAEA" -explore -runs 20 -jobs $jobs -logdir one$jobs "$PROG" 1 \
        >one$jobs.out 2>&1 || rc=$?
    runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' one$jobs.out)
    if [ "$rc" -eq 0 ] && [ "$runs" = 6 ] && [ "$(distinct one$jobs.out)" -eq 6 ] &&
            grep -q "^orders: 6 distinct orders of the receives run; complete" one$jobs.out; then
        pg_pass "one phase, -jobs $jobs: the 6 orders in 6 runs, each once, complete"
    else
        pg_fail "one phase, -jobs $jobs: exit $rc, ${runs:-?} runs, $(distinct one$jobs.out) outputs"
        cat one$jobs.out
    fi
done
[ "$(outputs one1.out)" = "$(outputs one2.out)" ] &&
    pg_pass "-jobs 2 reaches the same orders as -jobs 1" ||
    pg_fail "-jobs 2 and -jobs 1 reached other orders"

rc=0
timeout 600 "$PANGAEA" -explore -runs 20 -logdir crash "$PROG" 1 crash >crash.out 2>&1 || rc=$?
# (runs at once: more than one may fail before the exploration stops)
chain=$(sed -n 's/^run [0-9]* failed (\(.*\)): pangaea -replay .*/\1/p' crash.out | head -1)
kept=$(sed -n 's/^run [0-9]* failed .*: pangaea -replay -logdir \([^ ]*\) .*/\1/p' crash.out | head -1)
# the master's second receive of phase 1, as the kept recording numbers it
second=$("$PANGAEA" -dump "${kept:-none}" 1 2>/dev/null |
    sed -n 's/.*<recv seq="\([0-9]*\)".* tag="1" .*/\1/p' | sed -n 2p)
if [ "$rc" -eq 1 ] && grep -q "died of SIGABRT" crash.out && [ -n "$second" ] &&
        [ "${chain##* }" = "1:$second=4:1" ]; then
    pg_pass "the bug of the second receive is found (forced $chain)"
else
    pg_fail "crash: exit $rc, chain '$chain'"; cat crash.out
fi

rc=0
timeout 600 "$PANGAEA" -explore -runs 20 -logdir exit2 "$PROG" 1 exit2 >exit2.out 2>&1 || rc=$?
if [ "$rc" -eq 1 ] && grep -q "^run [0-9]*: forced .*: failed: pangaea ended with status 2; the program's last output: \[1\] bad order" exit2.out &&
        ! grep -q ": skipped:" exit2.out; then
    pg_pass "a program that ends with status 2 itself: failed, with its status and last output"
else
    pg_fail "exit2: exit $rc"; cat exit2.out
fi

rc=0
timeout 900 "$PANGAEA" -explore -runs 60 -depth 10 -logdir two "$PROG" 2 >two.out 2>&1 || rc=$?
runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' two.out)
if [ "$rc" -eq 0 ] && [ -n "$runs" ] && [ "$runs" -le 37 ] &&
        [ "$(distinct two.out)" -eq 36 ] &&
        grep -q "^orders: 36 distinct orders of the receives run; complete" two.out; then
    pg_pass "two phases: the 36 orders in $runs runs, complete"
else
    pg_fail "two phases: exit $rc, ${runs:-?} runs, $(distinct two.out) outputs"; tail -5 two.out
fi

rc=0 rc2=0
timeout 900 "$PANGAEA" -explore -runs 15 -depth 10 -logdir res "$PROG" 2 >res1.out 2>&1 || rc=$?
timeout 900 "$PANGAEA" -explore -resume -runs 30 -depth 10 -logdir res "$PROG" 2 >res2.out 2>&1 || rc2=$?
cat res1.out res2.out >res.out
if [ "$rc" -eq 0 ] && grep -q "^orders: 15 distinct .*; not complete" res1.out &&
        [ "$rc2" -eq 0 ] && grep -q "^(resuming: 15 runs made" res2.out &&
        grep -q "^36 runs: none failed" res2.out && [ "$(distinct res.out)" -eq 36 ] &&
        grep -q "^orders: 36 distinct orders of the receives run; complete" res2.out; then
    pg_pass "two phases, 15 runs then -resume: the 36 orders in 36 runs in all, complete"
else
    pg_fail "resume: exit $rc then $rc2, $(distinct res.out) outputs"; tail -4 res1.out res2.out
fi

# -resume with no state, or a damaged one: exit 2, the file and line named
mkdir -p nostate badstate cutstate && printf 'garbage\n' >badstate/explore.state
printf 'pangaea-explore 2\nhash0 0123456789abcdef\nnext 0\njobs 0\nrun 0 0 0 1 0 3 0\t\n1:5=2:1\n' \
    >cutstate/explore.state # a run of 3 choices, cut after the first
rc=0 rc2=0 rc3=0
"$PANGAEA" -explore -resume -logdir nostate "$PROG" 1 >nostate.out 2>&1 || rc=$?
"$PANGAEA" -explore -resume -logdir badstate "$PROG" 1 >badstate.out 2>&1 || rc2=$?
"$PANGAEA" -explore -resume -logdir cutstate "$PROG" 1 >cutstate.out 2>&1 || rc3=$?
if [ "$rc" -eq 2 ] && grep -q "nostate holds no exploration" nostate.out &&
        [ "$rc2" -eq 2 ] && grep -q "badstate/explore.state:1: not a state" badstate.out &&
        [ "$rc3" -eq 2 ] && grep -q "cutstate/explore.state:6: cut short" cutstate.out &&
        ! ls cutstate | grep -q run-; then
    pg_pass "-resume without a state, with a damaged or a cut one: exit 2, the file and line named, nothing run"
else
    pg_fail "-resume on no, a bad or a cut state: exit $rc, $rc2, $rc3"
    cat nostate.out badstate.out cutstate.out
fi

POLL=$PG_BUILD/tests/plain_pollorders
want=$(printf 'poll 0 order 12\npoll 0 order 21\npoll 1 order 12\npoll 2 order 21\n')
for how in "1 early" "2 late"; do
    jobs=${how% *} mode=${how#* } rc=0
    rm -f "$dir/orders-$mode"*
    # shellcheck disable=SC2046
    timeout 600 "$PANGAEA" -explore -runs 20 -jobs "$jobs" -logdir "poll-$mode" "$POLL" \
        "$dir/orders-$mode" $([ "$mode" = late ] && echo late) >"poll-$mode.out" 2>&1 || rc=$?
    runs=$(sed -n 's/^\([0-9]*\) runs.*/\1/p' "poll-$mode.out")
    got=$(sort "$dir/orders-$mode" 2>/dev/null)
    if [ "$rc" -eq 0 ] && [ "$runs" = 4 ] && [ "$got" = "$want" ] &&
            grep -q "^orders: 4 distinct orders of the receives run; complete" "poll-$mode.out"; then
        pg_pass "polls ($mode, -jobs $jobs): the 4 orders PVM can give, each once, in 4 runs, complete"
    else
        pg_fail "polls ($mode, -jobs $jobs): exit $rc, ${runs:-?} runs, orders:"
        echo "$got"; cat "poll-$mode.out"
    fi
done
grep -q "forced 1:[0-9]*=none" poll-late.out &&
    pg_pass "a poll that found a message is forced to find nothing" ||
    pg_fail "no poll was forced to find nothing"

rc=0
timeout 600 "$PANGAEA" -explore -runs 20 -logdir pollcrash "$POLL" "$dir/orders-crash" crash \
    >pollcrash.out 2>&1 || rc=$?
chain=$(sed -n 's/^run [0-9]* failed (\(.*\)): pangaea -replay .*/\1/p' pollcrash.out | head -1)
kept=$(sed -n 's/^run [0-9]* failed .*: pangaea -replay -logdir \([^ ]*\) .*/\1/p' pollcrash.out | head -1)
# the kept run's plan: the poll was forced to take worker 2's result
# (ltid 3, msgid 1): a poll that found nothing in run 0 (poll-recv) or,
# when the machine was slow enough for the poll to find worker 1's
# result in run 0, the same poll made to take the other one (recv)
poll=$(sed -n 's/^force 1 \([0-9]*\) \(poll-\)\{0,1\}recv 3 1 1$/\1/p' "${kept:-none}/whatif.plan" 2>/dev/null)
if [ "$rc" -eq 1 ] && grep -q "died of SIGABRT" pollcrash.out && [ -n "$poll" ] &&
        [ "$chain" = "1:$poll=3:1" ]; then
    pg_pass "the bug of a poll that found worker 2's result is found (forced $chain)"
else
    pg_fail "poll crash: exit $rc, chain '$chain', poll '$poll'"; cat pollcrash.out
fi

rc=0
timeout 600 "$PANGAEA" -explore -runs 10 -logdir poll "$PG_BUILD/tests/plain_fifo" poll 2 \
    >poll.out 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -q "^[0-9]* runs: none failed" poll.out; then
    pg_pass "a busy-polling program: $(sed -n 's/^\([0-9]*\) runs.*/\1/p' poll.out) runs, none failed; $(grep '^orders' poll.out)"
else
    pg_fail "busy polling: exit $rc"; cat poll.out
fi

cd / && pg_summary
