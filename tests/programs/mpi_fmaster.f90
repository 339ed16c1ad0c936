! mpi_fmaster.f90 - a Fortran MPI master taking its workers' values with
! MPI_RECV(MPI_ANY_SOURCE) and printing their order (tests/e2e/test_mpi.sh:
! MPICH's Fortran bindings call the C MPI_ names, which Pangaea's library
! takes; Open MPI's call PMPI_ directly, and a run says so).  Each worker
! spins a little first (its pid seeds the length): free runs differ.
program fmaster
  use mpi
  implicit none
  integer :: ierr, rank, size, i, v, st(MPI_STATUS_SIZE), pid
  real :: r, t0, t
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  if (rank == 0) then
     do i = 1, size - 1
        call MPI_RECV(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, st, ierr)
        write(*, '(I0,1X)', advance='no') st(MPI_SOURCE)
     end do
     print *
  else
     v = rank
     pid = getpid()
     call random_seed(put=[(pid + i, i = 1, 64)])
     call random_number(r)
     call cpu_time(t0)
     t = t0
     do while (t - t0 < r * 0.003)
        call cpu_time(t)
     end do
     call MPI_SEND(v, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
  end if
  call MPI_FINALIZE(ierr)
end program
