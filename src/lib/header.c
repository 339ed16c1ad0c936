/*
 * header.c - the Pangaea header of every application message.
 *
 * The header says who sent a message (its ltid) and which of the sender's
 * messages it is (its message id, counted per sender from 1).  It travels
 * in PVM's own message header, not in the program's data: the message id
 * in the "wait id" field, set with pvm_setminfo on the send buffer just for
 * the send (PVM carries it unchanged for task-to-task messages, routed by
 * the daemons or directly, to one task or many), and the sender's ltid
 * follows from the message's source tid, which the coordinator translates
 * once per peer.
 *
 * So the program's data are never touched: pvm_bufinfo, pvm_setrbuf, the
 * unpack position and every encoding (PvmDataInPlace too) behave as without
 * Pangaea, and a message stays a single fragment.  (A first version packed
 * a 12-byte header in front of the data with pvm_pkmesgbody; every message
 * then went as two fragments, which doubled PVM's own cost per message:
 * see BENCHMARKS.md.)
 *
 * A message carries a header when it comes from a task (not from a daemon,
 * like pvm_notify's), in a context that is neither PVM's nor ours, with a
 * wait id of 1 or more (0 in messages from tasks outside the run).
 */
#include "pg_internal.h"

int pg_hdr_body(struct pvmminfo *mi)
{
    int body = pvm_getsbuf();

    return body > 0 && pvm_getminfo(body, mi) >= 0 ? body : 0;
}

/* Each PVM lookup of a buffer costs a few hundred instructions, a tenth of
 * what the runtime adds to a send: the wrapper reads the buffer's info
 * once (pg_hdr_body) and hands it here. */
int pg_hdr_send(int body, struct pvmminfo *mi, int msgid,
                int (*sendfn)(void *), void *arg)
{
    int cc, old;

    if (body <= 0)
        return sendfn(arg); /* PVM reports the missing buffer itself */
    old = mi->wid;
    mi->wid = msgid;
    pvm_setminfo(body, mi);
    cc = sendfn(arg);
    /* The program may send this buffer again: leave it as it was (but for
     * what the send itself set in it, the tag: read again). */
    if (pvm_getminfo(body, mi) >= 0) {
        mi->wid = old;
        pvm_setminfo(body, mi);
    }
    return cc;
}

int pg_hdr_of(const struct pvmminfo *mi, int *src, int *msgid)
{
    if ((mi->src & 0x80000000) != 0 || mi->src <= 0 || !pg_app_ctx(mi->ctx) ||
        mi->ctx == pg.ctx || mi->wid <= 0)
        return 0;
    *src = mi->src;
    *msgid = mi->wid;
    return 1;
}

int pg_hdr_peek(int mid, int *src, int *msgid)
{
    struct pvmminfo mi;

    if (mid <= 0 || pvm_getminfo(mid, &mi) < 0)
        return -1;
    return pg_hdr_of(&mi, src, msgid);
}

int pg_hdr_take_of(const struct pvmminfo *mi, pg_hdr *h)
{
    int src, cc = pg_hdr_of(mi, &src, &h->msgid);

    if (cc == 1)
        h->ltid = pg_ltid_of(src);
    return cc;
}

int pg_hdr_take(int mid, pg_hdr *h)
{
    int src, cc = pg_hdr_peek(mid, &src, &h->msgid);

    if (cc == 1)
        h->ltid = pg_ltid_of(src);
    return cc;
}
