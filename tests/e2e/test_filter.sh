#!/usr/bin/env bash
# test_filter.sh - the event filters of both pages (src/cli/view/filter.js):
# -display's file and -live's page, in headless Chromium (filter_page.py).
#
# group_barriers (3 tasks: messages before, between and after two
# barriers) is recorded on a private pvmd.  What the filters must find is
# counted apart from the pages, from `pangaea -dump` (filter_check.py):
# the call site with the most messages (FILE:LINE), a task's events, the
# events between the first two barriers.  On each page: the site's line
# checked in the call-site tree highlights as many events as the logs
# hold at that site (and its file's node all the events of its sites);
# the URL fragment loaded in a fresh page highlights the same; in "hide"
# mode, a task checked vanishes (none of its events drawn, the others
# all); the stretch between barriers 1 and 2 collapsed holds the events
# between them and is drawn as one band, which a click expands again.
# -display counts messages (what it draws), -live every event but call
# sites and polls (what it shows).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
PROG=$PG_BUILD/tests/group_barriers
PID=

trap 'stop_pangaea; pg_cleanup' EXIT

# check NAME RESULT KIND(msg|all): the page's counts against the logs'.
check() {
    local n=$1 r=$2 k=$3 tot site file task between ltid
    tot=$(jget "$CNT" "d['total']['$k']")
    site=$(jget "$CNT" "d['at_site']['$k']")
    file=$(jget "$CNT" "d['in_file']['$k']")
    ltid=$(jget "$CNT" "d['ltid']")
    task=$(jget "$CNT" "d['per_ltid']['$k']")
    between=$(jget "$CNT" "d['between']['$k']")
    expect "$n: the site's line checked: highlighted = events at $F:$L in the logs" \
        "$(jget "$r" "d['site']['high']")" "$site"
    expect "$n: ... and the other events faint" "$(jget "$r" "d['site']['dim']")" "$((tot - site))"
    expect "$n: drawn with the whole run in view: highlighted marks" "$(jget "$r" "d['frame']['high']")" "$site"
    expect "$n: the file's node checked: its subtree's events highlighted" \
        "$(jget "$r" "d['site_file']['high']")" "$file"
    expect "$n: the URL fragment names the site" "$(jget "$r" "'$F' in d['hash'] and '$L' in d['hash']")" True
    expect "$n: a fresh page from that URL highlights the same" "$(jget "$r" "d['shared']['high']")" "$site"
    expect "$n: hide ltid $ltid: its events are hidden" "$(jget "$r" "d['hide']['hidden']")" "$task"
    expect "$n: ... none of them drawn, all the others" \
        "$(jget "$r" "(d['hide_frame']['rows'].get('$ltid', 0), d['hide_frame']['marks'])")" "(0, $((tot - task)))"
    expect "$n: stretch between barriers 1 and 2 = events between them in the logs" \
        "$(jget "$r" "d['stretches'][0]['n'] if d['stretches'] else -1")" "$between"
    expect "$n: collapsed: those events in one band, the rest drawn" \
        "$(jget "$r" "(d['collapse']['inBands'], len(d['bands']), d['collapse_frame']['bands'], d['collapse_frame']['marks'])")" \
        "($between, 1, 1, $((tot - between)))"
    expect "$n: a click on the band expands it" \
        "$(jget "$r" "(d['expanded']['inBands'], d['expanded_frame']['bands'], d['expanded_frame']['marks'])")" "(0, 0, $tot)"
    expect "$n: no script error" "$(jget "$r" "len(d['errors'])")" 0
}

command -v chromium >/dev/null && command -v chromedriver >/dev/null ||
    pg_fail "chromium and chromedriver are needed (scripts/install-deps.sh)"
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
D=$(pg_tmpdir)

# ---- -display ------------------------------------------------------------------
if timeout 60 "$PANGAEA" -log -logdir "$D/rec" "$PROG" >"$D/rec.out" 2>&1 &&
   html=$("$PANGAEA" -display "$D/rec" 2>"$D/display.err") &&
   CNT=$(python3 -S "$HERE/filter_check.py" "$PANGAEA" "$D/rec"); then
    F=$(jget "$CNT" "d['file']"); L=$(jget "$CNT" "d['line']")
    if res=$(timeout 60 python3 -S "$HERE/filter_page.py" "$html" --site "$F" "$L" \
             --hide "$(jget "$CNT" "d['ltid']")" --collapse 1 2>"$D/page.err"); then
        check display "$res" msg
    else
        pg_fail "display: the page could not be driven"; cat "$D/page.err"
    fi
else
    pg_fail "display: recording or -display failed"; cat "$D/rec.out" "$D/display.err" 2>/dev/null
fi

# ---- -live: the same on the page of a run -----------------------------------------
"$PANGAEA" -log -live -live-wait -logdir "$D/live" "$PROG" >"$D/live.out" 2>"$D/live.err" </dev/null &
PID=$!
URL=
for i in $(seq 300); do
    live_url "$D/live.err"
    [ -n "$URL" ] && grep -q "the run is over" "$D/live.err" && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
if [ -n "$URL" ] && grep -q "the run is over" "$D/live.err" &&
   CNT=$(python3 -S "$HERE/filter_check.py" "$PANGAEA" "$D/live"); then
    F=$(jget "$CNT" "d['file']"); L=$(jget "$CNT" "d['line']")
    expect "live: /filter.js is served" "$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "${URL}filter.js")" \
        "200 text/javascript; charset=utf-8"
    if res=$(timeout 60 python3 -S "$HERE/filter_page.py" - --live --site "$F" "$L" \
             --hide "$(jget "$CNT" "d['ltid']")" --collapse 1 2>"$D/lpage.err" <<<"$PAGE_URL"); then
        check live "$res" all
    else
        pg_fail "live: the page could not be driven"; cat "$D/lpage.err"
    fi
else
    pg_fail "live: the run under -live did not end"; cat "$D/live.err"
fi
stop_pangaea
pg_summary
