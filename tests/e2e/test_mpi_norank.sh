#!/usr/bin/env bash
# test_mpi_norank.sh - a replay of an MPI recording in which a rank never
# began its log says what happened, not that the recording had fewer ranks.
#
# Design.  tests/programs/mpi_early_abort.c, 4 ranks, under `pangaea -log`
# with MPICH and Open MPI: the rank the launcher numbers 2
# (MPI_EARLY_ABORT_RANK=2, given to the recording only, as an accident
# that does not happen again in the replay) dies by abort()
#  - `during` MPI's start, once MPI started and before Pangaea's library
#    began its log: ranks 0, 1 and 3 have their logs, cut when the
#    launcher ended them;
#  - `before` MPI_Init: no rank has a log (MPI_Init waits for every rank).
# Each recording fails (non-zero) and is kept marked .pangaea-incomplete,
# without rank 2's logs; its replay is refused with exit 4 (`during`: the
# MPI library's refusal, pgm_die) or 2 (`before`: pangaea's, before it
# starts the launcher), naming the rank and its missing log and saying
# that the recorded run failed before that rank began its log, never
# "fewer than 4 ranks".  Nothing is left behind: no process started in
# the test's directories (zombies that init has not reaped yet aside), and
# no directory of pangaea's for a run (pangaea-mpi.*) in the test's
# TMPDIR.
. "$(dirname "$0")/lib.sh"

command -v mpiexec.mpich >/dev/null ||
    pg_skip "MPICH is not installed (scripts/install-deps.sh test installs it)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$PG_BUILD/pangaea
dir=$(pg_tmpdir)
TMPDIR=$(pg_tmpdir) && export TMPDIR
mark=.pangaea-incomplete

# live_procs: the PIDs of live processes whose working directory is under
# $dir (every run below starts there; the test's own shell is elsewhere).
live_procs() {
    local p cwd state
    for p in /proc/[0-9]*; do
        cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
        case "$cwd" in "$dir" | "$dir"/*) ;; *) continue ;; esac
        state=$(pg_proc_state "${p#/proc/}") || continue
        [ "$state" = Z ] || echo "${p#/proc/}"
    done
}

# norank_case NAME MODE REPLAY-STATUS PROG LAUNCHER [OPTIONS...]
norank_case() {
    local name=$1 mode=$2 want=$3 prog=$4 sub rc logs re
    shift 4
    sub="$dir/$(echo "$name-$mode" | tr -dc 'a-zA-Z-')"
    mkdir -p "$sub"
    rc=0
    (cd "$sub" && MPI_EARLY_ABORT_RANK=2 timeout 120 "$P" -log -logdir rec "$@" -n 4 \
        "$prog" "$mode" >rec.out 2>rec.err) || rc=$?
    logs=$(cd "$sub/rec" 2>/dev/null && ls ltid-*.comm.pgc 2>/dev/null | tr '\n' ' ')
    if [ "$rc" -ne 0 ] && [ -e "$sub/rec/$mark" ] && [ ! -e "$sub/rec/ltid-3.comm.pgc" ] &&
        [ ! -e "$sub/rec/ltid-3.exec.xml" ] &&
        { [ "$mode" = before ] || [ -e "$sub/rec/ltid-1.comm.pgc" ]; }; then
        pg_pass "$name, rank 2 dead $mode MPI_Init: the recording fails (exit $rc), kept marked $mark, rank 2 without a log (logs: ${logs:-none})"
    else
        pg_fail "$name, rank 2 dead $mode MPI_Init: recording exit $rc, logs: ${logs:-none}, mark: $(ls -A "$sub/rec" 2>/dev/null | grep -c "^$mark$")"
        tail -5 "$sub/rec.err"
        return
    fi
    rc=0
    (cd "$sub" && timeout 120 "$P" -replay -logdir rec "$@" -n 4 "$prog" "$mode" \
        >replay.out 2>replay.err) || rc=$?
    if [ "$mode" = during ]; then
        re="ltid 3 (rank 2): no log $sub/rec/ltid-3.comm.pgc to replay: the recorded run failed before this rank began its log"
    else
        re="nothing to replay in $sub/rec: the recorded run failed before rank 0 began its log (no $sub/rec/ltid-1.comm.pgc"
    fi
    if [ "$rc" = "$want" ] && grep -qF "$re" "$sub/replay.err" &&
        ! grep -q "fewer than" "$sub/replay.err"; then
        pg_pass "$name, rank 2 dead $mode MPI_Init: the replay is refused (exit $rc), naming the missing log and the failed recording"
    else
        pg_fail "$name, rank 2 dead $mode MPI_Init: replay exit $rc (want $want), expected: $re"
        tail -5 "$sub/replay.err"
    fi
}

# nothing_left NAME: no process of the runs, no run directory of pangaea's.
nothing_left() {
    local i left
    for i in $(seq 50); do # the launcher's last processes may still go
        left=$(live_procs)
        [ -z "$left" ] && break
        sleep 0.1
    done
    if [ -z "$left" ] && [ -z "$(ls -d "$TMPDIR"/pangaea-mpi.* 2>/dev/null)" ]; then
        pg_pass "$1: no process left running, no pangaea-mpi.* directory left"
    else
        pg_fail "$1: left behind: processes ${left:-none}; $(ls -d "$TMPDIR"/pangaea-mpi.* 2>/dev/null)"
        for i in $left; do ps -o pid,stat,args -p "$i" | tail -n +2; done
    fi
}

norank_case MPICH during 4 "$PG_BUILD/tests/mpich/mpi_early_abort" mpiexec.mpich
norank_case MPICH before 2 "$PG_BUILD/tests/mpich/mpi_early_abort" mpiexec.mpich
nothing_left MPICH
if command -v mpiexec.openmpi >/dev/null; then
    norank_case "Open MPI" during 4 "$PG_BUILD/tests/openmpi/mpi_early_abort" \
        mpiexec.openmpi --oversubscribe
    nothing_left "Open MPI"
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

pg_summary
