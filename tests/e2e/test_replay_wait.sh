#!/usr/bin/env bash
# test_replay_wait.sh - a replay waits for its recorded message in PVM's
# untimed receive (src/pvm/wrap/wrap_wait.c), not in timed slices:
# - a replayed ping-pong's first task (under callgrind, N round trips)
#   calls neither pvm_nrecv nor pvm_trecv for its receives (before: a
#   pvm_nrecv at every receive, then a pvm_trecv of a second for every
#   wait), and reads the clock under 2.5 times a round trip (PVM's send
#   reads it twice; before, ~4.3: the timed receives read it too; counted
#   as calls of glibc's __gettimeofday_syscall, which valgrind runs in
#   place of the vDSO), and the selects its waits let go after a second
#   go to the kernel (pselect6 through syscall()), not through glibc's
#   select, which converts a timeout to a timespec and back (before:
#   no such call, every one through glibc's select);
# - a receiver kept waiting 1.5 s for each message (plain_late: longer
#   than the second after which the wait lets go of PVM's receive, looks
#   up and receives again) replays as recorded, and libpvm3 says nothing
#   of the selects the wait cut short;
# - with PANGAEA_STALL=1 that wait is reported, naming the task, the call,
#   the message, its sender and the recorded event.
set -u
. "$(dirname "$0")/lib.sh"

command -v valgrind >/dev/null && command -v callgrind_annotate >/dev/null ||
    pg_skip "valgrind is not installed (scripts/install-deps.sh test)"
PP=$PG_BUILD/bench/pingpong LATE=$PG_BUILD/tests/plain_late
[ -x "$PP" ] || pg_skip "$PP is not built (make test-programs)"
N=${PG_WAIT_N:-2000}

pg_pvm_start || exit 1
W=$(pg_tmpdir)
# the ping-pong's first task under callgrind (recorded plain: NOVG); its
# child (-child) plain
cat >"$W/under-vg" <<EOS
#!/bin/sh
case "\$1" in -child) exec "$PP" "\$@" ;; esac
[ -n "\${NOVG:-}" ] && exec "$PP" "\$@"
exec valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$PP" "\$@" 2>>"$W/vg.err"
EOS
chmod +x "$W/under-vg"

# calls PROFILE FUNCTION: how often FUNCTION was called, from anywhere.
calls() {
    callgrind_annotate --tree=caller --auto=no --threshold=100 "$1" |
        awk -v f="$2" '/^ *[0-9,]+ .* < / { if (match($0, /\(([0-9,]+)x\)/)) {
                 c = substr($0, RSTART + 1, RLENGTH - 3); gsub(",", "", c); n += c } next }
             $0 ~ (" \\* .*:" f " ") { s += n }
             { n = 0 }
             END { print s + 0 }'
}

# calls_from PROFILE CALLER CALLEE: how often CALLER called CALLEE.
calls_from() {
    callgrind_annotate --tree=caller --auto=no --threshold=100 "$1" |
        awk -v c="$2" -v f="$3" '/^ *[0-9,]+ .* < / { if ($0 ~ (":" c " ") &&
                 match($0, /\(([0-9,]+)x\)/)) { k = substr($0, RSTART + 1, RLENGTH - 3)
                 gsub(",", "", k); n += k } next }
             $0 ~ (" \\* .*:" f " ") { s += n }
             { n = 0 }
             END { print s + 0 }'
}

if NOVG=1 "$PG_BUILD/pangaea" -log -logdir "$W/pp" "$W/under-vg" 8 "$N" >"$W/pp.log" 2>&1 &&
   "$PG_BUILD/pangaea" -replay -logdir "$W/pp" "$W/under-vg" 8 "$N" >"$W/pp.rep" 2>&1; then
    timed=$(( $(calls "$W/cg.out" pvm_nrecv) + $(calls "$W/cg.out" pvm_trecv) ))
    tod=$(awk -v c="$(calls "$W/cg.out" __gettimeofday_syscall)" -v n="$N" 'BEGIN { printf "%.2f", c / n }')
    if [ "$timed" -lt $((N / 100)) ]; then
        pg_pass "replayed ping-pong: $timed calls of pvm_nrecv/pvm_trecv for $N receives"
    else
        pg_fail "replayed ping-pong: $timed calls of pvm_nrecv/pvm_trecv for $N receives (the wait polls or slices)"
    fi
    direct=$(calls_from "$W/cg.out" hook_select syscall)
    if [ "$direct" -ge $((N / 10)) ]; then
        pg_pass "replayed ping-pong: $direct waiting selects went to the kernel directly for $N receives"
    else
        pg_fail "replayed ping-pong: $direct waiting selects went to the kernel directly for $N receives (glibc's select converts their timeout)"
    fi
    if awk -v t="$tod" 'BEGIN { exit !(t < 2.5) }'; then
        pg_pass "replayed ping-pong: $tod clock reads a round trip (PVM's send's)"
    else
        pg_fail "replayed ping-pong: $tod clock reads a round trip (2.5 or more: the wait reads the clock)"
    fi
else
    pg_fail "ping-pong: recording or replay failed: $(tail -n 2 "$W/pp.log"; tail -n 2 "$W/pp.rep")"
fi

"$PG_BUILD/pangaea" -log -logdir "$W/late" "$LATE" 3 >"$W/late.log" 2>"$W/late.log.err" ||
    pg_fail "plain_late: the recording failed: $(tail -2 "$W/late.log.err")"
rc=0
timeout 120 "$PG_BUILD/pangaea" -replay -logdir "$W/late" "$LATE" 3 \
    >"$W/late.rep" 2>"$W/late.rep.err" || rc=$?
if [ "$rc" = 0 ] && grep -q 'message 2' "$W/late.log" && cmp -s "$W/late.log" "$W/late.rep"; then
    pg_pass "a receiver kept waiting 1.5 s a message replays as recorded"
else
    pg_fail "plain_late replay: exit $rc, or its output differs: $(diff "$W/late.log" "$W/late.rep" | head -3)"
fi
if ! grep -q libpvm "$W/late.rep" "$W/late.rep.err"; then
    pg_pass "libpvm3 says nothing of the waits let go"
else
    pg_fail "libpvm3 spoke during the replay: $(grep -h libpvm "$W/late.rep" "$W/late.rep.err" | head -2)"
fi

rc=0
PANGAEA_STALL=1 timeout 120 "$PG_BUILD/pangaea" -replay -logdir "$W/late" "$LATE" 3 \
    >"$W/stall.rep" 2>"$W/stall.err" || rc=$?
if grep -q "ltid 1 (.*plain_late): replay has waited 1 s: waits in pvm_recv for message [0-9]* from ltid 2 (tag 1, recorded event [0-9]*)" "$W/stall.err" &&
   ! grep -q libpvm "$W/stall.rep" "$W/stall.err"; then
    pg_pass "PANGAEA_STALL=1: the waiting task, call, message and event are named (exit $rc)"
else
    pg_fail "PANGAEA_STALL=1: no report naming the wait (exit $rc): $(head -3 "$W/stall.err")"
fi
pg_pvm_stop
pg_summary
