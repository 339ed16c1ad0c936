/*
 * test_lamport.c - the happened-before order of a recorded run
 * (src/cli/recording/runlog.c matches receives to sends, lamport.c gives every
 * event its logical position) on hand-made logs, without a pvmd.  Each
 * test writes the comm and exec logs of a few tasks with the log writer in
 * a fresh directory, loads it with top_run_load, and checks positions:
 * a receive comes after the send it took, an event after the one before it
 * in its task, whatever the recorded clocks said.
 */
#define _GNU_SOURCE
#include <check.h>

#include "check_run.h"
#include "rm_tree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"
#include "runlog.h"

/* One event of a hand-made log: a send to `peer` (a second destination
 * in peer2 when > 0) or a receive from `peer`, of message msgid (the
 * sender's), at time t. */
struct hev {
    int send, peer, msgid;
    double t;
    int peer2;
};

static char dir[64];

static void task_logs(int ltid, const struct hev *e, int n)
{
    char path[4200];
    pg_err err;
    pg_logw *w;
    int i, to[2];

    pg_log_path(path, sizeof path, dir, ltid, PG_LOG_COMM);
    w = pg_logw_open(path, PG_LOG_COMM, ltid, "prog", "host", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 0; i < n; i++) {
        to[0] = e[i].peer;
        to[1] = e[i].peer2;
        if (e[i].send)
            ck_assert_int_eq(pg_logw_send(w, e[i].t, "pvm_send", 1,
                                          e[i].msgid, 4, e[i].peer2 ? 2 : 1,
                                          to), 0);
        else
            ck_assert_int_eq(pg_logw_recv(w, e[i].t, "pvm_recv", e[i].peer,
                                          1, e[i].msgid, 4), 0);
    }
    ck_assert_int_eq(pg_logw_end(w, 100.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg_log_path(path, sizeof path, dir, ltid, PG_LOG_EXEC);
    w = pg_logw_open(path, PG_LOG_EXEC, ltid, "prog", "host", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_end(w, 100.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
}

static void load(struct top_run *run)
{
    pg_err err;

    ck_assert_msg(top_run_load(run, dir, &err) == 0, "%s", err.msg);
}

/* The logical position of event k (0-based) of the task of ltid. */
static int lam(const struct top_run *run, int ltid, int k)
{
    int t = top_run_task(run, ltid);

    ck_assert_int_ge(t, 0);
    ck_assert_int_lt(k, run->tasks[t].nev);
    return run->ev[run->tasks[t].first + k].lam;
}

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/pg_test_lamport.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
    ck_rm_tree(dir);
}

/* A ping-pong whose recorded clocks run backwards on task 2. */
START_TEST(a_receive_comes_after_its_send_whatever_the_clocks)
{
    static const struct hev t1[] = { { 1, 2, 1, 10.0 }, { 0, 2, 1, 11.0 } };
    static const struct hev t2[] = { { 0, 1, 1, 5.0 }, { 1, 1, 1, 6.0 } };
    struct top_run run;

    task_logs(1, t1, 2);
    task_logs(2, t2, 2);
    load(&run);
    ck_assert_int_eq(lam(&run, 1, 0), 1);
    ck_assert_int_eq(lam(&run, 2, 0), 2);
    ck_assert_int_eq(lam(&run, 2, 1), 3);
    ck_assert_int_eq(lam(&run, 1, 1), 4);
    ck_assert_int_eq(run.nlinks, 2);
    ck_assert_int_eq(run.unmatched_sends + run.unmatched_recvs, 0);
    ck_assert_int_eq(run.cycles, 0);
    top_run_free(&run);
}
END_TEST

/* Two tasks that each send before they receive: neither waits for the
 * other, so both sends are at 1 and both receives at 2. */
START_TEST(concurrent_events_share_a_position)
{
    static const struct hev t1[] = { { 1, 2, 1, 1.0 }, { 0, 2, 1, 2.0 } };
    static const struct hev t2[] = { { 1, 1, 1, 1.0 }, { 0, 1, 1, 2.0 } };
    struct top_run run;

    task_logs(1, t1, 2);
    task_logs(2, t2, 2);
    load(&run);
    ck_assert_int_eq(lam(&run, 1, 0), 1);
    ck_assert_int_eq(lam(&run, 2, 0), 1);
    ck_assert_int_eq(lam(&run, 1, 1), 2);
    ck_assert_int_eq(lam(&run, 2, 1), 2);
    top_run_free(&run);
}
END_TEST

/* A multicast to 2 and 3; 3 receives late after a chain through 2. */
START_TEST(a_multicast_precedes_every_receive_of_it)
{
    static const struct hev t1[] = { { 1, 2, 1, 1.0, 3 } };
    static const struct hev t2[] = { { 0, 1, 1, 1.0 }, { 1, 3, 1, 1.0 } };
    static const struct hev t3[] = { { 0, 2, 1, 1.0 }, { 0, 1, 1, 1.0 } };
    struct top_run run;

    task_logs(1, t1, 1);
    task_logs(2, t2, 2);
    task_logs(3, t3, 2);
    load(&run);
    ck_assert_int_eq(lam(&run, 1, 0), 1);
    ck_assert_int_eq(lam(&run, 2, 0), 2);
    ck_assert_int_eq(lam(&run, 2, 1), 3);
    ck_assert_int_eq(lam(&run, 3, 0), 4);
    ck_assert_int_eq(lam(&run, 3, 1), 5); /* after its task's previous one */
    ck_assert_int_eq(run.nlinks, 3);
    top_run_free(&run);
}
END_TEST

/* A receive whose sender left no log is placed after its task's previous
 * event, and counted. */
START_TEST(a_receive_without_its_send_follows_its_task_only)
{
    static const struct hev t1[] = { { 1, 2, 1, 1.0 }, { 0, 9, 1, 2.0 } };
    static const struct hev t2[] = { { 0, 1, 1, 1.0 } };
    struct top_run run;

    task_logs(1, t1, 2);
    task_logs(2, t2, 1);
    load(&run);
    ck_assert_int_eq(lam(&run, 1, 1), 2);
    ck_assert_int_eq(run.ev[run.tasks[top_run_task(&run, 1)].first + 1].partner,
                     -1);
    ck_assert_int_eq(run.unmatched_recvs, 1);
    top_run_free(&run);
}
END_TEST

/* Corrupt logs where each task receives, before its send, the message the
 * other sends after its receive: a cycle, broken at the lowest task and
 * counted, and every event still gets a position. */
START_TEST(a_cycle_in_corrupt_logs_is_broken_and_counted)
{
    static const struct hev t1[] = { { 0, 2, 1, 1.0 }, { 1, 2, 1, 2.0 } };
    static const struct hev t2[] = { { 0, 1, 1, 1.0 }, { 1, 1, 1, 2.0 } };
    struct top_run run;
    int i;

    task_logs(1, t1, 2);
    task_logs(2, t2, 2);
    load(&run);
    ck_assert_int_eq(run.cycles, 1);
    for (i = 0; i < run.nev; i++)
        ck_assert_int_gt(run.ev[i].lam, 0);
    ck_assert_int_eq(lam(&run, 1, 0), 1); /* placed as if unmatched */
    ck_assert_int_gt(lam(&run, 2, 0), lam(&run, 1, 1));
    top_run_free(&run);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lamport");
    TCase *tc = tcase_create("happened-before");
    int failed;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, a_receive_comes_after_its_send_whatever_the_clocks);
    tcase_add_test(tc, concurrent_events_share_a_position);
    tcase_add_test(tc, a_multicast_precedes_every_receive_of_it);
    tcase_add_test(tc, a_receive_without_its_send_follows_its_task_only);
    tcase_add_test(tc, a_cycle_in_corrupt_logs_is_broken_and_counted);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
