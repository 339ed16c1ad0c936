#!/usr/bin/env bash
# test_keep.sh - a recording never overwrites an earlier one silently.
#
# Design.  Records the racing program three times into one log directory
# on a private pvmd.  After the second, the first recording's files (and
# the page -display wrote) must be in LOGDIR/previous/ byte for byte, with
# a line on stderr saying so; after the third, previous/ holds the second
# recording only (the older one is replaced, no stale ltid left behind).
# A previous/ holding a file that is not part of a recording is never
# deleted: the recording is refused (exit 2) and nothing is moved.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
RACE=$PG_BUILD/tests/plain_race
dir=$(pg_tmpdir)
logs=$dir/logs

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# sums DIR: the checksums of a recording's files, by name.
sums() { (cd "$1" && sha256sum ltid-*.xml ltid-*.pgc pangaea-graph.html 2>/dev/null); }

record() { timeout 60 "$PANGAEA" -log -logdir "$logs" "$RACE" "$@" >"$dir/out" 2>"$dir/err"; }

if record 3 5 && "$PANGAEA" -display "$logs" >/dev/null 2>&1; then
    sums "$logs" >"$dir/first.sum"
    if grep -q "previous recording" "$dir/err" || [ -e "$logs/previous" ]; then
        pg_fail "first recording into an empty directory talked of a previous one"
    else
        pg_pass "first recording: nothing to keep, nothing said"
    fi
else
    pg_fail "first recording failed"; cat "$dir/err"
fi

# The second has fewer tasks: ltid-4 of the first must not stay beside it.
if record 2 5; then
    if [ "$(sums "$logs/previous")" = "$(cat "$dir/first.sum")" ] &&
       grep -qx "pangaea: the previous recording was kept in $logs/previous" "$dir/err"; then
        pg_pass "second recording: the first kept in previous/, byte for byte, and said so"
    else
        pg_fail "second recording: previous/ differs from the first recording"
        cat "$dir/err"; ls -l "$logs" "$logs/previous"
    fi
    if [ ! -e "$logs/ltid-4.comm.pgc" ] && [ ! -e "$logs/pangaea-graph.html" ]; then
        pg_pass "second recording: no file of the first left among the new logs"
    else
        pg_fail "second recording: files of the first left among the new logs"
    fi
else
    pg_fail "second recording failed"; cat "$dir/err"
fi
sums "$logs" >"$dir/second.sum"

if record 2 4 && [ "$(sums "$logs/previous")" = "$(cat "$dir/second.sum")" ]; then
    pg_pass "third recording: previous/ now holds the second recording only"
else
    pg_fail "third recording: previous/ is not the second recording"; ls -l "$logs/previous"
fi
if timeout 60 "$PANGAEA" -replay -logdir "$logs" "$RACE" 2 4 >"$dir/rep.out" 2>"$dir/rep.err" &&
   cmp -s "$dir/out" "$dir/rep.out"; then
    pg_pass "the newest recording still replays (previous/ is not read)"
else
    pg_fail "replay of the newest recording failed"; cat "$dir/rep.err"
fi

# A file of the user's own in previous/: refused, nothing moved or deleted.
echo notes >"$logs/previous/my-notes.txt"
{ sums "$logs"; sums "$logs/previous"; } >"$dir/third.sum"
rc=0; record 2 4 || rc=$?
if [ "$rc" -eq 2 ] && grep -q "cannot replace .*previous" "$dir/err" &&
   [ -e "$logs/previous/my-notes.txt" ] && [ "$({ sums "$logs"; sums "$logs/previous"; })" = "$(cat "$dir/third.sum")" ]; then
    pg_pass "previous/ with a foreign file: refused with exit 2, nothing touched ($(head -1 "$dir/err"))"
else
    pg_fail "previous/ with a foreign file: exit $rc"; cat "$dir/err"
fi

pg_pvm_stop
pg_summary
