/*
 * live_mpi.c - the message ids of an MPI run's receives, as the live view
 * shows them while the run is recorded.
 *
 * Design.  A rank writes a receive's msgid as "the k-th message of this
 * tag from this sender on this communicator" (it cannot know the
 * sender's count), and pangaea renumbers the logs after the run
 * (src/cli/run/mpi_ids.c: the k-th send of sender S to receiver R with
 * tag T on communicator C gives the msgid).  The live view reads the logs
 * while the ranks write them, so it renumbers the same way as it reads
 * (live_snap.c): every send it reads is noted under (S, R, C, T) in the
 * sender's order (lv_mpi_send), and a receive's k is looked up there
 * (lv_mpi_id).  C is the model's index of the context (races.h,
 * rc_ev.ctx), the same for a send and the receive that took it.  A
 * receive read before its send (the receiver wrote first: a send's event
 * is written once MPI_Send returns) waits in the snapshot until the send
 * is read.  One open-addressing table on (S, R, C, T), doubling when half
 * full, each with the msgids in order.
 */
#include <stdint.h>
#include <stdlib.h>

#include "live.h"
#include "pg_grow.h"

struct chan {
    int used, s, r, ctx, tag;
    int *ids;
    size_t n, cap;
};

static struct chan *tab;
static size_t cap, used;

static size_t hash(int s, int r, int ctx, int tag)
{
    uint64_t h = (uint64_t)(unsigned)s * 0x9E3779B97F4A7C15ull ^
                 (uint64_t)(unsigned)r * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)(unsigned)ctx * 0x27D4EB2F165667C5ull ^
                 (uint64_t)(unsigned)tag * 0x165667B19E3779F9ull;

    return (size_t)(h ^ h >> 29);
}

static struct chan *find(struct chan *t, size_t n, int s, int r, int ctx,
                         int tag)
{
    size_t i = hash(s, r, ctx, tag) & (n - 1);

    while (t[i].used && !(t[i].s == s && t[i].r == r && t[i].ctx == ctx &&
                          t[i].tag == tag))
        i = (i + 1) & (n - 1);
    return &t[i];
}

static int grow(void)
{
    size_t n = cap ? 2 * cap : 64, i;
    struct chan *t = calloc(n, sizeof *t);

    if (!t)
        return -1;
    for (i = 0; i < cap; i++)
        if (tab[i].used)
            *find(t, n, tab[i].s, tab[i].r, tab[i].ctx, tab[i].tag) = tab[i];
    free(tab);
    tab = t;
    cap = n;
    return 0;
}

int lv_mpi_send(int s, int r, int ctx, int tag, int msgid)
{
    struct chan *c;

    if (2 * (used + 1) > cap && grow() < 0)
        return -1;
    c = find(tab, cap, s, r, ctx, tag);
    if (!c->used) {
        *c = (struct chan){ 1, s, r, ctx, tag, NULL, 0, 0 };
        used++;
    }
    if (pg_grow(&c->ids, &c->cap, c->n + 1, sizeof *c->ids) < 0)
        return -1;
    c->ids[c->n++] = msgid;
    return 0;
}

int lv_mpi_id(int s, int r, int ctx, int tag, int k)
{
    struct chan *c;

    if (!cap || k < 1)
        return -1;
    c = find(tab, cap, s, r, ctx, tag);
    return c->used && (size_t)k <= c->n ? c->ids[k - 1] : -1;
}

void lv_mpi_free(void)
{
    size_t i;

    for (i = 0; i < cap; i++)
        free(tab[i].ids);
    free(tab);
    tab = NULL;
    cap = used = 0;
}
