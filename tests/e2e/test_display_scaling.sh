#!/usr/bin/env bash
# test_display_scaling.sh - -display grows with the events, not faster,
# and keeps no more bytes an event than it did; counts, never times.
#
# The recording: a deep queue written by gen_logs (a master taking 8
# workers' messages with pvm_recv(-1,-1), every receive racing), the
# page cut in parts by PANGAEA_DISPLAY_PART so that small runs have as
# many parts as a run of 10^7 or 10^8 events has.
#
# 1. Parts cost their own events: the same 2*10^4 events in 16 parts and
#    in 64 (PANGAEA_DISPLAY_PART 1250 and 312) within 1.25x the
#    instructions (valgrind's cachegrind count: the same on a busy
#    machine as on a quiet one; 1.14x now, what each part costs apart
#    from its events).  Each part used to walk every link of the run
#    three times (its lines, its messages across) and search each of its
#    sends' links: 1.38x, and parts x links at 10^7 events.
# 2. Linear in events: 5*10^3 and 2*10^4 events, 312 a part (16 and 64
#    parts, one pass of the race finder each), within 4x the
#    instructions (3.55x now; a walk of every link per part made it
#    4.36x, a quadratic one 16x).
# 3. Bytes an event: the peak resident set (GNU time) at 10^5 and 4*10^5
#    events grows by at most 80 bytes an event, for a page of one file
#    and in 4 parts (72 now, about -races' own peak: the model given back
#    as the graph is derived, and loaded again for the races once the
#    page's data is written and the graph's events freed; 129 and 119
#    when the two were held together, 140 before that).
# 4. The parts' races are split in one pass of the finder for as many
#    parts as the open files allow (two temporary files a part): a page
#    of 64 parts written under `ulimit -n 100` (18 parts a pass, 4
#    passes) is byte for byte the page written in one pass (64 parts a
#    pass, as before, ran out of files there).
# 5. The races cost one walk of the finder beyond -races' own, handed
#    over as numbers: a page of one file (2*10^4 events) within 2.2x the
#    instructions of -races on the same recording (1.86x now; 2.91x when
#    the page printed the races' numbers as text and parsed them back,
#    and walked the finder once more for the notes).
# No pvmd: the recordings are written by gen_logs.
set -u
. "$(dirname "$0")/lib.sh"

P=$PG_BUILD/pangaea
G=$PG_BUILD/tests/gen_logs
dir=$(pg_tmpdir)

command -v valgrind >/dev/null ||
    pg_skip "valgrind is not installed (scripts/install-deps.sh test)"
[ -x /usr/bin/time ] || { pg_fail "GNU time (/usr/bin/time) is needed: scripts/install-deps.sh test"; pg_summary; exit 1; }

for n in 5000 20000 100000 400000; do
    mkdir -p "$dir/q$n"
    "$G" "$dir/q$n" 9 "$n" star >/dev/null || pg_fail "gen_logs 9 $n star failed"
done

# insns PART N: instructions of -display on q$N in parts of PART events
# (every part written: counted)
insns() {
    rm -rf "$dir/q$2/pangaea-graph.html" "$dir/q$2/pangaea-graph.parts"
    PANGAEA_DISPLAY_PART=$1 pg_insns "$dir/vg.$1.$2" "$P" -display "$dir/q$2"
    ls "$dir/q$2/pangaea-graph.parts" 2>/dev/null | wc -l >"$dir/parts.$1.$2"
}
# ratio A B: B/A with two decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b / a }'; }
# within A B R: B <= A * R
within() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { exit !(a != "" && b != "" && a > 0 && b + 0 <= (a + 0) * r) }'; }

# ---- 1: a part costs its own events ---------------------------------------
i16=$(insns 1250 20000); p16=$(cat "$dir/parts.1250.20000")
i64=$(insns 312 20000); p64=$(cat "$dir/parts.312.20000")
if [ "$p16" -ge 16 ] && [ "$p64" -ge 64 ] && within "$i16" "$i64" 1.25; then
    pg_pass "-display: 2*10^4 events in $p16 parts and in $p64, $(ratio "$i16" "$i64")x the instructions (within 1.25x; $i16 -> $i64)"
else
    pg_fail "-display: 2*10^4 events in '$p16' parts and in '$p64', more than 1.25x the instructions ('$i16' -> '$i64')"
fi

# ---- 2: linear in events ----------------------------------------------------
i1=$(insns 312 5000)
if within "$i1" "$i64" 4; then
    pg_pass "-display: 4x the events (5*10^3 -> 2*10^4, 312 a part), $(ratio "$i1" "$i64")x the instructions (within 4x; $i1 -> $i64)"
else
    pg_fail "-display: 4x the events, more than 4x the instructions ('$i1' -> '$i64')"
fi

# ---- 3: bytes an event --------------------------------------------------------
rss() { # N PART: the peak resident set (KB) of -display on q$N, "" if it failed
    PANGAEA_DISPLAY_PART=$2 /usr/bin/time -v "$P" -display "$dir/q$1" \
        >/dev/null 2>"$dir/time.$1" || { tail -3 "$dir/time.$1" >&2; return 0; }
    sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): \([0-9]*\)$/\1/p' "$dir/time.$1"
}
# per_event WHAT BOUND PART1 PART4: the growth per event, within BOUND
per_event() {
    local m1 m4 per
    m1=$(rss 100000 "$3") m4=$(rss 400000 "$4")
    per=$(awk -v a="$m1" -v b="$m4" 'BEGIN { if (a != "" && b != "") printf "%.1f", (b - a) * 1024 / 300000 }')
    if [ -n "$per" ] && awk -v p="$per" -v b="$2" 'BEGIN { exit !(p <= b) }'; then
        pg_pass "-display, $1: 10^5 -> 4*10^5 events, its peak grew $per bytes an event (<= $2; $m1 -> $m4 KB)"
    else
        pg_fail "-display, $1: 10^5 -> 4*10^5 events, its peak grew '$per' bytes an event (more than $2; '$m1' -> '$m4' KB)"
    fi
}
per_event "a page of one file" 80 1000000 1000000
per_event "4 parts" 80 25000 100000

# ---- 4: one pass or several, the same page ------------------------------------
q=$dir/q20000
rm -rf "$q/pangaea-graph.html" "$q/pangaea-graph.parts" "$dir/one"
PANGAEA_DISPLAY_PART=312 "$P" -display "$q" >/dev/null &&
    mkdir "$dir/one" && mv "$q/pangaea-graph.html" "$q/pangaea-graph.parts" "$dir/one/"
(ulimit -n 100 && PANGAEA_DISPLAY_PART=312 "$P" -display "$q" >/dev/null) ||
    pg_fail "-display under ulimit -n 100 failed"
if [ -d "$dir/one/pangaea-graph.parts" ] && [ -d "$q/pangaea-graph.parts" ] &&
   [ "$(ls "$q/pangaea-graph.parts" | wc -l)" -ge 64 ] &&
   diff -r "$dir/one/pangaea-graph.parts" "$q/pangaea-graph.parts" >/dev/null &&
   cmp -s "$dir/one/pangaea-graph.html" "$q/pangaea-graph.html"; then
    pg_pass "-display: 64 parts in passes of 18 (ulimit -n 100), byte for byte the page of one pass"
else
    pg_fail "-display: 64 parts in passes of 18 (ulimit -n 100) differ from the page of one pass"
fi

# ---- 5: the races handed over as numbers, one walk -----------------------------
rm -rf "$q/pangaea-graph.html" "$q/pangaea-graph.parts"
idisp=$(pg_insns "$dir/vg.one" "$P" -display "$q")
iraces=$(pg_insns "$dir/vg.races" "$P" -races "$q")
if [ -f "$q/pangaea-graph.html" ] && [ ! -d "$q/pangaea-graph.parts" ] &&
   within "$iraces" "$idisp" 2.2; then
    pg_pass "-display, a page of one file: $(ratio "$iraces" "$idisp")x the instructions of -races (within 2.2x; $iraces -> $idisp)"
else
    pg_fail "-display, a page of one file: more than 2.2x the instructions of -races ('$iraces' -> '$idisp')"
fi

pg_summary
