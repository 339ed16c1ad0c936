#!/usr/bin/env bash
# test_view_memory.sh - what -export perfetto and a -display page in parts
# keep, as ratios of peak resident sets (GNU time's "Maximum resident set
# size", /usr/bin/time -v; no timing).
#
# 1. -export perfetto keeps nothing per event beyond the race analysis'
#    model: it reads the model, has its races handed over as they are
#    found (none kept: -races keeps each bare for its "first" marks),
#    keeps of it a bit a message and 8 bytes a racing receive, frees it
#    and writes the trace as the logs stream.  On a deep queue (gen_logs:
#    a master taking 8 workers' messages with pvm_recv(-1,-1), every
#    receive racing) at N and 4N events, what the export's peak grows by
#    is within 0.9x what -races' grows by and at most 66 bytes an event
#    (~60; the races kept bare made it 1.10x and 80.5 bytes, a graph of
#    the whole run 2.5x before that), and the trace is the same size an
#    event.
# 2. A -display page in parts keeps no race's alternatives: on a deep
#    queue at 128 tasks (every receive racing with ~64 senders, 4 bytes
#    an alternative) the page in parts (PANGAEA_DISPLAY_PART) peaks
#    within 1.1x of the same run's page of one file, which finds its
#    races again race by race (all the alternatives kept made it 1.86x).
#    Both in full: every part written, as many races and alternatives in
#    the parts as in the one page (read as the page reads them, a race
#    made from the one before by edits: page_races.py).
# 3. -tasks streams the logs and keeps a byte a point-to-point send: the
#    room it grows for them is not touched before it is used.  Its 8
#    workers sending 2^17 + 100 messages each (the room doubled to 2^18)
#    peak within 256 KB of 2^17 - 100 each (~1 MB more when the doubled
#    room was filled at once: 8 x 128 KB).
# No pvmd: the recordings are written by gen_logs.
set -u
. "$(dirname "$0")/lib.sh"

P=$PG_BUILD/pangaea
G=$PG_BUILD/tests/gen_logs
dir=$(pg_tmpdir)
[ -x /usr/bin/time ] || { pg_fail "GNU time (/usr/bin/time) is needed: scripts/install-deps.sh test"; pg_summary; exit 1; }

# rss OUT CMD...: CMD's peak resident set in KB (its stdout to OUT), or
# "" when it failed (exit 0, and 1 for "races found", are its answers)
rss() {
    local out=$1 rc=0
    shift
    /usr/bin/time -v "$@" >"$out" 2>"$out.time" || rc=$?
    [ "$rc" -le 1 ] || { tail -3 "$out.time" >&2; return 1; }
    sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): \([0-9]*\)$/\1/p' "$out.time"
}
# within A B RATIO: A <= B * RATIO
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { exit !(a != "" && b != "" && a + 0 <= (b + 0) * r) }'; }

# ---- 1: the export keeps nothing per event beyond the analysis ----------
N=100000
for n in $N $((4 * N)); do
    mkdir -p "$dir/q$n"
    "$G" "$dir/q$n" 9 "$n" star >/dev/null || pg_fail "gen_logs 9 $n star failed"
    eval "pf$n=\$(rss \"\$dir/q$n.pb\" \"\$P\" -export perfetto \"\$dir/q$n\")"
    eval "rc$n=\$(rss \"\$dir/q$n.races\" \"\$P\" -races \"\$dir/q$n\")"
done
pf1=$(eval echo "\$pf$N") pf4=$(eval echo "\$pf$((4 * N))")
rc1=$(eval echo "\$rc$N") rc4=$(eval echo "\$rc$((4 * N))")
dpf=$((pf4 - pf1)) drc=$((rc4 - rc1))
bpe=$(awk -v d="$dpf" -v n=$((3 * N)) 'BEGIN { printf "%.1f", d * 1024 / n }')
if [ -n "$pf1" ] && [ -n "$rc1" ] && within "$dpf" "$drc" 0.9 &&
   within "$bpe" 66 1; then
    pg_pass "-export perfetto: $N -> $((4 * N)) events grew its peak by $dpf KB ($bpe bytes an event, <= 66), -races' by $drc KB (within 0.9x; $pf1 -> $pf4 KB, -races $rc1 -> $rc4 KB)"
else
    pg_fail "-export perfetto: $N -> $((4 * N)) events grew its peak by '$dpf' KB ($bpe bytes an event; at most 66), -races' by '$drc' KB (more than 0.9x; $pf1 -> $pf4, -races $rc1 -> $rc4)"
fi
b1=$(stat -c %s "$dir/q$N.pb") b4=$(stat -c %s "$dir/q$((4 * N)).pb")
if [ "$b1" -gt 0 ] && within "$b4" "$((4 * b1))" 1.02 && [ "$b4" -le $((40 * 4 * N)) ]; then
    pg_pass "-export perfetto: $b1 and $b4 bytes of trace: $((b4 / (4 * N))) bytes an event (<= 40), as at $N events"
else
    pg_fail "-export perfetto: $b1 bytes at $N events, $b4 at $((4 * N))"
fi
rm -rf "$dir"/q*

# ---- 2: a page in parts keeps no alternatives -----------------------------
n=100000
mkdir -p "$dir/wide"
"$G" "$dir/wide" 128 "$n" star >/dev/null || pg_fail "gen_logs 128 $n star failed"
one=$(rss "$dir/one.out" "$P" -display "$dir/wide")
# the races of a page's files: how many, and each one's alternatives (a
# record made from the one before by edits replayed: page_races.py)
races_of() { python3 -S "$PG_ROOT/tests/e2e/page_races.py" "$@" |
             python3 -S -c 'import json,sys; d=json.load(sys.stdin); print("%d races, %d alternatives" % (d["records"], sum(d["counts"])))'; }
races_one=$(races_of "$dir/wide/pangaea-graph.html")
parts=$(PANGAEA_DISPLAY_PART=$((n / 4)) rss "$dir/parts.out" "$P" -display "$dir/wide")
races_parts=$(races_of "$dir/wide/pangaea-graph.parts/"part-*.js 2>/dev/null)
nparts=$(ls "$dir/wide/pangaea-graph.parts" 2>/dev/null | wc -l)
if [ -n "$one" ] && [ -n "$parts" ] && within "$parts" "$one" 1.1; then
    pg_pass "-display at 128 tasks: in $nparts parts $parts KB, one file $one KB (within 1.1x)"
else
    pg_fail "-display at 128 tasks: in $nparts parts '$parts' KB, one file '$one' KB (more than 1.1x)"
fi
if [ "$nparts" -ge 4 ] && [ -n "$races_parts" ] && [ "${races_parts#0 }" = "$races_parts" ] &&
   [ "$races_parts" = "$races_one" ]; then
    pg_pass "-display in parts: $races_parts in $nparts parts, as in the one page"
else
    pg_fail "-display in parts: '$races_parts' in $nparts parts, '$races_one' in the one page"
fi

# ---- 3: -tasks touches no room it does not use ------------------------------
for k in below above; do
    s=$((131072 - 100)); [ $k = above ] && s=$((131072 + 100))
    mkdir -p "$dir/t$k"
    "$G" "$dir/t$k" 9 $((2 * 8 * s)) star >/dev/null || pg_fail "gen_logs 9 $((16 * s)) star failed"
    # The least of three runs: a peak resident set only grows from noise
    # (the logs' mapped pages the kernel read ahead, up to ~300 KB under
    # load), while a room touched before it is used is there every time.
    runs=$(for _ in 1 2 3; do rss "$dir/t$k.out" "$P" -tasks "$dir/t$k" || echo failed; done)
    [ "$(grep -c '^[0-9][0-9]*$' <<<"$runs")" -eq 3 ] || runs= # each run must answer
    eval "tk$k=\$(sort -n <<<\"\$runs\" | head -n 1)"
done
sends=$(awk '$1 == 2 { print $6 }' "$dir/tabove.out")
if [ -n "$tkbelow" ] && [ -n "$tkabove" ] && [ "$sends" = $((131072 + 100)) ] &&
   [ $((tkabove - tkbelow)) -le 256 ]; then
    pg_pass "-tasks: 8 workers of 2^17 - 100 sends each $tkbelow KB, of 2^17 + 100 $tkabove KB (within 256 KB)"
else
    pg_fail "-tasks: 8 workers of 2^17 - 100 sends each '$tkbelow' KB, of 2^17 + 100 ('$sends' counted) '$tkabove' KB (more than 256 KB apart)"
fi

pg_summary
