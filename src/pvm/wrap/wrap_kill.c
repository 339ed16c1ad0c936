/*
 * wrap_kill.c - pvm_kill: one task of the program ends another.
 *
 * When a task is killed depends on where its killer is, so a replay must
 * kill it at the same point: each pvm_kill is logged as a <query
 * call="pvm_kill"> about the victim's ltid with what the call returned
 * (wrap_query.c's event: the binary format has no kind code left), and in
 * replay the killer kills
 * the victim's tid of this run there, and returns the recorded value.  The
 * victim's log just stops; in replay it waits there for the kill
 * (killed.c).  Before killing, the killer tells the coordinator
 * (PG_TAG_KILLING), which then reports the victim's end as the program's
 * doing at once, instead of waiting for an exit report that cannot come
 * and calling the end abnormal.  pangaea's own kills (ltid 0, ending a
 * run) pass straight through.
 */
#include <stdio.h>

#include "pg_internal.h"

int pvm_kill(int tid)
{
    char about[16];
    int cc, ltid;

    pg_real_load();
    PG_RETURN_REAL_UNLESS_AT(kill, pg.ltid != 0 && pg_app_call() && pg_selected(-1),
                             pg_real.kill(tid), tid, -1, -1, NULL);
    PG_ENTER();
    ltid = pg_ltid_of(tid);
    snprintf(about, sizeof about, "%d", ltid);
    if (pg_replaying()) { /* a what-if records it too */
        cc = pg_replay_query("pvm_kill", about);
        if (ltid > 0)
            pg_coord_killing(ltid);
        pg_real.kill(tid);
        if (pg.mode == PANGAEA_LOG)
            pg_record_query("pvm_kill", about, cc);
    } else {
        if (ltid > 0)
            pg_coord_killing(ltid);
        cc = pg_real.kill(tid);
        if (pg.mode == PANGAEA_LOG)
            pg_record_query("pvm_kill", about, cc);
    }
    PG_LEAVE();
    return cc;
}
