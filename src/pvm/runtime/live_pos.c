/*
 * live_pos.c - a task's place in its run, and its control block, for
 * `pangaea -log|-replay -live`.
 *
 * Design.  A replay writes no log, so the live view could not see how far
 * a task got, nor which recorded message a waiting task waits for.  Rather
 * than add a message per event (the 1996 Pangaea doubled the program's
 * traffic that way), each task maps one small file, PANGAEA_LIVE/ltid-N.pos,
 * and stores two numbers in it: the events it has consumed and whether it
 * waits in a receive.  That is two stores per event, no system call.
 * `pangaea` reads the file and the recording (which it has) and works out
 * the rest: the events replayed so far are the recorded ones up to seq;
 * the message a waiting task waits for is its next recorded receive.
 *
 * The same page carries the task's control block (live_pos.h), in a
 * recording under -live too: pangaea holds a task at its next PVM call by
 * writing to it, and the task says there what call it holds in (gate.c).
 * The run's breakpoints are in one more file, PANGAEA_LIVE/control, that
 * pangaea makes and every task maps.  Only runs under -live set
 * PANGAEA_LIVE; then a task that cannot make its file says so and runs
 * unwatched.  Making and mapping the files is live_gate.c's
 * (pg_live_map), shared with the MPI front end.
 */
#define _GNU_SOURCE
#include "live_pos.h"

#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

struct pg_live_pos *pg_live;
struct pg_live_ctl *pg_live_ctl;

void pg_live_pos_open(void)
{
    const char *dir = getenv(PG_ENV_LIVE), *hold = getenv(PG_ENV_HOLD);
    pg_err err;

    if (!dir || !*dir || pg.ltid < 0 || pg_live)
        return;
    /* -hold: ltid 0 is pangaea's own, never held */
    pg_live = pg_live_map(dir, pg.ltid, hold && !strcmp(hold, "1") &&
                                            pg.ltid > 0,
                          &pg_live_ctl, &err);
    if (!pg_live)
        pg_warn("the live view will not see this task: %s", err.msg);
}
