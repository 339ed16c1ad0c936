#!/usr/bin/env bash
# run_all.sh - runs every tests/e2e/test_*.sh and adds up their results.
#
# Each test prints its own closing line "e2e: N passed, M failed", or
# "e2e: skipped: REASON" when it cannot run on this machine (lib.sh,
# pg_skip); this script sums those, names every skipped test with its
# reason, and closes with "N passed, M failed, K skipped" alone on a line.
# A skipped test is never counted as passed.  A test that exits non-zero
# without reporting a failure, that prints no closing line (it crashed or
# hung), or that reports "0 passed, 0 failed" (it checked nothing) counts as
# one failure.  Exits non-zero if anything failed or nothing passed.
#
# Tests run side by side, PG_JOBS at a time (see below): every test has
# its own pvmd, PVM_TMP and namespaces, so they do not meet.
# PG_TESTS="test_a.sh test_b.sh" runs only those;
# PG_E2E_DIR runs the tests of another directory (test_harness.sh does).
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 1
dir=$(cd "${PG_E2E_DIR:-$here}" && pwd) || exit 1
passed=0
failed=0
skipped=0
skips=()
ran=0
# The tests' temp files (lib.sh makes every one under TMPDIR) go on a
# tmpfs when the caller named no TMPDIR and /dev/shm has room (4 GB free):
# the tests create and remove tens of thousands of files (logs, sockets,
# copies), and on this machine's ext4 /tmp, whose inode allocator scans
# past recently deleted inodes, that was a fifth of a spawning test's
# CPU (test_spawn_farm 13.3 -> 10.3 CPU-s).
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] &&
   [ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -n 1)" -ge 4000000 ] 2>/dev/null; then
    work=$(mktemp -d /dev/shm/pg-e2e.XXXXXX) || exit 1
    export TMPDIR=$work/tmp
    mkdir "$TMPDIR" || exit 1
else
    work=$(mktemp -d) || exit 1
fi
bg_pids=()
tick=
cleanup() {
    local pid b
    [ -z "$tick" ] || kill -KILL "$tick" 2>/dev/null # (see slot)
    for pid in "${bg_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    for pid in "${bg_pids[@]}"; do wait "$pid" 2>/dev/null; done
    for b in "$work"/browsers/*/; do
        [ -d "$b" ] && python3 -S "$here/graph_page.py" --stop-browser "$b"
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# count NAME RC LOG: adds the result of test NAME (exit RC, output in LOG).
count() {
    local name=$1 rc=$2 log=$3 line p f
    ran=$((ran + 1))
    line=$(grep -E '^e2e: ([0-9]+ passed, [0-9]+ failed|skipped: .*)$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL: $name printed no result line (exit $rc)"
        failed=$((failed + 1))
        return
    fi
    if [[ $line == "e2e: skipped: "* ]]; then
        if [ "$rc" -ne 0 ]; then
            echo "FAIL: $name said it skipped, but exited $rc"
            failed=$((failed + 1))
        else
            skipped=$((skipped + 1))
            skips+=("$name: ${line#e2e: skipped: }")
        fi
        return
    fi
    p=$(echo "$line" | sed -E 's/^e2e: ([0-9]+) passed, ([0-9]+) failed$/\1/')
    f=$(echo "$line" | sed -E 's/^e2e: ([0-9]+) passed, ([0-9]+) failed$/\2/')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL: $name exited $rc"
        f=1
    elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL: $name checked nothing (0 passed, 0 failed): a test that cannot run must say skipped"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
}

# left_behind NAME: one failure if test NAME left a temp base of lib.sh
# (its cleanup trap did not run pg_cleanup); removes what it left.
left_behind() {
    local name=$1 base
    [ -s "$work/$name.tmps" ] || return 0
    while read -r base; do
        [ -e "$base" ] || continue
        echo "FAIL: $name left its temp dir $base behind"
        failed=$((failed + 1))
        rm -rf "$base"
    done <"$work/$name.tmps"
}

# The page checks of every test share the run's few headless Chromiums
# (graph_page.py's Driver.pool_slot; each costs about two CPU seconds to
# start), ended by cleanup above; a check that finds them all busy uses
# its test's own (lib.sh).
export PG_BROWSER_POOL=$work/browsers

wanted() { [ -z "${PG_TESTS:-}" ] || [[ " $PG_TESTS " == *" $1 "* ]]; }

# Tests run PG_JOBS at a time (default twice the CPUs, and two more for
# the two longest, test_hostloss.sh and test_interactive.sh, which wait on
# PVM's host timeout and on tmux and gdb for minutes and barely compute:
# most of a test's time is spent waiting on pvmd, timeouts and processes,
# not computing).
# The suite as a whole is bound by CPU (two cores do all the tests' work),
# so the tests that take the most CPU start first, after the two long
# waiters (FIRST, from the CPU seconds of each test, user and system,
# pvmd and its tasks included: the table PG_CPU_DIR prints, below), the
# tests that wait long for little CPU (a minute of wall time each under
# load) one among every three of them, where the others' work fills their
# waits (last, or together, they made a lull of their own: PG_CPU_DIR's
# timeline.txt), then those of ten seconds or more: the run is not left
# with one long test alone at its end.
# Each test's output is kept apart and shown whole when it ends, with its
# time, so outputs never interleave.
jobs=${PG_JOBS:-$(( $(nproc 2>/dev/null || echo 2) * 2 + 2 ))}
[ "$jobs" -ge 1 ] 2>/dev/null || jobs=1
# And while the CPUs idle, more: when all PG_JOBS tests wait at once (on
# timeouts, daemons, a browser), half the machine or more idle over the
# last IDLE_TICK seconds starts the next test early, up to PG_JOBS_MAX
# running (default four more; PG_JOBS given alone: none more).  A test so
# started takes CPU nobody used, so it only shortens the run
# (PG_IDLE_MIN, default 50: the idle share that is enough; 0 for any).
if [ -n "${PG_JOBS:-}" ]; then jobs_max=${PG_JOBS_MAX:-$jobs}; else jobs_max=${PG_JOBS_MAX:-$((jobs + 4))}; fi
[ "$jobs_max" -ge "$jobs" ] 2>/dev/null || jobs_max=$jobs
IDLE_TICK=2 IDLE_MIN=${PG_IDLE_MIN:-50}
FIRST="test_hostloss.sh test_interactive.sh test_load.sh test_debian.sh
test_install.sh test_min.sh test_mpi_replay.sh test_mpi_hpcc.sh
test_whatif_real.sh test_mpi_ctx.sh test_replay.sh test_mpi_anyof.sh
test_exit_enrol.sh test_spawn_farm.sh test_mpi_min.sh
test_mpi_replay_openmpi.sh test_fifo.sh test_mpi_persist.sh
test_mpi_live.sh test_mpi.sh test_live_steer.sh test_mpi_f08.sh
test_scaling.sh test_mpi_live_openmpi.sh test_live.sh test_display.sh
test_errors.sh test_mpi_whatif.sh test_replay_wait.sh
test_mpi_explore.sh test_mpi_persist_openmpi.sh test_mpi_openmpi.sh
test_live_guard.sh test_replay_cost.sh test_mpi_f08_openmpi.sh
test_mpi_debug.sh test_outside.sh test_logdir.sh test_hosts.sh
test_killed.sh test_realprog_inherit.sh test_mpi_hosts_openmpi.sh
test_display_scaling.sh test_page_scale.sh test_mpi_spawn_more.sh
test_explore.sh test_debug.sh test_mpi_getstatus.sh test_mpi_spawn.sh
test_mpi_postings.sh test_scaling_tables.sh test_recv_info.sh
test_display_parts.sh test_filter.sh test_whatif.sh test_stopped.sh
test_sendsig.sh test_select.sh test_races.sh test_page_budget.sh
test_page_export.sh test_perfetto.sh test_programs_race.sh
test_mpi_live_choose.sh test_docs.sh"
order=()
for name in $FIRST; do [ -e "$dir/$name" ] && order+=("$name"); done
for t in "$dir"/test_*.sh; do
    name=$(basename "$t")
    [[ " $(echo $FIRST) " == *" $name "* ]] || order+=("$name")
done

# PG_CPU_DIR=DIR: DIR/timeline.txt has each test's start and end (seconds
# into the run) and name, to see what ran when the CPUs idled.
# Each test runs under `perf stat` (task-clock follows
# every process the test starts, its daemonized pvmd included; user and
# system time are those of the processes it waits for), and the run ends
# with a table of them, costliest first, kept in DIR/cpu.txt: the figures
# FIRST above is ordered by (docs/DEVELOPING.md).
# Not passed on: a run_all.sh a test starts (test_harness.sh) counts
# nothing into it.
cpu_stat=()
cpu_dir=${PG_CPU_DIR:-}
unset PG_CPU_DIR
if [ -n "$cpu_dir" ]; then
    mkdir -p "$cpu_dir" || exit 1
    cpu_stat=(perf stat -x, -e task-clock,user_time,system_time -o)
fi

# cpu_table: one line per test, "CPU-s user-s sys-s wall-s name", from the
# perf outputs in PG_CPU_DIR, costliest first; and the sum.
cpu_table() {
    local f
    for f in "$cpu_dir"/*.perf; do
        awk -F, -v name="$(basename "$f" .perf)" -v wall="$(cat "${f%.perf}.wall")" '
            $3 == "task-clock"  { cpu = $1 / 1000 }
            $3 == "user_time"   { usr = $1 / 1e9 }
            $3 == "system_time" { sys = $1 / 1e9 }
            END { printf "%7.1f %7.1f %7.1f %5d %s\n", cpu, usr, sys, wall, name }' "$f"
    done | sort -rn >"$cpu_dir/cpu.txt"
    echo "  CPU-s  user-s   sys-s wall-s test"
    cat "$cpu_dir/cpu.txt"
    awk '{ c += $1; u += $2; s += $3 } END { printf "%7.1f %7.1f %7.1f       total\n", c, u, s }' "$cpu_dir/cpu.txt"
}

declare -A job_name job_start
running=0 early=0
# reap: waits for one running test to end and counts it.
reap() {
    local pid rc=0
    wait -n -p pid || rc=$?
    [ -n "${pid:-}" ] || return 1
    counted "$pid" "$rc"
}
# counted PID RC: test PID ended with RC: its output shown whole, counted.
counted() {
    local pid=$1 rc=$2 name
    name=${job_name[$pid]}
    echo "== $name ($(( SECONDS - job_start[$pid] )) s)"
    [ -z "$cpu_dir" ] || echo $(( SECONDS - job_start[$pid] )) >"$cpu_dir/$name.wall"
    [ -z "$cpu_dir" ] || echo "${job_start[$pid]} $SECONDS $name" >>"$cpu_dir/timeline.txt"
    cat "$work/$name.log"
    count "$name" "$rc" "$work/$name.log"
    left_behind "$name"
    unset "job_name[$pid]"
    running=$((running - 1))
}
# idle_since: sets IDLE, the share (percent) of the CPUs' time idle since
# the last call (/proc/stat's first line: idle and iowait of all).
idle_prev=0 total_prev=0 IDLE=0
idle_since() {
    local cpu user nice sys idle iow irq soft steal rest total
    read -r cpu user nice sys idle iow irq soft steal rest </proc/stat 2>/dev/null || { IDLE=0; return; }
    total=$((user + nice + sys + idle + iow + irq + soft + steal)) idle=$((idle + iow))
    IDLE=0
    [ "$total" -gt "$total_prev" ] && IDLE=$((100 * (idle - idle_prev) / (total - total_prev)))
    idle_prev=$idle total_prev=$total
}
# slot: returns once another test may start: fewer than PG_JOBS run, or
# fewer than PG_JOBS_MAX and the CPUs idled over a whole tick (waiting for
# a test's end or the tick, whichever comes first).
slot() {
    local pid rc mine
    while [ "$running" -ge "$jobs" ]; do
        if [ "$running" -ge "$jobs_max" ]; then reap || return; continue; fi
        idle_since
        sleep "$IDLE_TICK" &
        tick=$! mine=$!
        rc=0; pid=
        wait -n -p pid || rc=$?
        # KILL, not TERM: until it has become sleep, the tick is a copy of
        # this shell, whose TERM trap would run the clean-up (EXIT) there
        [ "${pid:-}" = "$mine" ] || { kill -KILL "$mine" 2>/dev/null; wait "$mine" 2>/dev/null; }
        tick= # reaped: its PID is no longer ours to signal
        [ -n "${pid:-}" ] || return
        if [ "$pid" != "$mine" ]; then counted "$pid" "$rc"; continue; fi
        idle_since
        [ "$IDLE" -ge "$IDLE_MIN" ] && { early=$((early + 1)); return; }
    done
}
for name in "${order[@]}"; do
    wanted "$name" || continue
    slot
    PG_E2E_TMPLIST=$work/$name.tmps \
        timeout "${PG_TEST_TIMEOUT:-1200}" "${cpu_stat[@]}" ${cpu_stat:+"$cpu_dir/$name.perf"} bash "$dir/$name" >"$work/$name.log" 2>&1 &
    job_name[$!]=$name
    job_start[$!]=$SECONDS
    bg_pids+=($!)
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do reap || break; done
bg_pids=()

[ -z "$cpu_dir" ] || [ "$ran" -eq 0 ] || cpu_table
[ "$ran" -gt 0 ] || echo "no end-to-end test found in $dir"
[ "$early" -eq 0 ] || echo "($early tests started early, on idle CPUs)"
for s in "${skips[@]}"; do echo "SKIPPED: $s"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$ran" -gt 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
