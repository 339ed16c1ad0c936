/*
 * plain_pollorders.c - a master that polls once for its two workers'
 * results before it waits for them: the poll can find nothing, worker
 * 1's result or worker 2's, and every one of those is an outcome PVM can
 * give (tests/e2e/test_explore.sh: `-explore` must force the poll both
 * ways and run each order once).  Built against PVM only.
 *
 *   plain_pollorders FILE [crash|late|last]
 *
 * The master spawns two workers, tells each to go (tag 98), then calls
 * pvm_nrecv(-1, 1) once and takes what is left with pvm_recv(-1, 1).  It
 * prints "poll P order AB" (P: the worker the poll found, 0 for none; AB:
 * the workers in the order taken) and appends that line to FILE, so a
 * test sees every run's order, once per run.  The orders are exactly
 * "poll 0 order 12", "poll 0 order 21", "poll 1 order 12" and "poll 2
 * order 21".  With `crash` it aborts (SIGABRT) when the poll found worker
 * 2's result: a bug only a forced poll outcome shows (free runs poll
 * before the workers have started, and find nothing).  With `late` it
 * polls only once a worker's result was sent (each worker makes the file
 * FILE.TID, TID the master's, once it sent; the master waits for it, then
 * 100 ms more): free runs find a result, and only a poll forced to find
 * nothing gives the orders of "poll 0".  With `last`, worker 1 sends one
 * more message (tag 3) 300 ms after its result, and the master, its line
 * printed, polls for it once just before it ends and prints "last 1" if
 * it found it, "last 0" if not (free runs: not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

static void send_int(int tid, int tag, int v)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(tid, tag);
}

static int take(int mid)
{
    int v = 0;

    if (mid > 0)
        pvm_upkint(&v, 1, 1);
    return v;
}

int main(int argc, char **argv)
{
    int tids[2], i, polled, got = 0;
    int crash = argc > 2 && !strcmp(argv[2], "crash");
    int late = argc > 2 && !strcmp(argv[2], "late");
    int last = argc > 2 && !strcmp(argv[2], "last");
    char *args[5], num[16], line[64], sent[4200];
    FILE *f;

    if (argc > 3 && !strcmp(argv[1], "-worker")) {
        pvm_recv(pvm_parent(), 98);
        send_int(pvm_parent(), 1, atoi(argv[2]));
        snprintf(sent, sizeof sent, "%s.%x", argv[3], pvm_parent());
        if ((f = fopen(sent, "a")))
            fclose(f);
        if (argc > 4 && !strcmp(argv[4], "last") && !strcmp(argv[2], "1")) {
            usleep(300000);
            send_int(pvm_parent(), 3, 1);
        }
        pvm_exit();
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, "usage: plain_pollorders FILE [crash|late]\n");
        return 2;
    }
    for (i = 0; i < 2; i++) {
        snprintf(num, sizeof num, "%d", i + 1);
        args[0] = "-worker", args[1] = num, args[2] = argv[1];
        args[3] = last ? "last" : NULL, args[4] = NULL;
        if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tids[i]) != 1) {
            fprintf(stderr, "plain_pollorders: spawn failed\n");
            pvm_exit();
            return 1;
        }
    }
    for (i = 0; i < 2; i++)
        send_int(tids[i], 98, 0);
    snprintf(sent, sizeof sent, "%s.%x", argv[1], pvm_mytid());
    for (i = 0; late && i < 2000 && access(sent, F_OK) != 0; i++)
        usleep(10000);
    if (late)
        usleep(100000);
    polled = take(pvm_nrecv(-1, 1));
    remove(sent);
    if (crash && polled == 2)
        abort();
    snprintf(line, sizeof line, "poll %d order ", polled);
    if (polled)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%d", polled);
    for (; got < 2 - (polled != 0); got++)
        snprintf(line + strlen(line), sizeof line - strlen(line), "%d",
                 take(pvm_recv(-1, 1)));
    printf("%s\n", line);
    fflush(stdout);
    if ((f = fopen(argv[1], "a"))) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
    if (last) {
        printf("last %d\n", take(pvm_nrecv(-1, 3)));
        fflush(stdout);
    }
    pvm_exit();
    return 0;
}
