#!/usr/bin/env bash
# test_mpi_persist_openmpi.sh - test_mpi_persist.sh's checks with Open MPI
# (tests/e2e/mpi_cases.sh's persist): persistent requests recorded and
# replayed, a Fortran program's too (the library takes Open MPI's Fortran
# names).  Open MPI as root needs its two variables (mpi_cases.sh sets
# them), and --oversubscribe for 4 ranks on 2 cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

command -v mpiexec.openmpi >/dev/null ||
    pg_skip "Open MPI is not installed (scripts/install-deps.sh test installs it)"
persist "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe
fpersist "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi" --oversubscribe

pg_summary
