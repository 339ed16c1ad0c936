/*
 * state.c - the bottom of the runtime: its state, warnings, clocks, waits.
 *
 * Every file of the library reads the global `pg` and may warn or give up
 * (pg_warn, pg_fatal); replay waits time themselves here.  This file calls
 * no other file of the runtime above the log layer: how a task ends (its
 * report, its logs, leaving PVM) belongs to the start-up and exit sequence
 * in runtime.c, which hands it down as a function at start-up (pg_ender),
 * so the files form layers without a cycle (tests/layers.sh checks).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pg_internal.h"

struct pg_state pg = { .ltid = -1 };

int pg_forked_child(void)
{
    /* the kernel's pid, never a replayed one (wrap_time.c) */
    return pg.pid != 0 && (int)syscall(SYS_getpid) != pg.pid;
}

int pg_system_ctx(int ctx)
{
    return ctx <= 0x7ffff && ctx >= 0x7ffff - 9; /* SYSCTX_FIRST..LAST */
}

/* pvm_getcontext() without the call (~25 instructions, twice per message):
 * libpvm3 exports the task's tid and context (pvmmytid, pvmmyctx), and
 * pvm_getcontext returns pvmmyctx once the task is enrolled.  While it is
 * not (tid -1) the real call enrols it, as before. */
int pg_context(void)
{
    static int *mytid, *myctx, looked;

    if (!looked) {
        mytid = dlsym(RTLD_DEFAULT, "pvmmytid");
        myctx = dlsym(RTLD_DEFAULT, "pvmmyctx");
        looked = 1;
    }
    if (mytid && myctx && *mytid != -1)
        return *myctx;
    return pvm_getcontext();
}

int pg_app_ctx(int ctx)
{
    return !pg_system_ctx(ctx) || (pg.coll && ctx == SYSCTX_DG_CTX);
}

int pg_stall_seconds(void)
{
    static int v = -1;
    const char *s;

    if (v < 0) {
        s = getenv(PG_ENV_STALL);
        v = s && atoi(s) > 0 ? atoi(s) : 30;
    }
    return v;
}

void pg_wait_start(struct pg_wait *w)
{
    w->start = pg_seconds();
    w->said = 0;
}

/* A wait whose start is 0 (the replay's blocking wait, which reads no
 * clock until it must) starts at its first look. */
int pg_wait_overdue(struct pg_wait *w)
{
    double now;

    if (w->said)
        return 0;
    now = pg_seconds();
    if (w->start == 0)
        w->start = now;
    if (now - w->start < pg_stall_seconds())
        return 0;
    return w->said = 1;
}

static void vwarn(const char *fmt, va_list ap)
{
    char buf[1024];

    vsnprintf(buf, sizeof buf, fmt, ap);
    fprintf(stderr, "pangaea: ltid %d (%s): %s\n", pg.ltid, pg.program, buf);
    fflush(stderr);
}

void pg_warn(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vwarn(fmt, ap);
    va_end(ap);
}

void (*pg_ender)(int kind, const char *msg, int status);
void (*pg_leave_groups)(void);
void (*pg_coll_lookups_done)(void);
void (*pg_finish_output)(void);
void (*pg_signals_start)(void);
void (*pg_signals_finish)(void);
void (*pg_signals_leave)(void);

void pg_end_task(int kind, const char *msg, int status)
{
    if (pg_forked_child())
        _exit(status); /* the task's logs and PVM state are not ours */
    fflush(NULL); /* what the program printed until here, not lost by _exit */
    if (pg_ender)
        pg_ender(kind, msg, status);
    _exit(status);
}

void pg_fatal(const char *fmt, ...)
{
    va_list ap;
    char buf[1024];

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    pg_warn("%s", buf);
    pg_end_task(PG_REP_FATAL, buf, PG_EXIT_FATAL);
}

/* A divergence is reported to `pangaea`, which prints it once for the
 * run; the task says it on its own stderr only when there is no `pangaea`
 * to tell (its own stderr reaches the same screen: it printed twice).
 * Here, at the bottom, for replay.c and timelog.c alike. */
void pg_replay_say_diverged(const char *msg)
{
    if (pg.top <= 0 || pg.ltid == 0)
        pg_warn("replay diverged %s", msg);
}

extern char *pvm_errlist[]; /* libpvm3's messages, indexed by -code */
extern int pvm_nerr;

const char *pg_pvm_strerror(int code)
{
    return code < 0 && -code < pvm_nerr && pvm_errlist[-code]
               ? pvm_errlist[-code]
               : "unknown error";
}
