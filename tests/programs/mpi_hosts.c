/*
 * mpi_hosts.c - a master (rank 0) taking its workers' results in whatever
 * order they come, for runs whose ranks sit on several hosts
 * (tests/e2e/test_mpi_hosts.sh: network-namespace hosts, one rank each).
 *
 *   mpi_hosts [ROUNDS]     (default 8)
 *
 * Each round every worker naps a little (its pid seeds the length) and
 * sends its rank; the master takes one message per worker with
 * MPI_Recv(MPI_ANY_SOURCE) and prints the order of the round, then, with
 * MPI_Iprobe(MPI_ANY_SOURCE) polled, the order in which a second message
 * per worker is found and how many polls found nothing.  Free runs differ;
 * a replay must print the recorded lines, whichever hosts its ranks run on.
 *
 * Every rank says on stderr which host it runs on ("rank R runs on HOST",
 * its gethostname()), apart from the compared stdout: the test checks the
 * placement from the ranks themselves, since a replay on other hosts
 * prints the same stdout.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void nap(void)
{
    usleep((useconds_t)(rand() % 2000));
}

static void worker(int rank, int rounds)
{
    int r;

    srand((unsigned)getpid());
    for (r = 0; r < rounds; r++) {
        nap();
        MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        nap();
        MPI_Send(&rank, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    }
}

/* One round's second half: the order MPI_Iprobe finds the tag-2 results. */
static void probe_round(int workers, long *misses)
{
    MPI_Status st;
    int i, found, v;

    printf(" |");
    for (i = 0; i < workers; i++) {
        for (;;) {
            MPI_Iprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &found, &st);
            if (found)
                break;
            ++*misses;
        }
        MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        printf(" %d", v);
    }
}

static void master(int workers, int rounds)
{
    long misses = 0;
    int r, i, v;

    for (r = 0; r < rounds; r++) {
        printf("round %d:", r);
        for (i = 0; i < workers; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            printf(" %d", v);
        }
        probe_round(workers, &misses);
        printf("\n");
    }
    printf("polls that found nothing: %ld\n", misses);
}

int main(int argc, char **argv)
{
    char host[256] = "?";
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 8;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    gethostname(host, sizeof host - 1);
    fprintf(stderr, "rank %d runs on %s\n", rank, host);
    if (rank == 0)
        master(size - 1, rounds);
    else
        worker(rank, rounds);
    MPI_Finalize();
    return 0;
}
