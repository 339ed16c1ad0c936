#!/usr/bin/env bash
# test_mpi_persist.sh - persistent requests (MPI_Send_init, MPI_Recv_init
# with MPI_ANY_SOURCE, MPI_Start, MPI_Startall, MPI_Request_free) recorded
# and replayed with MPICH (test_mpi_persist_openmpi.sh: Open MPI; the
# checks are tests/e2e/mpi_cases.sh's persist): free runs differ, replays
# and race-only replays print the recorded output, -races reports the
# wildcard starts with their known race set; a Fortran program's too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

pg_need_mpich
persist MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"
fpersist MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"

pg_summary
