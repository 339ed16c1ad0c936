#!/usr/bin/env python3
"""scale_page.py - the level of detail of the event-graph pages, in
headless Chromium.

    scale_page.py PAGE.html             a `pangaea -display` page
    scale_page.py - --live              a `pangaea -live` page (URL on stdin)

Prints one JSON object of frames (what the page reports of the drawing it
just made: events in view, events drawn as columns, lines and the buckets
drawn for them, per row the columns and their dominant kind):
  "fit"          the whole run in view, real time
  "fit_logical"  the whole run in view, logical order
  "zoomed"       zoomed in on the middle of the busiest row, few events in view
  "hidden"       the whole run in view with ltid 1 hidden by the filters
  "events"       the events the page holds

Design.  As graph_page.py (its Driver: chromedriver, a private profile,
clean-up of what it started); the page's own test interface
(window.pangaeaGraph or window.pangaeaLive: fit, setMode, setScale,
frame, filter) does the zooming, so the frames are what a user sees after
the same clicks.  The test compares them with the logs (display_check.py).
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402

SCRIPT = """
const g = window.pangaeaGraph || window.pangaeaLive, out = {};
const frame = () => { const f = g.frame(); delete f.rows; return f; };
g.setMode("real"); g.fit(); out.fit = frame(); out.fit.rows = g.frame().rows;
g.setMode("logical"); g.fit(); out.fit_logical = frame();
g.setMode("real"); g.fit();
g.zoomRows(arguments[0]); out.zoomed = frame();
g.fit(); g.filter.setHash("mode=hide&task=1"); out.hidden = frame(); g.filter.setHash("");
out.events = typeof g.events === "function" ? g.events() : g.events;
return out;"""


def main():
    live = "--live" in sys.argv
    where = sys.stdin.readline().strip() if sys.argv[1] == "-" else "file://" + os.path.abspath(sys.argv[1])
    d = Driver((1400, 900))
    try:
        d.call("POST", "/url", {"url": where})
        ready = "window.pangaeaLive && window.pangaeaLive.ready && !window.pangaeaLive.running() && window.pangaeaLive.caughtUp()" \
            if live else "window.pangaeaGraph && window.pangaeaGraph.ready"
        t = time.time()
        while not d.js("return !!(" + ready + ")"):
            if time.time() - t > 120:
                raise RuntimeError("the page never became ready")
            time.sleep(0.05)
        print(json.dumps(d.js(SCRIPT, 40)))
    finally:
        d.close()


if __name__ == "__main__":
    sys.exit(main())
