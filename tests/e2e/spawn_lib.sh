#!/usr/bin/env bash
# spawn_lib.sh - what test_spawn_farm.sh and test_spawn_limits.sh share:
# sourced after lib.sh; starts a private pvmd in a fresh directory and
# gives children, dense and record_replay over tests/programs/plain_farm.c.
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
