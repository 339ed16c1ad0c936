/*
 * live_gate.c - the part of the live page's gate that knows no front end
 * (pg_live.h): a task holding before a call for `pangaea -live -hold`,
 * breakpoints, step and run-to, whether its calls are PVM's or MPI's.
 *
 * Design.  pangaea (src/cli/live/live_ctl.c) writes the task's control
 * block in its position file, DIR/ltid-N.pos, and the run's breakpoints in
 * DIR/control; the task maps both (pg_live_map) and obeys them before each
 * call its front end gates (src/pvm/runtime/gate.c, src/mpi/mpi_gate.c),
 * so nothing is added to the program's messages and pangaea needs no round
 * trip per call.  Before the call the task checks, in order (pg_live_stops):
 * run-to (its events done reached the target), the breakpoints (call,
 * ltid, peer ltid, tag, size, call site; a hit count by an atomic add in
 * the shared file: a breakpoint naming a task matches only its calls, so
 * it counts that task's matches, one naming none counts all tasks'), and
 * pause.  A task that stops sets pause itself, publishes the call it is
 * about to make (pg_live_publish) and polls its page every millisecond
 * (pg_live_wait) until pangaea clears pause (resume) or gives it a step
 * (steps, a credit it takes back with an atomic subtract).
 *
 * What a front end adds: how far its task is (its log's count, or its
 * replay's), what it tells its own side while held (PVM's coordinator),
 * and what a held receive could take (PVM's queue).  A call is named as
 * its front end names it ("pvm_send", "MPI_Recv"); a breakpoint may drop
 * the prefix ("send", "Recv").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pg_live.h"
#include "pg_log.h"

/* ---- the files ------------------------------------------------------------ */

/* The breakpoints, if pangaea made the file (read-write: hit counts). */
static struct pg_live_ctl *open_ctl(const char *dir)
{
    char path[4200];
    void *map;
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, PG_LIVE_CTL_FILE);
    if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return NULL;
    map = mmap(NULL, sizeof(struct pg_live_ctl), PROT_READ | PROT_WRITE,
               MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return NULL;
    if (((struct pg_live_ctl *)map)->magic == PG_LIVE_CTL_MAGIC)
        return map;
    munmap(map, sizeof(struct pg_live_ctl));
    return NULL;
}

/* The page said "resume all" (and no "pause all" since). */
static int all_go(const struct pg_live_ctl *ctl)
{
    return ctl && __atomic_load_n(&ctl->all_go, __ATOMIC_SEQ_CST);
}

struct pg_live_pos *pg_live_map(const char *dir, int ltid, int hold,
                                struct pg_live_ctl **ctl, pg_err *err)
{
    struct pg_live_pos *p;
    char path[4200];
    void *map;
    int fd;

    *ctl = NULL;
    snprintf(path, sizeof path, "%s/ltid-%d.pos", dir, ltid);
    /* Never O_TRUNC: pangaea may have the file mapped already, and a file
     * cut to 0 under its mapping is a SIGBUS in pangaea when it reads it.
     * The size is set, then the page cleared through the mapping. */
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || ftruncate(fd, sizeof *p) < 0) {
        pg_err_set(err, "cannot make %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    map = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        pg_err_set(err, "cannot map %s: %s", path, strerror(errno));
        return NULL;
    }
    p = map;
    memset(p, 0, sizeof *p); /* magic 0: not a page until set */
    *ctl = open_ctl(dir);
    p->ltid = ltid;
    p->pid = (int32_t)syscall(SYS_getpid); /* the real one */
    if (hold && !all_go(*ctl)) /* -hold */
        p->pause = p->gate = 1;
    __atomic_store_n(&p->magic, PG_LIVE_MAGIC, __ATOMIC_SEQ_CST);
    /* "resume all" said between the test above and the page showing (it
     * then let go only the tasks it saw): this one goes too */
    if (p->pause && all_go(*ctl))
        p->pause = p->gate = 0;
    return p;
}

/* ---- breakpoints ---------------------------------------------------------- */

/* want names call, whole or without its front end's prefix ("send" for
 * "pvm_send", "Recv" for "MPI_Recv"). */
static int call_is(const char *want, const char *call)
{
    const char *bare = strchr(call, '_');

    if (!want[0] || !strcmp(want, call))
        return 1;
    return bare && !strcmp(want, bare + 1);
}

static int object_site(void *pc, char *file, int fsize, char *func,
                       int nsize, int *line)
{
    char path[4096];
    uintptr_t off;

    if (!pc || pg_site_locate(pc, path, sizeof path, &off) < 0)
        return -1;
    pg_site_parts(path, (long)off, file, fsize, func, nsize, line);
    return 0;
}

/* The call made at pc is at site, FILE:LINE or a function's name.  The
 * names of the last few call sites are kept (a lookup in the debug
 * information is not made again at each pass of a loop). */
static int site_is(const char *site, void *pc, pg_live_site_fn parts)
{
    static struct { void *pc; char file[256], func[256]; int line; } seen[8];
    static unsigned next;
    char at[300];
    unsigned i;

    for (i = 0; i < 8 && seen[i].pc != pc; i++)
        ;
    if (i == 8) {
        i = next++ % 8;
        if ((parts ? parts : object_site)(pc, seen[i].file,
                                          sizeof seen[i].file, seen[i].func,
                                          sizeof seen[i].func,
                                          &seen[i].line) < 0)
            return 0;
        seen[i].pc = pc;
    }
    if (!strchr(site, ':'))
        return !strcmp(site, seen[i].func);
    snprintf(at, sizeof at, "%s:%d", seen[i].file, seen[i].line);
    return seen[i].line > 0 && !strcmp(site, at);
}

/* Breakpoint b matches the call: counts the match; 1 when it stops. */
static int bp_hit(struct pg_live_bp *b, const struct pg_live_call *c,
                  pg_live_site_fn parts, char *why, size_t len)
{
    int n;

    if (b->id <= 0 || (b->ltid != PG_LIVE_ANY && b->ltid != c->ltid) ||
        !call_is(b->call, c->call) ||
        (b->peer != PG_LIVE_ANY && b->peer != c->peer) ||
        (b->tag != PG_LIVE_ANY && b->tag != c->tag) ||
        (b->size != PG_LIVE_ANY && b->size != c->size) ||
        (b->site[0] && !site_is(b->site, c->pc, parts)))
        return 0;
    n = __atomic_add_fetch(&b->count, 1, __ATOMIC_SEQ_CST);
    if (b->hits > 0 && n != b->hits)
        return 0;
    snprintf(why, len, "breakpoint %d (match %d)", b->id, n);
    return 1;
}

/* ---- holding -------------------------------------------------------------- */

int pg_live_stops(struct pg_live_pos *p, struct pg_live_ctl *ctl,
                  const struct pg_live_call *c, pg_live_site_fn site,
                  char *why, size_t len)
{
    char hit[64];
    int i, n;

    why[0] = 0;
    if (p->runto > 0 && c->at >= p->runto) {
        snprintf(why, len, "run-to event %ld", (long)p->runto);
        p->runto = 0;
        p->pause = p->gate = 1;
    }
    n = ctl ? ctl->nbp : 0;
    for (i = 0; i < n && i < PG_LIVE_BPS; i++) /* each counts its match */
        if (bp_hit(&ctl->bp[i], c, site, hit, sizeof hit)) {
            if (!why[0]) /* the first reason says why */
                snprintf(why, len, "%s", hit);
            p->steps = 0; /* a breakpoint ends a step */
            p->pause = p->gate = 1;
        }
    if (!p->pause)
        return 0;
    if (p->steps > 0 && !why[0]) { /* a step: this call, then wait again */
        __atomic_sub_fetch(&p->steps, 1, __ATOMIC_SEQ_CST);
        return 0;
    }
    return 1;
}

void pg_live_publish(struct pg_live_pos *p, const struct pg_live_call *c,
                     long next, const char *why, const char *where,
                     const char *args)
{
    snprintf(p->call, sizeof p->call, "%s", c->call);
    snprintf(p->why, sizeof p->why, "%s", why);
    snprintf(p->args, sizeof p->args, "%s", args);
    snprintf(p->site, sizeof p->site, "%s", where);
    p->next = next;
    p->peer = c->peer;
    p->tag = c->tag;
    p->size = c->size;
    p->at = c->at;
    p->ncand = 0;
    p->holds++;
    __atomic_store_n(&p->held, 1, __ATOMIC_RELEASE);
}

static void nap_ms(long ms)
{
    struct timespec t = { 0, ms * 1000000L };

    nanosleep(&t, NULL);
}

void pg_live_wait(struct pg_live_pos *p, void (*tick)(void *), void *arg)
{
    int n = 0;

    while (p->pause && p->steps <= 0) {
        if (tick && n++ % 100 == 0)
            tick(arg);
        nap_ms(1);
    }
    if (p->pause)
        __atomic_sub_fetch(&p->steps, 1, __ATOMIC_SEQ_CST);
}

void pg_live_release(struct pg_live_pos *p)
{
    __atomic_store_n(&p->held, 0, __ATOMIC_RELEASE);
}
