/*
 * wrap_spawn.c - pvm_spawn, and how children get their ltids.
 *
 * A task is known by its place in the family tree: the k-th child
 * (1-based, counting the children started) of the task with ltid P.  Its
 * ltid is a number for that place which the recording keeps: the
 * parent's execution log names each child's ltid (<child ltid="N">), so
 *  - recording: the coordinator numbers new tasks densely, in the order
 *    their parents ask (pg_coord_new_ltid); the program's first task,
 *    pangaea's one child, is 1.  No limit but INT_MAX tasks in a run: a
 *    task may spawn any number of children, a chain may be any depth.
 *  - replay: each child gets the ltid its parent's log gives it
 *    (spawn_recorded), in whatever order concurrent spawns arrive;
 *  - what-if: a spawn that follows the recording likewise; one that does
 *    not gets the ltid the recording gave that place (the parent's k-th
 *    child in its old log), or, for a place the recording does not have,
 *    a new number, above all of the recording's (the coordinator starts
 *    there).
 * Recordings made when ltids were P*1000+k replay as they are: ltids are
 * read from the logs, never computed.
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

#include "pg_grow.h"
#include "pg_internal.h"

int pg_exec_children(const char *path, int **ltids, pg_err *err)
{
    pg_logr *r = pg_logr_open(path, PG_LOG_EXEC, NULL, err);
    size_t cap = 0;
    pg_event ev;
    int n = 0, i, cc;

    *ltids = NULL;
    if (!r)
        return -1;
    while ((cc = pg_logr_next(r, &ev, err)) == 1)
        for (i = 0; ev.kind == PG_EV_SPAWN && i < ev.nchild; i++) {
            if (pg_grow(ltids, &cap, (size_t)n + 1, sizeof **ltids) < 0) {
                cc = pg_err_set(err, "%s: out of memory", path);
                break;
            }
            (*ltids)[n++] = ev.child_ltid[i];
        }
    if (cc < 0 && pg_logr_cut(r))
        cc = 0; /* its task died when recorded: its children are all there */
    pg_logr_close(r);
    if (cc < 0) {
        free(*ltids);
        *ltids = NULL;
        return -1;
    }
    return n;
}

/* What-if: the ltid the recording followed gave this task's k-th child,
 * or -1 (no such child, or this task is not in that recording). */
static int recorded_place(int k)
{
    static int *kids, nkids = -1;
    char path[4200];
    pg_err err;

    if (!pg_whatif.on)
        return -1;
    if (nkids < 0) {
        pg_log_path(path, sizeof path, pg_whatif_dir(), pg.ltid, PG_LOG_EXEC);
        if ((nkids = pg_exec_children(path, &kids, &err)) < 0)
            pg_fatal("%s", err.msg);
    }
    return k <= nkids ? kids[k - 1] : -1;
}

/* The ltid of this task's k-th child.  A number got for a child whose
 * spawn then failed is kept for the next try: the numbers stay dense. */
static int child_ltid(int k)
{
    static int held_k, held_ltid;
    int ltid;

    if (pg.ltid == 0)
        return k; /* pangaea: the program's first task is ltid 1 */
    if (held_k == k)
        return held_ltid;
    if ((ltid = recorded_place(k)) < 0 && (ltid = pg_coord_new_ltid(k)) < 0)
        pg_fatal("no ltid left for child %d of ltid %d: a run numbers at "
                 "most %d tasks", k, pg.ltid, INT_MAX - 1);
    held_k = k;
    held_ltid = ltid;
    return ltid;
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
        ltid = child_ltid(pg.nspawned + 1);
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

    PG_RETURN_REAL_UNLESS_AT(spawn, pg_app_call() && count > 0 && tids,
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
    PG_RETURN_REAL_UNLESS(parent, pg_app_call(), pg_real.parent());
    return pg.ltid == 1 ? PvmNoParent : pg_real.parent();
}

int pvm_siblings(int **tids)
{
    static int *group, n = -1;

    /* The first task was started alone, as from a shell: PVM's answer is
     * right for it. */
    PG_RETURN_REAL_UNLESS(siblings, pg_app_call(), pg_real.siblings(tids));
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
