#!/usr/bin/env bash
# bench/pages.sh - the event-graph pages at scale, in headless Chromium:
# page ready, redraw, zoom, filter, renderer memory, and how long the live
# page goes without drawing while a fast run goes on.
#
#   bash bench/pages.sh [--sizes "100000 1000000"] [--display-only | --live-only]
#                       [--shots DIR]
#
# Design.  -display: a star recording (build/tests/gen_logs: a master
# taking 8 workers' messages with pvm_recv(-1,-1)) of each size, its page
# loaded from disk (bench/pages.py display).  -live: plain_flood (8
# workers sending size/16 messages each as fast as they can, the first
# task taking them; about `size` events) recorded with -live -live-wait on
# a private pvmd (tests/e2e/lib.sh): the page opened as the run starts
# (live-during: until it has caught up, the longest time between two
# drawings), then a fresh page after the
# run (ready: until it holds every event; then the same interactions as
# -display's).  One measurement each: noisy on a shared machine; run it
# again before believing a difference.  Results: one JSON object a line
# on stdout and in bench/results/pages.jsonl.  BUILD names another build
# (its pangaea: the page it embeds), TOOLS the build whose gen_logs and
# plain_flood to use (default BUILD).  --shots DIR: screenshots of each
# page zoomed out and in, DIR/{display,live}-<size>-zoomed-{out,in}.png
# (size as 1e5), as in docs/.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${BUILD:-$ROOT/build}
T=${TOOLS:-$B} # where gen_logs and plain_flood are (another build's pangaea may have none)
SIZES="100000 1000000"
LIVE=1
DISPLAY=1
SHOTS=
while [ $# -gt 0 ]; do
    case $1 in
    --sizes) SIZES=$2; shift 2 ;;
    --display-only) LIVE=0; shift ;;
    --live-only) DISPLAY=0; shift ;;
    --shots) SHOTS=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    *) echo "usage: bench/pages.sh [--sizes \"100000 1000000\"] [--display-only | --live-only] [--shots DIR]" >&2; exit 2 ;;
    esac
done
for f in "$B/pangaea" "$T/tests/gen_logs" "$T/tests/plain_flood"; do
    [ -x "$f" ] || { echo "bench/pages.sh: $f missing: make all test-programs" >&2; exit 1; }
done
# shellcheck source=../tests/e2e/lib.sh
source "$ROOT/tests/e2e/lib.sh"
PG_BUILD=$B
# Each measurement in a Chromium of its own (lib.sh would share one
# browser between checks): its processes are the ones whose memory counts.
PG_BROWSER_DIR=
W=$(pg_tmpdir)
PID=
trap '[ -n "$PID" ] && kill -INT "$PID" 2>/dev/null; pg_cleanup; rm -rf "$W"' EXIT
mkdir -p "$ROOT/bench/results"
OUT=$ROOT/bench/results/pages.jsonl
: >"$OUT"
say() { echo "$1" | tee -a "$OUT"; }
# PAGES_SHOTS for bench/pages.py: DIR/PAGE-<size as 1e5>, or nothing.
shot() { [ -n "$SHOTS" ] && printf '%s/%s-%s' "$SHOTS" "$1" "$(awk "BEGIN { e = int(log($2) / log(10) + 0.5); m = $2 / 10^e; printf (m == 1 ? \"1e%d\" : \"%ge%d\"), (m == 1 ? e : m), e }")"; }

for n in $SIZES; do
    [ "$DISPLAY" = 1 ] || break
    d=$W/star$n
    mkdir -p "$d"
    "$T/tests/gen_logs" "$d" 9 "$n" star >/dev/null || { echo "gen_logs $n failed" >&2; exit 1; }
    t0=$EPOCHREALTIME
    html=$("$B/pangaea" -display "$d") || exit 1
    took=$(awk "BEGIN { printf \"%.2f\", $EPOCHREALTIME - $t0 }")
    r=$(PAGES_SHOTS=$(shot display "$n") python3 "$ROOT/bench/pages.py" display "$html") || r='{"error": "the page did not load"}'
    say "{\"page\": \"display\", \"events\": $n, \"html_bytes\": $(stat -c %s "$html"), \"write_s\": $took, \"result\": $r}"
    rm -rf "$d"
done
[ "$LIVE" = 1 ] || exit 0

pg_pvm_start || exit 1
for n in $SIZES; do
    rm -f "$W/live.err"
    env -u TMUX "$B/pangaea" -log -live -live-wait -logdir "$W/flood$n" \
        "$T/tests/plain_flood" 8 $((n / 16)) >"$W/live.out" 2>"$W/live.err" </dev/null &
    PID=$!
    url=
    for _ in $(seq 300); do
        url=$(sed -n 's/^pangaea: live view at //p' "$W/live.err")
        [ -n "$url" ] && break
        sleep 0.1
    done
    [ -n "$url" ] || { echo "pangaea -live said no URL" >&2; cat "$W/live.err" >&2; exit 1; }
    during=$(python3 "$ROOT/bench/pages.py" live-during "$url") || during='{"error": "the page did not catch up"}'
    after=$(PAGES_SHOTS=$(shot live "$n") python3 "$ROOT/bench/pages.py" live "$url") || after='{"error": "the page did not load"}'
    say "{\"page\": \"live\", \"events\": $n, \"during\": $during, \"after\": $after}"
    kill -INT "$PID"; sleep 1; kill -INT "$PID" 2>/dev/null
    wait "$PID" 2>/dev/null
    PID=
    rm -rf "$W/flood$n"
done
pg_pvm_stop
