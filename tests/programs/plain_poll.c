/*
 * plain_poll.c - a program whose output counts its failed polls.
 *
 * Built against PVM only.  The master spawns K workers (default 3), each
 * sending M messages with short pauses.  The master takes the first half
 * by polling pvm_nrecv(-1, -1) with a back-off that doubles after every
 * poll that finds nothing, and the rest with pvm_trecv(-1, -1, 1 ms),
 * counting time-outs, then polls three more times, in vain.  It prints the
 * arrival order, the number of failed polls and of time-outs: numbers that
 * differ from run to run, and that a replay must reproduce exactly for the
 * same output.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define M 12

static void worker(int k)
{
    int i, v[2];

    srand(getpid());
    for (i = 0; i < M; i++) {
        usleep(rand() % 3000);
        v[0] = k;
        v[1] = i;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(v, 2, 1);
        pvm_send(pvm_parent(), 3);
    }
}

static void note(char *order, size_t size)
{
    int v[2];

    pvm_upkint(v, 2, 1);
    snprintf(order + strlen(order), size - strlen(order), " %d.%d", v[0], v[1]);
}

int main(int argc, char **argv)
{
    static char order[8192];
    int k = 3, i, n, tid, misses = 0, timeouts = 0, pause = 10;
    char arg[16], *args[] = { "-worker", arg, NULL };
    struct timeval ms = { 0, 1000 };

    if (pvm_mytid() < 0)
        return 1;
    if (argc > 2 && !strcmp(argv[1], "-worker")) {
        worker(atoi(argv[2]));
        pvm_exit();
        return 0;
    }
    for (i = 1; i <= k; i++) {
        snprintf(arg, sizeof arg, "%d", i);
        if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tid) != 1)
            return 1;
    }
    for (n = 0; n < k * M / 2;) {
        if (pvm_nrecv(-1, -1) > 0) {
            note(order, sizeof order);
            n++;
            pause = 10;
        } else {
            misses++;
            usleep(pause);
            pause = pause < 2000 ? pause * 2 : pause;
        }
    }
    while (n < k * M) {
        ms.tv_sec = 0;
        ms.tv_usec = 1000;
        if (pvm_trecv(-1, -1, &ms) > 0) {
            note(order, sizeof order);
            n++;
        } else {
            timeouts++;
        }
    }
    /* Polls after the last message find nothing: the recording carries
     * them on its <end>, and a replay must give them back there too. */
    for (n = 0; n < 3; n++)
        if (pvm_nrecv(-1, -1) > 0)
            note(order, sizeof order);
    printf("poll: nrecv misses=%d trecv timeouts=%d\npoll: order=%s\n",
           misses, timeouts, order);
    pvm_exit();
    return 0;
}
