#!/usr/bin/env python3
"""parts_page.py - a `pangaea -display` page in parts, in headless Chromium.

    parts_page.py --summary URL WORD   prints the page's summary line once
                                it holds WORD (or after 30 s)
    parts_page.py PAGE.html     prints JSON: for each part the page offers
                                (the first opened plainly, the others
                                reached by clicking its "later" button),
                                what the page says it shows and holds

Per part: "url" (the page's location), "shows" (the summary line),
"options" (the part selector's entries), "part" (pangaeaGraph.part: k, n,
first event, the run's events), "events", "lines", "across" (ends of
messages whose other end is in another part), "taskEvents" ([ltid,
events] per row), "races" (racing receives marked), "crashes" (crosses drawn), "filter" (the
filters' state after the click: the URL fragment is kept); then
"prevDisabled" on the first part and "nextDisabled" on the last.

Design.  As scale_page.py (graph_page.py's Driver): the moves between
parts are real clicks on the page's own button (WebDriver's element
click), so the test sees what a user gets: the page loading itself again
with ?part=K and the part's script beside it.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402

STATE = """
const g = window.pangaeaGraph;
return {url: location.href, shows: document.getElementById("summary").textContent,
  options: Array.from(document.querySelectorAll("#part-pick option")).map((o) => o.textContent),
  part: g.part, events: g.events, lines: g.lines, across: g.across, taskEvents: g.taskEvents,
  races: g.raceMarks, crashes: g.crashes, filter: g.filter.state(),
  prevDisabled: document.getElementById("part-prev").disabled,
  nextDisabled: document.getElementById("part-next").disabled};"""


def wait_ready(d, old_url):
    t = time.time()
    while time.time() - t < 60:
        if d.js("return location.href !== arguments[0] && !!(window.pangaeaGraph && window.pangaeaGraph.ready)",
                old_url):
            return
        time.sleep(0.05)
    raise RuntimeError("the part never became ready: " +
                       str(d.js("return document.getElementById('summary').textContent")))


def summary(url, word):
    d = Driver((1400, 900))
    try:
        d.call("POST", "/url", {"url": url})
        t, text = time.time(), ""
        while time.time() - t < 30 and word not in text:
            text = d.js("return document.getElementById('summary').textContent")
            time.sleep(0.1)
        print(text)
    finally:
        d.close()


def main():
    if sys.argv[1] == "--summary":
        return summary(sys.argv[2], sys.argv[3])
    page = "file://" + os.path.abspath(sys.argv[1])
    d = Driver((1400, 900))
    out = []
    try:
        # Opened with a filter in the fragment: each part must keep it.
        d.call("POST", "/url", {"url": page + "#task=2"})
        wait_ready(d, "")
        while True:
            s = d.js(STATE)
            out.append(s)
            if s["nextDisabled"] or len(out) > 50:
                break
            el = d.call("POST", "/element", {"using": "css selector", "value": "#part-next"})
            d.call("POST", "/element/%s/click" % list(el.values())[0], {})
            wait_ready(d, s["url"])
    finally:
        d.close()
    print(json.dumps(out))


if __name__ == "__main__":
    sys.exit(main())
