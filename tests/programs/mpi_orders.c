/*
 * mpi_orders.c - a master (rank 0) taking its workers' results with
 * MPI_Recv(MPI_ANY_SOURCE), one call site, and printing the order: the MPI
 * program of tests/e2e/test_mpi_whatif.sh and test_mpi_explore.sh (plain
 * MPI, built with each MPI's mpicc).
 *
 * Every worker (ranks 1..n-1) sends its rank with tag 1 to rank 0 and
 * ends; the master prints "order: A B C" as it took them.  With 4 ranks
 * the three receives can take the results in 3! = 6 orders, and these
 * are all the races of the program.  With the argument "crash" the master
 * aborts (SIGABRT) when its SECOND receive took rank 3's result, and
 * worker r sends after (r-1) x 100 ms: free runs nearly always take 1 2 3,
 * so the bug is rare there and only a forced order finds it surely.
 * With the argument "poll" worker r sends after r x 50 ms, and the master
 * first polls MPI_Iprobe(MPI_ANY_SOURCE, 1) until it finds a result
 * ("poll: R after N polls that found nothing"; the receives then take
 * that one first): the polls that found nothing race with every result.
 * With the argument "sendrecv" each worker sends its result and takes
 * the master's answer (tag 2, sent once all results are in) in one
 * MPI_Sendrecv: a what-if forcing a master's receive stops following a
 * worker inside that call, between its two halves.  With "once FILE" the
 * master takes all three results when FILE does not exist (and makes
 * it), one only when it does: a what-if forcing a later receive of the
 * first run never reaches it.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, i, v, crash = argc > 1 && !strcmp(argv[1], "crash");
    int poll = argc > 1 && !strcmp(argv[1], "poll"), found = 0, misses = 0;
    int sendrecv = argc > 1 && !strcmp(argv[1], "sendrecv"), w, n;
    FILE *once = NULL;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) {
        if (crash || poll)
            usleep((useconds_t)(crash ? rank - 1 : rank) * (crash ? 100000 : 50000));
        if (sendrecv)
            MPI_Sendrecv(&rank, 1, MPI_INT, 0, 1, &w, 1, MPI_INT, 0, 2,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else
            MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    while (poll && !found) {
        MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &found, &st);
        misses += !found;
    }
    if (poll)
        printf("poll: %d after %d polls that found nothing\n", st.MPI_SOURCE,
               misses);
    n = size;
    if (argc > 2 && !strcmp(argv[1], "once")) {
        if (access(argv[2], F_OK) == 0)
            n = 2; /* one receive this time */
        else if ((once = fopen(argv[2], "w")))
            fclose(once);
    }
    printf("order:");
    for (i = 1; i < n; i++) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        printf(" %d", v);
        if (i == 2 && v == 3 && crash) {
            printf("\n");
            fflush(stdout);
            abort();
        }
    }
    printf("\n");
    for (i = 1; sendrecv && i < size; i++)
        MPI_Send(&i, 1, MPI_INT, i, 2, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
