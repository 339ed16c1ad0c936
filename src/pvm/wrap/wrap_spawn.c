/*
 * wrap_spawn.c - pvm_spawn, and how children get their ltids.
 *
 * ltids are a function of the family tree, never of timing: the k-th child
 * (1-based) that task P spawns gets
 *     P = 0 (pangaea):  k            (the program's first task is 1)
 *     P = 1:            1 + k        (its children 2 .. 999)
 *     P >= 2:           P * 1000 + k (k <= 999; task 2's children 2001 ...)
 * so the same task has the same ltid in every run, even when several tasks
 * spawn at once.
 *
 * The program's first task is spawned by `pangaea`, but must see what it
 * sees when started from a shell: no parent.
 *
 * A spawn of n tasks is made as n spawns of one task each: the child learns
 * its ltid from PANGAEA_LTID, set just for that spawn (PVM_EXPORT carries
 * it), and in replay each child can go to the host it ran on.  PVM then
 * thinks each child has no siblings; the coordinator keeps the groups, and
 * pvm_siblings asks it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "pg_internal.h"

int pg_child_ltid(int parent, int k)
{
    if (k < 1 || parent < 0)
        return -1;
    if (parent == 0)
        return k;
    if (parent == 1)
        return k <= 998 ? 1 + k : -1;
    if (k > 999 || parent > (INT_MAX - 999) / 1000)
        return -1;
    return parent * 1000 + k;
}

static int spawn_one(char *task, char **argv, int flag, char *where,
                     int ltid, int *tid)
{
    char v[16];
    int cc;

    snprintf(v, sizeof v, "%d", ltid);
    setenv(PG_ENV_LTID, v, 1);
    if (ltid == pg_debug_ltid()) /* -debug: the pvmd runs $PVM_DEBUGGER */
        flag |= PvmTaskDebug;
    cc = pg_real.spawn(task, argv, flag, where, 1, tid);
    setenv(PG_ENV_LTID, "", 1);
    if (cc == 1)
        pg_coord_announce(ltid, *tid);
    return cc;
}

static int spawn_recorded(char *task, char **argv, int flag, char *where,
                          int count, int *tids)
{
    const pg_event *ev = pg_replay_spawn(task, count);
    int i, cc;

    flag = (flag & ~PvmTaskArch) | PvmTaskHost;
    for (i = 0; i < ev->nchild; i++) {
        char packed[PATH_MAX]; /* progmap.c: a replay from a pack */
        const char *run = pg_progmap(ev->child_ltid[i], task, packed,
                                     sizeof packed);

        cc = spawn_one((char *)run, argv, flag, (char *)ev->child_host[i],
                       ev->child_ltid[i], &tids[i]);
        if (cc != 1)
            pg_fatal("replay cannot start ltid %d (%s) on host %s, where it "
                     "ran when recorded (pvm_spawn: %d)", ev->child_ltid[i],
                     task, ev->child_host[i], tids[i]);
        pg.nspawned++;
    }
    pg_coord_group(tids, ev->nchild);
    if (pg.mode == PANGAEA_LOG) /* a what-if records what it follows */
        pg_record_spawn(task, argv, flag, where, count, ev->nchild,
                        ev->child_ltid, tids);
    for (; i < count; i++)
        tids[i] = PvmNoFile; /* failed when recorded too */
    return ev->nchild;
}

static int spawn_new(char *task, char **argv, int flag, char *where,
                     int count, int *tids)
{
    int *ltids = malloc((count > 0 ? count : 1) * sizeof *ltids);
    int *started = malloc((count > 0 ? count : 1) * sizeof *started);
    int i, n = 0, ltid;

    if (!ltids || !started)
        pg_fatal("out of memory");
    for (i = 0; i < count; i++) {
        ltid = pg_child_ltid(pg.ltid, pg.nspawned + 1);
        if (ltid < 0)
            pg_fatal("too many children for ltid %d (no ltid left)", pg.ltid);
        if (spawn_one(task, argv, flag, where, ltid, &tids[i]) == 1) {
            pg.nspawned++;
            ltids[n] = ltid;
            started[n++] = tids[i];
        }
    }
    pg_coord_group(started, n);
    if (pg.mode == PANGAEA_LOG)
        pg_record_spawn(task, argv, flag, where, count, n, ltids, started);
    free(ltids);
    free(started);
    return n;
}

int pvm_spawn(char *task, char **argv, int flag, char *where, int count,
              int *tids)
{
    int cc;

    PG_PASS_UNLESS_AT(spawn, pg_app_call() && count > 0 && tids,
                      pg_real.spawn(task, argv, flag, where, count, tids), -1,
                      -1, -1, "%.60s count %d", task ? task : "", count);
    PG_ENTER();
    if (pg.mode == PANGAEA_REPLAY || pg_replay_spawn_steers(task, count))
        cc = spawn_recorded(task, argv, flag, where, count, tids);
    else
        cc = spawn_new(task, argv, flag, where, count, tids);
    PG_LEAVE();
    return cc;
}

int pvm_parent(void)
{
    /* gated, as every call */
    PG_PASS_UNLESS(parent, pg_app_call(), pg_real.parent());
    return pg.ltid == 1 ? PvmNoParent : pg_real.parent();
}

int pvm_siblings(int **tids)
{
    static int *group, n = -1;

    /* The first task was started alone, as from a shell: PVM's answer is
     * right for it. */
    PG_PASS_UNLESS(siblings, pg_app_call(), pg_real.siblings(tids));
    if (pg.ltid <= 1)
        return pg_real.siblings(tids);
    if (n < 0) {
        PG_ENTER();
        n = pg_coord_siblings(&group);
        PG_LEAVE();
    }
    if (n <= 0)
        return pg_real.siblings(tids);
    *tids = group;
    return n;
}
