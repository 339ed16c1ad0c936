! mpi_fctx.f90 - tests/programs/mpi_ctx.c in Fortran (mpif.h), for
! tests/e2e/test_mpi_ctx.sh: one source and one tag on MPI_COMM_WORLD and
! on a dup of it made by MPI_COMM_DUP, whose race set is known (mpi_ctx.c
! says it).  Open MPI's Fortran binding of MPI_COMM_DUP calls PMPI_ itself
! (docs/mpi-notes.md): the library takes it (src/mpi/mpi_fortran.c) so
! that the dup gets its own context in the log.  4 ranks.
program fctx
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, dup, i, a, b, c, d, e, last, go
  integer :: st(MPI_STATUS_SIZE)

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  if (nranks /= 4) call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
  go = 1
  if (rank == 0) then
     a = take(MPI_COMM_WORLD)
     b = take(MPI_COMM_WORLD)
     do i = 1, nranks - 1
        call MPI_SEND(go, 1, MPI_INTEGER, i, 2, MPI_COMM_WORLD, ierr)
     end do
     c = take(MPI_COMM_WORLD)
     d = take(MPI_COMM_WORLD)
     e = take(MPI_COMM_WORLD)
     last = take(dup)
     print '(a,2i2)', 'phase 1 (world):', a, b
     print '(a,3i2)', 'phase 2 (world):', c, d, e
     print '(a,i2)', 'last (dup):', last
  else
     if (rank == 1) then
        call MPI_SEND(rank, 1, MPI_INTEGER, 0, 1, dup, ierr)
     else
        call MPI_SEND(rank, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
     end if
     call MPI_RECV(go, 1, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, st, ierr)
     call MPI_SEND(rank, 1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, ierr)
  end if
  call MPI_COMM_FREE(dup, ierr)
  call MPI_FINALIZE(ierr)
contains
  integer function take(comm)
    integer, intent(in) :: comm
    integer :: v, s(MPI_STATUS_SIZE), err
    call MPI_RECV(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, comm, s, err)
    take = v
  end function take
end program fctx
