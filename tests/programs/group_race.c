/*
 * group_race.c - a racing program on PVM groups (built with -lpangaea,
 * -lgpvm3).  Task 1 spawns 3 copies of itself; all 4 join group "race" at
 * once, so instance numbers follow the order joins reach the group server.
 * Then: each sends a token to the next instance, found with pvm_gettid, and
 * reports the token it got to task 1 (taken from any sender); task 1
 * broadcasts a value; all meet at a barrier; and a floating-point sum is
 * reduced (PvmSum) to task 1's instance, whose bits depend on the order the
 * partial sums arrive in.  Only task 1 prints, so output = event order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

#define N 4
#define G "race"
enum { TAG_TOKEN = 1, TAG_REPORT, TAG_BCAST, TAG_SUM, TAG_ROOT };

static const double part[N] = { 1e16, 1.0, -1e16, 3.25 };

/* Sends my index to the next instance, takes one token, returns it. */
static int pass_token(int me, int inst)
{
    int to = pvm_gettid(G, (inst + 1) % N), got;

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_send(to, TAG_TOKEN);
    pvm_recv(-1, TAG_TOKEN);
    pvm_upkint(&got, 1, 1);
    return got;
}

static void child(int me)
{
    int inst = pvm_joingroup(G), got, root;
    double x = part[me];

    pvm_barrier(G, N);
    got = pass_token(me, inst);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_pkint(&got, 1, 1);
    pvm_pkint(&inst, 1, 1);
    pvm_send(pvm_parent(), TAG_REPORT);
    pvm_recv(-1, TAG_BCAST);
    pvm_upkint(&root, 1, 1);
    pvm_reduce(PvmSum, &x, 1, PVM_DOUBLE, TAG_SUM, G, root);
    pvm_barrier(G, N);
    pvm_lvgroup(G);
    pvm_exit();
}

static void parent(char *self)
{
    char *args[] = { "child", NULL, NULL };
    char idx[N][8];
    int tids[N], i, inst, me, got, cinst, order[N];
    double x = part[0];

    for (i = 1; i < N; i++) {
        snprintf(idx[i], sizeof idx[i], "%d", i);
        args[1] = idx[i];
        pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]);
    }
    inst = pvm_joingroup(G);
    pvm_barrier(G, N);
    for (i = 0; i < N; i++) /* who got which instance */
        order[i] = pvm_gettid(G, i);
    for (i = 0; i < N; i++) {
        int k = 0;

        while (k < N && (k == 0 ? pvm_mytid() : tids[k]) != order[i])
            k++;
        printf("instance %d: task %d\n", i, k);
    }
    printf("token to task 0: %d\n", pass_token(0, inst));
    for (i = 1; i < N; i++) {
        pvm_recv(-1, TAG_REPORT);
        pvm_upkint(&me, 1, 1);
        pvm_upkint(&got, 1, 1);
        pvm_upkint(&cinst, 1, 1);
        printf("report: task %d (instance %d) got token %d\n", me, cinst, got);
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&inst, 1, 1);
    pvm_bcast(G, TAG_BCAST);
    pvm_reduce(PvmSum, &x, 1, PVM_DOUBLE, TAG_SUM, G, inst);
    printf("sum %a (%d members, instance %d)\n", x, pvm_gsize(G),
           pvm_getinst(G, pvm_mytid()));
    pvm_barrier(G, N);
    pvm_lvgroup(G);
    pvm_exit();
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 && !strcmp(argv[1], "child"))
        child(atoi(argv[2]));
    else
        parent(argv[0]);
    return 0;
}
