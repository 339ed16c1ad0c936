/*
 * mpi_hotpath.c - what the MPI library's fast paths (src/mpi: the last
 * call sites, counter and datatype remembered, a receive's bytes read
 * from its status) must log as the slow ones did: rank 1 sends, in each
 * of ROUNDS rounds, from four call sites in turn (more than the two
 * sites the library keeps at hand), messages of four sizes and three
 * datatypes (one derived) on two tags:
 *   site A  3 MPI_INT, tag 1          12 bytes
 *   site B  2 MPI_DOUBLE, tag 2       16 bytes
 *   site C  0 MPI_INT, tag 1           0 bytes
 *   site D  1 of 5 contiguous MPI_INT, tag 3   20 bytes
 * and rank 0 takes each with a buffer of 1000 MPI_INT, wildcard source
 * and tag (MPI_Recv, and MPI_Irecv + MPI_Wait for site D's), printing
 * "recv TAG BYTES" as MPI_Get_count says.  Then one message on a dup of
 * the world (tag 4), freed, and one on a split of the world that orders
 * the ranks the other way (tag 5: world rank 0 is its rank 1), freed:
 * the library translates each communicator's ranks once and keeps the
 * translation on it; the split often gets the dup's freed handle, and
 * must not get its translation.  Rank 0 prints "comm TAG SOURCE" (a rank
 * of the communicator).  Plain MPI; 2 ranks.
 */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 3

static void sender(void)
{
    int ints[5] = { 1, 2, 3, 4, 5 }, r;
    double dbl[2] = { 0.5, 1.5 };
    MPI_Datatype five;

    MPI_Type_contiguous(5, MPI_INT, &five);
    MPI_Type_commit(&five);
    for (r = 0; r < ROUNDS; r++) {
        MPI_Send(ints, 3, MPI_INT, 0, 1, MPI_COMM_WORLD);    /* A */
        MPI_Send(dbl, 2, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);  /* B */
        MPI_Send(ints, 0, MPI_INT, 0, 1, MPI_COMM_WORLD);    /* C */
        MPI_Send(ints, 1, five, 0, 3, MPI_COMM_WORLD);       /* D */
    }
    MPI_Type_free(&five);
}

static void show(const MPI_Status *st)
{
    int n = -1;

    MPI_Get_count(st, MPI_BYTE, &n);
    printf("recv %d %d\n", st->MPI_TAG, n);
}

static void receiver(void)
{
    static int buf[1000];
    MPI_Status st;
    MPI_Request req;
    int r, i;

    for (r = 0; r < ROUNDS; r++) {
        for (i = 0; i < 3; i++) {
            MPI_Recv(buf, 1000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &st);
            show(&st);
        }
        MPI_Irecv(buf, 1000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                  MPI_COMM_WORLD, &req);
        MPI_Wait(&req, &st);
        show(&st);
    }
}

/* One message from world rank 1 to world rank 0 on a communicator made
 * of the world (key: the ranks' order in it), which is freed after. */
static void on_made(int rank, int key, int tag)
{
    MPI_Comm c;
    MPI_Status st;
    int v = 0, to;

    MPI_Comm_split(MPI_COMM_WORLD, 0, key, &c);
    if (rank == 1) {
        to = key < 0 ? 1 : 0; /* world rank 0's rank in c */
        MPI_Send(&v, 1, MPI_INT, to, tag, c);
    } else if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, c, &st);
        printf("comm %d %d\n", tag, st.MPI_SOURCE);
    }
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    MPI_Comm d;
    MPI_Status st;
    int rank, v = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1)
        sender();
    else if (rank == 0)
        receiver();
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (rank == 1)
        MPI_Send(&v, 1, MPI_INT, 0, 4, d);
    else if (rank == 0) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 4, d, &st);
        printf("comm 4 %d\n", st.MPI_SOURCE);
    }
    MPI_Comm_free(&d);
    on_made(rank, -rank, 5);
    MPI_Finalize();
    return 0;
}
