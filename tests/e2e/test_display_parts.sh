#!/usr/bin/env bash
# test_display_parts.sh - `pangaea -display` of a run longer than a part:
# a small page (the parts' index) and the parts beside it, each a script
# the page loads when the URL names it; driven in headless Chromium
# (parts_page.py) and checked against the logs (display_check.py).
#
# A generated run (gen_logs: 6 tasks, 20,000 events, messages pending
# across any cut, multicasts, lost and unmatched messages), with parts of
# 5,000 events (PANGAEA_DISPLAY_PART):
# 1. the page holds no per-event column, the parts directory 4 scripts;
# 2. walked with the page's own "later" button from part 1, with a
#    filter in the URL fragment: 4 parts, each saying which it is and
#    which events of the run it holds, the filter kept in each;
# 3. the parts together hold every event of each task, every matched
#    message once (a line in one part, or its two ends in two parts: the
#    test fails if no message crosses a cut), every race the page of the
#    whole run marks;
# 4. written again with parts of 10,000: 2 parts, the old third and
#    fourth removed, a file of the user's in the directory kept;
# 5. a part missing: the page says which and where it looked;
# 6. the parts' directory a symbolic link: refused, named, non-zero exit;
# 7. without PANGAEA_DISPLAY_PART the same run is one page, as before.
# 8. a task that died of a signal (gen_logs every: ltid 2, SIGSEGV) is
#    drawn crashed in one part, the one with its last event, and no other.
# 9. a run whose events share their times (gen_logs ring: 8 tasks send
#    at once, then receive at once) in parts of 3: no part is empty, the
#    parts hold every event.
# 10. written again as one page (no PANGAEA_DISPLAY_PART): the parts go,
#     a file of the user's beside them stays, and so does their directory;
#     without it, the directory goes too.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
dir=$(pg_tmpdir)
trap 'rm -rf "$dir"; pg_cleanup' EXIT

jget() { python3 -S -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }
expect() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pg_pass "$1 ($2)"; else pg_fail "$1: got $2, want $3"; fi
}

logs=$dir/run
mkdir -p "$logs"
"$PG_BUILD/tests/gen_logs" "$logs" 6 20000 >/dev/null || { pg_fail "gen_logs failed"; pg_summary; exit 1; }
cnt=$(python3 -S "$HERE/display_check.py" count "$logs")
page=$logs/pangaea-graph.html
parts=$logs/pangaea-graph.parts

# 7 first: the page of the whole run, one file, and the races it marks.
"$PANGAEA" -display "$logs" >/dev/null
if grep -q '"c":"' "$page" && [ ! -e "$parts" ]; then
    pg_pass "-display of 20,000 events by default: one page holding the events, no parts"
else
    pg_fail "-display of 20,000 events by default is not one page"
fi
whole=$(timeout 120 python3 -S "$HERE/graph_page.py" "$page" 2>"$dir/whole.err") ||
    { pg_fail "the whole run's page did not load"; tail -3 "$dir/whole.err"; }
races=$(jget "$whole" 'd["graph"]["raceMarks"]')

# 1.
if PANGAEA_DISPLAY_PART=5000 "$PANGAEA" -display "$logs" >/dev/null; then
    pg_pass "-display in parts of 5,000 succeeds"
else
    pg_fail "-display in parts failed"
fi
expect "the page holds no per-event column" "$(grep -c '"c":"' "$page")" 0
expect "the parts: four scripts beside the page" "$(cd "$parts" && ls)" \
    "$(printf 'part-%04d.js\n' 1 2 3 4)"

# 2.
if res=$(timeout 240 python3 -S "$HERE/parts_page.py" "$page" 2>"$dir/parts.err"); then
    expect "the later button walks 4 parts, each with the filter of the fragment" \
        "$(jget "$res" '[(p["part"]["k"], p["part"]["n"], p["filter"]["task"], "?part=%d" % p["part"]["k"] in p["url"] or p["part"]["k"] == 1) for p in d]')" \
        "[(1, 4, ['2'], True), (2, 4, ['2'], True), (3, 4, ['2'], True), (4, 4, ['2'], True)]"
    expect "each part says which it is and which events it holds" \
        "$(jget "$res" '[p["shows"].startswith("Part %d of 4: events %d to %d of 20000 " % (k + 1, 5000 * k + 1, 5000 * k + 5000)) for k, p in enumerate(d)]')" \
        "[True, True, True, True]"
    expect "the part selector lists the 4 parts; no earlier part before the first, no later after the last" \
        "$(jget "$res" '(len(d[0]["options"]), d[0]["prevDisabled"], d[0]["nextDisabled"], d[-1]["nextDisabled"])')" \
        "(4, True, False, True)"
    # 3.
    expect "the parts hold every event of each task" \
        "$(jget "$res" 'sorted({str(l): sum(n for p in d for (m, n) in p["taskEvents"] if m == l) for l in {l for p in d for (l, _) in p["taskEvents"]}}.items())')" \
        "$(jget "$cnt" 'sorted((l, s + r) for l, (s, r) in d["per_ltid"].items() if l != "0" or s + r)')"
    expect "every matched message once: lines in a part, plus messages across parts (some)" \
        "$(jget "$res" '(sum(p["lines"] for p in d) + sum(p["across"] for p in d) // 2, sum(p["across"] for p in d) > 0)')" \
        "($(jget "$cnt" 'd["lines"]'), True)"
    expect "the parts mark the races the whole run's page marks" \
        "$(jget "$res" 'sum(p["races"] for p in d)')" "$races"
else
    pg_fail "the page in parts did not load"; tail -5 "$dir/parts.err"
fi

# 4.
echo "mine" >"$parts/notes.txt"
PANGAEA_DISPLAY_PART=10000 "$PANGAEA" -display "$logs" >/dev/null
expect "written again in parts of 10,000: two parts, the user's file kept" \
    "$(cd "$parts" && ls | tr '\n' ' ')" "notes.txt part-0001.js part-0002.js "

# 5.
mv "$parts/part-0002.js" "$dir/"
expect "a missing part: the page names it" \
    "$(timeout 60 python3 -S "$HERE/parts_page.py" --summary "file://$page?part=2" missing 2>/dev/null)" \
    "Part 2 of this page is missing: pangaea-graph.parts/part-0002.js (pangaea -display writes it beside the page)."

# 6.
rm -rf "$parts"
mkdir "$dir/elsewhere"
ln -s "$dir/elsewhere" "$parts"
if PANGAEA_DISPLAY_PART=5000 "$PANGAEA" -display "$logs" >"$dir/out" 2>"$dir/err"; then
    pg_fail "-display wrote its parts through a symbolic link"
else
    expect "a parts directory that is a link: refused, named" \
        "$(grep -c "pangaea-graph.parts is not a directory" "$dir/err")" 1
fi
expect "nothing written through the link" "$(ls "$dir/elsewhere" | wc -l)" 0

# 8.
ev=$dir/every
mkdir -p "$ev"
"$PG_BUILD/tests/gen_logs" "$ev" every >/dev/null
PANGAEA_DISPLAY_PART=4 "$PANGAEA" -display "$ev" >/dev/null 2>&1
if res=$(timeout 240 python3 -S "$HERE/parts_page.py" "$ev/pangaea-graph.html" 2>"$dir/every.err"); then
    expect "a crashed task's cross in the part of its last event only" \
        "$(jget "$res" '[p["crashes"] for p in d]')" \
        "$(jget "$res" '[int(i == max(j for j, q in enumerate(d) if dict(q["taskEvents"]).get(2))) for i in range(len(d))] if len(d) > 1 else "one part only"')"
else
    pg_fail "the page in parts of gen_logs every did not load"; tail -5 "$dir/every.err"
fi

# 9.
ring=$dir/ring
mkdir -p "$ring"
"$PG_BUILD/tests/gen_logs" "$ring" 8 64 ring >/dev/null
PANGAEA_DISPLAY_PART=3 "$PANGAEA" -display "$ring" >/dev/null 2>&1
if res=$(timeout 240 python3 -S "$HERE/parts_page.py" "$ring/pangaea-graph.html" 2>"$dir/ring.err"); then
    expect "events sharing their times: no part empty, every event in one" \
        "$(jget "$res" '(min(p["events"] for p in d) > 0, sum(p["events"] for p in d), len(d) > 1)')" \
        "(True, $(python3 -S "$HERE/display_check.py" count "$ring" | python3 -S -c 'import json,sys; d=json.load(sys.stdin); print(d["sends"] + d["recvs"])'), True)"
else
    pg_fail "the page in parts of gen_logs ring did not load"; tail -5 "$dir/ring.err"
fi

# 10.
rm -f "$parts"
PANGAEA_DISPLAY_PART=5000 "$PANGAEA" -display "$logs" >/dev/null
echo "mine" >"$parts/notes.txt"
"$PANGAEA" -display "$logs" >/dev/null
expect "one page again: the parts gone, the user's file kept" "$(ls "$parts" | tr '\n' ' ')" "notes.txt "
rm "$parts/notes.txt"
PANGAEA_DISPLAY_PART=5000 "$PANGAEA" -display "$logs" >/dev/null
"$PANGAEA" -display "$logs" >/dev/null
expect "one page again, nothing of the user's there: the parts' directory gone" \
    "$([ -e "$parts" ] && echo there || echo gone)" gone
pg_summary
