#!/usr/bin/env bash
# test_bufids.sh - the buffer ids the program's receives, pvm_initsend and
# pvm_mkbuf return are, in replay, those it saw when recorded
# (src/pvm/runtime/bufid.c, src/pvm/wrap/wrap_buf.c).
#
# plain_bufids prints every buffer id its probes, receives, pvm_getrbuf,
# pvm_setrbuf and pvm_initsend return while its children's messages come
# in an order that depends on timing, switches between the kept buffers
# with pvm_setrbuf and unpacks each: unrecorded runs differ, and 5
# replays of a recording print the recorded ids and the data of each
# buffer (pg_replay_case); no replay says that an id differed.  Then a
# copy of the recording whose buffer-id file has a record that is not an
# id (its third, 0; and a last, -1, read at the task's end): its replay
# fails, naming the file and the byte.
set -u
. "$(dirname "$0")/lib.sh"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
PG_RUNS=5
PG_FREE_RUNS=8

pg_replay_case "plain_bufids (the buffer ids a program sees)" \
    "$PG_BUILD/tests/plain_bufids"
case_dir=$(dirname "$PG_CASE_LOGS")
if grep -q '^\[1\] setrbuf([0-9]*) returned [0-9]*, holds 0$' "$case_dir/rec.out" &&
   [ -s "$PG_CASE_LOGS/ltid-1.bufids.pgc" ]; then
    pg_pass "plain_bufids: the recording printed its ids and kept them in ltid-1.bufids.pgc"
else
    pg_fail "plain_bufids: no ids printed, or no buffer-id file:"
    cat "$case_dir/rec.out"
fi
if ! cat "$case_dir"/replay/*.out "$case_dir"/replay/*.err 2>/dev/null |
     grep -q 'another buffer id than recorded'; then
    pg_pass "plain_bufids: no replay gave a receive another id than recorded"
else
    pg_fail "plain_bufids: a replay said an id differed:"
    grep -h 'another buffer id' "$case_dir"/replay/*.out "$case_dir"/replay/*.err | head -3
fi

bad=$(pg_tmpdir)/logs
cp -r "$PG_CASE_LOGS" "$bad"
printf '\0\0\0\0' | dd of="$bad/ltid-1.bufids.pgc" bs=1 seek=8 conv=notrunc 2>/dev/null
printf '\377\377\377\377' >>"$bad/ltid-1.bufids.pgc"
rc=0
timeout 60 "$PG_BUILD/pangaea" -replay -logdir "$bad" "$PG_BUILD/tests/plain_bufids" \
    >"$bad.out" 2>"$bad.err" || rc=$?
if [ "$rc" -ne 0 ] &&
   grep -q "ltid-1.bufids.pgc: byte 8: not a buffer id (0)" "$bad.out" "$bad.err"; then
    pg_pass "plain_bufids: a replay refuses a record of a buffer-id file that is no id, naming file and byte (exit $rc)"
else
    pg_fail "plain_bufids: a bad buffer-id file: exit $rc, and no message naming it:"
    cat "$bad.out" "$bad.err" | head -8
fi

pg_pvm_stop
pg_summary
