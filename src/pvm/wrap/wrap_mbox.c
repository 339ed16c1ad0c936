/*
 * wrap_mbox.c - the mailbox: pvm_putinfo, pvm_recvinfo, pvm_delinfo,
 * pvm_getmboxinfo, and the old database calls pvm_insert, pvm_lookup,
 * pvm_delete that PVM 3.4 keeps on top of it.
 *
 * The mailbox is the virtual machine's shared memory: which task's entry
 * gets index 0, what an entry holds when read, which entries exist, all
 * depend on who came first.  Each call is a <query> event: what it asked
 * (the name, and the index where there is one: "name#index") and what it
 * returned; what it handed back beyond that number is a record of the data
 * file (datafile.c): an entry read by pvm_recvinfo ('M', as a message from
 * outside the run: outside.c builds it again), the classes of
 * pvm_getmboxinfo ('X'), the datum of pvm_lookup ('L').
 *
 * A replay still makes the real call (an entry put is there for whoever
 * reads the mailbox outside the replay) but gives the program the recorded
 * answer, so the program sees the recording's mailbox whatever the order
 * of the replay's tasks.  The real call is made silent there (PvmAutoErr
 * 0): what PVM prints is what the recorded answer makes it print, with
 * PVM's own lpvmerr, as PVM does for every error but PvmNotFound.  pvm_recvinfo is the exception: it does not ask
 * PVM, whose entry may be another by now; it makes the recorded entry the
 * active receive buffer, freeing the one before, as PVM does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

/* A call of the program's own, recorded or replayed here (pangaea itself,
 * ltid 0, is not a task of the run). */
static int mbox_app(void)
{
    return pg_app_call() && pg.ltid != 0 && pg_selected(-1);
}

/* What the question was: "name" or "name#index". */
static const char *about_of(char *buf, size_t size, const char *name,
                            int index, int has_index)
{
    if (has_index)
        snprintf(buf, size, "%.256s#%d", name ? name : "", index);
    else
        snprintf(buf, size, "%.256s", name ? name : "");
    return buf;
}

/* libpvm3's error report: "libpvm [tTID]: CALL(): TEXT" on stderr when
 * PvmAutoErr is set, as PVM's own calls print it. */
int lpvmerr(const char *call, int code);

/* Replay: the real call that follows says nothing (the recorded answer
 * decides what is said); returns the PvmAutoErr to put back, or -1. */
static int hush(void)
{
    int was;

    if (!pg_replaying())
        return -1;
    was = pvm_getopt(PvmAutoErr);
    pvm_setopt(PvmAutoErr, 0);
    return was;
}

static void unhush(int was)
{
    if (was >= 0)
        pvm_setopt(PvmAutoErr, was);
}

/* Replay of a recorded answer: what PVM printed for it. */
static int recorded(const char *call, const char *about)
{
    int cc = pg_replay_query(call, about);

    if (cc < 0 && cc != PvmNotFound)
        lpvmerr(call, cc);
    return cc;
}

/* The answer the program gets: the real one `cc`, logged (recording), or
 * the recorded one (replay, a what-if while it follows its old logs). */
static int settle(const char *call, const char *about, int cc)
{
    if (pg_replaying())
        cc = recorded(call, about);
    if (pg.mode == PANGAEA_LOG)
        pg_record_query(call, about, cc);
    return cc;
}

int pvm_putinfo(char *name, int bufid, int flags)
{
    char about[300];
    int cc, quiet;

    PG_RETURN_REAL_UNLESS(putinfo, mbox_app(), pg_real.putinfo(name, bufid, flags));
    PG_ENTER();
    quiet = hush();
    cc = pg_real.putinfo(name, bufid, flags);
    unhush(quiet);
    cc = settle("pvm_putinfo", about_of(about, sizeof about, name, 0, 0), cc);
    PG_LEAVE();
    return cc;
}

int pvm_delinfo(char *name, int index, int flags)
{
    char about[300];
    int cc, quiet;

    PG_RETURN_REAL_UNLESS(delinfo, mbox_app(), pg_real.delinfo(name, index, flags));
    PG_ENTER();
    quiet = hush();
    cc = pg_real.delinfo(name, index, flags);
    unhush(quiet);
    cc = settle("pvm_delinfo", about_of(about, sizeof about, name, index, 1),
                cc);
    PG_LEAVE();
    return cc;
}

/* The recorded entry becomes the receive buffer, as PVM's pvm_recvinfo
 * makes the entry it read: the program unpacks it next. */
static int replay_entry(void)
{
    int src, bufid = pg_outside_take(&src), old = pvm_setrbuf(bufid);

    if (old > 0 && old != bufid)
        pvm_freebuf(old);
    return bufid;
}

int pvm_recvinfo(char *name, int index, int flags)
{
    char about[300];
    int cc;

    PG_RETURN_REAL_UNLESS(recvinfo, mbox_app(), pg_real.recvinfo(name, index, flags));
    PG_ENTER();
    about_of(about, sizeof about, name, index, 1);
    if (pg_replaying()) {
        cc = recorded("pvm_recvinfo", about);
        if (cc > 0)
            cc = replay_entry();
    } else {
        cc = pg_real.recvinfo(name, index, flags);
    }
    if (pg.mode == PANGAEA_LOG) {
        if (cc > 0)
            pg_outside_put(cc);
        pg_record_query("pvm_recvinfo", about, cc > 0 ? 1 : cc);
    }
    if (cc > 0) /* the buffer id as recorded (bufid.c) */
        cc = pg_bufid_seen(cc);
    PG_LEAVE();
    return cc;
}

/* ---- pvm_getmboxinfo: the classes, as one 'X' record ------------------ *
 * Per class: the name's length and bytes, the entry count, then per entry
 * its index, its owner's ltid (PG_LTID_OUTSIDE: not a task of the run),
 * the owner's tid as recorded and its flags; all int32. */
struct xbuf {
    char *b;
    size_t n, cap;
};

static void xput(struct xbuf *x, const void *p, size_t n)
{
    if (x->n + n > x->cap) {
        x->cap = (x->n + n) * 2 + 64;
        if (!(x->b = realloc(x->b, x->cap)))
            pg_fatal("out of memory");
    }
    memcpy(x->b + x->n, p, n);
    x->n += n;
}

static void xint(struct xbuf *x, int v)
{
    int32_t w = v;

    xput(x, &w, sizeof w);
}

static void put_classes(int n, const struct pvmmboxinfo *c)
{
    struct xbuf x = { NULL, 0, 0 };
    int i, e, len;

    for (i = 0; i < n; i++) {
        len = c[i].mi_name ? (int)strlen(c[i].mi_name) : 0;
        xint(&x, len);
        xput(&x, c[i].mi_name ? c[i].mi_name : "", len);
        xint(&x, c[i].mi_nentries);
        for (e = 0; e < c[i].mi_nentries; e++) {
            xint(&x, c[i].mi_indices[e]);
            xint(&x, pg_peer_ltid(c[i].mi_owners[e]));
            xint(&x, c[i].mi_owners[e]);
            xint(&x, c[i].mi_flags[e]);
        }
    }
    pg_data_put('X', x.b ? x.b : "", x.n);
    free(x.b);
}

/* Reading an 'X' record: *at moves on; a record too short is a bad log. */
static int xget(const char *rec, size_t n, size_t *at)
{
    int32_t w;

    if (*at + sizeof w > n)
        pg_fatal("ltid-%d.data.pgc: a recorded pvm_getmboxinfo answer is "
                 "cut short (%zu bytes): the data file is damaged", pg.ltid,
                 n);
    memcpy(&w, rec + *at, sizeof w);
    *at += sizeof w;
    return w;
}

/* Class c as recorded from *at on: its name and entries, owners by their
 * ltid's tid in this run. */
static void take_class(const char *rec, size_t len, size_t *at,
                       struct pvmmboxinfo *c)
{
    int e, k = xget(rec, len, at), ltid, tid;

    if (k < 0 || *at + k > len || !(c->mi_name = malloc(k + 1)))
        pg_fatal("ltid-%d.data.pgc: a recorded pvm_getmboxinfo class "
                 "name is damaged", pg.ltid);
    memcpy(c->mi_name, rec + *at, k);
    c->mi_name[k] = 0;
    *at += k;
    k = c->mi_nentries = xget(rec, len, at);
    if (k < 0 || (size_t)k > len / 16 + 1)
        pg_fatal("ltid-%d.data.pgc: a recorded pvm_getmboxinfo class "
                 "has %d entries", pg.ltid, k);
    c->mi_indices = malloc((k + 1) * sizeof(int));
    c->mi_owners = malloc((k + 1) * sizeof(int));
    c->mi_flags = malloc((k + 1) * sizeof(int));
    if (!c->mi_indices || !c->mi_owners || !c->mi_flags)
        pg_fatal("out of memory");
    for (e = 0; e < k; e++) {
        c->mi_indices[e] = xget(rec, len, at);
        ltid = xget(rec, len, at);
        tid = xget(rec, len, at);
        c->mi_owners[e] = ltid >= 0 ? pg_tid_of(ltid) : tid;
        c->mi_flags[e] = xget(rec, len, at);
    }
}

/* The n recorded classes, rebuilt where the previous answer was (PVM,
 * too, keeps its answer only until the next call). */
static struct pvmmboxinfo *take_classes(int n)
{
    static struct pvmmboxinfo *cls;
    static int ncls;
    size_t len, at = 0;
    char *rec = pg_data_get('X', &len);
    int i;

    for (i = 0; i < ncls; i++) {
        free(cls[i].mi_name), free(cls[i].mi_indices);
        free(cls[i].mi_owners), free(cls[i].mi_flags);
    }
    free(cls);
    cls = NULL, ncls = 0;
    if ((size_t)n > len / 8) /* a class takes 8 bytes at least */
        pg_fatal("ltid-%d.data.pgc: %d recorded pvm_getmboxinfo classes "
                 "in %zu bytes", pg.ltid, n, len);
    if (!(cls = calloc(n > 0 ? n : 1, sizeof *cls)))
        pg_fatal("out of memory");
    for (ncls = n, i = 0; i < n; i++)
        take_class(rec, len, &at, &cls[i]);
    free(rec);
    return cls;
}

int pvm_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes)
{
    char about[300];
    struct pvmmboxinfo *got = NULL;
    int cc, n = 0, quiet;

    PG_RETURN_REAL_UNLESS(getmboxinfo, mbox_app(),
                          pg_real.getmboxinfo(pattern, nclasses, classes));
    PG_ENTER();
    about_of(about, sizeof about, pattern, 0, 0);
    quiet = hush();
    cc = pg_real.getmboxinfo(pattern, &n, &got);
    unhush(quiet);
    if (pg_replaying()) {
        n = recorded("pvm_getmboxinfo", about);
        got = n >= 0 ? take_classes(n) : NULL;
        cc = n >= 0 ? PvmOk : n;
    }
    if (pg.mode == PANGAEA_LOG) { /* a what-if records what it follows too */
        pg_record_query("pvm_getmboxinfo", about, cc < 0 ? cc : n);
        if (cc >= 0)
            put_classes(n, got);
    }
    if (cc >= 0 && nclasses)
        *nclasses = n;
    if (cc >= 0 && classes)
        *classes = got;
    PG_LEAVE();
    return cc;
}

/* ---- the old database: pvm_insert, pvm_lookup, pvm_delete -------------- */
int pvm_insert(char *name, int req, int data)
{
    char about[300];
    int cc, quiet;

    PG_RETURN_REAL_UNLESS(insert, mbox_app(), pg_real.insert(name, req, data));
    PG_ENTER();
    quiet = hush();
    cc = pg_real.insert(name, req, data);
    unhush(quiet);
    cc = settle("pvm_insert", about_of(about, sizeof about, name, req, 1), cc);
    PG_LEAVE();
    return cc;
}

/* The datum found is an 'L' record after the query, when one was found. */
int pvm_lookup(char *name, int req, int *datap)
{
    char about[300];
    int cc, datum = 0, quiet;
    int32_t *rec;
    size_t n;

    PG_RETURN_REAL_UNLESS(lookup, mbox_app(), pg_real.lookup(name, req, datap));
    PG_ENTER();
    about_of(about, sizeof about, name, req, 1);
    quiet = hush();
    cc = pg_real.lookup(name, req, &datum);
    unhush(quiet);
    if (pg_replaying()) {
        cc = recorded("pvm_lookup", about);
        if (cc >= 0) {
            rec = pg_data_get('L', &n);
            if (n != sizeof *rec)
                pg_fatal("ltid-%d.data.pgc: a recorded pvm_lookup datum of "
                         "%zu bytes (not 4)", pg.ltid, n);
            datum = *rec;
            free(rec);
        }
    }
    if (pg.mode == PANGAEA_LOG) { /* a what-if records what it follows too */
        pg_record_query("pvm_lookup", about, cc);
        if (cc >= 0)
            pg_data_put('L', &(int32_t){ datum }, sizeof(int32_t));
    }
    if (cc >= 0 && datap)
        *datap = datum;
    PG_LEAVE();
    return cc;
}

int pvm_delete(char *name, int req)
{
    char about[300];
    int cc, quiet;

    PG_RETURN_REAL_UNLESS(delete, mbox_app(), pg_real.delete(name, req));
    PG_ENTER();
    quiet = hush();
    cc = pg_real.delete(name, req);
    unhush(quiet);
    cc = settle("pvm_delete", about_of(about, sizeof about, name, req, 1), cc);
    PG_LEAVE();
    return cc;
}
