/*
 * wrap_buf.c - buffer calls that must know about the header.
 *
 * A message the program activates with pvm_setrbuf has its header read (so
 * the program's unpacking starts at its own data); pvm_bufinfo reports the
 * program's bytes, without the header.  (pvm_initsend and pvm_mkbuf need no
 * wrapper: header.c recognises a message by a stamp, not by buffer id.)
 */
#include <stddef.h>

#include "pg_internal.h"

int pvm_setrbuf(int mid)
{
    if (mid > 0 && pg_app_quiet()) {
        PG_ENTER();
        pg_hdr_take(mid, NULL, 0);
        PG_LEAVE();
    }
    return pg_real.setrbuf(mid);
}

int pvm_bufinfo(int mid, int *bytes, int *tag, int *tid)
{
    int cc = pg_real.bufinfo(mid, bytes, tag, tid);

    if (cc >= 0 && bytes && pg.depth == 0 && pg_hdr_carried(mid))
        *bytes -= PG_HDR_BYTES;
    return cc;
}
