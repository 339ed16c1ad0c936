/*
 * test_races.c - the race analysis of `pangaea -races` (src/cli/analysis/
 * races*.c) on hand-made logs: no pvmd, no program.  Each test writes the
 * communication logs of a few tasks with the log writer, as the runtime
 * would, loads the directory and checks the races found: which receives,
 * what they took, their alternatives, first or not; and the text report
 * keeps receives with other senders (exit notices of other tasks) apart;
 * and the views' graph (runlog.c) is the same model: its events, links
 * and races are the analysis' own.
 */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <fcntl.h>

#include "check_run.h"
#include "rm_tree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_table.h"
#include "pg_grow.h"
#include "pg_log.h"
#include "races.h"
#include "runlog.h"
#include "top.h"
#include "whatif.h"

static char dir[64];
#define NLOGS 32 /* ltids 0..31 */
static pg_logw *w[NLOGS];
static double now = 1.7e9;

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pg_test_races.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    memset(w, 0, sizeof w);
}

static void teardown(void)
{
    ck_rm_tree(dir);
}

static pg_logw *log_of(int ltid)
{
    char path[256];
    pg_err err;

    if (!w[ltid]) {
        pg_log_path(path, sizeof path, dir, ltid, PG_LOG_COMM);
        w[ltid] = pg_logw_open(path, PG_LOG_COMM, ltid, "p", "h", &err);
        ck_assert_msg(w[ltid] != NULL, "%s", err.msg);
    }
    return w[ltid];
}

static void send1(int from, int to, int tag, int msgid)
{
    ck_assert_int_eq(pg_logw_send(log_of(from), now += 1e-3, "pvm_send", tag,
                                  msgid, 4, 1, &to), 0);
}

/* A receive by `ltid` asking for (asked_from, asked_tag) that took message
 * msgid of `from`. */
static void recv1(int ltid, int asked_from, int asked_tag, int from, int tag,
                  int msgid)
{
    pg_logw_note(log_of(ltid), 0, asked_from, asked_tag, 0);
    ck_assert_int_eq(pg_logw_recv(log_of(ltid), now += 1e-3, "pvm_recv", from,
                                  tag, msgid, 4), 0);
}

static void close_all(void)
{
    int i;

    for (i = 0; i < NLOGS; i++)
        if (w[i]) {
            ck_assert_int_eq(pg_logw_close(w[i]), 0);
            w[i] = NULL;
        }
}

static struct rc_run run;
static struct rc_race *races;

static int analyse(void)
{
    pg_err err;
    int n;

    close_all();
    ck_assert_msg(rc_load(&run, dir, &err) == 0, "%s", err.msg);
    n = rc_find(&run, &races);
    ck_assert_int_ge(n, 0);
    return n;
}

/* Whether task t routes direct at event pos (a <route value="3"> last
 * before it), as -min tells the walk down. */
static int direct_before(int t, int pos)
{
    int k, direct = 0;

    for (k = 1; k < pos; k++)
        if (RC_EV(&run, t, k)->kind == PG_EV_ROUTE)
            direct = RC_EV(&run, t, k)->a == 3;
    return direct;
}

/* -min finds each task's races again from its last receive down
 * (rc_back_at): the same races, alternative for alternative, as rc_find
 * keeps, whatever the test made (routes direct, notices, polls, named
 * sources, receives out of per-pair order). */
static void back_gives_the_races(int n)
{
    struct rc_back *b;
    struct rc_race r;
    int t, pos, i = n - 1, j, direct, rc;

    ck_assert_int_eq(rc_back_open(&run, &b), 0);
    for (t = run.ntasks - 1; t >= 0; t--)
        for (pos = run.tasks[t].n; pos >= 1; pos--) {
            direct = direct_before(t, pos);
            rc = rc_back_at(b, t, pos, direct, &r);
            ck_assert_int_ge(rc, 0);
            ck_assert_int_eq(rc, i >= 0 && races[i].task == t &&
                                 races[i].pos == pos);
            if (rc != 1)
                continue;
            ck_assert_int_eq(r.took, races[i].took);
            ck_assert_int_eq(r.out_of_order, races[i].out_of_order);
            ck_assert_int_eq(r.conservative, races[i].conservative);
            ck_assert_int_eq(r.nalts, races[i].nalts);
            for (j = 0; j < r.nalts; j++) {
                ck_assert_int_eq(r.alts[j].msg, races[i].alts[j].msg);
                ck_assert_int_eq(r.alts[j].fifo_broken,
                                 races[i].alts[j].fifo_broken);
            }
            i--;
        }
    ck_assert_int_eq(i, -1);
    rc_back_close(b);
}

static int every_third(const struct rc_run *r, int msg, int fifo_broken,
                       void *arg)
{
    (void)r, (void)fifo_broken;
    ++*(int *)arg;
    return msg % 3 == 1;
}

/* Whether a is one of race r's alternatives, with the same mark. */
static int is_alt_of(const struct rc_race *r, const struct rc_alt *a)
{
    int j;

    for (j = 0; j < r->nalts; j++)
        if (r->alts[j].msg == a->msg)
            return r->alts[j].fifo_broken == a->fifo_broken;
    return 0;
}

/* -min's walk down stops at the first alternative it keeps a receive for
 * (rc_back_until, which reads first the sender that was such last time):
 * the same races as rc_find keeps; reached exactly when one of the
 * race's alternatives is such; the alternatives read some of the race's,
 * one of them such, or all of them. */
static void back_until_stops_at_the_first(int n)
{
    struct rc_back *b;
    struct rc_race r;
    int t, pos, i = n - 1, j, direct, rc, reached, any, asked;

    ck_assert_int_eq(rc_back_open(&run, &b), 0);
    for (t = run.ntasks - 1; t >= 0; t--)
        for (pos = run.tasks[t].n; pos >= 1; pos--) {
            direct = direct_before(t, pos);
            asked = 0;
            rc = rc_back_until(b, t, pos, direct, every_third, &asked, &r,
                               &reached);
            ck_assert_int_ge(rc, 0);
            ck_assert_int_eq(rc, i >= 0 && races[i].task == t &&
                                 races[i].pos == pos);
            if (rc != 1)
                continue;
            for (any = 0, j = 0; j < races[i].nalts; j++)
                any |= races[i].alts[j].msg % 3 == 1;
            ck_assert_int_eq(reached, any);
            ck_assert_int_le(asked, races[i].nalts);
            ck_assert_int_eq(r.took, races[i].took);
            ck_assert_int_ge(r.nalts, 1);
            ck_assert_int_le(r.nalts, races[i].nalts);
            if (!reached)
                ck_assert_int_eq(r.nalts, races[i].nalts);
            for (any = 0, j = 0; j < r.nalts; j++) {
                ck_assert_int_eq(is_alt_of(&races[i], &r.alts[j]), 1);
                any |= r.alts[j].msg % 3 == 1;
            }
            ck_assert_int_eq(any, reached); /* stopped at one that reached */
            i--;
        }
    ck_assert_int_eq(i, -1);
    rc_back_close(b);
}

/* Race `got` handed over by rc_find_each as race want: the same
 * alternatives, and what the finder hands over with them (rc_found_alt,
 * read from the senders it scans) is what their message entries say. */
static int found_is_kept(struct rc_run *r, const struct rc_race *got,
                         void *arg)
{
    int *seen = arg, j;
    const struct rc_race *want = &races[(*seen)++];
    struct rc_alt_of a, m;

    ck_assert_ptr_eq(rc_found, got);
    ck_assert_int_eq(got->pos, want->pos);
    ck_assert_int_eq(got->nalts, want->nalts);
    for (j = 0; j < got->nalts; j++) {
        ck_assert_int_eq(got->alts[j].msg, want->alts[j].msg);
        a = rc_found_alt(r, got, j), m = rc_alt_of_msg(r, got->alts[j].msg);
        ck_assert_int_eq(a.ltid, m.ltid);
        ck_assert_int_eq(a.tag, m.tag);
        ck_assert_int_eq(a.msgid, m.msgid);
        ck_assert_int_eq(a.ev, m.ev);
    }
    return 0;
}

/* The races found again one by one (what the reports and the page
 * stream) are the races rc_find kept, whatever the test made. */
static void each_gives_the_races(int n)
{
    struct rc_race *bare;
    int nb = rc_find_bare(&run, &bare), seen = 0;

    ck_assert_int_eq(nb, n);
    ck_assert_int_eq(rc_find_each(&run, bare, nb, found_is_kept, &seen), 0);
    ck_assert_int_eq(seen, n);
    ck_assert_ptr_null(rc_found);
    rc_races_free(bare, nb);
}

/* rc_find_counts' callback: race r is race *i of rc_find's, counted. */
static int counted_is_kept(struct rc_run *r, const struct rc_race *got,
                           void *arg)
{
    const struct rc_race *w = &races[(*(int *)arg)++];

    (void)r;
    ck_assert_int_eq(got->task, w->task);
    ck_assert_int_eq(got->pos, w->pos);
    ck_assert_int_eq(got->took, w->took);
    ck_assert_int_eq(got->out_of_order, w->out_of_order);
    ck_assert_int_eq(got->nalts, w->nalts);
    ck_assert_ptr_null(got->alts);
    return 0;
}

/* A half's races, as handed over (rc_find_counts_split). */
struct counted {
    struct rc_race *r;
    int n;
};

static int counted_into(struct rc_run *r, const struct rc_race *got,
                        void *arg)
{
    struct counted *c = arg;

    (void)r;
    c->r[c->n++] = *got;
    return 0;
}

/* The Perfetto export's walk (rc_find_counts, and in two halves at
 * once): the races rc_find keeps, each with its number of alternatives,
 * the earlier half's then the later's. */
static void counts_give_the_races(int n)
{
    struct counted lo = { calloc(n + 1, sizeof *races) },
                   hi = { calloc(n + 1, sizeof *races) };
    int seen = 0, i;

    ck_assert_int_eq(rc_find_counts(&run, counted_is_kept, &seen), n);
    ck_assert_int_eq(seen, n);
    ck_assert_int_eq(rc_find_counts_split(&run, counted_into, &lo, &hi), n);
    ck_assert_int_eq(lo.n + hi.n, n);
    for (i = 0; i < n; i++) {
        const struct rc_race *g = i < lo.n ? &lo.r[i] : &hi.r[i - lo.n];

        seen = i;
        counted_is_kept(&run, g, &seen);
    }
    free(lo.r), free(hi.r);
}

/* The walk in two halves at once (rc_find_each_split, -races' text
 * report): each half hands over its races, in order, as one walk does,
 * whatever the split. */
static void split_gives_the_races(int n)
{
    struct rc_race *bare;
    int nb = rc_find_bare(&run, &bare), mids[3] = { 1, n / 2, n - 1 }, k;
    int lo, hi;

    ck_assert_int_eq(nb, n);
    for (k = 0; k < 3; k++) {
        lo = 0, hi = mids[k];
        ck_assert_int_eq(rc_find_each_split(&run, bare, nb, mids[k],
                                            found_is_kept, &lo, &hi), 0);
        ck_assert_int_eq(lo, mids[k]);
        ck_assert_int_eq(hi, n);
    }
    ck_assert_ptr_null(rc_found);
    rc_races_free(bare, nb);
}

/* The first marks from the snapshots (rc_firsts, what rc_find gives)
 * are those of the clocks computed again (rc_clocks_at): for every race
 * of whatever the test made (barriers, turns, spawns, notices). */
static void firsts_are_the_clocks(int n)
{
    struct rc_race *a = calloc(n + 1, sizeof *a), *b = calloc(n + 1, sizeof *b);
    int *minpos = calloc(run.ntasks + 1, sizeof *minpos), i;

    for (i = 0; i < n; i++) {
        a[i] = b[i] = races[i];
        a[i].first = b[i].first = -1;
        if (!minpos[races[i].task])
            minpos[races[i].task] = races[i].pos;
    }
    ck_assert_int_eq(rc_firsts(&run, a, n, minpos), 0);
    ck_assert_int_eq(rc_clocks_at(&run, b, n, minpos), 0);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(a[i].first, b[i].first);
        ck_assert_int_eq(a[i].first, races[i].first);
    }
    free(a), free(b), free(minpos);
}

static void done(int n)
{
    if (races && n > 0) {
        firsts_are_the_clocks(n);
        each_gives_the_races(n);
        split_gives_the_races(n);
        counts_give_the_races(n);
    }
    if (races || n == 0) {
        back_gives_the_races(n);
        back_until_stops_at_the_first(n);
    }
    rc_races_free(races, n);
    rc_free(&run);
}

static int alt_ltid(int r, int i)
{
    return run.tasks[run.msg[races[r].alts[i].msg].src].ltid;
}

START_TEST(test_wildcard_races_named_source_does_not)
{
    int n;

    send1(2, 1, 5, 1);
    send1(3, 1, 5, 1);
    send1(2, 4, 5, 2);
    send1(3, 4, 5, 2);
    recv1(1, -1, 5, 3, 5, 1);
    recv1(1, -1, 5, 2, 5, 1);
    recv1(4, 3, 5, 3, 5, 2); /* named sources: never a race */
    recv1(4, 2, 5, 2, 5, 2);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(run.tasks[races[0].task].ltid, 1);
    ck_assert_int_eq(races[0].pos, 1);
    ck_assert_int_eq(run.tasks[run.msg[races[0].took].src].ltid, 3);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(alt_ltid(0, 0), 2);
    ck_assert_int_eq(races[0].first, 1);
    ck_assert_int_eq(run.receives, 4);
    done(n);
}
END_TEST

/* Task 3 sends only after it heard from task 1, which spoke after its
 * first receive: that send happens after the receive, no alternative. */
START_TEST(test_a_send_that_happens_after_the_receive_is_no_alternative)
{
    int n;

    send1(2, 1, 5, 1);
    recv1(1, -1, -1, 2, 5, 1);
    send1(1, 3, 6, 1);
    recv1(3, -1, -1, 1, 6, 1);
    send1(3, 1, 5, 1);
    recv1(1, -1, -1, 3, 5, 1);
    n = analyse();
    ck_assert_int_eq(n, 0);
    done(n);
}
END_TEST

/* The completion of MPI_Irecv number `posted` by `ltid` (named source)
 * that took message msgid of `from`, with n rivals (format 8). */
static void irecv1(int ltid, int from, int msgid, int posted, int n,
                   const int *rivals)
{
    pg_logw_note(log_of(ltid), 0, from, 5, 0);
    pg_logw_posted(log_of(ltid), posted, 0);
    pg_logw_rivals(log_of(ltid), n, rivals);
    ck_assert_int_eq(pg_logw_recv(log_of(ltid), now += 1e-3, "MPI_Irecv",
                                  from, 5, msgid, 4), 0);
}

/* An MPI_Waitany over receives naming ltids 2, 3 and 4: its first
 * completion (ltid 2's) races with ltid 3's message, which a rival took
 * later, not with ltid 4's, sent after ltid 4 heard from ltid 1 after
 * that completion; the second completion (ltid 3's) races with ltid 4's
 * (its send does not follow that one); the third has no rival; a rival
 * that never completed (posting 9, cancelled) is no alternative. */
START_TEST(test_a_waitany_completion_races_with_its_rivals)
{
    static const int r1[] = { 2, 3, 9 }, r2[] = { 3 };
    int n;

    send1(2, 1, 5, 1);
    send1(3, 1, 5, 1);
    irecv1(1, 2, 1, 1, 3, r1);
    send1(1, 4, 6, 1);
    recv1(4, 1, 6, 1, 6, 1);
    send1(4, 1, 5, 1);
    irecv1(1, 3, 1, 2, 1, r2);
    irecv1(1, 4, 1, 3, 0, NULL);
    n = analyse();
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(races[0].pos, 1);
    ck_assert_int_eq(run.tasks[run.msg[races[0].took].src].ltid, 2);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(alt_ltid(0, 0), 3);
    ck_assert_int_eq(races[1].pos, 3);
    ck_assert_int_eq(run.tasks[run.msg[races[1].took].src].ltid, 3);
    ck_assert_int_eq(races[1].nalts, 1);
    ck_assert_int_eq(alt_ltid(1, 0), 4);
    done(n);
}
END_TEST

START_TEST(test_tag_filter_leaves_other_tags_out)
{
    int n;

    send1(2, 1, 5, 1);
    send1(3, 1, 6, 1);
    recv1(1, -1, 6, 3, 6, 1);
    recv1(1, -1, 5, 2, 5, 1);
    n = analyse();
    ck_assert_int_eq(n, 0);
    done(n);
}
END_TEST

/* Contexts (format 7's ctx): a receive's alternatives are messages of its
 * own context.  Task 2 sends tag 5 in context 7, then in context 0; task
 * 3 in context 0; task 1 takes any source, tag 5, in context 0 twice,
 * then in context 7.  Its first receive races with task 2's context-0
 * message (its second), not with the context-7 one queued before it from
 * the same sender and tag; the others do not race.  Then a matcher's
 * receive (conservative) is judged across contexts. */
START_TEST(test_a_receive_takes_only_its_own_context)
{
    int n;

    pg_logw_ctx(log_of(2), 7);
    send1(2, 1, 5, 1);
    send1(2, 1, 5, 2);
    send1(3, 1, 5, 1);
    recv1(1, -1, 5, 3, 5, 1);
    recv1(1, -1, 5, 2, 5, 2);
    pg_logw_ctx(log_of(1), 7);
    recv1(1, -1, 5, 2, 5, 1);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(races[0].pos, 1);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(alt_ltid(0, 0), 2);
    ck_assert_int_eq(rc_msg_msgid(&run, &run.msg[races[0].alts[0].msg]), 2);
    ck_assert_int_eq(races[0].out_of_order, -1);
    done(n);
    teardown();
    setup();
    pg_logw_ctx(log_of(2), 7);
    send1(2, 1, 5, 1);
    send1(3, 1, 5, 1);
    pg_logw_note(log_of(1), 0, -1, 5, 1); /* through pvm_recvf's matcher */
    ck_assert_int_eq(pg_logw_recv(log_of(1), now += 1e-3, "pvm_recv", 3, 5,
                                  1, 4), 0);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(races[0].conservative, 1);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(alt_ltid(0, 0), 2);
    done(n);
}
END_TEST

/* One sender, two messages: per-pair order makes it deterministic, unless
 * the receiver routes direct. */
START_TEST(test_fifo_per_pair_unless_the_receiver_routes_direct)
{
    int n;

    send1(2, 1, 5, 1);
    send1(2, 1, 5, 2);
    recv1(1, -1, 5, 2, 5, 1);
    recv1(1, -1, 5, 2, 5, 2);
    n = analyse();
    ck_assert_int_eq(n, 0);
    done(n);
    teardown();
    setup();
    ck_assert_int_eq(pg_logw_route(log_of(1), now += 1e-3, 3, 0), 0);
    send1(2, 1, 5, 1);
    send1(2, 1, 5, 2);
    recv1(1, -1, 5, 2, 5, 1);
    recv1(1, -1, 5, 2, 5, 2);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(races[0].alts[0].fifo_broken, 1);
    ck_assert_int_eq(rc_msg_msgid(&run, &run.msg[races[0].alts[0].msg]), 2);
    done(n);
}
END_TEST

/* A poll that found nothing races with one concurrent message; a barrier
 * that the sender passed only after the poll orders it. */
START_TEST(test_failed_poll_races_unless_a_barrier_orders_it)
{
    int n;

    ck_assert_int_eq(pg_logw_poll(log_of(1), now += 1e-3, "pvm_nrecv", -1, -1,
                                  0, 0), 0);
    pg_logw_misses(log_of(1), 3);
    recv1(1, -1, -1, 2, 5, 1);
    send1(2, 1, 5, 1);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(races[0].took, -1);
    ck_assert_int_eq(races[0].nalts, 1);
    done(n);
    teardown();
    setup();
    ck_assert_int_eq(pg_logw_poll(log_of(1), now += 1e-3, "pvm_nrecv", -1, -1,
                                  0, 0), 0);
    ck_assert_int_eq(pg_logw_barrier(log_of(1), now += 1e-3, "g", 2, 0), 0);
    recv1(1, -1, -1, 2, 5, 1);
    ck_assert_int_eq(pg_logw_barrier(log_of(2), now += 1e-3, "g", 2, 0), 0);
    send1(2, 1, 5, 1);
    n = analyse();
    ck_assert_int_eq(n, 0);
    done(n);
}
END_TEST

/* Two races, the second after the first (task 4 hears of task 1's first
 * race before racing): only the first is "first". */
START_TEST(test_a_race_after_another_is_not_first)
{
    int n;

    send1(2, 1, 5, 1);
    send1(3, 1, 5, 1);
    recv1(1, -1, 5, 2, 5, 1);
    recv1(1, -1, 5, 3, 5, 1);
    send1(1, 4, 7, 1);
    send1(5, 4, 7, 1);
    recv1(4, -1, 7, 1, 7, 1);
    recv1(4, -1, 7, 5, 7, 1);
    n = analyse();
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(run.tasks[races[0].task].ltid, 1);
    ck_assert_int_eq(races[0].first, 1);
    ck_assert_int_eq(run.tasks[races[1].task].ltid, 4);
    ck_assert_int_eq(races[1].first, 0);
    done(n);
}
END_TEST

/* Task ltid's receive from one of two senders' messages (tag, each
 * sender's message id msgid): a race. */
static void race_of_two(int ltid, int a, int b, int tag, int msgid)
{
    send1(a, ltid, tag, msgid);
    send1(b, ltid, tag, msgid);
    recv1(ltid, -1, tag, a, tag, msgid);
}

/* The two races (ltid 1's, ltid 4's after what `news` made), their first
 * marks as expected. */
static void first_marks(int first4, const char *how)
{
    int n = analyse(), i, f1 = -1, f4 = -1;

    ck_assert_int_eq(n, 2);
    for (i = 0; i < n; i++) {
        if (run.tasks[races[i].task].ltid == 1)
            f1 = races[i].first;
        if (run.tasks[races[i].task].ltid == 4)
            f4 = races[i].first;
    }
    ck_assert_msg(f1 == 1, "%s: ltid 1's race first %d", how, f1);
    ck_assert_msg(f4 == first4, "%s: ltid 4's race first %d", how, f4);
    done(n);
    teardown();
    setup();
}

/* ltid 1 spawns ltid 4 now (its exec log). */
static void spawn4(void)
{
    char path[256], *argv[] = { NULL };
    const char *host = "h";
    int child = 4;
    pg_logw *x;
    pg_err err;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    x = pg_logw_open(path, PG_LOG_EXEC, 1, "p", "h", &err);
    ck_assert_msg(x != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_spawn(x, now += 1e-3, "p", argv, 0, "", 1, 1,
                                   &child, &host), 0);
    ck_assert_int_eq(pg_logw_close(x), 0);
}

/* ltid 1's race is first; ltid 4's race (of 6's and 7's messages) is
 * first unless news of ltid 1's race reaches ltid 4 before it: by a
 * message, through a task that heard of it (at once, or in an earlier
 * snapshot), a group's turn, a barrier, a spawn, an exit notice.  What
 * the first marks are made of, each way news travels (rc_firsts; done()
 * also holds them to the clocks computed again). */
START_TEST(test_a_race_is_first_until_news_of_another_reaches_it)
{
    race_of_two(1, 2, 3, 5, 1); /* ltid 1's race, then news of it: */
    race_of_two(4, 6, 7, 8, 1);
    first_marks(1, "none");

    race_of_two(1, 2, 3, 5, 1);
    send1(1, 4, 9, 1), recv1(4, 1, 9, 1, 9, 1);
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "a message");

    race_of_two(1, 2, 3, 5, 1);
    send1(1, 5, 9, 1), recv1(5, 1, 9, 1, 9, 1);
    send1(5, 4, 9, 1), recv1(4, 5, 9, 5, 9, 1);
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "through ltid 5");

    race_of_two(1, 2, 3, 5, 1);
    send1(1, 5, 9, 1), recv1(5, 1, 9, 1, 9, 1);
    send1(5, 3, 9, 1); /* 5's snapshot with the news */
    send1(7, 5, 10, 2), recv1(5, 7, 10, 7, 10, 2);
    send1(5, 4, 9, 2), recv1(4, 5, 9, 5, 9, 2); /* the next: only 7's */
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "through ltid 5's earlier snapshot");

    race_of_two(1, 2, 3, 5, 1);
    ck_assert_int_eq(pg_logw_join(log_of(1), now += 1e-3, "g", 0, 1, 0), 0);
    ck_assert_int_eq(pg_logw_join(log_of(4), now += 1e-3, "g", 1, 4, 1), 0);
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "a group's turn");

    race_of_two(1, 2, 3, 5, 1);
    ck_assert_int_eq(pg_logw_barrier(log_of(1), now += 1e-3, "g", 2, 0), 0);
    ck_assert_int_eq(pg_logw_barrier(log_of(4), now += 1e-3, "g", 2, 0), 0);
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "a barrier");

    race_of_two(1, 2, 3, 5, 1);
    spawn4();
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "a spawn");

    race_of_two(1, 2, 3, 5, 1);
    ck_assert_int_eq(pg_logw_end(log_of(1), now += 1e-3, 0), 0);
    pg_logw_note(log_of(4), 0, -1, 99, 0);
    ck_assert_int_eq(pg_logw_notice(log_of(4), now += 1e-3, "pvm_recv", 99,
                                    PG_NOTICE_EXIT, 1, 4), 0);
    race_of_two(4, 6, 7, 8, 1);
    first_marks(0, "an exit notice");
}
END_TEST

/* The model keeps an event's number in its log and its failed polls
 * only where they are not the plain case (rc_odd): read back, each
 * event's are what the log says, past call-site records (numbered, not
 * events of the model) and polls. */
START_TEST(test_an_events_number_and_polls_are_the_logs)
{
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    pg_err err;
    char path[256];
    long seq[64];
    int misses[64], n = 0, pos, i;

    for (i = 0; i < 12; i++) {
        if (i % 4 == 1)
            ck_assert_int_eq(pg_logw_site(log_of(1), now += 1e-3, i + 1,
                                          "/bin/p", 16 * i), 0);
        if (i % 3 == 2)
            pg_logw_misses(log_of(1), i);
        send1(1, 2, 5, i + 1);
    }
    ck_assert_int_eq(pg_logw_poll(log_of(1), now += 1e-3, "pvm_nrecv", -1,
                                  -1, 0, 0), 0);
    pg_logw_misses(log_of(1), 7);
    send1(1, 2, 5, 13);
    close_all();
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    ck_assert_ptr_nonnull(r = pg_logr_open(path, PG_LOG_COMM, &h, &err));
    while (pg_logr_next(r, &ev, &err) == 1)
        if (ev.kind != PG_EV_SITE && n < 64)
            seq[n] = ev.seq, misses[n++] = ev.misses;
    pg_logr_close(r);
    ck_assert_msg(rc_load(&run, dir, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(run.tasks[0].ltid, 1);
    ck_assert_int_eq(run.tasks[0].n, n);
    ck_assert_int_gt(run.tasks[0].nodd, 0);
    for (pos = 1; pos <= n; pos++) {
        ck_assert_int_eq(rc_ev_seq(&run, 0, pos), seq[pos - 1]);
        ck_assert_int_eq(rc_ev_misses(&run, 0, pos), misses[pos - 1]);
    }
    rc_free(&run);
}
END_TEST

/* The exit notice of task 2 races with task 2's last message. */
START_TEST(test_exit_notice_races_with_the_last_message)
{
    int n;

    send1(2, 1, 5, 1);
    recv1(1, -1, -1, 2, 5, 1);
    pg_logw_note(log_of(1), 0, -1, -1, 0);
    ck_assert_int_eq(pg_logw_notice(log_of(1), now += 1e-3, "pvm_recv", 99,
                                    PG_NOTICE_EXIT, 2, 4), 0);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(races[0].pos, 1);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(run.msg[races[0].alts[0].msg].src, -1);
    ck_assert_int_eq(run.tasks[run.msg[races[0].alts[0].msg].notice_of].ltid,
                     2);
    done(n);
}
END_TEST

/* The text report of dir (top_races, as `pangaea -races DIR` prints
 * it) into buf. */
static void text_report(char *buf, size_t size)
{
    char path[128], *argv[] = { "pangaea", "-races", dir, NULL };
    int saved, fd;
    FILE *fp;
    size_t n;

    snprintf(path, sizeof path, "%s.txt", dir);
    fflush(stdout);
    saved = dup(1);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    dup2(fd, 1);
    close(fd);
    top_races(3, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    n = fread(buf, 1, size - 1, fp);
    buf[n] = 0;
    fclose(fp);
    unlink(path);
}

/* Two receives at one site, each taking ltid 2's message, one racing with
 * the exit notice of ltid 3, the other (after ltid 4 learnt of the first)
 * with that of ltid 4: other senders, two entries of the text report. */
START_TEST(test_exit_notices_of_two_tasks_are_two_senders)
{
    char text[4096];

    ck_assert_int_eq(pg_logw_query(log_of(3), now += 1e-3, "pvm_gsize", "g",
                                   1), 0); /* an event: ltid 3 ends after it */
    send1(2, 1, 5, 1);
    send1(2, 1, 5, 2);
    recv1(1, -1, -1, 2, 5, 1);
    pg_logw_note(log_of(1), 0, -1, -1, 0);
    ck_assert_int_eq(pg_logw_notice(log_of(1), now += 1e-3, "pvm_recv", 99,
                                    PG_NOTICE_EXIT, 3, 4), 0);
    send1(1, 4, 7, 1);
    recv1(4, 1, 7, 1, 7, 1);
    recv1(1, -1, -1, 2, 5, 2);
    pg_logw_note(log_of(1), 0, -1, -1, 0);
    ck_assert_int_eq(pg_logw_notice(log_of(1), now += 1e-3, "pvm_recv", 99,
                                    PG_NOTICE_EXIT, 4, 4), 0);
    close_all();
    text_report(text, sizeof text);
    ck_assert_msg(strstr(text, "event 1 pvm_recv(-1, -1) at an unknown site "
                         "took ltid 2 msg 1;\n   could have taken the exit "
                         "notice of ltid 3 (tag 99)\n") &&
                  strstr(text, "pvm_recv(-1, -1) at an unknown site took "
                         "ltid 2 msg 2;\n"
                         "   could have taken the exit notice of ltid 4 "
                         "(tag 99)\n") && !strstr(text, "same at"),
                  "%s", text);
}
END_TEST

/* A receive through the program's matcher: any message could do. */
START_TEST(test_matcher_is_judged_conservatively)
{
    int n;

    send1(2, 1, 5, 1);
    send1(3, 1, 6, 1);
    pg_logw_note(log_of(1), 0, 2, 5, 1);
    ck_assert_int_eq(pg_logw_recv(log_of(1), now += 1e-3, "pvm_recv", 2, 5, 1,
                                  4), 0);
    n = analyse();
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(races[0].conservative, 1);
    done(n);
}
END_TEST

/* A random run of 7 tasks (sends, multicasts, receives from anyone or
 * from one task, a barrier of all half-way), analysed twice: with the
 * clocks of each task as arrays and as hashes (what more than
 * DENSE_MAX tasks get).  The same races, alternatives, first races and
 * per-message clocks. */
struct pending { int from, msgid, tag; };

/* Steps from..to-1 of the random run (from 0: from its start). */
static void random_steps(int from, int to_step)
{
    static struct pending q[8][4096];
    static int nq[8], next[8];
    static unsigned long long rng;
    int step, k, i, to[3], nto;

    if (from == 0) {
        memset(nq, 0, sizeof nq), memset(next, 0, sizeof next);
        rng = 0x9E3779B97F4A7C15ull;
    }
    for (step = from; step < to_step; step++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        k = 1 + (int)(rng % 7);
        if (step == 1500)
            for (i = 1; i <= 7; i++)
                ck_assert_int_eq(pg_logw_barrier(log_of(i), now += 1e-3, "g",
                                                 7, 0), 0);
        if (nq[k] > 0 && (rng >> 8) % 100 < 50) {
            struct pending m;

            i = (int)((rng >> 16) % nq[k]);
            m = q[k][i];
            q[k][i] = q[k][--nq[k]];
            recv1(k, (rng >> 24) % 4 ? -1 : m.from, -1, m.from, m.tag, m.msgid);
            continue;
        }
        nto = 1 + (int)((rng >> 32) % 3);
        for (i = 0; i < nto; i++)
            to[i] = 1 + (int)((rng >> (36 + 3 * i)) % 7);
        if (nto > 1 && to[0] == to[1])
            nto = 1;
        if (nto > 2 && (to[2] == to[0] || to[2] == to[1]))
            nto = 2;
        next[k]++;
        ck_assert_int_eq(pg_logw_send(log_of(k), now += 1e-3, nto > 1 ?
                                      "pvm_mcast" : "pvm_send", 5, next[k], 4,
                                      nto, to), 0);
        for (i = 0; i < nto; i++)
            if (nq[to[i]] < 4096)
                q[to[i]][nq[to[i]]++] = (struct pending){ k, next[k], 5 };
    }
}

static void random_run(void)
{
    random_steps(0, 3000);
}

/* What one analysis found (its races, each message's vcd), to hold
 * another of the same logs to. */
struct kept {
    struct rc_race *races;
    int n, *vcd;
};

static void keep_analysis(struct kept *k, int n)
{
    int i;

    k->races = races, races = NULL, k->n = n;
    k->vcd = malloc((run.nmsg + 1) * sizeof *k->vcd);
    for (i = 0; i < run.nmsg; i++)
        k->vcd[i] = run.msg[i].vcd;
    rc_free(&run);
}

/* The analysis now (n races) is the kept one, race for race; frees it. */
static void same_as_kept(struct kept *k, int n)
{
    int i, j;

    ck_assert_int_eq(n, k->n);
    for (i = 0; i < run.nmsg; i++)
        ck_assert_int_eq(run.msg[i].vcd, k->vcd[i]);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(races[i].task, k->races[i].task);
        ck_assert_int_eq(races[i].pos, k->races[i].pos);
        ck_assert_int_eq(races[i].took, k->races[i].took);
        ck_assert_int_eq(races[i].first, k->races[i].first);
        ck_assert_int_eq(races[i].nalts, k->races[i].nalts);
        for (j = 0; j < k->races[i].nalts; j++)
            ck_assert_int_eq(races[i].alts[j].msg, k->races[i].alts[j].msg);
    }
    rc_races_free(k->races, k->n);
    free(k->vcd);
}

START_TEST(test_clocks_as_hashes_give_what_arrays_give)
{
    struct kept k;
    int n;

    random_run();
    close_all();
    n = analyse(); /* arrays: 7 tasks */
    ck_assert_int_gt(n, 100);
    keep_analysis(&k, n);
    rc_dense_max = 0; /* hashes */
    n = analyse();
    rc_dense_max = 2048;
    same_as_kept(&k, n);
    done(n);
}
END_TEST

/* A master (1) taking four workers' messages with pvm_recv(-1,-1) and
 * acking each; the workers learn only from it and send only to it, but
 * for 5, which also tells 2 once.  The clocks with the walks skipped
 * where no one would ask what they learn (workers 3 and 4) give every
 * message's vcd and every race as the clocks with every walk. */
START_TEST(test_tasks_that_skip_the_walks_are_asked_what_they_know)
{
    struct kept k;
    int r, i, w, n;

    for (r = 0; r < 6; r++) {
        for (w = 2; w <= 5; w++) {
            send1(w, 1, 5, r + 1);
            if (w == 5 && r == 2)
                send1(5, 2, 7, 100);
            recv1(w, 1, 6, 1, 6, 10 * r + w);
            if (w == 2 && r == 3)
                recv1(2, 5, 7, 5, 7, 100);
        }
        for (i = 0; i < 4; i++) {
            w = 2 + (i + r) % 4;
            recv1(1, -1, 5, w, 5, r + 1);
            send1(1, w, 6, 10 * r + w);
        }
    }
    n = analyse();
    ck_assert_int_gt(n, 10);
    keep_analysis(&k, n);
    rc_lazy_clocks = 0;
    n = analyse();
    rc_lazy_clocks = 1;
    same_as_kept(&k, n);
    done(n);
}
END_TEST

/* -whatif examines one receive, on logs loaded without clocks, with what
 * follows it from its reach (rc_find_at): for every receive of a random
 * run (multicasts, a barrier, named and wildcard sources) it finds the
 * race the whole analysis finds there, alternative for alternative. */
START_TEST(test_one_receive_by_its_reach_gives_what_the_analysis_gives)
{
    struct rc_run one;
    struct rc_race r;
    int n, i, j, t, pos, rc, *min, checked = 0;
    pg_err err;

    random_run();
    n = analyse();
    ck_assert_int_gt(n, 100);
    ck_assert_int_eq(rc_load_logs(&one, dir, &err), 0);
    min = malloc((one.ntasks + 1) * sizeof *min);
    for (t = 0, i = 0; t < one.ntasks; t++)
        for (pos = 1; pos <= one.tasks[t].n; pos++) {
            if (RC_EV(&one, t, pos)->kind != PG_EV_RECV)
                continue;
            ck_assert_int_eq(top_whatif_reach(&one, t, pos, min), 0);
            rc = rc_find_at(&one, t, pos, min, &r);
            while (i < n && (races[i].task < t ||
                             (races[i].task == t && races[i].pos < pos)))
                i++;
            ck_assert_int_eq(rc, i < n && races[i].task == t &&
                                 races[i].pos == pos);
            if (rc != 1)
                continue;
            checked++;
            ck_assert_int_eq(r.took, races[i].took);
            ck_assert_int_eq(r.nalts, races[i].nalts);
            for (j = 0; j < r.nalts; j++)
                ck_assert_int_eq(r.alts[j].msg, races[i].alts[j].msg);
            free(r.alts);
        }
    ck_assert_int_eq(checked, n);
    free(min);
    rc_free(&one);
    done(n);
}
END_TEST

/* One receive judged by its reach overwrites the clocks' view of the
 * messages to its task: the whole analysis afterwards, on the same
 * clocked run, still finds what a fresh load finds, first marks too. */
START_TEST(test_the_analysis_after_one_receive_is_unchanged)
{
    struct rc_run one;
    struct rc_race r, *again;
    int n, m, i, j, t, pos, *min;
    pg_err err;

    random_run();
    n = analyse();
    ck_assert_int_gt(n, 100);
    ck_assert_int_eq(rc_load(&one, dir, &err), 0);
    min = malloc((one.ntasks + 1) * sizeof *min);
    for (t = 0; t < one.ntasks; t++)
        for (pos = 1; pos <= one.tasks[t].n; pos++)
            if (RC_EV(&one, t, pos)->kind == PG_EV_RECV) {
                ck_assert_int_eq(top_whatif_reach(&one, t, pos, min), 0);
                if (rc_find_at(&one, t, pos, min, &r) == 1)
                    free(r.alts);
            }
    m = rc_find(&one, &again);
    ck_assert_int_eq(m, n);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(again[i].task, races[i].task);
        ck_assert_int_eq(again[i].pos, races[i].pos);
        ck_assert_int_eq(again[i].first, races[i].first);
        ck_assert_int_eq(again[i].nalts, races[i].nalts);
        for (j = 0; j < again[i].nalts; j++)
            ck_assert_int_eq(again[i].alts[j].msg, races[i].alts[j].msg);
    }
    rc_races_free(again, m);
    free(min);
    rc_free(&one);
    done(n);
}
END_TEST

/* A pvm_nrecv by ltid 1 that took message msgid of `from` (any source,
 * tag 5). */
static void nrecv1(int from, int msgid)
{
    pg_logw_note(log_of(1), 0, -1, 5, 0);
    ck_assert_int_eq(pg_logw_recv(log_of(1), now += 1e-3, "pvm_nrecv", from,
                                  5, msgid, 4), 0);
}

/* Event number of ltid 1's k-th receive in the loaded run. */
static int nth_receive(int k)
{
    int pos;

    for (pos = 1; pos <= run.tasks[0].n; pos++)
        if (RC_EV(&run, 0, pos)->kind == PG_EV_RECV && --k == 0)
            return pos;
    ck_abort_msg("no such receive");
    return 0;
}

/* A poll that found a message could have found nothing only if it had
 * not seen the send otherwise: ltid 2 sends m1 to ltid 1, then m2 to ltid
 * 3, which sends m3 to ltid 1.  Ltid 1 polling m1 before it takes m3 could
 * have missed it; after m3 (which followed m1's send) PVM had it queued.
 * A blocking receive is never forced to find nothing. */
START_TEST(test_a_poll_finds_nothing_only_if_it_had_not_seen_the_send)
{
    int n;

    send1(2, 1, 5, 1);
    send1(2, 3, 5, 2);
    recv1(3, 2, 5, 2, 5, 2);
    send1(3, 1, 5, 1);
    nrecv1(2, 1);      /* m1, polled first: could have been missed */
    recv1(1, 3, 5, 3, 5, 1);
    n = analyse();
    ck_assert_int_eq(top_whatif_may_find_nothing(&run, 0, nth_receive(1)), 1);
    ck_assert_int_eq(top_whatif_may_find_nothing(&run, 0, nth_receive(2)), 0);
    done(n);
    teardown(), setup();
    send1(2, 1, 5, 1);
    send1(2, 3, 5, 2);
    recv1(3, 2, 5, 2, 5, 2);
    send1(3, 1, 5, 1);
    recv1(1, 3, 5, 3, 5, 1);
    nrecv1(2, 1);      /* m1, polled after m3: it was there */
    n = analyse();
    ck_assert_int_eq(top_whatif_may_find_nothing(&run, 0, nth_receive(2)), 0);
    done(n);
}
END_TEST

/* An MPI rank's failed tests of a send's request took no message: an
 * older recording wrote them as a <poll> of call MPI_Isend asking for
 * nothing known (-1, -2), which must be no race, no receive counted, and
 * nothing -whatif could force; the same poll of a receive (MPI_Irecv)
 * races with the messages there.  Ltid 1 tests its send, then takes one
 * of the two messages of ltids 2 and 3 with MPI_Recv(MPI_ANY_SOURCE). */
static void send_test_then_recv(const char *poll_call, int asked_tag)
{
    int to = 4;

    ck_assert_int_eq(pg_logw_send(log_of(1), now += 1e-3, "MPI_Isend", 7, 1,
                                  4, 1, &to), 0);
    ck_assert_int_eq(pg_logw_poll(log_of(1), now += 1e-3, poll_call, -1,
                                  asked_tag, 0, 0), 0);
    pg_logw_misses(log_of(1), 5);
    ck_assert_int_eq(pg_logw_query(log_of(1), now += 1e-3, "MPI_Send_done",
                                   "0", 1), 0);
    pg_logw_note(log_of(1), 0, -1, 5, 0);
    ck_assert_int_eq(pg_logw_recv(log_of(1), now += 1e-3, "MPI_Recv", 2, 5,
                                  1, 4), 0);
    send1(2, 1, 5, 1);
    send1(3, 1, 5, 1);
    pg_logw_note(log_of(4), 0, 1, 7, 0);
    ck_assert_int_eq(pg_logw_recv(log_of(4), now += 1e-3, "MPI_Recv", 1, 7,
                                  1, 4), 0);
}

START_TEST(test_a_failed_test_of_a_send_is_no_race)
{
    struct rc_race r;
    int n;

    ck_assert_str_eq(pg_msg_calls[PG_MSG_CALL_ISEND], "MPI_Isend");
    send_test_then_recv("MPI_Isend", -2);
    n = analyse();
    ck_assert_int_eq(n, 1); /* the MPI_Recv alone */
    ck_assert_int_eq(RC_EV(&run, 0, races[0].pos)->kind, PG_EV_RECV);
    ck_assert_int_eq(races[0].nalts, 1);
    ck_assert_int_eq(run.receives, 2); /* the MPI_Recv, ltid 4's */
    ck_assert_int_eq(RC_EV(&run, 0, 2)->kind, PG_EV_POLL);
    ck_assert_int_eq(rc_examined(RC_EV(&run, 0, 2)), 0);
    ck_assert_int_eq(rc_find_at(&run, 0, 2, NULL, &r), 0);
    done(n);
    teardown(), setup();
    send_test_then_recv("MPI_Irecv", -1); /* a receive's poll races */
    n = analyse();
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(RC_EV(&run, 0, races[0].pos)->kind, PG_EV_POLL);
    ck_assert_int_eq(races[0].nalts, 2);
    ck_assert_int_eq(run.receives, 3);
    done(n);
}
END_TEST

/* A pvm_trecv is a poll only where its call site timed out in the run
 * (the log does not say whether it had a time-out): ltid 1 takes ltid 2's
 * message with pvm_trecv at site 1, after a time-out there or not. */
START_TEST(test_a_trecv_is_a_poll_where_its_site_timed_out)
{
    int timed, n;

    for (timed = 0; timed <= 1; timed++) {
        if (timed)
            teardown(), setup();
        send1(2, 1, 5, 1);
        ck_assert_int_eq(pg_logw_site(log_of(1), now += 1e-3, 1, "p", 16),
                         0);
        if (timed) {
            ck_assert_int_eq(pg_logw_poll(log_of(1), now += 1e-3,
                                          "pvm_trecv", -1, 5, 0, 1), 0);
            pg_logw_misses(log_of(1), 1);
        }
        pg_logw_note(log_of(1), 1, -1, 5, 0);
        ck_assert_int_eq(pg_logw_recv(log_of(1), now += 1e-3, "pvm_trecv", 2,
                                      5, 1, 4), 0);
        n = analyse();
        ck_assert_int_eq(top_whatif_may_find_nothing(&run, 0,
                                                     nth_receive(1)), timed);
        done(n);
    }
}
END_TEST

/* The graph of the views is derived from the model -races reads: every
 * send and receive of the model is the graph's event of the same task and
 * number, every matched receive's link is the model's match, and the
 * races found on the graph's model are those of -races. */
START_TEST(test_the_views_graph_is_the_analysis_model)
{
    static struct top_run tr;
    struct rc_race *r1;
    const struct rc_run *m;
    pg_err err;
    int n0, n1, i, j, g, t, links = 0;

    random_run();
    close_all();
    n0 = analyse();
    ck_assert_int_gt(n0, 100);
    ck_assert_msg(top_run_load(&tr, dir, &err) == 0, "%s", err.msg);
    m = tr.model;
    ck_assert_int_eq(m->nev, run.nev);
    for (i = 0; i < m->nev; i++) {
        const struct rc_ev *x = &m->ev[i];

        g = tr.graph_of[i];
        if (x->kind != PG_EV_SEND && x->kind != PG_EV_RECV) {
            ck_assert_int_eq(g, -1);
            continue;
        }
        ck_assert_int_ge(g, 0);
        for (t = 0; i >= m->tasks[t].first + m->tasks[t].n; t++)
            ;
        ck_assert_int_eq(tr.ev[g].seq,
                         rc_ev_seq(m, t, i - m->tasks[t].first + 1));
        ck_assert_int_eq(tr.ev[g].kind, x->kind);
        ck_assert_int_eq(tr.tasks[tr.ev[g].task].ltid,
                         run.tasks[tr.ev[g].task].ltid);
        if (x->kind == PG_EV_RECV && x->a >= 0) {
            const struct rc_msg *s = &m->msg[x->a];

            ck_assert_int_eq(tr.ev[g].partner,
                             tr.graph_of[m->tasks[s->src].first + s->src_pos - 1]);
            links++;
        }
    }
    ck_assert_int_eq(tr.nlinks, links);
    n1 = top_run_races(&tr, &r1);
    ck_assert_int_eq(n1, n0);
    for (i = 0; i < n0; i++) {
        ck_assert_int_eq(r1[i].task, races[i].task);
        ck_assert_int_eq(r1[i].pos, races[i].pos);
        ck_assert_int_eq(r1[i].took, races[i].took);
        ck_assert_int_eq(r1[i].first, races[i].first);
        ck_assert_int_eq(r1[i].nalts, races[i].nalts);
        for (j = 0; j < r1[i].nalts; j++)
            ck_assert_int_eq(r1[i].alts[j].msg, races[i].alts[j].msg);
    }
    rc_races_free(r1, n1);
    top_run_free(&tr);
    done(n0);
}
END_TEST

/* -tasks' summary streams the logs (tasks.c) and keeps no event: its
 * counts are the graph's, derived from the whole model (random run with
 * multicasts, messages never taken, a send to a task without a log, a
 * receive of a message never sent or sent to another task, message ids
 * out of a sender's order),
 * and each task's counts and last message event too. */
START_TEST(test_the_tasks_summary_counts_what_the_graph_counts)
{
    static struct top_run whole, sum;
    pg_err err;
    int i, nine = 9;

    random_steps(0, 1500);
    ck_assert_int_eq(pg_logw_send(log_of(3), now += 1e-3, "pvm_send", 5, 99,
                                  4, 1, &nine), 0); /* ltid 9 has no log */
    recv1(4, -1, -1, 2, 5, 12345); /* never sent */
    send1(6, 1, 5, 3); /* a message id again, and below the last */
    send1(2, 7, 5, 777); /* sent to 7, "taken" by 4: no match (the */
    recv1(4, -1, -1, 2, 5, 777); /* model's key names the receiver) */
    random_steps(1500, 3000);
    close_all();
    ck_assert_msg(top_run_load(&whole, dir, &err) == 0, "%s", err.msg);
    ck_assert_msg(top_run_load_summary(&sum, dir, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(sum.ntasks, whole.ntasks);
    ck_assert_int_eq(sum.nsends, whole.nsends);
    ck_assert_int_eq(sum.nrecvs, whole.nrecvs);
    ck_assert_int_eq(sum.nlinks, whole.nlinks);
    ck_assert_int_gt(whole.unmatched_sends, 0);
    ck_assert_int_eq(sum.unmatched_sends, whole.unmatched_sends);
    ck_assert_int_eq(whole.unmatched_recvs, 2);
    ck_assert_int_eq(sum.unmatched_recvs, whole.unmatched_recvs);
    for (i = 0; i < whole.ntasks; i++) {
        const struct top_task *a = &whole.tasks[i], *b = &sum.tasks[i];

        ck_assert_int_eq(b->ltid, a->ltid);
        ck_assert_int_eq(b->nsend, a->nsend);
        ck_assert_int_eq(b->nrecv, a->nrecv);
        ck_assert_int_eq(b->nev > 0, a->nev > 0);
        if (a->nev > 0)
            ck_assert_int_eq(sum.ev[b->first + b->nev - 1].seq,
                             whole.ev[a->first + a->nev - 1].seq);
    }
    top_run_free(&whole);
    top_run_free(&sum);
}
END_TEST

/* A page in parts of one part holding every event (the split's maps). */
static int one_part(const void *ctx, int e)
{
    (void)ctx, (void)e;
    return 0;
}

static int here_all(const void *ctx, int e, int *part)
{
    (void)ctx;
    *part = 0;
    return e;
}

static struct top_display_map map_all(const void *ctx, int k)
{
    (void)k;
    return (struct top_display_map){ here_all, ctx };
}

/* The same races written through a page in parts' temporary files
 * (top_display_races_split: found bare, handed over again, none kept). */
static char *split_text(struct top_run *tr, size_t *size)
{
    struct top_race_split how = { one_part, map_all, NULL };
    struct top_race_part *parts;
    struct rc_race *bare;
    char *c = NULL;
    FILE *fc = open_memstream(&c, size);
    int nb = top_run_races_bare(tr, &bare);

    ck_assert_int_eq(top_display_races_split(tr, bare, nb, &how, 0, 1,
                                             &parts), 0);
    top_display_races_part(fc, parts, 0, NULL);
    top_display_races_drop(parts, 1);
    fclose(fc);
    if (nb > 0)
        rc_races_free(bare, nb);
    return c;
}

/* A lean load (-display's: the model given back as the graph is derived,
 * loaded again for the races) derives the same graph as a whole load
 * (tr): the same events, partners, links and counts; then the same races
 * (text a) once the model is loaded again. */
static void lean_same(const struct top_run *tr, const char *a)
{
    static struct top_run lean;
    char *b = NULL;
    size_t nb = 0;
    FILE *fb;
    pg_err err;
    int i;

    ck_assert_msg(top_run_load_lean(&lean, dir, &err) == 0, "%s", err.msg);
    ck_assert_ptr_null(lean.model);
    ck_assert_int_eq(lean.nev, tr->nev);
    ck_assert_int_eq(lean.nlinks, tr->nlinks);
    ck_assert_int_eq(lean.nto, tr->nto);
    ck_assert_int_eq(lean.unmatched_sends, tr->unmatched_sends);
    ck_assert_int_eq(lean.unmatched_recvs, tr->unmatched_recvs);
    ck_assert_int_eq(lean.model_nev, tr->model->nev);
    ck_assert_int_eq(memcmp(lean.ev, tr->ev, (size_t)tr->nev * sizeof *tr->ev),
                     0);
    ck_assert_int_eq(memcmp(lean.links, tr->links,
                            (size_t)tr->nlinks * sizeof *tr->links), 0);
    ck_assert_int_eq(memcmp(lean.graph_of, tr->graph_of,
                            (size_t)tr->model->nev * sizeof *tr->graph_of), 0);
    for (i = 0; i < tr->nev; i++)
        ck_assert_int_eq(lean.ev[i].lam, tr->ev[i].lam);
    top_run_drop_events(&lean);
    ck_assert_msg(top_run_model(&lean, &err) == 0, "%s", err.msg);
    ck_assert_ptr_nonnull(lean.model);
    fb = open_memstream(&b, &nb);
    top_display_races(fb, &lean, NULL);
    fclose(fb);
    ck_assert_str_eq(b, a);
    free(b);
    top_run_free(&lean);
}

/* The page of a whole run writes its races streamed (kept bare, found
 * again race by race), and so does a page in parts (through temporary
 * files): the same text as from the races kept with their alternatives,
 * on the random run and on one with exit notices among the
 * alternatives. */
static void page_races_same(void)
{
    static struct top_run tr;
    struct rc_race *r;
    char *a = NULL, *b = NULL, *c;
    size_t na = 0, nb = 0, nc = 0;
    FILE *fa, *fb;
    pg_err err;
    int n;

    ck_assert_msg(top_run_load(&tr, dir, &err) == 0, "%s", err.msg);
    n = top_run_races(&tr, &r);
    fa = open_memstream(&a, &na);
    fb = open_memstream(&b, &nb);
    top_display_races_of(fa, &tr, r, n, NULL, NULL);
    top_display_races(fb, &tr, NULL);
    fclose(fa), fclose(fb);
    ck_assert_uint_gt(na, 40);
    ck_assert_str_eq(b, a);
    c = split_text(&tr, &nc);
    ck_assert_str_eq(c, a);
    if (n > 0)
        rc_races_free(r, n);
    free(b), free(c);
    lean_same(&tr, a);
    free(a);
    top_run_free(&tr);
}

START_TEST(test_the_page_streams_the_races_it_kept)
{
    random_run();
    close_all();
    page_races_same();
}
END_TEST

/* A master (ltid 1) taking 20 workers' 4 messages each with
 * pvm_recv(-1,-1), round and round: every race offers the head of each
 * worker's queue, and the page writes most as the edits of the race
 * before (display_races.c); streamed, kept and in parts the same. */
START_TEST(test_the_page_writes_races_of_many_senders_as_edits)
{
    static struct top_run tr;
    struct rc_race *r;
    char *a = NULL, *line;
    size_t na = 0;
    FILE *fa;
    pg_err err;
    int k, t, n, edited = 0, v[4];

    for (k = 1; k <= 4; k++)
        for (t = 2; t <= 21; t++)
            send1(t, 1, 10, k);
    for (k = 1; k <= 4; k++)
        for (t = 2; t <= 21; t++)
            recv1(1, -1, -1, t, 10, k);
    close_all();
    page_races_same();
    ck_assert_msg(top_run_load(&tr, dir, &err) == 0, "%s", err.msg);
    n = top_run_races(&tr, &r);
    ck_assert_int_eq(n, 79); /* the last receive: its message alone */
    fa = open_memstream(&a, &na);
    top_display_races_of(fa, &tr, r, n, NULL, NULL);
    fclose(fa);
    for (line = strstr(a, "\"races\":["); line; line = strchr(line + 1, '\n'))
        if (sscanf(line + 1, "%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3]) == 4 &&
            v[3] < 0)
            edited++;
    ck_assert_int_ge(edited, 50);
    rc_races_free(r, n);
    free(a);
    top_run_free(&tr);
}
END_TEST

/* A lean load's second load (top_run_model) finds the logs as the first
 * left them, or says they changed: the graph's map to the model's events
 * would name other events. */
START_TEST(test_a_lean_load_refuses_logs_changed_in_between)
{
    static struct top_run lean;
    char path[256];
    pg_err err;

    send1(2, 1, 5, 1);
    recv1(1, -1, -1, 2, 5, 1);
    close_all();
    ck_assert_msg(top_run_load_lean(&lean, dir, &err) == 0, "%s", err.msg);
    pg_log_path(path, sizeof path, dir, 2, PG_LOG_COMM);
    ck_assert_int_eq(unlink(path), 0);
    send1(2, 1, 5, 1);
    send1(2, 1, 5, 2);
    close_all();
    ck_assert_int_eq(top_run_model(&lean, &err), -1);
    ck_assert_msg(strstr(err.msg, "changed while they were read") &&
                  strstr(err.msg, dir), "%s", err.msg);
    ck_assert_ptr_null(lean.model);
    top_run_free(&lean);
}
END_TEST

START_TEST(test_the_page_streams_races_with_notices)
{
    send1(2, 1, 5, 1);
    recv1(1, -1, -1, 2, 5, 1);
    pg_logw_note(log_of(1), 0, -1, -1, 0);
    ck_assert_int_eq(pg_logw_notice(log_of(1), now += 1e-3, "pvm_recv", 99,
                                    PG_NOTICE_EXIT, 2, 4), 0);
    close_all();
    page_races_same();
}
END_TEST

/* Every task's log read past what the model holds, in the order given
 * (ltids). */
static void grow_tasks(struct rc_run *g, const int *ltids, int n)
{
    pg_err err;
    int i, ti, cut;

    for (i = 0; i < n; i++) {
        if (w[ltids[i]])
            ck_assert_int_eq(pg_logw_flush(w[ltids[i]]), 0);
        ck_assert_msg(rc_grow_task(g, ltids[i], &ti, &cut, &err) == 0, "%s",
                      err.msg);
        ck_assert_int_eq(g->tasks[ti].ltid, ltids[i]);
    }
}

/* One round of the live view's: the tasks read, the new events placed. */
static void grow_round(struct rc_run *g, const int *ltids, int n)
{
    grow_tasks(g, ltids, n);
    ck_assert_int_eq(rc_grow_place(g), 0);
}

/* A send's message entries: the same destinations, wherever they are. */
static void same_entries(const struct rc_run *a, const struct rc_ev *x,
                         const struct rc_run *b, const struct rc_ev *y)
{
    int j;

    for (j = 0; j < x->nto; j++) {
        ck_assert_int_eq(a->msg[x->a + j].dst, b->msg[y->a + j].dst);
        ck_assert_int_eq(a->msg[x->a + j].src, b->msg[y->a + j].src);
        ck_assert_int_eq(a->msg[x->a + j].src_pos, b->msg[y->a + j].src_pos);
        ck_assert_int_eq(a->view->to[x->a + j], b->view->to[y->a + j]);
    }
}

/* The live view's model, grown while the logs are written (in rounds,
 * tasks read in changing orders, a task's log first seen after others'),
 * is the model loaded from the finished logs: the same tasks, events
 * (but the matches, which growing does not make), columns and message
 * entries. */
START_TEST(test_a_grown_model_is_the_loaded_model)
{
    static const int orders[4][7] = { { 5, 2, 7 }, { 7, 6, 5, 4, 3, 2, 1 },
                                      { 1, 2, 3, 4, 5, 6, 7 },
                                      { 4, 1, 7, 2, 6, 3, 5 } };
    static const int norder[4] = { 3, 7, 7, 7 };
    struct rc_run g;
    struct rc_ev x, y;
    pg_err err;
    int r, i;

    ck_assert_int_eq(rc_grow_begin(&g, dir), 0);
    for (r = 0; r < 6; r++) {
        random_steps(r * 500, r * 500 + 250);
        if (r == 2) /* each task read twice before its events are placed */
            grow_tasks(&g, orders[1], 7);
        random_steps(r * 500 + 250, r * 500 + 500);
        grow_round(&g, orders[r % 4], norder[r % 4]);
    }
    close_all();
    grow_round(&g, orders[1], 7);
    ck_assert_msg(rc_load_view(&run, dir, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(g.ntasks, run.ntasks);
    ck_assert_int_eq(g.nev, run.nev);
    ck_assert_int_eq(g.nmsg, run.nmsg);
    for (i = 0; i < run.ntasks; i++) {
        ck_assert_int_eq(g.tasks[i].ltid, run.tasks[i].ltid);
        ck_assert_int_eq(g.tasks[i].first, run.tasks[i].first);
        ck_assert_int_eq(g.tasks[i].n, run.tasks[i].n);
        ck_assert_int_eq(g.tasks[i].nsites, run.tasks[i].nsites);
    }
    for (i = 0; i < run.nev; i++) {
        x = g.ev[i], y = run.ev[i];
        if (x.kind == PG_EV_SEND)
            same_entries(&g, &g.ev[i], &run, &run.ev[i]);
        if (x.kind == PG_EV_SEND || x.kind == PG_EV_RECV ||
            x.kind == PG_EV_NOTICE)
            x.a = y.a = 0; /* entries: where they are; receives: unmatched */
        ck_assert_msg(!memcmp(&x, &y, sizeof x), "event %d differs", i);
        ck_assert(g.view->t[i] == run.view->t[i]);
        ck_assert_int_eq(g.view->bytes[i], run.view->bytes[i]);
        ck_assert_int_eq(g.view->waited[i], run.view->waited[i]);
    }
    ck_assert_int_eq(g.nbars, run.nbars);
    rc_free(&g);
    rc_free(&run);
}
END_TEST

/* The live view reads a task's log again every 0.2 s while it grows: a
 * read decodes the events it finds and at most a block's worth again
 * (the open block, walked again; an event takes a byte at least), never
 * the log from its start (which took 0.5 s a read at 10^6 events). */
START_TEST(test_a_grown_models_read_costs_the_new_events_not_the_log)
{
    static const int one[] = { 1 };
    struct rc_run g;
    long before;
    int r, i;

    ck_assert_int_eq(rc_grow_begin(&g, dir), 0);
    for (i = 0; i < 20000; i++)
        send1(1, 2, 5, i + 1);
    grow_round(&g, one, 1);
    ck_assert_int_eq(g.tasks[0].n, 20000);
    ck_assert_int_ge(rc_grow_decoded(&g), 20000);
    for (r = 0; r < 5; r++) {
        for (i = 0; i < 100; i++)
            send1(1, 2, 5, 20000 + r * 100 + i + 1);
        before = rc_grow_decoded(&g);
        grow_round(&g, one, 1);
        ck_assert_int_eq(g.tasks[0].n, 20000 + (r + 1) * 100);
        ck_assert_int_ge(rc_grow_decoded(&g) - before, 100);
        ck_assert_msg(rc_grow_decoded(&g) - before <= 100 + 4096,
                      "read %d decoded %ld events for 100 new ones", r,
                      rc_grow_decoded(&g) - before);
    }
    for (i = 0; i < g.tasks[0].n; i++) /* each once, in order */
        ck_assert_int_eq(RC_EV(&g, 0, i + 1)->msgid, i + 1);
    close_all();
    rc_free(&g);
}
END_TEST

/* What rc_find_each hands over, compared with what rc_find kept. */
struct handed {
    const struct rc_race *want;
    int n, seen;
};

static int compare_handed(struct rc_run *r, const struct rc_race *got,
                          void *arg)
{
    struct handed *h = arg;
    const struct rc_race *w = &h->want[h->seen++];
    int j;

    (void)r;
    ck_assert_int_lt(h->seen - 1, h->n);
    ck_assert_int_eq(got->task, w->task);
    ck_assert_int_eq(got->pos, w->pos);
    ck_assert_int_eq(got->took, w->took);
    ck_assert_int_eq(got->first, w->first);
    ck_assert_int_eq(got->out_of_order, w->out_of_order);
    ck_assert_int_eq(got->nalts, w->nalts);
    for (j = 0; j < w->nalts; j++) {
        ck_assert_int_eq(got->alts[j].msg, w->alts[j].msg);
        ck_assert_int_eq(got->alts[j].fifo_broken, w->alts[j].fifo_broken);
    }
    return 0;
}

/* The report streams the races: kept bare (no alternatives, the same
 * races and first marks), then found again one by one with the
 * alternatives rc_find keeps. */
START_TEST(test_races_found_again_one_by_one_are_the_races_kept)
{
    struct rc_race *bare;
    struct handed h;
    int n, nb, i;

    random_run();
    n = analyse();
    ck_assert_int_gt(n, 100);
    nb = rc_find_bare(&run, &bare);
    ck_assert_int_eq(nb, n);
    for (i = 0; i < n; i++) {
        ck_assert_ptr_null(bare[i].alts);
        ck_assert_int_eq(bare[i].task, races[i].task);
        ck_assert_int_eq(bare[i].pos, races[i].pos);
        ck_assert_int_eq(bare[i].took, races[i].took);
        ck_assert_int_eq(bare[i].conservative, races[i].conservative);
        ck_assert_int_eq(bare[i].first, races[i].first);
        /* the walk stopped at the candidates that make a race */
        ck_assert_int_ge(bare[i].nalts, 1);
        ck_assert_int_le(bare[i].nalts, races[i].nalts);
    }
    h = (struct handed){ races, n, 0 };
    ck_assert_int_eq(rc_find_each(&run, bare, nb, compare_handed, &h), 0);
    ck_assert_int_eq(h.seen, n);
    h.seen = 0; /* races that are not the first pass's: refused */
    ck_assert_int_eq(rc_find_each(&run, bare, nb - 1, compare_handed, &h), -1);
    rc_races_free(bare, nb);
    done(n);
}
END_TEST

/* The random run with two receivers routing direct from the start (every
 * queued message of a sender an alternative) and one from half-way:
 * found again from each task's last receive down, the same races (done()
 * compares them). */
START_TEST(test_races_found_going_down_are_the_races_kept)
{
    int n;

    ck_assert_int_eq(pg_logw_route(log_of(2), now += 1e-3, 3, 0), 0);
    ck_assert_int_eq(pg_logw_route(log_of(5), now += 1e-3, 3, 0), 0);
    random_steps(0, 1500);
    ck_assert_int_eq(pg_logw_route(log_of(3), now += 1e-3, 3, 0), 0);
    random_steps(1500, 3000);
    n = analyse();
    ck_assert_int_gt(n, 100);
    done(n);
}
END_TEST

/* ---- a race's runs as changes (races_runs.c) ------------------------ */

/* Runs of task 0 from "LTID:FIRST-LAST ..." (tag 1), as rc_runs_of would
 * leave them. */
static void runs_from(struct rc_runs *s, const char *text)
{
    int ltid, first, last, used, prev = -1;

    s->n = 0, s->nsenders = 0, s->ordered = 1, s->task = 0, s->nchg = 0;
    while (sscanf(text, " %d:%d-%d%n", &ltid, &first, &last, &used) == 3) {
        ck_assert_int_eq(pg_grow(&s->run, &s->cap, s->n + 1, sizeof *s->run),
                         0);
        s->run[s->n++] = (struct rc_run_of){ ltid, first, last, 1 };
        if (ltid != prev)
            s->nsenders++, s->ordered &= ltid > prev;
        prev = ltid, text += used;
    }
}

/* The changes of cur from prev, as "LTID:FIRST-LAST,..|LTID:-|..". */
static void changes_text(const struct rc_runs *cur, char *buf, size_t size)
{
    size_t k, j, at = 0;

    buf[0] = 0;
    for (k = 0; k < (size_t)cur->nchg; k++) {
        at += snprintf(buf + at, size - at, "%s%d:", k ? "|" : "",
                       cur->chg[k].ltid);
        if (cur->chg[k].n == 0)
            at += snprintf(buf + at, size - at, "-");
        for (j = 0; j < cur->chg[k].n; j++)
            at += snprintf(buf + at, size - at, "%s%d-%d", j ? "," : "",
                           cur->run[cur->chg[k].at + j].first,
                           cur->run[cur->chg[k].at + j].last);
    }
}

/* Senders 1..n, each one message: "1:5-5 2:5-5 ...", but `skip` and
 * with `moved` one on. */
static void heads(struct rc_runs *s, int n, int skip, int moved,
                  const char *more)
{
    char text[512];
    int t, at = 0;

    for (t = 1; t <= n; t++)
        if (t != skip)
            at += snprintf(text + at, sizeof text - at, "%d:%d-%d ", t,
                           5 + (t == moved), 5 + (t == moved));
    snprintf(text + at, sizeof text - at, "%s", more);
    runs_from(s, text);
}

START_TEST(test_a_race_is_written_as_the_senders_changed_since_the_one_before)
{
    struct rc_runs prev = { .task = -1 }, cur = { .task = -1 };
    char got[512];

    heads(&prev, 17, 3, 0, "");     /* took 3's: 3 not offered */
    heads(&cur, 17, 7, 3, "");      /* took 7's: 3 offered again, one on */
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 1);
    changes_text(&cur, got, sizeof got);
    ck_assert_str_eq(got, "3:6-6|7:-");

    /* a sender's runs that differ in their second run only, a sender
     * new at the end (17), and a sender whose run grew */
    runs_from(&prev, "1:1-1 1:3-4 2:1-1 3:1-1 4:1-1 5:1-1 6:1-1 7:1-1 8:1-1 "
              "9:1-1 10:1-1 11:1-1 12:1-1 13:1-1 14:1-1 15:1-1 16:1-1");
    runs_from(&cur, "1:1-1 1:3-5 2:1-1 3:1-1 4:1-1 5:1-1 6:1-1 7:1-1 8:1-1 "
              "9:1-1 10:1-1 11:1-1 12:1-1 13:1-1 14:1-1 15:1-1 16:1-2 "
              "17:4-4");
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 1);
    changes_text(&cur, got, sizeof got);
    ck_assert_str_eq(got, "1:1-1,3-5|16:1-2|17:4-4");

    /* the same race: no change at all */
    heads(&prev, 16, 0, 0, "");
    heads(&cur, 16, 0, 0, "");
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 1);
    ck_assert_int_eq(cur.nchg, 0);
    rc_runs_free(&prev), rc_runs_free(&cur);
}
END_TEST

START_TEST(test_a_race_is_written_in_full_unless_its_changes_are_few)
{
    struct rc_runs prev = { .task = -1 }, cur = { .task = -1 };
    char more[256];
    int t, at = 0;

    /* 15 senders: in full, however few changed */
    heads(&prev, 15, 0, 0, "");
    heads(&cur, 15, 0, 1, "");
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 0);
    /* 16 senders, 4 changed: a quarter, changes; 5: in full */
    heads(&prev, 16, 0, 0, "");
    runs_from(&cur, "1:6-6 2:6-6 3:6-6 4:6-6 5:5-5 6:5-5 7:5-5 8:5-5 9:5-5 "
              "10:5-5 11:5-5 12:5-5 13:5-5 14:5-5 15:5-5 16:5-5");
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 1);
    ck_assert_int_eq(cur.nchg, 4);
    runs_from(&cur, "1:6-6 2:6-6 3:6-6 4:6-6 5:6-6 6:5-5 7:5-5 8:5-5 9:5-5 "
              "10:5-5 11:5-5 12:5-5 13:5-5 14:5-5 15:5-5 16:5-5");
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 0);
    /* the race before of another task, or none */
    heads(&cur, 16, 0, 1, "");
    prev.task = 1;
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 0);
    prev.task = -1;
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 0);
    /* senders out of ltid order (an MPI completion's rivals after its
     * senders): never merged */
    for (t = 1; t <= 16; t++)
        at += snprintf(more + at, sizeof more - at, "%d:%d-%d ", t, 5, 5);
    snprintf(more + at, sizeof more - at, "3:9-9");
    heads(&prev, 16, 0, 0, "");
    runs_from(&cur, more);
    ck_assert_int_eq(cur.ordered, 0);
    ck_assert_int_eq(rc_runs_as_change(&prev, &cur), 0);
    rc_runs_free(&prev), rc_runs_free(&cur);
}
END_TEST

static Suite *races_suite(void)
{
    Suite *s = suite_create("races");
    TCase *tc = tcase_create("analysis");

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120); /* random runs, sanitized, on a busy machine */
    tcase_add_test(tc, test_wildcard_races_named_source_does_not);
    tcase_add_test(tc, test_a_send_that_happens_after_the_receive_is_no_alternative);
    tcase_add_test(tc, test_tag_filter_leaves_other_tags_out);
    tcase_add_test(tc, test_a_waitany_completion_races_with_its_rivals);
    tcase_add_test(tc, test_a_receive_takes_only_its_own_context);
    tcase_add_test(tc, test_fifo_per_pair_unless_the_receiver_routes_direct);
    tcase_add_test(tc, test_failed_poll_races_unless_a_barrier_orders_it);
    tcase_add_test(tc, test_a_race_after_another_is_not_first);
    tcase_add_test(tc, test_an_events_number_and_polls_are_the_logs);
    tcase_add_test(tc, test_a_race_is_first_until_news_of_another_reaches_it);
    tcase_add_test(tc, test_exit_notice_races_with_the_last_message);
    tcase_add_test(tc, test_matcher_is_judged_conservatively);
    tcase_add_test(tc, test_exit_notices_of_two_tasks_are_two_senders);
    tcase_add_test(tc, test_clocks_as_hashes_give_what_arrays_give);
    tcase_add_test(tc, test_tasks_that_skip_the_walks_are_asked_what_they_know);
    tcase_add_test(tc, test_one_receive_by_its_reach_gives_what_the_analysis_gives);
    tcase_add_test(tc, test_the_analysis_after_one_receive_is_unchanged);
    tcase_add_test(tc, test_a_poll_finds_nothing_only_if_it_had_not_seen_the_send);
    tcase_add_test(tc, test_a_trecv_is_a_poll_where_its_site_timed_out);
    tcase_add_test(tc, test_a_failed_test_of_a_send_is_no_race);
    tcase_add_test(tc, test_the_views_graph_is_the_analysis_model);
    tcase_add_test(tc, test_a_grown_model_is_the_loaded_model);
    tcase_add_test(tc, test_a_grown_models_read_costs_the_new_events_not_the_log);
    tcase_add_test(tc, test_races_found_again_one_by_one_are_the_races_kept);
    tcase_add_test(tc, test_races_found_going_down_are_the_races_kept);
    tcase_add_test(tc, test_the_tasks_summary_counts_what_the_graph_counts);
    tcase_add_test(tc, test_the_page_streams_the_races_it_kept);
    tcase_add_test(tc, test_the_page_writes_races_of_many_senders_as_edits);
    tcase_add_test(tc, test_the_page_streams_races_with_notices);
    tcase_add_test(tc, test_a_lean_load_refuses_logs_changed_in_between);
    tcase_add_test(tc, test_a_race_is_written_as_the_senders_changed_since_the_one_before);
    tcase_add_test(tc, test_a_race_is_written_in_full_unless_its_changes_are_few);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return ck_run(races_suite()) ? 1 : 0;
}
