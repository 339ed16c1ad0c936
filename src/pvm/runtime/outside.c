/*
 * outside.c - messages from tasks outside the run, and mailbox entries.
 *
 * A task under `pangaea` may talk to one that is not: a server started by
 * hand, a task of another `pangaea` run.  Such a message carries no
 * Pangaea header, and in replay its sender may not even exist, so its
 * order alone cannot be replayed: its contents are recorded.  The receive
 * is an ordinary <recv> event from ltid -2 (PG_LTID_OUTSIDE) whose message
 * id counts these messages (1, 2, ...); the message itself (source tid,
 * tag, context, encoding, body bytes) is the next 'M' record of the data
 * file (datafile.c).  A replay builds the same message from that record
 * (pvm_mkbuf in its encoding, the body with pvm_pkbyte, source, tag and
 * context with pvm_setminfo) and hands it to the program as the receive's
 * result: nothing comes from PVM, and the outside task need not exist.
 * Packing the received bytes again gives back the very message: XDR data
 * are bytes with 4-byte padding already in the body, raw data are bytes.
 *
 * A mailbox entry (pvm_recvinfo: how a client finds a server) is the same:
 * a <query call="pvm_recvinfo"> with the entry as an 'M' record
 * (wrap_mbox.c, with the rest of the mailbox).
 *
 * Sends to an outside task are logged to ltid -2 (record.c), checked in
 * replay like any send, and not sent (wrap_send.c): the task that would
 * answer is not part of the replay; its answers come from the log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

#define ENC_XDR 0x10000000 /* pvm_getminfo's enc of PvmDataDefault data */

struct mhead {
    int32_t src, tag, ctx, enc;
};

static int count; /* outside messages recorded or replayed */
static int probed; /* replay: the buffer a pvm_probe returned, to free */

int pg_outside_msg(int bufid)
{
    struct pvmminfo mi;

    if (bufid <= 0 || pvm_getminfo(bufid, &mi) < 0)
        return 0;
    if (!pg_app_ctx(mi.ctx) || mi.ctx == pg.ctx)
        return 0; /* PVM's or ours */
    if ((mi.src & 0x80000000) != 0)
        return 1; /* a daemon's in the program's context: the children's
                     output it asked for (PvmOutputTid, PvmOutputCode) */
    return mi.src > 0 && pg_ltid_of(mi.src) < 0;
}

/* The bytes of message bufid's body, without moving the program's unpack
 * position in it: read from a second buffer that shares its fragments. */
static char *body_of(int bufid, struct mhead *h, int *len)
{
    struct pvmminfo mi;
    int copy, osb, orb, tag, src;
    char *bytes;

    if (pvm_getminfo(bufid, &mi) < 0 || pvm_bufinfo(bufid, len, &tag, &src) < 0)
        pg_fatal("cannot read message %d from outside the run", bufid);
    *h = (struct mhead){ src, tag, mi.ctx, mi.enc };
    if (!(bytes = malloc(*len > 0 ? *len : 1)))
        pg_fatal("out of memory");
    copy = pg_real.mkbuf(mi.enc == ENC_XDR ? PvmDataDefault : PvmDataRaw);
    osb = pvm_setsbuf(copy);
    pvm_pkmesgbody(bufid);
    pvm_setsbuf(osb);
    orb = pvm_setrbuf(copy);
    if (*len > 0 && pvm_upkbyte(bytes, *len, 1) < 0)
        pg_fatal("cannot read the body of message %d from t%x", bufid, src);
    pvm_setrbuf(orb);
    pvm_freebuf(copy);
    return bytes;
}

void pg_outside_put(int bufid)
{
    struct mhead h;
    int len;
    char *body = body_of(bufid, &h, &len), *rec;

    if (!(rec = malloc(sizeof h + len)))
        pg_fatal("out of memory");
    memcpy(rec, &h, sizeof h);
    memcpy(rec + sizeof h, body, len);
    pg_data_put('M', rec, sizeof h + len);
    free(rec);
    free(body);
}

void pg_outside_record(const char *call, int bufid)
{
    pg_hdr h = { PG_LTID_OUTSIDE, ++count };

    pg_outside_put(bufid);
    pg_record_recv(call, bufid, &h);
}

/* The next recorded message, built again: a buffer that is not current. */
int pg_outside_take(int *src)
{
    struct mhead h;
    struct pvmminfo mi;
    size_t n;
    char *rec = pg_data_get('M', &n);
    int buf, osb;

    if (n < sizeof h)
        pg_fatal("a recorded outside message of %zu bytes (too short)", n);
    memcpy(&h, rec, sizeof h);
    buf = pg_real.mkbuf(h.enc == ENC_XDR ? PvmDataDefault : PvmDataRaw);
    osb = pvm_setsbuf(buf);
    if (n > sizeof h)
        pvm_pkbyte(rec + sizeof h, (int)(n - sizeof h), 1);
    pvm_setsbuf(osb);
    free(rec);
    if (pvm_getminfo(buf, &mi) < 0)
        pg_fatal("cannot build the recorded outside message");
    mi.src = h.src, mi.tag = h.tag, mi.ctx = h.ctx, mi.enc = h.enc;
    mi.wid = 0;
    pvm_setminfo(buf, &mi);
    *src = h.src;
    return buf;
}

int pg_outside_replay(const pg_event *ev, int take)
{
    int bufid, src, old;

    if (probed > 0)
        pvm_freebuf(probed);
    probed = 0;
    bufid = pg_outside_take(&src);
    count++;
    pg_replay_check_size(ev, bufid);
    if (take == 1) {
        /* as a receive does: the old receive buffer goes */
        old = pvm_setrbuf(bufid);
        if (old > 0)
            pvm_freebuf(old);
    } else if (take == 0) {
        probed = bufid;
    } /* 2: a handler's, which frees it */
    pg_replay_advance();
    return bufid;
}

int pg_outside_drop(int *tids, int n, int **kept)
{
    int i, k = 0;

    *kept = tids;
    for (i = 0; i < n; i++)
        if (pg_peer_ltid(tids[i]) == PG_LTID_OUTSIDE)
            break;
    if (i == n)
        return n; /* the usual case: nothing to drop, nothing copied */
    if (!(*kept = malloc(n * sizeof **kept)))
        pg_fatal("out of memory");
    for (i = 0; i < n; i++)
        if (pg_peer_ltid(tids[i]) != PG_LTID_OUTSIDE)
            (*kept)[k++] = tids[i];
    return k;
}
