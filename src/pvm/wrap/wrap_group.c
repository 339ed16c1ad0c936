/*
 * wrap_group.c - PVM groups (libgpvm3): pvm_joingroup, pvm_lvgroup,
 * pvm_gettid, pvm_getinst, pvm_barrier, pvm_bcast, pvm_reduce, pvm_gather,
 * pvm_scatter, pvm_freezegroup.
 *
 * Instance numbers are handed out in the order joins reach the group
 * server, so they differ from run to run.  Design:
 * - Every lookup the program makes (pvm_joingroup, pvm_gettid,
 *   pvm_getinst) is a <gettid> event: "instance I of group G is ltid L".
 *   In replay pvm_gettid returns the tid of the recorded ltid in this run
 *   and pvm_getinst the recorded instance.
 * - Joins and leaves (pvm_lvgroup, and the leaves a task makes at its end
 *   while a member) take turns per group, kept by the coordinator; the
 *   turn is logged, and a replay joins and leaves in the recorded turns.
 *   The server, which hands out the lowest free instance, then hands out
 *   the recorded ones, and libgpvm3's own uses of them (the root of a
 *   reduce, the slots of a gather or scatter) agree with what the program
 *   was told.
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
 * - The lookups of members a collective makes (pvm_reduce, pvm_gather,
 *   pvm_scatter, inside libgpvm3) and pvm_bcast makes (members()) take a
 *   turn of the group too, logged as a "pvm_group_lookup" query: the
 *   server answers as things stand, so they must come between the same
 *   joins and leaves in a replay (lookups_begin).
 * - pvm_barrier is no event, but in replay a task blocked in it tells
 *   pangaea so (PG_REP_BLOCKED), since it cannot say when it has waited
 *   long: a replay where every task waits must not hang silently.
 * - pvm_freezegroup is a barrier of `size` callers (-1: the members
 *   there are) at the server: when the last of them calls, the group
 *   becomes static with the members it has, and later joins fail.  Each
 *   call takes a turn of the group just before it asks the server
 *   (logged as a lookup turn, as for the collectives), and gives it up
 *   before it waits for the other callers (holding it, their calls could
 *   not come): in a replay each call then asks after the same joins and
 *   leaves as recorded, so the group freezes with the recorded members.
 *   Its answer is a <query>, replayed as recorded; a join it made fail
 *   (recorded as failed, with its turn) keeps that turn in replay.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live_pos.h"
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
    /* The server's replies are PVM's, not the program's. */
    PG_RETURN_REAL_UNLESS_AT(gettid, !pg.coll && pg_app_call(),
                             PG_AS_PVM(pg_real.gettid(group, inst)), -1, -1, -1,
                             "group %.40s inst %d", group ? group : "", inst);
    PG_ENTER();
    if (pg_replaying()) { /* a what-if records it too */
        ev = pg_replay_gettid("pvm_gettid", group, inst, PG_ANY);
        tid = ev->from < 0 ? ev->from : pg_tid_of(ev->from);
        if (pg.mode == PANGAEA_LOG)
            pg_record_gettid(group, inst, ltid_or_error(tid));
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
    PG_RETURN_REAL_UNLESS_AT(getinst, !pg.coll && pg_app_call(),
                             PG_AS_PVM(pg_real.getinst(group, tid)), tid, -1, -1,
                             "group %.40s", group ? group : "");
    PG_ENTER();
    ltid = pg_ltid_of(tid);
    if (pg_replaying()) { /* a what-if records it too */
        inst = pg_replay_gettid("pvm_getinst", group, PG_ANY, ltid)->inst;
        if (pg.mode == PANGAEA_LOG)
            pg_record_gettid(group, inst, ltid);
    } else {
        inst = pg_real.getinst(group, tid);
        if (pg.mode == PANGAEA_LOG)
            pg_record_gettid(group, inst, ltid); /* a failure too: the
                       error is the instance, asked about the same ltid */
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

/* Replay of a recording without turns (made before they were logged):
 * joins when the recorded instance is the next one handed out.  Leaves are
 * not ordered then: if one comes earlier than when recorded, the instance
 * may never be next (a wait past PANGAEA_STALL is reported) or the server
 * hands out another (the task ends). */
static int replay_join_unordered(char *group, const pg_event *ev)
{
    struct timespec nap = { 0, 2000000 };
    struct pg_wait wait;
    int want = ev->inst;
    long seq = ev->seq;
    char msg[512];

    pg_wait_start(&wait);
    while (!inst_is_next(group, want)) {
        nanosleep(&nap, NULL);
        if (pg_wait_overdue(&wait)) {
            snprintf(msg, sizeof msg, "waits in pvm_joingroup for instance "
                     "%d of group \"%.100s\" (recorded event %ld)", want,
                     group, seq);
            pg_wait_report(msg);
        }
    }
    pg_wait_end(&wait);
    return pg_real.joingroup(group);
}

/* Groups this task has joined and not left, in join order: it leaves them
 * in its turn before it ends (pg_group_leave_all), rather than letting the
 * server drop it at an instant nobody orders. */
static char *joined[64];
static int njoined;

static void remember_join(const char *group)
{
    pg_leave_groups = pg_group_leave_all; /* at the task's end */
    if (njoined < (int)(sizeof joined / sizeof joined[0]))
        joined[njoined++] = strdup(group);
}

static void forget_join(const char *group)
{
    int i;

    for (i = 0; i < njoined; i++)
        if (!strcmp(joined[i], group)) {
            free(joined[i]);
            memmove(&joined[i], &joined[i + 1],
                    (size_t)(--njoined - i) * sizeof joined[0]);
            return;
        }
}

/* Joins and leaves take turns (pg_coord_turn): the group server then sees
 * them in the recorded order and hands out the recorded instances. */
static int join(char *group)
{
    const pg_event *ev;
    int inst = -1, order, want;

    if (!pg_replaying()) { /* a what-if's turns come after those it follows */
        order = pg_coord_turn("pvm_joingroup", group, pg_whatif_turn(group));
        inst = pg_real.joingroup(group);
        pg_record_join(group, inst, order);
        pg_coord_turn_done(group);
    } else {
        ev = pg_replay_gettid("pvm_joingroup", group, PG_ANY, pg.ltid);
        want = ev->inst;
        order = ev->order;
        if (want < 0 && order >= 0) {
            /* it failed when recorded (the group was static by then, say)
             * but had its turn: the later turns count on it */
            pg_coord_turn("pvm_joingroup", group, order);
            pg_coord_turn_done(group);
        }
        if (want >= 0 && order < 0) {
            inst = replay_join_unordered(group, ev);
        } else if (want >= 0) {
            pg_coord_turn("pvm_joingroup", group, order);
            inst = pg_real.joingroup(group);
            pg_coord_turn_done(group);
        }
        if (pg.mode == PANGAEA_LOG) /* a what-if records what it follows */
            pg_record_join(group, want, order);
        if (want < 0)
            return want; /* it failed when recorded */
        if (inst != want)
            pg_fatal("pvm_joingroup(\"%s\") gave instance %d, recorded %d",
                     group, inst, want);
    }
    if (inst >= 0)
        remember_join(group);
    return inst;
}

static int leave(char *group)
{
    int cc, order;

    if (!pg_replaying())
        order = pg_coord_turn("pvm_lvgroup", group, pg_whatif_turn(group));
    else
        order = pg_coord_turn("pvm_lvgroup", group, pg_replay_leave(group));
    cc = pg_real.lvgroup(group);
    if (pg.mode == PANGAEA_LOG)
        pg_record_leave(group, order);
    pg_coord_turn_done(group);
    forget_join(group);
    return cc;
}

int pvm_lvgroup(char *group)
{
    int cc;

    pg_real_load_group();
    PG_RETURN_REAL_UNLESS_AT(lvgroup, !pg.coll && pg_app_call() && group &&
                                 (pg.mode == PANGAEA_LOG || pg.mode == PANGAEA_REPLAY),
                             pg_real.lvgroup(group), -1, -1, -1, "group %.40s", group);
    PG_ENTER();
    cc = leave(group);
    PG_LEAVE();
    return cc;
}

void pg_group_leave_all(void)
{
    while (njoined > 0)
        leave(joined[0]);
}

int pvm_barrier(char *group, int count)
{
    char msg[256];
    int cc;

    pg_real_load_group();
    PG_RETURN_REAL_UNLESS_AT(barrier, !pg.coll && pg_app_call() &&
                                 (pg.mode == PANGAEA_LOG || pg.mode == PANGAEA_REPLAY),
                             pg_real.barrier(group, count), -1, -1, -1,
                             "group %.40s count %d", group ? group : "", count);
    if (pg.mode == PANGAEA_LOG) {
        PG_SITE(barrier); /* an event for `pangaea -races` (callsite.c) */
        PG_ENTER();
        cc = pg_real.barrier(group, count);
        if (cc >= 0)
            pg_site_barrier(group, count);
        PG_LEAVE();
        return cc;
    }
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
    PG_RETURN_REAL_UNLESS_AT(joingroup, pg_app_call(), pg_real.joingroup(group), -1,
                             -1, -1, "group %.40s", group ? group : "");
    PG_ENTER();
    if (pg.mode == PANGAEA_REPLAY || pg.mode == PANGAEA_LOG)
        inst = join(group);
    else
        inst = pg_real.joingroup(group);
    PG_LEAVE();
    return inst;
}

/* A collective's and pvm_bcast's lookups of the group's members (the
 * server's answers, as things stand) hold a turn of the group, so that a
 * replay makes them between the same joins and leaves as the recording:
 * a member that leaves just after its part of a pvm_reduce must not be
 * gone when the root looks it up in the replay if it was there when
 * recorded.  The turn is a <query> "pvm_group_lookup" about the group,
 * its value the turn's number; it ends once the lookups are done (a
 * collective's first message, pg_coll_lookups_done, or the call's end).
 * A log made before lookups took turns has no such query: its replay
 * looks up as it comes. */
static char lookup_group[256];
static int lookup_held;

static void lookups_done(void)
{
    if (!lookup_held)
        return;
    lookup_held = 0;
    pg_coll_lookups_done = NULL;
    pg.depth++;
    pg_coord_turn_done(lookup_group);
    pg.depth--;
}

static void lookups_begin(const char *call, const char *group)
{
    const pg_event *ev;
    int order;

    if (!group || !*group || strlen(group) >= sizeof lookup_group ||
        (pg.mode != PANGAEA_LOG && pg.mode != PANGAEA_REPLAY))
        return;
    if (pg_replaying()) { /* a what-if records it too */
        ev = pg_replay_next();
        if (!ev || ev->kind != PG_EV_QUERY ||
            strcmp(ev->call, "pvm_group_lookup"))
            return; /* a log made before lookups took turns */
        order = pg_coord_turn(call, group,
                              pg_replay_query("pvm_group_lookup", group));
    } else {
        order = pg_coord_turn(call, group, pg_whatif_turn(group));
    }
    if (pg.mode == PANGAEA_LOG)
        pg_record_query("pvm_group_lookup", group, order);
    strcpy(lookup_group, group);
    lookup_held = 1;
    pg_coll_lookups_done = lookups_done;
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
    PG_RETURN_REAL_UNLESS_AT(bcast, pg_app_call(), pg_real.bcast(group, tag), -1, tag,
                             -1, "group %.40s", group ? group : "");
    PG_SITE(bcast);
    PG_ENTER();
    lookups_begin("pvm_bcast", group);
    n = members(group, tids, 1024);
    lookups_done();
    cc = n < 0 ? pg_real.bcast(group, tag)
               : pg_send_bcast(group, tids, n, tag);
    PG_LEAVE();
    return cc;
}

/* A collective runs at depth 0, so that its sends and receives with its
 * tag reach our wrappers as the program's (see the file comment). */
#define COLLECTIVE(call, realcall)                                             \
    int cc;                                                                    \
    pg_real_load_group();                                                      \
    PG_RETURN_REAL_UNLESS_AT(call, pg_app_call(), realcall, -1, msgtag, -1,    \
                             "group %.40s", group ? group : "");               \
    PG_SITE(call);                                                             \
    pg.depth++; /* its messages at depth 0 are the program's: no PG_ENTER */ \
    lookups_begin("pvm_" #call, group);                                        \
    pg.depth--;                                                                \
    pg.coll++;                                                                 \
    pg.coll_tag = msgtag;                                                      \
    cc = realcall;                                                             \
    pg.coll--;                                                                 \
    lookups_done(); /* none made: it failed, or the group is one task */     \
    return cc;

int pvm_reduce(void (*func)(int *, void *, void *, int *, int *), void *data,
               int count, int datatype, int msgtag, char *group, int root)
{
    COLLECTIVE(reduce, pg_real.reduce(func, data, count, datatype, msgtag,
                                      group, root))
}

int pvm_gather(void *result, void *data, int count, int datatype, int msgtag,
               char *group, int root)
{
    COLLECTIVE(gather, pg_real.gather(result, data, count, datatype, msgtag,
                                      group, root))
}

int pvm_scatter(void *result, void *data, int count, int datatype,
                int msgtag, char *group, int root)
{
    COLLECTIVE(scatter, pg_real.scatter(result, data, count, datatype,
                                        msgtag, group, root))
}

/* A recording made when pvm_freezegroup was not replayed logged only
 * that it was called: 1, that record passed (the call then goes as it
 * comes, as it did). */
static int recorded_unreplayed(void)
{
    const pg_event *ev = pg_replay_next();

    if (!ev || ev->kind != PG_EV_QUERY || strcmp(ev->call, "not_replayed") ||
        strcmp(ev->about, "pvm_freezegroup"))
        return 0;
    pg_replay_query("not_replayed", "pvm_freezegroup");
    if (pg.mode == PANGAEA_LOG)
        pg_record_query("not_replayed", "pvm_freezegroup", 0);
    return 1;
}

/* pvm_freezegroup (see the file comment): the members it finds in its
 * turn say whether it will wait; the answer is replayed as recorded. */
static int freeze(char *group, int size)
{
    char about[300];
    int cc;

    snprintf(about, sizeof about, "%.250s %d", group, size);
    if (pg_replaying() && recorded_unreplayed()) /* an older recording */
        return pg_real.freezegroup(group, size);
    lookups_begin("pvm_freezegroup", group); /* after the same joins */
    lookups_done(); /* before the call: it waits for the other freezes */
    cc = pg_real.freezegroup(group, size);
    if (pg_replaying()) /* a what-if records it too */
        cc = pg_replay_query("pvm_freezegroup", about);
    if (pg.mode == PANGAEA_LOG)
        pg_record_query("pvm_freezegroup", about, cc);
    return cc;
}

int pvm_freezegroup(char *group, int size)
{
    int cc;

    pg_real_load_group();
    PG_RETURN_REAL_UNLESS_AT(freezegroup, pg_app_call() && group && *group &&
                                 (pg.mode == PANGAEA_LOG ||
                                  pg.mode == PANGAEA_REPLAY),
                             pg_real.freezegroup(group, size), -1, -1, -1,
                             "group %.40s size %d", group ? group : "", size);
    PG_ENTER();
    cc = freeze(group, size);
    PG_LEAVE();
    return cc;
}
