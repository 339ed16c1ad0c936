/*
 * mpi_isend.c - the MPI_Isend requests not yet known done (pg_mpi.h):
 * their message ids, for the calls that tell the program whether, or
 * which, of its sends completed.
 *
 * Design.  A send's completion is not a message event, but a program may
 * branch on it (MPI_Test on an MPI_Isend's request, MPI_Testany or
 * MPI_Waitany over sends): those outcomes are recorded (mpi_p2p.c), and
 * say which of the call's requests it was.  Handles are not unique: Open
 * MPI gives every send that completed at once the same request object
 * (checked: HPCC's sends), so a handle may be here more than once (each
 * completion forgets the newest).  The calls that complete sends forget
 * them (MPI_Wait, MPI_Waitall, MPI_Request_free ...).  A program keeps
 * few sends in flight, so the table is a short array searched from its
 * end (the newest sends are tested most).
 */
#include <stdlib.h>
#include <string.h>

#include "pg_mpi.h"

struct sent {
    MPI_Request req;
    int msgid;
};
static struct sent *tab;
static int n, cap;

static int find(const MPI_Request *req)
{
    int i;

    for (i = n - 1; i >= 0; i--)
        if (!memcmp(&tab[i].req, req, sizeof *req))
            return i;
    return -1;
}

void pgm_isend_remember(const MPI_Request *req, int msgid)
{
    struct sent *t;

    if (n == cap) {
        cap = cap ? 2 * cap : 16;
        if (!(t = realloc(tab, (size_t)cap * sizeof *t)))
            pgm_die(PGM_REFUSED, "out of memory");
        tab = t;
    }
    tab[n++] = (struct sent){ *req, msgid };
}

int pgm_isend_msgid(const MPI_Request *req)
{
    int i = *req == MPI_REQUEST_NULL ? -1 : find(req);

    return i < 0 ? 0 : tab[i].msgid;
}

void pgm_isend_forget(const MPI_Request *req)
{
    int i = find(req);

    if (i >= 0 && i == n - 1) /* the newest, as a send then its wait */
        n--;
    else if (i >= 0)
        memmove(&tab[i], &tab[i + 1], (size_t)(--n - i) * sizeof *tab);
}
