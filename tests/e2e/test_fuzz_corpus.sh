#!/usr/bin/env bash
# test_fuzz_corpus.sh - the fuzz target's corpus, replayed in a sanitized build.
#
# Design.  build/fuzz/replay_corpus is tests/fuzz/fuzz_logr.c with an
# ordinary main() (no libFuzzer), built with AddressSanitizer and UBSan
# (Makefile): every file of tests/fuzz/corpus/ (seed logs) and
# tests/fuzz/regressions/ (inputs that once crashed the reader; README
# excepted) goes through the reader and the validator.  Each must end
# without a crash, a sanitizer report or a hang; errors are expected.
# A missing or empty corpus fails: replaying nothing proves nothing.  The
# regressions may be none yet, but their directory must be there.
# PG_FUZZ_DIR replaces tests/fuzz (test_harness.sh).  No pvmd is needed.
set -u
. "$(dirname "$0")/lib.sh"

REPLAY=$PG_BUILD/fuzz/replay_corpus
FUZZ=${PG_FUZZ_DIR:-$PG_ROOT/tests/fuzz}

for sub in corpus regressions; do
    if [ ! -d "$FUZZ/$sub" ]; then
        pg_fail "fuzz $sub: $FUZZ/$sub is missing"
        continue
    fi
    n=0 bad=0
    for f in "$FUZZ/$sub"/*; do
        [ -f "$f" ] && [ "$(basename "$f")" != README ] || continue
        n=$((n + 1))
        rc=0
        timeout 60 "$REPLAY" "$f" >/dev/null 2>"$PG_TMP_BASE/replay.err" || rc=$?
        if [ "$rc" -ne 0 ]; then
            bad=$((bad + 1))
            echo "  $sub/$(basename "$f"): exit $rc"
            grep -m 3 -E 'ERROR|runtime error|SUMMARY' "$PG_TMP_BASE/replay.err"
        fi
    done
    if [ "$n" -eq 0 ] && [ "$sub" = corpus ]; then
        pg_fail "fuzz corpus: no input in $FUZZ/corpus"
    elif [ "$n" -eq 0 ]; then
        echo "fuzz regressions: none yet in $FUZZ/regressions"
    elif [ "$bad" -eq 0 ]; then
        pg_pass "fuzz $sub: $n input(s) read back without a crash or sanitizer report"
    else
        pg_fail "fuzz $sub: $bad of $n input(s) crashed, hung or upset a sanitizer"
    fi
done
pg_summary
