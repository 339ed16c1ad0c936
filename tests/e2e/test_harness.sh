#!/usr/bin/env bash
# test_harness.sh - the end-to-end harness itself, on hand-made inputs: a
# test that cannot fail for the wrong reason, or pass for one, is only as
# good as the helpers it counts with.
#
# Design.  No pvmd is started and nothing here needs root.
# (a) pg_log_messages on a hand-made log cut the way log_sink.c cuts one
#     when its task dies mid-event: complete events, one zero where the
#     half-written event's first byte was to go, the rest of that half
#     event, then the zeros of the file's unwritten tail.  The half event
#     must not be read (test_killed.sh once failed about once in 200 runs
#     for that).
# (b) run_all.sh (PG_E2E_DIR) on made-up tests: one passes, one skips with
#     pg_skip, one checks nothing ("0 passed, 0 failed"), one fails.  The
#     skip is named and counted apart, never as passed; a test that checked
#     nothing is a failure.
# (c) test_hosts.sh and test_hostloss.sh as run_all.sh runs them, on a
#     machine where they cannot run: an `id` first in PATH says we are not
#     root, the check hosts.sh makes first, so no namespace is ever made.
#     Both must be reported skipped, with the reason.
# (d) test_fuzz_corpus.sh on an empty and on a missing corpus must fail.
set -u
. "$(dirname "$0")/lib.sh"

E2E=$PG_ROOT/tests/e2e
dir=$(pg_tmpdir)

# --- (a) a log cut in the middle of an event ------------------------------

mkdir -p "$dir/logs"
# ltid 2 sends msgids 1 and 2 to ltid 3.
cat >"$dir/logs/ltid-2.comm.xml" <<'EOF'
<?xml version="1.0"?>
<pangaea-comm>
  <header format="pangaea-comm" version="1" ltid="2" program="p" host="h"/>
  <send seq="1" t="1.000000" call="pvm_send" tag="1" msgid="1" bytes="8">
    <to ltid="3"/>
  </send>
  <send seq="2" t="1.100000" call="pvm_send" tag="1" msgid="2" bytes="8">
    <to ltid="3"/>
  </send>
</pangaea-comm>
EOF
# ltid 3 took msgid 1, sent one to ltid 2, and died writing the receive of
# msgid 2: cut after 'msgid="', its leading newline not yet stored.
{
    printf '%s\n' '<?xml version="1.0"?>' '<pangaea-comm>' \
        '  <header format="pangaea-comm" version="1" ltid="3" program="p" host="h"/>' \
        '  <recv seq="1" t="1.050000" call="pvm_recv" from="2" tag="1" msgid="1" bytes="8"/>' \
        '  <send seq="2" t="1.060000" call="pvm_send" tag="1" msgid="1" bytes="8">' \
        '    <to ltid="2"/>'
    printf '  </send>'
    printf '\0  <recv seq="3" t="1.150000" call="pvm_recv" from="2" tag="1" msgid="'
    head -c 4000 /dev/zero
} >"$dir/logs/ltid-3.comm.xml"

if [ "$(pg_log_data "$dir/logs/ltid-3.comm.xml" | tail -c 9)" = '  </send>' ]; then
    pg_pass "pg_log_data reads a cut log up to its first zero"
else
    pg_fail "pg_log_data reads past the cut: $(pg_log_data "$dir/logs/ltid-3.comm.xml" | tail -n 1)"
fi
pg_log_messages "$dir/logs" "$dir/sends" "$dir/recvs"
if [ "$(sort "$dir/sends" | tr '\n' ' ')" = "2 1 3 2 2 3 3 1 2 " ] &&
   [ "$(tr '\n' ' ' <"$dir/recvs")" = "2 1 3 " ]; then
    pg_pass "pg_log_messages leaves out the half event after the cut"
else
    pg_fail "pg_log_messages: sends '$(tr '\n' ' ' <"$dir/sends")', receives '$(tr '\n' ' ' <"$dir/recvs")' (wanted receives '2 1 3 ')"
fi

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
