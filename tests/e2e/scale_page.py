#!/usr/bin/env python3
"""scale_page.py - the level of detail of the event-graph pages, in
headless Chromium.

    scale_page.py PAGE.html             a `pangaea -display` page
    scale_page.py - --live              a `pangaea -live` page (URL on stdin)
    scale_page.py --cols COLS OBJS      "same" when /events.json?format=cols
                                        (COLS) holds the events of the
                                        object form (OBJS), else what differs

Prints one JSON object of frames (what the page reports of the drawing it
just made: events in view, events drawn as columns, lines and the buckets
drawn for them, per row the columns and their dominant kind):
  "fit"          the whole run in view, real time
  "fit_logical"  the whole run in view, logical order
  "zoomed"       zoomed in on the middle of the busiest row, few events in view
  "deep"         as zoomed, with the live page's scrollbar mapped (past
                 20,000 px, as past the 8 million a browser would lay out)
  "hidden"       the whole run in view with ltid 1 hidden by the filters
  "events"       the events the page holds

Design.  As graph_page.py (its Driver: chromedriver, a private profile,
clean-up of what it started); the page's own test interface
(window.pangaeaGraph or window.pangaeaLive: fit, setMode, setScale,
frame, filter) does the zooming, so the frames are what a user sees after
the same clicks.  The test compares them with the logs (display_check.py).
"""
import base64
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
if (g.maxPx) g.maxPx(20000); // the live page: its scrollbar mapped past 20,000 px (-display's: past what Chromium lays out)
g.fit(); g.zoomRows(40); out.deep = frame(); if (g.maxPx) g.maxPx(8e6);
g.fit(); g.filter.setHash("mode=hide&task=1"); out.hidden = frame(); g.filter.setHash("");
out.events = typeof g.events === "function" ? g.events() : g.events;
return out;"""


def unpack(text, n):
    """json.c's packed integers: base64 of zigzag varints."""
    raw, out, p = base64.b64decode(text), [], 0
    for _ in range(n):
        v, shift = 0, 0
        while True:
            b = raw[p]
            p += 1
            v |= (b & 127) << shift
            shift += 7
            if not b & 128:
                break
        out.append(-(v + 1) // 2 if v & 1 else v // 2)
    return out


def same_events(cols_path, objs_path):
    """The columns of one answer against the object form's events."""
    c, o = json.load(open(cols_path)), json.load(open(objs_path))
    n, objs = c["n"], o["events"]
    col = {k: unpack(c[k], n) for k in ("ltid", "seq", "kind", "call", "us", "tag", "msgid",
                                         "bytes", "from", "site", "nto")}
    to = unpack(c["to"], c["nto_all"])
    if n != len(objs) and not c["more"] and not o["more"] or not n:
        return "columns hold %d events, the object form %d" % (n, len(objs))
    at = 0
    for i, e in enumerate(objs[:n]):  # each answer may be cut at its own length
        got = {"ltid": col["ltid"][i], "seq": col["seq"][i], "kind": c["kinds"][col["kind"][i]],
               "t": round(c["t0"] + col["us"][i] / 1e6, 6)}
        want = {k: e[k] for k in ("ltid", "seq", "kind")}
        want["t"] = round(e["t"], 6)
        if e.get("call") and col["call"][i] >= 0:
            got["call"], want["call"] = c["calls"][col["call"][i]], e["call"]
        for k in ("tag", "msgid", "bytes", "from"):
            if k in e:
                got[k], want[k] = col[k][i], e[k]
        if "to" in e:
            got["to"], want["to"] = to[at:at + col["nto"][i]], e["to"]
        at += col["nto"][i]
        if abs(got.pop("t") - want.pop("t")) > 2e-6 or got != want:
            return "event %d differs: %s against %s" % (i, got, want)
    return "same"


def main():
    if sys.argv[1] == "--cols":
        print(same_events(sys.argv[2], sys.argv[3]))
        return 0
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
