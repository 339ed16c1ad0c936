/*
 * mpi_start.c - persistent requests (pg_mpi.h): MPI_Send_init,
 * MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init, MPI_Recv_init,
 * MPI_Start, MPI_Startall, MPI_Request_free.
 *
 * Design.  Each start of a persistent request is what an MPI_Isend or an
 * MPI_Irecv would be, and is recorded and replayed with their code
 * (mpi_p2p.c): a send's start is the rank's next send, logged as
 * MPI_Isend, its request remembered until the program learns it is done;
 * a receive's start is the rank's next posting, completed by the same
 * waits and tests, its completion logged as an MPI_Irecv's with its
 * posting number (a wildcard MPI_Recv_init is a racing receive, as a
 * wildcard MPI_Irecv is).  A replay posts each start of a wildcard
 * receive with the recorded source and tag; a persistent request's are
 * fixed when made, so the replay frees the request and makes it again
 * with those (MPI_Request_free of an inactive request, then
 * PMPI_Recv_init), and gives the program's handle the new request's
 * value (a program that kept a copy of the handle elsewhere would hold a
 * freed one: said in the README).  A start that never completed when
 * recorded is made on pgm.nowhere, as an MPI_Irecv's.  MPI_Startall
 * starts its requests one by one, in the array's order (MPI allows any
 * order: the postings are numbered in that one).  The init calls
 * themselves are no events: they send and take nothing.
 */
#include <stddef.h>

#include "pg_mpi.h"

/* A persistent request made: remembered as the program made it. */
static void made(const MPI_Request *req, int recv, void *buf, int count,
                 MPI_Datatype type, int peer, int tag, MPI_Comm comm)
{
    if (pgm.mode == PGM_OFF || pgm.busy || peer == MPI_PROC_NULL)
        return;
    pgm_to_world(comm, peer, recv ? "MPI_Recv_init" : "MPI_Send_init");
    pgm_persist_add(&(struct pgm_persist){ *req, recv, buf, count, peer, tag,
                                           type, comm, peer, tag, comm });
}

#define SEND_INIT(NAME)                                                     \
    PGM_API int NAME(const void *buf, int count, MPI_Datatype type,         \
                     int dest, int tag, MPI_Comm comm, MPI_Request *req)    \
    {                                                                       \
        int rc = P##NAME(buf, count, type, dest, tag, comm, req);          \
                                                                            \
        if (rc == MPI_SUCCESS)                                              \
            made(req, 0, (void *)buf, count, type, dest, tag, comm);        \
        return rc;                                                          \
    }
SEND_INIT(MPI_Send_init)
SEND_INIT(MPI_Ssend_init)
SEND_INIT(MPI_Bsend_init)
SEND_INIT(MPI_Rsend_init)

PGM_API int MPI_Recv_init(void *buf, int count, MPI_Datatype type,
                          int source, int tag, MPI_Comm comm,
                          MPI_Request *req)
{
    int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);

    if (rc == MPI_SUCCESS)
        made(req, 1, buf, count, type, source, tag, comm);
    return rc;
}

/* A send's start: the rank's next send (an MPI_Isend's event). */
static int start_send(MPI_Request *req, const struct pgm_persist *p)
{
    int to = pgm_to_world(p->comm, p->peer, "MPI_Start"), rc;
    const struct pgm_ev *e = pgm_send_expect("MPI_Isend", "MPI_Start", to,
                                             p->tag);

    if ((rc = PMPI_Start(req)) == MPI_SUCCESS && pgm.mode == PGM_LOG)
        pgm.ctx = pgm_ctx_of(p->comm);
    if (rc == MPI_SUCCESS)
        pgm_send_made("MPI_Isend", to, p->tag, pgm_bytes(p->type, p->count),
                      req, e);
    return rc;
}

/* The real request of receive p asks for peer, tag on comm: made again
 * if it asks for anything else (the program's handle follows). */
static int remake(MPI_Request *req, struct pgm_persist *p, int peer, int tag,
                  MPI_Comm comm)
{
    int rc;

    if (p->made_peer == peer && p->made_tag == tag && p->made_comm == comm)
        return MPI_SUCCESS;
    if ((rc = PMPI_Request_free(req)) != MPI_SUCCESS ||
        (rc = PMPI_Recv_init(p->buf, p->count, p->type, peer, tag, comm,
                             req)) != MPI_SUCCESS)
        return rc;
    p->req = *req;
    p->made_peer = peer, p->made_tag = tag, p->made_comm = comm;
    return MPI_SUCCESS;
}

/* A receive's start: the rank's next posting.  Recording: as the program
 * made it; replay: with the recorded source and tag. */
static int start_recv(MPI_Request *req, struct pgm_persist *p)
{
    int from = pgm_to_world(p->comm, p->peer, "MPI_Start");
    int src = p->peer, tag = p->tag, never = 0, rc;
    MPI_Comm comm = p->comm;

    if (pgm.mode == PGM_REPLAY &&
        (never = pgm_irecv_replay(p->comm, from, &src, &tag)))
        src = pgm.rank, comm = pgm.nowhere;
    rc = remake(req, p, src, tag, comm);
    if (rc == MPI_SUCCESS && (rc = PMPI_Start(req)) == MPI_SUCCESS)
        pgm_irecv_posted(req, p->comm, from, p->tag, never);
    return rc;
}

static int start_one(MPI_Request *req)
{
    struct pgm_persist *p = pgm_persist_find(req);

    if (!p)
        return PMPI_Start(req);
    return p->recv ? start_recv(req, p) : start_send(req, p);
}

PGM_API int MPI_Start(MPI_Request *req)
{
    int rc;

    if (pgm.mode == PGM_OFF || pgm.busy || !pgm_persist_find(req))
        return PMPI_Start(req);
    PGM_SITE();
    PGM_GATE("MPI_Start", PGM_GATE_NONE, -1, -1); /* -live (mpi_gate.c) */
    pgm.busy = 1;
    rc = start_one(req);
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Startall(int n, MPI_Request reqs[])
{
    int i, rc = MPI_SUCCESS;

    if (pgm.mode == PGM_OFF || pgm.busy)
        return PMPI_Startall(n, reqs);
    PGM_SITE();
    PGM_GATE("MPI_Startall", PGM_GATE_NONE, -1, -1);
    pgm.busy = 1;
    for (i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = start_one(&reqs[i]);
    pgm.busy = 0;
    return rc;
}

/* A request freed: the program never learns how it ends (no event); a
 * persistent one is forgotten too. */
PGM_API int MPI_Request_free(MPI_Request *req)
{
    if (pgm.mode != PGM_OFF && !pgm.busy) {
        pgm_isend_forget(req);
        pgm_irecv_forget(req);
        pgm_persist_forget(req);
    }
    return PMPI_Request_free(req);
}
