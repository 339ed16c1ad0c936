/*
 * plain_freeze.c - workers join a group, which all then freeze.
 *
 *   plain_freeze [K]   K workers (default 4, at most 16)
 *   plain_freeze now   one worker, the group frozen at its current size
 *
 * Built against PVM and its group library alone (tests preload Pangaea).
 *
 * Design.  The master joins group "plain_freeze" and spawns K copies of
 * itself; each waits a random 0-4 ms (seeded by its pid) and joins, so
 * which instance each gets depends on timing.  Then every member calls
 * pvm_freezegroup(group, K + 1), which returns once all have (it makes
 * the group static: the members keep its table), and each worker tells
 * the master its instance and what pvm_freezegroup and pvm_gsize
 * returned, then waits for the master's word and leaves the group.  The
 * master prints each worker's line in worker order.  Then it spawns one
 * more ("-late"), whose join fails (the group is static now) and which
 * reports the error; only then do the members leave.  A replay must print
 * the recorded instances and not stall on the group's turns of joins and
 * leaves: the failed join had its turn too.  Any other PVM error: a
 * message on stderr, exit 1.
 *
 * `now`: the master joins and spawns one worker, which joins; both call
 * pvm_freezegroup(group, -1), which freezes the group at the members it
 * has when the call reaches the server.  Which members those are depends
 * on when the master's call comes: with the file plain_freeze.slow in the
 * working directory the master waits 300 ms first (the worker has joined
 * by then), with plain_freeze.late the worker waits 300 ms before it
 * joins (the master's freeze comes first, the worker's join fails).  The
 * master prints what the worker's join and both freezes returned, for
 * tests/e2e/test_freeze.sh (a replay must freeze the group with the
 * members it had when recorded).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define GROUP "plain_freeze"
#define MAXW 16
#define TAG_JOINED 5
#define TAG_GO 6

static int worker(int me, int k)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    int v[4];

    usleep((useconds_t)(rand_r(&seed) % 4000));
    v[0] = me;
    if ((v[1] = pvm_joingroup(GROUP)) < 0)
        return 1;
    v[2] = pvm_freezegroup(GROUP, k + 1);
    v[3] = pvm_gsize(GROUP);
    if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkint(v, 4, 1) < 0 ||
        pvm_send(pvm_parent(), TAG_JOINED) < 0 ||
        pvm_recv(pvm_parent(), TAG_GO) < 0)
        return 1;
    pvm_lvgroup(GROUP);
    pvm_exit();
    return 0;
}

/* A join after the freeze: it fails; the master hears what it returned. */
static int late(void)
{
    int cc = pvm_joingroup(GROUP);

    if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkint(&cc, 1, 1) < 0 ||
        pvm_send(pvm_parent(), TAG_JOINED) < 0)
        return 1;
    pvm_exit();
    return 0;
}

/* `now` mode (see above): the worker's side, then the master's. */
static int now_worker(void)
{
    int v[2];

    if (access("plain_freeze.late", F_OK) == 0)
        usleep(300000);
    v[0] = pvm_joingroup(GROUP);
    v[1] = v[0] >= 0 ? pvm_freezegroup(GROUP, -1) : 0;
    if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkint(v, 2, 1) < 0 ||
        pvm_send(pvm_parent(), TAG_JOINED) < 0 ||
        pvm_recv(pvm_parent(), TAG_GO) < 0)
        return 1;
    if (v[0] >= 0)
        pvm_lvgroup(GROUP);
    pvm_exit();
    return 0;
}

static int now_master(const char *self)
{
    char *args[] = { "-nowworker", NULL };
    int tid, cc, v[2];

    if (pvm_joingroup(GROUP) < 0 ||
        pvm_spawn((char *)self, args, PvmTaskDefault, "", 1, &tid) != 1)
        return 1;
    if (access("plain_freeze.slow", F_OK) == 0)
        usleep(300000);
    cc = pvm_freezegroup(GROUP, -1);
    if (pvm_recv(tid, TAG_JOINED) < 0 || pvm_upkint(v, 2, 1) < 0)
        return 1;
    printf("worker joined: %d, its freeze: %d, the master's freeze: %d\n",
           v[0], v[1], cc);
    pvm_initsend(PvmDataDefault);
    if (pvm_send(tid, TAG_GO) < 0)
        return 1;
    pvm_lvgroup(GROUP);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 4, tids[MAXW], got[MAXW][3], i, v[4];
    int cc, tid;
    char self[PATH_MAX], iarg[16], karg[16];
    char *args[] = { "-worker", iarg, karg, NULL };
    ssize_t n;

    if (argc > 1 && !strcmp(argv[1], "-late"))
        return late();
    if (argc > 1 && !strcmp(argv[1], "-nowworker"))
        return now_worker();
    if (argc > 1 && !strcmp(argv[1], "now")) {
        if (pvm_mytid() < 0 ||
            (n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
            return 1;
        self[n] = 0;
        return now_master(self);
    }
    if (argc > 3 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]), atoi(argv[3]));
    if (k < 1 || k > MAXW || pvm_mytid() < 0 || pvm_joingroup(GROUP) < 0 ||
        (n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
        fprintf(stderr, "usage: plain_freeze [K (1..%d)], under PVM\n", MAXW);
        return 2;
    }
    self[n] = 0;
    snprintf(karg, sizeof karg, "%d", k);
    for (i = 0; i < k; i++) {
        snprintf(iarg, sizeof iarg, "%d", i);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]) != 1)
            return 1;
    }
    if ((cc = pvm_freezegroup(GROUP, k + 1)) < 0) {
        fprintf(stderr, "plain_freeze: pvm_freezegroup: %d\n", cc);
        return 1;
    }
    for (i = 0; i < k; i++) {
        if (pvm_recv(-1, TAG_JOINED) < 0 || pvm_upkint(v, 4, 1) < 0)
            return 1;
        if (v[0] >= 0 && v[0] < k)
            memcpy(got[v[0]], v + 1, sizeof got[0]);
    }
    for (i = 0; i < k; i++)
        printf("w%d: instance %d, frozen at %d, size %d\n", i, got[i][0],
               got[i][1], got[i][2]);
    printf("master: frozen at %d, size %d\n", cc, pvm_gsize(GROUP));
    args[0] = "-late";
    args[1] = NULL;
    if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tid) != 1 ||
        pvm_recv(tid, TAG_JOINED) < 0 || pvm_upkint(&cc, 1, 1) < 0)
        return 1;
    printf("a join after the freeze returned %d\n", cc);
    for (i = 0; i < k; i++) {
        pvm_initsend(PvmDataDefault);
        if (pvm_send(tids[i], TAG_GO) < 0)
            return 1;
    }
    pvm_lvgroup(GROUP);
    pvm_exit();
    return 0;
}
