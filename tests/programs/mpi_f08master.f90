! mpi_f08master.f90 - a Fortran master written with `use mpi_f08`, taking
! one message of each worker per phase, and printing the order (and the
! failed polls):
!   1. MPI_Recv(MPI_ANY_SOURCE);
!   2. a wildcard MPI_Irecv per worker, completed by MPI_Waitany;
!   3. MPI_Iprobe(MPI_ANY_SOURCE) polling, then MPI_Recv of the sender found;
!   4. a wildcard MPI_Irecv per worker, completed by MPI_Testsome polling;
!   5. the same, completed by MPI_Waitsome;
!   6. MPI_Probe(MPI_ANY_SOURCE), then MPI_Recv of the sender found;
!   7. the same as 4, the first polled by MPI_Request_get_status until
!      done, then MPI_Wait, the others completed by MPI_Testall polling;
! and reads MPI_Wtime at its start and end.
! The workers send with MPI_Send, MPI_Isend + MPI_Wait, MPI_Ssend,
! MPI_Send, MPI_Issend + MPI_Test polling and MPI_Send, spinning a
! little before each (their pid seeds the length).  (Open MPI 4.1's
! MPI_Request_get_status polling an MPI_Issend's request never saw it
! done here, with or without Pangaea: the master polls a receive.)
! Free runs differ.  Both MPIs' mpi_f08 bindings call past the C MPI_
! names; Pangaea's library takes their names (src/mpi/mpi_f08.c):
! tests/e2e/test_mpi_f08.sh, test_mpi_f08_openmpi.sh.
program f08master
  use mpi_f08
  implicit none
  integer :: rank, size, i, v, idx, n, got, polls, vs(16), ids(16)
  type(MPI_Status) :: st, sts(16)
  type(MPI_Request) :: reqs(16), req
  logical :: flag
  real :: r
  double precision :: t0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  n = size - 1
  if (rank == 0) then
     t0 = MPI_Wtime()
     do i = 1, n
        call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, st)
        write(*, '(I0,1X)', advance='no') st%MPI_SOURCE
     end do
     print *
     do i = 1, n
        call MPI_Irecv(vs(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, reqs(i))
     end do
     do i = 1, n
        call MPI_Waitany(n, reqs, idx, st)
        write(*, '(I0,":",I0,1X)', advance='no') idx, st%MPI_SOURCE
     end do
     print *
     polls = 0
     do i = 1, n
        flag = .false.
        do while (.not. flag)
           call MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, flag, st)
           if (.not. flag) polls = polls + 1
        end do
        call MPI_Recv(v, 1, MPI_INTEGER, st%MPI_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        write(*, '(I0,1X)', advance='no') v
     end do
     print '(A,I0)', 'polls ', polls
     do i = 1, n
        call MPI_Irecv(vs(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, reqs(i))
     end do
     got = 0
     polls = 0
     do while (got < n)
        call MPI_Testsome(n, reqs, idx, ids, sts)
        if (idx == 0) polls = polls + 1
        do i = 1, idx
           write(*, '(I0,1X)', advance='no') sts(i)%MPI_SOURCE
        end do
        if (idx /= MPI_UNDEFINED) got = got + idx
     end do
     print '(A,I0)', 'tests ', polls
     do i = 1, n
        call MPI_Irecv(vs(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, reqs(i))
     end do
     got = 0
     do while (got < n)
        call MPI_Waitsome(n, reqs, idx, ids, sts)
        do i = 1, idx
           write(*, '(I0,1X)', advance='no') sts(i)%MPI_SOURCE
        end do
        got = got + idx
     end do
     print *
     do i = 1, n
        call MPI_Probe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, st)
        call MPI_Recv(v, 1, MPI_INTEGER, st%MPI_SOURCE, 6, MPI_COMM_WORLD, st)
        write(*, '(I0,1X)', advance='no') v
     end do
     print *
     do i = 1, n
        call MPI_Irecv(vs(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, reqs(i))
     end do
     got = 0
     flag = .false.
     do while (.not. flag)
        call MPI_Request_get_status(reqs(1), flag, st)
        if (.not. flag) got = got + 1
     end do
     call MPI_Wait(reqs(1), st)
     polls = 0
     flag = .false.
     do while (.not. flag)
        call MPI_Testall(n - 1, reqs(2:n), flag, sts)
        if (.not. flag) polls = polls + 1
     end do
     print '(3(I0,1X),A,I0,A,I0)', st%MPI_SOURCE, (sts(i)%MPI_SOURCE, i = 1, n - 1), &
          'gets ', got, ' testalls ', polls
     if (MPI_Wtime() < t0) print *, 'the clock went back'
  else
     call random_seed(put=[(getpid() + i, i = 1, 64)])
     v = rank
     call spin()
     call MPI_Send(v, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD)
     call spin()
     call MPI_Isend(v, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, req)
     call MPI_Wait(req, MPI_STATUS_IGNORE)
     call spin()
     call MPI_Ssend(v, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD)
     call spin()
     call MPI_Send(v, 1, MPI_INTEGER, 0, 4, MPI_COMM_WORLD)
     call spin()
     call MPI_Issend(v, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, req)
     flag = .false.
     do while (.not. flag)
        call MPI_Test(req, flag, MPI_STATUS_IGNORE)
     end do
     call spin()
     call MPI_Send(v, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD)
     call spin()
     call MPI_Send(v, 1, MPI_INTEGER, 0, 7, MPI_COMM_WORLD)
  end if
  call MPI_Finalize()
contains
  ! Busy for up to 3 ms of CPU time, a length drawn anew each time.
  subroutine spin()
    real :: t0, t
    call random_number(r)
    call cpu_time(t0)
    t = t0
    do while (t - t0 < r * 0.003)
       call cpu_time(t)
    end do
  end subroutine
end program
