/*
 * mpi_p2p.c - the MPI calls the front end wraps (pg_mpi.h): start and
 * end, point-to-point messages on MPI_COMM_WORLD, the waits and tests of
 * nonblocking receives, probes.
 *
 * Design.  Each wrapper is the MPI name; the real call is its PMPI_ name
 * (the MPI profiling interface).  Recording calls the real function and
 * logs what it did; a replay first takes the next recorded event
 * (pgm_expect) and makes the real call say the same: a receive with a
 * wildcard source or tag is posted with the recorded source and tag, and
 * MPI's non-overtaking rule makes it take the recorded message (the
 * oldest of that sender and tag: docs/mpi-notes.md); a wait over several
 * requests waits for the one the recording says completed; a poll (a test,
 * a probe) that found nothing when recorded finds nothing now, and one
 * that found something waits until it does.
 *
 * Nonblocking receives are remembered from MPI_Irecv to their completion
 * (the table below): their event is written when the program learns of
 * the message (MPI_Wait, MPI_Waitany, MPI_Test), since that is when it can
 * act on it.  A send's event is written when it is posted (the order of
 * posting is the order non-overtaking keeps).
 *
 * Not wrapped yet (README.md, MPI programs, says what that means for a
 * replay): other communicators (refused: pgm_world_only),
 * MPI_Waitsome/Testsome/Testall, collectives, and a replay of
 * MPI_Irecv(MPI_ANY_SOURCE) (refused at the MPI_Irecv: which posted
 * receive a completion belongs to is not in the log; it needs a field).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_mpi.h"

/* A wrapped call goes straight to MPI when Pangaea is off, when MPI calls
 * itself, or for MPI_PROC_NULL (no message). */
#define PASS(peer) (pgm.mode == PGM_OFF || pgm.busy || (peer) == MPI_PROC_NULL)

/* ---- start and end ------------------------------------------------------- */

PGM_API int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);

    if (rc == MPI_SUCCESS)
        pgm_start();
    return rc;
}

/* Calls from several threads at once would be made in another order in a
 * replay: a program asking for MPI_THREAD_MULTIPLE is given SERIALIZED
 * (which MPI allows: the program sees it in `provided`), and told. */
PGM_API int MPI_Init_thread(int *argc, char ***argv, int required,
                            int *provided)
{
    const char *mode = getenv(PGM_ENV_MODE);
    int rc;

    if (mode && strcmp(mode, "none") && required > MPI_THREAD_SERIALIZED) {
        fprintf(stderr, "pangaea: MPI_THREAD_MULTIPLE is not recorded or "
                "replayed: this program gets MPI_THREAD_SERIALIZED (see "
                "`provided`)\n");
        required = MPI_THREAD_SERIALIZED;
    }
    rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        pgm_start();
    return rc;
}

PGM_API int MPI_Finalize(void)
{
    if (pgm.mode != PGM_OFF)
        pgm_finish();
    return PMPI_Finalize();
}

/* ---- small helpers --------------------------------------------------------- */

static int got_bytes(const MPI_Status *st)
{
    int n = 0;

    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return 0;
    return n;
}

static void give_status(MPI_Status *to, const MPI_Status *st)
{
    if (to != MPI_STATUS_IGNORE)
        *to = *st;
}

/* A replay's receive must admit the recorded message. */
static void check_admits(const struct pgm_ev *e, int source, int tag,
                         const char *call)
{
    if ((source == MPI_ANY_SOURCE || pgm_ltid_of(source) == e->from) &&
        (tag == MPI_ANY_TAG || tag == e->tag))
        return;
    pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded a "
            "receive from ltid %d, tag %d; the program's %s asks for %s%d, "
            "tag %s%d", e->seq, e->from, e->tag, call,
            source == MPI_ANY_SOURCE ? "any" : "ltid ",
            source == MPI_ANY_SOURCE ? 0 : pgm_ltid_of(source),
            tag == MPI_ANY_TAG ? "any" : "", tag == MPI_ANY_TAG ? 0 : tag);
}

/* What a receive took (or a probe found): logged, or checked against the
 * recorded event and passed. */
static void took(const char *call, const MPI_Status *st, int source, int tag,
                 const struct pgm_ev *e, int take)
{
    if (pgm.mode == PGM_LOG) {
        pgm_log_recv(call, st->MPI_SOURCE, st->MPI_TAG,
                     pgm_count(st->MPI_SOURCE, st->MPI_TAG, take),
                     got_bytes(st), source, tag);
        return;
    }
    if (pgm_ltid_of(st->MPI_SOURCE) != e->from || st->MPI_TAG != e->tag)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "a message of tag %d from ltid %d, but %s took one of tag %d "
                "from ltid %d", e->seq, e->tag, e->from, call, st->MPI_TAG,
                pgm_ltid_of(st->MPI_SOURCE));
    pgm_advance();
}

/* ---- sends ----------------------------------------------------------------- */

static int send_common(const char *call, const void *buf, int count,
                       MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                       MPI_Request *req)
{
    const char *calls[] = { call, NULL };
    const struct pgm_ev *e = NULL;
    int rc, msgid;

    pgm_world_only(comm, call);
    pgm.busy = 1;
    msgid = pgm.sent + 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_SEND, calls, call, 0);
        if (e->to != pgm_ltid_of(dest) || e->tag != tag || e->msgid != msgid)
            pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: "
                    "recorded send %d, to ltid %d, tag %d; the program's %s "
                    "is send %d, to ltid %d, tag %d", e->seq, e->msgid, e->to,
                    e->tag, call, msgid, pgm_ltid_of(dest), tag);
    }
    rc = req ? PMPI_Isend(buf, count, type, dest, tag, comm, req)
             : PMPI_Send(buf, count, type, dest, tag, comm);
    if (rc == MPI_SUCCESS) {
        pgm.sent = msgid;
        if (pgm.mode == PGM_LOG)
            pgm_log_send(call, dest, tag, msgid, pgm_bytes(type, count));
        else
            pgm_advance();
    }
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm)
{
    if (PASS(dest))
        return PMPI_Send(buf, count, type, dest, tag, comm);
    PGM_SITE();
    return send_common("MPI_Send", buf, count, type, dest, tag, comm, NULL);
}

PGM_API int MPI_Isend(const void *buf, int count, MPI_Datatype type,
                      int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (PASS(dest))
        return PMPI_Isend(buf, count, type, dest, tag, comm, req);
    PGM_SITE();
    return send_common("MPI_Isend", buf, count, type, dest, tag, comm, req);
}

/* ---- blocking receives and probes ----------------------------------------- */

static const char *const recv_calls[] = { "MPI_Recv", NULL };
static const char *const probe_calls[] = { "MPI_Iprobe", NULL };

PGM_API int MPI_Recv(void *buf, int count, MPI_Datatype type, int source,
                     int tag, MPI_Comm comm, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int rc;

    if (PASS(source))
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    PGM_SITE();
    pgm_world_only(comm, "MPI_Recv");
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, recv_calls, "MPI_Recv", 0);
        check_admits(e, source, tag, "MPI_Recv");
        rc = PMPI_Recv(buf, count, type, pgm_rank_of(e->from), e->tag, comm,
                       &st);
    } else {
        int s = source, t = tag; /* a what-if's choice, or -chaos's */

        if (pgm.hooks) {
            pgm_force_pick("MPI_Recv", &s, &t);
            pgm_chaos_pick(&s, t, comm);
        }
        rc = PMPI_Recv(buf, count, type, s, t, comm, &st);
    }
    if (rc == MPI_SUCCESS) {
        took("MPI_Recv", &st, source, tag, e, 1);
        give_status(status, &st);
    }
    pgm.busy = 0;
    return rc;
}

/* A probe takes nothing: its event names the message the next receive of
 * that sender and tag will take (counted, not taken). */
static int probe_common(const char *call, int source, int tag, MPI_Comm comm,
                        int *flag, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int rc, found = 1;

    pgm_world_only(comm, call);
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, probe_calls, call, flag != NULL);
        if (!e) { /* missed when recorded: misses now */
            pgm.busy = 0;
            return *flag = 0, MPI_SUCCESS;
        }
        check_admits(e, source, tag, call);
        rc = PMPI_Probe(pgm_rank_of(e->from), e->tag, comm, &st);
    } else {
        int s = source, t = tag; /* a what-if's choice: found, waited for */

        if ((pgm.hooks && pgm_force_pick("MPI_Iprobe", &s, &t)) || !flag)
            rc = PMPI_Probe(s, t, comm, &st);
        else
            rc = PMPI_Iprobe(s, t, comm, &found, &st);
    }
    if (rc == MPI_SUCCESS && found) {
        took("MPI_Iprobe", &st, source, tag, e, 0);
        give_status(status, &st);
    } else if (rc == MPI_SUCCESS && pgm.mode == PGM_LOG)
        pgm_log_miss("MPI_Iprobe", source, tag);
    if (flag)
        *flag = found;
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                       MPI_Status *status)
{
    if (PASS(source))
        return PMPI_Iprobe(source, tag, comm, flag, status);
    PGM_SITE();
    return probe_common("MPI_Iprobe", source, tag, comm, flag, status);
}

PGM_API int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (PASS(source))
        return PMPI_Probe(source, tag, comm, status);
    PGM_SITE();
    return probe_common("MPI_Probe", source, tag, comm, NULL, status);
}

/* ---- nonblocking receives -------------------------------------------------- */

/* A receive posted and not yet completed: its request and what it asked
 * for, in posting order (`order`). */
struct pending {
    MPI_Request req;
    int source, tag;
    long order;
};
static struct pending *pend;
static int npend, cap_pend;
static long posted;

static int find_pending(const MPI_Request *req)
{
    int i;

    for (i = 0; i < npend; i++)
        if (!memcmp(&pend[i].req, req, sizeof *req))
            return i;
    return -1;
}

static void forget(int i)
{
    pend[i] = pend[--npend];
}

static void remember(const MPI_Request *req, int source, int tag)
{
    struct pending *p;

    if (npend == cap_pend) {
        cap_pend = cap_pend ? 2 * cap_pend : 16;
        if (!(p = realloc(pend, (size_t)cap_pend * sizeof *p)))
            pgm_die(PGM_REFUSED, "out of memory");
        pend = p;
    }
    pend[npend++] = (struct pending){ *req, source, tag, ++posted };
}

PGM_API int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source,
                      int tag, MPI_Comm comm, MPI_Request *req)
{
    static int said;
    int rc;

    if (PASS(source))
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    pgm_world_only(comm, "MPI_Irecv");
    if (source == MPI_ANY_SOURCE && pgm.mode == PGM_REPLAY)
        pgm_die(PGM_REFUSED, "MPI_Irecv(MPI_ANY_SOURCE) is recorded, but "
                "its replay is not done yet (README.md, MPI programs)");
    if (source == MPI_ANY_SOURCE && !said++)
        fprintf(stderr, "pangaea: ltid %d (rank %d): MPI_Irecv(MPI_ANY_SOURCE) "
                "is recorded, but a replay of it is not done yet\n", pgm.ltid,
                pgm.rank);
    pgm.busy = 1;
    rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (rc == MPI_SUCCESS)
        remember(req, source, tag);
    pgm.busy = 0;
    return rc;
}

static const char *const irecv_calls[] = { "MPI_Irecv", NULL };

/* Request i of the pending ones completed with st. */
static void completed(int i, const MPI_Status *st, const struct pgm_ev *e)
{
    struct pending p = pend[i];

    forget(i);
    took("MPI_Irecv", st, p.source, p.tag, e, 1);
}

static int admits(const struct pending *p, const struct pgm_ev *e)
{
    return (p->source == MPI_ANY_SOURCE ||
            pgm_ltid_of(p->source) == e->from) &&
           (p->tag == MPI_ANY_TAG || p->tag == e->tag);
}

/* Replay: the recorded completion e was request i's. */
static void check_request(int i, const struct pgm_ev *e, const char *call)
{
    if (!admits(&pend[i], e))
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "the completion of a receive of ltid %d's tag %d; the "
                "request the program's %s waits for does not admit it",
                e->seq, e->from, e->tag, call);
}

PGM_API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int i, rc;

    if (pgm.mode == PGM_OFF || pgm.busy || (i = find_pending(req)) < 0)
        return PMPI_Wait(req, status); /* a send's: not an event */
    PGM_SITE();
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, irecv_calls, "MPI_Wait", 0);
        check_request(i, e, "MPI_Wait");
    }
    rc = PMPI_Wait(req, &st);
    if (rc == MPI_SUCCESS) {
        completed(i, &st, e);
        give_status(status, &st);
    }
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int i, rc;

    if (pgm.mode == PGM_OFF || pgm.busy || (i = find_pending(req)) < 0)
        return PMPI_Test(req, flag, status);
    PGM_SITE();
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, irecv_calls, "MPI_Test", 1);
        if (e)
            check_request(i, e, "MPI_Test");
        rc = e ? PMPI_Wait(req, &st) : MPI_SUCCESS;
        *flag = e != NULL;
    } else
        rc = PMPI_Test(req, flag, &st);
    if (rc == MPI_SUCCESS && *flag) {
        completed(i, &st, e);
        give_status(status, &st);
    } else if (rc == MPI_SUCCESS && pgm.mode == PGM_LOG)
        pgm_log_miss("MPI_Irecv", pend[i].source, pend[i].tag);
    pgm.busy = 0;
    return rc;
}

/* Replay: of the requests, the one the recorded completion e was: the
 * receive posted first among those that admit it (two receives that admit
 * a message: the one posted first takes it); -1 if none does. */
static int recorded_one(int n, const MPI_Request *reqs, const int *which,
                        const struct pgm_ev *e)
{
    int i, best = -1;

    for (i = 0; i < n; i++)
        if (which[i] >= 0 && admits(&pend[which[i]], e) &&
            (best < 0 || pend[which[i]].order < pend[which[best]].order))
            best = i;
    return best;
}

/* Waitany over receives: the one that completed first when recorded. */
static int waitany_replay(int n, MPI_Request *reqs, int *index,
                          const int *which, MPI_Status *st)
{
    const struct pgm_ev *e = pgm_expect(PG_EV_RECV, irecv_calls,
                                        "MPI_Waitany", 0);
    int i = recorded_one(n, reqs, which, e), rc;

    if (i < 0)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "the completion of a receive of ltid %d's tag %d; none of "
                "the requests the program's MPI_Waitany waits for admits it",
                e->seq, e->from, e->tag);
    rc = PMPI_Wait(&reqs[i], st);
    if (rc == MPI_SUCCESS) {
        *index = i;
        completed(which[i], st, e);
    }
    return rc;
}

PGM_API int MPI_Waitany(int n, MPI_Request reqs[], int *index,
                        MPI_Status *status)
{
    int *which, i, any = 0, rc;
    MPI_Status st;

    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Waitany(n, reqs, index, status);
    PGM_SITE();
    if (!(which = malloc((size_t)n * sizeof *which)))
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < n; i++)
        any |= (which[i] = find_pending(&reqs[i])) >= 0;
    if (!any) { /* sends only: not events */
        free(which);
        return PMPI_Waitany(n, reqs, index, status);
    }
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY)
        rc = waitany_replay(n, reqs, index, which, &st);
    else {
        rc = PMPI_Waitany(n, reqs, index, &st);
        if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED &&
            which[*index] >= 0)
            completed(which[*index], &st, NULL);
    }
    if (rc == MPI_SUCCESS)
        give_status(status, &st);
    free(which);
    pgm.busy = 0;
    return rc;
}

/* A Testany that found nothing asked for what its receives admit: one
 * source (tag) if they all name it, else any. */
static void testany_missed(int n, const int *which)
{
    int i, src = -2, tag = -2;

    for (i = 0; i < n; i++) {
        if (which[i] < 0)
            continue;
        src = src == -2 || src == pend[which[i]].source ? pend[which[i]].source
                                                        : MPI_ANY_SOURCE;
        tag = tag == -2 || tag == pend[which[i]].tag ? pend[which[i]].tag
                                                     : MPI_ANY_TAG;
    }
    pgm_log_miss("MPI_Irecv", src, tag);
}

/* Testany over receives: as MPI_Test (the tests that found none done,
 * then the one that found one), and which one, as MPI_Waitany. */
PGM_API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag,
                        MPI_Status *status)
{
    const struct pgm_ev *e;
    int *which, i, any = 0, rc = MPI_SUCCESS;
    MPI_Status st;

    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Testany(n, reqs, index, flag, status);
    if (!(which = malloc((size_t)n * sizeof *which)))
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < n; i++)
        any |= (which[i] = find_pending(&reqs[i])) >= 0;
    if (!any) { /* sends only: not events */
        free(which);
        return PMPI_Testany(n, reqs, index, flag, status);
    }
    PGM_SITE();
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, irecv_calls, "MPI_Testany", 1);
        *flag = e != NULL;
        *index = MPI_UNDEFINED;
        if (e)
            rc = waitany_replay(n, reqs, index, which, &st);
    } else {
        rc = PMPI_Testany(n, reqs, index, flag, &st);
        if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED &&
            which[*index] >= 0)
            completed(which[*index], &st, NULL);
        else if (rc == MPI_SUCCESS && !*flag)
            testany_missed(n, which);
    }
    if (rc == MPI_SUCCESS && *flag)
        give_status(status, &st);
    free(which);
    pgm.busy = 0;
    return rc;
}

/* Waitall: every receive among the requests completes; their events are
 * written in the requests' order, which a replay follows. */
static int waitall_recorded(int n, MPI_Request *reqs, const int *which,
                            MPI_Status *st)
{
    MPI_Request *saved = malloc((size_t)n * sizeof *saved);
    int i, rc;

    if (!saved)
        pgm_die(PGM_REFUSED, "out of memory");
    memcpy(saved, reqs, (size_t)n * sizeof *saved);
    rc = PMPI_Waitall(n, reqs, st);
    for (i = 0; rc == MPI_SUCCESS && i < n; i++)
        if (which[i] >= 0) /* looked up again: completed() reorders */
            completed(find_pending(&saved[i]), &st[i], NULL);
    free(saved);
    return rc;
}

static int waitall_replay(int n, MPI_Request *reqs, const int *which,
                          MPI_Status *st)
{
    MPI_Status *mine = malloc((size_t)n * sizeof *mine);
    const struct pgm_ev *e;
    int i, k, rc = MPI_SUCCESS;

    if (!mine)
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; rc == MPI_SUCCESS && i < n; i++) {
        if (which[i] < 0)
            continue;
        k = find_pending(&reqs[i]);
        e = pgm_expect(PG_EV_RECV, irecv_calls, "MPI_Waitall", 0);
        check_request(k, e, "MPI_Waitall");
        if ((rc = PMPI_Wait(&reqs[i], &mine[i])) == MPI_SUCCESS)
            completed(k, &mine[i], e);
    }
    if (rc == MPI_SUCCESS) /* the others (sends) */
        rc = PMPI_Waitall(n, reqs, st);
    for (i = 0; i < n; i++)
        if (which[i] >= 0)
            st[i] = mine[i];
    free(mine);
    return rc;
}

PGM_API int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    MPI_Status *st;
    int *which, i, any = 0, rc;

    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Waitall(n, reqs, statuses);
    if (!(which = malloc((size_t)n * sizeof *which)) ||
        !(st = malloc((size_t)n * sizeof *st)))
        pgm_die(PGM_REFUSED, "out of memory");
    for (i = 0; i < n; i++)
        any |= (which[i] = find_pending(&reqs[i])) >= 0;
    if (!any) {
        free(which), free(st);
        return PMPI_Waitall(n, reqs, statuses);
    }
    PGM_SITE();
    pgm.busy = 1;
    rc = pgm.mode == PGM_REPLAY ? waitall_replay(n, reqs, which, st)
                                : waitall_recorded(n, reqs, which, st);
    if (rc == MPI_SUCCESS && statuses != MPI_STATUSES_IGNORE)
        memcpy(statuses, st, (size_t)n * sizeof *st);
    free(which), free(st);
    pgm.busy = 0;
    return rc;
}

/* ---- send and receive in one call ----------------------------------------- */

/* Replay: the send half's event, checked, then the receive half's. */
static const struct pgm_ev *sendrecv_expect(int dest, int stag, int source,
                                            int rtag)
{
    static const char *const send_calls[] = { "MPI_Send", NULL };
    const struct pgm_ev *e;

    if (dest != MPI_PROC_NULL) {
        e = pgm_expect(PG_EV_SEND, send_calls, "MPI_Sendrecv", 0);
        if (e->to != pgm_ltid_of(dest) || e->tag != stag ||
            e->msgid != pgm.sent + 1)
            pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: "
                    "recorded send %d, to ltid %d, tag %d; the program's "
                    "MPI_Sendrecv is send %d, to ltid %d, tag %d", e->seq,
                    e->msgid, e->to, e->tag, pgm.sent + 1, pgm_ltid_of(dest),
                    stag);
        pgm_advance();
    }
    if (source == MPI_PROC_NULL)
        return NULL;
    e = pgm_expect(PG_EV_RECV, recv_calls, "MPI_Sendrecv", 0);
    check_admits(e, source, rtag, "MPI_Sendrecv");
    return e;
}

/* Logged as a send (MPI_Send) and a receive (MPI_Recv), in that order. */
PGM_API int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype,
                         int dest, int stag, void *rbuf, int rcount,
                         MPI_Datatype rtype, int source, int rtag,
                         MPI_Comm comm, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int rc;

    if (pgm.mode == PGM_OFF || pgm.busy ||
        (dest == MPI_PROC_NULL && source == MPI_PROC_NULL))
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount,
                             rtype, source, rtag, comm, status);
    PGM_SITE();
    pgm_world_only(comm, "MPI_Sendrecv");
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY &&
        (e = sendrecv_expect(dest, stag, source, rtag))) {
        source = pgm_rank_of(e->from);
        rtag = e->tag;
    }
    rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                       source, rtag, comm, &st);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {
        pgm.sent++;
        if (pgm.mode == PGM_LOG)
            pgm_log_send("MPI_Send", dest, stag, pgm.sent,
                         pgm_bytes(stype, scount));
    }
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
        took("MPI_Recv", &st, source, rtag, e, 1);
        give_status(status, &st);
    }
    pgm.busy = 0;
    return rc;
}
