/*
 * mpi_persist.c - persistent requests: the program of tests/e2e/
 * test_mpi_persist.sh (plain MPI, built with each MPI's mpicc).  The
 * master (rank 0) prints what depends on which message each start of a
 * persistent receive took and on what its tests found:
 *
 *   restart:  one MPI_Recv_init(MPI_ANY_SOURCE, 1), started and waited
 *             for once per worker (MPI_Start, MPI_Wait): the sources
 *   waitany:  an MPI_Recv_init(MPI_ANY_SOURCE, 2) per worker, MPI_Startall,
 *             MPI_Waitany until all are done (the done ones stay in the
 *             array, inactive): the index and source of each
 *   waitsome: the same with tag 3 and MPI_Waitsome: each call's set
 *   test:     an MPI_Recv_init(MPI_ANY_SOURCE, 4), started per worker and
 *             polled with MPI_Test until done: the sources, and the tests
 *             that found it not done
 *   send:     an MPI_Send_init of a large message to each worker (tag 6),
 *             MPI_Startall, MPI_Test of each in turn until done: the tests
 *             that found it not done
 *
 * The rounds are made twice with the same requests (a replay makes its
 * wildcard receives again at each start: mpi_start.c), then freed with
 * MPI_Request_free.  The workers send with MPI_Send_init and MPI_Start
 * (one request per tag), each after a nap its pid seeds: free runs
 * differ, a replay must print the recorded output.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BIG (256 * 1024) /* ints: past both MPIs' eager sizes */
#define ROUNDS 2

static void nap(void)
{
    usleep((useconds_t)(rand() % 3000));
}

static void worker(int rank)
{
    MPI_Request sreq[4], big_req;
    int v = rank, i, r, *big = malloc(BIG * sizeof *big);

    srand((unsigned)getpid());
    for (i = 0; i < 4; i++)
        MPI_Send_init(&v, 1, MPI_INT, 0, i + 1, MPI_COMM_WORLD, &sreq[i]);
    MPI_Recv_init(big, BIG, MPI_INT, 0, 6, MPI_COMM_WORLD, &big_req);
    for (r = 0; r < ROUNDS; r++) {
        for (i = 0; i < 4; i++) {
            nap();
            MPI_Start(&sreq[i]);
            MPI_Wait(&sreq[i], MPI_STATUS_IGNORE);
        }
        MPI_Start(&big_req);
        MPI_Wait(&big_req, MPI_STATUS_IGNORE);
    }
    for (i = 0; i < 4; i++)
        MPI_Request_free(&sreq[i]);
    MPI_Request_free(&big_req);
    free(big);
}

static void restart(int n, MPI_Request *one)
{
    MPI_Status st;
    int i;

    printf("restart:");
    for (i = 0; i < n; i++) {
        MPI_Start(one);
        MPI_Wait(one, &st);
        printf(" %d", st.MPI_SOURCE);
    }
}

static void waitany(int n, MPI_Request *reqs)
{
    MPI_Status st;
    int i, idx;

    printf("\nwaitany:");
    MPI_Startall(n, reqs);
    for (i = 0; i < n; i++) {
        MPI_Waitany(n, reqs, &idx, &st);
        printf(" %d<-%d", idx, st.MPI_SOURCE);
    }
}

static void waitsome(int n, MPI_Request *reqs, MPI_Status *sts)
{
    int *idx = malloc(n * sizeof *idx), left = n, out, j;

    printf("\nwaitsome:");
    MPI_Startall(n, reqs);
    while (left > 0) {
        MPI_Waitsome(n, reqs, &out, idx, sts);
        printf(" {");
        for (j = 0; j < out; j++)
            printf("%s%d", j ? "," : "", sts[j].MPI_SOURCE);
        printf("}");
        left -= out;
    }
    free(idx);
}

static void tests(int n, MPI_Request *one)
{
    MPI_Status st;
    long fails = 0;
    int i, flag;

    printf("\ntest:");
    for (i = 0; i < n; i++) {
        MPI_Start(one);
        while (MPI_Test(one, &flag, &st), !flag)
            fails++;
        printf(" %d", st.MPI_SOURCE);
    }
    printf(" failed %ld", fails);
}

static void sends(int n, MPI_Request *big_reqs)
{
    long fails = 0;
    int i, flag;

    MPI_Startall(n, big_reqs);
    for (i = 0; i < n; i++)
        while (MPI_Test(&big_reqs[i], &flag, MPI_STATUS_IGNORE), !flag)
            fails++;
    printf("\nsend: %ld failed\n", fails);
}

static void master(int n)
{
    MPI_Request one, any4, *any2 = malloc(n * sizeof *any2),
                *any3 = malloc(n * sizeof *any3),
                *big_reqs = malloc(n * sizeof *big_reqs);
    MPI_Status *sts = malloc(n * sizeof *sts);
    int *vals = malloc(3 * n * sizeof *vals), i, r, v,
        *big = calloc(BIG, sizeof *big);

    MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &one);
    MPI_Recv_init(&v, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &any4);
    for (i = 0; i < n; i++) {
        MPI_Recv_init(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, 2,
                      MPI_COMM_WORLD, &any2[i]);
        MPI_Recv_init(&vals[n + i], 1, MPI_INT, MPI_ANY_SOURCE, 3,
                      MPI_COMM_WORLD, &any3[i]);
        MPI_Send_init(big, BIG, MPI_INT, i + 1, 6, MPI_COMM_WORLD,
                      &big_reqs[i]);
    }
    for (r = 0; r < ROUNDS; r++) {
        printf("round %d\n", r + 1);
        restart(n, &one);
        waitany(n, any2);
        waitsome(n, any3, sts);
        tests(n, &any4);
        sends(n, big_reqs);
    }
    MPI_Request_free(&one);
    MPI_Request_free(&any4);
    for (i = 0; i < n; i++) {
        MPI_Request_free(&any2[i]);
        MPI_Request_free(&any3[i]);
        MPI_Request_free(&big_reqs[i]);
    }
    free(any2), free(any3), free(big_reqs), free(sts), free(vals), free(big);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0)
        master(size - 1);
    else
        worker(rank);
    MPI_Finalize();
    return 0;
}
