/*
 * explore.c - `pangaea -explore [-runs N] [-depth K] [-until crash|output]
 * [-timeout S] [-logdir DIR] prog args`: try the other orders, one what-if
 * at a time, until one fails (issue 16).
 *
 * Design.  A driver around `pangaea` itself (rerun.c): run 0 is a plain
 * recording; then, breadth first, every recorded run is examined with the
 * race analysis (races.h) and each alternative of each racing receive not
 * tried yet becomes a child run, `pangaea -whatif` on that recording: so
 * a child at depth k carries k forced choices (the earlier ones are in
 * its recording's prefix), and at most K.  Alternatives equal to one
 * already tried (same receiver ltid, call site, filter and sender) are
 * skipped, whatever run they come from (so a loop that races the same
 * way at every iteration costs one run per sender).  A run fails when it ends
 * otherwise than run 0 did with status 0 (a crash, an abnormal end, a
 * stall past -timeout), or with `-until output`, when its output differs
 * from run 0's; a what-if that cannot be forced (refused by -whatif,
 * status 2) or that left its recording before the forced receive (status
 * 3) is "skipped", with why, and never counted as a failure.  An
 * alternative is a message the race analysis offers: per sender only its
 * earliest one the receive accepts (PVM keeps a sender's order; races.h).
 * The summary counts what was tried and what was skipped, by reason:
 * equal to one tried, a poll that found nothing or a host notice (nothing
 * to force), past -depth, past -runs.  Failing runs' recordings are kept
 * (with their output, run-N.out/.err), the others removed at the end.
 * Exit status: 1 when a run failed, 0 if none, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_log.h"
#include "races.h"
#include "rerun.h"
#include "whatif.h"

#define MAX_TRIED 100000

struct node {
    char dir[PATH_MAX];
    char chain[1024];   /* the forced choices, in order */
    int depth;
    int failed;
    int usable;         /* ended well: its races are worth a look */
    int skipped;        /* could not be forced (status 2 or 3) */
};

/* Why alternatives were not run (the summary's counts). */
enum skip { SAME, POLL, HOST, DEPTH, BUDGET, NSKIP };

struct explore {
    const struct top_driver *d;
    struct node *nodes;
    int n;              /* runs made (nodes used) */
    char **tried;       /* keys of alternatives tried */
    int ntried;
    int found;          /* a run failed */
    int skip[NSKIP];    /* alternatives not run, by reason */
    int nskipped;       /* runs that could not force their choice */
};

int top_is_explore(const char *arg)
{
    return !strcmp(arg, "-explore");
}

static int tried(struct explore *x, const char *key)
{
    int i;

    for (i = 0; i < x->ntried; i++)
        if (!strcmp(x->tried[i], key))
            return 1;
    if (x->ntried < MAX_TRIED)
        x->tried[x->ntried++] = strdup(key);
    return 0;
}

/* The first line of the file that starts with "pangaea: -whatif: " (a
 * refusal, status 2), or the first line at all, into buf. */
static void refusal(const char *path, char *buf, size_t size)
{
    char line[1024];
    FILE *f = fopen(path, "r");

    buf[0] = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!buf[0] || !strncmp(line, "pangaea: -whatif: ", 18))
            snprintf(buf, size, "%.500s", line);
        if (!strncmp(line, "pangaea: -whatif: ", 18))
            break;
    }
    if (f)
        fclose(f);
}

/* Runs pangaea with the given mode arguments into node i; says how it
 * went; 1 if it failed. */
static int run_one(struct explore *x, int i, char **mode, int nmode)
{
    struct node *nd = &x->nodes[i];
    char *argv[64 + 1024], out[PATH_MAX + 16], err[PATH_MAX + 16], why[600];
    static char hash0[17];
    struct top_run r;
    int k, j = 0;

    argv[j++] = "pangaea";
    for (k = 0; k < nmode; k++)
        argv[j++] = mode[k];
    for (k = 0; x->d->prog[k] && j < 64 + 1023; k++)
        argv[j++] = x->d->prog[k];
    argv[j] = NULL;
    snprintf(out, sizeof out, "%s.out", nd->dir);
    snprintf(err, sizeof err, "%s.err", nd->dir);
    if (top_rerun(argv, out, err, x->d->timeout, &r) < 0) {
        fprintf(stderr, "pangaea: -explore: cannot start a run\n");
        exit(2);
    }
    if (i == 0)
        memcpy(hash0, r.hash, sizeof hash0);
    top_rerun_why(err, why, sizeof why);
    if (i > 0 && !r.timed_out && r.status == 2)
        refusal(err, why, sizeof why);
    nd->usable = !r.timed_out && r.status == 0;
    nd->skipped = i > 0 && !r.timed_out && (r.status == 2 || r.status == 3);
    nd->failed = !nd->skipped &&
                 (r.timed_out || r.status != 0 ||
                  (x->d->until_output && strcmp(r.hash, hash0)));
    x->nskipped += nd->skipped;
    if (nd->skipped) {
        printf("run %d: forced %s: skipped: %s%s%s\n", i, nd->chain,
               r.status == 2 ? "-whatif cannot force it"
                             : "it left its recording before the forced "
                               "receive",
               why[0] ? ": " : "", why);
        fflush(stdout);
        return 0;
    }
    printf("run %d: %s%s: %s%s%s, output %s%s\n", i,
           i ? "forced " : "", i ? nd->chain : "recorded freely",
           r.timed_out ? "stalled (stopped after -timeout)"
           : r.status == 0 ? "ended well" : "failed",
           why[0] ? ": " : "", why, r.hash,
           strcmp(r.hash, hash0) ? " (differs from run 0)" : "");
    fflush(stdout);
    return nd->failed;
}

/* The key of an alternative: receiver, site, filter, sender. */
static void key_of(const struct rc_run *run, const struct rc_race *race,
                   int m, char *key, size_t size)
{
    const struct rc_ev *e = RC_EV(run, race->task, race->pos);
    const struct rc_msg *x = &run->msg[m];
    char site[512];

    snprintf(key, size, "%d|%s|%d|%d|%d", run->tasks[race->task].ltid,
             rc_site_name(run, race->task, e->site, site, sizeof site),
             e->afrom, e->atag,
             x->src >= 0 ? run->tasks[x->src].ltid
             : x->notice_of >= 0 ? -1000 - run->tasks[x->notice_of].ltid
                                 : -1);
}

/* One child run forcing message m at race of node p. */
static void try_alt(struct explore *x, int p, const struct rc_run *run,
                    const struct rc_race *race, int m)
{
    const struct rc_msg *msg = &run->msg[m];
    struct node *nd = &x->nodes[x->n];
    char spec[64], *mode[6];
    int sender = msg->src >= 0 ? run->tasks[msg->src].ltid
                               : run->tasks[msg->notice_of].ltid;

    snprintf(spec, sizeof spec, "%d:%d=%d:%d", run->tasks[race->task].ltid,
             RC_EV(run, race->task, race->pos)->seq, sender, msg->msgid);
    snprintf(nd->dir, sizeof nd->dir, "%s/run-%d", x->d->logdir, x->n);
    if (snprintf(nd->chain, sizeof nd->chain, "%s%s%s", x->nodes[p].chain,
                 x->nodes[p].chain[0] ? " " : "", spec) >=
        (int)sizeof nd->chain)
        strcpy(nd->chain + sizeof nd->chain - 4, "..."); /* depth > ~30 */
    nd->depth = x->nodes[p].depth + 1;
    mode[0] = "-whatif", mode[1] = spec, mode[2] = "-logdir";
    mode[3] = x->nodes[p].dir, mode[4] = "-o", mode[5] = nd->dir;
    if (run_one(x, x->n++, mode, 6))
        x->found = 1;
}

/* The children of node p: an untried alternative of each race each. */
static void expand(struct explore *x, int p)
{
    struct rc_race *races = NULL;
    struct rc_run run;
    char key[700];
    int n, i, a, pass;
    pg_err err;

    if (rc_load(&run, x->nodes[p].dir, &err) < 0) {
        fprintf(stderr, "pangaea: -explore: run %d: %s\n", p, err.msg);
        return;
    }
    if ((n = rc_find(&run, &races)) < 0)
        n = 0;
    for (pass = 0; pass < 2; pass++) /* first races first */
        for (i = 0; i < n; i++) {
            if (races[i].first != !pass)
                continue;
            if (races[i].took < 0) { /* a poll that found nothing */
                x->skip[POLL] += races[i].nalts;
                continue;
            }
            for (a = 0; a < races[i].nalts; a++) {
                const struct rc_msg *m = &run.msg[races[i].alts[a].msg];

                if (x->found)
                    goto out;
                if (m->src < 0 && m->notice_of < 0) {
                    x->skip[HOST]++; /* a host notice cannot be forced */
                    continue;
                }
                key_of(&run, &races[i], races[i].alts[a].msg, key,
                       sizeof key);
                if (tried(x, key))
                    x->skip[SAME]++;
                else if (x->n >= x->d->runs)
                    x->skip[BUDGET]++;
                else
                    try_alt(x, p, &run, &races[i], races[i].alts[a].msg);
            }
        }
out:
    rc_races_free(races, n);
    rc_free(&run);
}

/* What was tried and skipped, and why: one line. */
static void print_counts(const struct explore *x)
{
    static const char *why[NSKIP] = {
        "equal to one tried (same receiver, call site, filter, sender)",
        "at polls that found nothing (only a receive that took a message "
        "can be forced)",
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

/* Keeps failing runs, removes the others; prints the summary. */
static void finish(struct explore *x)
{
    char path[PATH_MAX + 16];
    int i;

    printf("%d runs%s\n", x->n, x->found ? "" : ": none failed");
    print_counts(x);
    for (i = 0; i < x->n; i++) {
        if (x->nodes[i].failed) {
            printf("run %d failed (%s): ", i,
                   i ? x->nodes[i].chain : "recorded freely");
            top_driver_replay_cmd(stdout, x->d, x->nodes[i].dir);
            continue;
        }
        top_rerun_remove(x->nodes[i].dir);
        snprintf(path, sizeof path, "%s.out", x->nodes[i].dir);
        remove(path);
        snprintf(path, sizeof path, "%s.err", x->nodes[i].dir);
        remove(path);
    }
}

int top_explore(int argc, char **argv)
{
    struct top_driver d;
    struct explore x = { &d, NULL, 0, NULL, 0, 0 };
    char *mode[3];
    int p;

    top_driver_opts(argc, argv, "-explore", &d);
    top_driver_dir(&d, "run-0");
    x.nodes = calloc(d.runs + 1, sizeof *x.nodes);
    x.tried = calloc(MAX_TRIED, sizeof *x.tried);
    if (!x.nodes || !x.tried)
        return 2;
    snprintf(x.nodes[0].dir, sizeof x.nodes[0].dir, "%s/run-0", d.logdir);
    mode[0] = "-log", mode[1] = "-logdir", mode[2] = x.nodes[0].dir;
    x.n = 1;
    x.found = run_one(&x, 0, mode, 3);
    for (p = 0; p < x.n && !x.found; p++) /* past -runs: counted only */
        if (x.nodes[p].usable && x.nodes[p].depth >= d.depth)
            x.skip[DEPTH]++;
        else if (x.nodes[p].usable)
            expand(&x, p);
    finish(&x);
    return x.found ? 1 : 0;
}
