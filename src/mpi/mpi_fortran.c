/*
 * mpi_fortran.c - Open MPI's Fortran calls (pg_mpi.h): the Fortran names
 * a program compiled with mpif90.openmpi calls (mpi_send_ ...), turned
 * into the C calls this library wraps.
 *
 * Design.  Open MPI's Fortran bindings (libmpi_mpifh) call PMPI_Send and
 * the rest directly, past every MPI_ wrapper (docs/mpi-notes.md), where
 * MPICH's call the C MPI_ names.  The preloaded library defines the
 * Fortran names itself, ahead of libmpi_mpifh: each converts the
 * Fortran handles (integers) to C ones with MPI's own f2c/c2f calls and
 * calls the C wrapper, which records or replays as for C.  Only the calls
 * the C side wraps are here; the others go to Open MPI's bindings, which
 * is what they did before.  gfortran's names (lower case, one trailing
 * underscore: mpif.h and `use mpi`); `use mpi_f08` names (mpi_send_f08)
 * are not taken yet, and such a rank says it was not recorded
 * (mpi_log.c).  The call site is the Fortran program's (FORTRAN_SITE),
 * not this file's.  Built into the Open MPI library only: MPICH's
 * bindings reach the C wrappers by themselves.
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
#define FORTRAN_SITE() (pgm.pc = __builtin_return_address(0), pgm.pc_set = 1)
#define DONE(rc) (pgm.pc_set = 0, *ierr = (MPI_Fint)(rc))

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
    *ierr = (MPI_Fint)MPI_Init(NULL, NULL);
}

PGM_API void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
                              MPI_Fint *ierr)
{
    int p = 0;

    *ierr = (MPI_Fint)MPI_Init_thread(NULL, NULL, (int)*required, &p);
    *provided = (MPI_Fint)p;
}

PGM_API void mpi_finalize_(MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)MPI_Finalize();
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

PGM_API void mpi_isend_(void *buf, MPI_Fint *count, MPI_Fint *type,
                        MPI_Fint *dest, MPI_Fint *tag, MPI_Fint *comm,
                        MPI_Fint *req, MPI_Fint *ierr)
{
    MPI_Request r;
    int rc;

    FORTRAN_SITE();
    rc = MPI_Isend(buf, (int)*count, PMPI_Type_f2c(*type), (int)*dest,
                   (int)*tag, PMPI_Comm_f2c(*comm), &r);
    if (rc == MPI_SUCCESS)
        *req = PMPI_Request_c2f(r);
    DONE(rc);
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

PGM_API void mpi_waitall_(MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *statuses,
                          MPI_Fint *ierr)
{
    MPI_Request *r = c_requests((int)*n, reqs);
    MPI_Status *c = malloc((size_t)(*n > 0 ? *n : 1) * sizeof *c);
    int rc, i;

    if (!c)
        pgm_die(PGM_REFUSED, "out of memory");
    FORTRAN_SITE();
    rc = MPI_Waitall((int)*n, r, c);
    fortran_requests((int)*n, reqs, r);
    for (i = 0; rc == MPI_SUCCESS && i < (int)*n &&
                statuses != mpi_fortran_statuses_ignore_; i++)
        PMPI_Status_c2f(&c[i], statuses + i * F_STATUS_SIZE);
    free(c);
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
        *ierr = (MPI_Fint)rc;                                               \
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
    *ierr = (MPI_Fint)rc;
}

PGM_API double mpi_wtime_(void)
{
    return MPI_Wtime();
}

PGM_API double mpi_wtick_(void)
{
    return MPI_Wtick();
}

#endif
