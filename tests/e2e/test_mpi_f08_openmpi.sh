#!/usr/bin/env bash
# test_mpi_f08_openmpi.sh - a Fortran program written with `use mpi_f08`,
# built with Open MPI's mpif90, under Pangaea: Open MPI's f08 bindings
# call PMPI_ directly, and the library takes their names
# (src/mpi/mpi_fortran.c).  The checks are tests/e2e/mpi_f08_cases.sh's;
# test_mpi_f08.sh runs them with MPICH.  Open MPI as root needs its two
# variables (mpi_cases.sh sets them), and --oversubscribe for 4 ranks on
# 2 cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
. "$(dirname "$0")/mpi_f08_cases.sh"

command -v mpiexec.openmpi >/dev/null ||
    pg_skip "Open MPI is not installed (scripts/install-deps.sh test installs it)"
[ -x "$PG_BUILD/tests/openmpi/mpi_f08master" ] ||
    pg_skip "no mpif90.openmpi: the mpi_f08 program was not built"
f08master "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe

f08persist "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe
f08_unreached "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe

pg_summary
