#!/usr/bin/env bash
# test_spawn_farm.sh - a task may spawn more than 999 children.
#
# ltids were parent x 1000 + k: a task could spawn 999 children (ltid 1:
# 998) and a chain ended at depth 5 ("too many children").  Now the
# coordinator numbers new tasks as their parents ask and the parent's
# execution log keeps each child's number (wrap_spawn.c).
# tests/programs/plain_farm.c (chains and concurrent spawns:
# test_spawn_limits.sh):
#  - a task farm: ltid 1 starts 1000 short workers, at most 8 at a time,
#    records and replays (each worker's ltid from its parent's log);
#  - the ltids are dense: 1 .. the number of tasks, each once.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_farm
dir=$(pg_tmpdir)
cd "$dir" || exit 1

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# children LOGDIR LTID: the ltids LTID's execution log gives its children.
children() {
    sed -n 's/.*<child ltid="\([0-9]*\)".*/\1/p' "$1/ltid-$2.exec.xml" 2>/dev/null | tr '\n' ' '
}

# dense LOGDIR N: the recording's exec logs are exactly ltid-0 .. ltid-N.
dense() {
    [ "$(ls "$1" | sed -n 's/^ltid-\([0-9]*\)\.exec\.xml$/\1/p' | sort -n |
        tr '\n' ' ')" = "$(seq 0 "$2" | tr '\n' ' ')" ]
}

# record_replay NAME N ARGS...: records ARGS into NAME, replays it; N tasks.
record_replay() {
    local name=$1 n=$2 rc=0
    shift 2
    timeout 600 "$PANGAEA" -log -logdir "$name" "$PROG" "$@" >"$name.out" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && dense "$name" "$n"; then
        pg_pass "$name: recorded $* ($n tasks, ltids 1..$n)"
    else
        pg_fail "$name: recording $*: exit $rc"; tail -5 "$name.out"; return
    fi
    rc=0
    timeout 600 "$PANGAEA" -replay -logdir "$name" "$PROG" "$@" >"$name.rep" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && grep -q "of $n tasks as recorded" "$name.rep" &&
            diff <(grep '^\[1\]' "$name.out") <(grep '^\[1\]' "$name.rep") >/dev/null; then
        pg_pass "$name: replayed as recorded ($(grep '^\[1\]' "$name.rep"))"
    else
        pg_fail "$name: replay: exit $rc"; tail -5 "$name.rep"
    fi
}

# --- a task farm of 1000 workers ----------------------------------------------
record_replay farm 1001 farm 1000 8
if [ "$(children farm 1 | wc -w)" -eq 1000 ]; then
    pg_pass "farm: ltid 1's log names 1000 children"
else
    pg_fail "farm: ltid 1's log names $(children farm 1 | wc -w) children"
fi

cd / && pg_summary
