#!/usr/bin/env bash
# test_live_steer.sh - steering from the live page never fights its user:
# a replay of tests/programs/plain_choice.c under -live -hold (without
# -live-wait), its master held at its first call.
# 1. A step carries the hold it steps from (from=LTID:HOLDS): the same
#    step sent twice (two tabs, a double click) steps once; a step from a
#    view that is out of date (the task was stepped since) steps nothing;
#    the task is then held once more than before, not twice; a malformed
#    `from` is refused, naming it.
# 2. The "Run to" box of the control panel keeps what is typed in it
#    across the panel's refreshes (every 0.5 s), and its click is taken
#    (control_page.py, real typing and clicks).
# 3. "Resume all", clicked once on the page, lets go the tasks there are
#    and those that start later (the workers the master spawns after the
#    click start running, not held): the run ends by itself; and the page,
#    open on a run without -live-wait, gets the run's final state (over,
#    every event) before pangaea's server goes (live_page.py).
# 4. A breakpoint at a call site (site=FILE:LINE, typed in the page's
#    form, or a function, through the API) holds the task whose call is
#    made there, and no other; a malformed site is refused, naming it.
# 5. A held task killed with kill -9 leaves the panel: shown crashed, no
#    longer held (no call, gdb line or choice for a dead pid; so too in
#    the page's panel, in Chromium); the run ends.
# 6. One SIGTERM to a -live-wait run whose tasks are held ends the run and
#    pangaea (status 143), where Ctrl-C would leave the page served.
# 7. Two tabs on the page, "Step all" clicked in each from the same view
#    of the held master (real clicks, control_page.py tabs): stepped once.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_choice
HERE=$(cd "$(dirname "$0")" && pwd)
K=4

live_traps

ctl() { curl -sf "${URL}control.json"; }
q() { jget "$(ctl)" "$1"; }
post() { local p=$1; shift; curl -s -X POST "$@" "${URL}control/$p"; }
holds1() { q "[t['holds'] for t in d['tasks'] if t['ltid'] == 1][0]"; }
master_held() { [ "$(q "any(t['ltid'] == 1 and 'held' in t for t in d['tasks'])")" = True ]; }
held_at() { master_held && [ "$(holds1)" = "$1" ]; }

command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
command -v chromedriver >/dev/null || { pg_skip "needs chromium-driver"; exit 0; }
pg_pvm_start || { pg_fail "pvmd did not start"; pg_summary; exit 1; }
D=$(pg_tmpdir)
REC=$D/rec

"$PANGAEA" -log -logdir "$REC" "$PROG" "$K" >"$D/rec.out" 2>&1 ||
    pg_fail "the recording failed: $(cat "$D/rec.out")"

if start_live st -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    if wait_for 30 master_held; then
        # ---- 1. a step carries the hold it steps from
        h=$(holds1)
        r1=$(post step -d ltid=1 -d from="1:$h")
        r2=$(post step -d ltid=1 -d from="1:$h")
        expect "the first step from hold $h steps the master" "$(jget "$r1" 'd["stepped"]')" "[1]"
        expect "the same step again (another tab) steps nothing" "$(jget "$r2" 'd["stepped"]')" "[]"
        if wait_for 30 held_at $((h + 1)); then
            r3=$(post step -d from="1:$h")
            expect "a step from an out-of-date view steps nothing" "$(jget "$r3" 'd["stepped"]')" "[]"
            expect "the master is held once more, not twice" "$(holds1)" $((h + 1))
        else
            pg_fail "the master was not held again at hold $((h + 1)): $(ctl)"
        fi
        r=$(post step -d from=1x)
        expect "a malformed from: refused, naming it" "$(jget "$r" '"from is" in d["error"]')" True

        # ---- 2. the Run to box keeps what is typed
        if res=$(python3 -S "$HERE/control_page.py" - runto 100000 <<<"$PAGE_URL"); then
            expect "Run to: the box kept what was typed across refreshes" "$(jget "$res" 'd["kept"]')" 100000
            expect "Run to: the click was taken" "$(jget "$res" 'd["said"]')" "runto: done"
        else
            pg_fail "Run to: the page could not be driven"
        fi
        expect "run-to set on the master" "$(q "[t['runto'] for t in d['tasks'] if t['ltid'] == 1][0]")" 100000

        # ---- 3. Resume all, once, for the tasks to come too; the page
        # then gets the final state of a run without -live-wait
        if res=$(python3 -S "$HERE/live_page.py" - --click-to-end c-resume <<<"$PAGE_URL"); then
            expect "one Resume all: the run ended, and the page says it is over" \
                "$(jget "$res" 'd["end"]["running"]')" False
            n=$(jget "$res" 'd["end"]["summary"].split(", ")[-1].split()[0]')
            expect "the page holds every event of the run ($n)" "$(jget "$res" 'd["end"]["events"]')" "$n"
        else
            pg_fail "Resume all: the page could not be driven"
        fi
        for i in $(seq 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$PID" 2>/dev/null; then
            pg_fail "pangaea did not end after one Resume all: $(ctl)"
        fi
        stop_pangaea
        expect "the replay ended as recorded" "$RC:$(grep -v '^pangaea' "$D/st.out" | md5sum)" \
            "0:$(grep -v '^pangaea' "$D/rec.out" | md5sum)"
    else
        pg_fail "the master was never held"; cat "$D/st.err"
    fi
fi

# ---- 4. a breakpoint at a call site: FILE:LINE, or a function ---------------
# plain_choice's sends are all made in send_int(), at plain_choice.c:35,
# and only its workers send: the breakpoint holds worker 1 (ltid 2), not
# the master.
# held_by ID: worker 1 held by breakpoint ID.
held_by() { [ "$(q "[t['held']['why'].split(' (')[0] for t in d['tasks'] if t['ltid'] == 2 and 'held' in t] == ['breakpoint $1']")" = True ]; }
site_bp() {
    local name=$1 site=$2 id
    if start_live "$name" -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
        wait_for 30 master_held || pg_fail "$name: the master was never held"
        if [ "$name" = site-line ]; then # from the page's form
            res=$(python3 -S "$HERE/control_page.py" - site --site "$site" <<<"$PAGE_URL")
            expect "$name: the page lists it" "$(jget "$res" 'd["breakpoints"][0]')" \
                "#1: call any, ltid any, peer any, tag any, size any, site $site (0 matches) "
            id=1
        else
            r=$(post break -d site="$site")
            id=$(jget "$r" 'd.get("id")')
        fi
        expect "$name: a breakpoint at site $site" "$(q "[b['site'] for b in d['breakpoints']]")" "['$site']"
        post resume -d '' >/dev/null
        if wait_for 30 held_by "$id"; then
            expect "$name: worker 1 held at its send there" \
                "$(q "[t['held']['call'] + t['held']['site'] for t in d['tasks'] if t['ltid'] == 2][0]")" \
                "pvm_send at plain_choice.c:35"
            expect "$name: the master not held by it" \
                "$(q "[t['ltid'] for t in d['tasks'] if t['ltid'] == 1 and 'held' in t and t['held']['why'].startswith('breakpoint')]")" "[]"
        else
            pg_fail "$name: worker 1 was not held by breakpoint $id: $(ctl)"
        fi
        post unbreak -d id=all >/dev/null
        post resume -d '' >/dev/null
        for i in $(seq 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        stop_pangaea
        expect "$name: the replay ended as recorded" "$RC:$(grep -v '^pangaea' "$D/$name.out" | md5sum)" \
            "0:$(grep -v '^pangaea' "$D/rec.out" | md5sum)"
    fi
}
site_bp site-line plain_choice.c:35
site_bp site-func send_int
# ---- 5. a held task killed (kill -9) leaves the panel -------------------
gone_held() { [ "$(q "[t.get('state') + str('held' in t) for t in d['tasks'] if t['ltid'] == 1]")" = "['crashedFalse']" ]; }
if start_live kill -replay -live 0 -hold -live-wait -logdir "$REC" "$PROG" "$K"; then
    wait_for 30 master_held || pg_fail "kill: the master was never held"
    mpid=$(q "[t['pid'] for t in d['tasks'] if t['ltid'] == 1][0]")
    # The page open on the held master (its panel's row updated in place
    # when the task dies): control_page.py makes $D/shown once it shows it
    # held, then reads the row once it says crashed.
    python3 "$HERE/control_page.py" - table --ready "$D/shown" <<<"$PAGE_URL" >"$D/table.json" 2>"$D/table.err" &
    tpid=$!
    wait_for 60 test -e "$D/shown" || pg_fail "kill: the page never showed the master held"
    kill -KILL "$mpid"
    if wait_for 30 gone_held; then
        pg_pass "kill: the killed master is shown crashed, no longer held"
    else
        pg_fail "kill: the killed master still shows: $(ctl)"
    fi
    if wait "$tpid"; then
        res=$(cat "$D/table.json")
        expect "kill: the page's panel showed the master held, about to call" \
            "$(jget "$res" '[bool(r["call"]) and bool(r["gdb"]) for r in d["before"] if r["ltid"] == 1]')" "[True]"
        expect "kill: then the same panel shows it crashed, no call, no gdb line" \
            "$(jget "$res" '[[r["state"], r["call"], r["gdb"]] for r in d["table"] if r["ltid"] == 1]')" "[['crashed', '', '']]"
    else
        pg_fail "kill: the page could not be driven: $(tail -3 "$D/table.err")"
    fi
    if wait_for 60 grep -q "the run is over" "$D/kill.err"; then pg_pass "kill: the run ended"
    else pg_fail "kill: the run went on waiting: $(ctl)"; fi
    stop_pangaea
fi

# ---- 6. one SIGTERM to a -live-wait run with held tasks ends pangaea too ----
if start_live term -replay -live 0 -hold -live-wait -logdir "$REC" "$PROG" "$K"; then
    wait_for 30 master_held || pg_fail "term: the master was never held"
    kill -TERM "$PID"
    if wait_for 60 eval '! kill -0 "$PID" 2>/dev/null'; then
        wait "$PID"; rc=$?
        PID=
        expect "term: one SIGTERM ends the run and pangaea (status 128+15)" "$rc" 143
    else
        pg_fail "term: pangaea still runs after one SIGTERM: $(tail -2 "$D/term.err")"
        stop_pangaea
    fi
fi

# ---- 7. two tabs: "Step all" clicked in each from the same view ----------
# (the second tab's view kept at the hold the first stepped from: as two
# users clicking at once, or a tab whose panel is out of date): one step.
if start_live site-bad -replay -live 0 -hold -logdir "$REC" "$PROG" "$K"; then
    wait_for 30 master_held || pg_fail "tabs: the master was never held"
    if res=$(python3 "$HERE/control_page.py" - tabs <<<"$PAGE_URL"); then
        h=$(jget "$res" 'd["held_at"]')
        expect "tabs: the second tab shows the master at hold $h" "$(jget "$res" 'd["b_view"]')" "[$h, True]"
        expect "tabs: the second tab's step carries hold $h" \
            "$(jget "$res" '"from=1%3A" + str(d["held_at"]) in d["b"][0]')" True
        expect "tabs: the first tab's Step all steps the master" "$(jget "$res" 'json.loads(d["a"][1])["stepped"]')" "[1]"
        expect "tabs: the second's, from the same hold, steps nothing" "$(jget "$res" 'json.loads(d["b"][1])["stepped"]')" "[]"
        expect "tabs: the master is held once more, not twice" "$(jget "$res" 'd["after"]')" "[$((h + 1)), True]"
    else
        pg_fail "tabs: the page could not be driven"
    fi
    for bad in sor.c:x sor.c: :12 a/b.c:3 "f()"; do
        r=$(post break -d site="$bad")
        expect "site=$bad: refused, naming site" "$(jget "$r" 'd["error"].startswith("site is")')" True
    done
    post resume -d '' >/dev/null
    for i in $(seq 300); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    stop_pangaea
fi

pg_pvm_stop
pg_summary
