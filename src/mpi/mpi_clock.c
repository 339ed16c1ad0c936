/*
 * mpi_clock.c - MPI's clocks (pg_mpi.h): MPI_Wtime and MPI_Wtick.
 *
 * Design.  A program that decides by elapsed time, or prints it, takes
 * other branches in a replay unless it reads the recorded times again.
 * Each call the program makes is a <query> event of the rank's
 * communication log (call MPI_Wtime or MPI_Wtick, about the value as a
 * decimal that reads back exactly: docs/comm-log-format.md), in order
 * among its messages; a replay returns the recorded value, and a program
 * that reads a clock where the recording has another event diverged (the
 * run ends, naming both).  Calls MPI makes itself (pgm.busy) and calls
 * in a run without Pangaea go straight to the clock.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "pg_mpi.h"

static double clock_call(const char *call, double (*real)(void))
{
    const char *const calls[] = { call, NULL };
    const struct pgm_ev *e;
    double v;
    char *end;

    if (pgm.mode == PGM_OFF || pgm.busy)
        return real();
    pgm.busy = 1;
    if (pgm.mode == PGM_LOG) {
        v = real();
        pgm_log_clock(call, v);
    } else {
        e = pgm_expect(PG_EV_QUERY, calls, call, 0);
        v = strtod(e->about, &end);
        if (end == e->about || *end)
            pgm_die(PGM_REFUSED, "event %ld: %s's recorded value \"%s\" is "
                    "not a number", e->seq, call, e->about);
        pgm_advance();
    }
    pgm.busy = 0;
    return v;
}

PGM_API double MPI_Wtime(void)
{
    return clock_call("MPI_Wtime", PMPI_Wtime);
}

PGM_API double MPI_Wtick(void)
{
    return clock_call("MPI_Wtick", PMPI_Wtick);
}
