/*
 * header.c - the Pangaea header on every application message.
 *
 * Sending: the program has packed its send buffer.  We make a second buffer
 * of the same encoding, pack the header into it and append the program's
 * buffer with pvm_pkmesgbody(), which shares the data instead of copying it
 * (this also works for PvmDataInPlace).  That buffer goes out; the program's
 * own buffer is left as it was, so it can be sent again.
 *
 * Receiving: a message carries a header when it comes from a task (not from
 * a daemon, like pvm_notify's) in a context that is not PVM's or ours.  The
 * header is read by unpacking it, which leaves the unpack position just past
 * it: the program then unpacks its own data as if the header were not there.
 * Because the header can be read while the message is still queued (by the
 * replay matcher) or while it is put aside (pvm_setrbuf), we remember per
 * message whether its header has been read, and what it said.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

enum { MID_UNKNOWN = 0, MID_HEADER };

/* PVM reuses a buffer id as soon as it is freed, often for the next message
 * of the same sender and tag, and frees received buffers without telling us
 * (a receive frees the previous receive buffer, possibly in the middle of
 * our matcher's work).  So what we know of a header is tied to the message
 * itself: we stamp the message's wait id (unused for task-to-task messages,
 * 0 in every new one) with a serial of ours, and trust an entry only while
 * the stamp is there. */
struct mid_info {
    int state;
    int stamp;
    pg_hdr h;
};

static struct mid_info *mids;
static int nmids, serial;

static struct mid_info *mid_slot(int mid)
{
    int n;

    if (mid >= nmids) {
        n = nmids ? nmids : 64;
        while (n <= mid)
            n *= 2;
        mids = realloc(mids, n * sizeof *mids);
        if (!mids)
            pg_fatal("out of memory");
        memset(mids + nmids, 0, (n - nmids) * sizeof *mids);
        nmids = n;
    }
    return &mids[mid];
}

/* Messages from a pvmd (tid with its top bit set) carry no header. */
static int carries_header(const struct pvmminfo *mi)
{
    return (mi->src & 0x80000000) == 0 && mi->src > 0 &&
           !pg_system_ctx(mi->ctx) && mi->ctx != pg.ctx;
}

/* Unpacks the header of `mid` from its current position. */
static int read_header(int mid, const struct pvmminfo *mi, pg_hdr *h)
{
    int v[PG_HDR_INTS], save = pg_real.setrbuf(mid), cc;

    cc = pvm_upkint(v, PG_HDR_INTS, 1);
    if (save != mid)
        pg_real.setrbuf(save);
    if (cc < 0 || v[0] != PG_HDR_MAGIC) {
        pg_warn("message from t%x tag %d has no Pangaea header (sent by a "
                "task outside this run?)", mi->src, mi->tag);
        return 0;
    }
    h->ltid = v[1];
    h->msgid = v[2];
    return 1;
}

int pg_hdr_take(int mid, pg_hdr *h, int fresh)
{
    struct pvmminfo mi;
    struct mid_info *m;

    if (mid <= 0 || pvm_getminfo(mid, &mi) < 0)
        return -1;
    if (!carries_header(&mi))
        return 0;
    m = mid_slot(mid);
    if (m->state == MID_HEADER && m->stamp == mi.wid && mi.wid != 0) {
        /* Known; a receive rewinds a message, so its header is read again. */
        if (fresh && !read_header(mid, &mi, &m->h))
            return 0;
    } else {
        if (!read_header(mid, &mi, &m->h))
            return 0;
        m->state = MID_HEADER;
        m->stamp = mi.wid = serial = serial == 0x7fffffff ? 1 : serial + 1;
        pvm_setminfo(mid, &mi);
    }
    if (h)
        *h = m->h;
    return 1;
}

int pg_hdr_carried(int mid)
{
    struct pvmminfo mi;

    return mid > 0 && mid < nmids && mids[mid].state == MID_HEADER &&
           pvm_getminfo(mid, &mi) >= 0 && mi.wid == mids[mid].stamp;
}

int pg_hdr_send(const pg_hdr *h, int (*sendfn)(void *), void *arg)
{
    /* Static: with PvmDataInPlace the header is packed by reference and
     * must outlive the packing, up to the send. */
    static int v[PG_HDR_INTS];
    struct pvmminfo mi;
    int body, buf, cc, enc;

    body = pvm_getsbuf();
    if (body <= 0)
        return sendfn(arg); /* PVM reports the missing buffer itself */
    pvm_getminfo(body, &mi);
    /* The encodings PVM reports are internal codes; map them back. */
    enc = mi.enc == 0x10000000 ? PvmDataDefault
          : mi.enc == 0x20000000 ? PvmDataInPlace : PvmDataRaw;
    buf = pg_real.mkbuf(enc);
    if (buf < 0)
        return buf;
    pvm_setsbuf(buf);
    v[0] = PG_HDR_MAGIC;
    v[1] = h->ltid;
    v[2] = h->msgid;
    pvm_pkint(v, PG_HDR_INTS, 1);
    cc = pvm_pkmesgbody(body);
    if (cc >= 0)
        cc = sendfn(arg);
    pvm_setsbuf(body);
    pg_real.freebuf(buf);
    return cc;
}
