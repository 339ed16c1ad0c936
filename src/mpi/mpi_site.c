/*
 * mpi_site.c - the call site of each event of an MPI rank: what
 * `pangaea -races` names ("at prog.c:57"), as for a PVM task.
 *
 * Design.  As the PVM runtime's call sites (src/pvm/runtime/callsite.c,
 * whose way this follows; the front ends share no runtime code): each
 * wrapper the program calls notes its return address (PGM_SITE(),
 * pg_mpi.h); the log functions ask pgm_site() for the site's id, which
 * is written once, as a <site id= module= offset=> event before its first
 * use, with the address made relative to the object it lies in (programs
 * may be position-independent), for the command to resolve from the
 * object's debug information.  A small open-addressing table on the
 * address: a loop costs one lookup per event, or none for the last two
 * sites asked for (a ping-pong's two calls).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pg_mpi.h"

struct site {
    void *pc;
    int id;
};
static struct site *tab;
static size_t cap, used;
static int last_id;


static struct site *slot(struct site *t, size_t n, void *pc)
{
    size_t i = ((uintptr_t)pc >> 2) * 0x9E3779B97F4A7C15ull >> 7 & (n - 1);

    while (t[i].pc && t[i].pc != pc)
        i = (i + 1) & (n - 1);
    return &t[i];
}

static int grow(void)
{
    size_t n = cap ? 2 * cap : 64, i;
    struct site *t = calloc(n, sizeof *t);

    if (!t)
        return -1;
    for (i = 0; i < cap; i++)
        if (tab[i].pc)
            *slot(t, n, tab[i].pc) = tab[i];
    free(tab);
    tab = t;
    cap = n;
    return 0;
}

int pgm_site_known(void *pc)
{
    return pc && cap && slot(tab, cap, pc)->pc == pc;
}

/* The last two sites asked for: a loop alternates between a few calls
 * (a ping-pong's send and receive), found here without hashing. */
static struct site recent[2];
static int older; /* recent's entry replaced next */

static int seen(const struct site *s)
{
    recent[older] = *s;
    older ^= 1;
    return s->id;
}

/* A site not among the recent ones: looked up, or written the first
 * time (apart: its module's path makes a big frame, which the hot path
 * need not set up). */
static __attribute__((noinline)) int site_lookup(void)
{
    char module[PATH_MAX];
    uintptr_t off;
    struct site *s;

    if (!pgm.pc || (2 * (used + 1) > cap && grow() < 0))
        return 0;
    s = slot(tab, cap, pgm.pc);
    if (s->pc)
        return seen(s);
    if (pg_site_locate(pgm.pc, module, sizeof module, &off) < 0 || off > INT32_MAX ||
        pg_logw_site(pgm.comm, pgm_now(), last_id + 1, module,
                     (int)off) < 0)
        return 0; /* an unknown site: the event says none */
    *s = (struct site){ pgm.pc, ++last_id };
    used++;
    return seen(s);
}

int pgm_site(void)
{
    if (pgm.pc && recent[0].pc == pgm.pc)
        return recent[0].id;
    if (pgm.pc && recent[1].pc == pgm.pc)
        return recent[1].id;
    return site_lookup();
}
