/*
 * mpi_anyof.c - a master (rank 0) that posts an MPI_Irecv per worker,
 * each naming its worker (tag 1), and takes them with one call over all
 * the requests: the program of tests/e2e/test_mpi_anyof.sh (plain MPI,
 * built with each MPI's mpicc).
 *
 * Every worker (ranks 1..n-1) sends its rank with tag 1 to rank 0 and
 * ends.  The master takes the results with MPI_Waitany (no argument, or
 * "waitany"), MPI_Testany ("testany") or MPI_Waitsome ("waitsome") until
 * all are in, and prints what each call completed: "order: A B C" (one
 * rank a call; Waitsome's sets as "{A B} {C}").  No receive names a
 * wildcard: which worker comes first is the choice of the call over
 * several requests, and with 4 ranks the Waitany's three completions can
 * come in 3! = 6 orders, the program's only races.  With "crash" (after
 * the call's name) the master aborts (SIGABRT) when the first request
 * completed is rank 3's, and worker r sends after (r-1) x 100 ms: free
 * runs nearly always take 1 first, so only a forced order finds it.
 * With "stagger" worker r sends after (r-1) x 30 ms, so that Open MPI's
 * Waitsome, which often reports all three at once, reports several sets.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has(int argc, char **argv, const char *word)
{
    int i;

    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], word))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, i, k, left, idx, flag, out, first = -1, *vals, *ind;
    int crash = has(argc, argv, "crash"), stagger = has(argc, argv, "stagger");
    MPI_Request *reqs;
    MPI_Status *st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) {
        if (crash || stagger)
            usleep((useconds_t)(rank - 1) * (crash ? 100000 : 30000));
        MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    vals = calloc((size_t)size, sizeof *vals);
    ind = calloc((size_t)size, sizeof *ind);
    reqs = calloc((size_t)size, sizeof *reqs);
    st = calloc((size_t)size, sizeof *st);
    for (i = 1; i < size; i++)
        MPI_Irecv(&vals[i - 1], 1, MPI_INT, i, 1, MPI_COMM_WORLD, &reqs[i - 1]);
    printf("order:");
    for (left = size - 1; left > 0;) {
        if (has(argc, argv, "waitsome")) {
            MPI_Waitsome(size - 1, reqs, &out, ind, st);
            printf(" {");
            for (k = 0; k < out; k++)
                printf("%s%d", k ? " " : "", vals[ind[k]]);
            printf("}");
            idx = ind[0];
        } else if (has(argc, argv, "testany")) {
            do
                MPI_Testany(size - 1, reqs, &idx, &flag, st);
            while (!flag);
            out = 1;
            printf(" %d", vals[idx]);
        } else {
            MPI_Waitany(size - 1, reqs, &idx, st);
            out = 1;
            printf(" %d", vals[idx]);
        }
        if (first < 0)
            first = vals[idx];
        left -= out;
    }
    printf("\n");
    fflush(stdout);
    if (crash && first == 3)
        abort();
    free(vals), free(ind), free(reqs), free(st);
    MPI_Finalize();
    return 0;
}
