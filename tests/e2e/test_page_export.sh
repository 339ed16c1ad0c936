#!/usr/bin/env bash
# test_page_export.sh - the "Export for Perfetto" button of both event-graph
# pages, clicked in headless Chromium (export_page.py keeps what the
# browser downloads), each file checked against the logs
# (display_check.py, which reads them apart from the pages).
#
# 1. -display of a generated run (gen_logs: 6 tasks, 20,000 events with
#    multicasts, lost and unmatched messages), the whole run in view and
#    no filter: every recorded message is one flow from its send's slice
#    to its receive's (display_check.py perfetto), every task's sends and
#    receives a slice each.
# 2. ltid 2 hidden by the filters: no slice of ltid 2, the others' all,
#    fewer flows, each still joining two slices of the file.
# 3. zoomed in: fewer slices than the run's, some, every flow whole.
# 4. -live (a recording of plain_flood, 8 workers flooding the first
#    task), after the run: 1 and 2 again, against that run's logs.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
D=$(pg_tmpdir)
. "$HERE/live_lib.sh"
live_traps 'rm -rf "$D"'

# check NAME RESULT LOGDIR OUTDIR: 1-3 for one page.
check() {
    local name=$1 res=$2 logs=$3 out=$4 cnt
    cnt=$(python3 -S "$HERE/display_check.py" count "$logs")
    expect "$name: whole run, no filter: every message one flow from its send to its receive" \
        "$(python3 -S "$HERE/display_check.py" perfetto "$logs" "$out/all.json" | python3 -S -c 'import json,sys; d=json.load(sys.stdin); print(d["messages"] == d["flows"] > 0, d["problems"][:3])')" \
        "True []"
    expect "$name: whole run, no filter: each task's sends and receives, a slice each" \
        "$(jget "$res" 'sorted((int(l), n) for l, n in d["all"]["slices"].items())')" \
        "$(jget "$cnt" 'sorted((int(l), s + r) for l, (s, r) in d["per_ltid"].items() if s + r)')"
    expect "$name: ltid 2 hidden: no slice of it, the other tasks' all" \
        "$(jget "$res" 'sorted((int(l), n) for l, n in d["hidden"]["slices"].items())')" \
        "$(jget "$cnt" 'sorted((int(l), s + r) for l, (s, r) in d["per_ltid"].items() if s + r and l != "2")')"
    expect "$name: ltid 2 hidden: fewer flows (some), each joining two slices of the file" \
        "$(jget "$res" '(0 < d["hidden"]["flows"] < d["all"]["flows"], d["hidden"]["problems"])')" "(True, [])"
    expect "$name: zoomed in: fewer slices (some), every flow whole" \
        "$(jget "$res" '(0 < sum(d["zoomed"]["slices"].values()) < sum(d["all"]["slices"].values()), d["zoomed"]["problems"])')" \
        "(True, [])"
}

logs=$D/run
mkdir -p "$logs" "$D/ex"
"$PG_BUILD/tests/gen_logs" "$logs" 6 20000 >/dev/null || pg_fail "gen_logs failed"
html=$("$PANGAEA" -display "$logs")
if res=$(timeout 180 python3 -S "$HERE/export_page.py" "$html" "$D/ex" 2>"$D/ex.err"); then
    check "-display" "$res" "$logs" "$D/ex"
else
    pg_fail "-display: the export could not be clicked"; tail -5 "$D/ex.err"
fi

if pg_pvm_start; then
    live=$D/flood
    mkdir -p "$D/lex"
    if start_live flood -log -live -live-wait -logdir "$live" "$PG_BUILD/tests/plain_flood" 4 500; then
        if res=$(timeout 180 python3 -S "$HERE/export_page.py" - "$D/lex" --live <<<"$PAGE_URL" 2>"$D/lex.err"); then
            check "-live" "$res" "$live" "$D/lex"
        else
            pg_fail "-live: the export could not be clicked"; tail -5 "$D/lex.err"
        fi
        stop_pangaea
    fi
    pg_pvm_stop
else
    pg_fail "pvmd did not start"
fi
pg_summary
