/*
 * runlog.c - a recorded run as a graph (see runlog.h) for the post-mortem
 * modes: derived from the one model of the recording, and a summary.
 *
 * Design.  The display and the exports need the whole run at once (a line
 * joins events of two logs).  The logs are read once, by the recording's
 * model (races.c, rc_load_view: every kind of event, each receive matched
 * to its send once, the columns the views need beside); the graph is
 * derived from it: tasks in ltid order, their sends and receives
 * contiguous, send destinations in one int array, one link per matched
 * receive (the model's match: the receive names its sender and message
 * id), and graph_of to find a model's event in the graph, so that the
 * races found on the same model (display_races.c, perfetto.c) are drawn
 * without a second load.  A log that ends early (its task crashed) keeps
 * what it holds, with a note; a send destination that no receive took,
 * or a receive whose send is not in the logs (selective logging, a
 * crashed sender), stays unmatched and is counted.
 *
 * The summary (-tasks) streams the logs instead and keeps a few bytes a
 * message, matched with the model's matcher (races.h, rc_index).
 *
 * The logical order is lamport.c's.
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "races.h" /* pg_site_name */
#include "runlog.h"
#include "top.h"

#include "log_table.h"
#include "pg_grow.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- the directory ---------------------------------------------------- */

/* The tasks are the ltids that have a log, each once, in order. */
static int scan_dir(struct top_run *run, pg_err *err)
{
    int *ids, n = top_log_ltids(run->dir, 1, &ids), i;

    if (n < 0)
        return pg_err_set(err, "cannot read the log directory %s: %s",
                          run->dir, strerror(errno));
    run->tasks = calloc(n ? n : 1, sizeof *run->tasks);
    for (i = 0; run->tasks && i < n; i++) {
        run->tasks[i].ltid = ids[i];
        run->tasks[i].parent = -1;
    }
    free(ids);
    run->ntasks = n;
    if (!run->tasks)
        return pg_err_set(err, "out of memory");
    if (n == 0)
        return pg_err_set(err, "no log in %s (no ltid-N.comm.pgc or "
                          "ltid-N.exec.xml): record a run first with "
                          "pangaea -log", run->dir);
    return 0;
}

_Static_assert(offsetof(struct top_task, ltid) == 0, "top_find_ltid reads the ltid first");

int top_run_task(const struct top_run *run, int ltid)
{
    return top_find_ltid(run->tasks, run->ntasks, sizeof *run->tasks, ltid);
}

/* ---- reading the logs ------------------------------------------------- */

static void add_note(struct top_task *t, const char *what)
{
    size_t n = strlen(t->note);

    snprintf(t->note + n, sizeof t->note - n, "%s%s", n ? "; " : "", what);
}

static void take_header(struct top_task *t, const pg_log_header *h)
{
    if (!t->program[0])
        snprintf(t->program, sizeof t->program, "%s", h->program);
    if (!t->host[0])
        snprintf(t->host, sizeof t->host, "%s", h->host);
}

static int intern_call(struct top_run *run, const char *call)
{
    int i;

    for (i = 0; i < run->ncalls; i++)
        if (!strcmp(run->calls[i], call))
            return i;
    if (run->ncalls == (int)(sizeof run->calls / sizeof run->calls[0]))
        return 0;
    run->calls[run->ncalls] = strdup(call);
    return run->calls[run->ncalls] ? run->ncalls++ : 0;
}

struct loader {
    size_t evcap, tocap;
    int *site;           /* this task's site ids (1, 2...) -> run->sites */
    size_t sitecap;
    int nsite;
    size_t namecap, partcap;
};

/* A <site> of the task being read: named once (site_name.c, libdw), the
 * name kept once per run, so events of any task can point at it. */
static int take_site(struct top_run *run, struct loader *ld,
                     const pg_event *pe)
{
    char name[600];
    int i;

    if (pe->site != ld->nsite + 1 || !pe->module)
        return 0; /* ids go 1, 2, 3...: another is no site of ours */
    pg_site_name(pe->module, pe->offset, name, sizeof name);
    for (i = 0; i < run->nsites && strcmp(run->sites[i], name); i++)
        ;
    if (pg_grow(&ld->site, &ld->sitecap, (size_t)ld->nsite + 1,
                sizeof *ld->site) < 0 ||
        (i == run->nsites &&
         (pg_grow(&run->sites, &ld->namecap, (size_t)run->nsites + 1,
                  sizeof *run->sites) < 0 ||
          pg_grow(&run->site_parts, &ld->partcap, (size_t)run->nsites + 1,
                  sizeof *run->site_parts) < 0 ||
          !(run->sites[run->nsites] = strdup(name)))))
        return -1;
    if (i == run->nsites) {
        struct top_site *p = &run->site_parts[run->nsites++];

        pg_site_parts(pe->module, pe->offset, p->file, sizeof p->file,
                      p->func, sizeof p->func, &p->line);
    }
    ld->site[ld->nsite++] = i;
    return 0;
}

static int add_event(struct top_run *run, struct loader *ld, int task,
                     const pg_event *pe)
{
    struct top_event *e;

    if (pg_grow(&run->ev, &ld->evcap, run->nev + 1, sizeof *run->ev) < 0 ||
        pg_grow(&run->to, &ld->tocap, run->nto + pe->nto + 1,
                sizeof *run->to) < 0)
        return -1;
    e = &run->ev[run->nev++];
    memset(e, 0, sizeof *e);
    e->task = task;
    e->kind = pe->kind;
    e->call = intern_call(run, pe->call ? pe->call : "?");
    e->tag = pe->tag;
    e->msgid = pe->msgid;
    e->bytes = pe->bytes;
    e->from = pe->from;
    e->partner = -1;
    e->t = pe->t;
    e->seq = pe->seq;
    e->site = pe->site >= 1 && pe->site <= ld->nsite ? ld->site[pe->site - 1]
                                                     : -1;
    if (pe->kind == PG_EV_SEND) {
        e->to = run->nto;
        e->nto = pe->nto;
        memcpy(run->to + run->nto, pe->to, (size_t)pe->nto * sizeof *pe->to);
        run->nto += pe->nto;
    }
    return 0;
}

/* Reads one log of task ti; `each` takes every event. */
static void read_log(struct top_run *run, int ti, pg_log_kind kind,
                     int (*each)(struct top_run *, int, const pg_event *,
                                 void *), void *arg)
{
    struct top_task *t = &run->tasks[ti];
    char path[4200];
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    int rc;

    pg_log_path(path, sizeof path, run->dir, t->ltid, kind);
    r = pg_logr_open(path, kind, &h, &err);
    if (!r) {
        add_note(t, err.msg);
        return;
    }
    take_header(t, &h);
    while ((rc = pg_logr_next(r, &ev, &err)) == 1) {
        if (ev.kind == PG_EV_END) {
            t->ended = 1;
            t->status = ev.status;
        } else if (each(run, ti, &ev, arg) < 0) {
            add_note(t, "out of memory");
            break;
        }
    }
    if (rc < 0)
        add_note(t, err.msg);
    pg_logr_close(r);
}

static int take_spawn(struct top_run *run, int ti, const pg_event *ev,
                      void *arg)
{
    struct top_task *t = &run->tasks[ti];
    char name[600];
    int i, c;

    if (ev->kind == PG_EV_CRASH) { /* how it died, kept by its recording */
        t->signal = ev->value;
        snprintf(t->crash_at, sizeof t->crash_at, "%s",
                 ev->module && ev->module[0]
                     ? pg_site_name(ev->module, ev->offset, name, sizeof name)
                     : "");
        return 0;
    }
    if (ev->kind != PG_EV_SPAWN)
        return 0;
    for (i = 0; i < ev->nchild; i++)
        if ((c = top_run_task(run, ev->child_ltid[i])) >= 0)
            run->tasks[c].parent = run->tasks[ti].ltid;
    return 0;
}

/* ---- matching --------------------------------------------------------- */

static int cmp_link(const void *a, const void *b)
{
    const struct top_link *x = a, *y = b;

    if (x->send != y->send)
        return (x->send > y->send) - (x->send < y->send);
    return (x->recv > y->recv) - (x->recv < y->recv);
}

int top_run_links_of(const struct top_run *run, int s, int *first)
{
    int lo = 0, hi = run->nlinks, mid, n;

    while (lo < hi) { /* the first link whose send is >= s */
        mid = lo + (hi - lo) / 2;
        if (run->links[mid].send < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (n = 0; lo + n < run->nlinks && run->links[lo + n].send == s; n++)
        ;
    *first = lo;
    return n;
}

int top_run_taken(const struct top_run *run, int s, int d)
{
    int first, n = top_run_links_of(run, s, &first), i;

    for (i = first; i < first + n; i++)
        if (run->tasks[run->ev[run->links[i].recv].task].ltid == d)
            return 1;
    return 0;
}

/* ---- a summary (-tasks) ---------------------------------------------- */

/* What -tasks needs of a run, without its events: per task its counts
 * and its last message event (run->ev holds that one), and the messages
 * in a few bytes each (a send: ltid, msgid, destinations; a receive:
 * sender, msgid, receiver) to count what matched.  About 20 bytes an
 * event where the whole run takes 95 (and its Lamport order). */
struct summary {
    struct loader ld;
    struct sum_send { int ltid, msgid, to, nto; } *snd;
    size_t nsnd, capsnd;
    int *dst;             /* every send's destinations */
    size_t ndst, capdst;
    struct sum_recv { int from, msgid, ltid; } *rcv;
    size_t nrcv, caprcv;
};

static int take_summary(struct top_run *run, int ti, const pg_event *ev,
                        void *arg)
{
    struct summary *sm = arg;
    struct top_task *t = &run->tasks[ti];
    const pg_evdesc *d = pg_ev_desc(ev->kind);

    if (ev->kind == PG_EV_SITE)
        return take_site(run, &sm->ld, ev);
    if (!d || !d->message)
        return 0;
    run->nev = t->first, run->nto = 0; /* only the last one stays */
    if (add_event(run, &sm->ld, ti, ev) < 0)
        return -1;
    if (ev->kind == PG_EV_SEND) {
        if (pg_grow(&sm->snd, &sm->capsnd, sm->nsnd + 1, sizeof *sm->snd) < 0 ||
            pg_grow(&sm->dst, &sm->capdst, sm->ndst + ev->nto + 1,
                    sizeof *sm->dst) < 0)
            return -1;
        sm->snd[sm->nsnd++] = (struct sum_send){ t->ltid, ev->msgid,
                                                 (int)sm->ndst, ev->nto };
        memcpy(sm->dst + sm->ndst, ev->to, (size_t)ev->nto * sizeof *ev->to);
        sm->ndst += ev->nto;
        t->nsend++;
    } else if (ev->kind == PG_EV_RECV) {
        if (pg_grow(&sm->rcv, &sm->caprcv, sm->nrcv + 1, sizeof *sm->rcv) < 0)
            return -1;
        sm->rcv[sm->nrcv++] = (struct sum_recv){ ev->from, ev->msgid,
                                                 t->ltid };
        t->nrecv++;
    }
    return 0;
}

/* The counts match() makes, from the summary: a receive matches the
 * first send of its (sender, msgid); a destination of a send is taken
 * when a receive of that task matched it. */
static int match_summary(struct top_run *run, struct summary *sm)
{
    char *taken = calloc(sm->ndst + 1, 1);
    const struct sum_send *s;
    struct rc_index x;
    size_t i, at;
    int j, k;

    if (!taken || rc_index_init(&x, sm->nsnd) < 0)
        return free(taken), -1;
    for (i = 0; i < sm->nsnd; i++)
        rc_index_add(&x, rc_key(sm->snd[i].ltid, sm->snd[i].msgid, 0), (int)i);
    for (i = 0; i < sm->nrcv; i++) {
        const struct sum_recv *r = &sm->rcv[i];

        at = RC_INDEX_START; /* the first send of (sender, msgid) */
        while ((k = rc_index_next(&x, rc_key(r->from, r->msgid, 0), &at)) >= 0 &&
               (sm->snd[k].ltid != r->from || sm->snd[k].msgid != r->msgid))
            ;
        if (k < 0) {
            run->unmatched_recvs++;
            continue;
        }
        run->nlinks++;
        s = &sm->snd[k];
        for (j = 0; j < s->nto; j++)
            taken[s->to + j] |= sm->dst[s->to + j] == r->ltid;
    }
    for (i = 0; i < sm->ndst; i++)
        run->unmatched_sends += !taken[i];
    free(taken);
    rc_index_free(&x);
    return 0;
}

/* What both loads start with: run emptied, the directory resolved, its
 * tasks found.  0, or -1 and err. */
static int begin_load(struct top_run *run, const char *dir, pg_err *err)
{
    memset(run, 0, sizeof *run);
    if (!realpath(dir, run->dir))
        return pg_err_set(err, "no log directory %s: %s", dir,
                          strerror(errno));
    return scan_dir(run, err);
}

int top_run_load_summary(struct top_run *run, const char *dir, pg_err *err)
{
    struct summary sm = {0};
    int i, rc = 0;

    if (begin_load(run, dir, err) < 0)
        return -1;
    for (i = 0; i < run->ntasks; i++) {
        struct top_task *t = &run->tasks[i];

        read_log(run, i, PG_LOG_EXEC, take_spawn, NULL);
        t->first = run->nev;
        sm.ld.nsite = 0; /* site ids are the task's own */
        read_log(run, i, PG_LOG_COMM, take_summary, &sm);
        t->nev = run->nev - t->first;
        run->nsends += t->nsend;
        run->nrecvs += t->nrecv;
    }
    if (match_summary(run, &sm) < 0)
        rc = pg_err_set(err, "out of memory loading %s", run->dir);
    free(sm.ld.site), free(sm.snd), free(sm.dst), free(sm.rcv);
    return rc;
}

/* ---- the graph, derived from the model -------------------------------- */

/* What deriving needs beside the run: growable arrays' capacities, and
 * the current task's site ids -> run->sites. */
struct deriver {
    size_t evcap, tocap, namecap, partcap, barcap;
    int *site;
    size_t sitecap;
    int nsite;
};

/* Names task ti's call sites (libdw, site_name.c), each name once per
 * run, so that events of any task can point at it. */
static int name_sites(struct top_run *run, struct deriver *dv, int ti)
{
    const struct rc_run *m = run->model;
    const struct rc_task *k = &m->tasks[ti];
    char name[600];
    int j, i;

    dv->nsite = 0;
    for (j = 0; j < k->nsites; j++) {
        const char *module = m->text + k->sites[j].module;

        pg_site_name(module, k->sites[j].offset, name, sizeof name);
        for (i = 0; i < run->nsites && strcmp(run->sites[i], name); i++)
            ;
        if (pg_grow(&dv->site, &dv->sitecap, (size_t)j + 1,
                    sizeof *dv->site) < 0 ||
            (i == run->nsites &&
             (pg_grow(&run->sites, &dv->namecap, (size_t)run->nsites + 1,
                      sizeof *run->sites) < 0 ||
              pg_grow(&run->site_parts, &dv->partcap,
                      (size_t)run->nsites + 1, sizeof *run->site_parts) < 0 ||
              !(run->sites[run->nsites] = strdup(name)))))
            return -1;
        if (i == run->nsites) {
            struct top_site *p = &run->site_parts[run->nsites++];

            pg_site_parts(module, k->sites[j].offset, p->file, sizeof p->file,
                          p->func, sizeof p->func, &p->line);
        }
        dv->site[dv->nsite++] = i;
    }
    return 0;
}

static int site_of(const struct deriver *dv, int id)
{
    return id >= 1 && id <= dv->nsite ? dv->site[id - 1] : -1;
}

/* Model event i (a barrier) where it lies among the graph's events. */
static int derive_barrier(struct top_run *run, struct deriver *dv, int ti,
                          int i)
{
    const struct rc_run *m = run->model;
    const struct rc_ev *e = &m->ev[i];
    struct top_barrier *b;

    if (pg_grow(&run->barriers, &dv->barcap, (size_t)run->nbarriers + 1,
                sizeof *run->barriers) < 0)
        return -1;
    b = &run->barriers[run->nbarriers++];
    b->task = ti;
    b->before = run->nev;
    b->t = m->view->t[i];
    b->site = site_of(dv, e->site);
    b->count = RC_BARRIER_COUNT(e);
    snprintf(b->group, sizeof b->group, "%s", m->text + m->bars[e->a].group);
    return 0;
}

/* Model event i (a send or a receive) as the graph's next event. */
static int derive_event(struct top_run *run, struct deriver *dv, int ti,
                        int i)
{
    const struct rc_run *m = run->model;
    const struct rc_ev *x = &m->ev[i];
    struct top_event *e;
    int nto = x->kind == PG_EV_SEND ? x->nto : 0;

    if (pg_grow(&run->ev, &dv->evcap, (size_t)run->nev + 1,
                sizeof *run->ev) < 0 ||
        pg_grow(&run->to, &dv->tocap, (size_t)(run->nto + nto) + 1,
                sizeof *run->to) < 0)
        return -1;
    run->graph_of[i] = run->nev;
    e = &run->ev[run->nev++];
    memset(e, 0, sizeof *e);
    e->task = ti;
    e->kind = x->kind;
    e->call = intern_call(run, x->call < pg_n_msg_calls ? pg_msg_calls[x->call]
                                                        : "?");
    e->tag = x->tag;
    e->msgid = x->msgid;
    e->bytes = m->view->bytes[i];
    e->from = x->kind == PG_EV_RECV ? x->from : 0;
    e->partner = -1;
    e->t = m->view->t[i];
    e->waited = m->view->waited[i];
    e->seq = x->seq;
    e->site = site_of(dv, x->site);
    if (nto) {
        e->to = run->nto;
        e->nto = nto;
        memcpy(run->to + run->nto, m->view->to + x->a,
               (size_t)nto * sizeof *run->to);
        run->nto += nto;
    }
    return 0;
}

/* Task ti: what its logs said, its events (sends and receives: pg_events.def
 * says which kinds are messages) and its barriers. */
static int derive_task(struct top_run *run, struct deriver *dv, int ti)
{
    const struct rc_run *m = run->model;
    const struct rc_task *k = &m->tasks[ti];
    const struct rc_vtask *v = &m->view->tasks[ti];
    struct top_task *t = &run->tasks[ti];
    int i;

    t->ltid = k->ltid;
    t->parent = k->parent >= 0 ? m->tasks[k->parent].ltid : -1;
    memcpy(t->program, v->program, sizeof t->program);
    memcpy(t->host, v->host, sizeof t->host);
    t->ended = v->ended, t->status = v->status, t->signal = v->signal;
    memcpy(t->crash_at, v->crash_at, sizeof t->crash_at);
    memcpy(t->note, v->note, sizeof t->note);
    if (name_sites(run, dv, ti) < 0)
        return -1;
    t->first = run->nev;
    for (i = k->first; i < k->first + k->n; i++) {
        const pg_evdesc *d = pg_ev_desc(m->ev[i].kind);

        run->graph_of[i] = -1;
        if (m->ev[i].kind == PG_EV_BARRIER && derive_barrier(run, dv, ti, i) < 0)
            return -1;
        if (d && d->message && derive_event(run, dv, ti, i) < 0)
            return -1;
    }
    t->nev = run->nev - t->first;
    for (i = t->first; i < run->nev; i++) {
        t->nsend += run->ev[i].kind == PG_EV_SEND;
        t->nrecv += run->ev[i].kind == PG_EV_RECV;
    }
    return 0;
}

/* Each receive's send, as the model matched it (its message entry names
 * the send): one link of the graph each, in send order then receive
 * order; the destinations no receive took counted. */
static int derive_links(struct top_run *run)
{
    const struct rc_run *m = run->model;
    int i, s, r, j;

    if (!(run->links = malloc((size_t)(run->nrecvs ? run->nrecvs : 1) *
                              sizeof *run->links)))
        return -1;
    for (i = 0; i < m->nev; i++) {
        const struct rc_ev *x = &m->ev[i];
        const struct rc_msg *g;

        if (x->kind != PG_EV_RECV || (r = run->graph_of[i]) < 0)
            continue;
        g = x->a >= 0 ? &m->msg[x->a] : NULL;
        if (!g || g->src < 0 ||
            (s = run->graph_of[m->tasks[g->src].first + g->src_pos - 1]) < 0) {
            run->unmatched_recvs++;
            continue;
        }
        run->ev[r].partner = s;
        run->ev[s].nmatch++;
        run->links[run->nlinks++] = (struct top_link){ s, r };
    }
    qsort(run->links, run->nlinks, sizeof *run->links, cmp_link);
    for (i = 0; i < run->nev; i++)
        for (j = 0; run->ev[i].kind == PG_EV_SEND && j < run->ev[i].nto; j++)
            run->unmatched_sends +=
                !top_run_taken(run, i, run->to[run->ev[i].to + j]);
    return 0;
}

static int derive_spawns(struct top_run *run)
{
    const struct rc_view *v = run->model->view;
    int i;

    if (!(run->spawns = malloc(((size_t)v->nspawns + 1) * sizeof *run->spawns)))
        return -1;
    for (i = 0; i < v->nspawns; i++)
        run->spawns[i] = (struct top_spawn){ v->spawns[i].task,
                                             v->spawns[i].child,
                                             v->spawns[i].t };
    run->nspawns = v->nspawns;
    return 0;
}

/* The graph of the model: every array of struct top_run. */
static int derive(struct top_run *run)
{
    struct deriver dv = { 0 };
    const struct rc_run *m = run->model;
    int i, rc = 0;

    run->ntasks = m->ntasks;
    if (!(run->tasks = calloc((size_t)m->ntasks + 1, sizeof *run->tasks)) ||
        !(run->graph_of = malloc(((size_t)m->nev + 1) * sizeof *run->graph_of)))
        return -1;
    for (i = 0; rc == 0 && i < m->ntasks; i++) {
        rc = derive_task(run, &dv, i);
        run->nsends += run->tasks[i].nsend;
        run->nrecvs += run->tasks[i].nrecv;
    }
    free(dv.site);
    if (rc < 0 || derive_links(run) < 0 || derive_spawns(run) < 0)
        return -1;
    for (i = 0; i < run->nev; i++)
        if (i == 0 || run->ev[i].t < run->tmin)
            run->tmin = run->ev[i].t;
    return 0;
}

/* ---- the API ---------------------------------------------------------- */

int top_run_load(struct top_run *run, const char *dir, pg_err *err)
{
    memset(run, 0, sizeof *run);
    if (!realpath(dir, run->dir))
        return pg_err_set(err, "no log directory %s: %s", dir,
                          strerror(errno));
    if (!(run->model = calloc(1, sizeof *run->model)))
        return pg_err_set(err, "out of memory loading %s", run->dir);
    if (rc_load_view(run->model, run->dir, err) < 0)
        return -1;
    if (derive(run) < 0 || top_run_order(run) < 0)
        return pg_err_set(err, "out of memory loading %s", run->dir);
    return 0;
}

void top_run_free(struct top_run *run)
{
    int i;

    for (i = 0; i < run->ncalls; i++)
        free((char *)run->calls[i]);
    for (i = 0; i < run->nsites; i++)
        free(run->sites[i]);
    free(run->sites);
    free(run->site_parts);
    free(run->barriers);
    free(run->spawns);
    free(run->tasks);
    free(run->ev);
    free(run->to);
    free(run->links);
    free(run->graph_of);
    if (run->model)
        rc_free(run->model);
    free(run->model);
    memset(run, 0, sizeof *run);
}

int top_run_is_send(const struct top_event *e)
{
    return e->kind == PG_EV_SEND;
}

const char *top_run_ending(const struct top_task *t, char *buf, int size)
{
    if (t->signal)
        snprintf(buf, size, "died of SIG%s%s%s",
                 sigabbrev_np(t->signal) ? sigabbrev_np(t->signal) : "?",
                 t->crash_at[0] ? " at " : "", t->crash_at);
    else if (t->ended)
        snprintf(buf, size, "status %d", t->status);
    else
        snprintf(buf, size, "no end: crashed or still running");
    return buf;
}
