#!/usr/bin/env bash
# test_mpi_norank.sh - a replay of an MPI recording in which a rank never
# began its log says what happened, not that the recording had fewer ranks.
#
# Design.  tests/programs/mpi_early_abort.c, 4 ranks, under `pangaea -log`
# with MPICH (every mode) and Open MPI (`during`, `after`): the rank the
# launcher numbers 2 (MPI_EARLY_ABORT_RANK=2, given to the recording only,
# as an accident that does not happen again in the replay)
#  - `during`: dies in MPI's start, before Pangaea's library began its
#    log; ranks 0, 1 and 3 have theirs, cut when the launcher ended them.
#    The recording fails, marked .pangaea-incomplete; its replay's rank 2
#    refuses (exit 4), naming its missing log and saying that the recorded
#    run failed before it began it, never "fewer than 4 ranks" (what it
#    said before);
#  - `before`: dies before MPI_Init: no rank has a log (MPI_Init waits for
#    every rank).  The recording says the run failed before any rank
#    began its log; the replay is refused by pangaea, nothing run (exit 2),
#    saying the same of rank 0's log;
#  - `after`: dies after MPI_Init: every log stops early.  The replay's
#    ranks, going on where the recorded ones were ended, say that the
#    replay went past their recording (exit 3), not that it diverged;
#  - `unlogged`: runs through past the library (PMPI_ calls): the run
#    ends well without rank 2's log.  The recording says ltid 3 has no log
#    though later ltids have; the replay's rank 2 refuses (exit 4), saying
#    the recording had the rank but no log of it, not that it failed.
# Nothing is left behind: no live process started in the test's
# directories (zombies that init has not reaped yet aside), and no
# directory of pangaea's for a run (pangaea-mpi.*) in the test's TMPDIR.
. "$(dirname "$0")/lib.sh"

pg_need_mpich
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

# What each MODE of mpi_early_abort.c leaves, and what its replay says:
# the recording's exit status (0, or any other), whether it is marked,
# the logs it must have and lack, the words of the recording's stderr;
# the replay's exit status and words (ltid 3 is rank 2), and words it
# must not say.
# shellcheck disable=SC2016 # $rec: replaced by the recording's path
expect() {
    case $1 in
    during) echo 'nonzero|marked|ltid-1 ltid-2 ltid-4|ltid-3||4|ltid 3 (rank 2): no log $rec/ltid-3.comm.pgc to replay: the recorded run failed before this rank began its log (.pangaea-incomplete marks the recording as one that did not end well; rank 3 has its log)|fewer than' ;;
    before) echo 'nonzero|marked||ltid-1 ltid-2 ltid-3 ltid-4|holds no rank'"'"'s log: the run failed (the launcher'"'"'s exit status|2|nothing to replay in $rec: the recorded run failed before rank 0 began its log (no $rec/ltid-1.comm.pgc|fewer than' ;;
    after) echo 'nonzero|marked|ltid-1 ltid-2 ltid-3 ltid-4|||3|the replay went past this rank'"'"'s recording: the program called MPI_Finalize after event 0, where its log $rec/ltid-|diverged' ;;
    unlogged) echo '0|unmarked|ltid-1 ltid-2 ltid-4|ltid-3|has no log of ltid 3 (no $rec/ltid-3.comm.pgc), though later ltids have theirs|4|ltid 3 (rank 2): no log $rec/ltid-3.comm.pgc to replay, though the recording holds $rec/ltid-4.comm.pgc: the recorded run had this rank, which wrote no log|failed' ;;
    esac
}

# recorded_as SUB REC-STATUS MARK HAS LACKS WORDS: what the recording left
# is what expect says; else prints why not.
recorded_as() {
    local rec=$1/rec rc=$2 t
    [ "$3" = 0 ] && [ "$rc" -ne 0 ] && { echo "exit $rc, not 0"; return 1; }
    [ "$3" != 0 ] && [ "$rc" -eq 0 ] && { echo "exit 0: no failure"; return 1; }
    [ "$4" = marked ] && [ ! -e "$rec/$mark" ] && { echo "not marked $mark"; return 1; }
    [ "$4" = unmarked ] && [ -e "$rec/$mark" ] && { echo "marked $mark"; return 1; }
    for t in $5; do
        [ -e "$rec/$t.comm.pgc" ] || { echo "no $t.comm.pgc"; return 1; }
    done
    for t in $6; do
        if [ -e "$rec/$t.comm.pgc" ] || [ -e "$rec/$t.exec.xml" ]; then
            echo "a log of $t"
            return 1
        fi
    done
    [ -z "$7" ] || grep -qF "${7//\$rec/$rec}" "$1/rec.err" ||
        { echo "stderr without: ${7//\$rec/$rec}"; return 1; }
}

# norank_case NAME MODE PROG LAUNCHER [OPTIONS...]
norank_case() {
    local name=$1 mode=$2 prog=$3 sub rc rec why
    local r_rc r_mark r_has r_lacks r_words p_rc p_words p_not
    shift 3
    IFS='|' read -r r_rc r_mark r_has r_lacks r_words p_rc p_words p_not <<<"$(expect "$mode")"
    sub="$dir/$(echo "$name-$mode" | tr -dc 'a-zA-Z-')"
    rec=$sub/rec
    mkdir -p "$sub"
    rc=0
    (cd "$sub" && MPI_EARLY_ABORT_RANK=2 timeout 120 "$P" -log -logdir rec "$@" -n 4 \
        "$prog" "$mode" >rec.out 2>rec.err) || rc=$?
    if why=$(recorded_as "$sub" "$rc" "$r_rc" "$r_mark" "$r_has" "$r_lacks" "$r_words"); then
        pg_pass "$name, rank 2 $mode: recorded (exit $rc), $r_mark, logs of ${r_has:-no rank}, none of ${r_lacks:-no rank}"
    else
        pg_fail "$name, rank 2 $mode: the recording: $why"
        tail -5 "$sub/rec.err"
        return
    fi
    rc=0
    (cd "$sub" && timeout 120 "$P" -replay -logdir rec "$@" -n 4 "$prog" "$mode" \
        >replay.out 2>replay.err) || rc=$?
    p_words=${p_words//\$rec/$rec}
    # the words it must not say: in pangaea's lines (the MPI's own, of the
    # ranks it ends, may say "failed": MPICH's "returned with failed status")
    if [ "$rc" = "$p_rc" ] && grep -qF "$p_words" "$sub/replay.err" &&
        ! grep '^pangaea' "$sub/replay.err" | grep -qF "$p_not"; then
        pg_pass "$name, rank 2 $mode: the replay ends (exit $rc), saying what the recording tells, never \"$p_not\""
    else
        pg_fail "$name, rank 2 $mode: replay exit $rc (want $p_rc), expected: $p_words"
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

for mode in during before after unlogged; do
    norank_case MPICH "$mode" "$PG_BUILD/tests/mpich/mpi_early_abort" mpiexec.mpich
done
nothing_left MPICH
if command -v mpiexec.openmpi >/dev/null; then
    for mode in during after; do
        norank_case "Open MPI" "$mode" "$PG_BUILD/tests/openmpi/mpi_early_abort" \
            mpiexec.openmpi --oversubscribe
    done
    nothing_left "Open MPI"
else
    pg_fail "Open MPI is not installed (scripts/install-deps.sh test installs it)"
fi

pg_summary
