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


def main():
    url = sys.stdin.readline().strip()
    d = Driver((1400, 900), pool=False)  # its heap, not other tests' pages
    try:
        d.call("POST", "/url", {"url": url})
        # At once: the page's first answer may be read already (a few
        # thousand events at most: the run has just begun).
        if not d.js("const g = window.pangaeaLive; if (!g || !g.sliceMs) return false; g.sliceMs(0); return true;"):
            raise RuntimeError("the page has no sliceMs")
        t = time.time()
        while not d.js(READY):
            if time.time() - t > 300:
                raise RuntimeError("the page never caught up")
            time.sleep(0.1)
        out = {"events": d.js("return window.pangaeaLive.events()"),
               "work_max": d.js("return window.pangaeaLive.workMax()"),
               "data_bytes": d.js("return window.pangaeaLive.dataBytes()")}
        cdp = lambda cmd: d.call("POST", "/goog/cdp/execute", {"cmd": cmd, "params": {}})
        cdp("HeapProfiler.enable")
        cdp("HeapProfiler.collectGarbage")
        use = cdp("Runtime.getHeapUsage")
        out["backing_bytes"] = use.get("backingStorageSize")
        out["heap_bytes"] = use.get("usedSize")
        out["fit"] = d.js("const g = window.pangaeaLive; g.fit(); const f = g.frame(); return {marks: f.marks, lines: f.lines};")
        print(json.dumps(out))
    finally:
        d.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
