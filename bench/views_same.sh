#!/usr/bin/env bash
# bench/views_same.sh - do two builds' views of recordings print the same
# bytes?  The check behind a change that should make the views faster
# and nothing else.
#
#   bash bench/views_same.sh --base BUILD [--events N] [--keep DIR]
#                            [--views "races min ..."] [LOGDIR...]
#
# Design.  For every recording and every view that lists races'
# alternatives or runs the race analysis (-races, -races -json, -races
# -jsonl, -min, -display, -export perfetto and perfetto-json), the view
# runs under the base build (--base: a build directory, e.g. main's
# built in /tmp) and this tree's build/, each in the same place (the
# views print paths), and their standard output, standard error, exit
# status and every file they write (-min's rewritten logs, -display's
# page and parts) are compared (diff -r: cmp of each file; -min's lock
# file and the seconds its summary gives are left out; of -display's page
# its data and races blocks, not its script).  Without LOGDIRs the recordings
# are made here: gen_logs' star and star-ack at 9, 64, 256 and 1,000
# tasks (N events, default 10^5), and real ones recorded on a private
# pvmd (tests/e2e/lib.sh: its own PVM_TMP, halted on exit) from the
# test programs the e2e tests of the races record (plain_known's modes,
# group_known, plain_race, sor).  --keep DIR keeps (or reuses, if it
# exists) those recordings.  Prints one line a view and recording and
# exits 1 if any differ.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NEW=$ROOT/build
BASE= EVENTS=100000 KEEP=
VIEWS="races races-json races-jsonl min display perfetto perfetto-json"
while [ $# -gt 0 ]; do
    case $1 in
    --base) BASE=$2; shift 2 ;;
    --events) EVENTS=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --views) VIEWS=$2; shift 2 ;;
    -*) echo "usage: bench/views_same.sh --base BUILD [--events N] [--keep DIR] [--views \"races min ...\"] [LOGDIR...]" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ -n "$BASE" ] && [ -x "$BASE/pangaea" ] && [ -x "$NEW/pangaea" ] ||
    { echo "bench/views_same.sh: --base BUILD and build/ must hold pangaea" >&2; exit 2; }
# lib.sh: the private pvmd and a temp base removed on exit
. "$ROOT/tests/e2e/lib.sh"
W=$PG_TMP_BASE

# record_all DIR: the gen_logs shapes and the real recordings into DIR.
record_all() {
    local d=$1 t s m
    for t in 9 64 256 1000; do
        for s in star star-ack; do
            mkdir -p "$d/$s.$t" &&
                "$NEW/tests/gen_logs" "$d/$s.$t" "$t" "$EVENTS" "$s" >/dev/null ||
                echo "gen_logs $s $t failed" >&2
        done
    done
    pg_pvm_start || { echo "no private pvmd: gen_logs recordings only" >&2; return 0; }
    for m in wild poll notice direct apart; do
        timeout 120 "$NEW/pangaea" -log -logdir "$d/plain_known.$m" \
            "$NEW/tests/plain_known" "$m" >/dev/null 2>&1 || echo "plain_known $m failed" >&2
    done
    timeout 120 "$NEW/pangaea" -log -logdir "$d/group_known" "$NEW/tests/group_known" >/dev/null 2>&1
    timeout 120 "$NEW/pangaea" -log -logdir "$d/plain_race" "$NEW/tests/plain_race" 2 5 >/dev/null 2>&1
    timeout 120 "$NEW/pangaea" -log -logdir "$d/sor" "$NEW/sor" 4 >/dev/null 2>&1
    pg_pvm_stop
}

# full PANGAEA: -full, where that build has it: the JSON reports of a
# build that writes races as changes from the race before are compared
# in full (tests/e2e/test_races_changes.sh holds the changes to it).
full() { "$1" -help 2>&1 | grep -q -- ' -full' && echo -full; }

# run BUILD VIEW DIR OUT: the view by BUILD on DIR; its stdout, stderr,
# exit and written files under OUT.
run() {
    local p=$1/pangaea view=$2 d=$3 out=$4 rc=0
    mkdir -p "$out"
    case $view in
    races) "$p" -races "$d" ;;
    races-json) "$p" -races -json $(full "$p") "$d" ;;
    races-jsonl) "$p" -races -jsonl $(full "$p") "$d" ;;
    min) "$p" -min "$d" ;;
    display) "$p" -display "$d" ;;
    perfetto) "$p" -export perfetto "$d" ;;
    perfetto-json) "$p" -export perfetto-json "$d" ;;
    esac >"$out/stdout" 2>"$out/stderr" || rc=$?
    echo "$rc" >"$out/rc"
    case $view in
    min) # the lock names the process and the binary, the summary the
         # seconds the pruning took: neither is the view's output
         cp -r "$d" "$out/logs" && rm -f "$out/logs/.pangaea.lock"
         sed -i 's/ in [0-9.]* s$/ in T s/' "$out/stderr" ;;
    display) # the page's data and races blocks, not its script: a change
             # of the page's script is no change of what it shows
             [ -e "$d/pangaea-graph.html" ] && python3 -S -c '
import re, sys
t = open(sys.argv[1]).read()
for k in ("data", "races"):
    m = re.search(r"<script id=\"pangaea-%s\"[^>]*>(.*?)</script>" % k, t, re.S)
    open(sys.argv[2] + "." + k, "w").write(m.group(1) if m else "")' \
                 "$d/pangaea-graph.html" "$out/page" && rm "$d/pangaea-graph.html"
             [ -e "$d/pangaea-graph.parts" ] && mv "$d/pangaea-graph.parts" "$out/" ;;
    esac
    return 0
}

# same VIEW DIR: both builds, each on a fresh copy of DIR at one path.
same() {
    local view=$1 src=$2 b
    for b in base new; do
        rm -rf "$W/rec" "$W/$b"
        cp -r "$src" "$W/rec"
        if [ $b = base ]; then run "$BASE" "$view" "$W/rec" "$W/$b"
        else run "$NEW" "$view" "$W/rec" "$W/$b"; fi
    done
    if diff -r -q "$W/base" "$W/new" >"$W/diff" 2>&1; then
        echo "same: $view $(basename "$src") ($(wc -c <"$W/new/stdout") bytes out)"
    else
        echo "DIFFER: $view $(basename "$src")"; cat "$W/diff"; bad=1
    fi
}

# (a function, read whole before it runs: the script may be edited
# while a long comparison runs)
main() {
    if [ $# -eq 0 ]; then
        recs=${KEEP:-$W/recs}
        [ -d "$recs" ] || { mkdir -p "$recs" && record_all "$recs"; }
        set -- "$recs"/*
    fi
    bad=0
    for d in "$@"; do
        for v in $VIEWS; do
            same "$v" "$d"
        done
    done
    [ $bad = 0 ] && echo "views_same: every view the same" || echo "views_same: some views differ"
    exit $bad
}
main "$@"
