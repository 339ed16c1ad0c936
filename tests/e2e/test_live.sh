#!/usr/bin/env bash
# test_live.sh - the live view: `pangaea -log|-replay -live -live-wait`.
#
# plain_live's two workers wait at gates (files) the test opens, so every
# check "mid-run" is made while the run is held, never by timing luck.
# 1. Recording: /events.json fetched at gate 1 and again after gate 1
#    opened (the run is then held at gate 2): the count grows and stays
#    below the final count; headless Chromium loads / at gate 1 and shows
#    a row per task that has started (its execution log is written), then
#    opens gate 1 itself: the page gets the new events and, left at the
#    newest, follows them (in the replay, scrolled away, it stays); after
#    the run (-live-wait keeps the page) the count equals the events of the
#    comm logs (pangaea -dump, xmllint), ?since=N gives the events from the
#    N-th on, each once; only GET is answered (405 otherwise, 404 for
#    other paths); the server listens on 127.0.0.1 only.
# 2. Replay of it: the same counts, growing between the gates; at gate 1
#    the first task waits, and the page says for which recorded message:
#    its (2*(ROUNDS/3)+1)-th receive in the recording (pangaea -dump); the
#    replay prints what the recording printed.
#    Replay's position files (a directory in the log directory) are gone
#    after each run, and so is one a killed pangaea left.
# 3. A stalled replay: with GATEDIR/stop a worker stops for good at gate 2
#    (the program behaves otherwise than when recorded); pangaea reports
#    the stall, and the page, kept by -live-wait, marks the first task
#    stalled and names the recorded message it waits for, the
#    (2*(2*ROUNDS/3)+1)-th receive of its recording.
# 4. A replay that diverges (more rounds than recorded): the tasks pangaea
#    names as diverged are marked so on /events.json, with their reports.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_live
HERE=$(cd "$(dirname "$0")" && pwd)
PAGE="python3 -S $HERE/live_page.py"
R=12


# No pangaea of ours outlives the test, whatever fails.
live_traps


events() { curl -sf "${URL}events.json${1:+?since=$1}"; }
count() { jget "$(events)" 'd["count"]'; }

count_above() { [ "$(count)" -gt "$1" ]; }
said() { grep -q "$2" "$D/$1.err"; }
# waits_of LTID: what task LTID waits for, None while it waits for nothing
# or is not listed yet (then waiting is false, not an IndexError).
waits_of() { jget "$(events)" 'next((t["waits"] for t in d["tasks"] if t["ltid"] == '"$1"'), None)'; }
waiting() { [ "$(waits_of 1)" != None ]; }
# waits_at1: what the first task waits for, "FROM MSGID TAG" ('' if it
# waits for nothing); waits_on WANT: it waits for WANT.
waits_at1() {
    jget "$(events)" '" ".join(str(w) for w in [t["waits"] for t in d["tasks"] if t["ltid"] == 1][0].values())' 2>/dev/null |
        cut -d' ' -f3-5
}
waits_on() { [ "$(waits_at1)" = "$1" ]; }

# The events the comm logs hold (all but call sites and polls, which the
# live view leaves out), counted by xmllint over pangaea -dump.
log_events() {
    local f n=0
    for f in "$1"/ltid-*.comm.pgc; do
        f=${f##*/ltid-}
        n=$((n + $(pg_comm_xml "$1" "${f%.comm.pgc}" | xmllint --xpath \
            'count(/*/*[not(self::header) and not(self::site) and not(self::poll)])' -)))
    done
    echo "$n"
}
# The K-th <recv> of ltid 1's recording as "from msgid tag".
nth_recv() {
    pg_comm_xml "$1" 1 | xmllint --xpath "concat(//recv[$2]/@from, ' ', //recv[$2]/@msgid, ' ', //recv[$2]/@tag)" -
}
started_ltids() { ls "$1" | sed -n 's/^ltid-\([0-9]*\)\.exec\.xml$/\1/p' | sort -n | tr '\n' ' '; }


# at_gate1 NAME: the count while the run is held at gate 1 (C1).
at_gate1() {
    if ! wait_for 60 count_above 0; then
        pg_fail "$1: no event reached /events.json"; return 1
    fi
    C1=$(count)
}
# after_gate1 NAME: once gate 1 is open, the count grows (C2; the run is
# then held at gate 2).
after_gate1() {
    [ -e "$G/gate1" ] || touch "$G/gate1"
    if ! wait_for 60 count_above "$C1"; then
        pg_fail "$1: the count stayed at $C1 after gate 1 opened"; return 1
    fi
    C2=$(count)
    pg_pass "$1: /events.json mid-run: $C1, then $C2"
}

# finish NAME WANT_STATUS: waits for the run's end (-live-wait keeps the
# page), checks the final count against C1 < C2 < final, then lets go.
finish() {
    local name=$1 want=$2
    if ! wait_for 120 said "$name" "the run is over"; then
        pg_fail "$name: the run did not end"; cat "$D/$name.err"
    fi
    FINAL=$(events)
    F=$(count)
    if [ "$C1" -lt "$C2" ] && [ "$C2" -lt "$F" ]; then
        pg_pass "$name: counts mid-run below the final count ($C1 < $C2 < $F)"
    else
        pg_fail "$name: counts $C1, $C2, final $F"
    fi
    expect "$name: the run is over on the page" "$(jget "$FINAL" 'd["running"]')" False
    stop_pangaea
    expect "$name: pangaea's exit status is the run's" "$RC" "$want"
}

# page NAME LOGDIR MIN [live_page.py options]: Chromium's view, with a
# row per started task.
page() {
    local res name=$1 logs=$2 min=$3
    shift 3
    if ! res=$($PAGE - --min-events "$min" "$@" <<<"$PAGE_URL"); then
        pg_fail "$name: the page did not load"; return 1
    fi
    PAGE_RES=$res
    expect "$name: a row per started task" \
        "$(jget "$res" '" ".join(str(r["ltid"]) for r in d["table"]) + " "')" \
        "$(started_ltids "$logs")"
    expect "$name: as many canvas rows" "$(jget "$res" 'd["rows"]')" \
        "$(jget "$res" 'len(d["table"])')"
    expect "$name: nothing loaded but the live view's JSON and the filters' files" \
        "$(jget "$res" 'len(d["other_resources"])')" 0
}
# The view after gate 1 opened under the page: it followed the newest
# events (at the right end), or, scrolled away, it stayed at the start.
follows() {
    local a='d["after"]'
    expect "$1: the page got the new events and follows them" \
        "$(jget "$PAGE_RES" "$a[\"events\"] > d[\"events\"] and $a[\"following\"] and $a[\"maxLeft\"] > 0 and $a[\"scrollLeft\"] >= $a[\"maxLeft\"] - 30")" True
}
stays() {
    local a='d["after"]'
    expect "$1: scrolled away, the page got the new events and stayed" \
        "$(jget "$PAGE_RES" "$a[\"events\"] > d[\"events\"] and not $a[\"following\"] and $a[\"maxLeft\"] > 0 and $a[\"scrollLeft\"] == 0")" True
}

command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
command -v chromedriver >/dev/null || { pg_skip "needs chromium-driver"; exit 0; }
pg_pvm_start || { pg_fail "pvmd did not start"; pg_summary; exit 1; }
D=$(pg_tmpdir)
G=$D/gates
mkdir -p "$G"
LOGS=$D/logs

# ---- 1. recording ----------------------------------------------------------
if start_live rec -log -live -live-wait -logdir "$LOGS" "$PROG" "$R" "$G"; then
    at_gate1 rec
    page "rec mid-run" "$LOGS" "$C1" --open-gate "$G/gate1" && follows "rec mid-run"
    after_gate1 rec
    PORT=${URL##*:}; PORT=${PORT%/}
    if command -v ss >/dev/null; then
        expect "rec: listens on 127.0.0.1 only" \
            "$(ss -Hltn "sport = :$PORT" | awk '{print $4}' | tr '\n' ' ')" "127.0.0.1:$PORT "
    fi
    expect "rec: POST is refused" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "${URL}events.json")" 405
    expect "rec: DELETE is refused" "$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$URL")" 405
    expect "rec: other paths are not found" "$(curl -s -o /dev/null -w '%{http_code}' "${URL}nope")" 404
    touch "$G/gate2"
    finish rec 0
    expect "rec: the final count is the logs' events" "$F" "$(log_events "$LOGS")"
    expect "rec: ?since=0 lists them all, numbered" \
        "$(jget "$FINAL" '[e["i"] for e in d["events"]] == list(range(d["count"]))')" True
    if curl -sf "${URL}events.json" >/dev/null 2>&1; then
        pg_fail "rec: the server still answers after pangaea ended"
    else
        pg_pass "rec: the server is gone once pangaea is"
    fi
    grep -v '^pangaea' "$D/rec.out" >"$D/rec.order"
fi

# ---- bad -live: refused before anything moves ---------------------------------
rc=0; "$PANGAEA" -none -live "$PROG" "$R" "$G" >/dev/null 2>"$D/none.err" || rc=$?
expect "-none -live is refused" "$rc:$(grep -c 'live needs -log or -replay' "$D/none.err")" "2:1"
python3 -S -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(120)' >"$D/busy.port" &
BUSY=$!
wait_for 30 test -s "$D/busy.port"
SUM=$(cat "$LOGS"/ltid-*.comm.pgc | md5sum)
rc=0; "$PANGAEA" -log -live "$(cat "$D/busy.port")" -logdir "$LOGS" "$PROG" "$R" "$G" >/dev/null 2>"$D/busy.err" || rc=$?
kill "$BUSY" 2>/dev/null; wait "$BUSY" 2>/dev/null
expect "a port in use: exit 2, named" "$rc:$(grep -c "cannot serve on 127.0.0.1:$(cat "$D/busy.port")" "$D/busy.err")" "2:1"
expect "a port in use: the last recording stays where it was" \
    "$(cat "$LOGS"/ltid-*.comm.pgc | md5sum):$(ls -d "$LOGS/previous" 2>/dev/null | wc -l)" "$SUM:0"

# ---- 2. replay ---------------------------------------------------------------
rm -f "$G"/gate*
REC_F=$F
# What a pangaea killed outright (SIGKILL) would leave: the next replay
# under -live removes it.
mkdir "$LOGS/.pangaea-live.stale" && : >"$LOGS/.pangaea-live.stale/ltid-1.pos"
if start_live rep -replay -live -live-wait -logdir "$LOGS" "$PROG" "$R" "$G"; then
    if wait_for 60 waiting; then
        # A receive before the gate may wait a moment for a slow sender:
        # the one held by the gate is the one it must come to wait at.
        want=$(nth_recv "$LOGS" $((2 * (R / 3) + 1)))
        wait_for 30 waits_on "$want"
        expect "rep: at gate 1 the first task waits for its recorded receive $((2 * (R / 3) + 1))" \
            "$(waits_at1)" "$want"
    else
        pg_fail "rep: the first task never waited at gate 1"
    fi
    at_gate1 rep
    page "rep mid-run" "$LOGS" "$C1" --open-gate "$G/gate1" --away && stays "rep mid-run"
    after_gate1 rep
    touch "$G/gate2"
    finish rep 0
    expect "rep: the final count is the recording's" "$F" "$REC_F"
    grep -v '^pangaea' "$D/rep.out" >"$D/rep.order"
    if cmp -s "$D/rec.order" "$D/rep.order"; then pg_pass "rep: prints what the recording printed"
    else pg_fail "rep: output differs from the recording's"; fi
fi

# ---- 3. a stalled replay -------------------------------------------------------
rm -f "$G"/gate*
touch "$G/gate1" "$G/gate2" "$G/stop"
K=$((2 * (2 * R / 3) + 1))
WANT=$(nth_recv "$LOGS" "$K")
if PANGAEA_STALL=3 start_live stall -replay -live -live-wait -logdir "$LOGS" "$PROG" "$R" "$G"; then
    if wait_for 120 said stall "the run is over"; then
        if said stall "replay stalled"; then pg_pass "stall: pangaea reports the stall"
        else pg_fail "stall: no stall reported"; cat "$D/stall.err"; fi
        J=$(events)
        expect "stall: /events.json marks ltid 1 stalled" \
            "$(jget "$J" '[t["state"] for t in d["tasks"] if t["ltid"] == 1][0]')" stalled
        expect "stall: /events.json: ltid 1 waits for its recorded receive $K (from msgid tag)" \
            "$(jget "$J" '" ".join(str(x) for x in ([t["waits"] for t in d["tasks"] if t["ltid"] == 1][0] or {}).values())' | cut -d' ' -f3-5)" \
            "$WANT"
        if page "stall page" "$LOGS" 1; then
            expect "stall page: ltid 1's row is marked stalled" \
                "$(jget "$PAGE_RES" '[r["state"] for r in d["table"] if r["ltid"] == 1][0]')" stalled
            read -r wf wm wt <<<"$WANT"
            T=$(jget "$PAGE_RES" '[r["text"] for r in d["table"] if r["ltid"] == 1][0]')
            if [[ $T == *"message $wm from ltid $wf (tag $wt"* ]]; then
                pg_pass "stall page: says what ltid 1 waits for: $T"
            else
                pg_fail "stall page: ltid 1's row says '$T', want message $wm from ltid $wf (tag $wt"
            fi
            expect "stall page: the workers were stopped by pangaea" \
                "$(jget "$PAGE_RES" '" ".join(r["state"] for r in d["table"] if r["ltid"] > 1)')" "stopped stopped"
        fi
    else
        pg_fail "stall: the stalled replay did not end"; cat "$D/stall.err"
    fi
    stop_pangaea
    expect "stall: exit status 3 (stalled)" "$RC" 3
fi
# ---- 4. a replay that diverges ---------------------------------------------------
# Replayed with more rounds than recorded, a worker sends a message the
# recording does not have: each task pangaea names as diverged is marked
# so, with its report as the note.
rm -f "$G"/gate* "$G/stop" && touch "$G/gate1" "$G/gate2"
if start_live div -replay -otherargs -live -live-wait -logdir "$LOGS" "$PROG" $((R + 3)) "$G"; then
    if wait_for 120 said div "the run is over"; then
        J=$(events)
        named=$(sed -n 's/^pangaea: replay diverged in ltid \([0-9]*\) .*/\1/p' "$D/div.err" | sort -n | tr '\n' ' ')
        marked=$(jget "$J" '" ".join(str(t["ltid"]) for t in d["tasks"] if t["state"] == "diverged" and t["note"]) + " "')
        if [ -n "$named" ] && [ "$named" = "$marked" ]; then
            pg_pass "div: the tasks pangaea names as diverged are marked so ($named)"
        else
            pg_fail "div: pangaea names '$named' diverged, the live view marks '$marked'"; cat "$D/div.err"
        fi
    else
        pg_fail "div: the diverging replay did not end"; cat "$D/div.err"
    fi
    stop_pangaea
    expect "div: exit status 3 (diverged)" "$RC" 3
fi
expect "no position directory left behind" "$(ls -d "$LOGS"/.pangaea-live.* 2>/dev/null | wc -l)" 0

pg_pvm_stop
pg_summary
