/*
 * mpi_p2p.c - the MPI calls the front end wraps (pg_mpi.h): start and
 * end, point-to-point messages, the waits and tests of
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
 * (the table below), numbered in posting order: their event is written
 * when the program learns of the message (MPI_Wait, MPI_Waitany,
 * MPI_Test, MPI_Testany, MPI_Waitall, MPI_Testall, MPI_Waitsome,
 * MPI_Testsome), since that is when it can act on it, and names its
 * posting (`posted`) and whether the same call reported it with the
 * receive before it (`together`: the sets of Waitsome and Testsome).  A
 * replay reads the postings ahead (mpi_log.c), posts a wildcard MPI_Irecv
 * with the source and tag its completion had, and completes, in each
 * call, the very postings recorded, set by set.  A send's event is
 * written when it is posted (the order of posting is the order
 * non-overtaking keeps).
 *
 * Not wrapped yet (README.md, MPI programs, says what that means for a
 * replay): intercommunicators (refused: pgm_to_world), a Waitsome or
 * Testsome over sends and receives together (refused), collectives (they
 * pass through: their matching does not race).  Calls on communicators
 * made from MPI_COMM_WORLD (dup, split, create) are logged with world
 * ranks (pgm_to_world) and replayed with the recorded rank translated
 * back into the call's communicator.
 */
#define _GNU_SOURCE
#include <stdint.h>
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

/* The bytes a receive took, as PMPI_Get_count(st, MPI_BYTE) says, 0 if
 * more than an int holds: read from the status's own fields for the two
 * MPIs built here (both keep the count in bytes there: MPICH's
 * count_lo and the upper bits of count_hi_and_cancelled, Open MPI's
 * _ucount), since the call cost ~80 instructions a receive, as much as
 * the receive's wrapper (bench/mpi_insn.sh). */
static int got_bytes(const MPI_Status *st)
{
    long long n;
#if defined(MPICH)
    n = (long long)((unsigned long long)((unsigned)st->count_hi_and_cancelled
                                         >> 1) << 32) +
        (unsigned)st->count_lo;
#elif defined(OPEN_MPI)
    n = st->_ucount > INT32_MAX ? -1 : (long long)st->_ucount;
#else
    int c = 0;

    n = PMPI_Get_count(st, MPI_BYTE, &c) != MPI_SUCCESS || c == MPI_UNDEFINED
            ? 0
            : c;
#endif
    return n < 0 || n > INT32_MAX ? 0 : (int)n;
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

/* The rank of comm that recorded event e came from (a replay posts its
 * receive with it). */
static int recorded_source(MPI_Comm comm, const struct pgm_ev *e)
{
    int r = pgm_from_world(comm, pgm_rank_of(e->from));

    if (r == MPI_UNDEFINED)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded a "
                "message from ltid %d, who is not in the communicator of the "
                "program's receive", e->seq, e->from);
    return r;
}

/* A what-if's chosen sender (a world rank) as a rank of comm, where the
 * forced receive asks for it. */
static int forced_source(MPI_Comm comm, int world)
{
    int r = pgm_from_world(comm, world);

    if (r == MPI_UNDEFINED)
        pgm_die(PGM_REFUSED, "what-if: the chosen sender (rank %d) is not "
                "in the communicator of the program's receive", world);
    return r;
}

/* What a receive took (or a probe found): logged, or checked against the
 * recorded event and passed.  `source` is the world rank asked for. */
static void took(const char *call, MPI_Comm comm, const MPI_Status *st,
                 int source, int tag, const struct pgm_ev *e, int take)
{
    int from = pgm_to_world(comm, st->MPI_SOURCE, call);

    if (pgm.mode == PGM_LOG) {
        pgm.ctx = pgm_ctx_of(comm);
        pgm_log_recv(call, from, st->MPI_TAG,
                     pgm_count(from, st->MPI_TAG, pgm.ctx, take),
                     got_bytes(st), source, tag);
        return;
    }
    if (!e) { /* an MPI_Recv a race-only recording left out */
        pgm_left_out_done(&(struct pgm_ev){ .kind = PG_EV_RECV,
                                            .call = call,
                                            .from = pgm_ltid_of(from),
                                            .tag = st->MPI_TAG });
        return;
    }
    if (pgm_ltid_of(from) != e->from || st->MPI_TAG != e->tag)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "a message of tag %d from ltid %d, but %s took one of tag %d "
                "from ltid %d", e->seq, e->tag, e->from, call, st->MPI_TAG,
                pgm_ltid_of(from));
    pgm_advance();
}

/* ---- sends ----------------------------------------------------------------- */

/* A send a race-only recording left out, done (`to` a world rank). */
static void left_out_send(const char *call, int to, int tag, int msgid)
{
    pgm_left_out_done(&(struct pgm_ev){ .kind = PG_EV_SEND, .call = call,
                                        .to = pgm_ltid_of(to), .tag = tag,
                                        .msgid = msgid });
}

/* Replay: the recorded event of the program's next send, `call` as the
 * log names it, `made` the call the program made; checked against the
 * send it is about to make (world rank `to`).  NULL when a race-only
 * recording left the send out, or when recording. */
const struct pgm_ev *pgm_send_expect(const char *call, const char *made,
                                     int to, int tag)
{
    const char *calls[] = { call, NULL };
    const struct pgm_ev *e;
    int msgid = pgm.sent + 1;

    if (pgm.mode != PGM_REPLAY || pgm_left_out())
        return NULL;
    e = pgm_expect(PG_EV_SEND, calls, made, 0);
    if (e->to != pgm_ltid_of(to) || e->tag != tag || e->msgid != msgid)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: "
                "recorded send %d, to ltid %d, tag %d; the program's %s "
                "is send %d, to ltid %d, tag %d", e->seq, e->msgid, e->to,
                e->tag, made, msgid, pgm_ltid_of(to), tag);
    return e;
}

/* The send pgm_send_expect checked (e) was made: counted, its request
 * (NULL for a blocking send) remembered until the program learns it is
 * done, and logged (recording) or followed (replay). */
static inline __attribute__((always_inline)) void
send_made(const char *call, int to, int tag, int bytes,
          const MPI_Request *req, const struct pgm_ev *e)
{
    int msgid = ++pgm.sent;

    if (req)
        pgm_isend_remember(req, msgid);
    if (pgm.mode == PGM_LOG)
        pgm_log_send(call, to, tag, msgid, bytes);
    else if (!e) /* a race-only recording left it out */
        left_out_send(call, to, tag, msgid);
    else
        pgm_advance();
}

void pgm_send_made(const char *call, int to, int tag, int bytes,
                   const MPI_Request *req, const struct pgm_ev *e)
{
    send_made(call, to, tag, bytes, req, e);
}

/* A send (MPI_Send, MPI_Isend with req; `sync` MPI_Ssend, MPI_Issend,
 * logged as MPI_Send and MPI_Isend: the log's calls do not tell them
 * apart, the replay makes the program's own call).  Inline in each
 * wrapper, as send_made in it: a call less and its arguments passed on
 * less, in the hot path of every send (bench/mpi_insn.sh). */
static inline __attribute__((always_inline)) int
send_common(const char *call, const void *buf, int count, MPI_Datatype type,
            int dest, int tag, MPI_Comm comm, MPI_Request *req, int sync)
{
    const struct pgm_ev *e;
    int rc, to = pgm_to_world(comm, dest, call);

    PGM_GATE(call, to, tag, pgm_bytes(type, count)); /* -live (mpi_gate.c) */
    pgm.busy = 1;
    e = pgm.mode == PGM_REPLAY ? pgm_send_expect(call, call, to, tag) : NULL;
    if (req)
        rc = sync ? PMPI_Issend(buf, count, type, dest, tag, comm, req)
                  : PMPI_Isend(buf, count, type, dest, tag, comm, req);
    else
        rc = sync ? PMPI_Ssend(buf, count, type, dest, tag, comm)
                  : PMPI_Send(buf, count, type, dest, tag, comm);
    if (rc == MPI_SUCCESS && pgm.mode == PGM_LOG)
        pgm.ctx = pgm_ctx_of(comm);
    if (rc == MPI_SUCCESS)
        send_made(call, to, tag, pgm_bytes(type, count), req, e);
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
                     int tag, MPI_Comm comm)
{
    if (PASS(dest))
        return PMPI_Send(buf, count, type, dest, tag, comm);
    PGM_SITE();
    return send_common("MPI_Send", buf, count, type, dest, tag, comm, NULL,
                       0);
}

PGM_API int MPI_Ssend(const void *buf, int count, MPI_Datatype type,
                      int dest, int tag, MPI_Comm comm)
{
    if (PASS(dest))
        return PMPI_Ssend(buf, count, type, dest, tag, comm);
    PGM_SITE();
    return send_common("MPI_Send", buf, count, type, dest, tag, comm, NULL,
                       1);
}

PGM_API int MPI_Issend(const void *buf, int count, MPI_Datatype type,
                       int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (PASS(dest))
        return PMPI_Issend(buf, count, type, dest, tag, comm, req);
    PGM_SITE();
    return send_common("MPI_Isend", buf, count, type, dest, tag, comm, req,
                       1);
}

PGM_API int MPI_Isend(const void *buf, int count, MPI_Datatype type,
                      int dest, int tag, MPI_Comm comm, MPI_Request *req)
{
    if (PASS(dest))
        return PMPI_Isend(buf, count, type, dest, tag, comm, req);
    PGM_SITE();
    return send_common("MPI_Isend", buf, count, type, dest, tag, comm, req,
                       0);
}

/* ---- blocking receives and probes ----------------------------------------- */

static const char *const recv_calls[] = { "MPI_Recv", NULL };
static const char *const probe_calls[] = { "MPI_Iprobe", NULL };

PGM_API int MPI_Recv(void *buf, int count, MPI_Datatype type, int source,
                     int tag, MPI_Comm comm, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int rc, from, chose = MPI_ANY_SOURCE;

    if (PASS(source))
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    PGM_SITE();
    from = pgm_to_world(comm, source, "MPI_Recv");
    if (pg_live_on(pgm_live, pgm_live_ctl)) /* -live: the page may choose */
        chose = pgm_gate_recv("MPI_Recv", from, tag, -1, comm);
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY && pgm_left_out()) {
        rc = PMPI_Recv(buf, count, type, source, tag, comm, &st);
    } else if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, recv_calls, "MPI_Recv", 0);
        check_admits(e, from, tag, "MPI_Recv");
        pgm_live_waiting(1); /* -live shows what it waits for */
        rc = PMPI_Recv(buf, count, type, recorded_source(comm, e), e->tag,
                       comm, &st);
        pgm_live_waiting(0);
    } else {
        int s = from, t = tag, r = source; /* a what-if's choice, -chaos's */

        if (pgm.hooks && pgm_force_pick("MPI_Recv", &s, &t))
            r = forced_source(comm, s);
        else if (chose != MPI_ANY_SOURCE)
            r = chose; /* its first pending message (mpi_gate.c) */
        else if (pgm.hooks)
            pgm_chaos_pick(&r, t, comm);
        rc = PMPI_Recv(buf, count, type, r, t, comm, &st);
    }
    if (rc == MPI_SUCCESS) {
        took("MPI_Recv", comm, &st, from, tag, e, 1);
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
    int rc, found = 1, from = pgm_to_world(comm, source, call);

    PGM_GATE(call, from, tag, -1);
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = pgm_expect(PG_EV_RECV, probe_calls, call, flag != NULL);
        if (!e) { /* missed when recorded: misses now */
            pgm.busy = 0;
            return *flag = 0, MPI_SUCCESS;
        }
        check_admits(e, from, tag, call);
        rc = PMPI_Probe(recorded_source(comm, e), e->tag, comm, &st);
    } else {
        int s = from, t = tag; /* a what-if's choice: found, waited for */

        if (pgm.hooks && pgm_force_pick("MPI_Iprobe", &s, &t))
            rc = PMPI_Probe(forced_source(comm, s), t, comm, &st);
        else if (flag)
            rc = PMPI_Iprobe(source, tag, comm, &found, &st);
        else
            rc = PMPI_Probe(source, tag, comm, &st);
    }
    if (rc == MPI_SUCCESS && found) {
        took("MPI_Iprobe", comm, &st, from, tag, e, 0);
        give_status(status, &st);
    } else if (rc == MPI_SUCCESS && pgm.mode == PGM_LOG)
        pgm_log_miss("MPI_Iprobe", from, tag);
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

/* A receive posted and not yet completed: its request, its communicator
 * and what it asked for (`source` a world rank), in posting order
 * (`order`). */
struct pending {
    MPI_Request req;
    MPI_Comm comm;
    int source, tag;
    long order;
    int never; /* replay: it never completed when recorded (cancelled) */
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

static void remember(const MPI_Request *req, MPI_Comm comm, int source,
                     int tag)
{
    struct pending *p;

    if (npend == cap_pend) {
        cap_pend = cap_pend ? 2 * cap_pend : 16;
        if (!(p = realloc(pend, (size_t)cap_pend * sizeof *p)))
            pgm_die(PGM_REFUSED, "out of memory");
        pend = p;
    }
    pend[npend++] = (struct pending){ *req, comm, source, tag, ++posted, 0 };
}

/* Replay: a wildcard MPI_Irecv is posted with the source and tag that
 * its completion has in the recording (its posting number, format 6);
 * MPI's non-overtaking rule makes it take the recorded message.  One
 * that never completed when recorded (cancelled, or never waited for)
 * must take no message another receive took: 1 then, and it is posted
 * where no message comes (pgm.nowhere; not from MPI_PROC_NULL, whose
 * request Open MPI shares with every send done at once); its tests find
 * nothing as recorded, its wait is no event. */
int pgm_irecv_replay(MPI_Comm comm, int from, int *source, int *tag)
{
    const struct pgm_post *p;
    struct pgm_ev e = { .from = 0 };

    if (pgm.version >= 6 && !pgm_posting((int)posted + 1))
        return 1; /* it must take no message */
    if (from != MPI_ANY_SOURCE && *tag != MPI_ANY_TAG)
        return 0;
    if (pgm.version < 6)
        pgm_die(PGM_REFUSED, "MPI_Irecv(%s) number %ld cannot be replayed "
                "from a log of format %d (%s/ltid-%d.comm.pgc): it does not "
                "say which message each MPI_Irecv took; record it again",
                *source == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : "MPI_ANY_TAG",
                posted + 1, pgm.version, pgm.dir, pgm.ltid);
    if (!(p = pgm_posting((int)posted + 1)))
        return 0;
    e.seq = pgm.have_next ? pgm.next.seq : 0, e.from = p->from, e.tag = p->tag;
    check_admits(&e, from, *tag, "MPI_Irecv");
    *source = recorded_source(comm, &e), *tag = p->tag;
    return 0;
}

PGM_API int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source,
                      int tag, MPI_Comm comm, MPI_Request *req)
{
    int rc, src = source, tg = tag, from, never = 0;

    if (PASS(source))
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    from = pgm_to_world(comm, source, "MPI_Irecv");
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY)
        never = pgm_irecv_replay(comm, from, &src, &tg);
    rc = never ? PMPI_Irecv(buf, count, type, pgm.rank, tg, pgm.nowhere, req)
               : PMPI_Irecv(buf, count, type, src, tg, comm, req);
    if (rc == MPI_SUCCESS)
        pgm_irecv_posted(req, comm, from, tag, never);
    pgm.busy = 0;
    return rc;
}

void pgm_irecv_posted(const MPI_Request *req, MPI_Comm comm, int from,
                      int tag, int never)
{
    remember(req, comm, from, tag);
    pend[npend - 1].never = never;
}

void pgm_irecv_forget(const MPI_Request *req)
{
    int i = find_pending(req);

    if (i >= 0)
        forget(i);
}

static const char *const irecv_calls[] = { "MPI_Irecv", NULL };

/* Request i of the pending ones completed with st; `together` 1 when the
 * call reports it with the receive before it (Waitsome ...). */
static void completed_with(int i, const MPI_Status *st,
                           const struct pgm_ev *e, int together)
{
    struct pending p = pend[i];
    int cancelled = 0;

    forget(i);
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled || p.never)
        return; /* took no message: no event */
    pgm.posted = (int)p.order, pgm.together = together;
    took("MPI_Irecv", p.comm, st, p.source, p.tag, e, 1);
}

static void completed(int i, const MPI_Status *st, const struct pgm_ev *e)
{
    completed_with(i, st, e, 0);
}

/* Pending receive p may be the one of the recorded completion e: the
 * very posting when the log says (format 6), else one that admits e. */
static int admits(const struct pending *p, const struct pgm_ev *e)
{
    if (e->posted > 0 && p->order != e->posted)
        return 0;
    return (p->source == MPI_ANY_SOURCE ||
            pgm_ltid_of(p->source) == e->from) &&
           (p->tag == MPI_ANY_TAG || p->tag == e->tag);
}

/* Replay: the recorded completion e was request i's. */
static void check_request(int i, const struct pgm_ev *e, const char *call)
{
    if (!admits(&pend[i], e))
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "the completion of MPI_Irecv number %d, of ltid %d's tag %d; "
                "the request the program's %s waits for is not that one",
                e->seq, e->posted, e->from, e->tag, call);
}

/* A copy of the requests before a call that completes several: MPI sets
 * the completed ones to MPI_REQUEST_NULL, and completed() reorders the
 * pending table, so each is looked up again by its handle. */
static MPI_Request *saved_requests(int n, const MPI_Request *reqs)
{
    MPI_Request *saved = malloc((size_t)n * sizeof *saved);

    if (!saved)
        pgm_die(PGM_REFUSED, "out of memory");
    return memcpy(saved, reqs, (size_t)n * sizeof *saved);
}

/* A persistent request between its starts (no pending receive, no send
 * in flight): a call over several requests passes over it as over
 * MPI_REQUEST_NULL (mpi_persist.c). */
static int inactive(const MPI_Request *req)
{
    return pgm_persist_find(req) && !pgm_isend_msgid(req);
}

/* The pending receive of each request (-1: a send's, or no request);
 * *any 1 if there is one, *sends 1 if an active send is among them. */
static int *pending_of(int n, const MPI_Request *reqs, int *any, int *sends)
{
    int *which = malloc((size_t)n * sizeof *which), i;

    if (!which)
        pgm_die(PGM_REFUSED, "out of memory");
    *any = *sends = 0;
    for (i = 0; i < n; i++) {
        which[i] = find_pending(&reqs[i]);
        *any |= which[i] >= 0;
        *sends |= which[i] < 0 && reqs[i] != MPI_REQUEST_NULL &&
                  !inactive(&reqs[i]);
    }
    return which;
}

/* Whether an MPI_Isend's request is among reqs (mpi_isend.c). */
static int has_isend(int n, const MPI_Request *reqs)
{
    int i;

    for (i = 0; i < n; i++)
        if (pgm_isend_msgid(&reqs[i]))
            return 1;
    return 0;
}

/* The program learned that the send of request req, the call's request
 * `index` (copied before the call nulled it), completed: recorded, and
 * forgotten. */
static void send_done(const MPI_Request *req, int index)
{
    if (pgm.mode == PGM_LOG)
        pgm_log_send_done(index, pgm_isend_msgid(req));
    pgm_isend_forget(req);
}

/* Replay: the next recorded completion of a call over requests: a send's
 * (a <query> PGM_SEND_DONE) or a receive's; NULL for a test that found
 * none done when recorded (`poll`). */
static const struct pgm_ev *expect_completion(const char *made, int poll)
{
    static const char *const done_calls[] = { PGM_SEND_DONE, NULL };

    if (pgm.have_next && pgm.misses_used >= pgm.next.misses &&
        pgm.next.kind == PG_EV_QUERY)
        return pgm_expect(PG_EV_QUERY, done_calls, made, poll);
    return pgm_expect(PG_EV_RECV, irecv_calls, made, poll);
}

/* Replay: the recorded completion of a send, request e->about of the
 * call (the index the program was given: handles are not unique), waited
 * for. */
static int wait_sent(int n, MPI_Request *reqs, int *index, MPI_Status *st,
                     const struct pgm_ev *e, const char *call)
{
    int i = atoi(e->about), rc;
    MPI_Request saved;

    if (i < 0 || i >= n || !pgm_isend_msgid(&reqs[i]))
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "that the send of request %d of %d completed; the program's "
                "%s has no send there", e->seq, i, n, call);
    saved = reqs[i];
    rc = PMPI_Wait(&reqs[i], st);
    if (rc == MPI_SUCCESS) {
        *index = i;
        send_done(&saved, i);
        pgm_advance();
    }
    return rc;
}

PGM_API int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int i, rc;

    if (pgm.mode == PGM_OFF || pgm.busy)
        return PMPI_Wait(req, status);
    if ((i = find_pending(req)) < 0) { /* a send's: not an event */
        pgm_isend_forget(req);
        return PMPI_Wait(req, status);
    }
    PGM_SITE();
    PGM_GATE("MPI_Wait", PGM_GATE_NONE, -1, -1);
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY && !pend[i].never) {
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

/* Replay: whether the recording's MPI_Request_get_status found the
 * request not done here (a miss, used). */
static int recorded_not_done(void)
{
    static const char *const done[] = { PGM_REQUEST_DONE, NULL };

    if (pgm.version >= 7)
        return !pgm_expect(PG_EV_QUERY, done, "MPI_Request_get_status", 1);
    if (pgm.have_next && pgm.misses_used < pgm.next.misses) {
        pgm.misses_used++;
        return 1;
    }
    return 0;
}

/* Replay of MPI_Request_get_status: it finds the request not done as
 * often as recorded, then waits until MPI says it is done.  From format
 * 7 a recording says where it found it done (a PGM_REQUEST_DONE query),
 * so the misses after that, of other tests, stay theirs. */
static int replay_get_status(MPI_Request req, int *flag, MPI_Status *status)
{
    int rc;

    if (recorded_not_done()) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    while ((rc = PMPI_Request_get_status(req, flag, status)) ==
               MPI_SUCCESS && !*flag)
        ;
    if (rc == MPI_SUCCESS && pgm.version >= 7)
        pgm_advance();
    return rc;
}

/* MPI_Request_get_status: a test that leaves the request to a later wait
 * or test (ABySS polls its receives so).  One that found it not done is
 * a miss (a receive's poll, of a receive's request); one that found it
 * done is a <query> PGM_REQUEST_DONE, which takes the misses before it:
 * without it, the misses of the tests after it (an MPI_Testall of other
 * requests) would be counted with its own, and a replay would have it
 * find the request not done in their place. */
PGM_API int MPI_Request_get_status(MPI_Request req, int *flag,
                                   MPI_Status *status)
{
    int i, send, rc;

    if (pgm.mode == PGM_OFF || pgm.busy)
        return PMPI_Request_get_status(req, flag, status);
    i = find_pending(&req);
    send = i < 0 && pgm_isend_msgid(&req);
    if (i < 0 && !send)
        return PMPI_Request_get_status(req, flag, status);
    PGM_SITE();
    PGM_GATE("MPI_Request_get_status", PGM_GATE_NONE, -1, -1);
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        rc = replay_get_status(req, flag, status);
    } else {
        rc = PMPI_Request_get_status(req, flag, status);
        if (rc == MPI_SUCCESS && *flag)
            pgm_log_request_done(send ? "send" : "recv");
        else if (rc == MPI_SUCCESS && send)
            pgm_log_send_miss(); /* a send's: no receive's poll */
        else if (rc == MPI_SUCCESS)
            pgm_log_miss("MPI_Irecv", pend[i].source, pend[i].tag);
    }
    pgm.busy = 0;
    return rc;
}

/* MPI_Test of an MPI_Isend's request: the tests that found it not done
 * (misses, but no receive's poll: they could take no message), then the
 * one that found it done (PGM_SEND_DONE), as a receive's. */
static int test_send(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Request saved = *req;
    const struct pgm_ev *e;
    int rc = MPI_SUCCESS, index;

    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY) {
        e = expect_completion("MPI_Test", 1);
        if ((*flag = e != NULL) && e->kind != PG_EV_QUERY)
            pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: "
                    "recorded a receive's completion; the program's MPI_Test "
                    "tests a send", e->seq);
        if (e)
            rc = wait_sent(1, req, &index, status, e, "MPI_Test");
    } else {
        rc = PMPI_Test(req, flag, status);
        if (rc == MPI_SUCCESS && *flag)
            send_done(&saved, 0);
        else if (rc == MPI_SUCCESS)
            pgm_log_send_miss(); /* it could take no message */
    }
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    const struct pgm_ev *e = NULL;
    MPI_Status st;
    int i, rc;

    if (pgm.mode == PGM_OFF || pgm.busy)
        return PMPI_Test(req, flag, status);
    if ((i = find_pending(req)) < 0) {
        if (!pgm_isend_msgid(req))
            return PMPI_Test(req, flag, status);
        PGM_SITE();
        return test_send(req, flag, status);
    }
    PGM_SITE();
    PGM_GATE("MPI_Test", PGM_GATE_NONE, -1, -1);
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY && pend[i].never) {
        *flag = !(pgm.have_next && pgm.misses_used < pgm.next.misses);
        pgm.misses_used += !*flag; /* recorded: not yet cancelled */
        rc = *flag ? PMPI_Wait(req, &st) : MPI_SUCCESS;
    } else if (pgm.mode == PGM_REPLAY) {
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
static int wait_recorded(int n, MPI_Request *reqs, int *index,
                         const int *which, MPI_Status *st,
                         const struct pgm_ev *e, const char *call)
{
    int i = recorded_one(n, reqs, which, e), rc;

    if (i < 0)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded "
                "the completion of MPI_Irecv number %d, of ltid %d's tag %d; "
                "none of the requests the program's %s waits for is that one",
                e->seq, e->posted, e->from, e->tag, call);
    rc = PMPI_Wait(&reqs[i], st);
    if (rc == MPI_SUCCESS) {
        *index = i;
        completed_with(which[i], st, e, e->together);
    }
    return rc;
}

/* A Testany (Testall, Testsome) that found nothing asked for what its
 * receives admit: one source (tag) if they all name it, else any.  Over
 * sends only, it could take no message: a miss, but no receive's poll.
 * (No sentinel among ranks: MPICH's MPI_ANY_SOURCE is -2, Open MPI's
 * MPI_PROC_NULL.) */
static void testany_missed(int n, const int *which)
{
    const struct pending *p;
    int i, seen = 0, src = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;

    for (i = 0; i < n; i++) {
        if (which[i] < 0)
            continue;
        p = &pend[which[i]];
        src = !seen || src == p->source ? p->source : MPI_ANY_SOURCE;
        tag = !seen || tag == p->tag ? p->tag : MPI_ANY_TAG;
        seen = 1;
    }
    if (seen)
        pgm_log_miss("MPI_Irecv", src, tag);
    else
        pgm_log_send_miss();
}

/* Recording: the postings of the call's receives still pending but those
 * it completes (done[i] set; NULL: all but request `index`), noted as the
 * rivals of the completion it reports first (format 8): MPI could have
 * completed any of them first (docs/mpi-notes.md, "Waits, tests and
 * probes").  Before completed(), which reorders the table. */
static void note_rivals(int n, const int *which, int index, const int *done)
{
    static int *buf;
    static int cap;
    int i, k = 0;

    if (pgm.mode != PGM_LOG)
        return;
    if (n > cap) {
        free(buf);
        if (!(buf = malloc((size_t)n * sizeof *buf)))
            pgm_die(PGM_REFUSED, "out of memory");
        cap = n;
    }
    for (i = 0; i < n; i++)
        if (which[i] >= 0 && (done ? !done[i] : i != index))
            buf[k++] = (int)pend[which[i]].order;
    pg_logw_rivals(pgm.comm, k, buf);
}

/* After the call's completions: a note its events did not take (a
 * cancelled request's completion writes none) must not go to a later
 * receive's. */
static void drop_rivals(void)
{
    if (pgm.mode == PGM_LOG)
        pg_logw_rivals(pgm.comm, 0, NULL);
}

/* What-if: the forced completion (pgm_force_completion): of the call's
 * pending receives but the one recorded there, the one posted first whose
 * recorded posting (the replay posted it for that source and tag) or, if
 * none, whose filter admits the chosen message; waited for.  Its index. */
static int forced_one(int n, MPI_Request *reqs, const int *which,
                      MPI_Status *st, int from, int tag, int recorded,
                      const char *call)
{
    const struct pgm_post *post;
    const struct pending *p;
    int i, best = -1, ok;

    for (i = 0; i < n; i++) {
        if (which[i] < 0 || (p = &pend[which[i]])->order == recorded)
            continue;
        post = pgm_posting((int)p->order);
        ok = post ? post->from == from && post->tag == tag
                  : (p->source == MPI_ANY_SOURCE ||
                     pgm_ltid_of(p->source) == from) &&
                        (p->tag == MPI_ANY_TAG || p->tag == tag);
        if (ok && (best < 0 || p->order < pend[which[best]].order))
            best = i;
    }
    if (best < 0)
        pgm_die(PGM_REFUSED, "what-if: the forced completion of %s: none of "
                "its other pending receives takes the chosen message (ltid "
                "%d, tag %d)", call, from, tag);
    note_rivals(n, which, best, NULL);
    if (PMPI_Wait(&reqs[best], st) != MPI_SUCCESS)
        pgm_die(PGM_REFUSED, "what-if: MPI_Wait of the forced completion "
                "of %s failed", call);
    completed(which[best], st, NULL);
    drop_rivals();
    return best;
}

/* What-if: whether this call is the forced completion; if so it is made
 * (forced_one) and *index is the request completed. */
static int forced_any(int n, MPI_Request *reqs, const int *which,
                      MPI_Status *st, int *index, const char *call)
{
    int from, tag, recorded;

    if (!pgm.whatif || pgm.mode != PGM_LOG ||
        !pgm_force_completion(call, &from, &tag, &recorded))
        return 0;
    *index = forced_one(n, reqs, which, st, from, tag, recorded, call);
    return 1;
}

/* Recording: what Waitany (flag NULL) or Testany found: a receive's
 * completion, a send's, or (Testany) none. */
static int any_recorded(int n, MPI_Request *reqs, int *index, int *flag,
                        const int *which, MPI_Status *st)
{
    MPI_Request *saved = saved_requests(n, reqs);
    int rc, done = 1;

    rc = flag ? PMPI_Testany(n, reqs, index, &done, st)
              : PMPI_Waitany(n, reqs, index, st);
    if (rc == MPI_SUCCESS && done && *index != MPI_UNDEFINED &&
        which[*index] >= 0) {
        note_rivals(n, which, *index, NULL);
        completed(which[*index], st, NULL);
        drop_rivals();
    }
    else if (rc == MPI_SUCCESS && done && *index != MPI_UNDEFINED &&
             pgm_isend_msgid(&saved[*index])) /* not another request's */
        send_done(&saved[*index], *index);
    else if (rc == MPI_SUCCESS && !done)
        testany_missed(n, which);
    if (flag)
        *flag = done;
    free(saved);
    return rc;
}

/* Replay: as recorded, the test that found none done (Testany: flag), or
 * the receive or send that completed. */
static int any_replay(int n, MPI_Request *reqs, int *index, int *flag,
                      const int *which, MPI_Status *st, const char *call)
{
    const struct pgm_ev *e = expect_completion(call, flag != NULL);

    *index = MPI_UNDEFINED;
    if (flag)
        *flag = e != NULL;
    if (!e)
        return MPI_SUCCESS;
    return e->kind == PG_EV_QUERY
               ? wait_sent(n, reqs, index, st, e, call)
               : wait_recorded(n, reqs, index, which, st, e, call);
}

/* Waitany (flag NULL) and Testany over receives and MPI_Isend's sends:
 * which one completed (Testany: after how many tests found none). */
static int any_common(const char *call, int n, MPI_Request *reqs,
                      int *index, int *flag, MPI_Status *status)
{
    int *which, any, sends, rc;
    MPI_Status st;

    which = pending_of(n, reqs, &any, &sends);
    if (!any && !has_isend(n, reqs)) { /* not the program's sends */
        free(which);
        return flag ? PMPI_Testany(n, reqs, index, flag, status)
                    : PMPI_Waitany(n, reqs, index, status);
    }
    pgm.busy = 1;
    if (any && forced_any(n, reqs, which, &st, index, call)) {
        rc = MPI_SUCCESS;
        if (flag)
            *flag = 1;
    } else
        rc = pgm.mode == PGM_REPLAY
                 ? any_replay(n, reqs, index, flag, which, &st, call)
                 : any_recorded(n, reqs, index, flag, which, &st);
    if (rc == MPI_SUCCESS && (!flag || *flag))
        give_status(status, &st);
    free(which);
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Waitany(int n, MPI_Request reqs[], int *index,
                        MPI_Status *status)
{
    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Waitany(n, reqs, index, status);
    PGM_SITE();
    PGM_GATE("MPI_Waitany", PGM_GATE_NONE, -1, -1);
    return any_common("MPI_Waitany", n, reqs, index, NULL, status);
}

PGM_API int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag,
                        MPI_Status *status)
{
    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Testany(n, reqs, index, flag, status);
    PGM_SITE();
    PGM_GATE("MPI_Testany", PGM_GATE_NONE, -1, -1);
    return any_common("MPI_Testany", n, reqs, index, flag, status);
}

/* Waitall (flag NULL) and Testall: every receive among the requests
 * completes (or, a Testall that found them not all done, none: a poll
 * that found nothing); their events are written in the requests' order,
 * all but the first `together`, which a replay follows. */
static int all_recorded(int n, MPI_Request *reqs, const int *which,
                        MPI_Status *st, int *flag)
{
    MPI_Request *saved = saved_requests(n, reqs);
    int i, k, rc, done = 1;

    rc = flag ? PMPI_Testall(n, reqs, &done, st) : PMPI_Waitall(n, reqs, st);
    if (rc == MPI_SUCCESS && !done)
        testany_missed(n, which);
    for (i = 0, k = 0; rc == MPI_SUCCESS && done && i < n; i++)
        if (which[i] >= 0)
            completed_with(find_pending(&saved[i]), &st[i], NULL, k++ > 0);
        else /* a send: its completion says nothing the call did not */
            pgm_isend_forget(&saved[i]);
    if (flag)
        *flag = done;
    free(saved);
    return rc;
}

static int waitall_replay(int n, MPI_Request *reqs, const int *which,
                          MPI_Status *st, const char *call)
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
        e = pend[k].never ? NULL
                          : pgm_expect(PG_EV_RECV, irecv_calls, call, 0);
        if (e)
            check_request(k, e, call);
        if ((rc = PMPI_Wait(&reqs[i], &mine[i])) == MPI_SUCCESS)
            completed(k, &mine[i], e);
    }
    for (i = 0; rc == MPI_SUCCESS && i < n; i++)
        pgm_isend_forget(&reqs[i]); /* the others: sends */
    if (rc == MPI_SUCCESS)
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
        for (i = 0; i < n; i++)
            pgm_isend_forget(&reqs[i]);
        free(which), free(st);
        return PMPI_Waitall(n, reqs, statuses);
    }
    PGM_SITE();
    PGM_GATE("MPI_Waitall", PGM_GATE_NONE, -1, -1);
    pgm.busy = 1;
    rc = pgm.mode == PGM_REPLAY
             ? waitall_replay(n, reqs, which, st, "MPI_Waitall")
             : all_recorded(n, reqs, which, st, NULL);
    if (rc == MPI_SUCCESS && statuses != MPI_STATUSES_IGNORE)
        memcpy(statuses, st, (size_t)n * sizeof *st);
    free(which), free(st);
    pgm.busy = 0;
    return rc;
}

static MPI_Status *statuses_for(int n)
{
    MPI_Status *st = malloc((size_t)n * sizeof *st);

    if (!st)
        pgm_die(PGM_REFUSED, "out of memory");
    return st;
}

PGM_API int MPI_Testall(int n, MPI_Request reqs[], int *flag,
                        MPI_Status statuses[])
{
    int *which, any, sends, rc = MPI_SUCCESS;
    MPI_Status *st;

    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Testall(n, reqs, flag, statuses);
    which = pending_of(n, reqs, &any, &sends);
    if (!any) {
        free(which);
        return PMPI_Testall(n, reqs, flag, statuses);
    }
    PGM_SITE();
    PGM_GATE("MPI_Testall", PGM_GATE_NONE, -1, -1);
    pgm.busy = 1;
    st = statuses_for(n);
    if (pgm.mode == PGM_REPLAY) {
        *flag = pgm_expect(PG_EV_RECV, irecv_calls, "MPI_Testall", 1) != NULL;
        if (*flag)
            rc = waitall_replay(n, reqs, which, st, "MPI_Testall");
    } else
        rc = all_recorded(n, reqs, which, st, flag);
    if (rc == MPI_SUCCESS && *flag && statuses != MPI_STATUSES_IGNORE)
        memcpy(statuses, st, (size_t)n * sizeof *st);
    free(which), free(st);
    pgm.busy = 0;
    return rc;
}

/* Waitsome (test 0) and Testsome: the receives completed, their events
 * in the order MPI gave them, all but the first `together`. */
static int some_recorded(int n, MPI_Request *reqs, const int *which,
                         int test, int *out, int *indices, MPI_Status *st)
{
    MPI_Request *saved = saved_requests(n, reqs);
    int j, rc, *done;

    rc = test ? PMPI_Testsome(n, reqs, out, indices, st)
              : PMPI_Waitsome(n, reqs, out, indices, st);
    if (rc == MPI_SUCCESS && *out == 0)
        testany_missed(n, which);
    if (rc == MPI_SUCCESS && *out != MPI_UNDEFINED && *out > 0) {
        if (!(done = calloc((size_t)n, sizeof *done)))
            pgm_die(PGM_REFUSED, "out of memory");
        for (j = 0; j < *out; j++)
            done[indices[j]] = 1;
        note_rivals(n, which, -1, done); /* the set's first event's */
        free(done);
    }
    for (j = 0; rc == MPI_SUCCESS && *out != MPI_UNDEFINED && j < *out; j++)
        completed_with(find_pending(&saved[indices[j]]), &st[j], NULL, j > 0);
    drop_rivals();
    free(saved);
    return rc;
}

/* Replay: the recorded completion e, then each next event that says it
 * was reported together with it, each the receive it names. */
static int some_replay(int n, MPI_Request *reqs, int *which,
                       const struct pgm_ev *e, int *out, int *indices,
                       MPI_Status *st, const char *call)
{
    int rc, i;

    for (*out = 0;;) {
        rc = wait_recorded(n, reqs, &indices[*out], which, &st[*out], e,
                           call);
        if (rc != MPI_SUCCESS)
            return rc;
        ++*out;
        for (i = 0; i < n; i++) /* completed() reorders the table */
            which[i] = find_pending(&reqs[i]);
        if (!pgm.have_next || pgm.next.kind != PG_EV_RECV ||
            !pgm.next.together || pgm.next.misses)
            return MPI_SUCCESS;
        e = pgm_expect(PG_EV_RECV, irecv_calls, call, 0);
    }
}

/* A Waitsome or Testsome over sends and receives together: a replay
 * could not give the sends' completions as recorded (only receives are
 * events).  Refused, named, rather than replayed otherwise. */
static int some_common(const char *call, int test, int n, MPI_Request *reqs,
                       int *out, int *indices, MPI_Status *statuses)
{
    int *which, any, sends, rc = MPI_SUCCESS;
    const struct pgm_ev *e;
    MPI_Status *st;

    which = pending_of(n, reqs, &any, &sends);
    if (!any) {
        free(which);
        return test ? PMPI_Testsome(n, reqs, out, indices, statuses)
                    : PMPI_Waitsome(n, reqs, out, indices, statuses);
    }
    if (sends)
        pgm_die(PGM_REFUSED, "%s over sends and receives together is not "
                "recorded or replayed yet: give it the receives alone "
                "(README.md, MPI programs)", call);
    pgm.busy = 1;
    st = statuses_for(n);
    if (forced_any(n, reqs, which, st, &indices[0], call)) {
        *out = 1; /* the chosen one alone: MPI may report one */
    } else if (pgm.mode == PGM_REPLAY) {
        *out = 0;
        if ((e = pgm_expect(PG_EV_RECV, irecv_calls, call, test)))
            rc = some_replay(n, reqs, which, e, out, indices, st, call);
    } else
        rc = some_recorded(n, reqs, which, test, out, indices, st);
    if (rc == MPI_SUCCESS && *out != MPI_UNDEFINED && *out > 0 &&
        statuses != MPI_STATUSES_IGNORE)
        memcpy(statuses, st, (size_t)*out * sizeof *st);
    free(which), free(st);
    pgm.busy = 0;
    return rc;
}

PGM_API int MPI_Waitsome(int n, MPI_Request reqs[], int *out, int indices[],
                         MPI_Status statuses[])
{
    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Waitsome(n, reqs, out, indices, statuses);
    PGM_SITE();
    PGM_GATE("MPI_Waitsome", PGM_GATE_NONE, -1, -1);
    return some_common("MPI_Waitsome", 0, n, reqs, out, indices, statuses);
}

PGM_API int MPI_Testsome(int n, MPI_Request reqs[], int *out, int indices[],
                         MPI_Status statuses[])
{
    if (pgm.mode == PGM_OFF || pgm.busy || n <= 0)
        return PMPI_Testsome(n, reqs, out, indices, statuses);
    PGM_SITE();
    PGM_GATE("MPI_Testsome", PGM_GATE_NONE, -1, -1);
    return some_common("MPI_Testsome", 1, n, reqs, out, indices, statuses);
}

/* ---- send and receive in one call ----------------------------------------- */

/* Replay: the send half's event, checked, then the receive half's (dest
 * and source world ranks). */
static const struct pgm_ev *sendrecv_expect(int dest, int stag, int source,
                                            int rtag)
{
    static const char *const send_calls[] = { "MPI_Send", NULL };
    const struct pgm_ev *e;

    if (dest != MPI_PROC_NULL && pgm_left_out())
        left_out_send("MPI_Send", dest, stag, pgm.sent + 1);
    else if (dest != MPI_PROC_NULL) {
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
    if (source == MPI_PROC_NULL || pgm_left_out())
        return NULL; /* a left-out receive half takes what MPI gives */
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
    int rc, to, from, asked_tag = rtag;

    if (pgm.mode == PGM_OFF || pgm.busy ||
        (dest == MPI_PROC_NULL && source == MPI_PROC_NULL))
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount,
                             rtype, source, rtag, comm, status);
    PGM_SITE();
    to = pgm_to_world(comm, dest, "MPI_Sendrecv");
    from = pgm_to_world(comm, source, "MPI_Sendrecv");
    PGM_GATE("MPI_Sendrecv", to, stag, pgm_bytes(stype, scount));
    pgm.busy = 1;
    if (pgm.mode == PGM_REPLAY &&
        (e = sendrecv_expect(to, stag, from, rtag))) {
        source = recorded_source(comm, e);
        rtag = e->tag;
    }
    rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
                       source, rtag, comm, &st);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL) {
        pgm.sent++;
        if (pgm.mode == PGM_LOG) {
            pgm.ctx = pgm_ctx_of(comm);
            pgm_log_send("MPI_Send", to, stag, pgm.sent,
                         pgm_bytes(stype, scount));
        }
    }
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL) {
        took("MPI_Recv", comm, &st, from, asked_tag, e, 1);
        give_status(status, &st);
    }
    pgm.busy = 0;
    return rc;
}
