/*
 * plain_mhf_late.c - a note for a message handler arrives while the main
 * loop waits in pvm_recv for a result that comes later.
 *
 *   plain_mhf_late [K]     K notes and K results (default 4, at most 32)
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  One worker sends note i (tag 21), sleeps 30 ms, sends result i
 * (tag 22), sleeps 30 ms, K times.  The master installs a handler for the
 * notes, takes the K results with pvm_recv(-1, 22), then waits (pvm_trecv
 * on a tag nobody sends) until the handler has seen all K notes.  Handler
 * and main loop append "N<i>" and "R<i>" to one trace, printed at the end.
 * A note arrives while the master waits for the result after it, so the
 * handler runs inside that pvm_recv, after the master appended the
 * previous result: "N0 R0 N1 R1 ...".  A replay that ran the handler
 * before the previous result was appended would print "N0 N1 R0 ...".
 * Any error: stderr, exit 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>

#define TAG_NOTE 21
#define TAG_RESULT 22
#define TAG_NEVER 23

static int notes;
static char trace[32 * 8 + 16];

static void note(const char *what, int i)
{
    snprintf(trace + strlen(trace), sizeof trace - strlen(trace), " %s%d",
             what, i);
}

static int note_handler(int mid)
{
    int rbf = pvm_setrbuf(mid), v;

    pvm_upkint(&v, 1, 1);
    note("N", v);
    notes++;
    pvm_freebuf(pvm_setrbuf(rbf));
    return 0;
}

static int worker(int k)
{
    int parent = pvm_parent(), i;

    for (i = 0; i < k; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        pvm_send(parent, TAG_NOTE);
        usleep(30000);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&i, 1, 1);
        pvm_send(parent, TAG_RESULT);
        usleep(30000);
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    int k, i, v, tid;
    char ks[16], *args[3] = { "-worker", ks, NULL };
    struct timeval tick;

    if (argc > 2 && !strcmp(argv[1], "-worker"))
        return worker(atoi(argv[2]));
    k = argc > 1 ? atoi(argv[1]) : 4;
    if (k < 1 || k > 32 || pvm_mytid() < 0)
        return 2;
    if (pvm_addmhf(-1, TAG_NOTE, pvm_getcontext(), note_handler) < 0)
        return fprintf(stderr, "plain_mhf_late: pvm_addmhf failed\n"), 1;
    snprintf(ks, sizeof ks, "%d", k);
    if (pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &tid) != 1)
        return fprintf(stderr, "plain_mhf_late: cannot spawn\n"), 1;
    for (i = 0; i < k; i++) {
        if (pvm_recv(-1, TAG_RESULT) < 0 || pvm_upkint(&v, 1, 1) < 0)
            return fprintf(stderr, "plain_mhf_late: pvm_recv\n"), 1;
        note("R", v);
    }
    for (i = 0; notes < k && i < 10000; i++) {
        tick.tv_sec = 0;
        tick.tv_usec = 1000;
        pvm_trecv(-1, TAG_NEVER, &tick);
    }
    printf("notes %d results %d:%s\n", notes, k, trace);
    pvm_exit();
    return notes == k ? 0 : 1;
}
