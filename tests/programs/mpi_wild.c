/*
 * mpi_wild.c - wildcard nonblocking receives, and the calls that complete
 * several requests at once: the program of tests/e2e/mpi_cases.sh's
 * second case (plain MPI, built with each MPI's mpicc).  The master
 * (rank 0) prints, per phase, what depends on which message each posted
 * receive took and on what each call found done:
 *
 *   irecv:    an MPI_Irecv(MPI_ANY_SOURCE, 1) per worker, one MPI_Waitall:
 *             the source each posting took, in posting order
 *   waitsome: MPI_Irecv(MPI_ANY_SOURCE, 3) per worker, MPI_Waitsome until
 *             all are done: the sources of each call's set
 *   testsome: the same with tag 4 and MPI_Testsome: the sets, and how many
 *             calls found none done
 *   testall:  an MPI_Irecv per worker naming it (tag 5), MPI_Testall until
 *             all are done: how many tests found them not all done
 *   sends:    a large MPI_Isend to each worker (tag 6), MPI_Testany until
 *             all are done: the order, and the tests that found none done;
 *             then an MPI_Issend to each (tag 7), MPI_Test of each in turn
 *             until done: the tests that found it not done
 *   cancel:   an MPI_Irecv(MPI_ANY_SOURCE, 99) that nothing matches,
 *             tested, cancelled and waited for
 *   status:   an MPI_Irecv(MPI_ANY_SOURCE, 8) per worker, each polled with
 *             MPI_Request_get_status until done, then MPI_Wait: the
 *             sources, and the polls that found it not done
 *   anytag:   MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) per worker (each sends
 *             tag 10 + its rank), MPI_Waitany: the tags in posting order
 *
 * Each worker naps a little (its pid seeds the length) before each send:
 * free runs differ, a replay must print the recorded output.  A phase's
 * receives are all done before the next phase's are posted, so the tags
 * keep the phases apart (anytag, which takes any tag, comes last).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BIG (256 * 1024) /* ints: past both MPIs' eager sizes */

static void nap(void)
{
    usleep((useconds_t)(rand() % 3000));
}

static void worker(int rank)
{
    static const int tags[] = { 1, 3, 4, 5 };
    int v = rank, i, *big = malloc(BIG * sizeof *big);

    srand((unsigned)getpid());
    for (i = 0; i < 4; i++) {
        nap();
        MPI_Send(&v, 1, MPI_INT, 0, tags[i], MPI_COMM_WORLD);
    }
    nap();
    MPI_Recv(big, BIG, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    nap();
    MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(big);
    nap();
    MPI_Send(&v, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    nap();
    MPI_Send(&v, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD);
}

static void post(int n, int source, int tag, int *vals, MPI_Request *reqs)
{
    int i;

    for (i = 0; i < n; i++)
        MPI_Irecv(&vals[i], 1, MPI_INT, source < 0 ? MPI_ANY_SOURCE : i + 1,
                  tag, MPI_COMM_WORLD, &reqs[i]);
}

/* Waitsome or Testsome until the n receives are done: each call's set. */
static void some(int n, int test, int *vals, MPI_Request *reqs,
                 MPI_Status *sts)
{
    int *idx = malloc(n * sizeof *idx), left = n, out, j, empty = 0;

    while (left > 0) {
        if (test)
            MPI_Testsome(n, reqs, &out, idx, sts);
        else
            MPI_Waitsome(n, reqs, &out, idx, sts);
        if (out == 0) {
            empty++;
            continue;
        }
        printf(" {");
        for (j = 0; j < out; j++)
            printf("%s%d", j ? "," : "", sts[j].MPI_SOURCE);
        printf("}");
        left -= out;
    }
    if (test)
        printf(" empty %d", empty);
    free(idx);
}

/* sends and cancel (above) */
static void sends(int n, MPI_Request *reqs)
{
    int *big = calloc((size_t)n * BIG, sizeof *big), i, idx, flag, left;
    long empty = 0, fails = 0;
    MPI_Request r;
    MPI_Status st;

    for (i = 0; i < n; i++)
        MPI_Isend(big + (size_t)i * BIG, BIG, MPI_INT, i + 1, 6,
                  MPI_COMM_WORLD, &reqs[i]);
    printf("\nsends:");
    for (left = n; left > 0;) {
        MPI_Testany(n, reqs, &idx, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            empty++;
        else if (idx != MPI_UNDEFINED)
            printf(" %d", idx + 1), left--;
    }
    for (i = 0; i < n; i++)
        MPI_Issend(&i, 1, MPI_INT, i + 1, 7, MPI_COMM_WORLD, &reqs[i]);
    for (i = 0; i < n; i++)
        while (MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE), !flag)
            fails++;
    printf(" empty %ld\nissend: %ld failed", empty, fails);
    MPI_Irecv(&i, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &r);
    for (i = 0; i < 3; i++)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    printf("\ncancel: %s\nstatus:", flag ? "cancelled" : "took a message");
    fails = 0;
    for (i = 0; i < n; i++) {
        MPI_Irecv(&big[0], 1, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &r);
        while (MPI_Request_get_status(r, &flag, &st), !flag)
            fails++;
        MPI_Wait(&r, &st);
        printf(" %d", st.MPI_SOURCE);
    }
    printf(" polls %ld", fails);
    free(big);
}

static void master(int n)
{
    MPI_Request *reqs = malloc(n * sizeof *reqs);
    MPI_Status *sts = malloc(n * sizeof *sts);
    int *vals = malloc(n * sizeof *vals), i, idx, flag = 0, *tags;
    long fails = 0;

    post(n, -1, 1, vals, reqs);
    MPI_Waitall(n, reqs, sts);
    printf("irecv:");
    for (i = 0; i < n; i++)
        printf(" %d", sts[i].MPI_SOURCE);
    printf("\nwaitsome:");
    post(n, -1, 3, vals, reqs);
    some(n, 0, vals, reqs, sts);
    printf("\ntestsome:");
    post(n, -1, 4, vals, reqs);
    some(n, 1, vals, reqs, sts);
    post(n, 0, 5, vals, reqs);
    while (MPI_Testall(n, reqs, &flag, sts), !flag)
        fails++;
    printf("\ntestall: %ld failed", fails);
    sends(n, reqs);
    printf("\nanytag:");
    tags = calloc(n, sizeof *tags);
    post(n, -1, MPI_ANY_TAG, vals, reqs);
    for (i = 0; i < n; i++) {
        MPI_Waitany(n, reqs, &idx, &sts[0]);
        tags[idx] = sts[0].MPI_TAG;
    }
    for (i = 0; i < n; i++)
        printf(" %d", tags[i]);
    printf("\n");
    free(reqs), free(sts), free(vals), free(tags);
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
