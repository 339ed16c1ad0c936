/*
 * mpi_master.c - a master (rank 0) taking its workers' results in whatever
 * order they come, three ways, and printing the orders: the MPI program of
 * tests/e2e/test_mpi.sh (plain MPI, built with each MPI's mpicc).
 *
 *   recv:    MPI_Recv(MPI_ANY_SOURCE) of one result per worker (tag 1)
 *   waitany: an MPI_Irecv per worker (tag 2, each worker named), the order
 *            MPI_Waitany completes them; the workers send with MPI_Isend
 *            and MPI_Wait
 *   probe:   MPI_Iprobe(MPI_ANY_SOURCE, 3) polled until it finds a result,
 *            then MPI_Recv of what it found; how many polls found nothing
 *   testany: an MPI_Irecv per worker (tag 4), a go to each (tag 7), and
 *            MPI_Testany until all are done: the order, and how many tests found none done; the
 *            workers send with MPI_Sendrecv, whose receive takes the
 *            master's answer (tag 5)
 *   waitall: an MPI_Irecv per worker (tag 6), one MPI_Waitall: the sum
 *
 * Each worker sleeps a little before each send (its pid seeds the length):
 * free runs differ, a replay must print the recorded orders and counts.
 * Any number of ranks from 2.  With the argument "extra" the master polls
 * once more at its end, with "early" once more before its last MPI_Recv:
 * other programs for a replay (it must diverge).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void nap(void)
{
    usleep((useconds_t)(rand() % 3000));
}

static void worker(int rank)
{
    MPI_Request req;
    int v = rank * 10, w;

    srand((unsigned)getpid());
    nap();
    MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    nap();
    MPI_Isend(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    nap();
    MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    MPI_Recv(&w, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    nap();
    MPI_Sendrecv(&v, 1, MPI_INT, 0, 4, &w, 1, MPI_INT, 0, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    v += w;
    MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
}

static void master(int n, const char *arg)
{
    int extra = !strcmp(arg, "extra"), early = !strcmp(arg, "early");
    MPI_Request *reqs = malloc(n * sizeof *reqs);
    MPI_Status *sts = malloc(n * sizeof *sts);
    int *vals = malloc(n * sizeof *vals);
    MPI_Status st;
    int i, v, idx, flag;
    long misses = 0;

    printf("recv:");
    for (i = 1; i < n; i++) {
        if (early && i == n - 1) /* before the last: it does not race */
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                       &st);
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
        printf(" %d", st.MPI_SOURCE);
    }
    printf("\nwaitany:");
    for (i = 1; i < n; i++)
        MPI_Irecv(&vals[i - 1], 1, MPI_INT, i, 2, MPI_COMM_WORLD,
                  &reqs[i - 1]);
    for (i = 1; i < n; i++) {
        MPI_Waitany(n - 1, reqs, &idx, &st);
        printf(" %d", st.MPI_SOURCE);
    }
    printf("\nprobe:");
    for (i = 1; i < n; i++) {
        do {
            MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, &st);
            misses += !flag;
        } while (!flag);
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 3, MPI_COMM_WORLD, &st);
        printf(" %d", st.MPI_SOURCE);
    }
    printf(" (%ld polls found nothing)\n", misses);
    printf("testany:");
    for (i = 1; i < n; i++)
        MPI_Irecv(&vals[i - 1], 1, MPI_INT, i, 4, MPI_COMM_WORLD,
                  &reqs[i - 1]);
    for (i = 1; i < n; i++) /* go: the workers send after a nap */
        MPI_Send(&i, 1, MPI_INT, i, 7, MPI_COMM_WORLD);
    for (i = 1, misses = 0; i < n;) {
        MPI_Testany(n - 1, reqs, &idx, &flag, &st);
        if (flag && idx != MPI_UNDEFINED) {
            printf(" %d", st.MPI_SOURCE);
            i++;
        } else
            misses++;
    }
    printf(" (%ld tests found none done)\nwaitall:", misses);
    for (i = 1; i < n; i++)
        MPI_Send(&i, 1, MPI_INT, i, 5, MPI_COMM_WORLD);
    for (i = 1; i < n; i++)
        MPI_Irecv(&vals[i - 1], 1, MPI_INT, i, 6, MPI_COMM_WORLD,
                  &reqs[i - 1]);
    MPI_Waitall(n - 1, reqs, sts);
    for (i = 1, v = 0; i < n; i++)
        v += vals[i - 1] * (sts[i - 1].MPI_SOURCE == i);
    printf(" %d\n", v);
    if (extra)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    free(reqs);
    free(sts);
    free(vals);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        master(size, argc > 1 ? argv[1] : "");
    else
        worker(rank);
    MPI_Finalize();
    return 0;
}
