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
 * call a held rank stalled, so nothing else is told.  A held receive
 * lists no queued messages: MPI cannot list a queue without taking from
 * it, so the page's choice among them is PVM's only (a replay's choice,
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

void pgm_gate(const char *call, int peer, int tag, int size)
{
    struct pg_live_call c = { call, pgm.pc, pgm.ltid, pgm_ltid_of(peer), tag,
                              size, 0 };
    char why[64], site[700], args[96] = "";

    c.at = done_events();
    if (!pg_live_stops(pgm_live, pgm_live_ctl, &c, NULL, why, sizeof why))
        return;
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
    pg_live_wait(pgm_live, NULL, NULL);
    pg_live_release(pgm_live);
}
