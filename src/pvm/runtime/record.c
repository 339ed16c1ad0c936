/*
 * record.c - writing a task's events into its two logs.
 *
 * The wrappers call these with what the program did in PVM terms (tids,
 * buffer ids); here it becomes ltids, bytes and host names, which is what a
 * replay and a person need.  A receive is logged once it returned a
 * message.  A send is logged before the real call (and taken back if that
 * fails): a task killed right after PVM took its message must not leave a
 * receiver's log naming a message its sender's log lacks.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"

static pg_logw *open_log(pg_log_kind kind, pg_err *err)
{
    char path[4200], exe[1024] = "", sum[65] = "", cwd[4096] = "";

    /* What a replay checks it runs again (not pangaea itself, ltid 0). */
    if (kind == PG_LOG_EXEC && pg.ltid != 0 &&
        pg_exe_sum(exe, sizeof exe, sum) < 0)
        exe[0] = sum[0] = 0;
    if (kind == PG_LOG_EXEC && !getcwd(cwd, sizeof cwd))
        cwd[0] = 0; /* where the task runs (task_env.c put it there) */
    pg_log_path(path, sizeof path, pg.logdir, pg.ltid, kind);
    return pg_logw_open_prog(path, kind, pg.ltid, pg.program, pg.host,
                             pg.sel.text, exe, sum, cwd, err);
}

int pg_record_open(pg_err *err)
{
    pg.comm = open_log(PG_LOG_COMM, err);
    pg.exec = pg.comm ? open_log(PG_LOG_EXEC, err) : NULL;
    return pg.exec ? 0 : -1;
}

/* Polls that found nothing are not events of their own: their number rides
 * on the next event, so a busy-wait loop costs one attribute, not a line. */
static void flush_misses(void)
{
    if (pg.misses > 0)
        pg_site_poll(); /* the filter of the last miss (callsite.c) */
    pg_logw_misses(pg.comm, pg.misses);
    pg.misses = 0;
}

static void check(int cc, const char *what)
{
    const char *why;

    if (cc >= 0)
        return;
    why = pg_logw_why(*what == 'e' ? pg.exec : pg.comm);
    if (why)
        pg_fatal("%s", why);
    pg_fatal("cannot write the %s log in %s", what, pg.logdir);
}

void pg_record_send(const char *call, int tag, int msgid, int bytes, int nto,
                    const int *tids)
{
    int small[16], *to = nto <= 16 ? small : malloc(nto * sizeof *to);
    int i;

    if (!to)
        pg_fatal("out of memory");
    for (i = 0; i < nto; i++)
        to[i] = pg_peer_ltid(tids[i]);
    pg_site_note(); /* first: a new <site> must not take the misses */
    flush_misses();
    pg.events++;
    check(pg_logw_send(pg.comm, pg_now(), call, tag, msgid, bytes, nto, to),
          "communication");
    if (to != small)
        free(to);
}

void pg_record_unsend(void)
{
    pg_logw_undo(pg.comm);
    pg.events--;
}

/* Waits shorter than this are not written: a receive whose message had
 * come costs a few microseconds, and most receives of a busy program are
 * such; a byte or two each would grow the log for nothing a page shows. */
#define PG_WAIT_MIN_US 100

/* The wait is measured on the clock the event's time is read from, so
 * that the event's own clock read ends it: one read fewer per receive.
 * A step of the wall clock during a wait (rare: NTP slews it) would show
 * in that one wait; one stepped back shows as none. */
void pg_record_wait_begin(int blocking)
{
    pg.recv_since = blocking && pg.mode == PANGAEA_LOG ? pg_now() : 0;
}

/* The wait of the receive being logged at time t, for its event. */
static void note_wait(double t)
{
    double us;

    if (pg.recv_since > 0) {
        us = (t - pg.recv_since) * 1e6;
        if (us >= PG_WAIT_MIN_US)
            pg_logw_waited(pg.comm, us < INT_MAX ? (int)us : INT_MAX);
        pg.recv_since = 0;
    }
}

void pg_record_recv_info(const char *call, int bytes, int tag,
                         const pg_hdr *h)
{
    double t;

    pg_site_note(); /* first: a new <site> must not take the misses */
    flush_misses();
    note_wait(t = pg_now());
    pg.events++;
    check(pg_logw_recv(pg.comm, t, call, h->ltid, tag, h->msgid, bytes),
          "communication");
}

void pg_record_recv(const char *call, int bufid, const pg_hdr *h)
{
    int bytes = 0, tag = 0, src = 0;

    pvm_bufinfo(bufid, &bytes, &tag, &src);
    pg_record_recv_info(call, bytes, tag, h);
}

void pg_record_notice(const char *call, int bufid, pg_notice_what what,
                      int ltid)
{
    int bytes = 0, tag = 0, src = 0;

    pvm_bufinfo(bufid, &bytes, &tag, &src);
    pg_site_note(); /* first: a new <site> must not take the misses */
    flush_misses();
    pg.events++;
    check(pg_logw_notice(pg.comm, pg_now(), call, tag, what, ltid, bytes),
          "communication");
}

void pg_record_query(const char *call, const char *about, int value)
{
    flush_misses();
    pg.events++;
    check(pg_logw_query(pg.comm, pg_now(), call, about, value),
          "communication");
}

void pg_record_join(const char *group, int inst, int order)
{
    flush_misses();
    pg.events++;
    check(pg_logw_join(pg.comm, pg_now(), group, inst, pg.ltid, order),
          "communication");
}

void pg_record_leave(const char *group, int order)
{
    flush_misses();
    pg.events++;
    check(pg_logw_leave(pg.comm, pg_now(), group, order), "communication");
}

void pg_record_gettid(const char *group, int inst, int ltid)
{
    flush_misses();
    pg.events++;
    check(pg_logw_gettid(pg.comm, pg_now(), group, inst, ltid),
          "communication");
}

/* Host names come from pvm_config; the table is asked for again only when a
 * host we have not seen appears (hosts can be added during a run). */
const char *pg_host_of(int tid)
{
    static char name[256];
    struct pvmhostinfo *hi;
    int nhost, narch, i, dtid = pvm_tidtohost(tid);

    if (dtid < 0 || pg_real.config(&nhost, &narch, &hi) < 0)
        return "?";
    for (i = 0; i < nhost; i++)
        if (hi[i].hi_tid == dtid) {
            snprintf(name, sizeof name, "%s", hi[i].hi_name);
            return name;
        }
    return "?";
}

void pg_record_spawn(const char *program, char **argv, int flags,
                     const char *where, int count, int nchild,
                     const int *ltids, const int *tids)
{
    char **hosts = calloc(nchild + 1, sizeof *hosts);
    int i;

    if (!hosts)
        pg_fatal("out of memory");
    for (i = 0; argv && argv[i]; i++) { /* say which, not "cannot write" */
        char *one[2] = { argv[i], NULL };

        if (!pg_logw_args_ok(one))
            pg_fatal("pvm_spawn of %.300s: its argument %d is %zu bytes, too "
                     "long for the execution log (at most 4096, 2048 for one "
                     "with bytes XML cannot hold)", program, i + 1,
                     strlen(argv[i]));
    }
    for (i = 0; i < nchild; i++)
        hosts[i] = strdup(pg_host_of(tids[i]));
    check(pg_logw_spawn(pg.exec, pg_now(), program, argv, flags,
                        where ? where : "", count, nchild, ltids,
                        (const char *const *)hosts),
          "execution");
    /* A spawn is rare and a crash right after it must not lose it. */
    pg_logw_flush(pg.exec);
    for (i = 0; i < nchild; i++)
        free(hosts[i]);
    free(hosts);
}

int pg_record_close(int status)
{
    double t = pg_now();
    int rc = 0;

    if (pg.comm) {
        flush_misses();
        rc |= pg_logw_end(pg.comm, t, status);
        if (rc && pg_logw_why(pg.comm))
            pg_warn("%s", pg_logw_why(pg.comm));
        rc |= pg_logw_close(pg.comm);
        pg.comm = NULL;
    }
    if (pg.exec) {
        rc |= pg_logw_end(pg.exec, t, status);
        if (rc && pg_logw_why(pg.exec))
            pg_warn("%s", pg_logw_why(pg.exec));
        rc |= pg_logw_close(pg.exec);
        pg.exec = NULL;
    }
    return rc ? -1 : 0;
}
