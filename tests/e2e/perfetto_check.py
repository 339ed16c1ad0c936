#!/usr/bin/env python3
"""perfetto_check.py - what a `pangaea -export perfetto` trace holds, read
with `protoc --decode_raw` (the wire format without the schema), set
against what the logs hold (read through `pangaea -dump` and `-races
-jsonl`, not through the exporter's loader).

    perfetto_check.py PANGAEA LOGDIR TRACE

Prints one JSON object: {"problems": [...], "tracks": N, "events": N,
"flows": N, "races": N, "bytes": N, "names": [...], "bytes_per_event": F,
"time_bytes": F} (names: the interned event names; time_bytes: the
average size of a packet's timestamp value, in bytes of its varint).  A problem is
any difference between the trace and the logs: a task without its track,
a track whose count of events, flows started or ended, race markers or
waits is not the logs', a flow id started or ended twice, a race marker
not at a receive of its track, a wait (a slice from a receive's call to
its return) that is not one of the receives' waits (waited=) of the logs,
an event whose time is not its log's, a packet with a clock snapshot and
anything trace_processor would not read beside it.

Times are read as trace_processor reads them: a packet's timestamp is on
its timestamp_clock_id (58), else on its sequence's default (59's 58),
else on BOOTTIME; a sequence-scoped clock (64-127) is defined by the
sequence's clock snapshot (packet field 6: clocks 1, each id 1, timestamp
2, is_incremental 3, unit_multiplier_ns 4) against BOOTTIME (6), and an
incremental one counts each timestamp from the sequence's last on it.

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


BOOTTIME = 6
SNAPSHOT_BESIDE = {10, 13, 59, 12}  # what trace_processor reads beside a snapshot


def clock_snapshot(snap, seq, clocks, problems):
    """A sequence's clock snapshot: its clocks against BOOTTIME."""
    got = {}
    for c in get(snap, 1):
        got[int(one(c, 1))] = (int(one(c, 2) or 0), int(one(c, 3) or 0),
                               int(one(c, 4) or 1))
    boot = got.pop(BOOTTIME, None)
    if boot is None:
        problems.append("sequence %d: a clock snapshot without BOOTTIME" % seq)
        return
    for cid, (ts, incr, unit) in got.items():
        if not 64 <= cid < 128:
            problems.append("sequence %d: clock %d is not its own" % (seq, cid))
        # [ns of this clock at the snapshot, BOOTTIME's, last ns, incr, unit]
        clocks[(seq, cid)] = [ts * unit, boot[0], ts * unit, incr, unit]


def packet_ns(p, seq, default_clock, clocks, problems, tsize):
    """The packet's time in trace time (BOOTTIME nanoseconds), or None."""
    ts = one(p, 8)
    if ts is None:
        return None
    ts = int(ts)
    tsize[0] += 1
    tsize[1] += max(1, (ts.bit_length() + 6) // 7)
    cid = int(one(p, 58) or default_clock.get(seq) or BOOTTIME)
    if cid == BOOTTIME:
        return ts
    c = clocks.get((seq, cid))
    if c is None:
        problems.append("sequence %d: a time on clock %d, never defined" % (seq, cid))
        return ts
    c[2] = c[2] + ts * c[4] if c[3] else ts * c[4]
    return c[1] + (c[2] - c[0])


def from_trace(packets):
    tracks, seq_track, names = {}, {}, defaultdict(dict)
    per = defaultdict(Counter)
    starts, ends = Counter(), Counter()
    problems, last = [], {}
    begun, waits = {}, defaultdict(list)
    default_clock, clocks, times = {}, {}, defaultdict(list)
    tsize = [0, 0]
    for p in packets:
        seq = int(one(p, 10) or 0)
        td = one(p, 60)
        if td is not None:
            tracks[int(one(td, 1))] = unquote(one(td, 2))
        d = one(p, 59)
        if d is not None:
            seq_track[seq] = int(one(one(d, 11), 11))
            if one(d, 58) is not None:
                default_clock[seq] = int(one(d, 58))
        snap = one(p, 6)
        if snap is not None:
            beside = {k for k, _ in p} - SNAPSHOT_BESIDE - {6}
            if beside:
                problems.append("sequence %d: fields %s beside a clock snapshot"
                                % (seq, sorted(beside)))
            clock_snapshot(snap, seq, clocks, problems)
            continue
        ns = packet_ns(p, seq, default_clock, clocks, problems, tsize)
        for interned in get(p, 12):
            if isinstance(interned, list):
                for en in get(interned, 2):
                    names[seq][int(one(en, 1))] = unquote(one(en, 2))
        te = one(p, 11)
        if te is None:
            continue
        track = seq_track.get(seq)
        ts = ns
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
        times[track].append(ts // 1000 if ts is not None else None)
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
    return (tracks, per, flows, problems, allnames, waits, times,
            tsize[1] / max(tsize[0], 1))


def from_logs(pangaea, logdir):
    xml = subprocess.run([pangaea, "-dump", logdir], capture_output=True,
                         text=True, check=True).stdout
    # -dump prints one document per log; split them
    docs = [d for d in re.split(r"(?=<\?xml )", xml) if d.strip()]
    sent, want, waited = {}, defaultdict(Counter), defaultdict(list)
    recvs, recv_seqs, when = [], set(), defaultdict(list)
    for d in docs:
        root = ET.fromstring(d)
        ltid = int(root.find("header").get("ltid"))
        want[ltid]["events"] += 0
        for ev in root:
            if ev.tag in ("send", "recv"):
                when[ltid].append(ev.get("t"))
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
    return want, waited, log_us(when)


def log_us(when):
    """Each task's send and receive times: microseconds since the whole
    second before the first (the export's 0)."""
    def us(t):
        s, _, f = t.partition(".")
        return int(s) * 10**6 + int((f + "000000")[:6])
    alls = [us(t) for ts in when.values() for t in ts]
    t0 = min(alls) // 10**6 * 10**6 if alls else 0
    return {ltid: [us(t) - t0 for t in ts] for ltid, ts in when.items()}


def main():
    pangaea, logdir, trace = sys.argv[1:4]
    raw = subprocess.run(["protoc", "--decode_raw"], stdin=open(trace, "rb"),
                         capture_output=True, text=True, check=True).stdout
    packets = [p for f, p in parse_raw(raw) if f == 1]
    (tracks, per, flows, problems, names, waits, times,
     time_bytes) = from_trace(packets)
    want, waited, when = from_logs(pangaea, logdir)
    for ltid, w in sorted(want.items()):
        if ltid + 1 not in tracks:
            problems.append("ltid %d has no track" % ltid)
            continue
        off = [(i, a, b) for i, (a, b) in
               enumerate(zip(times.get(ltid + 1, []), when.get(ltid, [])))
               if a != b]
        if off:
            problems.append("ltid %d: %d events not at their logged times, "
                            "the first its event %d: %s us in the trace, %s "
                            "in the log" % ((ltid, len(off)) + off[0]))
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
                      "bytes_per_event": round(size / max(events, 1), 1),
                      "time_bytes": round(time_bytes, 2)}))


if __name__ == "__main__":
    main()
