/*
 * mpi_persist.c - the program's persistent requests (pg_mpi.h): what each
 * MPI_Send_init, MPI_Recv_init (and their Ssend, Bsend, Rsend kinds) made,
 * by the handle the program holds, until MPI_Request_free.
 *
 * Design.  A persistent request is made once and started many times
 * (MPI_Start, MPI_Startall, mpi_start.c): each start is a send, or the
 * posting of a receive, as an MPI_Isend or MPI_Irecv would be, and is
 * recorded so.  A replay must post a wildcard receive with each start's
 * recorded source and tag, but a persistent request's source and tag are
 * fixed when it is made: so the replay makes the request again, with the
 * recorded ones (`made_*`: what the real request asks for now), and keeps
 * the program's arguments here to make it again as the program made it.
 * Between its starts a request is inactive: MPI leaves its handle as it
 * is, and a call over several requests treats it as MPI_REQUEST_NULL
 * (pgm_persist_find tells the calls of mpi_p2p.c such a handle from a
 * send's).  A program keeps few of them: a short array.
 */
#include <stdlib.h>
#include <string.h>

#include "pg_mpi.h"

static struct pgm_persist *tab;
static int n, cap;

struct pgm_persist *pgm_persist_find(const MPI_Request *req)
{
    int i;

    if (*req == MPI_REQUEST_NULL)
        return NULL;
    for (i = n - 1; i >= 0; i--)
        if (!memcmp(&tab[i].req, req, sizeof *req))
            return &tab[i];
    return NULL;
}

void pgm_persist_add(const struct pgm_persist *p)
{
    struct pgm_persist *t;

    if (n == cap) {
        cap = cap ? 2 * cap : 16;
        if (!(t = realloc(tab, (size_t)cap * sizeof *t)))
            pgm_die(PGM_REFUSED, "out of memory");
        tab = t;
    }
    tab[n++] = *p;
}

void pgm_persist_forget(const MPI_Request *req)
{
    struct pgm_persist *p = pgm_persist_find(req);

    if (p)
        *p = tab[--n];
}
