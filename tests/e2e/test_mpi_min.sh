#!/usr/bin/env bash
# test_mpi_min.sh - race-only recordings of MPI runs (pangaea -log -min,
# pangaea -min LOGDIR) with MPICH and with Open MPI: the checks are
# tests/e2e/mpi_cases.sh's race_only.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

pg_need_mpich
PVM_TMP=$(pg_tmpdir)
export PVM_TMP
race_only MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"
race_only "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe

pg_summary
