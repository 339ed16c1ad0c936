#!/usr/bin/env bash
# test_stopped.sh - a task stopped (SIGSTOP) during a replay.
#
# The other tasks wait for its messages: pangaea must report the stall
# (who waits for what, and that the task is stopped) and end the run with
# exit 3 within a bound after PANGAEA_STALL; a Ctrl-C (SIGINT to pangaea)
# with a task stopped must end the run too, and so must one with a task
# that has not made its first PVM call.  Either way no task of the run
# may stay behind: neither its process nor its entry in the virtual
# machine.  The stopped task is found in /proc as the child of our pvmd
# whose environment gave it PANGAEA_LTID=2.
set -u
. "$(dirname "$0")/lib.sh"

PANGAEA=$PG_BUILD/pangaea
SLOW=$PG_BUILD/tests/plain_slow

# Prints the pid of the task of ltid $1 of our pvmd (waits up to 10 s).
task_pid() {
    local p i
    for i in $(seq 100); do
        for p in $(pgrep -P "$PG_PVMD_PID"); do
            tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -Eqx "PANGAEA_LTID=$1(@$p)?" || continue
            echo "$p"; return 0
        done
        sleep 0.1
    done
    return 1
}

# Tasks left in our virtual machine, as the console lists them (itself aside).
vm_tasks() {
    (echo "ps -a"; echo quit) | timeout 10 pvm 2>/dev/null |
        awk '$1 != "pvm>" && $2 ~ /^[0-9a-f]+$/ && $NF != "-"'
}

# left_behind PID: fails when the process or any task of the run is left.
left_behind() {
    local pid=$1 state tasks
    sleep 1
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    tasks=$(vm_tasks)
    if [ -n "$state" ] && [ "$state" != Z ]; then
        echo "process $pid still there (state $state)"; kill -KILL "$pid" 2>/dev/null
        return 0
    fi
    if [ -n "$tasks" ]; then echo "tasks left in the virtual machine:"; echo "$tasks"; return 0; fi
    return 1
}

pg_pvm_start || { pg_fail "cannot start a private pvmd"; pg_summary; exit 1; }
dir=$(pg_tmpdir)
if ! pg_slow_fast timeout 60 "$PANGAEA" -log -logdir "$dir/logs" "$SLOW" 300 >"$dir/rec.out" 2>"$dir/rec.err"; then
    pg_fail "recording plain_slow failed"; cat "$dir/rec.err"; pg_summary; exit 1
fi

# --- a stopped task ends a replay as stalled, within a bound -------------
start=$(date +%s)
PANGAEA_STALL=2 timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$SLOW" 300 \
    >"$dir/stop.out" 2>"$dir/stop.err" &
runner=$!
pid=$(task_pid 2)
[ -n "$pid" ] && kill -STOP "$pid"
rc=0; wait "$runner" || rc=$?
took=$(($(date +%s) - start))
if [ -z "$pid" ]; then
    pg_fail "stopped task: ltid 2 never showed up"
elif [ "$rc" -eq 3 ] && [ "$took" -le 20 ] &&
     grep -q "replay stalled" "$dir/stop.err" &&
     grep -Eq "ltid 2 \(.*plain_slow\) is stopped \(pid $pid" "$dir/stop.err" &&
     grep -Eq "ltid 1 \(.*plain_slow\) waits in pvm_recv for message [0-9]+ from ltid 2" "$dir/stop.err"; then
    pg_pass "stopped task: stall reported (who waits for what, who is stopped), exit 3 after ${took} s"
else
    pg_fail "stopped task: exit $rc after ${took} s (wanted 3 within 20 s), stderr:"; cat "$dir/stop.err"
fi
if [ -n "$pid" ] && why=$(left_behind "$pid"); then
    pg_fail "stopped task: left behind after the stall: $why"
else
    pg_pass "stopped task: nothing of the run left (process gone, no task in the virtual machine)"
fi

# --- Ctrl-C with a stopped task --------------------------------------------
PANGAEA_STALL=60 timeout 60 "$PANGAEA" -replay -logdir "$dir/logs" "$SLOW" 300 \
    >"$dir/int.out" 2>"$dir/int.err" &
runner=$!
pid=$(task_pid 2)
[ -n "$pid" ] && kill -STOP "$pid"
sleep 1
kill -INT "$runner"
rc=0; wait "$runner" || rc=$?
if [ -n "$pid" ] && [ "$rc" -eq 130 ] && grep -q "interrupted" "$dir/int.err"; then
    pg_pass "Ctrl-C with a stopped task: run stopped (exit 130)"
else
    pg_fail "Ctrl-C with a stopped task (pid ${pid:-none}): exit $rc, stderr:"; cat "$dir/int.err"
fi
if [ -n "$pid" ] && why=$(left_behind "$pid"); then
    pg_fail "Ctrl-C with a stopped task: left behind: $why"
else
    pg_pass "Ctrl-C with a stopped task: nothing of the run left"
fi

# --- Ctrl-C while a spawned task has not made its first PVM call -----------
# pangaea learns a task's ltid from its first PVM call; one stopped or slow
# before it is known to the pvmd alone, and must be ended all the same.
# The child is a script that sleeps instead (exec: the sleep is the task;
# the library it preloads marks its ltid as taken, "2@pid").
printf '#!/bin/sh\nexec sleep 60\n' >"$dir/never.sh"; chmod +x "$dir/never.sh"
timeout 60 "$PANGAEA" -log -logdir "$dir/never" "$PG_BUILD/tests/plain_spawnwho" \
    "$dir/never.sh" >"$dir/never.out" 2>"$dir/never.err" &
runner=$!
pid=$(task_pid 2)
for i in $(seq 50); do grep -q spawned "$dir/never.out" && break; sleep 0.1; done
kill -INT "$runner"
rc=0; wait "$runner" || rc=$?
if [ -n "$pid" ] && [ "$rc" -eq 130 ]; then
    pg_pass "Ctrl-C with a task that never called PVM: run stopped (exit 130)"
else
    pg_fail "Ctrl-C with a task that never called PVM (pid ${pid:-none}): exit $rc, stderr:"
    cat "$dir/never.err"
fi
if [ -z "$pid" ]; then
    pg_fail "Ctrl-C with a task that never called PVM: it never showed up"
elif why=$(left_behind "$pid"); then
    pg_fail "Ctrl-C with a task that never called PVM: left behind: $why"
else
    pg_pass "Ctrl-C with a task that never called PVM: nothing of the run left"
fi

pg_summary
