! mpi_f08pmpi.f90 - a `use mpi_f08` program that starts MPI by its
! profiling name, PMPI_Init, which reaches MPI past Pangaea's library (as
! a Fortran binding by a name the library does not take would): each rank
! must say at its end that nothing of it was recorded (src/mpi/mpi_log.c;
! tests/e2e/test_mpi_f08.sh, test_mpi_f08_openmpi.sh).
program f08pmpi
  use mpi_f08
  implicit none
  integer :: rank
  call PMPI_Init()
  call PMPI_Comm_rank(MPI_COMM_WORLD, rank)
  print '(A,I0)', 'rank ', rank
  call PMPI_Finalize()
end program
