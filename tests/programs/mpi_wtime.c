/*
 * mpi_wtime.c - a program whose output depends on MPI_Wtime, with
 * collectives around it: the program of tests/e2e/mpi_cases.sh's clock
 * and collectives case (plain MPI, built with each MPI's mpicc).
 *
 * Every rank naps a little (its pid seeds the length) between two
 * readings of MPI_Wtime and decides by the elapsed time; MPI_Gather
 * brings the decisions to rank 0, MPI_Reduce and MPI_Allreduce the
 * elapsed microseconds, after MPI_Bcast of a start value from rank 0,
 * MPI_Barrier, MPI_Scatter, MPI_Allgather and MPI_Alltoall around.  Rank 0
 * prints the decisions, the sum and the wall-clock tick: free runs
 * differ, a replay must print the recorded values (MPI_Wtime's readings
 * replayed; collectives pass through, their matching does not race).
 * Rank 0 also prints what the C library's clocks gave it (time,
 * gettimeofday, clock_gettime, getrusage), which a replay gives again.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* The C library's clocks, as rank 0 prints them. */
static void libc_clocks(void)
{
    struct timeval tv;
    struct timespec ts;
    struct rusage ru;

    gettimeofday(&tv, NULL);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    getrusage(RUSAGE_SELF, &ru);
    printf("libc: time %lld, gettimeofday %lld.%06ld, monotonic %lld.%09ld, "
           "user %lld.%06ld\n", (long long)time(NULL), (long long)tv.tv_sec,
           (long)tv.tv_usec, (long long)ts.tv_sec, ts.tv_nsec,
           (long long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
}

int main(int argc, char **argv)
{
    int rank, size, start = 0, slow, *slows, *mix, *back, *to, i, got, ok;
    long us, sum = 0, max = 0;
    double t0, t1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    slows = calloc(size, sizeof *slows);
    mix = calloc(size, sizeof *mix);
    back = calloc(size, sizeof *back);
    to = calloc(size, sizeof *to);
    if (rank == 0)
        start = 1000;
    MPI_Bcast(&start, 1, MPI_INT, 0, MPI_COMM_WORLD);
    srand((unsigned)getpid());
    t0 = MPI_Wtime();
    usleep((useconds_t)(rand() % (2 * start)));
    t1 = MPI_Wtime();
    us = (long)((t1 - t0) * 1e6);
    slow = us > start;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Gather(&slow, 1, MPI_INT, slows, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce(&us, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&us, &max, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    for (i = 0; i < size; i++) /* rank r's i-th item: r * size + i */
        mix[i] = rank * size + i;
    MPI_Scatter(mix, 1, MPI_INT, &got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgather(&got, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(mix, 1, MPI_INT, to, 1, MPI_INT, MPI_COMM_WORLD);
    for (ok = got == rank, i = 0; i < size; i++)
        ok = ok && back[i] == i && to[i] == i * size + rank;
    if (rank == 0) {
        printf("slow:");
        for (i = 0; i < size; i++)
            printf(" %d", slows[i]);
        printf("\nelapsed us: sum %ld, max %ld\ncollectives %s\ntick %g\n",
               sum, max, ok ? "ok" : "wrong", MPI_Wtick());
        libc_clocks();
    }
    free(slows), free(mix), free(back), free(to);
    MPI_Finalize();
    return 0;
}
