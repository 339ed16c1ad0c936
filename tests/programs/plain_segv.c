/*
 * plain_segv.c - a PVM program that crashes for sure, at a known line.
 *
 *   plain_segv [early|abort|longarg]
 *                             ltid 1; spawns 2 copies of itself as workers
 *
 * Built against PVM alone (tests preload Pangaea).  Each worker sends one
 * message to the master and exits; the master takes both, prints them and
 * then writes through a NULL pointer in crash_here() (SIGSEGV), or calls
 * abort() with "abort" (SIGABRT).  With "early" the master crashes before
 * its first PVM call, so Pangaea's library never ran a wrapped call in it.
 * With "longarg" each worker gets a third argument of 5000 bytes, more than
 * an execution log holds (the worker ignores it).
 * Tests find the crashing line by the marker comment CRASH-LINE.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int *nowhere;

__attribute__((noinline)) static void crash_here(int how_abort)
{
    if (how_abort)
        abort();
    *nowhere = 1; /* CRASH-LINE */
}

int main(int argc, char **argv)
{
    char self[4096];
    int tids[2], i, n;
    ssize_t len;

    if (argc > 1 && !strcmp(argv[1], "-worker")) {
        pvm_initsend(PvmDataDefault);
        n = atoi(argv[2]);
        pvm_pkint(&n, 1, 1);
        pvm_send(pvm_parent(), 1);
        pvm_exit();
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "early"))
        crash_here(0);
    len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 1;
    self[len] = 0;
    for (i = 0; i < 2; i++) {
        static char big[5001];
        char num[16], *cargv[] = { "-worker", num, NULL, NULL };

        if (argc > 1 && !strcmp(argv[1], "longarg")) {
            memset(big, 'x', sizeof big - 1);
            cargv[2] = big;
        }

        snprintf(num, sizeof num, "%d", i + 1);
        if (pvm_spawn(self, cargv, PvmTaskDefault, "", 1, &tids[i]) != 1) {
            printf("spawn failed: %d\n", tids[i]);
            pvm_exit();
            return 1;
        }
    }
    for (i = 0; i < 2; i++) {
        pvm_recv(-1, 1);
        pvm_upkint(&n, 1, 1);
        printf("got worker %d\n", n);
    }
    fflush(stdout);
    crash_here(argc > 1 && !strcmp(argv[1], "abort"));
    return 0;
}
