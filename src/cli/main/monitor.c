/*
 * monitor.c - watching a run from the top-level task.
 *
 * Everything reaches `pangaea` as messages in Pangaea's context: the tasks'
 * output (PVM sends it to us because we set PvmOutputTid/Code/Context before
 * spawning, and children inherit that), the coordinator's news of tasks that
 * started and ended, and tasks' own reports (a replay that diverged or
 * waits too long).  Output is printed line by line behind the ltid of the
 * task that wrote it.  A divergence ends the run: the other tasks may be
 * waiting for messages that will never come.
 *
 * A replay also ends when it cannot go on: every task either waits for a
 * recorded message (it said so after PANGAEA_STALL seconds) or does not
 * progress, which pangaea sees in /proc for tasks on its own host: stopped
 * (SIGSTOP, a debugger), or no CPU time used for PANGAEA_STALL seconds.
 * Ending the run kills every task, stopped ones too (pvm_kill's SIGTERM
 * waits in a stopped process until it is continued).
 */
#include <limits.h>
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "pg_grow.h"
#include "pg_internal.h"
#include "live.h"
#include "top.h"

struct ttask {
    int tid, ltid;
    int ended, normal, status, eof;
    int stalled;        /* a replay wait it reported has not ended */
    time_t blocked;     /* since when in a call that cannot report, or 0 */
    int died;           /* it reported a crash (signal) */
    int held;           /* stopped on purpose (-stop, -debug: debug.c): it
                           stops no stall from ending the run, nor is it
                           ended for not progressing */
    int pid;            /* on our host, from pvm_tasks; else 0 */
    char state;         /* its /proc state when last looked at ('T' stopped) */
    unsigned long long cpu; /* its CPU ticks then */
    double still_since; /* since when its CPU time has not changed, or 0 */
    char wait[1100];    /* what it waits for */
    char program[256], host[128];
    char *line;         /* output not yet ended by a newline */
    size_t len;
};

static struct ttask *tt;
static int ntt, coord_tid;
static size_t cap_tt;
static int reporter = -1; /* ltid whose report ended the run, or -1 */
/* Why pangaea ended the run when no task's report did (reporter 0): the
 * words "stopped: the run was ended after ..." gives the others. */
static const char *stop_cause = "the stall";
static int death_seen; /* a task ended abnormally: watch the others */
static const struct top_opts *opts; /* the run's options (top_monitor) */

static struct ttask *by_tid(int tid)
{
    int i;

    for (i = 0; i < ntt; i++)
        if (tt[i].tid == tid)
            return &tt[i];
    if (pg_grow(&tt, &cap_tt, (size_t)ntt + 1, sizeof *tt) < 0) {
        fprintf(stderr, "pangaea: out of memory\n");
        exit(TOP_EXIT_FAILED);
    }
    memset(&tt[ntt], 0, sizeof *tt);
    tt[ntt].tid = tid;
    tt[ntt].ltid = -1;
    return &tt[ntt++];
}

static void print_line(const struct ttask *t, const char *s, size_t n)
{
    if (t->tid == coord_tid)
        printf("[coord] %.*s\n", (int)n, s);
    else if (t->ltid >= 0)
        printf("[%d] %.*s\n", t->ltid, (int)n, s);
    else
        printf("[t%x] %.*s\n", t->tid, (int)n, s);
}

/* Output of a task whose ltid is not known yet is held back until it is. */
static void flush_lines(struct ttask *t, int all)
{
    char *nl, *p = t->line;

    if (!p || (t->ltid < 0 && t->tid != coord_tid && !all))
        return;
    while ((nl = memchr(p, '\n', t->len - (p - t->line)))) {
        print_line(t, p, nl - p);
        p = nl + 1;
    }
    if (all && p < t->line + t->len) {
        print_line(t, p, t->line + t->len - p);
        p = t->line + t->len;
    }
    t->len -= p - t->line;
    memmove(t->line, p, t->len);
    fflush(stdout);
}

static void on_output(void)
{
    int tid, n;
    struct ttask *t;

    pvm_upkint(&tid, 1, 1);
    pvm_upkint(&n, 1, 1);
    t = by_tid(tid);
    if (n == 0) {
        t->eof = 1;
        flush_lines(t, 1);
    } else if (n > 0) {
        t->line = realloc(t->line, t->len + n + 1);
        if (!t->line)
            exit(TOP_EXIT_FAILED);
        pvm_upkbyte(t->line + t->len, n, 1);
        t->len += n;
        flush_lines(t, 0);
    }
}

static void on_started(void)
{
    int v[2];
    struct ttask *t;

    pvm_upkint(v, 2, 1);
    t = by_tid(v[1]);
    t->ltid = v[0];
    t->held |= top_debug_held(t->ltid); /* -debug: held throughout */
    pvm_upkstr(t->program);
    pvm_upkstr(t->host);
    top_live_started(t->ltid, t->program, t->host); /* -live */
    if (top_multihost) /* the host the task itself reports: gethostname() */
        fprintf(stderr, "pangaea: ltid %d (%s) started on %s\n", t->ltid,
                t->program, t->host);
    flush_lines(t, 0);
}

/* How far the log of a task that died without a word goes: its last
 * complete event, as a replay would read it.  Recording only: a replay's
 * logs are the recording's. */
static void say_last_event(int ltid)
{
    char path[PATH_MAX + 64];
    long n;
    pg_err err;

    if (opts->mode != PANGAEA_LOG || ltid < 1)
        return;
    pg_log_path(path, sizeof path, opts->logdir, ltid, PG_LOG_COMM);
    if (pg_log_check_cut(path, PG_LOG_COMM, &n, &err) == 1)
        fprintf(stderr, "pangaea:   its log %s ends after event %ld, the "
                "last it completed\n", path, n);
}

static void on_ended(int *abnormal)
{
    int v[4], stopped;
    struct ttask *t;

    pvm_upkint(v, 4, 1);
    t = by_tid(v[1]);
    t->ltid = v[0];
    t->ended = 1;
    t->status = v[2];
    t->normal = v[3];
    stopped = t->normal != 1 && reporter >= 0 && t->ltid != reporter;
    top_live_ended(t->ltid, stopped ? 0 : t->normal, t->status, /* -live */
                   stopped); /* killed by pangaea (normal 2): stopped */
    t->died |= t->status < 0; /* it reported its crash (status -signal) */
    if (t->normal != 1 && reporter >= 0) {
        if (t->ltid != reporter)
            fprintf(stderr, "pangaea: ltid %d (%s) stopped: the run was "
                    "ended after %s\n", t->ltid, t->program,
                    reporter ? "an error" : stop_cause);
        *abnormal = 1;
    } else if (t->normal == 2) { /* wrap_kill.c: the program's doing */
        fprintf(stderr, "pangaea: ltid %d (%s) was killed by the program "
                "(pvm_kill)\n", t->ltid, t->program);
    } else if (!t->normal && !t->program[0]) {
        /* It never registered (the coordinator's news of a start comes
         * before its news of the end): Pangaea never ran in it. */
        fprintf(stderr, "pangaea: ltid %d (t%x) ended without ever starting "
                "Pangaea: killed at once, a program that never calls PVM, "
                "or a script that ran the program as a child process "
                "instead of exec'ing it\n", t->ltid, t->tid);
        *abnormal = 1;
    } else if (!t->normal) {
        if (!t->died)
            fprintf(stderr, "pangaea: ltid %d (%s, t%x on %s) ended "
                    "abnormally: it was killed or crashed before it could "
                    "report\n", t->ltid, t->program[0] ? t->program : "?",
                    t->tid, t->host[0] ? t->host : "?");
        if (!t->died)
            say_last_event(t->ltid);
        *abnormal = 1;
    } else if (t->status != 0) { /* ltid 1's is ours: said, not only returned */
        fprintf(stderr, "pangaea: ltid %d (%s) exited with status %d\n",
                t->ltid, t->program, t->status);
    }
}

static const char *program_of(int ltid)
{
    int i;

    for (i = 0; i < ntt; i++)
        if (tt[i].ltid == ltid && tt[i].program[0])
            return tt[i].program;
    /* Its report came before the coordinator's news of its start: the
     * first task's program is ours to name all the same. */
    return ltid == 1 && opts ? opts->program : "?";
}

static struct ttask *by_ltid(int ltid)
{
    int i;

    for (i = 0; i < ntt; i++)
        if (tt[i].ltid == ltid)
            return &tt[i];
    return NULL;
}

/* Looks at a task in /proc: its state and CPU ticks (utime + stime). */
static int proc_sample(int pid, char *state, unsigned long long *cpu)
{
    char path[64], buf[1024], *p;
    unsigned long long ut, st;
    FILE *f;
    size_t n;

    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (!(f = fopen(path, "r")))
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    p = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
    if (!p || sscanf(p + 2, "%c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                     "%llu %llu", state, &ut, &st) != 3)
        return -1;
    *cpu = ut + st;
    return 0;
}

/* Once a second in a replay: which tasks on our host progress.  pvm_tasks
 * gives the pids of this host's tasks; a task on another host cannot be
 * looked at and counts as progressing. */
static void watch_progress(void)
{
    static double last;
    struct pvmtaskinfo *ti;
    double now = pg_seconds();
    unsigned long long cpu;
    int i, j, n;
    char state;

    if ((opts->mode != PANGAEA_REPLAY && !death_seen) || now - last < 1)
        return;
    last = now;
    if (pvm_tasks(pvm_tidtohost(pvm_mytid()), &n, &ti) < 0)
        return;
    for (i = 0; i < ntt; i++) {
        if (tt[i].ltid <= 0 || tt[i].ended)
            continue;
        for (j = 0; j < n && !tt[i].pid; j++)
            if (ti[j].ti_tid == tt[i].tid)
                tt[i].pid = ti[j].ti_pid;
        if (!tt[i].pid || proc_sample(tt[i].pid, &state, &cpu) < 0)
            continue;
        if (!tt[i].still_since || cpu != tt[i].cpu)
            tt[i].still_since = now;
        tt[i].cpu = cpu;
        tt[i].state = state;
    }
}

/* A task that, as far as we can see, will do nothing by itself.  A task
 * waiting in a replayed receive says so itself after PANGAEA_STALL
 * seconds, checking once a second; its CPU time is sampled once a second
 * too, and may have last changed up to a second before its wait began: so
 * a quiet task counts only 2 s after that, or a stall would be declared
 * before the waiting task's own report (which names what it waits for). */
static int not_progressing(const struct ttask *t)
{
    return t->pid && t->still_since &&
           (t->state == 'T' || t->state == 't' ||
            pg_seconds() - t->still_since >= pg_stall_seconds() + 2);
}

/* A task waits for a recorded message (or is blocked where it cannot say
 * so, for PANGAEA_STALL seconds). */
static int waiting(const struct ttask *t)
{
    return t->stalled ||
           (t->blocked && time(NULL) - t->blocked >= pg_stall_seconds());
}

/* Every live task waits for a recorded message, or does not progress, and
 * one at least waits: none can come.  A task held on purpose keeps the run
 * going. */
static int all_stalled(void)
{
    int i, live = 0, waits = 0;

    for (i = 0; i < ntt; i++) {
        if (tt[i].ltid <= 0 || tt[i].ended)
            continue;
        live++;
        if (tt[i].held)
            return 0;
        if (waiting(&tt[i]))
            waits++;
        else if (!not_progressing(&tt[i]))
            return 0;
    }
    return live > 0 && waits > 0;
}

static void say_idle(const struct ttask *t)
{
    if (t->state == 'T' || t->state == 't')
        fprintf(stderr, "pangaea:   ltid %d (%s) is stopped (pid %d: "
                "SIGSTOP or a debugger), so it does not progress\n",
                t->ltid, t->program, t->pid);
    else
        fprintf(stderr, "pangaea:   ltid %d (%s) does not progress: no CPU "
                "time used for %.0f s (pid %d, state %c)\n", t->ltid,
                t->program, pg_seconds() - t->still_since, t->pid, t->state);
}

static int check_stall(int *diverged)
{
    int i;

    if (reporter >= 0 || !all_stalled())
        return 0;
    fprintf(stderr, "pangaea: replay stalled: every task waits for a "
                    "message that cannot come, or does not progress\n");
    stop_cause = "the stall";
    for (i = 0; i < ntt; i++)
        if (tt[i].ltid > 0 && !tt[i].ended && waiting(&tt[i]))
            fprintf(stderr, "pangaea:   ltid %d (%s) %s\n", tt[i].ltid,
                    tt[i].program, tt[i].wait);
        else if (tt[i].ltid > 0 && !tt[i].ended)
            say_idle(&tt[i]);
    *diverged |= 1;
    reporter = 0;
    return 1;
}

static int any_held(void)
{
    int i;

    for (i = 0; i < ntt; i++)
        if (tt[i].held && !tt[i].ended)
            return 1;
    return 0;
}

static void on_stall(int ltid, int kind, const char *text, int *diverged)
{
    struct ttask *t = by_ltid(ltid);

    if (!t)
        return;
    if (kind == PG_REP_STALL && !any_held()) /* else the wait is expected */
        fprintf(stderr, "pangaea: ltid %d (%s): replay has waited %d s: "
                "%s\n", ltid, t->program, pg_stall_seconds(), text);
    t->stalled = kind == PG_REP_STALL;
    t->blocked = kind == PG_REP_BLOCKED ? time(NULL) : 0;
    snprintf(t->wait, sizeof t->wait, "%s", text);
    check_stall(diverged);
}

static void on_report(int *diverged)
{
    int v[2];
    char text[1100];

    pvm_upkint(v, 2, 1);
    pvm_upkstr(text);
    top_live_report(v[0], v[1], text); /* -live */
    if (v[1] == PG_REP_STALL || v[1] == PG_REP_RESUMED ||
        v[1] == PG_REP_BLOCKED) {
        on_stall(v[0], v[1], text, diverged);
        return;
    }
    if (v[1] == PG_REP_HELD || v[1] == PG_REP_RELEASED) { /* stop.c */
        if (by_ltid(v[0]))
            by_ltid(v[0])->held = v[1] == PG_REP_HELD || top_debug_held(v[0]);
        if (v[1] == PG_REP_HELD && text[0]) /* "": -hold, a step */
            fprintf(stderr, "pangaea: ltid %d (%s) %s\n", v[0],
                    program_of(v[0]), text);
        for (int i = 0; i < ntt && v[1] == PG_REP_RELEASED; i++)
            tt[i].still_since = 0, tt[i].state = 0; /* progress anew */
        return;
    }
    if (v[1] == PG_REP_NOTE) { /* "ltid N (program): ...", wrap_named.c */
        fprintf(stderr, "pangaea: %s\n", text);
        return;
    }
    if (v[1] == PG_REP_CRASH) {
        if (by_ltid(v[0]))
            by_ltid(v[0])->died = 1;
        fprintf(stderr, "pangaea: ltid %d (%s) %s\n", v[0], program_of(v[0]),
                text);
        return;
    }
    fprintf(stderr, "pangaea: %s in ltid %d (%s) %s\n",
            v[1] == PG_REP_DIVERGED ? "replay diverged"
            : v[1] == PG_REP_BADLOG ? "bad log" : "fatal error",
            v[0], program_of(v[0]), text);
    if (reporter < 0)
        reporter = v[0];
    *diverged |= v[1] == PG_REP_DIVERGED ? 1 : v[1] == PG_REP_BADLOG ? 4 : 2;
}

/* pvm_kill sends SIGTERM, which a stopped task keeps pending: SIGCONT
 * lets it take it (checked on PVM 3.4.6).  A task that survives SIGTERM
 * (it catches it) gets SIGKILL a few seconds later (kill_survivors). */
static double killed_at;

/* Tasks the pvmd started for the run that never told us their ltid: one
 * stopped or slow before its first PVM call is known to the pvmd alone.
 * Every task of the run descends from pangaea (or from the coordinator,
 * which pangaea started), so they are the descendants of ours that we do
 * not know; tasks of others sharing the virtual machine are not. */
static int *strays, nstrays;
static size_t cap_strays;

static int is_ours(int tid)
{
    int i;

    if (tid == pvm_mytid())
        return 1;
    for (i = 0; i < ntt; i++) /* ltid -1: its output came, not its ltid */
        if (tt[i].tid == tid && (tt[i].ltid > 0 || tid == coord_tid))
            return 1;
    for (i = 0; i < nstrays; i++)
        if (strays[i] == tid)
            return 1;
    return 0;
}

static void find_strays(void)
{
    struct pvmtaskinfo *ti;
    int n, j, more = 1;

    if (pvm_tasks(0, &n, &ti) < 0)
        return;
    while (more) /* a stray's own children are strays too */
        for (more = 0, j = 0; j < n; j++)
            if (!is_ours(ti[j].ti_tid) && is_ours(ti[j].ti_ptid) &&
                pg_grow(&strays, &cap_strays, (size_t)nstrays + 1,
                        sizeof *strays) == 0) {
                strays[nstrays++] = ti[j].ti_tid;
                more = 1;
            }
}

/* The tasks to end: known by ltid and still running, or strays. */
static int to_end(int k, int *tid)
{
    if (k >= ntt) {
        *tid = strays[k - ntt];
        return 1;
    }
    *tid = tt[k].tid;
    return !tt[k].ended && tt[k].tid != coord_tid && tt[k].ltid > 0;
}

static void kill_all(void)
{
    int k, tid;

    find_strays();
    for (k = 0; k < ntt + nstrays; k++)
        if (to_end(k, &tid)) {
            if (k < ntt) /* its end then needs no grace */
                pg_coord_killing(tt[k].ltid);
            pvm_kill(tid);
            pvm_sendsig(tid, SIGCONT);
        }
    if (!killed_at)
        killed_at = pg_seconds();
}

static void kill_survivors(int force)
{
    int k, tid;

    if (!killed_at || (!force && pg_seconds() - killed_at < 3))
        return;
    for (k = 0; k < ntt + nstrays; k++)
        if (to_end(k, &tid) && pg_real.pstat(tid) == PvmOk)
            pvm_sendsig(tid, SIGKILL);
    killed_at = -1e9; /* once */
}

/* Interrupted: nothing more is waited for, but no task may stay behind. */
static void end_now(void)
{
    double until = pg_seconds() + 3;
    int k, tid, left;

    kill_all();
    do {
        for (k = 0, left = 0; k < ntt + nstrays; k++)
            left |= to_end(k, &tid) && pg_real.pstat(tid) == PvmOk;
        if (left)
            usleep(100000);
    } while (left && pg_seconds() < until);
    if (left)
        kill_survivors(1);
}

/* After every task ended, its last output may still be on its way. */
static void drain_output(void)
{
    struct timeval slice = { 0, 100000 };
    int i, mid, len, tag, src, rounds = 30, open;

    do {
        open = 0;
        for (i = 0; i < ntt; i++)
            open |= tt[i].ltid > 0 && !tt[i].eof;
        if (!open)
            break;
        slice.tv_sec = 0;
        slice.tv_usec = 100000;
        mid = pg_real.trecv(-1, PG_TAG_OUTPUT, &slice);
        if (mid > 0) {
            pvm_bufinfo(mid, &len, &tag, &src);
            on_output();
        } else {
            rounds--;
        }
    } while (rounds > 0);
    for (i = 0; i < ntt; i++)
        flush_lines(&tt[i], 1);
}

static int exit_status(int abnormal, int diverged)
{
    int i;

    if (diverged & 4) /* an unreadable log may well be why others diverged */
        return TOP_EXIT_USAGE;
    if (diverged & 1)
        return TOP_EXIT_DIVERGED;
    if (diverged & 2) /* a task's fatal error (a full disk...), not its own */
        return TOP_EXIT_FAILED;
    for (i = 0; i < ntt; i++)
        if (tt[i].ltid == 1 && tt[i].ended && tt[i].normal && tt[i].status)
            return tt[i].status;
    return abnormal || diverged ? TOP_EXIT_FAILED : 0;
}

/* After a task died, the others may wait for it forever: the run is ended
 * when every other task sits idle on our host (stop_after_death), or when
 * nothing has reached us for PANGAEA_STALL seconds (30). */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

/* Ctrl-C (or a kill) of pangaea ends the run it started, not just itself;
 * so does a reader of our output that went away (SIGPIPE: `pangaea ... |
 * head`), which would otherwise kill us and leave the pvmd behind. */
static void catch_interrupts(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGPIPE, &sa, NULL);
}

/* Every live task runs on our host and has used no CPU for 2 s (or is
 * stopped): after a death, waiting the whole PANGAEA_STALL for them says
 * nothing new, in a recording or -none as in a replay. */
static int all_idle(void)
{
    int i, live = 0;

    for (i = 0; i < ntt; i++) {
        if (tt[i].ltid <= 0 || tt[i].ended)
            continue;
        live++;
        if (!tt[i].pid || !tt[i].still_since ||
            (tt[i].state != 'T' && tt[i].state != 't' &&
             pg_seconds() - tt[i].still_since < 2))
            return 0;
    }
    return live > 0;
}

static void stop_after_death(int *quiet, int *abnormal)
{
    death_seen |= *abnormal;
    if (!*abnormal || any_held() || *quiet < 0)
        return; /* a task held on purpose (-stop, -debug) may yet go on;
                   *quiet < 0: the others were stopped already */
    if (all_idle())
        fprintf(stderr, "pangaea: a task died and the others do not "
                "progress: stopping them\n");
    else if (++*quiet >= pg_stall_seconds())
        fprintf(stderr, "pangaea: a task died and nothing has happened for "
                "%d s: stopping the others\n", *quiet);
    else
        return;
    reporter = 0;
    stop_cause = "a task died";
    kill_all();
    *quiet = -1000000; /* once */
}

/* Losing the coordinator or a host ends the run: tasks would wait for
 * translations or messages that cannot come.  The hosts' names are kept
 * now: once PVM says a host left, pvm_config no longer knows it. */
static struct pvmhostinfo *watched;
static int nwatched;

static void watch_losses(int coord)
{
    struct pvmhostinfo *hi;
    int n, narch, i, *dtids;

    pg_real.notify(PvmTaskExit, PG_TAG_COORD_GONE, 1, &coord);
    if (pvm_config(&n, &narch, &hi) < 0 || n < 2)
        return; /* one host: it is ours, and its loss is ours too */
    watched = calloc(n, sizeof *watched);
    dtids = malloc(n * sizeof *dtids);
    if (!watched || !dtids) {
        free(dtids);
        return;
    }
    nwatched = n;
    for (i = 0; i < nwatched; i++) {
        dtids[i] = watched[i].hi_tid = hi[i].hi_tid;
        watched[i].hi_name = strdup(hi[i].hi_name);
    }
    pg_real.notify(PvmHostDelete, PG_TAG_HOST_GONE, nwatched, dtids);
    free(dtids);
}

/* PVM notices a dead host only when packets to it go unanswered for about
 * three minutes, and it sends a host packets only when there is traffic or
 * its turn in the pvmds' keepalive round comes (a minute a host).  A signal
 * 0 for a task number on each host every few seconds is such traffic: our
 * pvmd answers at once and passes it on, the host's pvmd drops it (no such
 * task, or kill(pid, 0)), and the clock of a silent host starts at once.
 * The tid must be a task's (host part, local part 1): libpvm refuses to
 * signal anything else without sending a word.  pvm_config gives the host
 * part alone here; the mask keeps it so if a daemon's tid came instead. */
#define PG_TIDHOST 0x3ffc0000 /* the host part of a tid (PVM's TIDHOST) */

static void poke_hosts(void)
{
    static time_t last;
    int i, here = pvm_tidtohost(pvm_mytid());

    if (time(NULL) - last < 5)
        return;
    last = time(NULL);
    for (i = 0; i < nwatched; i++)
        if (watched[i].hi_tid != here)
            pvm_sendsig((watched[i].hi_tid & PG_TIDHOST) | 1, 0);
}

static const char *host_name(int dtid)
{
    int i;

    for (i = 0; i < nwatched; i++)
        if (watched[i].hi_tid == dtid && watched[i].hi_name)
            return watched[i].hi_name;
    return "?";
}

static void on_loss(int tag, int *abnormal)
{
    int what = 0, i;

    pvm_upkint(&what, 1, 1);
    if (tag == PG_TAG_COORD_GONE)
        fprintf(stderr, "pangaea: the coordinator (t%x) died: the run cannot "
                "go on\n", what);
    else
        fprintf(stderr, "pangaea: host t%x (%s) left the virtual machine\n",
                what, host_name(what));
    for (i = 0; i < ntt; i++)
        if (tt[i].ltid > 0 && !tt[i].ended &&
            (tag == PG_TAG_COORD_GONE || pvm_tidtohost(tt[i].tid) == what))
            fprintf(stderr, "pangaea:   lost ltid %d (%s)\n", tt[i].ltid,
                    tt[i].program);
    reporter = 0;
    stop_cause = tag == PG_TAG_COORD_GONE ? "the coordinator died"
                                          : "a host left";
    *abnormal = 1;
    top_run_broken = 1;
    kill_all();
}

/* A replay that ended well says so, with how much it replayed: the
 * events of the tasks' recorded logs (each log numbers its own). */
static void say_replayed(void)
{
    char path[PATH_MAX + 64];
    long events = 0;
    int i, tasks = 0;
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;

    for (i = 0; i < ntt; i++) {
        if (tt[i].ltid <= 0)
            continue;
        tasks++;
        pg_log_path(path, sizeof path, opts->logdir, tt[i].ltid, PG_LOG_COMM);
        if (!(r = pg_logr_open(path, PG_LOG_COMM, &h, &err)))
            continue;
        while (pg_logr_next(r, &ev, &err) == 1)
            events += ev.kind != PG_EV_END;
        pg_logr_close(r);
    }
    fprintf(stderr, "pangaea: replayed %ld event%s of %d task%s as "
            "recorded\n", events, events == 1 ? "" : "s", tasks,
            tasks == 1 ? "" : "s");
}

int top_monitor(const struct top_opts *o, int ctx, int coord, int first_tid)
{
    int mid, len, tag, src, abnormal = 0, diverged = 0, octx, quiet = 0;
    struct timeval second;

    opts = o;
    coord_tid = coord;
    by_tid(coord);
    by_tid(first_tid)->ltid = 1;
    octx = pvm_setcontext(ctx);
    watch_losses(coord);
    if (nwatched > 1) /* say where each task runs: hosts can be lost */
        top_multihost = 1;
    catch_interrupts();
    for (;;) {
        if (interrupted) {
            fprintf(stderr, "pangaea: %s: stopping the run\n",
                    interrupted == SIGPIPE ? "the output was closed"
                                           : "interrupted");
            reporter = 0;
            stop_cause = "an interrupt";
            end_now();
            pvm_kill(coord);
            pvm_setcontext(octx);
            top_run_broken = 1;
            return 128 + interrupted;
        }
        second.tv_sec = 1;
        second.tv_usec = 0;
        poke_hosts();
        watch_progress();
        kill_survivors(0);
        mid = pg_real.trecv(-1, -1, &second);
        if (interrupted)
            continue; /* a signal may also have cut the receive short */
        if (mid == 0) {
            stop_after_death(&quiet, &abnormal);
            if (check_stall(&diverged)) /* blocked tasks count after a while */
                kill_all();
            continue;
        }
        if (quiet >= 0)
            quiet = 0;
        if (mid < 0) {
            fprintf(stderr, "pangaea: lost the pvmd (pvm_recv: %s, %d)\n",
                    pg_pvm_strerror(mid), mid);
            top_run_broken = 1;
            return TOP_EXIT_FAILED;
        }
        pvm_bufinfo(mid, &len, &tag, &src);
        if (tag == PG_TAG_OUTPUT)
            on_output();
        else if (tag == PG_TAG_STARTED)
            on_started();
        else if (tag == PG_TAG_ENDED)
            on_ended(&abnormal);
        else if (tag == PG_TAG_REPORT) {
            on_report(&diverged);
            if (diverged)
                kill_all();
        } else if (tag == PG_TAG_ALLDONE) {
            break;
        } else if (tag == PG_TAG_COORD_GONE) {
            on_loss(tag, &abnormal);
            break; /* nobody will say the run is over */
        } else if (tag == PG_TAG_HOST_GONE) {
            on_loss(tag, &abnormal);
        }
    }
    drain_output();
    pvm_initsend(PvmDataDefault);
    pg_real.send(coord, PG_TAG_QUIT);
    pvm_setcontext(octx);
    top_run_broken |= (diverged & 2) != 0;
    if (o->mode == PANGAEA_REPLAY && exit_status(abnormal, diverged) == 0)
        say_replayed();
    return exit_status(abnormal, diverged);
}
