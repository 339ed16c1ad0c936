/*
 * move.c - moving tasks of a recording to other hosts:
 *
 *   pangaea -move LTID HOST [-logdir DIR]         one task
 *   pangaea -move-host FROMHOST TOHOST [-logdir DIR]   every task of a host
 *
 * Design.  In a replay, a task runs on the host its parent's spawn event
 * gives it: <child ltid="N" host="H"/> in the parent's execution log (for
 * ltid 1, in ltid-0.exec.xml: the spawn `pangaea` made).  Editing that
 * attribute by hand works; this makes the same edit through the log API,
 * so the result is a log the reader and the schema accept.  Each log that
 * names a task to move is read with pg_logr and written again, event by
 * event, with pg_logw into a temporary file in the same directory, with
 * only those hosts changed: seq, timestamps (the writer prints "%.6f" of
 * the double the reader parsed from "%.6f", which is exact at this size),
 * misses, arguments, `where` and flags stay as they were, and so does the
 * header's host (where the task ran when recorded).  Every temporary file
 * is validated against the schema and read back before any of them
 * replaces its log, by rename(), so a failure leaves the recording as it
 * was.  The log directory is locked meanwhile (logdir.c), as a run locks
 * it.  Nothing here talks to PVM: whether the new host can be used is for
 * the replay to find out, on the virtual machine it runs on (hostcheck.c).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_log.h"
#include "pg_util.h"
#include "top.h"

struct move {
    int ltid;            /* -move: the task; 0 for -move-host */
    const char *from;    /* -move-host: the host to empty      */
    const char *to;      /* the new host                       */
    char dir[PATH_MAX];  /* the log directory, absolute        */
};

struct change {          /* one <child> whose host changed */
    int log, ltid;       /* the log it is in, the task      */
    char *from;
};

struct pending {         /* one log rewritten, not yet in place */
    char path[PATH_MAX + 64], tmp[PATH_MAX + 64];
};

static struct change *changes;
static int nchanges, found; /* found: tasks the move names, changed or not */
static struct pending *pend;
static int npend;
static size_t cap_changes, cap_pend;

/* Every failure is an error value up to top_move, which removes the
 * rewritten logs not yet in place and says why: the recording stays as it
 * was. */
static int move_usage(const char *why, pg_err *err)
{
    return pg_err_set(err, "%s\nusage: pangaea -move LTID HOST [-logdir DIR]"
                      "\n       pangaea -move-host FROMHOST TOHOST [-logdir DIR]",
                      why);
}

/* Room for element n of *pp: 0, or -1 and err. */
static int more(void *pp, size_t *cap, int n, size_t size, pg_err *err)
{
    if (pg_grow(pp, cap, (size_t)n + 1, size) < 0)
        return pg_err_set(err, "out of memory");
    return 0;
}

static int parse_move(int argc, char **argv, struct move *m, pg_err *err)
{
    const char *pos[2], *logdir = "logs";
    char *end, why[256];
    int i, n = 0;

    memset(m, 0, sizeof *m);
    for (i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-logdir") && i + 1 < argc)
            logdir = argv[++i];
        else if (n < 2 && argv[i][0] != '-')
            pos[n++] = argv[i];
        else {
            snprintf(why, sizeof why, "unexpected argument %.200s", argv[i]);
            return move_usage(why, err);
        }
    }
    if (n != 2)
        return move_usage("say which task or host to move, and where to", err);
    if (!strcmp(argv[1], "-move")) {
        errno = 0;
        m->ltid = (int)strtol(pos[0], &end, 10);
        if (errno || *end || end == pos[0] || m->ltid < 0)
            return move_usage("LTID must be a task's ltid (1, 2, ...)", err);
        if (m->ltid == 0)
            return move_usage("ltid 0 is pangaea itself: it runs where you "
                              "start it", err);
    } else
        m->from = pos[0];
    m->to = pos[1];
    /* The new host must be a host name (untrusted.c): a replay refuses
     * anything else; the old one may be whatever the logs say. */
    if (!top_host_name_ok(m->to) || (m->from && !*m->from))
        return move_usage("a host name must be a DNS name or an address", err);
    if (!realpath(logdir, m->dir)) {
        snprintf(why, sizeof why, "no log directory %.200s", logdir);
        return move_usage(why, err);
    }
    return 0;
}

static int moves(const struct move *m, int ltid, const char *host)
{
    return m->from ? !strcmp(host, m->from) : ltid == m->ltid;
}

/* The hosts of one spawn's children, the moved ones changed; counts them.
 * NULL and err when out of memory. */
static const char **new_hosts(const struct move *m, int log,
                              const pg_event *ev, pg_err *err)
{
    const char **h = calloc(ev->nchild + 1, sizeof *h);
    int i;

    if (!h)
        return pg_err_set(err, "out of memory"), NULL;
    for (i = 0; i < ev->nchild; i++) {
        h[i] = ev->child_host[i];
        if (!moves(m, ev->child_ltid[i], h[i]))
            continue;
        found++;
        if (!strcmp(h[i], m->to))
            continue;
        if (more(&changes, &cap_changes, nchanges, sizeof *changes, err) < 0 ||
            !(changes[nchanges].from = strdup(h[i]))) {
            free(h);
            return pg_err_set(err, "out of memory"), NULL;
        }
        changes[nchanges].log = log;
        changes[nchanges++].ltid = ev->child_ltid[i];
        h[i] = m->to;
    }
    return h;
}

/* Writes one event read from a log again, with new hosts for a spawn. */
static int copy_event(const struct move *m, int log, pg_logw *w,
                      const pg_event *ev, pg_err *err)
{
    const char **hosts;
    int cc;

    pg_logw_misses(w, ev->misses);
    if (ev->kind == PG_EV_END)
        return pg_logw_end(w, ev->t, ev->status);
    if (ev->kind != PG_EV_SPAWN) /* a <crash>: as it was */
        return pg_logw_event(w, ev);
    if (!(hosts = new_hosts(m, log, ev, err)))
        return -2; /* err says why */
    cc = pg_logw_spawn(w, ev->t, ev->program, ev->argv, ev->flags, ev->where,
                       ev->count, ev->nchild, ev->child_ltid, hosts);
    free(hosts);
    return cc;
}

/* Rewrites log `ltid` into p->tmp; 1 if it changed, 0 if not, -1 and err. */
static int rewrite(const struct move *m, int ltid, struct pending *p,
                   pg_err *err)
{
    int before = nchanges, cc = 0;
    pg_log_header h;
    pg_logw *w = NULL;
    pg_logr *r;
    pg_event ev;

    pg_log_path(p->path, sizeof p->path, m->dir, ltid, PG_LOG_EXEC);
    snprintf(p->tmp, sizeof p->tmp, "%s/.ltid-%d.exec.xml.move", m->dir, ltid);
    r = pg_logr_open(p->path, PG_LOG_EXEC, &h, err);
    if (r)
        pg_log_recording_set(h.recording); /* the whole header, this too */
    if (r)
        w = pg_logw_open_prog(p->tmp, PG_LOG_EXEC, h.ltid, h.program, h.host,
                              h.select, h.exe, h.sha256, h.cwd,
                              err); /* the whole header */
    while (w && (cc = pg_logr_next(r, &ev, err)) == 1)
        if ((cc = copy_event(m, ltid, w, &ev, err)) < 0) {
            if (cc == -1)
                cc = pg_err_set(err, "%s: cannot write event %ld again",
                                p->tmp, ev.seq);
            break;
        }
    pg_logr_close(r);
    if (!w)
        return -1;
    if (pg_logw_close(w) < 0 && cc == 0)
        cc = pg_err_set(err, "%s: cannot write", p->tmp);
    if (cc < 0 || nchanges == before)
        unlink(p->tmp);
    return cc < 0 ? -1 : nchanges > before;
}

/* The result must be what the replay accepts: the schema, and the reader. */
static int check_written(const char *tmp, pg_err *err)
{
    char xsd[PATH_MAX];
    pg_logr *r;
    pg_event ev;
    int cc;

    snprintf(xsd, sizeof xsd, "%s/pangaea-log.xsd", top_schema_dir());
    if (pg_log_validate(tmp, xsd, err) < 0)
        return -1;
    if (!(r = pg_logr_open(tmp, PG_LOG_EXEC, NULL, err)))
        return -1;
    while ((cc = pg_logr_next(r, &ev, err)) == 1)
        ;
    pg_logr_close(r);
    return cc;
}

static int by_number(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* The ltids of the execution logs in dir, sorted (messages in order), into
 * *v (*n of them): 0, or -1 and err. */
static int exec_logs(const char *dir, int **v, int *n, pg_err *err)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int ltid, cc = 0;
    size_t cap = 0;

    *v = NULL, *n = 0;
    if (!d)
        return pg_err_set(err, "cannot open the log directory %s: %s", dir,
                          strerror(errno));
    while (cc == 0 && (e = readdir(d)))
        if ((ltid = pg_log_name_ltid(e->d_name, PG_LOG_EXEC)) >= 0 &&
            (cc = more(v, &cap, *n, sizeof **v, err)) == 0)
            (*v)[(*n)++] = ltid;
    closedir(d);
    if (cc == 0 && *n)
        qsort(*v, *n, sizeof **v, by_number);
    return cc;
}

/* Nothing moved: 0 if the tasks are there already, or -1 and err. */
static int nothing_changed(const struct move *m, pg_err *err)
{
    if (found) {
        printf("pangaea: nothing to change: %s already on %s\n",
               m->from ? "every task named runs" : "the task runs", m->to);
        return 0;
    }
    if (m->from)
        return pg_err_set(err, "no task of the recording in %s runs on host "
                          "%s", m->dir, m->from);
    return pg_err_set(err, "the recording in %s has no task ltid %d", m->dir,
                      m->ltid);
}

static int put_in_place(const struct move *m, pg_err *err)
{
    int i;

    for (i = 0; i < npend; i++)
        if (rename(pend[i].tmp, pend[i].path) < 0)
            return pg_err_set(err, "cannot replace %s: %s (the logs before it "
                              "are changed already)", pend[i].path,
                              strerror(errno));
    for (i = 0; i < nchanges; i++)
        printf("pangaea: ltid %d moved from host %s to host %s "
               "(%s/ltid-%d.exec.xml)\n", changes[i].ltid, changes[i].from,
               m->to, m->dir, changes[i].log);
    return 0;
}

/* An MPI run's recording (its ranks' logs, no ltid 0: mpi_ids.c says the
 * same): its ranks run where the launcher puts them. */
static int mpi_refused(const char *dir, pg_err *err)
{
    return pg_err_set(err, "-move: the recording in %s is an MPI run's: its "
                      "ranks run where the launcher puts them (its own "
                      "-hosts), so -move and -move-host do not apply; nothing "
                      "was changed", dir);
}

/* Every log naming a task to move, rewritten beside it (pend), checked. */
static int rewrite_all(const struct move *m, const int *ltids, int n,
                       pg_err *err)
{
    char why[PATH_MAX + 200];
    int i, cc;

    if (n == 0) {
        snprintf(why, sizeof why, "no execution logs (ltid-N.exec.xml) in the "
                 "log directory %s: record there first (pangaea -log -logdir "
                 "DIR ...)", m->dir);
        return move_usage(why, err);
    }
    if (ltids[0] != 0) /* sorted: a PVM run has pangaea's own, ltid 0 */
        return mpi_refused(m->dir, err);
    for (i = 0; i < n; i++) {
        if (more(&pend, &cap_pend, npend, sizeof *pend, err) < 0 ||
            (cc = rewrite(m, ltids[i], &pend[npend], err)) < 0)
            return -1;
        npend += cc;
        if (cc == 1 && check_written(pend[npend - 1].tmp, err) < 0)
            return -1;
    }
    return 0;
}

static int move(int argc, char **argv, pg_err *err)
{
    struct move m;
    int *ltids, n, cc;

    if (parse_move(argc, argv, &m, err) < 0 ||
        /* A run recording or replaying there must not see its logs change. */
        top_logdir_lock(m.dir, 0, err) < 0 ||
        exec_logs(m.dir, &ltids, &n, err) < 0)
        return -1;
    cc = rewrite_all(&m, ltids, n, err);
    free(ltids);
    if (cc < 0)
        return -1;
    if (nchanges == 0)
        return nothing_changed(&m, err);
    return put_in_place(&m, err);
}

int top_move(int argc, char **argv)
{
    pg_err err;
    int i;

    if (move(argc, argv, &err) == 0)
        return 0;
    for (i = 0; i < npend; i++)
        unlink(pend[i].tmp);
    fprintf(stderr, "pangaea: %s\n", err.msg);
    return TOP_EXIT_USAGE;
}
