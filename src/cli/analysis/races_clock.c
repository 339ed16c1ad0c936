/*
 * races_clock.c - the vector clocks of a loaded recording (races.h),
 * computed offline: nothing was added to messages.
 *
 * Design.  Tasks are run as a worklist, as lamport.c does, each advancing
 * until an event waits for another task: a receive for its send, a turn
 * of a group for the turn before, a barrier for every participant (the
 * tasks whose log has that barrier), an exit notice for the end of the
 * task that exited, a child's first event for its spawn.  A task that
 * waits is woken by the task it waits for (a list per task), a barrier's
 * participants by the last to arrive, a child by its spawn: the work is
 * linear in events, not events x tasks.  Inconsistent logs could wait in
 * a cycle; the lowest waiting task then goes on as if its dependency were
 * met, counted in run->cycles.
 *
 * Clocks that cost what the communication needs (in the spirit of the
 * tree clocks of Mathur et al., ASPLOS 2022).  What another task needs of
 * task t later (at a send, a turn, a spawn, its end, a barrier) is a
 * snapshot: a record in run->snaps of how many events t had made, the
 * snapshot of t before it, and only what t learnt directly since then
 * (run->dents: "task q up to event p, and q's snapshot then"), not the
 * whole vector.  A run of sends between two receives shares one.  Task r
 * learning (q, p, snapshot k) walks q's chain from k back to the first
 * snapshot r had seen already (r knew q up to there, so everything q
 * knew then), and from each entry it learns, recursively (a stack):
 * each entry of each snapshot is looked at about once per task that
 * learns it.  So memory is a few bytes a communication whatever the task
 * count, and time is the entries that change.  The clock of each task
 * now is kept whole for lookups: an array of ntasks per task up to
 * rc_dense_max tasks, a hash of the components it has above that (20,000
 * short tasks cost what their communication does, not 20,000^2).
 * A message entry keeps the one component the analysis asks about
 * (vcd); an exit notice gets it from the ended task's clock.
 *
 * A task that learns from one task q alone and is asked only about q
 * (every message it sends, and every exit notice of it, goes to q: a
 * worker under a master that acks each message) skips the walks (lazy):
 * what it knows of q is what q told it last, since whatever q's
 * snapshots say of q is older, and nobody asks its other components (a
 * task learning from it walks its snapshots, not its clock).  Its
 * snapshots are what they would be, made of what it learnt directly.
 * Where every ack tells a worker of 999 others, that is the difference
 * between events x tasks and events.
 *
 * The "first" marks (rc_firsts) are read off the snapshots afterwards:
 * whether a task had heard of another task's first race travels with
 * each snapshot as one bit, so they cost the snapshots' entries, not a
 * second computation of the clocks (rc_clocks_at with races to mark,
 * which is kept for logs that could not all be placed in order).
 */
#include "races.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pg_grow.h"
#include "pg_log.h"

int rc_dense_max = 2048; /* up to this many tasks, clocks are ntasks arrays */
int rc_lazy_clocks = 1;  /* tasks that need no walk skip them (0: none do) */

/* ---- each task's clock now --------------------------------------------- */

struct cell {
    int val;  /* events of the component's task it has seen */
    int pend; /* its entry among the task's pending ones, if still there */
};

struct hclock { /* a task's clock above rc_dense_max tasks: task+1 -> cell */
    int *key;
    struct cell *cell;
    int cap, count;
};

struct list { /* a small growable array of ints or entries */
    void *a;
    int n;
    size_t cap;
};

struct sim {
    int n;
    struct cell *dense;     /* n x n, or NULL */
    struct hclock *sparse;  /* per task, or NULL */
    struct list *pend;      /* per task: entries learnt since its snapshot */
    char *lazy;             /* per task: it skips the walks, or NULL */
    struct list *waiters;   /* per task: tasks waiting for it to go on */
    struct list stack;      /* learn(): snapshots to walk */
    int *last;              /* per task: its last snapshot, -1 none */
    int *seen;              /* per task: first races of others it saw */
    int *kid, *kid_first, *kid_cur; /* children by spawner, spawn order */
    int *queue, qn;
    char *queued;
    int low;                /* no task below it waits */
    int oom;
    struct rc_race *want;   /* rc_clocks_at: races whose "first" to set */
    int nwant;
    int *wcur;      /* per task: its next entry in want_* */
    const int *minpos; /* per task: its first race's event, 0 none */
};

static int list_push(struct list *l, const void *x, size_t size)
{
    if (pg_grow(&l->a, &l->cap, (size_t)l->n + 1, size) < 0)
        return -1;
    memcpy((char *)l->a + (size_t)l->n++ * size, x, size);
    return 0;
}

static unsigned hq(int q)
{
    return (unsigned)q * 2654435761u;
}

static int hgrow(struct hclock *h)
{
    struct hclock g = { 0 };
    int i, j;

    g.cap = h->cap ? 2 * h->cap : 8;
    g.key = calloc(g.cap, sizeof *g.key);
    g.cell = malloc(g.cap * sizeof *g.cell);
    if (!g.key || !g.cell)
        return free(g.key), free(g.cell), -1;
    for (i = 0; i < h->cap; i++) {
        if (!h->key[i])
            continue;
        for (j = hq(h->key[i] - 1) & (g.cap - 1); g.key[j];
             j = (j + 1) & (g.cap - 1))
            ;
        g.key[j] = h->key[i], g.cell[j] = h->cell[i];
    }
    g.count = h->count;
    free(h->key), free(h->cell);
    *h = g;
    return 0;
}

/* Component q of task t's clock; made (0) when add.  NULL when absent, or
 * out of memory (s->oom). */
static struct cell *cell_of(struct sim *s, int t, int q, int add)
{
    struct hclock *h;
    int i;

    if (s->dense)
        return &s->dense[(long)t * s->n + q];
    h = &s->sparse[t];
    if (add && 2 * (h->count + 1) > h->cap && hgrow(h) < 0) {
        s->oom = 1;
        return NULL;
    }
    if (!h->cap)
        return NULL;
    for (i = hq(q) & (h->cap - 1); h->key[i]; i = (i + 1) & (h->cap - 1))
        if (h->key[i] == q + 1)
            return &h->cell[i];
    if (!add)
        return NULL;
    h->key[i] = q + 1;
    h->cell[i] = (struct cell){ 0, -1 };
    h->count++;
    return &h->cell[i];
}

/* Task t's clock at q: events of q that happen before t's next one. */
static int clock_at(const struct rc_run *run, struct sim *s, int t, int q)
{
    const struct cell *c;

    if (q == t)
        return run->tasks[t].cur;
    c = cell_of(s, t, q, 0);
    return c ? c->val : 0;
}

/* Raises component q of task t's clock to val: its cell if it rose (and
 * *old what it was), NULL if not (or out of memory: s->oom). */
static struct cell *rise(struct sim *s, int t, int q, int val, int *old)
{
    struct cell *c;

    if (q == t || q < 0 || val <= 0 || !(c = cell_of(s, t, q, 1)) ||
        val <= c->val)
        return NULL;
    *old = c->val;
    if (s->minpos && s->minpos[q] && c->val < s->minpos[q] &&
        val >= s->minpos[q])
        s->seen[t]++; /* it now sees q's first race */
    c->val = val;
    return c;
}

/* ---- snapshots ------------------------------------------------------------ */

/* A record of what task t knows now: its last one if it learnt nothing
 * since (only its own component moved, which the reader puts back from
 * the event number).  Its index, -1 out of memory. */
static int snapshot(struct rc_run *run, struct sim *s, int t)
{
    struct list *p = &s->pend[t];
    struct rc_snap *r;

    if (s->last[t] >= 0 && p->n == 0)
        return s->last[t];
    if (run->nsnaps >= INT_MAX - 1 ||
        pg_grow(&run->snaps, &run->cap_snaps, run->nsnaps + 1,
                sizeof *run->snaps) < 0 ||
        pg_grow(&run->dents, &run->cap_dents, run->ndents + p->n + 1,
                sizeof *run->dents) < 0)
        return -1;
    r = &run->snaps[run->nsnaps];
    r->pos = run->tasks[t].cur;
    r->prev = s->last[t];
    r->first = (long)run->ndents;
    r->n = p->n;
    if (p->n)
        memcpy(run->dents + run->ndents, p->a, p->n * sizeof *run->dents);
    run->ndents += p->n;
    p->n = 0;
    return s->last[t] = (int)run->nsnaps++;
}

/* Task t learns what snapshot sn of task q knew, past event `old` of q
 * (what t knew of q before): q's chain of snapshots back to old, and
 * through each entry that is news the snapshots it names, recursively. */
static int learn(struct rc_run *run, struct sim *s, int t, int sn, int old)
{
    const struct rc_dent *d;
    int item[2] = { sn, old }, j, o, upto;
    long i;

    s->stack.n = 0;
    if (list_push(&s->stack, item, sizeof item) < 0)
        return -1;
    while (s->stack.n > 0) {
        memcpy(item, (int *)s->stack.a + 2 * --s->stack.n, sizeof item);
        upto = item[1];
        for (j = item[0]; j >= 0 && run->snaps[j].pos > upto;
             j = run->snaps[j].prev)
            for (i = 0; i < run->snaps[j].n; i++) {
                d = &run->dents[run->snaps[j].first + i];
                if (!rise(s, t, d->task, d->pos, &o)) {
                    if (s->oom)
                        return -1;
                    continue;
                }
                item[0] = d->snap, item[1] = o;
                if (d->snap >= 0 &&
                    list_push(&s->stack, item, sizeof item) < 0)
                    return -1;
            }
    }
    return 0;
}

/* Task t learns that q made pos events, and what q knew then (its
 * snapshot sn, -1 none): one entry among t's pending ones. */
static int merge(struct rc_run *run, struct sim *s, int t, int sn, int q,
                 int pos)
{
    struct list *p = &s->pend[t];
    struct rc_dent d = { q, pos, sn }, *e;
    struct cell *c;
    int old;

    if (!(c = rise(s, t, q, pos, &old)))
        return s->oom ? -1 : 0;
    e = c->pend >= 0 && c->pend < p->n ? (struct rc_dent *)p->a + c->pend
                                       : NULL;
    if (e && e->task == q) {
        *e = d; /* newer news of q covers the older */
    } else {
        c->pend = p->n;
        if (list_push(p, &d, sizeof d) < 0)
            return -1;
    }
    return sn >= 0 && !(s->lazy && s->lazy[t]) ? learn(run, s, t, sn, old)
                                                : 0;
}

/* ---- the worklist ---------------------------------------------------------- */

static void enqueue(struct sim *s, int t)
{
    if (!s->queued[t]) {
        s->queued[t] = 1;
        s->queue[s->qn++] = t;
    }
}

/* Wakes the tasks that wait for task t. */
static void wake(struct sim *s, int t)
{
    struct list *w = &s->waiters[t];
    int i;

    for (i = 0; i < w->n; i++)
        enqueue(s, ((int *)w->a)[i]);
    w->n = 0;
}

/* What event e of task t waits for: -1 if it can be placed now, else the
 * task whose progress may let it (n: a barrier or a spawn, which wake
 * their own). */
static int blocker(struct rc_run *run, const struct rc_task *t,
                   const struct rc_ev *e)
{
    const struct rc_msg *m;
    const struct rc_turn *u;
    int n = run->ntasks;

    if (t->cur == 0 && t->parent >= 0 && t->spawn_snap < 0)
        return n;
    if ((e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE) && e->a >= 0) {
        m = &run->msg[e->a];
        if (m->src >= 0)
            return run->tasks[m->src].cur >= m->src_pos ? -1 : m->src;
        return m->notice_of < 0 || run->tasks[m->notice_of].end_snap >= 0
                   ? -1 : m->notice_of;
    }
    if (rc_is_turn(e)) {
        u = &run->turns[e->a];
        return u->prev < 0 || run->turns[u->prev].snap >= 0
                   ? -1 : run->turns[u->prev].task;
    }
    if (e->kind == PG_EV_BARRIER)
        return run->bars[e->a].arrived >= run->bars[e->a].need ? -1 : n;
    return -1;
}

/* Task t reached barrier b: its clock and its barrier event join the
 * barrier's; the last to arrive makes the barrier's snapshot (every
 * participant's, pos INT_MAX: always walked) and wakes the others. */
static int arrive(struct rc_run *run, struct sim *s, int t,
                  struct rc_barrier *b)
{
    struct rc_snap *r;
    int sn, i;

    if (!b->who && !(b->who = malloc(b->need * sizeof *b->who)))
        return -1;
    if ((sn = snapshot(run, s, t)) < 0)
        return -1;
    b->who[b->arrived] = (struct rc_dent){ t, run->tasks[t].cur + 1, sn };
    if (++b->arrived < b->need)
        return 0;
    if (pg_grow(&run->snaps, &run->cap_snaps, run->nsnaps + 1,
                sizeof *run->snaps) < 0 ||
        pg_grow(&run->dents, &run->cap_dents, run->ndents + b->need,
                sizeof *run->dents) < 0)
        return -1;
    r = &run->snaps[run->nsnaps];
    *r = (struct rc_snap){ INT_MAX, -1, b->need, (long)run->ndents };
    memcpy(run->dents + run->ndents, b->who, b->need * sizeof *b->who);
    run->ndents += b->need;
    b->snap = (int)run->nsnaps++;
    for (i = 0; i < b->need; i++)
        enqueue(s, b->who[i].task);
    return 0;
}

/* What event e waited for, each dependency as (snapshot, task, event):
 * a message's send (or the end an exit notice tells of), the turn before
 * a turn, a barrier's every participant; handed to `dep` in turn until it
 * returns non-zero, which is returned (0: all passed).  One list of what
 * an event waits for, which the clocks (take_deps) and the first marks
 * (event_news) read alike.  A barrier's entries are read by index: dep
 * may grow the snapshots and their entries. */
static inline int each_dep(const struct rc_run *run, const struct rc_ev *e,
                           int (*dep)(void *ctx, int sn, int q, int pos),
                           void *ctx)
{
    const struct rc_msg *m;
    const struct rc_turn *u;
    struct rc_dent d;
    long i;
    int rc, sb;

    if ((e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE) && e->a >= 0) {
        m = &run->msg[e->a];
        if (m->src >= 0)
            return dep(ctx, m->snap, m->src, m->src_pos);
        if (m->notice_of >= 0)
            return dep(ctx, run->tasks[m->notice_of].end_snap, m->notice_of,
                       run->tasks[m->notice_of].n);
    } else if (rc_is_turn(e) && run->turns[e->a].prev >= 0) {
        u = &run->turns[run->turns[e->a].prev];
        return dep(ctx, u->snap, u->task, u->pos);
    } else if (e->kind == PG_EV_BARRIER && (sb = run->bars[e->a].snap) >= 0) {
        for (i = 0; i < run->snaps[sb].n; i++) {
            d = run->dents[run->snaps[sb].first + i];
            if ((rc = dep(ctx, d.snap, d.task, d.pos)) != 0)
                return rc;
        }
    }
    return 0;
}

/* Task t of a clock computation, learning what it waited for. */
struct taker {
    struct rc_run *run;
    struct sim *s;
    int t;
};

static int take_one(void *ctx, int sn, int q, int pos)
{
    struct taker *k = ctx;

    return merge(k->run, k->s, k->t, sn, q, pos);
}

/* Merges what event e of task t waited for (all of it is there). */
static int take_deps(struct rc_run *run, struct sim *s, int t,
                     const struct rc_ev *e)
{
    struct taker k = { run, s, t };

    return each_dep(run, e, take_one, &k);
}

/* The children task t spawned after its event k->cur: their clocks start
 * from its own. */
static int spawns(struct rc_run *run, struct sim *s, int t)
{
    int cur = run->tasks[t].cur, c;

    for (; s->kid_cur[t] < s->kid_first[t + 1]; s->kid_cur[t]++) {
        c = s->kid[s->kid_cur[t]];
        if (run->tasks[c].spawn_k > cur)
            break;
        if ((run->tasks[c].spawn_snap = snapshot(run, s, t)) < 0)
            return -1;
        enqueue(s, c);
    }
    return 0;
}

/* Places the next event of task t (its dependencies met, or `force`). */
static int place(struct rc_run *run, struct sim *s, int t, int force)
{
    struct rc_task *k = &run->tasks[t];
    struct rc_ev *e = &run->ev[k->first + k->cur];
    int i, sn;

    if (k->cur == 0 && k->parent >= 0 && k->spawn_snap >= 0 &&
        merge(run, s, t, k->spawn_snap, k->parent, k->spawn_k) < 0)
        return -1;
    if (!force && take_deps(run, s, t, e) < 0)
        return -1;
    ++k->cur;
    if (e->kind == PG_EV_SEND) {
        if ((sn = snapshot(run, s, t)) < 0)
            return -1;
        for (i = 0; i < e->nto; i++) {
            struct rc_msg *m = &run->msg[e->a + i];

            m->snap = sn;
            m->vcd = m->dst >= 0 ? clock_at(run, s, t, m->dst) : 0;
        }
    } else if (rc_is_turn(e)) {
        if ((run->turns[e->a].snap = snapshot(run, s, t)) < 0)
            return -1;
    }
    /* the events asked for, sorted by task and event: a cursor per task */
    while (s->wcur && s->wcur[t] < s->nwant && s->want[s->wcur[t]].task == t &&
           s->want[s->wcur[t]].pos <= k->cur) {
        if (s->want[s->wcur[t]].pos == k->cur)
            s->want[s->wcur[t]].first = s->minpos[t] == k->cur &&
                                        s->seen[t] == 0;
        s->wcur[t]++;
    }
    if (spawns(run, s, t) < 0)
        return -1;
    if (k->cur == k->n && (k->end_snap = snapshot(run, s, t)) < 0)
        return -1;
    return 0;
}

/* Advances task t as far as it can: 1 if it placed anything, -1 out of
 * memory.  Where it stops, it waits for the task that blocks it. */
static int advance(struct rc_run *run, struct sim *s, int t, char *arrived)
{
    struct rc_task *k = &run->tasks[t];
    struct rc_ev *e;
    int moved = 0, b;

    while (k->cur < k->n) {
        e = &run->ev[k->first + k->cur];
        if (e->kind == PG_EV_BARRIER && !arrived[t] &&
            !(k->cur == 0 && k->parent >= 0 && k->spawn_snap < 0)) {
            arrived[t] = 1;
            if (arrive(run, s, t, &run->bars[e->a]) < 0)
                return -1;
        }
        if ((b = blocker(run, k, e)) >= 0) {
            if (b < run->ntasks && list_push(&s->waiters[b], &t, sizeof t) < 0)
                return -1;
            break;
        }
        arrived[t] = 0;
        if (place(run, s, t, 0) < 0)
            return -1;
        moved = 1;
    }
    return moved;
}

static int lowest_waiting(const struct rc_run *run, struct sim *s)
{
    while (s->low < run->ntasks &&
           run->tasks[s->low].cur >= run->tasks[s->low].n)
        s->low++; /* a task done stays done */
    return s->low < run->ntasks ? s->low : -1;
}

/* ---- which tasks need no walk ---------------------------------------- */

#define NONE (-1)
#define MANY (-2)

/* *one joined with q: NONE, the one task q, or MANY. */
static void one_of(int *one, int q)
{
    if (q >= 0 && *one != q)
        *one = *one == NONE ? q : MANY;
}

/* The task whose news event e of task t waits for (take_deps): one_of'd
 * into *from; a barrier's are many. */
static void source_of(const struct rc_run *run, const struct rc_ev *e,
                      int *from)
{
    const struct rc_msg *m;

    if ((e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE) && e->a >= 0) {
        m = &run->msg[e->a];
        one_of(from, m->src >= 0 ? m->src : m->notice_of);
    } else if (rc_is_turn(e) && run->turns[e->a].prev >= 0) {
        one_of(from, run->turns[run->turns[e->a].prev].task);
    } else if (e->kind == PG_EV_BARRIER) {
        *from = MANY;
    }
}

/* s->lazy: each task that learns from one task at most and is asked of
 * that one only (clock_at: its messages' and its exit notices'
 * destinations), or of none.  0, or -1 out of memory. */
static int lazy_tasks(const struct rc_run *run, struct sim *s)
{
    int n = run->ntasks, *from = malloc((n + 1) * sizeof *from);
    int *asked = malloc((n + 1) * sizeof *asked), t, k;
    long i;

    s->lazy = calloc(n + 1, 1);
    if (!from || !asked || !s->lazy)
        return free(from), free(asked), -1;
    for (t = 0; t < n; t++) {
        from[t] = asked[t] = NONE;
        one_of(&from[t], run->tasks[t].parent);
        for (k = 1; k <= run->tasks[t].n && from[t] != MANY; k++)
            source_of(run, RC_EV(run, t, k), &from[t]);
    }
    for (i = 0; i < run->nmsg; i++) {
        const struct rc_msg *m = &run->msg[i];
        int who = m->src >= 0 ? m->src : m->notice_of;

        if (who >= 0 && m->dst >= 0)
            one_of(&asked[who], m->dst);
    }
    for (t = 0; t < n; t++)
        s->lazy[t] = from[t] != MANY &&
                     (asked[t] == NONE || asked[t] == from[t]);
    free(from), free(asked);
    return 0;
}

/* ---- the simulation ------------------------------------------------------- */

static int by_spawn(const void *a, const void *b)
{
    const int *x = a, *y = b;

    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0])
                        : (x[1] > y[1]) - (x[1] < y[1]);
}

/* Every child under its spawner, in spawn order (sim.kid*). */
static int index_kids(struct rc_run *run, struct sim *s)
{
    int n = run->ntasks, t, k = 0, *pairs = malloc((n + 1) * 3 * sizeof *pairs);

    if (!pairs)
        return -1;
    for (t = 0; t < n; t++)
        if (run->tasks[t].parent >= 0) {
            pairs[3 * k] = run->tasks[t].parent;
            pairs[3 * k + 1] = run->tasks[t].spawn_k;
            pairs[3 * k++ + 2] = t;
        }
    qsort(pairs, k, 3 * sizeof *pairs, by_spawn);
    for (t = 0; t <= n; t++)
        s->kid_first[t] = 0;
    for (t = 0; t < k; t++) {
        s->kid[t] = pairs[3 * t + 2];
        s->kid_first[pairs[3 * t] + 1]++;
    }
    for (t = 0; t < n; t++) {
        s->kid_first[t + 1] += s->kid_first[t];
        s->kid_cur[t] = s->kid_first[t];
    }
    free(pairs);
    return 0;
}

static int sim_alloc(struct rc_run *run, struct sim *s)
{
    int n = run->ntasks, t;

    s->n = n;
    if (n <= rc_dense_max)
        s->dense = calloc((size_t)n * n, sizeof *s->dense);
    else
        s->sparse = calloc(n, sizeof *s->sparse);
    s->pend = calloc(n, sizeof *s->pend);
    s->waiters = calloc(n, sizeof *s->waiters);
    s->last = malloc(n * sizeof *s->last);
    s->seen = calloc(n, sizeof *s->seen);
    s->kid = malloc((n + 1) * sizeof *s->kid);
    s->kid_first = malloc((n + 1) * sizeof *s->kid_first);
    s->kid_cur = malloc((n + 1) * sizeof *s->kid_cur);
    s->queue = malloc(n * sizeof *s->queue);
    s->queued = calloc(n, 1);
    if ((!s->dense && !s->sparse) || !s->pend || !s->waiters || !s->last ||
        !s->seen || !s->kid || !s->kid_first || !s->kid_cur || !s->queue ||
        !s->queued)
        return -1;
    for (t = 0; s->dense && t < n * n; t++)
        s->dense[t].pend = -1;
    for (t = 0; t < n; t++)
        s->last[t] = -1;
    return 0;
}

static void sim_free(struct sim *s)
{
    int t;

    for (t = 0; t < s->n; t++) {
        if (s->sparse)
            free(s->sparse[t].key), free(s->sparse[t].cell);
        if (s->pend)
            free(s->pend[t].a);
        if (s->waiters)
            free(s->waiters[t].a);
    }
    free(s->dense), free(s->sparse), free(s->pend), free(s->waiters);
    free(s->lazy);
    free(s->stack.a), free(s->last), free(s->seen), free(s->kid);
    free(s->kid_first), free(s->kid_cur), free(s->queue), free(s->queued);
}

/* The run's state before any event is placed. */
static void reset(struct rc_run *run)
{
    int i;

    run->nsnaps = run->ndents = 0;
    run->cycles = 0;
    for (i = 0; i < run->nbars; i++) {
        run->bars[i].arrived = 0;
        run->bars[i].snap = -1;
    }
    for (i = 0; i < run->nturns; i++)
        run->turns[i].snap = -1;
    for (i = 0; i < run->ntasks; i++) {
        run->tasks[i].cur = 0;
        run->tasks[i].end_snap = run->tasks[i].spawn_snap = -1;
        if (run->tasks[i].spawn_k == 0)
            run->tasks[i].parent = -1; /* spawned before the parent's first
                                          event: nothing to wait for */
    }
}

/* An exit notice knows what the task that ended knew of its receiver. */
static void notice_clocks(struct rc_run *run, struct sim *s)
{
    int i;

    for (i = 0; i < run->nmsg; i++) {
        struct rc_msg *m = &run->msg[i];

        if (m->src < 0 && m->notice_of >= 0 && m->dst >= 0)
            m->vcd = clock_at(run, s, m->notice_of, m->dst);
    }
}

/* Computes every clock, from scratch. */
static int simulate(struct rc_run *run, struct sim *s)
{
    int n = run->ntasks, t, rc = 0, i;
    char *arrived = calloc(n, 1);

    reset(run);
    if (!arrived || sim_alloc(run, s) < 0 || index_kids(run, s) < 0 ||
        (rc_lazy_clocks && !s->minpos && lazy_tasks(run, s) < 0))
        rc = -1; /* the first marks' count (minpos) needs every clock */
    for (t = n - 1; rc == 0 && t >= 0; t--)
        enqueue(s, t); /* popped from the end: task 0 first */
    while (rc == 0) {
        if (s->qn == 0) {
            if ((t = lowest_waiting(run, s)) < 0)
                break;
            run->cycles++;
            arrived[t] = 0;
            if (run->tasks[t].cur == 0 && run->tasks[t].parent >= 0 &&
                run->tasks[t].spawn_snap < 0)
                run->tasks[t].parent = -1; /* its spawner never got there */
            else if (place(run, s, t, 1) < 0)
                rc = -1;
            else
                wake(s, t);
            enqueue(s, t);
            continue;
        }
        t = s->queue[--s->qn];
        s->queued[t] = 0;
        if ((i = advance(run, s, t, arrived)) < 0)
            rc = -1;
        else if (i > 0)
            wake(s, t);
    }
    if (rc == 0)
        notice_clocks(run, s);
    free(arrived);
    sim_free(s);
    return rc;
}

/* ---- the first marks, from the snapshots ----------------------------- */

/* Whether what a task learns of q at q's event pos (and q's snapshot sn)
 * tells it of a first race other than its own: q's own (pos at or past
 * minpos[q]), or one q had heard of (seen[sn]). */
static int news(const int *minpos, const unsigned char *seen, int q, int pos,
                int sn)
{
    return (q >= 0 && minpos[q] && pos >= minpos[q]) ||
           (sn >= 0 && seen[sn]);
}

/* For each snapshot, whether the task it is of had heard of a first race
 * by then: its previous snapshot's word, or one of the entries it learnt
 * since.  A snapshot names only earlier ones (what it learnt existed
 * before it), so one pass in their order; NULL out of memory. */
static unsigned char *seen_of_snaps(const struct rc_run *run,
                                    const int *minpos)
{
    unsigned char *seen = malloc(run->nsnaps + 1);
    const struct rc_dent *d;
    long j, i;

    for (j = 0; seen && j < (long)run->nsnaps; j++) {
        const struct rc_snap *r = &run->snaps[j];

        seen[j] = r->prev >= 0 && seen[r->prev];
        for (i = 0; !seen[j] && i < r->n; i++) {
            d = &run->dents[r->first + i];
            assert(d->snap < j && r->prev < j);
            seen[j] = (unsigned char)news(minpos, seen, d->task, d->pos,
                                          d->snap);
        }
    }
    return seen;
}

/* The first marks' question of a dependency (each_dep): news of a first
 * race, 1 (which stops the walk), or 0. */
struct listener {
    const int *minpos;
    const unsigned char *seen;
};

static int news_of(void *ctx, int sn, int q, int pos)
{
    const struct listener *l = ctx;

    return news(l->minpos, l->seen, q, pos, sn);
}

/* Whether event pos of task t learns of a first race through what it
 * waited for (each_dep, as the clocks, and a child's spawn at its first
 * event). */
static int event_news(const struct rc_run *run, const int *minpos,
                      const unsigned char *seen, int t, int pos)
{
    const struct rc_task *k = &run->tasks[t];
    struct listener l = { minpos, seen };

    if (pos == 1 && k->parent >= 0 && k->spawn_snap >= 0 &&
        news(minpos, seen, k->parent, k->spawn_k, k->spawn_snap))
        return 1;
    return each_dep(run, RC_EV(run, t, pos), news_of, &l);
}

int rc_firsts(struct rc_run *run, struct rc_race *want, int nwant,
              const int *minpos)
{
    unsigned char *seen;
    int i, t, pos, heard;

    if (run->cycles) /* events placed without what they waited for */
        return rc_clocks_at(run, want, nwant, minpos);
    if (!(seen = seen_of_snaps(run, minpos)))
        return -1;
    for (i = 0; i < nwant; i++) {
        t = want[i].task;
        want[i].first = 0;
        if (want[i].pos != minpos[t])
            continue; /* a later race of its task follows its first */
        for (heard = 0, pos = 1; !heard && pos <= want[i].pos; pos++)
            heard = event_news(run, minpos, seen, t, pos);
        want[i].first = !heard;
    }
    free(seen);
    return 0;
}

int rc_clocks_at(struct rc_run *run, struct rc_race *want, int nwant,
                 const int *minpos)
{
    struct sim s = { 0 };
    int t, i, rc;

    s.want = want, s.nwant = nwant;
    s.minpos = minpos;
    if (nwant > 0) {
        if (!(s.wcur = malloc(run->ntasks * sizeof *s.wcur)))
            return -1;
        for (t = 0, i = 0; t < run->ntasks; t++) {
            while (i < nwant && want[i].task < t)
                i++;
            s.wcur[t] = i;
        }
    }
    rc = simulate(run, &s);
    free(s.wcur);
    return rc;
}
