#!/usr/bin/env bash
# test_crash_kept.sh - how a task died is kept by its recording and shown:
# the execution log's <crash signal= module= offset=> and <end
# status=-signal>, `pangaea -tasks`, the -display page (a red cross, its
# legend, the details of the task's events), the live page (the same
# cross and legend, and the signal and line in words) and the replay's
# last words.
#
# Design.  plain_segv's master takes two messages and then dies for sure:
# SIGSEGV at the line marked CRASH-LINE, or SIGABRT (abort) with "abort",
# in crash_here(), a function of its own; where must name that line, the
# program's innermost frame, not a frame of libc (abort's) or of Pangaea's
# signal handler.  The page is checked in headless Chromium (graph_page.py)
# when chromium-driver is installed; its event times read from the run's
# start (+S.UUUUUU s), the recorded clock after them.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_segv
SRC=$PG_ROOT/tests/programs/plain_segv.c
HERE=$(cd "$(dirname "$0")" && pwd)
dir=$(pg_tmpdir)
D=$dir # live_lib.sh's directory
trap 'stop_pangaea; pg_cleanup' EXIT
segv_line=$(grep -n 'CRASH-LINE' "$SRC" | tail -n 1 | cut -d: -f1)
abort_line=$(grep -n 'abort();' "$SRC" | head -n 1 | cut -d: -f1)
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

said_over() { grep -q "the run is over" "$dir/live.err"; }

# crash NAME SIG LINE ARGS...: records, checks the log, -tasks, the replay.
crash() {
    local name=$1 sig=$2 line=$3 rc=0 logs=$dir/$1 at
    shift 3
    at="died of SIG$sig at plain_segv.c:$line"
    timeout 60 "$PANGAEA" -log -logdir "$logs" "$PROG" "$@" </dev/null \
        >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?
    if [ "$rc" -eq 4 ] && grep -q "ltid 1 (.*plain_segv) died of SIG$sig after event 4 of its log, at plain_segv.c:$line$" "$dir/$name.err"; then
        pg_pass "$name: the run names the signal and the program's line: $(grep -o 'died of.*' "$dir/$name.err")"
    else
        pg_fail "$name: exit $rc, want '$at'"; cat "$dir/$name.err"
    fi
    if grep -aq "<crash seq=\"3\" [^>]*signal=\"$(kill -l "$sig")\" module=\"$PROG\"" "$logs/ltid-1.exec.xml" &&
       grep -aq "<end seq=\"4\" [^>]*status=\"-$(kill -l "$sig")\"" "$logs/ltid-1.exec.xml" &&
       "$PANGAEA" -dump "$logs" >/dev/null 2>"$dir/$name.dump"; then
        pg_pass "$name: ltid-1.exec.xml keeps <crash> and <end status=-signal>, and reads back"
    else
        pg_fail "$name: the exec log lacks the crash"; grep -a '<crash\|<end' "$logs/ltid-1.exec.xml"; cat "$dir/$name.dump"
    fi
    if "$PANGAEA" -tasks "$logs" | grep -q "^1  .* $at "; then
        pg_pass "$name: -tasks says $at"
    else
        pg_fail "$name: -tasks:"; "$PANGAEA" -tasks "$logs"
    fi
    rc=0
    timeout 60 "$PANGAEA" -replay -logdir "$logs" "$PROG" </dev/null \
        >"$dir/$name.rep" 2>"$dir/$name.reperr" || rc=$?
    if [ "$rc" -eq 4 ] && grep -q "ltid 1 (.*plain_segv) died of SIG$sig after event 4 of its log, at plain_segv.c:$line, as recorded$" "$dir/$name.reperr"; then
        pg_pass "$name: the replay's last words: $(grep -o 'died of.*' "$dir/$name.reperr")"
    else
        pg_fail "$name: replay exit $rc"; cat "$dir/$name.reperr"
    fi
}

crash segv SEGV "$segv_line"
crash abort ABRT "$abort_line" abort

# A crash before the program's first PVM call: told with its signal and
# line, not as a task that "never started Pangaea".
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/early" "$PROG" early </dev/null \
    >"$dir/early.out" 2>"$dir/early.err" || rc=$?
if [ "$rc" -eq 4 ] && ! grep -q 'never' "$dir/early.err" &&
   grep -q "ltid 1 (.*plain_segv) died of SIGSEGV after event 0 of its log, at plain_segv.c:$segv_line$" "$dir/early.err"; then
    pg_pass "a crash before the first PVM call is told: $(grep -o 'died of.*' "$dir/early.err")"
else
    pg_fail "early crash: exit $rc"; cat "$dir/early.err"
fi

# A spawned argument longer than a log holds is named as such.
rc=0
timeout 60 "$PANGAEA" -log -logdir "$dir/long" "$PROG" longarg </dev/null \
    >"$dir/long.out" 2>"$dir/long.err" || rc=$?
if [ "$rc" -ne 0 ] && grep -q "pvm_spawn of .*plain_segv: its argument 3 is 5000 bytes, too long for the execution log" "$dir/long.out" "$dir/long.err"; then
    pg_pass "a spawned argument of 5000 bytes is named (exit $rc)"
else
    pg_fail "long spawned argument: exit $rc"; cat "$dir/long.out" "$dir/long.err"
fi

if command -v chromedriver >/dev/null; then
    html=$("$PANGAEA" -display "$dir/segv" 2>"$dir/display.err")
    if grep -q '>crash</span>' "$html" &&
       res=$(python3 -S "$HERE/graph_page.py" "$html" --click 1 4 2>"$dir/page.err") &&
       [ "$(python3 -S -c 'import json,sys,re; d=json.loads(sys.argv[1]); print(d["graph"]["crashes"], d["full"]["real"]["crashes"], d["details"]["ending"], bool(re.match(r"\+\d+\.\d{6} s  \[\d+\.\d{6}\]", d["details"]["t"])))' "$res")" = \
         "1 1 died of SIGSEGV at plain_segv.c:$segv_line True" ]; then
        pg_pass "the page draws one crash (legend 'crash'), ltid 1's event says how it died, its time is from the run's start ($(python3 -S -c 'import json,sys; print(json.loads(sys.argv[1])["details"]["t"])' "$res"))"
    else
        pg_fail "the page: ${res:-no result}"; tail -5 "$dir/page.err" "$dir/display.err"
    fi
fi

# The live page of a run whose master crashes: a red cross on its row,
# the legend's "crash", and the signal and line in words in the table.
if command -v chromedriver >/dev/null && command -v curl >/dev/null &&
   start_live live -log -live -live-wait -logdir "$dir/live" "$PROG"; then
    if wait_for 60 said_over; then
        res=$(python3 -S "$HERE/live_page.py" - --min-events 4 <<<"$PAGE_URL" 2>"$dir/live.page")
        got=$(jget "${res:-null}" '"%s|%s|%s" % (d["frame"]["crashes"], "crash" in d["legend"],
              [r["state"] + ": " + r["text"] for r in d["table"] if r["ltid"] == 1][0])')
        if [[ $got == "1|True|crashed: "*"died of SIGSEGV"*"at plain_segv.c:$segv_line"* ]]; then
            pg_pass "the live page draws one crash (legend 'crash'), its row says how: ${got##*|}"
        else
            pg_fail "the live page: '$got'"; tail -5 "$dir/live.page"
        fi
    else
        pg_fail "live: the run did not end"; cat "$dir/live.err"
    fi
    stop_pangaea
fi

pg_pvm_stop
pg_summary
