#!/usr/bin/env python3
"""export_page.py - the event-graph pages' "Export for Perfetto" button,
in headless Chromium.

    export_page.py PAGE.html OUTDIR     a `pangaea -display` page
    export_page.py - OUTDIR --live      a `pangaea -live` page (URL on stdin)

Clicks the button three times and keeps what the browser downloads, as
OUTDIR/all.json (the whole run in view, no filter), OUTDIR/hidden.json
(ltid 2 hidden by the filters) and OUTDIR/zoomed.json (zoomed in on the
middle of the busiest row); prints JSON: per export, its slices per
ltid, its flows, and the problems of its flows (each must join a send
slice to a receive slice of the same file: a flow whose end was left
out is one).

Design.  As scale_page.py (graph_page.py's Driver); the download goes to
OUTDIR through Chromium's own download handling (the DevTools command
Browser.setDownloadBehavior, sent through chromedriver), so the test
reads the file a user would get from a real click on the button.
"""
import glob
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from graph_page import Driver  # noqa: E402


def click_export(d, outdir, name):
    for f in glob.glob(os.path.join(outdir, "pangaea-view*.json")):
        os.unlink(f)
    el = d.call("POST", "/element", {"using": "css selector", "value": "#export"})
    d.call("POST", "/element/%s/click" % list(el.values())[0], {})
    path = os.path.join(outdir, "pangaea-view.json")
    t = time.time()
    while not os.path.exists(path):
        if time.time() - t > 60:
            raise RuntimeError("no download after the click")
        time.sleep(0.1)
    time.sleep(0.3)  # renamed from its .crdownload when complete: done
    os.rename(path, os.path.join(outdir, name + ".json"))
    return summary(json.load(open(os.path.join(outdir, name + ".json"))))


def summary(trace):
    ev = trace["traceEvents"]
    slices = {(e["pid"], e["ts"]): e for e in ev if e.get("ph") == "X"}
    per, flows, problems = {}, {}, []
    for e in slices.values():
        per[str(e["args"]["ltid"])] = per.get(str(e["args"]["ltid"]), 0) + 1
    for e in ev:
        if e.get("ph") in ("s", "f"):
            flows.setdefault(e["id"], {})[e["ph"]] = e
    for fid, p in flows.items():
        s, f = slices.get((p.get("s", {}).get("pid"), p.get("s", {}).get("ts"))), \
            slices.get((p.get("f", {}).get("pid"), p.get("f", {}).get("ts")))
        if not s or not f or s["cat"] != "send" or f["cat"] != "recv" or \
                f["args"]["from"] != s["args"]["ltid"] or f["args"]["msgid"] != s["args"]["msgid"]:
            problems.append("flow %s" % fid)
    return {"slices": per, "flows": len(flows), "problems": problems[:5], "view": trace["otherData"].get("view")}


def main():
    live = "--live" in sys.argv
    outdir = os.path.abspath(sys.argv[2])
    where = sys.stdin.readline().strip() if sys.argv[1] == "-" else "file://" + os.path.abspath(sys.argv[1])
    d = Driver((1400, 900))
    g = "(window.pangaeaLive || window.pangaeaGraph)"
    try:
        d.call("POST", "/goog/cdp/execute", {"cmd": "Browser.setDownloadBehavior",
                                               "params": {"behavior": "allow", "downloadPath": outdir}})
        d.call("POST", "/url", {"url": where})
        ready = g + ".ready" + (" && !window.pangaeaLive.running() && window.pangaeaLive.caughtUp()" if live else "")
        t = time.time()
        while not d.js("return !!(" + g + " && " + ready + ")"):
            if time.time() - t > 120:
                raise RuntimeError("the page never became ready")
            time.sleep(0.05)
        out = {}
        d.js(g + ".setMode('real'); " + g + ".fit()")
        out["all"] = click_export(d, outdir, "all")
        d.js(g + ".filter.setHash('mode=hide&task=2')")
        out["hidden"] = click_export(d, outdir, "hidden")
        d.js(g + ".filter.setHash(''); " + g + ".fit(); " + g + ".zoomRows(40)")
        out["zoomed"] = click_export(d, outdir, "zoomed")
        out["events"] = d.js("const g = " + g + "; return typeof g.events === 'function' ? g.events() : g.events")
        print(json.dumps(out))
    finally:
        d.close()


if __name__ == "__main__":
    sys.exit(main())
