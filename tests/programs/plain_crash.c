/*
 * plain_crash.c - a racing PVM program that crashes under one order only.
 *
 *   plain_crash [K [M [N [abort]]]]
 *                             K workers (default 3, at most 16), M messages
 *                             each (default 4); crashes when the N-th
 *                             receive (default 6) is from worker 2; with
 *                             "abort", by abort() instead of SIGSEGV
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  The master spawns K copies of itself ("-worker I", absolute
 * path).  Worker I sends M messages (tag 10, payload I and J) to the
 * master, pausing a random 0-300 us (seeded by its pid) between them.  The
 * master takes all K*M with pvm_recv(-1, -1) and, for each, prints and
 * flushes "recv R: worker I msg J" before doing anything else, so the lines
 * printed before a crash are exactly the receives it completed.  If the
 * N-th receive came from worker 2 (about one run in K), it prints "crashing
 * at receive N" and writes through a NULL pointer (SIGSEGV); otherwise it
 * prints "done" and exits 0.  Workers print nothing.  Any PVM error: a
 * message on stderr, exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

enum { TAG_DATA = 10, MAXW = 16 };

static int check(const char *what, int rc)
{
    if (rc < 0) {
        fprintf(stderr, "plain_crash: %s failed (PVM error %d)\n", what, rc);
        pvm_exit();
        exit(1);
    }
    return rc;
}

static int worker(int me, int m)
{
    int j;

    srand((unsigned)getpid());
    for (j = 1; j <= m; j++) {
        usleep((useconds_t)(rand() % 300));
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        check("pvm_pkint", pvm_pkint(&me, 1, 1));
        check("pvm_pkint", pvm_pkint(&j, 1, 1));
        check("pvm_send", pvm_send(pvm_parent(), TAG_DATA));
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 3, m = argc > 2 ? atoi(argv[2]) : 4,
        n = argc > 3 ? atoi(argv[3]) : 6, tids[MAXW], i, r, w, j;
    char self[PATH_MAX], idx[16], *args[] = { "-worker", idx, NULL };
    ssize_t len;

    if (argc > 2 && argv[1][0] == '-') /* -worker I M */
        return worker(atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 4);
    if (k < 2 || k > MAXW || m < 1 || n < 1 || n > k * m) {
        fprintf(stderr, "usage: plain_crash [K (2..%d) [M [N (1..K*M)]]]\n",
                MAXW);
        return 2;
    }
    check("pvm_mytid", pvm_mytid());
    len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return 1;
    self[len] = 0;
    for (i = 1; i <= k; i++) {
        char marg[16], *wargs[] = { args[0], idx, marg, NULL };

        snprintf(idx, sizeof idx, "%d", i);
        snprintf(marg, sizeof marg, "%d", m);
        if (pvm_spawn(self, wargs, PvmTaskDefault, "", 1, &tids[i - 1]) != 1)
            check("pvm_spawn", -1);
    }
    for (r = 1; r <= k * m; r++) {
        check("pvm_recv", pvm_recv(-1, -1));
        check("pvm_upkint", pvm_upkint(&w, 1, 1));
        check("pvm_upkint", pvm_upkint(&j, 1, 1));
        printf("recv %d: worker %d msg %d\n", r, w, j);
        fflush(stdout);
        if (r == n && w == 2) {
            printf("crashing at receive %d\n", r);
            fflush(stdout);
            if (argc > 4 && !strcmp(argv[4], "abort"))
                abort();
            *(volatile int *)NULL = 1;
        }
    }
    printf("done\n");
    pvm_exit();
    return 0;
}
