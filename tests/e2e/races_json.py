"""races_json.py - reads the report of `pangaea -races -json` for the
tests.  The report lists a race's alternatives compactly: "alternatives"
and "fifo_broken" (those counted only because the receiver lost per-pair
order) as runs [ltid, first, last, tag], the sender's messages first..last
(consecutive message ids of one tag), and "notices" as objects.  load()
gives each race back its alternatives one per message, {"ltid", "msgid",
"tag"} (plus "fifo_broken": True, or a notice's "notice"), messages
before notices, so a test checks the exact set; a malformed run raises."""
import json


def expand(r):
    """The alternatives of race r, one a message."""
    out = []
    for key, broken in (("alternatives", False), ("fifo_broken", True)):
        for run in r[key]:
            if not (isinstance(run, list) and len(run) == 4 and
                    all(isinstance(x, int) for x in run) and run[1] <= run[2]):
                raise ValueError("race at ltid %s seq %s: a bad run in %r: %r"
                                 % (r.get("ltid"), r.get("seq"), key, run))
            ltid, first, last, tag = run
            for m in range(first, last + 1):
                a = {"ltid": ltid, "msgid": m, "tag": tag}
                if broken:
                    a["fifo_broken"] = True
                out.append(a)
    for n in r["notices"]:
        if not isinstance(n, dict) or "notice" not in n:
            raise ValueError("race at ltid %s seq %s: a bad notice %r"
                             % (r.get("ltid"), r.get("seq"), n))
        out.append(dict(n))
    return out


def decode(rep):
    """The report rep with every race's alternatives expanded."""
    for r in rep["races"]:
        r["alternatives"] = expand(r)
        del r["fifo_broken"], r["notices"]
    return rep


def load(fp):
    return decode(json.load(fp))
