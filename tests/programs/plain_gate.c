/*
 * plain_gate.c - a run that waits, with every task's logs made, until the
 * test lets it go on: for changing the log directory under a live run.
 *
 *   plain_gate GATE [N]    N tasks in all (default 3)
 *
 * Built against PVM alone.  The first task spawns N-1 copies of itself
 * ("-child"), waits for a message from each (so each has started and made
 * its logs), creates the file GATE.ready, and waits until the file GATE
 * exists (polling with nanosleep: no clock is read, so no time log is
 * made late).  Then it tells each child to end, takes their answers and
 * prints "done N".
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_HELLO 1
#define TAG_GO 2
#define TAG_BYE 3

static void child(void)
{
    int parent = pvm_parent();

    pvm_initsend(PvmDataDefault);
    pvm_send(parent, TAG_HELLO);
    pvm_recv(parent, TAG_GO);
    pvm_initsend(PvmDataDefault);
    pvm_send(parent, TAG_BYE);
    pvm_exit();
}

static void wait_gate(const char *gate)
{
    char ready[4096];
    struct timespec nap = { 0, 50 * 1000 * 1000 };
    FILE *f;

    snprintf(ready, sizeof ready, "%s.ready", gate);
    if ((f = fopen(ready, "w")))
        fclose(f);
    while (access(gate, F_OK) != 0)
        nanosleep(&nap, NULL);
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[2]) : 3, tids[64], i;
    char *args[] = { "-child", NULL };

    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && !strcmp(argv[1], "-child")) {
        child();
        return 0;
    }
    if (argc < 2 || n < 1 || n > 64) {
        fprintf(stderr, "usage: plain_gate GATE [N]\n");
        return 2;
    }
    pvm_mytid();
    if (n > 1 && pvm_spawn(argv[0], args, PvmTaskDefault, "", n - 1, tids) != n - 1) {
        printf("spawn failed: %d\n", tids[0]);
        pvm_exit();
        return 1;
    }
    for (i = 0; i < n - 1; i++)
        pvm_recv(-1, TAG_HELLO);
    wait_gate(argv[1]);
    for (i = 0; i < n - 1; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_send(tids[i], TAG_GO);
    }
    for (i = 0; i < n - 1; i++)
        pvm_recv(-1, TAG_BYE);
    printf("done %d\n", n);
    pvm_exit();
    return 0;
}
