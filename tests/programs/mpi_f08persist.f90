! mpi_f08persist.f90 - mpi_fpersist.f90 written with `use mpi_f08`: a
! master taking its workers' values with persistent requests.  One
! MPI_Recv_init(MPI_ANY_SOURCE, 1) is started and waited for once per
! worker (the sources' order is printed), then one of tag 2 is started
! per worker and polled with MPI_Test (the tests that found it not done
! are printed).  The workers send with MPI_Send_init and MPI_Startall,
! each after a spin its pid seeds: free runs differ.  Both MPIs' f08
! MPI_Start, MPI_Startall and MPI_Request_free call PMPI_ directly; the
! library takes their names (src/mpi/mpi_f08.c, mpi_fortran.c):
! tests/e2e/test_mpi_f08.sh, test_mpi_f08_openmpi.sh.
program f08persist
  use mpi_f08
  implicit none
  integer :: rank, size, i, v, w, fails
  type(MPI_Status) :: st
  type(MPI_Request) :: one, two, sreq(2)
  logical :: flag
  real :: r, t0, t
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  if (rank == 0) then
     call MPI_Recv_init(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, one)
     call MPI_Recv_init(w, 1, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, two)
     do i = 1, size - 1
        call MPI_Start(one)
        call MPI_Wait(one, st)
        write(*, '(I0,1X)', advance='no') st%MPI_SOURCE
     end do
     fails = 0
     do i = 1, size - 1
        call MPI_Start(two)
        flag = .false.
        do while (.not. flag)
           call MPI_Test(two, flag, st)
           if (.not. flag) fails = fails + 1
        end do
        write(*, '(I0,1X)', advance='no') st%MPI_SOURCE
     end do
     print '(A,I0)', 'failed ', fails
     call MPI_Request_free(one)
     call MPI_Request_free(two)
  else
     v = rank
     call random_seed(put=[(getpid() + i, i = 1, 64)])
     call MPI_Send_init(v, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, sreq(1))
     call MPI_Send_init(v, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, sreq(2))
     do i = 1, 2
        call random_number(r)
        call cpu_time(t0)
        t = t0
        do while (t - t0 < r * 0.003)
           call cpu_time(t)
        end do
        call MPI_Startall(1, sreq(i:i))
        call MPI_Wait(sreq(i), MPI_STATUS_IGNORE)
        call MPI_Request_free(sreq(i))
     end do
  end if
  call MPI_Finalize()
end program
