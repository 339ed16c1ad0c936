#!/usr/bin/env python3
"""clicks_page.py - the live page's view controls clicked as a user does,
in headless Chromium: what each click draws, and how often.

    clicks_page.py -        the URL `pangaea -live` printed, on stdin

The run must be over (-live-wait) before the page is asked; the page
then catches up and this script clicks, with real (WebDriver) clicks on
the page's own buttons and the filters' checkboxes: Fit, zoom in (+),
zoom out (-), Logical order, Real time, the ltid 1 filter on and off.
Prints one JSON object, a key per click, each:
  "draws"       drawings the click made (window.pangaeaLive.draws()),
                counted once the browser has painted twice after it, so a
                drawing the page's own scrolling would cause is counted
  "centre"      the position (seconds or logical step) at the middle of
                the plot after the click, and "before" the one before it
  "px"          the scale after the click (pixels a unit of position),
                and "before_px" the one before it
  "frame"       what the page reports of the drawing it made (counts of
                events, columns, lines, highlighted, dimmed)
and "events": the events the page holds, "per_ltid": of them, per task;
"wheel": a Ctrl+wheel turn (deltaY -200) at 30% across the plot, and
"drag": a drag from there 200 px to the right, each with the scale
before and after ("before_px", "px"), the position under the pointer
before and after ("before_at", "at": for the drag, under where it
ended), the drawings made and the details panel before and after it;
"hover": zoomed in, the pointer moved onto
one of ltid 2's events ("event": [ltid, number]; "near": the numbers of
ltid 2's events drawn within 8 px of it) and the details panel after
it; "brush": the overview strip's brush (brush() below: a wheel turn
on the graph, the brush moved, resized and clicked beside), each step
the brush as drawn (its edges found in the strip's pixels) and the view
mapped onto the strip, before and after.

Design.  As scale_page.py (graph_page.py's Driver: chromedriver, a
private profile, clean-up of what it started).  Nothing is timed: the
test (test_page_scale.sh) holds each click to one drawing and to what it
must show; how long a drawing takes is bench/pages.sh's to say.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402

READY = ("const g = window.pangaeaLive, c = window.pangaeaControl; return !!(g && g.ready && !g.running() && "
         "g.caughtUp() && c && c.polls() >= 2)")
# Two painted frames after the click: a scroll the click made has been
# handled (the page draws on scroll in an animation frame) by then.
SETTLED = """const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(() => done(true), 0)));"""
STATE = """const g = window.pangaeaLive, f = g.frame();
delete f.cols;
return {draws: g.draws(), centre: g.centre(), px: g.scale(), mode: g.mode(), frame: f};"""


def click(d, css):
    e = d.call("POST", "/element", {"using": "css selector", "value": css})
    d.call("POST", "/element/%s/click" % list(e.values())[0], {})


def settle(d):
    d.call("POST", "/execute/async", {"script": SETTLED, "args": []})


def clicked(d, css):
    """Clicks css; what the page drew for it."""
    settle(d)
    before = d.js(STATE)
    click(d, css)
    settle(d)
    after = d.js(STATE)
    after["before"], after["before_px"] = before["centre"], before["px"]
    after["draws"] -= before["draws"]
    return after


def canvas_point(d, fx):
    """A point of the plot, fx of the way across it (viewport px)."""
    return d.js("const b = document.getElementById('cv').getBoundingClientRect();"
                "return [b.left + 230 + (b.width - 230) * arguments[0], b.top + 22 + 40 * 1.5];", fx)


def wheel(d, x, y, dy):
    """A wheel turn at (x, y) with Ctrl held, as WebDriver's input sources do it."""
    d.call("POST", "/actions", {"actions": [
        {"type": "key", "id": "kb", "actions": [{"type": "keyDown", "value": "\ue009"},
                                                {"type": "pause", "duration": 0},
                                                {"type": "keyUp", "value": "\ue009"}]},
        {"type": "wheel", "id": "wh", "actions": [{"type": "pause", "duration": 0},
                                                  {"type": "scroll", "x": int(x), "y": int(y), "deltaX": 0,
                                                   "deltaY": dy, "origin": "viewport"},
                                                  {"type": "pause", "duration": 0}]}]})
    d.call("DELETE", "/actions")


def drag(d, x, y, dx):
    d.call("POST", "/actions", {"actions": [{
        "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": [{"type": "pointerMove", "duration": 0, "origin": "viewport", "x": int(x), "y": int(y)},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerMove", "duration": 200, "origin": "viewport", "x": int(x + dx), "y": int(y)},
                    {"type": "pointerUp", "button": 0}]}]})
    d.call("DELETE", "/actions")


VIEW = """const g = window.pangaeaLive;
return [g.scale(), g.at(arguments[0]), g.draws(), document.getElementById('details').textContent];"""


def moved(d, act, xb, xa):
    """What act() did to the view: the scale before and after, the
    position under viewport x xb before and under xa after."""
    settle(d)
    b = d.js(VIEW, xb)
    act()
    settle(d)
    a = d.js(VIEW, xa)
    return {"before_px": b[0], "px": a[0], "before_at": b[1], "at": a[1], "draws": a[2] - b[2],
            "before_details": b[3], "details": a[3]}


# The brush as drawn: its edges found in the overview strip's pixels (the
# colour only its edges have, #1565c0; each edge 2 px, the one at its x
# and the one before), in window px; and the view it should show: the
# graph's plot's positions at its ends mapped onto the strip
# ("view_left", "view_right"), the strip's scale ("s") and the graph's.
BRUSH = """const c = document.getElementById('ov'), g = window.pangaeaLive;
if (!c || !g.overview) return null;
const b = c.getBoundingClientRect(), r = c.width / b.width;
const row = c.getContext('2d').getImageData(0, Math.floor(c.height / 2), c.width, 1).data, xs = [];
for (let x = 0; x < c.width; x++) if (row[4 * x] === 0x15 && row[4 * x + 1] === 0x65 && row[4 * x + 2] === 0xc0) xs.push(x / r);
if (!xs.length) return null;
const o = g.overview(), v = g.view(), at = (u) => o.left + (u - o.origin) * o.s;
return {left: b.left + xs[0] + 1, right: b.left + xs[xs.length - 1], y: b.top + b.height / 2,
        view_left: at(v[0]), view_right: at(v[1]), view: v, s: o.s, px: g.scale(), draws: g.draws()};"""


def brush_step(d, act):
    """The brush before and after act(brush) (act: WebDriver's input on
    the strip or the graph; not done when no brush is drawn)."""
    settle(d)
    b = d.js(BRUSH)
    if b is None:
        return {"before": None, "after": None}
    act(b)
    settle(d)
    return {"before": b, "after": d.js(BRUSH)}


def press_drag(d, x, y, dx):
    """The left button pressed at (x, y), moved dx px in steps, released."""
    d.call("POST", "/actions", {"actions": [{
        "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": [{"type": "pointerMove", "duration": 0, "origin": "viewport", "x": int(round(x)), "y": int(round(y))},
                    {"type": "pointerDown", "button": 0},
                    {"type": "pointerMove", "duration": 150, "origin": "viewport", "x": int(round(x + dx)), "y": int(round(y))},
                    {"type": "pointerUp", "button": 0}]}]})
    d.call("DELETE", "/actions")


def brush(d):
    """The overview strip's brush: zoomed in x4 about the middle, then a
    ctrl+wheel turn on the graph (the brush must follow), the brush
    dragged 100 px right by its middle (the view must follow), its right
    edge dragged 60 px right (a zoom out), and a click beside it (the view
    centred there).  Each: the brush before and after (BRUSH)."""
    d.js("const g = window.pangaeaLive; g.fit(); g.zoom(4);")
    x, y = canvas_point(d, 0.3)
    out = {"wheel": brush_step(d, lambda b: wheel(d, x, y, -200))}
    out["move"] = brush_step(d, lambda b: press_drag(d, (b["left"] + b["right"]) / 2, b["y"], 100))
    out["edge"] = brush_step(d, lambda b: press_drag(d, b["right"], b["y"], 60))
    out["beside"] = brush_step(d, lambda b: press_drag(d, b["left"] - 150, b["y"], 0))
    if out["beside"]["before"]:
        out["beside"]["at"] = out["beside"]["before"]["left"] - 150
    return out


def hover(d):
    """Zoomed in on the middle of ltid 2's row (the page's test hook: on
    the busiest row's, ltid 2 may have no event in view, the workers of
    a flood ending before their receiver), the pointer moved onto the
    middle one of its events in view: the event, and what the details
    panel says after it."""
    d.js("const g = window.pangaeaLive; g.fit(); g.zoomRows(40, 2);")
    seqs = d.js("return window.pangaeaLive.seqsInView(2)")
    if not seqs:
        return {"event": None, "details": ""}
    seq = seqs[len(seqs) // 2]
    x, y = d.js("return window.pangaeaLive.pointOf(2, arguments[0])", seq)
    d.call("POST", "/actions", {"actions": [{
        "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
        "actions": [{"type": "pointerMove", "duration": 0, "origin": "viewport", "x": int(round(x)), "y": int(round(y))}]}]})
    d.call("DELETE", "/actions")
    settle(d)
    # Events drawn within 8 px of the pointer (a burst of sends shares a
    # pixel): the page may name any of them.
    near = d.js("const g = window.pangaeaLive; return arguments[0].filter((s) => {"
                "const p = g.pointOf(2, s); return p && Math.abs(p[0] - arguments[1]) <= 8; })", seqs, round(x))
    return {"event": [2, seq], "near": near, "details": d.js("return document.getElementById('details').textContent")}


def main():
    url = sys.stdin.readline().strip()
    d = Driver((1400, 900))
    try:
        d.call("POST", "/url", {"url": url})
        t = time.time()
        while not d.js(READY):
            if time.time() - t > 120:
                raise RuntimeError("the page never caught up")
            time.sleep(0.05)
        # The strip's full counts (the filters' clicks) made in a task of
        # their own, as past 100,000 events.
        d.js("const g = window.pangaeaLive; if (g.ovNow) g.ovNow(1000);")
        out = {"events": d.js("return window.pangaeaLive.events()")}
        out["per_ltid"] = d.js("return window.pangaeaLive.filterCounts().shown")
        out["fit"] = clicked(d, "#fit")
        out["zin"] = clicked(d, "#zin")
        out["zin2"] = clicked(d, "#zin")
        out["zout"] = clicked(d, "#zout")
        out["zout2"] = clicked(d, "#zout")
        out["logical"] = clicked(d, "#logical")
        out["real"] = clicked(d, "#real")
        out["fit2"] = clicked(d, "#fit")
        sel = '#filters input[data-kind=task][data-value="1"]'
        out["filter_on"] = clicked(d, sel)
        out["filter_off"] = clicked(d, sel)
        x, y = canvas_point(d, 0.3)
        out["wheel"] = moved(d, lambda: wheel(d, x, y, -200), x, x)
        out["drag"] = moved(d, lambda: drag(d, x, y, 200), x, x + 200)
        out["brush"] = brush(d)
        out["hover"] = hover(d)
        print(json.dumps(out))
    finally:
        d.close()


if __name__ == "__main__":
    sys.exit(main())
