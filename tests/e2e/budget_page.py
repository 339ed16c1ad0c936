#!/usr/bin/env python3
"""budget_page.py - what the live page holds and does per task, in
headless Chromium: counts, never times.

    budget_page.py -                  a `pangaea -live` page (URL on stdin)

Opens the page as the run starts, sets its slices to no time at once
(window.pangaeaLive.sliceMs(0): every slice of events yields, so what a
task visits no longer depends on how fast the machine is), waits until
the run is over and the page holds all of it, then prints one JSON
object:
  "events"        events the page holds
  "work_max"      the most events and lines one task of its reading and
                  drawing visited (pangaeaLive.workMax)
  "data_bytes"    the bytes of the page's own typed arrays (dataBytes)
  "backing_bytes" after a full garbage collection (DevTools' HeapProfiler),
                  the bytes of every typed array of the page (Runtime.
                  getHeapUsage's backingStorageSize)
  "heap_bytes"    the JS heap used then (usedSize): objects, strings
  "fit"           the drawing with the whole run in view (marks, lines)
  "notes"         [ltid, state, note] of each task with a note once the
                  page has caught up (a log that did not read)
  "samples"       the page opened again on the run, reading it in answers
                  of ANSWER events (window.pangaeaAnswerMax): until it caught up (each time it held
                  more events), a drawing from the rows' kept column and
                  line counts against one counted afresh
                  (SAMPLE below): "same" frames, the events the drawings'
                  lines and columns visited ("kept_work", and of it the lines'
                  and the rows' columns' "kept_parts"; "again_work" with nothing
                  added, "fresh_work"), the events added since the last sample
                  ("added"), whether the view is scrolled off the run's
                  start ("scrolled") and how many views wide the run is
  "scrolled"      then, caught up, the view zoomed and scrolled (SCROLLED):
                  the events and lines its drawings visited: "built", "again"
                  (nothing changed), "moved" (each brush move), "entered"
                  (each move: the events of the rows it brought into
                  columns for the first time, whose counts it makes), "zoomed"
                  (in x2, out again), "filtered" (task=1 on, off again),
                  "filtered_same" (true, or the two frames: dimmed, hidden)

Design.  As scale_page.py (graph_page.py's Driver).  The bytes are exact
and the work a count, so a test can hold them to a bound on any machine.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402

READY = """const g = window.pangaeaLive;
return !!(g && g.ready && !g.running() && g.caughtUp());"""


# The drawing from the rows' kept counts (columns and lines, extended
# with the events added since the last drawing), then again with nothing
# added, against one counted afresh (the kept counts not used): the
# frames (what was drawn, counted) must be the same, and the second
# drawing visits no event.  In one task, so the page adds nothing between
# them.  Run in the page (WebDriver's asynchronous script) each time its
# events have grown, between its own tasks (setTimeout 0: each answer is
# added in tasks of a slice each), at most MAX_SAMPLES times, until the
# page has caught up: what a sample sees does not depend on how fast
# the machine or WebDriver is.  After ZOOMS[k][0] samples the view is
# zoomed in by ZOOMS[k][1] more: "zoomed" in the samples the scale
# zoomed in from the run's (x1.5: rows mostly in view, whose kept counts
# hold; then x3 and x6 at the newest events: the view scrolled off the
# run's start, most of the run in view at x3, a small part at x6).
SAMPLES = """const done = arguments[0], max = arguments[1], zooms = arguments[2], g = window.pangaeaLive, out = [];
let zoomed = 1;
const fr = () => { const f = g.frame(); delete f.ms; delete f.n; delete f.ov; return JSON.stringify(f); };
function sample() {
  g.redraw(); const kept = fr(), wk = g.drawWork(), parts = g.drawWorkParts ? g.drawWorkParts() : null;
  g.redraw(); const again = fr(), wa = g.drawWork();
  g.columnCache(false); g.redraw(); const fresh = fr(), wf = g.drawWork(); g.columnCache(true);
  const [u0, u1] = g.view(), o = g.overview(), added = g.events() - (last < 0 ? 0 : last);
  const views = (window.innerWidth - 238) / o.s / (u1 - u0); // the run's span (the strip's plot: 238 px less than the window) in views
  return {events: g.events(), added, scrolled: u0 > o.origin, views, zoomed, same: kept === fresh && again === fresh,
          kept_work: wk, kept_parts: parts, again_work: wa, fresh_work: wf, diff: kept === fresh ? null : [kept, fresh]};
}
let last = -1;
(function tick() {
  if (g.ready && !g.running() && g.caughtUp()) return done(out);
  if (g.events() !== last && out.length < max) {
    for (const [at, f, newest] of zooms) if (out.length === at) {
      g.zoom(f); zoomed *= f;
      if (newest) document.getElementById("newest").click(); // the view at the newest events, following them
    }
    out.push(sample()); last = g.events();
  }
  setTimeout(tick, 0);
})();"""
# Calls pangaeaLive.sliceMs(0) as soon as the page defines pangaeaLive.
SLICED = """(() => {
  let live;
  Object.defineProperty(window, "pangaeaLive", { configurable: true,
    get: () => live,
    set: (v) => { live = v; if (v && v.sliceMs) { v.sliceMs(0); window.pangaeaSliced = true; } } });
})();"""
ANSWER, MAX_SAMPLES, ZOOMS = 2000, 60, [[15, 1.5, False], [30, 2, True], [45, 2, True]]


# Once the page has caught up: zoomed in x1.6 from Fit, at the newest
# events (the run 1.6 views wide, the view scrolled off its start, most
# of it in view: the page following a run longer than its plot), drawn
# (its kept counts made), drawn again, and moved by a drag of the brush
# (a scroll) MOVES times; then zoomed in x2 and out again, a filter on
# and off again: what each drawing visited; with a filter on (ltid 1's
# events highlighted, the others dimmed; then the others hidden), whether
# a drawing from the kept counts draws what a fresh count draws.
SCROLLED = """const g = window.pangaeaLive;
const fr = () => { const f = g.frame(); delete f.ms; delete f.n; delete f.ov; return JSON.stringify(f); };
const fresh = () => { g.redraw(); const kept = fr(); g.columnCache(false); g.redraw(); const f = fr(); g.columnCache(true); return kept === f || [kept, f]; };
g.fit(); g.zoom(1.6); document.getElementById("newest").click(); g.redraw();
const [u0, u1] = g.view(), o = g.overview(), built = g.drawWork();
const colRows = () => Object.keys(g.frame().cols || {}), counted = new Set(colRows()), shown = g.filterCounts().shown;
g.redraw(); const again = g.drawWork(), moved = [], entered = [];
for (const l of colRows()) counted.add(l);
for (let k = 0; k < %d; k++) {
  g.brushMove(k %% 2 ? 7 : -12); moved.push(g.drawWork());
  const now = colRows().filter((l) => !counted.has(l)); // rows drawn as columns for the first time
  now.forEach((l) => counted.add(l)); entered.push(now.reduce((n, l) => n + (shown[l] || 0), 0));
}
g.zoom(2); const zin = g.drawWork(); g.zoom(0.5); const zback = g.drawWork();
g.filter.setHash("task=1"); const fon = g.drawWork(), same = [fresh()];
g.filter.setHash(""); const foff = g.drawWork();
g.filter.setHash("mode=hide&task=1"); same.push(fresh()); g.filter.setHash("");
return {zoomed: [zin, zback], filtered: [fon, foff], filtered_same: same, views: (window.innerWidth - 238) / o.s / (u1 - u0), scrolled: u0 > o.origin, built, again, moved, entered, width: window.innerWidth};"""
MOVES = 6


def samples(d, url):
    """The page opened again on the run (over by now), reading it in
    answers of ANSWER events (window.pangaeaAnswerMax, set before the
    page's script runs: DevTools' Page.addScriptToEvaluateOnNewDocument),
    sampled (SAMPLES) until it has caught up."""
    cdp = lambda cmd, p: d.call("POST", "/goog/cdp/execute", {"cmd": cmd, "params": p})
    cdp("Page.enable", {})
    added = cdp("Page.addScriptToEvaluateOnNewDocument", {"source": "window.pangaeaAnswerMax = %d;" % ANSWER})
    d.call("POST", "/url", {"url": url})
    cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
    d.call("POST", "/timeouts", {"script": 300000})
    out = d.call("POST", "/execute/async", {"script": SAMPLES.replace("arguments[0]", "arguments[arguments.length - 1]")
                                              .replace("arguments[1]", str(MAX_SAMPLES))
                                              .replace("arguments[2]", json.dumps(ZOOMS)), "args": []}, timeout=310)
    return out, d.js(SCROLLED % MOVES)


def main():
    url = sys.stdin.readline().strip()
    d = Driver((1400, 900), pool=False)  # its heap, not other tests' pages
    try:
        # Slices of no time from the page's first task on: set as the page
        # makes window.pangaeaLive, before it reads (DevTools'
        # Page.addScriptToEvaluateOnNewDocument), not after the page has
        # loaded: on a quiet machine the page had read and drawn the whole
        # run by then, and nothing was measured.
        cdp = lambda cmd, p: d.call("POST", "/goog/cdp/execute", {"cmd": cmd, "params": p})
        cdp("Page.enable", {})
        added = cdp("Page.addScriptToEvaluateOnNewDocument", {"source": SLICED})
        d.call("POST", "/url", {"url": url})
        cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
        if not d.js("return window.pangaeaSliced === true;"):
            raise RuntimeError("the page has no sliceMs")
        t = time.time()
        while not d.js(READY):
            if time.time() - t > 300:
                raise RuntimeError("the page never caught up")
            time.sleep(0.1)
        out = {"events": d.js("return window.pangaeaLive.events()"),
               "work_max": d.js("return window.pangaeaLive.workMax()"),
               "work_step": d.js("return window.pangaeaLive.workStep()"),  # the page's step when it was reached
               "data_bytes": d.js("return window.pangaeaLive.dataBytes()")}
        cdp = lambda cmd: d.call("POST", "/goog/cdp/execute", {"cmd": cmd, "params": {}})
        cdp("HeapProfiler.enable")
        cdp("HeapProfiler.collectGarbage")
        use = cdp("Runtime.getHeapUsage")
        out["backing_bytes"] = use.get("backingStorageSize")
        out["heap_bytes"] = use.get("usedSize")
        out["fit"] = d.js("const g = window.pangaeaLive; g.fit(); const f = g.frame(); return {marks: f.marks, lines: f.lines};")
        # what the page says of each task's log: a note (a log that did not read) on none of them
        out["notes"] = d.js("return window.pangaeaLive.tasks().filter((t) => t.note).map((t) => [t.ltid, t.state, t.note]);")
        out["samples"], out["scrolled"] = samples(d, url)
        print(json.dumps(out))
    finally:
        d.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
