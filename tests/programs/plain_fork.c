/*
 * plain_fork.c - a racing PVM program whose tasks fork() children that end
 * with exit(), most without using PVM.
 *
 *   plain_fork [K [M]]     K workers (default 3), M messages each (default 20)
 *
 * Built against PVM alone: the tests run it with Pangaea preloaded, whose
 * exit handler, crash handlers, PVM socket and log mappings a forked child
 * inherits.  The child must leave them alone: the task's log must not get
 * the child's <end>, and PVM and the coordinator must not hear that the task
 * ended when its child did.
 *
 * Design.  The master forks once before its first PVM call (the runtime has
 * not started yet: a child that started it would enrol in PVM under the
 * parent's ltid) and once more after half its receives; each worker forks
 * after half its sends, and its child makes one PVM call (pvm_pstat: the
 * task's log must not get it).  Every child then calls exit(40 + something)
 * (so atexit/on_exit handlers run in it), and its parent checks with
 * waitpid that it ended so.  The master spawns K copies of itself by the absolute
 * path of its executable with "-worker I"; worker I sends M messages, tag
 * 10 + j % 3, pausing a random 0-200 us (seeded by its pid).  The master
 * takes the K*M messages with pvm_recv(-1, -1) and prints the order of
 * senders and a hash of it: the output is a pure function of the receive
 * order, which races.  Any error: a message on stderr, exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <pvm3.h>

#define MAXW 16

static int me;

static void die(const char *what, int code)
{
    fprintf(stderr, "fork[%d]: %s (%d)\n", me, what, code);
    exit(1);
}

static int check(const char *what, int rc)
{
    if (rc < 0)
        die(what, rc);
    return rc;
}

/* Forks a child that ends at once with exit(status) and waits for it.
 * With `ask`, the child first asks PVM whether its parent's task runs
 * (pvm_pstat, a wrapped call that a recording logs): only where no message
 * can come meanwhile, as the child reads the parent's PVM socket. */
static void fork_and_exit(int status, int ask)
{
    int ws;
    pid_t pid;

    fflush(NULL); /* else the child's exit() prints the parent's buffer */
    pid = fork();
    if (pid < 0)
        die("fork", -1);
    if (pid == 0)
        exit(ask && pvm_pstat(pvm_mytid()) != PvmOk ? 1 : status);
    if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != status)
        die("the forked child did not exit with its status", status);
}

static void worker(int nmsgs)
{
    int parent = check("pvm_parent", pvm_parent());

    srand((unsigned)getpid());
    for (int j = 0; j < nmsgs; j++) {
        if (j == nmsgs / 2)
            fork_and_exit(40 + me, 1);
        usleep((useconds_t)(rand() % 200));
        check("pvm_initsend", pvm_initsend(PvmDataDefault));
        check("pvm_pkint", pvm_pkint(&me, 1, 1));
        check("pvm_pkint", pvm_pkint(&j, 1, 1));
        check("pvm_send", pvm_send(parent, 10 + j % 3));
    }
}

static void master(int nworkers, int nmsgs)
{
    char self[PATH_MAX], order[MAXW * 1000 + 1];
    uint64_t hash = 14695981039346656037ull;
    int tids[MAXW], total = nworkers * nmsgs;
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    if (n < 0)
        die("readlink /proc/self/exe", -1);
    self[n] = 0;
    for (int i = 0; i < nworkers; i++) {
        char num[16], *args[] = { "-worker", num, NULL };

        snprintf(num, sizeof num, "%d", i + 1);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]) != 1)
            die("pvm_spawn", tids[i]);
    }
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&nmsgs, 1, 1));
    check("pvm_mcast", pvm_mcast(tids, nworkers, 1));
    for (int k = 0; k < total; k++) {
        int w, j, bufid;

        if (k == total / 2)
            fork_and_exit(42, 0);
        bufid = check("pvm_recv", pvm_recv(-1, -1));
        check("pvm_bufinfo", pvm_bufinfo(bufid, NULL, NULL, NULL));
        check("pvm_upkint", pvm_upkint(&w, 1, 1));
        check("pvm_upkint", pvm_upkint(&j, 1, 1));
        if (w < 1 || w > nworkers)
            die("a message from nowhere", w);
        order[k] = (char)('0' + w);
        hash = (hash ^ (uint64_t)(w * 1000 + j)) * 1099511628211ull;
    }
    order[total] = 0;
    printf("fork: order %s\n", order);
    printf("fork: K=%d M=%d hash=%016llx\n", nworkers, nmsgs,
           (unsigned long long)hash);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "-worker")) {
        int nmsgs;

        me = atoi(argv[2]);
        check("pvm_mytid", pvm_mytid());
        check("pvm_recv", pvm_recv(pvm_parent(), 1));
        check("pvm_upkint", pvm_upkint(&nmsgs, 1, 1));
        worker(nmsgs);
        pvm_exit();
        return 0;
    }
    int nworkers = argc > 1 ? atoi(argv[1]) : 3;
    int nmsgs = argc > 2 ? atoi(argv[2]) : 20;

    if (nworkers < 1 || nworkers > MAXW || nmsgs < 1 || nmsgs > 1000) {
        fprintf(stderr, "usage: plain_fork [K [M]]  (1 <= K <= %d, 1 <= M <= 1000)\n", MAXW);
        return 2;
    }
    fork_and_exit(41, 0); /* before the first PVM call */
    check("pvm_mytid", pvm_mytid());
    master(nworkers, nmsgs);
    pvm_exit();
    return 0;
}
