/*
 * coord_client.c - talking to the coordinator: tid <-> ltid.
 *
 * A task knows the ltids of itself and of its children; for any other peer
 * it asks the coordinator once and keeps the answer (PVM tids are never
 * reused within a run).  Control messages travel in Pangaea's own context,
 * and the program's current receive buffer is put aside while we receive, so
 * the program never sees any of this.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

/* ---- a small int -> int map (open addressing, keys never 0) ------------- */
struct imap {
    int *k, *v;
    int cap, n;
};

static int imap_get(const struct imap *m, int key, int *val)
{
    unsigned i;

    if (!m->cap)
        return 0;
    for (i = (unsigned)key * 2654435761u; ; i++) {
        i &= m->cap - 1;
        if (m->k[i] == 0)
            return 0;
        if (m->k[i] == key) {
            *val = m->v[i];
            return 1;
        }
    }
}

static void imap_put(struct imap *m, int key, int val);

static void imap_grow(struct imap *m)
{
    struct imap big = { 0 };
    int i;

    big.cap = m->cap ? m->cap * 2 : 64;
    big.k = calloc(big.cap, sizeof *big.k);
    big.v = calloc(big.cap, sizeof *big.v);
    if (!big.k || !big.v)
        pg_fatal("out of memory");
    for (i = 0; i < m->cap; i++)
        if (m->k[i])
            imap_put(&big, m->k[i], m->v[i]);
    free(m->k);
    free(m->v);
    *m = big;
}

static void imap_put(struct imap *m, int key, int val)
{
    unsigned i;

    if ((m->n + 1) * 2 > m->cap)
        imap_grow(m);
    for (i = (unsigned)key * 2654435761u; ; i++) {
        i &= m->cap - 1;
        if (m->k[i] == 0 || m->k[i] == key)
            break;
    }
    if (m->k[i] == 0)
        m->n++;
    m->k[i] = key;
    m->v[i] = val;
}

/* ltid 0 is a valid value but not a valid key: keys are stored plus one. */
static struct imap by_tid, by_ltid;

void pg_ltid_remember(int tid, int ltid)
{
    imap_put(&by_tid, tid, ltid);
    imap_put(&by_ltid, ltid + 1, tid);
}

int pg_ltid_cached(int tid, int *ltid)
{
    return imap_get(&by_tid, tid, ltid);
}

/* ---- control messages ------------------------------------------------------ */
static int ctl_send(int to, int tag, const int *v, int n, const char *s1,
                    const char *s2)
{
    int octx, obuf, buf, cc;

    octx = pvm_setcontext(pg.ctx);
    buf = pg_real.mkbuf(PvmDataDefault);
    obuf = pvm_setsbuf(buf);
    pvm_pkint((int *)v, n, 1);
    if (s1)
        pvm_pkstr((char *)s1);
    if (s2)
        pvm_pkstr((char *)s2);
    cc = pg_real.send(to, tag);
    pvm_setsbuf(obuf);
    pvm_freebuf(buf);
    pvm_setcontext(octx);
    return cc;
}

static int ctl_recv(int from, int tag, int *v, int n)
{
    int octx, orbuf, buf, cc;

    octx = pvm_setcontext(pg.ctx);
    orbuf = pvm_setrbuf(0);
    buf = pg_real.recv(from, tag);
    cc = buf < 0 ? buf : pvm_upkint(v, n, 1);
    if (buf > 0)
        pvm_freebuf(buf);
    pvm_setrbuf(orbuf);
    pvm_setcontext(octx);
    return cc;
}

int pg_coord_register(void)
{
    int v[3] = { pg.ltid, pg.tid, 0 };

    pg_ltid_remember(pg.tid, pg.ltid);
    return ctl_send(pg.coord, PG_TAG_REGISTER, v, 3, pg.program, pg.host);
}

void pg_coord_killing(int ltid)
{
    ctl_send(pg.coord, PG_TAG_KILLING, &ltid, 1, NULL, NULL);
}

void pg_coord_announce(int child_ltid, int child_tid)
{
    int v[2] = { child_ltid, child_tid };

    pg_ltid_remember(child_tid, child_ltid);
    ctl_send(pg.coord, PG_TAG_ANNOUNCE, v, 2, NULL, NULL);
}

static int whois(int kind, int key, int *tid, int *ltid)
{
    int q[2] = { kind, key }, r[2];

    if (ctl_send(pg.coord, PG_TAG_WHOIS, q, 2, NULL, NULL) < 0 ||
        ctl_recv(pg.coord, PG_TAG_WHOIS_R, r, 2) < 0)
        pg_fatal("the coordinator t%x does not answer", pg.coord);
    *tid = r[0];
    *ltid = r[1];
    if (*ltid >= 0 && *tid > 0)
        pg_ltid_remember(*tid, *ltid);
    else if (kind == PG_KEY_TID) /* not TID_NOW: it may come later */
        imap_put(&by_tid, key, -1); /* outside the run: asked once only */
    return 0;
}

int pg_ltid_of(int tid)
{
    int ltid, t;

    if (imap_get(&by_tid, tid, &ltid))
        return ltid;
    whois(PG_KEY_TID, tid, &t, &ltid);
    return ltid;
}

int pg_ltid_now(int tid)
{
    int ltid, t;

    if (imap_get(&by_tid, tid, &ltid))
        return ltid;
    whois(PG_KEY_TID_NOW, tid, &t, &ltid);
    return ltid;
}

int pg_peer_ltid(int tid)
{
    int ltid = pg_ltid_of(tid);

    return ltid >= 0 ? ltid : PG_LTID_OUTSIDE;
}

int pg_tid_of(int ltid)
{
    int tid, l;

    if (imap_get(&by_ltid, ltid + 1, &tid))
        return tid;
    whois(PG_KEY_LTID, ltid, &tid, &l);
    return tid;
}

int pg_coord_new_ltid(int k)
{
    int q[2] = { pg.ltid, k }, ltid = -1;

    if (ctl_send(pg.coord, PG_TAG_NEWLTID, q, 2, NULL, NULL) < 0 ||
        ctl_recv(pg.coord, PG_TAG_NEWLTID_R, &ltid, 1) < 0)
        pg_fatal("the coordinator t%x does not answer", pg.coord);
    return ltid;
}

int pg_coord_ctx_name(int ctx, int name)
{
    int q[2] = { ctx, name }, r = 0;

    if (ctl_send(pg.coord, PG_TAG_CTXNAME, q, 2, NULL, NULL) < 0 ||
        ctl_recv(pg.coord, PG_TAG_CTXNAME_R, &r, 1) < 0)
        pg_fatal("the coordinator t%x does not answer", pg.coord);
    return r;
}

void pg_coord_group(const int *tids, int n)
{
    int *v = malloc((n + 1) * sizeof *v); /* n, then the tids */

    if (!v)
        pg_fatal("out of memory");
    v[0] = n;
    memcpy(v + 1, tids, n * sizeof *v);
    ctl_send(pg.coord, PG_TAG_SIBLINGS, v, n + 1, NULL, NULL);
    free(v);
}

int pg_coord_siblings(int **tids)
{
    int q[2] = { PG_KEY_SIBS, pg.tid }, n = 0, octx, orbuf, buf;

    if (ctl_send(pg.coord, PG_TAG_WHOIS, q, 2, NULL, NULL) < 0)
        pg_fatal("the coordinator t%x does not answer", pg.coord);
    octx = pvm_setcontext(pg.ctx);
    orbuf = pvm_setrbuf(0);
    buf = pg_real.recv(pg.coord, PG_TAG_SIBS_R);
    if (buf > 0 && pvm_upkint(&n, 1, 1) >= 0 && n > 0 &&
        (*tids = malloc(n * sizeof **tids)))
        pvm_upkint(*tids, n, 1);
    if (buf > 0)
        pvm_freebuf(buf);
    pvm_setrbuf(orbuf);
    pvm_setcontext(octx);
    return n;
}

void pg_coord_exit(int status)
{
    int v[3] = { pg.ltid, status, pg.nspawned };

    ctl_send(pg.coord, PG_TAG_EXIT, v, 3, NULL, NULL);
}

void pg_coord_report(int kind, const char *text)
{
    int v[2] = { pg.ltid, kind };

    /* A divergence stops the run (monitor.c kills its tasks): what the
     * program printed before it goes out first, not lost in its buffer. */
    if (kind == PG_REP_DIVERGED && !pg_forked_child())
        fflush(NULL);
    ctl_send(pg.top, PG_TAG_REPORT, v, 2, text, NULL);
}

/* The end of this task's output, sent to `pangaea` when PVM will send it
 * elsewhere: the message PVM would send (tid, count 0), in the context
 * `pangaea` gave output (the task's PvmSelfOutputContext is PVM's). */
void pg_output_elsewhere(void)
{
    int v[2];

    if (pg.ltid <= 0 || pg.top <= 0 ||
        pg_real.getopt(PvmSelfOutputTid) == pg.top)
        return;
    v[0] = pg.tid;
    v[1] = 0;
    ctl_send(pg.top, PG_TAG_OUTPUT, v, 2, NULL, NULL);
}

/* Said once per call and task (the flag is the wrapper's own), by
 * `pangaea` on its stderr: the task's own stderr is collected with its
 * output, where the line's place among other tasks' would differ. */
void pg_name_once(const char *call, int *said)
{
    char text[1100];

    if (*said)
        return;
    *said = 1;
    if (pg.top <= 0) {
        pg_warn("%s is not replayed: this run may not repeat", call);
        return;
    }
    snprintf(text, sizeof text, "ltid %d (%.900s): %s is not replayed: this "
             "run may not repeat", pg.ltid, pg.program, call);
    pg.depth++; /* PVM's calls in the report are ours (no PG_LEAVE: the
                   stops of stop.c belong to the program's calls) */
    pg_coord_report(PG_REP_NOTE, text);
    pg.depth--;
}

/* A turn among the joins and leaves of a group (the coordinator's
 * group_order.c): the next one when recording (want -1), the recorded one
 * in replay, which may take long: a wait past PANGAEA_STALL is reported. */
int pg_coord_turn(const char *call, const char *group, int want)
{
    struct timeval slice;
    struct pg_wait wait;
    int octx, orbuf, buf, order = -1;
    char msg[400];

    ctl_send(pg.coord, PG_TAG_GTURN, &want, 1, group, NULL);
    pg_wait_start(&wait);
    octx = pvm_setcontext(pg.ctx);
    orbuf = pvm_setrbuf(0);
    for (;;) {
        slice.tv_sec = 1;
        slice.tv_usec = 0;
        if ((buf = pg_real.trecv(pg.coord, PG_TAG_GTURN_R, &slice)) != 0)
            break;
        if (pg_wait_overdue(&wait)) {
            snprintf(msg, sizeof msg, "waits in %s for turn %d of group "
                     "\"%.100s\" (its joins and leaves)", call, want, group);
            pg_wait_report(msg);
        }
    }
    if (buf > 0) {
        pvm_upkint(&order, 1, 1);
        pvm_freebuf(buf);
    }
    pvm_setrbuf(orbuf);
    pvm_setcontext(octx);
    if (buf < 0)
        pg_fatal("the coordinator t%x does not answer", pg.coord);
    pg_wait_end(&wait);
    return order;
}

void pg_coord_turn_done(const char *group)
{
    ctl_send(pg.coord, PG_TAG_GDONE, NULL, 0, group, NULL);
}

/* A replay wait that lasted PANGAEA_STALL seconds (pg_wait_overdue) is
 * reported to `pangaea`, and so is its end.  pangaea says so, unless a
 * task is stopped on purpose (-stop, -debug): the wait is then expected. */
void pg_wait_report(const char *what)
{
    pg_coord_report(PG_REP_STALL, what);
}

void pg_wait_end(const struct pg_wait *w)
{
    if (w->said)
        pg_coord_report(PG_REP_RESUMED, "");
}
