#!/usr/bin/env python3
"""filter_check.py - what the filters of the event-graph pages must find
in a recording, counted apart from the pages: from `pangaea -dump`.

    filter_check.py PANGAEA LOGDIR

Prints one JSON object.  Per kind of count, "msg" counts the events
-display draws (<send>, <recv>) and "all" those -live shows (every event
but <site> and <poll>).
  total      all events
  site       the call site (FILE:LINE, from the dump's comment naming each
             <site>) with the most message events, from two tasks or more
  at_site    events at that site; in_file: events at any site of FILE
  ltid       a task that is not the first (ltid 1) and its events (per_ltid)
  between    events between each task's first and second <barrier>
"""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

pangaea, logdir = sys.argv[1], sys.argv[2]
ltids = sorted(int(m.group(1)) for f in os.listdir(logdir)
               for m in [re.match(r"ltid-(\d+)\.comm\.pgc$", f)] if m)
MSG = ("send", "recv")
tot = {"msg": 0, "all": 0}
per_ltid, sites, between = {}, {}, {"msg": 0, "all": 0}


def bump(d, ev):
    d["all"] += 1
    d["msg"] += ev.tag in MSG


for l in ltids:
    xml = subprocess.run([pangaea, "-dump", logdir, str(l)], capture_output=True,
                         text=True, check=True).stdout
    names = dict(re.findall(r"<!-- site (\d+): (\S+) -->", xml))
    root = ET.fromstring(xml.encode())
    per_ltid[l] = {"msg": 0, "all": 0}
    nbar = 0
    for ev in root:
        if ev.tag in ("header", "site", "poll"):
            continue
        bump(tot, ev)
        bump(per_ltid[l], ev)
        s = ev.get("site")
        if s and s != "0" and s in names:
            d = sites.setdefault(names[s], {"msg": 0, "all": 0, "tasks": set()})
            bump(d, ev)
            if ev.tag in MSG:
                d["tasks"].add(l)
        if ev.tag == "barrier":
            nbar += 1
        elif nbar == 1:
            bump(between, ev)

best = max((k for k in sites if len(sites[k]["tasks"]) >= 2 and ":" in k),
           key=lambda k: (sites[k]["msg"], k))
f, line = best.rsplit(":", 1)
in_file = {"msg": 0, "all": 0}
for k, d in sites.items():
    if k.rsplit(":", 1)[0] == f:
        in_file["msg"] += d["msg"]
        in_file["all"] += d["all"]
other = [l for l in ltids if l != 1 and per_ltid[l]["msg"] > 0][0]
print(json.dumps({"total": tot, "file": f, "line": line, "at_site":
                  {k: sites[best][k] for k in ("msg", "all")}, "in_file": in_file,
                  "ltid": other, "per_ltid": per_ltid[other], "between": between}))
