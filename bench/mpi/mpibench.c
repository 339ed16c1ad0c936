/*
 * mpibench.c - the MPI benchmarks of `make bench` (bench/mpi.sh): two
 * ranks over shared memory, run raw and under `pangaea -log` / `-replay`.
 *
 *   mpibench pp N          8-byte ping-pong: rank 0 sends, then receives
 *                          with MPI_ANY_SOURCE (a receive that races, as
 *                          a master's does); rank 1 answers.  Prints the
 *                          median over 5 batches of N round trips.
 *   mpibench rate N        message rate: rank 0 sends N 8-byte messages in
 *                          windows of 64 MPI_Isend + MPI_Waitall, rank 1
 *                          takes each window with 64 MPI_Irecv
 *                          (MPI_ANY_SOURCE) + MPI_Waitall, then acks it
 *                          with one MPI_Send.  Prints the median over 5
 *                          batches of microseconds a message.
 *   mpibench self N        one rank (-n 1) sending to itself: N rounds of
 *                          MPI_Isend to rank 0, MPI_Recv(MPI_ANY_SOURCE),
 *                          MPI_Wait, the ping-pong's rank 0 (one send and
 *                          one wildcard receive a round) without a peer
 *                          to wait for: what bench/mpi_insn.sh counts,
 *                          since a rank that waits polls its MPI a number
 *                          of times that depends on timing.
 *
 * A plain MPI program, built with each MPI's mpicc (the Makefile:
 * build/bench/mpich/, build/bench/openmpi/): it never sees Pangaea, which
 * `pangaea` puts into its ranks like into any program.  Rank 0 prints one
 * line, "BENCH name=pp8|rate n=N us=MEDIAN lo=MIN hi=MAX", as the PVM
 * benchmarks do (bench/bench.h).
 *
 * Timing: 1000 untimed round trips (or messages) first, then the batches.
 * The clock is read with the clock_gettime system call, not the C
 * library's function nor MPI_Wtime: Pangaea records the program's clock
 * readings and a replay gives the recorded values back (src/mpi/
 * mpi_clock.c), which would make a replay's timings the recording's.  The
 * system call costs ~100 ns, once per batch.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 5
#define WINDOW 64
#define WARMUP 1000

static double now_us(void)
{
    struct timespec t;

    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* n round trips of 8 bytes. */
static void pingpong(int rank, long n)
{
    double buf = 0;
    long i;

    for (i = 0; i < n; i++)
        if (rank == 0) {
            MPI_Send(&buf, 1, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&buf, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(&buf, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
        }
}

/* n rounds of one send to itself and its receive. */
static void self(long n)
{
    double out = 0, in = 0;
    MPI_Request r;
    long i;

    for (i = 0; i < n; i++) {
        MPI_Isend(&out, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &r);
        MPI_Recv(&in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
}

/* n windows of WINDOW 8-byte messages from rank 0 to rank 1, each acked. */
static void windows(int rank, long n)
{
    static double buf[WINDOW];
    static MPI_Status st[WINDOW]; /* MPI_STATUSES_IGNORE: a gcc warning */
    MPI_Request req[WINDOW];
    double ack = 0;
    long w;
    int i;

    for (w = 0; w < n; w++) {
        for (i = 0; i < WINDOW; i++)
            if (rank == 0)
                MPI_Isend(&buf[i], 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD,
                          &req[i]);
            else
                MPI_Irecv(&buf[i], 1, MPI_DOUBLE, MPI_ANY_SOURCE, 2,
                          MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(WINDOW, req, st);
        if (rank == 0)
            MPI_Recv(&ack, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        else
            MPI_Send(&ack, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    }
}

/* One batch (or the warm-up) of the benchmark asked for. */
static void batch(int kind, int rank, long n)
{
    if (kind == 'r')
        windows(rank, n / WINDOW);
    else if (kind == 's')
        self(n);
    else
        pingpong(rank, n);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    int kind = !strcmp(what, "rate") ? 'r' : !strcmp(what, "self") ? 's'
               : !strcmp(what, "pp") ? 'p' : 0;
    long n = argc > 2 ? atol(argv[2]) : 100000, per = kind == 'r' ? WINDOW : 1;
    int rank, size, b;
    double us[BATCHES], t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!kind || size != (kind == 's' ? 1 : 2) || n < per) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 mpibench pp|rate N, or "
                    "mpiexec -n 1 mpibench self N\n");
        MPI_Finalize();
        return 2;
    }
    batch(kind, rank, WARMUP);
    for (b = 0; b < BATCHES; b++) {
        t = now_us();
        batch(kind, rank, n);
        us[b] = (now_us() - t) / (double)(n / per * per);
    }
    qsort(us, BATCHES, sizeof *us, by_value);
    if (rank == 0)
        printf("BENCH name=%s n=%ld us=%.4f lo=%.4f hi=%.4f\n",
               kind == 'r' ? "rate" : kind == 's' ? "self" : "pp8",
               n / per * per, us[BATCHES / 2], us[0], us[BATCHES - 1]);
    MPI_Finalize();
    return 0;
}
