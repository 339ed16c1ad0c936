#!/usr/bin/env bash
# test_mpi_getstatus.sh - an MPI_Request_get_status that found its
# request done keeps its own polls apart from the tests after it
# (src/mpi/mpi_p2p.c; a <query> MPI_Request_done, docs/comm-log-format.md).
# tests/programs/mpi_getstatus.c polls one receive with
# MPI_Request_get_status until it is done, then another with MPI_Testall,
# and prints both counts, on MPICH and Open MPI:
# - unrecorded runs differ, replays print exactly the recorded counts
#   (before, every MPI_Testall poll was replayed as one more
#   MPI_Request_get_status poll);
# - the recording holds one MPI_Request_done query, and its logs are
#   valid against the schema.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

# getstatus NAME LAUNCHER DIR [LAUNCHER OPTIONS...]
getstatus() {
    local name=$1 launcher=$2 dir=$3
    shift 3
    launcher_ok "$name" "$launcher" || return
    PVM_TMP=$(pg_tmpdir)
    export PVM_TMP
    pg_replay_case "$name: MPI_Request_get_status polls, then MPI_Testall polls" \
        "$launcher" "$@" -n 3 "$dir/mpi_getstatus"
    if [ "$("$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 |
            grep -c 'call="MPI_Request_done"')" = 1 ]; then
        pg_pass "$name: the recording says where MPI_Request_get_status found its request done"
    else
        pg_fail "$name: no single MPI_Request_done query in ltid 1's log"
        "$PG_BUILD/pangaea" -dump "$PG_CASE_LOGS" 1 | head -20
    fi
    logs_valid "$name (MPI_Request_get_status)" "$PG_CASE_LOGS" 3
}

PG_RUNS=5
getstatus MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"
getstatus "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe
pg_summary
