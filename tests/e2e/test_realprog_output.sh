#!/usr/bin/env bash
# test_realprog_output.sh - a program that collects its children's output
# itself (pvm_setopt(PvmOutputTid) and PvmOutputCode, no PvmOutputContext)
# gets it under pangaea.
#
# Design.  plain_output (tests/programs) spawns 3 children that print one
# line each and collects their output with pvm_trecv(-1, its code): under
# -none and -log it must print all three lines and that the three ended;
# pangaea must not print those lines itself (they went to the program).
# Before the fix the children inherited pangaea's output context, so the
# program waited 20 s and said "nothing came".
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_output
dir=$(pg_tmpdir)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

for mode in -none -log; do
    rc=0
    timeout 90 "$PANGAEA" "$mode" -logdir "$dir/logs" "$PROG" 3 </dev/null >"$dir/out" 2>"$dir/err" || rc=$?
    n=0
    for k in 0 1 2; do
        grep -qx "\[1\] collected: child $k says hello" "$dir/out" && n=$((n + 1))
    done
    if [ "$rc" -eq 0 ] && [ "$n" -eq 3 ] && grep -qx '\[1\] 3 children ended, 3 lines collected' "$dir/out" &&
       ! grep -q '^\[[2-4]\] child' "$dir/out"; then
        pg_pass "pangaea $mode: the program collected its 3 children's output itself"
    else
        pg_fail "pangaea $mode: exit $rc, $n of 3 lines collected"; cat "$dir/out" "$dir/err"
    fi
done

pg_pvm_stop
pg_summary
