/*
 * plain_mailbox.c - workers race for the mailbox; the master reads it.
 *
 *   plain_mailbox mbox [K]   the mailbox: pvm_putinfo, pvm_recvinfo,
 *                            pvm_getmboxinfo, pvm_delinfo
 *   plain_mailbox db [K]     the old database: pvm_insert, pvm_lookup,
 *                            pvm_delete
 *
 * Built against PVM alone (tests preload Pangaea).
 *
 * Design.  The master spawns K (default 4, at most 16) copies of itself;
 * each waits a random 0-3 ms (seeded by its pid) and then adds its entry,
 * "w<i>" (mbox: a message put with PvmMboxMultiInstance) or i (db:
 * pvm_insert with req -1), so which worker's entry gets which index
 * depends on who came first.  Each tells the master the index it got.
 * The master prints, in worker order, the index each got, then reads
 * every index back (pvm_recvinfo and unpacks the entry as the active
 * receive buffer; or pvm_lookup) and prints what it holds; mbox: also
 * what pvm_getmboxinfo says (entries, and which worker owns each).  Then
 * it tells the workers to go, and each deletes its entry (pvm_delinfo,
 * pvm_delete: only the owner may) and reports what the call returned.
 * Runs print other orders; a replay must print the recorded one.  Any
 * PVM error: a message on stderr, exit 1.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

#define MBOX "plain_mailbox"
#define MAXW 16
#define TAG_INDEX 7
#define TAG_GO 8
#define TAG_DEL 9

static int fail(const char *what, int cc)
{
    fprintf(stderr, "plain_mailbox: %s: %d\n", what, cc);
    return 1;
}

static int send_ints(int to, int tag, int a, int b)
{
    int v[2] = { a, b };

    if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkint(v, 2, 1) < 0)
        return -1;
    return pvm_send(to, tag);
}

static int worker(int db, int me)
{
    unsigned seed = (unsigned)getpid() * 2654435761u;
    char text[16];
    int index, cc;

    usleep((useconds_t)(rand_r(&seed) % 3000));
    if (db) {
        index = pvm_insert(MBOX, -1, me);
    } else {
        snprintf(text, sizeof text, "w%d", me);
        if (pvm_initsend(PvmDataDefault) < 0 || pvm_pkstr(text) < 0)
            return fail("pack", -1);
        index = pvm_putinfo(MBOX, pvm_getsbuf(), PvmMboxMultiInstance);
    }
    if (index < 0)
        return fail(db ? "pvm_insert" : "pvm_putinfo", index);
    if (send_ints(pvm_parent(), TAG_INDEX, me, index) < 0)
        return fail("send", -1);
    /* an entry lives while its owner does: wait until it was read */
    if (pvm_recv(pvm_parent(), TAG_GO) < 0)
        return fail("recv", -1);
    cc = db ? pvm_delete(MBOX, index)
            : pvm_delinfo(MBOX, index, PvmMboxDefault);
    if (send_ints(pvm_parent(), TAG_DEL, me, cc) < 0)
        return fail("send", -1);
    pvm_exit();
    return 0;
}

static int worker_of(const int *tids, int k, int tid)
{
    int i;

    for (i = 0; i < k; i++)
        if (tids[i] == tid)
            return i;
    return -1;
}

/* What pvm_getmboxinfo says of the class: entries, and their owners. */
static int show_classes(const int *tids, int k)
{
    struct pvmmboxinfo *cls;
    int n, e, cc = pvm_getmboxinfo(MBOX, &n, &cls);

    if (cc < 0)
        return fail("pvm_getmboxinfo", cc);
    printf("classes %d", n);
    if (n > 0) {
        printf(", %s has %d:", cls[0].mi_name, cls[0].mi_nentries);
        for (e = 0; e < cls[0].mi_nentries; e++)
            printf(" %d=w%d", cls[0].mi_indices[e],
                   worker_of(tids, k, cls[0].mi_owners[e]));
    }
    printf("\n");
    return 0;
}

static int read_back(int db, int k)
{
    char text[16];
    int i, mid, datum, cc;

    for (i = 0; i < k; i++) {
        if (db) {
            if ((cc = pvm_lookup(MBOX, i, &datum)) < 0)
                return fail("pvm_lookup", cc);
            printf("entry %d holds w%d\n", i, datum);
            continue;
        }
        if ((mid = pvm_recvinfo(MBOX, i, PvmMboxDefault)) <= 0)
            return fail("pvm_recvinfo", mid);
        if ((cc = pvm_upkstr(text)) < 0)
            return fail("unpack of the entry", cc);
        printf("entry %d holds %s\n", i, text);
    }
    return 0;
}

static int collect(int k, int tag, const char *what, int *got)
{
    int i, v[2];

    for (i = 0; i < k; i++) {
        if (pvm_recv(-1, tag) < 0 || pvm_upkint(v, 2, 1) < 0)
            return fail("recv", -1);
        if (v[0] >= 0 && v[0] < k)
            got[v[0]] = v[1];
    }
    for (i = 0; i < k; i++)
        printf("w%d %s %d\n", i, what, got[i]);
    return 0;
}

int main(int argc, char **argv)
{
    int db, k, tids[MAXW], got[MAXW], i, cc;
    char self[PATH_MAX], iarg[16], *args[] = { "-worker", NULL, iarg, NULL };
    ssize_t n;

    if (argc > 3 && !strcmp(argv[1], "-worker"))
        return worker(!strcmp(argv[2], "db"), atoi(argv[3]));
    db = argc > 1 && !strcmp(argv[1], "db");
    k = argc > 2 ? atoi(argv[2]) : 4;
    if (argc < 2 || (!db && strcmp(argv[1], "mbox")) || k < 1 || k > MAXW) {
        fprintf(stderr, "usage: plain_mailbox mbox|db [K (1..%d)]\n", MAXW);
        return 2;
    }
    if (pvm_mytid() < 0 || (n = readlink("/proc/self/exe", self,
                                         sizeof self - 1)) <= 0)
        return 1;
    self[n] = 0;
    args[1] = argv[1];
    for (i = 0; i < k; i++) {
        snprintf(iarg, sizeof iarg, "%d", i);
        if ((cc = pvm_spawn(self, args, PvmTaskDefault, "", 1, &tids[i])) != 1)
            return fail("pvm_spawn", cc);
    }
    if (collect(k, TAG_INDEX, "got index", got) || read_back(db, k))
        return 1;
    if (!db && show_classes(tids, k))
        return 1;
    for (i = 0; i < k; i++)
        if (send_ints(tids[i], TAG_GO, 0, 0) < 0)
            return fail("send", -1);
    if (collect(k, TAG_DEL, "deleted its entry:", got))
        return 1;
    pvm_exit();
    return 0;
}
