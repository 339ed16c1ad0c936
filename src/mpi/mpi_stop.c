/*
 * mpi_stop.c - stopping a replaying rank at a recorded event, for a
 * debugger (`pangaea -replay -stop LTID:EVENT ... mpiexec ...`; pg_mpi.h).
 *
 * Design.  As a PVM task's -stop (src/pvm/runtime/stop.c, whose way this
 * follows; the front ends share no runtime code): PANGAEA_STOP holds
 * "L:E,L:E..." for every rank of the run (mpi_run.c passes it through
 * the launcher); a rank keeps the events named for its ltid.  When the
 * replay has done an event at or past the next of them (pgm_advance: the
 * message is sent or received; call-site and poll events are not acted
 * on, so a stop named there happens after the next event that is), the
 * rank says where it stops, with its pid, on stderr (the launcher
 * forwards it), and stops itself with SIGSTOP inside the wrapper: gdb
 * attached then finds the program's frame a few frames up (`bt`).  It
 * goes on when it gets SIGCONT.  The other ranks run on as far as the
 * recording lets them; no watch counts them stalled (an MPI run has
 * none).  A stop the rank never reached is said at its end.  -debug
 * (gdb starting the rank) is not done for MPI runs: mpi_run.c refuses it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_mpi.h"
#include "pg_util.h"

static long targets[64]; /* this rank's stop events, ascending */
static int ntargets, next;

void pgm_stop_start(void)
{
    const char *s = getenv(PGM_ENV_STOP);

    if (pgm.mode != PGM_REPLAY || pgm.whatif)
        return;
    pg_stop_events(s, pgm.ltid, targets, &ntargets, 64); /* util.c */
    if (ntargets)
        pgm.hooks |= PGM_HOOK_STOPS;
}

/* Says where, and stops. */
static void stop_here(const struct pgm_ev *e)
{
    char host[256] = "";

    gethostname(host, sizeof host - 1);
    fprintf(stderr, "pangaea: ltid %d (rank %d) stopped after event %ld: "
            "%s %s ltid %d, tag %d, on host %s, pid %d: attach with gdb -p "
            "%d (the program's frame is a few frames up: bt); the run goes "
            "on when the rank gets SIGCONT (or gdb continues and detaches)\n",
            pgm.ltid, pgm.rank, e->seq, e->call ? e->call : "?",
            e->kind == PG_EV_SEND ? "to" : "from",
            e->kind == PG_EV_SEND ? e->to : e->from, e->tag, host,
            (int)getpid(), (int)getpid());
    raise(SIGSTOP);
}

void pgm_stop_after(const struct pgm_ev *e)
{
    if (next >= ntargets || e->seq < targets[next])
        return;
    while (next < ntargets && targets[next] <= e->seq)
        next++;
    stop_here(e);
}

void pgm_stop_unreached(long last)
{
    for (; next < ntargets; next++)
        fprintf(stderr, "pangaea: -stop %d:%ld: ltid %d (rank %d) ended at "
                "event %ld without reaching it (pangaea -dump shows its "
                "events)\n", pgm.ltid, targets[next], pgm.ltid, pgm.rank,
                last);
}
