/*
 * test_header.c - the message header codec, on a real private pvmd.
 *
 * The test starts its own pvmd in a fresh PVM_TMP, sends messages to itself
 * through pg_hdr_send and reads them back with pg_hdr_peek, and halts the
 * daemon at the end (also when a test fails: the tests run in this process,
 * CK_NOFORK, and the halt is in main after the runner).
 */
#define _GNU_SOURCE
#include <check.h>
#include "rm_tree.h"

#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_internal.h"

static char tmpdir[] = "/tmp/pg_test_header.XXXXXX";
static int me;

static int send_self(void *arg)
{
    return pg_real.send(me, *(int *)arg);
}

/* pg_hdr_send as the send wrapper calls it: the buffer's info read once,
 * its length the bytes pvm_bufinfo gives (the wrapper logs that). */
static int hdr_send(int msgid, int (*fn)(void *), void *arg)
{
    struct pvmminfo mi;
    int body = pg_hdr_body(&mi), bytes = -1;

    ck_assert_int_eq(body, pvm_getsbuf());
    pvm_bufinfo(body, &bytes, NULL, NULL);
    ck_assert_int_eq(mi.len, bytes);
    return pg_hdr_send(body, &mi, msgid, fn, arg);
}

/* Packs n ints with `enc` and sends them to ourselves marked with msgid. */
static void send_ints(int enc, const int *v, int n, int tag, int msgid)
{
    static int keep[64]; /* PvmDataInPlace packs by reference */
    int buf = pvm_mkbuf(enc), old = pvm_setsbuf(buf);

    memcpy(keep, v, n * sizeof *v);
    pvm_pkint(keep, n, 1);
    ck_assert_int_ge(hdr_send(msgid, send_self, &tag), 0);
    pvm_setsbuf(old);
    pvm_freebuf(buf);
}

static void check_encoding(int enc)
{
    int v[5] = { 1, -2, 3, 0x7fffffff, 5 }, got[5], mid, bytes, tag, src,
        msgid;

    send_ints(enc, v, 5, 40 + enc, 4242);
    mid = pg_real.recv(-1, 40 + enc);
    ck_assert_int_gt(mid, 0);
    ck_assert_int_eq(pg_hdr_peek(mid, &src, &msgid), 1);
    ck_assert_int_eq(src, me);
    ck_assert_int_eq(msgid, 4242);
    pvm_upkint(got, 5, 1);
    ck_assert_mem_eq(got, v, sizeof v);
    pvm_bufinfo(mid, &bytes, &tag, &src);
    ck_assert_int_eq(bytes, (int)sizeof v); /* the program's bytes, as sent */
}

START_TEST(message_id_travels_with_default_encoding)
{
    check_encoding(PvmDataDefault);
}
END_TEST

START_TEST(message_id_travels_with_raw_encoding)
{
    check_encoding(PvmDataRaw);
}
END_TEST

START_TEST(message_id_travels_with_data_in_place)
{
    check_encoding(PvmDataInPlace);
}
END_TEST

START_TEST(program_buffer_is_unchanged_and_can_be_sent_again)
{
    int v = 99, got, mid, i, src, msgid, buf = pvm_initsend(PvmDataDefault);
    int tag = 50;
    struct pvmminfo mi;

    pvm_pkint(&v, 1, 1);
    for (i = 1; i <= 2; i++) {
        ck_assert_int_ge(hdr_send(i, send_self, &tag), 0);
        ck_assert_int_eq(pvm_getsbuf(), buf);
        pvm_getminfo(buf, &mi);
        ck_assert_int_eq(mi.wid, 0); /* the buffer's own wait id is back */
    }
    for (i = 1; i <= 2; i++) {
        mid = pg_real.recv(-1, 50);
        ck_assert_int_eq(pg_hdr_peek(mid, &src, &msgid), 1);
        ck_assert_int_eq(msgid, i);
        pvm_upkint(&got, 1, 1);
        ck_assert_int_eq(got, 99);
    }
}
END_TEST

/* PVM hands the id of a freed buffer to the next message at once, often
 * one of the same sender and tag: its message id must be its own. */
START_TEST(reused_buffer_id_gets_its_own_message_id)
{
    int v[2] = { 1, 2 }, a, b, src, msgid;

    send_ints(PvmDataDefault, &v[0], 1, 70, 100);
    send_ints(PvmDataDefault, &v[1], 1, 70, 101);
    a = pg_real.recv(-1, 70);
    ck_assert_int_eq(pg_hdr_peek(a, &src, &msgid), 1);
    ck_assert_int_eq(msgid, 100);
    b = pg_real.recv(-1, 70); /* frees a; b may well get a's id */
    ck_assert_int_eq(pg_hdr_peek(b, &src, &msgid), 1);
    ck_assert_int_eq(msgid, 101);
}
END_TEST

START_TEST(message_sent_without_pangaea_carries_no_header)
{
    int v = 3, mid, src, msgid;

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pg_real.send(me, 75);
    mid = pg_real.recv(-1, 75);
    ck_assert_int_eq(pg_hdr_peek(mid, &src, &msgid), 0);
}
END_TEST

START_TEST(message_from_the_daemon_carries_no_header)
{
    int mid, child, bytes, tag, src, msgid;
    char *argv[] = { NULL };

    /* A pvm_notify message comes from the pvmd: spawn a task that exits. */
    ck_assert_int_eq(pg_real.spawn("/bin/true", argv, 0, "", 1, &child), 1);
    pvm_notify(PvmTaskExit, 80, 1, &child);
    mid = pg_real.recv(-1, 80);
    ck_assert_int_eq(pg_hdr_peek(mid, &src, &msgid), 0);
    pvm_bufinfo(mid, &bytes, &tag, &src);
    ck_assert_int_eq(bytes, 4); /* untouched */
}
END_TEST

static int start_pvmd(void)
{
    if (!mkdtemp(tmpdir))
        return -1;
    setenv("PVM_TMP", tmpdir, 1);
    setenv("PVM_ROOT", "/usr/lib/pvm3", 0);
    setenv("PVM_ALLOW_ROOT", "1", 1);
    pvm_setopt(PvmAutoErr, 0);
    if (pvm_start_pvmd(0, NULL, 1) < 0)
        return -1;
    return pvm_mytid();
}

int main(void)
{
    Suite *s = suite_create("header");
    TCase *tc = tcase_create("codec");
    SRunner *sr;
    int failed;

    me = start_pvmd();
    if (me < 0) {
        fprintf(stderr, "test_header: cannot start a private pvmd in %s\n",
                tmpdir);
        ck_rm_tree(tmpdir);
        return EXIT_FAILURE;
    }
    pg.ctx = pvm_newcontext(); /* Pangaea's context: not the one we use */
    tcase_add_test(tc, message_id_travels_with_default_encoding);
    tcase_add_test(tc, message_id_travels_with_raw_encoding);
    tcase_add_test(tc, message_id_travels_with_data_in_place);
    tcase_add_test(tc, program_buffer_is_unchanged_and_can_be_sent_again);
    tcase_add_test(tc, reused_buffer_id_gets_its_own_message_id);
    tcase_add_test(tc, message_sent_without_pangaea_carries_no_header);
    tcase_add_test(tc, message_from_the_daemon_carries_no_header);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    signal(SIGTERM, SIG_IGN); /* pvm_halt ends every task, us included */
    pvm_halt();
    while (waitpid(-1, NULL, 0) > 0) /* the daemon was our child */
        ;
    ck_rm_tree(tmpdir);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
