#!/usr/bin/env python3
"""graph_page.py - drives headless Chromium over a `pangaea -display` page.

    graph_page.py PAGE.html [--shot OUT.png] [--mode real|logical]
                  [--zoom F] [--scale PX] [--click LTID SEQ]
                  [--click-line LTID SEQ] [--size WxH]

Prints one JSON object: what the page itself reports (window.pangaeaGraph:
rows, marks and lines of its drawing model, the counts of the frame drawn
with the whole run in view, in both modes), when it became usable, how
many resources it loaded (must be 0), and, with --click, the fields of the
details panel after a real mouse click (WebDriver actions) on the event
LTID/SEQ; with --click-line, after a click on the middle of the line from
the send LTID/SEQ to its (first) receive.

Design.  Only the standard library: chromedriver (Debian's chromium-driver)
speaks the W3C WebDriver protocol over HTTP on a loopback port, and urllib
is enough for it.  The browser gets a fresh profile in a temp dir and no
network-related background services.  Clean-up stops only what this script
started: the WebDriver session (which ends its Chromium), chromedriver by
its PID, then any process still naming our private profile dir, by PID.
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    def __init__(self, size):
        self.profile = tempfile.mkdtemp(prefix="pangaea-chromium.")
        self.port = free_port()
        self.log = open(os.path.join(self.profile, "driver.log"), "w")
        self.proc = subprocess.Popen(
            [DRIVER, "--port=%d" % self.port, "--allowed-ips=127.0.0.1"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = "http://127.0.0.1:%d" % self.port
        self.sid = None
        self.wait_driver()
        args = ["--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--disable-extensions", "--window-size=%d,%d" % size,
                "--user-data-dir=" + os.path.join(self.profile, "profile")]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def wait_driver(self):
        for _ in range(100):
            try:
                if self.call("GET", "/status", sid=False).get("ready"):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def call(self, method, path, body=None, sid=True):
        url = self.base + (("/session/" + self.sid) if sid and self.sid else "") + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read()).get("value")
        except urllib.error.HTTPError as e:
            raise RuntimeError("%s %s: %s" % (method, path, e.read()[:500]))

    def js(self, script, *args):
        return self.call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def click(self, x, y):
        self.call("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": "viewport",
                         "x": int(round(x)), "y": int(round(y))},
                        {"type": "pointerDown", "button": 0},
                        {"type": "pointerUp", "button": 0}]}]})

    def screenshot(self, path):
        """Writes what the browser shows now to path, as PNG."""
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", "/screenshot")))

    def close(self):
        try:
            if self.sid:
                self.call("DELETE", "")
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.kill_leftovers()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)

    def kill_leftovers(self):
        """Any browser process still using our private profile, by PID."""
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if self.profile.encode() in cmd:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass


def wait_ready(d, timeout=120):
    t = time.time()
    while time.time() - t < timeout:
        if d.js("return !!(window.pangaeaGraph && window.pangaeaGraph.ready)"):
            return time.time() - t
        time.sleep(0.05)
    raise RuntimeError("the page never became ready")


FULL_FRAME = """
const g = window.pangaeaGraph, out = {};
for (const m of ["logical", "real"]) { g.setMode(m); g.fit(); out[m] = g.frame(); }
return out;"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--shot")
    ap.add_argument("--mode", default="real")
    ap.add_argument("--zoom", type=float, default=1)
    ap.add_argument("--scale", type=float, help="pixels per unit (us or step)")
    ap.add_argument("--click", nargs=2, type=int)
    ap.add_argument("--click-line", nargs=2, type=int)
    ap.add_argument("--size", default="1400x900")
    a = ap.parse_args()
    size = tuple(int(v) for v in a.size.split("x"))
    d = Driver(size)
    try:
        t0 = time.time()
        d.call("POST", "/url", {"url": "file://" + os.path.abspath(a.page)})
        out = {"navigate_s": time.time() - t0}
        out["wait_s"] = wait_ready(d)
        g = d.js("const g = window.pangaeaGraph, o = {};"
                 "for (const k in g) if (typeof g[k] !== 'function') o[k] = g[k];"
                 "return o;")
        out["graph"] = g
        out["resources"] = d.js("return performance.getEntriesByType('resource').length")
        out["full"] = d.js(FULL_FRAME)
        out["redraw_ms"] = d.js("return window.pangaeaGraph.redraw()")
        d.js("const g = window.pangaeaGraph; g.setMode(arguments[0]); g.fit();"
             "if (arguments[1] !== 1) g.zoom(arguments[1]);"
             "if (arguments[2]) g.setScale(arguments[2]);", a.mode, a.zoom, a.scale)
        if a.click:
            pos = d.js("return window.pangaeaGraph.locate(arguments[0], arguments[1])",
                       a.click[0], a.click[1])
            out["click_at"] = pos
            if pos:
                d.click(pos["x"], pos["y"])
            out["selected"] = d.js("return window.pangaeaGraph.selected()")
            out["details"] = d.js(
                "const o = {}; for (const td of document.querySelectorAll('#details [data-f]'))"
                " o[td.dataset.f] = td.textContent; return o;")
            out["details_text"] = d.js("return document.getElementById('details').innerText")
        if a.click_line:
            # The middle of the line from this send to its first receive.
            g = "window.pangaeaGraph"
            d.js(g + ".locate(arguments[0], arguments[1])", *a.click_line)
            p = d.js("return " + g + ".partners(arguments[0], arguments[1])", *a.click_line)
            if p:
                s = d.js("return " + g + ".where(arguments[0], arguments[1])", *a.click_line)
                r = d.js("return " + g + ".where(arguments[0], arguments[1])", p[0]["ltid"], p[0]["seq"])
                d.click((s["x"] + r["x"]) / 2, (s["y"] + r["y"]) / 2)
                out["line_selected"] = d.js("return " + g + ".selected()")
                out["line_details"] = d.js(
                    "const o = {}; for (const td of document.querySelectorAll('#details [data-f]'))"
                    " o[td.dataset.f] = td.textContent; return o;")
        if a.shot:
            d.screenshot(a.shot)
        print(json.dumps(out))
    finally:
        d.close()


if __name__ == "__main__":
    sys.exit(main())
