/*
 * wrap_time.c - gettimeofday, time, clock_gettime and getpid, as the
 * program sees them: recorded, and given back in replay (timelog.c).
 *
 * These are libc calls, interposed the way the PVM calls are (the library
 * is preloaded, or linked ahead of libc; rows PG_LIBC of pg_calls.def).
 * Only the program's own calls count: libpvm3 reads the clock in
 * pvm_trecv and its pid in pvm_mytid, and the runtime reads both, and a
 * replay that gave them recorded values would break PVM (a wrong pid) or
 * shift the values the program gets.  So a call counts when
 *   - Pangaea records or replays in a task (not `pangaea` itself, not a
 *     forked child, not with PANGAEA_TIME=0), its runtime set up;
 *   - no wrapped PVM call is in progress (pg.depth: PVM's own calls, and
 *     the program's pvm_recvf matcher, which runs inside one);
 *   - the caller is not libpvm3, libgpvm3, libc, the dynamic loader or
 *     this library: PVM calls that are not wrapped (pvm_mytid, pvm_pk*)
 *     reach libc from libpvm3.  (A program linked with libpangaea.a holds
 *     the runtime itself: the runtime's own calls there pass by pg.depth,
 *     or call the real function, as pg_forked_child does.)  The caller's object is found with dladdr
 *     once per call site and kept in a small table.
 * libc's own uses of the clock (inside strftime, say) never pass through
 * here: libc calls them directly, and the vDSO is reached only from libc.
 * clock_gettime counts for clock ids 0 to 13 (the fixed clocks, CPU time
 * included); a dynamic clock (a negative id, a PTP device) passes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pg_internal.h"

/* The library is built with hidden visibility; these four are its
 * interface, as the PVM calls are (libpangaea.map.in lists them too). */
#define PG_EXPORT __attribute__((visibility("default")))

#define SITES 256 /* call sites remembered (direct-mapped) */

static struct site {
    const void *pc;
    int app;
} sites[SITES];

static int on = -1; /* -1: not decided yet */

/* The last component of a library path, and whether it is PVM's, libc's,
 * the loader's or ours. */
static int system_object(const Dl_info *di)
{
    static const char *const names[] = { "libpvm3.", "libgpvm3.", "libc.",
                                         "ld-linux", "libpthread.",
                                         "libpangaea." };
    const char *base;
    size_t i;

    if (!di->dli_fname)
        return 0;
    base = pg_basename(di->dli_fname);
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(base, names[i], strlen(names[i])))
            return 1;
    return 0;
}

static int app_site(const void *pc)
{
    struct site *s = &sites[((uintptr_t)pc >> 2) % SITES];
    Dl_info di;

    if (s->pc != pc) {
        s->pc = pc;
        s->app = !dladdr(pc, &di) || !system_object(&di);
    }
    return s->app;
}

/* Decided on the first call after the runtime set up (pg.pid known). */
static int time_on(void)
{
    const char *e;

    if (on >= 0)
        return on;
    if (!pg.pid)
        return 0; /* too early: the constructor has not run yet */
    e = getenv(PG_ENV_TIME);
    on = (pg.mode == PANGAEA_LOG || pg.mode == PANGAEA_REPLAY) &&
         pg.ltid > 0 && !(e && !strcmp(e, "0"));
    return on;
}

/* In a tool linked with libpangaea.a that does not pull in runtime.c,
 * no constructor filled pg_real: find libc's four here. */
static void need_real(void)
{
    if (pg_real.getpid)
        return;
#define PG_LIBC(name, ret, params)                                             \
    *(void **)&pg_real.name = dlsym(RTLD_NEXT, #name);
#include "pg_calls.def"
}

/* True when this call, from pc, is the program's and is recorded or
 * replayed. */
static inline int counts(const void *pc)
{
    /* Inside a wrapped PVM call first: pvm_trecv reads the clock several
     * times per receive, a send twice, and those calls must
     * cost next to nothing (BENCHMARKS.md).  A forked child has
     * Pangaea off (runtime.c's atfork handler); asking the kernel for the
     * pid here would cost a system call a call. */
    if (__builtin_expect(pg.depth > 0, 0) && pg_real.getpid)
        return 0;
    need_real();
    return pg.mode != PANGAEA_OFF && time_on() && pg.depth == 0 &&
           app_site(pc);
}

/* libc declares the pointers nonnull; a program may pass NULL all the
 * same (the real call then reports it), so look without the compiler's
 * assumption. */
__attribute__((noinline)) static int null(const void *p)
{
    return p == NULL;
}

/* Replay: the recorded value, or 0 when there is none (said once, and
 * only by a PVM task: a script's interpreter, before it execs the
 * program, reads the real clocks unrecorded and silently). */
static int replayed(int code, int clock, int64_t *sec, int64_t *sub)
{
    static int said;

    if (pg_time_get(code, clock, sec, sub))
        return 1;
    if (pg.started && !said++)
        pg_warn("the recording has no more clock values here: the replay "
                "reads the real clocks from now on");
    return 0;
}

/* The program's gettimeofday (the caller at pc), out of line: the
 * wrapper's own path for PVM's calls stays a test and a jump. */
static __attribute__((noinline)) int
tod_counted(struct timeval *restrict tv, void *restrict tz, const void *pc)
{
    int64_t sec, usec;
    int cc;

    if (null(tv) || !counts(pc))
        return pg_real.gettimeofday(tv, tz);
    if (pg_replaying() && replayed(PG_TIME_TOD, 0, &sec, &usec)) {
        if (tz)
            pg_real.gettimeofday(NULL, tz);
        tv->tv_sec = sec, tv->tv_usec = usec;
        cc = 0;
    } else {
        cc = pg_real.gettimeofday(tv, tz);
    }
    if (cc == 0 && pg.mode == PANGAEA_LOG) /* a what-if's followed ones too */
        pg_time_put(PG_TIME_TOD, 0, tv->tv_sec, tv->tv_usec);
    return cc;
}

/* PVM's pvm_trecv reads the clock ~10 times a wait, inside a wrapped
 * call: those go straight through. */
PG_EXPORT int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    if (pg.depth > 0 && pg_real.gettimeofday)
        return pg_real.gettimeofday(tv, tz);
    return tod_counted(tv, tz, __builtin_return_address(0));
}

PG_EXPORT time_t time(time_t *out)
{
    int64_t sec, none;
    time_t t;

    if (!counts(__builtin_return_address(0)))
        return pg_real.time(out);
    if (pg_replaying() && replayed(PG_TIME_TIME, 0, &sec, &none))
        t = (time_t)sec;
    else
        t = pg_real.time(NULL);
    if (t != (time_t)-1 && pg.mode == PANGAEA_LOG)
        pg_time_put(PG_TIME_TIME, 0, t, 0);
    if (out)
        *out = t;
    return t;
}

PG_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
    int64_t sec, nsec;
    int cc;

    if (null(ts) || clk < 0 || clk >= PG_TIME_CLOCKS - 2 ||
        !counts(__builtin_return_address(0)))
        return pg_real.clock_gettime(clk, ts);
    if (pg_replaying() && replayed(PG_TIME_CLOCK, (int)clk, &sec, &nsec)) {
        ts->tv_sec = sec, ts->tv_nsec = nsec;
        cc = 0;
    } else {
        cc = pg_real.clock_gettime(clk, ts);
    }
    if (cc == 0 && pg.mode == PANGAEA_LOG)
        pg_time_put(PG_TIME_CLOCK, (int)clk, ts->tv_sec, ts->tv_nsec);
    return cc;
}

PG_EXPORT pid_t getpid(void)
{
    int64_t pid, none;
    pid_t p;

    if (!counts(__builtin_return_address(0)))
        return pg_real.getpid();
    if (pg_replaying() &&
        replayed(PG_TIME_PID, PG_TIME_PID_SLOT, &pid, &none))
        p = (pid_t)pid;
    else
        p = pg_real.getpid();
    if (pg.mode == PANGAEA_LOG)
        pg_time_put(PG_TIME_PID, PG_TIME_PID_SLOT, p, 0);
    return p;
}
