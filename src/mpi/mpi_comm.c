/*
 * mpi_comm.c - communicators named for the log: every send and receive
 * carries its communicator as a number (pg_event.ctx, format 7) that is
 * the same in every rank and in every run, so that `-races` never takes
 * a message of one communicator for an alternative of a receive on
 * another (docs/mpi-notes.md, "Communicators").
 *
 * Design.  MPI's own context ids are not at hand: MPICH's and Open MPI's
 * live inside their communicator objects, behind no public call, and a
 * handle (MPICH's int, Open MPI's pointer, its Fortran index) is each
 * process's own.  What every member of a new communicator does see alike
 * is how it was made: the constructors (MPI_Comm_dup, MPI_Comm_split,
 * MPI_Comm_create, MPI_Cart_create, ...) are collectives over their
 * parent, which every member of the parent calls in the same order.  So
 * the n-th communicator made from a parent named P is named
 * mix(P, n), MPI_COMM_WORLD 0 and MPI_COMM_SELF 1: a tree of creations,
 * the same in every rank and in every run of the program (a replay and
 * a what-if name them alike).  The name and the parent's count of
 * children ride on the communicator as an attribute of our own keyval
 * (freed with the communicator, never copied by MPI_Comm_dup: the dup's
 * wrapper names it), so a freed handle that comes back is no stale key.
 * The communicators MPI_Comm_split (or MPI_Cart_sub, MPI_Comm_split_type)
 * makes from one call share a name: a rank is in one of them only, so a
 * receive never meets another one's messages.  One made otherwise
 * (MPI_Comm_create_group, MPI_Comm_idup, MPI_Intercomm_merge, Open MPI's
 * Fortran calls, which go to PMPI_ directly) is 0, as MPI_COMM_WORLD:
 * -races then judges it as before contexts were recorded (messages of
 * the two may be taken for each other's alternatives; none is missed).
 * Names are 30-bit hashes: two communicators of a run share one with a
 * chance of about n^2 / 2^31.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pg_mpi.h"

struct cname {
    int id;   /* the name written as ctx */
    int made; /* communicators made from this one so far */
};

static struct cname world = { 0, 0 }, self = { 1, 0 };
static int keyval = MPI_KEYVAL_INVALID;

static int forget(MPI_Comm comm, int key, void *attr, void *extra)
{
    (void)comm, (void)key, (void)extra;
    free(attr);
    return MPI_SUCCESS;
}

static struct cname *name_of(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;

    if (comm == MPI_COMM_WORLD)
        return &world;
    if (comm == MPI_COMM_SELF)
        return &self;
    if (keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return v;
}

int pgm_ctx_of_made(MPI_Comm comm)
{
    const struct cname *c = name_of(comm);

    return c ? c->id : 0;
}

/* The n-th child of parent p: a 30-bit mix (splitmix64's finaliser),
 * never 0 or 1 (MPI_COMM_WORLD's and MPI_COMM_SELF's). */
static int child_id(int p, int n)
{
    uint64_t z = ((uint64_t)(uint32_t)p << 32 | (uint32_t)n) +
                 0x9E3779B97F4A7C15ull;

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    z &= 0x3FFFFFFF;
    return z < 2 ? (int)z + 2 : (int)z;
}

void pgm_ctx_set(MPI_Comm comm, int id)
{
    struct cname *c;

    if (keyval == MPI_KEYVAL_INVALID &&
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, forget, &keyval,
                                NULL) != MPI_SUCCESS)
        return;
    if (!(c = malloc(sizeof *c)))
        return;
    *c = (struct cname){ id, 0 };
    if (PMPI_Comm_set_attr(comm, keyval, c) != MPI_SUCCESS)
        free(c);
}

/* A constructor over parent returned rc and *made: counted among the
 * parent's children in every member (MPI_COMM_NULL too: a member that
 * gets none made the call all the same), and named. */
static void name_child(MPI_Comm parent, int rc, const MPI_Comm *made)
{
    struct cname *p = name_of(parent);

    if (!p || rc != MPI_SUCCESS)
        return; /* an unnamed parent's children are unnamed (0) */
    p->made++;
    if (*made != MPI_COMM_NULL)
        pgm_ctx_set(*made, child_id(p->id, p->made));
}

int pgm_ctx_made(MPI_Comm parent, MPI_Comm made)
{
    name_child(parent, MPI_SUCCESS, &made);
    return pgm_ctx_of(made);
}

PGM_API int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup(comm, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info,
                                   MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_dup_with_info(comm, info, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Comm_split(MPI_Comm comm, int color, int key,
                           MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split(comm, color, key, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Comm_split_type(MPI_Comm comm, int type, int key,
                                MPI_Info info, MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Comm_create(MPI_Comm comm, MPI_Group group,
                            MPI_Comm *newcomm)
{
    int rc = PMPI_Comm_create(comm, group, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[],
                            const int periods[], int reorder,
                            MPI_Comm *newcomm)
{
    int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[],
                         MPI_Comm *newcomm)
{
    int rc = PMPI_Cart_sub(comm, remain_dims, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}

PGM_API int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[],
                             const int edges[], int reorder,
                             MPI_Comm *newcomm)
{
    int rc = PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);

    name_child(comm, rc, newcomm);
    return rc;
}
