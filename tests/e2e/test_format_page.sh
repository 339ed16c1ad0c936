#!/usr/bin/env bash
# test_format_page.sh - docs/comm-log-format.md is enough to read a log.
#
# docs/comm_log_reader.py is a reader of format 4 written from the page
# alone (no code of Pangaea's). Recordings with every kind of
# communication event (plain_variety: sends, multicasts, receives, polls;
# plain_notify: notices; plain_query: queries; group_race: group lookups,
# joins, leaves; SOR: call sites and filters predicted across blocks;
# plain_race, also pruned by `pangaea -min`: a race-only log with its
# gaps; and a synthetic recording with every call code and every event
# kind, `gen_logs DIR every`) are read by it, and every field of every
# event must be what `pangaea -dump` says of the same log. A page that
# leaves out or misstates a rule makes them differ.
#
# The page's lists of call codes, the reader's, and the reader's event
# kinds are held to the tables (src/pvm/wrap/pg_calls.def's code columns,
# src/log/pg_events.def), as `gen_logs codes` prints them.
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
        timeout 120 python3 -S "$READER" "$f" "$dir/$name.xml" >>"$dir/$name.cmp" 2>&1 ||
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

# ---- the codes: the page's lists and the reader's, against the tables ----
"$PG_BUILD/tests/gen_logs" codes >"$dir/codes" || pg_fail "gen_logs codes failed"
# "msg CODE NAME" / "query CODE NAME": the page's two blocks of call codes
python3 -S - "$PG_ROOT/docs/comm-log-format.md" >"$dir/page_codes" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
at = text.index("**The call**")
blocks = re.findall(r"\n\n((?:    .*\n)+)", text[at:at + 3000])[:2]
for space, block in zip(("msg", "query"), blocks):
    for code, name in re.findall(r"(\d+) (\S+)", block):
        print(space, code, name)
EOF
python3 -S - "$PG_ROOT/docs" >"$dir/reader_codes" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import comm_log_reader as r
for space, calls in (("msg", r.MSG_CALLS), ("query", r.QUERY_CALLS)):
    for code, name in enumerate(calls):
        print(space, code, name)
for code, (name, _) in sorted(r.OTHER.items()):
    print("kind", code, name)
EOF
grep -v '^kind' "$dir/codes" >"$dir/call_codes"
if [ "$(wc -l <"$dir/call_codes")" -gt 20 ] && cmp -s "$dir/call_codes" "$dir/page_codes"; then
    pg_pass "the page lists the $(wc -l <"$dir/call_codes") call codes of the table"
else
    pg_fail "the page's call codes differ from the table's (< table, > page):"
    diff "$dir/call_codes" "$dir/page_codes" | head -8
fi
reader_kinds_ok() {
    local k code name
    while read -r k code name; do
        grep -qx "kind $code $name" "$dir/codes" || return 1
    done < <(grep '^kind' "$dir/reader_codes")
}
if cmp -s "$dir/call_codes" <(grep -v '^kind' "$dir/reader_codes") && reader_kinds_ok; then
    pg_pass "the reader's call codes and event kinds are the table's"
else
    pg_fail "the reader's codes differ from the table's (< table, > reader):"
    diff "$dir/codes" "$dir/reader_codes" | head -8
fi

# ---- every call code and event kind, through the reader -------------------
mkdir -p "$dir/every"
if "$PG_BUILD/tests/gen_logs" "$dir/every" every >/dev/null; then
    check every "$dir/every"
else
    pg_fail "every: gen_logs could not write the recording"
fi

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
