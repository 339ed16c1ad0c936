#!/usr/bin/env python3
"""control_page.py - drives the control panel of `pangaea -live` in
headless Chromium, with real clicks and typing (WebDriver
element commands), as a user would.

    control_page.py URL step N          clicks "Step all" N times
    control_page.py URL break TAG       adds a breakpoint on TAG, resumes
    control_page.py URL choose          clicks an alternative of a receive
    control_page.py URL runto E         types E in ltid 1's "Run to" box,
                                        clicks "Run to" after 3 refreshes
    control_page.py URL site --site S   adds a breakpoint at call site S
    control_page.py URL tabs            two tabs' "Step all" from one view
    control_page.py URL table [--ready F]  the panel's task table as shown
    [--shot OUT.png]                    a screenshot at the end

Prints one JSON object.  step: the holds of every task before and after
each click (each click waits until every task is held again), and the
graph's view (real or logical) while they are held and after a click on
"Real time" and three more polls ("view").  break:
the breakpoint list as shown, and the panel's task table once a task is
held by the breakpoint (per row: ltid, state, "about to call", why).
choose: the receive and the message clicked (the first one offered that
the receive did not take), what the panel said once the server answered
the choice ("said"), and, replaying, the what-if line the panel
shows once that run is over (its state and directory) and its output.
site: the breakpoint list as shown.
table: the task table as shown ("table", as step's); with --ready F,
"before" it as shown with ltid 1 held, F made then (the test kills the
task), and "table" once the panel shows it crashed.
tabs: two tabs on the page while the master is held at hold h, the
second's view kept at h (its polls never answered); the first clicks
"Step all", and once the master is held again, the second does:
"held_at" h, "a" and "b" what each tab posted and was answered,
"b_view" the master's [holds, held] as the second tab showed it, "after"
the master's [holds, held] three polls later.
runto: what the box holds after the refreshes ("kept") and what the
panel said once the click was answered ("said").
The panel is read through what it shows and window.pangaeaControl.

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

ELEMENT = "element-6066-11e4-a52f-4a5b4d5e4f52"

TABLE = """
const rows = [];
for (const tr of document.querySelectorAll('#c-tasks tbody tr'))
  rows.push({ltid: +tr.dataset.ltid, state: tr.dataset.state,
             call: tr.cells[2].textContent, why: tr.cells[4].textContent,
             gdb: tr.cells[5].textContent});
return rows;
"""


def find(d, css):
    e = d.call("POST", "/element", {"using": "css selector", "value": css})
    return e.get(ELEMENT) or e.get("ELEMENT") or list(e.values())[0]


def click(d, css):
    d.call("POST", "/element/%s/click" % find(d, css), {})


def type_in(d, css, text):
    d.call("POST", "/element/%s/value" % find(d, css), {"text": text})


def wait(d, script, timeout=60, *args):
    t = time.time()
    while time.time() - t < timeout:
        v = d.js(script, *args)
        if v:
            return v
        time.sleep(0.1)
    raise RuntimeError("timed out waiting for: " + script)


def holds(d):
    return d.js("const c = window.pangaeaControl.data();"
                "return c.tasks.map((t) => [t.ltid, t.holds, !!t.held]);")


def ready(d, n_held):
    wait(d, "const c = window.pangaeaControl;"
            "return c && c.polls() > 0 && c.held().length >= arguments[0];",
         60, n_held)


def step(d, n):
    ready(d, 3)
    seen = [holds(d)]
    for _ in range(n):
        want = {l: h + 1 for l, h, _ in seen[-1]}
        click(d, "#c-step")
        wait(d, "const c = window.pangaeaControl.data(), w = arguments[0];"
                "return c.tasks.every((t) => t.held && t.holds >= w[t.ltid]);",
             60, want)
        seen.append(holds(d))
    # Tasks held: the graph shows logical order, until the user picks one.
    mode = "return window.pangaeaLive.mode ? window.pangaeaLive.mode() : 'none'"
    try:
        wait(d, "return (%s)() === 'logical'" % ("() => { %s; }" % mode), 10)
    except RuntimeError:
        pass
    view = {"held": d.js(mode)}
    click(d, "#real")
    polls = d.js("return window.pangaeaLive.polls()")
    wait(d, "return window.pangaeaLive.polls() >= arguments[0] + 3", 60, polls)
    view["chosen"] = d.js(mode)
    return {"holds": seen, "table": d.js(TABLE), "view": view}


def brk(d, tag):
    ready(d, 3)
    type_in(d, "#bp-tag", str(tag))
    click(d, "#bp-add")
    wait(d, "return document.querySelectorAll('#c-bps li').length > 0;")
    listed = d.js("return [...document.querySelectorAll('#c-bps li')]"
                  ".map((li) => li.firstChild.textContent);")
    click(d, "#c-resume")
    wait(d, "return [...document.querySelectorAll('#c-tasks tbody tr')]"
            ".some((tr) => tr.cells[4].textContent.startsWith('breakpoint'));")
    return {"breakpoints": listed, "table": d.js(TABLE)}


def choose(d):
    ready(d, 1)
    wait(d, "return document.querySelectorAll('#c-alts button.alt').length > 0;")
    pick = d.js("""
const r = window.pangaeaControl.offers()[0];
const not = r.took ? r.took.ltid : r.alternatives[0].ltid; // a recording: not the queue's first
const a = r.alternatives.find((a) => a.ltid !== not);
return {ltid: r.ltid, event: r.event, took: r.took, sender: a.ltid, msgid: a.msgid,
        drawn: window.pangaeaControl.offers().length};
""")
    d.js("document.getElementById('c-say').textContent = '';")
    click(d, '#c-alts div[data-ltid="%d"][data-event="%d"] button[data-sender="%d"][data-msgid="%d"]'
          % (pick["ltid"], pick["event"], pick["sender"], pick["msgid"]))
    # The button posts the choice from the page, after the click has
    # returned: until the server has answered it, emptying the tab as
    # this script ends could cancel the request (a loaded machine lost
    # the choice so, and the receive was never released).
    said = wait(d, "const s = document.getElementById('c-say').textContent;"
                   "return s.startsWith('choose') ? s : null;")
    out = {"picked": pick, "said": said}
    if pick["took"] is not None:  # a replay: a what-if run
        wait(d, "const w = document.querySelector('#c-whatifs .whatif');"
                "return w && w.dataset.state !== 'running';", 120)
        out["whatif"] = d.js("""
const w = document.querySelector('#c-whatifs .whatif'), p = w.querySelector('pre');
return {state: w.dataset.state, dir: w.dataset.dir, line: w.firstChild.textContent,
        output: p ? p.textContent : ''};
""")
    return out


def runto(d, event):
    ready(d, 1)
    row = '#c-tasks tbody tr[data-ltid="1"]'
    type_in(d, row + " input.runto", str(event))
    p0 = d.js("return window.pangaeaControl.polls();")
    wait(d, "return window.pangaeaControl.polls() >= arguments[0];", 60, p0 + 3)
    kept = d.js("return document.querySelector(arguments[0]).value;", row + " input.runto")
    d.js("document.getElementById('c-say').textContent = '';")
    click(d, row + " td:last-child button:last-child")
    said = wait(d, "const s = document.getElementById('c-say').textContent;"
                   "return s.startsWith('runto') ? s : null;")
    return {"kept": kept, "said": said}


def site(d, where):
    ready(d, 1)
    type_in(d, "#bp-site", where)
    click(d, "#bp-add")
    wait(d, "return document.querySelectorAll('#c-bps li').length > 0;")
    return {"breakpoints": d.js("return [...document.querySelectorAll('#c-bps li')]"
                                ".map((li) => li.firstChild.textContent);")}


# A tab's fetch, wrapped: what it posts and the answers, kept in
# window.__posts; with arguments[0], its control panel's view frozen (its
# polls of /control.json never answered, as a tab whose view is out of
# date: the panel it shows stays as it was).
WRAP = """
const f = window.fetch, freeze = arguments[0];
window.__posts = [];
window.fetch = (u, o) => {
  if (freeze && String(u).includes("/control.json")) return new Promise(() => {});
  const p = f(u, o);
  if (o && o.method === "POST")
    p.then((r) => r.clone().text()).then((t) => window.__posts.push([String(o.body), t]));
  return p;
};"""


def master(d):
    return d.js("const t = window.pangaeaControl.data().tasks.find((t) => t.ltid === 1);"
                "return t ? [t.holds, !!t.held] : null;")


def table(d, ready):
    """The panel's task table once it has polled twice (per row: ltid,
    state, the call it is about to make, why held, the gdb line); with
    ready, first shown with ltid 1 held ("before"), then the file ready
    made (the test then kills it), and the table once the panel says
    ltid 1 crashed: the same rows updated in place."""
    wait(d, "const c = window.pangaeaControl; return c && c.polls() >= 2;")
    out = {}
    if ready:
        wait(d, "return window.pangaeaControl.held().includes(1);")
        out["before"] = d.js(TABLE)
        open(ready, "w").close()
        wait(d, "const tr = document.querySelector('#c-tasks tbody tr[data-ltid=\"1\"]');"
                "return tr && tr.dataset.state === 'crashed';", 60)
    out["table"] = d.js(TABLE)
    return out


def tabs(d, url):
    """Two tabs on the same held master: tab B's view frozen at hold h,
    tab A clicks "Step all" (the master steps and is held at h + 1), then
    tab B clicks "Step all" from its view of hold h, as a second tab or a
    second user would."""
    ready(d, 1)
    a = d.call("GET", "/window")
    b = d.call("POST", "/window/new", {"type": "tab"})["handle"]
    try:
        d.call("POST", "/window", {"handle": b})
        d.call("POST", "/url", {"url": url})
        ready(d, 1)
        d.js(WRAP, True)
        h = master(d)[0]
        d.call("POST", "/window", {"handle": a})
        d.js(WRAP, False)
        wait(d, "const t = window.pangaeaControl.data().tasks.find((t) => t.ltid === 1);"
                "return t && t.held && t.holds === arguments[0];", 60, h)
        click(d, "#c-step")
        pa = wait(d, "return window.__posts.length ? window.__posts[0] : null;")
        wait(d, "const t = window.pangaeaControl.data().tasks.find((t) => t.ltid === 1);"
                "return t && t.held && t.holds > arguments[0];", 60, h)
        d.call("POST", "/window", {"handle": b})
        b_view = master(d)
        click(d, "#c-step")
        pb = wait(d, "return window.__posts.length ? window.__posts[0] : null;")
        d.call("POST", "/window", {"handle": a})
        p0 = d.js("return window.pangaeaControl.polls();")
        wait(d, "return window.pangaeaControl.polls() >= arguments[0];", 60, p0 + 3)
        return {"held_at": h, "a": pa, "b_view": b_view, "b": pb, "after": master(d)}
    finally:
        d.call("POST", "/window", {"handle": b})
        d.call("DELETE", "/window")
        d.call("POST", "/window", {"handle": a})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("what", choices=["step", "break", "choose", "runto", "site", "tabs", "table"])
    ap.add_argument("arg", nargs="?", type=int, default=0)
    ap.add_argument("--shot")
    ap.add_argument("--site")
    ap.add_argument("--ready")
    a = ap.parse_args()
    if a.url == "-":
        a.url = sys.stdin.readline().strip()
    d = Driver((1400, 1000))
    try:
        d.call("POST", "/url", {"url": a.url})
        out = (step(d, a.arg) if a.what == "step" else
               brk(d, a.arg) if a.what == "break" else
               runto(d, a.arg) if a.what == "runto" else
               site(d, a.site) if a.what == "site" else
               tabs(d, a.url) if a.what == "tabs" else
               table(d, a.ready) if a.what == "table" else choose(d))
        if a.shot:
            d.screenshot(a.shot)
        print(json.dumps(out))
    finally:
        d.close()


if __name__ == "__main__":
    main()
