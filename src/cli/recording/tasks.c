/*
 * tasks.c - pangaea -tasks: every task of a recorded run and how it ended,
 * and the summary it reads (runlog.h, top_run_load_summary).
 *
 * Design.  -tasks prints per task a few fields and its last message
 * event, and the run's counts of what matched: no event need be kept.
 * The logs are read through the recording's model (races.h: its tasks
 * and exec logs, rc_load_tasks; each comm log streamed by its reader,
 * rc_stream_comm) twice: the sends, kept in a bit or a few each, then
 * the receives, matched against them as the model matches (a receive
 * takes the send of its sender and message id that names its task).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
#include "pg_grow.h"
#include "races.h"
#include "runlog.h"
#include "top.h"

/* Terminal-safe copy: control characters from a log become '?'. */
static const char *tty_safe(const char *s, char *buf, size_t size)
{
    size_t i;

    for (i = 0; s[i] && i + 1 < size; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    buf[i] = 0;
    return buf;
}

static void print_last(FILE *fp, const struct top_run *run,
                       const struct top_event *e, char *buf, size_t size)
{
    fprintf(fp, "       last message: event %ld, %s", (long)e->seq,
            run->calls[e->call]);
    if (e->site >= 0)
        fprintf(fp, " at %s", tty_safe(run->sites[e->site], buf, size));
    fputc('\n', fp);
}

int top_tasks_print(const struct top_run *run, FILE *fp)
{
    char end[400], end2[400], parent[16], host[256], prog[1024];
    int i, hw = 4, w;

    for (i = 0; i < run->ntasks; i++)
        if ((w = (int)strlen(run->tasks[i].host)) > hw)
            hw = w;
    fprintf(fp, "%-6s %-6s %-*s %-32s %7s %7s  %s\n", "LTID", "PARENT", hw,
            "HOST", "ENDED", "SENDS", "RECVS", "PROGRAM");
    for (i = 0; i < run->ntasks; i++) {
        const struct top_task *t = &run->tasks[i];

        snprintf(parent, sizeof parent, "%d", t->parent);
        fprintf(fp, "%-6d %-6s %-*s %-32s %7d %7d  %s\n", t->ltid,
                t->parent < 0 ? "-" : parent, hw,
                tty_safe(t->host[0] ? t->host : "?", host, sizeof host),
                tty_safe(top_run_ending(t, end, sizeof end), end2, sizeof end2),
                t->nsend, t->nrecv,
                tty_safe(t->program[0] ? t->program : "?", prog, sizeof prog));
        if (t->note[0])
            fprintf(fp, "       note: %s\n",
                    tty_safe(t->note, prog, sizeof prog));
        if (t->nev > 0) /* where it last sent or received */
            print_last(fp, run, &run->ev[t->first + t->nev - 1], prog,
                       sizeof prog);
    }
    fprintf(fp, "%d tasks, %d sends, %d receives, %d messages matched, "
            "%d send destinations and %d receives unmatched\n", run->ntasks,
            run->nsends, run->nrecvs, run->nlinks, run->unmatched_sends,
            run->unmatched_recvs);
    return ferror(fp) ? -1 : 0;
}

/* ---- the summary: the logs streamed through the model ------------------ */

/* What the summary keeps of the sends, to match the receives against:
 * per sender, its point-to-point sends by message id (message ids grow
 * by one a send in a task's log: a slot a message id, and a bit a slot
 * whether a receive of its destination took it); the rest (multicasts,
 * a message id below its sender's first or far past its last, a second
 * send of one id) as before in a list with the destinations, found
 * through the model's matcher (rc_index).  A slot's destination is an
 * index into the sender's own palette of destinations, in as few bytes
 * as that palette needs: none while the sender sent every message id to
 * one task (a worker under a master), one below 255 destinations, else
 * two or four; a sender widens its slots when it needs to, and finds a
 * long palette's entries through the matcher too. */
#define CODE_NONE 0xFFFFFFFFu     /* no send of that message id */
#define CODE_NOLOG 0xFFFFFFFEu    /* a destination without a log */
#define HASH_FROM 8               /* palettes this long get an index */

struct dense {
    int base, n;          /* message ids base .. base+n-1 */
    size_t cap;
    int w;                /* bytes a slot: 0 (every slot present, the
                             palette's one destination), 1, 2 or 4 */
    void *code;           /* a palette index a slot, all ones: none */
    unsigned *pal;        /* the destinations: task index, or CODE_NOLOG */
    int npal;
    size_t cappal;
    struct rc_index hx;   /* the palette by destination, once it is */
    int hroom;            /* long (the model's matcher), room for hroom */
    unsigned char *taken; /* a bit a slot */
};

struct sums {
    struct rc_run m;      /* the model's tasks, exec logs and reader */
    struct top_run *run;
    struct dense *d;      /* per task */
    struct sum_send { int src, msgid, to, nto; } *snd;
    size_t nsnd, capsnd;
    int *dst;             /* the listed sends' destinations (ltids) */
    size_t ndst, capdst;
    char *taken;          /* per listed destination */
    struct rc_index x;    /* the listed sends by (sender, message id) */
    size_t capsites;      /* run->sites' */
};

static uint32_t none_of(int w)
{
    return w == 4 ? 0xFFFFFFFFu : (1u << (8 * w)) - 1;
}

static uint32_t slot_get(const void *code, int w, long i)
{
    return w == 1 ? ((const uint8_t *)code)[i]
           : w == 2 ? ((const uint16_t *)code)[i]
                    : ((const uint32_t *)code)[i];
}

static void slot_set(void *code, int w, long i, uint32_t c)
{
    if (w == 1)
        ((uint8_t *)code)[i] = (uint8_t)c;
    else if (w == 2)
        ((uint16_t *)code)[i] = (uint16_t)c;
    else
        ((uint32_t *)code)[i] = c;
}

/* Slot i's destination: a task index, CODE_NOLOG, or CODE_NONE. */
static unsigned code_at(const struct dense *d, long i)
{
    uint32_t c;

    if (i < 0 || i >= d->n)
        return CODE_NONE;
    if (d->w == 0)
        return d->pal[0];
    c = slot_get(d->code, d->w, i);
    return c == none_of(d->w) ? CODE_NONE : d->pal[c];
}

/* The sender's slots in w bytes each, re-coded (from a width of 0:
 * every slot palette index 0).  0, or -1 out of memory. */
static int widen(struct dense *d, int w)
{
    size_t cap = d->cap > (size_t)d->n + 16 ? d->cap : (size_t)d->n + 16;
    void *code = malloc(cap * (size_t)w);
    uint32_t c;
    long i;

    if (!code)
        return -1;
    for (i = 0; i < d->n; i++) {
        c = d->w == 0 ? 0 : slot_get(d->code, d->w, i);
        slot_set(code, w, i, d->w > 0 && c == none_of(d->w) ? none_of(w) : c);
    }
    free(d->code);
    d->code = code, d->cap = cap, d->w = w;
    return 0;
}

/* The palette's index (rc_index, keyed by destination), with room for
 * twice the palette.  0, or -1. */
static int reindex(struct dense *d)
{
    int j;

    rc_index_free(&d->hx);
    d->hroom = 2 * d->npal;
    if (rc_index_init(&d->hx, (size_t)d->hroom) < 0)
        return -1;
    for (j = 0; j < d->npal; j++)
        rc_index_add(&d->hx, rc_key((int)d->pal[j], 0, 0), j);
    return 0;
}

/* Destination code's index in the sender's palette, -1 if not there. */
static int pal_find(const struct dense *d, unsigned code)
{
    size_t at = RC_INDEX_START;
    int j;

    if (!d->hx.slot) {
        for (j = 0; j < d->npal; j++)
            if (d->pal[j] == code)
                return j;
        return -1;
    }
    while ((j = rc_index_next(&d->hx, rc_key((int)code, 0, 0), &at)) >= 0)
        if (d->pal[j] == code)
            return j;
    return -1;
}

/* Destination code's index in the sender's palette, added if new (and
 * the slots widened when the palette outgrows them).  -1 out of memory. */
static int pal_index(struct dense *d, unsigned code)
{
    int k = pal_find(d, code);

    if (k >= 0)
        return k;
    if (pg_grow(&d->pal, &d->cappal, (size_t)d->npal + 1, sizeof *d->pal) < 0)
        return -1;
    d->pal[k = d->npal++] = code;
    if (d->npal >= HASH_FROM && d->npal > d->hroom) {
        if (reindex(d) < 0)
            return -1;
    } else if (d->hx.slot) {
        rc_index_add(&d->hx, rc_key((int)code, 0, 0), k);
    }
    if (d->w > 0 && (uint32_t)k >= none_of(d->w) &&
        widen(d, d->w == 1 ? 2 : 4) < 0)
        return -1;
    return k;
}

/* Slot msgid of sender s for code: 1, 0 when it belongs in the list, -1
 * out of memory. */
static int dense_put(struct sums *sm, int s, int msgid, unsigned code)
{
    struct dense *d = &sm->d[s];
    long i;
    int k;

    if (d->n == 0)
        d->base = msgid;
    i = (long)msgid - d->base;
    if (i < 0 || i > 4L * d->n + 4096 || code_at(d, i) != CODE_NONE)
        return 0;
    if ((k = pal_index(d, code)) < 0)
        return -1;
    if (d->w == 0 && (k > 0 || i != d->n) && widen(d, 1) < 0)
        return -1; /* a second destination, or a message id skipped */
    if (d->w > 0) {
        if (pg_grow(&d->code, &d->cap, (size_t)i + 1, d->w) < 0)
            return -1;
        if (i >= d->n) /* the slots up to i are none; past it, untouched
                          (unresident until used) */
            memset((char *)d->code + (size_t)d->n * d->w, 0xFF,
                   (size_t)(i + 1 - d->n) * d->w);
        slot_set(d->code, d->w, i, (uint32_t)k);
    }
    if (i >= d->n)
        d->n = (int)i + 1;
    return 1;
}

static int list_send(struct sums *sm, int s, const pg_event *ev)
{
    if (pg_grow(&sm->snd, &sm->capsnd, sm->nsnd + 1, sizeof *sm->snd) < 0 ||
        pg_grow(&sm->dst, &sm->capdst, sm->ndst + ev->nto + 1,
                sizeof *sm->dst) < 0)
        return -1;
    sm->snd[sm->nsnd++] = (struct sum_send){ s, ev->msgid, (int)sm->ndst,
                                             ev->nto };
    memcpy(sm->dst + sm->ndst, ev->to, (size_t)ev->nto * sizeof *ev->to);
    sm->ndst += ev->nto;
    return 0;
}

/* The first pass's event of task ti: counted, kept if it is the task's
 * last message event so far, a send put where the receives find it. */
static int sum_send(struct rc_run *m, int ti, const pg_event *ev, void *arg)
{
    struct sums *sm = arg;
    struct top_run *run = sm->run;
    struct top_task *t = &run->tasks[ti];
    const pg_evdesc *d = pg_ev_desc(ev->kind);
    int c, r = 0;

    (void)m;
    if (!d || !d->message)
        return 0;
    run->ev[ti] = (struct top_event){ .task = ti, .kind = ev->kind,
        .call = top_run_call(run, ev->call ? ev->call : "?"),
        .tag = ev->tag, .msgid = ev->msgid, .bytes = ev->bytes,
        .from = ev->from, .partner = -1, .t = ev->t, .seq = ev->seq,
        .site = ev->site }; /* the model's site id, named at the end */
    t->nev = 1;
    if (ev->kind == PG_EV_RECV)
        t->nrecv++;
    if (ev->kind != PG_EV_SEND)
        return 0;
    t->nsend++;
    if (ev->nto == 1) {
        c = top_run_task(run, ev->to[0]);
        r = dense_put(sm, ti, ev->msgid, c < 0 ? CODE_NOLOG : (unsigned)c);
    }
    return r < 0 ? -1 : r ? 0 : list_send(sm, ti, ev);
}

/* A listed send of s with msgid to task ltid: its destination taken; 1,
 * or 0 when there is none. */
static int take_listed(struct sums *sm, int s, int msgid, int ltid)
{
    const struct sum_send *x;
    size_t at = RC_INDEX_START;
    int k, j, found = 0;

    while (!found && (k = rc_index_next(&sm->x, rc_key(s, msgid, 0), &at)) >= 0) {
        x = &sm->snd[k];
        if (x->src != s || x->msgid != msgid)
            continue;
        for (j = 0; j < x->nto; j++)
            if (sm->dst[x->to + j] == ltid)
                sm->taken[x->to + j] = 1, found = 1;
    }
    return found;
}

/* The second pass's event of task ti: a receive matched to its send. */
static int sum_recv(struct rc_run *m, int ti, const pg_event *ev, void *arg)
{
    struct sums *sm = arg;
    struct top_run *run = sm->run;
    int s;
    long i;

    (void)m;
    if (ev->kind != PG_EV_RECV)
        return 0;
    if ((s = top_run_task(run, ev->from)) < 0) {
        run->unmatched_recvs++;
        return 0;
    }
    i = (long)ev->msgid - sm->d[s].base;
    if (code_at(&sm->d[s], i) == (unsigned)ti)
        sm->d[s].taken[i / 8] |= (unsigned char)(1u << (i % 8));
    else if (!take_listed(sm, s, ev->msgid, run->tasks[ti].ltid)) {
        run->unmatched_recvs++;
        return 0;
    }
    run->nlinks++;
    return 0;
}

/* Between the passes: the taken bits, the list's index. */
static int sum_between(struct sums *sm)
{
    size_t i;
    int t;

    for (t = 0; t < sm->run->ntasks; t++)
        if (!(sm->d[t].taken = calloc((size_t)sm->d[t].n / 8 + 1, 1)))
            return -1;
    if (!(sm->taken = calloc(sm->ndst + 1, 1)) ||
        rc_index_init(&sm->x, sm->nsnd) < 0)
        return -1;
    for (i = 0; i < sm->nsnd; i++)
        rc_index_add(&sm->x, rc_key(sm->snd[i].src, sm->snd[i].msgid, 0),
                     (int)i);
    return 0;
}

/* The destinations no receive took, and the last events' sites named. */
static int sum_end(struct sums *sm)
{
    struct top_run *run = sm->run;
    char name[600];
    size_t i;
    int t, k;

    for (t = 0; t < run->ntasks; t++) {
        const struct dense *d = &sm->d[t];
        struct top_event *e = &run->ev[t];

        for (k = 0; k < d->n; k++)
            run->unmatched_sends += code_at(d, k) != CODE_NONE &&
                                    !(d->taken[k / 8] & (1u << (k % 8)));
        run->nsends += run->tasks[t].nsend;
        run->nrecvs += run->tasks[t].nrecv;
        if (run->tasks[t].nev == 0 || e->site < 1 ||
            e->site > sm->m.tasks[t].nsites) {
            e->site = -1;
            continue;
        }
        rc_site_name(&sm->m, t, e->site, name, sizeof name);
        if (pg_grow(&run->sites, &sm->capsites, (size_t)run->nsites + 1,
                    sizeof *run->sites) < 0 ||
            !(run->sites[run->nsites] = strdup(name)))
            return -1;
        e->site = run->nsites++;
    }
    for (i = 0; i < sm->ndst; i++)
        run->unmatched_sends += !sm->taken[i];
    return 0;
}

static int sum_passes(struct sums *sm, pg_err *err)
{
    struct top_run *run = sm->run;
    int t;

    for (t = 0; t < run->ntasks; t++) /* every ltid, for the sends' */
        top_run_task_of(&run->tasks[t], &sm->m, t);
    for (t = 0; t < run->ntasks; t++) {
        run->tasks[t].first = t;
        if (rc_stream_comm(&sm->m, t, sum_send, sm, err) < 0)
            return -1;
        top_run_task_of(&run->tasks[t], &sm->m, t); /* its comm log's too */
    }
    if (sum_between(sm) < 0)
        return pg_err_set(err, "out of memory loading %s", run->dir);
    for (t = 0; t < run->ntasks; t++)
        if (rc_stream_comm(&sm->m, t, sum_recv, sm, err) < 0)
            return -1;
    if (sum_end(sm) < 0)
        return pg_err_set(err, "out of memory loading %s", run->dir);
    return 0;
}

int top_run_load_summary(struct top_run *run, const char *dir, pg_err *err)
{
    struct sums sm = { .run = run };
    int t, rc;

    memset(run, 0, sizeof *run);
    if (!realpath(dir, run->dir))
        return pg_err_set(err, "no log directory %s: %s", dir,
                          strerror(errno));
    if (rc_load_tasks(&sm.m, run->dir, err) < 0)
        return rc_free(&sm.m), -1;
    run->ntasks = sm.m.ntasks;
    run->tasks = calloc((size_t)run->ntasks + 1, sizeof *run->tasks);
    run->ev = calloc((size_t)run->ntasks + 1, sizeof *run->ev);
    sm.d = calloc((size_t)run->ntasks + 1, sizeof *sm.d);
    rc = !run->tasks || !run->ev || !sm.d
         ? pg_err_set(err, "out of memory loading %s", run->dir)
         : sum_passes(&sm, err);
    run->nev = run->ntasks;
    for (t = 0; sm.d && t < run->ntasks; t++)
        run->kept_sends += (size_t)sm.d[t].n * sm.d[t].w +
                           (size_t)sm.d[t].n / 8 +
                           (size_t)sm.d[t].npal * sizeof *sm.d[t].pal +
                           (sm.d[t].hx.slot ? (sm.d[t].hx.mask + 1) *
                                              sizeof *sm.d[t].hx.slot : 0);
    for (t = 0; sm.d && t < run->ntasks; t++)
        free(sm.d[t].code), free(sm.d[t].taken), free(sm.d[t].pal),
            rc_index_free(&sm.d[t].hx);
    free(sm.d), free(sm.snd), free(sm.dst), free(sm.taken);
    rc_index_free(&sm.x);
    rc_free(&sm.m);
    return rc < 0 ? -1 : 0;
}
