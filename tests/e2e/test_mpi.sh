#!/usr/bin/env bash
# test_mpi.sh - MPI programs under Pangaea with MPICH (the checks are
# tests/e2e/mpi_cases.sh's; test_mpi_openmpi.sh runs them with Open MPI),
# and a Fortran program of MPICH: free runs differ, replays are identical,
# -races sees its races (MPICH's Fortran bindings call the C MPI_ names).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
pg_mpi_defaults # MPICH as a user has it (lib.sh)

pg_need_mpich
one_mpi MPICH mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_master"

# Fortran: recorded and replayed through the C calls.
pg_replay_case "MPICH: a Fortran master (MPI_RECV any source)" \
    mpiexec.mpich -n 4 "$PG_BUILD/tests/mpich/mpi_fmaster"
if "$PG_BUILD/pangaea" -races -json "$PG_CASE_LOGS" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["call"] == "MPI_Recv"]
sys.exit(0 if [len(x["alternatives"]) for x in r] == [2, 1] else 1)'; then
    pg_pass "MPICH: -races reports the Fortran master's two wildcard receives"
else
    pg_fail "MPICH: -races on the Fortran master"
    "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS"
fi

pg_summary
