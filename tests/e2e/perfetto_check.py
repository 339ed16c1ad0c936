#!/usr/bin/env python3
"""perfetto_check.py - what a `pangaea -export perfetto` trace holds, read
with `protoc --decode_raw` (the wire format without the schema), set
against what the logs hold (read through `pangaea -dump` and `-races
-jsonl`, not through the exporter's loader).

    perfetto_check.py PANGAEA LOGDIR TRACE

Prints one JSON object: {"problems": [...], "tracks": N, "events": N,
"flows": N, "races": N, "bytes": N, "names": [...], "bytes_per_event": F}
(names: the interned event names).  A problem is
any difference between the trace and the logs: a task without its track,
a track whose count of events, flows started or ended, race markers or
waits is not the logs', a flow id started or ended twice, a race marker
not at a receive of its track, a wait (a slice from a receive's call to
its return) that is not one of the receives' waits (waited=) of the logs.

Field numbers are Perfetto's (src/cli/view/perfetto.c lists them):
packet 1; in a packet timestamp 8, sequence id 10, track_event 11,
interned_data 12, trace_packet_defaults 59 (track_event_defaults 11,
track_uuid 11), track_descriptor 60 (uuid 1, name 2); in a track event
type 9 (1 slice begin, 2 slice end, 3 instant), name_iid 10, flow_ids 47, terminating_flow_ids 48; an interned
event name 2 (iid 1, name 2).
"""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict


def parse_raw(text):
    """protoc --decode_raw's text as nested lists of (field, value)."""
    root, stack = [], []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            cur = stack.pop()
        elif line.endswith("{"):
            node = []
            cur.append((int(line.split()[0]), node))
            stack.append(cur)
            cur = node
        else:
            f, v = line.split(": ", 1)
            cur.append((int(f), v))
    return root


def get(node, f):
    return [v for k, v in node if k == f]


def one(node, f):
    vs = get(node, f)
    return vs[0] if vs else None


def unquote(v):
    return v[1:-1] if isinstance(v, str) and v.startswith('"') else None


def from_trace(packets):
    tracks, seq_track, names = {}, {}, defaultdict(dict)
    per = defaultdict(Counter)
    starts, ends = Counter(), Counter()
    problems, last = [], {}
    begun, waits = {}, defaultdict(list)
    for p in packets:
        seq = int(one(p, 10) or 0)
        td = one(p, 60)
        if td is not None:
            tracks[int(one(td, 1))] = unquote(one(td, 2))
        d = one(p, 59)
        if d is not None:
            seq_track[seq] = int(one(one(d, 11), 11))
        for interned in get(p, 12):
            if isinstance(interned, list):
                for en in get(interned, 2):
                    names[seq][int(one(en, 1))] = unquote(one(en, 2))
        te = one(p, 11)
        if te is None:
            continue
        track = seq_track.get(seq)
        ts = one(p, 8)
        kind = int(one(te, 9) or 0)
        if kind == 1:
            begun[seq] = (int(ts), names[seq].get(int(one(te, 10))))
            continue
        if kind == 2:
            b = begun.pop(seq, None)
            if not b or not re.match(r"pvm_\w*recv", b[1] or ""):
                problems.append("a wait ends at %s of track %s without its receive's begin" % (ts, track))
            else:
                per[track]["waits"] += 1
                waits[track].append((int(ts) - b[0]) // 1000)
            continue
        name = names[seq].get(int(one(te, 10) or 0))
        if name and name.startswith("race: "):
            per[track]["races"] += 1
            prev = last.get(seq)
            if not prev or prev[0] != ts or not re.match(r"pvm_\w*(recv|probe)", prev[1] or ""):
                problems.append("race marker at %s of track %s follows %s" % (ts, track, prev))
            continue
        per[track]["events"] += 1
        last[seq] = (ts, name)
        for fid in get(te, 47):
            starts[fid] += 1
            per[track]["flows_out"] += 1
        for fid in get(te, 48):
            ends[fid] += 1
            per[track]["flows_in"] += 1
    for fid, n in list(starts.items()) + list(ends.items()):
        if n != 1:
            problems.append("flow %s started or ended %d times" % (fid, n))
    flows = len(set(starts) & set(ends))
    if flows != len(ends):
        problems.append("%d flows end where none started" % (len(ends) - flows))
    allnames = sorted({n for d in names.values() for n in d.values() if n})
    return tracks, per, flows, problems, allnames, waits


def from_logs(pangaea, logdir):
    xml = subprocess.run([pangaea, "-dump", logdir], capture_output=True,
                         text=True, check=True).stdout
    # -dump prints one document per log; split them
    docs = [d for d in re.split(r"(?=<\?xml )", xml) if d.strip()]
    sent, want, waited = {}, defaultdict(Counter), defaultdict(list)
    recvs, recv_seqs = [], set()
    for d in docs:
        root = ET.fromstring(d)
        ltid = int(root.find("header").get("ltid"))
        want[ltid]["events"] += 0
        for ev in root:
            if ev.tag == "send":
                want[ltid]["events"] += 1
                sent[(ltid, ev.get("msgid"))] = [int(t.get("ltid")) for t in ev.findall("to")]
            elif ev.tag == "recv":
                want[ltid]["events"] += 1
                if ev.get("waited"):
                    want[ltid]["waits"] += 1
                    waited[ltid].append(int(ev.get("waited")))
                recvs.append((ltid, int(ev.get("from")), ev.get("msgid")))
                recv_seqs.add((ltid, int(ev.get("seq"))))
    for ltid, frm, msgid in recvs:
        if ltid in sent.get((frm, msgid), []):
            want[ltid]["flows_in"] += 1
            want[frm]["flows_out"] += 1
    out = subprocess.run([pangaea, "-races", "-jsonl", logdir],
                         capture_output=True, text=True)
    for line in out.stdout.splitlines():
        r = json.loads(line)  # a race at a failed poll is no <recv>
        if (r.get("ltid"), r.get("seq")) in recv_seqs:
            want[r["ltid"]]["races"] += 1
    return want, waited


def main():
    pangaea, logdir, trace = sys.argv[1:4]
    raw = subprocess.run(["protoc", "--decode_raw"], stdin=open(trace, "rb"),
                         capture_output=True, text=True, check=True).stdout
    packets = [p for f, p in parse_raw(raw) if f == 1]
    tracks, per, flows, problems, names, waits = from_trace(packets)
    want, waited = from_logs(pangaea, logdir)
    for ltid, w in sorted(want.items()):
        if ltid + 1 not in tracks:
            problems.append("ltid %d has no track" % ltid)
            continue
        if not (tracks[ltid + 1] or "").startswith("ltid %d: " % ltid):
            problems.append("track %d is named %r" % (ltid + 1, tracks[ltid + 1]))
        got = waits.get(ltid + 1, [])
        if len(got) == len(waited[ltid]) and any(
                abs(a - b) > 1 for a, b in zip(got, waited[ltid])):
            problems.append("ltid %d: waits of %s us in the trace, %s in the logs"
                            % (ltid, got, waited[ltid]))
        for k in ("events", "flows_out", "flows_in", "races", "waits"):
            if per[ltid + 1][k] != w[k]:
                problems.append("ltid %d: %d %s in the trace, %d in the logs"
                                % (ltid, per[ltid + 1][k], k, w[k]))
    if len(tracks) != len(want):
        problems.append("%d tracks for %d tasks" % (len(tracks), len(want)))
    events = sum(w["events"] for w in want.values())
    size = len(open(trace, "rb").read())
    print(json.dumps({"problems": problems, "tracks": len(tracks),
                      "events": events, "flows": flows,
                      "races": sum(p["races"] for p in per.values()),
                      "waits": sum(p["waits"] for p in per.values()),
                      "bytes": size, "names": names,
                      "bytes_per_event": round(size / max(events, 1), 1)}))


if __name__ == "__main__":
    main()
