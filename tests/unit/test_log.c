/*
 * test_log.c - unit tests of the per-task XML logs (src/log/log_*.c): what
 * the writer writes reads back the same, streams, and validates against
 * schema/pangaea-log.xsd; the schema refuses what is not a log; the writer
 * refuses what it cannot write faithfully.  test_log_bad.c has the reader
 * against bad and hostile logs.  Tests are forked by Check, so a crash
 * fails one test only.
 */
#define _GNU_SOURCE
#include <locale.h>
#include <sys/resource.h>

#include <libxml/xmlerror.h>

#include "log_test_util.h"

/* ---- round trips ----------------------------------------------------- */

START_TEST(test_header_round_trips)
{
    pg_log_header h;
    pg_logr *r = open_ok(write_comm_log("h.comm.xml"), PG_LOG_COMM, &h);

    ck_assert_int_eq(h.kind, PG_LOG_COMM);
    ck_assert_int_eq(h.version, PG_LOG_VERSION);
    ck_assert_int_eq(h.ltid, 2);
    ck_assert_str_eq(h.program, "./sor");
    ck_assert_str_eq(h.host, "node1");
    pg_logr_close(r);
}
END_TEST

START_TEST(test_send_to_one_and_several_ltids_round_trips)
{
    pg_event ev;
    pg_logr *r = open_ok(write_comm_log("s.comm.xml"), PG_LOG_COMM, NULL);

    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_SEND);
    ck_assert_int_eq(ev.seq, 1);
    ck_assert_double_eq_tol(ev.t, 1763769600.000123, 1e-7);
    ck_assert_str_eq(ev.call, "pvm_send");
    ck_assert_int_eq(ev.tag, 5);
    ck_assert_int_eq(ev.msgid, 1);
    ck_assert_int_eq(ev.bytes, 80);
    ck_assert_int_eq(ev.nto, 1);
    ck_assert_int_eq(ev.to[0], 3);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.seq, 2);
    ck_assert_double_eq_tol(ev.t, 1763769600.5, 1e-7);
    ck_assert_str_eq(ev.call, "pvm_mcast");
    ck_assert_int_eq(ev.tag, -7);
    ck_assert_int_eq(ev.bytes, 0);
    ck_assert_int_eq(ev.nto, 3);
    ck_assert(ev.to[0] == 3 && ev.to[1] == 4 && ev.to[2] == 5);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_recv_and_end_round_trip)
{
    pg_event ev;
    pg_logr *r = open_ok(write_comm_log("r.comm.xml"), PG_LOG_COMM, NULL);

    next_ok(r, &ev);
    next_ok(r, &ev);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_RECV);
    ck_assert_int_eq(ev.seq, 3);
    ck_assert_str_eq(ev.call, "pvm_nrecv");
    ck_assert_int_eq(ev.from, 3);
    ck_assert_int_eq(ev.tag, 6);
    ck_assert_int_eq(ev.msgid, 9);
    ck_assert_int_eq(ev.bytes, 4096);
    ck_assert_double_eq_tol(ev.t, 1763769601.25, 1e-7);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_END);
    ck_assert_int_eq(ev.seq, 4);
    ck_assert_int_eq(ev.status, 3);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_spawn_with_args_children_and_hosts_round_trips)
{
    pg_log_header h;
    pg_event ev;
    pg_logr *r = open_ok(write_exec_log("s.exec.xml"), PG_LOG_EXEC, &h);
    int i;

    ck_assert_int_eq(h.kind, PG_LOG_EXEC);
    ck_assert_str_eq(h.host, "node0");
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_SPAWN);
    ck_assert_int_eq(ev.seq, 1);
    ck_assert_double_eq_tol(ev.t, 10.25, 1e-9);
    ck_assert_str_eq(ev.program, "./sor");
    ck_assert_int_eq(ev.flags, 1);
    ck_assert_str_eq(ev.where, "node1");
    ck_assert_int_eq(ev.count, 3);
    ck_assert_int_eq(ev.argc, 7);
    for (i = 0; i < 7; i++)
        ck_assert_str_eq(ev.argv[i], spawn_argv[i]);
    ck_assert_ptr_null(ev.argv[7]);
    ck_assert_int_eq(ev.nchild, 2);
    ck_assert(ev.child_ltid[0] == 2 && ev.child_ltid[1] == 3);
    ck_assert_str_eq(ev.child_host[0], "node1");
    ck_assert_str_eq(ev.child_host[1], "node2");
    next_ok(r, &ev);
    ck_assert_int_eq(ev.seq, 2);
    ck_assert_str_eq(ev.program, "/bin/x");
    ck_assert_str_eq(ev.where, "");
    ck_assert(ev.argc == 0 && ev.argv[0] == NULL && ev.nchild == 0);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_END);
    ck_assert_int_eq(ev.status, 0);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_reading_100000_events_streams)
{
    const char *path = tpath("big.comm.xml");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 0, "./big", "h", &err);
    struct rusage before, after;
    pg_event ev;
    pg_logr *r;
    int i, to[2];

    ck_assert_ptr_nonnull(w);
    for (i = 0; i < 100000; i++) {
        to[0] = i % 7, to[1] = i % 11;
        if (i % 2)
            ck_assert_int_eq(pg_logw_recv(w, 1e9 + i * 1e-3, "pvm_recv", i % 5,
                                          i % 100, i, i * 3), 0);
        else
            ck_assert_int_eq(pg_logw_send(w, 1e9 + i * 1e-3, "pvm_send",
                                          i % 100, i, i * 2, 1 + i % 4 / 3,
                                          to), 0);
    }
    ck_assert_int_eq(pg_logw_close(w), 0);
    getrusage(RUSAGE_SELF, &before);
    r = open_ok(path, PG_LOG_COMM, NULL);
    for (i = 0; i < 100000; i++) {
        next_ok(r, &ev);
        ck_assert_int_eq(ev.seq, i + 1);
        ck_assert_int_eq(ev.msgid, i);
        ck_assert_int_eq(ev.tag, i % 100);
        ck_assert_double_eq_tol(ev.t, 1e9 + i * 1e-3, 1e-6);
        ck_assert_int_eq(ev.kind, i % 2 ? PG_EV_RECV : PG_EV_SEND);
        if (i % 2 == 0)
            ck_assert(ev.nto == 1 + i % 4 / 3 && ev.to[0] == i % 7 &&
                      ev.bytes == i * 2);
    }
    end_ok(r);
    pg_logr_close(r);
    getrusage(RUSAGE_SELF, &after);
    /* A tree of 100000 events would take well over 100 MB.  (Meaningless
     * under AddressSanitizer, whose quarantine keeps freed memory.) */
#ifndef __SANITIZE_ADDRESS__
    ck_assert_msg(after.ru_maxrss - before.ru_maxrss < 16 * 1024,
                  "reading grew by %ld kB", after.ru_maxrss - before.ru_maxrss);
#endif
}
END_TEST

/* ---- the schema ------------------------------------------------------ */

/* Checking a long log against the schema streams too: libxml2 2.9 kept
 * ~100 bytes an event for a repeated xs:choice (107 MB for a million
 * events), which the schema now avoids.  300000 events: ~30 MB before. */
START_TEST(test_validating_300000_events_streams)
{
    const char *path = tpath("bigv.comm.xml");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 0, "./big", "h", &err);
    struct rusage before, after;
    int i;

    ck_assert_ptr_nonnull(w);
    for (i = 0; i < 300000; i++)
        ck_assert_int_eq(pg_logw_recv(w, 1e9 + i * 1e-3, "pvm_recv", 2, 5,
                                      i + 1, 8), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    getrusage(RUSAGE_SELF, &before);
    ck_assert_msg(log_validate(path, XSD, &err) == 0, "%s", err.msg);
    getrusage(RUSAGE_SELF, &after);
#ifndef __SANITIZE_ADDRESS__
    ck_assert_msg(after.ru_maxrss - before.ru_maxrss < 8 * 1024,
                  "validating grew by %ld kB", after.ru_maxrss - before.ru_maxrss);
#endif
    unlink(path);
}
END_TEST

START_TEST(test_written_logs_validate_against_schema)
{
    pg_err err = {{0}};

    ck_assert_msg(log_validate(write_comm_log("v.comm.xml"), XSD, &err) == 0,
                  "%s", err.msg);
    ck_assert_msg(log_validate(write_exec_log("v.exec.xml"), XSD, &err) == 0,
                  "%s", err.msg);
}
END_TEST

static void expect_invalid(const char *name, const char *text)
{
    pg_err err = {{0}};
    const char *path = write_text(name, text);
    char where[600];

    ck_assert_int_eq(log_validate(path, XSD, &err), -1);
    snprintf(where, sizeof where, "%s:", path);
    ck_assert_msg(strncmp(err.msg, where, strlen(where)) == 0 &&
                  err.msg[strlen(where)] >= '1' &&
                  err.msg[strlen(where)] <= '9',
                  "\"%s\" lacks file:line:", err.msg);
}

START_TEST(test_schema_rejects_wrong_root)
{
    expect_invalid("root.xml", "<?xml version=\"1.0\"?>\n<pangaea-log>\n"
                   "  <header format=\"pangaea-comm\" version=\"1\" ltid=\"2\""
                   " program=\"p\" host=\"h\"/>\n</pangaea-log>\n");
}
END_TEST

START_TEST(test_schema_rejects_missing_attribute)
{
    expect_invalid("miss.xml", COMM_HEAD "  <recv seq=\"1\" t=\"1.5\" call=\""
                   "pvm_recv\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n"
                   "</pangaea-comm>\n");
}
END_TEST

START_TEST(test_schema_rejects_bad_type)
{
    expect_invalid("type.xml", COMM_HEAD "  <recv seq=\"1\" t=\"soon\" call=\""
                   "pvm_recv\" from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n"
                   "</pangaea-comm>\n");
    expect_invalid("call.xml", COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\""
                   "pvm_steal\" from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>"
                   "\n</pangaea-comm>\n");
    expect_invalid("seq.xml", COMM_HEAD "  <recv seq=\"0\" t=\"1\" call=\""
                   "pvm_recv\" from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>"
                   "\n</pangaea-comm>\n");
}
END_TEST

START_TEST(test_schema_rejects_unknown_element)
{
    expect_invalid("unk.xml", COMM_HEAD "  <sneak seq=\"1\"/>\n"
                   "</pangaea-comm>\n");
    expect_invalid("spawn.xml", COMM_HEAD "  <spawn seq=\"1\" t=\"1\" program="
                   "\"p\" flags=\"0\" where=\"\" count=\"0\"/>\n"
                   "</pangaea-comm>\n");
}
END_TEST

START_TEST(test_schema_rejects_format_of_the_other_root)
{
    expect_invalid("fmt.xml", "<pangaea-exec><header format=\"pangaea-comm\""
                   " version=\"1\" ltid=\"1\" program=\"p\" host=\"h\"/>"
                   "</pangaea-exec>\n");
}
END_TEST

/* ---- the writer ------------------------------------------------------ */

START_TEST(test_writer_refuses_bad_events_and_log_stays_readable)
{
    static const int to[] = {1};
    char *nochild[] = {"a", NULL};
    const char *path = tpath("refuse.comm.xml"), *xpath = tpath("refuse.exec.xml");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    pg_logw *x = pg_logw_open(xpath, PG_LOG_EXEC, 1, "p", "h", &err);
    long n;

    ck_assert_int_eq(pg_logw_send(w, 1, "pvm_frobnicate", 1, 1, 1, 1, to), -1);
    ck_assert_int_eq(pg_logw_send(w, 1, "pvm_send", 1, 1, -1, 1, to), -1);
    ck_assert_int_eq(pg_logw_send(w, 1, "pvm_send", 1, 1, 1, 1, NULL), -1);
    ck_assert_int_eq(pg_logw_recv(w, 0.0 / 0.0, "pvm_recv", 1, 1, 1, 1), -1);
    ck_assert_int_eq(pg_logw_spawn(w, 1, "p", NULL, 0, "", 1, 0, NULL, NULL),
                     -1); /* a spawn in a comm log */
    ck_assert_int_eq(pg_logw_spawn(x, 1, "p\001", nochild, 0, "", 1, 0, NULL,
                                   NULL), -1); /* a program name is no arg */
    ck_assert_int_eq(pg_logw_spawn(x, 1, "p", NULL, 0, "", 1, 2, to, NULL), -1);
    ck_assert_int_eq(pg_logw_recv(x, 1, "pvm_recv", 1, 1, 1, 1), -1);
    ck_assert_int_eq(pg_logw_recv(w, 1, "pvm_recv", 1, 1, 1, 1), 0);
    ck_assert_int_eq(pg_logw_end(w, 2, 0), 0);
    ck_assert_int_eq(pg_logw_recv(w, 3, "pvm_recv", 1, 1, 1, 1), -1);
    ck_assert_int_eq(pg_logw_end(w, 3, 0), -1);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_int_eq(pg_logw_close(x), 0);
    ck_assert_int_eq(read_all(path, PG_LOG_COMM, &n, &err), 0);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(read_all(xpath, PG_LOG_EXEC, &n, &err), 0);
    ck_assert_int_eq(n, 0);
    ck_assert_int_eq(log_validate(path, XSD, &err), 0);
}
END_TEST

/* Arguments are data: bytes XML cannot carry (control characters,
 * invalid UTF-8, a carriage return) come back as they went in. */
START_TEST(test_args_with_any_bytes_round_trip_and_validate)
{
    char *argv[] = {"a\001b", "\xc3(", "\xff\xfe", "\r\n\t", "plain",
                    "", NULL};
    const char *path = tpath("bytes.exec.xml");
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logw *x = pg_logw_open(path, PG_LOG_EXEC, 1, "p", "h", &err);
    pg_logr *r;
    int i;

    ck_assert_int_eq(pg_logw_spawn(x, 1, "p", argv, 0, "", 1, 0, NULL, NULL),
                     0);
    ck_assert_int_eq(pg_logw_close(x), 0);
    ck_assert_msg(pg_log_validate(path, XSD, &err) == 0, "%s", err.msg);
    r = open_ok(path, PG_LOG_EXEC, &h);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.argc, 6);
    for (i = 0; i < 6; i++)
        ck_assert_str_eq(ev.argv[i], argv[i]);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_hex_arg_with_bad_digits_is_refused)
{
    static const char *bad[] = {"0", "zz", "00", "41 "};
    char path[64], doc[512];
    pg_log_header h;
    pg_err err;
    pg_event ev;
    pg_logr *r;
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "badhex%zu.exec.xml", i);
        snprintf(doc, sizeof doc, "<pangaea-exec><header format=\"pangaea-exec\""
                 " version=\"1\" ltid=\"1\" program=\"p\" host=\"h\"/>"
                 "<spawn seq=\"1\" t=\"1\" program=\"p\" flags=\"0\" "
                 "where=\"\" count=\"1\"><arg enc=\"hex\">%s</arg></spawn>"
                 "</pangaea-exec>", bad[i]);
        r = pg_logr_open(write_text(path, doc), PG_LOG_EXEC, &h, &err);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(pg_logr_next(r, &ev, &err), -1);
        ck_assert_ptr_nonnull(strstr(err.msg, "enc=\"hex\""));
        pg_logr_close(r);
    }
}
END_TEST

static void quiet(void *ctx, const char *fmt, ...)
{
    (void)ctx, (void)fmt;
}

START_TEST(test_writer_open_fails_with_a_message)
{
    pg_err err = {{0}};
    char longname[2000];

    ck_assert_ptr_null(pg_logw_open(tpath("no/such/dir.xml"), PG_LOG_COMM, 1,
                                    "p", "h", &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "no/such/dir.xml"));
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ck_assert_ptr_null(pg_logw_open(tpath("long.xml"), PG_LOG_COMM, 1,
                                    longname, "h", &err));
    if (access("/dev/full", W_OK) == 0) { /* a disk that is full */
        xmlSetGenericErrorFunc(NULL, quiet); /* libxml2 would print it too */
        ck_assert_ptr_null(pg_logw_open("/dev/full", PG_LOG_COMM, 1, "p", "h",
                                        &err));
        ck_assert_ptr_nonnull(strstr(err.msg, "/dev/full"));
        xmlSetGenericErrorFunc(NULL, NULL);
    }
}
END_TEST

START_TEST(test_flush_puts_events_in_the_file)
{
    const char *path = tpath("flush.comm.xml");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    char *text;

    ck_assert_int_eq(pg_logw_recv(w, 5, "pvm_probe", 1, 2, 3, 4), 0);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    text = slurp(as_xml(path), NULL); /* the log is still open */
    ck_assert_ptr_nonnull(strstr(text, "<recv seq=\"1\" t=\"5.000000\" "
                                       "call=\"pvm_probe\""));
    free(text);
    ck_assert_int_eq(pg_logw_close(w), 0);
}
END_TEST

/* The traced program's LC_NUMERIC must not reach the log (checked where a
 * locale with a decimal comma is installed). */
START_TEST(test_timestamps_ignore_the_locale)
{
    static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                  "ru_RU.UTF-8"};
    const char *path = tpath("locale.comm.xml");
    pg_event ev;
    pg_err err;
    pg_logw *w;
    pg_logr *r;
    size_t i;

    for (i = 0; i < 4 && !setlocale(LC_NUMERIC, names[i]); i++)
        ;
    w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    ck_assert_int_eq(pg_logw_recv(w, 2.5, "pvm_recv", 1, 2, 3, 4), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    r = open_ok(path, PG_LOG_COMM, NULL);
    next_ok(r, &ev);
    ck_assert_double_eq(ev.t, 2.5);
    pg_logr_close(r);
    setlocale(LC_NUMERIC, "C");
}
END_TEST

/* A group lookup round-trips and validates; an error is kept as the ltid. */
START_TEST(test_gettid_round_trips_and_validates)
{
    const char *path = tpath("g.comm.xml");
    pg_event ev;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    pg_logr *r;

    ck_assert_int_eq(pg_logw_gettid(w, 1.5, "grp <&>", 2, 5), 0);
    pg_logw_misses(w, 3);
    ck_assert_int_eq(pg_logw_gettid(w, 2.5, "g", 7, -19), 0);
    ck_assert_int_eq(pg_logw_gettid(w, 3.5, NULL, 7, 1), -1);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_msg(log_validate(path, XSD, &err) == 0, "%s", err.msg);
    r = open_ok(path, PG_LOG_COMM, NULL);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_GETTID);
    ck_assert_str_eq(ev.group, "grp <&>");
    ck_assert_int_eq(ev.inst, 2);
    ck_assert_int_eq(ev.from, 5);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.seq, 2);
    ck_assert_int_eq(ev.inst, 7);
    ck_assert_int_eq(ev.from, -19);
    ck_assert_int_eq(ev.misses, 3);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_notice_round_trips_and_validates)
{
    const char *path = tpath("n.comm.xml");
    pg_event ev;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    pg_logr *r;

    ck_assert_int_eq(pg_logw_notice(w, 1.5, "pvm_recv", 50, PG_NOTICE_EXIT,
                                    3, 4), 0);
    pg_logw_misses(w, 2);
    ck_assert_int_eq(pg_logw_notice(w, 2.5, "pvm_probe", -7,
                                    PG_NOTICE_HOSTADD, -1, 8), 0);
    ck_assert_int_eq(pg_logw_notice(w, 3.5, "pvm_recv", 1, 0, 1, 4), -1);
    ck_assert_int_eq(pg_logw_notice(w, 3.5, "pvm_recv", 1, 4, 1, 4), -1);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_msg(log_validate(path, XSD, &err) == 0, "%s", err.msg);
    r = open_ok(path, PG_LOG_COMM, NULL);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_NOTICE);
    ck_assert_int_eq(ev.what, PG_NOTICE_EXIT);
    ck_assert_str_eq(ev.call, "pvm_recv");
    ck_assert_int_eq(ev.tag, 50);
    ck_assert_int_eq(ev.from, 3);
    ck_assert_int_eq(ev.bytes, 4);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.what, PG_NOTICE_HOSTADD);
    ck_assert_int_eq(ev.tag, -7);
    ck_assert_int_eq(ev.from, -1);
    ck_assert_int_eq(ev.misses, 2);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_query_round_trips_and_validates)
{
    const char *path = tpath("q.comm.xml");
    pg_event ev;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    pg_logr *r;

    ck_assert_int_eq(pg_logw_query(w, 1.5, "pvm_pstat", "3", -31), 0);
    pg_logw_misses(w, 2);
    ck_assert_int_eq(pg_logw_query(w, 2.5, "pvm_gsize", "g <&>\"", 4), 0);
    ck_assert_int_eq(pg_logw_query(w, 3.5, "pvm_recv", "3", 0), -1);
    ck_assert_int_eq(pg_logw_query(w, 3.5, "pvm_mstat", NULL, 0), -1);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_msg(log_validate(path, XSD, &err) == 0, "%s", err.msg);
    r = open_ok(path, PG_LOG_COMM, NULL);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_QUERY);
    ck_assert_str_eq(ev.call, "pvm_pstat");
    ck_assert_str_eq(ev.about, "3");
    ck_assert_int_eq(ev.value, -31);
    next_ok(r, &ev);
    ck_assert_str_eq(ev.call, "pvm_gsize");
    ck_assert_str_eq(ev.about, "g <&>\"");
    ck_assert_int_eq(ev.value, 4);
    ck_assert_int_eq(ev.misses, 2);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

/* Joins carry their turn among the group's joins and leaves; leaves too. */
START_TEST(test_join_and_leave_round_trip_with_their_turns)
{
    const char *path = tpath("j.comm.xml");
    pg_event ev;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    pg_logr *r;

    ck_assert_int_eq(pg_logw_join(w, 1.5, "g", 2, 1, 0), 0);
    ck_assert_int_eq(pg_logw_leave(w, 2.5, "g", 3), 0);
    ck_assert_int_eq(pg_logw_gettid(w, 3.5, "g", 1, 4), 0);
    ck_assert_int_eq(pg_logw_leave(w, 4.5, "g", -1), -1);
    ck_assert_int_eq(pg_logw_join(w, 4.5, "g", 2, 1, -1), -1);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_msg(log_validate(path, XSD, &err) == 0, "%s", err.msg);
    r = open_ok(path, PG_LOG_COMM, NULL);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_GETTID);
    ck_assert_int_eq(ev.inst, 2);
    ck_assert_int_eq(ev.order, 0);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_LEAVE);
    ck_assert_str_eq(ev.group, "g");
    ck_assert_int_eq(ev.order, 3);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_GETTID);
    ck_assert_int_eq(ev.order, -1); /* a lookup has no turn */
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

/* A send is logged before the real call; when the call fails it is taken
 * back: the log reads as if it had never been written, misses included,
 * also when the file is read before it is closed (a crash after the undo). */
START_TEST(test_undone_send_leaves_no_trace)
{
    const char *path = tpath("u.comm.xml");
    int to[2] = { 3, 4 };
    pg_event ev;
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 1, "p", "h", &err);
    pg_logr *r;
    long n;

    ck_assert_int_eq(pg_logw_recv(w, 1.5, "pvm_recv", 2, 7, 1, 8), 0);
    pg_logw_misses(w, 4);
    ck_assert_int_eq(pg_logw_send(w, 2.5, "pvm_mcast", 9, 1, 8, 2, to), 0);
    pg_logw_undo(w);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    ck_assert_int_eq(pg_log_check_cut(path, PG_LOG_COMM, &n, &err), 1);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(pg_logw_send(w, 3.5, "pvm_send", 9, 2, 8, 1, to), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_msg(log_validate(path, XSD, &err) == 0, "%s", err.msg);
    r = open_ok(path, PG_LOG_COMM, NULL);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_RECV);
    next_ok(r, &ev);
    ck_assert_int_eq(ev.kind, PG_EV_SEND);
    ck_assert_int_eq(ev.seq, 2);
    ck_assert_int_eq(ev.msgid, 2);
    ck_assert_int_eq(ev.nto, 1);
    ck_assert_int_eq(ev.misses, 4);
    end_ok(r);
    pg_logr_close(r);
}
END_TEST

START_TEST(test_log_path_names_files_by_ltid_and_kind)
{
    char buf[64];

    ck_assert_int_eq(pg_log_path(buf, sizeof buf, "logs", 2, PG_LOG_COMM), 0);
    ck_assert_str_eq(buf, "logs/ltid-2.comm.pgc");
    ck_assert_int_eq(pg_log_path(buf, sizeof buf, "/d", 0, PG_LOG_EXEC), 0);
    ck_assert_str_eq(buf, "/d/ltid-0.exec.xml");
    ck_assert_int_eq(pg_log_path(buf, 10, "logs", 2, PG_LOG_COMM), -1);
    ck_assert_int_eq(pg_log_path(buf, sizeof buf, "logs", -1, PG_LOG_COMM),
                     -1);
}
END_TEST

START_TEST(test_call_names_are_the_schemas)
{
    ck_assert(pg_log_call_known("pvm_send") && pg_log_call_known("pvm_bcast") &&
              pg_log_call_known("pvm_precv"));
    ck_assert(!pg_log_call_known("pvm_spawn") && !pg_log_call_known("") &&
              !pg_log_call_known(NULL));
}
END_TEST

/* ---- main ------------------------------------------------------------ */

static Suite *log_suite(void)
{
    Suite *s = suite_create("log");
    TCase *rt = tcase_create("round trip"), *sc = tcase_create("schema"),
          *wr = tcase_create("writer");

    tcase_set_timeout(rt, 120);
    tcase_set_timeout(sc, 120); /* 300000 events: dumped, validated, sanitized */
    tcase_add_test(rt, test_header_round_trips);
    tcase_add_test(rt, test_send_to_one_and_several_ltids_round_trips);
    tcase_add_test(rt, test_recv_and_end_round_trip);
    tcase_add_test(rt, test_spawn_with_args_children_and_hosts_round_trips);
    tcase_add_test(rt, test_args_with_any_bytes_round_trip_and_validate);
    tcase_add_test(rt, test_hex_arg_with_bad_digits_is_refused);
    tcase_add_test(rt, test_reading_100000_events_streams);
    tcase_add_test(rt, test_undone_send_leaves_no_trace);
    tcase_add_test(rt, test_notice_round_trips_and_validates);
    tcase_add_test(rt, test_query_round_trips_and_validates);
    tcase_add_test(rt, test_join_and_leave_round_trip_with_their_turns);
    tcase_add_test(sc, test_written_logs_validate_against_schema);
    tcase_add_test(sc, test_validating_300000_events_streams);
    tcase_add_test(sc, test_schema_rejects_wrong_root);
    tcase_add_test(sc, test_schema_rejects_missing_attribute);
    tcase_add_test(sc, test_schema_rejects_bad_type);
    tcase_add_test(sc, test_schema_rejects_unknown_element);
    tcase_add_test(sc, test_schema_rejects_format_of_the_other_root);
    tcase_add_test(wr, test_writer_refuses_bad_events_and_log_stays_readable);
    tcase_add_test(wr, test_writer_open_fails_with_a_message);
    tcase_add_test(wr, test_flush_puts_events_in_the_file);
    tcase_add_test(wr, test_timestamps_ignore_the_locale);
    tcase_add_test(wr, test_log_path_names_files_by_ltid_and_kind);
    tcase_add_test(rt, test_gettid_round_trips_and_validates);
    tcase_add_test(wr, test_call_names_are_the_schemas);
    suite_add_tcase(s, rt);
    suite_add_tcase(s, sc);
    suite_add_tcase(s, wr);
    return s;
}

int main(void)
{
    return run_suite(log_suite());
}
