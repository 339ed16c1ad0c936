#!/usr/bin/env bash
# test_perfetto.sh - `pangaea -export perfetto`: Perfetto's protobuf trace.
#
# The trace is read with `protoc --decode_raw` (the wire format without
# Perfetto's schema) by perfetto_check.py, which sets it against the logs
# as `pangaea -dump` and `pangaea -races -jsonl` show them:
# 1. A small recording (plain_race: 2 workers whose messages race at the
#    master): one track per task, named by its ltid; on each track as many
#    events as the task's sends and receives; a flow per matched message,
#    started at its send's track and ended at its receive's, each id once;
#    a race marker per racing receive, at that receive; event names carry
#    the call site ("pvm_recv plain_race.c:LINE"); a receive that waited
#    (waited= in its log) is also a slice of the same length, ending at
#    its return.
# 2. The JSON trace is still there as -export perfetto-json.
# 3. Generated recordings of 20,000 events (gen_logs: the default mix,
#    "star": every receive races, and the default mix with clocks that
#    step back halfway, written on BOOTTIME where the sequence's clock
#    cannot go back) hold the same, each event at its logged time, and
#    cost <= 40 bytes an event (the JSON cost ~280); a packet's time is
#    the microseconds since its task's last packet, 1-2 bytes where the
#    nanoseconds since the trace's start were 5-7 (on average < 2.5 but
#    where the clocks step back).
# 4. A directory that is no recording: exit 2, named.  A terminal as
#    stdout (script(1) gives one): refused, exit 2, no bytes on it.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
HERE=$(cd "$(dirname "$0")" && pwd)
CHECK="python3 -S $HERE/perfetto_check.py $PANGAEA"
jget() { python3 -S -c "import json,sys; d=json.loads(sys.argv[1]); print($2)" "$1"; }

command -v protoc >/dev/null || pg_fail "protoc is needed (protobuf-compiler: scripts/install-deps.sh test)"

# check NAME LOGDIR TRACE: the trace holds what the logs hold; sets $res
check() {
    res=
    if ! "$PANGAEA" -export perfetto "$2" >"$3" 2>"$3.err"; then
        pg_fail "$1: -export perfetto failed"; cat "$3.err"; return 1
    fi
    if ! res=$($CHECK "$2" "$3" 2>"$3.chk"); then
        pg_fail "$1: the trace is not protobuf, or the check failed:"; tail -3 "$3.chk"; return 1
    fi
    if [ "$(jget "$res" 'len(d["problems"])')" = 0 ] &&
       [ "$(jget "$res" 'd["flows"] > 0 and d["races"] > 0 and d["tracks"] > 1')" = True ]; then
        pg_pass "$1: $(jget "$res" '"%d tracks, %d events, %d flows, %d race markers: as in the logs" % (d["tracks"], d["events"], d["flows"], d["races"])')"
    else
        pg_fail "$1: $(jget "$res" '[d[k] for k in ("tracks", "events", "flows", "races")], d["problems"][:5]')"
        return 1
    fi
}

# ---- 1, 2: a small recording -------------------------------------------------
pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
if timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$PG_BUILD/tests/plain_race" 2 5 >"$dir/rec.out" 2>&1; then
    if check "plain_race 2 5" "$dir/logs" "$dir/trace.pb"; then
        if [ "$(jget "$res" 'any(__import__("re").fullmatch(r"pvm_\w*recv plain_race\.c:\d+", n) for n in d["names"])')" = True ]; then
            pg_pass "plain_race: receives are named by their call site ($(jget "$res" '[n for n in d["names"] if "recv" in n][0]'))"
        else
            pg_fail "plain_race: no receive named by its call site: $(jget "$res" 'd["names"]')"
        fi
        # the master waits for its workers: its receives' waits are slices
        if [ "$(jget "$res" 'd["waits"]')" -gt 0 ]; then
            pg_pass "plain_race: $(jget "$res" 'd["waits"]') receives that waited are slices as long as their logged waits"
        else
            pg_fail "plain_race: no receive's wait in the trace (the logs: $(grep -c 'waited=' <("$PANGAEA" -dump "$dir/logs")))"
        fi
    fi
    if "$PANGAEA" -export perfetto-json "$dir/logs" >"$dir/trace.json" &&
       python3 -S -c 'import json,sys; d=json.load(open(sys.argv[1])); assert any(e["ph"] == "s" for e in d["traceEvents"])' "$dir/trace.json"; then
        pg_pass "-export perfetto-json still writes the trace JSON, with its flows"
    else
        pg_fail "-export perfetto-json: no trace JSON with flows"
    fi
else
    pg_fail "plain_race 2 5: recording failed"; tail -5 "$dir/rec.out"
fi
pg_pvm_stop

# ---- 3: generated recordings: counts and bytes an event -----------------------
for shape in "8 20000" "9 20000 star" "8 20000 0 stepback"; do
    g=$dir/gen-${shape// /-}
    mkdir -p "$g"
    if "$PG_BUILD/tests/gen_logs" "$g" $shape >/dev/null; then
        check "generated $shape" "$g" "$g.pb" &&
        if [ "$(jget "$res" 'd["bytes_per_event"] <= 40')" = True ]; then
            pg_pass "generated $shape: $(jget "$res" 'd["bytes_per_event"]') bytes an event (<= 40)"
        else
            pg_fail "generated $shape: $(jget "$res" 'd["bytes_per_event"]') bytes an event (> 40)"
        fi
        case $shape in *stepback) continue ;; esac
        if [ "$(jget "$res" 'd["time_bytes"] < 2.5')" = True ]; then
            pg_pass "generated $shape: a packet's time takes $(jget "$res" 'd["time_bytes"]') bytes (< 2.5: a delta in microseconds)"
        else
            pg_fail "generated $shape: a packet's time takes $(jget "$res" 'd["time_bytes"]') bytes (>= 2.5)"
        fi
    else
        pg_fail "gen_logs $shape failed"
    fi
done

# ---- 4: no recording -----------------------------------------------------------
mkdir -p "$dir/empty"
rc=0
"$PANGAEA" -export perfetto "$dir/empty" >"$dir/e.out" 2>"$dir/e.err" || rc=$?
if [ "$rc" = 2 ] && grep -qF "$dir/empty" "$dir/e.err" && [ ! -s "$dir/e.out" ]; then
    pg_pass "a directory with no logs: exit 2, named, no trace written"
else
    pg_fail "a directory with no logs: exit $rc: $(cat "$dir/e.err")"
fi

if [ -d "$dir/gen-8-20000" ] && command -v script >/dev/null; then
    rc=0
    script -qec "$PANGAEA -export perfetto $dir/gen-8-20000" /dev/null >"$dir/tty.out" 2>&1 || rc=$?
    if [ "$rc" = 2 ] && grep -q "writes a binary trace: redirect it to a file" "$dir/tty.out" &&
       ! grep -q "pvm_send" "$dir/tty.out"; then
        pg_pass "a terminal as stdout: refused (exit 2), nothing binary written to it"
    else
        pg_fail "a terminal as stdout: exit $rc: $(head -c 300 "$dir/tty.out" | tr -cd '[:print:]\n')"
    fi
fi

pg_summary
