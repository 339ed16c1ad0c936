/*
 * races_find.c - which receives race (races.h), once the clocks are known.
 *
 * For a receive R, event number i of task p, asking for (source, tag), the
 * potential matches are the messages addressed to p that match the filter,
 * are in R's context (an MPI communicator, a PVM context: format 7; a
 * receive never takes another context's message, and a log that does not
 * say has every event in context 0), were not taken by an earlier
 * receive of p, and whose send does not happen after R: the send had not
 * seen event i of p (vcd < i).  Where PVM keeps per-pair order (per
 * context, as MPI's non-overtaking rule is per communicator) only each
 * sender's earliest such message counts,
 * since PVM would hand that one over first; a receiver that set
 * PvmRouteDirect itself (a <route value="3"> before R) loses that order,
 * and then every such message counts, the later ones marked "FIFO broken"
 * (docs/pvm-notes.md: inversions seen when the receiver switches).
 * A receive that took a sender's later message while that sender's
 * earlier one (which it accepts) was there is flagged: under per-pair
 * order PVM never does that, so the recording did not come from PVM's
 * own order (an edited log, or a tool that broke it).
 * A receive or a poll that found a message races with two or more; a poll
 * that found nothing (its <poll> event) with one or more.  Exit notices
 * are messages from the daemon, "sent" at the end of the task that
 * exited, each on its own (no order among them is assumed).  A receive
 * through the program's own matcher (pvm_recvf), or from a log that does
 * not say what it asked for (versions 1, 2), is judged conservatively: as if
 * it took any source and tag, and marked so.  Probes take nothing: the
 * receive after a probe can take another message than the one probed.
 * A failed test of an MPI send's request takes nothing either: an older
 * MPI recording's <poll> of one (call MPI_Isend) is no receive at all.
 * An MPI_Irecv completed by MPI_Waitany, Testany, Waitsome or Testsome
 * (format 8: its `rivals`, the call's other receives still pending) races
 * with what those rivals took: MPI could have completed one of them first
 * when its message's send does not follow the completion (vcd < i) and
 * the rival completed later; of rivals that took messages of one sender,
 * tag and context, the one posted first, and none of the sender, tag and
 * context the completion took itself (MPI matches in posting order: that
 * sender's earliest goes first), as a sender's earliest message above.
 *
 * Cost.  Messages to p are kept per sender in send order (only the
 * senders p has: no tasks x tasks table); a cursor per sender skips those
 * taken already, so a receive costs one step per sender plus the
 * messages it skips by tag: linear in practice.  Each sender's cursor
 * keeps beside it what a receive asks of that message (when it was
 * taken, its clock, tag and context): a receive reads its receiver's
 * senders as one array in order, a few ns a sender at 1,000 tasks, and
 * reaches into run->msg (a random place a sender) only to move a cursor
 * or when the head does not answer (another tag, a direct route).  A race
 * is "first" when no other racing receive happens before it: a second
 * pass (rc_firsts) carries a bit along the clocks' snapshots, whether a
 * task has heard of a race, so R is first when none came to it.
 * A report need not keep every race's alternatives (a deep queue at
 * 1,000 tasks has up to 999 a race): rc_find_bare keeps the races
 * without them, and rc_find_each examines every receive again, in the
 * same order, handing each race over with its alternatives.
 * rc_find_counts is that second walk alone, for a view that needs no
 * first marks and only each race's count of alternatives (the Perfetto
 * export): one walk, nothing kept, no alternative copied out.  A walk that
 * needs to know only that a receive races (rc_find_bare's: the first
 * marks need no alternatives) stops reading its senders at the fewest
 * candidates that make a race (lazy): a deep queue at 1,000 tasks races
 * at its first sender, not after its 999th.  -min's walk down a task
 * (rc_back_until) stops too, at the first alternative it must keep the
 * receive for; where none is, it reads every sender, as before.
 * rc_find_each_split is rc_find_each in two threads, the earlier and the
 * later races at once (-races' text report, on two cores): a walk can
 * start at any race's receive, since a sender's cursor moves past what
 * was taken before on its first read; the walks share the run read-only
 * (the chains are made, the postings sorted, before the threads start).
 * rc_find_at examines one receive only: linear in messages, for -whatif
 * (a deep queue's every race is 10^8 alternatives at 256 tasks), and
 * without clocks when given what follows the receive (the what-if's
 * reach, which it computes anyway): a send follows it exactly when the
 * clocks would say so (tests/unit/test_races.c holds the two equal).
 */
#include "races.h"

_Static_assert(sizeof(struct rc_race) == 32, "races.h: a race is 32 bytes");

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
#include "pg_grow.h"
#include "pg_log.h"

#define ROUTE_DIRECT 3 /* PvmRouteDirect */

struct sender {       /* the messages of one sender to one receiver */
    int src, head, cur; /* cur: the first not taken yet, -1 none */
    /* cur's message as a scan asks it (set_cur): each receive reads its
     * senders' array in order, not each head at its place in run->msg */
    int taken_pos, vcd, ctx;
    struct rc_alt_of of; /* and as a view asks it (rc_found_alt) */
};

struct finder {
    struct rc_run *run;
    struct sender *snd; /* by receiver, then sender (task index) */
    int *snd_first;     /* per receiver: its senders snd[first .. next's) */
    int *nhead;         /* per dst: its first notice */
    struct rc_alt *cand;  /* a receive's candidates: not the one it took */
    struct rc_alt_of *cand_of; /* each's: what the views ask of them */
    int ncand;
    size_t cap, cap_of;
    struct rc_race *races;
    int nraces;
    size_t capr;
    struct rc_alt *alts;  /* every race's alternatives, in race order */
    size_t nalts, capalts;
    int bare;             /* keep no alternatives (rc_find_bare) */
    int counts;           /* a race's alternatives counted, not listed
                             (bare, rc_find_counts) */
    int of;               /* what the views ask of each alternative is
                             handed over (rc_find_each) */
    /* lazy: a receive's scan stops once it is known to race (need
     * candidates besides the one it took) and, with reach, once reach
     * said 1 of an alternative (reached); the race's alternatives are
     * then those found so far, its out_of_order not computed */
    int lazy, took, nother, need, reached;
    int have;             /* a candidate was the message it took */
    int (*reach)(const struct rc_run *, int msg, int fifo_broken, void *);
    void *reach_arg;
    int hint;  /* with reach: the sender slot whose alternative reach last
                  said 1 of, read first (the next receive's is most often
                  the same sender's) */
    /* rc_find_each: each race is handed over as found, with its
     * alternatives, and known[i]'s first mark; none is kept */
    int (*each)(struct rc_run *, const struct rc_race *, void *);
    void *arg;
    const struct rc_race *known;
    int nknown;
    int half;             /* one of a split walk's two halves: it
                             writes nothing of the run's */
    int from_p, from_pos; /* a half's receives: from this one (task, */
    int to_p, to_pos;     /* event) to before that one */
};

_Thread_local const struct rc_race *rc_found;
_Thread_local const struct rc_alt_of *rc_found_of;

/* Sender q's cursor to message m (-1: past its last), and what a scan
 * asks of it kept beside it. */
static void set_cur(const struct rc_run *run, struct sender *q, int m)
{
    const struct rc_msg *x = m >= 0 ? &run->msg[m] : NULL;

    q->cur = m;
    if (x) {
        q->taken_pos = x->taken_pos, q->vcd = x->vcd;
        q->ctx = rc_msg_ctx(run, x), q->of = rc_alt_of_msg(run, m);
    }
}

/* The number of (sender, destination) pairs: the messages of order[0 ..
 * at[n-1]) grouped by destination, each destination's by sender. */
static int count_pairs(const struct rc_run *run, const int *order, int nord)
{
    int k, n = 0;

    for (k = 0; k < nord; k++)
        n += k == 0 || run->msg[order[k]].dst != run->msg[order[k - 1]].dst ||
             run->msg[order[k]].src != run->msg[order[k - 1]].src;
    return n;
}

/* Chains the messages of each (sender, destination) pair in send order,
 * and the notices of each destination; each destination's senders in
 * one array: memory linear in messages, whatever the task count.  The
 * message entries are in the order the logs were read (sender by sender,
 * each in send order), which a stable sort by destination keeps. */
static int lists(struct finder *f)
{
    struct rc_run *run = f->run;
    int n = run->ntasks, *order, *at, i, d, k, nsnd = 0, prev;
    struct rc_msg *m;

    f->snd_first = calloc((size_t)n + 1, sizeof *f->snd_first);
    f->nhead = malloc(((size_t)n + 1) * sizeof *f->nhead);
    at = calloc((size_t)n + 1, sizeof *at);
    order = malloc(((size_t)run->nmsg + 1) * sizeof *order);
    if (!f->snd_first || !f->nhead || !at || !order)
        return free(at), free(order), -1;
    memset(f->nhead, -1, ((size_t)n + 1) * sizeof *f->nhead);
    for (i = run->nmsg - 1; i >= 0; i--) { /* backwards: heads come out first */
        m = &run->msg[i];
        if (m->dst >= 0 && m->src < 0) {
            m->next = f->nhead[m->dst];
            f->nhead[m->dst] = i;
        } else if (m->dst >= 0) {
            at[m->dst + 1]++;
        }
    }
    for (d = 0; d < n; d++)
        at[d + 1] += at[d];
    for (i = 0; i < run->nmsg; i++)
        if ((m = &run->msg[i])->dst >= 0 && m->src >= 0)
            order[at[m->dst]++] = i; /* at[d]: the end of d's now */
    f->snd = malloc(((size_t)count_pairs(run, order, n ? at[n - 1] : 0) + 1) *
                    sizeof *f->snd);
    if (!f->snd)
        return free(at), free(order), -1;
    for (d = 0, k = 0; d < n; d++) {
        f->snd_first[d] = nsnd;
        for (prev = -1; k < at[d]; k++) {
            m = &run->msg[order[k]];
            m->next = -1;
            if (prev >= 0 && run->msg[prev].src == m->src)
                run->msg[prev].next = order[k];
            else {
                f->snd[nsnd] = (struct sender){ m->src, order[k], -1 };
                set_cur(run, &f->snd[nsnd++], order[k]);
            }
            prev = order[k];
        }
    }
    f->snd_first[n] = nsnd;
    free(at), free(order);
    return 0;
}

/* Room for one more candidate (and what the views ask of it). */
static int grow_cand(struct finder *f)
{
    if (pg_grow(&f->cand, &f->cap, (size_t)(f->ncand) + 1, sizeof *f->cand) < 0)
        return -1;
    if (f->of && pg_grow(&f->cand_of, &f->cap_of, (size_t)(f->ncand) + 1,
                         sizeof *f->cand_of) < 0)
        return -1;
    return 0;
}

static inline int room(struct finder *f)
{
    if ((size_t)f->ncand < f->cap && (!f->of || (size_t)f->ncand < f->cap_of))
        return 0;
    return grow_cand(f);
}

/* A candidate, what a view asks of it in of when handing races over
 * (one a sender and receive in a deep queue: written whole).  The
 * message the receive took is noted (have), not kept: the candidates
 * are then the race's alternatives as they are, handed over in place. */
static inline int add_of(struct finder *f, int msg, int fifo_broken,
                  const struct rc_alt_of *of)
{
    if (msg == f->took) {
        f->have = 1;
        return 0;
    }
    if (room(f) < 0)
        return -1;
    if (f->of)
        f->cand_of[f->ncand] = *of;
    f->cand[f->ncand++] = (struct rc_alt){ (unsigned)msg,
                                           (unsigned)fifo_broken };
    f->nother++;
    if (f->reach && !f->reached &&
        f->reach(f->run, msg, fifo_broken, f->reach_arg))
        f->reached = 1;
    return 0;
}

/* Whether a lazy scan knows enough: the receive races, and reach (if
 * any) has said 1. */
static inline int enough(const struct finder *f)
{
    return f->lazy && f->nother >= f->need && (!f->reach || f->reached);
}

/* A candidate read from its message entry. */
static int add(struct finder *f, int msg, int fifo_broken)
{
    struct rc_alt_of of = { 0 };

    if (f->of)
        of = rc_alt_of_msg(f->run, msg);
    return add_of(f, msg, fifo_broken, &of);
}

/* Sender q's messages from its cursor on, for from_sender. */
static int from_queue(struct finder *f, struct sender *q, int pos, int atag,
                      int ctx, int direct)
{
    const struct rc_msg *msg = f->run->msg;
    int m, found = 0;

    for (m = q->cur; m >= 0; m = msg[m].next) {
        if (msg[m].taken_pos && msg[m].taken_pos < pos)
            continue;
        if (msg[m].vcd >= pos)
            break; /* sent after R, and so is everything after it */
        if (atag >= 0 && rc_msg_tag(f->run, &msg[m]) != atag)
            continue;
        if (!rc_ctx_match(ctx, rc_msg_ctx(f->run, &msg[m])))
            continue; /* another context: never this receive's */
        if (add(f, m, found && direct) < 0)
            return -1;
        found = 1;
        if (!direct)
            break;
    }
    return 0;
}

/* The messages sender q could give receive `pos` of its receiver, which
 * asked for tag atag (-1 any) in context index ctx (races.h).  Most
 * often its head answers (a deep queue: one message a sender), read from
 * q itself; the queue is walked only past messages taken before, or
 * when the head does not match, or every message counts (direct). */
static inline int from_sender(struct finder *f, struct sender *q, int pos,
                              int atag, int ctx, int direct)
{
    const struct rc_msg *msg = f->run->msg;
    int m;

    if (q->cur >= 0 && q->taken_pos && q->taken_pos < pos) {
        for (m = q->cur; m >= 0 && msg[m].taken_pos && msg[m].taken_pos < pos;
             m = msg[m].next)
            ;
        set_cur(f->run, q, m); /* taken before: never again a match */
    }
    if (q->cur < 0 || q->vcd >= pos)
        return 0; /* sent after R, and so is everything after it */
    if (!direct && (atag < 0 || q->of.tag == atag) &&
        rc_ctx_match(ctx, q->ctx))
        return add_of(f, q->cur, 0, &q->of);
    return from_queue(f, q, pos, atag, ctx, direct);
}

/* Exit and host notices p took: each a message of its own. */
static int notices(struct finder *f, int p, int pos, int afrom, int atag)
{
    const struct rc_run *run = f->run;
    const struct rc_msg *m;
    int i;

    if (afrom != -1)
        return 0; /* notices come from the daemon, not from a task */
    for (i = f->nhead[p]; i >= 0; i = m->next) {
        m = &run->msg[i];
        if ((m->taken_pos && m->taken_pos < pos) ||
            (atag >= 0 && rc_msg_tag(run, m) != atag))
            continue;
        /* vcd: what the ended task knew of p at its end (races_clock.c) */
        if ((m->notice_of < 0 || m->vcd < pos) && add(f, i, 0) < 0)
            return -1;
    }
    return 0;
}

/* Hands race r over as found (rc_find_each): its alternatives where they
 * were put, its first mark the first pass's (none without a first pass:
 * rc_find_counts); they are not kept. */
static int hand_over(struct finder *f, struct rc_race *r)
{
    int rc;

    if (f->known && (f->nraces >= f->nknown ||
                     f->known[f->nraces].task != r->task ||
                     f->known[f->nraces].pos != r->pos))
        return -1; /* not the races of the first pass */
    r->alts = f->counts ? NULL : f->cand; /* the candidates, in place */
    r->first = f->known ? f->known[f->nraces].first : 0;
    f->nraces++;
    rc_found = r; /* this thread's: a split walk hands over in two */
    rc_found_of = f->of ? f->cand_of : NULL;
    rc = f->each(f->run, r, f->arg);
    rc_found = NULL, rc_found_of = NULL;
    return rc;
}

/* Keeps a race; its alternatives (the candidates) go to the one array
 * of all races (an offset until rc_find is done: the array moves as it
 * grows), or are counted only (counts), or it is handed over (each). */
static int keep_race(struct finder *f, int p, int pos, int took, int cons,
                     int ooo)
{
    struct rc_race one, *r = &one;
    int keep = !f->each && !f->counts;

    if ((!f->each && pg_grow(&f->races, &f->capr, (size_t)(f->nraces) + 1,
                             sizeof *f->races) < 0) ||
        (keep && pg_grow(&f->alts, &f->capalts,
                         f->nalts + (size_t)f->ncand + 1,
                         sizeof *f->alts) < 0))
        return -1;
    if (!f->each)
        r = &f->races[f->nraces];
    memset(r, 0, sizeof *r);
    r->task = p, r->pos = pos, r->took = took, r->conservative = cons;
    r->out_of_order = ooo;
    r->nalts = f->counts ? f->nother : f->ncand;
    if (f->each)
        return hand_over(f, r);
    r->alts = NULL;
    if (keep) {
        r->alts = (struct rc_alt *)(uintptr_t)f->nalts; /* resolved at the end */
        memcpy(f->alts + f->nalts, f->cand, (size_t)f->ncand * sizeof *f->cand);
        f->nalts += (size_t)f->ncand;
    }
    f->nraces++;
    return 0;
}

/* The receive took message `took`, which is not among the candidates:
 * a candidate of the same sender (its earliest, still queued) means it
 * was taken out of that sender's order.  That candidate, or -1. */
static int earlier_of_sender(const struct finder *f, int took)
{
    const struct rc_msg *msg = f->run->msg;
    int i;

    if (msg[took].src < 0)
        return -1;
    for (i = 0; i < f->ncand; i++)
        if (msg[f->cand[i].msg].src == msg[took].src)
            return f->cand[i].msg;
    return -1;
}

/* The first of p's senders a receive from afrom (-1: anyone) asks: the
 * senders are in task order, which is ltid order. */
static int first_sender(const struct finder *f, int p, int afrom)
{
    int lo = f->snd_first[p], hi = f->snd_first[p + 1];

    while (afrom != -1 && lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (f->run->tasks[f->snd[mid].src].ltid < afrom)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* An older MPI recording's <poll> of failed tests of a send's request
 * (log_table.h): no receive, since a send's test takes no message. */
static int send_test(const struct rc_ev *e)
{
    return e->kind == PG_EV_POLL && e->call == PG_MSG_CALL_ISEND;
}

/* pg_events.def's races trait says which kinds are receives. */
int rc_examined(const struct rc_ev *e)
{
    const pg_evdesc *d = pg_ev_desc(e->kind);

    return d && d->race_receive && !send_test(e);
}

/* Event pos of task p if there is one and it is examined, else NULL. */
static const struct rc_ev *examined_at(const struct rc_run *run, int p,
                                       int pos)
{
    const struct rc_ev *e;

    if (p < 0 || p >= run->ntasks || pos < 1 || pos > run->tasks[p].n)
        return NULL;
    e = RC_EV(run, p, pos);
    return rc_examined(e) ? e : NULL;
}

static int cmp_post(const void *a, const void *b)
{
    const struct rc_post *x = a, *y = b;

    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return (x->posted > y->posted) - (x->posted < y->posted);
}

static int cmp_posted(const void *a, const void *b)
{
    const struct rc_post *x = a, *y = b;

    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return (x->posted > y->posted) - (x->posted < y->posted);
}

/* The first entry of a sorted array at or after key (by cmp). */
static size_t lower(const struct rc_post *a, size_t n, const struct rc_post *k,
                    int (*cmp)(const void *, const void *))
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (cmp(&a[mid], k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Postings by task and number, rivals by task, completion and number:
 * sorted once (the load appends them task by task). */
static void sort_posts(struct rc_run *run)
{
    if (run->posts_sorted)
        return;
    qsort(run->posts, run->nposts, sizeof *run->posts, cmp_posted);
    qsort(run->rivals, run->nrivals, sizeof *run->rivals, cmp_post);
    run->posts_sorted = 1;
}

/* Whether message c is m, or of m's sender, tag and context. */
static int like(const struct rc_run *run, int c, int m)
{
    const struct rc_msg *x = &run->msg[m], *y = &run->msg[c];

    return c == m || (y->src == x->src && y->src >= 0 &&
                      rc_msg_tag(run, y) == rc_msg_tag(run, x) &&
                      rc_msg_ctx(run, y) == rc_msg_ctx(run, x));
}

/* Whether a candidate, or the message taken, already is a message of m's
 * sender, tag and context (a sender's earliest is offered once). */
static int have_like(const struct finder *f, int m)
{
    int i;

    if (f->took >= 0 && like(f->run, f->took, m))
        return 1;
    for (i = 0; i < f->ncand; i++)
        if (like(f->run, f->cand[i].msg, m))
            return 1;
    return 0;
}

/* The messages the rivals of completion pos of task p took (format 8),
 * where MPI could have completed that rival first; `took` is the
 * completion's own (never its own alternative through a rival). */
static int rivals(struct finder *f, int p, int pos, int took)
{
    struct rc_run *run = f->run;
    struct rc_post k = { p, 0, pos }, *r, *c;
    size_t i, j;
    int m;

    if (!run->nrivals)
        return 0;
    sort_posts(run);
    for (i = lower(run->rivals, run->nrivals, &k, cmp_post);
         i < run->nrivals && (r = &run->rivals[i])->task == p &&
         r->pos == pos; i++) {
        k.posted = r->posted;
        j = lower(run->posts, run->nposts, &k, cmp_posted);
        if (j >= run->nposts || (c = &run->posts[j])->task != p ||
            c->posted != r->posted || c->pos <= pos)
            continue; /* never completed, or before: no rival then */
        m = RC_EV(run, p, c->pos)->a;
        if (m < 0 || m == took || run->msg[m].vcd >= pos || have_like(f, m))
            continue; /* its send follows the completion: not then */
        if (add(f, m, 0) < 0)
            return -1;
    }
    return 0;
}

/* The candidates of p's senders for receive pos, in task order; with
 * reach, from the hint's slot on, round to the one before it (a wildcard
 * receive's: reach asks of each alternative alone, so any order finds
 * one it says 1 of); a lazy scan stops when it knows enough. */
static int senders(struct finder *f, int p, int pos, int afrom, int atag,
                   int ctx, int direct)
{
    int lo = first_sender(f, p, afrom), hi = f->snd_first[p + 1];
    int q = f->reach && afrom == -1 && f->hint > lo && f->hint < hi
                ? f->hint : lo;
    int n, was;

    if (afrom == -1 && !f->lazy && !f->reach) { /* every sender, in order */
        for (; q < hi; q++)
            if (from_sender(f, &f->snd[q], pos, atag, ctx, direct) < 0)
                return -1;
        return 0;
    }
    for (n = hi - lo; n > 0 && !enough(f); n--, q = q + 1 < hi ? q + 1 : lo) {
        if (afrom != -1 && f->run->tasks[f->snd[q].src].ltid != afrom)
            break;
        was = f->reached;
        if (from_sender(f, &f->snd[q], pos, atag, ctx, direct) < 0)
            return -1;
        if (!was && f->reached)
            f->hint = q;
    }
    return 0;
}

/* Receive or poll `pos` of task p: a race or not. */
static int examine(struct finder *f, int p, int pos, int direct)
{
    struct rc_run *run = f->run;
    const struct rc_ev *e = RC_EV(run, p, pos);
    int afrom = e->afrom, atag = e->atag, cons = 0, took;
    int ooo, ctx = e->ctx;

    if (e->matcher || afrom <= -3 || atag <= -2) {
        cons = 1; /* what it asked for is unknown: any source, any tag, */
        afrom = atag = -1;
        ctx = RC_CTX_ANY; /* any context (a matcher may take another's) */
    }
    took = e->kind == PG_EV_POLL ? -1 : e->a;
    /* a race: a candidate besides the one taken, two when the taken one
     * is unknown (race_at's threshold below) */
    f->ncand = 0, f->took = took, f->nother = 0, f->reached = 0;
    f->have = 0;
    f->need = e->kind == PG_EV_POLL || took >= 0 ? 1 : 2;
    if (senders(f, p, pos, afrom, atag, ctx, direct) < 0)
        return -1;
    if (!enough(f) && notices(f, p, pos, afrom, atag) < 0)
        return -1;
    /* the message taken, not among the candidates: a candidate of its
     * sender was passed over */
    ooo = took >= 0 && !f->have ? earlier_of_sender(f, took) : -1;
    if (e->kind == PG_EV_RECV && e->call == PG_MSG_CALL_POSTED &&
        !enough(f) && rivals(f, p, pos, took) < 0)
        return -1;
    if (!f->half)
        run->receives++;
    /* a race: the message taken (if any) and one candidate more */
    if (f->ncand + (took >= 0) < (e->kind == PG_EV_POLL ? 1 : 2))
        return 0;
    return keep_race(f, p, pos, took, cons, ooo);
}

static int per_task(struct finder *f, int p)
{
    struct rc_run *run = f->run;
    const struct rc_ev *e;
    int pos, direct = 0;

    for (pos = 1; pos <= run->tasks[p].n; pos++) {
        e = RC_EV(run, p, pos);
        if (e->kind == PG_EV_ROUTE)
            direct = e->a == ROUTE_DIRECT;
        else if (rc_examined(e) && examine(f, p, pos, direct) < 0)
            return -1;
    }
    return 0;
}

/* Marks the races no other race happens before (in place: a deep queue
 * races at every receive). */
static int firsts(struct rc_run *run, struct rc_race *r, int n)
{
    int *minpos = calloc(run->ntasks + 1, sizeof *minpos), i, rc;

    if (!minpos)
        return -1;
    for (i = 0; i < n; i++)
        if (!minpos[r[i].task])
            minpos[r[i].task] = r[i].pos; /* races come in event order */
    rc = rc_firsts(run, r, n, minpos);
    free(minpos);
    return rc;
}

/* The races' alternatives: offsets into f->alts become pointers (the
 * first race's is the array itself, which rc_races_free frees). */
static int resolve_alts(struct finder *f)
{
    int i;

    if (f->nraces == 0)
        return free(f->alts), f->alts = NULL, 0;
    for (i = 0; i < f->nraces; i++)
        f->races[i].alts = f->alts + (uintptr_t)f->races[i].alts;
    f->alts = NULL;
    return 0;
}

static void finder_free(struct finder *f)
{
    free(f->snd), free(f->snd_first), free(f->nhead), free(f->cand);
    free(f->cand_of);
    f->snd = NULL, f->snd_first = f->nhead = NULL, f->cand = NULL;
    f->cand_of = NULL;
}

/* The run's clocks, computed once (each message's vcd): 0, or -1 when
 * out of memory. */
static int clocked(struct rc_run *run)
{
    if (!run->clocked && rc_clocks_at(run, NULL, 0, NULL) < 0)
        return -1;
    run->clocked = 1;
    return 0;
}

/* Every task's receives examined by f (its mode set), the clocks first. */
static int find_all(struct rc_run *run, struct finder *f)
{
    int p, rc = 0;

    run->receives = 0;
    if (clocked(run) < 0)
        return -1;
    if (lists(f) < 0)
        rc = -1;
    for (p = 0; rc == 0 && p < run->ntasks; p++)
        rc = per_task(f, p);
    finder_free(f);
    return rc;
}

static int find(struct rc_run *run, struct rc_race **races, int bare)
{
    struct finder f = { run };
    int rc;

    f.bare = f.lazy = f.counts = bare;
    rc = find_all(run, &f);
    if (rc == 0 && !bare)
        rc = resolve_alts(&f);
    else
        free(f.alts); /* races[0].alts is offset 0 (NULL), or NULL */
    if (rc == 0 && f.nraces > 0)
        rc = firsts(run, f.races, f.nraces);
    if (rc < 0) {
        rc_races_free(f.races, f.nraces);
        *races = NULL;
        return -1;
    }
    *races = f.races;
    return f.nraces;
}

int rc_find(struct rc_run *run, struct rc_race **races)
{
    return find(run, races, 0);
}

int rc_find_bare(struct rc_run *run, struct rc_race **races)
{
    return find(run, races, 1);
}

int rc_find_each(struct rc_run *run, const struct rc_race *races, int n,
                 int (*each)(struct rc_run *, const struct rc_race *, void *),
                 void *arg)
{
    struct finder f = { run };
    int rc;

    if (n == 0)
        return 0; /* nothing to hand over: no second walk */
    f.each = each, f.arg = arg, f.known = races, f.nknown = n, f.of = 1;
    rc = find_all(run, &f);
    free(f.alts), free(f.races);
    return rc < 0 || f.nraces != n ? -1 : 0;
}

/* ---- a walk in two threads (rc_find_each_split, _counts_split) ------- */

/* Whether (p, pos) comes before (q, qpos). */
static int before(int p, int pos, int q, int qpos)
{
    return p < q || (p == q && pos < qpos);
}

/* The receives of a half examined, from (from_p, from_pos) to before
 * (to_p, to_pos), and with known races only until its last is handed
 * over: the walk may start anywhere (each sender's cursor moves past
 * what was taken before on its first read, from_sender); the events
 * before its start are read only for the route they set. */
static int walk_range(struct finder *f)
{
    struct rc_run *run = f->run;
    const struct rc_ev *e;
    int p, pos, direct;

    for (p = f->from_p; p < run->ntasks && before(p, 0, f->to_p, f->to_pos);
         p++)
        for (direct = 0, pos = 1; pos <= run->tasks[p].n &&
             before(p, pos, f->to_p, f->to_pos) &&
             (!f->known || f->nraces < f->nknown); pos++) {
            e = RC_EV(run, p, pos);
            if (e->kind == PG_EV_ROUTE)
                direct = e->a == ROUTE_DIRECT;
            else if (!before(p, pos, f->from_p, f->from_pos) &&
                     rc_examined(e) && examine(f, p, pos, direct) < 0)
                return -1;
        }
    return !f->known || f->nraces == f->nknown ? 0 : -1;
}

static void *walk_thread(void *arg)
{
    struct finder *f = arg;

    return walk_range(f) < 0 ? f : NULL;
}

/* Room for a copy of n items of size at from. */
static void *dup_of(const void *from, size_t n, size_t size)
{
    void *p = malloc(n * size + 1);

    return p ? memcpy(p, from, n * size) : NULL;
}

/* b: a's lists as they are before a walk (the chains are the run's, made
 * by a's lists() once; the cursors b's own). */
static int lists_copy(struct finder *b, const struct finder *a)
{
    int n = b->run->ntasks;

    b->snd_first = dup_of(a->snd_first, (size_t)n + 1, sizeof *a->snd_first);
    b->nhead = dup_of(a->nhead, (size_t)n + 1, sizeof *a->nhead);
    b->snd = b->snd_first ? dup_of(a->snd, (size_t)a->snd_first[n],
                                   sizeof *a->snd) : NULL;
    return b->snd && b->nhead ? 0 : -1;
}

/* Halves a and b (their modes and bounds set) walked at once, b in a
 * thread of its own (in this one after a if none can be made).  0, or
 * -1 when out of memory or a half fails. */
static int split(struct rc_run *run, struct finder *a, struct finder *b)
{
    pthread_t t;
    int rc = 0, threaded = 0;
    void *failed = NULL;

    a->half = b->half = 1;
    if (clocked(run) < 0)
        return -1;
    if (run->nrivals)
        sort_posts(run); /* rivals() would sort them in both threads */
    if (lists(a) < 0 || lists_copy(b, a) < 0)
        rc = -1;
    if (rc == 0)
        threaded = pthread_create(&t, NULL, walk_thread, b) == 0;
    if (rc == 0 && walk_range(a) < 0)
        rc = -1;
    if (threaded && pthread_join(t, &failed) != 0)
        failed = b;
    else if (!threaded && rc == 0 && walk_range(b) < 0)
        rc = -1;
    if (failed)
        rc = -1;
    finder_free(a), finder_free(b);
    free(a->alts), free(a->races), free(b->alts), free(b->races);
    return rc;
}

int rc_find_each_split(struct rc_run *run, const struct rc_race *races, int n,
                       int mid,
                       int (*each)(struct rc_run *, const struct rc_race *,
                                   void *),
                       void *arg_lo, void *arg_hi)
{
    struct finder a = { run }, b = { run };

    if (mid <= 0 || mid >= n)
        return rc_find_each(run, races, n, each, mid <= 0 ? arg_hi : arg_lo);
    a.each = b.each = each, a.arg = arg_lo, b.arg = arg_hi;
    a.known = b.known = races, a.nknown = mid, b.nknown = n;
    a.of = b.of = 1;
    b.nraces = mid;
    a.from_p = races[0].task, a.from_pos = races[0].pos;
    b.from_p = races[mid].task, b.from_pos = races[mid].pos;
    a.to_p = b.to_p = run->ntasks, a.to_pos = b.to_pos = 0;
    return split(run, &a, &b);
}

/* The receive (*p, *pos) with about half the run's examined receives
 * before it. */
static void middle(const struct rc_run *run, int *p, int *pos)
{
    long total = 0, seen = 0;
    int t, k;

    for (t = 0; t < run->ntasks; t++)
        for (k = 1; k <= run->tasks[t].n; k++)
            total += rc_examined(RC_EV(run, t, k));
    for (t = 0; t < run->ntasks; t++)
        for (k = 1; k <= run->tasks[t].n; k++)
            if (rc_examined(RC_EV(run, t, k)) && seen++ == total / 2) {
                *p = t, *pos = k;
                return;
            }
    *p = run->ntasks, *pos = 0;
}

int rc_find_counts_split(struct rc_run *run,
                         int (*each)(struct rc_run *, const struct rc_race *,
                                     void *),
                         void *arg_lo, void *arg_hi)
{
    struct finder a = { run }, b = { run };

    a.each = b.each = each, a.arg = arg_lo, b.arg = arg_hi;
    a.counts = b.counts = 1;
    a.from_pos = 1;
    middle(run, &b.from_p, &b.from_pos);
    a.to_p = b.from_p, a.to_pos = b.from_pos;
    b.to_p = run->ntasks, b.to_pos = 0;
    return split(run, &a, &b) < 0 ? -1 : a.nraces + b.nraces;
}

int rc_find_counts(struct rc_run *run,
                   int (*each)(struct rc_run *, const struct rc_race *, void *),
                   void *arg)
{
    struct finder f = { run };
    int rc;

    f.each = each, f.arg = arg, f.counts = 1;
    rc = find_all(run, &f);
    free(f.alts), free(f.races);
    return rc < 0 ? -1 : f.nraces;
}

/* What the clocks would say of the messages to p, from min (rc_find_at):
 * vcd >= pos exactly when the send (or the end an exit notice is about)
 * follows receive pos.  It overwrites the clocks' vcd of those messages:
 * the run counts as unclocked again (rc_find recomputes them). */
static void vcd_from_reach(struct rc_run *run, int p, int pos, const int *min)
{
    struct rc_msg *m;
    int i, after;

    for (i = 0; i < run->nmsg; i++) {
        if ((m = &run->msg[i])->dst != p)
            continue;
        after = m->src >= 0 ? min[m->src] <= m->src_pos
                : m->notice_of >= 0 &&
                  min[m->notice_of] <= run->tasks[m->notice_of].n;
        m->vcd = after ? pos : 0;
    }
    run->clocked = 0;
}

/* One receive's race alone (what -whatif checks a choice against): the
 * same lists, and the receive examined as per_task would, without the
 * other receives' alternatives or the clocks of the "first" marks.  Its
 * alternatives are the finder's array of alternatives (offset 0), which
 * goes to the caller. */
int rc_find_at(struct rc_run *run, int p, int pos, const int *min,
               struct rc_race *race)
{
    struct finder f = { run };
    const struct rc_ev *e;
    int k, direct = 0, rc;

    memset(race, 0, sizeof *race);
    if (!(e = examined_at(run, p, pos)))
        return 0;
    for (k = 1; k < pos; k++)
        if (RC_EV(run, p, k)->kind == PG_EV_ROUTE)
            direct = RC_EV(run, p, k)->a == ROUTE_DIRECT;
    if (min)
        vcd_from_reach(run, p, pos, min);
    else if (clocked(run) < 0)
        return -1;
    rc = lists(&f) < 0 || examine(&f, p, pos, direct) < 0 ? -1
         : f.nraces;
    free(f.snd), free(f.snd_first), free(f.nhead), free(f.cand);
    if (rc == 1) {
        *race = f.races[0];
        race->alts = f.alts; /* its offset is 0; the caller frees it */
    } else {
        free(f.alts);
    }
    free(f.races);
    return rc;
}

void rc_races_free(struct rc_race *races, int n)
{
    if (n > 0)
        free(races[0].alts);
    free(races);
}

/* ---- a task's receives from its last to its first (rc_back) ---------- */

/* Receive pos's candidates depend on pos alone: each sender's messages
 * from the first one not taken before pos (from_sender skips the others).
 * Going down a task's receives, that first one only moves back: to the
 * message taken at the position passed (a pair's chain is in index
 * order, lists()), so a cursor per sender stays exact, and the whole walk
 * costs what rc_find's forward walk does. */
struct rc_back {
    struct finder f;
    int task;     /* whose cursors are set, -1 none */
    int folded;   /* positions >= folded have given back what they took */
};

int rc_back_open(struct rc_run *run, struct rc_back **bp)
{
    struct rc_back *b = calloc(1, sizeof *b);

    *bp = NULL;
    if (!b)
        return -1;
    b->f.run = run;
    b->task = -1;
    if (clocked(run) < 0 || lists(&b->f) < 0)
        return rc_back_close(b), -1;
    *bp = b;
    return 0;
}

void rc_back_close(struct rc_back *b)
{
    if (!b)
        return;
    free(b->f.snd), free(b->f.snd_first), free(b->f.nhead), free(b->f.cand);
    free(b->f.races), free(b->f.alts);
    free(b);
}

/* p's cursors past every message taken at all (as after its last event). */
static void back_reset(struct rc_back *b, int p)
{
    const struct rc_msg *msg = b->f.run->msg;
    int q, m;

    for (q = b->f.snd_first[p]; q < b->f.snd_first[p + 1]; q++) {
        for (m = b->f.snd[q].head; m >= 0 && msg[m].taken_pos; m = msg[m].next)
            ;
        set_cur(b->f.run, &b->f.snd[q], m);
    }
    b->task = p;
    b->folded = b->f.run->tasks[p].n + 1;
}

/* The slot of sender src among p's (in task order), -1. */
static int sender_slot(const struct finder *f, int p, int src)
{
    int lo = f->snd_first[p], hi = f->snd_first[p + 1];

    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (f->snd[mid].src < src)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->snd_first[p + 1] && f->snd[lo].src == src ? lo : -1;
}

/* The messages taken at positions pos .. folded-1 are candidates again
 * for receive pos: each sender's cursor back to the earliest of them. */
static void back_fold(struct rc_back *b, int p, int pos)
{
    const struct rc_run *run = b->f.run;
    const struct rc_ev *e;
    const struct rc_msg *m;
    int k, q;

    while (b->folded > pos) {
        k = --b->folded;
        e = RC_EV(run, p, k);
        if ((e->kind != PG_EV_RECV && e->kind != PG_EV_NOTICE) || e->a < 0)
            continue;
        m = &run->msg[e->a];
        if (m->taken_pos != k || m->dst != p || m->src < 0 ||
            (q = sender_slot(&b->f, p, m->src)) < 0)
            continue;
        if (b->f.snd[q].cur < 0 || e->a < b->f.snd[q].cur)
            set_cur(run, &b->f.snd[q], e->a);
    }
}

int rc_back_at(struct rc_back *b, int p, int pos, int direct,
               struct rc_race *race)
{
    return rc_back_until(b, p, pos, direct, NULL, NULL, race, NULL);
}

int rc_back_until(struct rc_back *b, int p, int pos, int direct,
                  int (*reach)(const struct rc_run *, int, int, void *),
                  void *arg, struct rc_race *race, int *reached)
{
    struct finder *f = &b->f;
    const struct rc_run *run = f->run;
    const struct rc_ev *e;
    int rc;

    memset(race, 0, sizeof *race);
    if (reached)
        *reached = 0;
    if (!(e = examined_at(run, p, pos)))
        return 0;
    if (p != b->task || pos > b->folded)
        back_reset(b, p);
    back_fold(b, p, pos);
    f->nraces = 0, f->nalts = 0;
    f->lazy = reach != NULL, f->reach = reach, f->reach_arg = arg;
    rc = examine(f, p, pos, direct);
    if (reached)
        *reached = f->reached;
    f->lazy = 0, f->reach = NULL, f->reach_arg = NULL;
    if (rc < 0)
        return -1;
    if (f->nraces == 0)
        return 0;
    *race = f->races[0];
    race->alts = f->alts; /* its offset is 0 */
    return 1;
}
