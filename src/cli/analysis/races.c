/*
 * races.c - a recording loaded for `pangaea -races` (races.h), and its
 * happened-before relation as vector clocks computed offline.
 *
 * Design.  Every communication log is read once through pg_logr into flat
 * arrays (an event is 32 bytes, races.h: its log number and polls kept
 * aside where they are not the plain case, rc_odd; strings are
 * interned); each message gets
 * one entry per destination, and a receive the index of the entry it took
 * (a hash on sender, message id and destination).  Spawns come from the
 * execution logs; since those are another file, a spawn is placed among
 * the parent's communication events by its time stamp (one clock: the
 * parent's).
 *
 * The clocks are races_clock.c's: memory is events (40 bytes), message
 * entries (32 bytes a destination) and clock snapshots (24 bytes, one
 * per run of sends between receives, and 12 bytes a task learnt from).
 *
 * The live view grows the same model while the logs are written
 * (rc_grow_*): a task's log is read past what the model holds of it (its
 * reader kept open, resuming where it stopped: pg_logr_follow), the
 * new events appended after all others and then placed among their
 * task's in one pass over the arrays (each task's events stay
 * contiguous, as RC_EV needs).  What take_event computes of an event
 * depends only on its own task's earlier events (its position, its
 * barriers per group), so reading in rounds gives the events a whole read
 * gives; only the message entries, barrier instances and turns lie in
 * their arrays in the order they were read (an event's `a` names its
 * own).  A grown model is not matched: the live view needs no match.
 */
#include "races.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
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

/* PANGAEA_MEMSTATS=1 (races.h): its reports read the peak below. */
int rc_memstats(void)
{
    const char *v = getenv("PANGAEA_MEMSTATS");

    return v && !strcmp(v, "1");
}

long rc_peak_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *fp = fopen("/proc/self/status", "r");

    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "VmHWM: %ld", &kb) == 1)
            break;
    if (fp)
        fclose(fp);
    return kb;
}

/* ---- the directory ---------------------------------------------------------- */

/* The tasks: the ltids with a comm log (the analysis), or with any log
 * (the views), each once, in order. */
static int scan(struct rc_run *run, pg_err *err)
{
    int *ids, n = top_log_ltids(run->dir, run->view != NULL, &ids), i;

    if (n < 0 && run->view)
        return pg_err_set(err, "cannot read the log directory %s: %s",
                          run->dir, strerror(errno)), -1;
    if (n < 0)
        return pg_err_set(err, "cannot read the log directory %s", run->dir),
               -1;
    if (n == 0) {
        free(ids);
        if (run->view)
            return pg_err_set(err, "no log in %s (no ltid-N.comm.pgc or "
                              "ltid-N.exec.xml): record a run first with "
                              "pangaea -log", run->dir), -1;
        return pg_err_set(err, "no communication log (ltid-N.comm.pgc) in %s:"
                          " record a run first with pangaea -log", run->dir),
               -1;
    }
    run->tasks = calloc(n, sizeof *run->tasks);
    if (!run->tasks || (run->view && !(run->view->tasks = calloc(
                            n, sizeof *run->view->tasks))))
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
_Static_assert(sizeof(struct rc_ev) == 32, "races.h: an event is 32 bytes");
_Static_assert(sizeof(struct rc_msg) == 32, "races.h: a message entry is 32 bytes");

static int task_of(const struct rc_run *run, int ltid)
{
    return top_find_ltid(run->tasks, run->ntasks, sizeof *run->tasks, ltid);
}

/* ---- reading ---------------------------------------------------------------- */

static int add_site(struct rc_run *run, struct rc_task *t, const pg_event *ev)
{
    size_t cap = t->nsites;
    int m;

    if (ev->site != t->nsites + 1 || !ev->module)
        return 0; /* ids are 1, 2, 3...: another is no site of ours */
    if ((m = intern(run, ev->module)) < 0 ||
        pg_grow(&t->sites, &cap, (size_t)(t->nsites) + 1, sizeof *t->sites) < 0)
        return -1;
    t->sites[t->nsites].module = m;
    t->sites[t->nsites++].offset = ev->offset;
    return 0;
}

/* The instances of a group's barriers by k, -1 until made. */
static int *group_instances(struct rc_run *run, int group, int k)
{
    struct rc_bindex *x = NULL;
    size_t cap;
    int i;

    for (i = 0; i < run->nbindex && !x; i++) /* few groups */
        if (run->bindex[i].group == group)
            x = &run->bindex[i];
    if (!x) {
        if (pg_grow(&run->bindex, &run->cap_bindex, (size_t)run->nbindex + 1,
                    sizeof *run->bindex) < 0)
            return NULL;
        x = &run->bindex[run->nbindex++];
        memset(x, 0, sizeof *x);
        x->group = group;
    }
    cap = x->cap;
    if (k >= x->n) {
        if (pg_grow(&x->inst, &cap, (size_t)k + 1, sizeof *x->inst) < 0)
            return NULL;
        x->cap = cap;
        while (x->n <= k)
            x->inst[x->n++] = -1;
    }
    return x->inst;
}

/* The k-th barrier of a group: its instance, made on first sight (found
 * by its group's index, where searching the instances made cost what
 * was made before: quadratic in the barriers). */
static int barrier_of(struct rc_run *run, int group, int k)
{
    int *inst = group_instances(run, group, k);

    if (!inst)
        return -1;
    if (inst[k] >= 0)
        return inst[k];
    if (pg_grow(&run->bars, &run->cap_bars, (size_t)(run->nbars) + 1, sizeof *run->bars) < 0)
        return -1;
    memset(&run->bars[run->nbars], 0, sizeof *run->bars);
    run->bars[run->nbars].group = group;
    run->bars[run->nbars].k = k;
    return inst[k] = run->nbars++;
}

/* How many barriers on group task t made before, and one more now: each
 * task counts its barriers per group as its log is read (a task waits on
 * few groups), so a barrier costs what its task's groups are, not what
 * its task did before. */
static int barriers_before(struct rc_task *t, int group)
{
    size_t cap = (size_t)t->nbgroups;
    int i;

    for (i = 0; i < t->nbgroups; i++)
        if (t->bgroups[i].group == group)
            return t->bgroups[i].k++;
    if (pg_grow(&t->bgroups, &cap, (size_t)t->nbgroups + 1,
                sizeof *t->bgroups) < 0)
        return -1;
    t->bgroups[t->nbgroups++] = (struct rc_bgroup){ group, 1 };
    return 0;
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

/* The views' columns of the event being added (run->nev): its time, size
 * and wait, and a send's destinations as ltids. */
static int view_columns(struct rc_run *run, const pg_event *ev)
{
    struct rc_view *v = run->view;
    size_t n = (size_t)run->nev + 1;
    int i;

    if (pg_grow(&v->t, &v->cap_t, n, sizeof *v->t) < 0 ||
        pg_grow(&v->bytes, &v->cap_bytes, n, sizeof *v->bytes) < 0 ||
        (!v->no_waits &&
         pg_grow(&v->waited, &v->cap_waited, n, sizeof *v->waited) < 0))
        return -1;
    v->t[run->nev] = ev->t;
    v->bytes[run->nev] = ev->bytes;
    if (!v->no_waits)
        v->waited[run->nev] = ev->waited;
    if (ev->kind != PG_EV_SEND)
        return 0;
    if (pg_grow(&v->to, &v->cap_to, (size_t)(run->nmsg + ev->nto) + 1,
                sizeof *v->to) < 0)
        return -1;
    for (i = 0; i < ev->nto; i++)
        v->to[run->nmsg + i] = ev->to[i];
    return 0;
}

/* A collective's or pvm_bcast's lookups of a group's members, which took
 * a turn of the group (wrap_group.c): about the group, value the turn. */
static int lookup_turn(const pg_event *ev)
{
    return ev->kind == PG_EV_QUERY && ev->call && ev->about &&
           !strcmp(ev->call, "pvm_group_lookup") && ev->value >= 0;
}

/* A send's or receive's context as a small index (rc_ev.ctx): 0 for
 * the default context, 1, 2, ... for the others in the order first seen,
 * RC_CTX_ANY once RC_CTX_ANY - 1 of them are taken (those messages then
 * match every receive, as before contexts were recorded).  -1: out of
 * memory. */
#define RC_CTX_SLOTS 16384 /* > 2 * RC_CTX_ANY: probes stay short */
static int ctx_index(struct rc_run *run, int ctx)
{
    unsigned h;

    if (ctx == 0)
        return 0;
    if (!run->ctx_slot &&
        !(run->ctx_slot = calloc(RC_CTX_SLOTS, sizeof *run->ctx_slot)))
        return -1;
    for (h = (unsigned)ctx * 2654435761u % RC_CTX_SLOTS;
         run->ctx_slot[h].index; h = (h + 1) % RC_CTX_SLOTS)
        if (run->ctx_slot[h].ctx == ctx)
            return run->ctx_slot[h].index;
    if (run->nctx >= RC_CTX_ANY - 1)
        return RC_CTX_ANY;
    run->ctx_slot[h] = (struct rc_ctxslot){ ctx, ++run->nctx };
    return run->nctx;
}

int rc_ctx_seen(const struct rc_run *run, int ctx)
{
    unsigned h;

    if (ctx == 0)
        return 0;
    for (h = (unsigned)ctx * 2654435761u % RC_CTX_SLOTS;
         run->ctx_slot && run->ctx_slot[h].index;
         h = (h + 1) % RC_CTX_SLOTS)
        if (run->ctx_slot[h].ctx == ctx)
            return run->ctx_slot[h].index;
    return -1;
}

/* An MPI_Irecv's completion: its posting, and its rivals (format 8),
 * which -races offers as its alternatives (races_find.c). */
static int take_posting(struct rc_run *run, int ti, int pos,
                        const pg_event *ev)
{
    int i;

    if (pg_grow(&run->posts, &run->cap_posts, run->nposts + 1,
                sizeof *run->posts) < 0 ||
        pg_grow(&run->rivals, &run->cap_rivals,
                run->nrivals + (size_t)ev->nrivals + 1,
                sizeof *run->rivals) < 0)
        return -1;
    run->posts[run->nposts++] = (struct rc_post){ ti, ev->posted, pos };
    run->posts_sorted = 0;
    for (i = 0; i < ev->nrivals; i++)
        run->rivals[run->nrivals++] = (struct rc_post){ ti, ev->rivals[i],
                                                        pos };
    return 0;
}

/* The last odd event of task t at or before pos (rc_odd), or NULL. */
static const struct rc_odd *odd_at(const struct rc_task *t, int pos)
{
    int lo = 0, hi = t->nodd;

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (t->odd[mid].pos <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 ? &t->odd[lo - 1] : NULL;
}

/* Event pos's number in its log, o the last odd event at or before it. */
static long seq_after(const struct rc_odd *o, int pos)
{
    return o ? o->seq + (long)(pos - o->pos) : pos;
}

long rc_ev_seq(const struct rc_run *run, int t, int pos)
{
    return seq_after(odd_at(&run->tasks[t], pos), pos);
}

int rc_ev_misses(const struct rc_run *run, int t, int pos)
{
    const struct rc_odd *o = odd_at(&run->tasks[t], pos);

    return o && o->pos == pos ? o->misses : 0;
}

/* The event to be task t's next (t->n + 1) is odd when its number in the
 * log does not follow the last one's, or it carries failed polls. */
static int note_odd(const struct rc_run *run, int ti, const pg_event *ev)
{
    struct rc_task *t = &run->tasks[ti];
    int pos = t->n + 1;

    /* past every odd event so far: the last is the one before it */
    if (ev->seq == seq_after(t->nodd ? &t->odd[t->nodd - 1] : NULL, pos) &&
        ev->misses == 0)
        return 0;
    if (pg_grow(&t->odd, &t->capodd, (size_t)t->nodd + 1, sizeof *t->odd) < 0)
        return -1;
    t->odd[t->nodd++] = (struct rc_odd){ pos, (int)ev->seq, ev->misses };
    return 0;
}

static int take_event(struct rc_run *run, int ti, const pg_event *ev)
{
    struct rc_task *t = &run->tasks[ti];
    struct rc_ev *e;
    int i, g, k;

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
    e->call = ev->call ? (unsigned char)(ev->kind == PG_EV_QUERY
                                             ? pg_call_index(pg_query_calls,
                                                             pg_n_query_calls,
                                                             ev->call)
                                             : pg_call_index(pg_msg_calls,
                                                             pg_n_msg_calls,
                                                             ev->call)) & 0xff
                       : 0;
    e->what = (unsigned)ev->what & 3;
    e->matcher = ev->matcher != 0;
    e->ctx = RC_CTX_ANY;
    if (ev->kind == PG_EV_SEND || ev->kind == PG_EV_RECV) {
        if ((k = ctx_index(run, ev->ctx)) < 0)
            return -1;
        e->ctx = (unsigned)k;
    }
    e->site = ev->site > 0 ? ev->site : 0;
    e->tag = ev->tag, e->from = ev->from, e->msgid = ev->msgid;
    e->atag = ev->asked_tag;
    if (ev->kind != PG_EV_SEND && ev->kind != PG_EV_GETTID &&
        ev->kind != PG_EV_LEAVE)
        e->afrom = ev->asked_from; /* those keep nto there */
    if (note_odd(run, ti, ev) < 0)
        return -1;
    e->a = -1;
    if (ev->kind == PG_EV_BARRIER)
        RC_BARRIER_COUNT(e) = ev->count;
    else if (ev->kind == PG_EV_END)
        RC_END_STATUS(e) = ev->status;
    if (run->view && view_columns(run, ev) < 0)
        return -1;
    if (ev->kind == PG_EV_RECV && ev->posted > 0 && !run->grow &&
        take_posting(run, ti, t->n + 1, ev) < 0)
        return -1;
    if (ev->kind == PG_EV_SEND) {
        e->a = run->nmsg;
        e->nto = ev->nto;
        if (pg_grow(&run->msg, &run->cap_msg, (size_t)(run->nmsg + ev->nto) + 1,
                 sizeof *run->msg) < 0)
            return -1;
        for (i = 0; i < ev->nto; i++) {
            struct rc_msg *m = &run->msg[run->nmsg++];

            m->src = ti, m->dst = task_of(run, ev->to[i]);
            m->src_pos = t->n + 1;
            m->notice_of = -1;
            m->snap = -1, m->taken_pos = 0, m->next = -1, m->vcd = 0;
        }
    } else if (ev->kind == PG_EV_ROUTE) {
        e->a = ev->value;
    } else if (ev->kind == PG_EV_BARRIER) {
        if ((g = intern(run, ev->group)) < 0 ||
            (k = barriers_before(t, g)) < 0 ||
            (e->a = barrier_of(run, g, k)) < 0)
            return -1;
        run->bars[e->a].need++;
    } else if ((ev->kind == PG_EV_GETTID && ev->order >= 0) ||
               ev->kind == PG_EV_LEAVE || lookup_turn(ev)) {
        if (pg_grow(&run->turns, &run->cap_turns, (size_t)(run->nturns) + 1,
                 sizeof *run->turns) < 0 ||
            (g = intern(run, ev->kind == PG_EV_QUERY ? ev->about
                                                      : ev->group)) < 0)
            return -1;
        e->a = run->nturns;
        /* the turn, until the turns are linked */
        e->nto = ev->kind == PG_EV_QUERY ? ev->value : ev->order;
        e->msgid = g;
        run->turns[run->nturns++] = (struct rc_turn){ ti, t->n + 1,
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

/* ---- what only the views keep (run->view) ------------------------------ */

static void view_note(struct rc_run *run, int ti, const char *what)
{
    char *note;
    size_t n;

    if (!run->view)
        return;
    note = run->view->tasks[ti].note;
    n = strlen(note);
    snprintf(note + n, sizeof run->view->tasks[ti].note - n, "%s%s",
             n ? "; " : "", what);
}

/* The first log that names the program and the host names them. */
static void view_header(struct rc_run *run, int ti, const pg_log_header *h)
{
    struct rc_vtask *v;

    if (!run->view)
        return;
    v = &run->view->tasks[ti];
    if (!v->program[0])
        snprintf(v->program, sizeof v->program, "%s", h->program);
    if (!v->host[0])
        snprintf(v->host, sizeof v->host, "%s", h->host);
}

/* Why the analysis cannot take these logs (the first reason). */
static void unanalysable(struct rc_run *run, const char *why)
{
    if (run->view && !run->view->unanalysable[0])
        snprintf(run->view->unanalysable, sizeof run->view->unanalysable,
                 "%.690s", why);
}

/* An event of task ti's exec log: its end, its crash, a spawn kept. */
static int view_exec(struct rc_run *run, int ti, const pg_event *ev)
{
    struct rc_view *v = run->view;
    struct rc_vtask *t;
    char name[600];
    int i, c;

    t = &v->tasks[ti];
    if (ev->kind == PG_EV_END) {
        t->ended = 1, t->status = ev->status;
    } else if (ev->kind == PG_EV_CRASH) { /* how it died, kept by its recording */
        t->signal = ev->value;
        snprintf(t->crash_at, sizeof t->crash_at, "%s",
                 ev->module && ev->module[0]
                     ? pg_site_name(ev->module, ev->offset, name, sizeof name)
                     : "");
    }
    for (i = 0; ev->kind == PG_EV_SPAWN && i < ev->nchild; i++) {
        if ((c = task_of(run, ev->child_ltid[i])) < 0)
            continue;
        if (pg_grow(&v->spawns, &v->cap_spawns, (size_t)v->nspawns + 1,
                    sizeof *v->spawns) < 0)
            return -1;
        v->spawns[v->nspawns++] = (struct rc_spawn){ ti, c, ev->t };
    }
    return 0;
}

/* ---- the execution logs -------------------------------------------------- */

/* One spawn of task ti's exec log: each child's parent, and its entry. */
static int take_spawn(struct rc_run *run, int ti, const pg_event *ev,
                      struct spawn_at **sp, size_t *n, size_t *cap)
{
    int i, c;

    for (i = 0; ev->kind == PG_EV_SPAWN && i < ev->nchild; i++) {
        if ((c = task_of(run, ev->child_ltid[i])) < 0)
            continue;
        if (pg_grow(sp, cap, *n + 1, sizeof **sp) < 0)
            return -1;
        run->tasks[c].parent = ti;
        run->tasks[c].spawn_k = (int)*n; /* its entry, for now */
        (*sp)[(*n)++] = (struct spawn_at){ ti, c, ev->t };
    }
    return 0;
}

/* Spawns: each child's parent, from every execution log, sorted by parent
 * then time (the last spawn naming a child wins, as in the log); for the
 * views also what else those logs say.  Their number, -1 when out of
 * memory. */
static int read_spawns(struct rc_run *run, struct spawn_at **out)
{
    struct spawn_at *sp = NULL;
    size_t n = 0, cap = 0;
    char path[4300];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    pg_err err;
    int ti, i, rc;

    for (ti = 0; ti < run->ntasks; ti++) {
        pg_log_path(path, sizeof path, run->dir, run->tasks[ti].ltid,
                    PG_LOG_EXEC);
        if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, &err))) {
            view_note(run, ti, err.msg);
            continue; /* no exec log: the children start unordered */
        }
        view_header(run, ti, &h);
        while ((rc = pg_logr_next(r, &ev, &err)) == 1)
            if (take_spawn(run, ti, &ev, &sp, &n, &cap) < 0 ||
                (run->view && view_exec(run, ti, &ev) < 0))
                return pg_logr_close(r), free(sp), -1;
        if (rc < 0)
            view_note(run, ti, err.msg);
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

/* ---- the communication logs ---------------------------------------------- */

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

/* A log that cannot be opened or read through: -races refuses it (a log
 * cut short only costs its end); a view shows what there is, noted. */
static int comm_trouble(struct rc_run *run, int ti, const pg_err *err,
                        int cut)
{
    if (cut)
        snprintf(run->tasks[ti].note, sizeof run->tasks[ti].note, "%.590s",
                 err->msg);
    if (!run->view)
        return cut ? 0 : -1;
    view_note(run, ti, err->msg);
    if (!cut)
        unanalysable(run, err->msg);
    return 0;
}

int rc_stream_comm(struct rc_run *run, int ti,
                   int (*each)(struct rc_run *, int, const pg_event *, void *),
                   void *arg, pg_err *err)
{
    struct rc_task *t = &run->tasks[ti];
    char path[4300];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    int rc;

    pg_log_path(path, sizeof path, run->dir, t->ltid, PG_LOG_COMM);
    if (!(r = pg_logr_open(path, PG_LOG_COMM, &h, err)))
        return comm_trouble(run, ti, err, 0) < 0 ? -1 : 1;
    view_header(run, ti, &h);
    if (pg_log_race_only(h.select)) { /* its sends are gone (minimize.c) */
        pg_err_set(err, "%s is race-only (pangaea -min): the analysis "
                   "needs a full recording", path);
        unanalysable(run, err->msg);
        if (!run->view)
            return pg_logr_close(r), -1;
    }
    while ((rc = pg_logr_next(r, &ev, err)) == 1) {
        if (ev.kind == PG_EV_END && run->view)
            run->view->tasks[ti].ended = 1,
            run->view->tasks[ti].status = ev.status;
        if ((ev.kind == PG_EV_SITE ? add_site(run, t, &ev)
                                   : each(run, ti, &ev, arg)) < 0) {
            pg_logr_close(r);
            return pg_err_set(err, "out of memory"), -1;
        }
    }
    if (rc < 0)
        rc = comm_trouble(run, ti, err, pg_logr_cut(r));
    pg_logr_close(r);
    return rc;
}

/* An event of the log being loaded: after the spawns made before it. */
static int load_event(struct rc_run *run, int ti, const pg_event *ev,
                      void *arg)
{
    place_spawns(run, ti, arg, ev->t < 0 ? 0 : ev->t);
    return take_event(run, ti, ev);
}

static int read_comm(struct rc_run *run, int ti, struct spawn_cur *sc,
                     pg_err *err)
{
    int rc;

    run->tasks[ti].first = run->nev;
    if ((rc = rc_stream_comm(run, ti, load_event, sc, err)) != 0)
        return rc < 0 ? -1 : 0; /* 1: not opened, and noted */
    place_spawns(run, ti, sc, -1);
    return 0;
}

/* ---- matching ------------------------------------------------------------- */

/* The one matcher of the project's post-mortem side: an open-addressing
 * table of item numbers, twice as many slots as items, each item put at
 * the first free slot of its key's chain; the caller walks a key's chain
 * (rc_index_next) and compares the keys itself, so the table holds 4
 * bytes a slot, and the first item of a key is found first. */
uint64_t rc_key(int a, int b, int c)
{
    uint64_t h = (uint64_t)(uint32_t)a * 0x9E3779B97F4A7C15ull;

    h ^= (uint64_t)(uint32_t)b * 0xC2B2AE3D27D4EB4Full;
    h ^= (uint64_t)(uint32_t)c * 0x165667B19E3779F9ull;
    return h ^ (h >> 29);
}

int rc_index_init(struct rc_index *x, size_t n)
{
    size_t cap = 16;

    while (cap < 2 * n + 2)
        cap *= 2;
    x->mask = cap - 1;
    if (!(x->slot = malloc(cap * sizeof *x->slot)))
        return -1;
    memset(x->slot, -1, cap * sizeof *x->slot);
    return 0;
}

void rc_index_add(struct rc_index *x, uint64_t key, int item)
{
    size_t i;

    for (i = key & x->mask; x->slot[i] >= 0; i = (i + 1) & x->mask)
        ;
    x->slot[i] = item;
}

int rc_index_next(const struct rc_index *x, uint64_t key, size_t *at)
{
    size_t i = *at == RC_INDEX_START ? key & x->mask : *at;

    *at = (i + 1) & x->mask;
    return x->slot[i];
}

void rc_index_free(struct rc_index *x)
{
    free(x->slot);
    x->slot = NULL;
}

/* Gives every receive the entry of the message it took, and notices an
 * entry of their own.  The table holds indexes of run->msg. */
static int match(struct rc_run *run)
{
    int i, t, pos, src, k, probe;
    struct rc_index x;
    struct rc_ev *e;
    struct rc_msg *m;
    size_t at;

    if (rc_index_init(&x, (size_t)run->nmsg) < 0)
        return -1;
    for (i = 0; i < run->nmsg; i++)
        if ((m = &run->msg[i])->dst >= 0)
            rc_index_add(&x, rc_key(m->src, m->dst, rc_msg_msgid(run, m)), i);
    for (t = 0; t < run->ntasks; t++)
        for (pos = 1; pos <= run->tasks[t].n; pos++) {
            e = RC_EV(run, t, pos);
            if (e->kind == PG_EV_NOTICE) {
                if (pg_grow(&run->msg, &run->cap_msg, (size_t)(run->nmsg) + 1,
                         sizeof *run->msg) < 0)
                    return rc_index_free(&x), -1;
                e->a = run->nmsg;
                run->msg[run->nmsg++] = (struct rc_msg){
                    -1, t, 0,
                    e->what == PG_NOTICE_EXIT ? task_of(run, e->from) : -1,
                    0, -1, pos, -1 };
                continue;
            }
            if (e->kind != PG_EV_RECV || (src = task_of(run, e->from)) < 0)
                continue;
            probe = e->call < pg_n_msg_calls &&
                    pg_call_probes(pg_msg_calls[e->call]);
            at = RC_INDEX_START;
            while ((k = rc_index_next(&x, rc_key(src, t, e->msgid), &at)) >= 0) {
                m = &run->msg[k];
                if (m->src == src && m->dst == t &&
                    rc_msg_msgid(run, m) == e->msgid) {
                    e->a = k;
                    if (!probe && !m->taken_pos)
                        m->taken_pos = pos; /* probes take nothing */
                    break;
                }
            }
        }
    rc_index_free(&x);
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

/* Reads the logs of dir into run (run->view set for a view's load). */
static int load(struct rc_run *run, const char *dir, pg_err *err)
{
    struct spawn_cur sc = { NULL, 0, 0 };
    int t, rc = 0;

    /* The model's arrays grow by doubling to hundreds of MB.  glibc
     * raises its mmap threshold as mapped blocks are freed, and then
     * grows big arrays in the heap by copying, leaving the old copies
     * resident (a quarter more at 10^6 events); a fixed threshold keeps
     * every big array mapped and grown in place (mremap). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
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
    if (match(run) < 0 || link_turns(run) < 0)
        return pg_err_set(err, "out of memory"), -1;
    return 0;
}

int rc_load(struct rc_run *run, const char *dir, pg_err *err)
{
    memset(run, 0, sizeof *run);
    if (load(run, dir, err) < 0)
        return -1;
    if (rc_clocks_at(run, NULL, 0, NULL) < 0)
        return pg_err_set(err, "out of memory"), -1;
    run->clocked = 1;
    return 0;
}

/* The logs without the clocks (rc_find computes them when asked; a
 * -whatif plan never needs them: rc_find_at with the receive's reach). */
int rc_load_logs(struct rc_run *run, const char *dir, pg_err *err)
{
    memset(run, 0, sizeof *run);
    return load(run, dir, err);
}

int rc_load_view(struct rc_run *run, const char *dir, pg_err *err)
{
    memset(run, 0, sizeof *run);
    if (!(run->view = calloc(1, sizeof *run->view)))
        return pg_err_set(err, "out of memory"), -1;
    return load(run, dir, err);
}

int rc_load_view_nowaits(struct rc_run *run, const char *dir, pg_err *err)
{
    memset(run, 0, sizeof *run);
    if (!(run->view = calloc(1, sizeof *run->view)))
        return pg_err_set(err, "out of memory"), -1;
    run->view->no_waits = 1;
    return load(run, dir, err);
}

int rc_load_tasks(struct rc_run *run, const char *dir, pg_err *err)
{
    struct spawn_at *sp = NULL;

    memset(run, 0, sizeof *run);
    if (!(run->view = calloc(1, sizeof *run->view)))
        return pg_err_set(err, "out of memory"), -1;
    snprintf(run->dir, sizeof run->dir, "%s", dir);
    if (scan(run, err) < 0)
        return -1;
    if (read_spawns(run, &sp) < 0)
        return pg_err_set(err, "out of memory"), -1;
    free(sp);
    return 0;
}

/* ---- a model that grows: the live view's ------------------------------- */

/* Where the events read since the last rc_grow_place are: appended after
 * base, in runs of one task each (seg), to be moved among their tasks'. */
struct rc_grow {
    int base;
    struct rc_seg { int task, n; } *seg;
    int nseg;
    size_t cap_seg, cap_tasks, cap_vtasks;
    long decoded;  /* rc_grow_decoded */
};

int rc_grow_begin(struct rc_run *run, const char *dir)
{
    memset(run, 0, sizeof *run);
    snprintf(run->dir, sizeof run->dir, "%s", dir);
    if (!(run->view = calloc(1, sizeof *run->view)) ||
        !(run->grow = calloc(1, sizeof *run->grow)))
        return rc_free(run), -1;
    return 0;
}

/* Task indexes from k on move up by one: every index the model keeps. */
static void shift_tasks(struct rc_run *run, int k)
{
    struct rc_grow *g = run->grow;
    int i;

#define UP(x) ((x) += (x) >= k)
    for (i = 0; i < run->nmsg; i++) {
        if (run->msg[i].src >= 0)
            UP(run->msg[i].src);
        if (run->msg[i].dst >= 0)
            UP(run->msg[i].dst);
        if (run->msg[i].notice_of >= 0)
            UP(run->msg[i].notice_of);
    }
    for (i = 0; i < run->nturns; i++)
        UP(run->turns[i].task);
    for (i = 0; i < run->ntasks; i++)
        if (run->tasks[i].parent >= 0)
            UP(run->tasks[i].parent);
    for (i = 0; i < g->nseg; i++)
        UP(g->seg[i].task);
#undef UP
}

/* A task seen for the first time, put in ltid order: its index, -1 when
 * out of memory.  Messages sent to it before it had a log find it now. */
static int insert_task(struct rc_run *run, int ltid)
{
    struct rc_grow *g = run->grow;
    int k = 0, n = run->ntasks, i;

    while (k < n && run->tasks[k].ltid < ltid)
        k++;
    if (pg_grow(&run->tasks, &g->cap_tasks, (size_t)n + 1,
                sizeof *run->tasks) < 0 ||
        pg_grow(&run->view->tasks, &g->cap_vtasks, (size_t)n + 1,
                sizeof *run->view->tasks) < 0)
        return -1;
    shift_tasks(run, k);
    memmove(&run->tasks[k + 1], &run->tasks[k], (n - k) * sizeof *run->tasks);
    memmove(&run->view->tasks[k + 1], &run->view->tasks[k],
            (n - k) * sizeof *run->view->tasks);
    memset(&run->tasks[k], 0, sizeof *run->tasks);
    memset(&run->view->tasks[k], 0, sizeof *run->view->tasks);
    run->tasks[k].ltid = ltid;
    run->tasks[k].parent = -1;
    run->tasks[k].first = k + 1 < n + 1 ? run->tasks[k + 1].first : g->base;
    run->ntasks++;
    for (i = 0; i < run->nmsg; i++)
        if (run->msg[i].src >= 0 && run->msg[i].dst < 0 &&
            run->view->to[i] == ltid)
            run->msg[i].dst = k;
    return k;
}

/* Takes an event read while growing: appended after base, in the run of
 * its task (a new run when another task's came last). */
static int grow_event(struct rc_run *run, int ti, const pg_event *ev)
{
    struct rc_grow *g = run->grow;
    int nev = run->nev;

    if (ev->kind == PG_EV_END)
        run->view->tasks[ti].ended = 1, run->view->tasks[ti].status = ev->status;
    if (take_event(run, ti, ev) < 0)
        return -1;
    if (run->nev == nev)
        return 0; /* a site: no event */
    if (g->nseg && g->seg[g->nseg - 1].task == ti) {
        g->seg[g->nseg - 1].n++;
        return 0;
    }
    if (pg_grow(&g->seg, &g->cap_seg, (size_t)g->nseg + 1, sizeof *g->seg) < 0)
        return -1;
    g->seg[g->nseg++] = (struct rc_seg){ ti, 1 };
    return 0;
}

/* Task ti's reader, ready to read past what it returned: opened the first
 * time (its header taken), else followed (pg_logr_follow: a binary log
 * reads on where it stopped; an XML one is opened again, live_n then
 * counting its events from the first again).  0, -2 when the log is not
 * there yet (its header is written first), -1 and err. */
static int live_reader(struct rc_run *run, int ti, int ltid, pg_err *err)
{
    struct rc_vtask *v = &run->view->tasks[ti];
    char path[4300];
    pg_log_header h;
    int rc;

    if (v->live && (rc = pg_logr_follow(v->live, err)) <= 0)
        return rc;
    if (v->live) {
        pg_logr_close(v->live);
        v->live = NULL;
    }
    pg_log_path(path, sizeof path, run->dir, ltid, PG_LOG_COMM);
    pg_logr_guard_shrinking(); /* its writer may close it as we read */
    if (!(v->live = pg_logr_open(path, PG_LOG_COMM, &h, err)))
        return -2;
    v->live_n = 0;
    view_header(run, ti, &h);
    if (pg_log_race_only(h.select))
        unanalysable(run, "a log is race-only (pangaea -min)");
    return 0;
}

/* The log is read where the last read stopped, so a read costs the
 * events it finds (and a walk over the open block), not the log. */
int rc_grow_task(struct rc_run *run, int ltid, int *ti, int *cut, pg_err *err)
{
    struct rc_task *t;
    pg_logr *r;
    pg_event ev;
    long d0;
    int rc;

    *cut = 0;
    if ((*ti = task_of(run, ltid)) < 0 && (*ti = insert_task(run, ltid)) < 0)
        return pg_err_set(err, "out of memory"), -1;
    if ((rc = live_reader(run, *ti, ltid, err)) < 0)
        return rc;
    t = &run->tasks[*ti];
    r = run->view->tasks[*ti].live;
    d0 = pg_logr_decoded(r);
    while ((rc = pg_logr_next(r, &ev, err)) == 1)
        if (++run->view->tasks[*ti].live_n > t->nread) {
            t->nread = run->view->tasks[*ti].live_n;
            if (grow_event(run, *ti, &ev) < 0) {
                rc = pg_err_set(err, "out of memory");
                break;
            }
            t = &run->tasks[*ti];
        }
    run->grow->decoded += pg_logr_decoded(r) - d0;
    if (rc < 0)
        *cut = pg_logr_cut(r);
    return rc < 0 && !*cut ? -1 : 0;
}

long rc_grow_decoded(const struct rc_run *run)
{
    return run->grow ? run->grow->decoded : 0;
}

/* Moves n events from `from` to `to` (memmove) in each of the model's
 * per-event columns. */
static void move_cols(struct rc_run *run, int to, int from, int n)
{
    struct rc_view *v = run->view;

    if (to == from || n == 0)
        return; /* a block that stays: no pass over it */
    memmove(run->ev + to, run->ev + from, (size_t)n * sizeof *run->ev);
    memmove(v->t + to, v->t + from, (size_t)n * sizeof *v->t);
    memmove(v->bytes + to, v->bytes + from, (size_t)n * sizeof *v->bytes);
    memmove(v->waited + to, v->waited + from, (size_t)n * sizeof *v->waited);
}

/* The new events (after base) are copied aside, every task's block moves
 * up by what the tasks before it gained (the last task first: the blocks
 * only move up), and each task's new events go after its block, in the
 * order read: one pass over the model. */
int rc_grow_place(struct rc_run *run)
{
    struct rc_grow *g = run->grow;
    int base = g->base, nnew = run->nev - base, i, s, at;
    int *add = calloc((size_t)run->ntasks + 1, sizeof *add);
    int *end = calloc((size_t)run->ntasks + 1, sizeof *end);
    int shift = nnew;

    if (!add || !end || (pg_grow(&run->ev, &run->cap_ev,
                                         (size_t)run->nev + nnew,
                                         sizeof *run->ev) < 0))
        return free(add), free(end), -1;
    if (!nnew)
        return free(add), free(end), 0;
    for (s = 0; s < g->nseg; s++)
        add[g->seg[s].task] += g->seg[s].n;
    /* The tail is copied past the end (room for it: the arrays grew by
     * nnew), so the blocks can move over it. */
    if ((pg_grow(&run->view->t, &run->view->cap_t,
                         (size_t)run->nev + nnew, sizeof *run->view->t) < 0 ||
                 pg_grow(&run->view->bytes, &run->view->cap_bytes,
                         (size_t)run->nev + nnew, sizeof *run->view->bytes) < 0 ||
                 pg_grow(&run->view->waited, &run->view->cap_waited,
                         (size_t)run->nev + nnew,
                         sizeof *run->view->waited) < 0))
        return free(add), free(end), -1;
    move_cols(run, run->nev, base, nnew);
    for (i = run->ntasks - 1; i >= 0; i--) {
        struct rc_task *t = &run->tasks[i];
        int old = t->n - add[i];

        shift -= add[i];
        move_cols(run, t->first + shift, t->first, old);
        t->first += shift;
        end[i] = t->first + old;
    }
    for (s = 0, at = run->nev; s < g->nseg; at += g->seg[s++].n) {
        move_cols(run, end[g->seg[s].task], at, g->seg[s].n);
        end[g->seg[s].task] += g->seg[s].n;
    }
    g->base = run->nev;
    g->nseg = 0;
    free(add), free(end);
    return 0;
}

void rc_free(struct rc_run *run)
{
    int t;

    for (t = 0; t < run->ntasks; t++)
        free(run->tasks[t].sites), free(run->tasks[t].bgroups),
            free(run->tasks[t].odd);
    for (t = 0; t < run->nbars; t++)
        free(run->bars[t].who);
    for (t = 0; t < run->nbindex; t++)
        free(run->bindex[t].inst);
    free(run->bindex);
    free(run->tasks), free(run->ev), free(run->msg), free(run->turns);
    free(run->bars), free(run->text), free(run->snaps), free(run->dents);
    free(run->ctx_slot);
    free(run->posts), free(run->rivals);
    if (run->view) {
        for (t = 0; t < run->ntasks; t++)
            pg_logr_close(run->view->tasks[t].live);
        free(run->view->t), free(run->view->bytes), free(run->view->to);
        free(run->view->waited);
        free(run->view->tasks), free(run->view->spawns);
        free(run->view);
    }
    if (run->grow)
        free(run->grow->seg), free(run->grow);
    memset(run, 0, sizeof *run);
}
