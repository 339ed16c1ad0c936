/*
 * test_runtime_fake.c - the runtime's matcher (pg_match, replay.c) and the
 * send and receive wrappers (wrap_send.c, wrap_recv.c), recording and
 * replaying, against the fake libpvm3 of fake_pvm.c: no pvmd.
 *
 * Design.  Task 1 (FAKE_TID) runs as the constructor would set it up
 * (pg: mode, ltid, logs in a temporary directory; pg_start's matcher
 * installed through pg_real.recvf), with the tids of ltids 2 and 3 known,
 * so the coordinator is never asked.  Messages "arrive" in the fake's
 * queue in an order the test chooses; the program's calls are the real
 * wrappers (pvm_send, pvm_recv...).  A recording is read back with the
 * log reader; a replay reads logs written by the log writer, as
 * test_replay_match.c's do.  Divergences end the task with
 * PG_EXIT_DIVERGED (Check's exit tests).
 */
#define _GNU_SOURCE
#include <check.h>

#include "check_run.h"
#include "rm_tree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_pvm.h"
#include "pg_internal.h"

#define T2 0x40002 /* tids of ltids 2 and 3 */
#define T3 0x40003
#define OWN_CTX 77 /* Pangaea's own context: not the program's */

static char dir[] = "/tmp/pg_test_fake.XXXXXX";

/* Task 1 started in `mode`, its PVM the fake. */
static void start(pangaea_mode_t mode)
{
    pg_err err;

    fake_pvm_reset();
    fake_pvm_install();
    pg.mode = mode;
    pg.ltid = 1;
    pg.tid = FAKE_TID;
    pg.ctx = OWN_CTX;
    pg.started = 1;
    snprintf(pg.logdir, sizeof pg.logdir, "%s", dir);
    pg_ltid_remember(FAKE_TID, 1);
    pg_ltid_remember(T2, 2);
    pg_ltid_remember(T3, 3);
    pg_default_match = pg_real.recvf(pg_match); /* as pg_start does */
    if (mode == PANGAEA_LOG)
        ck_assert_msg(pg_record_open(&err) == 0, "%s", err.msg);
    else
        ck_assert_int_eq(pg_replay_open(), 0);
}

static int deliver(int src, int tag, int wid, int value)
{
    return fake_pvm_deliver(src, tag, FAKE_CTX, wid, &value, sizeof value);
}

/* The recorded comm log of task 1, after its end: events into ev[max],
 * but for the call sites and poll filters (-races's). */
static int recorded(pg_event *ev, int max)
{
    static char text[64][64]; /* the calls, kept past the reader */
    char path[4200];
    pg_log_header h;
    pg_err err;
    pg_logr *r;
    int n = 0;

    ck_assert_int_eq(pg_record_close(0), 0);
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    r = pg_logr_open(path, PG_LOG_COMM, &h, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    while (n < max && pg_logr_next(r, &ev[n], &err) == 1) {
        if (ev[n].kind == PG_EV_SITE || ev[n].kind == PG_EV_POLL)
            continue;
        if (ev[n].call)
            ev[n].call = strcpy(text[n], ev[n].call);
        ev[n].to = NULL;
        n++;
    }
    pg_logr_close(r);
    return n;
}

/* Task 1's logs: n receives from ltid from[i] of message msgid[i] (tag 5,
 * 4 bytes), then one send to ltid 2 (tag 5, 4 bytes). */
static void replay_log(const int *from, const int *msgid, int n)
{
    char path[4200];
    pg_err err;
    pg_logw *w;
    int i, to = 2;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_COMM);
    w = pg_logw_open(path, PG_LOG_COMM, 1, "prog", "host", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 0; i < n; i++)
        pg_logw_recv(w, 1.0 + i, "pvm_recv", from[i], 5, msgid[i], 4);
    pg_logw_send(w, 9.0, "pvm_send", 5, 1, 4, 1, &to);
    ck_assert_int_eq(pg_logw_end(w, 10.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    w = pg_logw_open(path, PG_LOG_EXEC, 1, "prog", "host", &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_end(w, 10.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
}

/* ---- the matcher ---------------------------------------------------------- */

START_TEST(an_armed_matcher_takes_only_the_recorded_message)
{
    pg_event want = { .kind = PG_EV_RECV, .from = 2, .msgid = 1 };
    struct timeval tv = { 0, 0 };
    int a, b, c, left[8];

    replay_log(NULL, NULL, 0);
    start(PANGAEA_REPLAY);
    a = deliver(T3, 5, 1, 31);
    b = deliver(T2, 5, 2, 22); /* ltid 2's second message came first */
    c = deliver(T2, 5, 1, 21);
    pg_match_expect(&want);
    ck_assert_int_eq(pg_real.trecv(-1, -1, &tv), c);
    pg_match_clear();
    ck_assert_int_eq(fake_pvm_queued(left, 8), 2);
    ck_assert(left[0] == a && left[1] == b); /* the others stay, in order */
    want.from = 3;
    pg_match_expect(&want); /* the memo of what was looked at is right */
    ck_assert_int_eq(pg_real.trecv(-1, -1, &tv), a);
    pg_match_clear();
    want.from = 2, want.msgid = 3; /* not arrived: nothing is taken */
    pg_match_expect(&want);
    ck_assert_int_eq(pg_real.trecv(-1, -1, &tv), 0);
    pg_match_clear();
    ck_assert_int_eq(fake_pvm_queued(left, 8), 1);
}
END_TEST

START_TEST(an_armed_matcher_ignores_other_contexts_and_headerless_messages)
{
    pg_event want = { .kind = PG_EV_RECV, .from = 2, .msgid = 1 };
    struct timeval tv = { 0, 0 };
    int v = 5, good;

    replay_log(NULL, NULL, 0);
    start(PANGAEA_REPLAY);
    fake_pvm_deliver(T2, 5, OWN_CTX, 1, &v, sizeof v); /* Pangaea's own */
    fake_pvm_deliver(T2, 5, FAKE_CTX, 0, &v, sizeof v); /* no header */
    good = deliver(T2, 5, 1, 5);
    pg_match_expect(&want);
    ck_assert_int_eq(pg_real.trecv(-1, -1, &tv), good);
    pg_match_clear();
}
END_TEST

START_TEST(an_unarmed_matcher_asks_the_programs_filter)
{
    struct timeval tv = { 0, 0 };
    int a, b;

    replay_log(NULL, NULL, 0);
    start(PANGAEA_REPLAY);
    a = deliver(T3, 5, 1, 31);
    b = deliver(T2, 6, 1, 21);
    ck_assert_int_eq(pg_real.trecv(T2, -1, &tv), b); /* PVM's default */
    ck_assert_int_eq(pg_real.trecv(-1, 7, &tv), 0);
    ck_assert_int_eq(pg_real.trecv(-1, -1, &tv), a);
}
END_TEST

/* ---- recording ------------------------------------------------------------ */

START_TEST(a_recorded_send_carries_its_message_id_and_is_logged)
{
    pg_event ev[8];
    struct pvmminfo mi;
    int v = 42, body;

    start(PANGAEA_LOG);
    body = pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    ck_assert_int_eq(pvm_send(T2, 7), 0);
    ck_assert_int_eq(pvm_send(T3, 8), 0);
    ck_assert_int_eq(fake_pvm_nsent(), 2);
    ck_assert_int_eq(fake_pvm_sent(0)->dst, T2);
    ck_assert_int_eq(fake_pvm_sent(0)->tag, 7);
    ck_assert_int_eq(fake_pvm_sent(0)->wid, 1); /* the message id */
    ck_assert_int_eq(fake_pvm_sent(1)->wid, 2);
    ck_assert_int_eq(pvm_getminfo(body, &mi), 0);
    ck_assert_int_eq(mi.wid, 0); /* the program's buffer as it was */
    ck_assert_int_eq(recorded(ev, 8), 3);
    ck_assert_int_eq(ev[0].kind, PG_EV_SEND);
    ck_assert_str_eq(ev[0].call, "pvm_send");
    ck_assert(ev[0].tag == 7 && ev[0].msgid == 1 && ev[0].bytes == 4);
    ck_assert(ev[1].tag == 8 && ev[1].msgid == 2);
    ck_assert_int_eq(ev[2].kind, PG_EV_END);
}
END_TEST

START_TEST(a_recorded_receive_logs_the_sender_and_message_it_took)
{
    pg_event ev[8];
    int got = 0;

    start(PANGAEA_LOG);
    deliver(T3, 5, 4, 31);
    deliver(T2, 6, 9, 21);
    ck_assert_int_gt(pvm_recv(T2, -1), 0);
    pvm_upkint(&got, 1, 1);
    ck_assert_int_eq(got, 21);
    ck_assert_int_eq(pvm_nrecv(-1, 99), 0); /* a poll that finds nothing */
    ck_assert_int_gt(pvm_recv(-1, -1), 0);
    ck_assert_int_eq(recorded(ev, 8), 3);
    ck_assert_int_eq(ev[0].kind, PG_EV_RECV);
    ck_assert(ev[0].from == 2 && ev[0].msgid == 9 && ev[0].tag == 6);
    ck_assert(ev[0].asked_from == 2 && ev[0].asked_tag == -1);
    ck_assert_int_eq(ev[0].bytes, 4);
    ck_assert(ev[1].from == 3 && ev[1].msgid == 4 && ev[1].misses == 1);
}
END_TEST

/* ---- replay --------------------------------------------------------------- */

START_TEST(a_replayed_receive_takes_the_recorded_message_whatever_came_first)
{
    static const int from[] = { 2, 3 }, msgid[] = { 2, 1 };
    int first, got = 0, left[8];

    replay_log(from, msgid, 2);
    start(PANGAEA_REPLAY);
    first = deliver(T2, 5, 1, 21);
    deliver(T3, 5, 1, 31);
    deliver(T2, 5, 2, 22);
    ck_assert_int_gt(pvm_recv(-1, -1), 0);
    pvm_upkint(&got, 1, 1);
    ck_assert_int_eq(got, 22);
    ck_assert_int_gt(pvm_recv(-1, -1), 0);
    pvm_upkint(&got, 1, 1);
    ck_assert_int_eq(got, 31);
    /* The other message is left for a later receive: a full replay keeps
     * messages that came early in its own index (replay_index.c), out of
     * PVM's queue, under the buffer id PVM gave them. */
    ck_assert_int_eq(fake_pvm_queued(left, 8), 0);
    ck_assert_int_eq(pg_rxi_count(), 1);
    ck_assert_int_eq(pg_rxi_find(T2, 1, NULL), first);
}
END_TEST

START_TEST(a_replayed_send_is_sent_with_its_message_id)
{
    int v = 1;

    replay_log(NULL, NULL, 0);
    start(PANGAEA_REPLAY);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    ck_assert_int_eq(pvm_send(T2, 5), 0);
    ck_assert_int_eq(fake_pvm_nsent(), 1);
    ck_assert_int_eq(fake_pvm_sent(0)->wid, 1);
}
END_TEST

START_TEST(a_replayed_send_with_another_tag_diverges)
{
    int v = 1;

    replay_log(NULL, NULL, 0);
    start(PANGAEA_REPLAY);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(T2, 6);
    ck_abort_msg("a send of tag 6 passed for a recorded tag 5");
}
END_TEST

START_TEST(a_replayed_receive_of_another_size_diverges)
{
    static const int from[] = { 2 }, msgid[] = { 1 };
    short v = 1;

    replay_log(from, msgid, 1);
    start(PANGAEA_REPLAY);
    fake_pvm_deliver(T2, 5, FAKE_CTX, 1, &v, sizeof v); /* 2 bytes, not 4 */
    pvm_recv(-1, -1);
    ck_abort_msg("a message of 2 bytes passed for a recorded 4");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("runtime on a fake libpvm3");
    TCase *tc = tcase_create("matcher and wrappers");
    int failed;

    if (!mkdtemp(dir))
        return EXIT_FAILURE;
    tcase_add_test(tc, an_armed_matcher_takes_only_the_recorded_message);
    tcase_add_test(tc,
                   an_armed_matcher_ignores_other_contexts_and_headerless_messages);
    tcase_add_test(tc, an_unarmed_matcher_asks_the_programs_filter);
    tcase_add_test(tc, a_recorded_send_carries_its_message_id_and_is_logged);
    tcase_add_test(tc, a_recorded_receive_logs_the_sender_and_message_it_took);
    tcase_add_test(tc,
                   a_replayed_receive_takes_the_recorded_message_whatever_came_first);
    tcase_add_test(tc, a_replayed_send_is_sent_with_its_message_id);
    tcase_add_exit_test(tc, a_replayed_send_with_another_tag_diverges,
                        PG_EXIT_DIVERGED);
    tcase_add_exit_test(tc, a_replayed_receive_of_another_size_diverges,
                        PG_EXIT_DIVERGED);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    ck_rm_tree(dir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
