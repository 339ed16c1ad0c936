#!/usr/bin/env bash
# test_live_guard.sh - the live view answers only its own user
# (src/cli/live/live_guard.c): each attack on its HTTP API is tried and
# seen refused, with nothing done, while the page's own requests work
# (the page itself in Chromium: test_live.sh, test_interactive.sh).
#
# 1. A replay of tests/programs/plain_choice.c under -live -hold
#    -live-wait (its tasks held, so every control has something to act
#    on):
#    - no token, or a wrong one: 403 on the page, the data routes and the
#      controls; no breakpoint made;
#    - a cross-origin POST (Origin of another site), even with the token:
#      403; a cross-origin GET too;
#    - DNS rebinding: a Host other than the address served: 403 (localhost
#      is that address: served);
#    - a control whose body is JSON, multipart or text/plain: 415;
#    - misspelled, duplicated, malformed fields: 400 naming the field;
#    - an ltid, event or message the run does not have (choose, step,
#      alternatives.json, break): 400 naming it; no what-if started;
#    - slow headers: more connections than a client may hold are closed at
#      once, and those sending incomplete headers are closed once idle;
#      then the server answers again;
#    - the page's own way (token header, form body, its Origin) works,
#      and the run then ends as recorded;
#    - the token is on no command line (ps) and in no task's environment.
# 2. -live 0.0.0.0:0: pangaea warns that the page is reachable from the
#    network, and it still requires the token; the token is another one
#    than the first run's.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_choice
HERE=$(cd "$(dirname "$0")" && pwd)
K=4

live_traps

# code ARGS...: the HTTP status of `command curl ARGS` (no token unless
# ARGS has one).
code() { command curl -s -o "$D/body" -w '%{http_code}' "$@"; }
# said_field WHAT WORD: the last answer's error names WORD.
said_field() {
    if grep -q -- "$2" "$D/body"; then pg_pass "$1: the error names $2"
    else pg_fail "$1: the error does not name $2: $(cat "$D/body")"; fi
}
# ok ARGS...: the status of a request made as the page makes it (token
# header, and for a POST its form body).
ok() { code -H "@$D/token.hdr" "$@"; }
ctl() { curl -sf "${URL}control.json"; }
q() { jget "$(ctl)" "$1"; }
master_held() { [ "$(q "any(t['ltid'] == 1 and 'held' in t for t in d['tasks'])")" = True ]; }

command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
pg_pvm_start || { pg_fail "pvmd did not start"; pg_summary; exit 1; }
D=$(pg_tmpdir)
REC=$D/rec

"$PANGAEA" -log -logdir "$REC" "$PROG" "$K" >"$D/rec.out" 2>&1 ||
    pg_fail "the recording failed: $(cat "$D/rec.out")"

# ---- 1. a held replay, attacked ------------------------------------------------
if start_live rep -replay -live 0 -hold -live-wait -logdir "$REC" "$PROG" "$K"; then
    TOKEN1=${PAGE_URL##*token=}
    HP=${URL#http://}; HP=${HP%/}
    PORT=${HP##*:}
    wait_for 30 master_held || pg_fail "the master was never held"

    # -- no token, a wrong one
    for p in "" events.json control.json alternatives.json; do
        expect "no token: GET /$p refused" "$(code "$URL$p")" 403
    done
    expect "no token: the page's own URL without ?token= refused" "$(code "${URL}?token=")" 403
    expect "no token: POST /control/break refused" "$(code -d call=send -d tag=21 "${URL}control/break")" 403
    said_field "no token" token
    WRONG=${TOKEN1%?}$([ "${TOKEN1: -1}" = 0 ] && echo 1 || echo 0) # its last digit changed
    expect "a wrong token: refused" "$(code -H "X-Pangaea-Token: $WRONG" "${URL}control.json")" 403
    expect "a wrong token in the query: refused" "$(code "${URL}events.json?token=nope")" 403
    expect "the printed URL (token in the query) serves the page" "$(code "$PAGE_URL")" 200
    expect "the filters' static files need no token" "$(code "${URL}filter.js")" 200

    # -- cross-origin
    expect "cross-origin POST (the issue's curl): refused" \
        "$(code -H 'Origin: http://evil.example' --data 'call=send&tag=21' "${URL}control/break")" 403
    expect "cross-origin POST, even with the token: refused" \
        "$(ok -H 'Origin: http://evil.example' -d call=send -d tag=21 "${URL}control/break")" 403
    said_field "cross-origin" Origin
    expect "cross-origin GET with the token: refused" \
        "$(ok -H 'Origin: http://evil.example' "${URL}events.json")" 403
    expect "Origin null (a sandboxed page): refused" "$(ok -H 'Origin: null' "${URL}control.json")" 403
    for p in pause step resume; do
        expect "cross-origin POST /control/$p: refused" \
            "$(ok -H 'Origin: http://evil.example' -d '' "${URL}control/$p")" 403
    done

    # -- DNS rebinding: another Host
    expect "wrong Host (rebinding) on /events.json: refused" \
        "$(ok -H "Host: evil.example:$PORT" "${URL}events.json")" 403
    said_field "wrong Host" Host
    expect "wrong Host on /control.json: refused" "$(ok -H "Host: evil.example:$PORT" "${URL}control.json")" 403
    expect "wrong Host, even naming 127.0.0.1 with another port: refused" \
        "$(ok -H "Host: 127.0.0.1:1" "${URL}control.json")" 403
    expect "wrong Host on an unknown path: refused, not 404" "$(code -H "Host: evil.example" "${URL}nope")" 403
    expect "Host localhost:PORT is this server" "$(ok -H "Host: localhost:$PORT" "${URL}control.json")" 200

    # -- content types other than the page's
    expect "a JSON body: refused" \
        "$(ok -H 'Content-Type: application/json' --data '{"call":"send","tag":21}' "${URL}control/break")" 415
    expect "a multipart body: refused" "$(ok -F call=send -F tag=21 "${URL}control/break")" 415
    expect "a text/plain body (a form's enctype): refused" \
        "$(ok -H 'Content-Type: text/plain' --data 'call=send&tag=21' "${URL}control/break")" 415
    expect "a control by GET: 405" "$(ok "${URL}control/break?call=send")" 405

    # -- fields
    expect "misspelled field tga: 400" "$(ok -d tga=5 "${URL}control/break")" 400
    said_field "misspelled tga" tga
    expect "a field given twice: 400" "$(ok -d tag=1 -d tag=2 "${URL}control/break")" 400
    said_field "tag twice" tag
    expect "a malformed tag: 400" "$(ok -d tag=5x "${URL}control/break")" 400
    said_field "tag=5x" tag
    expect "a misspelled field on /events.json: 400" "$(ok "${URL}events.json?snce=3")" 400
    said_field "snce" snce
    expect "a field /control.json does not take: 400" "$(ok "${URL}control.json?ltid=1")" 400
    expect "a token in the body is a field no route takes: 400" "$(ok -d "token=$TOKEN1" "${URL}control/step")" 400
    args=(); for i in $(seq 40); do args+=(-d "f$i=1"); done
    expect "more fields than a form holds: 400" "$(ok "${args[@]}" "${URL}control/step")" 400
    expect "no breakpoint was made by any of the above" "$(q 'len(d["breakpoints"])')" 0

    # -- unknown ltids, events, messages
    expect "choose an ltid the recording lacks: 400" \
        "$(ok -d ltid=99 -d event=5 -d sender=2 -d msgid=1 "${URL}control/choose")" 400
    said_field "choose ltid=99" "ltid 99"
    read -r ev pick msgid <<<"$(jget "$(curl -sf "${URL}alternatives.json?ltid=1")" \
        '(lambda r: "%d %d %d" % (r["event"], r["alternatives"][0]["ltid"], r["alternatives"][0]["msgid"]))(min(d["races"], key=lambda r: r["event"]))')"
    expect "choose an event that is no racing receive: 400" \
        "$(ok -d ltid=1 -d event=$((ev + 100000)) -d sender="$pick" -d msgid="$msgid" "${URL}control/choose")" 400
    said_field "choose event" "event $((ev + 100000))"
    expect "choose a message the receive could not take: 400" \
        "$(ok -d ltid=1 -d event="$ev" -d sender="$pick" -d msgid=$((msgid + 100000)) "${URL}control/choose")" 400
    said_field "choose msgid" "msgid $((msgid + 100000))"
    expect "choose a sender that is no task: 400" \
        "$(ok -d ltid=1 -d event="$ev" -d sender=77 -d msgid="$msgid" "${URL}control/choose")" 400
    expect "no what-if was started" "$(q 'len(d["whatifs"])')" 0
    expect "step an unknown ltid: 400" "$(ok -d ltid=99 "${URL}control/step")" 400
    said_field "step ltid=99" "ltid 99"
    expect "alternatives of an unknown ltid: 400" "$(ok "${URL}alternatives.json?ltid=99")" 400
    expect "a breakpoint on a task the recording lacks: 400" "$(ok -d ltid=99 "${URL}control/break")" 400
    said_field "break ltid=99" "ltid 99"
    expect "a breakpoint's peer the recording lacks: 400" "$(ok -d peer=98 "${URL}control/break")" 400
    said_field "break peer=98" "peer 98"

    # -- the page's own way works
    expect "the page's way: break with its Origin, token and form" \
        "$(ok -H "Origin: http://$HP" -d call=send -d tag=21 "${URL}control/break")" 200
    expect "the breakpoint is listed" "$(q '[b["tag"] for b in d["breakpoints"]]')" "[21]"
    expect "unbreak it" "$(ok -d id=all "${URL}control/unbreak")" 200

    # -- the token on no command line, in no task's environment
    # (grep reads the token from a file: on its command line, it would
    # find itself)
    (umask 077 && echo "$TOKEN1" >"$D/token1")
    if ps -eo args | grep -F -q -f "$D/token1"; then
        pg_fail "the token is on a command line (ps)"
    else
        pg_pass "the token is on no command line (ps)"
    fi
    leaked=0
    for pid in $PID $(q "' '.join(str(t['pid']) for t in d['tasks'])"); do
        tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -F -q -f "$D/token1" && leaked=1
    done
    expect "the token is in the environment of neither pangaea nor its tasks" "$leaked" 0

    # -- slow headers: connections beyond the per-client limit are
    # closed, idle incomplete ones once idle (10 s); then it answers.
    if res=$(python3 -S "$HERE/slow_headers.py" 127.0.0.1 "$PORT" 24 90); then
        expect "slow headers: of 24 connections, the server let one client hold 16" "$(jget "$res" 'd["held"]')" 16
        expect "slow headers: those held were closed once idle" "$(jget "$res" 'd["left_open"]')" 0
    else
        pg_fail "slow headers: $res"
    fi
    expect "after slow headers: the server answers" "$(ok "${URL}control.json")" 200

    # resume all, again as tasks start (-hold holds each at its first call)
    over() { ok -d '' "${URL}control/resume" >/dev/null; grep -q "the run is over" "$D/rep.err"; }
    if wait_for 120 over; then
        stop_pangaea
        expect "the replay ends as recorded" "$RC:$(grep -v '^pangaea' "$D/rep.out" | md5sum)" \
            "0:$(grep -v '^pangaea' "$D/rec.out" | md5sum)"
    else
        pg_fail "the replay did not end"; cat "$D/rep.err"
    fi
fi

# ---- 2. -live 0.0.0.0: a warning, and the token still required ---------------------
if start_live any -log -live 0.0.0.0:0 -live-wait -logdir "$D/any" "$PROG" "$K"; then
    if grep -q "warning: -live 0.0.0.0:[0-9]*: the live page can be reached from the network" "$D/any.err" &&
        grep -q "still requires the token" "$D/any.err"; then
        pg_pass "0.0.0.0: pangaea warns that the page is reachable from the network"
    else
        pg_fail "0.0.0.0: no warning"; cat "$D/any.err"
    fi
    PORT=${URL##*:}; PORT=${PORT%/}
    expect "0.0.0.0: no token, refused" "$(code "http://127.0.0.1:$PORT/events.json")" 403
    expect "0.0.0.0: with the token, served" "$(ok "http://127.0.0.1:$PORT/events.json")" 200
    expect "0.0.0.0: a foreign Host, refused" "$(ok -H "Host: evil.example:$PORT" "http://127.0.0.1:$PORT/events.json")" 403
    expect "0.0.0.0: the host's own name, served" "$(ok -H "Host: $(hostname):$PORT" "http://127.0.0.1:$PORT/events.json")" 200
    if [ "${PAGE_URL##*token=}" != "$TOKEN1" ] && [ ${#TOKEN1} -eq 48 ]; then
        pg_pass "a token of its own per run (48 hex digits)"
    else
        pg_fail "the token is the same across runs, or short: $TOKEN1"
    fi
    stop_pangaea
fi

pg_pvm_stop
pg_summary
