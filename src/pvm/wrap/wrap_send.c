/*
 * wrap_send.c - pvm_send, pvm_mcast, pvm_psend.
 *
 * All three become one path: check the send against the recording (replay),
 * mark the message with the next message id (header.c), log it (recording;
 * before the real call, see record.c), send it with the real call.  A multicast is one message: one id, one event,
 * naming every ltid it reached (PVM skips duplicates and the sender).
 * In replay a send to a task outside the run is checked but not made
 * (outside.c): that task's answers come from the log.
 * A send PVM refuses on its arguments alone (a negative tag, a destination
 * that is no task's tid, such as pvm_parent()'s PvmNoParent) fails with
 * PvmBadParam before any traffic, in every run alike: it is no event, so
 * it is neither logged nor checked, only handed to PVM to fail again.
 */
#include <stdlib.h>
#include <string.h>

#include "live_pos.h"
#include "pg_internal.h"

struct dest {
    int *tids;
    int n;
    int tag;
    int mcast;
    char *group;    /* pvm_bcast: the group; the real call then sends */
};

static int real_send(void *arg)
{
    struct dest *d = arg;

    if (d->group)
        return pg_real.bcast(d->group, d->tag);
    return d->mcast ? pg_real.mcast(d->tids, d->n, d->tag)
                    : pg_real.send(d->tids[0], d->tag);
}

/* The destinations a multicast really reaches, in the program's order. */
static int reached(const int *tids, int n, int *out)
{
    int i, j, k = 0;

    for (i = 0; i < n; i++) {
        if (tids[i] == pg.tid)
            continue;
        for (j = 0; j < k && out[j] != tids[i]; j++)
            ;
        if (j == k)
            out[k++] = tids[i];
    }
    return k;
}

/* PVM's own test of a task id (TIDISTASK in its sources): positive, not
 * a group or multicast address, a non-zero task part. */
static int is_task_tid(int tid)
{
    return tid > 0 && !(tid & 0x40000000) && (tid & 0x3ffff) != 0;
}

/* True if PVM refuses this send on its arguments (see the file comment). */
static int refused(const int *tids, int n, int tag)
{
    int i;

    if (tag < 0)
        return 1;
    for (i = 0; i < n; i++)
        if (!is_task_tid(tids[i]))
            return 1;
    return 0;
}

static int send_common(const char *call, int *tids, int n, int tag, int mcast,
                       char *group)
{
    struct dest d = { tids, n, tag, mcast, group };
    int small[64], *to = n <= 64 ? small : malloc(n * sizeof *to);
    int nto, bytes, cc, selected, msgid, body, outside = -1;
    struct pvmminfo mi;

    if (!to)
        pg_fatal("out of memory");
    if (!group && refused(tids, n, tag)) {
        ++pg.next_msgid; /* as before: recordings of such sends stay valid */
        cc = real_send(&d);
        goto out;
    }
    pg_mhf_sync(); /* handlers due first (wrap_mhf.c) */
    nto = mcast ? reached(tids, n, to) : 1;
    if (!mcast)
        to[0] = tids[0];
    selected = pg_selected(tag);
    body = pg_hdr_body(&mi); /* one look at the buffer: its bytes, its wid */
    bytes = body ? mi.len : 0;
    if ((pg.mode == PANGAEA_REPLAY || pg_replay_steers()) && selected)
        outside = pg_replay_send(call, tag, bytes, nto, to); /* what-if too */
    msgid = ++pg.next_msgid;
    if (pg.mode == PANGAEA_LOG && selected && pvmmyctx)
        pg_context_note(pvmmyctx); /* the message's (wrap_context.c) */
    if (pg.mode == PANGAEA_LOG && selected)
        pg_record_send(call, tag, msgid, bytes, nto, to);
    /* A send to one task, checked against the recording, reaches a task
     * of the run unless it was recorded outside: nothing to drop. */
    if (pg.mode == PANGAEA_REPLAY && selected && !group &&
        (mcast || outside != 0) &&
        (d.n = pg_outside_drop(tids, n, &d.tids)) == 0)
        cc = 0; /* only to tasks outside the run: checked, not sent */
    else
        cc = pg_hdr_send(body, &mi, msgid, real_send, &d);
    if (d.tids != tids)
        free(d.tids);
    if (cc < 0 && pg.mode == PANGAEA_LOG && selected)
        pg_record_unsend();
out:
    if (to != small)
        free(to);
    return cc;
}

int pvm_send(int tid, int tag)
{
    int cc;

    PG_RETURN_REAL_UNLESS_AT(send, pg_app_call_tag(tag), pg_real.send(tid, tag), tid,
                             tag, -1, NULL);
    PG_SITE(send);
    PG_ENTER();
    cc = send_common("pvm_send", &tid, 1, tag, 0, NULL);
    PG_LEAVE();
    return cc;
}

int pvm_mcast(int *tids, int n, int tag)
{
    int cc;

    PG_RETURN_REAL_UNLESS_AT(mcast, pg_app_call() && n > 0,
                             pg_real.mcast(tids, n, tag), n == 1 ? tids[0] : -1,
                             tag, -1, "%d tasks", n);
    PG_SITE(mcast);
    PG_ENTER();
    cc = send_common("pvm_mcast", tids, n, tag, 1, NULL);
    PG_LEAVE();
    return cc;
}

int pg_send_bcast(char *group, int *tids, int n, int tag)
{
    return send_common("pvm_bcast", tids, n, tag, 1, group);
}

int pg_type_size(int type)
{
    switch (type) {
    case PVM_STR:
    case PVM_BYTE: return 1;
    case PVM_SHORT:
    case PVM_USHORT: return sizeof(short);
    case PVM_INT:
    case PVM_UINT: return sizeof(int);
    case PVM_LONG:
    case PVM_ULONG: return sizeof(long);
    case PVM_FLOAT: return sizeof(float);
    case PVM_CPLX: return 2 * sizeof(float);
    case PVM_DOUBLE: return sizeof(double);
    case PVM_DCPLX: return 2 * sizeof(double);
    default: return -1;
    }
}

/* pvm_psend sends raw bytes; ours packs them behind the header in a buffer
 * of its own, so the program's send buffer is untouched, as with PVM's. */
int pvm_psend(int tid, int tag, void *data, int len, int type)
{
    int size = pg_type_size(type), buf, old, cc;

    PG_RETURN_REAL_UNLESS_AT(psend, pg_app_call(),
                             pg_real.psend(tid, tag, data, len, type), tid, tag,
                             size < 0 ? -1 : len * size, NULL);
    if (size < 0 || len < 0)
        return PvmBadParam;
    PG_SITE(psend);
    PG_ENTER();
    buf = pvm_mkbuf(PvmDataRaw);
    old = pvm_setsbuf(buf);
    cc = pvm_pkbyte(data, len * size, 1);
    if (cc >= 0)
        cc = send_common("pvm_psend", &tid, 1, tag, 0, NULL);
    pvm_setsbuf(old);
    pvm_freebuf(buf);
    PG_LEAVE();
    return cc < 0 ? cc : 0;
}
