#!/usr/bin/env python3
"""comm_log_reader.py - a reader of format-4 to 8 communication logs written
from docs/comm-log-format.md alone (no code of Pangaea's), to show that
the page is enough, and to check it: tests/e2e/test_format_page.sh
compares what it reads with `pangaea -dump` of the same logs.

    comm_log_reader.py LOG            prints the events, one a line
    comm_log_reader.py LOG DUMP.xml   compares them with the task's
                                      document in DUMP.xml; exit 1 if any
                                      field differs

Plain Python, slow (a bitwise CRC): meant for small logs.
"""
import struct
import sys
import xml.etree.ElementTree as ET

MSG_CALLS = ["pvm_send", "pvm_mcast", "pvm_psend", "pvm_bcast", "pvm_recv",
             "pvm_nrecv", "pvm_trecv", "pvm_probe", "pvm_precv", "pvm_addmhf",
             "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Iprobe"]
QUERY_CALLS = ["pvm_pstat", "pvm_mstat", "pvm_gsize", "pvm_recvinfo",
               "pvm_tasks", "pvm_config", "pvm_kill", "pvm_putinfo",
               "pvm_delinfo", "pvm_getmboxinfo", "pvm_insert", "pvm_lookup",
               "pvm_delete", "not_replayed", "pvm_hostsync", "pvm_hosts",
               "pvm_archcode", "pvm_group_lookup", "pvm_freezegroup",
               "MPI_Wtime", "MPI_Wtick", "MPI_Send_done", "libc_time",
               "libc_gettimeofday", "libc_clock_gettime", "libc_getrusage",
               "MPI_Request_done"]
ESCAPE = 15  # a query code past 15: code 15, "NAME about" in the about
NOTICES = {1: "exit", 2: "hostdelete", 3: "hostadd"}
# the other kinds' fields (the page's table): z zigzag, v varint, s string
OTHER = {4: ("end", "z:status"), 5: ("gettid", "s:group z:inst z:ltid z:order"),
         6: ("notice", "z:tag v:what z:ltid v:bytes z:asked_from z:asked_tag z:matcher z:site"),
         7: ("query", "s:about z:value"), 8: ("leave", "s:group v:order"),
         9: ("site", "v:id s:module v:offset"),
         10: ("barrier", "s:group z:count z:site"), 11: ("route", "z:value z:site"),
         12: ("poll", "z:asked_from z:asked_tag z:matcher z:site")}


def call_of(calls, code, what):
    """The name of a call code; a code the page does not list ends the
    reading, naming it (a log of a newer Pangaea, or a damaged one)."""
    if code >= len(calls):
        raise SystemExit(f"an unknown {what} call code {code}")
    return calls[code]


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def unzig(u):
    return (u >> 1) ^ -(u & 1)


class Cur:
    def __init__(self, data, pos):
        self.d, self.p = data, pos

    def uv(self):
        v = shift = 0
        while True:
            b = self.d[self.p]
            self.p += 1
            v |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return v

    def zz(self):
        return unzig(self.uv())

    def s(self):
        n = self.uv()
        self.p += n
        return self.d[self.p - n:self.p].decode()


def read(path):
    d = open(path, "rb").read()
    if d[:4] != b"PGCL" or d[4] not in (4, 5, 6, 7, 8):
        raise SystemExit(f"{path}: not a format-4, 5, 6, 7 or 8 log")
    c = Cur(d, 5)
    ltid, program, host, select = c.uv(), c.s(), c.s(), c.s()
    recording = c.s() if d[4] >= 5 else ""  # noqa: F841 (format 5 only)
    if struct.unpack_from("<I", d, c.p)[0] != crc32c(d[:c.p]):
        raise SystemExit(f"{path}: header CRC")
    race_only = "race-only" in select.split()
    slots = [{"next": [0] * 16, "tag": 0, "bytes": 0, "af": 0, "at": 0, "m": 0,
              "ctx": 0} for _ in range(64)]
    st = {"prev": 0, "sent": 0, "from": {}, "us": 0, "seq": 0, "version": d[4]}
    events, pos, cut = [], c.p + 4, False
    while True:
        if len(d) - pos < 4:
            cut = True
            break
        length = struct.unpack_from("<I", d, pos)[0]
        end = pos + length - 1 if length else None
        if end is not None:
            if d[end] not in (0x0F, 0x1F) or \
               struct.unpack_from("<I", d, end + 1)[0] != crc32c(d[pos:pos + length]):
                raise SystemExit(f"{path}: corrupt block at byte offset {pos}")
        c = Cur(d, pos + 4)
        while (c.p < end) if end is not None else (c.p < len(d) and d[c.p]):
            events.append(event(c, slots, st, race_only))
        if end is None:
            cut = True
            break
        if d[end] == 0x1F:
            break
        pos = end + 5
    return ltid, events, cut


def event(c, slots, st, race_only):
    first = c.d[c.p]
    c.p += 1
    kind, code = first & 15, first >> 4
    u = c.uv()
    v5 = st["version"] >= 5
    st["us"] += unzig(u >> (2 if v5 else 1))
    ev = {"t": st["us"], "misses": c.uv() if u & 1 else 0}
    ev["waited"] = c.uv() if v5 and u & 2 else 0
    st["seq"] += (c.uv() if race_only else 0) + 1
    ev["seq"] = st["seq"]
    if kind in (1, 2, 13, 14):
        return message(c, slots, st, ev, kind, code)
    name, fields = OTHER[kind]
    ev["kind"] = name
    for f in fields.split():
        t, key = f.split(":")
        ev[key] = c.zz() if t == "z" else c.uv() if t == "v" else c.s()
    if name in ("notice", "poll"):
        ev["call"] = call_of(MSG_CALLS, code, "message")
    if name == "query":
        ev["call"] = call_of(QUERY_CALLS, code, "query")
        if code == ESCAPE and ev["about"].startswith(("pvm_", "MPI_", "libc_")):
            call, _, ev["about"] = ev["about"].partition(" ")
            if call not in QUERY_CALLS[ESCAPE + 1:]:
                raise SystemExit(f"an unknown query call {call}")
            ev["call"] = call
    if name == "notice":
        ev["what"] = NOTICES[ev["what"]]
    return ev


def message(c, slots, st, ev, kind, code):
    recv = kind in (2, 14)
    nxt = slots[st["prev"] % 64]["next"]
    if kind in (13, 14):
        site = c.uv()
        s = slots[site % 64]
        if recv:
            s["af"], s["at"], s["m"] = c.uv(), c.uv(), c.uv()
        if st["version"] >= 7:  # the note's context
            s["ctx"] = c.uv()
    else:
        site = nxt[code]
        s = slots[site % 64]
    ev.update(kind="recv" if recv else "send", call=call_of(MSG_CALLS, code, "message"),
              site=site, ctx=s["ctx"])
    if recv:
        ev["from"] = c.zz()
    ev["tag"] = s["tag"] = s["tag"] + c.zz()
    dmsgid = c.zz()
    ev["bytes"] = s["bytes"] = s["bytes"] + c.zz()
    nxt[code] = site
    st["prev"] = site
    if recv:
        ev["msgid"] = st["from"].get(ev["from"], 0) + 1 + dmsgid
        st["from"][ev["from"]] = ev["msgid"]

        def ask(code_, got, none):
            return none if code_ == 0 else got if code_ == 1 else unzig(code_ - 2)
        ev["asked_from"] = ask(s["af"], ev["from"], -3)
        ev["asked_tag"] = ask(s["at"], ev["tag"], -2)
        ev["matcher"] = s["m"]
    else:
        ev["msgid"] = st["sent"] = st["sent"] + 1 + dmsgid
        ev["to"] = [c.zz() for _ in range(c.uv())]
    if recv and code == 13 and st["version"] >= 6:  # MPI_Irecv: its posting
        u = c.uv()
        ev["posted"], ev["together"] = u >> 1, u & 1
        if st["version"] >= 8:  # its rivals, as differences from it
            rivals = [ev["posted"] + c.zz() for _ in range(c.uv())]
            if rivals:
                ev["rivals"] = " ".join(str(r) for r in rivals)
    return ev


ABSENT = {"misses": 0, "waited": 0, "site": 0, "asked_from": -3, "asked_tag": -2,
          "matcher": 0, "order": -1, "posted": 0, "together": 0, "ctx": 0}


def compare(events, ltid, dump):
    doc = None
    for root in dump:
        h = root.find("header")
        if root.tag == "pangaea-comm" and h is not None and h.get("ltid") == str(ltid):
            doc = root
    if doc is None:
        raise SystemExit(f"no document for ltid {ltid} in the dump")
    xml = [e for e in doc if e.tag != "header"]
    bad = 0 if len(xml) == len(events) else 1
    for x, ev in zip(xml, events):
        diff = [k for k, v in ev.items() if k not in ("kind", "t", "to")
                and str(v) != x.get(k, str(ABSENT.get(k, "")))]
        if x.tag != ev["kind"] or abs(float(x.get("t")) - ev["t"] / 1e6) > 1e-6:
            diff.append("kind/t")
        if ev["kind"] == "send" and [int(t.get("ltid")) for t in x] != ev["to"]:
            diff.append("to")
        if diff:
            bad += 1
            if bad < 5:
                print("differs:", diff, ev, x.attrib)
    print(f"ltid {ltid}: {len(events)} events read, {len(xml)} in the dump, "
          f"{bad} differ")
    return bad


def main():
    ltid, events, cut = read(sys.argv[1])
    if len(sys.argv) < 3:
        for ev in events:
            print(ev)
        print("cut" if cut else "closed")
        return 0
    text = open(sys.argv[2]).read()
    docs = ["<?xml" + part for part in text.split("<?xml")[1:]]
    return 1 if compare(events, ltid, [ET.fromstring(x.encode()) for x in docs]) else 0


if __name__ == "__main__":
    sys.exit(main())
