#!/usr/bin/env python3
"""filter_page.py - drives the event filters (src/cli/view/filter.js) of a
page in headless Chromium: -display's file or -live's page.

    filter_page.py URL --site FILE LINE [--hide LTID] [--collapse K]
                   [--live] [--shot OUT.png]

Prints one JSON object.  With --site: the call-site tree is opened and the
checkbox of FILE > (its function) > LINE clicked (WebDriver clicks, as a
user would), in highlight mode; "site" holds the events the page
highlights, "site_file" the same for the checkbox of FILE (its subtree);
the page is then loaded again with its URL fragment and "shared" holds the
highlighted count of that fresh page.  With --hide: mode "hide" and the
checkbox of task LTID; "hide" holds the events drawn per ltid with the
whole run in view.  With --collapse: the checkbox of the stretch between
barriers K and K+1; "collapse" holds the events in bands and the bands
drawn, then "expanded" the same after a click on the band.

Design.  The WebDriver client is graph_page.py's.  The page's own counts
come from window.pangaeaGraph (display) or window.pangaeaLive (live):
filterCounts() counts the filter's verdict over the page's model, frame()
what the last drawing drew.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402


def api(live):
    return "window.pangaeaLive" if live else "window.pangaeaGraph"


def wait(d, live, cond="true", timeout=30):
    t = time.time()
    while time.time() - t < timeout:
        if d.js("const g = %s; return !!(g && g.ready && (%s))" % (api(live), cond)):
            return
        time.sleep(0.1)
    raise RuntimeError("the page never became ready (%s)" % cond)


def el_click(d, css):
    e = d.call("POST", "/element", {"using": "css selector", "value": css})
    d.call("POST", "/element/%s/click" % list(e.values())[0], {})


def open_tree(d):
    """Clicks every closed twisty of the site tree until none is left."""
    for _ in range(200):
        n = d.js("const t = Array.from(document.querySelectorAll('#filters .pf-twist'));"
                 "const i = t.findIndex((x) => x.textContent === '\u25b8');"
                 "if (i >= 0) t[i].id = 'pf-next'; return i;")
        if n < 0:
            return
        el_click(d, "#pf-next")


def counts(d, live):
    return d.js("const g = %s; g.redraw && g.redraw(); return g.filterCounts();" % api(live))


def fit(d, live):
    if not live:
        d.js("window.pangaeaGraph.fit()")
    return d.js("return %s.frame()" % api(live))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--site", nargs=2)
    ap.add_argument("--hide", type=int)
    ap.add_argument("--collapse", type=int)
    ap.add_argument("--live", action="store_true")
    ap.add_argument("--shot")
    a = ap.parse_args()
    live = a.live
    if a.url == "-":  # the live view's URL carries its token: not in argv
        a.url = sys.stdin.readline().strip()
    url = a.url if "://" in a.url else "file://" + os.path.abspath(a.url)
    d = Driver((1400, 1000))
    out = {}
    try:
        d.call("POST", "/url", {"url": url})
        wait(d, live, "!g.running || !g.running()" if live else "true")
        if live:
            # All events in: the run is over and the page has what it counts.
            wait(d, live, "g.events() === g.filterTotal()")
        if a.site:
            f, line = a.site
            open_tree(d)
            el_click(d, '#filters input[data-kind=site][data-path^="%s>"][data-path$=">%s"]' % (f, line))
            out["site"] = counts(d, live)
            out["hash"] = d.js("return location.hash")
            out["frame"] = fit(d, live)
            el_click(d, '#filters input[data-kind=site][data-path="%s"]' % f)
            out["site_file"] = counts(d, live)
            el_click(d, '#filters input[data-kind=site][data-path="%s"]' % f)
            el_click(d, '#filters input[data-kind=site][data-path^="%s>"][data-path$=">%s"]' % (f, line))
            # The URL as a user would share it: a fresh page must show the same.
            d.call("POST", "/url", {"url": "about:blank"})
            d.call("POST", "/url", {"url": url.split("#")[0] + out["hash"]})
            wait(d, live)
            if live:
                wait(d, live, "g.events() === g.filterTotal() && g.filterTotal() > 0")
            out["shared"] = counts(d, live)
            el_click(d, "#pf-clear")
        if a.hide is not None:
            d.js("const m = document.getElementById('pf-mode'); m.value = 'hide'; m.dispatchEvent(new Event('change'));")
            el_click(d, '#filters input[data-kind=task][data-value="%d"]' % a.hide)
            out["hide"] = counts(d, live)
            out["hide_frame"] = fit(d, live)
            el_click(d, "#pf-clear")
        if a.collapse is not None:
            out["stretches"] = d.js("return %s.filter.stretches()" % api(live))
            el_click(d, '#filters input[data-kind=collapse][data-value="%d"]' % a.collapse)
            out["collapse"] = counts(d, live)
            out["collapse_frame"] = fit(d, live)
            if a.shot:
                d.screenshot(a.shot)
            b = d.js("return %s.bands()" % api(live))
            if b and not 260 < b[0]["x"] < 1300:  # into view first, as a user would scroll
                d.js("const s = document.getElementById('scroller'); s.scrollLeft += arguments[0] - 700;"
                     "%s.redraw();" % api(live), b[0]["x"])
                b = d.js("return %s.bands()" % api(live))
            out["bands"] = b
            if b:
                try:
                    d.click(b[0]["x"], b[0]["y"])
                except RuntimeError as e:
                    out["click_error"] = str(e)[:200]
                    out["view"] = d.js("return [innerWidth, innerHeight, document.getElementById('cv').getBoundingClientRect().toJSON()]")
            out["expanded"] = counts(d, live)
            out["expanded_frame"] = fit(d, live)
        out["errors"] = d.js("return window.__pfErrors || []")
    finally:
        d.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
