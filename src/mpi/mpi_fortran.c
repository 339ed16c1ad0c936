/*
 * mpi_fortran.c - Open MPI's Fortran calls (pg_mpi.h): the Fortran names
 * a program compiled with mpif90.openmpi calls (mpi_send_,
 * mpi_send_f08_ ...), turned into the C calls this library wraps.
 *
 * Design.  Open MPI's Fortran bindings (libmpi_mpifh) call PMPI_Send and
 * the rest directly, past every MPI_ wrapper (docs/mpi-notes.md), where
 * MPICH's call the C MPI_ names.  The preloaded library defines the
 * Fortran names itself, ahead of libmpi_mpifh: each converts the
 * Fortran handles (integers) to C ones with MPI's own f2c/c2f calls and
 * calls the C wrapper, which records or replays as for C.  Only the calls
 * the C side wraps are here (the communicators' constructors too, which
 * mpi_comm.c names for the log); the others go to Open MPI's bindings,
 * which is what they did before.  gfortran's names (lower case, one trailing
 * underscore: mpif.h and `use mpi`), and `use mpi_f08`'s (mpi_send_f08_
 * ...): Open MPI's f08 bindings take the same arguments, ierror optional
 * (NULL when left out), so the f08 names are aliases of the same
 * functions (the list: mpi_f08.def).  The call site is the Fortran
 * program's (FORTRAN_SITE), not this file's.  Built into the Open MPI
 * library only: MPICH's bindings of mpif.h and `use mpi` reach the C
 * wrappers by themselves, and its `use mpi_f08` names are mpi_f08.c's.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "pg_mpi.h"

#ifdef OPEN_MPI

/* Open MPI's Fortran MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are
 * these variables' addresses. */
extern MPI_Fint mpi_fortran_status_ignore_[], mpi_fortran_statuses_ignore_[];
/* Fortran's MPI_STATUS_SIZE: a C status in integers (6 in Open MPI 4.1) */
#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

/* The Fortran caller's return address is the site the C wrapper logs. */
#define FORTRAN_SITE() PGM_FORTRAN_SITE()
/* ierror is optional in `use mpi_f08` (NULL when left out), never in
 * mpif.h and `use mpi`. */
static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}
#define SET_IERR(rc) set_ierr(ierr, (rc))
/* The call made (rc, an argument: made before pc_set is cleared). */
static void done(MPI_Fint *ierr, int rc)
{
    pgm.pc_set = 0;
    set_ierr(ierr, rc);
}
#define DONE(rc) done(ierr, (rc))

static MPI_Status *c_status(MPI_Fint *f, MPI_Status *c)
{
    return f == mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : c;
}

static void f_status(int rc, MPI_Fint *f, const MPI_Status *c)
{
    if (rc == MPI_SUCCESS && f != mpi_fortran_status_ignore_)
        PMPI_Status_c2f(c, f);
}

PGM_API void mpi_init_(MPI_Fint *ierr)
{
    SET_IERR(MPI_Init(NULL, NULL));
}

PGM_API void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
                              MPI_Fint *ierr)
{
    int p = 0, rc = MPI_Init_thread(NULL, NULL, (int)*required, &p);

    *provided = (MPI_Fint)p;
    SET_IERR(rc);
}

PGM_API void mpi_finalize_(MPI_Fint *ierr)
{
    SET_IERR(MPI_Finalize());
}

PGM_API void mpi_send_(void *buf, MPI_Fint *count, MPI_Fint *type,
                       MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                       MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(MPI_Send(buf, (int)*count, PMPI_Type_f2c(*type), (int)*dest,
                  (int)*tag, PMPI_Comm_f2c(*comm)));
}

PGM_API void mpi_ssend_(void *buf, MPI_Fint *count, MPI_Fint *type,
                        MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                        MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(MPI_Ssend(buf, (int)*count, PMPI_Type_f2c(*type), (int)*dest,
                   (int)*tag, PMPI_Comm_f2c(*comm)));
}

PGM_API void mpi_recv_(void *buf, MPI_Fint *count, MPI_Fint *type,
                       MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
                       MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c;
    int rc;

    FORTRAN_SITE();
    rc = MPI_Recv(buf, (int)*count, PMPI_Type_f2c(*type), (int)*source,
                  (int)*tag, PMPI_Comm_f2c(*comm), c_status(status, &c));
    f_status(rc, status, &c);
    DONE(rc);
}

/* MPI_Isend and MPI_Issend (call) of a Fortran program. */
typedef int c_isend(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                    MPI_Request *);
static int isend(c_isend *call, void *buf, MPI_Fint *count, MPI_Fint *type,
                 MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm, MPI_Fint *req)
{
    MPI_Request r;
    int rc = call(buf, (int)*count, PMPI_Type_f2c(*type), (int)*dest,
                  (int)*tag, PMPI_Comm_f2c(*comm), &r);

    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    return rc;
}

PGM_API void mpi_isend_(void *buf, MPI_Fint *count, MPI_Fint *type,
                        MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                        MPI_Fint *req, MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(isend(MPI_Isend, buf, count, type, dest, tag, comm, req));
}

PGM_API void mpi_issend_(void *buf, MPI_Fint *count, MPI_Fint *type,
                         MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                         MPI_Fint *req, MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(isend(MPI_Issend, buf, count, type, dest, tag, comm, req));
}

PGM_API void mpi_irecv_(void *buf, MPI_Fint *count, MPI_Fint *type,
                        MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
                        MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request r;
    int rc;

    FORTRAN_SITE();
    rc = MPI_Irecv(buf, (int)*count, PMPI_Type_f2c(*type), (int)*source,
                   (int)*tag, PMPI_Comm_f2c(*comm), &r);
    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    DONE(rc);
}

PGM_API void mpi_wait_(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    MPI_Status c;
    int rc;

    FORTRAN_SITE();
    rc = MPI_Wait(&r, c_status(status, &c));
    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    f_status(rc, status, &c);
    DONE(rc);
}

PGM_API void mpi_test_(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status,
                       MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    MPI_Status c;
    int rc, f = 0;

    FORTRAN_SITE();
    rc = MPI_Test(&r, &f, c_status(status, &c));
    if (rc == MPI_SUCCESS) {
        *req = PMPI_Request_c2f(r);
        *flag = f;
    }
    if (f)
        f_status(rc, status, &c);
    DONE(rc);
}

/* The C requests of n Fortran ones (given back with fortran_requests). */
static MPI_Request *c_requests(int n, const MPI_Fint *reqs)
{
    MPI_Request *r = malloc((size_t)(n > 0 ? n : 1) * sizeof *r);
    int i;

    if (!r)
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < n; i++)
        r[i] = PMPI_Request_f2c(reqs[i]);
    return r;
}

static void fortran_requests(int n, MPI_Fint *reqs, MPI_Request *r)
{
    int i;

    for (i = 0; i < n; i++)
        reqs[i] = PMPI_Request_c2f(r[i]);
    free(r);
}

/* Waitany and Testany (flag NULL: Waitany); Fortran indices from 1. */
static int any(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag,
               MPI_Fint *status)
{
    MPI_Request *r = c_requests((int)*n, reqs);
    MPI_Status c;
    int rc, i = MPI_UNDEFINED, f = 1;

    rc = flag ? MPI_Testany((int)*n, r, &i, &f, c_status(status, &c))
              : MPI_Waitany((int)*n, r, &i, c_status(status, &c));
    fortran_requests((int)*n, reqs, r);
    if (rc == MPI_SUCCESS) {
        *index = i == MPI_UNDEFINED ? MPI_UNDEFINED : i + 1;
        if (flag)
            *flag = f;
        if (f && i != MPI_UNDEFINED)
            f_status(rc, status, &c);
    }
    return rc;
}

PGM_API void mpi_waitany_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *index,
                          MPI_Fint *status, MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(any(n, reqs, index, NULL, status));
}

PGM_API void mpi_testany_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *index,
                          MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(any(n, reqs, index, flag, status));
}

/* The C statuses of n Fortran ones (given back with fortran_statuses). */
static MPI_Status *c_statuses(int n)
{
    MPI_Status *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);

    if (!c)
        pgm_die(PGM_REFUSED, "out of memory");
    return c;
}

/* The first n of them (none if the program ignores them). */
static void fortran_statuses(int n, MPI_Fint *f, MPI_Status *c)
{
    int i;

    for (i = 0; i < n && f != mpi_fortran_statuses_ignore_; i++)
        PMPI_Status_c2f(&c[i], f + i * F_STATUS_SIZE);
    free(c);
}

/* Waitall and Testall (flag NULL: Waitall). */
static int all(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses)
{
    MPI_Request *r = c_requests((int)*n, reqs);
    MPI_Status *c = c_statuses((int)*n);
    int rc, f = 1;

    rc = flag ? MPI_Testall((int)*n, r, &f, c) : MPI_Waitall((int)*n, r, c);
    fortran_requests((int)*n, reqs, r);
    if (rc == MPI_SUCCESS && flag)
        *flag = f;
    fortran_statuses(rc == MPI_SUCCESS && f ? (int)*n : 0, statuses, c);
    return rc;
}

PGM_API void mpi_waitall_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *statuses,
                          MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(all(n, reqs, NULL, statuses));
}

PGM_API void mpi_testall_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *flag,
                          MPI_Fint *statuses, MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(all(n, reqs, flag, statuses));
}

/* Waitsome and Testsome (test 1: Testsome); Fortran indices from 1. */
static int some(int test, MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *out,
                MPI_Fint *indices, MPI_Fint *statuses)
{
    MPI_Request *r = c_requests((int)*n, reqs);
    MPI_Status *c = c_statuses((int)*n);
    int *idx = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *idx);
    int rc, k = MPI_UNDEFINED, i;

    if (!idx)
        pgm_die(PGM_REFUSED, "out of memory");
    rc = test ? MPI_Testsome((int)*n, r, &k, idx, c)
              : MPI_Waitsome((int)*n, r, &k, idx, c);
    fortran_requests((int)*n, reqs, r);
    if (rc == MPI_SUCCESS) {
        *out = k;
        for (i = 0; i < k; i++)
            indices[i] = idx[i] + 1;
    }
    fortran_statuses(rc == MPI_SUCCESS && k != MPI_UNDEFINED ? k : 0,
                     statuses, c);
    free(idx);
    return rc;
}

PGM_API void mpi_waitsome_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *out,
                           MPI_Fint *indices, MPI_Fint *statuses,
                           MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(some(0, n, reqs, out, indices, statuses));
}

PGM_API void mpi_testsome_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *out,
                           MPI_Fint *indices, MPI_Fint *statuses,
                           MPI_Fint *ierr)
{
    FORTRAN_SITE();
    DONE(some(1, n, reqs, out, indices, statuses));
}

/* A test that leaves the request as it is (a handle, not its address). */
PGM_API void mpi_request_get_status_(MPI_Fint *req, MPI_Fint *flag,
                                     MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c;
    int rc, f = 0;

    FORTRAN_SITE();
    rc = MPI_Request_get_status(PMPI_Request_f2c(*req), &f,
                                c_status(status, &c));
    if (rc == MPI_SUCCESS)
        *flag = f;
    if (f)
        f_status(rc, status, &c);
    DONE(rc);
}

PGM_API void mpi_iprobe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
                         MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c;
    int rc, f = 0;

    FORTRAN_SITE();
    rc = MPI_Iprobe((int)*source, (int)*tag, PMPI_Comm_f2c(*comm), &f,
                    c_status(status, &c));
    if (rc == MPI_SUCCESS)
        *flag = f;
    if (f)
        f_status(rc, status, &c);
    DONE(rc);
}

PGM_API void mpi_probe_(MPI_Fint *source, MPI_Fint *tag, MPI_Fint *comm,
                        MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c;
    int rc;

    FORTRAN_SITE();
    rc = MPI_Probe((int)*source, (int)*tag, PMPI_Comm_f2c(*comm),
                   c_status(status, &c));
    f_status(rc, status, &c);
    DONE(rc);
}

PGM_API void mpi_sendrecv_(void *sbuf, MPI_Fint *scount, MPI_Fint *stype,
                           MPI_Fint *dest, MPI_Fint *stag, void *rbuf,
                           MPI_Fint *rcount, MPI_Fint *rtype,
                           MPI_Fint *source, MPI_Fint *rtag, MPI_Fint *comm,
                           MPI_Fint *status, MPI_Fint *ierr)
{
    MPI_Status c;
    int rc;

    FORTRAN_SITE();
    rc = MPI_Sendrecv(sbuf, (int)*scount, PMPI_Type_f2c(*stype), (int)*dest,
                      (int)*stag, rbuf, (int)*rcount, PMPI_Type_f2c(*rtype),
                      (int)*source, (int)*rtag, PMPI_Comm_f2c(*comm),
                      c_status(status, &c));
    f_status(rc, status, &c);
    DONE(rc);
}

/* Persistent requests (mpi_start.c): a replay may give a started
 * receive a new C request, and so a new Fortran handle. */
#define F_SEND_INIT(fname, cname)                                           \
    PGM_API void fname(void *buf, MPI_Fint *count, MPI_Fint *type,          \
                       MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,       \
                       MPI_Fint *req, MPI_Fint *ierr)                       \
    {                                                                       \
        MPI_Request r;                                                      \
        int rc = cname(buf, (int)*count, PMPI_Type_f2c(*type), (int)*dest,  \
                       (int)*tag, PMPI_Comm_f2c(*comm), &r);                \
                                                                            \
        if (rc == MPI_SUCCESS)                                              \
            *req = PMPI_Request_c2f(r);                                     \
        SET_IERR(rc);                                                       \
    }
F_SEND_INIT(mpi_send_init_, MPI_Send_init)
F_SEND_INIT(mpi_ssend_init_, MPI_Ssend_init)
F_SEND_INIT(mpi_bsend_init_, MPI_Bsend_init)
F_SEND_INIT(mpi_rsend_init_, MPI_Rsend_init)
F_SEND_INIT(mpi_recv_init_, MPI_Recv_init)

PGM_API void mpi_start_(MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    int rc;

    FORTRAN_SITE();
    rc = MPI_Start(&r);
    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    DONE(rc);
}

PGM_API void mpi_startall_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *ierr)
{
    MPI_Request *r = c_requests((int)*n, reqs);
    int rc;

    FORTRAN_SITE();
    rc = MPI_Startall((int)*n, r);
    fortran_requests((int)*n, reqs, r);
    DONE(rc);
}

PGM_API void mpi_request_free_(MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    int rc = MPI_Request_free(&r);

    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    SET_IERR(rc);
}

PGM_API double mpi_wtime_(void)
{
    return MPI_Wtime();
}

PGM_API double mpi_wtick_(void)
{
    return MPI_Wtick();
}

/* ---- communicators: the C wrappers name them (mpi_comm.c) ---- */

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran integers are ints");

/* A constructor's result back to Fortran. */
static void f_comm(int rc, MPI_Comm made, MPI_Fint *out, MPI_Fint *ierr)
{
    if (rc == MPI_SUCCESS)
        *out = PMPI_Comm_c2f(made);
    set_ierr(ierr, rc);
}

/* Fortran logicals (gfortran: 0 false) as C's, n of them. */
static int *c_logicals(const MPI_Fint *f, int n)
{
    int *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c), i;

    if (!c)
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < n; i++)
        c[i] = f[i] != 0;
    return c;
}

PGM_API void mpi_comm_dup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_dup(PMPI_Comm_f2c(*comm), &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_comm_dup_with_info_(MPI_Fint *comm, MPI_Fint *info,
                                     MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_dup_with_info(PMPI_Comm_f2c(*comm),
                                    PMPI_Info_f2c(*info), &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_comm_idup_(MPI_Fint *comm, MPI_Fint *newcomm, MPI_Fint *req,
                            MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request r;
    int rc = MPI_Comm_idup(PMPI_Comm_f2c(*comm), &c, &r);

    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_comm_split_(MPI_Fint *comm, MPI_Fint *color, MPI_Fint *key,
                             MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_split(PMPI_Comm_f2c(*comm), (int)*color, (int)*key, &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_comm_split_type_(MPI_Fint *comm, MPI_Fint *type,
                                  MPI_Fint *key, MPI_Fint *info,
                                  MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_split_type(PMPI_Comm_f2c(*comm), (int)*type, (int)*key,
                                 PMPI_Info_f2c(*info), &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_comm_create_(MPI_Fint *comm, MPI_Fint *group,
                              MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_create(PMPI_Comm_f2c(*comm), PMPI_Group_f2c(*group),
                             &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_comm_create_group_(MPI_Fint *comm, MPI_Fint *group,
                                    MPI_Fint *tag, MPI_Fint *newcomm,
                                    MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Comm_create_group(PMPI_Comm_f2c(*comm),
                                   PMPI_Group_f2c(*group), (int)*tag, &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_intercomm_create_(MPI_Fint *local, MPI_Fint *local_leader,
                                   MPI_Fint *peer, MPI_Fint *remote_leader,
                                   MPI_Fint *tag, MPI_Fint *newcomm,
                                   MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Intercomm_create(PMPI_Comm_f2c(*local), (int)*local_leader,
                                  PMPI_Comm_f2c(*peer), (int)*remote_leader,
                                  (int)*tag, &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_intercomm_merge_(MPI_Fint *intercomm, MPI_Fint *high,
                                  MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Intercomm_merge(PMPI_Comm_f2c(*intercomm), *high != 0, &c);

    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_cart_create_(MPI_Fint *comm, MPI_Fint *ndims, MPI_Fint *dims,
                              MPI_Fint *periods, MPI_Fint *reorder,
                              MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int *p = c_logicals(periods, (int)*ndims);
    int rc = MPI_Cart_create(PMPI_Comm_f2c(*comm), (int)*ndims, (int *)dims,
                             p, *reorder != 0, &c);

    free(p);
    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_cart_sub_(MPI_Fint *comm, MPI_Fint *remain,
                           MPI_Fint *newcomm, MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL, in = PMPI_Comm_f2c(*comm);
    int n = 0, *r, rc;

    PMPI_Cartdim_get(in, &n);
    r = c_logicals(remain, n);
    rc = MPI_Cart_sub(in, r, &c);
    free(r);
    f_comm(rc, c, newcomm, ierr);
}

PGM_API void mpi_graph_create_(MPI_Fint *comm, MPI_Fint *nnodes,
                               MPI_Fint *index, MPI_Fint *edges,
                               MPI_Fint *reorder, MPI_Fint *newcomm,
                               MPI_Fint *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    int rc = MPI_Graph_create(PMPI_Comm_f2c(*comm), (int)*nnodes,
                              (int *)index, (int *)edges, *reorder != 0, &c);

    f_comm(rc, c, newcomm, ierr);
}

/* `use mpi_f08`'s names (mpi_send_f08_ ...): Open MPI's f08 bindings take
 * the arguments of mpif.h's (a handle's type holds its integer handle,
 * type(MPI_Status) is the integer status, the same MPI_STATUS_IGNORE;
 * ierror optional: NULL when left out) and call PMPI_ as they do: the
 * same functions under a second name. */
#define F08_ALIAS(stem)                                                     \
    PGM_API extern __typeof__(mpi_##stem##_) mpi_##stem##_f08_              \
        __attribute__((alias("mpi_" #stem "_")));
#define F08_BUF(stem, cname, n) F08_ALIAS(stem)
#define F08(stem) F08_ALIAS(stem)
#define F08_FN(stem)
#include "mpi_f08.def"
/* and the communicators' constructors (Open MPI's only: MPICH's f08
 * bindings of these call PMPI_ themselves, so what they make is 0) */
F08_ALIAS(comm_dup)
F08_ALIAS(comm_dup_with_info)
F08_ALIAS(comm_idup)
F08_ALIAS(comm_split)
F08_ALIAS(comm_split_type)
F08_ALIAS(comm_create)
F08_ALIAS(comm_create_group)
F08_ALIAS(intercomm_create)
F08_ALIAS(intercomm_merge)
F08_ALIAS(cart_create)
F08_ALIAS(cart_sub)
F08_ALIAS(graph_create)

#endif
