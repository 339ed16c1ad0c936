/*
 * wrap_route.c - pvm_setopt: the one option that changes message order.
 *
 * A receiver that sets PvmRouteDirect while a sender streams through the
 * daemons loses per-pair FIFO order (PVM-FACTS), so `pangaea -races` must
 * know when a task switched its route: pvm_setopt(PvmRoute, ...) is a
 * <route> event with its call site (callsite.c writes it).  Every other
 * option passes straight to PVM, and a replay sets the route all the same.
 */
#include "pg_internal.h"

int pvm_setopt(int what, int val)
{
    int cc;

    pg_real_load();
    PG_PASS_UNLESS(what == PvmRoute && pg_app_call(), pg_real.setopt(what, val));
    PG_SITE();
    PG_ENTER();
    cc = pg_real.setopt(what, val);
    pg_site_route(val);
    PG_LEAVE();
    return cc;
}
