/*
 * wrap_hosts.c - pvm_addhosts and pvm_delhosts: hosts the program adds to
 * or deletes from the virtual machine, and what PVM answered per host.
 *
 * Whether a host can be added depends on the world at that instant (is it
 * already in the machine, is it up, does rsh reach it), so a program that
 * prints or branches on the answers takes other paths from run to run.
 * Each call is one <query call="pvm_hosts"> event: about "add NAMES" or
 * "del NAMES" (the names the program gave, space-separated), value what
 * the call returned; and a 'V' record of the data file: the count, then
 * each host's info (a dtid or an error code), as int64.
 *
 * A replay does not make the call: it returns the recorded value and
 * infos, if the program asks the same thing at the same point (it
 * diverges otherwise).  It adds and deletes no host either: the virtual
 * machine of a replay is the one the replay runs on, whose hosts pangaea
 * checked against the recording before the tasks started (-addhosts adds
 * the ones missing), and deleting one of those would take a host the
 * replay needs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

typedef int (*hosts_fn)(char **, int, int *);

/* "add NAMES" or "del NAMES", cut at the buffer's end. */
static void hosts_about(char *about, size_t size, const char *verb,
                        char **names, int count)
{
    size_t used;
    int i;

    used = (size_t)snprintf(about, size, "%s", verb);
    for (i = 0; i < count && names && used < size; i++)
        used += (size_t)snprintf(about + used, size - used, " %s",
                                 names[i] ? names[i] : "(null)");
}

/* The recorded infos into svp (if the program gave one). */
static void hosts_replayed(int count, int *svp)
{
    int64_t *rec;
    size_t n;
    int i;

    rec = pg_data_get('V', &n);
    if (n < sizeof *rec || rec[0] != count ||
        n != (size_t)(count + 1) * sizeof *rec)
        pg_fatal("ltid-%d.data.pgc: a recorded pvm_addhosts/pvm_delhosts "
                 "answer of %zu bytes does not hold %d hosts", pg.ltid, n,
                 count);
    for (i = 0; svp && i < count; i++)
        svp[i] = (int)rec[i + 1];
    free(rec);
}

static void hosts_record(int count, const int *svp)
{
    int64_t *v = calloc((size_t)count + 1, sizeof *v);
    int i;

    if (!v)
        pg_fatal("out of memory recording pvm_addhosts/pvm_delhosts");
    v[0] = count;
    for (i = 0; i < count; i++)
        v[i + 1] = svp[i];
    pg_data_put('V', v, ((size_t)count + 1) * sizeof *v);
    free(v);
}

static int hosts_call(const char *gate, const char *verb, hosts_fn real,
                      char **names, int count, int *svp)
{
    char about[512];
    int *infos, cc;

    PG_RETURN_REAL_UNLESS_AS(gate, pg_app_call() && pg.ltid != 0 && pg_selected(-1),
                             real(names, count, svp), -1, -1, -1, NULL);
    if (count < 1) /* PvmBadParam, whatever the world: nothing to log */
        return real(names, count, svp);
    PG_ENTER();
    hosts_about(about, sizeof about, verb, names, count);
    infos = calloc((size_t)count, sizeof *infos);
    if (!infos)
        pg_fatal("out of memory in pvm_%shosts", verb);
    if (pg.mode == PANGAEA_REPLAY || pg_replay_steers()) {
        cc = pg_replay_query("pvm_hosts", about);
        hosts_replayed(count, infos);
    } else {
        cc = real(names, count, infos);
    }
    if (pg.mode == PANGAEA_LOG) {
        pg_record_query("pvm_hosts", about, cc);
        hosts_record(count, infos);
    }
    if (svp)
        memcpy(svp, infos, (size_t)count * sizeof *infos);
    free(infos);
    PG_LEAVE();
    return cc;
}

int pvm_addhosts(char **names, int count, int *svp)
{
    pg_real_load();
    return hosts_call(PG_CALL_NAME(addhosts), "add",
                      pg_real.addhosts, names, count, svp);
}

int pvm_delhosts(char **names, int count, int *svp)
{
    pg_real_load();
    return hosts_call(PG_CALL_NAME(delhosts), "del",
                      pg_real.delhosts, names, count, svp);
}
