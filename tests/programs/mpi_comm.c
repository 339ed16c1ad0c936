/*
 * mpi_comm.c - races on communicators other than MPI_COMM_WORLD: the
 * program of tests/e2e/mpi_cases.sh's communicator case (plain MPI, built
 * with each MPI's mpicc; 4 ranks or more).  Each phase's receiver takes
 * the others' messages with a wildcard and notes the order, as ranks of
 * its communicator:
 *
 *   dup:    on MPI_Comm_dup(MPI_COMM_WORLD), world rank 0 takes one
 *           message from every other rank with MPI_Recv(MPI_ANY_SOURCE)
 *   split:  on MPI_Comm_split(MPI_COMM_WORLD, 0, -rank) (the ranks
 *           reversed: world rank size-1 is its rank 0), its rank 0 posts
 *           an MPI_Irecv(MPI_ANY_SOURCE) per other rank and MPI_Waitany
 *   create: on MPI_Comm_create of the world's ranks but the last, its
 *           rank 0 polls MPI_Iprobe(MPI_ANY_SOURCE) then MPI_Recv what it
 *           found; the others send with MPI_Sendrecv (they take rank 0's
 *           answer)
 *
 * The split's receiver sends what it saw to world rank 0 (naming it: no
 * race), which prints everything (one rank prints: the launcher's
 * forwarding of several ranks' output would interleave).  Each sender
 * naps a little first (its pid seeds the length): free runs differ.
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

/* dup: world rank 0 takes a message from each other rank. */
static void on_dup(int rank, int size, char *out)
{
    MPI_Comm dup;
    MPI_Status st;
    int i, v = rank;

    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    if (rank == 0) {
        strcat(out, "dup:");
        for (i = 1; i < size; i++) {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, dup, &st);
            sprintf(out + strlen(out), " %d", st.MPI_SOURCE);
        }
    } else {
        nap();
        MPI_Send(&v, 1, MPI_INT, 0, 1, dup);
    }
    MPI_Comm_free(&dup);
}

/* split, the ranks reversed: its rank 0 (world size-1) waits for any. */
static void on_split(int rank, char *seen)
{
    MPI_Comm rev;
    MPI_Request *reqs;
    MPI_Status st;
    int me, n, i, idx, *vals, v = rank;

    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
    MPI_Comm_rank(rev, &me);
    MPI_Comm_size(rev, &n);
    if (me == 0) {
        reqs = malloc(n * sizeof *reqs);
        vals = malloc(n * sizeof *vals);
        for (i = 1; i < n; i++)
            MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, 2, rev, &reqs[i - 1]);
        strcpy(seen, "split:");
        for (i = 1; i < n; i++) {
            MPI_Waitany(n - 1, reqs, &idx, &st);
            sprintf(seen + strlen(seen), " %d(world %d)", st.MPI_SOURCE,
                    vals[idx + 1]);
        }
        free(reqs), free(vals);
    } else {
        nap();
        MPI_Send(&v, 1, MPI_INT, 0, 2, rev);
    }
    MPI_Comm_free(&rev);
}

/* create, of the world's ranks but the last: its rank 0 polls for any. */
static void on_create(int rank, int size, char *out)
{
    MPI_Group world, part;
    MPI_Comm sub;
    MPI_Status st;
    int last = size - 1, i, flag, v = rank, w;
    long polls = 0;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &last, &part);
    MPI_Comm_create(MPI_COMM_WORLD, part, &sub);
    if (sub == MPI_COMM_NULL) {
        MPI_Group_free(&part), MPI_Group_free(&world);
        return;
    }
    if (rank == 0) {
        strcat(out, "\ncreate:");
        for (i = 1; i < size - 1; i++) {
            while (MPI_Iprobe(MPI_ANY_SOURCE, 3, sub, &flag, &st), !flag)
                polls++;
            MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 3, sub, &st);
            MPI_Send(&v, 1, MPI_INT, st.MPI_SOURCE, 4, sub);
            sprintf(out + strlen(out), " %d", st.MPI_SOURCE);
        }
        sprintf(out + strlen(out), " polls %ld", polls);
    } else {
        nap();
        MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &w, 1, MPI_INT, 0, 4, sub,
                     MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&sub);
    MPI_Group_free(&part), MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    char out[512] = "", seen[256] = "";
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    srand((unsigned)getpid());
    on_dup(rank, size, out);
    on_split(rank, seen);
    if (rank == size - 1)
        MPI_Send(seen, sizeof seen, MPI_CHAR, 0, 9, MPI_COMM_WORLD);
    else if (rank == 0)
        MPI_Recv(seen, sizeof seen, MPI_CHAR, size - 1, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    on_create(rank, size, out);
    if (rank == 0)
        printf("%s\n%s\n", out, seen);
    MPI_Finalize();
    return 0;
}
