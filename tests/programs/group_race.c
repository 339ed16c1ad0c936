/*
 * group_race.c - a racing program on PVM groups (built with -lpangaea,
 * -lgpvm3).  Task 1 spawns 3 copies of itself; all 4 join group "race" at
 * once, so instance numbers follow the order joins reach the group server.
 * Then: each sends a token to the next instance, found with pvm_gettid, and
 * reports the token it got to task 1 (taken from any sender); task 1
 * broadcasts a value; all meet at a barrier; and a floating-point sum is
 * reduced (PvmSum) to task 1's instance, whose bits depend on the order the
 * partial sums arrive in.  Then the other collectives: PvmMax, PvmMin,
 * PvmProduct (whose overflow depends on order), a user function that is
 * not commutative, pvm_gather (slots in instance order) and pvm_scatter
 * (each member reports the slot it got).  Only task 1 prints, so output =
 * event order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

#define N 4
#define G "race"
enum { TAG_TOKEN = 1, TAG_REPORT, TAG_BCAST, TAG_SUM, TAG_ROOT, TAG_MAX,
       TAG_MIN, TAG_PROD, TAG_USER, TAG_GATHER, TAG_SCATTER, TAG_BACK };

static const double part[N] = { 1e16, 1.0, -1e16, 3.25 };
static const double factor[N] = { 1e308, 1e-308, 10.0, 0.1 };

/* x <- 2x + y, element by element: the result depends on the order. */
static void horner(int *type, void *x, void *y, int *num, int *info)
{
    int i, *a = x, *b = y;

    (void)type;
    for (i = 0; i < *num; i++)
        a[i] = 2 * a[i] + b[i];
    *info = PvmOk;
}

struct results {
    double max, min, prod;
    int user, gathered[N], scattered;
};

/* Every member makes the same collective calls with root instance `root`. */
static void collectives(int me, int root, struct results *r)
{
    int slots[N] = { 100, 101, 102, 103 };

    r->max = r->min = part[me];
    r->prod = factor[me];
    r->user = me + 1;
    pvm_reduce(PvmMax, &r->max, 1, PVM_DOUBLE, TAG_MAX, G, root);
    pvm_reduce(PvmMin, &r->min, 1, PVM_DOUBLE, TAG_MIN, G, root);
    pvm_reduce(PvmProduct, &r->prod, 1, PVM_DOUBLE, TAG_PROD, G, root);
    pvm_reduce(horner, &r->user, 1, PVM_INT, TAG_USER, G, root);
    pvm_gather(r->gathered, &me, 1, PVM_INT, TAG_GATHER, G, root);
    pvm_scatter(&r->scattered, slots, 1, PVM_INT, TAG_SCATTER, G, root);
}

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
    struct results r;

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
    collectives(me, root, &r);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_pkint(&r.scattered, 1, 1);
    pvm_send(pvm_parent(), TAG_BACK);
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
    struct results r;

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
    collectives(0, inst, &r);
    printf("max %a min %a product %a horner %d\n", r.max, r.min, r.prod,
           r.user);
    printf("gather:");
    for (i = 0; i < N; i++)
        printf(" %d", r.gathered[i]);
    printf("\nscatter: task 0 got %d", r.scattered);
    for (i = 1; i < N; i++) {
        pvm_recv(-1, TAG_BACK);
        pvm_upkint(&me, 1, 1);
        pvm_upkint(&got, 1, 1);
        printf(", task %d got %d", me, got);
    }
    printf("\n");
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
