/*
 * fake_pvm.h - a libpvm3 in memory, for unit tests of the runtime
 * without a pvmd (tests/unit/fake_pvm.c).
 *
 * Design.  One task (tid FAKE_TID), message buffers in an array (a mid is
 * an index), one queue of messages that have arrived, in arrival order.
 * The library reaches PVM two ways, and the fake answers both:
 *   - the calls it makes by name (pvm_getminfo, pvm_setrbuf, pvm_pkint
 *     ... the ~25 that `nm -u` of libpangaea.a lists): defined here under
 *     their own names, they come before libpvm3.so's at link time;
 *   - the wrapped calls, through `pg_real` (real.c fills it with libpvm3's
 *     by dlsym): fake_pvm_install points its PVM entries at the fake's.
 * A receive walks the queue calling the installed matcher (pvm_recvf's,
 * the runtime's pg_match once it has started) as PVM does; a send keeps
 * the message in a list of sent ones for the test to look at, with the
 * wait id the runtime set on the buffer.  A blocking receive with nothing
 * that matches returns FAKE_WOULD_BLOCK rather than wait for nobody.
 */
#ifndef FAKE_PVM_H
#define FAKE_PVM_H

#include <pvm3.h>

#define FAKE_TID 0x40001    /* this task */
#define FAKE_CTX 0          /* the program's context */
#define FAKE_WOULD_BLOCK (-99)

struct fake_sent {
    int dst, tag, ctx, wid, len;
    unsigned char data[64]; /* the first bytes of the body */
};

/* Forgets every buffer, queued and sent message; the default matcher. */
void fake_pvm_reset(void);
/* pg_real's PVM calls become the fake's. */
void fake_pvm_install(void);
/* A message from src arrives (tag, context, wait id, body): its mid. */
int fake_pvm_deliver(int src, int tag, int ctx, int wid, const void *body,
                     int len);
/* The mids still queued, in order, into mids[max]; their number. */
int fake_pvm_queued(int *mids, int max);
/* The messages sent so far. */
int fake_pvm_nsent(void);
const struct fake_sent *fake_pvm_sent(int i);
/* PVM's default matcher (source, tag, the current context). */
int fake_pvm_default_match(int mid, int tid, int tag);

#endif
