/*
 * notice.c - the notices a program asked for, as the matcher sees them.
 *
 * (What a notice is and why it is an event: wrap_notify.c.)
 * Notices are known by the (context, tag) the program gave pvm_notify.  They
 * carry no Pangaea header: what an exit notice is about, the tid that ended,
 * is in its body.  Reading it moves the message's unpack position, which a
 * receive puts back at the start when it returns the message; so the body
 * is read in the matcher only (pg_match), before the receive returns it, and
 * kept by buffer id, since the matcher may see one queued message many
 * times.  A buffer id is forgotten when a receive returns its message: PVM
 * may then give the id to another.
 */
#include "pg_internal.h"

#define MAX_KINDS 64   /* (context, tag) pairs a program asks notices under */
#define MAX_PEEKED 64  /* queued notices whose body was read */

static struct { int ctx, tag; pg_notice_what what; } kinds[MAX_KINDS];
static int nkinds;
static struct { int bufid, first; } peeked[MAX_PEEKED];
static int npeeked;

/* Notices of `what` will come in (ctx, tag): pvm_notify said so. */
void pg_notice_want(int ctx, int tag, pg_notice_what what)
{
    int i;

    for (i = 0; i < nkinds && (kinds[i].ctx != ctx || kinds[i].tag != tag); i++)
        ;
    if (i == MAX_KINDS)
        pg_fatal("pvm_notify: more than %d (context, tag) pairs for notices",
                 MAX_KINDS);
    kinds[i].ctx = ctx;
    kinds[i].tag = tag;
    kinds[i].what = what;
    nkinds += i == nkinds;
}

pg_notice_what pg_notice_kind(int bufid)
{
    struct pvmminfo mi;
    int i;

    /* From a daemon (its tids have the top bit), with no message id. */
    if (nkinds == 0 || pvm_getminfo(bufid, &mi) < 0 || mi.src >= 0 || mi.wid)
        return 0;
    for (i = 0; i < nkinds; i++)
        if (kinds[i].ctx == mi.ctx && kinds[i].tag == mi.tag)
            return kinds[i].what;
    return 0;
}

/* The first int of a queued notice's body (an exit's tid); matcher only. */
int pg_notice_first(int bufid)
{
    int i, old, v = 0;

    for (i = 0; i < npeeked; i++)
        if (peeked[i].bufid == bufid)
            return peeked[i].first;
    old = pvm_setrbuf(bufid);
    if (pvm_upkint(&v, 1, 1) < 0)
        v = 0;
    pvm_setrbuf(old);
    if (npeeked == MAX_PEEKED) /* the oldest goes: it is read again if asked */
        peeked[0] = peeked[--npeeked];
    i = npeeked++;
    peeked[i].bufid = bufid;
    peeked[i].first = v;
    return v;
}

/* What the matcher read of bufid's body (0 if nothing); with forget, the
 * entry goes: a receive returned the message, so PVM may give its buffer id
 * to another.  Never reads the body itself: a returned message's unpack
 * position is the program's. */
int pg_notice_read(int bufid, int forget)
{
    int i, first;

    for (i = 0; i < npeeked; i++)
        if (peeked[i].bufid == bufid) {
            first = peeked[i].first;
            if (forget)
                peeked[i] = peeked[--npeeked];
            return first;
        }
    return 0;
}
