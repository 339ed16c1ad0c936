#!/usr/bin/env bash
# test_format_page.sh - docs/comm-log-format.md is enough to read a log.
#
# docs/comm_log_reader.py is a reader of format 4 written from the page
# alone (no code of Pangaea's). Recordings with every kind of
# communication event (plain_variety: sends, multicasts, receives, polls;
# plain_notify: notices; plain_query: queries; group_race: group lookups,
# joins, leaves; SOR: call sites and filters predicted across blocks;
# plain_race, also pruned by `pangaea -min`: a race-only log with its
# gaps) are read by it, and every field of every event must be what
# `pangaea -dump` says of the same log. A page that leaves out or
# misstates a rule makes them differ.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
READER=$PG_ROOT/docs/comm_log_reader.py
dir=$(pg_tmpdir)
command -v python3 >/dev/null || pg_skip "python3 is not installed"

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }

# check NAME LOGDIR: each comm log read by the page's reader as dumped
check() {
    local name=$1 logs=$2 bad= n=0 f
    "$PANGAEA" -dump "$logs" >"$dir/$name.xml" 2>"$dir/$name.err" ||
        { pg_fail "$name: -dump failed"; cat "$dir/$name.err"; return; }
    for f in "$logs"/ltid-*.comm.pgc; do
        timeout 120 python3 "$READER" "$f" "$dir/$name.xml" >>"$dir/$name.cmp" 2>&1 ||
            bad="$bad ${f##*/}"
        n=$((n + 1))
    done
    events=$(awk '{ s += $3 } END { print s + 0 }' "$dir/$name.cmp")
    if [ -z "$bad" ] && [ "$n" -gt 1 ] && [ "$events" -gt "$n" ]; then
        pg_pass "$name: $n logs, $events events read from the page's rules as -dump reads them"
    else
        pg_fail "$name: the page's reader differs on:$bad"; head -8 "$dir/$name.cmp"
    fi
}

record() { # NAME PROGRAM ARGS...
    local name=$1
    shift
    timeout 120 "$PANGAEA" -log -logdir "$dir/$name" "$@" >"$dir/$name.out" 2>&1 ||
        { pg_fail "$name: the recording failed"; tail -5 "$dir/$name.out"; return 1; }
}

for prog in plain_variety plain_notify plain_query group_race plain_race; do
    record "$prog" "$PG_BUILD/tests/$prog" && check "$prog" "$dir/$prog"
done
record sor "$PG_BUILD/sor" 4 200 30 && check sor "$dir/sor"
if [ -d "$dir/plain_race" ] && cp -r "$dir/plain_race" "$dir/race_min" &&
   "$PANGAEA" -min "$dir/race_min" >/dev/null 2>&1; then
    check race-only "$dir/race_min"
else
    pg_fail "race-only: pangaea -min failed"
fi

pg_pvm_stop
pg_summary
