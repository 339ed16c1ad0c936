#!/usr/bin/env bash
# test_interactive.sh - interactive debugging from the live page, through
# its HTTP API with curl: `pangaea -log|-replay -live -hold`.
#
# tests/programs/plain_choice.c: a master takes 2K results of two workers
# with pvm_recv(-1, 10) and prints which worker's came first; each worker
# ends with a message of its own tag (21, 22).
#  1. Recording with -hold: every task waits before its first PVM call;
#     three "step all" make exactly three more events per task (counted on
#     /events.json), each task held again after each step.
#  2. Recording with -hold, a choice: the workers resumed, the master held
#     at its first wildcard receive lists the queued messages
#     (/alternatives.json); choosing one that is not first in the queue
#     makes the master print that worker's number, and the recording
#     replays with the same output.
#  3. Replay with a conditional breakpoint on pvm_send of tag 21 (not the
#     master's receive of it): worker 1 is held at
#     its pvm_send of tag 21 (the call, tag and why on /control.json),
#     worker 2 goes on to its end, and nothing is reported stalled
#     (PANGAEA_STALL=1, held 3 s); run-to an event of the master holds it
#     once it has done that event; then the run completes as recorded.
#  4. Replay, a choice at a racing receive (the race analysis'
#     alternatives): a what-if run starts, its directory and output are on
#     /control.json, its output is the one the choice implies, and its
#     recording replays identically.
#  5. Without breakpoints or -hold, -live replays as before; -hold without
#     -live is refused.
#  6. The page's buttons in headless Chromium (control_page.py, real
#     clicks): "Step all" three times makes three more events per task,
#     the graph in logical order while tasks are held (real time once the
#     user clicks it, kept over later polls); a breakpoint typed in (tag 21) and "Resume all" hold worker 1 at its
#     pvm_send of tag 21, shown in the panel with its gdb command line;
#     clicking an alternative of the master's racing receive starts a
#     what-if whose output (shown in the panel) is the one the choice
#     implies.
#  7. The gdb command line a held task offers works: gdb attached with it
#     (in batch mode) stops in pg_gate_after once the task is stepped,
#     just after its pvm_send returned, in the program's frame.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_choice
K=4


# The private tmux server of section 10 and the pangaea run inside it
# (not our child: its pid is in a file): ended by their own commands.
TM=
tmux_end() {
    local p
    [ -n "$TM" ] || return 0
    p=$(cat "$D/tmux.pid" 2>/dev/null)
    [ -n "$p" ] && kill -INT "$p" 2>/dev/null && sleep 1 && kill -KILL "$p" 2>/dev/null
    tmux -L "$TM" kill-server 2>/dev/null
    TM=
}
live_traps tmux_end

# finish NAME: waits for the run's end; RC its status.
finish() {
    local i
    for i in $(seq 300); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        pg_fail "$1: the run did not end"; cat "$D/$1.err"
    fi
    stop_pangaea
}


ctl() { curl -sf "${URL}control.json"; }
post() { local p=$1; shift; curl -s -X POST "$@" "${URL}control/$p"; }
# q PYEXPR: PYEXPR on /control.json (d).
q() { jget "$(ctl)" "$1"; }
task() { echo "[t for t in d['tasks'] if t['ltid'] == $1][0]"; }
all_held() { [ "$(q "sum(1 for t in d['tasks'] if t['state'] == 'held')")" = "$1" ]; }
# "H1 H2 H3": the times ltids 1..3 were held so far
holds_of() { q "' '.join(str(t['holds']) for t in sorted(d['tasks'], key=lambda t: t['ltid']))"; }
# holds_all "H1 H2 H3": the three tasks held again, for these times
holds_all() { [ "$(q "len(d['tasks']) == 3 and all(t['held'] for t in d['tasks'])")" = True ] &&
    [ "$(holds_of)" = "$1" ]; }
# plus N "H1 H2 H3": each number plus N
plus() { python3 -S -c "import sys; print(' '.join(str(int(x) + int(sys.argv[1])) for x in sys.argv[2].split()))" "$@"; }
master_held() { [ "$(q "bool([t for t in d['tasks'] if t['ltid'] == 1 and 'held' in t])")" = True ]; }
# held_again LTID H: the task is held for more than H times
held_again() { [ "$(q "'held' in $(task $1) and $(task $1)['holds'] > $2")" = True ]; }
# past_spawns: under -hold every task waits at its first wrapped call
# (the master at its pvm_spawn of worker 1, a worker at its pvm_parent);
# each is stepped alone until all three wait at a send or receive.
past_spawns() {
    local i l h
    wait_for 30 master_held || return 1
    for i in $(seq 12); do
        [ "$(q "len(d['tasks']) == 3 and all('held' in t and t['held']['call'] in ('pvm_send', 'pvm_recv') for t in d['tasks'])")" = True ] &&
            return 0
        for l in $(q "' '.join(str(t['ltid']) for t in d['tasks'] if 'held' in t and t['held']['call'] not in ('pvm_send', 'pvm_recv'))"); do
            h=$(jget "$(post step -d ltid="$l")" 'd["calls"][0]["holds"] if d["calls"] else -1')
            [ "$h" -ge 0 ] && { wait_for 20 held_again "$l" "$h" || return 1; }
        done
        sleep 0.2
    done
    return 1
}
# "N1 N2 N3": the events of ltids 1..3 on /events.json
ev_counts() {
    jget "$(curl -sf "${URL}events.json")" \
        '" ".join(str(sum(1 for e in d["events"] if e["ltid"] == l)) for l in (1, 2, 3))'
}
counts_are() { [ "$(ev_counts)" = "$1" ]; }
out() { sed -n 's/^\[1\] //p' "$1"; }

command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
command -v chromedriver >/dev/null || { pg_skip "needs chromium-driver"; exit 0; }
pg_pvm_start || { pg_fail "pvmd did not start"; pg_summary; exit 1; }
D=$(pg_tmpdir)
REC=$D/rec

# ---- 1. recording: hold, step all three times ------------------------------
if start_live step -log -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    wait_for 30 master_held
    expect "-hold: the master waits at its first call, pvm_spawn, with its arguments" \
        "$(q "$(task 1)['held']['call'] + ' ' + $(task 1)['held']['args'].split('/')[-1]")" \
        "pvm_spawn plain_choice count 1"
    if past_spawns; then
        pg_pass "-hold: stepped through its spawns, the three tasks wait at PVM calls"
        expect "held: the master at its first wildcard receive" \
            "$(q "$(task 1)['held']['call'] + ' ' + str($(task 1)['held']['peer']) + ' ' + str($(task 1)['held']['tag'])")" "pvm_recv -1 10"
        sleep 0.5 # the snapshot is read every 0.2 s at least
        before=$(ev_counts)
        h0=$(holds_of)
        for i in 1 2 3; do
            r=$(post step -d '')
            wait_for 20 holds_all "$(plus $i "$h0")" ||
                { pg_fail "step $i: the tasks are not all held again: $(ctl)"; break; }
        done
        want=$(python3 -S -c "import sys; print(' '.join(str(int(x) + 3) for x in sys.argv[1].split()))" "$before")
        wait_for 10 counts_are "$want"
        sleep 0.5
        expect "step all three times: three more events per task (were $before)" \
            "$(ev_counts)" "$want"
        expect "a step answers the tasks it let go" "$(jget "$r" 'd["stepped"]')" "[1, 2, 3]"
    else
        pg_fail "-hold: the tasks are not all held: $(ctl)"
    fi
    post resume -d '' >/dev/null
    finish step
    expect "resumed, the recording ends normally" "$RC" 0
fi

# ---- 2. recording: choose the message a held receive takes -----------------
REC2=$D/rec2
if start_live choose -log -live 0 -hold -logdir "$REC2" "$PROG" "$K"; then
    past_spawns
    post resume -d ltid=2 >/dev/null
    post resume -d ltid=3 >/dev/null
    # both workers' results queued at the master: K each, but PVM keeps a
    # sender's order, so only each worker's first is a choice
    queued() { [ "$(q "len(set(c['ltid'] for c in $(task 1)['held']['candidates']))")" -ge 2 ]; }
    if wait_for 20 queued; then
        alts=$(curl -sf "${URL}alternatives.json?ltid=1")
        expect "choose offers one message per sender, its oldest (msg 1)" \
            "$(jget "$alts" '" ".join(sorted("%d:%d" % (a["ltid"], a["msgid"]) for a in d["races"][0]["alternatives"]))')" \
            "2:1 3:1"
        read -r first pick msgid <<<"$(jget "$alts" '"%d %d %d" % (lambda a: (a[0]["ltid"], [x for x in a if x["ltid"] != a[0]["ltid"]][0]["ltid"], [x for x in a if x["ltid"] != a[0]["ltid"]][0]["msgid"]))(d["races"][0]["alternatives"])')"
        r=$(post choose -d ltid=1 -d sender="$pick" -d msgid="$msgid")
        expect "choose: accepted" "$(jget "$r" 'd["ok"]')" True
        post resume -d '' >/dev/null
        finish choose
        expect "the chosen message was taken (queue's first: ltid $first)" \
            "$(out "$D/choose.out" | head -1)" "first from worker $((pick - 1))"
        "$PANGAEA" -replay -logdir "$REC2" "$PROG" "$K" >"$D/choose.rep" 2>&1
        expect "the recording with the choice replays identically" \
            "$(out "$D/choose.rep" | tr '\n' '|')" "$(out "$D/choose.out" | tr '\n' '|')"
    else
        pg_fail "choose: the master's queued messages are not listed: $(ctl)"
        post resume -d '' >/dev/null
        finish choose
    fi
fi

# ---- 3. replay: a breakpoint on a tag, run-to ------------------------------
if PANGAEA_STALL=1 start_live brk -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    past_spawns
    r=$(post break -d call=send -d tag=21) # the master's receive of it: not
    expect "break: an id" "$(jget "$r" 'd["id"]')" 1
    post resume -d '' >/dev/null
    at_bp() { [ "$(q "$(task 2)['state']")" = held ]; }
    w2_ended() { [ "$(q "$(task 3)['state']")" = ended ]; }
    if wait_for 20 at_bp && wait_for 20 w2_ended; then
        expect "worker 1 held at the breakpoint's call" \
            "$(q "' '.join(str($(task 2)['held'][k]) for k in ('call', 'tag', 'why'))")" \
            "pvm_send 21 breakpoint 1 (match 1)"
        pg_pass "the others went on (worker 2 ended)"
        # (running, or "waiting" once PANGAEA_STALL=1 has passed while
        # worker 1 is held: either way not held)
        expect "the master, at its receive of tag 21, is not held" \
            "$(q "$(task 1)['state'] in ('running', 'waiting') and 'held' not in $(task 1)")" True
        sleep 3
        if grep -qi "stall" "$D/brk.err"; then
            pg_fail "a held task was reported stalled"; cat "$D/brk.err"
        else
            pg_pass "held 3 s with PANGAEA_STALL=1: nothing reported stalled"
        fi
        expect "the page says the master waits (while a task is held), not stalled" \
            "$(jget "$(curl -sf "${URL}events.json")" '[t["state"] for t in d["tasks"] if t["ltid"] == 1][0]')" waiting
        expect "the breakpoint counted one match" "$(q "d['breakpoints'][0]['count']")" 1
    else
        pg_fail "breakpoint: not held there, or worker 2 did not end: $(ctl)"
    fi
    expect "unbreak" "$(jget "$(post unbreak -d id=1)" 'd["removed"]')" 1
    post resume -d '' >/dev/null
    finish brk
    expect "replay with a breakpoint: status" "$RC" 0
    expect "replay with a breakpoint: the recorded output" \
        "$(out "$D/brk.out" | tr '\n' '|')" "$(out "$D/step.out" | tr '\n' '|')"
fi
# run-to LTID:E stops the task just after event E (before its next call),
# E numbered as `pangaea -dump` numbers the recording, call-site records
# included; the held call's "event" is its own record's number.
# dump_seq REC LTID N: "SEQ KIND TAG" of the N-th record (1-based) of LTID
# among its <send>/<recv>/<site> records, from -dump.
dump_recs() {
    "$PANGAEA" -dump "$1" "$2" | python3 -S -c '
import re, sys
for l in sys.stdin:
    m = re.match(r"\s*<(\w+) seq=\"(\d+)\"", l)
    if m:
        t = re.search(r" tag=\"(-?\d+)\"", l)
        print(m.group(2), m.group(1), t.group(1) if t else "-")'
}
# runto_check NAME MODE LOGDIR: run-to the master's receive of tag 21 (its
# event number and the next records' taken from DUMPREC's -dump), then
# checks where it was held; the recording is dumped again after a -log.
runto_check() {
    local name=$1 mode=$2 dir=$3 E N site
    read -r E <<<"$(dump_recs "$REC" 1 | awk '$2 == "recv" && $3 == 21 {print $1; exit}')"
    if [ -z "$E" ]; then pg_fail "$name: no receive of tag 21 in the dump of $REC"; return; fi
    start_live "$name" "$mode" -live 0 -hold -logdir "$dir" "$PROG" "$K" || return
    past_spawns
    post runto -d ltid=1 -d event="$E" >/dev/null
    post resume -d ltid=2 >/dev/null
    post resume -d ltid=3 >/dev/null
    at_e() { [ "$(q "'held' in $(task 1) and $(task 1)['held']['why'].startswith('run-to')")" = True ]; }
    if wait_for 20 at_e; then
        got=$(q "' '.join(str($(task 1)['held'][k]) for k in ('done', 'event', 'call', 'tag'))")
    else
        got=; pg_fail "$name: the master was not held by run-to: $(ctl)"
    fi
    post resume -d '' >/dev/null
    finish "$name"
    expect "$name: status" "$RC" 0
    # the recording just made, or the one replayed: what -dump says
    read -r site N <<<"$(dump_recs "$dir" 1 | awk -v e="$E" '$1 == e + 1 {s = $2} $1 > e && $2 != "site" {print s, $1; exit}')"
    [ "$site" = site ] || pg_fail "$name: no call-site record right after event $E (the case to test)"
    expect "$name: run-to $E held the master just after event $E, before its receive of tag 22 (event $N, after the site record $((E + 1)))" \
        "$got" "$E $N pvm_recv 22"
    expect "$name: event $E in the dump is the receive of tag 21" \
        "$(dump_recs "$dir" 1 | awk -v e="$E" '$1 == e {print $2, $3}')" "recv 21"
}
runto_check runto -replay "$REC"
runto_check runto-log -log "$D/rec-runto"

# ---- 4. replay: choose another match at a racing receive: a what-if ------
if start_live wi -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    past_spawns
    alts=$(curl -sf "${URL}alternatives.json?ltid=1")
    read -r ev took pick msgid <<<"$(jget "$alts" '(lambda r: "%d %d %d %d" % (r["event"], r["took"]["ltid"], [a for a in r["alternatives"] if a["ltid"] != r["took"]["ltid"]][0]["ltid"], [a for a in r["alternatives"] if a["ltid"] != r["took"]["ltid"]][0]["msgid"]))(min(d["races"], key=lambda r: r["event"]))')"
    r=$(post choose -d ltid=1 -d event="$ev" -d sender="$pick" -d msgid="$msgid")
    wdir=$(jget "$r" 'd["dir"]')
    wi_done() { [ "$(q "d['whatifs'][0]['state']")" != running ]; }
    if [ -n "$wdir" ] && wait_for 60 wi_done; then
        expect "what-if from the page: done" "$(q "d['whatifs'][0]['state']")" done
        wout=$(q "d['whatifs'][0]['output']")
        expect "the what-if's output is the choice's (took ltid $took, chose $pick)" \
            "$(sed -n 's/^\[1\] //p' <<<"$wout" | head -1)" "first from worker $((pick - 1))"
        "$PANGAEA" -replay -logdir "$wdir" "$PROG" "$K" >"$D/wi.rep" 2>&1
        expect "the what-if recording replays identically" \
            "$(out "$D/wi.rep" | tr '\n' '|')" "$(sed -n 's/^\[1\] //p' <<<"$wout" | tr '\n' '|')"
    else
        pg_fail "what-if from the page: $r $(ctl)"
    fi
    post resume -d '' >/dev/null
    finish wi
    expect "the watched replay went on as recorded" \
        "$(out "$D/wi.out" | tr '\n' '|')" "$(out "$D/step.out" | tr '\n' '|')"
fi

# ---- 5. no breakpoints: -live as before; -hold needs -live -----------------
if start_live free -replay -live 0 -logdir "$REC" "$PROG" "$K"; then
    finish free
    expect "replay under -live without breakpoints: status" "$RC" 0
    expect "replay under -live without breakpoints: the recorded output" \
        "$(out "$D/free.out" | tr '\n' '|')" "$(out "$D/step.out" | tr '\n' '|')"
fi
rc=0
"$PANGAEA" -replay -hold -logdir "$REC" "$PROG" "$K" >"$D/nolive.out" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -q -- "-hold needs -live" "$D/nolive.out"; then
    pg_pass "-hold without -live is refused (exit 2)"
else
    pg_fail "-hold without -live: exit $rc"; cat "$D/nolive.out"
fi

# ---- 6. the same from the page's buttons, in headless Chromium -----------
PAGE="python3 -S $(cd "$(dirname "$0")" && pwd)/control_page.py"
if start_live pstep -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    past_spawns
    sleep 0.5
    before=$(ev_counts)
    if res=$($PAGE - step 3 <<<"$PAGE_URL"); then
        want=$(python3 -S -c "import sys; print(' '.join(str(int(x) + 3) for x in sys.argv[1].split()))" "$before")
        wait_for 10 counts_are "$want"
        sleep 0.5
        expect "page: Step all three times: three more events per task (were $before)" "$(ev_counts)" "$want"
        expect "page: every task held again after each click" \
            "$(jget "$res" '[[h - h0 for (_, h, _), (_, h0, _) in zip(s, d["holds"][0])] for s in d["holds"]]')" "[[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3]]"
        expect "page: tasks held, the graph in logical order; real time once clicked, kept over polls" \
            "$(jget "$res" '(d["view"]["held"], d["view"]["chosen"])')" "('logical', 'real')"
    else
        pg_fail "page: step all did not work"
    fi
    if res=$($PAGE - break 21 --shot "$D/break.png" <<<"$PAGE_URL"); then
        expect "page: the breakpoint listed" "$(jget "$res" 'd["breakpoints"][0]')" \
            "#1: call any, ltid any, peer any, tag 21, size any (0 matches) "
        expect "page: worker 1 shown held at its send of tag 21" \
            "$(jget "$res" '[(r["call"], r["why"].split(" at ")[0]) for r in d["table"] if r["ltid"] == 2][0]')" \
            "('pvm_send(ltid 1, tag 21, 4 bytes)', 'breakpoint 1 (match 1)')"
        expect "page: its gdb command line" \
            "$(jget "$res" '[r["gdb"].split()[0:2] for r in d["table"] if r["ltid"] == 2][0]')" "['gdb', '-p']"
    else
        pg_fail "page: the breakpoint did not hold a task"
    fi
    post unbreak -d id=all >/dev/null
    post resume -d '' >/dev/null
    finish pstep
    expect "page: the replay ends as recorded" "$(out "$D/pstep.out" | tr '\n' '|')" "$(out "$D/step.out" | tr '\n' '|')"
fi
if start_live pchoose -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    past_spawns
    if res=$($PAGE - choose <<<"$PAGE_URL"); then
        pick=$(jget "$res" 'd["picked"]["sender"]')
        expect "page: the what-if of the clicked alternative is done" "$(jget "$res" 'd["whatif"]["state"]')" done
        expect "page: its output is the choice's (took ltid $(jget "$res" 'd["picked"]["took"]["ltid"]'), clicked $pick)" \
            "$(jget "$res" 'd["whatif"]["output"]' | sed -n 's/^\[1\] //p' | head -1)" "first from worker $((pick - 1))"
        wdir=$(jget "$res" 'd["whatif"]["dir"]')
        [ -d "$wdir" ] && pg_pass "page: the what-if's directory is where the panel says" ||
            pg_fail "page: no directory $wdir"
    else
        pg_fail "page: clicking an alternative did not work"
    fi
    post resume -d '' >/dev/null
    finish pchoose
fi

# ---- 7. the gdb command line of a held task ----------------------------------
if command -v gdb >/dev/null &&
        start_live gdb -log -live 0 -hold -logdir "$D/rec3" "$PROG" 2; then
    past_spawns
    line=$(q "$(task 2)['held']['gdb']")
    # gdb -p PID -ex 'break pg_gate_after' -ex continue, in batch mode
    tpid=$(sed -n 's/^gdb -p \([0-9]*\) .*/\1/p' <<<"$line")
    if [ -n "$tpid" ] && grep -q "break pg_gate_after" <<<"$line"; then
        timeout 60 gdb -q -batch -p "$tpid" -ex 'break pg_gate_after' -ex continue \
            -ex 'bt 4' >"$D/gdb.out" 2>&1 &
        GDB=$!
        attached() { grep -q "Breakpoint 1 at" "$D/gdb.out"; }
        wait_for 30 attached
        post step -d ltid=2 >/dev/null
        wait "$GDB"
        if grep -q "^#0  pg_gate_after" "$D/gdb.out" && grep -q "in pvm_send" "$D/gdb.out" &&
                grep -q "plain_choice.c" "$D/gdb.out"; then
            pg_pass "gdb with the offered command line stops just after the held pvm_send"
        else
            pg_fail "gdb did not stop after the held call"; cat "$D/gdb.out"
        fi
    else
        pg_fail "no gdb command line for a held task: $line"
    fi
    post resume -d '' >/dev/null
    finish gdb
    expect "after gdb detached, the run ends normally" "$RC" 0
fi

# ---- 8. every wrapped call is gated: stepping through barriers ------------
# tests/programs/group_barriers.c: the master spawns two members; all join
# "bars", the members report in, a barrier, a ring of sends, a barrier,
# results to the master, pvm_reduce, pvm_lvgroup, pvm_exit.  Held with
# -hold and only ever "step all" (each held task makes its next call): the
# calls each task is let through, as the step answers name them, follow
# the program, the barriers named with their group and count.
GPROG=$PG_BUILD/tests/group_barriers
"$PANGAEA" -log -logdir "$D/grp-ref" "$GPROG" >"$D/grp-ref.out" 2>&1 ||
    pg_fail "group_barriers without -live: status $?"
if start_live grp -log -live 0 -hold -logdir "$D/grp" "$GPROG"; then
    : >"$D/grp.calls"
    n=0
    for i in $(seq 300); do
        kill -0 "$PID" 2>/dev/null || break
        r=$(post step -d '')
        [ -n "$r" ] || break # pangaea ended meanwhile
        [ "$(jget "$r" 'len(d["calls"])')" -gt 0 ] && n=$((n + 1))
        jget "$r" '"\n".join("%d %s %s" % (c["ltid"], c["call"], c["args"]) for c in d["calls"])' |
            sed '/^$/d' >>"$D/grp.calls"
        # each task let go is held again, or inside a call (a barrier), or ended
        moved() { ! kill -0 "$PID" 2>/dev/null || [ "$(q "all('held' not in t or t['holds'] > h for c in $(jget "$r" 'd["calls"]') for t in d['tasks'] if t['ltid'] == c['ltid'] for h in [c['holds']])")" = True ]; }
        wait_for 20 moved || { pg_fail "grp: a stepped task did not move: $(ctl)"; break; }
    done
    finish grp
    expect "group_barriers stepped through (step all $n times): status" "$RC" 0
    # which task prints "max instance", and what (pvm_reduce races with
    # pvm_lvgroup), depends on the run: the total does not
    allout() { sed -n 's/^\[[0-9]*\] //p' "$1" | sort | tr '\n' '|'; }
    expect "group_barriers stepped: the total of a run without -live" \
        "$(grep -h 'total' "$D/grp.out")" "$(grep -h 'total' "$D/grp-ref.out")"
    seq_of() { awk -v l="$1" '$1 == l {print $2}' "$D/grp.calls" | sed 's/^pvm_//' | tr '\n' ' '; }
    for l in 1 2 3; do
        if [ "$l" = 1 ]; then
            want="spawn joingroup recv recv barrier gettid gettid send recv send recv barrier recv recv reduce"
        else
            want="joingroup parent send barrier gettid gettid send recv send recv barrier parent send reduce"
        fi
        got=$(seq_of "$l")
        expect "ltid $l: the calls stepped through follow the program up to pvm_reduce" \
            "${got%%reduce *}reduce" "$want"
        expect "ltid $l: and end with pvm_lvgroup, pvm_exit" "$(tail_of() { echo "$got" | awk '{print $(NF-1), $NF}'; }; tail_of)" "lvgroup exit"
    done
    expect "the barriers were held with their group and count" \
        "$(grep -c ' pvm_barrier group bars count 3$' "$D/grp.calls")" 6
    "$PANGAEA" -replay -logdir "$D/grp" "$GPROG" >"$D/grp.rep" 2>&1
    expect "the stepped recording replays with its output" "$(allout "$D/grp.rep")" "$(allout "$D/grp.out")"
fi

# ---- 9. a breakpoint naming a task counts that task's matches ---------------
# call=send ltid=3 hits=2: worker 2 stops before its second pvm_send (just
# after its first, as -dump numbers it), whatever worker 1 sent meanwhile.
if start_live hits -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    # set before worker 2 reaches its first send: a task already held at a
    # call when a breakpoint is set makes that call unmatched
    post break -d call=send -d ltid=3 -d hits=2 >/dev/null
    past_spawns
    r=$(post break -d call=pvm_barrier -d ltid=1)
    expect "a breakpoint on pvm_barrier (a wrapped call) is accepted" "$(jget "$r" 'd["ok"]')" True
    r=$(post break -d call=pvm_nosuch)
    expect "a breakpoint on a call PVM does not have is refused" "$(jget "$r" 'd["ok"]')" False
    post resume -d '' >/dev/null
    w2_held() { [ "$(q "'held' in $(task 3)")" = True ]; }
    first=$(dump_recs "$REC" 3 | awk '$2 == "send" {print $1; exit}')
    if wait_for 20 w2_held; then
        expect "worker 2 held by its own second send (match 2 of its own)" \
            "$(q "' '.join(str($(task 3)['held'][k]) for k in ('call', 'why', 'done'))")" \
            "pvm_send breakpoint 1 (match 2) $first"
        expect "the breakpoint counted worker 2's sends only" "$(q "d['breakpoints'][0]['count']")" 2
    else
        pg_fail "hits: worker 2 was not held: $(ctl)"
    fi
    r=$(post gdb -d ltid=3)
    expect "/control/gdb outside tmux: refused, saying so" \
        "$(jget "$r" 'd["ok"], "inside tmux" in d["error"]')" "False True"
    post unbreak -d id=all >/dev/null
    post resume -d '' >/dev/null
    finish hits
    expect "replay with a per-task hit count: status" "$RC" 0
fi

# ---- 10. gdb in a tmux window, from the page's route ----------------------
# pangaea runs inside a private tmux server (tmux -L NAME, killed at the
# end with its own kill-server); POST /control/gdb ltid=1 opens gdb on the
# held master in a new window of it: gdb is attached (the task's
# TracerPid is a gdb), then detached cleanly (C-c, detach, quit typed into
# its window: TracerPid 0, the window gone), and the run ends normally.
tracer() { sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
if ! command -v tmux >/dev/null || ! command -v gdb >/dev/null; then
    pg_fail "tmux and gdb are needed for /control/gdb (scripts/install-deps.sh installs them)"
else
    TM=pg-ictl-$$
    printf '%s\n' "\"$PANGAEA\" -log -live 0 -hold -logdir \"$D/rec-tmux\" \"$PROG\" 2 >\"$D/tmux.out\" 2>\"$D/tmux.err\" </dev/null &" \
        "echo \$! >\"$D/tmux.pid\"" "wait \$!" "echo \$? >\"$D/tmux.rc\"" >"$D/in-tmux.sh"
    tmux -L "$TM" new-session -d -x 160 -y 40 -s ictl "bash '$D/in-tmux.sh'"
    if wait_for 30 live_url "$D/tmux.err" && wait_for 30 master_held; then
        expect "inside tmux, /control.json says so" "$(q "d['tmux']")" True
        tpid=$(q "$(task 1)['pid']")
        r=$(post gdb -d ltid=1)
        expect "/control/gdb: gdb opened on the held master" "$(jget "$r" 'd["ok"], d["pid"]')" "True $tpid"
        traced() { [ "$(tracer "$tpid")" -gt 0 ] 2>/dev/null; }
        if wait_for 60 traced; then
            expect "the master is traced by gdb" "$(cat "/proc/$(tracer "$tpid")/comm")" gdb
            win=$(tmux -L "$TM" list-windows -t ictl -F '#{window_index} #{window_name}' | awk '$2 == "gdb" && $4 == 1 {print $1}')
            if [ -n "$win" ]; then pg_pass "gdb runs in tmux window $win, 'gdb ltid 1'"; else
                pg_fail "no tmux window 'gdb ltid 1': $(tmux -L "$TM" list-windows -t ictl)"; fi
            # gdb_prompt: its window's last line is gdb's prompt (a
            # pagination prompt on the way is answered "c")
            gdb_prompt() {
                local last
                last=$(tmux -L "$TM" capture-pane -p -t "ictl:$win" | sed '/^[[:space:]]*$/d' | tail -1)
                case $last in
                "(gdb)"*) return 0 ;;
                *"Type <RET>"*) tmux -L "$TM" send-keys -t "ictl:$win" c Enter ;;
                esac
                return 1
            }
            running() { tmux -L "$TM" capture-pane -p -t "ictl:$win" | grep -q "^Continuing"; }
            wait_for 30 running # gdb ran its -ex commands: the task goes on under it
            tmux -L "$TM" send-keys -t "ictl:$win" C-c
            wait_for 30 gdb_prompt
            tmux -L "$TM" send-keys -t "ictl:$win" "detach" Enter
            wait_for 30 gdb_prompt
            tmux -L "$TM" send-keys -t "ictl:$win" "quit" Enter
            untraced() { [ "$(tracer "$tpid")" = 0 ]; }
            gone() { ! tmux -L "$TM" list-windows -t ictl -F '#{window_name}' | grep -q '^gdb ltid 1$'; }
            if wait_for 30 untraced && wait_for 30 gone; then
                pg_pass "gdb detached cleanly (TracerPid 0, its window closed)"
            else
                pg_fail "gdb did not detach: TracerPid $(tracer "$tpid"); $(tmux -L "$TM" capture-pane -p -t "ictl:$win" 2>&1 | tail -5)"
            fi
        else
            pg_fail "gdb never attached to pid $tpid: $(tmux -L "$TM" list-windows -t ictl 2>&1)"
        fi
        post resume -d '' >/dev/null
        # the workers, spawned since, start held (-hold): resumed as they come
        tmux_done() { post resume -d '' >/dev/null; [ -s "$D/tmux.rc" ]; }
        wait_for 60 tmux_done
        expect "the run inside tmux ends normally after gdb detached" "$(cat "$D/tmux.rc" 2>/dev/null)" 0
        [ -s "$D/tmux.rc" ] || { echo "control: $(ctl)"; cat "$D/tmux.err"; }
    else
        pg_fail "pangaea inside tmux did not hold the master: $(cat "$D/tmux.err" 2>/dev/null)"
    fi
    tmux_end
fi

pg_summary
