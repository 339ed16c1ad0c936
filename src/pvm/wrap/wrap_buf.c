/*
 * wrap_buf.c - pvm_initsend and pvm_mkbuf: the buffer id as recorded.
 *
 * PVM numbers every buffer, sent or received, from one list of free ids
 * (docs/pvm-notes.md), so once a replay gives the program's receives
 * their recorded ids (bufid.c), the ids of its new send buffers must be
 * the recorded ones too: a recorded receive's id may be the one a send
 * buffer holds this time, and the other way round.  The id each returns
 * to the program joins the same sequence as the receives' (bufid.c,
 * ltid-N.bufids.pgc).  Neither call is an event, and neither passes the
 * live page's gate nor counts as a call where a signal lands (wrap_sig.c):
 * so recordings made before keep their signals' places.  A call PVM makes
 * inside another wrapped call (pvm_psend's pvm_mkbuf, a collective's
 * pvm_initsend, pvm_initsend's own pvm_mkbuf) is PVM's own and keeps
 * PVM's id.
 */
#include "pg_internal.h"

static int program_buffer(int bufid)
{
    return bufid > 0 && pg.depth == 0 && pg.started ? pg_bufid_seen(bufid)
                                                     : bufid;
}

/* libpvm3's pvm_initsend calls pvm_mkbuf (through the PLT): that one is
 * its own. */
int pvm_initsend(int encoding)
{
    int bufid;

    pg_real_load();
    pg.depth++;
    bufid = pg_real.initsend(encoding);
    pg.depth--;
    return program_buffer(bufid);
}

int pvm_mkbuf(int encoding)
{
    pg_real_load();
    return program_buffer(pg_real.mkbuf(encoding));
}
