/*
 * plain_spmd.c - an SPMD program that finds its peers with pvm_siblings.
 *
 * Built against PVM only.  The first task spawns K copies (argument,
 * default 4) with ONE pvm_spawn call; each copy asks pvm_siblings for the
 * group, finds its own index, sends a token to the next sibling in the ring
 * and reports (index, group size, token source) to the first task, which
 * takes the reports from any sender and prints them in arrival order.  A
 * copy that sees another group size than K reports it, so a runtime that
 * breaks pvm_siblings shows in the output.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_TOKEN 1
#define TAG_REPORT 2

static void copy(void)
{
    int *sib, n = pvm_siblings(&sib), me = -1, i, v[3], from;

    for (i = 0; i < n; i++)
        if (sib[i] == pvm_mytid())
            me = i;
    if (me >= 0 && n > 1) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&me, 1, 1);
        pvm_send(sib[(me + 1) % n], TAG_TOKEN);
        pvm_recv(-1, TAG_TOKEN);
        pvm_upkint(&from, 1, 1);
    } else {
        from = -1;
    }
    v[0] = me;
    v[1] = n;
    v[2] = from;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, 3, 1);
    pvm_send(pvm_parent(), TAG_REPORT);
}

int main(int argc, char **argv)
{
    int k, *tids, i, v[3];
    char *args[] = { "-copy", NULL };

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 1 && !strcmp(argv[1], "-copy")) {
        copy();
        pvm_exit();
        return 0;
    }
    k = argc > 1 ? atoi(argv[1]) : 4;
    tids = calloc(k, sizeof *tids);
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", k, tids) != k) {
        fprintf(stderr, "plain_spmd: spawn failed\n");
        pvm_exit();
        return 1;
    }
    printf("spmd:");
    for (i = 0; i < k; i++) {
        pvm_recv(-1, TAG_REPORT);
        pvm_upkint(v, 3, 1);
        printf(" %d/%d<-%d", v[0], v[1], v[2]);
    }
    printf("\n");
    pvm_exit();
    return 0;
}
