#!/usr/bin/env bash
# test_harness.sh - the end-to-end harness itself, on hand-made inputs: a
# test that cannot fail for the wrong reason, or pass for one, is only as
# good as the helpers it counts with.
#
# Design.  No pvmd is started and nothing here needs root.
# (a) gone: pg_log_messages once read XML logs with `tr -d '\000'`, which
#     glued a killed task's half event into its log; it now reads them
#     through `pangaea -dump`, the library's own reader, whose cut logs are
#     tested in tests/unit/test_log_bin.c and tests/e2e/test_killed.sh.
# (b) run_all.sh (PG_E2E_DIR) on made-up tests: one passes, one skips with
#     pg_skip, one checks nothing ("0 passed, 0 failed"), one fails.  The
#     skip is named and counted apart, never as passed; a test that checked
#     nothing is a failure; one that leaves its temp dir behind fails.
# (c) test_hosts.sh and test_hostloss.sh as run_all.sh runs them, on a
#     machine where they cannot run: an `id` first in PATH says we are not
#     root, the check hosts.sh makes first, so no namespace is ever made.
#     Both must be reported skipped, with the reason.
#     Tests run side by side (PG_JOBS), each one's output shown whole;
#     one more starts early while the others wait (PG_JOBS_MAX).
# (d) test_fuzz_corpus.sh on an empty and on a missing corpus must fail.
set -u
. "$(dirname "$0")/lib.sh"

E2E=$PG_ROOT/tests/e2e
dir=$(pg_tmpdir)

# --- (b) run_all.sh counts skips apart ------------------------------------

# suite NAME BODY: a made-up test in $dir/suites that sources lib.sh.
mkdir -p "$dir/suites"
suite() { printf '. "%s/lib.sh"\n%s\n' "$E2E" "$2" >"$dir/suites/$1"; }
suite test_a_pass.sh 'pg_pass "one"; pg_pass "two"; pg_summary'
suite test_b_skip.sh 'pg_skip "needs a unicorn"'
suite test_c_nothing.sh 'echo "e2e: 0 passed, 0 failed"; exit 0'
suite test_d_fail.sh 'pg_pass "one"; pg_fail "two"; pg_summary'
suite test_e_halfskip.sh 'pg_pass "one"; pg_skip "late"'

# PG_TESTS names them too: were PG_E2E_DIR ever ignored, run_all.sh would
# find none of them among the real tests, rather than run those (and this).
all="test_a_pass.sh test_b_skip.sh test_c_nothing.sh test_d_fail.sh test_e_halfskip.sh"
rc=0
PG_E2E_DIR=$dir/suites PG_TESTS=$all bash "$E2E/run_all.sh" >"$dir/all.out" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && [ "$(tail -n 1 "$dir/all.out")" = "4 passed, 3 failed, 1 skipped" ] &&
   grep -qx "SKIPPED: test_b_skip.sh: needs a unicorn" "$dir/all.out" &&
   grep -q "FAIL: test_c_nothing.sh checked nothing" "$dir/all.out"; then
    pg_pass "run_all.sh: a skip is named and counted apart, a test that checked nothing fails"
else
    pg_fail "run_all.sh on made-up tests, exit $rc:"; cat "$dir/all.out"
fi
# A test whose own EXIT trap forgot pg_cleanup leaves its temp dir: one
# failure, named, and the dir removed.
suite test_f_litter.sh 'trap "" EXIT; pg_pass "one"; echo "$PG_TMP_BASE" >"'"$dir"'/litter"; pg_summary'
rc=0
PG_E2E_DIR=$dir/suites PG_TESTS="test_a_pass.sh test_f_litter.sh" \
    bash "$E2E/run_all.sh" >"$dir/f.out" 2>&1 || rc=$?
litter=$(cat "$dir/litter" 2>/dev/null)
if [ "$rc" -ne 0 ] && [ "$(tail -n 1 "$dir/f.out")" = "3 passed, 1 failed, 0 skipped" ] &&
   grep -q "FAIL: test_f_litter.sh left its temp dir $litter behind" "$dir/f.out" &&
   [ -n "$litter" ] && [ ! -e "$litter" ]; then
    pg_pass "run_all.sh: a test that leaves its temp dir behind fails, and the dir goes"
else
    pg_fail "run_all.sh on a test that litters, exit $rc:"; cat "$dir/f.out"
fi
rc=0
PG_E2E_DIR=$dir/suites PG_TESTS="test_a_pass.sh test_b_skip.sh" \
    bash "$E2E/run_all.sh" >"$dir/ab.out" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$dir/ab.out")" = "2 passed, 0 failed, 1 skipped" ]; then
    pg_pass "run_all.sh: passes and a skip end '2 passed, 0 failed, 1 skipped', exit 0"
else
    pg_fail "run_all.sh on a pass and a skip, exit $rc:"; cat "$dir/ab.out"
fi
rc=0
PG_E2E_DIR=$dir/suites PG_TESTS="test_b_skip.sh" \
    bash "$E2E/run_all.sh" >"$dir/b.out" 2>&1 || rc=$?
if [ "$rc" -ne 0 ] && [ "$(tail -n 1 "$dir/b.out")" = "0 passed, 0 failed, 1 skipped" ]; then
    pg_pass "run_all.sh: only skips is no success (exit $rc)"
else
    pg_fail "run_all.sh on a skip alone, exit $rc:"; cat "$dir/b.out"
fi

# Tests run side by side: two made-up tests that each wait for the other's
# mark pass only if they run at the same time (PG_JOBS=2), and each test's
# output is shown whole, never interleaved with the other's.
meet='m=$(dirname "$0")/mark; touch "$m.$1"; for i in $(seq 100); do [ -e "$m.$2" ] && break; sleep 0.1; done
echo "out $1 begins"; sleep 0.3; echo "out $1 ends"; [ -e "$m.$2" ] && pg_pass "met $2" || pg_fail "never met $2"; pg_summary'
suite test_f_meet.sh "set -- f g; $meet"
suite test_g_meet.sh "set -- g f; $meet"
rc=0
PG_JOBS=2 PG_E2E_DIR=$dir/suites PG_TESTS="test_f_meet.sh test_g_meet.sh" \
    bash "$E2E/run_all.sh" >"$dir/fg.out" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$dir/fg.out")" = "2 passed, 0 failed, 0 skipped" ] &&
   grep -A1 -x "out f begins" "$dir/fg.out" | grep -qx "out f ends" &&
   grep -A1 -x "out g begins" "$dir/fg.out" | grep -qx "out g ends"; then
    pg_pass "run_all.sh: tests run side by side, each one's output shown whole"
else
    pg_fail "run_all.sh with PG_JOBS=2 on two tests that must meet, exit $rc:"; cat "$dir/fg.out"
fi
# ... and one more starts while the others wait: with PG_JOBS=1 the two
# meet only if the second starts before the first ends (PG_JOBS_MAX=2;
# PG_IDLE_MIN=0: whatever the machine's load, after one tick).
rm -f "$dir/suites"/mark.*
rc=0
PG_JOBS=1 PG_JOBS_MAX=2 PG_IDLE_MIN=0 PG_E2E_DIR=$dir/suites PG_TESTS="test_f_meet.sh test_g_meet.sh" \
    bash "$E2E/run_all.sh" >"$dir/fg1.out" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && [ "$(tail -n 1 "$dir/fg1.out")" = "2 passed, 0 failed, 0 skipped" ] &&
   grep -qx "(1 tests started early, on idle CPUs)" "$dir/fg1.out"; then
    pg_pass "run_all.sh: a test starts early while the others wait (PG_JOBS=1, PG_JOBS_MAX=2)"
else
    pg_fail "run_all.sh with PG_JOBS=1 PG_JOBS_MAX=2 on two tests that must meet, exit $rc:"; cat "$dir/fg1.out"
fi
rm -f "$dir/suites"/test_[fg]_meet.sh "$dir/suites"/mark.*

# --- (c) the multi-host tests where they cannot run -----------------------

mkdir -p "$dir/notroot"
cat >"$dir/notroot/id" <<'EOF'
#!/bin/sh
# Says we are not root; anything else goes to the real id.
[ "$1" = -u ] && [ $# -eq 1 ] && { echo 65534; exit 0; }
exec /usr/bin/id "$@"
EOF
chmod +x "$dir/notroot/id"
if [ "$(PATH=$dir/notroot:$PATH id -u)" != 65534 ]; then
    pg_fail "cannot pretend not to be root: the multi-host tests are not run"
else
    rc=0
    PATH=$dir/notroot:$PATH PG_TESTS="test_hosts.sh test_hostloss.sh" \
        bash "$E2E/run_all.sh" >"$dir/hosts.out" 2>&1 || rc=$?
    if [ "$(tail -n 1 "$dir/hosts.out")" = "0 passed, 0 failed, 2 skipped" ] &&
       grep -qx "SKIPPED: test_hosts.sh: needs root and network namespaces (not root)" "$dir/hosts.out" &&
       grep -qx "SKIPPED: test_hostloss.sh: needs root and network namespaces (not root)" "$dir/hosts.out"; then
        pg_pass "test_hosts.sh and test_hostloss.sh without root: both reported skipped, with why"
    else
        pg_fail "test_hosts.sh and test_hostloss.sh without root, exit $rc:"; cat "$dir/hosts.out"
    fi
fi

# --- (d) the fuzz corpus test on no corpus --------------------------------

mkdir -p "$dir/fuzz-empty/corpus" "$dir/fuzz-empty/regressions"
for case in fuzz-empty fuzz-missing; do
    rc=0
    PG_FUZZ_DIR=$dir/$case bash "$E2E/test_fuzz_corpus.sh" >"$dir/$case.out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ] && grep -q "^FAIL: fuzz corpus: " "$dir/$case.out"; then
        pg_pass "test_fuzz_corpus.sh fails on ${case#fuzz-} corpus: $(grep -m1 '^FAIL' "$dir/$case.out")"
    else
        pg_fail "test_fuzz_corpus.sh on ${case#fuzz-} corpus, exit $rc:"; cat "$dir/$case.out"
    fi
done

pg_summary
