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
 * The summary (-tasks, tasks.c) streams the logs through the same model's
 * reader instead, keeping no event.
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
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- tasks and calls --------------------------------------------------- */

_Static_assert(offsetof(struct top_task, ltid) == 0, "top_find_ltid reads the ltid first");
_Static_assert(sizeof(struct top_event) == 48, "runlog.h: an event of the graph is 48 bytes");

int top_run_task(const struct top_run *run, int ltid)
{
    return top_find_ltid(run->tasks, run->ntasks, sizeof *run->tasks, ltid);
}

int top_run_call(struct top_run *run, const char *call)
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

int top_run_links_next(const struct top_run *run, int s, int *at)
{
    int n;

    while (*at < run->nlinks && run->links[*at].send < s)
        (*at)++;
    for (n = 0; *at + n < run->nlinks && run->links[*at + n].send == s; n++)
        ;
    return n;
}

int top_run_taken_in(const struct top_run *run, int first, int n, int d)
{
    int i;

    for (i = first; i < first + n; i++)
        if (run->tasks[run->ev[run->links[i].recv].task].ltid == d)
            return 1;
    return 0;
}

int top_run_taken(const struct top_run *run, int s, int d)
{
    int first, n = top_run_links_of(run, s, &first);

    return top_run_taken_in(run, first, n, d);
}

/* ---- the graph, derived from the model -------------------------------- */

/* What deriving needs beside the run: growable arrays' capacities, and
 * the current task's site ids -> run->sites. */
struct deriver {
    size_t evcap, tocap, namecap, partcap, barcap;
    int *site;
    size_t sitecap;
    int nsite;
    int lean;     /* the model's events are given back too */
    int done;     /* the model's events [0, done) are derived, or -1 when
                     a task did not follow the one before (nothing more
                     is given back) */
    uintptr_t rel_t, rel_b, rel_e; /* given back up to there */
};

/* A stretch of the model's events before which every one is derived:
 * marks [0, upto) so, and gives back their times and sizes (and in a
 * lean load the events) every GIVE_BACK events. */
#define GIVE_BACK 65536
static void derived_upto(struct top_run *run, struct deriver *dv, int upto);

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
    e->call = top_run_call(run, x->call < pg_n_msg_calls ? pg_msg_calls[x->call]
                                                        : "?");
    e->tag = x->tag;
    e->msgid = x->msgid;
    e->bytes = m->view->bytes[i];
    if (x->kind == PG_EV_RECV) { /* partner: its send's model index, until
                                    derive_links makes it the graph's */
        const struct rc_msg *g = x->a >= 0 ? &m->msg[x->a] : NULL;

        e->from = x->from;
        e->partner = g && g->src >= 0 ? m->tasks[g->src].first + g->src_pos - 1
                                      : -1;
    }
    e->t = m->view->t[i];
    e->seq = rc_ev_seq(m, ti, i - m->tasks[ti].first + 1);
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

void top_run_task_of(struct top_task *t, const struct rc_run *m, int ti)
{
    const struct rc_task *k = &m->tasks[ti];
    const struct rc_vtask *v = &m->view->tasks[ti];

    t->ltid = k->ltid;
    t->parent = k->parent >= 0 ? m->tasks[k->parent].ltid : -1;
    memcpy(t->program, v->program, sizeof t->program);
    memcpy(t->host, v->host, sizeof t->host);
    t->ended = v->ended, t->status = v->status, t->signal = v->signal;
    memcpy(t->crash_at, v->crash_at, sizeof t->crash_at);
    memcpy(t->note, v->note, sizeof t->note);
}

/* Task ti: what its logs said, its events (sends and receives: pg_events.def
 * says which kinds are messages) and its barriers. */
static int derive_task(struct top_run *run, struct deriver *dv, int ti)
{
    const struct rc_run *m = run->model;
    const struct rc_task *k = &m->tasks[ti];
    struct top_task *t = &run->tasks[ti];
    int i;

    top_run_task_of(t, m, ti);
    if (name_sites(run, dv, ti) < 0)
        return -1;
    t->first = run->nev;
    if (dv->done != k->first)
        dv->done = -1;
    for (i = k->first; i < k->first + k->n; i++) {
        const pg_evdesc *d = pg_ev_desc(m->ev[i].kind);

        if (dv->done >= 0 && i - dv->done >= GIVE_BACK)
            derived_upto(run, dv, i);
        run->graph_of[i] = -1;
        if (m->ev[i].kind == PG_EV_BARRIER && derive_barrier(run, dv, ti, i) < 0)
            return -1;
        if (d && d->message && derive_event(run, dv, ti, i) < 0)
            return -1;
    }
    t->nev = run->nev - t->first;
    if (dv->done >= 0)
        derived_upto(run, dv, k->first + k->n);
    for (i = t->first; i < run->nev; i++) {
        t->nsend += run->ev[i].kind == PG_EV_SEND;
        t->nrecv += run->ev[i].kind == PG_EV_RECV;
    }
    return 0;
}

/* Each receive's send, as the model matched it (derive_event kept the
 * send's index in the model): one link of the graph each, in send order
 * then receive order; the destinations no receive took counted.  The
 * model itself is not read: a lean load has freed it by now. */
static int derive_links(struct top_run *run)
{
    int i, s, r, j, n, at;

    if (!(run->links = malloc((size_t)(run->nrecvs ? run->nrecvs : 1) *
                              sizeof *run->links)))
        return -1;
    for (r = 0; r < run->nev; r++) {
        if (run->ev[r].kind != PG_EV_RECV)
            continue;
        s = run->ev[r].partner >= 0 ? run->graph_of[run->ev[r].partner] : -1;
        run->ev[r].partner = s;
        if (s < 0) {
            run->unmatched_recvs++;
            continue;
        }
        run->links[run->nlinks++] = (struct top_link){ s, r };
    }
    qsort(run->links, run->nlinks, sizeof *run->links, cmp_link);
    for (i = 0, at = 0; i < run->nev; i++) { /* sends in order: one walk */
        if (run->ev[i].kind != PG_EV_SEND)
            continue;
        n = top_run_links_next(run, i, &at);
        for (j = 0; j < run->ev[i].nto; j++)
            run->unmatched_sends +=
                !top_run_taken_in(run, at, n, run->to[run->ev[i].to + j]);
    }
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

/* A column of the model's view (n elements of size bytes) that the graph
 * has copied up to element upto: its whole pages from *rel (an address,
 * 0 at first) to there are given back to the system (MADV_DONTNEED), so
 * the model's times and sizes do not stay resident beside the graph's
 * copy while the rest is derived; the column is freed after.  Pages only
 * inside the block (its allocator's headers are outside it). */
static void release_column(void *col, size_t size, size_t upto,
                           uintptr_t *rel)
{
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a, b;

    if (!col || pg == 0 || (pg & (pg - 1)))
        return;
    a = ((uintptr_t)col + pg - 1) & ~(pg - 1);
    a = *rel > a ? *rel : a;
    b = ((uintptr_t)col + upto * size) & ~(pg - 1);
    if (b > a && madvise((void *)a, b - a, MADV_DONTNEED) == 0)
        *rel = b;
}

static void derived_upto(struct top_run *run, struct deriver *dv, int upto)
{
    const struct rc_run *m = run->model;

    dv->done = upto;
    release_column(m->view->t, sizeof *m->view->t, (size_t)upto, &dv->rel_t);
    release_column(m->view->bytes, sizeof *m->view->bytes, (size_t)upto,
                   &dv->rel_b);
    if (dv->lean)
        release_column(m->ev, sizeof *m->ev, (size_t)upto, &dv->rel_e);
}

/* The model given back once the graph is derived (a lean load): what of
 * it the races need later is whether they can be found, and its size,
 * against which a second load is checked (top_run_model). */
static void free_model(struct top_run *run)
{
    run->model_nev = run->model->nev;
    run->no_races = run->model->view->unanalysable[0] != 0;
    rc_free(run->model);
    free(run->model);
    run->model = NULL;
}

/* The graph of the model: every array of struct top_run.  The model's
 * tasks are contiguous in its events, in order (rc_load_view): once a
 * task is derived, the times and sizes of the events up to its last are
 * copied and given back (release_column), and in a lean load the model's
 * events too; should a task not follow the one before, nothing more is
 * given back.  A lean load frees the model before the links are made. */
static int derive(struct top_run *run, int lean)
{
    struct deriver dv = { 0 };
    const struct rc_run *m = run->model;
    int i, rc = 0;

    dv.lean = lean;
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
    if (rc < 0 || derive_spawns(run) < 0)
        return -1;
    if (lean)
        free_model(run);
    if (derive_links(run) < 0)
        return -1;
    for (i = 0; i < run->nev; i++)
        if (i == 0 || run->ev[i].t < run->tmin)
            run->tmin = run->ev[i].t;
    return 0;
}

/* ---- the API ---------------------------------------------------------- */

/* The model's columns only the graph was derived from (times, sizes,
 * waits, destinations: 18 bytes an event): the graph holds them now, and
 * the races found later read the analysis' arrays alone, so the peak
 * while they are found is lower by as much. */
static void drop_view_columns(struct rc_view *v)
{
    free(v->t), free(v->bytes), free(v->waited), free(v->to);
    v->t = NULL, v->bytes = v->waited = v->to = NULL;
    v->cap_t = v->cap_bytes = v->cap_waited = v->cap_to = 0;
}

static int load(struct top_run *run, const char *dir, int lean, pg_err *err)
{
    memset(run, 0, sizeof *run);
    if (!realpath(dir, run->dir))
        return pg_err_set(err, "no log directory %s: %s", dir,
                          strerror(errno));
    if (!(run->model = calloc(1, sizeof *run->model)))
        return pg_err_set(err, "out of memory loading %s", run->dir);
    if (rc_load_view_nowaits(run->model, run->dir, err) < 0)
        return -1; /* no view of the graph shows the waits: not read in */
    if (derive(run, lean) < 0 || top_run_order(run) < 0)
        return pg_err_set(err, "out of memory loading %s", run->dir);
    if (run->model)
        drop_view_columns(run->model->view);
    return 0;
}

int top_run_load(struct top_run *run, const char *dir, pg_err *err)
{
    return load(run, dir, 0, err);
}

int top_run_load_lean(struct top_run *run, const char *dir, pg_err *err)
{
    return load(run, dir, 1, err);
}

/* The analysis' own load (no view columns: what -races loads), checked
 * against the first: the same events, task by task, or the logs changed
 * in between (graph_of would name other events). */
int top_run_model(struct top_run *run, pg_err *err)
{
    int i, same, nev;

    if (run->model || run->no_races)
        return 0;
    if (!(run->model = calloc(1, sizeof *run->model)))
        return pg_err_set(err, "out of memory loading %s", run->dir);
    if (rc_load_logs(run->model, run->dir, err) < 0) {
        rc_free(run->model), free(run->model), run->model = NULL;
        return -1;
    }
    nev = run->model->nev;
    same = nev == run->model_nev && run->model->ntasks == run->ntasks;
    for (i = 0; same && i < run->ntasks; i++)
        same = run->tasks[i].ltid == run->model->tasks[i].ltid;
    if (!same) {
        rc_free(run->model), free(run->model), run->model = NULL;
        return pg_err_set(err, "the logs in %s changed while they were read "
                          "(%d events, then %d)", run->dir, run->model_nev,
                          nev);
    }
    return 0;
}

void top_run_drop_events(struct top_run *run)
{
    free(run->ev), free(run->links), free(run->to);
    run->ev = NULL, run->links = NULL, run->to = NULL;
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
