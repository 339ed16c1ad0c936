/*
 * mpi_gate.c - a rank held before an MPI call by the live page
 * (`pangaea -log|-replay -live [-hold] mpiexec ...`): pause, step,
 * run-to and breakpoints, as PVM tasks are held.
 *
 * Design.  The gate's logic is the one PVM's tasks use, in the log layer
 * (src/log/live_gate.c: the control block's files, run-to, breakpoints
 * and their hit counts, pause, steps, publishing the held call); this
 * file gives it what only the MPI front end knows.  pangaea makes the
 * directory of the position files and names it in PANGAEA_LIVE, which
 * the launcher passes to every rank (src/cli/run/mpi_run.c); a rank maps
 * its page, DIR/ltid-N.pos (ltid rank+1, as its logs), once MPI_Init
 * made it a rank (pgm_gate_start), so the page shows ranks as tasks.
 * Every wrapper of a call whose event the page shows runs PGM_GATE
 * (pg_mpi.h) once it knows the call's world peer, tag and size: with
 * nothing set, two loads and no call.  Calls are named as the logs name
 * them ("MPI_Send" for MPI_Ssend too, "MPI_Recv"); a breakpoint may say
 * "Send" or "Recv".
 *
 * The events done are the rank's log's count (a recording) or the
 * number of the last recorded event the replay did (pgm_advance stores it
 * in the page, for the view too: src/cli/live/live_snap.c).  A rank held
 * says why on stderr (the launcher forwards it) when a breakpoint or
 * run-to held it, with its pid for gdb -p.  MPI has no watch that could
 * call a held rank stalled, so nothing else is told.
 *
 * Recording, a held MPI_Recv with a wildcard source lists what it could
 * take: MPI cannot list a queue, but MPI_Iprobe of each possible source,
 * with the receive's tag and communicator, finds that source's first
 * pending message, and by MPI's non-overtaking rule that is the only one
 * of the source the receive could take (its later ones wait behind it,
 * with MPI_ANY_TAG too).  So the candidates are one per source that has
 * one, refreshed every 100 ms while held; when pangaea names one (choice:
 * its source's rank in the communicator, plus 1) the receive is posted
 * for that source and takes it, and the log records the wildcard asked
 * for and the message taken, so the recording replays it.  A candidate's
 * msgid is the receiver's count (the k-th of that sender and tag, as a
 * receive's msgid is written: pg_mpi.h) and its tid the communicator's
 * name in the log, from which pangaea names the sender's msgid
 * (src/cli/live/live_alt.c).  Other calls list none (a replay's choice,
 * a what-if run, is the command's: src/cli/live/live_alt.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_mpi.h"

struct pg_live_pos *pgm_live;
struct pg_live_ctl *pgm_live_ctl;

void pgm_gate_start(void)
{
    const char *dir = getenv(PG_ENV_LIVE), *hold = getenv(PG_ENV_HOLD);
    pg_err err;

    if (!dir || !*dir || pgm.mode == PGM_OFF || pgm_live)
        return;
    pgm_live = pg_live_map(dir, pgm.ltid, hold && !strcmp(hold, "1"),
                           &pgm_live_ctl, &err);
    if (!pgm_live)
        fprintf(stderr, "pangaea: ltid %d (rank %d): the live view will not "
                "see this rank: %s\n", pgm.ltid, pgm.rank, err.msg);
}

/* Events done so far, as the rank's log numbers them. */
static long done_events(void)
{
    return pgm.mode == PGM_REPLAY ? (long)pgm_live->seq
                                  : pg_logw_count(pgm.comm);
}

/* The number the held call's own event will have: a replay has it
 * recorded; a recording's comes after the <site> of a new call site. */
static long next_event(long at)
{
    if (pgm.mode == PGM_REPLAY)
        return pgm.have_next && pgm.next.seq > at ? pgm.next.seq : at + 1;
    return at + 1 + (pgm.pc && !pgm_site_known(pgm.pc));
}

/* " at FILE:LINE" of the program's call, or "". */
static const char *where(char *buf, size_t len)
{
    char path[4096], name[600];
    uintptr_t off;

    if (!pgm.pc || pg_site_locate(pgm.pc, path, sizeof path, &off) < 0)
        return "";
    snprintf(buf, len, " at %s", pg_site_name(path, (long)off, name,
                                             sizeof name));
    return buf;
}

/* A held wildcard receive's candidates: the first pending message of
 * each source of its communicator (remote group, for an
 * intercommunicator) that its tag admits, into the page. */
struct pending {
    MPI_Comm comm;
    int tag;
};

static void list_pending(void *arg)
{
    const struct pending *q = arg;
    struct pg_live_cand *c;
    int size = 0, inter = 0, r, n = 0, flag, bytes, w, ctx;
    MPI_Status st;

    PMPI_Comm_test_inter(q->comm, &inter);
    if (inter)
        PMPI_Comm_remote_size(q->comm, &size);
    else
        PMPI_Comm_size(q->comm, &size);
    ctx = pgm_ctx_of(q->comm);
    for (r = 0; r < size && n < PG_LIVE_CANDS; r++) {
        if (PMPI_Iprobe(r, q->tag, q->comm, &flag, &st) != MPI_SUCCESS ||
            !flag)
            continue;
        w = pgm_to_world(q->comm, r, "MPI_Recv");
        if (PMPI_Get_count(&st, MPI_BYTE, &bytes) != MPI_SUCCESS ||
            bytes == MPI_UNDEFINED)
            bytes = -1;
        c = &pgm_live->cand[n++];
        *c = (struct pg_live_cand){ .bufid = r + 1, .tid = ctx,
                                    .ltid = pgm_ltid_of(w),
                                    .tag = st.MPI_TAG, .bytes = bytes,
                                    .msgid = pgm_count(w, st.MPI_TAG, ctx,
                                                       0) };
    }
    pgm_live->ncand = n;
}

/* The source pangaea chose among the listed ones (a rank of the
 * receive's communicator), or MPI_ANY_SOURCE. */
static int chosen(void)
{
    int choice = pgm_live->choice, i;

    pgm_live->choice = 0;
    for (i = 0; choice > 0 && i < pgm_live->ncand && i < PG_LIVE_CANDS; i++)
        if (pgm_live->cand[i].bufid == choice)
            return choice - 1;
    return MPI_ANY_SOURCE;
}

void pgm_gate(const char *call, int peer, int tag, int size)
{
    pgm_gate_recv(call, peer, tag, size, MPI_COMM_NULL);
}

int pgm_gate_recv(const char *call, int peer, int tag, int size,
                  MPI_Comm comm)
{
    struct pg_live_call c = { call, pgm.pc, pgm.ltid, pgm_ltid_of(peer), tag,
                              size, 0 };
    char why[64], site[700], args[96] = "";
    struct pending q = { comm, tag };
    int list = comm != MPI_COMM_NULL && pgm.mode == PGM_LOG &&
               !pgm.whatif && peer == MPI_ANY_SOURCE, r = MPI_ANY_SOURCE;

    c.at = done_events();
    if (!pg_live_stops(pgm_live, pgm_live_ctl, &c, NULL, why, sizeof why))
        return MPI_ANY_SOURCE;
    if (peer >= 0)
        snprintf(args, sizeof args, "rank %d", peer);
    else if (peer == MPI_ANY_SOURCE)
        snprintf(args, sizeof args, "any source");
    pg_live_publish(pgm_live, &c, next_event(c.at), why,
                    where(site, sizeof site), args);
    if (why[0])
        fprintf(stderr, "pangaea: ltid %d (rank %d) held before %s (peer %d, "
                "tag %d) after event %ld by %s%s, pid %d: attach with gdb -p "
                "%d; the live page lets it go on\n", pgm.ltid, pgm.rank, call,
                c.peer, tag, c.at, why, pgm_live->site, (int)getpid(),
                (int)getpid());
    if (list)
        list_pending(&q);
    pg_live_wait(pgm_live, list ? list_pending : NULL, &q);
    if (list)
        r = chosen();
    pg_live_release(pgm_live);
    return r;
}
