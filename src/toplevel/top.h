/*
 * top.h - the parts of the `pangaea` command.
 *   main.c     options, checks before anything starts, the run's sequence
 *   daemon.c   finding or starting the pvmd, and stopping what we started
 *   monitor.c  the run itself: task output, reports, ends, the exit status
 *   export.c   -display, -tasks, -export perfetto: a recorded run shown,
 *              with runlog.c (loading, matching), lamport.c (logical
 *              order), display.c and graph.html (the event graph page)
 */
#ifndef PG_TOP_H
#define PG_TOP_H

#include "pangaea.h"
#include "pg_err.h"

struct top_opts {
    pangaea_mode_t mode;
    char logdir[4096];
    const char *host;       /* -host: where the first task runs      */
    const char *coordhost;  /* -coordhost: where the coordinator runs */
    char program[4096];     /* resolved path of the program           */
    char **args;            /* the program's own arguments, NULL-ended */
    char only[256];         /* -only: selective logging, "" for all    */
};

/* Exit statuses of `pangaea` itself. */
#define TOP_EXIT_USAGE 2    /* bad option, missing program, bad logs */
#define TOP_EXIT_DIVERGED 3 /* a replay diverged                     */
#define TOP_EXIT_FAILED 4   /* pangaea could not run the program     */

/* Connects to a pvmd, starting a private one when none answers (*started
 * is then 1).  0, or -1 and err. */
int top_daemon_connect(int *started, pg_err *err);
/* Leaves PVM; halts the daemon if we started it. */
void top_daemon_release(int started);

/* Runs the program under the coordinator until every task has ended.
 * Returns pangaea's exit status. */
int top_monitor(const struct top_opts *o, int ctx, int coord, int first_tid);

/* `pangaea -display|-tasks|-export perfetto [LOGDIR]` (export.c): read a
 * recording's logs only.  top_postmortem returns the exit status. */
int top_is_postmortem(const char *arg);
int top_postmortem(int argc, char **argv);

#endif
