/*
 * replay_index.c - the messages a replaying task has taken out of PVM's
 * queue, by (sender tid, message id).
 *
 * A replayed receive wants one message, named by its sender and message
 * id.  Left in PVM's queue, every receive would make PVM walk the whole
 * queue, calling the matcher on each message, while the senders run ahead:
 * with 64 senders, ~130 calls a receive.  So a full replay takes every
 * message of the program's context out of PVM's queue as it comes (a
 * receive that accepts anything, then pvm_setrbuf(0), which detaches the
 * buffer without freeing it: docs/pvm-notes.md) and keeps its
 * buffer id here; the replayed receive finds the recorded one in O(1).
 *
 * The table is open addressing with linear probing, deleted by backward
 * shift (no tombstones), grown at half full.  A key is never 0: a task's
 * tid is > 0 and a message id >= 1.  It knows nothing of PVM: the caller
 * (wrap_recv.c) takes the messages and hands them over.  A receive the
 * replay does not follow (tags outside a selection, a region the program
 * suspended Pangaea in) must still see them: pg_rxi_pick chooses among
 * them as PVM would among its queue.
 *
 * bufid.c moves a message to the buffer id it had when recorded, and asks
 * which message holds an id: `where` answers in O(1) (an entry's slot by
 * its buffer id, kept as entries move), so a replayed receive costs the
 * same with 64 senders' messages kept as with 8.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pg_grow.h"
#include "pg_internal.h"

struct entry {
    uint64_t key; /* 0: free */
    int bufid, len;
    unsigned seq; /* arrival order, for receives PVM would match */
};

static struct entry *tab;
static size_t cap, used; /* cap: a power of two, or 0 */
static unsigned next_seq;
static size_t *where;   /* where[bufid]: its entry's slot + 1; 0: none */
static size_t nwhere;   /* room in where */

/* Room in `where` for buffer id b (an id is > 0: PVM's table index). */
static int where_room(int b)
{
    size_t had = nwhere, i;

    if (b < 0)
        return -1;
    if ((size_t)b < nwhere)
        return 0;
    if (pg_grow((void **)&where, &nwhere, (size_t)b + 1, sizeof *where) < 0)
        return -1;
    for (i = had; i < nwhere; i++)
        where[i] = 0;
    return 0;
}

/* The entry at slot i: where its buffer id finds it. */
static void placed(size_t i)
{
    where[tab[i].bufid] = i + 1;
}

static uint64_t key_of(int src, int msgid)
{
    return (uint64_t)(uint32_t)src << 32 | (uint32_t)msgid;
}

static size_t slot_of(uint64_t key)
{
    key *= 0x9e3779b97f4a7c15ull; /* Fibonacci hashing: the top bits */
    return (size_t)(key >> 32) & (cap - 1);
}

static int grow(void)
{
    struct entry *old = tab;
    size_t n = cap, i, j;

    cap = cap ? cap * 2 : 256;
    if (!(tab = calloc(cap, sizeof *tab))) {
        tab = old, cap = n;
        return -1;
    }
    for (i = 0; i < n; i++)
        if (old[i].key) {
            for (j = slot_of(old[i].key); tab[j].key; j = (j + 1) & (cap - 1))
                ;
            tab[j] = old[i];
            placed(j);
        }
    free(old);
    return 0;
}

static struct entry *find(int src, int msgid)
{
    uint64_t key = key_of(src, msgid);
    size_t i;

    if (!cap)
        return NULL;
    for (i = slot_of(key); tab[i].key; i = (i + 1) & (cap - 1))
        if (tab[i].key == key)
            return &tab[i];
    return NULL;
}

int pg_rxi_find(int src, int msgid, int *len)
{
    struct entry *e = find(src, msgid);

    if (!e)
        return 0;
    if (len)
        *len = e->len;
    return e->bufid;
}

int pg_rxi_put(int src, int msgid, int bufid, int len)
{
    uint64_t key = key_of(src, msgid);
    size_t i;

    if (where_room(bufid) < 0 || ((used + 1) * 2 > cap && grow() < 0))
        return -1;
    for (i = slot_of(key); tab[i].key && tab[i].key != key;
         i = (i + 1) & (cap - 1))
        ;
    if (!tab[i].key)
        used++;
    else
        where[tab[i].bufid] = 0;
    tab[i] = (struct entry){ key, bufid, len, next_seq++ };
    placed(i);
    return 0;
}

/* PVM's choice among queued messages, over the index: in arrival order,
 * the first the matcher gives 1, else the first of the highest verdict
 * above 0.  A scan of the whole table: only receives the replay does not
 * follow (a selection, a suspended region) come here. */
int pg_rxi_pick(int (*match)(int bufid, int tid, int tag), int tid, int tag,
                int *src, int *msgid)
{
    size_t i, best = cap;
    int v, bestv = 0;

    for (i = 0; i < cap; i++) {
        if (!tab[i].key || (v = match(tab[i].bufid, tid, tag)) <= 0)
            continue;
        if (best == cap || (v == 1 && (bestv != 1 || tab[i].seq < tab[best].seq)) ||
            (bestv != 1 && (v > bestv || (v == bestv && tab[i].seq < tab[best].seq))))
            best = i, bestv = v;
    }
    if (best == cap)
        return 0;
    *src = (int)(tab[best].key >> 32);
    *msgid = (int)(uint32_t)tab[best].key;
    return tab[best].bufid;
}

/* Backward-shift deletion: the entries after the hole that would be found
 * through it move back, so a probe still stops only at a free slot. */
static void del_at(struct entry *e)
{
    size_t hole = (size_t)(e - tab), i, home;

    where[e->bufid] = 0;
    for (i = (hole + 1) & (cap - 1); tab[i].key; i = (i + 1) & (cap - 1)) {
        home = slot_of(tab[i].key);
        /* moves back unless its home lies cyclically in (hole, i] */
        if ((i > hole && (home <= hole || home > i)) ||
            (i < hole && home <= hole && home > i)) {
            tab[hole] = tab[i];
            placed(hole);
            hole = i;
        }
    }
    tab[hole].key = 0;
    used--;
}

void pg_rxi_del(int src, int msgid)
{
    struct entry *e = find(src, msgid);

    if (e)
        del_at(e);
}

/* pg_rxi_find and pg_rxi_del in one probe: a replayed receive whose
 * message came early takes it so. */
int pg_rxi_take(int src, int msgid, int *len)
{
    struct entry *e = find(src, msgid);
    int bufid;

    if (!e)
        return 0;
    bufid = e->bufid;
    if (len)
        *len = e->len;
    del_at(e);
    return bufid;
}

/* bufid.c moves a message to its recorded buffer id (only when the id
 * PVM gave differs from the recorded one). */
int pg_rxi_has_bufid(int bufid)
{
    return bufid >= 0 && (size_t)bufid < nwhere && where[bufid] != 0;
}

void pg_rxi_swap_bufid(int a, int b)
{
    size_t sa, sb;

    if (where_room(a) < 0 || where_room(b) < 0)
        pg_fatal("out of memory moving buffer id %d to %d", a, b);
    sa = where[a], sb = where[b];
    if (sa)
        tab[sa - 1].bufid = b;
    if (sb)
        tab[sb - 1].bufid = a;
    where[a] = sb, where[b] = sa;
}

size_t pg_rxi_count(void)
{
    return used;
}

void pg_rxi_clear(void)
{
    free(tab);
    free(where);
    tab = NULL;
    where = NULL;
    cap = used = nwhere = 0;
}
