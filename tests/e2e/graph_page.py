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
Under the e2e tests (lib.sh sets PG_BROWSER_DIR) the checks of one test
share one Chromium, each on the tab emptied for it (Driver says how), and
under run_all.sh (PG_BROWSER_POOL) the checks of every test share a few;
`graph_page.py --stop-browser DIR` ends such a browser (lib.sh's and
run_all.sh's clean-up).
"""
import argparse
import base64
import fcntl
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
POOL_SLOTS = 3  # the run's browsers (Driver.pool_slot): about as many as tests run pages at once
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    """A WebDriver session on a page of its own (one check's browser).

    With PG_BROWSER_DIR set (lib.sh sets it, under the test's temp base),
    every check of one test shares one Chromium: the first Driver starts
    chromedriver and its session and notes them in that dir; each Driver
    then drives its one tab (a new tab would not have the focus that typing
    and the pages' keys want), left on an empty page when it ends; lib.sh's
    clean-up ends the browser (stop_shared).  A Chromium costs about two
    CPU seconds to start, a page a fraction of that, and a test's checks
    are many.  A lock in that dir lets one check at a time drive the browser.
    Without PG_BROWSER_DIR, a Driver starts and ends a Chromium of its own.
    """

    def __init__(self, size, pool=True):
        """pool=False: not a browser of the run's pool, whose renderer may
        still hold other tests' pages (a check that weighs the page's
        heap must not count them)."""
        self.sid = None
        self.lock = None
        self.shared = (pool and self.pool_slot()) or os.environ.get("PG_BROWSER_DIR")
        if self.shared:
            self.attach(size)
        else:
            self.profile = tempfile.mkdtemp(prefix="pangaea-chromium.")
            self.launch(self.profile, size)

    def launch(self, profile, size):
        """chromedriver on a free port, and its Chromium.  A shared one in
        a session of its own (a timeout that ends one check's process group
        leaves it); a private one in ours (such a timeout ends it too)."""
        self.port = free_port()
        self.proc = subprocess.Popen(
            [DRIVER, "--port=%d" % self.port, "--allowed-ips=127.0.0.1",
             "--log-path=" + os.path.join(profile, "driver.log")],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=bool(self.shared))
        self.base = "http://127.0.0.1:%d" % self.port
        self.sid = None
        self.wait_driver()
        args = ["--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--disable-extensions", "--window-size=%d,%d" % size,
                "--user-data-dir=" + os.path.join(profile, "profile")]
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def pool_slot(self):
        """A free browser of the run's pool, its lock taken: run_all.sh
        names a dir in PG_BROWSER_POOL whose POOL_SLOTS browsers every
        test's checks share (started by the first check that takes each
        slot, ended by run_all.sh), so that a run starts a few Chromiums,
        not one a test.  None when there is no pool or every slot is busy:
        the check then takes the test's own browser (PG_BROWSER_DIR), as
        without a pool, rather than wait for another test's check."""
        pool = os.environ.get("PG_BROWSER_POOL")
        for i in range(POOL_SLOTS if pool else 0):
            d = os.path.join(pool, str(i))
            os.makedirs(d, exist_ok=True)
            f = open(os.path.join(d, "lock"), "w")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                continue
            self.lock = f
            return d
        return None

    def attach(self, size):
        """The test's shared browser (started now if it has none or the one
        it had died), its tab emptied and sized; any other window (a page
        may open one) is closed, so no page of an earlier check runs on."""
        os.makedirs(self.shared, exist_ok=True)
        if not self.lock:  # the test's own browser (a pool slot is locked)
            self.lock = open(os.path.join(self.shared, "lock"), "w")
            fcntl.flock(self.lock, fcntl.LOCK_EX)
        state_file = os.path.join(self.shared, "state.json")
        st = None
        try:
            with open(state_file) as f:
                st = json.load(f)
            self.base, self.sid, self.main = st["base"], st["sid"], st["main"]
            handles = self.call("GET", "/window/handles", timeout=30)
        except (OSError, ValueError, KeyError, RuntimeError):
            kill_dir(self.shared, st.get("pid") if isinstance(st, dict) else None)
            self.launch(self.shared, size)
            self.main = self.call("GET", "/window")
            st = {"base": self.base, "sid": self.sid, "main": self.main,
                  "pid": self.proc.pid}
            with open(state_file + ".new", "w") as f:
                json.dump(st, f)
            os.rename(state_file + ".new", state_file)
            handles = [self.main]
        for h in handles:
            if h != self.main:
                self.call("POST", "/window", {"handle": h})
                self.call("DELETE", "/window")
        self.call("POST", "/window", {"handle": self.main})
        self.blank()
        self.call("POST", "/window/rect", {"width": size[0], "height": size[1]})

    def blank(self):
        """The shared tab back on an empty page: the last check's page (its
        timers and requests with it) is gone, and a dialog it left open is
        dismissed first."""
        try:
            self.call("POST", "/alert/dismiss", timeout=30)
        except RuntimeError:
            pass
        self.call("POST", "/url", {"url": "about:blank"}, timeout=60)

    def wait_driver(self):
        for _ in range(300):
            try:
                if self.call("GET", "/status", sid=False).get("ready"):
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def call(self, method, path, body=None, sid=True, timeout=120):
        url = self.base + (("/session/" + self.sid) if sid and self.sid else "") + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
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
        if self.shared:
            self.close_tab()
            return
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
        kill_dir(self.profile)
        shutil.rmtree(self.profile, ignore_errors=True)

    def close_tab(self):
        """Keys and buttons held released (the input state is the
        session's) and the tab emptied; the browser left to the next check."""
        try:
            self.call("DELETE", "/actions", timeout=30)
            self.blank()
        except Exception:
            pass
        self.lock.close()


def kill_dir(d, session=None):
    """Kills, by PID, every process naming dir d on its command line (the
    browser's and chromedriver's, through their profile and log paths) or,
    given the PID of a shared chromedriver, in the session it leads (its
    Chromium's helpers, whatever their command lines), and waits until they
    are gone, so that d can be removed."""
    mark = (d.rstrip("/") + "/").encode()
    if session:
        # Linux hands out no PID still in use as a session's id: while
        # its leader is gone, session members are our Chromium's; a live
        # leader must be our chromedriver.
        try:
            with open("/proc/%d/cmdline" % session, "rb") as f:
                if mark not in f.read():
                    session = None
        except OSError:
            pass
    pids = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
            with open("/proc/%s/stat" % pid) as f:
                sid = int(f.read().rsplit(")", 1)[1].split()[3])
        except (OSError, IndexError, ValueError):
            continue
        if mark in cmd or (session and sid == session):
            try:
                os.kill(int(pid), signal.SIGKILL)
                pids.append(pid)
            except OSError:
                pass
    t = time.time()
    while pids and time.time() - t < 10:
        pids = [p for p in pids if alive(p)]
        time.sleep(0.05)


def alive(pid):
    """True while process pid exists and is not a zombie."""
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def stop_shared(d):
    """Ends the shared browser of dir d (see Driver): its session politely,
    then chromedriver and anything left of Chromium, by PID."""
    st = None
    try:
        with open(os.path.join(d, "state.json")) as f:
            st = json.load(f)
        req = urllib.request.Request(st["base"] + "/session/" + st["sid"], method="DELETE")
        urllib.request.urlopen(req, timeout=30).read()
    except (OSError, ValueError, KeyError):
        pass
    kill_dir(d, st.get("pid") if isinstance(st, dict) else None)


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
    if sys.argv[1:2] == ["--stop-browser"]:
        return stop_shared(sys.argv[2])
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
