/*
 * plain_spread.c - a racing PVM program whose tasks say, from inside,
 * which host they run on: for the tests with several hosts.
 *
 *   plain_spread [HOST...]      one worker per HOST (PvmTaskHost), or,
 *                               with no HOST, 3 workers where PVM likes
 *                               (PvmTaskDefault)
 *
 * Design.  The master spawns the workers by the absolute path of its own
 * executable with "-worker K".  Each worker first sends the master the name
 * gethostname() gives it (on a test host: the name of its UTS namespace, so
 * it tells the host the worker really runs on, not the one it was asked
 * for), then M = 20 numbered messages, pausing a random 0-200 us (seeded by
 * its pid) between them.  The master takes everything with pvm_recv(-1, -1)
 * and prints the order of the senders (it races), then each task's host in
 * the order of K: the only lines that tell where tasks ran, all printed by
 * the master so that the output's line order never depends on timing.
 * Built against PVM alone: Pangaea reaches it by preloading.
 * Any PVM error: a message on stderr and exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

enum { TAG_HOST = 1, TAG_DATA = 2, NMSG = 20, MAXW = 16 };

static void check(const char *what, int rc)
{
    if (rc < 0) {
        fprintf(stderr, "spread: %s failed (PVM error %d)\n", what, rc);
        pvm_exit();
        exit(1);
    }
}

static void worker(int k)
{
    char host[256] = "?";
    int i;

    srand((unsigned)getpid());
    gethostname(host, sizeof host - 1);
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    pvm_pkint(&k, 1, 1);
    pvm_pkstr(host);
    check("pvm_send", pvm_send(pvm_parent(), TAG_HOST));
    for (i = 0; i < NMSG; i++) {
        usleep(rand() % 200);
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        pvm_pkint(&k, 1, 1);
        pvm_pkint(&i, 1, 1);
        check("pvm_send", pvm_send(pvm_parent(), TAG_DATA));
    }
}

static int spawn_workers(int argc, char **argv, int *tids)
{
    char self[PATH_MAX], index[16], *args[] = { "-worker", index, NULL };
    int n = argc > 1 ? argc - 1 : 3, k;
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);

    if (len <= 0 || n > MAXW) {
        fprintf(stderr, "spread: cannot find myself, or too many hosts\n");
        exit(1);
    }
    self[len] = 0;
    for (k = 1; k <= n; k++) {
        snprintf(index, sizeof index, "%d", k);
        if (pvm_spawn(self, args, argc > 1 ? PvmTaskHost : PvmTaskDefault,
                      argc > 1 ? argv[k] : "", 1, &tids[k]) != 1)
            check("pvm_spawn", tids[k] < 0 ? tids[k] : -1);
    }
    return n;
}

static void master(int argc, char **argv)
{
    char hosts[MAXW + 1][256], order[(MAXW + 1) * (NMSG + 1) * 4] = "";
    int tids[MAXW + 1], n = spawn_workers(argc, argv, tids), k, i, tag, len, src;

    gethostname(hosts[0], sizeof hosts[0] - 1);
    for (i = 0; i < n * (NMSG + 1); i++) {
        check("pvm_recv", pvm_recv(-1, -1));
        check("pvm_bufinfo", pvm_bufinfo(pvm_getrbuf(), &len, &tag, &src));
        pvm_upkint(&k, 1, 1);
        if (k < 1 || k > n) {
            fprintf(stderr, "spread: message from unknown worker %d\n", k);
            exit(1);
        }
        if (tag == TAG_HOST)
            pvm_upkstr(hosts[k]);
        snprintf(order + strlen(order), sizeof order - strlen(order),
                 i ? ",%d" : "%d", k);
    }
    printf("spread: order=%s\n", order);
    printf("spread: task 0 runs on %s\n", hosts[0]);
    for (k = 1; k <= n; k++)
        printf("spread: worker %d runs on %s\n", k, hosts[k]);
}

int main(int argc, char **argv)
{
    check("pvm_mytid", pvm_mytid());
    if (argc == 3 && !strcmp(argv[1], "-worker"))
        worker(atoi(argv[2]));
    else
        master(argc, argv);
    pvm_exit();
    return 0;
}
