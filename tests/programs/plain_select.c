/*
 * plain_select.c - a master that waits for its workers' messages with
 * select() on pvm_getfds() and then takes them with pvm_nrecv.
 *
 *   plain_select [K]   K workers (default 4, at most 16)
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  The master spawns K copies of itself ("-worker I"); each waits
 * a random 0-3 ms (seeded by its pid) and sends the master its number,
 * three times.  The master waits in select() (no timeout) on every
 * descriptor pvm_getfds gives, then polls with pvm_nrecv(-1, -1) until a
 * message comes, counting the polls that found nothing.  It prints the
 * order in which the workers' messages came, then the number of empty
 * polls: runs differ.  A replay must print the recorded order and count,
 * and must not hang in select() when the message it takes next is already
 * in PVM's queue.  Any PVM error: a message on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>
#include <pvm3.h>

#define MAXW 16
#define TAG 11
#define EACH 3

static int worker(int me)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    int i;

    for (i = 0; i < EACH; i++) {
        usleep((useconds_t)(rand_r(&seed) % 3000));
        if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkint(&me, 1, 1) < 0 ||
            pvm_send(pvm_parent(), TAG) < 0)
            return 1;
    }
    pvm_exit();
    return 0;
}

/* Waits until a PVM descriptor is readable. */
static int wait_readable(void)
{
    fd_set set;
    int *fds, n, i, top = -1;

    if ((n = pvm_getfds(&fds)) <= 0)
        return -1;
    FD_ZERO(&set);
    for (i = 0; i < n; i++) {
        FD_SET(fds[i], &set);
        if (fds[i] > top)
            top = fds[i];
    }
    return select(top + 1, &set, NULL, NULL, NULL) < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 4, tid, i, mid, who, empty = 0;
    char self[PATH_MAX], iarg[16], *args[] = { "-worker", iarg, NULL };
    ssize_t n;

    if (argc > 2 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]));
    if (k < 1 || k > MAXW || pvm_mytid() < 0 ||
        (n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0) {
        fprintf(stderr, "usage: plain_select [K (1..%d)], under PVM\n", MAXW);
        return 2;
    }
    self[n] = 0;
    for (i = 0; i < k; i++) {
        snprintf(iarg, sizeof iarg, "%d", i);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tid) != 1)
            return 1;
    }
    printf("order:");
    for (i = 0; i < k * EACH; i++) {
        while ((mid = pvm_nrecv(-1, TAG)) == 0) {
            empty++;
            if (wait_readable() < 0) {
                fprintf(stderr, "plain_select: select failed\n");
                return 1;
            }
        }
        if (mid < 0 || pvm_upkint(&who, 1, 1) < 0)
            return 1;
        printf(" w%d", who);
    }
    printf("\n");
    printf("empty polls: %s\n", empty > 0 ? "some" : "none");
    pvm_exit();
    return 0;
}
