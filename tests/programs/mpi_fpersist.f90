! mpi_fpersist.f90 - a Fortran MPI master taking its workers' values with
! persistent requests (tests/e2e/test_mpi_persist.sh and its Open MPI
! twin: MPICH's Fortran bindings call the C MPI_ names; Open MPI's call
! PMPI_ directly, and the library takes their Fortran names).  One
! MPI_RECV_INIT(MPI_ANY_SOURCE, 1) is started and waited for once per
! worker (the sources' order is printed), then one of tag 2 is started
! per worker and polled with MPI_TEST (the tests that found it not done
! are printed).  The workers send with MPI_SEND_INIT and MPI_START, each
! after a spin its pid seeds: free runs differ.
program fpersist
  use mpi
  implicit none
  integer :: ierr, rank, size, i, v, w, st(MPI_STATUS_SIZE), pid
  integer :: one, two, sreq(2), fails
  logical :: flag
  real :: r, t0, t
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
  if (rank == 0) then
     call MPI_RECV_INIT(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, one, ierr)
     call MPI_RECV_INIT(w, 1, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, two, ierr)
     do i = 1, size - 1
        call MPI_START(one, ierr)
        call MPI_WAIT(one, st, ierr)
        write(*, '(I0,1X)', advance='no') st(MPI_SOURCE)
     end do
     fails = 0
     do i = 1, size - 1
        call MPI_START(two, ierr)
        flag = .false.
        do while (.not. flag)
           call MPI_TEST(two, flag, st, ierr)
           if (.not. flag) fails = fails + 1
        end do
        write(*, '(I0,1X)', advance='no') st(MPI_SOURCE)
     end do
     print '(A,I0)', 'failed ', fails
     call MPI_REQUEST_FREE(one, ierr)
     call MPI_REQUEST_FREE(two, ierr)
  else
     v = rank
     pid = getpid()
     call random_seed(put=[(pid + i, i = 1, 64)])
     call MPI_SEND_INIT(v, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, sreq(1), ierr)
     call MPI_SEND_INIT(v, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, sreq(2), ierr)
     do i = 1, 2
        call random_number(r)
        call cpu_time(t0)
        t = t0
        do while (t - t0 < r * 0.003)
           call cpu_time(t)
        end do
        call MPI_START(sreq(i), ierr)
        call MPI_WAIT(sreq(i), MPI_STATUS_IGNORE, ierr)
        call MPI_REQUEST_FREE(sreq(i), ierr)
     end do
  end if
  call MPI_FINALIZE(ierr)
end program
