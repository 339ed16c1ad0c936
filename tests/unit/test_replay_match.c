/*
 * test_replay_match.c - replay's side of matching (replay.c) without a
 * pvmd: hand-made logs of task 1 are written with the log writer in a
 * temporary directory, the runtime state `pg` is set as the constructor
 * would set it for a replay, and the calls a program makes are checked
 * against the recording: what pg_replay_expect_recv turns a receive into,
 * the polls that found nothing, sends, queries, read-ahead, and the
 * divergences (the task then ends with PG_EXIT_DIVERGED: Check's exit
 * tests see the status).  tids are made known with pg_ltid_remember, so
 * the coordinator is never asked.  The matcher itself (pg_match) reads
 * PVM's message queue and is tested end to end (test_replay.sh).
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

#define T2 0x40002 /* tids of ltids 2 and 3 in "this run" */
#define T3 0x40003

static char dir[] = "/tmp/pg_test_replay.XXXXXX";

/* An event of the hand-made comm log of task 1. */
enum { RECV, SEND, QUERY, NOTICE_EXIT, MISSES };
struct rec {
    int what, a, tag, msgid, bytes; /* a: the peer ltid, or the misses */
};

static void write_logs(const struct rec *r, int n)
{
    char path[4200];
    pg_err err;
    pg_logw *w;
    int i;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open(path, PG_LOG_COMM, 1, "prog", "host", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 0; i < n; i++) {
        if (r[i].what == MISSES)
            pg_logw_misses(w, r[i].a);
        else if (r[i].what == RECV)
            pg_logw_recv(w, 1.0 + i, "pvm_recv", r[i].a, r[i].tag,
                         r[i].msgid, r[i].bytes);
        else if (r[i].what == SEND)
            pg_logw_send(w, 1.0 + i, "pvm_send", r[i].tag, r[i].msgid,
                         r[i].bytes, 1, &r[i].a);
        else if (r[i].what == QUERY)
            pg_logw_query(w, 1.0 + i, "pvm_pstat", "2", r[i].a);
        else
            pg_logw_notice(w, 1.0 + i, "pvm_recv", r[i].tag, PG_NOTICE_EXIT,
                           r[i].a, 4);
    }
    ck_assert_int_eq(pg_logw_end(w, 99.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    w = pg_logw_open(path, PG_LOG_EXEC, 1, "prog", "host", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_end(w, 99.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
}

/* Task 1 replays the log just written. */
static void replay(const struct rec *r, int n)
{
    write_logs(r, n);
    pg.mode = PANGAEA_REPLAY;
    pg.ltid = 1;
    snprintf(pg.logdir, sizeof pg.logdir, "%s", dir);
    pg_ltid_remember(T2, 2);
    pg_ltid_remember(T3, 3);
    ck_assert_int_eq(pg_replay_open(), 0);
}

START_TEST(a_receive_becomes_the_recorded_sender_and_message)
{
    static const struct rec log[] = {
        { RECV, 2, 5, 1, 8 }, { RECV, 3, 6, 4, 16 },
    };
    const pg_event *ev;

    replay(log, 2);
    ev = pg_replay_expect_recv("pvm_recv", -1, -1); /* any sender, any tag */
    ck_assert_int_eq(ev->kind, PG_EV_RECV);
    ck_assert_int_eq(ev->from, 2);
    ck_assert_int_eq(ev->msgid, 1);
    ck_assert_int_eq(ev->tag, 5);
    pg_replay_advance();
    ev = pg_replay_expect_recv("pvm_recv", T3, 6); /* named sender and tag */
    ck_assert_int_eq(ev->from, 3);
    ck_assert_int_eq(ev->msgid, 4);
    ck_assert_int_eq(ev->bytes, 16);
    pg_replay_advance();
    ck_assert_int_eq(pg_replay_poll_missed(), 0);
    pg_replay_check_end(0); /* recorded end, same status: nothing to say */
    pg_replay_close();
}
END_TEST

START_TEST(a_receive_with_another_tag_diverges)
{
    static const struct rec log[] = { { RECV, 2, 5, 1, 8 } };

    replay(log, 1);
    pg_replay_expect_recv("pvm_recv", -1, 9);
    ck_abort_msg("a receive of tag 9 was matched to a recorded tag 5");
}
END_TEST

START_TEST(a_receive_from_another_sender_diverges)
{
    static const struct rec log[] = { { RECV, 2, 5, 1, 8 } };

    replay(log, 1);
    pg_replay_expect_recv("pvm_recv", T3, -1);
    ck_abort_msg("a receive from ltid 3 was matched to one from ltid 2");
}
END_TEST

START_TEST(a_receive_past_the_recorded_end_diverges)
{
    static const struct rec log[] = { { RECV, 2, 5, 1, 8 } };

    replay(log, 1);
    pg_replay_expect_recv("pvm_recv", -1, -1);
    pg_replay_advance();
    pg_replay_expect_recv("pvm_recv", -1, -1);
    ck_abort_msg("a receive past the end of the recording was matched");
}
END_TEST

START_TEST(failed_polls_come_back_before_the_event_as_often)
{
    static const struct rec log[] = { { MISSES, 2 }, { RECV, 2, 5, 1, 8 } };

    replay(log, 2);
    ck_assert_int_eq(pg_replay_poll_missed(), 1);
    ck_assert_int_eq(pg_replay_poll_missed(), 1);
    ck_assert_int_eq(pg_replay_poll_missed(), 0);
    ck_assert_int_eq(pg_replay_expect_recv("pvm_nrecv", -1, 5)->msgid, 1);
    pg_replay_advance();
    pg_replay_close();
}
END_TEST

START_TEST(a_receive_while_polls_are_owed_diverges)
{
    static const struct rec log[] = { { MISSES, 1 }, { RECV, 2, 5, 1, 8 } };

    replay(log, 2);
    pg_replay_expect_recv("pvm_recv", -1, -1);
    ck_abort_msg("a receive took the message a recorded poll did not find");
}
END_TEST

START_TEST(a_send_is_checked_against_the_recorded_one)
{
    static const struct rec log[] = {
        { SEND, 2, 5, 1, 8 }, { SEND, 3, 5, 2, 8 },
    };
    int t2 = T2, t3 = T3;

    replay(log, 2);
    pg_replay_send("pvm_send", 5, 8, 1, &t2);
    ck_assert_int_eq(pg.events, 1);
    pg_replay_send("pvm_send", 5, 9, 1, &t3); /* 9 bytes, recorded 8 */
    ck_abort_msg("a send of other size passed");
}
END_TEST

START_TEST(a_query_returns_the_recorded_answer)
{
    static const struct rec log[] = { { QUERY, 4 }, { QUERY, 7 } };

    replay(log, 2);
    ck_assert_int_eq(pg_replay_query("pvm_pstat", "2"), 4);
    pg_replay_query("pvm_pstat", "3"); /* another question */
    ck_abort_msg("a query about another task passed");
}
END_TEST

START_TEST(an_exit_notice_is_expected_by_tag_from_any_daemon)
{
    static const struct rec log[] = { { NOTICE_EXIT, 3, 77 } };
    const pg_event *ev;

    replay(log, 1);
    ev = pg_replay_expect_recv("pvm_recv", -1, 77);
    ck_assert_int_eq(ev->kind, PG_EV_NOTICE);
    ck_assert_int_eq(ev->what, PG_NOTICE_EXIT);
    ck_assert_int_eq(ev->from, 3);
    pg_replay_advance();
    pg_replay_close();
}
END_TEST

/* Read-ahead (pg_replay_prefetch, while a receive waits) changes nothing
 * of the order events are followed in. */
/* ---- race-only logs (pangaea -min) ---- */

/* Task 1's race-only log: a receive of message 1 from ltid 2 (tag 5, 8
 * bytes) after one failed poll, as event 3; a query answered 4 as event
 * 5; the end as event 7.  Events 1, 2, 4 and 6 were left out. */
static void replay_race_only(void)
{
    char path[4200];
    pg_err err;
    pg_logw *w;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open_sel(path, PG_LOG_COMM, 1, "prog", "host",
                         PG_SELECT_RACE_ONLY, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_seq(w, 3), 0);
    pg_logw_misses(w, 1);
    ck_assert_int_eq(pg_logw_recv(w, 3.0, "pvm_nrecv", 2, 5, 1, 8), 0);
    ck_assert_int_eq(pg_logw_seq(w, 5), 0);
    ck_assert_int_eq(pg_logw_query(w, 5.0, "pvm_pstat", "2", 4), 0);
    ck_assert_int_eq(pg_logw_seq(w, 7), 0);
    ck_assert_int_eq(pg_logw_end(w, 7.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    w = pg_logw_open(path, PG_LOG_EXEC, 1, "prog", "host", &err);
    ck_assert_int_eq(pg_logw_end(w, 99.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg.mode = PANGAEA_REPLAY;
    pg.ltid = 1;
    pg.events = 0;
    snprintf(pg.logdir, sizeof pg.logdir, "%s", dir);
    pg_ltid_remember(T2, 2);
    ck_assert_int_eq(pg_replay_open(), 0);
}

START_TEST(a_race_only_log_leaves_the_events_between_its_own_to_pvm)
{
    int t2 = T2;

    replay_race_only();
    pg_replay_send("pvm_send", 9, 100, 1, &t2);    /* 1: not checked */
    ck_assert_int_eq(pg.events, 1);
    ck_assert_int_eq(pg_replay_left_out("pvm_recv", 0), 1); /* 2 */
    pg_replay_left_out_took();
    ck_assert_int_eq(pg_replay_left_out("pvm_nrecv", 1), 0); /* 3: due */
    ck_assert_int_eq(pg_replay_poll_missed(), 1);
    ck_assert_int_eq(pg_replay_poll_missed(), 0);
    ck_assert_int_eq(pg_replay_expect_recv("pvm_nrecv", -1, 5)->msgid, 1);
    pg_replay_advance();
    ck_assert_int_eq(pg_replay_left_out("pvm_recv", 0), 1); /* 4 */
    pg_replay_left_out_took();
    ck_assert_int_eq(pg_replay_query("pvm_pstat", "2"), 4); /* 5 */
    pg_replay_send("pvm_mcast", 1, 1, 1, &t2);     /* 6 */
    ck_assert_int_eq(pg.events, 6);
    pg_replay_check_end(0); /* 7: the recorded end, nothing to say */
    pg_replay_close();
}
END_TEST

START_TEST(a_poll_where_a_race_only_log_kept_nothing_diverges)
{
    replay_race_only();
    pg_replay_left_out("pvm_nrecv", 1); /* event 1 was a send or a recv */
    ck_abort_msg("a poll passed where the recording kept no poll");
}
END_TEST

START_TEST(a_query_before_its_number_in_a_race_only_log_diverges)
{
    replay_race_only();
    pg_replay_query("pvm_pstat", "2"); /* recorded as event 5, not 1 */
    ck_abort_msg("a query passed at another event than recorded");
}
END_TEST

/* What kept receives take is reserved (reserve.c) until they take it;
 * the tids the task knows already (here all: remembered) are answered at
 * once; probes reserve nothing; a tid of no reserved sender is never
 * refused. */
START_TEST(kept_receives_reserve_their_messages_until_taken)
{
    char path[4200];
    pg_err err;
    pg_logw *w;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open_sel(path, PG_LOG_COMM, 1, "prog", "host",
                         PG_SELECT_RACE_ONLY, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_recv(w, 1.0, "pvm_recv", 2, 5, 1, 8), 0);
    ck_assert_int_eq(pg_logw_recv(w, 2.0, "pvm_recv", 2, 5, 3, 8), 0);
    ck_assert_int_eq(pg_logw_recv(w, 3.0, "pvm_probe", 2, 5, 5, 8), 0);
    ck_assert_int_eq(pg_logw_recv(w, 4.0, "pvm_recv", 3, 5, 1, 8), 0);
    ck_assert_int_eq(pg_logw_end(w, 5.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg_ltid_remember(T2, 2);
    pg_ltid_remember(T3, 3);
    pg_ltid_remember(0x40004, 4);
    ck_assert_int_eq(pg_reserve_load(path, &err), 0);
    ck_assert_int_eq(pg_reserved(T2, 1), 1); /* known here: reserved */
    ck_assert_int_eq(pg_reserved(0x40004, 2), 0); /* no sender has id 2 */
    ck_assert_int_eq(pg_reserve_learn(), 0); /* nobody to ask about */
    ck_assert_int_eq(pg_reserved(T2, 1), 1);
    ck_assert_int_eq(pg_reserved(T2, 2), 0);
    ck_assert_int_eq(pg_reserved(T2, 3), 1);
    ck_assert_int_eq(pg_reserved(T2, 5), 0); /* a probe's */
    ck_assert_int_eq(pg_reserved(T3, 1), 1);
    ck_assert_int_eq(pg_reserved(0x40004, 1), 0);
    pg_reserve_take(2, 1);
    ck_assert_int_eq(pg_reserved(T2, 1), 0);
    ck_assert_int_eq(pg_reserved(T2, 3), 1);
    pg_reserve_free();
    ck_assert_int_eq(pg_reserved(T2, 3), 0);
}
END_TEST

/* A message refused because its sender's tid was not learnt yet holds
 * back that sender's later messages until the tids are learnt: a left-out
 * receive walking PVM's queue must not take a sender's message 2 while
 * its message 1, refused, still waits (per-sender order; seen as race-only
 * replays that waited for a message a left-out receive had taken). */
START_TEST(a_refused_unknown_sender_keeps_its_order)
{
    char path[4200];
    pg_err err;
    pg_logw *w;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open_sel(path, PG_LOG_COMM, 1, "prog", "host",
                         PG_SELECT_RACE_ONLY, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_recv(w, 1.0, "pvm_recv", 2, 5, 1, 8), 0);
    ck_assert_int_eq(pg_logw_recv(w, 2.0, "pvm_recv", 4, 5, 3, 8), 0);
    ck_assert_int_eq(pg_logw_end(w, 3.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg_ltid_remember(T2, 2);
    ck_assert_int_eq(pg_reserve_load(path, &err), 0);
    /* 0x40004, not known here yet: its message 1 could be ltid 2's
     * reserved message 1 (ltid 2's tid not learnt by the table either) */
    ck_assert_int_eq(pg_reserved(0x40004, 1), 1);
    ck_assert_int_eq(pg_reserved(0x40004, 2), 1); /* behind it: held */
    ck_assert_int_eq(pg_reserved(T3, 2), 0); /* another tid: no reason */
    pg_ltid_remember(0x40004, 4); /* what asking the coordinator gives */
    ck_assert_int_eq(pg_reserve_learn(), 1);
    ck_assert_int_eq(pg_reserved(0x40004, 1), 0); /* learnt: ltid 4's */
    ck_assert_int_eq(pg_reserved(0x40004, 2), 0);
    ck_assert_int_eq(pg_reserved(0x40004, 3), 1);
    pg_reserve_free();
}
END_TEST

START_TEST(reading_ahead_keeps_the_recorded_order)
{
    static const struct rec log[] = {
        { RECV, 2, 1, 1, 8 }, { RECV, 3, 2, 1, 8 }, { MISSES, 1 },
        { RECV, 2, 3, 2, 8 }, { RECV, 3, 4, 2, 8 }, { RECV, 2, 5, 3, 8 },
    };
    const pg_event *ev;
    int i;

    replay(log, 6);
    for (i = 1; i <= 5; i++) {
        if (i == 3)
            ck_assert_int_eq(pg_replay_poll_missed(), 1);
        ev = pg_replay_expect_recv("pvm_recv", -1, -1);
        pg_replay_prefetch();
        pg_replay_prefetch();
        ck_assert_int_eq(ev->tag, i);
        pg_replay_advance();
    }
    ck_assert_int_eq(pg.events, 5);
    pg_replay_close();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("replay_match");
    TCase *tc = tcase_create("recorded events");
    int failed;

    if (!mkdtemp(dir))
        return EXIT_FAILURE;
    tcase_add_test(tc, a_receive_becomes_the_recorded_sender_and_message);
    tcase_add_exit_test(tc, a_receive_with_another_tag_diverges,
                        PG_EXIT_DIVERGED);
    tcase_add_exit_test(tc, a_receive_from_another_sender_diverges,
                        PG_EXIT_DIVERGED);
    tcase_add_exit_test(tc, a_receive_past_the_recorded_end_diverges,
                        PG_EXIT_DIVERGED);
    tcase_add_test(tc, failed_polls_come_back_before_the_event_as_often);
    tcase_add_exit_test(tc, a_receive_while_polls_are_owed_diverges,
                        PG_EXIT_DIVERGED);
    tcase_add_exit_test(tc, a_send_is_checked_against_the_recorded_one,
                        PG_EXIT_DIVERGED);
    tcase_add_exit_test(tc, a_query_returns_the_recorded_answer,
                        PG_EXIT_DIVERGED);
    tcase_add_test(tc, an_exit_notice_is_expected_by_tag_from_any_daemon);
    tcase_add_test(tc, reading_ahead_keeps_the_recorded_order);
    tcase_add_test(tc, a_race_only_log_leaves_the_events_between_its_own_to_pvm);
    tcase_add_test(tc, kept_receives_reserve_their_messages_until_taken);
    tcase_add_test(tc, a_refused_unknown_sender_keeps_its_order);
    tcase_add_exit_test(tc, a_poll_where_a_race_only_log_kept_nothing_diverges,
                        PG_EXIT_DIVERGED);
    tcase_add_exit_test(tc, a_query_before_its_number_in_a_race_only_log_diverges,
                        PG_EXIT_DIVERGED);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    ck_rm_tree(dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
