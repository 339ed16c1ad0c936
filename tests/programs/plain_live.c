/*
 * plain_live.c - a run the test of the live view holds at two gates.
 *
 *     plain_live ROUNDS GATEDIR
 *
 * Built against PVM only.  The first task spawns two workers; each sends
 * ROUNDS messages (tag 1, its round) to the first task, 20 ms apart.
 * Before the round ROUNDS/3 and before 2*ROUNDS/3 a worker waits until
 * the file GATEDIR/gate1 (gate2) exists, polling it.  The first task takes
 * the messages from any worker and prints the order they came in.
 *
 * So tests/e2e/test_live.sh decides when the run goes on, and its checks
 * mid-run never depend on the machine's speed: while the workers wait at
 * gate 1 the run has made exactly 2 * (ROUNDS/3) sends and the first task
 * as many receives, and while they wait at gate 2 it cannot end.  The
 * gates are not messages, so a replay waits at them too.  A program that
 * behaves otherwise in replay: with GATEDIR/stop present, a worker at gate
 * 2 stops for good (pause(), no CPU time), so a replay of a run recorded
 * without it stalls, the first task waiting for a message that cannot come.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_ROUND 1

static void nap_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&t, NULL);
}

static void gate(const char *dir, int n)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/gate%d", dir, n);
    while (access(path, F_OK) != 0)
        nap_ms(50);
    snprintf(path, sizeof path, "%s/stop", dir);
    if (n == 2 && access(path, F_OK) == 0)
        for (;;)
            pause();
}

static void worker(int rounds, const char *dir)
{
    int r;

    for (r = 0; r < rounds; r++) {
        if (r == rounds / 3)
            gate(dir, 1);
        if (r == 2 * rounds / 3)
            gate(dir, 2);
        nap_ms(20);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&r, 1, 1);
        pvm_send(pvm_parent(), TAG_ROUND);
    }
}

int main(int argc, char **argv)
{
    char *args[4] = { "-worker", NULL, NULL, NULL };
    int tids[2], rounds, i, bytes, tag, src;

    if (pvm_mytid() < 0)
        return 1;
    if (argc == 4 && !strcmp(argv[1], "-worker")) {
        worker(atoi(argv[2]), argv[3]);
        pvm_exit();
        return 0;
    }
    if (argc != 3 || (rounds = atoi(argv[1])) < 3) {
        fprintf(stderr, "usage: plain_live ROUNDS(>=3) GATEDIR\n");
        pvm_exit();
        return 2;
    }
    args[1] = argv[1];
    args[2] = argv[2];
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 2, tids) != 2) {
        fprintf(stderr, "plain_live: spawn failed\n");
        pvm_exit();
        return 1;
    }
    for (i = 0; i < 2 * rounds; i++) {
        pvm_bufinfo(pvm_recv(-1, TAG_ROUND), &bytes, &tag, &src);
        putchar(src == tids[0] ? 'a' : 'b');
    }
    putchar('\n');
    pvm_exit();
    return 0;
}
