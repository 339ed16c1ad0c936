/*
 * plain_choice.c - a master whose output says which message its first
 * wildcard receive took, for tests/e2e/test_interactive.sh (choosing a
 * match from the live page, stepping, breakpoints).  Built against PVM
 * only.
 *
 *   plain_choice [K]   the master; it spawns two workers
 *
 * Each worker sends K results (tag 10, its number 1 or 2), then a last
 * message of its own tag (20 + its number).  The master takes the 2K
 * results with pvm_recv(-1, 10) and prints "first from worker N" for the
 * first one and the order of them all, then takes each worker's last
 * message.  The workers run concurrently, so every wildcard receive
 * races: which worker comes first is what a choice decides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

static int check(const char *what, int cc)
{
    if (cc < 0) {
        fprintf(stderr, "plain_choice: %s failed (%d)\n", what, cc);
        pvm_exit();
        exit(1);
    }
    return cc;
}

static void send_int(int tid, int tag, int v)
{
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    pvm_pkint(&v, 1, 1);
    check("pvm_send", pvm_send(tid, tag));
}

static int take(int tid, int tag)
{
    int v = 0;

    check("pvm_recv", pvm_recv(tid, tag));
    pvm_upkint(&v, 1, 1);
    return v;
}

static void worker(int n, int k)
{
    int i, parent = pvm_parent();

    for (i = 0; i < k; i++)
        send_int(parent, 10, n);
    send_int(parent, 20 + n, n);
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 4, tids[2], i, v;
    char order[256] = "";

    if (k < 1 || k > 50)
        k = 4;
    if (argc > 2) { /* a worker: plain_choice K N */
        worker(atoi(argv[2]), k);
        pvm_exit();
        return 0;
    }
    pvm_mytid();
    for (i = 0; i < 2; i++) {
        char *wargs[] = { argv[1] ? argv[1] : "4", i ? "2" : "1", NULL };

        check("pvm_spawn", pvm_spawn(argv[0], wargs, PvmTaskDefault, "", 1,
                                     &tids[i]) == 1 ? 0 : -1);
    }
    for (i = 0; i < 2 * k; i++) {
        v = take(-1, 10);
        if (i == 0)
            printf("first from worker %d\n", v);
        snprintf(order + strlen(order), sizeof order - strlen(order), "%s%d",
                 i ? " " : "", v);
    }
    printf("order %s\n", order);
    for (i = 0; i < 2; i++)
        take(tids[i], 21 + i);
    printf("done\n");
    fflush(stdout);
    pvm_exit();
    return 0;
}
