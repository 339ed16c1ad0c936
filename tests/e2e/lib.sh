# tests/e2e/lib.sh - helpers for end-to-end tests on a real, private pvmd.
#
# Source it from a test script (bash).  Design:
# - Each test runs its own pvmd in a fresh PVM_TMP (mktemp -d), so it never
#   touches anybody else's daemon and a daemon left behind by a crash cannot
#   block the next run ("pvmd already running").
# - The daemon's PID is read from its socket file: pvmd.<uid> in PVM_TMP
#   names the socket, and pvmd names that socket pvmtmp<PID>.<n>.  The PID is
#   accepted only if /proc says that process is a pvmd whose environment
#   has our PVM_TMP; otherwise /proc is searched for exactly that pvmd.  So
#   a stop can only ever signal our own daemon - never by process name.
# - Stopping halts the daemon politely (`echo halt | pvm`), then signals the
#   recorded PID if it is still alive, then removes PVM_TMP.  An EXIT/INT/TERM
#   trap does the same, also for any pvmd found serving a dir made by
#   pg_tmpdir, so daemons and temp dirs go away on failure too.
# - pg_pass/pg_fail count results; pg_summary prints the closing line
#   "e2e: N passed, M failed" that run_all.sh adds up.  A test that cannot
#   run on this machine (it needs root, say) calls pg_skip instead, whose
#   closing line "e2e: skipped: REASON" run_all.sh counts as skipped, never
#   as passed.

PG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PG_BUILD="$PG_ROOT/build"
# The tests' Python reads `-races -json` through races_json.py (here).
export PYTHONPATH="$PG_ROOT/tests/e2e${PYTHONPATH:+:$PYTHONPATH}"
PG_PASSED=0
PG_FAILED=0
PG_PVMD_PID=
# Every temp dir of the test lives under one base made now, in the shell
# that sources this file: pg_tmpdir is called as $(pg_tmpdir), in a
# subshell, so it could not tell the cleanup trap about a dir of its own.
PG_TMP_BASE=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-e2e.XXXXXX") || exit 1
# run_all.sh names a file in PG_E2E_TMPLIST and checks, after the test,
# that every base listed there is gone: a test whose trap forgot
# pg_cleanup fails instead of filling /tmp.
[ -z "${PG_E2E_TMPLIST:-}" ] || echo "$PG_TMP_BASE" >>"$PG_E2E_TMPLIST"

# Headless Chromium, which the page checks drive (graph_page.py's Driver):
# one per test, not one per check.  The first check starts it, with its
# profile in this dir; every check drives its one tab, emptied for it;
# pg_cleanup ends it by PID (pg_browser_stop).
export PG_BROWSER_DIR=$PG_TMP_BASE/browser

# Every test has a PVM_TMP of its own, also where it starts no pvmd: a
# `pangaea` that finds no pvmd starts a private one in PVM_TMP, which is
# /tmp when unset, so two tests running side by side would share it, and
# the first to end would halt the other's run (pvm_halt ends every task
# of the daemon, the other `pangaea` too: "interrupted").  pg_pvm_stop
# comes back to it.
PG_PVM_TMP_OWN=$PG_TMP_BASE/pvm
mkdir -p "$PG_PVM_TMP_OWN" || exit 1
export PVM_TMP=$PG_PVM_TMP_OWN

# Python, which the tests start over a thousand times a run (checks,
# pages, JSON; they import only its standard library): Debian's
# interpreter (the python3 package, scripts/install-deps.sh) wherever it
# is installed, else the one PATH finds.  The python3 first on PATH may
# be a version manager's: pyenv's is a shell script that looks the version
# up again on every call and then starts an interpreter whose site
# packages may import more at each start (76 ms of CPU a start through the
# shim, 40 ms direct, on the machine this was measured on; 13 ms for
# Debian's, 7 ms with -S).  The interpreter chosen is linked as python3
# into a directory of its own put first on PATH, so the test and what it
# starts (`python3 x.py`, `#!/usr/bin/env python3`) all run it, and
# nothing else on PATH moves.  Each test chooses here (a link: no Python
# started where Debian's is installed); a test that runs tests (the
# harness's run_all.sh) passes its choice on (PG_PY_DIR).
if [ -z "${PG_PY_DIR:-}" ] || [ ! -x "$PG_PY_DIR/python3" ]; then
    pg_py=/usr/bin/python3
    [ -x "$pg_py" ] ||
        pg_py=$(python3 -S -c 'import sys; print(sys.executable)' 2>/dev/null)
    PG_PY_DIR=$PG_TMP_BASE/python
    if [ -n "$pg_py" ] && mkdir -p "$PG_PY_DIR" && ln -s "$pg_py" "$PG_PY_DIR/python3"; then
        export PG_PY_DIR PATH=$PG_PY_DIR:$PATH
    fi
    unset pg_py
fi

# MPI runs: four ranks on two cores beside five other tests, hundreds of
# times, where most of an MPI test's CPU went into starting MPI, not into
# what the test checks (a 4-rank run that only initialises and finalises,
# 10 times: MPICH 2.9 -> 1.3 CPU-s, Open MPI 2.3 -> 1.4 CPU-s with these):
# - MPIR_CVAR_NOLOCAL: MPICH's own shared-memory module, whose start-up
#   barrier spins without yielding while the other ranks wait for a core
#   (a quarter of the CPU of a 4-rank run), is left out; ranks on one
#   host then talk through UCX's shared memory instead.
# - OMPI_MCA_pml/btl: Open MPI takes its ob1 layer at once, over shared
#   memory (vader) and tcp (between jobs: a spawn's; and hosts), instead
#   of trying UCX and every other transport first.
# - HWLOC_COMPONENTS: neither reads every PCI device's configuration
#   space (hwloc's I/O discovery; slow in a virtual machine, and no test
#   binds to a device).
# The ordering and matching rules the tests check are MPI's, the same over
# any transport; test_mpi.sh and test_mpi_openmpi.sh keep each MPI's
# defaults (pg_mpi_defaults), so the path a user gets is run too.
export MPIR_CVAR_NOLOCAL=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp \
    HWLOC_COMPONENTS=-pci,-linuxio

# Open MPI's shared-memory segments (its vader transport) are files in
# /dev/shm, which a rank killed by a test (a crash, a kill, a what-if's
# end) never removes: they go in the test's temp dir instead, removed
# with it (also with pg_mpi_defaults: where the files lie is not a path
# a message takes).
export OMPI_MCA_btl_vader_backing_directory=$PG_TMP_BASE

# pg_mpi_defaults: MPI runs from now on with each MPI's own defaults.
pg_mpi_defaults() {
    unset MPIR_CVAR_NOLOCAL OMPI_MCA_pml OMPI_MCA_btl HWLOC_COMPONENTS
}

# --- results ---------------------------------------------------------------

pg_pass() { PG_PASSED=$((PG_PASSED + 1)); echo "PASS: $*"; }
pg_fail() { PG_FAILED=$((PG_FAILED + 1)); echo "FAIL: $*"; }

# Prints the closing line; returns non-zero if anything failed or nothing ran.
pg_summary() {
    echo "e2e: $PG_PASSED passed, $PG_FAILED failed"
    [ "$PG_FAILED" -eq 0 ] && [ "$PG_PASSED" -gt 0 ]
}

# pg_skip REASON: ends a test that cannot run here, before any check, with
# the closing line "e2e: skipped: REASON" and exit 0.  A test that already
# counted checks fails instead: half a test is no skip.
pg_skip() {
    if [ $((PG_PASSED + PG_FAILED)) -gt 0 ]; then
        pg_fail "skipped after $((PG_PASSED + PG_FAILED)) checks: $*"
        pg_summary
        exit 1
    fi
    echo "e2e: skipped: $*"
    exit 0
}

# pg_need_mpich: skips the test (pg_skip) where MPICH's launcher is not
# installed: the MPI tests run MPICH first, Open MPI where they also can.
pg_need_mpich() {
    command -v mpiexec.mpich >/dev/null ||
        pg_skip "MPICH is not installed (scripts/install-deps.sh test installs it)"
}

# Prints the path of a fresh temp dir, removed by the cleanup trap.
pg_tmpdir() { mktemp -d "$PG_TMP_BASE/t.XXXXXX"; }

# --- the private pvmd ------------------------------------------------------

# True if PID is a live pvmd (not a zombie) started with PVM_TMP=$1.
pg_is_our_pvmd() {
    local pid=$1 tmp=$2 state comm=
    [ -n "$pid" ] && [ -r "/proc/$pid/environ" ] || return 1
    # read, not $(cat): a search of /proc asks this of every process
    { read -r comm <"/proc/$pid/comm"; } 2>/dev/null && [ "$comm" = pvmd ] || return 1
    state=$(pg_proc_state "$pid")
    [ "$state" != Z ] || return 1
    tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qxF "PVM_TMP=$tmp"
}

# Prints the PID of the pvmd serving PVM_TMP=$1 (default $PVM_TMP).
pg_pvmd_pid() {
    local tmp=${1:-${PVM_TMP:-}} sock= pid p
    [ -n "$tmp" ] || return 1
    { read -r sock <"$tmp/pvmd.$EUID"; } 2>/dev/null
    if [[ $sock =~ pvmtmp0*([0-9]+)\.[0-9]+$ ]]; then
        pid=${BASH_REMATCH[1]}
        if pg_is_our_pvmd "$pid" "$tmp"; then echo "$pid"; return 0; fi
    fi
    for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        if pg_is_our_pvmd "$pid" "$tmp"; then echo "$pid"; return 0; fi
    done
    return 1
}

# Prints the state letter of process $1 (R, S, Z, ...); fails if it is
# gone.  The field after the command name, which is in parentheses and may
# hold spaces; read by the shell (no process started: it is polled).
pg_proc_state() {
    local line
    { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 1
    line=${line##*) }
    echo "${line%% *}"
}

# Waits up to $2 tenths of a second for PID $1 to be gone (or a zombie).
pg_wait_gone() {
    local pid=$1 n=$2 state
    while [ "$n" -gt 0 ]; do
        state=$(pg_proc_state "$pid") || return 0
        [ "$state" = Z ] && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

# pg_pvmd_fds: lowers the shell's soft limit of open files to FD_SETSIZE
# (1024), for a pvmd started from it.  pvmd closes every descriptor below
# its limit in each task it forks, one close(2) each: at this machine's
# 20,000 that was a fifth of the CPU of a test that spawns.  pvmd and
# libpvm3 wait with select(2), which cannot watch a descriptor past
# FD_SETSIZE (pvmd aborts there), so the lower limit takes nothing from
# PVM; its tasks inherit it, as they inherit pvmd's.  Call it in the
# subshell that runs pvmd.
pg_pvmd_fds() {
    local n
    n=$(ulimit -S -n)
    [ "$n" = unlimited ] || [ "$n" -gt 1024 ] || return 0
    ulimit -S -n 1024
}

# Starts a pvmd in a fresh PVM_TMP and exports the environment PVM needs.
pg_pvm_start() {
    local sockfile i
    if [ -n "$PG_PVMD_PID" ]; then
        echo "pg_pvm_start: a pvmd ($PG_PVMD_PID) is already running" >&2
        return 1
    fi
    PVM_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pangaea-pvm.XXXXXX") || return 1
    export PVM_TMP PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
    export PVM_PATH="${PVM_PATH:+$PVM_PATH:}/usr/lib/pvm3/lib:/usr/bin"
    sockfile="$PVM_TMP/pvmd.$EUID"
    # pvmd prints its socket path on stdout: keep that out of test output.
    (pg_pvmd_fds; exec pvmd </dev/null >"$PVM_TMP/pvmd.out" 2>&1) &
    for i in $(seq 100); do
        [ -s "$sockfile" ] && PG_PVMD_PID=$(pg_pvmd_pid) && break
        sleep 0.1
    done
    if [ -z "$PG_PVMD_PID" ]; then
        echo "pg_pvm_start: pvmd did not come up in $PVM_TMP:" >&2
        cat "$PVM_TMP"/pvmd.out "$PVM_TMP"/pvml.* >&2 2>/dev/null
        pg_pvm_stop
        return 1
    fi
}

# Halts the pvmd serving PVM_TMP=$1 (default $PVM_TMP): politely, then by
# its PID.  Does not remove the directory.  Safe to call when none runs.
pg_pvmd_halt() {
    local tmp=${1:-${PVM_TMP:-}} pid
    pid=$(pg_pvmd_pid "$tmp") || return 0
    # The daemon kills the console (a task) with SIGTERM as it halts, and
    # the console may linger: bound it, and keep the shell's "Terminated"
    # notice out of the output (the subshell reports it, to /dev/null).
    (echo halt | PVM_TMP=$tmp timeout 10 pvm) >/dev/null 2>&1 || true
    pg_wait_gone "$pid" 50 && return 0
    pg_is_our_pvmd "$pid" "$tmp" && kill -TERM "$pid" 2>/dev/null
    pg_wait_gone "$pid" 20 && return 0
    pg_is_our_pvmd "$pid" "$tmp" && kill -KILL "$pid" 2>/dev/null
    pg_wait_gone "$pid" 20
}

# Stops the pvmd pg_pvm_start started and removes its PVM_TMP.
pg_pvm_stop() {
    [ -n "${PVM_TMP:-}" ] || return 0
    # The test's own PVM_TMP: a pvmd a `pangaea` left there has its
    # socket file; none, nothing to look for among the processes.
    [ "$PVM_TMP" != "$PG_PVM_TMP_OWN" ] || [ -e "$PVM_TMP/pvmd.$EUID" ] ||
        return 0
    pg_pvmd_halt "$PVM_TMP"
    if [ -n "$PG_PVMD_PID" ] && pg_is_our_pvmd "$PG_PVMD_PID" "$PVM_TMP"; then
        echo "pg_pvm_stop: pvmd $PG_PVMD_PID would not stop" >&2
    fi
    case $PVM_TMP in */pangaea-pvm.*) rm -rf "$PVM_TMP" ;; esac
    PG_PVMD_PID=
    export PVM_TMP=$PG_PVM_TMP_OWN
}

# Prints the pvmd log (spawned tasks' output lands there), for diagnosis.
pg_pvm_log() { cat "$PVM_TMP/pvml.$EUID" 2>/dev/null; }

# --- repeated runs ---------------------------------------------------------

# pg_repeat N DIR CMD...: runs CMD N times (each bounded to PG_TIMEOUT
# seconds, default 60), stdout in DIR/N.out, stderr in DIR/N.err.  Sets
# PG_REPEAT_BAD (runs that exited non-zero) and PG_REPEAT_DISTINCT (distinct
# stdouts among them).
pg_repeat() {
    local n=$1 dir=$2 i rc
    shift 2
    mkdir -p "$dir"
    PG_REPEAT_BAD=0
    for i in $(seq "$n"); do
        rc=0
        timeout "${PG_TIMEOUT:-60}" "$@" >"$dir/$i.out" 2>"$dir/$i.err" || rc=$?
        echo "$rc" >"$dir/$i.rc"
        [ "$rc" -eq 0 ] || PG_REPEAT_BAD=$((PG_REPEAT_BAD + 1))
    done
    PG_REPEAT_DISTINCT=$(for i in $(seq "$n"); do sha256sum <"$dir/$i.out"; done |
                         sort -u | wc -l)
}

# pg_repeat_until_differ N DIR CMD...: runs CMD as pg_repeat does, but
# stops as soon as two runs have printed different stdouts, or a run
# failed: at most N runs.  For checks whose claim is "runs differ" (a
# program races, so its replays prove something): the first differing
# pair shows it, the other runs would only cost CPU; N runs that all print
# the same still fail the claim as before.  Sets PG_REPEAT_BAD,
# PG_REPEAT_DISTINCT (1 or 2, 0 if none ran) and PG_REPEAT_RAN.
pg_repeat_until_differ() {
    local n=$1 dir=$2 i rc first=
    shift 2
    mkdir -p "$dir"
    PG_REPEAT_BAD=0 PG_REPEAT_DISTINCT=0 PG_REPEAT_RAN=0
    for i in $(seq "$n"); do
        rc=0
        timeout "${PG_TIMEOUT:-60}" "$@" >"$dir/$i.out" 2>"$dir/$i.err" || rc=$?
        echo "$rc" >"$dir/$i.rc"
        PG_REPEAT_RAN=$i
        if [ "$rc" -ne 0 ]; then PG_REPEAT_BAD=1; break; fi
        if [ -z "$first" ]; then
            first=$dir/$i.out PG_REPEAT_DISTINCT=1
        elif ! cmp -s "$first" "$dir/$i.out"; then
            PG_REPEAT_DISTINCT=2; break
        fi
    done
}

# pg_slow_fast CMD...: CMD with tests/programs/plain_slow's workers
# spending no time a round (PLAIN_SLOW_MS=0, exported to the tasks): for
# its recordings that only have to exist, before a replay that has to last
# (its messages, and so its logs, are the same; the rounds were busy CPU).
pg_slow_fast() {
    PLAIN_SLOW_MS=0 PVM_EXPORT="PLAIN_SLOW_MS${PVM_EXPORT:+:$PVM_EXPORT}" "$@"
}

# pg_comm_xml LOGDIR [LTID]: the communication logs of LOGDIR (or ltid
# LTID's) as XML, as `pangaea -dump` prints them.
pg_comm_xml() {
    "$PG_BUILD/pangaea" -dump "$@"
}

# pg_comm_edit LOGDIR LTID SED-ARGS...: edits ltid LTID's communication log
# as XML: dumped, changed by sed, written back in binary (comm_from_xml).
pg_comm_edit() {
    local dir=$1 ltid=$2 xml
    shift 2
    xml=$(mktemp) || return 1
    "$PG_BUILD/pangaea" -dump "$dir" "$ltid" >"$xml" &&
        sed "$@" "$xml" >"$xml.new" &&
        "$PG_BUILD/tests/comm_from_xml" "$xml.new" "$dir/ltid-$ltid.comm.pgc"
    local rc=$?
    rm -f "$xml" "$xml.new"
    return $rc
}

# pg_insns OUT CMD...: the instructions CMD executes (cachegrind's I
# refs, its processes summed; valgrind's words in OUT).  Counts, not
# times: they do not move with the machine's load.
pg_insns() {
    local out=$1
    shift
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$@" >/dev/null 2>"$out"
    sed -n 's/.*I *refs: *//p' "$out" | tr -d , | awk '{ s += $1 } END { if (NR) print s }'
}

# pg_callgrind_first DIR PROG: writes DIR/under-vg, a program to give
# pangaea in PROG's place: PROG's first task (not started with -worker)
# runs under callgrind into DIR/cg.out (valgrind's words in DIR/vg.err),
# its workers plain; with NOVG set in its environment, plain too.
pg_callgrind_first() {
    cat >"$1/under-vg" <<EOS
#!/bin/sh
[ "\$1" = -worker ] && exec "$2" "\$@"
[ -n "\${NOVG:-}" ] && exec "$2" "\$@"
exec valgrind --tool=callgrind --callgrind-out-file="$1/cg.out" "$2" "\$@" 2>>"$1/vg.err"
EOS
    chmod +x "$1/under-vg"
}

# pg_log_messages LOGDIR SENDS RECVS: every send destination in the comm
# logs of LOGDIR goes to file SENDS and every receive to RECVS, one line
# "sender msgid receiver" each.  A <recv call="pvm_probe"> saw a message
# without taking it (the receive that takes it follows): not counted.  Logs
# cut by a death are read up to there (-dump reads them so).
pg_log_messages() {
    local f me
    : >"$2"; : >"$3"
    for f in "$1"/ltid-*.comm.pgc; do
        me=${f##*/ltid-}; me=${me%.comm.pgc}
        pg_comm_xml "$1" "$me" | pg_xml_messages "$me" "$2" "$3"
    done
}

# pg_xml_messages LTID SENDS RECVS: as pg_log_messages, for the comm log
# of ltid LTID as XML on stdin (a test that has dumped it already reads
# it again rather than dumping it twice); appends to SENDS and RECVS.
pg_xml_messages() {
    awk -v me="$1" -v sends="$2" -v recvs="$3" '
        function attr(name,  r) {
            if (match($0, " " name "=\"[0-9]+\"")) {
                r = substr($0, RSTART, RLENGTH); gsub(/[^0-9]/, "", r); return r
            }
            return "?"
        }
        /<send /  { msgid = attr("msgid") }
        /<to /    { print me, msgid, attr("ltid") >> sends }
        /<recv / && !/call="pvm_probe"/ { print attr("from"), attr("msgid"), me >> recvs }'
}

# --- record once, replay many times ----------------------------------------

PG_RUNS=${PG_RUNS:-20}
PG_OPTS=()
PG_LOG_OPTS=()   # for the recording only (test_min.sh: -min)

# pg_replay_case NAME PROGRAM ARGS...: of at most PG_RUNS unrecorded runs
# under `pangaea -none` two must differ (else the replays prove nothing:
# the runs stop at the first whose output differs from the first), one run is
# recorded (with PG_OPTS, e.g. -only tag=5, and PG_LOG_OPTS), and PG_RUNS
# replays must each print exactly what the recording printed (PG_FREE_RUNS,
# default PG_RUNS, sets the number of unrecorded runs alone).  Leaves the logs in
# $PG_CASE_LOGS for further checks.
pg_replay_case() {
    local name=$1 dir logs i same=0
    shift
    dir=$(pg_tmpdir) && logs=$dir/logs && PG_CASE_LOGS=$logs
    local free=${PG_FREE_RUNS:-$PG_RUNS}
    pg_repeat_until_differ "$free" "$dir/free" "$PG_BUILD/pangaea" -none "${PG_OPTS[@]}" -logdir "$logs" "$@"
    if [ "$PG_REPEAT_BAD" -ne 0 ]; then
        pg_fail "$name: unrecorded run $PG_REPEAT_RAN of at most $free failed"
        cat "$dir/free/$PG_REPEAT_RAN.err"
        return
    fi
    if [ "$PG_REPEAT_DISTINCT" -ge 2 ]; then
        pg_pass "$name: unrecorded runs differ (run $PG_REPEAT_RAN differs from run 1; at most $free)"
    else
        pg_fail "$name: all $free unrecorded runs printed the same: the program does not race"
    fi
    if ! timeout 60 "$PG_BUILD/pangaea" -log "${PG_OPTS[@]}" "${PG_LOG_OPTS[@]}" -logdir "$logs" "$@" >"$dir/rec.out" 2>"$dir/rec.err"; then
        pg_fail "$name: recording failed"; cat "$dir/rec.err"; return
    fi
    pg_repeat "$PG_RUNS" "$dir/replay" "$PG_BUILD/pangaea" -replay -logdir "$logs" "$@"
    for i in $(seq "$PG_RUNS"); do
        cmp -s "$dir/rec.out" "$dir/replay/$i.out" && same=$((same + 1))
    done
    if [ "$PG_REPEAT_BAD" -eq 0 ] && [ "$same" -eq "$PG_RUNS" ]; then
        pg_pass "$name: $PG_RUNS replays print exactly the recorded output"
    else
        pg_fail "$name: $same of $PG_RUNS replays match the recording, $PG_REPEAT_BAD failed"
        for i in $(seq "$PG_RUNS"); do
            if [ "$(cat "$dir/replay/$i.rc")" != 0 ] || ! cmp -s "$dir/rec.out" "$dir/replay/$i.out"; then
                echo "replay $i: exit $(cat "$dir/replay/$i.rc")"
                diff "$dir/rec.out" "$dir/replay/$i.out" | head -5
                head -5 "$dir/replay/$i.err"
                break
            fi
        done
    fi
}

# --- clean-up --------------------------------------------------------------

# Ends the test's shared Chromium and its chromedriver, if a check
# started them (graph_page.py --stop-browser: the WebDriver session, then
# by PID every process naming the browser's dir or in chromedriver's
# session).
pg_browser_stop() {
    [ -d "$PG_BROWSER_DIR" ] || return 0
    python3 -S "$PG_ROOT/tests/e2e/graph_page.py" --stop-browser "$PG_BROWSER_DIR"
}

# Ends the shared Chromium, halts our pvmd and any pvmd still serving a
# dir under PG_TMP_BASE (one that `pangaea` started there, say), then
# removes every temp dir.
pg_cleanup() {
    local sock
    pg_browser_stop
    pg_pvm_stop
    for sock in "$PG_TMP_BASE"/*/"pvmd.$EUID" \
                "$PG_TMP_BASE"/*/*/"pvmd.$EUID"; do
        [ -e "$sock" ] && pg_pvmd_halt "$(dirname "$sock")"
    done
    rm -rf "$PG_TMP_BASE"
}

trap pg_cleanup EXIT
trap 'pg_cleanup; trap - EXIT; exit 130' INT
trap 'pg_cleanup; trap - EXIT; exit 143' TERM
