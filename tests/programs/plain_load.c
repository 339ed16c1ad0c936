/*
 * plain_load.c - N tasks, each sending M messages to the others and taking
 * whatever comes from anyone: the load test of record and replay.
 *
 *   plain_load [N [M]]     N tasks in all (default 4), M sends each (100)
 *
 * Built against PVM alone: the tests run it with Pangaea preloaded.
 *
 * Design.  The first task spawns N-1 copies of itself by the absolute path
 * of its executable with "-task I" and sends everyone the tids of all.  Task
 * I sends its j-th message (its number I, j) to task (I + 1 + j % (N-1)) % N,
 * tag 100 + j % 4: every task can compute how many messages it will get.
 * Between two sends it takes whatever has arrived with pvm_nrecv(-1, -1);
 * after its last send it takes the rest with pvm_recv(-1, -1).  It folds the
 * (sender, j) pairs, in the order received, into a 64-bit hash, checks that
 * every sender's messages came in the order sent (PVM promises that much),
 * and sends the first task its count and hash (the first task keeps those
 * that come while it still takes data); the first task prints one line per
 * task, in task order.  So the output is a pure function of the
 * receive orders, which race: two runs print the same only if every task
 * received in the same order.  Any PVM error or surprise: a message on
 * stderr, exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

enum { TAG_SETUP = 1, TAG_REPORT = 2, TAG_DATA = 100 };
#define MAXN 1024

static int me, ntasks, nmsgs;
static int tids[MAXN];

static void die(const char *what, int code)
{
    fprintf(stderr, "load[%d]: %s (PVM error %d)\n", me, what, code);
    pvm_exit();
    exit(1);
}

static int check(const char *what, int rc)
{
    if (rc < 0)
        die(what, rc);
    return rc;
}

static int dest_of(int from, int j)
{
    return (from + 1 + j % (ntasks - 1)) % ntasks;
}

/* How many messages come to this task: from each other task, the j with
 * j % (N-1) == (me - from - 1) mod N. */
static int expected(void)
{
    int n = 0, k = ntasks - 1;

    for (int from = 0; from < ntasks; from++) {
        int c = ((me - from - 1) % ntasks + ntasks) % ntasks;

        if (from != me)
            n += nmsgs / k + (c < nmsgs % k);
    }
    return n;
}

struct tally {
    uint64_t hash;
    int got;
    int next[MAXN]; /* the j expected next from each sender */
};

/* The first task's reports: those that come while it still takes data. */
static int reported[MAXN], report_got[MAXN];
static unsigned long report_hash[MAXN];

static void take_report(int src)
{
    int i;

    for (i = 0; i < ntasks && tids[i] != src; i++)
        ;
    if (i == ntasks || reported[i])
        die("receive: a report from nowhere", PvmBadMsg);
    check("pvm_upkint", pvm_upkint(&report_got[i], 1, 1));
    check("pvm_upkulong", pvm_upkulong(&report_hash[i], 1, 1));
    reported[i] = 1;
}

static void take(struct tally *t, int bufid)
{
    int v[2], bytes, tag, src;

    check("pvm_bufinfo", pvm_bufinfo(bufid, &bytes, &tag, &src));
    if (tag == TAG_REPORT && me == 0) {
        take_report(src);
        return;
    }
    check("pvm_upkint", pvm_upkint(v, 2, 1));
    if (v[0] < 0 || v[0] >= ntasks || tids[v[0]] != src || tag != TAG_DATA + v[1] % 4)
        die("receive: a message from nowhere", PvmBadMsg);
    if (v[1] < t->next[v[0]])
        die("receive: a message twice", PvmBadMsg);
    /* messages skipped here go to other tasks: j cycles over destinations */
    t->next[v[0]] = v[1] + 1;
    t->hash = (t->hash ^ (uint64_t)(v[0] * 1000003 + v[1])) * 1099511628211ull;
    t->got++;
}

static void run(void)
{
    struct tally t = { 14695981039346656037ull, 0, { 0 } };
    int want = expected(), v[2];

    for (int j = 0; j < nmsgs; j++) {
        int bufid;

        v[0] = me;
        v[1] = j;
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        check("pvm_pkint", pvm_pkint(v, 2, 1));
        check("pvm_send", pvm_send(tids[dest_of(me, j)], TAG_DATA + j % 4));
        while ((bufid = check("pvm_nrecv", pvm_nrecv(-1, -1))) > 0)
            take(&t, bufid);
    }
    while (t.got < want)
        take(&t, check("pvm_recv", pvm_recv(-1, -1)));
    if (me == 0) {
        reported[0] = 1;
        report_got[0] = t.got;
        report_hash[0] = (unsigned long)t.hash;
        return;
    }
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&t.got, 1, 1));
    check("pvm_pkulong", pvm_pkulong((unsigned long *)&t.hash, 1, 1));
    check("pvm_send", pvm_send(tids[0], TAG_REPORT));
}

static void report(void)
{
    uint64_t all = 0;
    long total = 0;

    for (int i = 0; i < ntasks; i++) {
        if (!reported[i]) {
            int bufid = check("pvm_recv", pvm_recv(tids[i], TAG_REPORT));
            check("pvm_bufinfo", pvm_bufinfo(bufid, NULL, NULL, NULL));
            take_report(tids[i]);
        }
        printf("load: task %d received %d, order %016lx\n", i, report_got[i],
               report_hash[i]);
        all = (all ^ report_hash[i]) * 1099511628211ull;
        total += report_got[i];
    }
    printf("load: N=%d M=%d received=%ld orders=%016llx\n", ntasks, nmsgs,
           total, (unsigned long long)all);
}

int main(int argc, char **argv)
{
    char self[PATH_MAX];
    int mytid = check("pvm_mytid", pvm_mytid());

    if (argc == 3 && !strcmp(argv[1], "-task")) {
        me = atoi(argv[2]);
        check("pvm_recv", pvm_recv(pvm_parent(), TAG_SETUP));
        check("pvm_upkint", pvm_upkint(&ntasks, 1, 1));
        check("pvm_upkint", pvm_upkint(&nmsgs, 1, 1));
        check("pvm_upkint", pvm_upkint(tids, ntasks, 1));
        run();
        pvm_exit();
        return 0;
    }
    ntasks = argc > 1 ? atoi(argv[1]) : 4;
    nmsgs = argc > 2 ? atoi(argv[2]) : 100;
    if (ntasks < 2 || ntasks > MAXN || nmsgs < 1) {
        fprintf(stderr, "usage: plain_load [N [M]]  (2 <= N <= %d, M >= 1)\n", MAXN);
        return 2;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        die("readlink /proc/self/exe", PvmSysErr);
    self[n] = 0;
    tids[0] = mytid;
    for (int i = 1; i < ntasks; i++) {
        char num[16], *args[] = { "-task", num, NULL };

        snprintf(num, sizeof num, "%d", i);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]) != 1)
            die("pvm_spawn", tids[i]);
    }
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&ntasks, 1, 1));
    check("pvm_pkint", pvm_pkint(&nmsgs, 1, 1));
    check("pvm_pkint", pvm_pkint(tids, ntasks, 1));
    check("pvm_mcast", pvm_mcast(tids + 1, ntasks - 1, TAG_SETUP));
    run();
    report();
    pvm_exit();
    return 0;
}
