#!/usr/bin/env bash
# test_scaling_tables.sh - the tables built while a recording is read
# grow with it, not faster: -races' barriers, a replay's placement table.
#
# Measured without the clock, as test_scaling.sh does: the instructions
# executed, counted by valgrind (cachegrind, no cache simulation; every
# process of the command summed), at N and 4N; at 4x, within 5x (a
# quadratic table makes ~10-16x).
# - Barriers: two tasks that each return from N/2 barriers on one group
#   (tests/tools/gen_logs "barriers").  -races numbers each task's
#   barriers per group as it reads them and finds the k-th barrier of a
#   group by an index; it used to count the task's earlier events per
#   barrier and search the barriers made so far (14x at 4x).
# - Placement: ltid 1 spawns N/4 children, the highest ltid first
#   (gen_logs "spawns"); a replay's check reads the execution logs into
#   its table of where each task runs, then stops at the first child's
#   missing log, before any pvmd.  The table is sorted once; inserting
#   each child in ltid order moved the children after it (10x at 4x).
#   Sorted once, it still refuses an ltid spawned twice, naming the logs.
# No pvmd: the recordings are written by gen_logs.
set -u
. "$(dirname "$0")/lib.sh"

P=$PG_BUILD/pangaea
G=$PG_BUILD/tests/gen_logs
dir=$(pg_tmpdir)
N=${PG_SCALING_N:-10000}

command -v valgrind >/dev/null ||
    pg_skip "valgrind is not installed (scripts/install-deps.sh test)"


# within5 WHAT SMALL BIG: BIG (at 4x) within 5x SMALL.
within5() {
    if [ -n "$2" ] && [ -n "$3" ] && [ "$3" -le $(($2 * 5)) ]; then
        pg_pass "$1: 4x, $(awk "BEGIN{printf \"%.2f\", $3/$2}")x the instructions ($2 -> $3)"
    else
        pg_fail "$1: 4x, more than 5x the instructions ('$2' -> '$3')"
    fi
}

printf '#!/bin/sh\nexit 0\n' >"$dir/gen_worker"
chmod +x "$dir/gen_worker"
for n in "$N" $((4 * N)); do
    mkdir -p "$dir/b$n" "$dir/s$n"
    "$G" "$dir/b$n" 2 "$n" barriers >/dev/null || pg_fail "gen_logs $n barriers failed"
    "$G" "$dir/s$n" $((n / 2)) 0 spawns >/dev/null || pg_fail "gen_logs $n spawns failed"
done

# The work measured is the real one: every barrier read, no race.
out=$("$P" -races "$dir/b$((4 * N))" 2>&1)
if [ $? -eq 0 ] && [ "$out" = "no race in 0 receives examined" ]; then
    pg_pass "-races reads $((4 * N)) barriers: no race"
else
    pg_fail "-races on $((4 * N)) barriers: $out"
fi
b1=$(pg_insns "$dir/vb1" "$P" -races "$dir/b$N")
b4=$(pg_insns "$dir/vb4" "$P" -races "$dir/b$((4 * N))")
within5 "-races, barriers of one group" "$b1" "$b4"

# The check reached the children's logs: the table was built whole.
s4=$dir/s$((4 * N))
out=$("$P" -replay -logdir "$s4" "$dir/gen_worker" -worker 2>&1)
if [ $? -eq 2 ] && echo "$out" | grep -q "ltid-2.comm.pgc is missing: ltid 2 was spawned"; then
    pg_pass "a replay's check builds the table of $((2 * N)) children and names the missing log"
else
    pg_fail "a replay's check of $((2 * N)) children: $out"
fi
s1=$(pg_insns "$dir/vs1" "$P" -replay -logdir "$dir/s$N" "$dir/gen_worker" -worker)
s4=$(pg_insns "$dir/vs4" "$P" -replay -logdir "$s4" "$dir/gen_worker" -worker)
within5 "a replay's placement table" "$s1" "$s4"

# The table, sorted once, still refuses an ltid spawned twice, naming
# the logs (an edited recording; the logs are read in directory order).
for case in same other; do
    d=$dir/twice-$case
    mkdir -p "$d"
    "$G" "$d" 3 0 spawns >/dev/null || pg_fail "gen_logs 3 spawns failed"
    if [ $case = same ]; then
        sed -i 's/<child ltid="2"/<child ltid="3"/' "$d/ltid-1.exec.xml"
        want='ltid 3 is spawned twice in ltid-1.exec.xml: an edit gave two tasks one ltid'
    else
        sed -i 's/<child ltid="4"/<child ltid="1"/' "$d/ltid-1.exec.xml"
        want='ltid 1 is spawned twice, in ltid-[01].exec.xml and in ltid-[01].exec.xml: the execution logs do not belong to one recording'
    fi
    out=$("$P" -replay -logdir "$d" "$dir/gen_worker" -worker 2>&1)
    if [ $? -eq 2 ] && echo "$out" | grep -q "$want"; then
        pg_pass "an ltid spawned twice ($case parent) is refused: $out"
    else
        pg_fail "an ltid spawned twice ($case parent): $out"
    fi
done

pg_summary
