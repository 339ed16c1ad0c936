#!/usr/bin/env bash
# run.sh - `make fuzz`: a bounded libFuzzer run of the log reader.
#
#   run.sh FUZZER [SECONDS]     (FUZZ_TIME, default 60)
#
# Design.  The seed corpus tests/fuzz/corpus/ stays as committed: the
# fuzzer grows a copy in a temp dir (removed at the end) and writes any
# crashing input to build/fuzz/artifacts/.  A crash found is to be fixed,
# then its input copied to tests/fuzz/regressions/, which `make check`
# replays (tests/e2e/test_fuzz_corpus.sh).  Exits as the fuzzer does.
set -u
fuzzer=$1 secs=${2:-${FUZZ_TIME:-60}}
here=$(cd "$(dirname "$0")" && pwd)
art=$(dirname "$fuzzer")/artifacts
work=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
mkdir -p "$art"
cp "$here"/corpus/* "$work"/
cp "$here"/regressions/* "$work"/ 2>/dev/null; rm -f "$work"/README*
rc=0
"$fuzzer" -max_total_time="$secs" -max_len=8192 -timeout=10 \
    -artifact_prefix="$art"/ "$work" || rc=$?
n=$(find "$art" -type f | wc -l)
echo "fuzz: exit $rc after ${secs}s; $n crashing input(s) in $art" \
     "(fix, then copy them to tests/fuzz/regressions/)"
exit "$rc"
