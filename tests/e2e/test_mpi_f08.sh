#!/usr/bin/env bash
# test_mpi_f08.sh - a Fortran program written with `use mpi_f08`, built
# with MPICH's mpif90, under Pangaea: MPICH's f08 bindings call PMPI_Init,
# PMPI_Wait and the rest directly, and the library takes their names
# (src/mpi/mpi_f08.c).  The checks are tests/e2e/mpi_f08_cases.sh's;
# test_mpi_f08_openmpi.sh runs them with Open MPI.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
. "$(dirname "$0")/mpi_f08_cases.sh"

command -v mpiexec.mpich >/dev/null ||
    pg_skip "MPICH is not installed (scripts/install-deps.sh test installs it)"
[ -x "$PG_BUILD/tests/mpich/mpi_f08master" ] ||
    pg_skip "no mpif90.mpich: the mpi_f08 program was not built"
f08master MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"

pg_summary
