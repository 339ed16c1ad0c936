#!/usr/bin/env python3
"""live_page.py - loads the page of `pangaea -live` in headless Chromium.

    live_page.py URL|- [--min-events N] [--shot OUT.png]
                 [--open-gate FILE [--away]] [--click-to-end ID]

Prints one JSON object: what the page itself reports (window.pangaeaLive:
its rows and their labels, the events and lines it holds, how many polls
it made, the counts of the frame last drawn, the legend's entries), its task table as the user sees it (per row: ltid, state, and
the "waits for / note" cell, and the data-waits the page keeps), and how
many resources it loaded (only this server's /events.json, the filters'
/filter.js and /filter.css, and the control panel's /control.json and
/alternatives.json may be fetched).  The page is
read once it has polled at least twice and holds at least N events (--
min-events; the test knows how many the held run has made).

--open-gate FILE: then zooms in (the graph gets wider than the view),
goes to the newest events (or, with --away, scrolls to the start as a
user would), creates FILE (the test program's gate: the run goes on),
waits until the page has more events and has polled once more, and
reports "after": whether the page follows the newest events and where
the view is (scrollLeft, and the largest it can be).

--click-to-end ID: then clicks the element of that id (the control
panel's "Resume all", say) once, and waits until the page says the run is
over; "end" holds whether it still says running, the events it holds and
its summary line.

URL "-": read from stdin (the live view's URL carries its token, kept
off command lines).

Design.  The WebDriver client of graph_page.py (chromedriver over HTTP,
standard library only, clean-up by PID) is reused as it is.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402

STATE = """
const g = window.pangaeaLive;
if (!g || !g.ready || g.polls() < 2 || g.events() < arguments[0]) return null;
const rows = [];
for (const tr of document.querySelectorAll('#tasks tbody tr'))
  rows.push({ltid: +tr.dataset.ltid, state: tr.dataset.state,
             text: tr.cells[5].textContent,
             waits: tr.dataset.waits ? JSON.parse(tr.dataset.waits) : null});
return {rows: g.rows(), rowLabels: g.rowLabels(), events: g.events(),
        lines: g.lines(), polls: g.polls(), running: g.running(),
        following: g.following(), drawn: g.drawn, table: rows, frame: g.frame(),
        legend: Array.from(document.querySelectorAll('#bar .legend'), (e) => e.textContent.trim()),
        summary: document.getElementById('summary').textContent,
        fetched: performance.getEntriesByType('resource').map((r) => r.name)};
"""


AFTER = """
const g = window.pangaeaLive, s = document.getElementById('scroller');
return {events: g.events(), polls: g.polls(), following: g.following(),
        scrollLeft: s.scrollLeft, maxLeft: s.scrollWidth - s.clientWidth};
"""


def go_on(d, gate, away, had):
    for _ in range(6):
        d.js("document.getElementById('zin').click()")
    if away:
        d.js("const s = document.getElementById('scroller'); s.scrollLeft = 0;"
             "s.dispatchEvent(new Event('scroll'));")
    else:
        d.js("document.getElementById('newest').click()")
    before = d.js(AFTER)
    open(gate, "w").close()
    t = time.time()
    now = before
    while time.time() - t < 60:
        now = d.js(AFTER)
        if now["events"] > had and now["polls"] > before["polls"] + 1:
            break
        time.sleep(0.1)
    now["before"] = before
    return now


def to_end(d, elem):
    d.js("document.getElementById(arguments[0]).click();", elem)
    t = time.time()
    while time.time() - t < 120 and d.js("return window.pangaeaLive.running();"):
        time.sleep(0.1)
    return d.js("const g = window.pangaeaLive;"
                "return {running: g.running(), events: g.events(),"
                "        summary: document.getElementById('summary').textContent};")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--min-events", type=int, default=0)
    ap.add_argument("--shot")
    ap.add_argument("--open-gate")
    ap.add_argument("--away", action="store_true")
    ap.add_argument("--click-to-end")
    a = ap.parse_args()
    if a.url == "-":
        a.url = sys.stdin.readline().strip()
    d = Driver((1400, 900))
    try:
        d.call("POST", "/url", {"url": a.url})
        out = None
        t = time.time()
        while out is None and time.time() - t < 120:
            out = d.js(STATE, a.min_events)
            if out is None:
                time.sleep(0.1)
        if out is None:
            raise RuntimeError("the page never showed %d events" % a.min_events)
        api = [a.url.split("?")[0].rstrip("/") + p for p in
               ("/events.json", "/filter.js", "/filter.css",
                "/control.json", "/alternatives.json")]
        out["other_resources"] = [u for u in out.pop("fetched")
                                  if not any(u.startswith(p) for p in api)]
        if a.click_to_end:
            out["end"] = to_end(d, a.click_to_end)
        if a.open_gate:
            out["after"] = go_on(d, a.open_gate, a.away, out["events"])
        if a.shot:
            d.screenshot(a.shot)
        print(json.dumps(out))
    finally:
        d.close()


if __name__ == "__main__":
    main()
