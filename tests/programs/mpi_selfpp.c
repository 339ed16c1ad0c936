/*
 * mpi_selfpp.c - one rank sending to itself, N rounds of MPI_Isend to
 * rank 0, MPI_Recv(MPI_ANY_SOURCE), MPI_Wait: one send and one receive
 * event a round, for counting what the MPI front end adds per event
 * with callgrind, which a loaded machine does not disturb
 * (docs/mpi-notes.md, Cost).  Runs without a launcher (a singleton).
 *   mpi_selfpp N
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, i;
    double out = 0, in = 0;
    MPI_Request r;

    MPI_Init(&argc, &argv);
    for (i = 0; i < n; i++) {
        MPI_Isend(&out, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &r);
        MPI_Recv(&in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
