/*
 * plain_mhf.c - a master whose notes are taken by a message handler
 * (pvm_addmhf) while its main loop takes results, both from any worker.
 *
 *   plain_mhf [W [M]]      W workers (default 3, at most 16), M notes and
 *                          M results each (default 6)
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  Each worker sends M notes (tag 21) and M results (tag 22),
 * interleaved at random (seeded by its pid) with short random sleeps.  The
 * master installs a handler for tag 21 from anyone, then receives the
 * W*M results with pvm_recv(-1, 22), and waits (pvm_trecv on a tag nobody
 * sends) until the handler has counted all W*M notes.  Handler and main
 * loop append to one trace, "N<worker>" and "R<worker>", printed at the
 * end: it depends on timing, so runs differ.  The handler frees its
 * message as pvm-examples' mhf_server does.  Any error: stderr, exit 1.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>

#define MAXW 16
#define TAG_NOTE 21
#define TAG_RESULT 22
#define TAG_NEVER 23

static int tids[MAXW], nw, notes;
static char trace[MAXW * 64 * 4 + 64];

static int index_of(int tid)
{
    int i;

    for (i = 0; i < nw && tids[i] != tid; i++)
        ;
    return i;
}

static int note_handler(int mid)
{
    int rbf = pvm_setrbuf(mid), len, tag, src, v;

    pvm_bufinfo(mid, &len, &tag, &src);
    pvm_upkint(&v, 1, 1);
    snprintf(trace + strlen(trace), sizeof trace - strlen(trace), " N%d",
             index_of(src));
    notes++;
    pvm_freebuf(pvm_setrbuf(rbf));
    return 0;
}

static int worker(int m)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    int parent = pvm_parent(), sent[2] = { 0, 0 }, k;

    while (sent[0] < m || sent[1] < m) {
        k = sent[0] == m ? 1 : sent[1] == m ? 0 : (int)(rand_r(&seed) % 2);
        usleep((useconds_t)(rand_r(&seed) % 800));
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&sent[k], 1, 1);
        pvm_send(parent, k ? TAG_RESULT : TAG_NOTE);
        sent[k]++;
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int m, i, mid, len, tag, src;
    char ms[16], *args[3] = { "-worker", ms, NULL };
    struct timeval tick;

    if (argc > 2 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]));
    nw = argc > 1 ? atoi(argv[1]) : 3;
    m = argc > 2 ? atoi(argv[2]) : 6;
    if (nw < 1 || nw > MAXW || m < 1 || m > 64 || pvm_mytid() < 0)
        return 2;
    if (pvm_addmhf(-1, TAG_NOTE, pvm_getcontext(), note_handler) < 0)
        return fprintf(stderr, "plain_mhf: pvm_addmhf failed\n"), 1;
    snprintf(ms, sizeof ms, "%d", m);
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", nw, tids) != nw)
        return fprintf(stderr, "plain_mhf: cannot spawn\n"), 1;
    for (i = 0; i < nw * m; i++) {
        if ((mid = pvm_recv(-1, TAG_RESULT)) < 0)
            return fprintf(stderr, "plain_mhf: pvm_recv %d\n", mid), 1;
        pvm_bufinfo(mid, &len, &tag, &src);
        snprintf(trace + strlen(trace), sizeof trace - strlen(trace), " R%d",
                 index_of(src));
    }
    for (i = 0; notes < nw * m && i < 10000; i++) {
        tick.tv_sec = 0;
        tick.tv_usec = 1000;
        pvm_trecv(-1, TAG_NEVER, &tick);
    }
    printf("notes %d results %d:%s\n", notes, nw * m, trace);
    pvm_exit();
    return notes == nw * m ? 0 : 1;
}
