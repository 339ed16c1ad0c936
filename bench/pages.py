#!/usr/bin/env python3
"""bench/pages.py - the event-graph pages at scale, in headless Chromium.

    pages.py display PAGE.html          a `pangaea -display` page from disk
    pages.py live URL                   a `pangaea -live` page (URL printed)
    pages.py live-during URL            the same, opened as the run starts:
                                        the longest it went without drawing,
                                        and without new events (max_stale_ms)
    PAGES_NO_KEEP=1 pages.py live-during URL
                                        the same, the drawings' kept counts
                                        not used (pangaeaLive.columnCache)
    PAGES_SHOTS=PREFIX pages.py display|live ...
                                        also screenshots, zoomed out and in
                                        (PREFIX-zoomed-out.png, -in.png)

Prints one JSON object: ready_s (from navigation until the page says it
is ready, measured by this script's clock), the page's own figures
(redraw, zoom in and out, a click on an event zoomed in, filter on and
off, each the milliseconds the page's script took, measured inside the
page with performance.now()),
and the renderer's memory: the resident set (VmRSS, /proc) of every
renderer process of this browser, summed, before the page (blank_rss_mb:
Chromium's own, about:blank) and with it (renderer_rss_mb; page_rss_mb
the difference: what the page costs), and the JS heap Chromium reports
(performance.memory); then, after a full garbage collection, the page's
share again (page_rss_gc_mb) and the bytes of its typed arrays (typed_mb).

The resident sets count the pages of Chromium's own binary and libraries
in every process that maps them (100-110 MB each here), so "tab" splits
the memory honestly (/proc/PID/smaps_rollup): per process kind its
private memory (Private_Clean + Private_Dirty: what no other process
shares), blank and with the page; the page's renderer (the one that grew
most) by itself: private, anonymous and peak resident (VmHWM) memory;
and the whole browser as its private memory summed plus its shared pages
once (the largest shared part of any one process).  live-during also
reports the page's long tasks (PerformanceObserver "longtask": each task
over 50 ms, wall time, so noisy) and the most events one of its tasks
visited (pangaeaLive.workMax, a count).

Design.  It drives Chromium as the e2e tests do (tests/e2e/graph_page.py's
Driver: chromedriver, a private profile, clean-up of only what it
started).  Each figure is one measurement: run it several times on a
quiet machine; bench/pages.sh does.  Never used as a test.
"""
import json
import os
import re
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "e2e"))
from graph_page import Driver  # noqa: E402


def renderer_rss_kb(profile):
    total = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
            if profile.encode() not in cmd or b"--type=renderer" not in cmd:
                continue
            with open("/proc/%s/status" % pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total


def procs(profile):
    """Every process of this browser: (kind, pid, {rss, pss, private, anon, shared, hwm} in MB)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
            if profile.encode() not in cmd:
                continue
            m = re.search(rb"--type=([a-z-]+)", cmd)
            kind = m.group(1).decode() if m else "browser"
            m = re.search(rb"--utility-sub-type=([a-z]+)", cmd)
            kind += (":" + m.group(1).decode()) if m else ""
            kind += ":webui" if b"--top-chrome-webui" in cmd else ""
            r = {}
            with open("/proc/%s/smaps_rollup" % pid) as f:
                for line in f:
                    k = line.split()
                    if k[0] in ("Rss:", "Pss:", "Private_Clean:", "Private_Dirty:", "Anonymous:"):
                        r[k[0][:-1]] = int(k[1])
            with open("/proc/%s/status" % pid) as f:
                hwm = [int(x.split()[1]) for x in f if x.startswith("VmHWM:")]
            priv = r["Private_Clean"] + r["Private_Dirty"]
            mb = lambda kb: round(kb / 1024, 1)
            out.append((kind, int(pid), {"rss": mb(r["Rss"]), "pss": mb(r["Pss"]), "private": mb(priv),
                                         "anon": mb(r["Anonymous"]), "shared": mb(r["Rss"] - priv),
                                         "hwm": mb(hwm[0] if hwm else 0)}))
        except (OSError, KeyError, IndexError):
            continue
    return out


def split(before, after):
    """The tab's memory: per kind private MB (blank -> page), the page's
    renderer, the browser's private sum and shared pages once."""
    old = {pid: m for _, pid, m in before}
    grew = [(m["private"] - old.get(pid, {"private": 0})["private"], kind, pid, m) for kind, pid, m in after
            if kind == "renderer"]
    page = max(grew, key=lambda g: g[0]) if grew else None
    per = {}
    for kind, pid, m in after:
        per.setdefault(kind, [0, 0])[1] += m["private"]
    for kind, pid, m in before:
        per.setdefault(kind, [0, 0])[0] += m["private"]
    tot = lambda ps: round(sum(m["private"] for _, _, m in ps) + max([m["shared"] for _, _, m in ps] or [0]))
    return {"private_by_kind_mb": {k: [round(a), round(b)] for k, (a, b) in sorted(per.items())},
            "page_renderer_mb": page and {k: page[3][k] for k in ("private", "anon", "hwm", "rss")},
            "page_renderer_blank_private_mb": page and old.get(page[2], {"private": 0})["private"],
            "browser_blank_mb": tot(before), "browser_with_page_mb": tot(after)}


def wait(d, expr, timeout=300):
    t = time.time()
    while time.time() - t < timeout:
        if d.js("return !!(" + expr + ")"):
            return time.time() - t
        time.sleep(0.02)
    raise RuntimeError("the page never became ready: " + expr)


TIMINGS = """
const g = arguments[0] === "display" ? window.pangaeaGraph : window.pangaeaLive, o = {};
const t = (f) => { const a = performance.now(); f(); return performance.now() - a; };
o.redraw_ms = t(() => g.redraw());
if (g.zoom) { // not on the live page before its level of detail
  o.zoom_in_ms = t(() => g.zoom(8));
  // A click (the canvas' own handler: the event under it found and
  // described) on each of the first rows, zoomed in: the slowest, and
  // whether one found an event (the details panel changed).
  const cv = document.getElementById("cv"), det = document.getElementById("details"), was = det && det.textContent;
  if (cv) {
    const b = cv.getBoundingClientRect();
    o.click_ms = Math.max(...[0, 1, 2, 3].map((k) => t(() => cv.dispatchEvent(new MouseEvent("click",
      { bubbles: true, clientX: b.left + b.width / 2, clientY: b.top + 22 + 40 * k + 20 })))));
    o.click_found = !!det && det.textContent !== was;
  }
  o.zoom_out_ms = t(() => g.zoom(1 / 8));
}
if (g.setMode) { o.logical_ms = t(() => g.setMode("logical")); o.real_ms = t(() => g.setMode("real")); }
o.filter_on_ms = t(() => g.filter.setHash("task=1"));
if (g.frame().ov) o.overview_count_ms = g.frame().ov.ms; // the strip, every event counted again (the filter changed)
if (g.brushMove) { o.brush_move_ms = t(() => g.brushMove(-100)); o.overview_ms = g.frame().ov.ms; }
o.filter_off_ms = t(() => g.filter.setHash(""));
o.events = typeof g.events === "function" ? g.events() : g.events;
o.frame = g.frame();
o.phases = typeof g.phases === "function" ? g.phases() : g.phases; o.drawnMs = g.drawnMs; o.readyMs = g.readyMs;
return o;"""


def during(d, url):
    """The live page opened as the run starts: until the run is over and
    the page has caught up, the longest time it went without drawing."""
    t0 = time.time()
    d.call("POST", "/url", {"url": url})
    d.js(LONGTASKS)
    if os.environ.get("PAGES_NO_KEEP"):  # the drawings' kept counts not used (as before them), to compare
        d.js("const g = window.pangaeaLive; if (g && g.columnCache) g.columnCache(false);")
    # Until it is ready, every 50 ms the events the page holds: the longest
    # time they did not grow while the run went on (max_stale_ms) is how
    # old the view got, whatever the page drew meanwhile (both builds of
    # an A/B comparison report it alike).
    stale, stale_at, last_n, since, was_running = 0, 0, -1, time.time(), False
    since_page, stale_page = 0, None  # the page's clock (performance.now()) at the same samples
    while True:
        st = d.js("const g = window.pangaeaLive; return g && g.ready !== undefined ? [g.events(), g.running(), " + LIVE_READY +
                  ", performance.now()] : [0, true, false, performance.now()]")
        now = time.time()
        if st[0] != last_n:
            if was_running and last_n > 0 and now - since > stale:
                stale, stale_at, stale_page = now - since, last_n, (since_page, st[3])
            last_n, since, since_page = st[0], now, st[3]
        was_running = st[1]
        if st[2] or now - t0 > 900:
            break
        time.sleep(0.05)
    wait(d, LIVE_READY, 900)
    return {"until_caught_up_s": round(time.time() - t0, 2), "max_stale_ms": round(stale * 1000),
            "max_stale_after": stale_at,  # events the page held when that time began
            "max_draw_gap_ms": d.js("const g = window.pangaeaLive; return g.maxDrawGapMs ? Math.round(g.maxDrawGapMs()) : null"),
            # what the page did in that longest gap (ms): waiting for answers, parsing, adding, drawing, the rest
            "gap_why": d.js("const g = window.pangaeaLive; const w = g.maxDrawGapWhy && g.maxDrawGapWhy(); "
                            "return w && Object.fromEntries(Object.entries(w).map(([k, v]) => [k, Math.round(v)]))"),
            "events": d.js("return window.pangaeaLive.events()"),
            # all the page's steps while it caught up: ms spent in each kind, and how many
            "step_totals": d.js("const g = window.pangaeaLive, o = {}; if (!g.steps) return null; for (const s of g.steps()) "
                                "{ const k = s[1]; o[k] = o[k] || [0, 0]; o[k][0] += s[3]; o[k][1]++; } return o;"),
            # the same stalest time on the page's own clock (its steps: the longest time between two
            # additions of events while the run went on), which no lateness of WebDriver's polls inflates
            "page_max_stale": d.js(PAGE_STALE),
            # the page's tasks over 50 ms (from its start: buffered), the longest, and how many took over 100 ms
            "long_tasks": d.js("const t = window.__longTasks || []; return {n: t.length, over_100ms: t.filter((x) => x > 100).length, "
                               "max_ms: Math.round(Math.max(0, ...t))};"),
            "work_max": d.js("const g = window.pangaeaLive; return g.workMax ? [g.workMax(), g.workStep()] : null"),  # and the step before it
            # the events and lines all its drawings visited (counted: the lines' loop and the rows' columns)
            "draw_work": d.js("const g = window.pangaeaLive; return g.drawWorkAll ? g.drawWorkAll() : null"),
            # the drawings that took longest: [ms since the page's start, events held, ms, lines and rows' events visited, in slices]
            "longest_draws": d.js("const g = window.pangaeaLive; return g.drawLog ? g.drawLog().sort((a, b) => b[2] - a[2]).slice(0, 5) : null"),
            # the page's steps until its first drawing (its code cold)
            "first_steps": d.js("const g = window.pangaeaLive; if (!g.steps) return null; const s = g.steps(), k = s.findIndex((x) => x[1] === 'drew'); return s.slice(0, k + 1);"),
            "draw_log": d.js("const g = window.pangaeaLive; return g.drawLog ? g.drawLog() : null"),
            # the page's steps in that stalest time ([ms, step, events held, ms taken or waited]; its own clock)
            "stale_steps": stale_page and d.js("const g = window.pangaeaLive; return g.steps ? g.steps().filter((s) => "
                                               "s[0] >= arguments[0] - 20 && s[0] <= arguments[1] + 20) : null",
                                               stale_page[0], stale_page[1])}


LONGTASKS = """window.__longTasks = [];
new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(e.duration); })
  .observe({type: "longtask", buffered: true});"""


PAGE_STALE = """const g = window.pangaeaLive; if (!g.steps) return null;
let last = null, best = [0, 0, 0];
for (const s of g.steps()) {
  if (s[1] === "over") break;
  if (s[1] !== "added" || (last && s[2] === last[2])) continue;
  if (last && s[0] - last[0] > best[0]) best = [s[0] - last[0], last[2], last[0]];
  last = s;
}
return {ms: best[0], after: best[1], at_ms: best[2]};"""


# The live page holds every event of the run (a page before caughtUp():
# its summary says the run is over and it holds the count it names).
LIVE_READY = """(() => { const g = window.pangaeaLive;
  if (!g || !g.ready || g.running()) return false;
  if (g.caughtUp) return g.caughtUp();
  const m = /(\\d+) events/.exec(document.getElementById("summary").textContent);
  return !!m && g.events() >= +m[1]; })()"""


def shots(d, kind, prefix):
    """Screenshots of the page as it opened (the whole run: zoomed out) and
    zoomed in about the middle until no event in view is drawn as a
    column (single marks and lines), as PREFIX-zoomed-out.png and
    PREFIX-zoomed-in.png; the view is put back."""
    g = "window.pangaeaGraph" if kind == "display" else "window.pangaeaLive"
    d.screenshot(prefix + "-zoomed-out.png")
    f = 1
    while f < 2**24 and d.js("return %s.frame().aggregated > 0" % g):
        d.js("%s.zoom(2)" % g)
        f *= 2
    d.screenshot(prefix + "-zoomed-in.png")
    d.js("%s.zoom(arguments[0])" % g, 1 / f)


def main():
    kind, where = sys.argv[1], sys.argv[2]
    if kind == "live-during":
        d = Driver((1400, 900))
        d.call("POST", "/timeouts", {"script": 600000})
        try:
            print(json.dumps(during(d, where)))
        finally:
            d.close()
        return 0
    d = Driver((1400, 900))
    d.call("POST", "/timeouts", {"script": 600000})  # the old page's interactions take long
    try:
        url = where if kind == "live" else "file://" + os.path.abspath(where)
        # The renderers before the page (Chromium's own, about:blank): what
        # the page adds is renderer_rss_mb less this.
        blank_kb = renderer_rss_kb(d.profile)
        blank = procs(d.profile)
        t0 = time.time()
        d.call("POST", "/url", {"url": url})
        ready = "window.pangaeaGraph && window.pangaeaGraph.ready" if kind == "display" else LIVE_READY
        wait(d, ready)
        out = {"ready_s": round(time.time() - t0, 2)}
        if os.environ.get("PAGES_SHOTS"):
            shots(d, kind, os.environ["PAGES_SHOTS"])
        out.update(d.js(TIMINGS, kind))
        out["renderer_rss_mb"] = round(renderer_rss_kb(d.profile) / 1024)
        out["blank_rss_mb"] = round(blank_kb / 1024)
        out["page_rss_mb"] = out["renderer_rss_mb"] - out["blank_rss_mb"]
        out["js_heap_mb"] = round(d.js("return performance.memory ? performance.memory.usedJSHeapSize : 0") / 2**20)
        out["tab_before_gc"] = split(blank, procs(d.profile))
        # Again after a full garbage collection (DevTools' HeapProfiler): what
        # the page keeps (page_rss_gc_mb), and of it the typed arrays'
        # backing stores (typed_mb: the events' columns, mostly).
        cdp = lambda cmd: d.call("POST", "/goog/cdp/execute", {"cmd": cmd, "params": {}})
        cdp("HeapProfiler.enable")
        cdp("HeapProfiler.collectGarbage")
        time.sleep(1)
        out["page_rss_gc_mb"] = round(renderer_rss_kb(d.profile) / 1024) - out["blank_rss_mb"]
        out["typed_mb"] = round(cdp("Runtime.getHeapUsage").get("backingStorageSize", 0) / 2**20, 1)
        out["tab"] = split(blank, procs(d.profile))  # after the GC
        if kind == "live":
            out["data_mb"] = round(d.js("return window.pangaeaLive.dataBytes()") / 2**20, 1)
        print(json.dumps(out))
    finally:
        d.close()


if __name__ == "__main__":
    sys.exit(main())
