/*
 * runtime.c - the top of the runtime: start-up, exit, the public API, and
 * the guard every wrapper opens with (pg_app_call).  Its bottom, the state
 * and what every file calls (warnings, fatal ends, clocks), is state.c.
 *
 * `pangaea` tells a task everything through its environment (pg_proto.h):
 * the mode, its ltid, the log directory, the coordinator.  A constructor
 * reads it before main() and then marks PANGAEA_LTID as taken by this
 * process ("N@PID"), so that a task PVM starts behind the program's back
 * (the group server, say) or a child the program forks inherits no ltid
 * and runs with Pangaea off, while a program exec'd by a wrapper (a
 * `#!/bin/sh` script ending in `exec prog`, `#!/usr/bin/env prog`: the
 * constructor runs first in the interpreter) keeps the pid, hence the
 * ltid: it is the PVM task, with the tid its parent was given.  The PVM side of start-up (enrolling,
 * registering, opening logs) waits for the first wrapped call, so a process
 * that never uses PVM is never enrolled by us.
 *
 * The end of a task is taken with on_exit(), which sees the exit status:
 * the program's pvm_exit() is deferred to then, so that the status can still
 * travel to the coordinator over PVM before the task leaves it.
 *
 * A child made by fork() inherits all of that: the on_exit handler, the
 * crash handlers, the PVM socket and the shared mappings of the logs.  Were
 * it to run them, it would write <end> into the parent's log and tell PVM
 * and the coordinator that the task ended.  So the runtime turns itself off
 * in the child (pthread_atfork), and every exit path also compares getpid()
 * with the pid that set the runtime up (a child made by a raw clone() runs
 * no atfork handler).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "pg_internal.h"


static int env_int(const char *name, int *out)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtol(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = (int)v;
    return 0;
}

static pangaea_mode_t mode_from_env(void)
{
    const char *m = getenv(PG_ENV_MODE);

    if (!m)
        return PANGAEA_OFF;
    if (!strcmp(m, "log"))
        return PANGAEA_LOG;
    if (!strcmp(m, "replay"))
        return PANGAEA_REPLAY;
    if (!strcmp(m, "none"))
        return PANGAEA_NONE;
    return PANGAEA_OFF;
}

static void program_name(void)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = 0;

    if (f) {
        n = fread(pg.program, 1, sizeof pg.program - 1, f);
        fclose(f);
    }
    pg.program[n] = 0; /* the first NUL ends argv[0] */
    if (pg_task_script()) /* progsum.c: the task is the script it ran */
        snprintf(pg.program, sizeof pg.program, "%s", pg_task_script());
    if (!pg.program[0])
        strcpy(pg.program, "?");
}

static void on_process_exit(int status, void *arg);

/* PANGAEA_LTID: "N" as the spawning parent set it, or "N@PID" once a
 * constructor took it, valid in that process only (across exec). */
static int ltid_from_env(int *ltid)
{
    const char *s = getenv(PG_ENV_LTID);
    char *end;
    long v, pid;

    if (!s || !*s)
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || v < 0 || v > 0x7fffffff)
        return -1;
    if (*end == '@') {
        pid = strtol(end + 1, &end, 10);
        if (pid != syscall(SYS_getpid))
            return -1;
    }
    if (*end)
        return -1;
    *ltid = (int)v;
    return 0;
}


/* In a forked child: the task's PVM state and logs are the parent's. */
static void on_fork_child(void)
{
    pg.mode = PANGAEA_OFF;
    pg_match_clear();
}

/* Remembers which process the runtime belongs to. */
static void note_owner(void)
{
    pg.pid = (int)syscall(SYS_getpid); /* never a replayed one */
    pthread_atfork(NULL, NULL, on_fork_child);
}

static int select_from_env(void)
{
    pg_err err;

    if (pg_select_parse(getenv(PG_ENV_ONLY), &pg.sel, &err) == 0)
        return 0;
    fprintf(stderr, "pangaea: %s\n", err.msg);
    _exit(PG_EXIT_FATAL);
}

/* A program linked with libpangaea.a and run by `pangaea` has two copies
 * of the runtime: its own and the preloaded one.  The program's calls reach
 * the copy that comes first; the other must only pass calls on. */
static int first_copy(void)
{
    void *first = dlsym(RTLD_DEFAULT, "pangaea_mode");
    Dl_info theirs, ours;

    /* `pangaea_mode` named here would itself go through the interposed
     * symbol, so compare the object that defines the first one with the
     * object that holds this copy's (hidden, never interposed) state. */
    if (!first || !dladdr(first, &theirs) || !dladdr(&pg, &ours))
        return 1;
    return theirs.dli_fbase == ours.dli_fbase;
}

static void end_task(int kind, const char *msg, int status);
static void catch_crashes(void);

__attribute__((constructor)) static void pg_construct(void)
{
    char mark[48];
    int taken;

    pg_ender = end_task;
    pg_real_load();
    pg.mode = first_copy() ? mode_from_env() : PANGAEA_OFF;
    if (pg.mode == PANGAEA_OFF)
        return;
    if (ltid_from_env(&pg.ltid) < 0 || env_int(PG_ENV_CTX, &pg.ctx) < 0
        || env_int(PG_ENV_COORD, &pg.coord) < 0
        || env_int(PG_ENV_TOP, &pg.top) < 0) {
        pg.mode = PANGAEA_OFF; /* started by PVM itself, not by a wrapped spawn */
        pg.ltid = -1;
        return;
    }
    taken = strchr(getenv(PG_ENV_LTID), '@') != NULL; /* after an exec */
    snprintf(mark, sizeof mark, "%d@%ld", pg.ltid, syscall(SYS_getpid));
    setenv(PG_ENV_LTID, mark, 1);
    if (!taken) {
        pg_note_script();     /* progsum.c: a script is the program */
        pg_task_env(pg.ltid); /* task_env.c: directory, stdin */
    }
    note_owner();
    if (select_from_env() < 0)
        return;
    snprintf(pg.logdir, sizeof pg.logdir, "%s",
             getenv(PG_ENV_LOGDIR) ? getenv(PG_ENV_LOGDIR) : "logs");
    pg_log_recording_set(getenv(PG_ENV_RECORDING)); /* in every header */
    program_name();
    gethostname(pg.host, sizeof pg.host - 1);
    if (pg.mode == PANGAEA_LOG) /* a what-if: clocks read before pg_start */
        pg_whatif_load();       /* follow the recording too (wrap_time.c) */
    on_exit(on_process_exit, NULL);
    if (pg.ltid > 0) /* a crash before the first PVM call is told too */
        catch_crashes();
    if (pg_signals_start) /* wrap_sig.c: a pvm_sendsig signal may come early */
        pg_signals_start();
}

/* The top-level task is not spawned: it sets pg up itself before starting. */
void pg_set_top(pangaea_mode_t mode, int ctx, int coord, const char *logdir)
{
    pg.mode = mode;
    pg.ltid = 0;
    pg.ctx = ctx;
    pg.coord = coord;
    pg.top = pvm_mytid();
    note_owner();
    select_from_env();
    snprintf(pg.logdir, sizeof pg.logdir, "%s", logdir);
    program_name();
    gethostname(pg.host, sizeof pg.host - 1);
}

/* A recording keeps how the task died: the exec log's <crash> (signal,
 * the program's frame) and <end status=-signal>, closed so it is whole. */
static void record_crash(int sig, const char *module, int offset)
{
    double t = pg_now();

    if (pg.mode != PANGAEA_LOG || !pg.exec)
        return;
    pg_logw_crash(pg.exec, t, sig, module, offset);
    pg_logw_end(pg.exec, t, -sig);
    pg_logw_close(pg.exec);
    pg.exec = NULL;
}

/* "died of SIGSEGV after event 7 of its log, at f.c:12", and in a replay
 * whether the recording died so too. */
static void crash_words(int sig, void *fault, char *msg, size_t size)
{
    char module[PATH_MAX], where[700] = "", rec[600] = "";
    void *pc = NULL;
    int offset = 0, rsig;
    size_t n;

    if (pg_site_crash(fault, &pc, module, sizeof module, &offset) == 0)
        pg_site_where_pc(pc, where, sizeof where);
    record_crash(sig, module, offset);
    n = snprintf(msg, size, "died of SIG%s after event %ld of its log%s%s",
                 sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", pg.events,
                 where[0] ? "," : "", where);
    if (pg.mode != PANGAEA_REPLAY || n >= size)
        return;
    rsig = pg_replay_recorded_crash(rec, sizeof rec);
    if (rsig == sig)
        snprintf(msg + n, size - n, ", as recorded");
    else if (rsig)
        snprintf(msg + n, size - n, "; the recording died of SIG%s%s%s",
                 sigabbrev_np(rsig) ? sigabbrev_np(rsig) : "?",
                 rec[0] ? " at " : "", rec);
    else
        snprintf(msg + n, size - n, "; the recording did not die there");
}

/* A task that crashes says how, and after which event of its log, before
 * it dies: best effort (PVM is called from a signal handler), but the run's
 * report then names the cause, which is what a person debugging needs. */
/* The pc the signal interrupted, or NULL where its register is unknown. */
static void *fault_pc(void *ucv)
{
    ucontext_t *uc = ucv;

#if defined(__x86_64__)
    return uc ? (void *)uc->uc_mcontext.gregs[REG_RIP] : NULL;
#elif defined(__aarch64__)
    return uc ? (void *)uc->uc_mcontext.pc : NULL;
#else
    (void)uc;
    return NULL;
#endif
}

static void on_crash(int sig, siginfo_t *si, void *ucv)
{
    static volatile sig_atomic_t once;
    char msg[1500];

    if (!once && !pg_forked_child()) {
        once = 1;
        alarm(5); /* whatever hangs below (PVM, a lock the crash held) */
        if (!pg.started && pg_start() < 0) /* it crashed before its first */
            raise(sig);                      /* PVM call: enrol to say so */
        pg.depth++;
        crash_words(sig, fault_pc(ucv), msg, sizeof msg);
        pg_coord_report(PG_REP_CRASH, msg);
        if (pg.ltid != 0)
            pg_coord_exit(-sig); /* known at once: no grace to wait out */
        /* Leaving PVM sends the report for sure; a crash inside PVM could
         * make that hang: the alarm ends the wait. */
        pg_real.exit();
    }
    raise(sig); /* SA_RESETHAND: now the default action */
}

static void catch_crashes(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    struct sigaction sa;
    size_t i;

    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER | SA_SIGINFO;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

int pg_start(void)
{
    pg_err err;

    if (pg.mode == PANGAEA_OFF)
        return -1;
    if (pg.started)
        return 0;
    pg.started = 1;
    pg.depth++;
    pg.tid = pvm_mytid();
    if (pg.tid < 0)
        pg_fatal("cannot enrol in PVM (pvm_mytid: %d)", pg.tid);
    /* Our matcher sees every receive; it defers to PVM's own unless told. */
    pg_default_match = pg_real.recvf(pg_match);
    if (pg.ltid != 0 && pg_coord_register() < 0)
        pg_fatal("cannot register with the coordinator t%x", pg.coord);
    pg_output_elsewhere(); /* no wait for output PVM never sends `pangaea` */
    if (pg.mode == PANGAEA_LOG && pg_record_open(&err) < 0)
        pg_fatal("cannot open the logs in %s: %s", pg.logdir, err.msg);
    pg_bufid_open(); /* recording: the ids the program is given (bufid.c) */
    if (pg.mode == PANGAEA_LOG && pg_whatif_load() && pg_replay_open() < 0)
        pg_fatal("cannot open the recorded logs in %s", pg_whatif.from);
    if (pg.mode == PANGAEA_LOG)
        pg_chaos_load();
    if (pg.mode == PANGAEA_LOG && pg.ltid != 0)
        pg_live_pos_open(); /* -live: the control block (gate.c) */
    if (pg.mode == PANGAEA_REPLAY && pg_replay_open() < 0)
        pg_fatal("cannot open the recorded logs in %s", pg.logdir);
    if (pg.ltid != 0)
        catch_crashes();
    pg.depth--;
    return 0;
}


int pg_app_call(void)
{
    /* PVM's own functions (groups, say) send in a system context. */
    if (pg.depth > 0 || pg.mode == PANGAEA_OFF || pg_system_ctx(pg_context()))
        return 0;
    if (!pg.started && pg_start() < 0)
        return 0;
    return 1;
}

int pg_app_call_tag(int tag)
{
    if (pg.coll && pg.depth == 0 && pg.mode != PANGAEA_OFF &&
        pg_context() == SYSCTX_DG_CTX) {
        if (tag == pg.coll_tag && pg_coll_lookups_done)
            pg_coll_lookups_done(); /* its first message: lookups done */
        return tag == pg.coll_tag; /* else the group server's traffic */
    }
    return pg_app_call();
}


/* Closing: logs first (they are the evidence), then the coordinator, then
 * the pvm_exit the program asked for. */
static void finish(int status)
{
    static int finished;

    if (finished || pg.mode == PANGAEA_OFF || pg_forked_child())
        return;
    finished = 1;
    if (!pg.started && pg_start() < 0)
        return;
    pg.depth++;
    if ((pg.mode == PANGAEA_LOG || pg.mode == PANGAEA_REPLAY) && pg_leave_groups)
        pg_leave_groups();
    pg.depth--;
    if (pg_finish_output) /* pvm_catchout's last output (wrap_mhf.c) */
        pg_finish_output();
    if (pg_signals_finish) /* signals due by the last call (wrap_sig.c) */
        pg_signals_finish();
    pg_bufid_close(); /* the last ids the receives returned (bufid.c) */
    pg.depth++;
    if (pg.mode == PANGAEA_LOG && pg.ltid != 0) /* ended before its stop? */
        pg_replay_whatif_end(status);
    if (pg.mode == PANGAEA_LOG)
        pg_record_close(status);
    pg_time_close();
    if (pg.mode == PANGAEA_REPLAY) {
        if (pg.ltid != 0)
            pg_replay_check_end(status);
        pg_replay_close();
    }
    if (pg.ltid != 0)
        pg_coord_exit(status);
    pg_real.exit();
    pg.depth--;
}

static void on_process_exit(int status, void *arg)
{
    (void)arg;
    finish(status);
}

void (*pg_top_end)(const char *msg);

/* pg_end_task's work (state.c hands it over through pg_ender): the report,
 * the logs, leaving PVM.  The caller then _exits. */
static void end_task(int kind, const char *msg, int status)
{
    pg.depth++;
    if (pg.ltid == 0 && pg_top_end) {
        if (pg.mode == PANGAEA_LOG && pg.comm)
            pg_record_close(status);
        pg.mode = PANGAEA_OFF; /* our own end is not a task's end */
        pg_top_end(msg);
    }
    /* An exit path never enrols: a task whose enrolment failed (its pvmd
     * is gone) would make every PVM call below try again, each waiting
     * for the dead daemon (minutes in all). */
    if (pg.started && pg.tid > 0 && pg.ltid != 0)
        pg_coord_report(kind, msg);
    if (pg.mode == PANGAEA_LOG && pg.comm)
        pg_record_close(status);
    pg_time_close();
    if (pg.mode == PANGAEA_REPLAY)
        pg_replay_close();
    pg_match_clear();
    /* Leaving PVM properly sends what is still queued, the report above
     * included: a bare _exit could drop it when the daemon is slow. */
    if (pg.started && pg.tid > 0)
        pg_real.exit();
}

/* `pangaea`'s own end is not a task's end: the runtime goes off. */
void pg_top_off(void)
{
    pg.mode = PANGAEA_OFF;
}

/* ---- public API ---------------------------------------------------------- */
int pangaea_init(void)
{
    if (pg.mode == PANGAEA_OFF)
        return 0;
    return pg_start();
}

int pangaea_exit(void)
{
    finish(0);
    return 0;
}

int pangaea_ltid(void)
{
    return pg.mode == PANGAEA_OFF ? -1 : pg.ltid;
}

pangaea_mode_t pangaea_mode(void)
{
    return pg.mode;
}
