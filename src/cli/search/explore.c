/*
 * explore.c - `pangaea -explore [-runs N] [-depth K] [-until crash|output]
 * [-timeout S] [-logdir DIR] prog args`: run the other orders of the racing
 * receives, each once, one what-if at a time, until one fails.
 *
 * Design.  A driver around `pangaea` itself (rerun.c): run 0 is a plain
 * recording; then, breadth first, every recorded run is examined with the
 * race analysis (races.h) and each alternative of each racing receive may
 * become a child run, `pangaea -whatif` on that recording: a child at
 * depth k carries k forced choices (the earlier ones are in its
 * recording's prefix), and at most K.  An alternative is a message the
 * analysis offers: per sender only its earliest one the receive accepts
 * (PVM keeps a sender's order).  Polls are receives too: polls that found
 * nothing (one receive per run of them) could have found each message
 * the analysis offers them, and a poll that found a message could have
 * found nothing where PVM could have given it later (whatif.c judges:
 * the poll had not seen its send through another message).
 *
 * Which children, as dynamic partial-order reduction does it (Flanagan
 * and Godefroid): a child is fixed by its forced choice and its causal
 * prefix, the choices of every receive that does not follow the forced
 * one (the what-if repeats those: whatif.c's plan).  Each run's "order"
 * is the set of choices of all its receives (LTID#K=SENDER:MSGID, or
 * =none for polls that found nothing; K counts the task's receives).  A
 * child whose prefix and forced choice are all in the order of a run made
 * already is that run again, whatever call site it is at, and is skipped
 * ("already run": explore_order.c keeps the orders, and what a run was
 * asked to force but did not make); so every run makes an order no run
 * made before, a choice is never forced again after the same prefix, and
 * a later receive at a call site is forced as readily as the first.
 * Receives are numbered per task, not by the log's event numbers, which
 * count call-site records written where a site is first used: two runs
 * that took other paths would number the same receive otherwise.  The
 * exploration is complete when no alternative was left (by -runs,
 * -depth, or a what-if that could not force its choice) and no run
 * failed.
 *
 * A run fails when it ends otherwise than with status 0 (a crash, an
 * abnormal end, a stall past -timeout), or with `-until output`, when its
 * output differs from run 0's; a what-if that cannot be forced (refused
 * by -whatif, status 2) or that left its recording before the forced
 * receive (status 3) is "skipped", with why, and never counted as a
 * failure.  The summary says how many distinct orders were run, whether
 * that is complete, what was tried and skipped by reason (already run, a
 * host notice: nothing to force, past -depth, past -runs).  Failing
 * runs' recordings are kept (with their output, run-N.out/.err), the
 * others removed at the end.  Exit status: 1 when a run failed, 0 if
 * none, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pvm3.h>

#include "explore.h"
#include "pg_log.h"
#include "top.h"
#include "whatif.h"

/* The runs' threads say they are done; the main thread does the rest. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

/* The first line of file path holding `key`, into buf ("" if none). */
static int line_with(const char *path, const char *key, char *buf,
                     size_t size)
{
    char line[1024];
    FILE *f = fopen(path, "r");

    buf[0] = 0;
    while (f && !buf[0] && fgets(line, sizeof line, f))
        if (strstr(line, key)) {
            line[strcspn(line, "\n")] = 0;
            snprintf(buf, size, "%.500s", line);
        }
    if (f)
        fclose(f);
    return buf[0] != 0;
}

/* The last non-empty line of file path that is the program's (not one
 * of pangaea's notes, "[N] pangaea: ..."), into buf. */
static void last_line(const char *path, char *buf, size_t size)
{
    char line[1024];
    FILE *f = fopen(path, "r");

    buf[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n' && !strstr(line, "] pangaea: ")) {
            line[strcspn(line, "\n")] = 0;
            snprintf(buf, size, "%.300s", line);
        }
    if (f)
        fclose(f);
}

/* How run i went, from its status and what it printed (out, err): a
 * what-if that could not be forced is skipped only when pangaea says so
 * (a refusal of -whatif, a divergence of the part it follows): a program
 * that ends with status 2 or 3 itself has failed. */
static void judge(struct explore *x, int i, const struct top_rerun_result *r,
                  const char *out, const char *err, char *why, size_t size)
{
    struct node *nd = &x->nodes[i];
    char last[400];

    top_rerun_why(err, why, size);
    nd->skipped = i > 0 && !r->timed_out &&
                  ((r->status == 2 &&
                    line_with(err, "pangaea: -whatif: ", why, size)) ||
                   (r->status == 3 && line_with(err, "replay diverged", why,
                                                size)));
    nd->usable = !r->timed_out && r->status == 0;
    if (r->timed_out || r->status == 0)
        return;
    last_line(out, last, sizeof last);
    if (!why[0])
        snprintf(why, size, "pangaea ended with status %d", r->status);
    if (last[0] && strlen(why) + strlen(last) + 40 < size)
        snprintf(why + strlen(why), size - strlen(why), "; the program's "
                 "last output: %s", last);
}

static void *run_thread(void *arg)
{
    struct node *nd = arg;
    char out[PATH_MAX + 16], err[PATH_MAX + 16];

    snprintf(out, sizeof out, "%s.out", nd->dir);
    snprintf(err, sizeof err, "%s.err", nd->dir);
    if (top_rerun(nd->argv, out, err, nd->timeout, &nd->r) < 0)
        nd->r.status = 127, nd->r.timed_out = 0;
    pthread_mutex_lock(&mu);
    nd->state = DONE;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

/* Starts pangaea with the given mode arguments into node i, in a thread
 * (top_rerun waits for the run). */
static void start(struct explore *x, int i, char **mode, int nmode)
{
    struct node *nd = &x->nodes[i];
    int k, j = 0;

    if (!(nd->argv = calloc((size_t)nmode + 1100, sizeof *nd->argv))) {
        fprintf(stderr, "pangaea: -explore: out of memory\n");
        exit(2);
    }
    nd->argv[j++] = "pangaea";
    for (k = 0; k < nmode; k++)
        if (!(nd->argv[j++] = strdup(mode[k]))) {
            fprintf(stderr, "pangaea: -explore: out of memory\n");
            exit(2);
        }
    for (k = 0; x->d->prog[k] && k < 1090; k++)
        nd->argv[j++] = x->d->prog[k];
    nd->nmode = nmode;
    nd->timeout = x->d->timeout;
    pthread_mutex_lock(&mu);
    nd->state = RUNNING;
    pthread_mutex_unlock(&mu);
    x->running++;
    if (pthread_create(&nd->thread, NULL, run_thread, nd)) {
        fprintf(stderr, "pangaea: -explore: cannot start a run\n");
        exit(2);
    }
}

/* The line that says how run i went. */
static void say(const struct explore *x, int i, const char *why)
{
    const struct node *nd = &x->nodes[i];
    const struct top_rerun_result *r = &nd->r;

    if (nd->skipped)
        printf("run %d: forced %s: skipped: %s: %s\n", i, nd->chain,
               r->status == 2 ? "-whatif cannot force it"
                              : "it left its recording before the forced "
                                "receive",
               why);
    else
        printf("run %d: %s%s: %s%s%s, output %s%s\n", i,
               i ? "forced " : "", i ? nd->chain : "recorded freely",
               r->timed_out ? "stalled (stopped after -timeout)"
               : r->status == 0 ? "ended well" : "failed",
               why[0] ? ": " : "", why, r->hash,
               strcmp(r->hash, x->hash0) ? " (differs from run 0)" : "");
    fflush(stdout);
}

/* Node i's run ended: how it went, and its order. */
static void finished(struct explore *x, int i)
{
    struct node *nd = &x->nodes[i];
    char out[PATH_MAX + 16], err[PATH_MAX + 16], why[600];
    int k;

    pthread_join(nd->thread, NULL);
    for (k = 1; k <= nd->nmode; k++)
        free(nd->argv[k]);
    free(nd->argv);
    nd->argv = NULL;
    x->running--;
    snprintf(out, sizeof out, "%s.out", nd->dir);
    snprintf(err, sizeof err, "%s.err", nd->dir);
    if (i == 0)
        memcpy(x->hash0, nd->r.hash, sizeof x->hash0);
    judge(x, i, &nd->r, out, err, why, sizeof why);
    nd->failed = !nd->skipped &&
                 (nd->r.timed_out || nd->r.status != 0 ||
                  (x->d->until_output && strcmp(nd->r.hash, x->hash0)));
    x->nskipped += nd->skipped;
    x->found |= nd->failed;
    if (!nd->skipped)
        ex_order_of_recording(nd);
    if (!nd->order) /* a run that could not force its choice: never again */
        ex_keep_order(nd, &nd->key);
    else
        ex_keep_tried(nd); /* one that did not make it: never again */
    ex_free_choices(&nd->key);
    say(x, i, why);
    pthread_mutex_lock(&mu);
    nd->state = FINISHED;
    pthread_mutex_unlock(&mu);
}

/* A run's state, which its thread may be changing. */
static int state_of(const struct node *nd)
{
    int state;

    pthread_mutex_lock(&mu);
    state = nd->state;
    pthread_mutex_unlock(&mu);
    return state;
}

/* Waits until a run ends, and finishes every run that has. */
static void collect(struct explore *x)
{
    int i, done = 0;

    pthread_mutex_lock(&mu);
    while (x->running > 0) {
        for (i = 0; i < x->n && !done; i++)
            done = x->nodes[i].state == DONE;
        if (done)
            break;
        pthread_cond_wait(&cv, &mu);
    }
    pthread_mutex_unlock(&mu);
    for (i = 0; i < x->n; i++)
        if (state_of(&x->nodes[i]) == DONE)
            finished(x, i);
}

static void wait_node(struct explore *x, int i)
{
    while (state_of(&x->nodes[i]) != FINISHED)
        collect(x);
}

/* 1 when key can be run now: a job is free and every running run makes
 * another choice at one of key's receives, so none of them can make the
 * order key asks for (it would be run twice). */
static int can_start(const struct explore *x, const struct choices *key)
{
    int i, j, other;
    char **at;

    if (x->running >= x->jobs)
        return 0;
    for (i = 0; i < x->n; i++) {
        const struct node *nd = &x->nodes[i];

        if (state_of(nd) != RUNNING && state_of(nd) != DONE)
            continue;
        for (j = other = 0; j < key->n && !other; j++)
            other = (at = bsearch(&key->v[j], nd->key.v, nd->key.n,
                                  sizeof *nd->key.v, ex_by_receive)) &&
                    strcmp(*at, key->v[j]);
        if (!other)
            return 0;
    }
    return 1;
}

/* One child run forcing message m (-1: nothing) at receive pos of task t
 * of node p; key: its prefix's choices and the forced one (the order of a
 * run that cannot force it). */
static void try_alt(struct explore *x, int p, const struct rc_run *run,
                    int t, int pos, int m, const struct choices *key)
{
    struct node *nd = &x->nodes[x->n];
    char spec[64], *mode[6];
    int i;

    ex_name_choice(run, t, pos, m, spec, sizeof spec);
    snprintf(nd->dir, sizeof nd->dir, "%s/run-%d", x->d->logdir, x->n);
    if (snprintf(nd->chain, sizeof nd->chain, "%s%s%s", x->nodes[p].chain,
                 x->nodes[p].chain[0] ? " " : "", spec) >=
        (int)sizeof nd->chain)
        strcpy(nd->chain + sizeof nd->chain - 4, "..."); /* depth > ~30 */
    nd->depth = x->nodes[p].depth + 1;
    for (i = 0; i < key->n; i++)
        ex_add_choice(&nd->key, key->v[i]);
    qsort(nd->key.v, nd->key.n, sizeof *nd->key.v, ex_by_text);
    mode[0] = "-whatif", mode[1] = spec, mode[2] = "-logdir";
    mode[3] = x->nodes[p].dir, mode[4] = "-o", mode[5] = nd->dir;
    start(x, x->n++, mode, 6);
}

/* Choice m (-1: nothing) at receive pos of task t of node p, whose
 * prefix is key: run unless already run.  key comes back as it was. */
static void try_one(struct explore *x, int p, struct rc_run *run, int t,
                    int pos, int m, struct choices *key)
{
    char one[64];

    ex_order_name(run, t, pos, m, one, sizeof one);
    ex_add_choice(key, one);
    for (;;) { /* until it is run, or needs not be */
        if (x->found)
            break;
        if (ex_already_run(x, key)) {
            x->skip[RUN]++;
            break;
        }
        if (x->n >= x->limit) {
            x->skip[BUDGET]++;
            if (p < x->next)
                x->next = p; /* -resume goes on from there */
            break;
        }
        if (can_start(x, key)) {
            try_alt(x, p, run, t, pos, m, key);
            break;
        }
        collect(x); /* a running run may make it, or free a job */
    }
    free(key->v[--key->n]);
}

/* The choices a child forcing receive pos of task t keeps, into key. */
static void prefix(struct rc_run *run, int t, int pos, struct choices *key)
{
    if (ex_prefix_of(run, t, pos, key) < 0) {
        fprintf(stderr, "pangaea: -explore: out of memory\n");
        exit(2);
    }
}

/* The alternatives of race r of node p (a receive, or polls that found
 * nothing): each run unless already run. */
static void try_race(struct explore *x, int p, struct rc_run *run,
                     const struct rc_race *r)
{
    struct choices key = { NULL, 0, 0 };
    int a;

    prefix(run, r->task, r->pos, &key);
    for (a = 0; a < r->nalts && !x->found; a++) {
        const struct rc_msg *m = &run->msg[r->alts[a].msg];

        if (m->src < 0 && m->notice_of < 0)
            x->skip[HOST]++; /* a host notice cannot be forced */
        else
            try_one(x, p, run, r->task, r->pos, r->alts[a].msg, &key);
    }
    ex_free_choices(&key);
}

/* Polls of node p that found a message and could have found nothing
 * (whatif.c says which): each such choice run unless already run. */
static void try_nothing(struct explore *x, int p, struct rc_run *run)
{
    struct choices key = { NULL, 0, 0 };
    int t, pos, may;

    for (t = 0; t < run->ntasks && !x->found; t++)
        for (pos = 1; pos <= run->tasks[t].n && !x->found; pos++) {
            if ((may = top_whatif_may_find_nothing(run, t, pos)) < 0) {
                fprintf(stderr, "pangaea: -explore: out of memory\n");
                exit(2);
            }
            if (!may)
                continue;
            prefix(run, t, pos, &key);
            try_one(x, p, run, t, pos, -1, &key);
            ex_free_choices(&key);
        }
}

/* The children of node p: the alternatives of each race, first races
 * first, then polls forced to find nothing. */
static void expand(struct explore *x, int p)
{
    struct rc_race *races = NULL;
    struct rc_run run;
    int n, i, pass;
    pg_err err;

    if (rc_load(&run, x->nodes[p].dir, &err) < 0) {
        fprintf(stderr, "pangaea: -explore: run %d: %s\n", p, err.msg);
        return;
    }
    if ((n = rc_find(&run, &races)) < 0)
        n = 0;
    for (pass = 0; pass < 2 && !x->found; pass++)
        for (i = 0; i < n && !x->found; i++)
            if (races[i].first == !pass)
                try_race(x, p, &run, &races[i]);
    if (!x->found)
        try_nothing(x, p, &run);
    rc_races_free(races, n);
    rc_free(&run);
}

/* What was tried and skipped, and why: one line. */
static void print_counts(const struct explore *x)
{
    static const char *why[NSKIP] = {
        "already run (a run made that choice after the same causal "
        "prefix)",
        "host notices (cannot be forced)",
        "runs at the -depth bound (their races not examined)",
        "past -runs" };
    int k, any = 0;

    printf("alternatives: %d tried", x->n - 1);
    for (k = 0; k < NSKIP; k++)
        if (x->skip[k])
            printf("%s %d %s", any++ ? "," : "; skipped:", x->skip[k],
                   why[k]);
    if (x->nskipped)
        printf("; %d of the runs could not force their choice (skipped, "
               "not failed)", x->nskipped);
    printf("\n");
}

/* How many distinct orders the runs made, and whether that is all. */
static void print_orders(const struct explore *x)
{
    int i, k, distinct = 0, left;

    for (i = 0; i < x->n; i++) {
        if (x->nodes[i].skipped)
            continue;
        for (k = 0; k < i && !(!x->nodes[k].skipped &&
                               ex_same_order(&x->nodes[k], &x->nodes[i]));
             k++)
            ;
        distinct += k == i;
    }
    left = x->skip[DEPTH] + x->skip[BUDGET] + x->nskipped;
    printf("orders: %d distinct order%s of the receives run", distinct,
           distinct == 1 ? "" : "s");
    if (x->found)
        printf("; stopped at the first failure\n");
    else if (!left)
        printf("; complete (every alternative run or already run)\n");
    else
        printf("; not complete: %d alternative%s or run%s left (-runs, "
               "-depth, or not forceable)\n", left, left == 1 ? "" : "s",
               left == 1 ? "" : "s");
}

/* Keeps failing runs and those -resume will expand, removes the others;
 * prints the summary. */
static void finish(struct explore *x)
{
    char path[PATH_MAX + 16];
    int i;

    printf("%d runs%s\n", x->n, x->found ? "" : ": none failed");
    print_orders(x);
    print_counts(x);
    ex_save_state(x);
    for (i = 0; i < x->n; i++) {
        if (x->nodes[i].failed) {
            printf("run %d failed (%s): ", i,
                   i ? x->nodes[i].chain : "recorded freely");
            top_driver_replay_cmd(stdout, x->d, x->nodes[i].dir);
            continue;
        }
        if (ex_frontier(x, i))
            continue; /* for -resume */
        top_rerun_remove(x->nodes[i].dir);
        snprintf(path, sizeof path, "%s.out", x->nodes[i].dir);
        remove(path);
        snprintf(path, sizeof path, "%s.err", x->nodes[i].dir);
        remove(path);
    }
    for (i = 0; i < x->n; i++) {
        struct choices c = { x->nodes[i].order, x->nodes[i].norder, 0 };
        struct choices t = { x->nodes[i].tried, x->nodes[i].ntried, 0 };

        ex_free_choices(&c);
        ex_free_choices(&t);
    }
    free(x->nodes);
}

/* Runs at once share one pvmd: without one running, each would start its
 * own and halt it at its end, ending the others' tasks.  So the driver
 * starts it (daemon.c) and halts it however it ends (atexit: a bad state
 * for -resume exits 2 too); it does not stay enrolled meanwhile (programs
 * that count the tasks of the machine would see it). */
static int daemon_started;

static void halt_daemon(void)
{
    int again;
    pg_err err;

    if (daemon_started && top_daemon_connect(&again, &err) == 0)
        top_daemon_release(1);
    daemon_started = 0;
}

static int share_daemon(pg_err *err)
{
    if (top_daemon_connect(&daemon_started, err) < 0)
        return -1;
    pvm_exit();
    if (daemon_started)
        atexit(halt_daemon);
    return 0;
}

/* Groups are the virtual machine's, not a run's: runs at once would join
 * the same groups.  A program whose first run used them is explored one
 * run at a time (said once). */
static void groups_alone(struct explore *x)
{
    struct rc_run run;
    pg_err err;
    int i, groups;

    if (x->jobs == 1 || rc_load_logs(&run, x->nodes[0].dir, &err) < 0)
        return;
    groups = run.nturns > 0 || run.nbars > 0;
    for (i = 0; i < run.nev && !groups; i++)
        groups = run.ev[i].kind == PG_EV_GETTID;
    rc_free(&run);
    if (!groups)
        return;
    x->jobs = 1;
    printf("(the program uses PVM groups, which runs at once would share: "
           "one run at a time)\n");
}

/* Run 0, recorded freely; or, with -resume, the runs made already.
 * Returns the run to expand first. */
static int begin(struct explore *x, pg_err *err)
{
    char *mode[3];

    if (x->d->resume)
        return ex_load_state(x, err);
    snprintf(x->nodes[0].dir, sizeof x->nodes[0].dir, "%s/run-0",
             x->d->logdir);
    mode[0] = "-log", mode[1] = "-logdir", mode[2] = x->nodes[0].dir;
    x->n = 1;
    start(x, 0, mode, 3);
    wait_node(x, 0);
    return 0;
}

int top_explore(int argc, char **argv)
{
    struct top_driver d;
    struct explore x = { &d, NULL, 0, 0, { 0 }, 0, 0, 1, 0, 0, "" };
    pg_err err;
    int p;

    if (top_driver_opts(argc, argv, "-explore", &d, &err) < 0 ||
        top_driver_dir(&d, "run-0", &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return 2;
    }
    x.limit = ex_runs_made(&d) + d.runs;
    x.next = x.limit; /* none cut short yet */
    x.nodes = calloc(x.limit + 1, sizeof *x.nodes);
    if (!x.nodes)
        return 2;
    x.jobs = d.jobs;
    if (d.jobs > 1 && share_daemon(&err) < 0) {
        fprintf(stderr, "pangaea: -explore: %s\n", err.msg);
        return 2;
    }
    p = begin(&x, &err); /* -resume: a group program's state says jobs 1 */
    if (p < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        halt_daemon();
        return 2;
    }
    groups_alone(&x);
    for (; p < x.n && !x.found; p++) { /* past -runs: counted only */
        wait_node(&x, p);
        if (x.nodes[p].usable && x.nodes[p].depth >= d.depth && !x.found)
            x.skip[DEPTH]++;
        else if (x.nodes[p].usable && !x.found)
            expand(&x, p);
    }
    if (x.found && p - 1 < x.next) /* stopped in the middle of run p - 1 */
        x.next = p > 0 ? p - 1 : 0;
    while (x.running) /* after a failure: the runs still going */
        collect(&x);
    halt_daemon();
    finish(&x);
    return x.found ? 1 : 0;
}
