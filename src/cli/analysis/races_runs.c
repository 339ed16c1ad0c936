/*
 * races_runs.c - a race's message alternatives as runs of a sender's
 * consecutive message ids, and as what changed since the race before:
 * the forms the JSON reports (races_out.c) write them in.
 *
 * Design.  A report lists each race's message alternatives sender by
 * sender, a sender's consecutive message ids one run: a queue that lost
 * per-pair order is one run, so a race costs about its senders.  Where a
 * race has hundreds of senders (a master taking 999 workers' messages
 * with pvm_recv(-1,-1): each race offers the head of every worker's
 * queue), that is still ~6 KB a receive, and its next race offers almost
 * the same: only the sender it took moved on.  So a race whose previous
 * race in the report is of the same task may be written as the senders
 * whose runs changed (a sender gone: no runs), when that is short: the
 * race has at least RC_RUNS_CHANGE_MIN senders and a quarter of them or
 * fewer changed.  A small race is always written in full (a person reads
 * those), and a reader that keeps the last race's runs per sender gets
 * every race back (tests/e2e/races_json.py).
 *
 * The comparison is a merge of the two races' senders in rising ltid
 * order, the finder's order (its senders by task index, which rc_load
 * numbers in ltid order).  A race whose senders come in another order
 * (an MPI completion's rivals follow the senders) is written in full:
 * the change form is only ever a shorter spelling, never a guess.
 */
#include "races.h"

#include <stdlib.h>
#include <string.h>

#include "pg_grow.h"

/* Room in s for every alternative of r as a run of its own. */
static int room_for(struct rc_runs *s, const struct rc_race *r)
{
    s->n = 0, s->nsenders = 0, s->ordered = 1, s->nnotices = 0;
    return pg_grow(&s->run, &s->cap, (size_t)r->nalts + 1, sizeof *s->run);
}

/* Alternative m into s, whose runs end at *w: the run before it
 * extended when it is the same sender's next message id (of the same
 * tag, by_tag), else a run. */
static inline void put(struct rc_runs *s, struct rc_run_of **w,
                       const struct rc_alt_of *m, int by_tag)
{
    struct rc_run_of *l = *w - 1;

    if (*w > s->run && m->ltid == l->ltid) {
        if (m->msgid == l->last + 1 && (!by_tag || m->tag == l->tag)) {
            l->last = m->msgid; /* the sender's next: the same run */
            return;
        }
    } else {
        if (*w > s->run && m->ltid < l->ltid)
            s->ordered = 0; /* not the finder's order: no merge */
        s->nsenders++;
    }
    *(*w)++ = (struct rc_run_of){ m->ltid, m->msgid, m->msgid, m->tag };
}

/* A race's every alternative goes through this loop (a deep queue at
 * 1,000 tasks has 999 a race, 10^7 events 5 x 10^9 in all): where each
 * kind's runs end is kept in locals (w0, w1). */
int rc_runs_of(const struct rc_run *run, const struct rc_race *r, int by_tag,
               struct rc_runs s[2])
{
    const struct rc_alt_of *of = rc_found == r ? rc_found_of : NULL, *m;
    struct rc_alt_of one;
    struct rc_run_of *w0, *w1;
    int i, nn = 0;

    s[0].task = s[1].task = -1;
    if (room_for(&s[0], r) < 0 || room_for(&s[1], r) < 0)
        return -1;
    w0 = s[0].run, w1 = s[1].run;
    for (i = 0; i < r->nalts; i++) {
        m = of ? &of[i] : (one = rc_alt_of_msg(run, r->alts[i].msg), &one);
        if (m->ltid < 0)
            nn++;
        else if (!r->alts[i].fifo_broken)
            put(&s[0], &w0, m, by_tag);
        else
            put(&s[1], &w1, m, by_tag);
    }
    s[0].n = (size_t)(w0 - s[0].run), s[1].n = (size_t)(w1 - s[1].run);
    s[0].nnotices = nn;
    s[0].task = s[1].task = r->task;
    return 0;
}

/* The end of the sender's runs that start at run i of s. */
static size_t sender_end(const struct rc_runs *s, size_t i)
{
    size_t j = i;

    while (j < s->n && s->run[j].ltid == s->run[i].ltid)
        j++;
    return j;
}

/* Whether runs [i, ie) of a and [j, je) of b are the same. */
static int same_runs(const struct rc_runs *a, size_t i, size_t ie,
                     const struct rc_runs *b, size_t j, size_t je)
{
    if (ie - i != je - j)
        return 0;
    for (; i < ie; i++, j++)
        if (a->run[i].first != b->run[j].first ||
            a->run[i].last != b->run[j].last || a->run[i].tag != b->run[j].tag)
            return 0;
    return 1;
}

static int run_eq(const struct rc_run_of *a, const struct rc_run_of *b)
{
    return memcmp(a, b, sizeof *a) == 0; /* four ints, no padding */
}

/* From runs *i of prev and *j of cur on (each a sender's first), past
 * every sender whose runs are the same in both, a run at a time (most
 * are: a deep queue's next race moved one sender on), to the first run
 * of the first sender that differs in each. */
static void skip_same(const struct rc_runs *prev, const struct rc_runs *cur,
                      size_t *i, size_t *j)
{
    size_t a = *i, b = *j;
    int sp;

    while (a < prev->n && b < cur->n && run_eq(&prev->run[a], &cur->run[b]))
        a++, b++;
    if (a > *i) { /* the last sender passed: all of it the same? */
        sp = prev->run[a - 1].ltid;
        if ((a < prev->n && prev->run[a].ltid == sp) ||
            (b < cur->n && cur->run[b].ltid == sp))
            while (a > *i && prev->run[a - 1].ltid == sp)
                a--, b--; /* no: back to its first run, in both */
    }
    *i = a, *j = b;
}

/* Sender ltid's runs now (n 0: gone) as change k of cur.  0, or -1 when
 * out of memory. */
static int note(struct rc_runs *cur, int k, int ltid, size_t at, size_t n)
{
    if (pg_grow(&cur->chg, &cur->cap_chg, (size_t)k + 1, sizeof *cur->chg) < 0)
        return -1;
    cur->chg[k] = (struct rc_change){ ltid, at, n };
    return 0;
}

/* The senders whose runs differ from prev to cur, in cur->chg in ltid
 * order, until more than `most` do.  Their number (most + 1: more), or
 * -1 when out of memory. */
static int changes(const struct rc_runs *prev, struct rc_runs *cur, int most)
{
    size_t i = 0, j = 0, ie, je;
    int n = 0, d;

    for (skip_same(prev, cur, &i, &j); (i < prev->n || j < cur->n) &&
         n <= most; skip_same(prev, cur, &i, &j)) {
        ie = i < prev->n ? sender_end(prev, i) : i;
        je = j < cur->n ? sender_end(cur, j) : j;
        d = i == prev->n ? 1 : j == cur->n ? -1
            : (prev->run[i].ltid > cur->run[j].ltid) -
              (prev->run[i].ltid < cur->run[j].ltid);
        if (d < 0) { /* a sender gone */
            if (note(cur, n++, prev->run[i].ltid, j, 0) < 0)
                return -1;
            i = ie;
        } else if (d > 0 || !same_runs(prev, i, ie, cur, j, je)) {
            if (note(cur, n++, cur->run[j].ltid, j, je - j) < 0)
                return -1;
            j = je;
            if (d == 0)
                i = ie;
        } else {
            i = ie, j = je;
        }
    }
    return n;
}

int rc_runs_as_change(const struct rc_runs *prev, struct rc_runs *cur)
{
    int most = cur->nsenders / 4;

    cur->nchg = 0;
    if (prev->task < 0 || prev->task != cur->task || !prev->ordered ||
        !cur->ordered || cur->nsenders < RC_RUNS_CHANGE_MIN)
        return 0;
    cur->nchg = changes(prev, cur, most);
    if (cur->nchg < 0)
        return cur->nchg = 0, -1;
    return cur->nchg <= most;
}

void rc_runs_swap(struct rc_runs *a, struct rc_runs *b)
{
    struct rc_runs t = *a;

    *a = *b, *b = t;
}

void rc_runs_free(struct rc_runs *s)
{
    free(s->run), free(s->chg);
    *s = (struct rc_runs){ .task = -1 };
}
