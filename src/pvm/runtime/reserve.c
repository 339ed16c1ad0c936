/*
 * reserve.c - replay of a race-only recording: the messages reserved for
 * the receives it kept.
 *
 * `pangaea -min` (src/cli/analysis/minimize.c) leaves a racing receive out of
 * the log when every message it could have taken instead is one a later
 * kept receive takes: the order follows from those.  In replay such a
 * message must not be taken by a receive the log left out, so the task
 * reads its whole race-only log once when the replay opens (it is short:
 * the kept receives), and keeps the sender ltid and message id of every
 * kept receive (probes take nothing: not theirs) until that receive takes
 * it.  The matcher (replay.c) refuses them to left-out receives.
 *
 * The matcher sees a sender's tid, and may not ask the coordinator: a tid
 * the task knows already (it spawned that task, or asked before) is taken
 * from its own table (pg_ltid_cached); a message from another tid, when some
 * reserved sender's tid is not known either and that sender has a reserved
 * message with this id, is refused and noted, and the receive learns the
 * tids and the noted tids' ltids (pg_reserve_learn) and tries again: a
 * tid of no reserved sender is never refused again.  Once a tid's message
 * is refused so, every later message of that tid is refused too until the
 * tids are learnt: PVM walks its queue in arrival order, and a later
 * message of the same sender taken in the same walk would break the
 * per-sender order the pruning relies on (the left-out receive must take
 * the OLDEST message its filter admits).  A hash table on (ltid, id).
 */
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

struct slot {
    int ltid, msgid, state; /* state 0 free, 1 reserved, 2 taken */
};
struct sender {
    int ltid, tid; /* tid 0: not known yet */
};

static struct slot *tab;
static size_t cap, used;
static struct sender *senders;
static int nsenders, nsend_cap;
static int unknown_seen; /* a message was refused for want of a tid */
#define NOTED 64
static int noted[NOTED], nnoted; /* those tids, to learn the ltids of */
static int *others, nothers, others_cap; /* tids of no reserved sender */

static size_t hash(int ltid, int msgid)
{
    uint64_t k = (uint64_t)(uint32_t)ltid << 32 | (uint32_t)msgid;

    k *= 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 20) & (cap - 1);
}

static struct slot *find(int ltid, int msgid)
{
    size_t i;

    if (!cap)
        return NULL;
    for (i = hash(ltid, msgid); tab[i].state; i = (i + 1) & (cap - 1))
        if (tab[i].ltid == ltid && tab[i].msgid == msgid)
            return &tab[i];
    return NULL;
}

static int grow(void)
{
    struct slot *old = tab;
    size_t n = cap, i;

    cap = cap ? 2 * cap : 256;
    tab = calloc(cap, sizeof *tab);
    if (!tab)
        return -1;
    for (i = 0; i < n; i++)
        if (old[i].state) {
            size_t j = hash(old[i].ltid, old[i].msgid);

            while (tab[j].state)
                j = (j + 1) & (cap - 1);
            tab[j] = old[i];
        }
    free(old);
    return 0;
}

static int add_sender(int ltid)
{
    int i;

    for (i = 0; i < nsenders; i++)
        if (senders[i].ltid == ltid)
            return 0;
    if (nsenders == nsend_cap) {
        struct sender *more;

        nsend_cap = nsend_cap ? 2 * nsend_cap : 16;
        more = realloc(senders, (size_t)nsend_cap * sizeof *senders);
        if (!more)
            return -1;
        senders = more;
    }
    senders[nsenders++] = (struct sender){ ltid, 0 };
    return 0;
}

static int add(int ltid, int msgid)
{
    size_t i;

    if (find(ltid, msgid))
        return 0;
    if ((used + 1) * 2 > cap && grow() < 0)
        return -1;
    for (i = hash(ltid, msgid); tab[i].state; i = (i + 1) & (cap - 1))
        ;
    tab[i] = (struct slot){ ltid, msgid, 1 };
    used++;
    return add_sender(ltid);
}

int pg_reserve_load(const char *path, pg_err *err)
{
    pg_logr *r = pg_logr_open(path, PG_LOG_COMM, NULL, err);
    pg_event ev;
    int rc;

    if (!r)
        return -1;
    while ((rc = pg_logr_next(r, &ev, err)) == 1)
        if (ev.kind == PG_EV_RECV && strcmp(ev.call, "pvm_probe") &&
            add(ev.from, ev.msgid) < 0) {
            rc = pg_err_set(err, "out of memory");
            break;
        }
    pg_logr_close(r);
    return rc < 0 ? -1 : 0;
}

void pg_reserve_take(int ltid, int msgid)
{
    struct slot *s = find(ltid, msgid);

    if (s)
        s->state = 2;
}

static int reserved(int ltid, int msgid)
{
    const struct slot *s = find(ltid, msgid);

    return s && s->state == 1;
}

/* True if tid was refused for want of its ltid since the last learning
 * (or too many were to note them all: then every unknown tid is). */
static int refused_unknown(int tid)
{
    int i;

    for (i = 0; i < nnoted; i++)
        if (noted[i] == tid)
            return 1;
    return nnoted == NOTED;
}

static void other(int tid);

/* tid is ltid's, as this task knows without asking: remembered. */
static int known(int tid, int ltid, int msgid)
{
    int i;

    for (i = 0; i < nsenders; i++)
        if (senders[i].ltid == ltid) {
            senders[i].tid = tid;
            return reserved(ltid, msgid);
        }
    other(tid);
    return 0;
}

int pg_reserved(int tid, int msgid)
{
    int i, ltid, unknown = 0;

    if (!used || msgid <= 0)
        return 0;
    for (i = 0; i < nsenders; i++)
        if (senders[i].tid == tid)
            return reserved(senders[i].ltid, msgid);
    for (i = 0; i < nothers; i++)
        if (others[i] == tid)
            return 0;
    if (refused_unknown(tid)) /* its older message waits: keep the order */
        return 1;
    if (pg_ltid_cached(tid, &ltid)) /* known here already: no asking */
        return known(tid, ltid, msgid);
    for (i = 0; i < nsenders; i++) /* a tid of a sender not known yet? */
        unknown |= !senders[i].tid && reserved(senders[i].ltid, msgid);
    if (unknown) {
        unknown_seen = 1;
        noted[nnoted++] = tid; /* not noted yet, and there is room */
    }
    return unknown;
}

/* tid is no reserved sender's: its messages are never refused again. */
static void other(int tid)
{
    if (nothers == others_cap) {
        int *more;

        others_cap = others_cap ? 2 * others_cap : 16;
        more = realloc(others, (size_t)others_cap * sizeof *others);
        if (!more)
            return; /* asked again next time */
        others = more;
    }
    others[nothers++] = tid;
}

/* Asks the coordinator the ltids of the tids noted, and the tids of the
 * reserved senders not known yet. */
int pg_reserve_learn(void)
{
    int i, j, tid, ltid;

    if (!unknown_seen)
        return 0;
    unknown_seen = 0;
    for (i = 0; i < nsenders; i++)
        if (!senders[i].tid && (tid = pg_tid_of(senders[i].ltid)) > 0)
            senders[i].tid = tid;
    for (j = 0; j < nnoted; j++) {
        ltid = pg_ltid_of(noted[j]);
        for (i = 0; i < nsenders && senders[i].ltid != ltid; i++)
            ;
        if (i < nsenders && ltid >= 0)
            senders[i].tid = noted[j];
        else
            other(noted[j]);
    }
    nnoted = 0;
    return 1;
}

void pg_reserve_free(void)
{
    free(tab);
    free(senders);
    free(others);
    tab = NULL;
    senders = NULL;
    others = NULL;
    cap = used = 0;
    nsenders = nsend_cap = nothers = others_cap = nnoted = 0;
    unknown_seen = 0;
}
