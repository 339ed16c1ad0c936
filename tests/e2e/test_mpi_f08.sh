#!/usr/bin/env bash
# test_mpi_f08.sh - a Fortran program written with `use mpi_f08`, built
# with MPICH's mpif90, under Pangaea: MPICH's f08 bindings call PMPI_Init,
# PMPI_Wait and the rest directly, and the library takes their names
# (src/mpi/mpi_f08.c); and a call with MPI_Count counts, which is not
# recorded, refused by name.  The checks are tests/e2e/mpi_f08_cases.sh's;
# test_mpi_f08_openmpi.sh runs them with Open MPI.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/mpi_cases.sh"
. "$(dirname "$0")/mpi_f08_cases.sh"

pg_need_mpich
[ -x "$PG_BUILD/tests/mpich/mpi_f08master" ] ||
    pg_skip "no mpif90.mpich: the mpi_f08 program was not built"
f08master MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"

# A call with MPI_Count counts (MPICH's mpi_send_f08ts_large_, then
# MPI_Send_c) is not recorded: the recording ends, naming it, exit 4.
run_dir=$(pg_tmpdir)
expect_run "MPICH: an mpi_f08 MPI_Send with an MPI_Count count is refused by name" 4 \
    "MPI_Send with MPI_Count counts (mpi_f08's mpi_send_f08ts_large_) is not recorded" \
    "$PG_BUILD/pangaea" -log -logdir "$run_dir/rec" mpiexec.mpich -n 2 "$PG_BUILD/tests/mpich/mpich_f08large"

f08persist MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"
f08_unreached MPICH mpiexec.mpich "$PG_BUILD/tests/mpich"

pg_summary
