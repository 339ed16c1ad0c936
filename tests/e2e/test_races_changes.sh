#!/usr/bin/env bash
# test_races_changes.sh - `pangaea -races -json` and `-jsonl` write a race
# of many senders as what changed since the race before it (of the same
# task), and that says exactly what the full form says.
#
# A master taking every worker's message with pvm_recv(-1,-1) (gen_logs
# "star") races at each receive with the head of every worker's queue;
# the next receive offers the same but the sender taken.  Held here:
# 1. the changes, applied by races_json.py (the tests' reader), give back
#    -full's report race for race, on the deep queue, with acks, and on
#    gen_logs' random mix (sends, multicasts, broadcasts, receives from
#    anyone), for -json and -jsonl;
# 2. the deep queue's races come as changes (nearly all of them), and a
#    race's line costs about the same at 200 workers as at 50 (where the
#    full form grows with the workers);
# 3. a race of fewer than 16 senders is written in full, byte for byte
#    as -full writes it;
# 4. -full without -json or -jsonl is refused (exit 2);
# 5. the -display page keeps such a race as the edits of the race before:
#    read as the page reads them (page_races.py), its races have the
#    alternatives -races -json -full lists, most are edits, and it holds
#    under half the values of every race in full; in a real browser
#    (graph_page.py, zoomed in so that a click hits its mark) the details
#    of a race early, in the middle and last list exactly -json's
#    alternatives;
# 6. in a page in parts, an alternative sent in another part is listed
#    once a part (raceElsewhere) and named in the race's details: a race
#    of part 2 with such an alternative lists, clicked, the alternatives
#    -json lists.
# No pvmd: the recordings are written by gen_logs.
set -u
. "$(dirname "$0")/lib.sh"

P=$PG_BUILD/pangaea
G=$PG_BUILD/tests/gen_logs
dir=$(pg_tmpdir)

# gen NAME TASKS EVENTS [SHAPE]: a recording in $dir/NAME.
gen() {
    mkdir -p "$dir/$1" &&
        "$G" "$dir/$1" "$2" "$3" ${4:+"$4"} >/dev/null 2>"$dir/$1.gen" ||
        { pg_fail "gen_logs $*: $(tail -2 "$dir/$1.gen")"; return 1; }
}

# report NAME FORM [-full]: pangaea -races FORM into $dir/NAME.FORM[-full];
# exit 1 (races found) is its answer.
report() {
    local out="$dir/$1$2${3:-}" rc=0
    "$P" -races "$2" ${3:+"$3"} "$dir/$1" >"$out" 2>"$out.err" || rc=$?
    [ "$rc" -eq 1 ] || { pg_fail "$1: -races $2 ${3:-} exited $rc: $(tail -2 "$out.err")"; return 1; }
}

# same NAME: the changes of -json and -jsonl, applied, are -full's
# reports; prints "RACES CHANGED_LINES" of -jsonl.
same() {
    python3 -S - "$dir/$1" <<'PY'
import sys, races_json
d = sys.argv[1]
a, b = races_json.load(open(d + "-json")), races_json.load(open(d + "-json-full"))
if a != b:
    sys.exit("-json's changes applied differ from -json -full")
if any("_change" in line for line in open(d + "-json-full")):
    sys.exit("-json -full wrote a change")
la, ta = races_json.lines(open(d + "-jsonl"))
lb, tb = races_json.lines(open(d + "-jsonl-full"))
if la != lb or ta != tb:
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            sys.exit("-jsonl's line %d, changes applied: %r, -full: %r"
                     % (i + 1, x, y))
    sys.exit("-jsonl: %d races, -full %d" % (len(la), len(lb)))
if len(la) != len(races_json.load(open(d + "-json"))["races"]):
    sys.exit("-jsonl and -json list other races")
changed = sum('"alts_change"' in line for line in open(d + "-jsonl"))
print(len(la), changed)
PY
}

# bytes_a_race FILE RACES
bytes_a_race() { echo $(( $(wc -c <"$1") / $2 )); }

for rec in "star50 50 6000 star" "star200 200 3000 star" \
           "ack50 50 6000 star-ack" "mix40 40 3000" "star12 12 3000 star"; do
    set -- $rec
    gen "$@" || continue
    for f in -json -jsonl; do
        report "$1" "$f" && report "$1" "$f" -full
    done
    if out=$(same "$1"); then
        set -- "$1" $out
        eval "races_$1=$2 changed_$1=$3"
        pg_pass "$1: the changes of -json and -jsonl, applied, are -full's $2 races ($3 lines of changes)"
    else
        pg_fail "$1: $out"
    fi
done

# 2: the deep queue's races come as changes, a few bytes each
if [ -n "${races_star50:-}" ] && [ -n "${races_star200:-}" ]; then
    for s in star50 star200; do
        eval "n=\$races_$s c=\$changed_$s"
        if [ "$c" -ge $((n * 9 / 10)) ]; then
            pg_pass "$s: $c of $n races written as changes"
        else
            pg_fail "$s: only $c of $n races written as changes"
        fi
    done
    b50=$(bytes_a_race "$dir/star50-jsonl" "$races_star50")
    b200=$(bytes_a_race "$dir/star200-jsonl" "$races_star200")
    f50=$(bytes_a_race "$dir/star50-jsonl-full" "$races_star50")
    f200=$(bytes_a_race "$dir/star200-jsonl-full" "$races_star200")
    if [ "$b200" -le $((b50 * 6 / 5)) ] && [ "$f200" -ge $((f50 * 2)) ]; then
        pg_pass "-jsonl: $b50 then $b200 bytes a race at 50 then 200 workers (full: $f50 then $f200)"
    else
        pg_fail "-jsonl: $b50 then $b200 bytes a race at 50 then 200 workers (full: $f50 then $f200)"
    fi
fi

# 3: small races are written in full
if [ -n "${races_star12:-}" ]; then
    if cmp -s "$dir/star12-jsonl" "$dir/star12-jsonl-full" &&
       cmp -s "$dir/star12-json" "$dir/star12-json-full"; then
        pg_pass "star12: races of 11 senders written in full, as -full writes them"
    else
        pg_fail "star12: a race of 11 senders was not written in full"
    fi
fi

# 4: -full goes with a JSON report
rc=0
"$P" -races -full "$dir/star12" >"$dir/full.out" 2>"$dir/full.err" || rc=$?
if [ "$rc" -eq 2 ] && grep -q -- "-full goes with -json or -jsonl" "$dir/full.err"; then
    pg_pass "-races -full alone: refused, exit 2"
else
    pg_fail "-races -full alone: exit $rc, $(cat "$dir/full.err")"
fi

# 5: the page's races as edits
if [ -n "${races_star50:-}" ] && html=$("$P" -display "$dir/star50" 2>"$dir/display.err"); then
    if got=$(python3 -S "$PG_ROOT/tests/e2e/page_races.py" "$html" 2>&1) &&
       out=$(python3 -S - "$dir/star50-json-full" "$got" <<'PY'
import json, sys, races_json
races = races_json.load(open(sys.argv[1]))["races"]
page = json.loads(sys.argv[2])
want = [len(r["alternatives"]) for r in races]
full = sum(4 + 2 * n for n in want)
if page["counts"] != want:
    sys.exit("the page's races have %r alternatives, -json's %r" % (page["counts"][:5], want[:5]))
if page["edited"] * 10 < page["records"] * 9 or page["values"] * 2 > full:
    sys.exit("%d of %d races edits, %d values (full: %d)" % (page["edited"], page["records"], page["values"], full))
print("%d races, %d as edits, %d values where in full %d" % (page["records"], page["edited"], page["values"], full))
PY
       ); then
        pg_pass "-display: $out"
    else
        pg_fail "-display: ${out:-$got}"
    fi
    last=$(python3 -S -c 'import sys, races_json; r = races_json.load(open(sys.argv[1]))["races"]; print(" ".join(str(r[i]["seq"]) for i in (1, len(r) // 2, len(r) - 1)))' "$dir/star50-json-full")
    for seq in $last; do
        if res=$(python3 -S "$PG_ROOT/tests/e2e/graph_page.py" "$html" --mode logical --zoom 20 --click 1 "$seq" 2>"$dir/page.err") &&
           out=$(python3 -S - "$dir/star50-json-full" "$seq" "$res" <<'PY'
import json, sys, races_json
r = [x for x in races_json.load(open(sys.argv[1]))["races"] if x["seq"] == int(sys.argv[2])][0]
want = ", ".join("ltid %d msg %d (tag %d)" % (a["ltid"], a["msgid"], a["tag"]) for a in r["alternatives"])
details = json.loads(sys.argv[3])["details"]
if not details.get("t", "").endswith("ltid 1 event %s)" % sys.argv[2]):
    sys.exit("the click selected %r (zoomed in 20x: marks 20x apart)" % details.get("t"))
got = details.get("race", "").split("could have taken ", 1)[-1]
if got != want:
    sys.exit("the page lists %r, -json %r" % (got[:200], want[:200]))
print(len(r["alternatives"]))
PY
           ); then
            pg_pass "-display in a browser: the race at ltid 1 event $seq lists -json's $out alternatives"
        else
            pg_fail "-display in a browser: the race at ltid 1 event $seq: ${out:-$(tail -3 "$dir/page.err")}"
        fi
    done
elif [ -n "${races_star50:-}" ]; then
    pg_fail "-display star50: $(tail -3 "$dir/display.err")"
fi

# 6: sends in other parts
if [ -n "${races_star50:-}" ] && cp -r "$dir/star50" "$dir/star50p" &&
   html=$(PANGAEA_DISPLAY_PART=1500 "$P" -display "$dir/star50p" 2>"$dir/parts.err") &&
   [ -f "$dir/star50p/pangaea-graph.parts/part-0002.js" ]; then
    # the first race of part 2 with an alternative sent in another part,
    # by its event number (the part's "sq": each event's step in its log)
    seq=$(python3 -S - "$dir/star50p/pangaea-graph.parts/part-0002.js" <<'PY'
import re, sys
from scale_page import unpack
from page_races import records
t = open(sys.argv[1]).read()
nev = int(re.search(r'"nev":(\d+)', t).group(1))
sq = unpack(re.search(r'"sq":"([^"]*)"', t).group(1), nev)
first = [int(x) for x in re.search(r'\[1,[^\[\]]*\]', t).group(0)[1:-1].split(",")[-3:-1]]
for recv, _, _, pairs, _ in records(t)[0]:
    if any(s <= -2 for s in pairs[0::2]) and first[0] <= recv < sum(first):
        print(sum(sq[first[0]:recv + 1]))
        break
PY
    )
    if [ -n "$seq" ] && res=$(python3 -S "$PG_ROOT/tests/e2e/graph_page.py" "$html?part=2" --mode logical --zoom 20 --click 1 "$seq" 2>"$dir/page.err") &&
       out=$(python3 -S - "$dir/star50-json-full" "$seq" "$res" <<'PY'
import json, re, sys, races_json
r = [x for x in races_json.load(open(sys.argv[1]))["races"] if x["seq"] == int(sys.argv[2])][0]
want = sorted((a["ltid"], a["msgid"]) for a in r["alternatives"])
details = json.loads(sys.argv[3])["details"]
if not details.get("t", "").endswith("ltid 1 event %s)" % sys.argv[2]):
    sys.exit("the click selected %r" % details.get("t"))
race = details.get("race", "")
got = sorted((int(a), int(b)) for a, b in re.findall(r"ltid (\d+) msg (\d+)", race.split("could have taken ", 1)[-1]))
if got != want or "of this page" not in race:
    sys.exit("the page lists %r, -json %r" % (race[:300], want[:10]))
print("%d alternatives, %d in another part" % (len(got), race.count("of this page")))
PY
       ); then
        pg_pass "-display in parts: the race at ltid 1 event $seq of part 2 lists -json's $out"
    else
        pg_fail "-display in parts: ${out:-no race of part 2 with a send in another part (seq '$seq'): $(tail -3 "$dir/page.err")}"
    fi
else
    pg_fail "-display in parts of star50: $(tail -3 "$dir/parts.err" 2>/dev/null)"
fi

pg_summary
