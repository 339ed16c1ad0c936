#!/usr/bin/env python3
"""races_check.py MODE REPORT.json SITE - checks `pangaea -races -json` of
a recording of tests/programs/plain_known.c (or group_known.c, MODE
reduce) against the races that program is known to have (see its file
comment).  Ltid 1 is the master, its workers 2, 3, 4 in spawn order; each
worker's first message is its msgid 1.  Exits 0 and prints a summary when
the report is exactly right, else 1 and says what differs."""
import json
import sys


def fail(why):
    print(why)
    sys.exit(1)


def alts(r):
    return sorted((a["ltid"], a["msgid"], a.get("notice", "")) for a in r["alternatives"])


def took(r):
    t = r["took"]
    return None if t is None else (t["ltid"], t["msgid"], t.get("notice", ""))


def main():
    mode, path, site = sys.argv[1], sys.argv[2], sys.argv[3]
    rep = json.load(open(path))
    races = rep["races"]
    for r in races:
        for k in ("ltid", "seq", "call", "tag", "site", "took", "alternatives", "first"):
            if k not in r:
                fail("race without %r: %r" % (k, r))
        if r["ltid"] != 1:
            fail("a race in a worker: %r" % r)
        if r["site"] != site:
            fail("site %r, want %r" % (r["site"], site))
    races.sort(key=lambda r: r["seq"])
    if mode == "named":
        if races or rep["receives"] != 2:
            fail("want no race in 2 receives, got %r" % rep)
        return "none in 2 receives"
    if mode == "wild":
        if len(races) != 2:
            fail("want 2 races, got %d" % len(races))
        all3 = {(2, 1, ""), (3, 1, ""), (4, 1, "")}
        a, b = races
        if set(alts(a)) != all3 - {took(a)} or len(alts(a)) != 2:
            fail("first receive took %r, alternatives %r" % (took(a), alts(a)))
        if set(alts(b)) != all3 - {took(a), took(b)} or len(alts(b)) != 1:
            fail("second receive took %r, alternatives %r" % (took(b), alts(b)))
        if not a["first"] or b["first"]:
            fail("first flags %r %r" % (a["first"], b["first"]))
        return "2 races, alternatives %r then %r" % (alts(a), alts(b))
    if mode == "poll":
        if len(races) != 1:
            fail("want 1 race, got %d" % len(races))
        r = races[0]
        if r["call"] != "pvm_nrecv" or r["took"] is not None or \
           [(a["ltid"], a["msgid"], a["tag"]) for a in r["alternatives"]] != [(2, 1, 20)]:
            fail("want a failed pvm_nrecv racing with ltid 2 msg 1: %r" % r)
        return "a failed poll, alternative ltid 2 msg 1"
    if mode == "notice":
        if len(races) != 1:
            fail("want 1 race, got %d" % len(races))
        r = races[0]
        pair = {took(r)} | set(alts(r))
        if pair != {(2, 1, ""), (2, 0, "exit")} or len(alts(r)) != 1:
            fail("want the message and the exit notice of ltid 2: %r" % r)
        return "took %r, alternative %r" % (took(r), alts(r))
    if mode == "direct":
        if len(races) != 2:
            fail("want 2 races, got %d" % len(races))
        a, b = races
        if took(a) != (2, 1, "") or alts(a) != [(2, 2, ""), (2, 3, "")] or \
           not all(x.get("fifo_broken") for x in a["alternatives"]):
            fail("first: %r" % a)
        if took(b) != (2, 2, "") or alts(b) != [(2, 3, "")] or \
           not b["alternatives"][0].get("fifo_broken"):
            fail("second: %r" % b)
        return "2 races, FIFO broken"
    if mode == "reduce":
        if len(races) != 1:
            fail("want 1 race, got %d" % len(races))
        r = races[0]
        if r["call"] != "pvm_recv" or r["tag"] != 40 or len(r["alternatives"]) != 1 or \
           {took(r)[0], r["alternatives"][0]["ltid"]} != {2, 3}:
            fail("want the root's first contribution racing with the other: %r" % r)
        return "took ltid %d, alternative ltid %d" % (took(r)[0], r["alternatives"][0]["ltid"])
    fail("unknown mode " + mode)


print(main())
