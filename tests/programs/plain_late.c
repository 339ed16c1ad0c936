/*
 * plain_late.c - a sender that keeps its receiver waiting for seconds.
 *
 * Built against PVM only.  The first task spawns one worker and takes K
 * messages (argument, default 3) from it with pvm_recv(-1, 1), printing
 * each; the worker sleeps 1.5 s before each send.  A replay of it waits
 * longer than a second for every message: its untimed receive lets go
 * once a second of silence (src/pvm/wrap/wrap_wait.c) and takes it up
 * again, which must not show (tests/e2e/test_replay_wait.sh).
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void worker(int k)
{
    struct timespec nap = { 1, 500000000L };
    int i;

    for (i = 0; i < k; i++) {
        nanosleep(&nap, NULL);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        pvm_send(pvm_parent(), 1);
    }
}

int main(int argc, char **argv)
{
    char *args[3] = { "-worker", NULL, NULL };
    int k = argc > 1 ? atoi(argv[argc - 1]) : 3, tid, i, v;

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 2 && !strcmp(argv[1], "-worker")) {
        worker(k);
        pvm_exit();
        return 0;
    }
    args[1] = argc > 1 ? argv[1] : "3";
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tid) != 1) {
        fprintf(stderr, "plain_late: spawn failed\n");
        pvm_exit();
        return 1;
    }
    for (i = 0; i < k; i++) {
        pvm_recv(-1, 1);
        pvm_upkint(&v, 1, 1);
        printf("message %d\n", v);
        fflush(stdout);
    }
    pvm_exit();
    return 0;
}
