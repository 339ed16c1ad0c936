/*
 * live_snap.c - the live view's snapshot of a run: its tasks and the
 * events seen so far, kept up to date by a thread of its own.
 *
 * Design.  Nothing is added to the program's messages: the thread reads
 * what the tasks write anyway, through the recording's one model
 * (races.h), which it grows: the logs are read by the model's reader
 * only, as every other view reads them.  Recording, each task's comm log
 * grows in the log directory, every event written first byte last, so the
 * reader of log_binr.c stops cleanly at the first event not yet complete
 * (it reads as a log cut short).  Each scan has the model read every
 * task's log on from where the last scan stopped (rc_grow_task: its
 * reader stays open, so a scan decodes the new events, not the whole
 * log; a torn tail is read again next time), places the new ones
 * among their task's (rc_grow_place, one pass), and copies those a viewer
 * wants into the snapshot; reading is sequential and cheap (a few bytes
 * an event), and the pause between scans is at least 20 times the last
 * scan's length, so the thread takes at most about 5% of one CPU however
 * long the logs grow, unless a page watches (scan_pause: then 0.2 s, to
 * keep its view within half a second of the run; a page that starts
 * watching wakes a reader resting as for nobody, lv_snap_watched).
 * Replaying, tasks write no log: each maps a small
 * position file (src/pvm/runtime/live_pos.c) holding the recorded events
 * it consumed and whether it waits in a receive (read afresh each scan);
 * the snapshot shows the recorded events up to there (read once into the
 * model from the recording), and for a task that waits, the recorded
 * receive it waits for.
 *
 * A call site the model holds (an object and an offset) is named here,
 * by pangaea, with libdw (site_name.c), once per task and site id,
 * outside the lock; its events then carry the index of the named site
 * (the page's filters group events by file, function and line).
 *
 * Events are appended in the order they are seen, never changed after, so
 * "the events after the N-th" (/events.json?since=N) is well defined.
 * Tasks' states (ended, crashed, diverged, stalled) come from the monitor
 * (live.c), from the messages it gets anyway.  Everything shared is under
 * one mutex; the HTTP thread only reads under it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live.h"
#include "live_pos.h"
#include "log_table.h"
#include "pg_grow.h"
#include "pg_internal.h"
#include "races.h"

struct lv_state lv;
int lv_mpi;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_t thread;
static int stopping, have_thread;
static char logdir[4096], posdir[4200];

void lv_snap_lock(void)
{
    pthread_mutex_lock(&mu);
}

void lv_snap_unlock(void)
{
    pthread_mutex_unlock(&mu);
}

/* Tasks are allocated one by one, so a pointer to one stays good while
 * the monitor adds others; the array of pointers is in ltid order. */
struct lv_task *lv_task(int ltid)
{
    int lo = 0, hi = lv.ntasks, i;
    struct lv_task *t;

    while (lo < hi) {
        i = (lo + hi) / 2;
        if (lv.tasks[i]->ltid < ltid)
            lo = i + 1;
        else
            hi = i;
    }
    if (lo < lv.ntasks && lv.tasks[lo]->ltid == ltid)
        return lv.tasks[lo];
    if (pg_grow(&lv.tasks, &lv.cap_tasks, (size_t)lv.ntasks + 1,
                sizeof *lv.tasks) < 0 || !(t = calloc(1, sizeof *t)))
        return NULL;
    memmove(&lv.tasks[lo + 1], &lv.tasks[lo],
            (lv.ntasks - lo) * sizeof *lv.tasks);
    lv.tasks[lo] = t;
    t->ltid = ltid;
    t->next_recv = -1;
    t->bad_at = -1;
    snprintf(t->state, sizeof t->state, "running");
    lv.ntasks++;
    return t;
}

static int call_index(const char *call)
{
    int i;

    if (!call || !*call)
        return -1;
    for (i = 0; i < lv.ncalls; i++)
        if (!strcmp(lv.calls[i], call))
            return i;
    if (lv.ncalls == (int)(sizeof lv.calls / sizeof lv.calls[0]))
        return -1;
    lv.calls[lv.ncalls] = strdup(call);
    return lv.calls[lv.ncalls] ? lv.ncalls++ : -1;
}

/* The recording as the one model (races.h) grows it: read by the
 * scanner thread alone, so without the lock; what the page gets is
 * copied from it into lv under the lock. */
static struct rc_run model;
static int model_ok;

static int model_task(int ltid)
{
    return top_find_ltid(model.tasks, model.ntasks, sizeof *model.tasks, ltid);
}

/* The sites of task ti the model holds and t has not named yet: named
 * (libdw reads debug information: outside the lock) and kept, a site
 * named before shared. */
static void name_sites(struct lv_task *t, int ti)
{
    const struct rc_task *k = &model.tasks[ti];
    struct lv_site s;
    int i;

    while (t->nsite_map < k->nsites) {
        const struct rc_site *m = &k->sites[t->nsite_map];

        pg_site_parts(model.text + m->module, m->offset, s.file, sizeof s.file,
                      s.func, sizeof s.func, &s.line);
        lv_snap_lock();
        for (i = 0; i < lv.nsites && (strcmp(lv.sites[i].file, s.file) ||
                                      strcmp(lv.sites[i].func, s.func) ||
                                      lv.sites[i].line != s.line); i++)
            ;
        if (pg_grow(&t->site_map, &t->cap_site_map, (size_t)t->nsite_map + 1,
                    sizeof *t->site_map) < 0 ||
            (i == lv.nsites &&
             pg_grow(&lv.sites, &lv.cap_sites, (size_t)lv.nsites + 1,
                     sizeof *lv.sites) < 0)) {
            lv_snap_unlock();
            return; /* out of memory: its events go without sites */
        }
        if (i == lv.nsites)
            lv.sites[lv.nsites++] = s;
        t->site_map[t->nsite_map++] = i;
        lv_snap_unlock();
    }
}

static int site_of(const struct lv_task *t, int id)
{
    return id >= 1 && id <= t->nsite_map ? t->site_map[id - 1] : -1;
}

/* The name of an event's call: its kind's fields say which of the log's
 * lists its code is in (pg_events.def), or that it has none. */
static const char *call_name(const struct rc_ev *e)
{
    const pg_evdesc *d = pg_ev_desc(e->kind);
    int i;

    for (i = 0; d && i < d->nfields; i++)
        if (d->fields[i].type == PG_FT_CALL)
            return e->call < pg_n_msg_calls ? pg_msg_calls[e->call] : NULL;
        else if (d->fields[i].type == PG_FT_QCALL)
            return e->call < pg_n_query_calls ? pg_query_calls[e->call] : NULL;
    return NULL;
}

/* Event pos of the model's task ti as the page's event; a send's
 * destinations (ltids) go to *to.  Under the lock (call names are
 * shared).  0, or -1 when out of memory. */
static int page_event(int ti, int pos, const struct lv_task *t,
                      struct lv_event *out, int **to, long *nto, size_t *cap)
{
    const struct rc_ev *e = RC_EV(&model, ti, pos);
    long i = e - model.ev;

    memset(out, 0, sizeof *out);
    out->ltid = t->ltid;
    out->kind = e->kind;
    out->call = call_index(call_name(e));
    out->tag = e->tag; /* an end's status, a barrier's count (races.h) */
    out->msgid = e->msgid;
    out->bytes = model.view->bytes[i];
    out->from = e->from;
    out->seq = rc_ev_seq(&model, ti, pos);
    out->t = model.view->t[i];
    out->site = site_of(t, e->site);
    out->to = (int)*nto;
    out->nto = e->kind == PG_EV_SEND ? e->nto : 0;
    if (out->nto && pg_grow(to, cap, (size_t)(*nto + out->nto), sizeof **to) < 0)
        return -1;
    if (out->nto)
        memcpy(*to + *nto, model.view->to + e->a, out->nto * sizeof **to);
    *nto += out->nto;
    return 0;
}

/* Appends a copy of one event (its destinations from `to`). */
static void append(const struct lv_event *e, const int *to)
{
    if (pg_grow(&lv.ev, &lv.cap_ev, (size_t)lv.nev + 1, sizeof *lv.ev) < 0 ||
        (e->nto && pg_grow(&lv.to, &lv.cap_to, (size_t)(lv.nto + e->nto),
                           sizeof *lv.to) < 0))
        return; /* out of memory: the view stops growing, the run goes on */
    lv.ev[lv.nev] = *e;
    lv.ev[lv.nev].to = (int)lv.nto;
    if (e->nto)
        memcpy(lv.to + lv.nto, to, e->nto * sizeof *to);
    lv.nto += e->nto;
    lv.nev++;
}

/* Sites and polls are the race analysis's bookkeeping, not events a
 * viewer wants (pg_events.def's shown trait). */
static int shown_kind(int kind)
{
    const pg_evdesc *d = pg_ev_desc(kind);

    return d && d->shown;
}

/* ---- recording: the growing logs --------------------------------------- */

/* A log that fails to read while its task writes it may only be
 * torn at its tail (the event being written): said only when the same
 * event still fails after the log grew past it, or on the scan after the
 * run (last_scan), when nothing is being written any more. */
static int last_scan;

static int corrupt(struct lv_task *t, const char *path, long n)
{
    struct stat st;
    long size = stat(path, &st) == 0 ? (long)st.st_size : -1;
    int grew = t->bad_at == n && size > t->bad_size;

    t->bad_at = n;
    t->bad_size = size;
    return last_scan || grew;
}

/* What the model read of t's log names its program and host. */
static void take_header(struct lv_task *t, int ti)
{
    const struct rc_vtask *v = &model.view->tasks[ti];

    lv_snap_lock();
    if (!t->program[0])
        snprintf(t->program, sizeof t->program, "%s", pg_basename(v->program));
    if (!t->host[0])
        snprintf(t->host, sizeof t->host, "%.127s", v->host);
    t->started = 1;
    lv_snap_unlock();
}

/* The model reads t's log past what it holds (the events are placed
 * after every task's, grow_shown). */
static void read_growing(struct lv_task *t)
{
    char path[4400];
    int ti, cut, rc;
    pg_err err;

    if (!model_ok)
        return;
    rc = rc_grow_task(&model, t->ltid, &ti, &cut, &err);
    if (rc == -2 || ti < 0)
        return; /* not written yet (its header comes first), or no room */
    take_header(t, ti);
    pg_log_path(path, sizeof path, logdir, t->ltid, PG_LOG_COMM);
    if (rc < 0 && corrupt(t, path, model.tasks[ti].nread)) {
        lv_snap_lock();
        snprintf(t->note, sizeof t->note, "%s", err.msg);
        lv_snap_unlock();
    } else if (rc == 0)
        t->bad_at = -1;
}

/* An MPI run: the sends of t the model placed, noted for the receives
 * (live_mpi.c), before any task's events are shown. */
static void note_sends(struct lv_task *t)
{
    int ti = model_task(t->ltid), pos;
    const struct rc_ev *e;

    for (pos = (int)t->mpi_sends + 1; ti >= 0 && pos <= model.tasks[ti].n;
         pos++) {
        e = RC_EV(&model, ti, pos);
        if (e->kind == PG_EV_SEND && e->nto == 1 &&
            lv_mpi_send(t->ltid, model.view->to[e->a], e->ctx, e->tag,
                        e->msgid) < 0)
            return; /* out of memory: tried again next scan */
        t->mpi_sends = pos;
    }
}

int lv_snap_mpi_msgid(int s, int r, int ctx, int tag, int k)
{
    int index, id;

    lv_snap_lock();
    index = rc_ctx_seen(&model, ctx);
    id = index < 0 ? -1 : lv_mpi_id(s, r, index, tag, k);
    lv_snap_unlock();
    return id;
}

/* An MPI run: a receive's count (on its context ctx, the model's index)
 * made its send's msgid; 0 if its send is not read yet (it waits for the
 * next scan, or, after the run, keeps its count as mpi_ids.c does). */
static int renumbered(const struct lv_task *t, struct lv_event *c, int ctx)
{
    int id;

    if (!lv_mpi || c->kind != PG_EV_RECV || c->from < 1)
        return 1;
    if ((id = lv_mpi_id(c->from, t->ltid, ctx, c->tag, c->msgid)) > 0)
        c->msgid = id;
    return id > 0 || last_scan;
}

/* The events the model placed of t past those it shows (rec_loaded:
 * the model's events of it taken), the shown kinds appended. */
static void grow_shown(struct lv_task *t)
{
    int ti = model_task(t->ltid), pos, *to = NULL;
    struct lv_event c;
    size_t cap = 0;
    long nto;

    if (ti < 0)
        return;
    name_sites(t, ti);
    lv_snap_lock();
    for (pos = (int)t->rec_loaded + 1; pos <= model.tasks[ti].n; pos++) {
        if (!shown_kind(RC_EV(&model, ti, pos)->kind)) {
            t->rec_loaded = pos;
            continue;
        }
        nto = 0;
        if (page_event(ti, pos, t, &c, &to, &nto, &cap) < 0 ||
            !renumbered(t, &c, RC_EV(&model, ti, pos)->ctx))
            break;
        t->rec_loaded = pos;
        append(&c, to);
        t->shown++;
    }
    lv_snap_unlock();
    free(to);
}

/* ---- replay: the recording and the tasks' positions --------------------- */

/* The task's recorded events, read once into the model; 0, or -1. */
static int load_recording(struct lv_task *t)
{
    size_t cap_to = 0;
    long nto = 0, n = 0;
    struct lv_event *rec = NULL;
    int *rec_to = NULL, ti, cut, pos;
    pg_err err;

    if (!model_ok || rc_grow_task(&model, t->ltid, &ti, &cut, &err) == -2 ||
        rc_grow_place(&model) < 0 || (ti = model_task(t->ltid)) < 0)
        return -1;
    take_header(t, ti);
    name_sites(t, ti);
    /* Into arrays of our own: the server reads t's under the lock. */
    if (!(rec = malloc(((size_t)model.tasks[ti].n + 1) * sizeof *rec)))
        return -1;
    lv_snap_lock(); /* call names are shared */
    for (pos = 1; pos <= model.tasks[ti].n; pos++) {
        if (!shown_kind(RC_EV(&model, ti, pos)->kind))
            continue;
        if (page_event(ti, pos, t, &rec[n], &rec_to, &nto, &cap_to) < 0)
            break;
        n++;
    }
    t->rec = rec;
    t->rec_to = rec_to;
    t->nrec = n;
    lv_snap_unlock();
    t->rec_loaded = 1;
    return 0;
}

/* The task's position, read afresh each scan rather than mapped: a read
 * sees what another host wrote as soon as the shared file system shows
 * it (NFS checks a file again when it is opened).  0, or -1 when the task
 * has not made its file yet. */
static int read_pos(int ltid, struct pg_live_pos *p)
{
    char path[4400];
    ssize_t n;
    int fd;

    snprintf(path, sizeof path, "%s/ltid-%d.pos", posdir, ltid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = pread(fd, p, sizeof *p, 0);
    close(fd);
    return n == (ssize_t)sizeof *p && p->magic == PG_LIVE_MAGIC ? 0 : -1;
}

static int is_wait(const struct lv_event *e)
{
    return e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE;
}

static void follow_replay(struct lv_task *t)
{
    struct pg_live_pos pos;
    long seq, k;

    if (!t->rec_loaded && load_recording(t) < 0)
        return;
    if (read_pos(t->ltid, &pos) < 0)
        return;
    seq = (long)pos.seq;
    lv_snap_lock();
    t->started = 1;
    for (k = t->shown; k < t->nrec && t->rec[k].seq <= seq; k++) {
        append(&t->rec[k], t->rec[k].nto ? t->rec_to + t->rec[k].to : NULL);
        t->shown++;
    }
    /* Replay checks a task's end against its recorded <end> without
     * consuming it: a task that ended by itself with the recorded status
     * after every other recorded event made that one too. */
    k = t->nrec - 1;
    if (t->shown == k && t->rec[k].kind == PG_EV_END && t->has_status &&
        !strcmp(t->state, "ended") && t->rec[k].tag == t->status) {
        append(&t->rec[k], NULL); /* an end: no destinations */
        t->shown++;
    }
    /* It waits for the first receive after what it consumed. */
    t->waiting = pos.waiting;
    t->next_recv = -1;
    t->bad_at = -1;
    for (k = t->shown; t->waiting && k < t->nrec; k++)
        if (is_wait(&t->rec[k])) {
            t->next_recv = k;
            break;
        }
    lv_snap_unlock();
}

/* ---- the thread ---------------------------------------------------------- */

/* A replaying task has a row once it has made its position file (or the
 * monitor saw it start): the recording names every task from the first. */
static int replay_started(int ltid)
{
    char path[4400];
    int i, known = 0;

    lv_snap_lock();
    for (i = 0; i < lv.ntasks && !known; i++)
        known = lv.tasks[i]->ltid == ltid;
    lv_snap_unlock();
    snprintf(path, sizeof path, "%s/ltid-%d.pos", posdir, ltid);
    return known || access(path, F_OK) == 0;
}

static void scan_once(void)
{
    int *ids, n = top_log_ltids(logdir, 0, &ids), i;
    struct lv_task *t;

    for (i = 0; i < n; i++) {
        if (lv.mode == PANGAEA_REPLAY && !replay_started(ids[i]))
            continue;
        lv_snap_lock();
        t = lv_task(ids[i]);
        lv_snap_unlock();
        if (!t)
            break;
        if (lv.mode == PANGAEA_REPLAY)
            follow_replay(t);
        else
            read_growing(t);
    }
    if (lv.mode != PANGAEA_REPLAY && model_ok && rc_grow_place(&model) == 0) {
        for (i = 0; lv_mpi && i < n; i++) {
            lv_snap_lock();
            t = lv_task(ids[i]);
            lv_snap_unlock();
            if (t)
                note_sends(t);
        }
        for (i = 0; i < n; i++) {
            lv_snap_lock();
            t = lv_task(ids[i]);
            lv_snap_unlock();
            if (t)
                grow_shown(t);
        }
    }
    if (n > 0)
        free(ids);
    lv_snap_lock();
    lv.scans++;
    lv_snap_unlock();
}

/* The pause after a scan that took `took` s: at least 20 times that
 * (about 5% of a CPU), unless a page or client is watching: then 0.2 s,
 * or as long as the scan when longer (half a CPU at most), so that a
 * run's new events are there to draw at least every 0.4 s while its
 * scans take up to 0.2 s. */
double lv_scan_pause(double took, int watched)
{
    if (watched)
        return took > 0.2 ? took : 0.2;
    return took * 20 > 0.2 ? took * 20 : 0.2;
}

/* Watched: /events.json read in the last 2 s.  When the next scan should
 * be done is in each answer ("next_ms"): the page asks just after. */
static double scan_end, last_took; /* of the last scan, under the lock */

static void scan_pause(double took)
{
    double now = pg_seconds();

    lv_snap_lock();
    scan_end = now;
    last_took = took;
    lv.next_scan = now + lv_scan_pause(took, now - lv.polled < 2.0) + took;
    lv_snap_unlock();
}

void lv_snap_watched(void)
{
    double soon = scan_end + lv_scan_pause(last_took, 1) + last_took;

    lv.polled = pg_seconds();
    if (scan_end > 0 && lv.next_scan > soon) { /* resting as for nobody */
        lv.next_scan = soon;
        pthread_cond_signal(&wake);
    }
}

/* Until the next scan is due (lv.next_scan, less the scan's own length),
 * or the run is over; lv_snap_watched may bring it closer meanwhile. */
static int rest(void)
{
    struct timespec until;
    double left;
    int stop;

    pthread_mutex_lock(&mu);
    while (!stopping &&
           (left = lv.next_scan - last_took - pg_seconds()) > 0) {
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += (time_t)left;
        until.tv_nsec += (long)((left - (time_t)left) * 1e9);
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (pthread_cond_timedwait(&wake, &mu, &until) == ETIMEDOUT)
            break;
    }
    stop = stopping;
    pthread_mutex_unlock(&mu);
    return stop;
}

static void *scanner(void *arg)
{
    double t0;

    (void)arg;
    do {
        t0 = pg_seconds();
        scan_once();
        scan_pause(pg_seconds() - t0);
    } while (!rest());
    last_scan = 1;
    scan_once(); /* the run is over: everything it wrote */
    return NULL;
}

int lv_snap_start(const struct top_opts *o, const char *pdir, pg_err *err)
{
    int rc;

    snprintf(logdir, sizeof logdir, "%s", o->logdir);
    snprintf(posdir, sizeof posdir, "%s", pdir ? pdir : "");
    if (rc_grow_begin(&model, logdir) < 0)
        return pg_err_set(err, "out of memory for the live view");
    model_ok = 1;
    rc = pthread_create(&thread, NULL, scanner, NULL);
    if (rc)
        return pg_err_set(err, "cannot start the live view's thread: %s",
                          strerror(rc));
    have_thread = 1;
    return 0;
}

void lv_snap_stop(void)
{
    if (!have_thread)
        return;
    pthread_mutex_lock(&mu);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&mu);
    pthread_join(thread, NULL);
    have_thread = 0;
    model_ok = 0;
    rc_free(&model); /* the page has its copy (lv) */
    lv_mpi_free();
    lv_snap_lock();
    lv.running = 0;
    lv_snap_unlock();
}
