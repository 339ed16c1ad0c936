/*
 * wrap_fds.c - pvm_getfds: the descriptors a program waits on with
 * select() before it polls with pvm_nrecv.
 *
 * A recording lets the program wait on PVM's sockets as it would.  A
 * replay cannot: the message the program took next when recorded may
 * already sit in PVM's queue (read along with an earlier one), so the
 * socket never becomes readable and select() waits for ever.  A replay
 * hands out, in place of each socket, one descriptor that is always
 * readable (/dev/null): select() returns at once, and the receive that
 * follows (a replayed pvm_nrecv, pvm_trecv, pvm_probe) waits itself for
 * its recorded message, or finds nothing if the recorded poll did.  What
 * is not replayed: a select() with a timeout that expired when recorded
 * returns "readable" in replay (README, "What replay guarantees").
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "pg_internal.h"

/* The descriptors handed out in replay: n copies of one readable fd. */
static int *readable(int n)
{
    static int fd = -1, *fds, cap;
    int i;

    if (fd < 0 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        pg_fatal("cannot open /dev/null for pvm_getfds");
    if (n > cap) {
        cap = n;
        if (!(fds = realloc(fds, cap * sizeof *fds)))
            pg_fatal("out of memory");
    }
    for (i = 0; i < n; i++)
        fds[i] = fd;
    return fds;
}

int pvm_getfds(int **fds)
{
    int n, *real = NULL;

    PG_RETURN_REAL_UNLESS(getfds, pg_app_call() && pg.ltid != 0, pg_real.getfds(fds));
    if (!pg_replaying()) /* past the guard all the same: a call counted */
        return pg_real.getfds(fds);
    PG_ENTER();
    n = pg_real.getfds(&real);
    if (n > 0 && fds)
        *fds = readable(n);
    else if (fds)
        *fds = real;
    PG_LEAVE();
    return n;
}
