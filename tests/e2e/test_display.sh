#!/usr/bin/env bash
# test_display.sh - the post-mortem modes: -display, -export perfetto, -tasks.
#
# 1. SOR 4 recorded on a private pvmd; `pangaea -display` writes one HTML
#    file; headless Chromium (graph_page.py, WebDriver) loads it from disk
#    and the page itself must report one row per task and as many send
#    marks, receive marks and lines as the logs hold (counted apart from
#    Pangaea by display_check.py and xmllint), lines never drawn backwards
#    in either mode, no resource loaded; a real click on a send must show
#    its ltids, tag and message id, and one on its line the message's.  A
#    screenshot is taken.
# 2. The perfetto export: every recorded message has exactly one flow from
#    its send to its receive.  3. -tasks lists every ltid and its end.
# 4. A generated recording (gen_logs: lost messages, receives whose send
#    was not logged, skewed clocks, a task with no end) checks the same,
#    unmatched marks included; then 1,000 and 100,000 events measure the
#    HTML's size and how long the page takes to become usable.
# 5. Barriers and spawns: group_barriers (3 tasks, 2 barriers) must be
#    drawn with a bar per task and barrier, each barrier's joined, and a
#    line per spawn between drawn rows; no row for Pangaea's empty ltid 0.
# 6. Races: plain_known wild (tests/e2e/test_races.sh) has two racing
#    receives with three alternatives in all; the page must mark both,
#    draw the three dashed lines, and a click on the first receive must
#    list its alternatives and call site as `pangaea -races -json` does.
# PG_DISPLAY_SHOT=FILE keeps the SOR 4 screenshot.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
PAGE="python3 -S $HERE/graph_page.py"
CHECK="python3 -S $HERE/display_check.py"

# jget JSON EXPR: a value out of a JSON document (EXPR in Python, on `d`;
# -S: no site packages to look for, a third of Python's start-up).
jget() { python3 -S -c "import json, sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }

# counts LOGS: display_check.py's counts of the recording LOGS, made once
# (kept beside it in LOGS.counts: a recording does not change, and the
# checks below ask for its counts several times each).
counts() { [ -s "$1.counts" ] || $CHECK count "$1" >"$1.counts"; cat "$1.counts"; }

xml_count() { # xml_count DIR XPATH: summed over the comm logs
    local f n=0
    for f in "$1"/ltid-*.comm.pgc; do
        f=${f##*/ltid-}
        n=$((n + $(pg_comm_xml "$1" "${f%.comm.pgc}" | xmllint --xpath "count($2)" -)))
    done
    echo "$n"
}

# expect NAME GOT WANT
expect() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pg_pass "$1 ($2)"; else pg_fail "$1: got $2, want $3"; fi
}

# check_page NAME LOGS RESULT_JSON: the page's counts against the logs'.
check_page() {
    local name=$1 logs=$2 res=$3 cnt ntasks
    cnt=$(counts "$logs")
    ntasks=$(jget "$cnt" 'len(d["rows"])')
    expect "$name: one row per task (Pangaea's ltid 0 only with messages)" "$(jget "$res" 'd["graph"]["rows"]')" "$ntasks"
    expect "$name: rows labelled host/program/ltid, in ltid order" \
        "$(jget "$res" 'ascii(d["graph"]["rowLabels"])')" "$(jget "$cnt" 'ascii(d["row_labels"])')"
    expect "$name: barriers drawn with the whole run in view (real, logical: bars, joins)" \
        "$(jget "$res" '[(f["barrierMarks"], f["barrierJoins"]) for f in (d["full"]["real"], d["full"]["logical"])]')" \
        "$(jget "$cnt" '[(d["barriers"], d["barrier_joins"])] * 2')"
    expect "$name: spawns drawn with the whole run in view (real, logical)" \
        "$(jget "$res" '[f["spawns"] for f in (d["full"]["real"], d["full"]["logical"])]')" \
        "$(jget "$cnt" '[d["spawns"]] * 2')"
    expect "$name: send marks = <send> in the logs" \
        "$(jget "$res" 'd["graph"]["sendMarks"]')" "$(xml_count "$logs" //send)"
    expect "$name: receive marks = <recv> in the logs" \
        "$(jget "$res" 'd["graph"]["recvMarks"]')" "$(xml_count "$logs" //recv)"
    expect "$name: lines = matched messages" \
        "$(jget "$res" 'd["graph"]["lines"]')" "$(jget "$cnt" 'd["lines"]')"
    expect "$name: multicasts as yellow squares" \
        "$(jget "$res" 'd["graph"]["yellowSquares"]')" "$(jget "$cnt" 'd["mcasts"]')"
    expect "$name: broadcasts as green squares" \
        "$(jget "$res" 'd["graph"]["greenSquares"]')" "$(jget "$cnt" 'd["bcasts"]')"
    expect "$name: hollow (unmatched) receives" \
        "$(jget "$res" 'd["graph"]["hollowRecvs"]')" "$(jget "$cnt" 'd["unmatched_recvs"]')"
    expect "$name: hollow (unreceived) sends" \
        "$(jget "$res" 'd["graph"]["hollowSends"]')" "$(jget "$cnt" 'd["unreceived_sends"]')"
    expect "$name: dashed stubs = unmatched destinations and receives" \
        "$(jget "$res" 'd["graph"]["stubs"]')" \
        "$(jget "$cnt" 'd["unmatched_dests"] + d["unmatched_recvs"]')"
    expect "$name: drawn with the whole run in view (real, logical: marks, lines, backwards)" \
        "$(jget "$res" '[(f["sendMarks"], f["recvMarks"], f["lines"], f["backwards"]) for f in (d["full"]["real"], d["full"]["logical"])]')" \
        "$(jget "$cnt" '[(d["sends"], d["recvs"], d["lines"], 0)] * 2')"
    expect "$name: the page loads nothing (no network)" "$(jget "$res" 'd["resources"]')" 0
}

# check_click NAME LOGS RESULT_JSON LTID: details of LTID's first send.
check_click() {
    local cnt want got
    cnt=$(counts "$2")
    want=$(jget "$cnt" '(lambda f: "%s|%s|%s|%s" % ('"$4"', ", ".join(map(str, f["to"])),
        f["tag"], f["msgid"]))(d["first_send"]["'"$4"'"])')
    got=$(jget "$3" '"%s|%s|%s|%s" % tuple((d.get("details") or {}).get(k) for k in ("from", "to", "tag", "msgid"))')
    expect "$1: a click on ltid $4's first send shows from|to|tag|msgid" "$got" "$want"
    # A click on the middle of that send's (first) line: one message.
    want=$(jget "$cnt" '(lambda f: "%s|%s|%s|%s" % ('"$4"', True, f["tag"], f["msgid"]))(d["first_send"]["'"$4"'"])')
    got=$(jget "$3" '(lambda x: "%s|%s|%s|%s" % (x.get("from"), x.get("to") in [str(t) for t in '"$(jget "$cnt" 'd["first_send"]["'"$4"'"]["to"]')"'],
        x.get("tag"), x.get("msgid")))(d.get("line_details") or {})')
    expect "$1: a click on its line shows from|to|tag|msgid of one message" "$got" "$want"
}

check_perfetto() {
    local res
    if ! "$PANGAEA" -export perfetto-json "$2" >"$3" 2>"$3.err"; then
        pg_fail "$1: -export perfetto-json failed"; cat "$3.err"; return
    fi
    res=$($CHECK perfetto "$2" "$3") || { pg_fail "$1: trace JSON unreadable"; return; }
    if [ "$(jget "$res" 'd["nproblems"]')" = 0 ] &&
       [ "$(jget "$res" 'd["flows"] == d["messages"] > 0')" = True ]; then
        pg_pass "$1: perfetto: each of $(jget "$res" 'd["messages"]') messages has exactly one flow send -> receive"
    else
        pg_fail "$1: perfetto: $(jget "$res" 'd["messages"], d["flows"], d["problems"][:5]')"
    fi
}

check_tasks() { # check_tasks NAME LOGS [LTID-WITHOUT-END]
    local out ltid ok=1
    out=$("$PANGAEA" -tasks "$2") || { pg_fail "$1: -tasks failed"; return; }
    for ltid in $(jget "$(counts "$2")" '" ".join(map(str, d["ltids"]))'); do
        if [ "$ltid" = "${3:-}" ]; then
            echo "$out" | grep -Eq "^$ltid +[-0-9]+ +[^ ]+ +no end: crashed or still running" || ok=0
        else
            echo "$out" | grep -Eq "^$ltid +[-0-9]+ +[^ ]+ +status 0 " || ok=0
        fi
    done
    if [ "$ok" = 1 ]; then pg_pass "$1: -tasks lists every ltid and how it ended"
    else pg_fail "$1: -tasks output:"; echo "$out"; fi
}

command -v chromium >/dev/null && command -v chromedriver >/dev/null ||
    pg_fail "chromium and chromedriver are needed (scripts/install-deps.sh)"

# ---- 1-3: SOR 4 --------------------------------------------------------------
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
logs=$dir/logs
if timeout 60 "$PANGAEA" -log -logdir "$logs" "$PG_BUILD/sor" 4 >"$dir/rec.out" 2>&1; then
    html=$("$PANGAEA" -display "$logs" 2>"$dir/display.err")
    expect "sor 4: -display prints the page's path" "$html" "$(cd "$logs" && pwd)/pangaea-graph.html"
    if grep -Eq 'https?://|src=|href=' "$html"; then
        pg_fail "sor 4: the page refers to something outside itself"
    else
        pg_pass "sor 4: the page is self-contained ($(stat -c %s "$html") bytes)"
    fi
    ltid=$(jget "$(counts "$logs")" 'min(int(k) for k in d["first_send"] if k != "1")')
    seq=$(jget "$(counts "$logs")" 'd["first_send"]["'"$ltid"'"]["seq"]')
    if res=$($PAGE "$html" --shot "$dir/sor4.png" --mode logical --scale 24 \
             --click "$ltid" "$seq" --click-line "$ltid" "$seq" 2>"$dir/page.err"); then
        check_page "sor 4" "$logs" "$res"
        check_click "sor 4" "$logs" "$res" "$ltid"
        if [ "$(head -c 8 "$dir/sor4.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
           [ "$(stat -c %s "$dir/sor4.png")" -gt 10000 ]; then
            pg_pass "sor 4: screenshot taken"
            [ -n "${PG_DISPLAY_SHOT:-}" ] && cp "$dir/sor4.png" "$PG_DISPLAY_SHOT"
        else
            pg_fail "sor 4: no screenshot"
        fi
    else
        pg_fail "sor 4: the browser could not show the page"; tail -5 "$dir/page.err"
    fi
    check_perfetto "sor 4" "$logs" "$dir/trace.json"
    check_tasks "sor 4" "$logs"
else
    pg_fail "sor 4: recording failed"; cat "$dir/rec.out"
fi
pg_pvm_stop

# ---- 4: generated runs ---------------------------------------------------------
gen=$dir/gen
mkdir -p "$gen"
if "$PG_BUILD/tests/gen_logs" "$gen" 6 2000 300 >/dev/null; then
    html=$("$PANGAEA" -display "$gen")
    seq=$(jget "$(counts "$gen")" 'd["first_send"]["3"]["seq"]')
    if res=$($PAGE "$html" --mode logical --scale 24 --click 3 "$seq" \
             --click-line 3 "$seq" 2>"$dir/page.err"); then
        check_page "generated" "$gen" "$res"
        check_click "generated" "$gen" "$res" 3
        [ "$(jget "$res" 'd["graph"]["shifted"] > 0')" = True ] &&
            pg_pass "generated: receives stamped before their send are drawn at it ($(jget "$res" 'd["graph"]["shifted"]'))" ||
            pg_fail "generated: no receive was stamped before its send: the skew test proves nothing"
    else
        pg_fail "generated: the browser could not show the page"; tail -5 "$dir/page.err"
    fi
    check_perfetto "generated" "$gen" "$dir/gen.json"
    check_tasks "generated" "$gen" 6
else
    pg_fail "generated: gen_logs failed"
fi

# ---- 5: barriers and spawns ------------------------------------------------------
bl=$dir/barriers
if timeout 60 "$PANGAEA" -log -logdir "$bl" "$PG_BUILD/tests/group_barriers" \
        >"$dir/bar.out" 2>&1; then
    html=$("$PANGAEA" -display "$bl")
    if res=$($PAGE "$html" 2>"$dir/page.err"); then
        check_page "barriers" "$bl" "$res"
        cnt=$(counts "$bl")
        [ "$(jget "$cnt" 'd["barrier_joins"] == 2 and d["spawns"] == 2 and 0 not in d["rows"] and 0 in d["ltids"]')" = True ] &&
            pg_pass "barriers: the run has 2 barriers, 2 spawns and an empty ltid 0 (the checks above prove something)" ||
            pg_fail "barriers: the recording is not what the test needs: $cnt"
    else
        pg_fail "barriers: the browser could not show the page"; tail -5 "$dir/page.err"
    fi
else
    pg_fail "barriers: recording group_barriers failed"; cat "$dir/bar.out"
fi

# ---- 6: races ------------------------------------------------------------------
rl=$dir/races
if timeout 120 "$PANGAEA" -log -logdir "$rl" "$PG_BUILD/tests/plain_known" wild \
        >"$dir/races.out" 2>&1; then
    "$PANGAEA" -races -json "$rl" >"$dir/races.json"
    html=$("$PANGAEA" -display "$rl")
    seq=$(python3 -S -c 'import json, sys, races_json; print(min(x["seq"] for x in races_json.load(open(sys.argv[1]))["races"]))' "$dir/races.json")
    if res=$($PAGE "$html" --mode logical --click 1 "$seq" 2>"$dir/page.err"); then
        want=$(python3 -S -c 'import json, sys, races_json; d=races_json.load(open(sys.argv[1]))["races"]
r=[x for x in d if x["ltid"]==1 and x["seq"]==min(y["seq"] for y in d)][0]
print("%d|%d|%s|%s" % (len(d), sum(len(x["alternatives"]) for x in d), r["site"],
      ", ".join("ltid %d msg %d (tag %d)" % (a["ltid"], a["msgid"], a["tag"]) for a in r["alternatives"])))' "$dir/races.json")
        got=$(jget "$res" '"%d|%d|%s|%s" % (d["graph"]["raceMarks"], d["full"]["logical"]["raceLines"],
              d["details"].get("site", ""), d["details"].get("race", "").split("could have taken ", 1)[-1])')
        expect "races: marks, dashed lines drawn, and the details of the first racing receive" "$got" "$want"
    else
        pg_fail "races: the browser could not show the page"; tail -5 "$dir/page.err"
    fi
else
    pg_fail "races: recording plain_known wild failed"; cat "$dir/races.out"
fi

# The measurements: size of the page, time until usable (first full draw,
# from navigation start), time of a full redraw with everything in view.
for n in 1000 100000; do
    big=$dir/big$n
    mkdir -p "$big"
    "$PG_BUILD/tests/gen_logs" "$big" 8 "$n" >/dev/null || { pg_fail "gen_logs $n failed"; continue; }
    start=$EPOCHREALTIME
    html=$("$PANGAEA" -display "$big")
    took=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $start }")
    if res=$($PAGE "$html" 2>"$dir/page.err") &&
       [ "$(jget "$res" 'd["graph"]["events"]')" = "$n" ] &&
       [ "$(jget "$res" 'd["graph"]["readyMs"] < 30000')" = True ]; then
        pg_pass "$n events: page usable after $(jget "$res" 'round(d["graph"]["readyMs"])') ms"
        echo "measure: $n events: HTML $(stat -c %s "$html") bytes, written in ${took}s;" \
             "usable after $(jget "$res" 'round(d["graph"]["readyMs"])') ms" \
             "(script $(jget "$res" 'round(d["graph"]["loadMs"])') ms);" \
             "full redraw $(jget "$res" 'round(d["redraw_ms"])') ms"
    else
        pg_fail "$n events: the page did not become usable"; tail -5 "$dir/page.err"
    fi
done

pg_summary
