#!/usr/bin/env bash
# test_mpi_openmpi.sh - MPI programs under Pangaea with Open MPI (the
# checks are tests/e2e/mpi_cases.sh's; test_mpi.sh runs them with MPICH),
# and a Fortran program of Open MPI, whose bindings call PMPI_ directly
# (the library takes their Fortran names): free runs differ, replays are
# identical, -races sees its races at their .f90 line.  Open MPI as root
# needs its two variables (mpi_cases.sh sets them), and --oversubscribe
# for 4 ranks on 2 cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
pg_mpi_defaults # Open MPI as a user has it (lib.sh)

command -v mpiexec.openmpi >/dev/null ||
    pg_skip "Open MPI is not installed (scripts/install-deps.sh test installs it)"
one_mpi "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_master" --oversubscribe

# Fortran: Open MPI's bindings call PMPI_ directly; the library takes the
# Fortran names themselves (src/mpi/mpi_fortran.c).
pg_replay_case "Open MPI: a Fortran master (MPI_RECV any source)" \
    mpiexec.openmpi --oversubscribe -n 4 "$PG_BUILD/tests/openmpi/mpi_fmaster"
if "$PG_BUILD/pangaea" -races -json "$PG_CASE_LOGS" | python3 -S -c '
import json, sys, races_json
r = [x for x in races_json.load(sys.stdin)["races"] if x["call"] == "MPI_Recv"]
ok = [len(x["alternatives"]) for x in r] == [2, 1]
sys.exit(0 if ok and all(x["site"].startswith("mpi_fmaster.f90:") for x in r) else 1)'; then
    pg_pass "Open MPI: -races reports the Fortran master's two wildcard receives, at their line of the .f90"
else
    pg_fail "Open MPI: -races on the Fortran master"
    "$PG_BUILD/pangaea" -races "$PG_CASE_LOGS"
fi

pg_summary
