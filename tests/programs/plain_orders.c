/*
 * plain_orders.c - a master that takes its workers' results with
 * pvm_recv(-1, TAG) at one call site, in one or two phases: every order
 * of the workers in each phase is one PVM can give (tests/e2e/
 * test_explore.sh: `-explore` must run each once).  Built against PVM only.
 *
 *   plain_orders PHASES [crash|exit2]
 *
 * Three workers each send one result per phase (tag = the phase, 1 or 2),
 * all phases in a row, one worker after the other: worker k+1 starts once
 * worker k, done, tells it to (tag 99; the master gives each worker its
 * successor's tid first, tag 98).  The master takes the three of phase 1,
 * then the three of phase 2, and prints the order of each phase as worker
 * numbers ("order 123 231").  Free runs print "order 123 123" (the
 * results are sent in that order, through one pvmd), yet every order
 * races: no result depends on a receive of the master's.  With `crash`, it aborts (SIGABRT) when its
 * SECOND receive of phase 1 takes worker 3's result: a bug only an order
 * where a later receive differs shows; with `exit2`, it prints "bad
 * order" and ends with status 2 there instead (the program's own status,
 * which -explore must report as a failure, not as a what-if refused).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

#define W 3

static void send_int(int tid, int tag, int v)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(tid, tag);
}

static void worker(int k, int phases)
{
    int p, parent = pvm_parent(), next = 0;

    pvm_recv(parent, 98);
    pvm_upkint(&next, 1, 1);
    if (k > 1)
        pvm_recv(-1, 99); /* the worker before is done */
    for (p = 1; p <= phases; p++)
        send_int(parent, p, k);
    if (next > 0)
        send_int(next, 99, 0);
    pvm_exit();
}

int main(int argc, char **argv)
{
    int tids[W], phases = argc > 1 ? atoi(argv[1]) : 0, p, i, k;
    int crash = argc > 2 && !strcmp(argv[2], "crash");
    int exit2 = argc > 2 && !strcmp(argv[2], "exit2");
    char *args[4], num[16], ph[16], line[64] = "order";

    if (argc > 3 && !strcmp(argv[1], "-worker")) {
        worker(atoi(argv[2]), atoi(argv[3]));
        return 0;
    }
    if (phases < 1 || phases > 2) {
        fprintf(stderr, "usage: plain_orders 1|2 [crash]\n");
        return 2;
    }
    for (i = 0; i < W; i++) {
        snprintf(num, sizeof num, "%d", i + 1);
        snprintf(ph, sizeof ph, "%d", phases);
        args[0] = "-worker", args[1] = num, args[2] = ph, args[3] = NULL;
        if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tids[i]) != 1) {
            fprintf(stderr, "plain_orders: spawn failed\n");
            pvm_exit();
            return 1;
        }
    }
    for (i = 0; i < W; i++)
        send_int(tids[i], 98, i + 1 < W ? tids[i + 1] : 0);
    for (p = 1; p <= phases; p++) {
        strcat(line, " ");
        for (i = 0; i < W; i++) {
            pvm_recv(-1, p);
            pvm_upkint(&k, 1, 1);
            if (crash && p == 1 && i == 1 && k == 3)
                abort();
            if (exit2 && p == 1 && i == 1 && k == 3) {
                printf("bad order\n");
                pvm_exit();
                return 2;
            }
            snprintf(num, sizeof num, "%d", k);
            strcat(line, num);
        }
    }
    printf("%s\n", line);
    pvm_exit();
    return 0;
}
