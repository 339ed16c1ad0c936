#!/usr/bin/env bash
# test_programs_race.sh - the test programs and the SOR demo really race.
#
# Runs each program 20 times on a private pvmd WITHOUT Pangaea and asserts
# that every run exits 0 and that the outputs are not all the same (at
# least 2 distinct of 20).  The programs print only what follows from
# their receive order, so distinct outputs mean distinct orders: these are
# the nondeterministic runs Pangaea is meant to record and replay.  SOR's
# grid, unlike its residual, does not depend on the order: its checksum
# line must be the same in every run.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

RUNS=20
OUT=$(pg_tmpdir) || exit 1
pg_pvm_start || { pg_fail "private pvmd starts"; pg_summary; exit 1; }

# race_check NAME CMD...: 20 runs, all exit 0, at least 2 distinct outputs.
race_check() {
    local name=$1 bin=$2
    if [ ! -x "$bin" ]; then
        pg_fail "$name: $bin is not built"
        return
    fi
    pg_repeat "$RUNS" "$OUT/$name" "${@:2}"
    if [ "$PG_REPEAT_BAD" -ne 0 ]; then
        pg_fail "$name: $PG_REPEAT_BAD of $RUNS runs exited non-zero"
        head -n 5 "$OUT/$name"/*.err
        pg_pvm_log | tail -n 20
    else
        pg_pass "$name: $RUNS runs exited 0"
    fi
    if [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
        pg_pass "$name: $PG_REPEAT_DISTINCT distinct outputs of $RUNS"
    else
        pg_fail "$name: $PG_REPEAT_DISTINCT distinct outputs of $RUNS (no race)"
    fi
}

race_check plain_race "$PG_BUILD/tests/plain_race" 3 30
race_check race "$PG_BUILD/tests/race" 3 30
race_check plain_variety "$PG_BUILD/tests/plain_variety" 3 24
race_check sor "$PG_BUILD/sor" 4

if [ -d "$OUT/sor" ]; then
    sums=$(cat "$OUT"/sor/*.out | grep '^sor: checksum=' | sort -u | wc -l)
    if [ "$sums" -eq 1 ]; then
        pg_pass "sor: one grid checksum in all runs"
    else
        pg_fail "sor: $sums different grid checksums"
    fi
fi

pg_summary
