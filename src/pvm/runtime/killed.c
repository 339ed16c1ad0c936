/*
 * killed.c - a replayed task at the point where the program killed it
 * when recorded.
 *
 * A task that another task kills with pvm_kill while it waits in a
 * receive leaves a log that simply stops (it died there).  In replay it
 * reaches that receive again, where its log has nothing more; if the
 * recording's killer logged a pvm_kill of it (a <query call="pvm_kill">,
 * wrap_kill.c), that is no
 * divergence: the replayed pvm_kill will come, so the task waits for it
 * (told to `pangaea` as blocked, so that a replay where the kill never
 * comes still ends as stalled).  A task that died otherwise (a crash, a
 * SIGKILL from outside) has none and diverges as before.  The logs of
 * the other tasks are read only then: rare, and bounded by the recording.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"

/* 1 if ltid `killer`'s communication log holds a pvm_kill of `victim`. */
static int log_kills(int killer, int victim)
{
    char path[4200];
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    int cc, found = 0;

    pg_log_path(path, sizeof path, pg.logdir, killer, PG_LOG_COMM);
    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    if (!r)
        return 0;
    while (!found && (cc = pg_logr_next(r, &ev, &err)) == 1)
        found = ev.kind == PG_EV_QUERY && !strcmp(ev.call, "pvm_kill") &&
                atoi(ev.about) == victim;
    pg_logr_close(r);
    return found;
}

/* The ltid whose recording killed this task, or -1. */
static int recorded_killer(void)
{
    DIR *d = opendir(pg.logdir);
    struct dirent *e;
    int ltid, killer = -1;

    while (d && killer < 0 && (e = readdir(d))) {
        ltid = pg_log_name_ltid(e->d_name, PG_LOG_COMM);
        if (ltid >= 0 && ltid != pg.ltid && log_kills(ltid, pg.ltid))
            killer = ltid;
    }
    if (d)
        closedir(d);
    return killer;
}

void pg_await_recorded_kill(const char *happened)
{
    char msg[700];
    int killer = recorded_killer();

    if (killer < 0)
        return;
    snprintf(msg, sizeof msg, "waits to be killed by ltid %d (pvm_kill), "
             "as when recorded; the program %.500s", killer, happened);
    pg_coord_report(PG_REP_BLOCKED, msg);
    for (;;)
        pause();
}
