/*
 * lamport.c - the logical order of a loaded run (runlog.h): every event
 * gets a Lamport position, lam = 1 + max(previous event of the task, the
 * matched send), so that the display can draw a receive after its send
 * whatever the clocks of the hosts said.
 *
 * Design.  Tasks are run as a worklist: a task advances until a receive's
 * send has no position yet, then waits on the sender's task, which wakes
 * it when it has advanced; so the work is about linear in events (a task
 * woken too early just waits again).  Consistent logs have no cycle;
 * corrupt ones (msgids reused, logs of two runs mixed) could, and then the
 * lowest blocked task places its receive as if unmatched, counted in
 * run->cycles.
 */
#include <stdlib.h>

#include "runlog.h"

struct orderer {
    int *cur;      /* per task: events placed so far */
    int *queue, qn;
    char *queued;
    int *head;     /* per task: first task waiting on it, -1 */
    int *next;     /* per task: next in the same wait list */
    int *waiting;  /* per task: the task it waits on, -1 */
};

static void enqueue(struct orderer *o, int k)
{
    if (!o->queued[k]) {
        o->queued[k] = 1;
        o->queue[o->qn++] = k;
    }
}

static void place(struct top_run *run, struct orderer *o, int k, int force)
{
    struct top_task *t = &run->tasks[k];
    struct top_event *e = &run->ev[t->first + o->cur[k]];
    int lam = o->cur[k] ? e[-1].lam : 0, p = top_run_partner(e);

    if (!force && p >= 0 && run->ev[p].lam > lam)
        lam = run->ev[p].lam;
    e->lam = lam + 1;
    o->cur[k]++;
}

/* Advances task k as far as it can; 1 if it placed anything. */
static int advance(struct top_run *run, struct orderer *o, int k)
{
    struct top_task *t = &run->tasks[k];
    int moved = 0, p, w;

    while (o->cur[k] < t->nev) {
        p = top_run_partner(&run->ev[t->first + o->cur[k]]);
        if (p >= 0 && run->ev[p].lam == 0) {
            w = run->ev[p].task;
            o->waiting[k] = w;
            o->next[k] = o->head[w];
            o->head[w] = k;
            break;
        }
        place(run, o, k, 0);
        moved = 1;
    }
    return moved;
}

/* Takes task k out of the wait list it is in. */
static void unwait(struct orderer *o, int k)
{
    int *p;

    if (o->waiting[k] < 0)
        return;
    for (p = &o->head[o->waiting[k]]; *p >= 0; p = &o->next[*p])
        if (*p == k) {
            *p = o->next[k];
            break;
        }
    o->waiting[k] = -1;
}

/* No task can advance, yet some have events left: a cycle.  The lowest
 * blocked task places its next receive as if unmatched. */
static int break_cycle(struct top_run *run, struct orderer *o)
{
    int k;

    for (k = 0; k < run->ntasks; k++)
        if (o->cur[k] < run->tasks[k].nev) {
            unwait(o, k);
            place(run, o, k, 1);
            run->cycles++;
            enqueue(o, k);
            return 1;
        }
    return 0;
}

int top_run_order(struct top_run *run)
{
    int n = run->ntasks, k, w, ok;
    struct orderer o = {
        calloc(n, sizeof(int)), calloc(n, sizeof(int)), 0, calloc(n, 1),
        malloc(n * sizeof(int)), malloc(n * sizeof(int)),
        malloc(n * sizeof(int)),
    };

    ok = o.cur && o.queue && o.queued && o.head && o.next && o.waiting;
    if (ok) {
        for (k = 0; k < n; k++) {
            o.head[k] = o.waiting[k] = -1;
            enqueue(&o, k);
        }
        while (o.qn > 0 || break_cycle(run, &o)) {
            k = o.queue[--o.qn];
            o.queued[k] = 0;
            o.waiting[k] = -1;
            if (!advance(run, &o, k))
                continue;
            for (w = o.head[k], o.head[k] = -1; w >= 0; w = o.next[w]) {
                o.waiting[w] = -1;
                enqueue(&o, w);
            }
        }
    }
    free(o.cur), free(o.queue), free(o.queued);
    free(o.head), free(o.next), free(o.waiting);
    return ok ? 0 : -1;
}

