! mpich_f08large.f90 - rank 0 sends rank 1 an integer with an
! integer(MPI_COUNT_KIND) count, which MPICH's mpi_f08 takes to
! mpi_send_f08ts_large_ and MPI_Send_c: a call Pangaea does not record,
! which a recording refuses by name (src/mpi/mpi_f08.c;
! tests/e2e/test_mpi_f08.sh).  MPICH's only: Open MPI 4.1's mpi_f08 has
! no MPI_Count variants.
program f08large
  use mpi_f08
  implicit none
  integer :: rank, v
  integer(MPI_COUNT_KIND) :: n
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  n = 1
  v = 7
  if (rank == 0) then
     call MPI_Send(v, n, MPI_INTEGER, 1, 1, MPI_COMM_WORLD)
  else if (rank == 1) then
     call MPI_Recv(v, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
     print '(A,I0)', 'got ', v
  end if
  call MPI_Finalize()
end program
