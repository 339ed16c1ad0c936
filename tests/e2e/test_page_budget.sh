#!/usr/bin/env bash
# test_page_budget.sh - the live page's budget at scale, in headless
# Chromium (budget_page.py): what it holds per event, and what one task of
# it visits, counted (bytes and events), never timed.
#
# A run of plain_flood (8 workers flooding the first task, ~200,000
# events) recorded with -live -live-wait, the page opened as it starts,
# its slices set to no time (every slice of events yields at once):
# 1. The page holds every event the server has, and its drawing with the
#    whole run in view shows them all; no task of it says its log is
#    corrupt or torn (the logs were read as they were written: a tail
#    being written is no damage).
# 2. No task of its reading and drawing visits more than WORK_MAX events
#    and lines (a slice of a drawing is 65,536; an answer read after the
#    run is 50,000, decoded in the task that adds and places its first
#    10,000: 70,000 in all): a drawing that counted every
#    event and line in one task (what a drawing at 10^6 events did, for
#    130-250 ms) visits some 300,000 here.
# 4. A page opened on the run once over, reading it in small answers:
#    each time it holds more events, a drawing from the counts it keeps
#    between drawings (the rows' columns, the lines; extended with the
#    events added since) draws what a fresh count draws; with nothing
#    added it visits no event, and after an answer, about its events only
#    (a drawing counted every event and line each time: as the fresh one);
#    so too zoomed in x1.5 (rows mostly in view: their kept counts) and
#    x6 at the newest events, fewer than fresh.  At x3 and x6 the view is
#    scrolled off the run's start, as the page following a run longer
#    than its plot: the kept counts (the lines' by column of the graph, not
#    of the canvas) still serve, so the drawings after answers visit in all
#    at most 3 visits an event added (its row's column, its line, a line
#    linked late) and the run twice (counts made anew: a task new to the
#    run, a row newly drawn as columns), where each visited the lines in view
#    again, some 30,000-90,000 events a drawing here: about the run.
#    Then, caught up, zoomed in x1.6 at the newest events (the run some
#    1.6 views wide, the view scrolled off its start: the page following
#    a run longer than its plot), drawn again and scrolled (the brush
#    moved): the kept counts serve, and these drawings visit no event or
#    line, at most the width in all; they visited the lines of every
#    receive (and the rows' events in view, their kept counts dropped by
#    a scroll of part of a pixel), each time: the run.  Zoomed in x2 and
#    out again, a filter on and off again: the kept counts of the view
#    before are kept too, and the drawing back to it visits nothing (it
#    counted every event and line again); with a filter on, the lines'
#    kept counts (per pair of kinds of event, the filters applied as they
#    are drawn) draw what a fresh count draws.
# 3. Its typed arrays hold at most DATA_B bytes an event, and after a full
#    garbage collection every typed array of the page (the scratch of the
#    answers, what the filters and strip keep) at most BACKING_B: the
#    columns were 46 bytes an event and the rows, lines and sends ~12
#    more; an object, a copy or a column more an event would pass them.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(pg_tmpdir)
. "$HERE/live_lib.sh"
live_traps 'rm -rf "$D"'

WORK_MAX=80000 DATA_B=47 BACKING_B=52
pg_pvm_start || { pg_fail "pvmd did not start"; pg_summary; exit 1; }
if start_live flood -log -live -live-wait -logdir "$D/flood" "$PG_BUILD/tests/plain_flood" 8 12500; then
    if res=$(timeout 300 python3 -S "$HERE/budget_page.py" - <<<"$PAGE_URL" 2>"$D/page.err"); then
        held=$(curl -sf "${URL}events.json?format=cols&since=0&max=1" | jget "$(cat)" 'd["count"]')
        expect "the page holds every event the server has" "$(jget "$res" 'd["events"]')" "$held"
        expect "no task's log called corrupt or torn (read while written)" "$(jget "$res" 'd["notes"]')" "[]"
        expect "the whole run in view: every event drawn" "$(jget "$res" 'd["fit"]["marks"]')" "$held"
        expect "no task visits more than $WORK_MAX events and lines (the most: $(jget "$res" 'd["work_max"]'), after the step $(jget "$res" 'd["work_step"]'))" \
            "$(jget "$res" '0 < d["work_max"] <= '$WORK_MAX)" True
        n=$(jget "$res" 'len(d["samples"])')
        expect "until the page caught up ($n samples): drawings from the kept counts (rows' columns, lines) drew what a fresh count draws" \
            "$(jget "$res" '[s["diff"] for s in d["samples"] if not s["same"]][:1]')" "[]"
        expect "a drawing with nothing added visits no event or line again (fresh: $(jget "$res" 'max(s["fresh_work"] for s in d["samples"])'))" \
            "$(jget "$res" 'any(s["again_work"] == 0 < s["fresh_work"] for s in d["samples"])')" True
        expect "a drawing after events were added counts only those (samples that did: $(jget "$res" 'sum(0 < s["kept_work"] < s["fresh_work"] for s in d["samples"])'))" \
            "$(jget "$res" 'any(0 < s["kept_work"] < s["fresh_work"] for s in d["samples"])')" True
        for z in 1.5 6.0; do
            expect "zoomed in x$z: a drawing after an answer visits fewer than a fresh one (samples that did: $(jget "$res" 'sum(s["zoomed"] == '$z' and 0 < s["kept_work"] < s["fresh_work"] for s in d["samples"])'))" \
                "$(jget "$res" 'any(s["zoomed"] == '$z' and 0 < s["kept_work"] < s["fresh_work"] for s in d["samples"])')" True
        done
        # (the first sample of each zoom: the drawings the zoom made counted them; the run at most 8 views wide: kept counts)
        zs='[s for z in (3.0, 6.0) for s in [s for s in d["samples"] if s["zoomed"] == z][1:] if s["views"] <= 8]'
        expect "zoomed in x3 and x6 at the newest events: the view scrolled off the run's start ($(jget "$res" "len($zs)") samples, at least 5)" \
            "$(jget "$res" "len($zs) >= 5 and all(s['scrolled'] for s in $zs)")" True
        expect "the view scrolled: its drawings after answers visited at most 3 times the events added plus the run twice, not the run each time (visited, added, run: $(jget "$res" "[sum(s['kept_work'] for s in $zs), sum(s['added'] for s in $zs), d['samples'][-1]['events']]"))" \
            "$(jget "$res" "sum(s['kept_work'] for s in $zs) <= 3 * sum(s['added'] for s in $zs) + 2 * d['samples'][-1]['events']")" True
        expect "caught up, zoomed in x1.6 at the newest events: the view scrolled off the run's start, the run $(jget "$res" 'round(d["scrolled"]["views"], 2)') views wide" \
            "$(jget "$res" 'd["scrolled"]["scrolled"] and 1.2 < d["scrolled"]["views"] < 2')" True
        # (A row comes into columns when its events in view pass half the
        # plot's width: its first columns count its events, once; where
        # its events sit in time is the run's, so some runs bring one in.)
        expect "there, drawn again, and after each of $(jget "$res" 'len(d["scrolled"]["moved"])') moves of the brush (a scroll): no event or line visited but a row's first columns, at most the width in all (made: $(jget "$res" 'd["scrolled"]["built"]'); first columns: $(jget "$res" 'd["scrolled"]["entered"]'))" \
            "$(jget "$res" '[d["scrolled"]["again"]] + d["scrolled"]["moved"] if d["scrolled"]["again"] + sum(max(0, m - e) for m, e in zip(d["scrolled"]["moved"], d["scrolled"]["entered"])) > d["scrolled"]["width"] else "bounded"')" bounded
        expect "zoomed in x2 and out again, a filter on and off again: back to a view drawn before, its kept counts serve, no event or line visited (in, out; on, off: $(jget "$res" 'd["scrolled"]["zoomed"] + d["scrolled"]["filtered"]'))" \
            "$(jget "$res" '[d["scrolled"]["zoomed"][1], d["scrolled"]["filtered"][1], d["scrolled"]["zoomed"][0] > 0, d["scrolled"]["filtered"][0] > 0]')" "[0, 0, True, True]"
        expect "there, a filter on (the others dimmed, then hidden): drawings from the kept counts draw what fresh counts draw" \
            "$(jget "$res" 'd["scrolled"]["filtered_same"]')" "[True, True]"
        echo "$res" >"${PG_BUDGET_OUT:-/dev/null}"
        expect "the page's typed arrays: at most $DATA_B bytes an event ($(jget "$res" 'round(d["data_bytes"] / d["events"], 1)'))" \
            "$(jget "$res" 'd["data_bytes"] <= '$DATA_B' * d["events"]')" True
        expect "after a full GC, every typed array of the page: at most $BACKING_B bytes an event ($(jget "$res" 'round(d["backing_bytes"] / d["events"], 1)'))" \
            "$(jget "$res" '0 < d["backing_bytes"] <= '$BACKING_B' * d["events"]')" True
    else
        pg_fail "the browser could not show the page"; tail -5 "$D/page.err"
    fi
    stop_pangaea
fi
pg_pvm_stop
pg_summary
