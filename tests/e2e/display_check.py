#!/usr/bin/env python3
"""display_check.py - what a recording holds, counted from its XML alone,
and a check of `pangaea -export perfetto` against it.

    display_check.py count DIR          prints JSON: ltids, row labels
                                        (host/program/ltid), sends, receives,
                                        matched messages, unmatched ones,
                                        each task's first send, the rows
                                        drawn (every ltid but Pangaea's 0
                                        when it has no message), barriers
                                        (per task; one per group and k-th
                                        call; those joining several tasks),
                                        spawns between rows, per ltid its
                                        sends and receives
    display_check.py perfetto DIR TRACE prints JSON: the problems found (none
                                        when every recorded message has
                                        exactly one flow from its send to
                                        its receive)

Design.  Independent of Pangaea's C code on purpose: the logs are parsed
with Python's ElementTree and messages joined here the way the log format
defines them (a receive's send is the send in the log of ltid `from` with
that msgid), so the display and the export are checked against a second
reading of the same files, not against themselves.
"""
import glob
import json
import os
import re
import sys
import subprocess
import xml.etree.ElementTree as ET

PANGAEA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "build", "pangaea")


def load(d, extra=None):
    sends, recvs, ltids = {}, [], set()
    first_send, labels = {}, {}
    extra = {} if extra is None else extra
    bars, spawns = extra.setdefault("barriers", []), extra.setdefault("spawns", [])
    for path in glob.glob(os.path.join(d, "ltid-*")):
        m = re.match(r"ltid-(\d+)\.(comm\.pgc|exec\.xml)$", os.path.basename(path))
        if not m:
            continue
        ltid = int(m.group(1))
        ltids.add(ltid)
        try:
            if m.group(2) == "comm.pgc":  # binary: read as pangaea -dump prints it
                text = subprocess.run([PANGAEA, "-dump", d, str(ltid)],
                                      capture_output=True).stdout
                root = ET.fromstring(text)
            else:
                root = ET.parse(path).getroot()
        except ET.ParseError:
            continue  # a truncated log: the C side keeps its events, we don't
        h = root.find("header")
        if h is not None:
            labels.setdefault(ltid, "%s/%s/%d" % (
                h.get("host"), h.get("program").rsplit("/", 1)[-1] or h.get("program"), ltid))
        if m.group(2) != "comm.pgc":
            spawns += [(ltid, int(c.get("ltid"))) for s in root.findall("spawn")
                       for c in s.findall("child")]
            continue
        for el in root:
            if el.tag == "send":
                to = [int(t.get("ltid")) for t in el.findall("to")]
                sends[(ltid, int(el.get("msgid")))] = {
                    "seq": int(el.get("seq")), "tag": int(el.get("tag")),
                    "to": to, "call": el.get("call")}
                first_send.setdefault(ltid, {"seq": int(el.get("seq")),
                                             "tag": int(el.get("tag")),
                                             "msgid": int(el.get("msgid")),
                                             "to": to})
            elif el.tag == "barrier":
                bars.append((ltid, el.get("group")))
            elif el.tag == "recv":
                recvs.append({"ltid": ltid, "seq": int(el.get("seq")),
                              "from": int(el.get("from")),
                              "msgid": int(el.get("msgid"))})
    return sorted(ltids), sends, recvs, first_send, [labels.get(l) for l in sorted(ltids)]


def count(d):
    extra = {}
    ltids, sends, recvs, first_send, labels = load(d, extra)
    busy = {s for s, _ in sends} | {r["ltid"] for r in recvs}
    rows = [l for l in ltids if l != 0 or l in busy]
    kth, insts = {}, {}
    for ltid, group in extra["barriers"]:  # in log order per task
        kth[(ltid, group)] = kth.get((ltid, group), 0) + 1
        k = (group, kth[(ltid, group)])
        insts[k] = insts.get(k, 0) + 1
    spawns = [p for p in extra["spawns"] if p[0] in rows and p[1] in rows]
    matched = [r for r in recvs if (r["from"], r["msgid"]) in sends]
    taken = {(r["from"], r["msgid"], r["ltid"]) for r in matched}
    lost = sum(1 for (s, mid), v in sends.items() for t in v["to"]
               if (s, mid, t) not in taken)
    unreceived = sum(1 for (s, mid), v in sends.items()
                     if not any((s, mid, t) in taken for t in v["to"]))
    per = {str(l): [0, 0] for l in ltids}  # per ltid: sends, receives
    for s, _ in sends:
        per[str(s)][0] += 1
    for r in recvs:
        per[str(r["ltid"])][1] += 1
    return {"ltids": ltids, "labels": labels, "sends": len(sends), "recvs": len(recvs),
            "per_ltid": per,
            "lines": len(matched), "unmatched_recvs": len(recvs) - len(matched),
            "unmatched_dests": lost, "unreceived_sends": unreceived,
            "mcasts": sum(1 for v in sends.values() if v["call"] == "pvm_mcast"),
            "bcasts": sum(1 for v in sends.values() if v["call"] == "pvm_bcast"),
            "first_send": {str(k): v for k, v in first_send.items()},
            "rows": rows, "row_labels": [labels[ltids.index(l)] for l in rows],
            "barriers": len(extra["barriers"]), "barrier_insts": len(insts),
            "barrier_joins": sum(1 for n in insts.values() if n > 1),
            "spawns": len(spawns)}


def perfetto(d, trace_path):
    ltids, sends, recvs, _, _ = load(d)
    with open(trace_path) as f:
        trace = json.load(f)
    ev = trace["traceEvents"]
    slices = {}
    for e in ev:
        if e.get("ph") == "X":
            slices[(e["pid"], e["tid"], e["ts"])] = e
    flows = {}
    for e in ev:
        if e.get("ph") in ("s", "f"):
            flows.setdefault(e["id"], []).append(e)
    problems, seen = [], {}
    for fid, pair in flows.items():
        kinds = sorted(p["ph"] for p in pair)
        if kinds != ["f", "s"]:
            problems.append("flow %s has %s" % (fid, kinds))
            continue
        s = next(p for p in pair if p["ph"] == "s")
        f = next(p for p in pair if p["ph"] == "f")
        ss = slices.get((s["pid"], s["tid"], s["ts"]))
        rs = slices.get((f["pid"], f["tid"], f["ts"]))
        if not ss or ss["cat"] != "send" or not rs or rs["cat"] != "recv":
            problems.append("flow %s does not join a send slice to a receive slice" % fid)
            continue
        if f.get("bp") != "e":
            problems.append("flow %s: its end does not bind to the receive's slice" % fid)
        key = (ss["args"]["ltid"], ss["args"]["msgid"], rs["args"]["ltid"], rs["args"]["seq"])
        if rs["args"]["from"] != ss["args"]["ltid"] or rs["args"]["msgid"] != ss["args"]["msgid"]:
            problems.append("flow %s joins %s" % (fid, key))
        seen[key] = seen.get(key, 0) + 1
    want = 0
    for r in recvs:
        if (r["from"], r["msgid"]) not in sends:
            continue
        want += 1
        n = seen.get((r["from"], r["msgid"], r["ltid"], r["seq"]), 0)
        if n != 1:
            problems.append("message %d/%d to ltid %d (seq %d) has %d flows" %
                            (r["from"], r["msgid"], r["ltid"], r["seq"], n))
    tracks = {e["pid"] for e in ev if e.get("ph") == "X"}
    return {"messages": want, "flows": len(flows), "slices": len(slices),
            "tracks": len(tracks), "problems": problems[:20],
            "nproblems": len(problems)}


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "count":
        print(json.dumps(count(sys.argv[2])))
    elif len(sys.argv) >= 4 and sys.argv[1] == "perfetto":
        print(json.dumps(perfetto(sys.argv[2], sys.argv[3])))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
