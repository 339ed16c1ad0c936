/*
 * mpi_f08.c - MPICH's `use mpi_f08` calls (pg_mpi.h): the names a program
 * compiled with mpif90.mpich calls (mpi_send_f08ts_, mpi_wait_f08_ ...),
 * made to reach the C calls this library wraps.
 *
 * Design.  MPICH's f08 bindings (libmpichfort) reach MPI in two ways
 * (docs/mpi-notes.md, checked with objdump): those with a choice buffer
 * (mpi_send_f08ts_: the buffer an array descriptor) turn it into a C
 * buffer and call the C MPI_ name, which the C wrappers see; the others
 * (mpi_init_f08_, mpi_wait_f08_, mpi_iprobe_f08_ ...) call PMPI_
 * directly, past every wrapper, MPI_Init's too, and such a rank recorded
 * nothing.  So the library defines both kinds, ahead of libmpichfort:
 * - a buffer call (F08_BUF in mpi_f08.def) notes the program's call site
 *   and goes on to MPICH's own binding (dlsym RTLD_NEXT), which converts
 *   the descriptor (a noncontiguous section too) and calls the C wrapper;
 *   its _large_ variant (MPI_Count counts) calls MPI_Send_c and the rest,
 *   which nothing wraps: in a recording or replay it ends the run, named;
 * - the others call the C wrapper themselves.  MPICH's f08 handles hold
 *   the C handle (an int), and its type(MPI_Status) is C's MPI_Status
 *   (MPI_F08_status, mpi.h): only MPI_STATUS_IGNORE and
 *   MPI_STATUSES_IGNORE (the addresses of MPIR_F08_MPI_STATUS_IGNORE_OBJ
 *   and MPIR_F08_MPI_STATUSES_IGNORE_OBJ) and the logical flags need
 *   converting.  The indices of Waitany, Testany, Waitsome and Testsome
 *   are given as MPICH 4.0.2's binding gives them: as C's, from 0 (not
 *   the standard's 1), since a program must see under Pangaea what it
 *   sees without (tests/e2e/test_mpi_f08.sh compares them).
 * The communicators' constructors (mpi_comm_dup_f08_ ...) call PMPI_ too:
 * they call the C wrappers here, which name what they make (mpi_comm.c).
 * The call site is the Fortran program's (PGM_FORTRAN_SITE).  Built into
 * the MPICH library only: Open MPI's f08 names are mpi_fortran.c's.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>

#include "pg_mpi.h"

#ifndef OPEN_MPI

_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status) &&
                   offsetof(MPI_F08_status, MPI_SOURCE) ==
                       offsetof(MPI_Status, MPI_SOURCE) &&
                   offsetof(MPI_F08_status, MPI_TAG) ==
                       offsetof(MPI_Status, MPI_TAG),
               "MPICH's type(MPI_Status) is not C's MPI_Status");

/* The call made (rc, an argument: made before pc_set is cleared);
 * ierror is optional (NULL when left out). */
static void done(int *ierr, int rc)
{
    pgm.pc_set = 0;
    if (ierr)
        *ierr = rc;
}
#define DONE(rc) done(ierr, (rc))

static MPI_Status *c_status(MPI_F08_status *f)
{
    return f == &MPIR_F08_MPI_STATUS_IGNORE_OBJ ? MPI_STATUS_IGNORE
                                                : (MPI_Status *)f;
}

static MPI_Status *c_statuses(MPI_F08_status *f)
{
    return f == MPIR_F08_MPI_STATUSES_IGNORE_OBJ ? MPI_STATUSES_IGNORE
                                                 : (MPI_Status *)f;
}

/* ---- the calls with a choice buffer: MPICH's binding, from our site ---- */

/* MPICH's own binding `name` (libmpichfort, after this library). */
static void *binding(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f)
        pgm_die(PGM_REFUSED, "no %s in MPICH's Fortran library", name);
    return f;
}

/* Every argument of a Fortran call is an address. */
#define P7 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7
#define P8 P7, void *a8
#define P13 P8, void *a9, void *a10, void *a11, void *a12, void *a13
#define A7 a1, a2, a3, a4, a5, a6, a7
#define A8 A7, a8
#define A13 A8, a9, a10, a11, a12, a13

#define FORWARD(name, n)                                                    \
    static void (*real)(P##n);                                              \
                                                                            \
    if (!real)                                                              \
        real = (void (*)(P##n))binding(name);                               \
    real(A##n)

#define F08_BUF(stem, cname, n)                                             \
    PGM_API void mpi_##stem##_f08ts_(P##n)                                  \
    {                                                                       \
        PGM_FORTRAN_SITE();                                                 \
        FORWARD("mpi_" #stem "_f08ts_", n);                                 \
        pgm.pc_set = 0;                                                     \
    }                                                                       \
    PGM_API void mpi_##stem##_f08ts_large_(P##n)                            \
    {                                                                       \
        if (pgm.mode != PGM_OFF)                                            \
            pgm_die(PGM_REFUSED, "%s with MPI_Count counts (mpi_f08's "     \
                    "%s) is not recorded or replayed", #cname,              \
                    "mpi_" #stem "_f08ts_large_");                          \
        FORWARD("mpi_" #stem "_f08ts_large_", n);                           \
    }
#define F08(stem)
#define F08_FN(stem)
#include "mpi_f08.def"

/* ---- the calls MPICH's binding makes with PMPI_: the C wrapper's ---- */

PGM_API void mpi_init_f08_(int *ierr)
{
    DONE(MPI_Init(NULL, NULL));
}

PGM_API void mpi_init_thread_f08_(int *required, int *provided, int *ierr)
{
    DONE(MPI_Init_thread(NULL, NULL, *required, provided));
}

PGM_API void mpi_finalize_f08_(int *ierr)
{
    DONE(MPI_Finalize());
}

PGM_API void mpi_wait_f08_(MPI_Request *req, MPI_F08_status *st, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Wait(req, c_status(st)));
}

/* The C flag *f of the call just made (its result rc) as a Fortran
 * logical (MPICH's binding writes 0 or 1). */
static int logical(int rc, const int *f, int *flag)
{
    if (rc == MPI_SUCCESS)
        *flag = *f != 0;
    return rc;
}

PGM_API void mpi_test_f08_(MPI_Request *req, int *flag, MPI_F08_status *st,
                           int *ierr)
{
    int f = 0;

    PGM_FORTRAN_SITE();
    DONE(logical(MPI_Test(req, &f, c_status(st)), &f, flag));
}

PGM_API void mpi_request_get_status_f08_(MPI_Request *req, int *flag,
                                         MPI_F08_status *st, int *ierr)
{
    int f = 0;

    PGM_FORTRAN_SITE();
    DONE(logical(MPI_Request_get_status(*req, &f, c_status(st)), &f, flag));
}

PGM_API void mpi_waitany_f08_(int *n, MPI_Request *reqs, int *index,
                              MPI_F08_status *st, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Waitany(*n, reqs, index, c_status(st)));
}

PGM_API void mpi_testany_f08_(int *n, MPI_Request *reqs, int *index,
                              int *flag, MPI_F08_status *st, int *ierr)
{
    int f = 0;

    PGM_FORTRAN_SITE();
    DONE(logical(MPI_Testany(*n, reqs, index, &f, c_status(st)), &f, flag));
}

PGM_API void mpi_waitall_f08_(int *n, MPI_Request *reqs, MPI_F08_status *sts,
                              int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Waitall(*n, reqs, c_statuses(sts)));
}

PGM_API void mpi_testall_f08_(int *n, MPI_Request *reqs, int *flag,
                              MPI_F08_status *sts, int *ierr)
{
    int f = 0;

    PGM_FORTRAN_SITE();
    DONE(logical(MPI_Testall(*n, reqs, &f, c_statuses(sts)), &f, flag));
}

PGM_API void mpi_waitsome_f08_(int *n, MPI_Request *reqs, int *out,
                               int *indices, MPI_F08_status *sts, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Waitsome(*n, reqs, out, indices, c_statuses(sts)));
}

PGM_API void mpi_testsome_f08_(int *n, MPI_Request *reqs, int *out,
                               int *indices, MPI_F08_status *sts, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Testsome(*n, reqs, out, indices, c_statuses(sts)));
}

PGM_API void mpi_iprobe_f08_(int *source, int *tag, MPI_Comm *comm, int *flag,
                             MPI_F08_status *st, int *ierr)
{
    int f = 0;

    PGM_FORTRAN_SITE();
    DONE(logical(MPI_Iprobe(*source, *tag, *comm, &f, c_status(st)), &f,
                 flag));
}

PGM_API void mpi_probe_f08_(int *source, int *tag, MPI_Comm *comm,
                            MPI_F08_status *st, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Probe(*source, *tag, *comm, c_status(st)));
}

PGM_API void mpi_start_f08_(MPI_Request *req, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Start(req));
}

PGM_API void mpi_startall_f08_(int *n, MPI_Request *reqs, int *ierr)
{
    PGM_FORTRAN_SITE();
    DONE(MPI_Startall(*n, reqs));
}

PGM_API void mpi_request_free_f08_(MPI_Request *req, int *ierr)
{
    DONE(MPI_Request_free(req));
}

PGM_API double mpi_wtime_f08_(void)
{
    double t;

    PGM_FORTRAN_SITE();
    t = MPI_Wtime();
    pgm.pc_set = 0;
    return t;
}

PGM_API double mpi_wtick_f08_(void)
{
    double t;

    PGM_FORTRAN_SITE();
    t = MPI_Wtick();
    pgm.pc_set = 0;
    return t;
}

/* ---- communicators: the C wrappers name them (mpi_comm.c) ---- */

PGM_API void mpi_comm_dup_f08_(MPI_Comm *comm, MPI_Comm *newcomm, int *ierr)
{
    DONE(MPI_Comm_dup(*comm, newcomm));
}

PGM_API void mpi_comm_dup_with_info_f08_(MPI_Comm *comm, MPI_Info *info,
                                         MPI_Comm *newcomm, int *ierr)
{
    DONE(MPI_Comm_dup_with_info(*comm, *info, newcomm));
}

PGM_API void mpi_comm_idup_f08_(MPI_Comm *comm, MPI_Comm *newcomm,
                                MPI_Request *req, int *ierr)
{
    DONE(MPI_Comm_idup(*comm, newcomm, req));
}

PGM_API void mpi_comm_split_f08_(MPI_Comm *comm, int *color, int *key,
                                 MPI_Comm *newcomm, int *ierr)
{
    DONE(MPI_Comm_split(*comm, *color, *key, newcomm));
}

PGM_API void mpi_comm_split_type_f08_(MPI_Comm *comm, int *type, int *key,
                                      MPI_Info *info, MPI_Comm *newcomm,
                                      int *ierr)
{
    DONE(MPI_Comm_split_type(*comm, *type, *key, *info, newcomm));
}

PGM_API void mpi_comm_create_f08_(MPI_Comm *comm, MPI_Group *group,
                                  MPI_Comm *newcomm, int *ierr)
{
    DONE(MPI_Comm_create(*comm, *group, newcomm));
}

PGM_API void mpi_comm_create_group_f08_(MPI_Comm *comm, MPI_Group *group,
                                        int *tag, MPI_Comm *newcomm,
                                        int *ierr)
{
    DONE(MPI_Comm_create_group(*comm, *group, *tag, newcomm));
}

PGM_API void mpi_intercomm_create_f08_(MPI_Comm *local, int *local_leader,
                                       MPI_Comm *peer, int *remote_leader,
                                       int *tag, MPI_Comm *newcomm, int *ierr)
{
    DONE(MPI_Intercomm_create(*local, *local_leader, *peer, *remote_leader,
                              *tag, newcomm));
}

/* high: a Fortran logical, 0 false (as the flags above) */
PGM_API void mpi_intercomm_merge_f08_(MPI_Comm *intercomm, int *high,
                                      MPI_Comm *newcomm, int *ierr)
{
    DONE(MPI_Intercomm_merge(*intercomm, *high != 0, newcomm));
}

#endif
