/*
 * callsite.c - what `pangaea -races` needs beyond what replay needs: the
 * call site of each event, the source and tag each receive asked for, the
 * filter of polls that found nothing, pvm_barrier and pvm_setopt(PvmRoute)
 * as events (format version 3, pg_events.def).
 *
 * Design.  Each wrapper the program calls notes its return address
 * (PG_SITE(call), pg_internal.h) once it knows the call is the program's; the
 * record functions then ask pg_site_note() for the site's id.  A site is
 * written to the log once, as a <site id= module= offset=> event before
 * its first use, with the address made relative to the object it lies in
 * (dladdr): programs may be position-independent, so only object+offset
 * means something after the run, and `pangaea -races` resolves it to
 * file:line from the object's debug information (site_resolve.c).  The
 * table of sites is a small open-addressing hash on the address: a loop
 * costs one lookup per event, no system call.  In front of it, a direct-
 * mapped cache of 16 return addresses and their ids (ids never change)
 * answers a loop's sites in a few instructions (the lookup, with the
 * Fortran check, was ~80 per event); Fortran bindings' addresses, whose
 * site is their caller's, are never cached.
 *
 * A Fortran program calls PVM through libfpvm3's bindings (pvmfsend_
 * ...), so the return address is in the binding, the same for every call
 * of it.  In a Fortran program (libgfortran is loaded) each new address is
 * classified once, by its symbol (site_name.c); for one inside a binding
 * the site is the binding's own return address, found by unwinding
 * (glibc's backtrace) at each call: a few microseconds, Fortran only.  A
 * stripped binary names no binding, and keeps the binding's address.
 *
 * Polls that find nothing are no events (their number rides on the next
 * event, misses=); the filter of the last of them is kept here and written
 * as one <poll> just before that event.  Earlier misses of the same run
 * are taken as asking the same (a loop polls with one filter).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"

static void *site_pc; /* return address of the program's current call */

struct site {
    void *pc;
    int id;      /* 0: not written yet (a Fortran address classified) */
    int binding; /* a Fortran binding's address: the site is its caller */
};
static struct site *tab;
static int nsites, used, cap; /* cap: a power of two, or 0 */

#define NCACHE 16 /* a power of two */
static struct {
    void *pc;
    int id;
} cache[NCACHE];

static unsigned cache_slot(void *pc)
{
    return ((uintptr_t)pc >> 2 ^ (uintptr_t)pc >> 7) & (NCACHE - 1);
}

static struct {
    int from, tag, matcher; /* -3, -2: not a receive */
} ask = { -3, -2, 0 };

static struct {
    const char *call;
    int from, tag, matcher, site;
} miss;

void pg_site_enter(void *pc)
{
    site_pc = pc;
}


static int grow_table(void)
{
    struct site *old = tab;
    int oldcap = cap, i, j;

    cap = cap ? cap * 2 : 256;
    tab = calloc(cap, sizeof *tab);
    if (!tab)
        pg_fatal("out of memory");
    for (i = 0; i < oldcap; i++) {
        if (!old[i].pc)
            continue;
        for (j = ((uintptr_t)old[i].pc >> 2) & (cap - 1); tab[j].pc;
             j = (j + 1) & (cap - 1))
            ;
        tab[j] = old[i];
    }
    free(old);
    return 0;
}

/* pc's entry in the table, or the free slot where it goes. */
static struct site *find(void *pc)
{
    int j;

    if (2 * (used + 1) > cap)
        grow_table();
    for (j = ((uintptr_t)pc >> 2) & (cap - 1); tab[j].pc;
         j = (j + 1) & (cap - 1))
        if (tab[j].pc == pc)
            break;
    return &tab[j];
}

static int fortran_program(void)
{
    static int v = -1;

    if (v < 0)
        v = dlsym(RTLD_DEFAULT, "_gfortran_set_args") != NULL;
    return v;
}

/* The return address of the frame that called the one returning to pc. */
static void *caller_of(void *pc)
{
    void *buf[24];
    int n = backtrace(buf, 24), k;

    for (k = 0; k < n - 1; k++)
        if (buf[k] == pc)
            return buf[k + 1];
    return pc;
}

/* pc, or for a return into a Fortran binding (pvmfsend_...) the address
 * in the Fortran code that called the binding. */
static void *program_pc(void *pc)
{
    char path[PATH_MAX], name[600];
    struct site *s;
    uintptr_t off;

    if (!pc || !fortran_program())
        return pc;
    s = find(pc);
    if (!s->pc) { /* classified once, by its symbol */
        s->pc = pc;
        used++;
        s->binding = pg_site_locate(pc, path, sizeof path, &off) == 0 &&
                     !strncmp(pg_site_name(path, (long)off, name,
                                           sizeof name), "pvmf", 4) &&
                     strchr(name, '+');
    }
    return s->binding ? caller_of(pc) : pc;
}

/* A site not in the cache: found in the table, or new (its <site>
 * written); 0 when unknown.  Out of line: its path buffer (PATH_MAX on
 * the stack, probed page by page) stays off the cache's hit, which is
 * every send's and receive's (~20 instructions fewer each). */
static __attribute__((noinline)) int site_lookup(void *pc, unsigned slot)
{
    char path[PATH_MAX];
    struct site *s;
    uintptr_t off;
    void *ret = pc;

    pc = program_pc(pc);
    s = find(pc);
    if (s->pc && s->id) {
        if (pc == ret) /* not a Fortran binding's */
            cache[slot].pc = pc, cache[slot].id = s->id;
        return s->id;
    }
    if (pg_site_locate(pc, path, sizeof path, &off) < 0 || off > INT32_MAX ||
        pg_logw_site(pg.comm, pg_now(), nsites + 1, path, (int)off) < 0)
        return 0; /* unknown site: the event is logged without one */
    pg.events++; /* events are counted as the log numbers them */
    used += !s->pc;
    s->pc = pc;
    s->id = ++nsites;
    return s->id;
}

/* The id of the site at pc, writing its <site> the first time; 0 when
 * unknown. */
static int site_id(void *pc)
{
    unsigned slot = cache_slot(pc);

    if (!pc || !pg.comm)
        return 0;
    if (cache[slot].pc == pc)
        return cache[slot].id;
    return site_lookup(pc, slot);
}

/* A receive's source as an ltid: -1 any, -2 a tid outside the run. */
static int source_ltid(int tid)
{
    int ltid;

    if (tid == -1)
        return -1;
    ltid = tid > 0 ? pg_ltid_of(tid) : -1;
    return ltid >= 0 ? ltid : -2;
}

void pg_site_ask(int tid, int tag, int matcher)
{
    ask.from = source_ltid(tid);
    ask.tag = tag < 0 ? -1 : tag;
    ask.matcher = matcher;
}

void pg_site_missed(const char *call, int tid, int tag, int matcher)
{
    miss.call = call;
    miss.from = source_ltid(tid);
    miss.tag = tag < 0 ? -1 : tag;
    miss.matcher = matcher;
    miss.site = site_id(site_pc);
}

void pg_site_poll(void)
{
    if (!miss.call || !pg.comm)
        return;
    if (pg_logw_poll(pg.comm, pg_now(), miss.call, miss.from, miss.tag,
                     miss.matcher, miss.site) == 0)
        pg.events++;
    miss.call = NULL;
}

void pg_site_note(void)
{
    int id = site_id(site_pc);

    pg_logw_note(pg.comm, id, ask.from, ask.tag, ask.matcher);
    ask.from = -3, ask.tag = -2, ask.matcher = 0;
}

const char *pg_site_where(char *buf, int size)
{
    return pg_site_where_pc(site_pc, buf, size);
}

const char *pg_site_where_pc(void *pc, char *buf, int size)
{
    char path[PATH_MAX], name[600];
    uintptr_t off;

    if (!pc || pg_site_locate(program_pc(pc), path, sizeof path, &off) < 0)
        return "";
    snprintf(buf, size, " at %s", pg_site_name(path, (long)off, name,
                                               sizeof name));
    return buf;
}

int pg_site_parts_pc(void *pc, char *file, int fsize, char *func, int nsize,
                     int *line)
{
    char path[PATH_MAX];
    uintptr_t off;

    if (!pc || pg_site_locate(program_pc(pc), path, sizeof path, &off) < 0)
        return -1;
    pg_site_parts(path, (long)off, file, fsize, func, nsize, line);
    return 0;
}

/* 1 if the object at path is the C library's, PVM's or Pangaea's (or the
 * loader's, libgcc's): frames there are not the program's. */
static int system_object(const char *path)
{
    static const char *const sys[] = { "libc.", "libc-", "ld-linux",
        "libpthread", "libgcc_s", "libpvm3", "libgpvm3", "libpangaea" };
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t i;

    for (i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (!strncmp(base, sys[i], strlen(sys[i])))
            return 1;
    return 0;
}

int pg_site_crash(void *fault, void **pc, char *module, size_t size,
                  int *offset)
{
    void *frames[64];
    uintptr_t off;
    int n = backtrace(frames, 64), i;

    for (i = 0; i < n; i++) {
        /* Sites are return addresses, named by the byte before them; the
         * faulting instruction itself is named by its first byte. */
        void *at = frames[i] == fault ? (char *)fault + 1 : frames[i];

        if (pg_site_locate(at, module, size, &off) < 0 || system_object(module))
            continue;
        *pc = at;
        *offset = (int)off;
        return 0;
    }
    module[0] = 0;
    return -1;
}

int pg_site_is_new(void *pc)
{
    return pc && pg.comm && !find(program_pc(pc))->id;
}

int pg_site_pending(void)
{
    return miss.call && pg.comm && pg.misses > 0;
}

int pg_site_current(void)
{
    return site_id(site_pc);
}

/* Ends the task when the communication log cannot be written, with the
 * cause ("no space left on MOUNT while writing FILE"). */
static void comm_failed(void)
{
    const char *why = pg_logw_why(pg.comm);

    if (why)
        pg_fatal("%s", why);
    pg_fatal("cannot write the communication log in %s", pg.logdir);
}

/* pvm_barrier returned: the event, when recording. */
void pg_site_barrier(const char *group, int count)
{
    int id;

    if (pg.mode != PANGAEA_LOG || !pg.comm || !pg_selected(-1))
        return;
    id = site_id(site_pc);
    if (pg_logw_barrier(pg.comm, pg_now(), group ? group : "", count, id) < 0)
        comm_failed();
    pg.events++;
}

/* The route a pvm_setopt(PvmRoute, val) of the program set is an event in
 * a recording (wrap_route.c); a replay passes over it. */
void pg_site_route(int val)
{
    int id;

    if (pg.mode != PANGAEA_LOG || !pg.comm || !pg_selected(-1))
        return;
    id = site_id(site_pc);
    if (pg_logw_route(pg.comm, pg_now(), val, id) < 0)
        comm_failed();
    pg.events++;
}
