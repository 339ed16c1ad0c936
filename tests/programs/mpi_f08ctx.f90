! mpi_f08ctx.f90 - tests/programs/mpi_ctx.c in Fortran with `use mpi_f08`,
! for tests/e2e/test_mpi_ctx.sh: one source and one tag on MPI_COMM_WORLD
! and on a second communicator with the same ranks, whose race set is
! known (mpi_ctx.c says it).  The second communicator is made as the
! argument says: "dup" (MPI_Comm_dup), "create_group"
! (MPI_Comm_create_group of the world's group) or "merge"
! (MPI_Intercomm_create between ranks {0, 1} and {2, 3}, then
! MPI_Intercomm_merge).  Both MPIs' f08 bindings of these call PMPI_
! directly (docs/mpi-notes.md): the library takes them (src/mpi/
! mpi_fortran.c for Open MPI, mpi_f08.c for MPICH) so that the
! communicator gets its own context in the log.  4 ranks.
program f08ctx
  use mpi_f08
  implicit none
  integer :: rank, nranks, i, a, b, c, d, e, last, go
  type(MPI_Comm) :: second, half, inter
  type(MPI_Group) :: g
  type(MPI_Status) :: st
  character(len=32) :: how

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  if (nranks /= 4) call MPI_Abort(MPI_COMM_WORLD, 2)
  how = 'dup'
  if (command_argument_count() > 0) call get_command_argument(1, how)
  select case (trim(how))
  case ('create_group')
     call MPI_Comm_group(MPI_COMM_WORLD, g)
     call MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, second)
     call MPI_Group_free(g)
  case ('merge')
     call MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, half)
     call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, merge(2, 0, rank < 2), 9, inter)
     call MPI_Intercomm_merge(inter, rank >= 2, second)
     call MPI_Comm_free(inter)
     call MPI_Comm_free(half)
  case default
     call MPI_Comm_dup(MPI_COMM_WORLD, second)
  end select
  go = 1
  if (rank == 0) then
     a = take(MPI_COMM_WORLD)
     b = take(MPI_COMM_WORLD)
     do i = 1, nranks - 1
        call MPI_Send(go, 1, MPI_INTEGER, i, 2, MPI_COMM_WORLD)
     end do
     c = take(MPI_COMM_WORLD)
     d = take(MPI_COMM_WORLD)
     e = take(MPI_COMM_WORLD)
     last = take(second)
     print '(a,2i2)', 'phase 1 (world):', a, b
     print '(a,3i2)', 'phase 2 (world):', c, d, e
     print '(a,i2)', 'last (dup):', last
  else
     if (rank == 1) then
        call MPI_Send(rank, 1, MPI_INTEGER, 0, 1, second)
     else
        call MPI_Send(rank, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD)
     end if
     call MPI_Recv(go, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, st)
     call MPI_Send(rank, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD)
  end if
  call MPI_Comm_free(second)
  call MPI_Finalize()
contains
  integer function take(comm)
    type(MPI_Comm), intent(in) :: comm
    integer :: v
    type(MPI_Status) :: s
    call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, comm, s)
    take = v
  end function take
end program f08ctx
