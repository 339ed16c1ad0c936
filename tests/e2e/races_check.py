#!/usr/bin/env python3
"""races_check.py MODE REPORT.json SITE - checks `pangaea -races -json` of
a recording of tests/programs/plain_known.c (or group_known.c, MODE
reduce) against the races that program is known to have (see its file
comment).  Ltid 1 is the master, its workers 2, 3, 4 in spawn order; each
worker's first message is its msgid 1.  Exits 0 and prints a summary when
the report is exactly right, else 1 and says what differs."""
import json
import races_json
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
    rep = races_json.load(open(path))
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
    if mode == "apart":
        # W1 (ltid 2) queued msgids 1-70 of tag 30, 71-140 of tag 31, the
        # master routing direct (per-pair order lost): each receive races
        # with W1's whole queue of its tag, FIFO broken, listed as one run,
        # and with W2's (ltid 3) or W3's (ltid 4) msg 1.
        if len(races) != 2:
            fail("want 2 races, got %d" % len(races))
        raw = sorted(json.load(open(path))["races"], key=lambda r: r["seq"])
        for r, x, tag, other, lo in zip(races, raw, (30, 31), (3, 4), (1, 71)):
            if took(r) != (2, lo, ""):
                fail("the receive of tag %d took %r, want ltid 2 msg %d" % (tag, took(r), lo))
            if x["fifo_broken"] != [[2, lo + 1, lo + 69, tag]] or \
               x["alternatives"] != [[other, 1, 1, tag]] or x["notices"] != []:
                fail("tag %d: want W1's queue as one run and ltid %d msg 1, got %r / %r"
                     % (tag, other, x["alternatives"], x["fifo_broken"]))
            want = {(2, m, "") for m in range(lo + 1, lo + 70)} | {(other, 1, "")}
            if set(alts(r)) != want or len(alts(r)) != 70 or \
               sum(1 for a in r["alternatives"] if a.get("fifo_broken")) != 69:
                fail("tag %d: decoded %r" % (tag, alts(r)))
        return "2 races of 70 alternatives, W1's 69 each one run"
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
