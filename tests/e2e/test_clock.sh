#!/usr/bin/env bash
# test_clock.sh - what gettimeofday, time, clock_gettime and getpid return
# to the program is recorded and given back in replay.
#
# Design.  tests/programs/plain_clock.c: workers seed rand() from
# gettimeofday and their pid, poll pvm_nrecv a random number of times
# between generations, and send values; the master prints every worker's
# pid and sum, its own pid, time(NULL) and a CLOCK_MONOTONIC reading.
# Checks:
# - unrecorded runs differ (the test can fail);
# - recorded with -notime (clocks not recorded, as before this feature),
#   replays diverge or print something else: the failure the issue saw;
# - recorded by default, 10 replays of 10 exit 0 and print exactly the
#   recorded output, pids included (the kernel's pids differ every run);
# - PVM's own clock and pid calls are not recorded: the master's time file
#   holds its three calls only (getpid, clock_gettime, time), not the
#   getpid of pvm_mytid or the clock reads of PVM's receives.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
prog=$PG_BUILD/tests/plain_clock
pangaea=$PG_BUILD/pangaea

pg_repeat 3 "$dir/free" "$pangaea" -none -logdir "$dir/free.logs" "$prog" 3 8
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
    pg_pass "unrecorded runs differ ($PG_REPEAT_DISTINCT distinct outputs of 3)"
else
    pg_fail "unrecorded runs: $PG_REPEAT_BAD failed, $PG_REPEAT_DISTINCT distinct outputs"
fi

# Without the clocks: the replays cannot follow.
timeout 60 "$pangaea" -log -notime -logdir "$dir/notime" "$prog" 3 8 >"$dir/notime.out" 2>&1 ||
    pg_fail "recording with -notime failed"
pg_repeat 3 "$dir/notime.r" "$pangaea" -replay -notime -logdir "$dir/notime" "$prog" 3 8
diff=0
for i in 1 2 3; do
    [ "$(cat "$dir/notime.r/$i.rc")" != 0 ] || ! grep -vq '^pangaea:' "$dir/notime.r/$i.out" ||
        ! diff -q <(grep -v '^pangaea:' "$dir/notime.out") "$dir/notime.r/$i.out" >/dev/null &&
        diff=$((diff + 1))
done
if ls "$dir/notime" | grep -q 'time.pgc'; then
    pg_fail "-notime still wrote time files"
elif [ "$diff" -eq 3 ]; then
    pg_pass "without recorded clocks (-notime) 3 of 3 replays diverge or differ (exit $(cat "$dir"/notime.r/*.rc | tr '\n' ' '))"
else
    pg_fail "without recorded clocks only $diff of 3 replays differ: the test proves nothing"
fi

# With them (the default).
if timeout 60 "$pangaea" -log -logdir "$dir/logs" "$prog" 3 8 >"$dir/rec.out" 2>"$dir/rec.err"; then
    pg_pass "recording with clocks exits 0"
else
    pg_fail "recording failed"; cat "$dir/rec.err"
fi
pg_repeat 10 "$dir/replay" "$pangaea" -replay -logdir "$dir/logs" "$prog" 3 8
same=0
for i in $(seq 10); do cmp -s "$dir/rec.out" "$dir/replay/$i.out" && same=$((same + 1)); done
if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq 10 ]; then
    pg_pass "10 of 10 replays print exactly the recorded pids, sums, time and clock"
else
    pg_fail "$same of 10 replays match, $PG_REPEAT_BAD failed"
    diff "$dir/rec.out" "$dir/replay/1.out" | head -5; head -5 "$dir/replay/1.err"
fi
rec_pid=$(sed -n 's/.*master: pid \([0-9]*\).*/\1/p' "$dir/rec.out")
if [ -n "$rec_pid" ] && grep -q "master: pid $rec_pid " "$dir/replay/1.out" &&
   ! grep -q "master: pid $rec_pid " "$dir/free/1.out"; then
    pg_pass "getpid in replay returns the recorded pid ($rec_pid), which a free run does not"
else
    pg_fail "pid in replay: recorded $rec_pid, replay $(grep master "$dir/replay/1.out")"
fi
# The master's time file (docs/comm-log-format.md): after the header
# (48 bytes in version 3: magic, version, recording, ltid, CRC), chunks (le32 length, its complement, crc32c) of records
# "code [clock] sec [sub]" of varints; the master makes
# four calls (time 2 before its first PVM call, getpid 4, clock_gettime 3,
# time 2), PVM's are not there.
codes=$(python3 -S - "$dir/logs/ltid-1.time.pgc" <<'PY'
import sys
f = open(sys.argv[1], 'rb').read()
b, at = b'', 48 if f[4] >= 3 else 8
while at + 12 <= len(f):
    n = int.from_bytes(f[at:at + 4], 'little')
    b += f[at + 12:at + 12 + n]
    at += 12 + n
i, out = 0, []
def varint():
    global i
    while b[i] & 0x80:
        i += 1
    i += 1
while i < len(b):
    code = b[i]; i += 1; out.append(code)
    if code == 3: varint()
    varint()
    if code in (1, 3): varint()
print(' '.join(map(str, out)))
PY
)
if [ "$(tr ' ' '\n' <<<"$codes" | sort | tr '\n' ' ')" = "2 2 3 4 " ]; then
    pg_pass "only the program's own calls are recorded (master: records $codes)"
else
    pg_fail "master's time file holds records $codes, not the four calls of the program (PVM's own recorded?)"
    od -An -tu1 "$dir/logs/ltid-1.time.pgc" | head
fi
pg_summary
