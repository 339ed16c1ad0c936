/*
 * chaos.c - receive-side perturbation for `pangaea -chaos`.
 *
 * Design.  Rare message orders are found by making legal PVM behaviours
 * that free runs seldom show, only on the receiving side, in a recorded
 * run (so whatever a chaos run finds replays like any recording):
 *  - a random delay before a receive (more messages arrive meanwhile),
 *    up to 5, 50 or 250 ms depending on the run's seed, for the task's
 *    first 32 receives, then shrinking as 32/k at its k-th: a task's
 *    delays add up to a few times 32 of the longest however many
 *    receives it makes (2000 receives: about 4.6x32, not 2000x), so a
 *    long run is not slowed past any time limit; a blocking
 *    receive waits for a first message it would take before its delay;
 *  - a random choice among the messages already queued that the receive
 *    would accept, per sender only the first in the queue: a first pass
 *    through PVM's queue (pvm_nrecv with our matcher saying no to
 *    everything) collects them, the receive then accepts only the one
 *    drawn.  PVM keeps each sender's messages in order (README, "What-if
 *    runs"): a receive never takes a sender's later message while an
 *    earlier one it accepts is queued, so a later one is no choice.  The queue is in arrival order,
 *    so its first message of a sender is the one PVM would hand over even
 *    where a route switch did reorder that pair's messages;
 *  - a poll (pvm_nrecv, pvm_probe) that finds nothing although something
 *    is queued, as if it had not arrived yet.
 * PANGAEA_CHAOS holds the run's seed; each task draws from its own
 * generator seeded with it and its ltid, so a run is repeatable as far as
 * timing allows (the seed is printed per run).  The matcher (replay.c)
 * asks pg_chaos_match about every message it would accept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "pg_internal.h"

#define CHAOS_MAX_QUEUED 256
/* A run's delays are up to one of these (by its seed): short ones reorder
 * messages already on their way, long ones let slow senders overtake. */
static const long scales_ns[] = { 5000000L, 50000000L, 250000000L };

enum phase { OFF, COLLECT, PICK };

static struct {
    int on;
    uint64_t state;
    enum phase phase;
    int bufids[CHAOS_MAX_QUEUED], n;
    int srcs[CHAOS_MAX_QUEUED];  /* the sender of each (its tid) */
    int pick;
    long scale_ns;   /* this run's longest delay */
    long receives;   /* receives delayed so far (the delays shrink) */
} chaos;

/* xorshift64*: small, and the same sequence on every host. */
static uint32_t draw(void)
{
    chaos.state ^= chaos.state >> 12;
    chaos.state ^= chaos.state << 25;
    chaos.state ^= chaos.state >> 27;
    return (uint32_t)((chaos.state * 2685821657736338717ULL) >> 32);
}

int pg_chaos_load(void)
{
    const char *s = getenv(PG_ENV_CHAOS);
    char *end;
    unsigned long long seed;

    if (!s || !*s)
        return 0;
    seed = strtoull(s, &end, 10);
    if (*end)
        pg_fatal("PANGAEA_CHAOS must be a seed (a number), not \"%.40s\"", s);
    chaos.state = (seed + 1) * 0x9E3779B97F4A7C15ULL ^
                  ((uint64_t)pg.ltid * 0xBF58476D1CE4E5B9ULL);
    if (!chaos.state)
        chaos.state = 1;
    chaos.scale_ns = scales_ns[seed % 3];
    chaos.on = 1;
    return 1;
}

static void random_delay(void)
{
    struct timespec nap = { 0, 0 };
    long most = chaos.scale_ns;

    if (draw() % 4 == 0)
        return; /* three receives in four wait */
    if (++chaos.receives > 32)
        most = (long)((double)most * 32 / (double)chaos.receives);
    nap.tv_nsec = most > 1 ? (long)(draw() % (uint32_t)most) : 0;
    nanosleep(&nap, NULL);
}

/* The queued messages the receive would accept, into chaos.bufids.  One
 * pvm_nrecv reads the socket once (its mroute), so the passes go on while
 * they find more: what has arrived is all seen. */
static void collect(int tid, int tag)
{
    int pass, before;

    chaos.phase = COLLECT;
    chaos.n = 0;
    for (pass = 0; pass < 8; pass++) {
        before = chaos.n;
        pg_real.nrecv(tid, tag); /* the matcher takes nothing: it collects */
        if (pass > 0 && chaos.n == before)
            break;
    }
    chaos.phase = OFF;
}

/* A blocking receive first waits for a message it would take, without
 * taking it: the delay then runs from that arrival, which is when other
 * messages can still overtake it. */
static void wait_first(int tid, int tag)
{
    struct timespec nap = { 0, 500000L };

    while (pg_real.probe(tid, tag) == 0)
        nanosleep(&nap, NULL);
}

int pg_chaos_before(int how, int tid, int tag)
{
    if (!chaos.on)
        return 0;
    if (how == PG_CHAOS_BLOCK)
        wait_first(tid, tag);
    random_delay();
    if ((how == PG_CHAOS_POLL || how == PG_CHAOS_PROBE) && draw() % 4 == 0)
        return 1; /* "not arrived yet" */
    if (how == PG_CHAOS_PROBE)
        return 0; /* a first pass would free the receive buffer */
    collect(tid, tag);
    if (chaos.n > 1) {
        chaos.pick = chaos.bufids[draw() % (uint32_t)chaos.n];
        chaos.phase = PICK;
    }
    return 0;
}

void pg_chaos_after(void)
{
    chaos.phase = OFF;
}

/* Collecting: bufid, accepted, joins the choices unless it was seen in an
 * earlier pass or its sender has an older message among them (the queue
 * is walked in arrival order, every pass from its head). */
static void collect_one(int bufid)
{
    struct pvmminfo mi;
    int src, i;

    if (pvm_getminfo(bufid, &mi) < 0)
        return;
    src = mi.src;
    for (i = 0; i < chaos.n; i++)
        if (chaos.bufids[i] == bufid || chaos.srcs[i] == src)
            return;
    if (chaos.n < CHAOS_MAX_QUEUED) {
        chaos.srcs[chaos.n] = src;
        chaos.bufids[chaos.n++] = bufid;
    }
}

int pg_chaos_match(int bufid, int cc)
{
    switch (chaos.phase) {
    case COLLECT:
        if (cc > 0)
            collect_one(bufid);
        return 0;
    case PICK:
        return cc > 0 && bufid == chaos.pick;
    default:
        return cc;
    }
}

/* ---- the same two passes for the live view's choice (gate.c) ------------- */

int pg_chaos_queued(int tid, int tag, int *bufids, int max)
{
    int i, n;

    collect(tid, tag); /* the caller says whose matcher (pg_app_recv) */
    n = chaos.n < max ? chaos.n : max;
    for (i = 0; i < n; i++)
        bufids[i] = chaos.bufids[i];
    return n;
}

void pg_chaos_force(int bufid)
{
    chaos.pick = bufid;
    chaos.phase = PICK;
}
