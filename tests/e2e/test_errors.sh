#!/usr/bin/env bash
# test_errors.sh - what a user gets when something is wrong.
#
# Usage errors exit 2 with a one-line reason; an edited communication log
# makes the replay diverge with an error naming the task, the event, what was
# recorded and what the program did, and pangaea exits non-zero; pangaea
# starts a private pvmd when none runs and leaves none behind, and starts
# none for a what-if it refuses (another program than the recording's).
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
SOR=$PG_BUILD/sor

# expect_fail NAME STATUS PATTERN CMD...: CMD exits STATUS, stderr matches.
expect_fail() {
    local name=$1 want=$2 pattern=$3 dir rc=0
    shift 3
    dir=$(pg_tmpdir)
    EXPECT_ERR=$dir/err
    timeout 60 "$@" >"$dir/out" 2>"$dir/err" || rc=$?
    if [ "$rc" -eq "$want" ] && grep -Eq "$pattern" "$dir/err"; then
        pg_pass "$name (exit $rc: $(head -1 "$dir/err"))"
    else
        pg_fail "$name: exit $rc (wanted $want), stderr:"; cat "$dir/err"
    fi
}

dir=$(pg_tmpdir)
expect_fail "unknown option" 2 "unknown or incomplete option -bogus" \
    "$PANGAEA" -bogus "$SOR" 4
expect_fail "no mode" 2 "say what to do" "$PANGAEA" "$SOR" 4
expect_fail "missing program" 2 "missing program" "$PANGAEA" -log
expect_fail "program that does not exist" 2 "cannot run the program .*nosuch" \
    "$PANGAEA" -log -logdir "$dir/l1" "$dir/nosuch"
expect_fail "replay with no logs" 2 "no recording to replay" \
    "$PANGAEA" -replay -logdir "$dir/empty" "$SOR" 4

# pangaea starts its own pvmd when none runs, and halts it at the end.
export PVM_TMP; PVM_TMP=$(pg_tmpdir)
if timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$SOR" 4 >"$dir/rec.out" 2>"$dir/rec.err" &&
   ! pg_pvmd_pid "$PVM_TMP" >/dev/null && [ ! -e "$PVM_TMP/pvmd.$(id -u)" ]; then
    pg_pass "private pvmd started for the run and halted after it"
else
    pg_fail "private pvmd: run failed or daemon left behind"; cat "$dir/rec.err"
    pg_pvmd_halt "$PVM_TMP"
fi

# A what-if of that recording with another program is refused before any
# pvmd starts (none runs in this PVM_TMP: pvmd writes its log there), and
# the new recording's directory it made goes again.
spec=$("$PANGAEA" -races -jsonl "$dir/logs" 2>/dev/null | python3 -S -c '
import json, sys
r = json.loads(sys.stdin.readline())
s, ids = next(iter(r["alts"].items()))
print("%d:%d=%s:%d" % (r["ltid"], r["seq"], s, ids[0] if isinstance(ids[0], int) else ids[0][0]))')
PVM_TMP=$(pg_tmpdir) # fresh: the run above left its pvmd's log
if [ -n "$spec" ]; then
    expect_fail "what-if of another program" 2 "is of .*sor, not of .*plain_known" \
        "$PANGAEA" -whatif "$spec" -logdir "$dir/logs" -o "$dir/wi" "$PG_BUILD/tests/plain_known" wild
    if [ -z "$(ls "$PVM_TMP")" ] && [ ! -e "$dir/wi" ]; then
        pg_pass "what-if of another program: no pvmd started, no directory left"
    else
        pg_fail "what-if of another program: left $(ls "$PVM_TMP") $(ls -d "$dir/wi" 2>/dev/null)"
        pg_pvmd_halt "$PVM_TMP"
    fi
else
    pg_fail "what-if of another program: the sor recording has no race to fork"
fi
PVM_TMP=$PG_PVM_TMP_OWN

# A stale socket file (a daemon that died) gets a clear message, not a hang.
stale=$(pg_tmpdir)
echo "$stale/pvmtmp99999.0" >"$stale/pvmd.$(id -u)"
PVM_TMP=$stale expect_fail "stale pvmd socket file" 4 \
    "pvmd.$(id -u) exists but no pvmd answers there" \
    "$PANGAEA" -none -logdir "$dir/stale" "$SOR" 4

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# A pvmd that is alive but does not answer (stopped here) is named, not
# waited for for ever.
kill -STOP "$PG_PVMD_PID"
PANGAEA_PVMD_WAIT=3 expect_fail "pvmd that does not answer" 4 \
    "pvmd of .*pvmd.$(id -u) does not answer \(waited 3 s\)" \
    "$PANGAEA" -none -logdir "$dir/stopped" "$SOR" 4
kill -CONT "$PG_PVMD_PID"
expect_fail "replay of another program's recording" 2 "is of .*sor, not of .*race" \
    "$PANGAEA" -replay -logdir "$dir/logs" "$PG_BUILD/tests/race"

# Edit the tag of the first send of ltid 2: its replay must diverge there.
cp -r "$dir/logs" "$dir/edited"
pg_comm_edit "$dir/edited" 2 '0,/<send \(.*\) tag="[0-9]*"/s//<send \1 tag="999"/'
if pg_comm_xml "$dir/edited" 2 | grep -q 'tag="999"'; then
    expect_fail "edited communication log: replay diverges" 3 \
        "replay diverged in ltid 2 \(.*sor\) at event [0-9]+: recorded pvm_send to ltid [0-9]+ tag 999 .*the program called pvm_send to ltid [0-9]+ tag [0-9]+" \
        "$PANGAEA" -replay -logdir "$dir/edited" "$SOR" 4
else
    pg_fail "could not edit the log for the divergence test"
fi
# A program that now ends otherwise than recorded has diverged, even when
# no other task notices: another exit status, or events left over.
cp -r "$dir/logs" "$dir/status"
pg_comm_edit "$dir/status" 2 's/<end \(.*\) status="0"/<end \1 status="7"/'
expect_fail "edited exit status: the replay says the task ended otherwise" 3 \
    "replay diverged in ltid 2 \(.*sor\) at event [0-9]+: recorded that the task ended with status 7; the program ended with status 0" \
    "$PANGAEA" -replay -logdir "$dir/status" "$SOR" 4
cp -r "$dir/logs" "$dir/more"
k=$(pg_comm_xml "$dir/more" 3 | sed -n 's/.*<end seq="\([0-9]*\)".*/\1/p')
pg_comm_edit "$dir/more" 3 "s|  <end seq=\"$k\"|  <recv seq=\"$k\" t=\"1.5\" call=\"pvm_recv\" from=\"1\" tag=\"5\" msgid=\"9999\" bytes=\"8\"/>\n  <end seq=\"$((k + 1))\"|"
expect_fail "a receive added at the end: the replay says the task ended before it" 3 \
    "replay diverged in ltid 3 \(.*sor\) at event $k: recorded pvm_recv of message 9999 from ltid 1 tag 5; the program ended with status 0" \
    "$PANGAEA" -replay -logdir "$dir/more" "$SOR" 4

# A log that is not well-formed is refused before anything starts: bytes
# after its end, a block whose CRC fails (one byte changed), an execution
# log that is not XML.
cp -r "$dir/logs" "$dir/broken"
printf '<send seq=' >>"$dir/broken/ltid-3.comm.pgc"
expect_fail "comm log with bytes after its end is refused, naming file and byte" 2 \
    "ltid-3.comm.pgc: byte offset [0-9]+: content after the end of the log" \
    "$PANGAEA" -replay -logdir "$dir/broken" "$SOR" 4
cp -r "$dir/logs" "$dir/flipped"
# One bit (0x40) of the byte in the middle: a bit that never changes how
# long a varint is, so the block keeps its frame and its CRC must catch it
# (a change that makes a closed log's last event swallow its trailer reads
# as a log cut short: the format has no block lengths to tell, see
# docs/comm-log-format.md).
size=$(stat -c %s "$dir/flipped/ltid-2.comm.pgc")
at=$((size / 2))
old=$(od -An -tu1 -j "$at" -N 1 "$dir/flipped/ltid-2.comm.pgc" | tr -d ' ')
printf "\\$(printf %o $(( (old ^ 0x40) & 255 )))" |
    dd of="$dir/flipped/ltid-2.comm.pgc" bs=1 seek="$at" conv=notrunc 2>/dev/null
expect_fail "comm log with a corrupt block is refused, naming file, offset and last good event" 2 \
    "ltid-2.comm.pgc: byte offset [0-9]+: .*(CRC|corrupt).*the last good event is [0-9]+" \
    "$PANGAEA" -replay -logdir "$dir/flipped" "$SOR" 4
cp -r "$dir/logs" "$dir/badexec"
printf '<spawn seq=' >>"$dir/badexec/ltid-1.exec.xml"
expect_fail "malformed execution log is refused with file and line" 2 "ltid-1.exec.xml:[0-9]+" \
    "$PANGAEA" -replay -logdir "$dir/badexec" "$SOR" 4

# A receive edited to a message nobody sent: every task ends up waiting
# (task 1 for it, the others for task 1); pangaea must say so and stop.
cp -r "$dir/logs" "$dir/stall"
pg_comm_edit "$dir/stall" 1 '0,/<recv \(.*\) msgid="[0-9]*"/s//<recv \1 msgid="9999"/'
PANGAEA_STALL=2 expect_fail "replay where every task waits: stall reported" 3 \
    "replay stalled: every task waits.*" \
    "$PANGAEA" -replay -logdir "$dir/stall" "$SOR" 4
if grep -q "ltid 1 (.*sor) waits in pvm_recv for message 9999 from ltid 2" "$EXPECT_ERR"; then
    pg_pass "stall report names the task, call and the message it waits for"
else
    pg_fail "stall report lacks what ltid 1 waits for"
fi

# A notice edited to name a task whose exit notice the master takes at
# another event already: the second time it waits for a notice that cannot
# come, and the stall report says which.
"$PANGAEA" -log -logdir "$dir/nt" "$PG_BUILD/tests/plain_notify" >/dev/null 2>&1
second=$(pg_comm_xml "$dir/nt" 1 | grep -o 'what="exit" ltid="[0-9]*"' | sed -n 2p | grep -o '[0-9]*')
pg_comm_edit "$dir/nt" 1 "0,/what=\"exit\" ltid=\"[0-9]*\"/s//what=\"exit\" ltid=\"$second\"/"
PANGAEA_STALL=2 expect_fail "notice edited to an exit taken twice: stall reported" 3 \
    "ltid 1 \(.*plain_notify\) waits in pvm_recv for the notice \(tag 50\) that ltid $second ended" \
    "$PANGAEA" -replay -logdir "$dir/nt" "$PG_BUILD/tests/plain_notify"

# A join edited to a turn that never comes: that task waits to join, the
# three others in pvm_barrier (which cannot report a wait itself).
# pangaea must see they all wait, and say so.
"$PANGAEA" -log -logdir "$dir/gq" "$PG_BUILD/tests/group_race" >/dev/null 2>&1
last=$(pg_comm_xml "$dir/gq" | grep -h 'group="race" inst="[0-9]*" ltid="[0-9]*" order=' |
       sed -E 's/.*ltid="([0-9]+)" order="([0-9]+)".*/\2 \1/' | sort -n | tail -1 | cut -d' ' -f2)
pg_comm_edit "$dir/gq" "$last" 's/\(group="race" inst="[0-9]*" ltid="[0-9]*"\) order="[0-9]*"/\1 order="50"/'
PANGAEA_STALL=2 expect_fail "join edited to a turn that never comes: stall reported" 3 \
    "ltid $last \(.*group_race\) waits in pvm_joingroup for turn 50 of group \"race\"" \
    "$PANGAEA" -replay -logdir "$dir/gq" "$PG_BUILD/tests/group_race"
if [ "$(grep -c 'waits in pvm_barrier("race", 4)' "$EXPECT_ERR")" -eq 3 ]; then
    pg_pass "the three tasks blocked in pvm_barrier are named as waiting there"
else
    pg_fail "the tasks in pvm_barrier are not named"; cat "$EXPECT_ERR"
fi

# The same edit where the sender simply ends: that message can never come.
"$PANGAEA" -log -logdir "$dir/m1" master1 >/dev/null 2>&1
pg_comm_edit "$dir/m1" 1 '0,/<recv \(.*\) msgid="[0-9]*"/s//<recv \1 msgid="9999"/'
expect_fail "replay waiting for a message its ended sender never sent" 3 \
    "ltid 1 .* at event [0-9]+: recorded pvm_recv of message 9999 .*sender has ended without sending it" \
    "$PANGAEA" -replay -logdir "$dir/m1" master1

# A recording with a task's log missing is refused before anything starts.
cp -r "$dir/logs" "$dir/missing"
rm "$dir/missing/ltid-3.comm.pgc"
expect_fail "missing task log is refused, nothing started" 2 \
    "ltid-3.comm.pgc is missing: ltid 3 was spawned" \
    "$PANGAEA" -replay -logdir "$dir/missing" "$SOR" 4

# The coordinator killed mid-run (by its PID: the pangaea-coord child of our
# pvmd): pangaea must say so, stop the tasks and exit non-zero, not hang.
# plain_load with 10^8 messages runs for minutes (sor 4 100000 500
# converges in a few seconds, and ended before the kill on a busy machine).
rc=0
timeout 60 "$PANGAEA" -none -logdir "$dir/long" "$PG_BUILD/tests/plain_load" 4 100000000 \
    >"$dir/long.out" 2>"$dir/long.err" &
runner=$!
coord=
for i in $(seq 50); do
    for p in /proc/[0-9]*; do
        [ "$(cat "$p/comm" 2>/dev/null)" = pangaea-coord ] || continue
        [ "$(awk '{print $4}' "$p/stat" 2>/dev/null)" = "$PG_PVMD_PID" ] && coord=${p#/proc/}
    done
    [ -n "$coord" ] && break
    sleep 0.1
done
sleep 1
[ -n "$coord" ] && kill -KILL "$coord"
wait "$runner" || rc=$?
if [ -n "$coord" ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
   grep -q "the coordinator (t[0-9a-f]*) died" "$dir/long.err" &&
   grep -q "lost ltid 1" "$dir/long.err"; then
    pg_pass "coordinator killed mid-run: pangaea says so and exits $rc"
else
    pg_fail "coordinator killed mid-run (pid ${coord:-none}): exit $rc"; cat "$dir/long.err"
fi

pg_summary
