/*
 * mpi_clock.c - MPI's clocks (pg_mpi.h): MPI_Wtime and MPI_Wtick.
 *
 * Design.  A program that decides by elapsed time, or prints it, takes
 * other branches in a replay unless it reads the recorded times again.
 * Each call the program makes is a <query> event of the rank's
 * communication log (call MPI_Wtime or MPI_Wtick, about the value as a
 * decimal that reads back exactly: docs/comm-log-format.md), in order
 * among its messages; a replay returns the recorded value, and a program
 * that reads a clock where the recording has another event diverged (the
 * run ends, naming both).  Calls MPI makes itself (pgm.busy) and calls
 * in a run without Pangaea go straight to the clock.
 *
 * The C library's clocks (time, gettimeofday, clock_gettime, getrusage)
 * the same way, as <query> events libc_time ...: a program may seed or
 * decide by them (HPCC does: docs/mpi-notes.md).  Only the program's own
 * calls, those made from its executable: MPI and the other libraries
 * read clocks for themselves, as often as they like, and a replay must
 * not hand them the program's values (the return address tells).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#include "pg_mpi.h"

static double clock_call(const char *call, double (*real)(void))
{
    const char *const calls[] = { call, NULL };
    const struct pgm_ev *e;
    double v;
    char *end;

    if (pgm.mode == PGM_OFF || pgm.busy)
        return real();
    pgm.busy = 1;
    if (pgm.mode == PGM_LOG) {
        v = real();
        pgm_log_clock(call, v);
    } else {
        e = pgm_expect(PG_EV_QUERY, calls, call, 0);
        v = strtod(e->about, &end);
        if (end == e->about || *end)
            pgm_die(PGM_REFUSED, "event %ld: %s's recorded value \"%s\" is "
                    "not a number", e->seq, call, e->about);
        pgm_advance();
    }
    pgm.busy = 0;
    return v;
}

PGM_API double MPI_Wtime(void)
{
    return clock_call("MPI_Wtime", PMPI_Wtime);
}

PGM_API double MPI_Wtick(void)
{
    return clock_call("MPI_Wtick", PMPI_Wtick);
}

/* ---- the C library's clocks ---------------------------------------------- */

static uintptr_t exe_lo, exe_hi; /* the executable's mapped range */

static int exe_range(struct dl_phdr_info *info, size_t size, void *data)
{
    int i;

    (void)size, (void)data;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type != PT_LOAD)
            continue;
        if (!exe_lo || lo < exe_lo)
            exe_lo = lo;
        if (lo + ph->p_memsz > exe_hi)
            exe_hi = lo + ph->p_memsz;
    }
    return 1; /* the first object is the executable */
}

/* Whether a clock call from `ret` is the program's own, to record. */
static int programs(void *ret)
{
    if (pgm.mode == PGM_OFF || pgm.busy)
        return 0;
    if (!exe_hi)
        dl_iterate_phdr(exe_range, NULL);
    return (uintptr_t)ret >= exe_lo && (uintptr_t)ret < exe_hi;
}

static void *real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f)
        pgm_die(PGM_REFUSED, "no %s in the C library", name);
    return f;
}

/* Recording: the values as text; replay: the recorded text, which the
 * caller parses (a program that reads another clock diverged). */
static const char *libc_clock(const char *call, const char *values)
{
    const char *const calls[] = { call, NULL };
    static char about[64];
    const struct pgm_ev *e;

    pgm.busy = 1;
    if (pgm.mode == PGM_LOG) {
        pgm_log_query(call, values);
        pgm.busy = 0;
        return values;
    }
    e = pgm_expect(PG_EV_QUERY, calls, call, 0);
    snprintf(about, sizeof about, "%s", e->about);
    pgm_advance();
    pgm.busy = 0;
    return about;
}

static _Noreturn void bad_value(const char *call, const char *about)
{
    pgm_die(PGM_REFUSED, "%s's recorded value \"%s\" is not one", call,
            about);
}

PGM_API time_t time(time_t *t)
{
    static time_t (*f)(time_t *);
    char v[32];
    long long s;
    time_t r;

    if (!f)
        f = (time_t (*)(time_t *))real("time");
    if (!programs(__builtin_return_address(0)))
        return f(t);
    r = f(NULL);
    snprintf(v, sizeof v, "%lld", (long long)r);
    if (sscanf(libc_clock("libc_time", v), "%lld", &s) != 1)
        bad_value("time", v);
    r = (time_t)s;
    if (t)
        *t = r;
    return r;
}

PGM_API int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    static int (*f)(struct timeval *, void *);
    const char *a;
    long long s;
    long us;
    char v[48];
    int rc;

    if (!f)
        f = (int (*)(struct timeval *, void *))real("gettimeofday");
    if (!programs(__builtin_return_address(0)))
        return f(tv, tz);
    if ((rc = f(tv, tz)) < 0)
        return rc;
    snprintf(v, sizeof v, "%lld.%06ld", (long long)tv->tv_sec,
             (long)tv->tv_usec);
    a = libc_clock("libc_gettimeofday", v);
    if (sscanf(a, "%lld.%ld", &s, &us) != 2)
        bad_value("gettimeofday", a);
    tv->tv_sec = (time_t)s, tv->tv_usec = (suseconds_t)us;
    return 0;
}

PGM_API int clock_gettime(clockid_t id, struct timespec *ts)
{
    static int (*f)(clockid_t, struct timespec *);
    const char *a;
    long long s;
    long ns;
    int rc, rid;
    char v[64];

    if (!f)
        f = (int (*)(clockid_t, struct timespec *))real("clock_gettime");
    if (!programs(__builtin_return_address(0)))
        return f(id, ts);
    if ((rc = f(id, ts)) < 0)
        return rc;
    snprintf(v, sizeof v, "%d %lld.%09ld", (int)id, (long long)ts->tv_sec,
             ts->tv_nsec);
    a = libc_clock("libc_clock_gettime", v);
    if (sscanf(a, "%d %lld.%ld", &rid, &s, &ns) != 3)
        bad_value("clock_gettime", a);
    if (rid != (int)id)
        pgm_die(PGM_DIVERGED, "the replay diverged: recorded clock_gettime "
                "of clock %d, the program reads clock %d", rid, (int)id);
    ts->tv_sec = (time_t)s, ts->tv_nsec = ns;
    return 0;
}

PGM_API int getrusage(int who, struct rusage *u)
{
    static int (*f)(int, struct rusage *);
    long long us, ss;
    long uu, su;
    const char *a;
    int rc, rwho;
    char v[96];

    if (!f)
        f = (int (*)(int, struct rusage *))real("getrusage");
    if (!u || !programs(__builtin_return_address(0)))
        return f(who, u);
    if ((rc = f(who, u)) < 0)
        return rc;
    snprintf(v, sizeof v, "%d %lld.%06ld %lld.%06ld", who,
             (long long)u->ru_utime.tv_sec, (long)u->ru_utime.tv_usec,
             (long long)u->ru_stime.tv_sec, (long)u->ru_stime.tv_usec);
    a = libc_clock("libc_getrusage", v);
    if (sscanf(a, "%d %lld.%ld %lld.%ld", &rwho, &us, &uu, &ss, &su) != 5)
        bad_value("getrusage", a);
    if (rwho != who)
        pgm_die(PGM_DIVERGED, "the replay diverged: recorded getrusage of "
                "%d, the program asks for %d", rwho, who);
    u->ru_utime.tv_sec = (time_t)us, u->ru_utime.tv_usec = uu;
    u->ru_stime.tv_sec = (time_t)ss, u->ru_stime.tv_usec = su;
    return 0; /* the other fields: this run's */
}
