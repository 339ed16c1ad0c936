/*
 * plain_notify.c - a master that takes its workers' results and the notices
 * of their exits (pvm_notify) in whatever order they come.
 *
 *   plain_notify [K]      K workers (default 6, at most 32)
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  The master spawns K copies of itself ("-worker I", absolute
 * path), asks for a notice (tag 50) when each of them exits, then tells them
 * to go.  Worker I waits a random 0-2 ms (seeded by its pid), sends the
 * master one result (tag 10), waits again and exits.  The master takes 2K
 * messages with pvm_recv(-1, -1) and prints, in the order taken, "rI" for
 * the result of worker I and "xI" for the notice that worker I ended (the
 * notice's body is the tid that ended), then a line "last: ..." naming the
 * worker whose exit came last.  The order races between results and exit
 * notices of different workers; the output is a pure function of it.  Any
 * PVM error or surprise: a message on stderr, exit status 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

enum { TAG_GO = 1, TAG_RESULT = 10, TAG_EXIT = 50, MAXW = 32 };

static int check(const char *what, int rc)
{
    if (rc < 0) {
        fprintf(stderr, "plain_notify: %s failed (PVM error %d)\n", what, rc);
        pvm_exit();
        exit(1);
    }
    return rc;
}

static int worker(int me)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;

    check("pvm_recv", pvm_recv(pvm_parent(), TAG_GO));
    usleep((useconds_t)(rand_r(&seed) % 2000));
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_pkint", pvm_pkint(&me, 1, 1));
    check("pvm_send", pvm_send(pvm_parent(), TAG_RESULT));
    usleep((useconds_t)(rand_r(&seed) % 2000));
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 6, tids[MAXW], i, r, w, len, tag, src;
    int last = -1;
    char self[PATH_MAX], idx[16], *args[] = { "-worker", idx, NULL };
    ssize_t n;

    if (argc > 2 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]));
    if (k < 1 || k > MAXW) {
        fprintf(stderr, "usage: plain_notify [K (1..%d)]\n", MAXW);
        return 2;
    }
    check("pvm_mytid", pvm_mytid());
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 1;
    self[n] = 0;
    for (i = 0; i < k; i++) {
        snprintf(idx, sizeof idx, "%d", i + 1);
        if (pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i]) != 1)
            check("pvm_spawn", -1);
    }
    check("pvm_notify", pvm_notify(PvmTaskExit, TAG_EXIT, k, tids));
    check("pvm_initsend", pvm_initsend(PvmDataDefault));
    check("pvm_mcast", pvm_mcast(tids, k, TAG_GO));
    for (r = 0; r < 2 * k; r++) {
        int mid = check("pvm_recv", pvm_recv(-1, -1));

        check("pvm_bufinfo", pvm_bufinfo(mid, &len, &tag, &src));
        check("pvm_upkint", pvm_upkint(&w, 1, 1));
        if (tag == TAG_EXIT) {
            for (i = 0; i < k && tids[i] != w; i++)
                ;
            if (i == k) {
                fprintf(stderr, "plain_notify: exit notice for t%x\n", w);
                return 1;
            }
            printf("%sx%d", r ? " " : "", i + 1);
            last = i + 1;
        } else if (tag == TAG_RESULT && w >= 1 && w <= k && tids[w - 1] == src) {
            printf("%sr%d", r ? " " : "", w);
        } else {
            fprintf(stderr, "plain_notify: unexpected tag %d from t%x\n", tag, src);
            return 1;
        }
    }
    printf("\nlast: worker %d ended last\n", last);
    pvm_exit();
    return 0;
}
