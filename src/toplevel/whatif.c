/*
 * whatif.c - `pangaea -whatif LTID:SEQ=SENDER:MSGID [-o NEWDIR] -logdir DIR
 * prog args`: fork a recording at one racing receive (issue 16).
 *
 * Design.  The choice is checked against the race analysis of DIR
 * (races.h): the receive must be one `-races` reports, and the message
 * one of its alternatives; anything else is refused with exit 2 and the
 * list.  Then the plan: the run must repeat every event that does not
 * causally follow the forced receive, and nothing that does (those could
 * depend on the choice).  Happened-before is followed forwards from the
 * receive over the edges the analysis loaded (program order, a send to
 * every receive that saw its message, a spawn to the child's events, a
 * task's end to the exit notices about it); a task's first event reached
 * is where it stops following its recording (program order makes the rest
 * of the task reached too).  Recordings with groups are refused: their
 * turns and barriers would need the coordinator's ordering in the prefix.
 * The plan goes to NEWDIR/whatif.plan (format: src/lib/whatif.c), named
 * to every task by PANGAEA_WHATIF; the tasks do the rest while the run is
 * recorded into NEWDIR as under -log.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pg_internal.h"
#include "races.h"
#include "top.h"
#include "whatif.h"

static struct {
    char *plan;          /* the plan's text, once checked */
    char from[PATH_MAX];
    char choice[256];    /* what is forced, for the messages */
} wi;

/* ---- what follows the forced receive ------------------------------------- */

struct reach {
    struct rc_run *run;
    int *min;            /* per task: first event reached, n+1: none */
    int *head, *next;    /* per message: the receives that saw it (ev idx) */
    int *task_of;        /* per event index: its task */
    int *todo, ntodo;    /* tasks whose newly reached events are to scan */
    int *scanned;        /* per task: events scanned from here on */
};

static void lower(struct reach *r, int t, int pos)
{
    if (pos >= r->min[t])
        return;
    if (r->min[t] == r->scanned[t])
        r->todo[r->ntodo++] = t; /* not queued already */
    r->min[t] = pos;
}

static void reach_msg(struct reach *r, int m)
{
    struct rc_run *run = r->run;
    int g;

    if (run->msg[m].dst >= 0 && run->msg[m].taken_pos > 0)
        lower(r, run->msg[m].dst, run->msg[m].taken_pos);
    for (g = r->head[m]; g >= 0; g = r->next[g])
        lower(r, r->task_of[g], g - run->tasks[r->task_of[g]].first + 1);
}

/* Events [from, to) of task t were just reached: what they lead to. */
static void scan(struct reach *r, int t, int from, int to)
{
    struct rc_run *run = r->run;
    int pos, j, c;

    for (pos = from; pos < to; pos++) {
        const struct rc_ev *e = RC_EV(run, t, pos);

        if (e->kind == PG_EV_SEND)
            for (j = 0; j < e->nto; j++)
                reach_msg(r, e->a + j);
    }
    for (c = 0; c < run->ntasks; c++)
        if (run->tasks[c].parent == t && run->tasks[c].spawn_k >= from)
            lower(r, c, 1);
    if (to == run->tasks[t].n + 1) /* its end: the notices of its exit */
        for (j = 0; j < run->nmsg; j++)
            if (run->msg[j].notice_of == t)
                reach_msg(r, j);
}

static int reach_from(struct rc_run *run, int tf, int pos, int *min)
{
    struct reach r = { run, min, NULL, NULL, NULL, NULL, 0, NULL };
    int t, g, rc = -1;

    r.head = malloc((run->nmsg + 1) * sizeof *r.head);
    r.next = malloc((run->nev + 1) * sizeof *r.next);
    r.task_of = malloc((run->nev + 1) * sizeof *r.task_of);
    r.todo = malloc((run->ntasks + 1) * sizeof *r.todo);
    r.scanned = malloc((run->ntasks + 1) * sizeof *r.scanned);
    if (!r.head || !r.next || !r.task_of || !r.todo || !r.scanned)
        goto out;
    for (g = 0; g < run->nmsg; g++)
        r.head[g] = -1;
    for (t = 0; t < run->ntasks; t++) {
        min[t] = r.scanned[t] = run->tasks[t].n + 1;
        for (g = run->tasks[t].first; g < run->tasks[t].first +
                                              run->tasks[t].n; g++) {
            const struct rc_ev *e = &run->ev[g];

            r.task_of[g] = t;
            if ((e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE) &&
                e->a >= 0) {
                r.next[g] = r.head[e->a];
                r.head[e->a] = g;
            }
        }
    }
    lower(&r, tf, pos);
    while (r.ntodo > 0) {
        t = r.todo[--r.ntodo];
        g = r.scanned[t];
        r.scanned[t] = min[t];
        scan(&r, t, min[t], g);
    }
    rc = 0;
out:
    free(r.head), free(r.next), free(r.task_of), free(r.todo), free(r.scanned);
    return rc;
}

/* ---- the choice ---------------------------------------------------------- */

static void name_msg(const struct rc_run *run, int m, char *buf, size_t size)
{
    const struct rc_msg *x = &run->msg[m];

    if (x->src >= 0)
        snprintf(buf, size, "%d:%d", run->tasks[x->src].ltid, x->msgid);
    else if (x->notice_of >= 0)
        snprintf(buf, size, "%d:0 (the exit notice of ltid %d)",
                 run->tasks[x->notice_of].ltid, run->tasks[x->notice_of].ltid);
    else
        snprintf(buf, size, "a host notice (cannot be chosen)");
}

static int msg_is(const struct rc_run *run, int m, int sender, int msgid)
{
    const struct rc_msg *x = &run->msg[m];

    if (x->src >= 0)
        return run->tasks[x->src].ltid == sender && x->msgid == msgid;
    return x->notice_of >= 0 && msgid == 0 &&
           run->tasks[x->notice_of].ltid == sender;
}

static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2),
                                                         noreturn));
static void refuse(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "pangaea: -whatif: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    exit(TOP_EXIT_USAGE);
}

/* The race at ltid:seq; refuses (exit 2) when there is none. */
static const struct rc_race *find_race(const struct rc_run *run,
                                       const struct rc_race *races, int n,
                                       int ltid, long seq)
{
    int i;

    for (i = 0; i < n; i++)
        if (run->tasks[races[i].task].ltid == ltid &&
            RC_EV(run, races[i].task, races[i].pos)->seq == seq)
            return &races[i];
    refuse("ltid %d event %ld of %s is not a receive that could have taken "
           "another message (pangaea -races %s lists those)", ltid,
           seq, run->dir, run->dir);
}

static int find_alt(const struct rc_run *run, const struct rc_race *race,
                    int sender, int msgid)
{
    char list[4096] = "", one[128];
    size_t len = 0;
    int i;

    for (i = 0; i < race->nalts; i++)
        if (msg_is(run, race->alts[i].msg, sender, msgid))
            return race->alts[i].msg;
    for (i = 0; i < race->nalts && len < sizeof list - 200; i++) {
        name_msg(run, race->alts[i].msg, one, sizeof one);
        len += snprintf(list + len, sizeof list - len, "\n    %s%s", one,
                        race->alts[i].msg == race->took ? "  (taken)" : "");
    }
    refuse("ltid %d event %d cannot take %d:%d, which is not one of its "
           "alternatives; choose one of (SENDER:MSGID):%s",
           run->tasks[race->task].ltid, RC_EV(run, race->task, race->pos)->seq,
           sender, msgid, list);
}

/* The plan's text, into wi.plan. */
static void make_plan(const struct rc_run *run, const struct rc_race *race,
                      int m, const int *min)
{
    const struct rc_msg *x = &run->msg[m];
    size_t cap = 256 + (size_t)run->ntasks * 40 + strlen(run->dir), len;
    int t, has0 = 0, followed = 0, total = 0;

    if (!(wi.plan = malloc(cap)))
        refuse("out of memory");
    len = snprintf(wi.plan, cap, "from %s\nforce %d %d %s %d %d %d\n",
                   run->dir, run->tasks[race->task].ltid,
                   RC_EV(run, race->task, race->pos)->seq,
                   x->src >= 0 ? "recv" : "notice",
                   x->src >= 0 ? run->tasks[x->src].ltid
                               : run->tasks[x->notice_of].ltid,
                   x->msgid, x->tag);
    for (t = 0; t < run->ntasks; t++) {
        const struct rc_task *k = &run->tasks[t];

        has0 |= k->ltid == 0;
        followed += min[t] - 1;
        total += k->n;
        len += snprintf(wi.plan + len, cap - len, "stop %d %d\n", k->ltid,
                        min[t] <= k->n ? RC_EV(run, t, min[t])->seq : -1);
    }
    if (!has0)
        len += snprintf(wi.plan + len, cap - len, "stop 0 -1\n");
    fprintf(stderr, "pangaea: what-if: ltid %d event %d takes %s instead; "
            "the run follows %s for the %d of its %d events that do not "
            "depend on that receive, then runs freely\n",
            run->tasks[race->task].ltid, RC_EV(run, race->task, race->pos)->seq,
            wi.choice, run->dir, followed, total);
}

/* The default NEWDIR: beside DIR, named after the choice. */
static void default_newdir(const char *from, int ltid, long seq, int sender,
                           int msgid, char *out, size_t size)
{
    snprintf(out, size, "%s.whatif-%d.%ld-%d.%d", from, ltid, seq, sender,
             msgid);
}

void top_whatif_parse(struct top_opts *o, const char *spec, const char *from,
                      char *newdir, size_t size)
{
    struct rc_run run;
    struct rc_race *races = NULL;
    const struct rc_race *race;
    int ltid, sender, msgid, n, m, *min;
    long seq;
    char end;
    pg_err err;

    if (sscanf(spec, "%d:%ld=%d:%d%c", &ltid, &seq, &sender, &msgid, &end) != 4)
        refuse("the choice \"%s\" is not LTID:SEQ=SENDER:MSGID (as "
               "pangaea -races names receives and messages)", spec);
    if (!realpath(from, wi.from))
        refuse("no recording to fork: %s does not exist", from);
    if (rc_load(&run, wi.from, &err) < 0)
        refuse("%s", err.msg);
    if (run.nturns > 0 || run.nbars > 0)
        refuse("the recording in %s uses groups (joins, barriers): what-if "
               "runs do not follow those yet", wi.from);
    if ((n = rc_find(&run, &races)) < 0)
        refuse("out of memory");
    race = find_race(&run, races, n, ltid, seq);
    if (race->took < 0)
        refuse("ltid %d event %ld is a poll that found nothing: only a "
               "receive that took a message can be forced", ltid, seq);
    m = find_alt(&run, race, sender, msgid);
    snprintf(wi.choice, sizeof wi.choice, "%d:%d", sender, msgid);
    if (m == race->took)
        refuse("ltid %d event %ld took %s when recorded: choose another of "
               "its alternatives", ltid, seq, wi.choice);
    if (!(min = malloc((run.ntasks + 1) * sizeof *min)) ||
        reach_from(&run, race->task, race->pos, min) < 0)
        refuse("out of memory");
    if (!*newdir)
        default_newdir(wi.from, ltid, seq, sender, msgid, newdir, size);
    make_plan(&run, race, m, min);
    free(min);
    rc_races_free(races, n);
    rc_free(&run);
    o->whatif = spec;
}

int top_whatif_start(struct top_opts *o, pg_err *err)
{
    struct top_opts old = *o;
    char path[PATH_MAX + 32];
    FILE *f;

    snprintf(old.logdir, sizeof old.logdir, "%s", wi.from);
    old.mode = PANGAEA_REPLAY;
    if (!strcmp(wi.from, o->logdir))
        return pg_err_set(err, "-whatif: the new recording cannot go into "
                          "the recording it forks (%s): give -o NEWDIR",
                          wi.from);
    if (top_check_recording(&old, err) < 0 || top_check_hosts(&old, err) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/whatif.plan", o->logdir);
    if (!(f = fopen(path, "w")) || fputs(wi.plan, f) < 0 || fclose(f) < 0)
        return pg_err_set(err, "-whatif: cannot write %s", path);
    setenv(PG_ENV_WHATIF, path, 1);
    return 0;
}

int top_whatif_done(const struct top_opts *o, int status)
{
    fprintf(stderr, "pangaea: what-if run (%s forced) ended with status %d"
            "%s; recorded in %s (replay: pangaea -replay -logdir %s %s)\n",
            wi.choice, status,
            status == 0 ? "" : status == TOP_EXIT_FAILED
                                   ? " (a task failed or ended abnormally)"
                                   : status == TOP_EXIT_DIVERGED
                                         ? " (it left its recording before "
                                           "the forced receive)"
                                         : "",
            o->logdir, o->logdir, o->program);
    return status;
}
