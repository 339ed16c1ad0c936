/*
 * wrap_query.c - pvm_pstat, pvm_mstat, pvm_gsize, pvm_hostsync: questions
 * whose answers depend on timing; pvm_archcode: one whose answer depends
 * on the virtual machine's hosts.
 *
 * "Is worker 3 still running?", "is host B up?", "how many have joined?"
 * are answered by the daemons or the group server as things stand at that
 * instant, so a program that polls them takes other branches from run to
 * run.  Each such call is a <query> event: what it asked (an ltid, a host,
 * a group) and what it got.  A replay does not ask PVM: the call returns
 * what it returned when recorded, if the program asks the same question
 * at the same point, and diverges otherwise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pg_internal.h"

/* The answer to `call` about `about`: the real one `value` (recorded
 * when recording), or in a replay the recorded one.  The wrapper has
 * passed its guard (and the gate) already, once. */
static int answer(const char *call, const char *about, int value)
{
    if (pg_replaying())
        value = pg_replay_query(call, about); /* what-if: steers */
    if (pg.mode == PANGAEA_LOG)
        pg_record_query(call, about, value);
    return value;
}

/* A replay does not ask PVM: the real call is made only when needed. */
#define ASK(call, about, realcall)                                             \
    ({                                                                         \
        int ask_;                                                              \
        PG_ENTER();                                                            \
        ask_ = answer(call, about, pg_replaying() ? 0 : (realcall));           \
        PG_LEAVE();                                                            \
        ask_;                                                                  \
    })

int pvm_pstat(int tid)
{
    char about[16];

    PG_RETURN_REAL_UNLESS(pstat, pg_app_call() && pg_selected(-1),
                          pg_real.pstat(tid));
    snprintf(about, sizeof about, "%d", pg_ltid_of(tid));
    return ASK("pvm_pstat", about, pg_real.pstat(tid));
}

int pvm_mstat(char *host)
{
    PG_RETURN_REAL_UNLESS(mstat, pg_app_call() && pg_selected(-1),
                          pg_real.mstat(host));
    return ASK("pvm_mstat", host ? host : "", pg_real.mstat(host));
}

int pvm_gsize(char *group)
{
    pg_real_load_group();
    PG_RETURN_REAL_UNLESS(gsize, pg_app_call() && pg_selected(-1),
                          pg_real.gsize(group));
    return ASK("pvm_gsize", group ? group : "", pg_real.gsize(group));
}

/* pvm_archcode: the data signature of an architecture, as the hosts of
 * the virtual machine say (PvmNotFound if no host has that architecture):
 * another virtual machine answers otherwise, and the program may decide by
 * it (whether to pack in XDR).  A query about the architecture's name,
 * replayed as recorded. */
int pvm_archcode(char *arch)
{
    pg_real_load();
    PG_RETURN_REAL_UNLESS(archcode, pg_app_call() && pg_selected(-1),
                          pg_real.archcode(arch));
    return ASK("pvm_archcode", arch ? arch : "", pg_real.archcode(arch));
}

/* pvm_hostsync: a host's clock and its offset from ours, as one query
 * (about the host's tid, value what the call returned) and, when it
 * succeeded, an 'H' record of the data file: the two times, as four
 * int64 (seconds, microseconds of clk, then of delta).  A replay does not
 * ask the host: the clocks it would read are not the recorded ones. */
int pvm_hostsync(int host, struct timeval *clk, struct timeval *delta)
{
    struct timeval c = { 0, 0 }, d = { 0, 0 };
    int64_t v[4], *rec;
    char about[16];
    size_t n;
    int cc;

    PG_RETURN_REAL_UNLESS(hostsync, pg_app_call() && pg.ltid != 0 && pg_selected(-1),
                          pg_real.hostsync(host, clk, delta));
    PG_ENTER();
    snprintf(about, sizeof about, "t%x", (unsigned)host);
    if (pg.mode == PANGAEA_REPLAY || pg_replay_steers()) {
        if ((cc = pg_replay_query("pvm_hostsync", about)) >= 0) {
            rec = pg_data_get('H', &n);
            if (n != sizeof v)
                pg_fatal("ltid-%d.data.pgc: a recorded pvm_hostsync answer "
                         "of %zu bytes (not %zu)", pg.ltid, n, sizeof v);
            c = (struct timeval){ rec[0], rec[1] };
            d = (struct timeval){ rec[2], rec[3] };
            free(rec);
        }
    } else {
        cc = pg_real.hostsync(host, &c, &d);
    }
    if (pg.mode == PANGAEA_LOG) {
        pg_record_query("pvm_hostsync", about, cc);
        v[0] = c.tv_sec, v[1] = c.tv_usec, v[2] = d.tv_sec, v[3] = d.tv_usec;
        if (cc >= 0)
            pg_data_put('H', v, sizeof v);
    }
    if (cc >= 0 && clk)
        *clk = c;
    if (cc >= 0 && delta)
        *delta = d;
    PG_LEAVE();
    return cc;
}
