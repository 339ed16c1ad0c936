"""races_json.py - reads the report of `pangaea -races -json` for the
tests.  The report lists a race's alternatives compactly: "alternatives"
and "fifo_broken" (those counted only because the receiver lost per-pair
order) as runs [ltid, first, last, tag], the sender's messages first..last
(consecutive message ids of one tag), and "notices" as objects.  load()
gives each race back its alternatives one per message, {"ltid", "msgid",
"tag"} (plus "fifo_broken": True, or a notice's "notice"), messages
before notices, so a test checks the exact set; a malformed run raises.

A race of many senders may come as its changes from the race before it
(of the same task): "alternatives_change" (-json: {"LTID": [[first,
last, tag], ...]}) or "alts_change" (-jsonl: {"LTID": [id, [first,
last], ...]}), and the same of "fifo_broken", each sender listed with
its runs now, [] when it has none left.  load() and lines() apply them:
each race comes back in full, as -full writes it."""
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


def apply(r, held, key, as_full, back):
    """Race r's key in full: r's own (kept as it is), or held[key] (the
    race before's, by sender) with r's changes applied; held keeps it
    for the next race."""
    change = r.pop(key + "_change", None)
    if change is None:
        held[key] = as_full(r[key])
        return
    if held.get("ltid") != r["ltid"] or key not in held:
        raise ValueError("race at ltid %s seq %s: %s_change after no race "
                         "of its task" % (r["ltid"], r["seq"], key))
    for ltid, runs in change.items():
        if not isinstance(runs, list):
            raise ValueError("race at ltid %s seq %s: a bad change %r"
                             % (r["ltid"], r["seq"], runs))
        held[key].pop(ltid, None)
        if runs:
            held[key][ltid] = runs
    held[key] = dict(sorted(held[key].items(), key=lambda kv: int(kv[0])))
    r[key] = back({k: list(v) for k, v in held[key].items()})


def by_sender(runs):
    """-json's [[ltid, first, last, tag], ...] as {"LTID": [[first, last,
    tag], ...]}, the form of its changes."""
    out = {}
    for run in runs:
        if not (isinstance(run, list) and len(run) == 4):
            raise ValueError("a bad run %r" % (run,))
        out.setdefault(str(run[0]), []).append(run[1:])
    return out


def undo_changes(races, keys, as_full, back):
    """Every race of races (in report order) with its keys in full."""
    held = {}
    for r in races:
        for key in keys:
            apply(r, held, key, as_full, back)
        held["ltid"] = r["ltid"]
        yield r


def decode(rep):
    """The report rep with every race's alternatives expanded."""
    back = lambda d: [[int(l)] + run for l, runs in d.items() for run in runs]
    for r in undo_changes(rep["races"], ("alternatives", "fifo_broken"),
                          by_sender, back):
        r["alternatives"] = expand(r)
        del r["fifo_broken"], r["notices"]
    return rep


def load(fp):
    return decode(json.load(fp))


def lines(fp):
    """The races of -jsonl's lines (and its last line apart), each with
    "alts" and "fifo_broken" in full: (races, last)."""
    rows = [json.loads(l) for l in fp]
    last = rows.pop()
    races = list(undo_changes(rows, ("alts", "fifo_broken"),
                              lambda d: {k: list(v) for k, v in d.items()},
                              lambda d: d))
    return races, last
