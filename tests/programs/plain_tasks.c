/*
 * plain_tasks.c - a master that counts the tasks of the virtual machine
 * with pvm_tasks, as NetPIPE does, and watches its workers end by asking
 * pvm_tasks again and again.
 *
 *   plain_tasks [K]      K workers (default 3, at most 16)
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  It prints the tasks pvm_tasks(0) lists at the start (after
 * spawning K workers that wait for a word: the master and K workers, by
 * program name, and any other program), and its own entry's parent
 * ("none" when 0, as for a task started from a shell) and the
 * host count of pvm_config.  Then it tells the workers to go: each sleeps
 * a random 0-5 ms and exits; the master polls pvm_tasks every 200 us and
 * prints each count that differs from the one before, and how many polls
 * it made, until only it is left (or 5,000 polls).  The counts and polls
 * depend on timing: runs differ.  Any PVM error: stderr, exit 1.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define MAXK 16
#define TAG_GO 5

static int worker(void)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    int mid = pvm_recv(pvm_parent(), TAG_GO);

    if (mid < 0)
        return 1;
    usleep((useconds_t)(rand_r(&seed) % 5000));
    pvm_exit();
    return 0;
}

static int count(int me, int print)
{
    struct pvmtaskinfo *ti;
    int n, i, mine = 0, parent = -1;

    if (pvm_tasks(0, &n, &ti) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        const char *b = strrchr(ti[i].ti_a_out, '/');

        b = b ? b + 1 : ti[i].ti_a_out;
        if (!strcmp(b, "plain_tasks"))
            mine++;
        else if (print)
            printf("another task: %s\n", b);
        if (ti[i].ti_tid == me)
            parent = ti[i].ti_ptid;
    }
    if (print)
        printf("tasks: %d, of this program: %d, my parent: %s\n", n, mine,
               parent == 0 ? "none" : parent < 0 ? "(not listed)" : "a task");
    return n;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 3, tids[MAXK], me, n, last = -1,
        polls = 0, nhost, narch;
    char *args[] = { "-worker", NULL };
    struct pvmhostinfo *hi;

    if (argc > 1 && !strcmp(argv[1], "-worker"))
        return worker();
    if (k < 1 || k > MAXK || (me = pvm_mytid()) < 0)
        return 2;
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", k, tids) != k)
        return fprintf(stderr, "plain_tasks: cannot spawn\n"), 1;
    if (count(me, 1) < 0 || pvm_config(&nhost, &narch, &hi) < 0)
        return fprintf(stderr, "plain_tasks: pvm_tasks/pvm_config\n"), 1;
    printf("hosts: %d\n", nhost);
    pvm_initsend(PvmDataDefault);
    pvm_mcast(tids, k, TAG_GO);
    printf("counts:");
    while (polls < 5000) {
        n = count(me, 0);
        polls++;
        if (n != last)
            printf(" %d", n);
        last = n;
        if (n <= 1)
            break;
        usleep(200);
    }
    printf("\npolls: %d\n", polls);
    pvm_exit();
    return 0;
}
