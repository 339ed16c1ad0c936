#!/usr/bin/env bash
# run_all.sh - runs every tests/e2e/test_*.sh and adds up their results.
#
# Each test prints its own closing line "e2e: N passed, M failed"; this
# script sums those and closes with "N passed, M failed" alone on a line.
# A test that exits non-zero without reporting a failure, or that prints
# no closing line (it crashed or hung), counts as one failure.  Exits
# non-zero if anything failed or no test ran at all.
set -u
dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
passed=0
failed=0
ran=0
log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

for t in "$dir"/test_*.sh; do
    [ -e "$t" ] || continue
    ran=$((ran + 1))
    echo "== $(basename "$t")"
    timeout "${PG_TEST_TIMEOUT:-1200}" bash "$t" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    line=$(grep -E '^e2e: [0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL: $(basename "$t") printed no result line (exit $rc)"
        failed=$((failed + 1))
        continue
    fi
    p=$(echo "$line" | sed -E 's/^e2e: ([0-9]+) passed, ([0-9]+) failed$/\1/')
    f=$(echo "$line" | sed -E 's/^e2e: ([0-9]+) passed, ([0-9]+) failed$/\2/')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL: $(basename "$t") exited $rc"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
done

[ "$ran" -gt 0 ] || echo "no end-to-end test found in $dir"
echo "$passed passed, $failed failed"
[ "$ran" -gt 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
