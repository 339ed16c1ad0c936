#!/usr/bin/env bash
# test_mpi_ctx.sh - a receive's alternatives are messages of its own
# communicator, with MPICH and with Open MPI (log format 7's ctx:
# src/mpi/mpi_comm.c names communicators, src/cli/analysis/races_find.c
# compares them; docs/mpi-notes.md, "Communicators").
#
# tests/programs/mpi_ctx.c: one source and one tag on MPI_COMM_WORLD and
# on a dup of it; its race set is known (the program's comment): the
# master's first world receive races between workers 2 and 3 only (worker
# 1's message is on the dup), its first phase-2 receive among the three
# workers' phase-2 messages (worker 1's phase-1 message, same source and
# tag, still queued on the dup, is none of them), its second between the
# two left, and its dup receive not at all.  Checked, per MPI:
# - free runs differ, replays print the recorded output;
# - -races -json reports exactly those three races, with those
#   alternatives, and no message of the dup as an alternative of a world
#   receive (before format 7 it listed worker 1's dup message at both
#   first receives, and hid its phase-2 message behind it);
# - tests/e2e/mpi_races_check.py derives the same set from the master's
#   log (honouring ctx), and -min counts the same receives and races;
# - the dup's messages carry the same ctx in the sender's and the
#   receiver's log, and a second recording names the dup alike;
# - -tasks matches every message (the receives are renumbered per
#   communicator), and the logs are valid and read by the page's reader;
# - the second communicator made by MPI_Comm_idup, MPI_Comm_create_group
#   and MPI_Intercomm_create + MPI_Intercomm_merge (mpi_ctx idup,
#   create_group, merge): the same known race set, and its messages carry
#   the same ctx, not 0, in the sender's and the receiver's logs (before,
#   these were ctx 0, the world's, and -races listed worker 1's message
#   on them as an alternative of the world receives);
# - Open MPI's Fortran program tests/programs/mpi_fctx.f90 (its calls go
#   to PMPI_ directly: mpi_fortran.c takes MPI_COMM_DUP, MPI_COMM_SPLIT,
#   MPI_COMM_CREATE_GROUP): the same race set (it was ctx 0 before), and
#   MPICH's build of it too; and tests/programs/mpi_f08ctx.f90 (`use
#   mpi_f08`: MPI_Comm_dup, MPI_Comm_create_group, MPI_Intercomm_merge),
#   whose bindings call PMPI_ directly in both MPIs (mpi_fortran.c,
#   mpi_f08.c take them): the same race set with both.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

PG_RUNS=3

# known_set LOGDIR: the race set of the program's comment.
known_set() {
    "$PG_BUILD/pangaea" -races -json "$1" | python3 -S -c '
import json, sys, races_json
r = races_json.load(sys.stdin)["races"]
sets = [({(x["took"]["ltid"], x["took"]["msgid"])},
         {(a["ltid"], a["msgid"]) for a in x["alternatives"]}) for x in r]
ok = len(r) == 3 and all(x["ltid"] == 1 and x["call"] == "MPI_Recv" for x in r)
ok = ok and sets[0][0] | sets[0][1] == {(3, 1), (4, 1)} and len(sets[0][1]) == 1
ok = ok and sets[1][0] | sets[1][1] == {(2, 2), (3, 2), (4, 2)} and len(sets[1][1]) == 2
ok = ok and sets[2][0] | sets[2][1] == sets[1][1] and len(sets[2][1]) == 1
sys.exit(0 if ok else 1)'
}

# dup_ctx LOGDIR: the ctx of worker 1 (ltid 2)'s first send, on the dup.
dup_ctx() {
    "$PG_BUILD/pangaea" -dump "$1" 2 | grep -m1 '<send ' | grep -o 'ctx="[0-9]*"'
}

case_mpi() {
    local name=$1 launcher=$2 prog=$3 again ctx
    shift 3
    launcher_ok "$name" "$launcher" || return
    pg_replay_case "$name: one source and tag on two communicators" \
        "$launcher" "$@" -n 4 "$prog"
    if known_set "$PG_CASE_LOGS"; then
        pg_pass "$name: -races reports exactly the known races, none across communicators"
    else
        pg_fail "$name: -races differs from the known race set"
        "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS"
    fi
    races_exact "$name" "$PG_CASE_LOGS"
    ctx=$(dup_ctx "$PG_CASE_LOGS")
    if [ -n "$ctx" ] && [ "$ctx" != 'ctx="0"' ] &&
        "$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | grep '<recv ' | tail -1 | grep -q "$ctx"; then
        pg_pass "$name: the dup's message carries $ctx in the sender's log and the receiver's"
    else
        pg_fail "$name: the dup's context: sender's '$ctx', not the receiver's"
        "$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | grep '<recv ' | tail -1
    fi
    again=$(pg_tmpdir)
    if timeout 60 "$PG_BUILD/pangaea" -log -logdir "$again/logs" "$launcher" "$@" -n 4 "$prog" >/dev/null 2>&1 &&
        [ "$(dup_ctx "$again/logs")" = "$ctx" ]; then
        pg_pass "$name: a second recording names the dup alike ($ctx)"
    else
        pg_fail "$name: a second recording names the dup '$(dup_ctx "$again/logs")', not '$ctx'"
    fi
    tasks_matched "$name" "-tasks matches every message to its send" \
        "$PG_CASE_LOGS" 9 9
    logs_valid "$name" "$PG_CASE_LOGS" 4
}

# variant_case NAME LAUNCHER PROG HOW [LAUNCHER OPTIONS...]: one
# recording of PROG HOW: the known race set, the second communicator's
# ctx in both logs, and mpi_races_check's derivation.
variant_case() {
    local name=$1 launcher=$2 prog=$3 how=$4 logs ctx
    shift 4
    logs=$(pg_tmpdir)/logs
    if ! timeout 120 "$PG_BUILD/pangaea" -log -logdir "$logs" "$launcher" "$@" -n 4         "$prog" ${how:+"$how"} >"$logs.out" 2>"$logs.err"; then
        pg_fail "$name: recording $prog $how"
        cat "$logs.err"
        return
    fi
    ctx=$(dup_ctx "$logs")
    if known_set "$logs" && [ -n "$ctx" ] && [ "$ctx" != 'ctx="0"' ] &&
        "$PG_BUILD/pangaea" -dump "$logs" 1 | grep '<recv ' | tail -1 | grep -q "$ctx"; then
        pg_pass "$name: -races reports exactly the known races; the second communicator's messages carry $ctx in both logs"
    else
        pg_fail "$name: the second communicator's ctx '$ctx', or -races differs from the known set"
        "$PG_BUILD/pangaea" -races "$logs"
    fi
    races_exact "$name" "$logs"
}

PVM_TMP=$(pg_tmpdir)
export PVM_TMP
for how in idup create_group merge; do
    variant_case "MPICH, mpi_ctx $how" mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_ctx" "$how"
    variant_case "Open MPI, mpi_ctx $how" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_ctx" "$how" --oversubscribe
done
for mpi in mpich openmpi; do
    opts=()
    [ "$mpi" = openmpi ] && opts=(--oversubscribe)
    variant_case "$mpi, Fortran (mpi_fctx.f90)" "mpiexec.$mpi" "$PG_BUILD/tests/$mpi/mpi_fctx" "" "${opts[@]}"
    for how in dup create_group merge; do
        variant_case "$mpi, mpi_f08 (mpi_f08ctx.f90 $how)" "mpiexec.$mpi" \
            "$PG_BUILD/tests/$mpi/mpi_f08ctx" "$how" "${opts[@]}"
    done
done
case_mpi MPICH mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_ctx"
case_mpi "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_ctx" --oversubscribe

pg_summary
