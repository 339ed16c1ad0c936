#!/usr/bin/env bash
# test_gate_names.sh - the live page's gate knows each call by its row of
# src/pvm/wrap/pg_calls.def, and a call passes it once.
#
# tests/programs/plain_query.c's master polls pvm_pstat, pvm_gsize and
# pvm_mstat in a loop.  Recorded under -live 0 -hold (the master held at
# its first wrapped call):
# 1. A breakpoint on pvm_pstat holds it at its pvm_pstat; one step lets
#    that call through, and the master is next held at its pvm_gsize (the
#    call passed the gate twice before: a step then stopped it again, in
#    the same call, under another name).
# 2. A breakpoint on pvm_mstat holds the master at its pvm_mstat (its
#    wrapper once passed the gate under the name of a helper, "ask", so
#    the breakpoint never fired).
# 3. The run, let go, ends with status 0.
#
# What the gate knows of a call comes from the gate column of its row
# (PG_GT_ flags), not from lists of names in gate.c.  tests/programs/
# group_race.c's task 1 broadcasts one packed int with pvm_bcast; recorded
# under -live 0 -hold with a breakpoint on pvm_bcast of size 4:
# 4. The breakpoint holds task 1 at its pvm_bcast, whose size is its send
#    buffer's (PG_GT_SBUF: once only pvm_send and pvm_mcast were sized, and
#    a size= breakpoint on pvm_bcast never fired).
# 5. The event number the held call shows is that of the pvm_bcast's
#    first event in the log, the turn of its lookup of the members, whose
#    next is its <send> (PG_GT_SITE: the <site> record of its new call
#    site is counted before them).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"

PANGAEA=$PG_BUILD/pangaea
PROG=$PG_BUILD/tests/plain_query

live_traps

ctl() { curl -sf "${URL}control.json"; }
q() { jget "$(ctl)" "$1"; }
post() { local p=$1; shift; curl -s -X POST "$@" "${URL}control/$p"; }
# held1: "CALL WHY HOLDS" of the master while it is held, else empty
held1() {
    q "' '.join(str(x) for t in d['tasks'] if t['ltid'] == 1 and 'held' in t for x in (t['held']['call'], t['held']['why'].split(' (')[0], t['holds']))"
}
held_at() { [ "$(held1 | cut -d' ' -f1)" = "$1" ]; }
held_more() { local h; h=$(held1 | awk '{print $NF}'); [ -n "$h" ] && [ "$h" -gt "$1" ]; }

command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
command -v python3 >/dev/null || { pg_skip "needs python3"; exit 0; }
pg_pvm_start || { pg_fail "pvmd did not start"; pg_summary; exit 1; }
D=$(pg_tmpdir)

if start_live rec -log -live 0 -hold -logdir "$D/rec" "$PROG" 1; then
    wait_for 30 held_more 0 || pg_fail "the master was never held: $(ctl)"
    post break -d call=pvm_pstat -d ltid=1 >/dev/null
    post resume -d '' >/dev/null
    if wait_for 30 held_at pvm_pstat; then
        h=$(held1 | awk '{print $NF}')
        post unbreak -d id=all >/dev/null
        post step -d ltid=1 >/dev/null
        if wait_for 30 held_more "$h"; then
            expect "one step past pvm_pstat: held next at the call after it" \
                "$(held1 | cut -d' ' -f1)" pvm_gsize
        else
            pg_fail "the stepped master was not held again: $(ctl)"
        fi
    else
        pg_fail "a breakpoint on pvm_pstat never fired: $(ctl)"
    fi
    post unbreak -d id=all >/dev/null
    post break -d call=pvm_mstat -d ltid=1 >/dev/null
    post resume -d '' >/dev/null
    if wait_for 30 held_at pvm_mstat; then
        expect "a breakpoint on pvm_mstat holds the master there" \
            "$(held1 | cut -d' ' -f1-2)" "pvm_mstat breakpoint"
    else
        pg_fail "a breakpoint on pvm_mstat never fired: $(ctl)"
    fi
    post unbreak -d id=all >/dev/null
    post resume -d '' >/dev/null
    for i in $(seq 600); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    stop_pangaea
    expect "the run let go ends: status" "$RC" 0
fi

GPROG=$PG_BUILD/tests/group_race
# heldv PYEXPRS: the values of PYEXPRS (comma-separated) on task 1's held
# call h, space-separated (empty while it is not held)
heldv() { q "' '.join(str(x) for t in d['tasks'] if t['ltid'] == 1 and 'held' in t for h in [t['held']] for x in ($1,))"; }
if start_live grp -log -live 0 -hold -logdir "$D/grp" "$GPROG"; then
    wait_for 30 held_more 0 || pg_fail "task 1 of group_race was never held: $(ctl)"
    post break -d call=pvm_bcast -d size=4 -d ltid=1 >/dev/null
    post resume -d '' >/dev/null
    if wait_for 60 held_at pvm_bcast; then
        expect "a breakpoint on pvm_bcast of size 4 holds task 1 at its pvm_bcast" \
            "$(heldv "h['call'], h['size'], h['why'].split(' (')[0]")" "pvm_bcast 4 breakpoint 1"
        event=$(heldv "h['event']")
    else
        pg_fail "a breakpoint on pvm_bcast of size 4 never fired: $(ctl)"
        event=
    fi
    post unbreak -d id=all >/dev/null
    post resume -d '' >/dev/null
    for i in $(seq 600); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    stop_pangaea
    expect "group_race let go ends: status" "$RC" 0
    # its first event: the turn its lookup of the members took, then (past
    # the <site> of its new call site) its <send>
    expect "the held pvm_bcast's event number is its first event's in the log" \
        "$("$PANGAEA" -dump "$D/grp" 1 | grep -v '^ *<!--' | grep -v '<site ' | grep -A1 "seq=\"${event:-none}\"" | sed -n 's/.*<query .*call="\(pvm_group_lookup\)" about="race".*/\1/p; s/.*<send .*call="\(pvm_bcast\)".*/\1/p' | tr '\n' ' ')" "pvm_group_lookup pvm_bcast "

fi

pg_pvm_stop
pg_summary
