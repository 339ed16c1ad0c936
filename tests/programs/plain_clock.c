/*
 * plain_clock.c - workers whose choices come from the clock: each seeds
 * rand() from gettimeofday (and its pid), and between generations polls
 * for a stop message a random number of times.
 *
 *   plain_clock [W [G]]     W workers (default 3, at most 16), G
 *                           generations (default 8)
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  The case: without the clock values of the recording a
 * replay makes another number of pvm_nrecv polls and diverges ("recorded
 * pvm_send ...; the program called pvm_nrecv"), and even when it does not,
 * the values differ.  Each worker sends the master its pid, then per
 * generation a value from rand(); the master prints, per worker, its pid
 * and the sum of its values, then its own pid, time(NULL) and a
 * CLOCK_MONOTONIC reading.  The master takes the values from any worker,
 * so the message order races too.  Any PVM error: stderr, exit 1.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#define MAXW 16
#define TAG_PID 1
#define TAG_VALUE 2
#define TAG_STOP 3

static int worker(int g)
{
    struct timeval tv;
    int parent = pvm_parent(), pid = getpid(), i, k, polls, v;

    gettimeofday(&tv, NULL);
    srand((unsigned)(tv.tv_usec * 1000003u) ^ (unsigned)pid);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&pid, 1, 1);
    pvm_send(parent, TAG_PID);
    for (i = 0; i < g; i++) {
        polls = rand() % 4;
        for (k = 0; k < polls; k++)
            if (pvm_nrecv(parent, TAG_STOP) > 0)
                break;
        v = rand() % 1000;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(parent, TAG_VALUE);
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int w = argc > 1 ? atoi(argv[1]) : 3, g = argc > 2 ? atoi(argv[2]) : 8;
    int tids[MAXW], pids[MAXW] = { 0 }, sums[MAXW] = { 0 }, i, j, mid, len,
        tag, src, v;
    char gs[16], *args[3] = { "-worker", gs, NULL };
    struct timespec ts;

    /* before any PVM call: the runtime is not started yet */
    long started = (long)time(NULL);

    if (argc > 1 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]));
    if (w < 1 || w > MAXW || g < 1)
        return fprintf(stderr, "usage: plain_clock [W [G]]\n"), 2;
    if (pvm_mytid() < 0)
        return 1;
    snprintf(gs, sizeof gs, "%d", g);
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", w, tids) != w) {
        fprintf(stderr, "plain_clock: cannot spawn %d workers\n", w);
        pvm_exit();
        return 1;
    }
    for (i = 0; i < w * (g + 1); i++) {
        if ((mid = pvm_recv(-1, -1)) < 0)
            return fprintf(stderr, "plain_clock: pvm_recv %d\n", mid), 1;
        pvm_bufinfo(mid, &len, &tag, &src);
        pvm_upkint(&v, 1, 1);
        for (j = 0; j < w && tids[j] != src; j++)
            ;
        if (j == w)
            return fprintf(stderr, "plain_clock: stranger t%x\n", src), 1;
        if (tag == TAG_PID)
            pids[j] = v;
        else
            sums[j] += v;
    }
    for (j = 0; j < w; j++)
        printf("worker %d: pid %d sum %d\n", j, pids[j], sums[j]);
    clock_gettime(CLOCK_MONOTONIC, &ts);
    printf("master: pid %d started %ld time %ld monotonic %ld.%09ld\n",
           (int)getpid(), started, (long)time(NULL), (long)ts.tv_sec,
           ts.tv_nsec);
    pvm_exit();
    return 0;
}
