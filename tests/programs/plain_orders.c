/*
 * plain_orders.c - a master that takes its workers' results with
 * pvm_recv(-1, TAG) at one call site, in one or two phases: every order
 * of the workers in each phase is one PVM can give (tests/e2e/
 * test_explore.sh: `-explore` must run each once).  Built against PVM only.
 *
 *   plain_orders PHASES [crash]
 *
 * Three workers each send one result per phase (tag = the phase, 1 or 2)
 * at once, all phases in a row; the master takes the three of phase 1,
 * then the three of phase 2, and prints the order of each phase as worker
 * numbers ("order 123 231").  Free runs nearly always print the order the
 * workers were spawned in.  With `crash`, it aborts (SIGABRT) when its
 * SECOND receive of phase 1 takes worker 3's result: a bug only an order
 * where a later receive differs shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

#define W 3

static void worker(int k, int phases)
{
    int p, parent = pvm_parent();

    for (p = 1; p <= phases; p++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&k, 1, 1);
        pvm_send(parent, p);
    }
    pvm_exit();
}

int main(int argc, char **argv)
{
    int tids[W], phases = argc > 1 ? atoi(argv[1]) : 0, p, i, k;
    int crash = argc > 2 && !strcmp(argv[2], "crash");
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
    for (p = 1; p <= phases; p++) {
        strcat(line, " ");
        for (i = 0; i < W; i++) {
            pvm_recv(-1, p);
            pvm_upkint(&k, 1, 1);
            if (crash && p == 1 && i == 1 && k == 3)
                abort();
            snprintf(num, sizeof num, "%d", k);
            strcat(line, num);
        }
    }
    printf("%s\n", line);
    pvm_exit();
    return 0;
}
