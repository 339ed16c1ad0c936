/*
 * whatif.c - `pangaea -whatif LTID:SEQ=SENDER:MSGID [-whatif ...] [-o NEWDIR]
 * -logdir DIR prog args`: fork a recording at racing receives.
 *
 * Design.  The choice is checked against the race analysis of DIR
 * (races.h): the receive must be one `-races` reports, and the message
 * one of its alternatives; anything else is refused with exit 2 and the
 * list.  Only that receive is examined (rc_find_at), on the logs loaded
 * without clocks, a send following it exactly when its reach (below)
 * says so: the whole run's races and clocks cost seconds and hundreds of
 * MB at 10^6 events, for one answer.  Then the plan: the run must
 * repeat every event that does not causally follow the forced receive,
 * and nothing that does (those could depend on the choice).
 * Happened-before is followed forwards from the receive over the edges
 * the analysis loaded (program order, a send to
 * every receive that saw its message, a spawn to the child's events, a
 * task's end to the exit notices about it, a group's join or leave to its
 * next turn, a barrier to every task's passing of it); a task's first event reached
 * is where it stops following its recording (program order makes the rest
 * of the task reached too).  Several choices fork at once when none
 * depends on another (no forced receive, and no chosen message's send,
 * follows another forced receive): the stops are the earliest of each.
 * The turns of each group not reached are its first ones (turn order is
 * an edge): the plan says how many, so that joins past a stop come after
 * them (src/pvm/runtime/whatif.c).  The plan goes to NEWDIR/whatif.plan (format: src/pvm/runtime/whatif.c), named
 * to every task by PANGAEA_WHATIF; the tasks do the rest while the run is
 * recorded into NEWDIR as under -log.
 *
 * Polls.  Polls that found nothing (a <poll>: -races lists what they
 * could have found) are forced to find one of those messages as any
 * receive is.  A poll that found a message (pvm_nrecv, pvm_probe, a
 * pvm_trecv whose site timed out in the run) is forced to find nothing
 * with LTID:SEQ=none, only where PVM could have done so: the poll had
 * not seen the message's send through any other message (following
 * happened-before from the send, the poll is the task's first event
 * reached), else per-pair order or the daemons' would have had it queued.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log_table.h"
#include "pg_internal.h"
#include "races.h"
#include "top.h"
#include "whatif.h"

/* One forced receive: as given, then as found in the analysis. */
struct choice {
    const char *spec;
    int ltid, sender, msgid;
    long seq;
    int nothing;         /* LTID:SEQ=none: a poll forced to find nothing */
    int task, pos;       /* the receive (or the last of failed polls) */
    int at_poll;         /* it found nothing when recorded */
    int m;               /* the message chosen (rc_run.msg), -1: none */
};

enum { SAID_RECEIVES = 2048 }; /* the lines of the forced receives, at most */

static struct {
    char *plan;          /* the plan's text, once checked */
    /* what it forces (a line a receive, up to SAID_RECEIVES bytes), and
     * the line naming the recording, said once the run starts */
    char said[SAID_RECEIVES + PATH_MAX + 160];
    char from[PATH_MAX];
    char choice[1024];   /* what is forced, for the messages */
    struct choice c[WHATIF_MAX];
    int n;
} wi;

/* ---- what follows the forced receive ------------------------------------- */

struct reach {
    struct rc_run *run;
    int *min;            /* per task: first event reached, n+1: none */
    int *head, *next;    /* per message: the receives that saw it (ev idx) */
    int *task_of;        /* per event index: its task */
    int *todo, ntodo;    /* tasks whose newly reached events are to scan */
    int *scanned;        /* per task: events scanned from here on */
    int *next_turn;      /* per turn: the group's next one, -1 */
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

/* Every task's passing of barrier b is reached (it waits for all). */
static void reach_barrier(struct reach *r, int b)
{
    struct rc_run *run = r->run;
    int c, pos;

    for (c = 0; c < run->ntasks; c++)
        for (pos = 1; pos <= run->tasks[c].n; pos++)
            if (RC_EV(run, c, pos)->kind == PG_EV_BARRIER &&
                RC_EV(run, c, pos)->a == b) {
                lower(r, c, pos);
                break;
            }
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
        if (rc_is_turn(e) && (j = r->next_turn[e->a]) >= 0)
            lower(r, run->turns[j].task, run->turns[j].pos);
        if (e->kind == PG_EV_BARRIER && e->a >= 0)
            reach_barrier(r, e->a);
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
    struct reach r = { run, min, NULL, NULL, NULL, NULL, 0, NULL, NULL };
    int t, g, rc = -1;

    r.head = malloc((run->nmsg + 1) * sizeof *r.head);
    r.next = malloc((run->nev + 1) * sizeof *r.next);
    r.task_of = malloc((run->nev + 1) * sizeof *r.task_of);
    r.todo = malloc((run->ntasks + 1) * sizeof *r.todo);
    r.scanned = malloc((run->ntasks + 1) * sizeof *r.scanned);
    r.next_turn = malloc((run->nturns + 1) * sizeof *r.next_turn);
    if (!r.head || !r.next || !r.task_of || !r.todo || !r.scanned ||
        !r.next_turn)
        goto out;
    for (g = 0; g < run->nturns; g++)
        r.next_turn[g] = -1;
    for (g = 0; g < run->nturns; g++)
        if (run->turns[g].prev >= 0)
            r.next_turn[run->turns[g].prev] = g;
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
    free(r.next_turn);
    return rc;
}

int top_whatif_reach(struct rc_run *run, int task, int pos, int *min)
{
    return reach_from(run, task, pos, min);
}

/* Receive pos of task t is a poll: pvm_nrecv, pvm_probe, or a pvm_trecv
 * whose call site timed out somewhere in the run (the log does not say
 * whether a pvm_trecv had a time-out: one that did not blocks, and PVM
 * never returns nothing from it). */
static int is_poll(const struct rc_run *run, int t, int pos)
{
    const struct rc_ev *e = RC_EV(run, t, pos);
    const char *call = pg_msg_calls[e->call < pg_n_msg_calls ? e->call : 0];
    int k;

    if (!strcmp(call, "pvm_nrecv") || !strcmp(call, "pvm_probe"))
        return 1;
    if (strcmp(call, "pvm_trecv") || !e->site)
        return 0;
    for (k = 1; k <= run->tasks[t].n; k++)
        if (RC_EV(run, t, k)->kind == PG_EV_POLL &&
            RC_EV(run, t, k)->site == e->site)
            return 1;
    return 0;
}

int top_whatif_may_find_nothing(struct rc_run *run, int t, int pos)
{
    const struct rc_ev *e = RC_EV(run, t, pos);
    const struct rc_msg *x;
    int *min, ok;

    if (e->kind != PG_EV_RECV && e->kind != PG_EV_NOTICE)
        return 0;
    if (e->a < 0 || !is_poll(run, t, pos))
        return 0;
    x = &run->msg[e->a];
    if (x->src < 0 && (x->notice_of < 0 || run->tasks[x->notice_of].n < 1))
        return 0; /* a host notice: when it comes is the daemon's */
    if (!(min = malloc((run->ntasks + 1) * sizeof *min)))
        return -1;
    /* the poll saw the send (or the end the notice is about) only
     * through that message: before the poll the task had not */
    ok = x->src >= 0 ? reach_from(run, x->src, x->src_pos, min)
                     : reach_from(run, x->notice_of,
                                  run->tasks[x->notice_of].n, min);
    ok = ok < 0 ? -1 : min[t] == pos;
    free(min);
    return ok;
}

/* ---- the choice ---------------------------------------------------------- */

static void name_msg(const struct rc_run *run, int m, char *buf, size_t size)
{
    const struct rc_msg *x = &run->msg[m];

    if (x->src >= 0)
        snprintf(buf, size, "%d:%d", run->tasks[x->src].ltid,
                 rc_msg_msgid(run, x));
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
        return run->tasks[x->src].ltid == sender &&
               rc_msg_msgid(run, x) == msgid;
    return x->notice_of >= 0 && msgid == 0 &&
           run->tasks[x->notice_of].ltid == sender;
}

/* A choice or plan refused: err says why ("-whatif: ..."); returns -1.
 * Nothing has run or moved yet: the caller prints it and exits 2. */
static int refuse(pg_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int refuse(pg_err *err, const char *fmt, ...)
{
    char msg[sizeof err->msg - 16];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pg_err_set(err, "-whatif: %s", msg);
}

/* Task index and event number of ltid's event seq into *t, *pos: 0, or
 * -1 when the recording has none. */
static int find_event(const struct rc_run *run, int ltid, long seq, int *t,
                      int *pos)
{
    int lo = 1, hi;

    for (*t = 0; *t < run->ntasks && run->tasks[*t].ltid != ltid; ++*t)
        ;
    if (*t >= run->ntasks)
        return -1;
    for (hi = run->tasks[*t].n + 1; lo < hi;) { /* seq grows with pos */
        int mid = lo + (hi - lo) / 2;

        if (rc_ev_seq(run, *t, mid) < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return lo <= run->tasks[*t].n && rc_ev_seq(run, *t, lo) == seq ? 0 : -1;
}

/* The race at ltid:seq, into *race: only that receive is examined, and
 * what follows it comes from its reach, not from clocks (the whole run's
 * races and clocks cost far more at scale: BENCHMARKS.md); refuses (exit
 * 2) when there is none. */
static int find_race(struct rc_run *run, int ltid, long seq,
                     struct rc_race *race, pg_err *err)
{
    int t, pos, rc = 0, *min = malloc((run->ntasks + 1) * sizeof *min);

    if (!min)
        return refuse(err, "out of memory");
    if (find_event(run, ltid, seq, &t, &pos) == 0 &&
        (reach_from(run, t, pos, min) < 0 ||
         (rc = rc_find_at(run, t, pos, min, race)) < 0))
        rc = -1;
    free(min);
    if (rc < 0)
        return refuse(err, "out of memory");
    if (rc == 0)
        return refuse(err, "ltid %d event %ld of %s is not a receive that "
                      "could have taken another message (pangaea -races %s "
                      "lists those)", ltid, seq, run->dir, run->dir);
    return 0;
}

/* The alternative of race that is sender's message msgid, into *m: 0, or
 * -1 and err listing those there are. */
static int find_alt(const struct rc_run *run, const struct rc_race *race,
                    int sender, int msgid, int *m, pg_err *err)
{
    char list[4096] = "", one[128];
    size_t len = 0;
    int i;

    for (i = 0; i < race->nalts; i++)
        if (msg_is(run, race->alts[i].msg, sender, msgid))
            return *m = race->alts[i].msg, 0;
    for (i = 0; i < race->nalts && len < sizeof list - 200; i++) {
        name_msg(run, race->alts[i].msg, one, sizeof one);
        len += snprintf(list + len, sizeof list - len, "\n    %s%s", one,
                        race->alts[i].msg == race->took ? "  (taken)" : "");
    }
    return refuse(err, "ltid %d event %ld cannot take %d:%d, which is not one "
                  "of its alternatives; choose one of (SENDER:MSGID):%s",
                  run->tasks[race->task].ltid,
                  rc_ev_seq(run, race->task, race->pos), sender, msgid, list);
}

/* Per group, how many of its turns the run follows (those no stop
 * reaches): "turns P GROUP" lines at buf.  Returns the length added. */
static size_t plan_turns(const struct rc_run *run, const int *min, char *buf,
                         size_t cap)
{
    size_t len = 0;
    int i, j, p, seen;

    for (i = 0; i < run->nturns; i++) {
        int g = RC_EV(run, run->turns[i].task, run->turns[i].pos)->msgid;

        for (j = seen = 0; j < i && !seen; j++)
            seen = RC_EV(run, run->turns[j].task, run->turns[j].pos)->msgid
                   == g;
        if (seen)
            continue; /* the group's line is written */
        for (j = p = 0; j < run->nturns; j++)
            p += RC_EV(run, run->turns[j].task, run->turns[j].pos)->msgid ==
                     g && run->turns[j].pos < min[run->turns[j].task];
        len += snprintf(buf + len, cap - len, "turns %d %s\n", p,
                        run->text + g);
    }
    return len;
}

/* What the run will force and follow, into wi.said: printed when the
 * plan is handed to the run (top_whatif_start, mpi_whatif.c), not before
 * a check of the run's own (an MPI launcher's) may still refuse it. */
static void say_plan(const struct rc_run *run, int followed, int total)
{
    size_t len = 0, cap = SAID_RECEIVES; /* the rest is the last line's */
    int j;

    for (j = 0; j < wi.n && len < cap; j++)
        if (wi.c[j].nothing)
            len += snprintf(wi.said + len, cap - len, "pangaea: what-if: "
                            "ltid %d event %ld (a poll) finds nothing "
                            "instead\n", wi.c[j].ltid, wi.c[j].seq);
        else
            len += snprintf(wi.said + len, cap - len, "pangaea: what-if: "
                            "ltid %d event %ld %stakes %d:%d instead\n",
                            wi.c[j].ltid, wi.c[j].seq, wi.c[j].at_poll
                            ? "(polls that found nothing) " : "",
                            wi.c[j].sender, wi.c[j].msgid);
    if (len >= cap) { /* the receives' lines were cut: end the cut one */
        len = cap - 1;
        wi.said[len - 1] = '\n';
    }
    snprintf(wi.said + len, sizeof wi.said - len, "pangaea: what-if: the "
             "run follows %s for the %d of its %d events that do not depend "
             "on %s, then runs freely\n", run->dir, followed, total,
             wi.n > 1 ? "those receives" : "that receive");
}

/* "where LTID CALL at SITE": the forced receive as the task names it if
 * the program ends before reaching it (src/pvm/runtime/whatif.c). */
static size_t plan_where(const struct rc_run *run, const struct choice *c,
                         char *buf, size_t cap)
{
    const struct rc_ev *e = RC_EV(run, c->task, c->pos);
    const char *call = pg_msg_calls[e->call < pg_n_msg_calls ? e->call : 0];
    char site[600];

    rc_site_name(run, c->task, e->site, site, sizeof site);
    return snprintf(buf, cap, "where %d %s%s%s\n", c->ltid, call,
                    site[0] ? " at " : "", site);
}

/* The plan's text, into wi.plan: a force line per choice, a stop line
 * per task, a turns line per group. */
static int make_plan(const struct rc_run *run, const int *min, pg_err *err)
{
    size_t cap = 256 + (size_t)(run->ntasks + wi.n) * 64 + strlen(run->dir) +
                 (size_t)wi.n * 700 +
                 (size_t)run->nturns * 300;
    int t, j, has0 = 0, followed = 0, total = 0;
    size_t len;

    if (!(wi.plan = malloc(cap)))
        return refuse(err, "out of memory");
    len = snprintf(wi.plan, cap, "from %s\n", run->dir);
    for (j = 0; j < wi.n; j++) {
        const struct rc_msg *x = wi.c[j].m >= 0 ? &run->msg[wi.c[j].m] : NULL;

        len += plan_where(run, &wi.c[j], wi.plan + len, cap - len);
        if (!x)
            len += snprintf(wi.plan + len, cap - len, "force %d %ld nothing "
                            "0 0 0\n", wi.c[j].ltid, wi.c[j].seq);
        else
            len += snprintf(wi.plan + len, cap - len,
                            "force %d %ld %s%s %d %d %d\n", wi.c[j].ltid,
                            wi.c[j].seq, wi.c[j].at_poll ? "poll-" : "",
                            x->src >= 0 ? "recv" : "notice", wi.c[j].sender,
                            rc_msg_msgid(run, x), rc_msg_tag(run, x));
    }
    for (t = 0; t < run->ntasks; t++) {
        const struct rc_task *k = &run->tasks[t];

        has0 |= k->ltid == 0;
        followed += min[t] - 1;
        total += k->n;
        len += snprintf(wi.plan + len, cap - len, "stop %d %ld\n", k->ltid,
                        min[t] <= k->n ? rc_ev_seq(run, t, min[t]) : -1L);
    }
    if (!has0)
        len += snprintf(wi.plan + len, cap - len, "stop 0 -1\n");
    plan_turns(run, min, wi.plan + len, cap - len);
    say_plan(run, followed, total);
    return 0;
}

/* The default NEWDIR: beside DIR, named after the choice. */
static void default_newdir(const char *from, char *out, size_t size)
{
    size_t len = snprintf(out, size, "%s.whatif", from);
    int j;

    for (j = 0; j < wi.n && len < size; j++)
        if (wi.c[j].nothing)
            len += snprintf(out + len, size - len, "%s%d.%ld-none",
                            j ? "_" : "-", wi.c[j].ltid, wi.c[j].seq);
        else
            len += snprintf(out + len, size - len, "%s%d.%ld-%d.%d",
                            j ? "_" : "-", wi.c[j].ltid, wi.c[j].seq,
                            wi.c[j].sender, wi.c[j].msgid);
}

/* NEWDIR must not be the recording forked, nor hold it: making NEWDIR
 * moves an older recording there away (logdir.c), and that would take the
 * recording being forked with it.  Checked before anything moves. */
static int check_newdir(const char *newdir, pg_err *err)
{
    char real[PATH_MAX];
    size_t n;

    if (!realpath(newdir, real))
        return 0; /* it does not exist yet: nothing would move */
    n = strlen(real);
    if (!strcmp(real, wi.from) || (!strncmp(wi.from, real, n) &&
                                   (wi.from[n] == '/' || !strcmp(real, "/"))))
        return refuse(err, "the new recording cannot go into %s, which holds "
                      "the recording it forks (%s): give another -o NEWDIR "
                      "(nothing was moved)", newdir, wi.from);
    return 0;
}

int top_whatif_add(const char *spec, pg_err *err)
{
    if (wi.n >= WHATIF_MAX)
        return refuse(err, "at most %d choices in one run", WHATIF_MAX);
    wi.c[wi.n++].spec = spec;
    return 0;
}

/* LTID:SEQ=none: the poll must have found a message, and PVM must be
 * able to have given it later (whatif.h). */
static int check_nothing(struct rc_run *run, struct choice *c, pg_err *err)
{
    int t, pos;

    if (find_event(run, c->ltid, c->seq, &t, &pos) < 0)
        return refuse(err, "%s has no event %ld of ltid %d", run->dir, c->seq,
                      c->ltid);
    switch (top_whatif_may_find_nothing(run, t, pos)) {
    case -1:
        return refuse(err, "out of memory");
    case 0:
        return refuse(err, "ltid %d event %ld cannot find nothing: it is not "
                      "a poll (pvm_nrecv, pvm_probe, a timed pvm_trecv) that "
                      "took a message, or the poll had seen that message's "
                      "send through another message (PVM had it there)",
                      c->ltid, c->seq);
    }
    c->task = t, c->pos = pos, c->m = -1;
    return 0;
}

/* SENDER:MSGID: one of the receive's alternatives, not the one taken. */
static int check_alternative(struct rc_run *run, struct choice *c,
                             pg_err *err)
{
    struct rc_race race;
    int cc;

    if (find_race(run, c->ltid, c->seq, &race, err) < 0)
        return -1;
    cc = find_alt(run, &race, c->sender, c->msgid, &c->m, err);
    if (cc == 0 && c->m == race.took)
        cc = refuse(err, "ltid %d event %ld took %d:%d when recorded: choose "
                    "another of its alternatives", c->ltid, c->seq, c->sender,
                    c->msgid);
    c->task = race.task, c->pos = race.pos, c->at_poll = race.took < 0;
    free(race.alts);
    return cc;
}

/* Choice j, checked against the race analysis of its receive. */
static int check_choice(struct rc_run *run, int j, pg_err *err)
{
    struct choice *c = &wi.c[j];
    size_t len = strlen(wi.choice);
    char end;
    int k;

    if (sscanf(c->spec, "%d:%ld=none%c", &c->ltid, &c->seq, &end) == 2 &&
        !strcmp(strchr(c->spec, '=') + 1, "none"))
        c->nothing = 1;
    else if (sscanf(c->spec, "%d:%ld=%d:%d%c", &c->ltid, &c->seq,
                    &c->sender, &c->msgid, &end) != 4)
        return refuse(err, "the choice \"%s\" is not LTID:SEQ=SENDER:MSGID "
                      "or LTID:SEQ=none (as pangaea -races names receives "
                      "and messages)", c->spec);
    for (k = 0; k < j; k++)
        if (wi.c[k].ltid == c->ltid)
            return refuse(err, "two choices for ltid %d: a task's second "
                          "forced receive would depend on its first (fork "
                          "the what-if's recording instead, as -explore "
                          "does)", c->ltid);
    if (c->nothing ? check_nothing(run, c, err) < 0
                   : check_alternative(run, c, err) < 0)
        return -1;
    snprintf(wi.choice + len, sizeof wi.choice - len, "%s%s", j ? ", " : "",
             c->spec);
    return 0;
}

/* Whether choice k still holds once choice j's receive is forced (one:
 * what j reaches): 0, or -1 and err. */
static int independent(int j, int k, const int *one, const struct rc_run *run,
                       pg_err *err)
{
    const struct rc_msg *x = wi.c[k].m >= 0 ? &run->msg[wi.c[k].m] : NULL;

    if (k == j)
        return 0;
    if (one[wi.c[k].task] <= wi.c[k].pos)
        return refuse(err, "%s depends on %s (its receive follows that one): "
                      "fork the what-if's recording instead, as -explore "
                      "does", wi.c[k].spec, wi.c[j].spec);
    if (x && x->src >= 0 && one[x->src] <= x->src_pos)
        return refuse(err, "the message %s chooses is sent after %s's "
                      "receive: fork the what-if's recording instead",
                      wi.c[k].spec, wi.c[j].spec);
    return 0;
}

/* The stops: per task the earliest event any choice reaches; refuses
 * choices that depend on each other. */
static int plan_stops(struct rc_run *run, int *min, pg_err *err)
{
    int *one = malloc((run->ntasks + 1) * sizeof *one), j, k, t, cc = 0;

    if (!one)
        return refuse(err, "out of memory");
    for (t = 0; t < run->ntasks; t++)
        min[t] = run->tasks[t].n + 1;
    for (j = 0; j < wi.n && cc == 0; j++) {
        if (reach_from(run, wi.c[j].task, wi.c[j].pos, one) < 0)
            cc = refuse(err, "out of memory");
        for (k = 0; k < wi.n && cc == 0; k++)
            cc = independent(j, k, one, run, err);
        for (t = 0; t < run->ntasks; t++)
            if (one[t] < min[t])
                min[t] = one[t];
    }
    free(one);
    return cc;
}

/* The choices checked, the stops and the plan made, from a loaded run. */
static int plan(struct rc_run *run, char *newdir, size_t size, pg_err *err)
{
    int j, cc = 0, *min;

    for (j = 0; j < wi.n; j++)
        if (check_choice(run, j, err) < 0)
            return -1;
    if (!(min = malloc((run->ntasks + 1) * sizeof *min)))
        return refuse(err, "out of memory");
    if (plan_stops(run, min, err) < 0)
        cc = -1;
    if (cc == 0 && !*newdir)
        default_newdir(wi.from, newdir, size);
    if (cc == 0 && (check_newdir(newdir, err) < 0 ||
                    make_plan(run, min, err) < 0))
        cc = -1;
    free(min);
    return cc;
}

int top_whatif_parse(struct top_opts *o, const char *from, char *newdir,
                     size_t size, pg_err *err)
{
    struct rc_run run;
    int cc;

    if (!realpath(from, wi.from))
        return refuse(err, "no recording to fork: %s does not exist", from);
    if (rc_load_logs(&run, wi.from, err) < 0)
        return refuse(err, "%s", err->msg);
    cc = plan(&run, newdir, size, err);
    rc_free(&run);
    if (cc < 0)
        return -1;
    o->whatif = wi.c[0].spec;
    o->whatif_plan = wi.plan; /* an MPI run writes it itself (mpi_run.c), */
    o->whatif_said = wi.said; /* says it, */
    o->whatif_done = top_whatif_done; /* and reports through this */
    return 0;
}

/* The part a what-if follows read the recording's input: ltid 1 reads it
 * again, from a copy in the new recording (stdin_fwd.c gives it as in a
 * replay), whose replay then reads that copy.  No input recorded: none. */
static int copy_input(const struct top_opts *o, pg_err *err)
{
    char from[PATH_MAX + 32], copy[PATH_MAX + 32];
    FILE *in, *out;
    int fail;

    snprintf(from, sizeof from, "%s/pangaea-stdin", wi.from);
    snprintf(copy, sizeof copy, "%s/pangaea-stdin", o->logdir);
    if (!(in = fopen(from, "rb")))
        return 0;
    if (!(out = fopen(copy, "wbx"))) {
        fclose(in);
        return pg_err_set(err, "-whatif: cannot make %s", copy);
    }
    fail = pg_copy_stream(out, in) < 0;
    fclose(in);
    if (fclose(out) != 0 || fail)
        return pg_err_set(err, "-whatif: cannot copy the recorded input %s "
                          "to %s", from, copy);
    return 0;
}

/* The recording forked, as a replay of it sees it. */
static struct top_opts forked(const struct top_opts *o)
{
    struct top_opts old = *o;

    snprintf(old.logdir, sizeof old.logdir, "%s", wi.from);
    old.mode = PANGAEA_REPLAY;
    return old;
}

int top_whatif_check(const struct top_opts *o, pg_err *err)
{
    struct top_opts old = forked(o);

    if (!strcmp(wi.from, o->logdir))
        return pg_err_set(err, "-whatif: the new recording cannot go into "
                          "the recording it forks (%s): give -o NEWDIR",
                          wi.from);
    return top_check_recording(&old, err);
}

int top_whatif_start(struct top_opts *o, pg_err *err)
{
    struct top_opts old = forked(o);
    char path[PATH_MAX + 32];
    struct top_file plan;
    FILE *f;

    if (top_check_hosts(&old, err) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/whatif.plan", o->logdir);
    if (!(f = top_file_begin(&plan, path, err)) || /* no link followed */
        top_file_end(&plan, fputs(wi.plan, f) >= 0, err) < 0)
        return -1;
    fputs(wi.said, stderr);
    setenv(PG_ENV_WHATIF, path, 1);
    return copy_input(o, err);
}

/* The program's arguments after it, as a shell reads them back: the
 * replay command printed must run as printed (a replay without them
 * diverges). */
static void print_args(char **args)
{
    const char *p;

    for (; args && *args; args++) {
        p = *args;
        if (*p && !p[strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                               "QRSTUVWXYZ0123456789-_./=:,+@%")]) {
            fprintf(stderr, " %s", p);
            continue;
        }
        fputs(" '", stderr);
        for (; *p; p++)
            *p == '\'' ? fputs("'\\''", stderr) : fputc(*p, stderr);
        fputc('\'', stderr);
    }
}

int top_whatif_done(const struct top_opts *o, int status)
{
    fprintf(stderr, "pangaea: what-if run (%s forced) ended with status %d"
            "%s; recorded in %s (replay: pangaea -replay -logdir %s %s",
            wi.choice, status,
            status == 0 ? "" : status == TOP_EXIT_FAILED
                                   ? " (a task failed or ended abnormally)"
                                   : status == TOP_EXIT_DIVERGED
                                         ? " (it left its recording before "
                                           "the forced receive)"
                                         : "",
            o->logdir, o->logdir, o->program);
    print_args(o->args);
    fputs(")\n", stderr);
    return status;
}
