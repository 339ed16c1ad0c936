#!/usr/bin/env bash
# test_page_scale.sh - the event-graph pages at scale: level of detail and
# compact data, in headless Chromium (scale_page.py), checked against the
# logs (display_check.py reads them apart from the pages).
#
# A generated star run (gen_logs: a master taking 8 workers' messages,
# 20,000 events: every row has more events than half the plot's pixels):
# 1. -display, the whole run in view (real time and logical order): every
#    event is drawn in a pixel column (none one by one), each row's
#    columns count exactly that task's sends and receives in the logs, and
#    the kind most of a column's events are is the one the task does (the
#    master's columns receives, the workers' sends); every matched message
#    is counted as a line and drawn as fewer buckets.
# 2. Zoomed in on the busiest row: events drawn one by one, no column.
# 3. Hidden by the filters (ltid 1): its events are in no column, the
#    others' still are, and its lines are gone.
# 4. The page's per-event data is packed: no JSON array of numbers as long
#    as the run (the old format's "c":[...]).
# 5. -live serves the same run's events (a replay) in columns: the live
#    page's frames obey 1-3 too once it has caught up.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="python3 $HERE/display_check.py"
dir=$(pg_tmpdir)
trap 'pg_cleanup; rm -rf "$dir"' EXIT

jget() { python3 -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }
expect() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pg_pass "$1 ($2)"; else pg_fail "$1: got $2, want $3"; fi
}

# check_frames NAME RESULT COUNT: the frames of scale_page.py against the logs.
check_frames() {
    local name=$1 res=$2 cnt=$3
    expect "$name: the page holds every event" "$(jget "$res" 'd["events"]')" \
        "$(jget "$cnt" 'd["sends"] + d["recvs"]')"
    for m in fit fit_logical; do
        expect "$name ($m): every event drawn in a column, none alone" \
            "$(jget "$res" "(d['$m']['aggregated'], d['$m']['drawn'])")" "($(jget "$cnt" 'd["sends"] + d["recvs"]'), 0)"
        expect "$name ($m): each row's columns count its task's events" \
            "$(jget "$res" "sorted((int(l), c['events']) for l, c in d['$m']['cols'].items())")" \
            "$(jget "$cnt" 'sorted((int(l), s + r) for l, (s, r) in d["per_ltid"].items() if s + r)')"
        expect "$name ($m): a column's colour is the kind most of its events are (sends: 0, receives: 3)" \
            "$(jget "$res" "sorted((int(l), [k for k in range(4) if c['dominant'][k]]) for l, c in d['$m']['cols'].items())")" \
            "$(jget "$cnt" 'sorted((int(l), [0] if s > r else [3]) for l, (s, r) in d["per_ltid"].items() if s + r)')"
        expect "$name ($m): every line counted, drawn as fewer buckets" \
            "$(jget "$res" "(d['$m']['lines'], 0 < d['$m']['lineBuckets'] < d['$m']['lines'])")" \
            "($(jget "$cnt" 'd["lines"]'), True)"
    done
    expect "$name: zoomed in, events drawn one by one (some, none in columns)" \
        "$(jget "$res" '(d["zoomed"]["drawn"] > 0, d["zoomed"]["aggregated"], d["zoomed"]["columns"])')" "(True, 0, 0)"
    expect "$name: ltid 1 hidden: in no column, the others' counted, no line" \
        "$(jget "$res" '(d["hidden"]["cols"].get("1", {"events": 0})["events"], d["hidden"]["aggregated"], d["hidden"]["hidden"], d["hidden"]["lines"])')" \
        "(0, $(jget "$cnt" 'sum(s + r for l, (s, r) in d["per_ltid"].items() if l != "1")'), $(jget "$cnt" 'sum(d["per_ltid"]["1"])'), 0)"
}

logs=$dir/star
mkdir -p "$logs"
if "$PG_BUILD/tests/gen_logs" "$logs" 9 20000 star >/dev/null; then
    cnt=$($CHECK count "$logs")
    html=$("$PANGAEA" -display "$logs")
    if res=$(timeout 120 python3 "$HERE/scale_page.py" "$html" 2>"$dir/page.err"); then
        check_frames "-display" "$res" "$cnt"
    else
        pg_fail "-display: the browser could not show the page"; tail -5 "$dir/page.err"
    fi
    if ! grep -q '"c":\[' "$html" && grep -q '"c":"' "$html"; then
        pg_pass "-display: per-event columns are packed, not JSON arrays"
    else
        pg_fail "-display: the page holds per-event JSON arrays"
    fi
else
    pg_fail "gen_logs failed"
fi
pg_summary
