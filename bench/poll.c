/*
 * poll.c - the cost of a poll that finds no message: pvm_nrecv and
 * pvm_probe, as in a program's busy-wait loop.
 *
 *   poll [N]     N polls of each kind (default 200000)
 *
 * One task, no messages: times N pvm_nrecv(-1, tag), then N
 * pvm_probe(-1, tag), each finding nothing.  (A recording counts such
 * polls and writes the count on the next event; a replay gives back
 * "nothing" as many times.)  Prints
 *     BENCH name=nrecv n=N secs=S us=MICROSECONDS_PER_POLL
 *     BENCH name=probe n=N secs=S us=MICROSECONDS_PER_POLL
 */
#include "bench.h"

#define TAG 7
#define WARMUP 1000

int main(int argc, char **argv)
{
    int n, i;
    double t0, t1, t2;

    bench_name = "poll";
    bench_check("pvm_mytid", pvm_mytid());
    n = bench_int_arg(argc, argv, 1, 200000, 1);
    for (i = 0; i < WARMUP; i++)
        if (bench_check("pvm_nrecv", pvm_nrecv(-1, TAG)) != 0)
            bench_die("pvm_nrecv (found a message)", 0);
    t0 = bench_now();
    for (i = 0; i < n; i++)
        if (bench_check("pvm_nrecv", pvm_nrecv(-1, TAG)) != 0)
            bench_die("pvm_nrecv (found a message)", 0);
    t1 = bench_now();
    for (i = 0; i < n; i++)
        if (bench_check("pvm_probe", pvm_probe(-1, TAG)) != 0)
            bench_die("pvm_probe (found a message)", 0);
    t2 = bench_now();
    printf("BENCH name=nrecv n=%d secs=%.6f us=%.4f hwm_kb=%ld\n", n, t1 - t0,
           (t1 - t0) * 1e6 / n, bench_hwm_kb());
    printf("BENCH name=probe n=%d secs=%.6f us=%.4f hwm_kb=%ld\n", n, t2 - t1,
           (t2 - t1) * 1e6 / n, bench_hwm_kb());
    pvm_exit();
    return 0;
}
