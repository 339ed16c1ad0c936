/*
 * clock.c - the cost of the clock and pid calls a program makes, which
 * Pangaea records (and gives back in replay): gettimeofday, time,
 * clock_gettime(CLOCK_MONOTONIC), getpid.
 *
 *   clock [N]     N calls of each (default 1000000)
 *
 * One task: times N calls of each in turn (bench_now reads the clock by
 * a system call, so the timing itself is neither recorded nor replayed).
 * Raw, a call costs what libc's costs (the vDSO for the clocks); under
 * `pangaea -log` each call also writes a few bytes into ltid-N.time.pgc;
 * under -replay it reads them back.  Prints one line per call,
 *     BENCH name=CALL n=N secs=S us=MICROSECONDS_PER_CALL
 * and a checksum of the values (so the calls cannot be optimised away).
 */
#include <sys/time.h>

#include "bench.h"

#define WARMUP 1000

static void report(const char *name, int n, double secs)
{
    printf("BENCH name=%s n=%d secs=%.6f us=%.4f hwm_kb=%ld\n", name, n,
           secs, secs * 1e6 / n, bench_hwm_kb());
}

int main(int argc, char **argv)
{
    struct timeval tv;
    struct timespec ts;
    long sum = 0;
    double t0;
    int n, i;

    bench_name = "clock";
    bench_check("pvm_mytid", pvm_mytid());
    n = bench_int_arg(argc, argv, 1, 1000000, 1);
    for (i = 0; i < WARMUP; i++)
        sum += getpid();
    t0 = bench_now();
    for (i = 0; i < n; i++)
        sum += gettimeofday(&tv, NULL) + tv.tv_usec;
    report("gettimeofday", n, bench_now() - t0);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        sum += time(NULL);
    report("time", n, bench_now() - t0);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        sum += clock_gettime(CLOCK_MONOTONIC, &ts) + ts.tv_nsec;
    report("clock_gettime", n, bench_now() - t0);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        sum += getpid();
    report("getpid", n, bench_now() - t0);
    fprintf(stderr, "clock: checksum %ld\n", sum);
    pvm_exit();
    return 0;
}
