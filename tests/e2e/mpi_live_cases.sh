# tests/e2e/mpi_live_cases.sh - the live page on an MPI run, checked per
# MPI by test_mpi_live.sh (MPICH) and test_mpi_live_openmpi.sh (Open
# MPI): live_mpi NAME LAUNCHER PROG [LAUNCHER OPTIONS...] (sourced after
# lib.sh and live_lib.sh; not a test itself).
#
# tests/programs/mpi_master.c, 4 ranks, `pangaea -log -live 0 -hold
# -live-wait LAUNCHER -n 4 PROG` (src/mpi/mpi_gate.c, src/cli/run/mpi_run.c):
# 1. Held at start: the page's control block lists 4 ranks as ltids 1-4,
#    each held before its first call (the master's MPI_Recv, the
#    workers' MPI_Send), none has made an event.
# 2. Rank by rank (the API's step of one ltid): worker ltid 2 makes its
#    send, and only it; then the master's wildcard MPI_Recv, stepped, takes
#    ltid 2's message (the only one sent: the others are held).
# 3. "Step all", clicked twice on the page in headless Chromium
#    (control_page.py): every rank held again after each click, one hold
#    more each time.
# 4. A breakpoint on tag 7 typed in the page's form, then "Resume all":
#    a rank is held by it, shown at its call of tag 7; a breakpoint on a
#    call MPI does not have is refused, naming it; choosing a message no
#    held receive lists is refused, saying why (/control.json says what
#    an MPI rank lists, for the page; test_mpi_live_choose.sh chooses).
# 5. Breakpoints removed, resumed: the run completes (recorded, its
#    receives renumbered), and the page (live_page.py) shows the final
#    state: not running, every event /events.json has, every rank ended
#    with status 0, a message line for every receive, each receive naming
#    its message as the logs do once pangaea renumbered them after the run
#    (the view renumbers the receives as it reads them, live_mpi.c).
# 6. A replay of it under -live -hold: an alternative of the master's
#    first wildcard receive clicked on the page starts a what-if run, whose
#    master takes the chosen rank's message first (its output says so);
#    the master stepped alone waits in its MPI_Recv for the message the
#    recording says it took (the workers are held), and the page's
#    snapshot says which; a breakpoint on a call, a rank and a peer (the
#    API's: call=Sendrecv
#    ltid=3 peer=1), everything resumed: ltid 3 alone is held, at its
#    MPI_Sendrecv with rank 0; then one click on "Resume all": the page
#    says it is over, and the replay's output is the recording's.

MPI_LIVE_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ctl() { curl -sf "${URL}control.json"; }
evs() { curl -sf "${URL}events.json"; }
post() { local p=$1; shift; curl -s -X POST "$@" "${URL}control/$p"; }
# held_n N: N ranks held at once.
held_n() { [ "$(jget "$(ctl)" "sum('held' in t for t in d['tasks'])")" = "$1" ]; }
# held_list: the held ranks, their calls, peers and why.
held_list() { jget "$(ctl)" "[(t['ltid'], t['held']['call'], t['held']['peer'], t['held']['why'].split(' (')[0]) for t in d['tasks'] if 'held' in t]"; }
held_is() { [ "$(held_list)" = "$1" ]; }
master_waits() { [ "$(jget "$(evs)" "[t['waiting'] for t in d['tasks'] if t['ltid'] == 1][0]")" = True ]; }
# holds_of LTID: how often the rank was held.
holds_of() { jget "$(ctl)" "[t['holds'] for t in d['tasks'] if t['ltid'] == $1][0]"; }
held_again() { [ "$(holds_of "$1")" = "$2" ] && [ "$(jget "$(ctl)" "[('held' in t) for t in d['tasks'] if t['ltid'] == $1][0]")" = True ]; }
# counts: each rank's events on the page's server, "L:N L:N ...".
counts() { jget "$(evs)" "' '.join('%d:%d' % (t['ltid'], t['events']) for t in d['tasks'])"; }
over() { grep -q "the run is over" "$D/$1.err"; }
# counts_are WANT: the server's snapshot (rescanned every 0.2 s while
# watched) shows WANT; waited for, then held to it by expect.
counts_are() { [ "$(counts)" = "$1" ]; }
master_recvs() { jget "$(evs)" "[(e['kind'], e['from']) for e in d['events'] if e['ltid'] == 1]"; }
master_took_one() { [ "$(master_recvs)" != "[]" ]; }
# recvs_of LOGDIR: its receives as (ltid, seq, from, msgid), as -dump
# shows the logs pangaea renumbered after the run.
recvs_of() {
    "$PANGAEA" -dump "$1" | python3 -S -c '
import re, sys
out, ltid = [], None
for line in sys.stdin:
    m = re.search(r"<header [^>]*ltid=\"(\d+)\"", line)
    if m and "pangaea-comm" in line:
        ltid = int(m.group(1))
    m = re.search(r"<recv seq=\"(\d+)\".* from=\"(-?\d+)\" tag=\"-?\d+\" msgid=\"(-?\d+)\"", line)
    if m:
        out.append((ltid, int(m.group(1)), int(m.group(2)), int(m.group(3))))
print(sorted(out))'
}

live_mpi() {
    local name=$1 launcher=$2 prog=$3 rec res want n
    shift 3
    launcher_ok "$name" "$launcher" || return
    rec=$D/rec-$launcher
    if ! start_live "log-$launcher" -log -live 0 -hold -live-wait -logdir "$rec" \
        "$launcher" "$@" -n 4 "$prog"; then
        return
    fi
    # ---- 1. held at start
    if ! wait_for 60 held_n 4; then
        pg_fail "$name: the 4 ranks were never all held: $(ctl) $(cat "$D/log-$launcher.err")"
        stop_pangaea
        return
    fi
    expect "$name: 4 ranks as ltids 1-4, each held before its first call" \
        "$(jget "$(ctl)" "[(t['ltid'], t['held']['call']) for t in d['tasks']]")" \
        "[(1, 'MPI_Recv'), (2, 'MPI_Send'), (3, 'MPI_Send'), (4, 'MPI_Send')]"
    wait_for 30 counts_are "1:0 2:0 3:0 4:0"
    expect "$name: held at start, no rank has made an event" "$(counts)" "1:0 2:0 3:0 4:0"

    # ---- 2. rank by rank
    post step -d ltid=2 >/dev/null
    wait_for 30 held_again 2 2 || pg_fail "$name: ltid 2 not held again after its step: $(ctl)"
    wait_for 30 counts_are "1:0 2:1 3:0 4:0"
    expect "$name: ltid 2 stepped alone: its send, no other event" "$(counts)" "1:0 2:1 3:0 4:0"
    post step -d ltid=1 >/dev/null
    wait_for 30 held_again 1 2 || pg_fail "$name: the master not held again after its step: $(ctl)"
    wait_for 30 master_took_one
    expect "$name: the master stepped: its wildcard receive took ltid 2's message, the one sent" \
        "$(master_recvs)" "[('recv', 2)]"

    # ---- 3. Step all, clicked on the page
    if res=$(python3 -S "$MPI_LIVE_HERE/control_page.py" - step 2 <<<"$PAGE_URL"); then
        expect "$name: page: Step all twice, every rank held again after each click" \
            "$(jget "$res" '[[h - h0 for (_, h, _), (_, h0, _) in zip(s, d["holds"][0])] for s in d["holds"]]')" \
            "[[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]]"
    else
        pg_fail "$name: page: Step all could not be driven"
    fi

    # ---- 4. a breakpoint, from the page's form
    if res=$(python3 -S "$MPI_LIVE_HERE/control_page.py" - break 7 <<<"$PAGE_URL"); then
        expect "$name: page: the breakpoint listed" "$(jget "$res" 'd["breakpoints"][0]')" \
            "#1: call any, ltid any, peer any, tag 7, size any (0 matches) "
        expect "$name: page: the ranks it holds are at a call of tag 7" \
            "$(jget "$res" 'sorted({("tag 7" in r["call"], r["why"].split(" (")[0]) for r in d["table"] if r["why"].startswith("breakpoint")})')" \
            "[(True, 'breakpoint 1')]"
        expect "$name: page: its gdb line attaches to the rank" \
            "$(jget "$res" '[r["gdb"].split()[0:2] for r in d["table"] if r["why"].startswith("breakpoint")][0]')" "['gdb', '-p']"
    else
        pg_fail "$name: page: the breakpoint did not hold a rank: $(ctl)"
    fi
    r=$(post break -d call=MPI_Bcast)
    expect "$name: a breakpoint on a call the gate does not hold: refused, naming it" \
        "$(jget "$r" '"MPI_Bcast" in d["error"]')" True
    r=$(post choose -d ltid=1 -d sender=2 -d msgid=99)
    expect "$name: choose while recording a message no held receive lists: refused, saying why" \
        "$(jget "$r" '"not queued at a held receive of ltid 1" in d["error"]')" True
    expect "$name: /control.json says what an MPI rank lists, for the page" \
        "$(jget "$(ctl)" '"MPI_Iprobe" in d["choose"]')" True

    # ---- 5. the run completes; the page's final state
    post unbreak -d id=all >/dev/null
    post resume -d '' >/dev/null
    if ! wait_for 120 over "log-$launcher"; then
        pg_fail "$name: the run did not end after resume: $(ctl) $(cat "$D/log-$launcher.err")"
        stop_pangaea
        return
    fi
    n=$(jget "$(evs)" 'd["count"]')
    want=$(jget "$(evs)" 'sum(e["kind"] == "recv" for e in d["events"])')
    if res=$(python3 -S "$MPI_LIVE_HERE/live_page.py" - --min-events "$n" <<<"$PAGE_URL"); then
        expect "$name: page: the run is over" "$(jget "$res" 'd["running"]')" False
        expect "$name: page: every event of the run" "$(jget "$res" 'd["events"]')" "$n"
        expect "$name: page: every rank ended, status 0" \
            "$(jget "$res" '[(r["ltid"], r["state"]) for r in d["table"]]')" \
            "[(1, 'ended'), (2, 'ended'), (3, 'ended'), (4, 'ended')]"
        expect "$name: page: a message line for each of the $want receives" "$(jget "$res" 'd["lines"]')" "$want"
        expect "$name: the view named each receive's message as the renumbered logs do" \
            "$(jget "$(evs)" 'sorted((e["ltid"], e["seq"], e["from"], e["msgid"]) for e in d["events"] if e["kind"] == "recv")')" \
            "$(recvs_of "$rec")"
    else
        pg_fail "$name: the page's final state could not be read"
    fi
    stop_pangaea
    expect "$name: recorded (pangaea's status)" "$RC" 0
    grep -q "recorded in $rec (an MPI run" "$D/log-$launcher.err" &&
        pg_pass "$name: the recording is complete" ||
        pg_fail "$name: not recorded: $(cat "$D/log-$launcher.err")"

    # ---- 6. a replay, let go from the page
    if start_live "replay-$launcher" -replay -live 0 -hold -logdir "$rec" \
        "$launcher" "$@" -n 4 "$prog"; then
        wait_for 60 held_n 4 || pg_fail "$name: replay: the ranks were never held: $(ctl)"
        if res=$(python3 -S "$MPI_LIVE_HERE/control_page.py" - choose <<<"$PAGE_URL"); then
            expect "$name: replay: the what-if of the clicked alternative is done" \
                "$(jget "$res" 'd["whatif"]["state"]')" done
            expect "$name: replay: its master took the chosen rank's message first" \
                "$(jget "$res" 'd["whatif"]["output"].split()[1] == str(d["picked"]["sender"] - 1)')" True
        else
            pg_fail "$name: replay: clicking an alternative did not work: $(ctl)"
        fi
        post step -d ltid=1 >/dev/null
        first=$(recvs_of "$rec" | python3 -S -c 'import sys, ast; r = ast.literal_eval(sys.stdin.read()); print([(f, m) for l, s, f, m in r if l == 1][0])')
        wait_for 30 master_waits
        expect "$name: replay: the master, stepped, waits for its recorded message (from, msgid)" \
            "$(jget "$(evs)" "[(t['waits']['from'], t['waits']['msgid']) for t in d['tasks'] if t['ltid'] == 1 and t['waits']][0]" 2>/dev/null)" "$first"
        post break -d call=Sendrecv -d ltid=3 -d peer=1 >/dev/null
        post resume -d '' >/dev/null
        want="[(3, 'MPI_Sendrecv', 1, 'breakpoint 1')]"
        wait_for 60 held_is "$want"
        expect "$name: replay: a breakpoint on call, rank and peer holds that rank alone, there" \
            "$(held_list)" "$want"
        post unbreak -d id=all >/dev/null
        if res=$(python3 -S "$MPI_LIVE_HERE/live_page.py" - --click-to-end c-resume <<<"$PAGE_URL"); then
            expect "$name: replay: one Resume all, the page says it is over" \
                "$(jget "$res" 'd["end"]["running"]')" False
        else
            pg_fail "$name: replay: the page could not be driven"
        fi
        for i in $(seq 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        stop_pangaea
        expect "$name: replay: the output is the recording's" \
            "$RC:$(grep -v '^pangaea' "$D/replay-$launcher.out" | md5sum)" \
            "0:$(grep -v '^pangaea' "$D/log-$launcher.out" | md5sum)"
    fi
}

# view_recvs: the receives the view holds, as (ltid, seq, from, msgid).
view_recvs() { jget "$(evs)" 'sorted((e["ltid"], e["seq"], e["from"], e["msgid"]) for e in d["events"] if e["kind"] == "recv")'; }
# named_as LOGDIR: the view names the receives as LOGDIR's renumbered logs.
named_as() { [ "$(view_recvs)" = "$(recvs_of "$1")" ]; }

# live_mpi_ctx NAME LAUNCHER PROG [LAUNCHER OPTIONS...]: tests/programs/
# mpi_ctx.c (worker 1 sends with one tag on a dup of the world, then on
# the world) recorded under -live: the view renumbers each receive on its
# own communicator, as the logs are renumbered after the run, so the
# world receive of worker 1's message is not named as its dup message.
live_mpi_ctx() {
    local name=$1 launcher=$2 prog=$3 rec
    shift 3
    launcher_ok "$name" "$launcher" || return
    rec=$D/ctx-$launcher
    start_live "ctx-$launcher" -log -live 0 -live-wait -logdir "$rec" \
        "$launcher" "$@" -n 4 "$prog" || return
    if ! wait_for 120 over "ctx-$launcher"; then
        pg_fail "$name: the mpi_ctx run did not end: $(cat "$D/ctx-$launcher.err")"
        stop_pangaea
        return
    fi
    wait_for 30 named_as "$rec"
    expect "$name: two communicators: the view named each receive's message as the renumbered logs do" \
        "$(view_recvs)" "$(recvs_of "$rec")"
    stop_pangaea
}
