/*
 * mpi_refuse.c - what the MPI front end refuses rather than records
 * wrongly (tests/e2e/test_mpi.sh): it asks for MPI_THREAD_MULTIPLE and
 * prints what it was given, then world rank 0 sends to world rank 1 on an
 * intercommunicator between the even and the odd ranks (not recorded
 * yet).  Plain MPI, built with each MPI's mpicc; 2 ranks or more.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, rank, v = 1;
    MPI_Comm half, inter;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("provided: %s\n",
               provided == MPI_THREAD_MULTIPLE     ? "multiple"
               : provided == MPI_THREAD_SERIALIZED ? "serialized"
                                                   : "less");
    fflush(stdout);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7,
                         &inter);
    if (rank == 0) /* to the odd group's rank 0: world rank 1 */
        MPI_Send(&v, 1, MPI_INT, 0, 0, inter);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
