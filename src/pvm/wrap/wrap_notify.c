/*
 * wrap_notify.c - pvm_notify, and the notices it brings.
 *
 * A notice (a task ended, a host left or joined) is a message from a daemon
 * to the task that asked for it with pvm_notify, under the tag it chose.
 * Which notice a receive takes, and when, races like any message: a worker's
 * last result and the notice that it ended come in either order.  So a
 * notice a receive takes is an event: recording logs <notice> with what
 * happened and, for an exit, the ltid that ended; a replay makes the receive
 * take that notice, and no other, when the program asks.
 *
 * Which (context, tag) brings which notice, and reading their bodies in
 * the matcher: notice.c.
 */
#include "pg_internal.h"

static pg_notice_what what_of(int what)
{
    switch (what & ~PvmNotifyCancel) {
    case PvmTaskExit: return PG_NOTICE_EXIT;
    case PvmHostDelete: return PG_NOTICE_HOSTDELETE;
    case PvmHostAdd: return PG_NOTICE_HOSTADD;
    default: return 0;
    }
}

int pvm_notify(int what, int tag, int cnt, int *tids)
{
    PG_RETURN_REAL_UNLESS_AT(notify, pg_app_call() && what_of(what),
                             pg_real.notify(what, tag, cnt, tids), -1, tag, -1,
                             "what %d count %d", what, cnt);
    pg_notice_want(pvm_getcontext(), tag, what_of(what));
    return pg_real.notify(what, tag, cnt, tids);
}
