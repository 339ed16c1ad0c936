/*
 * wrap_route.c - pvm_setopt: the one option that changes message order;
 * pvm_getopt: the program's options, not those pangaea gave it.
 *
 * A receiver that sets PvmRouteDirect while a sender streams through the
 * daemons loses per-pair FIFO order (docs/pvm-notes.md, "Message order"),
 * so `pangaea -races` must know when a task switched its route:
 * pvm_setopt(PvmRoute, ...) is a <route> event with its call site
 * (callsite.c writes it).  Every other option passes straight to PVM, and
 * a replay sets the route all the same.
 *
 * One more: a task inherits `pangaea`'s output settings (its tid, code and
 * Pangaea's context).  A program that collects its children's output
 * itself sets PvmOutputTid and PvmOutputCode, but rarely the context (PVM
 * leaves it at the base context): its receives would never see that
 * output.  So when the program redirects output away from `pangaea` and
 * the context is still Pangaea's, the context becomes the program's own.
 *
 * And back: pvm_getopt of those settings answers what the program would
 * see without Pangaea.  While output still goes to `pangaea` (the tid is
 * pangaea's), the output tid, code and context are 0, as in a task whose
 * output nobody collects; once the program (or its parent, whose setting
 * a child inherits) sent it elsewhere, PVM's own values.  The same for
 * the PvmSelfOutput* settings.  A recording otherwise showed pangaea's tid,
 * which differs from run to run.
 *
 * Last, the end of a run: `pangaea` waits for the end of every task's
 * output (monitor.c), and PVM sends it only to where the output goes.  A
 * task whose output goes elsewhere (its parent called pvm_catchout, or set
 * PvmOutputTid) says so itself as it enrols (pg_output_elsewhere,
 * coord_client.c), with the message that ends a task's output: no fixed wait for output that
 * will never come.
 */
#include "pg_internal.h"

/* The program's children's output goes to the program, in its context.
 * After the tid is set: PVM changes the context only for output sent to
 * the task itself (or to nobody). */
static int own_output(int what, int val, int cc)
{
    if (what != PvmOutputTid || cc < 0 || pg.mode == PANGAEA_OFF ||
        pg.ltid == 0 || pg.depth > 0 || val == pg.top)
        return cc;
    if (pg_real.getopt(PvmOutputContext) == pg.ctx)
        pg_real.setopt(PvmOutputContext, pvm_getcontext());
    return cc;
}

int pvm_setopt(int what, int val)
{
    int cc;

    pg_real_load();
    PG_RETURN_REAL_UNLESS(setopt, what == PvmRoute && pg_app_call(),
                          own_output(what, val, pg_real.setopt(what, val)));
    PG_SITE(setopt);
    PG_ENTER();
    cc = pg_real.setopt(what, val);
    pg_site_route(val);
    PG_LEAVE();
    return cc;
}

/* What a program sees of output option `what`, whose real value is v. */
static int program_view(int what, int v)
{
    switch (what) {
    case PvmOutputTid: case PvmOutputCode: case PvmOutputContext:
        return pg_real.getopt(PvmOutputTid) == pg.top ? 0 : v;
    case PvmSelfOutputTid: case PvmSelfOutputCode: case PvmSelfOutputContext:
        return pg_real.getopt(PvmSelfOutputTid) == pg.top ? 0 : v;
    default:
        return v;
    }
}

int pvm_getopt(int what)
{
    int v;

    pg_real_load();
    PG_RETURN_REAL_UNLESS(getopt, pg_app_call() && pg.ltid != 0, pg_real.getopt(what));
    PG_ENTER();
    v = program_view(what, pg_real.getopt(what));
    PG_LEAVE();
    return v;
}

