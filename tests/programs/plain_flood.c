/*
 * plain_flood.c - many small messages, fast: a run with more events than
 * a page can draw one by one (tests/e2e/test_page_scale.sh).
 *
 *     plain_flood WORKERS MESSAGES
 *
 * Built against PVM only.  The first task spawns WORKERS workers (at most
 * 32); each sends MESSAGES messages (tag 1, its round as an int) to the
 * first task as fast as it can, then one of tag 2.  The first task takes
 * them with pvm_recv(-1, -1) in whatever order they come and prints how
 * many it took.  The queue is PVM's to bound: nothing waits for an
 * answer, so the run lasts what its messages take to pass.
 */
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_DATA 1
#define TAG_DONE 2
#define MAXW 32

static void worker(int n)
{
    int parent = pvm_parent(), i;

    for (i = 0; i < n; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        pvm_send(parent, TAG_DATA);
    }
    pvm_initsend(PvmDataDefault);
    pvm_send(parent, TAG_DONE);
}

int main(int argc, char **argv)
{
    char *args[3] = { "-worker", NULL, NULL };
    int tids[MAXW], w, n, done = 0, taken = 0, tag, bytes, src;

    if (pvm_mytid() < 0)
        return 1;
    if (argc == 3 && !strcmp(argv[1], "-worker")) {
        worker(atoi(argv[2]));
        pvm_exit();
        return 0;
    }
    w = argc > 1 ? atoi(argv[1]) : 4;
    args[1] = argc > 2 ? argv[2] : "1000";
    n = atoi(args[1]);
    if (w < 1 || w > MAXW || n < 0 ||
        pvm_spawn(argv[0], args, PvmTaskDefault, "", w, tids) != w) {
        fprintf(stderr, "plain_flood: bad arguments or spawn failed\n");
        pvm_exit();
        return 1;
    }
    while (done < w) {
        pvm_bufinfo(pvm_recv(-1, -1), &bytes, &tag, &src);
        if (tag == TAG_DONE)
            done++;
        else
            taken++;
    }
    printf("plain_flood: took %d messages from %d workers\n", taken, w);
    pvm_exit();
    return 0;
}
