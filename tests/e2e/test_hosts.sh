#!/usr/bin/env bash
# test_hosts.sh - record and replay on a virtual machine of three hosts
# (hosts.sh: network namespaces hA hB hC on this machine), and moving tasks
# to other hosts by editing the execution logs, by hand and with
# `pangaea -move` / `-move-host`.
#
# Where a task ran is checked from inside the tasks, never from the logs
# alone: plain_spread's workers send the master what gethostname() says
# (under `unshare --uts` the host's own name), and in a replay on several
# hosts `pangaea` says on which host each task started, as the task itself
# reported it (its runtime's gethostname()).  Each check first makes sure it
# can fail: the recorded tasks really are on three different hosts.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

PANGAEA=$PG_BUILD/pangaea
SOR=$PG_BUILD/sor
SPREAD=$PG_BUILD/tests/plain_spread
RUNS=${PG_HOSTS_RUNS:-10}
WORK=$(pg_tmpdir)

# run NAME HOST CMD...: CMD on HOST, bounded; out/err/rc in $WORK/NAME.*
run() {
    local name=$1 h=$2 rc=0
    shift 2
    hosts_run "$h" timeout 120 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
    echo "$rc" >"$WORK/$name.rc"
    return "$rc"
}

# The host the recording in $1 gives ltid $2 (from its parent's log).
recorded_host() {
    grep -h "<child ltid=\"$2\" " "$1"/ltid-*.exec.xml |
        sed -E 's/.*host="([^"]*)".*/\1/'
}

# The host ltid $2 reported, in the stderr file $1 of a replay.
reported_host() {
    sed -nE "s/^pangaea: ltid $2 \(.*\) started on (.*)$/\1/p" "$1"
}

# The ltids of a recording (every child of every spawn), sorted.
ltids_of() {
    grep -ho '<child ltid="[0-9]*"' "$1"/ltid-*.exec.xml | grep -o '[0-9]*' | sort -n
}

# Every ltid of recording $1 started, in replay stderr $2, on the host the
# logs name; prints the mismatches.
check_placement() {
    local logs=$1 err=$2 l want got bad=0
    for l in $(ltids_of "$logs"); do
        want=$(recorded_host "$logs" "$l") got=$(reported_host "$err" "$l")
        if [ "$want" != "$got" ]; then
            echo "  ltid $l: logs say $want, the task ran on ${got:-(not started)}"
            bad=1
        fi
    done
    return $bad
}

# Distinct hosts among the ltids of recording $1.
hosts_used() {
    local l
    for l in $(ltids_of "$1"); do recorded_host "$1" "$l"; done | sort -u | wc -l
}

# --- (a) record on three hosts, replay on the same hosts -----------------

record() { # record NAME LOGS CMD...: records on hA; fails the test if not
    local name=$1 logs=$2
    shift 2
    if ! run "$name" hA "$PANGAEA" -log -logdir "$logs" -host hA -coordhost hA "$@"; then
        pg_fail "$name: recording failed (exit $(cat "$WORK/$name.rc"))"
        cat "$WORK/$name.err"
        return 1
    fi
}

# replays NAME LOGS CMD...: RUNS replays on hA; each must print what the
# recording NAME printed and put every ltid on its recorded host.
replays() {
    local name=$1 logs=$2 i ok=0 placed=0 bad=
    shift 2
    for i in $(seq "$RUNS"); do
        run "$name.r$i" hA "$PANGAEA" -replay -logdir "$logs" "$@"
        cmp -s "$WORK/$name.out" "$WORK/$name.r$i.out" && ok=$((ok + 1))
        check_placement "$logs" "$WORK/$name.r$i.err" >"$WORK/$name.r$i.place" &&
            placed=$((placed + 1))
        [ -n "$bad" ] || [ "$ok$placed" = "$i$i" ] || bad=$i
    done
    if [ "$ok" -eq "$RUNS" ] && [ "$placed" -eq "$RUNS" ]; then
        pg_pass "$name: $RUNS replays print the recorded output, every ltid on its recorded host"
    else
        pg_fail "$name: $ok of $RUNS replays print the recorded output, $placed put every ltid on its host"
        echo "replay $bad (exit $(cat "$WORK/$name.r$bad.rc")):"
        diff "$WORK/$name.out" "$WORK/$name.r$bad.out" | head -5
        cat "$WORK/$name.r$bad.place"; head -20 "$WORK/$name.r$bad.err"
    fi
}

test_sor() {
    local logs=$WORK/sor-logs i n
    for i in $(seq "$RUNS"); do
        run "sor.free$i" hA "$PANGAEA" -none -logdir "$WORK/free" -host hA "$SOR" 4
    done
    n=$(cat "$WORK"/sor.free*.out | sort -u | wc -l)
    if [ "$n" -gt 2 ]; then   # 2 lines a run: more than 2 distinct = runs differ
        pg_pass "sor 4: unrecorded runs on three hosts differ"
    else
        pg_fail "sor 4: $RUNS unrecorded runs printed the same: replay would prove nothing"
    fi
    record sor "$logs" "$SOR" 4 || return
    n=$(hosts_used "$logs")
    if [ "$n" -eq 3 ] && [ "$(recorded_host "$logs" 1)" = hA ]; then
        pg_pass "sor 4: recorded with tasks on 3 hosts ($(for l in $(ltids_of "$logs"); do printf 'ltid %s on %s, ' "$l" "$(recorded_host "$logs" "$l")"; done | sed 's/, $//'))"
    else
        pg_fail "sor 4: recorded tasks use $n hosts, ltid 1 on $(recorded_host "$logs" 1) (wanted 3, hA)"
        grep -h "child" "$logs"/*.exec.xml
    fi
    replays sor "$logs" "$SOR" 4
    if grep -q "each task reads its logs in $logs, which every host" "$WORK/sor.r1.err" &&
       grep -q "^pangaea:   hB: .*ltid-[0-9]*.exec.xml" "$WORK/sor.r1.err"; then
        pg_pass "sor 4: replay says where each host's tasks read their logs"
    else
        pg_fail "sor 4: replay does not say where tasks read their logs"; cat "$WORK/sor.r1.err"
    fi
}

test_spread() {
    local logs=$WORK/spread-logs
    record spread "$logs" "$SPREAD" hA hB hC || return
    if grep -q "worker 1 runs on hA" "$WORK/spread.out" &&
       grep -q "worker 2 runs on hB" "$WORK/spread.out" &&
       grep -q "worker 3 runs on hC" "$WORK/spread.out"; then
        pg_pass "plain_spread: its workers report hosts hA, hB, hC from inside"
    else
        pg_fail "plain_spread: workers report other hosts"; cat "$WORK/spread.out"
    fi
    replays spread "$logs" "$SPREAD" hA hB hC
}

# --- (b) moving tasks ------------------------------------------------------

# The output of replay NAME equals recording REC except for the lines
# "worker K runs on" (given as a pattern), which must read as given.
same_but_hosts() {
    local rec=$1 name=$2 pattern=$3 want
    shift 3
    diff <(grep -v "$pattern" "$WORK/$rec.out") <(grep -v "$pattern" "$WORK/$name.out") >/dev/null || return 1
    for want in "$@"; do grep -q "$want" "$WORK/$name.out" || return 1; done
}

test_hand_edit() {
    local logs=$WORK/sor-hand from to
    cp -r "$WORK/sor-logs" "$logs"
    from=$(recorded_host "$logs" 3)
    case $from in hA) to=hB ;; *) to=hA ;; esac
    sed -i "s|<child ltid=\"3\" host=\"$from\"/>|<child ltid=\"3\" host=\"$to\"/>|" "$logs/ltid-1.exec.xml"
    if [ "$(recorded_host "$logs" 3)" != "$to" ]; then
        pg_fail "hand edit: sed did not move ltid 3"; return
    fi
    run sor.hand hA "$PANGAEA" -replay -logdir "$logs" "$SOR" 4
    if cmp -s "$WORK/sor.out" "$WORK/sor.hand.out" &&
       [ "$(reported_host "$WORK/sor.hand.err" 3)" = "$to" ] &&
       check_placement "$logs" "$WORK/sor.hand.err" >/dev/null; then
        pg_pass "hand-edited log: sor's ltid 3 runs on $to instead of $from, output identical"
    else
        pg_fail "hand-edited log: ltid 3 on $(reported_host "$WORK/sor.hand.err" 3), wanted $to"
        diff "$WORK/sor.out" "$WORK/sor.hand.out" | head -5; head -20 "$WORK/sor.hand.err"
    fi
    # The same edit on plain_spread, whose output names every host.
    logs=$WORK/spread-hand
    cp -r "$WORK/spread-logs" "$logs"
    sed -i 's|<child ltid="3" host="hB"/>|<child ltid="3" host="hC"/>|' "$logs/ltid-1.exec.xml"
    run spread.hand hA "$PANGAEA" -replay -logdir "$logs" "$SPREAD" hA hB hC
    if same_but_hosts spread spread.hand "worker 2 runs on" "worker 2 runs on hC" &&
       ! cmp -s "$WORK/spread.out" "$WORK/spread.hand.out"; then
        pg_pass "hand-edited log: plain_spread's worker 2 (ltid 3) reports hC, the rest of the output identical"
    else
        pg_fail "hand-edited log: plain_spread output"; diff "$WORK/spread.out" "$WORK/spread.hand.out"
        head -20 "$WORK/spread.hand.err"
    fi
}

test_move_command() {
    local logs=$WORK/spread-move n
    cp -r "$WORK/spread-logs" "$logs"
    if "$PANGAEA" -move-host hB hA -logdir "$logs" >"$WORK/move.out" 2>&1 &&
       grep -q "ltid 3 moved from host hB to host hA" "$WORK/move.out"; then
        pg_pass "pangaea -move-host hB hA: $(cat "$WORK/move.out" | tr '\n' ' ')"
    else
        pg_fail "pangaea -move-host hB hA"; cat "$WORK/move.out"; return
    fi
    # Only the <child> lines changed: timestamps and all else kept.
    n=$(diff "$WORK/spread-logs/ltid-1.exec.xml" "$logs/ltid-1.exec.xml" | grep -c '^[<>]')
    if [ "$n" -eq 2 ] && diff -r -q -x .pangaea.lock "$WORK/spread-logs" "$logs" | grep -q "ltid-1.exec.xml" &&
       [ "$(diff -r -q -x .pangaea.lock "$WORK/spread-logs" "$logs" | wc -l)" -eq 1 ] &&
       xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$logs/ltid-1.exec.xml" 2>/dev/null; then
        pg_pass "-move-host rewrote one line of one log, and it is valid"
    else
        pg_fail "-move-host changed more than the host ($n lines)"
        diff -r -x .pangaea.lock "$WORK/spread-logs" "$logs" | head -20
    fi
    run spread.move hA "$PANGAEA" -replay -logdir "$logs" "$SPREAD" hA hB hC
    if same_but_hosts spread spread.move "worker 2 runs on" "worker 2 runs on hA" &&
       ! grep -q "started on hB" "$WORK/spread.move.err" &&
       check_placement "$logs" "$WORK/spread.move.err" >/dev/null; then
        pg_pass "after -move-host hB hA: no task runs on hB, output otherwise identical"
    else
        pg_fail "after -move-host hB hA"; diff "$WORK/spread.out" "$WORK/spread.move.out"
        head -20 "$WORK/spread.move.err"
    fi
    # There and back again: every log byte for byte as recorded.
    logs=$WORK/sor-back
    cp -r "$WORK/sor-logs" "$logs"
    if "$PANGAEA" -move-host hA hQ -logdir "$logs" >/dev/null &&
       ! diff -r -q -x .pangaea.lock "$WORK/sor-logs" "$logs" >/dev/null &&
       "$PANGAEA" -move-host hQ hA -logdir "$logs" >/dev/null &&
       diff -r -x .pangaea.lock "$WORK/sor-logs" "$logs" >/dev/null; then
        pg_pass "-move-host hA hQ, then hQ hA: every log byte for byte as recorded"
    else
        pg_fail "moving there and back changed the logs"; diff -r -x .pangaea.lock "$WORK/sor-logs" "$logs" | head
    fi
    # One task with -move, on sor.
    logs=$WORK/sor-move
    cp -r "$WORK/sor-logs" "$logs"
    "$PANGAEA" -move 1 hC -logdir "$logs" >"$WORK/move1.out" 2>&1
    run sor.move hA "$PANGAEA" -replay -logdir "$logs" "$SOR" 4
    if grep -q "ltid 1 moved from host hA to host hC (.*/ltid-0.exec.xml)" "$WORK/move1.out" &&
       cmp -s "$WORK/sor.out" "$WORK/sor.move.out" &&
       [ "$(reported_host "$WORK/sor.move.err" 1)" = hC ] &&
       check_placement "$logs" "$WORK/sor.move.err" >/dev/null; then
        pg_pass "pangaea -move 1 hC (in ltid-0.exec.xml): sor's first task runs on hC, output identical"
    else
        pg_fail "pangaea -move 1 hC"; cat "$WORK/move1.out"; head -20 "$WORK/sor.move.err"
    fi
}

# expect_refused NAME PATTERN CMD...: exit 2, stderr matches, nothing ran.
expect_refused() {
    local name=$1 pattern=$2 rc=0 before after
    shift 2
    before=$(for h in hA hB hC; do hosts_pids_on "$h"; done | sort | tr '\n' ' ')
    "$@" >"$WORK/refused.out" 2>"$WORK/refused.err" || rc=$?
    after=$(for h in hA hB hC; do hosts_pids_on "$h"; done | sort | tr '\n' ' ')
    if [ "$rc" -eq 2 ] && grep -Eq -- "$pattern" "$WORK/refused.err" &&
       [ ! -s "$WORK/refused.out" ] && ! grep -q "started on" "$WORK/refused.err" &&
       [ "$before" = "$after" ]; then
        pg_pass "$name (exit 2: $(head -1 "$WORK/refused.err"))"
    else
        pg_fail "$name: exit $rc (wanted 2), processes before [$before] after [$after]:"
        cat "$WORK/refused.err" "$WORK/refused.out"
    fi
}

# --- (c) what is refused, before anything starts --------------------------

test_refused() {
    local logs cut
    logs=$WORK/bad-host; cp -r "$WORK/spread-logs" "$logs"
    sed -i 's|<child ltid="4" host="hC"/>|<child ltid="4" host="hZ"/>|' "$logs/ltid-1.exec.xml"
    expect_refused "edit naming a host that does not exist" \
        'host "hZ" is not part of the virtual machine; .*ltid-1.exec.xml runs ltid 4 there.*-addhosts' \
        hosts_run hA timeout 60 "$PANGAEA" -replay -logdir "$logs" "$SPREAD" hA hB hC
    logs=$WORK/truncated; cp -r "$WORK/sor-logs" "$logs"
    # Cut inside the header element, wherever paths put it: a cut that
    # fell between elements would be a task that died when recorded.
    cut=$(grep -bo 'sha256="' "$WORK/sor-logs/ltid-1.exec.xml" | head -n 1 | cut -d: -f1)
    head -c $((cut + 20)) "$WORK/sor-logs/ltid-1.exec.xml" >"$logs/ltid-1.exec.xml"
    expect_refused "truncated execution log: file, line and column" \
        "ltid-1.exec.xml:[0-9]+:[0-9]+" \
        hosts_run hA timeout 60 "$PANGAEA" -replay -logdir "$logs" "$SOR" 4
    logs=$WORK/garbled; cp -r "$WORK/sor-logs" "$logs"
    sed -i 's|<child ltid="3"|<child ltid="3" <<|' "$logs/ltid-1.exec.xml"
    expect_refused "malformed execution log: file, line and column" \
        "ltid-1.exec.xml:[0-9]+:[0-9]+" \
        hosts_run hA timeout 60 "$PANGAEA" -replay -logdir "$logs" "$SOR" 4
    logs=$WORK/invalid; cp -r "$WORK/sor-logs" "$logs"
    sed -i 's|<child ltid="4" host=|<child ltid="4" place=|' "$logs/ltid-1.exec.xml"
    expect_refused "execution log against the schema" \
        "ltid-1.exec.xml:[0-9]+: .*attribute .place. is not allowed" \
        hosts_run hA timeout 60 "$PANGAEA" -replay -logdir "$logs" "$SOR" 4
    logs=$WORK/other; cp -r "$WORK/sor-logs" "$logs"
    sed -i 's|program="[^"]*" host=|program="/usr/bin/other" host=|' "$logs/ltid-3.exec.xml"
    expect_refused "execution log of another program" \
        "ltid-3.exec.xml is a log of /usr/bin/other, but ltid 1 spawned ltid 3 as .*sor.*another program" \
        hosts_run hA timeout 60 "$PANGAEA" -replay -logdir "$logs" "$SOR" 4
    expect_refused "-host that disagrees with the recording" \
        "-host hB: the recording .* runs ltid 1 on hA .*pangaea -move 1 hB" \
        hosts_run hA timeout 60 "$PANGAEA" -replay -logdir "$WORK/sor-logs" -host hB "$SOR" 4
    expect_refused "-move of an ltid the recording lacks" "has no task ltid 99" \
        "$PANGAEA" -move 99 hA -logdir "$WORK/sor-logs"
    expect_refused "-move-host of a host no task ran on" "no task .* runs on host hQ" \
        "$PANGAEA" -move-host hQ hA -logdir "$WORK/sor-logs"
    expect_refused "-move of a malformed log" "ltid-1.exec.xml:[0-9]+:[0-9]+" \
        "$PANGAEA" -move 3 hA -logdir "$WORK/garbled"
}

hosts_up hA hB hC
case $? in
0) ;;
1) hosts_skip ;;
*) pg_fail "cannot build the virtual machine of hA hB hC ($HOSTS_WHY)"; pg_summary; exit 1 ;;
esac

test_sor
test_spread
if [ -d "$WORK/sor-logs" ] && [ -d "$WORK/spread-logs" ]; then
    test_hand_edit
    test_move_command
    test_refused
else
    pg_fail "no recordings: the move and error tests cannot run"
fi
[ "$PG_FAILED" -eq 0 ] || hosts_logs
pg_summary
