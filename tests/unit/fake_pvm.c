/*
 * fake_pvm.c - a libpvm3 in memory for the runtime's unit tests: see
 * fake_pvm.h for the design.  Only what the runtime's send and receive
 * paths use is modelled: buffers with a body, tag, context, wait id and
 * source; packing and unpacking bytes and ints in the machine's order; one
 * receive queue walked in order through the installed matcher.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_pvm.h"
#include "pg_internal.h"

#define NBUF 256

struct fbuf {
    int used;
    struct pvmminfo mi; /* len is the body's length */
    unsigned char *data;
    int cap, pos;
};

static struct fbuf bufs[NBUF];
static int sbuf, rbuf, ctx = FAKE_CTX, opts[64];
static int queue[NBUF], nqueue;
static struct fake_sent sent[NBUF];
static int nsent;
static pg_matchfn matcher = fake_pvm_default_match;

void fake_pvm_reset(void)
{
    int i;

    for (i = 0; i < NBUF; i++)
        free(bufs[i].data);
    memset(bufs, 0, sizeof bufs);
    sbuf = rbuf = nqueue = nsent = 0;
    ctx = FAKE_CTX;
    matcher = fake_pvm_default_match;
}

static struct fbuf *buf_of(int mid)
{
    return mid > 0 && mid < NBUF && bufs[mid].used ? &bufs[mid] : NULL;
}

static int new_buf(int enc)
{
    int mid;

    for (mid = 1; mid < NBUF && bufs[mid].used; mid++)
        ;
    if (mid == NBUF)
        return PvmNoMem;
    bufs[mid] = (struct fbuf){ .used = 1 };
    bufs[mid].mi.enc = enc;
    bufs[mid].mi.src = FAKE_TID;
    return mid;
}

/* ---- buffers ---------------------------------------------------------- */
int pvm_mkbuf(int enc) { return new_buf(enc); }

int pvm_freebuf(int mid)
{
    struct fbuf *b = buf_of(mid);

    if (!b)
        return PvmNoSuchBuf;
    free(b->data);
    *b = (struct fbuf){ 0 };
    if (mid == sbuf)
        sbuf = 0;
    if (mid == rbuf)
        rbuf = 0;
    return 0;
}

int pvm_getsbuf(void) { return sbuf; }
int pvm_getrbuf(void) { return rbuf; }

int pvm_setsbuf(int mid)
{
    int old = sbuf;

    if (mid && !buf_of(mid))
        return PvmNoSuchBuf;
    sbuf = mid;
    return old;
}

int pvm_setrbuf(int mid)
{
    int old = rbuf;

    if (mid && !buf_of(mid))
        return PvmNoSuchBuf;
    rbuf = mid;
    return old;
}

int pvm_initsend(int enc)
{
    if (sbuf)
        pvm_freebuf(sbuf);
    sbuf = new_buf(enc);
    return sbuf;
}

int pvm_getminfo(int mid, struct pvmminfo *mi)
{
    struct fbuf *b = buf_of(mid);

    if (!b)
        return PvmNoSuchBuf;
    *mi = b->mi;
    return 0;
}

/* As PVM: the caller may set the wait id, tag, context and encoding. */
int pvm_setminfo(int mid, struct pvmminfo *mi)
{
    struct fbuf *b = buf_of(mid);

    if (!b)
        return PvmNoSuchBuf;
    b->mi.wid = mi->wid, b->mi.tag = mi->tag, b->mi.ctx = mi->ctx;
    b->mi.enc = mi->enc;
    return 0;
}

int pvm_bufinfo(int mid, int *len, int *tag, int *tid)
{
    struct fbuf *b = buf_of(mid);

    if (!b)
        return PvmNoSuchBuf;
    if (len)
        *len = b->mi.len;
    if (tag)
        *tag = b->mi.tag;
    if (tid)
        *tid = b->mi.src;
    return 0;
}

/* ---- packing: bytes as they are, ints in the machine's order ----------- */
static int pack(const void *p, int n)
{
    struct fbuf *b = buf_of(sbuf);

    if (!b)
        return PvmNoBuf;
    if (b->mi.len + n > b->cap) {
        int cap = (b->mi.len + n) * 2 + 16;
        unsigned char *more = realloc(b->data, (size_t)cap);

        if (!more)
            return PvmNoMem;
        b->data = more, b->cap = cap;
    }
    memcpy(b->data + b->mi.len, p, (size_t)n);
    b->mi.len += n;
    return 0;
}

static int unpack(void *p, int n)
{
    struct fbuf *b = buf_of(rbuf);

    if (!b)
        return PvmNoBuf;
    if (b->pos + n > b->mi.len)
        return PvmNoData;
    memcpy(p, b->data + b->pos, (size_t)n);
    b->pos += n;
    return 0;
}

int pvm_pkbyte(char *p, int n, int st)
{
    int i, cc = 0;

    for (i = 0; i < n && cc == 0; i++)
        cc = pack(p + (long)i * st, 1);
    return cc;
}

int pvm_upkbyte(char *p, int n, int st)
{
    int i, cc = 0;

    for (i = 0; i < n && cc == 0; i++)
        cc = unpack(p + (long)i * st, 1);
    return cc;
}

int pvm_pkint(int *p, int n, int st)
{
    int i, cc = 0;

    for (i = 0; i < n && cc == 0; i++)
        cc = pack(p + (long)i * st, sizeof *p);
    return cc;
}

int pvm_upkint(int *p, int n, int st)
{
    int i, cc = 0;

    for (i = 0; i < n && cc == 0; i++)
        cc = unpack(p + (long)i * st, sizeof *p);
    return cc;
}

int pvm_pkstr(char *s)
{
    int n = (int)strlen(s) + 1;

    return pvm_pkint(&n, 1, 1) || pack(s, n) ? PvmNoMem : 0;
}

int pvm_pkmesgbody(int mid)
{
    struct fbuf *b = buf_of(mid);

    return b ? pack(b->data, b->mi.len) : PvmNoSuchBuf;
}

/* ---- the task --------------------------------------------------------- */
int pvm_mytid(void) { return FAKE_TID; }
int pvm_getcontext(void) { return ctx; }

int pvm_setcontext(int c)
{
    int old = ctx;

    ctx = c;
    return old;
}

int pvm_tidtohost(int tid) { return tid & ~0x3ffff; }

static int fake_setopt(int what, int val)
{
    int old;

    if (what < 0 || what >= 64)
        return PvmBadParam;
    old = opts[what];
    opts[what] = val;
    return old;
}

static int fake_getopt(int what)
{
    return what >= 0 && what < 64 ? opts[what] : PvmBadParam;
}

/* ---- sending ---------------------------------------------------------- */
static int send_to(int tid, int tag)
{
    struct fbuf *b = buf_of(sbuf);
    struct fake_sent *s;

    if (!b)
        return PvmNoBuf;
    if (nsent == NBUF)
        return PvmNoMem;
    s = &sent[nsent++];
    *s = (struct fake_sent){ tid, tag, ctx, b->mi.wid, b->mi.len, { 0 } };
    memcpy(s->data, b->data,
           (size_t)(b->mi.len < 64 ? b->mi.len : 64));
    return 0;
}

static int fake_send(int tid, int tag)
{
    struct fbuf *b = buf_of(sbuf);

    if (b)
        b->mi.tag = tag; /* as PVM: the send sets the buffer's tag */
    return send_to(tid, tag);
}

static int fake_mcast(int *tids, int n, int tag)
{
    int i, cc = 0;

    for (i = 0; i < n && cc == 0; i++)
        if (tids[i] != FAKE_TID)
            cc = fake_send(tids[i], tag);
    return cc;
}

/* ---- receiving -------------------------------------------------------- */
int fake_pvm_default_match(int mid, int tid, int tag)
{
    struct fbuf *b = buf_of(mid);

    return b && (tid == -1 || tid == b->mi.src) &&
           (tag == -1 || tag == b->mi.tag) && b->mi.ctx == ctx;
}

static pg_matchfn fake_recvf(pg_matchfn m)
{
    pg_matchfn old = matcher;

    matcher = m ? m : fake_pvm_default_match;
    return old;
}

/* The first queued message the matcher takes, its place in *at; 0 if
 * none. */
static int walk(int tid, int tag, int *at)
{
    int i;

    for (i = 0; i < nqueue; i++)
        if (matcher(queue[i], tid, tag) > 0) {
            *at = i;
            return queue[i];
        }
    return 0;
}

static int take(int tid, int tag)
{
    int at, mid = walk(tid, tag, &at);

    if (!mid)
        return 0;
    memmove(queue + at, queue + at + 1,
            (size_t)(nqueue - at - 1) * sizeof *queue);
    nqueue--;
    if (rbuf)
        pvm_freebuf(rbuf); /* as PVM: a receive frees the current one */
    rbuf = mid;
    bufs[mid].pos = 0;
    return mid;
}

static int fake_recv(int tid, int tag)
{
    int mid = take(tid, tag);

    return mid ? mid : FAKE_WOULD_BLOCK;
}

static int fake_nrecv(int tid, int tag) { return take(tid, tag); }

static int fake_trecv(int tid, int tag, struct timeval *tmout)
{
    int mid = take(tid, tag);

    return mid || tmout ? mid : FAKE_WOULD_BLOCK;
}

static int fake_probe(int tid, int tag)
{
    int at;

    return walk(tid, tag, &at);
}

int fake_pvm_deliver(int src, int tag, int c, int wid, const void *body,
                     int len)
{
    int mid = new_buf(PvmDataDefault), old = sbuf;

    if (mid < 0 || nqueue == NBUF)
        return -1;
    sbuf = mid;
    pack(body, len);
    sbuf = old;
    bufs[mid].mi.src = src, bufs[mid].mi.dst = FAKE_TID;
    bufs[mid].mi.tag = tag, bufs[mid].mi.ctx = c, bufs[mid].mi.wid = wid;
    queue[nqueue++] = mid;
    return mid;
}

int fake_pvm_queued(int *mids, int max)
{
    int i;

    for (i = 0; i < nqueue && i < max; i++)
        mids[i] = queue[i];
    return nqueue;
}

int fake_pvm_nsent(void) { return nsent; }

const struct fake_sent *fake_pvm_sent(int i)
{
    return i >= 0 && i < nsent ? &sent[i] : NULL;
}

static int fake_pstat(int tid) { return tid > 0 ? PvmOk : PvmNoTask; }
static int fake_exit(void) { return 0; } /* a task's end (runtime.c) */

void fake_pvm_install(void)
{
    pg_real.send = fake_send;
    pg_real.mcast = fake_mcast;
    pg_real.recv = fake_recv;
    pg_real.nrecv = fake_nrecv;
    pg_real.trecv = fake_trecv;
    pg_real.probe = fake_probe;
    pg_real.recvf = fake_recvf;
    pg_real.setopt = fake_setopt;
    pg_real.getopt = fake_getopt;
    pg_real.pstat = fake_pstat;
    pg_real.exit = fake_exit;
    pg_real.mkbuf = pvm_mkbuf; /* the runtime's own buffers (coord_client.c) */
    pg_real.initsend = pvm_initsend;
}
