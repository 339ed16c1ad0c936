/*
 * races_clock.c - the vector clocks of a loaded recording (races.h),
 * computed offline: nothing was added to messages.
 *
 * Design.  Tasks are run as a worklist, as lamport.c does, each advancing
 * until an event waits for another task: a receive for its send, a turn
 * of a group for the turn before, a barrier for every participant (the
 * tasks whose log has that barrier), an exit notice for the end of the
 * task that exited, a child's first event for its spawn.  Each task keeps
 * its clock (ntasks ints); what another task needs of it later (at a
 * send, a turn, a spawn, its end) is a snapshot in one arena, taken only
 * when the clock changed since the last one other than in its own
 * component, which the reader puts back from the event number: a run of
 * sends between two receives shares one.  A message entry also keeps the
 * one component the analysis asks about (vcd).  Inconsistent logs could
 * wait in a cycle; the lowest waiting task then goes on as if its
 * dependency were met, counted in run->cycles.  Waking is coarse (every
 * waiting task, after any progress): O(tasks) per step, cheap next to
 * reading the logs for the task counts PVM allows on a host.
 */
#include "races.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pg_log.h"

/* ---- the clocks ------------------------------------------------------------ */

struct sim {
    int *vc;        /* ntasks x ntasks: each task's clock */
    int *snap;      /* per task: its last snapshot, -1: changed since */
    int *queue, qn;
    char *queued;
    const int *want_task, *want_pos; /* rc_clocks_at: events to copy */
    int nwant;
    int *wcur;      /* per task: its next entry in want_* */
    const int *minpos; /* per task: its first race's event, 0 none */
    int *out;       /* per event asked for: 1 if a first race */
};

/* A snapshot of task t's clock: the last one if nothing but its own
 * component changed since. */
static int snapshot(struct rc_run *run, struct sim *s, int t)
{
    int n = run->ntasks;
    long need = (run->nsnaps + 1) * n;

    if (s->snap[t] >= 0)
        return s->snap[t];
    if (need > run->cap_snaps) {
        long cap = run->cap_snaps ? run->cap_snaps * 2 : 1024L * n;
        int *p;

        while (cap < need)
            cap *= 2;
        if (!(p = realloc(run->snaps, cap * sizeof *p)))
            return -1;
        run->snaps = p;
        run->cap_snaps = cap;
    }
    memcpy(run->snaps + run->nsnaps * n, s->vc + (long)t * n, n * sizeof(int));
    if (run->nsnaps > INT_MAX - 1)
        return -1;
    return s->snap[t] = (int)run->nsnaps++;
}

/* Task t's clock takes the maximum with snapshot sn, whose task `owner`
 * had made `pos` events. */
static void merge(struct rc_run *run, struct sim *s, int t, int sn, int owner,
                  int pos)
{
    int n = run->ntasks, *v = s->vc + (long)t * n, i, changed = 0;
    const int *w;

    if (sn >= 0) {
        w = run->snaps + (long)sn * n;
        for (i = 0; i < n; i++)
            if (w[i] > v[i] && i != t)
                v[i] = w[i], changed = 1;
    }
    if (owner >= 0 && owner != t && pos > v[owner])
        v[owner] = pos, changed = 1;
    if (changed)
        s->snap[t] = -1;
}

/* What event e of task t waits for: 1 if it can be placed now. */
static int ready(struct rc_run *run, const struct rc_task *t,
                 const struct rc_ev *e)
{
    const struct rc_msg *m;
    const struct rc_turn *u;

    if (t->cur == 0 && t->parent >= 0 && t->spawn_snap < 0)
        return 0;
    if ((e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE) && e->a >= 0) {
        m = &run->msg[e->a];
        if (m->src >= 0)
            return run->tasks[m->src].cur >= m->src_pos;
        return m->notice_of < 0 || run->tasks[m->notice_of].end_snap >= 0;
    }
    if ((e->kind == PG_EV_GETTID || e->kind == PG_EV_LEAVE) && e->a >= 0) {
        u = &run->turns[e->a];
        return u->prev < 0 || run->turns[u->prev].snap >= 0;
    }
    if (e->kind == PG_EV_BARRIER)
        return run->bars[e->a].arrived >= run->bars[e->a].need;
    return 1;
}

/* Task t reached barrier b: its clock joins the barrier's; the last to
 * arrive makes the barrier's snapshot.  1 when it completed it. */
static int arrive(struct rc_run *run, struct sim *s, int t,
                  struct rc_barrier *b)
{
    int n = run->ntasks, i, *v = s->vc + (long)t * n;

    if (!b->vc && !(b->vc = calloc(n, sizeof *b->vc)))
        return -1;
    for (i = 0; i < n; i++)
        if (v[i] > b->vc[i])
            b->vc[i] = v[i];
    if (b->vc[t] < run->tasks[t].cur + 1)
        b->vc[t] = run->tasks[t].cur + 1; /* the barrier event itself */
    if (++b->arrived < b->need)
        return 0;
    /* t takes the barrier's clock now (it would when placing the event):
     * its row then is the snapshot to make */
    memcpy(v, b->vc, n * sizeof *v);
    v[t] = run->tasks[t].cur;
    s->snap[t] = -1;
    b->snap = snapshot(run, s, t);
    return b->snap < 0 ? -1 : 1;
}

static void enqueue(struct sim *s, int t)
{
    if (!s->queued[t]) {
        s->queued[t] = 1;
        s->queue[s->qn++] = t;
    }
}

static void wake_all(struct rc_run *run, struct sim *s)
{
    int t;

    for (t = 0; t < run->ntasks; t++)
        if (run->tasks[t].cur < run->tasks[t].n)
            enqueue(s, t);
}

/* Merges what event e of task t waited for (all of it is there). */
static void take_deps(struct rc_run *run, struct sim *s, int t,
                      const struct rc_ev *e)
{
    const struct rc_msg *m;
    const struct rc_turn *u;
    const struct rc_task *x;

    if ((e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE) && e->a >= 0) {
        m = &run->msg[e->a];
        if (m->src >= 0) {
            merge(run, s, t, m->snap, m->src, m->src_pos);
        } else if (m->notice_of >= 0) {
            x = &run->tasks[m->notice_of];
            merge(run, s, t, x->end_snap, m->notice_of, x->n);
        }
    } else if ((e->kind == PG_EV_GETTID || e->kind == PG_EV_LEAVE) &&
               e->a >= 0 && run->turns[e->a].prev >= 0) {
        u = &run->turns[run->turns[e->a].prev];
        merge(run, s, t, u->snap, u->task, u->pos);
    } else if (e->kind == PG_EV_BARRIER) {
        merge(run, s, t, run->bars[e->a].snap, -1, 0);
    }
}

/* A race at event pos of task t, whose clock is v, is first when it has
 * seen no race of any task (its own earlier ones included). */
static int first_race(const int *minpos, int n, int t, int pos, const int *v)
{
    int q;

    if (minpos[t] != pos)
        return 0;
    for (q = 0; q < n; q++)
        if (q != t && minpos[q] && v[q] >= minpos[q])
            return 0;
    return 1;
}

/* Places the next event of task t (its dependencies met, or `force`). */
static int place(struct rc_run *run, struct sim *s, int t, int force)
{
    struct rc_task *k = &run->tasks[t];
    struct rc_ev *e = &run->ev[k->first + k->cur];
    int n = run->ntasks, *v = s->vc + (long)t * n, i, sn, c;

    if (k->cur == 0 && k->parent >= 0 && k->spawn_snap >= 0)
        merge(run, s, t, k->spawn_snap, k->parent, k->spawn_k);
    if (!force)
        take_deps(run, s, t, e);
    v[t] = ++k->cur;
    if (e->kind == PG_EV_SEND) {
        if ((sn = snapshot(run, s, t)) < 0)
            return -1;
        for (i = 0; i < e->nto; i++) {
            struct rc_msg *m = &run->msg[e->a + i];

            m->snap = sn;
            m->vcd = m->dst >= 0 ? v[m->dst] : 0;
        }
    } else if ((e->kind == PG_EV_GETTID || e->kind == PG_EV_LEAVE) &&
               e->a >= 0) {
        if ((run->turns[e->a].snap = snapshot(run, s, t)) < 0)
            return -1;
    }
    /* the events asked for, sorted by task and event: a cursor per task */
    while (s->wcur && s->wcur[t] < s->nwant && s->want_task[s->wcur[t]] == t &&
           s->want_pos[s->wcur[t]] <= k->cur) {
        if (s->want_pos[s->wcur[t]] == k->cur)
            s->out[s->wcur[t]] = first_race(s->minpos, n, t, k->cur, v);
        s->wcur[t]++;
    }
    for (c = 0; c < n; c++) /* children spawned here */
        if (run->tasks[c].parent == t && run->tasks[c].spawn_k == k->cur) {
            if ((run->tasks[c].spawn_snap = snapshot(run, s, t)) < 0)
                return -1;
            enqueue(s, c);
        }
    if (k->cur == k->n) {
        if ((k->end_snap = snapshot(run, s, t)) < 0)
            return -1;
        wake_all(run, s);
    }
    return 0;
}

/* Advances task t as far as it can: 1 if it placed anything, -1 out of
 * memory. */
static int advance(struct rc_run *run, struct sim *s, int t, char *arrived)
{
    struct rc_task *k = &run->tasks[t];
    struct rc_ev *e;
    int moved = 0, rc;

    while (k->cur < k->n) {
        e = &run->ev[k->first + k->cur];
        if (e->kind == PG_EV_BARRIER && !arrived[t] &&
            !(k->cur == 0 && k->parent >= 0 && k->spawn_snap < 0)) {
            arrived[t] = 1;
            if ((rc = arrive(run, s, t, &run->bars[e->a])) < 0)
                return -1;
            if (rc)
                wake_all(run, s);
        }
        if (!ready(run, k, e))
            break;
        arrived[t] = 0;
        if (place(run, s, t, 0) < 0)
            return -1;
        moved = 1;
    }
    return moved;
}

static int lowest_waiting(const struct rc_run *run)
{
    int t;

    for (t = 0; t < run->ntasks; t++)
        if (run->tasks[t].cur < run->tasks[t].n)
            return t;
    return -1;
}

/* Computes every clock, from scratch. */
static int simulate(struct rc_run *run, struct sim *s)
{
    int n = run->ntasks, t, rc = 0, i;
    char *arrived = calloc(n, 1);

    s->vc = calloc((size_t)n * n, sizeof *s->vc);
    s->snap = malloc(n * sizeof *s->snap);
    s->queue = malloc(n * sizeof *s->queue);
    s->queued = calloc(n, 1);
    s->qn = 0;
    if (!arrived || !s->vc || !s->snap || !s->queue || !s->queued)
        rc = -1;
    run->nsnaps = 0;
    run->cycles = 0;
    for (i = 0; i < run->nbars; i++) {
        run->bars[i].arrived = 0;
        run->bars[i].snap = -1;
        free(run->bars[i].vc);
        run->bars[i].vc = NULL;
    }
    for (i = 0; i < run->nturns; i++)
        run->turns[i].snap = -1;
    for (t = 0; rc == 0 && t < n; t++) {
        run->tasks[t].cur = 0;
        run->tasks[t].end_snap = run->tasks[t].spawn_snap = -1;
        s->snap[t] = -1;
    }
    for (t = 0; rc == 0 && t < n; t++) {
        if (run->tasks[t].spawn_k == 0)
            run->tasks[t].parent = -1; /* spawned before the parent's first
                                          event: nothing to wait for */
        enqueue(s, t);
    }
    while (rc == 0) {
        if (s->qn == 0) {
            if ((t = lowest_waiting(run)) < 0)
                break;
            run->cycles++;
            arrived[t] = 0;
            if (run->tasks[t].cur == 0 && run->tasks[t].parent >= 0 &&
                run->tasks[t].spawn_snap < 0)
                run->tasks[t].parent = -1; /* its spawner never got there */
            else if (place(run, s, t, 1) < 0)
                rc = -1;
            enqueue(s, t);
            continue;
        }
        t = s->queue[--s->qn];
        s->queued[t] = 0;
        if ((i = advance(run, s, t, arrived)) < 0)
            rc = -1;
        else if (i > 0)
            wake_all(run, s);
    }
    free(arrived), free(s->vc), free(s->snap), free(s->queue), free(s->queued);
    return rc;
}

int rc_clocks_at(struct rc_run *run, const int *want_task, const int *want_pos,
                 int nwant, const int *minpos, int *first)
{
    struct sim s = { 0 };
    int t, i, rc;

    s.want_task = want_task, s.want_pos = want_pos, s.nwant = nwant;
    s.minpos = minpos, s.out = first;
    if (nwant > 0) {
        if (!(s.wcur = malloc(run->ntasks * sizeof *s.wcur)))
            return -1;
        for (t = 0, i = 0; t < run->ntasks; t++) {
            while (i < nwant && want_task[i] < t)
                i++;
            s.wcur[t] = i;
        }
    }
    rc = simulate(run, &s);
    free(s.wcur);
    return rc;
}

