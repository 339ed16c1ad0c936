#!/usr/bin/env bash
# test_hostloss.sh - a host of the virtual machine dies in the middle of a
# recording: pangaea must say which tasks were lost, stop the others and exit
# non-zero, and the logs written until then must stay valid.
#
# Design.  Three hosts from hosts.sh (network namespaces hA hB hC); SOR with
# 4 tasks and enough iterations to run for minutes is recorded from hA, its
# coordinator on hA.  Once a task runs on hC, hC's pvmd is killed with
# SIGKILL: nothing on hC says goodbye, which is what a crashed machine or a
# cut cable looks like to the others.  PVM itself notices the loss only when
# packets to hC go unanswered for DDMINTIMEOUT (180 s in PVM 3.4's ddpro.h,
# retries included), so pangaea can learn of it no sooner: the test allows
# 400 s.  That is why run_all.sh starts this test in the background.
#
# Checks: pangaea exits 4 (a failed run), names the host that left and each
# ltid that ran there (from the tasks' own gethostname(), as pangaea prints
# it when they start), stops the tasks on the other hosts (none left in hA's
# and hB's namespaces), and every log it wrote is valid against the schema.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts.sh"

PANGAEA=$PG_BUILD/pangaea
SOR=$PG_BUILD/sor
WAIT=${PG_HOSTLOSS_WAIT:-400}
WORK=$(pg_tmpdir)
LOGS=$WORK/logs

hosts_up hA hB hC || { [ $? -eq 1 ] && hosts_skip; pg_fail "cannot build the hosts: $HOSTS_WHY"; pg_summary; exit 1; }

# Processes on host $1 other than its pvmd.
tasks_on() {
    local h=$1 pvmd pid
    pvmd=$(pg_pvmd_pid "$HOSTS_DIR/$h/pvmtmp")
    for pid in $(hosts_pids_on "$h"); do
        [ "$pid" = "$pvmd" ] || echo "$pid"
    done
}

hosts_run hA timeout $((WAIT + 60)) "$PANGAEA" -log -logdir "$LOGS" -host hA -coordhost hA \
    "$SOR" 4 100000 1500 >"$WORK/run.out" 2>"$WORK/run.err" &
run_pid=$!

# Wait until every ltid has said where it started and one of them is on hC.
lost=
for i in $(seq 300); do
    lost=$(sed -nE 's/^pangaea: ltid ([0-9]+) \(.*\) started on hC$/\1/p' "$WORK/run.err")
    [ "$(grep -c ') started on ' "$WORK/run.err")" -ge 4 ] && [ -n "$lost" ] && break
    kill -0 "$run_pid" 2>/dev/null || break
    sleep 0.1
done
if [ -z "$lost" ]; then
    pg_fail "no task of the run started on hC"; cat "$WORK/run.err"; hosts_logs
    pg_summary; exit 1
fi
sleep 1 # let the run get into its exchanges
pvmd_c=$(pg_pvmd_pid "$HOSTS_DIR/hC/pvmtmp")
kill -KILL "$pvmd_c"
t0=$(date +%s)
echo "killed hC's pvmd (PID $pvmd_c); ltids on hC: $(echo $lost)"

rc=0
wait "$run_pid" || rc=$?
took=$(($(date +%s) - t0))

if [ "$rc" -eq 4 ]; then
    pg_pass "pangaea ended the run $took s after hC's pvmd died, exit 4"
else
    pg_fail "pangaea exited $rc (want 4) $took s after hC's pvmd died"
    cat "$WORK/run.err"; hosts_logs
fi

if grep -qE "^pangaea: host t[0-9a-f]+ \(hC\) left the virtual machine" "$WORK/run.err"; then
    pg_pass "pangaea names the host that left (hC)"
else
    pg_fail "no message naming hC as gone:"; grep -v ' started on ' "$WORK/run.err" | head
fi

missing=
for l in $lost; do
    grep -qE "^pangaea:   lost ltid $l \(.*sor\)$" "$WORK/run.err" || missing="$missing $l"
done
if [ -z "$missing" ]; then
    pg_pass "pangaea names each ltid that ran on hC:$(echo " $lost")"
else
    pg_fail "ltids on hC not named as lost:$missing"; grep -v ' started on ' "$WORK/run.err" | head
fi

left=
for h in hA hB; do
    [ -n "$(tasks_on "$h")" ] && left="$left $h"
done
if [ -z "$left" ]; then
    pg_pass "no task of the run is left on hA or hB"
else
    pg_fail "tasks left on:$left"
fi

# Logs of tasks that ended are complete and valid against the schema; a
# task killed on the way (the lost ones, those pangaea stopped) leaves a log
# cut after its last complete event, which is how Pangaea's reader, the
# replay and -tasks take it.  Each log must be one or the other.
"$PANGAEA" -tasks "$LOGS" >"$WORK/tasks.out" 2>&1
trc=$?
bad=
for f in "$LOGS"/ltid-*.exec.xml; do
    xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" "$f" >/dev/null 2>&1 && continue
    grep -qF "$f:2: stops after event" "$WORK/tasks.out" || bad="$bad ${f##*/}"
done
for f in "$LOGS"/ltid-*.comm.pgc; do
    grep -F "$f" "$WORK/tasks.out" | grep -q "stops after event" && continue
    l=${f##*/ltid-}; l=${l%.comm.pgc}
    "$PANGAEA" -dump "$LOGS" "$l" 2>/dev/null |
        xmllint --noout --schema "$PG_ROOT/schema/pangaea-log.xsd" - >/dev/null 2>&1 ||
        bad="$bad ${f##*/}"
done
n=$(ls "$LOGS"/ltid-*.exec.xml "$LOGS"/ltid-*.comm.pgc 2>/dev/null | wc -l)
if [ "$trc" -eq 0 ] && [ "$n" -eq 10 ] && [ -z "$bad" ]; then
    pg_pass "the 10 logs are readable: $(grep -c 'stops after event' "$WORK/tasks.out") cut after their last event, the others valid against the schema"
else
    pg_fail "pangaea -tasks exit $trc, $n logs, neither valid nor cleanly cut:$bad"
    cat "$WORK/tasks.out"
fi

pg_summary
