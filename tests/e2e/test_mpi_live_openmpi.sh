#!/usr/bin/env bash
# test_mpi_live_openmpi.sh - the live page on an MPI run with Open MPI
# (the checks are tests/e2e/mpi_live_cases.sh's; test_mpi_live.sh runs
# them with MPICH).  Open MPI as root needs its two variables
# (mpi_cases.sh sets them), and --oversubscribe for 4 ranks on 2 cores.
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

live_mpi "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_master" --oversubscribe

live_mpi_ctx "Open MPI" mpiexec.openmpi "$PG_BUILD/tests/openmpi/mpi_ctx" --oversubscribe
pg_summary
