/*
 * whatif.h - forcing the other order: the parts of `pangaea`
 * that make a racing receive take another message.
 *   whatif.c   -whatif: checks the choice against -races, computes which
 *              recorded events the run follows, writes the plan
 *   rerun.c    running `pangaea` itself again (a child run, its output
 *              hashed, a time limit), for the two drivers below
 *   explore.c  -explore: what-ifs, each a new order of the racing receives
 *              (explore_order.c keeps the orders), until one fails
 *   chaos.c    -chaos: recorded runs with receive-side perturbation
 */
#ifndef PG_TOP_WHATIF_H
#define PG_TOP_WHATIF_H

#include <stddef.h>

#include "top.h"

/* One -whatif SPEC more (several force several receives at once): 0, or
 * -1 and err past WHATIF_MAX. */
#define WHATIF_MAX 16
int top_whatif_add(const char *spec, pg_err *err);
/* The choices given, with -logdir FROM: checks each (-1 and err, with the
 * alternatives, when it is not one), computes the plan; fills newdir with
 * the default NEWDIR when it is "" and sets o->whatif.  0, or -1 and err:
 * nothing has run or moved. */
int top_whatif_parse(struct top_opts *o, const char *from, char *newdir,
                     size_t size, pg_err *err);
/* Before PVM is joined (no pvmd started for a run that is refused): the
 * recording forked is whole and of o's program, and not o's log
 * directory.  0, or -1 and err. */
int top_whatif_check(const struct top_opts *o, pg_err *err);
/* Once the new log directory is ready and PVM joined: the recording's
 * hosts are checked, the plan written and named to the tasks.  0, or -1
 * and err. */
int top_whatif_start(struct top_opts *o, pg_err *err);
/* Says how the what-if run ended and where it went; returns status. */
int top_whatif_done(const struct top_opts *o, int status);

/* Per task of run, into min: the first event that causally follows event
 * pos of task (n+1: none), as a what-if forcing that receive stops
 * following its recording there.  0, or -1 out of memory. */
struct rc_run;
int top_whatif_reach(struct rc_run *run, int task, int pos, int *min);
/* Receive pos of task t is a poll that took a message it could as well
 * not have found (LTID:SEQ=none): 1, 0, -1 out of memory. */
int top_whatif_may_find_nothing(struct rc_run *run, int task, int pos);

/* -explore and -chaos: the drivers; each returns pangaea's exit status. */
int top_explore(int argc, char **argv);
int top_chaos(int argc, char **argv);

#endif
