/*
 * wrap_group.c - PVM groups (libgpvm3): pvm_joingroup, pvm_gettid,
 * pvm_getinst, pvm_barrier, pvm_bcast, pvm_reduce, pvm_gather, pvm_scatter.
 *
 * Instance numbers are handed out in the order joins reach the group
 * server, so they differ from run to run.  Design:
 * - Every lookup the program makes (pvm_joingroup, pvm_gettid,
 *   pvm_getinst) is a <gettid> event: "instance I of group G is ltid L".
 *   In replay pvm_gettid returns the tid of the recorded ltid in this run,
 *   pvm_getinst the recorded instance, and pvm_joingroup waits until the
 *   server will hand out the recorded instance (the lower ones taken, that
 *   one free) before joining.  So real instance numbers come out as
 *   recorded, and libgpvm3's own uses of them (the root of a reduce, the
 *   slots of a gather or scatter) agree with what the program was told.
 * - pvm_bcast is one send event naming the members it reached (sorted by
 *   ltid: the server's member order follows instances), with one message
 *   id; the real pvm_bcast sends it, and its inner pvm_mcast, made while
 *   ours is in progress, passes through.
 * - pvm_reduce, pvm_gather, pvm_scatter send and receive their data with
 *   pvm_send/pvm_recv in the group context SYSCTX_DG.  While one runs, those
 *   calls with its tag are the application's (pg_app_call_tag): they are
 *   logged and replayed as ordinary events, so a floating-point reduction
 *   combines in the recorded order.  The group server's traffic (its own
 *   tags) and lookups inside the collective pass through unseen.
 * - pvm_gsize, whose count races with joins, is a query (wrap_query.c).
 * - pvm_barrier is no event, but in replay a task blocked in it tells
 *   pangaea so (PG_REP_BLOCKED), since it cannot say when it has waited
 *   long: a replay where every task waits must not hang silently.
 *   pvm_lvgroup, pvm_freezegroup are not wrapped: they only talk to the
 *   group server.
 */
#include <stdio.h>
#include <time.h>

#include "pg_internal.h"

/* The ltid to log for what a lookup returned: errors are kept as they are. */
static int ltid_or_error(int tid)
{
    return tid < 0 ? tid : pg_ltid_of(tid);
}

int pvm_gettid(char *group, int inst)
{
    const pg_event *ev;
    int tid;

    pg_real_load_group();
    if (pg.coll || !pg_app_call()) {
        PG_ENTER(); /* the server's replies are PVM's, not the program's */
        tid = pg_real.gettid(group, inst);
        PG_LEAVE();
        return tid;
    }
    PG_ENTER();
    if (pg.mode == PANGAEA_REPLAY) {
        ev = pg_replay_gettid("pvm_gettid", group, inst, PG_ANY);
        tid = ev->from < 0 ? ev->from : pg_tid_of(ev->from);
    } else {
        tid = pg_real.gettid(group, inst);
        if (pg.mode == PANGAEA_LOG)
            pg_record_gettid(group, inst, ltid_or_error(tid));
    }
    PG_LEAVE();
    return tid;
}

int pvm_getinst(char *group, int tid)
{
    int inst, ltid;

    pg_real_load_group();
    if (pg.coll || !pg_app_call()) {
        PG_ENTER();
        inst = pg_real.getinst(group, tid);
        PG_LEAVE();
        return inst;
    }
    PG_ENTER();
    ltid = pg_ltid_of(tid);
    if (pg.mode == PANGAEA_REPLAY) {
        inst = pg_replay_gettid("pvm_getinst", group, PG_ANY, ltid)->inst;
    } else {
        inst = pg_real.getinst(group, tid);
        if (pg.mode == PANGAEA_LOG)
            pg_record_gettid(group, inst, inst < 0 ? inst : ltid);
    }
    PG_LEAVE();
    return inst;
}

/* Replay: true when the server would give instance `inst` to the next
 * joiner (it gives the lowest free one). */
static int inst_is_next(char *group, int inst)
{
    int j;

    if (pg_real.gettid(group, inst) >= 0)
        return 0;
    for (j = 0; j < inst; j++)
        if (pg_real.gettid(group, j) < 0)
            return 0;
    return 1;
}

static double seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Replay: joins when the recorded instance is the next one handed out, so
 * that the joins of all tasks reach the server in the recorded order.
 * Leaves (pvm_lvgroup, or a member's end) are not replayed: if one comes
 * earlier than when recorded, the instance may never be next, or the server
 * hands out another; a wait longer than PANGAEA_STALL seconds is reported
 * as a receive's is, and another instance ends the task. */
static int replay_join(char *group)
{
    const pg_event *ev = pg_replay_gettid("pvm_joingroup", group, PG_ANY,
                                          pg.ltid);
    struct timespec nap = { 0, 2000000 };
    int want = ev->inst, inst, said = 0;
    long seq = ev->seq;
    double start = seconds();
    char msg[512];

    if (want < 0)
        return want; /* it failed when recorded */
    while (!inst_is_next(group, want)) {
        nanosleep(&nap, NULL);
        if (!said && seconds() - start >= pg_stall_seconds()) {
            snprintf(msg, sizeof msg, "waits in pvm_joingroup for instance "
                     "%d of group \"%.100s\" (recorded event %ld)", want,
                     group, seq);
            pg_warn("replay has waited %d s: %s", pg_stall_seconds(), msg);
            pg_coord_report(PG_REP_STALL, msg);
            said = 1;
        }
    }
    if (said)
        pg_coord_report(PG_REP_RESUMED, "");
    inst = pg_real.joingroup(group);
    if (inst != want)
        pg_fatal("pvm_joingroup(\"%s\") gave instance %d, recorded %d (a "
                 "member left in another order than when recorded: leaves "
                 "are not replayed)", group, inst, want);
    return inst;
}

int pvm_barrier(char *group, int count)
{
    char msg[256];
    int cc;

    pg_real_load_group();
    if (pg.mode != PANGAEA_REPLAY || pg.coll || !pg_app_call())
        return pg_real.barrier(group, count);
    PG_ENTER();
    snprintf(msg, sizeof msg, "waits in pvm_barrier(\"%.100s\", %d)",
             group ? group : "", count);
    pg_coord_report(PG_REP_BLOCKED, msg);
    cc = pg_real.barrier(group, count);
    pg_coord_report(PG_REP_RESUMED, "");
    PG_LEAVE();
    return cc;
}

int pvm_joingroup(char *group)
{
    int inst;

    pg_real_load_group();
    if (!pg_app_call())
        return pg_real.joingroup(group);
    PG_ENTER();
    if (pg.mode == PANGAEA_REPLAY) {
        inst = replay_join(group);
    } else {
        inst = pg_real.joingroup(group);
        if (pg.mode == PANGAEA_LOG)
            pg_record_gettid(group, inst, pg.ltid);
    }
    PG_LEAVE();
    return inst;
}

/* The members of `group` other than this task, sorted by ltid, into
 * tids[max]; their number, or a PVM error. */
static int members(char *group, int *tids, int max)
{
    int size = pg_real.gsize(group), inst, n = 0, found = 0, tid, i, j;

    for (inst = 0; size > 0 && found < size && inst < 65536; inst++) {
        tid = pg_real.gettid(group, inst);
        if (tid < 0)
            continue; /* a hole left by pvm_lvgroup */
        found++;
        if (tid != pg.tid && n < max)
            tids[n++] = tid;
    }
    for (i = 1; i < n; i++) /* insertion sort: groups are small */
        for (j = i; j > 0 && pg_ltid_of(tids[j - 1]) > pg_ltid_of(tids[j]);
             j--) {
            tid = tids[j];
            tids[j] = tids[j - 1];
            tids[j - 1] = tid;
        }
    return size < 0 ? size : n;
}

int pvm_bcast(char *group, int tag)
{
    int tids[1024], n, cc;

    pg_real_load_group();
    if (!pg_app_call())
        return pg_real.bcast(group, tag);
    PG_ENTER();
    n = members(group, tids, 1024);
    cc = n < 0 ? pg_real.bcast(group, tag)
               : pg_send_bcast(group, tids, n, tag);
    PG_LEAVE();
    return cc;
}

/* A collective runs at depth 0, so that its sends and receives with its
 * tag reach our wrappers as the program's (see the file comment). */
#define COLLECTIVE(realcall)                                                   \
    int cc;                                                                    \
    pg_real_load_group();                                                      \
    if (!pg_app_call())                                                        \
        return realcall;                                                       \
    pg.coll++;                                                                 \
    pg.coll_tag = msgtag;                                                      \
    cc = realcall;                                                             \
    pg.coll--;                                                                 \
    return cc;

int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data,
               int count, int datatype, int msgtag, char *group, int root)
{
    COLLECTIVE(pg_real.reduce(func, data, count, datatype, msgtag, group,
                              root))
}

int pvm_gather(void *result, void *data, int count, int datatype, int msgtag,
               char *group, int root)
{
    COLLECTIVE(pg_real.gather(result, data, count, datatype, msgtag, group,
                              root))
}

int pvm_scatter(void *result, void *data, int count, int datatype,
                int msgtag, char *group, int root)
{
    COLLECTIVE(pg_real.scatter(result, data, count, datatype, msgtag, group,
                               root))
}
