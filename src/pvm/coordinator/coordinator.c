/*
 * coordinator.c - the coordinator task: tid <-> ltid, and who is still alive.
 *
 * `pangaea` spawns it first, with Pangaea's message context as argument; it
 * lives in that context, so it only ever sees Pangaea's own messages
 * (pg_proto.h).  Tasks register at start and parents announce children right
 * after spawning them; a translation request for a task not known yet waits
 * for that task (bounded: a tid that is not a task of this run, or never
 * registers, gets -1).  It watches every task with pvm_notify and tells
 * `pangaea` how each ended, and when all have: a task that exits cleanly
 * reports how many children it announced, so the run is not over while
 * one of those announcements is still on its way.
 *
 * A spawn of n tasks is made by the runtime as n spawns of one (each child
 * needs its own ltid), so PVM's pvm_siblings would see one task; parents
 * send the whole group here and children ask for it.
 *
 * It also numbers new tasks (PG_TAG_NEWLTID): a child that is not in the
 * recording followed gets the next number, in the order the requests
 * arrive, from argv[2] on (above every ltid of the recording a what-if
 * follows).  That order is not the same from run to run, and need not
 * be: the parent records the number in its execution log, and a replay
 * spawns the child under the number recorded there (wrap_spawn.c).
 */
#include <limits.h>
#include <pvm3.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "coord.h"
#include "pg_grow.h"
#include "pg_proto.h"

struct task {
    int ltid, tid;
    int registered, ended, reported, status, told;
    int killed;         /* the program pvm_kill'ed it: no report will come */
    int expect_children, announced_children;
    int fin;            /* done with: its end told, its children known */
    double ended_at;
};

/* A task's exit report and the daemon's news of its exit come by different
 * paths (the report may use a direct route): the report can come second.
 * A task is called abnormal only when none came this long after its end.
 * Only a task that ends without a word waits so: a crash the task caught
 * is reported (status -signal), and a task `pangaea` or the program
 * kills is announced first (PG_TAG_KILLING). */
static double report_grace = 2.0; /* PANGAEA_REPORT_GRACE: seconds */

struct pending {
    int asker, kind, key;
    double deadline;
};

struct group {
    int n;
    int *tids;
};

static struct task *tasks;
static int ntasks;
static size_t cap_tasks;
static int nopen;     /* tasks not done with (fin 0): all_done counts them */
static int *waiting;  /* indexes of tasks ended but not told yet (grace) */
static int nwaiting;
static size_t cap_waiting;
static struct group *groups;
static int ngroups;
static size_t cap_groups;
static struct pending *pend;
static int npend;
static size_t cap_pend;
static int top;
static int next_ltid = 2; /* the next new task's ltid (ltid 1: pangaea's child) */

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

void pg_co_grow(void *pp, size_t *cap, size_t need, size_t size)
{
    if (pg_grow(pp, cap, need, size) < 0) {
        fprintf(stderr, "pangaea-coord: out of memory\n");
        exit(1);
    }
}

/* tasks[] indexed by ltid and by tid: nearly every message looks a task
 * up, and a run may have a million tasks (a farm of short workers), so a
 * scan per message would be quadratic.  Open addressing; a slot holds
 * key + 1 (0: empty) and the task's index, which never changes (tasks[]
 * only grows at its end). */
struct index {
    unsigned *key;
    int *at;
    size_t cap, n;
};
static struct index by_ltid, by_tid;

static size_t slot_of(const struct index *x, int key)
{
    size_t i = ((unsigned)key * 2654435761u) & (x->cap - 1);

    while (x->key[i] && x->key[i] != (unsigned)key + 1)
        i = (i + 1) & (x->cap - 1);
    return i;
}

static void index_put(struct index *x, int key, int at);

static void index_grow(struct index *x)
{
    struct index big = { 0 };
    size_t i;

    big.cap = x->cap ? 2 * x->cap : 256;
    big.key = calloc(big.cap, sizeof *big.key);
    big.at = calloc(big.cap, sizeof *big.at);
    if (!big.key || !big.at) {
        fprintf(stderr, "pangaea-coord: out of memory\n");
        exit(1);
    }
    for (i = 0; i < x->cap; i++)
        if (x->key[i])
            index_put(&big, (int)(x->key[i] - 1), x->at[i]);
    free(x->key);
    free(x->at);
    *x = big;
}

/* The first task of a key keeps it (as a scan from the start found it). */
static void index_put(struct index *x, int key, int at)
{
    size_t i;

    if ((x->n + 1) * 2 > x->cap)
        index_grow(x);
    i = slot_of(x, key);
    if (x->key[i])
        return;
    x->key[i] = (unsigned)key + 1;
    x->at[i] = at;
    x->n++;
}

/* Pointers into tasks[] (find, learn) live only until the next learn(). */
static struct task *find(int kind, int key)
{
    const struct index *x = kind == PG_KEY_LTID ? &by_ltid : &by_tid;
    size_t i;

    if (!x->cap)
        return NULL;
    i = slot_of(x, key);
    return x->key[i] ? &tasks[x->at[i]] : NULL;
}

static void refresh(struct task *t);

static void send_ints(int to, int tag, const int *v, int n, const char *s1,
                      const char *s2)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint((int *)v, n, 1);
    if (s1)
        pvm_pkstr((char *)s1);
    if (s2)
        pvm_pkstr((char *)s2);
    pvm_send(to, tag);
}

static struct group *group_of(int tid)
{
    int i, j;

    for (i = 0; i < ngroups; i++)
        for (j = 0; j < groups[i].n; j++)
            if (groups[i].tids[j] == tid)
                return &groups[i];
    return NULL;
}

/* Answers a request if it can be answered now (or must be: `late`). */
static int answer(const struct pending *p, int late)
{
    struct group *g;
    struct task *t;
    int v[2], self = p->key;

    if (p->kind == PG_KEY_SIBS) {
        g = group_of(p->key);
        if (!g && !late)
            return 0;
        pvm_initsend(PvmDataDefault);
        v[0] = g ? g->n : 1;
        pvm_pkint(v, 1, 1);
        pvm_pkint(g ? g->tids : &self, v[0], 1);
        pvm_send(p->asker, PG_TAG_SIBS_R);
        return 1;
    }
    t = find(p->kind, p->key);
    if (!t && !late)
        return 0;
    v[0] = t ? t->tid : -1;
    v[1] = t ? t->ltid : -1;
    send_ints(p->asker, PG_TAG_WHOIS_R, v, 2, NULL, NULL);
    return 1;
}

/* Something became known: answer who waited for it. */
static void resolve_pending(void)
{
    int i = 0;

    while (i < npend) {
        if (answer(&pend[i], 0)) {
            pend[i] = pend[--npend];
        } else if (now() > pend[i].deadline) {
            /* Said aloud: a wait this long is a wrong guess somewhere. */
            fprintf(stderr, pend[i].kind == PG_KEY_LTID
                    ? "pangaea-coord: no task registered as ltid %d in 10 s "
                      "(asked by t%x): answered as unknown\n"
                    : "pangaea-coord: no task registered as t%x in 10 s "
                      "(asked by t%x): answered as unknown\n",
                    pend[i].key, pend[i].asker);
            answer(&pend[i], 1);
            pend[i] = pend[--npend];
        } else
            i++;
    }
}

/* The task's entry, made if new.  May grow (move) the table: any struct
 * task pointer taken before a learn() is stale after it. */
static struct task *learn(int ltid, int tid)
{
    struct task *t = find(PG_KEY_LTID, ltid);

    if (!t) {
        pg_co_grow(&tasks, &cap_tasks, ntasks + 1, sizeof *tasks);
        t = &tasks[ntasks++];
        memset(t, 0, sizeof *t);
        nopen++;
        t->ltid = ltid;
        t->tid = tid;
        index_put(&by_ltid, ltid, ntasks - 1);
        index_put(&by_tid, tid, ntasks - 1);
        /* Fires at once if the task has already gone. */
        pvm_notify(PvmTaskExit, PG_TAG_TASKEXIT, 1, &tid);
    }
    return t;
}

static void on_register(void)
{
    int v[3];
    char prog[1024], host[256];
    struct task *t;

    pvm_upkint(v, 3, 1);
    pvm_upkstr(prog);
    pvm_upkstr(host);
    t = learn(v[0], v[1]);
    t->registered = 1;
    send_ints(top, PG_TAG_STARTED, v, 2, prog, host);
    resolve_pending();
}

static void on_announce(int src)
{
    int v[2];
    struct task *parent;

    pvm_upkint(v, 2, 1);
    learn(v[0], v[1]);
    /* Looked up after learn(): learn() may grow the table, and a pointer
     * taken before would point into freed memory. */
    parent = find(PG_KEY_TID, src);
    if (parent) {
        parent->announced_children++;
        refresh(parent);
    }
    resolve_pending();
}

/* True when `tid` is a running task that is not of this run: its chain of
 * parents never reaches `pangaea` or a task the coordinator knows (a server
 * started by hand, a task of another `pangaea` run).  Such a tid will never
 * register, so it is answered "unknown" at once instead of after the
 * deadline (outside.c records its messages with their contents).
 * `pangaea` and the coordinator themselves are no program task either:
 * asked about by tid (a replayed send to the tid an outside task had when
 * recorded, now reused by one of them), they are outside at once. */
static int outside_run(int tid)
{
    struct pvmtaskinfo *ti;
    int n, hops;

    if ((tid == top || tid == pvm_mytid()) && !find(PG_KEY_TID, tid))
        return 1;
    for (hops = 0; hops < 64; hops++) {
        if (tid == top || tid == pvm_mytid() || find(PG_KEY_TID, tid))
            return 0;
        if (pvm_tasks(tid, &n, &ti) < 0 || n < 1)
            return hops > 0; /* gone: a parent gone is no task of ours */
        if (ti[0].ti_ptid <= 0)
            return 1; /* started by hand, not by a task of the run */
        tid = ti[0].ti_ptid;
    }
    return 1;
}

static void on_whois(int src)
{
    int v[2];
    struct pending p;

    pvm_upkint(v, 2, 1);
    p.asker = src;
    p.kind = v[0];
    p.key = v[1];
    p.deadline = now() + 10.0;
    if (p.kind == PG_KEY_TID_NOW) {
        p.kind = PG_KEY_TID;
        answer(&p, 1);
        return;
    }
    /* A tid that is no task at all will never register. */
    if (answer(&p, v[0] == PG_KEY_TID &&
                       (pvm_pstat(v[1]) != PvmOk || outside_run(v[1]))))
        return;
    pg_co_grow(&pend, &cap_pend, npend + 1, sizeof *pend);
    pend[npend++] = p;
}

static void tell_ended(struct task *t);

/* A task is about to kill ltid v: its end needs no report (wrap_kill.c). */
static void on_killing(void)
{
    struct task *t;
    int ltid;

    pvm_upkint(&ltid, 1, 1);
    t = find(PG_KEY_LTID, ltid);
    if (t) {
        t->killed = 1;
        tell_ended(t);
    }
}

/* The ltid of a new task: the next number, until none is left (-1, and
 * the parent says so). */
static void on_new_ltid(int src)
{
    int v[2], ltid = next_ltid < INT_MAX ? next_ltid++ : -1;

    pvm_upkint(v, 2, 1); /* parent ltid and k: said in the protocol */
    send_ints(src, PG_TAG_NEWLTID_R, &ltid, 1, NULL, NULL);
}

/* PVM contexts by the names their makers gave them (wrap_context.c): a
 * context is a number from the daemon's counter, so it differs from run
 * to run; its name (its maker's ltid and its place among the maker's new
 * contexts) does not.  A name > 0 is kept, 0 asks; the answer either way
 * is the name (0: not known). */
static struct ctxname { int ctx, name; } *ctxnames;
static size_t nctxnames, cap_ctxnames;

static void on_ctxname(int src)
{
    int v[2];
    size_t i;

    pvm_upkint(v, 2, 1);
    for (i = 0; i < nctxnames && ctxnames[i].ctx != v[0]; i++)
        ;
    if (v[1] > 0 && i == nctxnames) {
        pg_co_grow(&ctxnames, &cap_ctxnames, nctxnames + 1, sizeof *ctxnames);
        ctxnames[nctxnames++].ctx = v[0];
    }
    if (v[1] > 0 && i < nctxnames)
        ctxnames[i].name = v[1];
    v[1] = i < nctxnames ? ctxnames[i].name : 0;
    send_ints(src, PG_TAG_CTXNAME_R, &v[1], 1, NULL, NULL);
}

static void on_siblings(void)
{
    struct group *g;

    pg_co_grow(&groups, &cap_groups, ngroups + 1, sizeof *groups);
    g = &groups[ngroups++];
    pvm_upkint(&g->n, 1, 1);
    g->tids = malloc((g->n > 0 ? g->n : 1) * sizeof *g->tids);
    if (!g->tids) {
        fprintf(stderr, "pangaea-coord: out of memory\n");
        exit(1);
    }
    pvm_upkint(g->tids, g->n, 1);
    resolve_pending();
}

/* Whether t is done with (its end told, every child it announced known),
 * kept as a count: all_done runs after most messages, and looking at
 * every task of a large run each time would be quadratic. */
static void refresh(struct task *t)
{
    int fin = t->told && !(t->reported &&
                           t->announced_children < t->expect_children);

    if (fin != t->fin) {
        nopen += fin ? -1 : 1;
        t->fin = fin;
    }
}

/* Tells `pangaea` how a task ended, once it is known. */
static void tell_ended(struct task *t)
{
    int v[4];

    if (t->told || !t->ended ||
        (!t->reported && !t->killed && now() - t->ended_at < report_grace))
        return;
    t->told = 1;
    v[0] = t->ltid;
    v[1] = t->tid;
    v[2] = t->status;
    /* A crash the task reported itself (runtime.c) has status -signal:
     * known at once, and no normal end. */
    v[3] = t->reported && t->status >= 0 ? 1 : t->killed ? 2 : 0;
    send_ints(top, PG_TAG_ENDED, v, 4, NULL, NULL);
    refresh(t);
}

static void on_exit_report(void)
{
    int v[3];
    struct task *t;

    pvm_upkint(v, 3, 1);
    t = find(PG_KEY_LTID, v[0]);
    if (t) {
        t->reported = 1;
        t->status = v[1];
        t->expect_children = v[2];
        tell_ended(t);
        refresh(t); /* a report after the grace: children to wait for */
    }
}

static void on_task_exit(void)
{
    int tid;
    struct task *t;

    pvm_upkint(&tid, 1, 1);
    pg_go_task_ended(tid);
    t = find(PG_KEY_TID, tid);
    if (!t || t->ended)
        return;
    t->ended = 1;
    t->ended_at = now();
    tell_ended(t);
    if (!t->told) { /* no report yet: all_done tells it after the grace */
        pg_co_grow(&waiting, &cap_waiting, nwaiting + 1, sizeof *waiting);
        waiting[nwaiting++] = (int)(t - tasks);
    }
}

static void kill_tasks(void)
{
    int i;

    for (i = 0; i < ntasks; i++)
        if (!tasks[i].ended) {
            pvm_kill(tasks[i].tid);
            /* a stopped task takes the SIGTERM only once continued */
            pvm_sendsig(tasks[i].tid, SIGCONT);
        }
}

static int all_done(void)
{
    struct task *t;
    int i = 0;

    if (ntasks == 0)
        return 0;
    while (i < nwaiting) {
        t = &tasks[waiting[i]];
        tell_ended(t);
        if (t->told)
            waiting[i] = waiting[--nwaiting];
        else
            i++;
    }
    return nopen == 0;
}

int main(int argc, char **argv)
{
    struct timeval tick = { 0, 200000 };
    int bufid, len, tag, src, done_sent = 0;

    if (argc < 2 || pvm_mytid() < 0) {
        fprintf(stderr, "pangaea-coord: to be started by pangaea\n");
        return 2;
    }
    top = pvm_parent();
    if (argc > 2 && atoi(argv[2]) > 1)
        next_ltid = atoi(argv[2]);
    if (getenv("PANGAEA_REPORT_GRACE")) /* a slow network: more */
        report_grace = atof(getenv("PANGAEA_REPORT_GRACE"));
    /* Errors are values here (a whois of a tid that is no task's); PVM's
     * own messages about them would land in the program's output. */
    pvm_setopt(PvmAutoErr, 0);
    pvm_setcontext(atoi(argv[1]));
    /* If pangaea itself dies, nobody would end this run: do it. */
    pvm_notify(PvmTaskExit, PG_TAG_QUIT, 1, &top);
    for (;;) {
        tick.tv_sec = 0;
        tick.tv_usec = 200000;
        bufid = pvm_trecv(-1, -1, &tick);
        if (bufid < 0)
            break;
        if (bufid == 0) {
            resolve_pending();
            if (!done_sent && all_done()) {
                send_ints(top, PG_TAG_ALLDONE, NULL, 0, NULL, NULL);
                done_sent = 1;
            }
            continue;
        }
        pvm_bufinfo(bufid, &len, &tag, &src);
        switch (tag) {
        case PG_TAG_REGISTER: on_register(); break;
        case PG_TAG_ANNOUNCE: on_announce(src); break;
        case PG_TAG_WHOIS: on_whois(src); break;
        case PG_TAG_EXIT: on_exit_report(); break;
        case PG_TAG_SIBLINGS: on_siblings(); break;
        case PG_TAG_KILLING: on_killing(); break;
        case PG_TAG_NEWLTID: on_new_ltid(src); break;
        case PG_TAG_CTXNAME: on_ctxname(src); break;
        case PG_TAG_TASKEXIT: on_task_exit(); break;
        case PG_TAG_GTURN: pg_go_turn(src); break;
        case PG_TAG_GDONE: pg_go_done(src); break;
        case PG_TAG_QUIT:
            if (src != top)
                kill_tasks(); /* pangaea died: end its run */
            pvm_exit();
            return 0;
        default: break;
        }
        /* Not only when idle: every run would otherwise last 0.2 s more. */
        if (!done_sent && (tag == PG_TAG_EXIT || tag == PG_TAG_TASKEXIT) &&
            all_done()) {
            send_ints(top, PG_TAG_ALLDONE, NULL, 0, NULL, NULL);
            done_sent = 1;
        }
    }
    pvm_exit();
    return 1;
}
