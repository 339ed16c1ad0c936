/*
 * plain_farm.c - programs that spawn many tasks, or deep, or at once:
 * for ltids without a limit (tests/e2e/test_spawn_limits.sh).
 *
 *   plain_farm farm N W   a task farm: the master starts N short workers,
 *                         one pvm_spawn each, at most W alive at a time (a
 *                         new one as each reports); worker i sends i back
 *   plain_farm chain D    a chain: each task spawns one child, D deep; the
 *                         deepest sends D up, each passes it on
 *   plain_farm twin M     two parents, started together, each spawning M
 *                         children one by one at the same time as the
 *                         other (once the master says go to both); child j of parent p sends j + 1 messages
 *                         of tag 100 * p + j to its parent, which takes
 *                         them from anyone (pvm_recv(-1, -1)) and sends
 *                         the master their sum
 *   plain_farm pick       two workers race to report first; the master then
 *                         spawns as many more (count 1 or 2, one
 *                         pvm_spawn) as the number of the first: a what-if
 *                         that forces the other first spawns other children
 *
 * Every task spawns by the absolute path of its own executable.  The
 * master prints one line with the result, so output never depends on
 * timing.  Built against PVM alone: Pangaea reaches it by preloading.
 * Any PVM error or wrong message: a message on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_DONE = 1, TAG_SUM = 2, TAG_GO = 3 };

static char self[PATH_MAX];

static void die(const char *what, int rc)
{
    fprintf(stderr, "farm: %s failed (%d)\n", what, rc);
    pvm_exit();
    exit(1);
}

static int spawn(char *a0, char *a1, char *a2)
{
    char *argv[] = { a0, a1, a2, NULL };
    int tid, cc = pvm_spawn(self, argv, PvmTaskDefault, "", 1, &tid);

    if (cc != 1)
        die("pvm_spawn", tid);
    return tid;
}

static void spawn_n(int n, char *a0, char *a1)
{
    char *argv[] = { a0, a1, NULL };
    int tids[2], cc = pvm_spawn(self, argv, PvmTaskDefault, "", n, tids);

    if (cc != n)
        die("pvm_spawn", cc);
}

static void send_int(int to, int tag, int v)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    if (pvm_send(to, tag) < 0)
        die("pvm_send", to);
}

static int recv_int(int from, int tag, int *src_tag)
{
    int v, mid = pvm_recv(from, tag), len, src;

    if (mid < 0)
        die("pvm_recv", mid);
    pvm_bufinfo(mid, &len, src_tag ? src_tag : &len, &src);
    pvm_upkint(&v, 1, 1);
    return v;
}

static void farm(int n, int w)
{
    char *seen = calloc(n + 1, 1), arg[16];
    int started = 0, done = 0, v;

    for (; started < n && started < w; started++) {
        snprintf(arg, sizeof arg, "%d", started + 1);
        spawn("-worker", arg, NULL);
    }
    while (done < n) {
        v = recv_int(-1, TAG_DONE, NULL);
        if (v < 1 || v > n || seen[v])
            die("a worker's report", v);
        seen[v] = 1;
        done++;
        if (started < n) {
            snprintf(arg, sizeof arg, "%d", ++started);
            spawn("-worker", arg, NULL);
        }
    }
    printf("farm: %d workers done\n", n);
}

/* Depth d spawns depth d + 1 until max; the deepest sends max up. */
static int chain(int d, int max)
{
    char arg[16], amax[16];

    if (d == max)
        return max;
    snprintf(arg, sizeof arg, "%d", d + 1);
    snprintf(amax, sizeof amax, "%d", max);
    spawn("-chain", arg, amax);
    return recv_int(-1, TAG_DONE, NULL);
}

static void parent(int p, int m)
{
    char ap[16], aj[16];
    int j, tag, sum = 0, got = 0, want = m * (m + 1) / 2;

    snprintf(ap, sizeof ap, "%d", p);
    recv_int(pvm_parent(), TAG_GO, NULL); /* both parents spawn together */
    for (j = 0; j < m; j++) {
        snprintf(aj, sizeof aj, "%d", j);
        spawn("-child", ap, aj);
    }
    for (; got < want; got++) {
        sum += recv_int(-1, -1, &tag);
        if (tag / 100 != p)
            die("a child's tag", tag);
    }
    send_int(pvm_parent(), TAG_SUM, sum);
}

static void child(int p, int j)
{
    int i;

    for (i = 0; i <= j; i++)
        send_int(pvm_parent(), 100 * p + j, j);
}

static void twin(int m)
{
    char am[16];
    int sum, tids[2];

    snprintf(am, sizeof am, "%d", m);
    tids[0] = spawn("-parent", "1", am);
    tids[1] = spawn("-parent", "2", am);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&m, 1, 1);
    if (pvm_mcast(tids, 2, TAG_GO) < 0)
        die("pvm_mcast", m);
    sum = recv_int(-1, TAG_SUM, NULL) + recv_int(-1, TAG_SUM, NULL);
    printf("twin: %d children, sum %d\n", 2 * m, sum);
}

static void pick(void)
{
    int first, i;

    spawn("-worker", "1", NULL);
    spawn("-worker", "2", NULL);
    first = recv_int(-1, TAG_DONE, NULL);
    recv_int(-1, TAG_DONE, NULL);
    spawn_n(first, "-worker", "3");
    for (i = 0; i < first; i++)
        if (recv_int(-1, TAG_DONE, NULL) != 3)
            die("a late worker's report", i);
    printf("pick: %d first, %d more spawned\n", first, first);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    if (n <= 0 || argc < 2)
        return fprintf(stderr, "usage: plain_farm farm N W | chain D | "
                               "twin M | pick\n"), 2;
    self[n] = 0;
    if (pvm_mytid() < 0)
        return 1;
    if (!strcmp(argv[1], "farm") && argc > 3)
        farm(atoi(argv[2]), atoi(argv[3]));
    else if (!strcmp(argv[1], "-worker") && argc > 2)
        send_int(pvm_parent(), TAG_DONE, atoi(argv[2]));
    else if (!strcmp(argv[1], "chain") && argc > 2)
        printf("chain: depth %d\n", chain(0, atoi(argv[2])));
    else if (!strcmp(argv[1], "-chain") && argc > 3)
        send_int(pvm_parent(), TAG_DONE, chain(atoi(argv[2]), atoi(argv[3])));
    else if (!strcmp(argv[1], "pick"))
        pick();
    else if (!strcmp(argv[1], "twin") && argc > 2)
        twin(atoi(argv[2]));
    else if (!strcmp(argv[1], "-parent") && argc > 3)
        parent(atoi(argv[2]), atoi(argv[3]));
    else if (!strcmp(argv[1], "-child") && argc > 3)
        child(atoi(argv[2]), atoi(argv[3]));
    else
        return fprintf(stderr, "farm: bad arguments\n"), 2;
    pvm_exit();
    return 0;
}
