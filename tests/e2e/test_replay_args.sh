#!/usr/bin/env bash
# test_replay_args.sh - a replay runs the program with its recorded
# arguments: given none it takes them; given others it refuses (exit 2,
# naming both, nothing run); -otherargs runs with the given ones and warns.
#
# Design.  plain_args prints its arguments as hex bytes (and its child
# prints those it was handed), so the output tells exactly which arguments
# ran.  The recording's arguments include bytes a terminal would not show
# ($'\001'): the refusal must print them escaped.  A refused replay must
# leave the recording as it was (its files' checksums).
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
ARGS=$PG_BUILD/tests/plain_args
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
sums() { (cd "$1" && sha256sum ltid-* pangaea-* 2>/dev/null) | sort; }

rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$ARGS" 2000000 $'a\001b' </dev/null \
    >"$dir/rec.out" 2>"$dir/rec.err" || rc=$?
[ "$rc" -eq 0 ] || { pg_fail "recording: exit $rc"; cat "$dir/rec.err"; }
before=$(sums "$dir/logs")

rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$ARGS" </dev/null \
    >"$dir/none.out" 2>"$dir/none.err" || rc=$?
if [ "$rc" -eq 0 ] && [ -s "$dir/rec.out" ] && cmp -s "$dir/rec.out" "$dir/none.out"; then
    pg_pass "a replay given no arguments runs with the recorded ones ($(head -n 1 "$dir/none.out"))"
else
    pg_fail "replay without arguments: exit $rc"; diff "$dir/rec.out" "$dir/none.out"; cat "$dir/none.err"
fi

rc=0
timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$ARGS" 5 </dev/null \
    >"$dir/other.out" 2>"$dir/other.err" || rc=$?
if [ "$rc" -eq 2 ] && [ ! -s "$dir/other.out" ] &&
   grep -qF '"2000000" "a\001b", not "5"' "$dir/other.err" &&
   [ "$(sums "$dir/logs")" = "$before" ]; then
    pg_pass "a replay given other arguments is refused, naming both: $(cat "$dir/other.err")"
else
    pg_fail "replay with other arguments: exit $rc"; cat "$dir/other.out" "$dir/other.err"
fi

rc=0
timeout 60 "$PANGAEA" -replay -otherargs -logdir "$dir/logs" "$ARGS" 5 </dev/null \
    >"$dir/warn.out" 2>"$dir/warn.err" || rc=$?
# The child's line for "5" is shorter: the replay diverges there (exit 3).
if [ "$rc" -eq 3 ] && grep -q 'diverged .*of 44 bytes.*sent it with 12 bytes' "$dir/warn.err" &&
   grep -q 'warning: -otherargs: replaying with "5", recorded with "2000000"' "$dir/warn.err"; then
    pg_pass "-otherargs replays with the given arguments and warns (exit $rc)"
else
    pg_fail "-otherargs: exit $rc"; cat "$dir/warn.out" "$dir/warn.err"
fi

rc=0
timeout 60 "$PANGAEA" -log -otherargs -logdir "$dir/l2" "$ARGS" </dev/null \
    >/dev/null 2>"$dir/log.err" || rc=$?
if [ "$rc" -eq 2 ] && grep -q -- '-otherargs and -rebuilt go with -replay' "$dir/log.err"; then
    pg_pass "-otherargs outside a replay is refused"
else
    pg_fail "-log -otherargs: exit $rc"; cat "$dir/log.err"
fi

pg_pvm_stop
pg_summary
