"""page_races.py - the races of a `pangaea -display` page, or of one part's
script, read as the page's script reads them (graph.html: loadRaces,
altsOf).

    page_races.py FILE...   prints {"records", "edited", "values",
                            "counts": [alternatives a record, in order]}

A record is recv, first, site, n, then n (send, fifoBroken) pairs; or,
for a race of many senders, recv, first, site, -1 - m, n, lines, then m
edits (pos, del, ins, then ins pairs) of the record before
(display_races.c).  records() gives each record's pairs in full, edits
replayed; a record whose edits do not give its n pairs and lines sends
raises."""
import json
import re
import sys

from scale_page import unpack


def records(text):
    """[(recv, first, site, pairs, edited)] of the races block in text."""
    m = re.search(r'"races":"([^"]*)","nraces":(\d+)', text)
    if not m:
        return [], 0
    vals = unpack(m.group(1), int(m.group(2)))
    out, i, prev, recv = [], 0, [], 0
    while i < len(vals):
        recv += vals[i]
        first, site, n = vals[i + 1], vals[i + 2], vals[i + 3]
        if n >= 0:
            pairs, i = vals[i + 4:i + 4 + 2 * n], i + 4 + 2 * n
        else:
            nalts, lines, j, p, pairs = vals[i + 4], vals[i + 5], i + 6, 0, []
            for _ in range(-1 - n):
                pos, dl, ins = vals[j:j + 3]
                if 2 * pos < p:
                    raise ValueError("record %d: edits out of order" % len(out))
                pairs += prev[p:2 * pos] + vals[j + 3:j + 3 + 2 * ins]
                p, j = 2 * (pos + dl), j + 3 + 2 * ins
            pairs += prev[p:]
            if len(pairs) != 2 * nalts or lines != sum(s >= 0 for s in pairs[0::2]):
                raise ValueError("record %d: its edits give %d pairs, %d drawn; "
                                 "it says %d, %d" % (len(out), len(pairs) // 2,
                                                     sum(s >= 0 for s in pairs[0::2]),
                                                     nalts, lines))
            i = j
        out.append((recv, first, site, pairs, n < 0))
        prev = pairs
    return out, len(vals)


def main():
    recs, values = [], 0
    for path in sys.argv[1:]:
        r, v = records(open(path).read())
        recs += r
        values += v
    print(json.dumps({"records": len(recs), "edited": sum(r[4] for r in recs),
                      "values": values,
                      "counts": [len(r[3]) // 2 for r in recs]}))


if __name__ == "__main__":
    main()
