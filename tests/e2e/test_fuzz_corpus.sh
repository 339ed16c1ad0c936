#!/usr/bin/env bash
# test_fuzz_corpus.sh - the fuzz target's corpus, replayed in a plain build.
#
# Design.  build/fuzz/replay_corpus is tests/fuzz/fuzz_logr.c with an
# ordinary main() (no libFuzzer, no sanitizer): every file of
# tests/fuzz/corpus/ (seed logs) and tests/fuzz/regressions/ (inputs that
# once crashed the reader; README excepted) goes through the reader and the
# validator.  Each must end without a crash or hang; errors are expected.
# No pvmd is needed.
set -u
. "$(dirname "$0")/lib.sh"

REPLAY=$PG_BUILD/fuzz/replay_corpus
FUZZ=$PG_ROOT/tests/fuzz

for sub in corpus regressions; do
    n=0 bad=0
    for f in "$FUZZ/$sub"/*; do
        [ -f "$f" ] && [ "$(basename "$f")" != README ] || continue
        n=$((n + 1))
        rc=0
        timeout 60 "$REPLAY" "$f" >/dev/null 2>&1 || rc=$?
        if [ "$rc" -ne 0 ]; then
            bad=$((bad + 1))
            echo "  $sub/$(basename "$f"): exit $rc"
        fi
    done
    if [ "$bad" -eq 0 ]; then
        pg_pass "fuzz $sub: $n input(s) read back without a crash"
    else
        pg_fail "fuzz $sub: $bad of $n input(s) crashed or hung the reader"
    fi
done
pg_summary
