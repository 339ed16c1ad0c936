#!/usr/bin/env bash
# test_changed.sh - replays of something other than what was recorded.
#
# A log edited so that the schema still accepts it but the reader does not
# (a seq out of order, found only when the task gets there) is a bad log:
# exit 2, naming the file and line.  A message of another size than
# recorded, or another binary under the same name, is a divergence (exit
# 3) that names what differs.  A program started through a wrapper script
# that execs it is a task like any other.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
SIZED=$PG_BUILD/tests/plain_sized

# expect NAME STATUS PATTERN CMD...: CMD exits STATUS, stderr matches.
expect() {
    local name=$1 want=$2 pattern=$3 dir rc=0
    shift 3
    dir=$(pg_tmpdir)
    EXPECT_ERR=$dir/err
    EXPECT_OUT=$dir/out
    timeout 90 "$@" >"$dir/out" 2>"$dir/err" || rc=$?
    if [ "$rc" -eq "$want" ] && { [ -z "$pattern" ] || grep -Eq "$pattern" "$dir/err"; }; then
        pg_pass "$name (exit $rc)"
    else
        pg_fail "$name: exit $rc (wanted $want), stderr:"; cat "$dir/err"
    fi
}

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)

# --- a log the reader refuses only mid-run: exit 2, not 4 -------------------
# The check before a replay reads every log through, so a log damaged
# before the replay is refused up front; one damaged while the replay runs
# (a byte flipped in a block ltid 2 has not reached yet) is found by the
# task itself, mid-run, and is a bad log all the same.
SLOW=$PG_BUILD/tests/plain_slow
pg_slow_fast "$PANGAEA" -log -logdir "$dir/slow" "$SLOW" 600 >/dev/null 2>&1
size=$(stat -c %s "$dir/slow/ltid-2.comm.pgc" 2>/dev/null || echo 0)
if [ "$size" -gt 6000 ]; then
    ( "$PANGAEA" -replay -logdir "$dir/slow" "$SLOW" 600 >"$dir/slow.out" 2>"$dir/slow.err"
      echo $? >"$dir/slow.rc" ) &
    replay=$!
    sleep 1.5
    old=$(od -An -tu1 -j 5000 -N 1 "$dir/slow/ltid-2.comm.pgc" | tr -d ' ')
    printf "\\$(printf %o $(( (old ^ 0x5a) & 255 )))" |
        dd of="$dir/slow/ltid-2.comm.pgc" bs=1 seek=5000 conv=notrunc status=none
    wait "$replay" # not a bare wait: the private pvmd is a child too
    rc=$(cat "$dir/slow.rc")
    if [ "$rc" = 2 ] &&
       grep -Eq "bad log in ltid 2 .*ltid-2.comm.pgc.*(CRC|corrupt)" "$dir/slow.err"; then
        pg_pass "a log damaged mid-replay: the task names it, bad log, exit 2"
    else
        pg_fail "a log damaged mid-replay: exit $rc (wanted 2), stderr:"; tail -5 "$dir/slow.err"
    fi
else
    pg_fail "plain_slow 600: ltid 2's log is $size bytes, too short to damage past its first block"
fi

# --- messages of another size ----------------------------------------------
export PVM_EXPORT=PLAIN_SIZED_N
PLAIN_SIZED_N=4 "$PANGAEA" -log -logdir "$dir/sized" "$SIZED" >"$dir/sized.out" 2>&1
PLAIN_SIZED_N=4 expect "replay with the recorded message sizes passes" 0 "" \
    "$PANGAEA" -replay -logdir "$dir/sized" "$SIZED"
PLAIN_SIZED_N=9 expect "message of another size: divergence naming event, sender, msgid and sizes" 3 \
    "replay diverged in ltid [23] .* at event 2: recorded pvm_send to ltid 1 tag 7 \(message 1\) of [0-9]+ bytes \(sender ltid [23]\); the program sent it with [0-9]+ bytes" \
    "$PANGAEA" -replay -logdir "$dir/sized" "$SIZED"
# The receiver checks too: here the sender's own check is out of the
# selection (-only ltid=1 records ltid 1's events only).
PLAIN_SIZED_N=4 "$PANGAEA" -log -only ltid=1 -logdir "$dir/sized1" "$SIZED" >/dev/null 2>&1
PLAIN_SIZED_N=9 expect "message of another size seen by the receiver" 3 \
    "replay diverged in ltid 1 .* at event [12]: recorded pvm_recv of message 1 from ltid [23] tag 7 of [0-9]+ bytes; the program received it with [0-9]+ bytes" \
    "$PANGAEA" -replay -logdir "$dir/sized1" "$SIZED"
unset PVM_EXPORT

# --- another binary under the same name ------------------------------------
mkdir -p "$dir/bin"
cp "$SIZED" "$dir/bin/plain_sized"
"$PANGAEA" -log -logdir "$dir/bin-logs" "$dir/bin/plain_sized" >/dev/null 2>&1
sum=$(sha256sum <"$SIZED" | cut -d' ' -f1)
if grep -q "sha256=\"$sum\"" "$dir/bin-logs/ltid-1.exec.xml" &&
   xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$dir"/bin-logs/ltid-*.xml 2>/dev/null; then
    pg_pass "the execution log records the program's SHA-256 (schema-valid)"
else
    pg_fail "no sha256=\"$sum\" in ltid-1.exec.xml, or the logs fail the schema"
fi
expect "replay of the same binary passes" 0 "" \
    "$PANGAEA" -replay -logdir "$dir/bin-logs" "$dir/bin/plain_sized"
cp "$PG_BUILD/tests/variant/plain_sized" "$dir/bin/plain_sized"
new=$(sha256sum <"$dir/bin/plain_sized" | cut -d' ' -f1)
expect "another build under the same name: divergence naming ltid, path, both SHA-256" 3 \
    "replay diverged in ltid 1 .* at its start: recorded program $dir/bin/plain_sized with SHA-256 $sum; the task runs $dir/bin/plain_sized with SHA-256 $new" \
    "$PANGAEA" -replay -logdir "$dir/bin-logs" "$dir/bin/plain_sized"
if grep -q "variant build" "$EXPECT_OUT"; then
    pg_fail "the other build ran on after the divergence"; cat "$EXPECT_OUT"
else
    pg_pass "the other build was stopped before it did anything"
fi
# A log from before checksums (no exe, no sha256) still replays.
cp "$SIZED" "$dir/bin/plain_sized"
sed -i 's/ exe="[^"]*" sha256="[0-9a-f]*"//' "$dir"/bin-logs/ltid-*.exec.xml
expect "a log without checksums still replays" 0 "" \
    "$PANGAEA" -replay -logdir "$dir/bin-logs" "$dir/bin/plain_sized"

# --- a wrapper script that execs the program --------------------------------
# The preloaded library loads first into the shell; the program it execs
# keeps the pid, so it is the task (same tid), records and replays.
printf '#!/bin/sh\nexec "%s" "$@"\n' "$SIZED" >"$dir/bin/wrapper.sh"
chmod +x "$dir/bin/wrapper.sh"
expect "wrapper script that execs the program: recorded" 0 "" \
    "$PANGAEA" -log -logdir "$dir/wrapped" "$dir/bin/wrapper.sh"
cp "$EXPECT_OUT" "$dir/wrapped.out"
expect "wrapper script that execs the program: replayed" 0 "" \
    "$PANGAEA" -replay -logdir "$dir/wrapped" "$dir/bin/wrapper.sh"
if [ "$(grep -c 'got [0-9]* bytes' "$EXPECT_OUT")" -eq 2 ] && cmp -s "$dir/wrapped.out" "$EXPECT_OUT"; then
    pg_pass "wrapper script: the replay prints what the recording printed"
else
    pg_fail "wrapper script: replay output differs"; cat "$dir/wrapped.out" "$EXPECT_OUT"
fi
# A script that runs the program as a child: Pangaea never starts in the
# task PVM knows, and pangaea says so (not "killed or crashed").
printf '#!/bin/sh\n"%s" "$@"\n' "$SIZED" >"$dir/bin/runner.sh"
chmod +x "$dir/bin/runner.sh"
expect "script that runs the program as a child: said as such" 4 \
    "ltid 1 \(t[0-9a-f]+\) ended without ever starting Pangaea: .*a script that ran the program as a child process" \
    "$PANGAEA" -log -logdir "$dir/runner" "$dir/bin/runner.sh"

pg_summary
