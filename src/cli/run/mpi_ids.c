/*
 * mpi_ids.c - an MPI recording's message ids made those of every Pangaea
 * log: (sender ltid, msgid) names one message, msgid being the sender's
 * count of its sends (docs/mpi-notes.md).
 *
 * Design.  A rank knows what it sent (it writes its sends' msgids as its
 * own count), but a receiver only knows which message of one sender and
 * one tag it took: the k-th (MPI's non-overtaking rule; nothing is
 * carried in the message).  So each rank writes that k as a receive's
 * msgid, and after the run `pangaea` (mpi_run.c) rewrites the receives:
 * the k-th send of sender S to receiver R with tag T on communicator C
 * (the events' ctx, format 7: the rule holds per communicator; 0 in
 * older logs), in S's log, gives its msgid.  Sends are collected as
 * (S, R, C, T, msgid) and sorted, msgid
 * last (a sender's msgids grow in its log's order, so the k-th send of a
 * group is at the group's start + k - 1); each
 * receiving log is rewritten through the log writer into a new file that
 * then replaces it.  Memory: 20 bytes a send; time: a sort and one pass.
 * The views, `-races`, `-min` and `-whatif` then read MPI recordings as
 * PVM ones.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_log.h"
#include "top.h"

struct snd {
    int s, r, ctx, tag, msgid;
};

struct sends {
    struct snd *v;
    size_t n, cap;
};

static int cmp_snd(const void *a, const void *b)
{
    const struct snd *x = a, *y = b;

    if (x->s != y->s)
        return (x->s > y->s) - (x->s < y->s);
    if (x->r != y->r)
        return (x->r > y->r) - (x->r < y->r);
    if (x->ctx != y->ctx)
        return (x->ctx > y->ctx) - (x->ctx < y->ctx);
    if (x->tag != y->tag)
        return (x->tag > y->tag) - (x->tag < y->tag);
    return (x->msgid > y->msgid) - (x->msgid < y->msgid);
}

/* The sends of ltid s, appended to all. */
static int collect(const char *dir, int s, struct sends *all, pg_err *err)
{
    char path[PATH_MAX + 64];
    pg_event ev;
    pg_logr *rd;
    int rc;

    pg_log_path(path, sizeof path, dir, s, PG_LOG_COMM);
    if (!(rd = pg_logr_open(path, PG_LOG_COMM, NULL, err)))
        return -1;
    while ((rc = pg_logr_next(rd, &ev, err)) == 1)
        if (ev.kind == PG_EV_SEND && ev.nto == 1) {
            if (pg_grow(&all->v, &all->cap, all->n + 1, sizeof *all->v) < 0) {
                pg_logr_close(rd);
                return pg_err_set(err, "out of memory"), -1;
            }
            all->v[all->n++] = (struct snd){ s, ev.to[0], ev.ctx, ev.tag,
                                             ev.msgid };
        }
    rc = rc < 0 && !pg_logr_cut(rd) ? -1 : 0;
    pg_logr_close(rd);
    return rc;
}

/* The msgid of the k-th send of s to r with tag on ctx, or -1 if none. */
static int sender_id(const struct sends *all, int s, int r, int ctx, int tag,
                     int k)
{
    struct snd key = { s, r, ctx, tag, INT_MIN };
    size_t lo = 0, hi = all->n;

    while (lo < hi) { /* the first of (s, r, ctx, tag) */
        size_t mid = lo + (hi - lo) / 2;

        if (cmp_snd(&all->v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (k < 1 || lo + (size_t)k - 1 >= all->n)
        return -1;
    lo += (size_t)k - 1;
    return all->v[lo].s == s && all->v[lo].r == r &&
           all->v[lo].ctx == ctx && all->v[lo].tag == tag
               ? all->v[lo].msgid
               : -1;
}

/* Rewrites ltid r's receives; a receive whose send is not in the logs
 * (its sender's log is cut) keeps its count. */
static int rewrite(const char *dir, int r, const struct sends *all,
                   pg_err *err)
{
    char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
    pg_log_header h;
    pg_event ev;
    pg_logr *rd;
    pg_logw *w;
    int rc, id, bad = 0;

    pg_log_path(path, sizeof path, dir, r, PG_LOG_COMM);
    snprintf(tmp, sizeof tmp, "%s.renumber", path);
    if (!(rd = pg_logr_open(path, PG_LOG_COMM, &h, err)))
        return -1;
    if (!(w = pg_logw_open_sel(tmp, PG_LOG_COMM, r, h.program, h.host,
                               h.select[0] ? h.select : NULL, err)))
        return pg_logr_close(rd), -1;
    while ((rc = pg_logr_next(rd, &ev, err)) == 1) {
        if (ev.kind == PG_EV_RECV &&
            (id = sender_id(all, ev.from, r, ev.ctx, ev.tag, ev.msgid)) > 0)
            ev.msgid = id;
        bad |= pg_logw_event(w, &ev) < 0;
    }
    bad |= rc < 0 && !pg_logr_cut(rd);
    pg_logr_close(rd);
    bad |= pg_logw_close(w) < 0;
    if (bad || rename(tmp, path) < 0) {
        unlink(tmp);
        return pg_err_set(err, "%s: cannot renumber its messages", path), -1;
    }
    return 0;
}

int top_mpi_renumber(const char *dir, pg_err *err)
{
    struct sends all = { 0 };
    int *ids, n = top_log_ltids(dir, 0, &ids), i, rc = 0;

    if (n < 0)
        return pg_err_set(err, "cannot read the log directory %s", dir);
    for (i = 0; i < n && rc == 0; i++)
        rc = collect(dir, ids[i], &all, err);
    if (rc == 0 && all.n > 1)
        qsort(all.v, all.n, sizeof *all.v, cmp_snd);
    for (i = 0; i < n && rc == 0; i++)
        rc = rewrite(dir, ids[i], &all, err);
    free(all.v);
    free(ids);
    return rc;
}

int top_mpi_recording(const char *dir)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_logr *r;
    int mpi = 0;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, NULL)))
        return 0;
    pg_log_path(path, sizeof path, dir, 0, PG_LOG_EXEC);
    mpi = access(path, F_OK) < 0; /* a PVM run has pangaea's own, ltid 0 */
    pg_logr_close(r);
    return mpi;
}
