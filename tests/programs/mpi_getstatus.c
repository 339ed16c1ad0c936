/*
 * mpi_getstatus.c - MPI_Request_get_status and the tests after it: rank 0
 * polls one receive with MPI_Request_get_status until it is done, then
 * another with MPI_Testall, and prints how many polls each made.  Rank 2
 * sends its message later than rank 1, so the MPI_Testall polls come
 * after the MPI_Request_get_status found its request done, before the
 * next message: a replay must give each call its own count (the counts
 * depend on timing, so free runs differ).  Ranks 1 and 2 send; 3 ranks.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void receiver(void)
{
    int a = 0, b = 0, flag = 0, gets = 0, tests = 0;
    MPI_Request r[2];
    MPI_Status st[1];

    MPI_Irecv(&a, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&b, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, &r[1]);
    do {
        MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE);
        gets++;
    } while (!flag);
    do {
        MPI_Testall(1, &r[1], &flag, st);
        tests++;
    } while (!flag);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    printf("get_status polls %d, testall polls %d, got %d and %d\n", gets,
           tests, a, b);
}

int main(int argc, char **argv)
{
    int rank, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        receiver();
    } else {
        usleep(rank == 1 ? 2000 : 30000); /* rank 2's message comes later */
        v = 10 * rank;
        MPI_Send(&v, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
