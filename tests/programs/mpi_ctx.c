/*
 * mpi_ctx.c - one source and one tag on two communicators, whose race set
 * is known: the program of tests/e2e/test_mpi_ctx.sh (plain MPI, built
 * with each MPI's mpicc; 4 ranks).  Rank 0 is the master, ranks 1-3 the
 * workers; every message has tag 1, on MPI_COMM_WORLD or on a dup of it.
 *
 *   phase 1: worker 1 sends on the dup, workers 2 and 3 on the world;
 *            the master takes two with MPI_Recv(MPI_ANY_SOURCE, 1) on the
 *            world: the first races between workers 2 and 3 only (worker
 *            1's message is on the dup: no world receive can take it)
 *   the master tells each worker to go on (tag 2, naming it)
 *   phase 2: every worker sends on the world; the master takes three the
 *            same way: the first races among all three, the second
 *            between the two left; worker 1's phase-1 message is still
 *            queued on the dup, from the same source with the same tag,
 *            and is no alternative of these receives
 *   last:    the master takes worker 1's message on the dup (the only one
 *            there: no race)
 *
 * The master prints the senders in the order taken.  Each worker naps a
 * little first (its pid seeds the length): free runs differ.
 *
 * The second communicator is a dup of the world (no argument, or "dup"),
 * or the same members made otherwise: "idup" (MPI_Comm_idup),
 * "create_group" (MPI_Comm_create_group of the world's group), "merge"
 * (MPI_Intercomm_create between ranks {0, 1} and {2, 3}, split from the
 * world, then MPI_Intercomm_merge: the ranks keep their numbers).  The
 * race set is the same for all.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void nap(void)
{
    usleep((useconds_t)(rand() % 4000));
}

static int take(MPI_Comm comm)
{
    MPI_Status st;
    int v;

    MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, comm, &st);
    return v;
}

static void master(int size, MPI_Comm dup)
{
    int i, a, b, c, d, e, last, go = 1;

    a = take(MPI_COMM_WORLD);
    b = take(MPI_COMM_WORLD);
    for (i = 1; i < size; i++)
        MPI_Send(&go, 1, MPI_INT, i, 2, MPI_COMM_WORLD);
    c = take(MPI_COMM_WORLD);
    d = take(MPI_COMM_WORLD);
    e = take(MPI_COMM_WORLD);
    last = take(dup);
    printf("phase 1 (world): %d %d\nphase 2 (world): %d %d %d\n"
           "last (dup): %d\n", a, b, c, d, e, last);
}

static void worker(int rank, MPI_Comm dup)
{
    MPI_Status st;
    int go;

    srand((unsigned)getpid());
    nap();
    MPI_Send(&rank, 1, MPI_INT, 0, 1, rank == 1 ? dup : MPI_COMM_WORLD);
    MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
    nap();
    MPI_Send(&rank, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
}

/* The second communicator, made as `how` says (the comment above). */
static MPI_Comm second(const char *how, int rank)
{
    MPI_Comm c, half, inter;
    MPI_Group g;
    MPI_Request r;

    if (!strcmp(how, "idup")) {
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (!strcmp(how, "create_group")) {
        MPI_Comm_group(MPI_COMM_WORLD, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &c);
        MPI_Group_free(&g);
    } else if (!strcmp(how, "merge")) {
        MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 9,
                             &inter);
        MPI_Intercomm_merge(inter, rank >= 2, &c);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    } else {
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    }
    return c;
}

int main(int argc, char **argv)
{
    MPI_Comm dup;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "mpi_ctx: run me with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dup = second(argc > 1 ? argv[1] : "dup", rank);
    if (rank == 0)
        master(size, dup);
    else
        worker(rank, dup);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
