/*
 * mpi_spawn.c - a master that starts its workers with MPI_Comm_spawn and
 * takes their answers in whatever order they come: the MPI program of
 * tests/e2e/test_mpi_spawn*.sh (plain MPI, built with each MPI's mpicc).
 *
 * Run with one rank (mpirun -n 1 ./mpi_spawn).  The master spawns 3
 * workers (itself); with the argument "twice", 2 more after them, with
 * "multiple" 2 more with MPI_Comm_spawn_multiple (one per command).  Each
 * spawn's workers send their answer (tag 1) to the master over the
 * intercommunicator MPI_Comm_spawn gave; the master takes them with
 * MPI_Recv(MPI_ANY_SOURCE) and prints the order (remote ranks), answers
 * each worker (tag 2, the worker's rank times 100), and the workers send
 * it back on their own MPI_COMM_WORLD to their rank 0, which takes them
 * with MPI_ANY_SOURCE too and sends the order it took them in (their
 * ranks as decimal digits) to the master.  Each worker naps a little
 * (its pid seeds the length) before each send: free runs differ, a
 * replay must print the recorded orders.
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

static void worker(MPI_Comm parent)
{
    int rank, size, v, i, w, order = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    srand((unsigned)getpid());
    nap();
    v = rank;
    MPI_Send(&v, 1, MPI_INT, 0, 1, parent);
    MPI_Recv(&w, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE);
    if (rank > 0) {
        nap();
        MPI_Send(&w, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        return;
    }
    for (i = 1; i < size; i++) { /* in the order they come */
        MPI_Status st;

        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
        order = order * 10 + st.MPI_SOURCE;
    }
    MPI_Send(&order, 1, MPI_INT, 0, 4, parent);
}

static void take(MPI_Comm inter, const char *what)
{
    int n, i, v, order;
    MPI_Status st;

    MPI_Comm_remote_size(inter, &n);
    printf("%s:", what);
    for (i = 0; i < n; i++) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, inter, &st);
        printf(" %d", st.MPI_SOURCE);
    }
    for (i = 0; i < n; i++) {
        v = i * 100;
        MPI_Send(&v, 1, MPI_INT, i, 2, inter);
    }
    MPI_Recv(&order, 1, MPI_INT, 0, 4, inter, MPI_STATUS_IGNORE);
    printf(" (their rank 0 took %d)\n", order);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    char self[4096], *cmds[2], **argvs[2];
    int maxprocs[2] = { 1, 1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    MPI_Comm parent, a, b;
    ssize_t n;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        worker(parent);
        MPI_Finalize();
        return 0;
    }
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = 0;
    MPI_Comm_spawn(self, MPI_ARGV_NULL, 3, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                   &a, MPI_ERRCODES_IGNORE);
    take(a, "first");
    if (argc < 2 ||
        (strcmp(argv[1], "twice") && strcmp(argv[1], "multiple"))) {
        MPI_Finalize();
        return 0;
    }
    if (!strcmp(argv[1], "multiple")) {
        cmds[0] = cmds[1] = self;
        argvs[0] = argvs[1] = MPI_ARGV_NULL;
        MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0,
                                MPI_COMM_SELF, &b, MPI_ERRCODES_IGNORE);
    } else
        MPI_Comm_spawn(self, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                       MPI_COMM_SELF, &b, MPI_ERRCODES_IGNORE);
    take(b, "second");
    MPI_Finalize();
    return 0;
}
