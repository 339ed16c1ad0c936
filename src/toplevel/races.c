/*
 * races.c - a recording loaded for `pangaea -races` (races.h), and its
 * happened-before relation as vector clocks computed offline.
 *
 * Design.  Every communication log is read once through pg_logr into flat
 * arrays (an event is 40 bytes, races.h; strings are interned); each message gets
 * one entry per destination, and a receive the index of the entry it took
 * (a hash on sender, message id and destination).  Spawns come from the
 * execution logs; since those are another file, a spawn is placed among
 * the parent's communication events by its time stamp (one clock: the
 * parent's).
 *
 * The clocks are races_clock.c's: memory is events (48 bytes), message
 * entries (40 bytes a destination) and clock snapshots (24 bytes, one
 * per run of sends between receives, and 12 bytes a task learnt from).
 */
#include "races.h"

#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
#include "pg_grow.h"
#include "pg_log.h"
#include "top.h"

/* ---- memory --------------------------------------------------------------- */

/* Interns s; its offset into run->text, -1 when out of memory. */
static int intern(struct rc_run *run, const char *s)
{
    int i = 0, len = (int)strlen(s) + 1;

    while (i < run->ntext) { /* few distinct strings: modules, groups */
        if (!strcmp(run->text + i, s))
            return i;
        i += (int)strlen(run->text + i) + 1;
    }
    if (pg_grow(&run->text, &run->cap_text, (size_t)(run->ntext + len) + 1, 1) < 0)
        return -1;
    memcpy(run->text + run->ntext, s, len);
    run->ntext += len;
    return i;
}

/* ---- the directory ---------------------------------------------------------- */

static int scan(struct rc_run *run, pg_err *err)
{
    int *ids, n = top_log_ltids(run->dir, 0, &ids), i;

    if (n < 0)
        return pg_err_set(err, "cannot read the log directory %s", run->dir),
               -1;
    if (n == 0) {
        free(ids);
        return pg_err_set(err, "no communication log (ltid-N.comm.pgc) in %s:"
                          " record a run first with pangaea -log", run->dir),
               -1;
    }
    run->tasks = calloc(n, sizeof *run->tasks);
    if (!run->tasks)
        return free(ids), pg_err_set(err, "out of memory"), -1;
    for (i = 0; i < n; i++) {
        run->tasks[i].ltid = ids[i];
        run->tasks[i].parent = -1;
    }
    run->ntasks = n;
    free(ids);
    return 0;
}

_Static_assert(offsetof(struct rc_task, ltid) == 0, "top_find_ltid reads the ltid first");
_Static_assert(sizeof(struct rc_ev) == 40, "races.h: an event is 40 bytes");

static int task_of(const struct rc_run *run, int ltid)
{
    return top_find_ltid(run->tasks, run->ntasks, sizeof *run->tasks, ltid);
}

/* ---- reading ---------------------------------------------------------------- */

static int add_site(struct rc_run *run, struct rc_task *t, const pg_event *ev)
{
    size_t cap = t->nsites;
    int m;

    if (ev->site != t->nsites + 1)
        return 0; /* ids are 1, 2, 3...: another is no site of ours */
    if ((m = intern(run, ev->module)) < 0 ||
        pg_grow(&t->sites, &cap, (size_t)(t->nsites) + 1, sizeof *t->sites) < 0)
        return -1;
    t->sites[t->nsites].module = m;
    t->sites[t->nsites++].offset = ev->offset;
    return 0;
}

/* The k-th barrier of a group: its instance, made on first sight. */
static int barrier_of(struct rc_run *run, int group, int k)
{
    int i;

    for (i = run->nbars - 1; i >= 0; i--) /* recent ones first */
        if (run->bars[i].group == group && run->bars[i].k == k)
            return i;
    if (pg_grow(&run->bars, &run->cap_bars, (size_t)(run->nbars) + 1, sizeof *run->bars) < 0)
        return -1;
    memset(&run->bars[run->nbars], 0, sizeof *run->bars);
    run->bars[run->nbars].group = group;
    run->bars[run->nbars].k = k;
    return run->nbars++;
}

/* How many barriers on group task t made before: counted from its events. */
static int barriers_before(const struct rc_run *run, const struct rc_task *t,
                           int group, int upto)
{
    int i, k = 0;

    for (i = t->first; i < upto; i++)
        if (run->ev[i].kind == PG_EV_BARRIER &&
            run->bars[run->ev[i].a].group == group)
            k++;
    return k;
}

/* A <query call="not_replayed" about="pvm_X">: counted and named, for
 * the summary (the run's outcome may hang on it). */
static void note_unreplayed(struct rc_run *run, const char *call)
{
    char *names = run->unreplayed_calls;
    size_t n = strlen(names);

    run->unreplayed++;
    if (!strstr(names, call) && n + strlen(call) + 3 < sizeof run->unreplayed_calls)
        snprintf(names + n, sizeof run->unreplayed_calls - n, "%s%s",
                 n ? ", " : "", call);
}

static int take_event(struct rc_run *run, int ti, const pg_event *ev)
{
    struct rc_task *t = &run->tasks[ti];
    struct rc_ev *e;
    int i, g;

    if (ev->kind == PG_EV_SITE)
        return add_site(run, t, ev) < 0 ? -1 : 0;
    if (ev->kind == PG_EV_QUERY && ev->call &&
        !strcmp(ev->call, "not_replayed") && ev->about)
        note_unreplayed(run, ev->about);
    if (pg_grow(&run->ev, &run->cap_ev, (size_t)(run->nev) + 1, sizeof *run->ev) < 0)
        return -1;
    e = &run->ev[run->nev];
    memset(e, 0, sizeof *e);
    e->kind = (unsigned char)ev->kind;
    e->call = ev->call ? (unsigned char)(pg_call_index(pg_msg_calls,
                                                       pg_n_msg_calls,
                                                       ev->call) & 0xff)
                       : 0;
    e->what = (unsigned char)ev->what;
    e->matcher = (unsigned char)ev->matcher;
    e->site = ev->site > 0 ? ev->site : 0;
    e->tag = ev->tag, e->from = ev->from, e->msgid = ev->msgid;
    e->atag = ev->asked_tag;
    if (ev->kind != PG_EV_SEND && ev->kind != PG_EV_GETTID &&
        ev->kind != PG_EV_LEAVE)
        e->afrom = ev->asked_from; /* those keep nto there */
    e->misses = ev->misses;
    e->seq = (int)ev->seq;
    e->a = -1;
    if (ev->kind == PG_EV_SEND) {
        e->a = run->nmsg;
        e->nto = ev->nto;
        if (pg_grow(&run->msg, &run->cap_msg, (size_t)(run->nmsg + ev->nto) + 1,
                 sizeof *run->msg) < 0)
            return -1;
        for (i = 0; i < ev->nto; i++) {
            struct rc_msg *m = &run->msg[run->nmsg++];

            m->src = ti, m->dst = task_of(run, ev->to[i]);
            m->src_pos = run->nev - t->first + 1;
            m->tag = ev->tag, m->msgid = ev->msgid, m->notice_of = -1;
            m->snap = -1, m->taken_pos = 0, m->next = -1, m->vcd = 0;
        }
    } else if (ev->kind == PG_EV_ROUTE) {
        e->a = ev->value;
    } else if (ev->kind == PG_EV_BARRIER) {
        if ((g = intern(run, ev->group)) < 0 ||
            (e->a = barrier_of(run, g, barriers_before(run, t, g,
                                                       run->nev))) < 0)
            return -1;
        run->bars[e->a].need++;
    } else if ((ev->kind == PG_EV_GETTID && ev->order >= 0) ||
               ev->kind == PG_EV_LEAVE) {
        if (pg_grow(&run->turns, &run->cap_turns, (size_t)(run->nturns) + 1,
                 sizeof *run->turns) < 0 || (g = intern(run, ev->group)) < 0)
            return -1;
        e->a = run->nturns;
        e->nto = ev->order; /* the turn, until the turns are linked */
        e->msgid = g;
        run->turns[run->nturns++] = (struct rc_turn){ ti, run->nev - t->first + 1,
                                                      -1, -1 };
    }
    run->nev++;
    t->n++;
    return 0;
}

/* A spawn of an execution log, to be placed among its parent's
 * communication events as that log is read (by time: the exec log is
 * another file, and the analysis keeps no time stamps of its own). */
struct spawn_at {
    int parent, child;
    double t;
};

static int cmp_spawn(const void *a, const void *b)
{
    const struct spawn_at *x = a, *y = b;

    if (x->parent != y->parent)
        return x->parent - y->parent;
    return (x->t > y->t) - (x->t < y->t);
}

/* Spawns: each child's parent, from every execution log, sorted by parent
 * then time (the last spawn naming a child wins, as in the log).  Their
 * number, -1 when out of memory. */
static int read_spawns(struct rc_run *run, struct spawn_at **out)
{
    struct spawn_at *sp = NULL;
    size_t n = 0, cap = 0;
    char path[4300];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    pg_err err;
    int ti, i, c;

    for (ti = 0; ti < run->ntasks; ti++) {
        pg_log_path(path, sizeof path, run->dir, run->tasks[ti].ltid,
                    PG_LOG_EXEC);
        if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, &err)))
            continue; /* no exec log: the children start unordered */
        while (pg_logr_next(r, &ev, &err) == 1)
            for (i = 0; ev.kind == PG_EV_SPAWN && i < ev.nchild; i++) {
                if ((c = task_of(run, ev.child_ltid[i])) < 0)
                    continue;
                if (pg_grow(&sp, &cap, n + 1, sizeof *sp) < 0)
                    return pg_logr_close(r), free(sp), -1;
                run->tasks[c].parent = ti;
                run->tasks[c].spawn_k = (int)n; /* its entry, for now */
                sp[n++] = (struct spawn_at){ ti, c, ev.t };
            }
        pg_logr_close(r);
    }
    for (i = 0; i < (int)n; i++) /* only each child's last spawn counts */
        if (run->tasks[sp[i].child].spawn_k != i)
            sp[i].child = -1;
    if (n > 1)
        qsort(sp, n, sizeof *sp, cmp_spawn);
    *out = sp;
    return (int)n;
}

/* The spawns of the task being read (sorted by time) not yet placed. */
struct spawn_cur {
    const struct spawn_at *sp;
    int i, n;
};

/* Places task ti's spawns made before an event at time t: a child starts
 * after the parent's events up to the first one stamped later than its
 * spawn (t < 0: after all of them, at the end of the log). */
static void place_spawns(struct rc_run *run, int ti, struct spawn_cur *c,
                         double t)
{
    for (; c->i < c->n && c->sp[c->i].parent == ti &&
           (t < 0 || c->sp[c->i].t < t); c->i++)
        if (c->sp[c->i].child >= 0)
            run->tasks[c->sp[c->i].child].spawn_k = run->tasks[ti].n;
}

static int read_comm(struct rc_run *run, int ti, struct spawn_cur *sc,
                     pg_err *err)
{
    struct rc_task *t = &run->tasks[ti];
    char path[4300];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    int rc;

    pg_log_path(path, sizeof path, run->dir, t->ltid, PG_LOG_COMM);
    t->first = run->nev;
    if (!(r = pg_logr_open(path, PG_LOG_COMM, &h, err)))
        return -1;
    if (pg_log_race_only(h.select)) { /* its sends are gone (minimize.c) */
        pg_logr_close(r);
        return pg_err_set(err, "%s is race-only (pangaea -min): the analysis "
                          "needs a full recording", path), -1;
    }
    while ((rc = pg_logr_next(r, &ev, err)) == 1) {
        if (ev.kind != PG_EV_SITE)
            place_spawns(run, ti, sc, ev.t < 0 ? 0 : ev.t);
        if (take_event(run, ti, &ev) < 0) {
            pg_logr_close(r);
            return pg_err_set(err, "out of memory"), -1;
        }
    }
    place_spawns(run, ti, sc, -1);
    if (rc < 0 && pg_logr_cut(r)) {
        snprintf(t->note, sizeof t->note, "%.590s", err->msg);
        rc = 0;
    }
    pg_logr_close(r);
    return rc;
}

/* ---- matching ------------------------------------------------------------- */

static uint64_t key_hash(int src, int dst, int msgid)
{
    uint64_t h = (uint64_t)(uint32_t)src * 0x9E3779B97F4A7C15ull;

    h ^= (uint64_t)(uint32_t)dst * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)msgid * 0x165667B19E3779F9ull;
    return h ^ (h >> 29);
}

/* Gives every receive the entry of the message it took, and notices an
 * entry of their own.  The table holds indexes of run->msg. */
static int match(struct rc_run *run)
{
    int cap = 1, *tab, i, t, pos, j, src, nsend = run->nmsg;
    struct rc_ev *e;
    struct rc_msg *m;

    while (cap < 2 * nsend + 2)
        cap *= 2;
    if (!(tab = malloc(cap * sizeof *tab)))
        return -1;
    memset(tab, -1, cap * sizeof *tab);
    for (i = 0; i < nsend; i++) {
        m = &run->msg[i];
        if (m->dst < 0)
            continue;
        for (j = key_hash(m->src, m->dst, m->msgid) & (cap - 1); tab[j] >= 0;
             j = (j + 1) & (cap - 1))
            ;
        tab[j] = i;
    }
    for (t = 0; t < run->ntasks; t++)
        for (pos = 1; pos <= run->tasks[t].n; pos++) {
            e = RC_EV(run, t, pos);
            if (e->kind == PG_EV_NOTICE) {
                if (pg_grow(&run->msg, &run->cap_msg, (size_t)(run->nmsg) + 1,
                         sizeof *run->msg) < 0)
                    return free(tab), -1;
                e = RC_EV(run, t, pos);
                e->a = run->nmsg;
                run->msg[run->nmsg++] = (struct rc_msg){
                    -1, t, 0, e->tag, 0,
                    e->what == PG_NOTICE_EXIT ? task_of(run, e->from) : -1,
                    0, -1, pos, -1 };
                continue;
            }
            if (e->kind != PG_EV_RECV || (src = task_of(run, e->from)) < 0)
                continue;
            for (j = key_hash(src, t, e->msgid) & (cap - 1); tab[j] >= 0;
                 j = (j + 1) & (cap - 1)) {
                m = &run->msg[tab[j]];
                if (m->src == src && m->dst == t && m->msgid == e->msgid) {
                    e->a = tab[j];
                    if (strcmp(pg_msg_calls[e->call], "pvm_probe") &&
                        !m->taken_pos)
                        m->taken_pos = pos;
                    break;
                }
            }
        }
    free(tab);
    return 0;
}

/* Each join or leave waits for the turn before it in its group. */
static int link_turns(struct rc_run *run)
{
    int i, j, n = run->nturns;
    struct rc_ev *a, *b;

    for (i = 0; i < n; i++) {
        a = RC_EV(run, run->turns[i].task, run->turns[i].pos);
        for (j = 0; j < n; j++) { /* joins and leaves are few */
            b = RC_EV(run, run->turns[j].task, run->turns[j].pos);
            if (b->msgid == a->msgid && b->nto == a->nto - 1) {
                run->turns[i].prev = j;
                break;
            }
        }
    }
    return 0;
}

int rc_load(struct rc_run *run, const char *dir, pg_err *err)
{
    struct spawn_cur sc = { NULL, 0, 0 };
    int t, rc = 0;

    memset(run, 0, sizeof *run);
    snprintf(run->dir, sizeof run->dir, "%s", dir);
    if (scan(run, err) < 0)
        return -1;
    if ((sc.n = read_spawns(run, (struct spawn_at **)&sc.sp)) < 0)
        return pg_err_set(err, "out of memory"), -1;
    for (t = 0; rc == 0 && t < run->ntasks; t++) {
        while (sc.i < sc.n && sc.sp[sc.i].parent < t)
            sc.i++;
        rc = read_comm(run, t, &sc, err);
    }
    free((void *)sc.sp);
    if (rc < 0)
        return -1;
    if (match(run) < 0 || link_turns(run) < 0 ||
        rc_clocks_at(run, NULL, NULL, 0, NULL, NULL) < 0)
        return pg_err_set(err, "out of memory"), -1;
    return 0;
}

void rc_free(struct rc_run *run)
{
    int t;

    for (t = 0; t < run->ntasks; t++)
        free(run->tasks[t].sites);
    for (t = 0; t < run->nbars; t++)
        free(run->bars[t].who);
    free(run->tasks), free(run->ev), free(run->msg), free(run->turns);
    free(run->bars), free(run->text), free(run->snaps), free(run->dents);
    memset(run, 0, sizeof *run);
}
