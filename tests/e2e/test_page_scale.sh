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
#    The same on the live page with its scrollbar mapped proportionally
#    (as past what a browser lays out: its test hook maxPx lowers that).
# 3. Hidden by the filters (ltid 1): its events are in no column, the
#    others' still are, and its lines are gone.
# 4. The page's per-event data is packed: no JSON array of numbers as long
#    as the run (the old format's "c":[...]).
# 5. -live (a recording of plain_flood, 8 workers flooding the first task):
#    the live page's frames obey 1-3 too once it has caught up, checked
#    against the server's events (which hold each task's end too) and the
#    logs; /events.json?format=cols decoded (scale_page.py --cols) holds
#    the events the object form does, field by field.
# 6. The live page's view controls clicked (clicks_page.py: real clicks
#    on Fit, +, -, Logical order, Real time and the ltid 1 filter): each
#    click draws once (the scroll it makes draws nothing more: at 10^6
#    events a drawing is the whole cost of a click); + and - zoom by 2
#    about the plot's centre, which stays where it was; back at the fit's
#    scale the drawing counts what the fit's did; the filter highlights
#    exactly ltid 1's events and dims the others', and off, none; a
#    Ctrl+wheel turn zooms about the pointer, a drag moves the view with
#    it; pointing at an event shows its details.
# 7. The overview strip above the graph (clicks_page.py's "brush", found
#    in the strip's pixels): its brush is where the view is; a ctrl+wheel
#    turn on the graph narrows it by the zoom; dragging it by its middle
#    moves the view by as much at the same scale; dragging its right edge
#    zooms the view out to it; a click beside it centres the view there.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="python3 -S $HERE/display_check.py"
dir=$(pg_tmpdir)
trap 'pg_cleanup; rm -rf "$dir"' EXIT

jget() { python3 -S -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }
# jfile FILE EXPR: as jget, of a JSON file (an answer too long for argv).
jfile() { python3 -S -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
expect() {
    if [ -n "$2" ] && [ "$2" = "$3" ]; then pg_pass "$1 ($2)"; else pg_fail "$1: got $2, want $3"; fi
}

# check_frames NAME RESULT COUNT [WANT]: the frames of scale_page.py
# against the logs (COUNT: display_check.py's); WANT, if given, is the
# events per ltid the page must hold and draw ({ltid: [events, of them
# sends, receives]}: the live page also draws a task's end and other
# events, the server says which), else the logs' sends and receives.
check_frames() {
    local name=$1 res=$2 cnt=$3 want=${4:-}
    [ -n "$want" ] || want=$(jget "$cnt" 'json.dumps({l: [s + r, s, r] for l, (s, r) in d["per_ltid"].items() if s + r})')
    local total busy
    total=$(jget "$want" 'sum(v[0] for v in d.values())')
    busy=$(jget "$want" 'sorted(int(l) for l, v in d.items() if v[0] > 1000)')
    expect "$name: the page holds every event" "$(jget "$res" 'd["events"]')" "$total"
    for m in fit fit_logical; do
        expect "$name ($m): every event of a busy row drawn in a column" \
            "$(jget "$res" "sorted((int(l), c['events']) for l, c in d['$m']['cols'].items())")" \
            "$(jget "$want" 'sorted((int(l), v[0]) for l, v in d.items() if v[0] > 1000)')"
        expect "$name ($m): the kind most columns show is the kind most of the row's events are (sends: 0, receives: 3)" \
            "$(jget "$res" "sorted((int(l), max(range(len(c['dominant'])), key=lambda k: c['dominant'][k])) for l, c in d['$m']['cols'].items())")" \
            "$(jget "$want" 'sorted((int(l), 0 if v[1] > v[2] else 3) for l, v in d.items() if v[0] > 1000)')"
        expect "$name ($m): every line counted, drawn as fewer buckets" \
            "$(jget "$res" "(d['$m']['lines'], 0 < d['$m']['lineBuckets'] < d['$m']['lines'])")" \
            "($(jget "$cnt" 'd["lines"]'), True)"
    done
    expect "$name: zoomed in, events drawn one by one (some, none in columns)" \
        "$(jget "$res" '(d["zoomed"]["drawn"] > 0, d["zoomed"]["aggregated"], d["zoomed"]["columns"])')" "(True, 0, 0)"
    expect "$name: zoomed in, the scrollbar mapped (graph wider than the spacer): the events drawn unmapped" \
        "$(jget "$res" '(d["deep"]["drawn"], d["deep"].get("kx", 0) > 1 or "'"$name"'" == "-display")')" "($(jget "$res" 'd["zoomed"]["drawn"]'), True)"
    expect "$name: ltid 1 hidden: in no column, counted as hidden, no line" \
        "$(jget "$res" '(d["hidden"]["cols"].get("1", {"events": 0})["events"], d["hidden"]["hidden"], d["hidden"]["lines"])')" \
        "(0, $(jget "$want" 'd["1"][0]'), 0)"
    expect "$name: ltid 1 hidden: the other busy rows still drawn in columns" \
        "$(jget "$res" 'sorted(int(l) for l, c in d["hidden"]["cols"].items() if c["events"])')" \
        "$(jget "$want" 'sorted(int(l) for l, v in d.items() if v[0] > 1000 and l != "1")')"
    [ "$busy" != "[]" ] || pg_fail "$name: no row has more events than half the pixels: the test proves nothing"
}

# check_clicks RESULT: clicks_page.py's clicks, each drawn once and
# showing what it must (6 above).
check_clicks() {
    local c=$1 k
    for k in fit zin zin2 zout zout2 logical real fit2 filter_on filter_off; do
        expect "-live: a click on $k draws once" "$(jget "$c" "d['$k']['draws']")" 1
    done
    for k in zin zin2 zout zout2; do
        expect "-live: $k zooms by 2 about the centre, which stays within a pixel" \
            "$(jget "$c" "(round(d['$k']['px'] / d['$k']['before_px'], 6) in (2.0, 0.5), abs(d['$k']['centre'] - d['$k']['before']) * d['$k']['px'] < 1)")" \
            "(True, True)"
    done
    expect "-live: back at the fit's scale, the drawing counts what the fit's did" \
        "$(jget "$c" "[(d[k]['px'] == d['fit']['px'], d[k]['frame']['marks'], d[k]['frame']['aggregated'], d[k]['frame']['lines']) for k in ('zout2', 'fit2')]")" \
        "$(jget "$c" "[(True, d['fit']['frame']['marks'], d['fit']['frame']['aggregated'], d['fit']['frame']['lines'])] * 2")"
    expect "-live: Logical order and Real time switch the view" \
        "$(jget "$c" "(d['logical']['mode'], d['real']['mode'])")" "('logical', 'real')"
    expect "-live: the ltid 1 filter highlights its events and dims the others', and off, none" \
        "$(jget "$c" "[(d[k]['frame']['high'], d[k]['frame']['dim']) for k in ('filter_on', 'filter_off')]")" \
        "$(jget "$c" "[(d['per_ltid']['1'], sum(v for l, v in d['per_ltid'].items() if l != '1')), (0, 0)]")"
    expect "-live: the fit shows every event" "$(jget "$c" "d['fit']['frame']['marks']")" "$(jget "$c" "d['events']")"
    expect "-live: the overview strip counts every event (counted as they came, then all again for the filter, in a task after the click's drawing)" \
        "$(jget "$c" "[d[k]['frame'].get('ov', {}).get('total') for k in ('fit', 'filter_off')]")" "$(jget "$c" "[d['events']] * 2")"
    expect "-live: ctrl+wheel zooms in about the pointer (by e^0.4), what was under it stays within a pixel" \
        "$(jget "$c" "(lambda w: (round(w['px'] / w['before_px'], 3), abs(w['at'] - w['before_at']) * w['px'] < 1, w['draws'] >= 1))(d['wheel'])")" \
        "(1.492, True, True)"
    expect "-live: a drag moves the view with the pointer (what was under it is under it still)" \
        "$(jget "$c" "(lambda m: (m['px'] == m['before_px'], abs(m['at'] - m['before_at']) * m['px'] < 2, m['draws'] >= 1))(d['drag'])")" \
        "(True, True, True)"
    # The overview strip's brush (clicks_page.py's "brush": its edges as
    # found in the strip's pixels, the view mapped onto the strip).
    local B='(lambda b: '
    expect "-live: the brush is drawn where the view is (zoomed in x4)" \
        "$(jget "$c" "${B}b is not None and abs(b['left'] - b['view_left']) <= 1.5 and abs(b['right'] - b['view_right']) <= 1.5)(d['brush']['wheel']['before'])")" True
    expect "-live: ctrl+wheel on the graph: the brush follows (narrower by e^0.4, where the view is)" \
        "$(jget "$c" "(lambda w: w['after'] is not None and abs((w['before']['right'] - w['before']['left']) / (w['after']['right'] - w['after']['left']) - 1.492) < 0.03 and abs(w['after']['left'] - w['after']['view_left']) <= 1.5 and abs(w['after']['right'] - w['after']['view_right']) <= 1.5)(d['brush']['wheel'])")" True
    expect "-live: the brush dragged 100 px: it moves 100 px, the view with it at its scale" \
        "$(jget "$c" "(lambda m: m['after'] is not None and (round(m['after']['left'] - m['before']['left']), round(m['after']['right'] - m['before']['right']), abs((m['after']['view'][0] - m['before']['view'][0]) * m['before']['s'] - 100) <= 1.5, m['after']['px'] == m['before']['px']))(d['brush']['move'])")" \
        "(100, 100, True, True)"
    expect "-live: the brush's right edge dragged 60 px: the view zooms out to the brush, its left end kept" \
        "$(jget "$c" "(lambda m: m['after'] is not None and (abs(m['after']['left'] - m['before']['left']) <= 1.5, abs(m['after']['right'] - m['before']['right'] - 60) <= 1.5, abs(m['after']['view_left'] - m['before']['view_left']) <= 1.5, abs(m['after']['view_right'] - m['before']['view_right'] - 60) <= 1.5, abs(m['after']['px'] / m['before']['px'] * (m['before']['right'] - m['before']['left'] + 60) / (m['before']['right'] - m['before']['left']) - 1) < 0.02))(d['brush']['edge'])")" \
        "(True, True, True, True, True)"
    expect "-live: a click on the strip beside the brush centres the view there" \
        "$(jget "$c" "(lambda m: m['after'] is not None and abs((m['after']['view_left'] + m['after']['view_right']) / 2 - m['at']) <= 1.5 and abs(m['after']['left'] - m['after']['view_left']) <= 1.5)(d['brush']['beside'])")" True
    expect "-live: pointing at an event shows its details (no click)" \
        "$(jget "$c" "(lambda h: h['event'] is not None and any(h['details'].startswith('ltid 2 event %d:' % n) for n in h['near']))(d['hover'])")" True
}

# server_counts: the events /events.json holds per ltid, as check_frames
# wants them (all of them, read 20,000 at a time).
server_counts() {
    local since=0 more=True
    : >"$dir/events.all"
    while [ "$more" = True ]; do
        curl -sf "${URL}events.json?since=$since" >"$dir/page.json" || return 1
        cat "$dir/page.json" >>"$dir/events.all"
        more=$(jfile "$dir/page.json" 'd["more"]')
        since=$((since + $(jfile "$dir/page.json" 'len(d["events"])')))
    done
    python3 -S -c 'import json,sys
per, dec, text, i = {}, json.JSONDecoder(), open(sys.argv[1]).read(), 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i == len(text):
        break
    page, i = dec.raw_decode(text, i)
    for e in page["events"]:
        v = per.setdefault(str(e["ltid"]), [0, 0, 0])
        v[0] += 1; v[1] += e["kind"] == "send"; v[2] += e["kind"] == "recv"
print(json.dumps(per))' "$dir/events.all"
}

logs=$dir/star
mkdir -p "$logs"
if "$PG_BUILD/tests/gen_logs" "$logs" 9 20000 star >/dev/null; then
    cnt=$($CHECK count "$logs")
    html=$("$PANGAEA" -display "$logs")
    if res=$(timeout 120 python3 -S "$HERE/scale_page.py" "$html" 2>"$dir/page.err"); then
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

# ---- 5: the live page, on a run of plain_flood (8 workers x 1,500 messages) ----
. "$HERE/live_lib.sh"
D=$dir
trap 'stop_pangaea; pg_cleanup; rm -rf "$dir"' EXIT
if pg_pvm_start; then
    live=$dir/flood
    if start_live flood -log -live -live-wait -logdir "$live" "$PG_BUILD/tests/plain_flood" 8 1500; then
        if res=$(timeout 180 python3 -S "$HERE/scale_page.py" - --live <<<"$PAGE_URL" 2>"$dir/live.err") &&
           want=$(server_counts); then
            cnt=$($CHECK count "$live")
            expect "-live: the server's sends and receives are the logs'" \
                "$(jget "$want" 'sorted((int(l), v[1], v[2]) for l, v in d.items() if v[1] + v[2])')" \
                "$(jget "$cnt" 'sorted((int(l), s, r) for l, (s, r) in d["per_ltid"].items() if s + r)')"
            check_frames "-live" "$res" "$cnt" "$want"
        else
            pg_fail "-live: the browser could not show the page"; tail -5 "$dir/live.err"; tail -5 "$D/flood.err" # (and what pangaea said)
        fi
        curl -s "${URL}events.json?format=cols&since=0" >"$dir/cols.json"
        curl -s "${URL}events.json?since=0" >"$dir/objs.json"
        expect "-live: /events.json?format=cols holds the events of the object form, packed field by field" \
            "$(python3 -S "$HERE/scale_page.py" --cols "$dir/cols.json" "$dir/objs.json")" "same"
        expect "-live: a format it does not know is refused" \
            "$(curl -s -o /dev/null -w '%{http_code}' "${URL}events.json?format=xml")" 400
        expect "-live: ?max=N answers at most N events (the page's bite while a run goes on), and says there are more" \
            "$(curl -s "${URL}events.json?format=cols&since=0&max=5" | python3 -S -c 'import json,sys; d=json.load(sys.stdin); print(d["n"], d["more"])')" "5 True"
        expect "-live: a max of 0, or past the answer's limit, is refused" \
            "$(for m in 0 100001 x; do curl -s -o /dev/null -w '%{http_code} ' "${URL}events.json?format=cols&max=$m"; done)" "400 400 400 "
        if clicks=$(timeout 180 python3 -S "$HERE/clicks_page.py" <<<"$PAGE_URL" 2>"$dir/clicks.err"); then
            check_clicks "$clicks"
        else
            pg_fail "-live: the browser could not click the page"; tail -5 "$dir/clicks.err"
        fi
        stop_pangaea
    fi
    pg_pvm_stop
else
    pg_fail "pvmd did not start"
fi
pg_summary
