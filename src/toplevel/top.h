/*
 * top.h - the parts of the `pangaea` command.
 *   main.c     options, checks before anything starts, the run's sequence
 *   daemon.c   finding or starting the pvmd, and stopping what we started
 *   monitor.c  the run itself: task output, reports, ends, the exit status
 *   hostcheck.c  before a replay: the execution logs and their hosts
 *   move.c     -move, -move-host: moving tasks to other hosts in the logs
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

/* Replay on several hosts (hostcheck.c).  Before joining PVM: reads every
 * execution log through and checks it is of this recording and program.
 * After joining, before anything starts: every host a task is to run on
 * is in the virtual machine or is added; says where tasks read their logs.
 * Each returns 0, or -1 and err. */
int top_check_exec_logs(const struct top_opts *o, pg_err *err);
int top_check_hosts(const struct top_opts *o, pg_err *err);
/* Set when the replay's tasks run on several hosts: the monitor then says
 * on which host each task started, as the task itself reports it. */
extern int top_multihost;

/* `pangaea -move LTID HOST` and `-move-host FROM TO` (move.c). */
int top_is_move(const char *arg);
int top_move(int argc, char **argv);

/* `pangaea -display|-tasks|-export perfetto [LOGDIR]` (export.c): read a
 * recording's logs only.  top_postmortem returns the exit status. */
int top_is_postmortem(const char *arg);
/* dump.c: -dump [LOGDIR] [LTID], the communication logs as XML. */
int top_is_dump(const char *arg);
int top_dump(int argc, char **argv);
int top_postmortem(int argc, char **argv);

#endif
