/*
 * spawn.c - the cost of pvm_spawn.
 *
 *   spawn [N]     N children (default 16), one pvm_spawn of count 1 each
 *
 * Times the N calls of pvm_spawn alone (PVM returns once the pvmd has
 * started the task).  Then each child, which only says hello with an
 * empty message, is received with pvm_recv(-1, tag), outside the timed
 * section.  Prints
 *     BENCH name=spawn n=N secs=S us=MICROSECONDS_PER_SPAWN
 */
#include "bench.h"

enum { TAG_HELLO = 1 };

int main(int argc, char **argv)
{
    int n, i;
    char *args[] = { "-child", NULL };
    double t, total = 0;

    bench_name = "spawn";
    bench_check("pvm_mytid", pvm_mytid());
    if (argc == 2 && !strcmp(argv[1], "-child")) {
        bench_send_bytes(pvm_parent(), TAG_HELLO, NULL, 0);
        pvm_exit();
        return 0;
    }
    n = bench_int_arg(argc, argv, 1, 16, 1);
    if (n > BENCH_MAXKIDS)
        n = BENCH_MAXKIDS;
    for (i = 0; i < n; i++) {
        t = bench_now();
        bench_spawn(args);
        total += bench_now() - t;
    }
    for (i = 0; i < n; i++)
        bench_check("pvm_recv", pvm_recv(-1, TAG_HELLO));
    printf("BENCH name=spawn n=%d secs=%.6f us=%.1f hwm_kb=%ld\n", n, total,
           total * 1e6 / n, bench_hwm_kb());
    pvm_exit();
    return 0;
}
