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
 *
 * Setting the wait id and putting the old one back cost a pvm_setminfo,
 * a pvm_getminfo and a pvm_setminfo per send (~300 instructions, an
 * eighth of what recording added to a round trip).  libpvm3 exports its
 * table of message buffers (pvmmidh, pvmmidhsiz: lpvmpack.c made them
 * global for lpvmshmem), so the wait id is written in place instead: the
 * field's offset in PVM's struct pmsg is learnt once, on the program's
 * first send buffer, by setting two marker values with pvm_setminfo and
 * finding the one int that holds each, then checked by a write read back
 * with pvm_getminfo.  If anything does not fit (no such symbols, no
 * unique field), the PVM calls stay in use.  The send itself never
 * changes the wait id (it sets the context, tag and destination), so
 * putting the old one back is one store, and every other field is left
 * exactly as the send made it.
 */
#include <dlfcn.h>
#include <string.h>

#include "pg_internal.h"

/* lpvmpack.c: struct mhp, one per message id. */
struct pg_mhp {
    int m_free;
    void *m_umb; /* struct pmsg *, or 0 */
};
static struct pg_mhp **midh;
static int *midhsiz;
static int wid_off = -1; /* -1: not learnt yet, -2: unusable */

/* Bytes of struct pmsg searched (PVM 3.4.6: 136 bytes, the wait id at 60). */
#define WID_SCAN 96

static void *pmsg_of(int bufid)
{
    return bufid > 0 && bufid < *midhsiz ? (*midh)[bufid].m_umb : NULL;
}

/* The offset of the int in mp that holds v, if exactly one does. */
static int only_offset(const void *mp, int v)
{
    int off, found = -1;

    for (off = 0; off + (int)sizeof(int) <= WID_SCAN; off += sizeof(int))
        if (*(const int *)((const char *)mp + off) == v) {
            if (found >= 0)
                return -1;
            found = off;
        }
    return found;
}

/* Learns where the wait id lies, with the buffer body and its info *mi;
 * leaves the buffer's info as *mi says. */
static void learn_wid(int body, struct pvmminfo *mi)
{
    struct pvmminfo m = *mi, back;
    void *mp;
    int off;

    wid_off = -2;
    midh = dlsym(RTLD_DEFAULT, "pvmmidh");
    midhsiz = dlsym(RTLD_DEFAULT, "pvmmidhsiz");
    if (!midh || !midhsiz || !(mp = pmsg_of(body)))
        return;
    m.wid = 0x5a17c0de;
    pvm_setminfo(body, &m);
    off = only_offset(mp, m.wid);
    m.wid = 0x3ca1ab1e;
    pvm_setminfo(body, &m);
    if (off >= 0 && only_offset(mp, m.wid) == off) {
        *(int *)((char *)mp + off) = 0x2bad1dea;
        if (pvm_getminfo(body, &back) >= 0 && back.wid == 0x2bad1dea)
            wid_off = off;
    }
    pvm_setminfo(body, mi);
}

/* The wait id field of buffer bufid, or NULL: then use pvm_setminfo.
 * Inline: it runs twice per send. */
static inline int *wid_field(int bufid, struct pvmminfo *mi)
{
    void *mp;

    if (__builtin_expect(wid_off == -1, 0))
        learn_wid(bufid, mi);
    if (wid_off < 0 || !(mp = pmsg_of(bufid)))
        return NULL;
    return (int *)((char *)mp + wid_off);
}

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
    int cc, old, *wid;

    if (body <= 0)
        return sendfn(arg); /* PVM reports the missing buffer itself */
    if ((wid = wid_field(body, mi)) != NULL) {
        old = *wid;
        *wid = msgid;
        cc = sendfn(arg);
        /* The send may have freed the buffer (a handler): look again. */
        if ((wid = wid_field(body, mi)) != NULL && *wid == msgid)
            *wid = old;
        return cc;
    }
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

/* ---- a received message's info, read in place ------------------------ */

/* pvm_getminfo costs ~90 instructions a call (a trace check, the buffer
 * lookup, eight copies), and the receive path asks it once a message,
 * twice in a full replay.  A received message (queued, or returned by a
 * receive) is never being packed, so pvm_getminfo only copies its fields
 * (it recomputes the length of a buffer being packed, nothing else): the
 * copy is read in place here.  Where each field lies is learnt on the
 * first received message, as the wait id is on the first send: marker
 * values set with pvm_setminfo (which writes the context, tag, wait id,
 * source and destination) must each land in exactly one int, twice over,
 * and the message's info is then put back as it was.  The length, which
 * pvm_setminfo cannot set, is taken to lie just before the context, as
 * in PVM 3.4's struct pmsg.  The first VERIFY reads are made both ways
 * and compared; any difference, or any failed step, and pvm_getminfo
 * stays in use. */
#define VERIFY 64
static struct {
    int fast;  /* learnt and checked: read in place */
    int state; /* -1: not learnt yet, 0: pvm_getminfo, 1: learnt */
    int checks; /* reads still to be compared with pvm_getminfo */
    int len, ctx, tag, wid, src, dst; /* offsets in struct pmsg */
} rx = { 0, -1, VERIFY, 0, 0, 0, 0, 0, 0 };

static int need_table(void)
{
    if (!midh)
        midh = dlsym(RTLD_DEFAULT, "pvmmidh");
    if (!midhsiz)
        midhsiz = dlsym(RTLD_DEFAULT, "pvmmidhsiz");
    return midh && midhsiz;
}

/* One round of markers (base, base+1, ...) in bufid's five settable
 * fields: their offsets into *o, or -1. */
static int mark_round(int bufid, const void *mp, const struct pvmminfo *mi,
                      int base, int o[5])
{
    struct pvmminfo m = *mi;
    int i;

    m.ctx = base, m.tag = base + 1, m.wid = base + 2, m.src = base + 3;
    m.dst = base + 4;
    if (pvm_setminfo(bufid, &m) < 0)
        return -1;
    for (i = 0; i < 5; i++)
        if ((o[i] = only_offset(mp, base + i)) < 0)
            return -1;
    return 0;
}

static inline __attribute__((always_inline)) void
read_in_place(const char *mp, struct pvmminfo *mi)
{
    mi->len = *(const int *)(mp + rx.len);
    mi->ctx = *(const int *)(mp + rx.ctx);
    mi->tag = *(const int *)(mp + rx.tag);
    mi->wid = *(const int *)(mp + rx.wid);
    mi->src = *(const int *)(mp + rx.src);
    mi->dst = mi->enc = mi->crc = 0; /* not read: no caller needs them */
}

/* Learns the offsets from received message bufid, whose info is *mi. */
static void learn_rx(int bufid, const struct pvmminfo *mi)
{
    int a[5], b[5], ok;
    void *mp;

    rx.state = 0;
    if (!need_table() || !(mp = pmsg_of(bufid)))
        return;
    ok = mark_round(bufid, mp, mi, 0x6b1d0a10, a) == 0 &&
         mark_round(bufid, mp, mi, 0x2e57c960, b) == 0 &&
         !memcmp(a, b, sizeof a) && a[0] >= (int)sizeof(int) &&
         a[1] != a[0] - 4 && a[2] != a[0] - 4 && a[3] != a[0] - 4 &&
         a[4] != a[0] - 4; /* the length's int is none of theirs */
    pvm_setminfo(bufid, (struct pvmminfo *)mi); /* as it was */
    if (!ok)
        return;
    rx.ctx = a[0], rx.tag = a[1], rx.wid = a[2], rx.src = a[3];
    rx.dst = a[4], rx.len = a[0] - (int)sizeof(int);
    rx.state = 1;
}

/* pvm_getminfo, compared with the read in place while it is checked. */
static __attribute__((noinline)) int rx_info_slow(int bufid,
                                                 struct pvmminfo *mi)
{
    struct pvmminfo got;
    const void *mp;
    int cc = pvm_getminfo(bufid, mi);

    if (cc < 0 || rx.state == 0)
        return cc;
    if (rx.state < 0) {
        learn_rx(bufid, mi);
        return cc;
    }
    if (!(mp = pmsg_of(bufid)))
        return cc;
    read_in_place(mp, &got);
    if (got.len != mi->len || got.ctx != mi->ctx || got.tag != mi->tag ||
        got.wid != mi->wid || got.src != mi->src ||
        *(const int *)((const char *)mp + rx.dst) != mi->dst)
        rx.state = 0; /* not PVM's layout after all */
    else
        rx.fast = --rx.checks <= 0;
    return cc;
}

int pg_hdr_rx_info(int bufid, struct pvmminfo *mi)
{
    const void *mp;

    if (rx.fast && (mp = pmsg_of(bufid))) {
        read_in_place(mp, mi);
        return 0;
    }
    return rx_info_slow(bufid, mi);
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

int pg_hdr_peek(int bufid, int *src, int *msgid)
{
    struct pvmminfo mi;

    if (bufid <= 0 || pvm_getminfo(bufid, &mi) < 0)
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

int pg_hdr_take(int bufid, pg_hdr *h)
{
    struct pvmminfo mi;

    if (bufid <= 0 || pvm_getminfo(bufid, &mi) < 0)
        return -1;
    return pg_hdr_take_of(&mi, h);
}

/* ---- the receive buffer detached ------------------------------------- */

/* pvm_setrbuf(0) leaves the receive buffer unset without freeing it: in
 * libpvm3 3.4.6, past its trace checks (~50 instructions), it only
 * clears pvmrbuf, its exported pointer to the receive buffer.  A full
 * replay detaches every message it keeps for later (a fan-in: nearly
 * every message), so it clears the pointer itself, once it has checked
 * on the first detach that pvm_setrbuf(0) did just that. */
static void **rbuf;    /* libpvm3's pvmrbuf */
static int rbuf_state; /* 0: not checked yet, 1: cleared in place, -1: no */

void pg_hdr_detach_rbuf(void)
{
    void *was;

    if (__builtin_expect(rbuf_state > 0, 1) && *rbuf) {
        *rbuf = NULL;
        return;
    }
    if (rbuf_state == 0) {
        rbuf_state = -1;
        if ((rbuf = dlsym(RTLD_DEFAULT, "pvmrbuf")) != NULL &&
            need_table() && (was = *rbuf) != NULL &&
            pmsg_of(pvm_getrbuf()) == was) {
            pvm_setrbuf(0);
            rbuf_state = *rbuf == NULL && pvm_getrbuf() == 0 ? 1 : -1;
            return;
        }
    }
    pvm_setrbuf(0);
}
