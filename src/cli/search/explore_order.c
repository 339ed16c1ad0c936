/*
 * explore_order.c - the orders of `pangaea -explore`'s runs (explore.h).
 *
 * Design.  A run's order is the set of choices of all its receives, each
 * "LTID#K=SENDER:MSGID" (K: the receive is the task's K-th; an exit
 * notice: the ltid that ended and msgid 0; polls that found nothing, one
 * receive per run of them: "=none"), kept sorted so that membership is a
 * binary search.  Receives are numbered among the task's receives, not by
 * the log's event numbers: those count call-site records too, written
 * where a site is first used, and two runs that took other paths number
 * the same receive otherwise.  -whatif names a choice by the event number
 * of the recording it forks (LTID:SEQ=SENDER:MSGID, LTID:SEQ=none).  A child run is fixed by its forced choice and the
 * choices of every receive that does not follow the forced one (whatif.c
 * computes which: the what-if repeats them); when all of those are in a
 * run made already, the child would make that run again; so would a
 * child asking for exactly what a run made already was asked to force
 * ("tried": a run whose order lacks a choice it was to make, as a poll
 * forced to find nothing that polls again and finds the same message).
 * The state of
 * an exploration (DIR/explore.state, for -resume) is a text file:
 *     pangaea-explore 2
 *     hash0 HASH            (run 0's output)
 *     next N                (the first run not wholly examined)
 *     jobs 0|1              (1: one run at a time, a group program)
 *     run I DEPTH FAILED USABLE SKIPPED NORDER NTRIED<TAB>CHAIN
 *     ...NORDER lines, its order, then NTRIED lines, what it tried
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explore.h"
#include "pg_log.h"
#include "whatif.h"

void ex_add_choice(struct choices *c, const char *s)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        if (!(c->v = realloc(c->v, c->cap * sizeof *c->v))) {
            fprintf(stderr, "pangaea: -explore: out of memory\n");
            exit(2);
        }
    }
    if (!(c->v[c->n++] = strdup(s))) {
        fprintf(stderr, "pangaea: -explore: out of memory\n");
        exit(2);
    }
}

void ex_free_choices(struct choices *c)
{
    while (c->n > 0)
        free(c->v[--c->n]);
    free(c->v);
    c->v = NULL, c->cap = 0;
}

/* "SENDER:MSGID" of message m (an exit notice: the ltid that ended, 0;
 * a host notice: -1:0), or "none" for m -1. */
static void name_taken(const struct rc_run *run, int m, char *buf,
                       size_t size)
{
    const struct rc_msg *x = m >= 0 ? &run->msg[m] : NULL;

    if (!x)
        snprintf(buf, size, "none");
    else
        snprintf(buf, size, "%d:%d", x->src >= 0 ? run->tasks[x->src].ltid
                 : x->notice_of >= 0 ? run->tasks[x->notice_of].ltid : -1,
                 rc_msg_msgid(run, x));
}

void ex_name_choice(const struct rc_run *run, int t, int pos, int m,
                    char *buf, size_t size)
{
    char taken[32];

    name_taken(run, m, taken, sizeof taken);
    snprintf(buf, size, "%d:%ld=%s", run->tasks[t].ltid,
             rc_ev_seq(run, t, pos), taken);
}

static int is_receive(const struct rc_ev *e)
{
    return e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE ||
           e->kind == PG_EV_POLL;
}

/* "LTID#K=" + what it took, receive k of task t (its event pos). */
static void order_choice(const struct rc_run *run, int t, int k, int m,
                         char *buf, size_t size)
{
    char taken[32];

    name_taken(run, m, taken, sizeof taken);
    snprintf(buf, size, "%d#%d=%s", run->tasks[t].ltid, k, taken);
}

void ex_order_name(const struct rc_run *run, int t, int pos, int m,
                   char *buf, size_t size)
{
    int k = 1, i;

    for (i = 1; i < pos; i++)
        k += is_receive(RC_EV(run, t, i));
    order_choice(run, t, k, m, buf, size);
}

/* The choices of task t's receives before event `before` (all: n+1). */
void ex_task_choices(const struct rc_run *run, int t, int before,
                     struct choices *c)
{
    char one[64];
    int pos, k = 0;

    for (pos = 1; pos < before && pos <= run->tasks[t].n; pos++) {
        const struct rc_ev *e = RC_EV(run, t, pos);

        if (!is_receive(e))
            continue;
        k++;
        if (e->kind == PG_EV_POLL || e->a >= 0) {
            order_choice(run, t, k, e->kind == PG_EV_POLL ? -1 : e->a, one,
                         sizeof one);
            ex_add_choice(c, one);
        }
    }
}

int ex_by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Node i's order: its recording's choices (or, for a run that could not
 * force its choice, the choices it was to make: never tried again). */
void ex_keep_order(struct node *nd, struct choices *c)
{
    qsort(c->v, c->n, sizeof *c->v, ex_by_text);
    nd->order = c->v, nd->norder = c->n;
    c->v = NULL, c->n = c->cap = 0;
}

void ex_order_of_recording(struct node *nd)
{
    struct choices c = { NULL, 0, 0 };
    struct rc_run run;
    pg_err err;
    int t;

    if (rc_load_logs(&run, nd->dir, &err) < 0) /* an order needs no clocks */
        return;
    for (t = 0; t < run.ntasks; t++)
        ex_task_choices(&run, t, run.tasks[t].n + 1, &c);
    rc_free(&run);
    ex_keep_order(nd, &c);
}

/* 1 when every choice of c is in the sorted set v of n. */
static int subset(const struct choices *c, char **v, int n)
{
    int i;

    for (i = 0; v && i < c->n; i++)
        if (!bsearch(&c->v[i], v, n, sizeof *v, ex_by_text))
            return 0;
    return v != NULL;
}

/* 1 when every choice of c is in the order of a run made already, or c
 * is what a run was asked to force (and did not make). */
int ex_already_run(const struct explore *x, const struct choices *c)
{
    int k;

    for (k = 0; k < x->n; k++)
        if (subset(c, x->nodes[k].order, x->nodes[k].norder) ||
            (c->n == x->nodes[k].ntried &&
             subset(c, x->nodes[k].tried, x->nodes[k].ntried)))
            return 1;
    return 0;
}

void ex_keep_tried(struct node *nd)
{
    if (nd->order && subset(&nd->key, nd->order, nd->norder))
        return; /* it made them all: its order says so */
    qsort(nd->key.v, nd->key.n, sizeof *nd->key.v, ex_by_text);
    nd->tried = nd->key.v, nd->ntried = nd->key.n;
    nd->key.v = NULL, nd->key.n = nd->key.cap = 0;
}

/* Choices compared by their receive ("LTID:SEQ="), not what it took. */
int ex_by_receive(const void *a, const void *b)
{
    const char *p = *(char *const *)a, *q = *(char *const *)b;
    size_t n = strcspn(p, "="), m = strcspn(q, "=");
    int c = strncmp(p, q, n < m ? n : m);

    return c ? c : (int)n - (int)m;
}

/* The choices a child forcing receive pos of task t keeps: every receive
 * that does not follow it (the what-if's prefix), into c; 0, or -1 out
 * of memory. */
int ex_prefix_of(struct rc_run *run, int task, int pos, struct choices *c)
{
    int *min = malloc((run->ntasks + 1) * sizeof *min), t;

    if (!min || top_whatif_reach(run, task, pos, min) < 0)
        return free(min), -1;
    for (t = 0; t < run->ntasks; t++)
        ex_task_choices(run, t, min[t], c);
    free(min);
    return 0;
}

/* Two runs made the same order (a what-if may, where a forced choice
 * changes nothing else). */
int ex_same_order(const struct node *a, const struct node *b)
{
    int i;

    if (!a->order || !b->order || a->norder != b->norder)
        return 0;
    for (i = 0; i < a->norder && !strcmp(a->order[i], b->order[i]); i++)
        ;
    return i == a->norder;
}

/* ---- -resume: where the exploration stopped, in DIR/explore.state ---- */

static void state_path(const struct explore *x, char *buf, size_t size)
{
    snprintf(buf, size, "%s/explore.state", x->d->logdir);
}

/* A run -resume will still expand: its recording stays. */
int ex_frontier(const struct explore *x, int i)
{
    const struct node *nd = &x->nodes[i];

    return i >= x->next && nd->usable && nd->depth < x->d->depth;
}

/* Every run: its depth, how it ended, its chain, then its order. */
void ex_save_state(const struct explore *x)
{
    char path[PATH_MAX + 32];
    FILE *f;
    int i, k;

    state_path(x, path, sizeof path);
    if (!(f = fopen(path, "w"))) {
        fprintf(stderr, "pangaea: -explore: cannot write %s\n", path);
        return;
    }
    fprintf(f, "pangaea-explore 2\nhash0 %s\nnext %d\njobs %d\n", x->hash0,
            x->next < x->n ? x->next : x->n, x->jobs == 1 ? 1 : 0);
    for (i = 0; i < x->n; i++) {
        const struct node *nd = &x->nodes[i];

        fprintf(f, "run %d %d %d %d %d %d %d\t%s\n", i, nd->depth,
                nd->failed, nd->usable, nd->skipped, nd->norder, nd->ntried,
                nd->chain);
        for (k = 0; k < nd->norder; k++)
            fprintf(f, "%s\n", nd->order[k]);
        for (k = 0; k < nd->ntried; k++)
            fprintf(f, "%s\n", nd->tried[k]);
    }
    if (fclose(f) != 0)
        fprintf(stderr, "pangaea: -explore: cannot write %s\n", path);
}

/* Reading explore.state back: each loader returns 0, or -1 with an error
 * naming the file and the line that is wrong (a file cut short by a crash,
 * or edited); -resume then stops before any run. */
struct state_file {
    FILE *f;
    const char *path;
    int line; /* the line last read */
};

static int bad_state(const struct state_file *sf, const char *why, pg_err *err)
{
    return pg_err_set(err, "-explore -resume: %s:%d: %s", sf->path, sf->line,
                      why);
}

static int state_line(struct state_file *sf, char *buf, int size)
{
    if (!fgets(buf, size, sf->f))
        return 0;
    sf->line++;
    return 1;
}

/* n lines of choices of f, sorted, into c. */
static int load_choices(struct state_file *sf, int n, struct choices *c,
                        pg_err *err)
{
    char one[256];
    int k;

    for (k = 0; k < n; k++) {
        if (!state_line(sf, one, sizeof one))
            return bad_state(sf, "cut short after this line: a run's "
                             "choices are missing", err);
        one[strcspn(one, "\n")] = 0;
        ex_add_choice(c, one);
    }
    qsort(c->v, c->n, sizeof *c->v, ex_by_text);
    return 0;
}

/* One run's line, order and what it tried, into node i. */
static int load_run(struct explore *x, struct state_file *sf, const char *line,
                    pg_err *err)
{
    struct choices c = { NULL, 0, 0 }, t = { NULL, 0, 0 };
    char *tab = strchr(line, '\t');
    struct node *nd;
    int i, n, ntried;

    if (!tab || sscanf(line, "run %d", &i) != 1 || i != x->n ||
        i >= x->limit)
        return bad_state(sf, "a run line out of place", err);
    nd = &x->nodes[x->n++];
    if (sscanf(line, "run %*d %d %d %d %d %d %d", &nd->depth, &nd->failed,
               &nd->usable, &nd->skipped, &n, &ntried) != 6 || n < 0 ||
        ntried < 0)
        return bad_state(sf, "a bad run line", err);
    snprintf(nd->chain, sizeof nd->chain, "%.1000s", tab + 1);
    nd->chain[strcspn(nd->chain, "\n")] = 0;
    snprintf(nd->dir, sizeof nd->dir, "%s/run-%d", x->d->logdir, i);
    if (load_choices(sf, n, &c, err) < 0)
        return -1;
    ex_keep_order(nd, &c);
    if (load_choices(sf, ntried, &t, err) < 0)
        return -1;
    nd->tried = t.v, nd->ntried = t.n;
    nd->state = FINISHED;
    return 0;
}

/* The lines after the first: hash0, next, jobs and the runs. */
static int load_lines(struct explore *x, struct state_file *sf, int *next,
                      pg_err *err)
{
    char line[1200];
    int one;

    while (state_line(sf, line, sizeof line))
        if (!strncmp(line, "hash0 ", 6))
            snprintf(x->hash0, sizeof x->hash0, "%.16s", line + 6);
        else if (sscanf(line, "next %d", next) == 1)
            ;
        else if (sscanf(line, "jobs %d", &one) == 1)
            x->jobs = one == 1 ? 1 : x->jobs; /* 1: a group program */
        else if (load_run(x, sf, line, err) < 0)
            return -1;
    if (x->n < 1 || *next < 0 || *next > x->n)
        return bad_state(sf, "no runs, or no place to go on from", err);
    return 0;
}

/* The runs of the exploration in DIR; returns the run to expand next, or
 * -1 with err filled. */
int ex_load_state(struct explore *x, pg_err *err)
{
    char path[PATH_MAX + 32], line[1200];
    struct state_file sf = { NULL, path, 0 };
    int next = -1, cc;

    state_path(x, path, sizeof path);
    if (!(sf.f = fopen(path, "r")))
        return pg_err_set(err, "-explore -resume: cannot read %s: %s", path,
                          strerror(errno));
    if (!state_line(&sf, line, sizeof line) ||
        strcmp(line, "pangaea-explore 2\n"))
        cc = bad_state(&sf, "not a state this version of pangaea wrote", err);
    else
        cc = load_lines(x, &sf, &next, err);
    fclose(sf.f);
    if (cc < 0)
        return -1;
    printf("(resuming: %d runs made, from run %d on)\n", x->n, next);
    return next;
}

/* How many runs the state in DIR holds (-resume), 0 without. */
int ex_runs_made(const struct top_driver *d)
{
    char path[PATH_MAX + 32], line[1200];
    FILE *f;
    int n = 0;

    snprintf(path, sizeof path, "%s/explore.state", d->logdir);
    if (!d->resume || !(f = fopen(path, "r")))
        return 0;
    while (fgets(line, sizeof line, f))
        n += !strncmp(line, "run ", 4);
    fclose(f);
    return n;
}

