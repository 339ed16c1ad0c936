#!/usr/bin/env bash
# test_docs.sh - README.md and the man pages are a tested contract.
#
#  - cli_contract.py: the man page's SYNOPSIS and the README's usage block
#    are what the command-line table (src/cli/main/options.def) prints as
#    `pangaea -help`; the man page's MODES, OPTIONS, EXIT STATUS and
#    ENVIRONMENT and the README name exactly the table's modes, options,
#    statuses and variables.
#  - doctest.py: every example block of README.md, man/pangaea.1 and
#    man/pangaea.3 carries a marker saying how it is checked, and is run
#    (the commands, their exit statuses, the lines they show, the figures
#    they quote) on a private pvmd, or held to the table or to the test
#    that runs it; a block without a marker fails.  What is not run here
#    is printed with the reason (NOT RUN lines).
set -u
. "$(dirname "$0")/lib.sh"

work=$(pg_tmpdir)
if out=$(python3 -S "$PG_ROOT/tests/e2e/cli_contract.py" "$PG_BUILD/pangaea" \
             "$PG_ROOT" 2>&1); then
    pg_pass "the man page and README.md agree with the command-line table ($(tail -1 <<<"$out"))"
else
    pg_fail "the man page or README.md differ from the command-line table:"
    echo "$out"
fi

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
python3 -S "$PG_ROOT/tests/e2e/doctest.py" "$PG_ROOT" "$work" >"$work/doctest.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL|NOT RUN)' "$work/doctest.out" | sed 's/^PASS/ok/'
if [ $rc -eq 0 ]; then
    pg_pass "every README and man page example block ($(tail -1 "$work/doctest.out"))"
else
    pg_fail "example blocks:"; grep -v '^PASS' "$work/doctest.out"
fi
pg_pvm_stop
pg_summary
