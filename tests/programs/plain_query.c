/*
 * plain_query.c - a master that watches its workers come and go by asking
 * PVM (pvm_pstat, pvm_gsize, pvm_mstat) rather than by messages.
 *
 *   plain_query [K]       K workers (default 4, at most 16)
 *
 * Built against PVM and its group library alone (tests preload Pangaea).
 *
 * Design.  The master spawns K copies of itself ("-worker I"); each waits a
 * random 0-3 ms (seeded by its pid), joins group "plain_query", sends the
 * master its instance, waits again, leaves (odd I with pvm_lvgroup, even I
 * by ending) and exits.  So leaves race with joins: the server hands out
 * the lowest free instance, and which one a worker gets depends on who has
 * left by then.  The master prints the instances at the end, in worker
 * order.  Meanwhile the master polls every 200 us: how many workers
 * pvm_pstat says still run, what pvm_gsize says the group counts, and
 * whether pvm_mstat says its own host is up.  It prints each state that
 * differs from the one before ("running/members"), until no worker runs
 * and the group is empty, or 20,000 polls.  What it sees depends on when
 * it asks: runs differ.  Any PVM error: a message on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define GROUP "plain_query"
#define MAXW 16
#define TAG_INST 7

static int worker(int me)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    int inst;

    usleep((useconds_t)(rand_r(&seed) % 3000));
    if ((inst = pvm_joingroup(GROUP)) < 0 || pvm_initsend(PvmDataDefault) < 0 ||
        pvm_pkint(&inst, 1, 1) < 0 || pvm_send(pvm_parent(), TAG_INST) < 0)
        return 1;
    usleep((useconds_t)(rand_r(&seed) % 3000));
    if (me % 2 && pvm_lvgroup(GROUP) < 0)
        return 1;
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 4, tids[MAXW], i, polls, nhost, narch;
    int running, members, before = -1, shown = 0;
    char self[PATH_MAX], iarg[16], *args[] = { "-worker", iarg, NULL };
    struct pvmhostinfo *hi;
    ssize_t n;

    if (argc > 2 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]));
    if (k < 1 || k > MAXW) {
        fprintf(stderr, "usage: plain_query [K (1..%d)]\n", MAXW);
        return 2;
    }
    if (pvm_mytid() < 0 || pvm_config(&nhost, &narch, &hi) < 0)
        return 1;
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    for (i = 0; i < k; i++) {
        snprintf(iarg, sizeof iarg, "%d", i + 1);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]) != 1) {
            fprintf(stderr, "plain_query: pvm_spawn failed\n");
            return 1;
        }
    }
    for (polls = 0; polls < 20000; polls++) {
        running = 0;
        for (i = 0; i < k; i++)
            running += pvm_pstat(tids[i]) == PvmOk;
        members = pvm_gsize(GROUP);
        if (members < 0)
            members = 0; /* no such group yet, or any more */
        if (pvm_mstat(hi[0].hi_name) != PvmOk) {
            fprintf(stderr, "plain_query: pvm_mstat says %s is down\n",
                    hi[0].hi_name);
            return 1;
        }
        if (running * 100 + members != before) {
            printf("%s%d/%d", shown++ ? " " : "", running, members);
            before = running * 100 + members;
        }
        if (running == 0 && members == 0)
            break;
        usleep(200);
    }
    printf("\ninstances:");
    for (i = 0; i < k; i++) {
        int inst;

        if (pvm_recv(tids[i], TAG_INST) < 0 || pvm_upkint(&inst, 1, 1) < 0)
            return 1;
        printf(" %d", inst);
    }
    printf("\n");
    pvm_exit();
    return 0;
}
