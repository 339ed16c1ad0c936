/*
 * mpi_pingpong.c - 8-byte ping-pong between ranks 0 and 1, rank 0
 * receiving with MPI_ANY_SOURCE: the cost of an MPI message under
 * Pangaea (-log, -replay) against a raw run (docs/mpi-notes.md gives the
 * figures and the commands).  Prints the median over BATCHES batches of N
 * round trips, in microseconds a round trip.  Plain MPI.
 *   mpi_pingpong [N [BATCHES]]     (default 100000, 5)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 100000;
    int batches = argc > 2 ? atoi(argv[2]) : 5, b, i;
    double buf = 0, t, us[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (batches > 64)
        batches = 64;
    for (b = 0; b < batches; b++) {
        t = MPI_Wtime();
        for (i = 0; i < n && rank < 2; i++)
            if (rank == 0) {
                MPI_Send(&buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(&buf, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MPI_Send(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
            }
        us[b] = (MPI_Wtime() - t) * 1e6 / n;
    }
    qsort(us, batches, sizeof *us, cmp);
    if (rank == 0)
        printf("%.3f us a round trip (median of %d batches of %d)\n",
               us[batches / 2], batches, n);
    MPI_Finalize();
    return 0;
}
