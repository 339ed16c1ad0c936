#!/usr/bin/env bash
# test_mpi_replay.sh - what an MPI replay reproduces beyond test_mpi.sh's
# master, with MPICH (test_mpi_replay_openmpi.sh: Open MPI; the checks are
# tests/e2e/mpi_cases.sh's more_mpi): wildcard MPI_Irecv completed by
# MPI_Waitall, Waitsome, Testsome, Testall and Waitany; wildcard receives
# on dup, split and create communicators; MPI_Wtime among collectives.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"

pg_need_mpich
more_mpi MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"

pg_summary
