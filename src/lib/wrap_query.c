/*
 * wrap_query.c - pvm_pstat, pvm_mstat, pvm_gsize: questions whose answers
 * depend on timing.
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

#include "pg_internal.h"

typedef int (*ask_fn)(const void *arg);

static int ask(const char *call, const char *about, ask_fn real,
               const void *arg)
{
    int value;

    PG_PASS_UNLESS(pg_app_call() && pg_selected(-1), real(arg));
    PG_ENTER();
    if (pg.mode == PANGAEA_REPLAY || pg_replay_steers())
        value = pg_replay_query(call, about); /* what-if: steers */
    else
        value = real(arg);
    if (pg.mode == PANGAEA_LOG)
        pg_record_query(call, about, value);
    PG_LEAVE();
    return value;
}

static int real_pstat(const void *tid) { return pg_real.pstat(*(const int *)tid); }
static int real_mstat(const void *host) { return pg_real.mstat((char *)host); }
static int real_gsize(const void *group) { return pg_real.gsize((char *)group); }

int pvm_pstat(int tid)
{
    char about[16];

    PG_PASS_UNLESS(pg_app_call(), pg_real.pstat(tid));
    snprintf(about, sizeof about, "%d", pg_ltid_of(tid));
    return ask("pvm_pstat", about, real_pstat, &tid);
}

int pvm_mstat(char *host)
{
    return ask("pvm_mstat", host ? host : "", real_mstat, host);
}

int pvm_gsize(char *group)
{
    pg_real_load_group();
    return ask("pvm_gsize", group ? group : "", real_gsize, group);
}
