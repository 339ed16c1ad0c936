/*
 * plain_slow.c - a run that lasts a few seconds, for stopping a task in it.
 *
 * Built against PVM only.  The first task spawns two workers; for R rounds
 * (argument, default 100) each worker computes for about 20 ms, sends its
 * round to the first task and waits for its answer.  The first task takes
 * the reports from any worker and prints the order they came in.  A
 * worker stopped mid-run (test_stopped.sh) leaves the others waiting.
 * PLAIN_SLOW_MS in a worker's environment (PVM_EXPORT) sets its time a
 * round instead: 0 for a recording that only has to exist, made fast
 * (the messages, and so the logs, are the same), for a replay that has
 * to last.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_ROUND 1
#define TAG_ACK 2

static void compute(long ms)
{
    struct timespec t0, t;
    volatile double x = 1;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void worker(int rounds)
{
    const char *env = getenv("PLAIN_SLOW_MS");
    long ms = env && *env ? atol(env) : 20;
    int r;

    for (r = 0; r < rounds; r++) {
        compute(ms);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&r, 1, 1);
        pvm_send(pvm_parent(), TAG_ROUND);
        pvm_recv(pvm_parent(), TAG_ACK);
    }
}

int main(int argc, char **argv)
{
    char *args[3] = { "-worker", NULL, NULL };
    int tids[2], rounds = argc > 1 ? atoi(argv[argc - 1]) : 100, i, bytes,
        tag, src;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 2 && !strcmp(argv[1], "-worker")) {
        worker(rounds);
        pvm_exit();
        return 0;
    }
    args[1] = argc > 1 ? argv[1] : "100";
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 2, tids) != 2) {
        fprintf(stderr, "plain_slow: spawn failed\n");
        pvm_exit();
        return 1;
    }
    for (i = 0; i < 2 * rounds; i++) {
        pvm_bufinfo(pvm_recv(-1, TAG_ROUND), &bytes, &tag, &src);
        putchar(src == tids[0] ? 'a' : 'b');
        pvm_initsend(PvmDataDefault);
        pvm_send(src, TAG_ACK);
    }
    putchar('\n');
    pvm_exit();
    return 0;
}
