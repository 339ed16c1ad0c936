#!/usr/bin/env bash
# test_mpi_live.sh - the live page on an MPI run with MPICH: held at
# start, stepped rank by rank and from the page, a breakpoint that holds a
# rank, the run's final state on the page, a replay let go from it (the
# checks are tests/e2e/mpi_live_cases.sh's; test_mpi_live_openmpi.sh runs
# them with Open MPI).  Real mpiexec.mpich, headless Chromium.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/live_lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
. "$(dirname "$0")/mpi_live_cases.sh"

PANGAEA=$PG_BUILD/pangaea
live_traps
command -v curl >/dev/null || { pg_skip "needs curl"; exit 0; }
command -v chromedriver >/dev/null || { pg_skip "needs chromium-driver"; exit 0; }
D=$(pg_tmpdir)

live_mpi MPICH mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_master"

live_mpi_ctx MPICH mpiexec.mpich "$PG_BUILD/tests/mpich/mpi_ctx"
pg_summary
