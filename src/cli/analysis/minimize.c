/*
 * minimize.c - race-only recordings: `pangaea -min [LOGDIR]`, and the end
 * of `pangaea -log -min`.
 *
 * Design.  A recording is made whole, as `-log` makes it (the run costs
 * what -log costs), and pruned afterwards from the logs alone: the race
 * analysis of `-races` (races*.c: vector clocks, potential matches) says
 * which receives could have taken another message, and each task's
 * communication log is written again with only what a replay cannot do
 * without:
 *   - every receive that races (two or more potential matches), unless
 *     its order follows from kept ones (below);
 *   - every receive that is a poll or a probe (pvm_nrecv, pvm_trecv,
 *     pvm_probe): PVM would not wait for its message;
 *   - every event that carries failed polls (misses), send or receive:
 *     the count must stay where the polls were;
 *   - notices, query answers, group lookups and turns, the <end>.
 * Sends and the other receives go, and so do the kinds only -races reads
 * (call sites, barriers, routes, poll filters).  Each kept event carries
 * its number among the events a replay acts on (sends, receives, notices,
 * group events, queries), so the replay counts the program's events and
 * knows which one a kept event is (docs/comm-log-format.md: the gap).
 *
 * Which racing receives go too (Netzer and Miller's "races whose order
 * follows from traced ones").  A replay keeps the messages of kept
 * receives (reserved, src/pvm/runtime/reserve.c) from the receives it leaves to
 * PVM.  So, deciding each task's receives from its last to its first, a
 * racing receive goes when, for every sender of an alternative, that
 * sender's messages it could take (matching, not taken earlier, not sent
 * after it), in send order, are all reserved for later kept receives
 * before the one it took or their end; with per-pair order lost (the
 * receiver routes direct) every alternative must be reserved; an
 * alternative that is a notice keeps it.
 *
 * Why a receive left out takes its recorded message.  Take the first
 * receive R of a replay (in real time) that takes another message m' than
 * the m it took when recorded.  Everything before it repeated the
 * recording, so m''s send is a send of the recording, made before R ended:
 * it does not happen after R (a chain from R to it would run through
 * events that all come after R).  m' matches R's filter (the program is
 * the same up to R), no earlier receive took it and it is not reserved
 * (the matcher refused those); its sender's earlier messages that R could
 * take were ahead of it in the queue (PVM keeps each pair's order), so the
 * matcher refused them: reserved.  So the walk above, from that sender's
 * first message R could take, passes reserved ones and reaches m': R was
 * kept, and a kept receive takes exactly its recorded message.  (If m' is
 * from m's sender, m was ahead of it and not reserved; if R did not race,
 * m' would be a second potential match.)  Where PVM loses per-pair order,
 * through the program's own matcher, and in logs that do not say what
 * was asked, every racing receive is kept.  Without reservations no
 * racing receive could go (its alternative may arrive first); with them,
 * SOR keeps two of each three reductions as before, a master taking from
 * three workers about two thirds of its receives instead of all.
 *
 * An MPI run's recording (src/mpi/) is pruned the same way, but for two
 * things.  Its receives that may go are MPI_Recv's only (MPI_Sendrecv's
 * half is logged so): the completions of nonblocking receives say which
 * request a wait or test chose, and stay as polls do.  And every racing
 * receive stays: an MPI replay cannot reserve a message for a later
 * receive (it posts a kept receive with its recorded source and tag, and
 * leaves the others to MPI as the program asks), so the proof above holds
 * without reservations: the first receive R of the replay that takes
 * another message m' had m' (or, by MPI's non-overtaking rule, an earlier
 * message of its sender that R admits) as a second potential match when
 * recorded, so it raced and was kept.
 *
 * A task whose log stops (it died) keeps its full log and replays as
 * usual; every log is written to a temporary file first and renamed over
 * the original only when all were written, so a failure changes nothing.
 * Every log's header then says select="race-only" (execution logs too),
 * which `-replay` reports.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log_table.h"
#include "pg_log.h"
#include "pg_util.h"
#include "races.h"
#include "top.h"

/* What one pruning did, for its report. */
struct min_stats {
    long bytes_before, bytes_after;  /* communication logs */
    long receives, kept_receives, races, kept_events, events;
    long poll_runs;                  /* of the receives: runs of failed polls */
    long implied;                    /* races left out: order follows */
    int full_tasks;                  /* logs kept whole (their task died) */
};

static long file_size(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

/* The events a replay acts on, which race-only logs number (the <end>
 * included): pg_events.def's replay trait. */
static int replayed(int kind)
{
    const pg_evdesc *d = pg_ev_desc(kind);

    return d && !d->replay_passes;
}

/* Whether event pos of task t is a receive as -races counts them
 * (races_find.c examines these: rc_examined), so that the two reports'
 * numbers agree. */
static int examined(const struct rc_run *run, int t, int pos)
{
    return pos >= 1 && rc_examined(RC_EV(run, t, pos));
}

/* Whether it is a run of failed polls that -races counts. */
static int poll_run(const struct rc_run *run, int t, int pos)
{
    return examined(run, t, pos) && RC_EV(run, t, pos)->kind == PG_EV_POLL;
}

/* Whether a send names a task outside the run (a replay checks it
 * instead of making it, so it must stay). */
static int to_outside(const pg_event *ev)
{
    int i;

    for (i = 0; i < ev->nto; i++)
        if (ev->to[i] == PG_LTID_OUTSIDE)
            return 1;
    return 0;
}

/* Whether event ev stays; keep_recv: the decision for a receive.  A
 * message from outside the run stays: its replay comes from the data
 * file, in the comm log's order, and no task of the replay sends it. */
static int kept(const pg_event *ev, int keep_recv)
{
    const pg_evdesc *d = pg_ev_desc(ev->kind);

    if (!d || d->min == PG_MIN_DROP) /* pg_events.def's min trait */
        return 0;
    if (d->min == PG_MIN_KEEP)
        return 1;
    if (ev->kind == PG_EV_RECV) /* the analysis decides sends, receives */
        return keep_recv || ev->from == PG_LTID_OUTSIDE;
    assert(ev->kind == PG_EV_SEND);
    return ev->misses > 0 || to_outside(ev);
}

#define ROUTE_DIRECT 3 /* PvmRouteDirect, as races_find.c reads it */

/* The first message at or after m in its (sender, receiver) chain that
 * is not reserved, -1 none.  Reservations only grow (receives are decided
 * from the last to the first), so a reserved message's jump can point past
 * every reserved one after it, for good: a union-find over the chain, each
 * reserved run crossed once (path compression), not once per receive. */
static int unreserved(int *jump, const char *reserved, int m)
{
    int r = m, x;

    while (r >= 0 && reserved[r])
        r = jump[r];
    while (m >= 0 && reserved[m]) {
        x = jump[m];
        jump[m] = r;
        m = x;
    }
    return r;
}

/* The receive being decided, for alt_needs_keeping. */
struct deciding {
    int pos, atag, direct;
    int always;           /* kept if it races at all (see keep_of) */
    const char *reserved;
    int *jump;
};

/* Whether alternative m of a racing receive (event d->pos of its task)
 * makes it need keeping: m could reach it in a replay.  A replay keeps
 * the messages of later kept receives (reserved) from the receives it
 * leaves to PVM, so an alternative that is reserved is no alternative,
 * but then, where PVM keeps per-pair order, its sender's next message
 * that the receive could take is (the walk below).  The walk jumps over
 * reserved messages (unreserved()): it would only pass them, and the
 * first of them sent after the receive would end it, as the next
 * unreserved one does then (a sender's knowledge of the receiver, vcd,
 * only grows along its messages).  The receive needs keeping when one of
 * its alternatives does: the finder (rc_back_until) offers them one by
 * one and stops at the first that does. */
static int alt_needs_keeping(const struct rc_run *run, int m, int fifo_broken,
                             void *arg)
{
    const struct deciding *d = arg;
    const struct rc_msg *msg = run->msg;

    if (d->always || msg[m].src < 0 || fifo_broken)
        return 1; /* a notice; or order lost: kept as before */
    if (d->direct) /* the analysis lists every message of the sender */
        return !d->reserved[m];
    for (m = unreserved(d->jump, d->reserved, m); m >= 0;
         m = unreserved(d->jump, d->reserved, msg[m].next)) {
        if (msg[m].taken_pos && msg[m].taken_pos < d->pos)
            continue;
        if (msg[m].vcd >= d->pos)
            break; /* sent after the receive, and so is the rest */
        if (d->atag >= 0 && rc_msg_tag(run, &msg[m]) != d->atag)
            continue;
        return 1; /* the first message of the sender it could take */
    }
    return 0;
}

/* A receive that waits for its message, which a replay may leave to the
 * message passing when it does not race.  An MPI run's: MPI_Recv (and
 * MPI_Sendrecv's half, logged so); its other receives (MPI_Irecv's
 * completions, which say which request a wait or a test chose, and the
 * probes) stay, as PVM's polls do. */
static int blocking_recv(const char *call, int mpi)
{
    if (mpi)
        return !strcmp(call, "MPI_Recv");
    return !strcmp(call, "pvm_recv") || !strcmp(call, "pvm_precv");
}

/* Each event's PvmRouteDirect state (1-based, as RC_EV): what the last
 * <route> before it set.  NULL when out of memory. */
static char *direct_of(const struct rc_run *run, int t)
{
    char *direct = calloc((size_t)run->tasks[t].n + 2, 1);
    int pos, d = 0;

    for (pos = 1; direct && pos <= run->tasks[t].n; pos++) {
        const struct rc_ev *e = RC_EV(run, t, pos);

        if (e->kind == PG_EV_ROUTE)
            d = e->a == ROUTE_DIRECT;
        direct[pos] = (char)d;
    }
    return direct;
}

/* For each event of task t (1-based, as RC_EV), whether a receive there
 * stays; from the last receive to the first, so that what later kept
 * receives take is known (reserved) when an earlier one is decided.  Its
 * races are found again on the way down (rc_back_until: only until an
 * alternative keeps it), each forgotten once decided, and counted.  NULL
 * when out of memory. */
static char *keep_of(struct rc_back *b, const struct rc_run *run, int t,
                     char *reserved, int *jump, int mpi, struct min_stats *st)
{ /* mpi: an MPI run's (blocking_recv) */
    const struct rc_task *task = &run->tasks[t];
    char *keep = calloc((size_t)task->n + 2, 1), *direct = direct_of(run, t);
    struct rc_race race;
    struct deciding d = { 0, 0, 0, 0, reserved, jump };
    int pos, r, reached, misses;

    if (!keep || !direct) {
        free(keep), free(direct);
        return NULL;
    }
    for (pos = task->n; pos >= 1; pos--) {
        const struct rc_ev *e = RC_EV(run, t, pos);
        const char *call = pg_msg_calls[e->call];
        int cons = e->matcher || e->afrom <= -3 || e->atag <= -2, racing;

        if (!examined(run, t, pos))
            continue;
        /* an MPI replay cannot hold a kept receive's message back from
         * the receives it leaves to MPI (reserve.c's way), so every race
         * of an MPI run stays; so does a race where the receive's filter
         * is unknown; a poll, or a receive with polls before it, stays
         * as recorded whether it races or not */
        d.pos = pos, d.atag = e->atag, d.direct = direct[pos];
        misses = rc_ev_misses(run, t, pos);
        d.always = cons || mpi || e->kind != PG_EV_RECV || misses > 0 ||
                   !blocking_recv(call, mpi);
        if ((r = rc_back_until(b, t, pos, direct[pos], alt_needs_keeping, &d,
                               &race, &reached)) < 0) {
            free(keep), free(direct);
            return NULL;
        }
        st->races += r;
        if (e->kind != PG_EV_RECV)
            continue;
        racing = r == 1 && race.took >= 0;
        if (misses > 0 || !blocking_recv(call, mpi))
            keep[pos] = 1; /* a poll, or polls before it: as recorded */
        else if (racing)
            keep[pos] = reached;
        st->implied += racing && !keep[pos];
        if (keep[pos] && e->a >= 0 && !pg_call_probes(call))
            reserved[e->a] = 1; /* a replay keeps it for this receive */
    }
    free(direct);
    return keep;
}

/* Writes task t's race-only log to tmp. */
static int prune_comm(const struct rc_run *run, int t, const char *keepv,
                      const char *path, const char *tmp,
                      struct min_stats *st, pg_err *err)
{
    pg_log_header h;
    pg_event ev, copy;
    pg_logr *r = pg_logr_open(path, PG_LOG_COMM, &h, err);
    pg_logw *w = NULL;
    long idx = 0;
    int pos = 0, rc = 0, keep, polls = 0, exam, poll;

    if (!r)
        return -1;
    pg_log_recording_set(h.recording); /* the header says it again */
    w = pg_logw_open_sel(tmp, PG_LOG_COMM, h.ltid, h.program, h.host,
                         PG_SELECT_RACE_ONLY, err);
    if (!w)
        return pg_logr_close(r), -1;
    while (rc == 0 && (rc = pg_logr_next(r, &ev, err)) == 1) {
        rc = 0;
        if (ev.kind != PG_EV_SITE)
            pos++; /* the analysis's numbering (races.c: take_event) */
        if (pos > run->tasks[t].n) {
            rc = pg_err_set(err, "%s changed while it was read", path);
            break;
        }
        keep = kept(&ev, ev.kind == PG_EV_RECV && keepv[pos]);
        st->events += ev.kind != PG_EV_SITE;
        exam = ev.kind != PG_EV_SITE && examined(run, t, pos);
        poll = ev.kind != PG_EV_SITE && poll_run(run, t, pos);
        st->receives += exam;
        st->poll_runs += poll;
        st->kept_receives += keep && exam;
        if (ev.kind != PG_EV_SITE && ev.kind != PG_EV_POLL) {
            st->kept_receives += keep ? polls : 0;
            polls = 0; /* their number stays where it rode, or goes */
        }
        polls += poll;
        if (replayed(ev.kind))
            idx++;
        if (!keep)
            continue;
        copy = ev; /* what only -races reads goes */
        copy.site = 0, copy.asked_from = -3, copy.asked_tag = -2;
        copy.matcher = 0, copy.ctx = 0; /* a replay posts in its own */
        st->kept_events++;
        if (pg_logw_seq(w, idx) < 0 || pg_logw_event(w, &copy) < 0)
            rc = pg_err_set(err, "%s: cannot write event %ld", tmp, ev.seq);
    }
    pg_logr_close(r);
    if (pg_logw_close(w) < 0 && rc == 0)
        rc = pg_err_set(err, "cannot write %s", tmp);
    return rc < 0 ? -1 : 0;
}

/* An execution log again, its header saying race-only. */
static int mark_exec(const char *path, const char *tmp, pg_err *err)
{
    pg_log_header h;
    pg_event ev;
    pg_logr *r = pg_logr_open(path, PG_LOG_EXEC, &h, err);
    pg_logw *w;
    int rc;

    if (!r)
        return -1;
    pg_log_recording_set(h.recording); /* the header says it again */
    w = pg_logw_open_prog(tmp, PG_LOG_EXEC, h.ltid, h.program, h.host,
                          PG_SELECT_RACE_ONLY, h.exe, h.sha256, h.cwd, err);
    if (!w)
        return pg_logr_close(r), -1;
    while ((rc = pg_logr_next(r, &ev, err)) == 1)
        if (pg_logw_event(w, &ev) < 0) {
            rc = pg_err_set(err, "cannot write %s", tmp);
            break;
        }
    if (rc < 0 && pg_logr_cut(r))
        rc = 0; /* a task that died: its spawns so far */
    pg_logr_close(r);
    if (pg_logw_close(w) < 0 && rc == 0)
        rc = pg_err_set(err, "cannot write %s", tmp);
    return rc < 0 ? -1 : 0;
}

/* An MPI run's recording: its ranks' logs, and no log of ltid 0
 * (pangaea's own in a PVM run; src/cli/run/mpi_ids.c says the same). */
static int mpi_recording(const char *dir)
{
    char path[PATH_MAX + 64];

    pg_log_path(path, sizeof path, dir, 0, PG_LOG_EXEC);
    if (access(path, F_OK) == 0)
        return 0;
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    return access(path, F_OK) == 0;
}

/* A full recording, of everything: -only recordings match no unselected
 * message already, and a race-only one is pruned already. */
static int prunable(const char *dir, int mpi, pg_err *err)
{
    char path[4400];
    pg_log_header h;
    pg_logr *r;

    /* pangaea's own log says so in a PVM run; an MPI run has none */
    pg_log_path(path, sizeof path, dir, mpi ? 1 : 0, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, err)))
        return -1;
    pg_logr_close(r);
    if (pg_log_race_only(h.select))
        return pg_err_set(err, "the recording in %s is race-only already",
                          dir);
    if (h.select[0])
        return pg_err_set(err, "the recording in %s was made with -only "
                          "\"%s\": only a recording of everything can be made"
                          " race-only", dir, h.select);
    return 0;
}

/* A log written again: its path and its temporary's, made when needed (a
 * few bytes a log, not two paths: 20,000 tasks are 40,000 logs). */
struct out {
    int ltid, kind, set;
};

struct paths {
    char path[4400], tmp[4420];
};

static struct paths *paths_of(const char *dir, const struct out *o,
                              struct paths *p)
{
    pg_log_path(p->path, sizeof p->path, dir, o->ltid, o->kind);
    snprintf(p->tmp, sizeof p->tmp, "%s.min-tmp", p->path);
    return p;
}

/* The counts of a task whose log is kept whole (it died): every receive
 * and event of it stays, and -races counted them and its races too.  0,
 * or -1 when out of memory. */
static int count_whole(struct rc_back *b, const struct rc_run *run, int t,
                       struct min_stats *st)
{
    char *direct = direct_of(run, t);
    struct rc_race race;
    int pos, exam, r = 0;

    for (pos = run->tasks[t].n; direct && r >= 0 && pos >= 1; pos--) {
        exam = examined(run, t, pos);
        if (exam && (r = rc_back_at(b, t, pos, direct[pos], &race)) > 0)
            st->races++;
        st->receives += exam;
        st->kept_receives += exam;
        st->poll_runs += poll_run(run, t, pos);
        st->events++, st->kept_events++;
    }
    free(direct);
    return direct && r >= 0 ? 0 : -1;
}

/* Task t's logs written again (its comm log pruned, or counted whole
 * when its task died; its exec log marked) as o[*k..]. */
static int prune_task(struct rc_back *b, struct rc_run *run, int t,
                      char *reserved, int *jump, int mpi, struct out *o,
                      int *k, struct min_stats *st, pg_err *err)
{
    int ltid = run->tasks[t].ltid, rc = 0;
    struct paths p;
    char *keepv;

    o[*k] = (struct out){ ltid, PG_LOG_COMM, 0 };
    paths_of(run->dir, &o[*k], &p);
    st->bytes_before += file_size(p.path);
    if (run->tasks[t].note[0]) { /* its task died: kept whole */
        st->full_tasks++;
        st->bytes_after += file_size(p.path);
        if (count_whole(b, run, t, st) < 0)
            return pg_err_set(err, "out of memory");
    } else if (!(keepv = keep_of(b, run, t, reserved, jump, mpi, st))) {
        return pg_err_set(err, "out of memory");
    } else {
        o[*k].set = 1;
        rc = prune_comm(run, t, keepv, p.path, p.tmp, st, err);
        free(keepv);
        if (rc < 0)
            return -1;
        st->bytes_after += file_size(p.tmp), (*k)++;
    }
    o[*k] = (struct out){ ltid, PG_LOG_EXEC, 1 };
    paths_of(run->dir, &o[*k], &p);
    if (access(p.path, F_OK) == 0 && (rc = mark_exec(p.path, p.tmp, err)) == 0)
        (*k)++;
    return rc;
}

/* Every task pruned.  No race is kept: each task's are found again from
 * its last receive down (rc_back), decided and forgotten, so memory is
 * the model's and a few bytes a message, whatever the task count (the
 * races of a deep queue at 256 tasks with their ~128 alternatives each
 * were 5.7 GB at 10^7 events). */
static int prune_all(struct rc_run *run, struct out *o, int *nout, int mpi,
                     struct min_stats *st, pg_err *err)
{
    struct rc_back *b = NULL;
    char *reserved = calloc((size_t)run->nmsg + 1, 1);
    int *jump = malloc(((size_t)run->nmsg + 1) * sizeof *jump);
    int t, rc = 0, k = 0, i;

    if (rc_back_open(run, &b) < 0 || !reserved || !jump)
        return rc_back_close(b), free(reserved), free(jump),
               pg_err_set(err, "out of memory"), -1;
    for (i = 0; i < run->nmsg; i++)
        jump[i] = run->msg[i].next; /* rc_back_open chained each pair's */
    for (t = 0; rc == 0 && t < run->ntasks; t++)
        rc = prune_task(b, run, t, reserved, jump, mpi, o, &k, st, err);
    rc_back_close(b);
    free(reserved), free(jump);
    *nout = k;
    return rc;
}

/* Prunes the recording in dir (locked by the caller). */
static int minimize(const char *dir, struct min_stats *st, pg_err *err)
{
    struct rc_run run;
    struct out *o;
    struct paths p;
    char path[4400];
    int n = 0, i, rc, mpi = mpi_recording(dir);

    memset(st, 0, sizeof *st);
    if (prunable(dir, mpi, err) < 0)
        return -1;
    memset(&run, 0, sizeof run);
    if (rc_load(&run, dir, err) < 0)
        return rc_free(&run), -1;
    o = calloc(2 * (size_t)run.ntasks + 2, sizeof *o);
    if (!o)
        return rc_free(&run), pg_err_set(err, "out of memory"), -1;
    rc = prune_all(&run, o, &n, mpi, st, err);
    for (i = 0; rc == 0 && i < n; i++)
        if (rename(paths_of(dir, &o[i], &p)->tmp, p.path) < 0)
            rc = pg_err_set(err, "cannot rename %s to %s", p.tmp, p.path);
    for (i = 0; rc < 0 && i < n + 1 && i < 2 * run.ntasks + 2; i++)
        if (o[i].set)
            unlink(paths_of(dir, &o[i], &p)->tmp);
    /* pangaea's own exec log, if it has no communication log (an MPI
     * run has neither) */
    pg_log_path(path, sizeof path, dir, 0, PG_LOG_COMM);
    if (rc == 0 && !mpi && access(path, F_OK) != 0) {
        struct out z = { 0, PG_LOG_EXEC, 1 };

        paths_of(dir, &z, &p);
        if ((rc = mark_exec(p.path, p.tmp, err)) == 0 &&
            rename(p.tmp, p.path) < 0)
            rc = pg_err_set(err, "cannot rename %s", p.tmp);
    }
    free(o);
    rc_free(&run);
    return rc;
}

static void report(const char *dir, const struct min_stats *st, double secs)
{
    char polls[80] = "";

    if (st->poll_runs) /* counted as -races counts them */
        snprintf(polls, sizeof polls, "%ld of them %s of failed polls; ",
                 st->poll_runs, st->poll_runs > 1 ? "runs" : "a run");
    fprintf(stderr, "pangaea: %s is race-only now: %ld of %ld receives kept "
            "(%s%ld race, %ld of them implied by kept ones), %ld of %ld "
            "events; communication logs %ld -> %ld bytes (%.1f%%)%s in %.2f "
            "s\n", dir, st->kept_receives, st->receives, polls, st->races,
            st->implied, st->kept_events, st->events,
            st->bytes_before, st->bytes_after,
            st->bytes_before ? 100.0 * st->bytes_after / st->bytes_before : 0,
            st->full_tasks ? "; the logs of tasks that died kept whole" : "",
            secs);
}

int top_min_dir(const char *dir, pg_err *err)
{
    struct min_stats st;
    struct timespec a, b;
    char missing[PATH_MAX + 200];

    /* What -min drops cannot come back: a recording missing a task's
     * logs would lose that task for good (logdir.c says which). */
    if (top_logs_missing(dir, missing, sizeof missing) > 0)
        return pg_err_set(err, "the recording in %s is not whole: %s; it is "
                          "left as it is", dir, missing);
    clock_gettime(CLOCK_MONOTONIC, &a);
    if (minimize(dir, &st, err) < 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    report(dir, &st, (double)(b.tv_sec - a.tv_sec) +
                     (double)(b.tv_nsec - a.tv_nsec) / 1e9);
    if (rc_memstats()) /* PANGAEA_MEMSTATS=1 */
        fprintf(stderr, "pangaea: memory: %ld events; peak resident %ld "
                "KB\n", st.events, rc_peak_kb());
    return 0;
}

/* `pangaea -min [LOGDIR]`: 0, 2 bad input (named). */
int top_min(int argc, char **argv)
{
    const char *dir = argc > 2 ? argv[2] : "logs";
    struct stat st;
    pg_err err;

    if (argc > 3 || (argc == 3 && argv[2][0] == '-')) {
        fprintf(stderr, "pangaea: -min LOGDIR makes a recording race-only: "
                "one log directory (or -logdir DIR); to record race-only: "
                "pangaea -log -min program\nusage: pangaea -min [LOGDIR]\n");
        return TOP_EXIT_USAGE;
    }
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "pangaea: -min: no recording in %s (not a "
                "directory)\n", dir);
        return TOP_EXIT_USAGE;
    }
    if (top_logdir_lock(dir, 0, &err) < 0 || top_min_dir(dir, &err) < 0) {
        fprintf(stderr, "pangaea: -min: %s\n", err.msg);
        return TOP_EXIT_USAGE;
    }
    return 0;
}
