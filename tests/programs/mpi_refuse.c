/*
 * mpi_refuse.c - what the MPI front end refuses rather than records
 * wrongly (tests/e2e/test_mpi.sh): it asks for MPI_THREAD_MULTIPLE and
 * prints what it was given, then rank 0 sends to rank 1 on a duplicate of
 * MPI_COMM_WORLD (only MPI_COMM_WORLD is recorded so far).  Plain MPI,
 * built with each MPI's mpicc; 2 ranks or more.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 1;
    MPI_Comm dup;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("provided: %s\n",
               provided == MPI_THREAD_MULTIPLE     ? "multiple"
               : provided == MPI_THREAD_SERIALIZED ? "serialized"
                                                   : "less");
    fflush(stdout);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 0, dup);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
