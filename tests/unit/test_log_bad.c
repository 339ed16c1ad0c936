/*
 * test_log_bad.c - unit tests of the log reader (src/log/log_read.c)
 * against bad and hostile logs: truncated, garbage, of another version or
 * kind, with events after <end>, unknown elements, bad numbers, lists and
 * strings over the limits, entities, random bytes, random mutations and
 * every prefix of a good log.  It must refuse each with a message that
 * names the file (and line, and column for XML errors), and never crash:
 * Check forks each test, so a crash shows as an error here.
 */
#define _GNU_SOURCE
#include "log_test_util.h"

/* ---- the reader refuses bad logs -------------------------------------- */

START_TEST(test_reader_rejects_truncated_file_naming_it)
{
    size_t len;
    char *text = slurp(write_comm_log("full.comm.xml"), &len);
    const char *path = write_bytes("cut.comm.xml", text, len / 2);

    expect_bad(path, PG_LOG_COMM, path);
    free(text);
}
END_TEST

/* A task that dies leaves a flushed log without its closing tags. */
START_TEST(test_log_of_a_dead_task_yields_its_events_then_an_error)
{
    const char *path = tpath("dead.comm.xml");
    pg_err err = {{0}};
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 4, "p", "h", &err);
    long n;

    ck_assert_int_eq(pg_logw_recv(w, 1.0, "pvm_recv", 1, 2, 3, 4), 0);
    ck_assert_int_eq(pg_logw_recv(w, 2.0, "pvm_trecv", 1, 2, 3, 4), 0);
    ck_assert_int_eq(pg_logw_flush(w), 0);
    ck_assert_int_eq(read_all(path, PG_LOG_COMM, &n, &err), -1);
    ck_assert_int_eq(n, 2);
    ck_assert_ptr_nonnull(strstr(err.msg, path));
    ck_assert_int_eq(pg_logw_close(w), 0);
    ck_assert_int_eq(read_all(path, PG_LOG_COMM, &n, &err), 0);
}
END_TEST

START_TEST(test_reader_rejects_garbage_and_empty_files)
{
    expect_bad(write_text("garbage.xml", "this is not XML at all\n"),
               PG_LOG_COMM, "garbage.xml:1:");
    expect_bad(write_text("empty.xml", ""), PG_LOG_COMM, "empty.xml");
    expect_bad(write_bytes("nul.xml", "\0\0\0\0\xff\xfe", 6), PG_LOG_EXEC,
               "nul.xml");
    expect_bad(tpath("missing.xml"), PG_LOG_COMM, "No such file");
}
END_TEST

START_TEST(test_reader_rejects_other_version_naming_it)
{
    expect_bad(write_text("v9.xml", "<pangaea-comm><header format=\"pangaea-"
                          "comm\" version=\"9\" ltid=\"2\" program=\"p\" host="
                          "\"h\" extra=\"new in 9\"/></pangaea-comm>"),
               PG_LOG_COMM, "written by log format version 9, this Pangaea "
                            "reads versions 1 to 8");
}
END_TEST

START_TEST(test_reader_rejects_wrong_kind)
{
    expect_bad(write_exec_log("kind.exec.xml"), PG_LOG_COMM, "wrong kind");
    expect_bad(write_comm_log("kind.comm.xml"), PG_LOG_EXEC, "wrong kind");
    expect_bad(write_text("fmt.xml", "<pangaea-comm><header format=\"pangaea-"
                          "exec\" version=\"1\" ltid=\"2\" program=\"p\" host="
                          "\"h\"/></pangaea-comm>"),
               PG_LOG_COMM, "format");
}
END_TEST

START_TEST(test_reader_rejects_event_after_end)
{
    expect_bad(write_text("after.xml", COMM_HEAD "  <end seq=\"1\" t=\"1\" "
                          "status=\"0\"/>\n" RECV1 "</pangaea-comm>\n"),
               PG_LOG_COMM, "after.xml:5: <recv> after <end>");
}
END_TEST

START_TEST(test_malformed_xml_error_has_file_line_and_column)
{
    const char *path = write_text("bad.xml", COMM_HEAD RECV1
                                  "  <recv seq=\"2\" t=1/>\n</pangaea-comm>\n");
    pg_err err = {{0}};
    char want[600];

    ck_assert_int_eq(read_all(path, PG_LOG_COMM, NULL, &err), -1);
    snprintf(want, sizeof want, "%s:5:", path);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
    ck_assert_msg(strchr(err.msg + strlen(want), ':') != NULL, "no column: %s",
                  err.msg);
}
END_TEST

/* One bad log per case: what it holds, and what the error must say. */
static const struct bad_case {
    pg_log_kind kind;
    const char *body;
    const char *want;
} bad_cases[] = {
    {PG_LOG_COMM, COMM_HEAD "  <sneak seq=\"1\"/>\n</pangaea-comm>",
     "unknown element <sneak>"},
    {PG_LOG_COMM, COMM_HEAD "  <spawn seq=\"1\"/>\n</pangaea-comm>",
     "unknown element <spawn>"},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"8\" colour=\"red\"/>\n"
     "</pangaea-comm>", "unknown attribute colour"},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n</pangaea-comm>",
     "lacks attribute from"},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "from=\"three\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n</pangaea-comm>",
     "bad from=\"three\""},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "from=\"99999999999\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n"
     "</pangaea-comm>", "bad from"},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1e3\" call=\"pvm_recv\" "
     "from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n</pangaea-comm>",
     "bad t=\"1e3\""},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"-8\"/>\n</pangaea-comm>",
     "bad bytes=\"-8\""},
    {PG_LOG_COMM, COMM_HEAD "  <recv seq=\"1\" t=\"1\" call=\"pvm_hack\" "
     "from=\"3\" tag=\"5\" msgid=\"1\" bytes=\"8\"/>\n</pangaea-comm>",
     "bad call"},
    {PG_LOG_COMM, COMM_HEAD "  <notice seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "tag=\"5\" what=\"reboot\" ltid=\"2\" bytes=\"4\"/>\n</pangaea-comm>",
     "what=\"reboot\": not exit, hostdelete or hostadd"},
    {PG_LOG_COMM, COMM_HEAD "  <notice seq=\"1\" t=\"1\" call=\"pvm_recv\" "
     "tag=\"5\" ltid=\"2\" bytes=\"4\"/>\n</pangaea-comm>",
     "lacks attribute what"},
    {PG_LOG_COMM, COMM_HEAD "  <query seq=\"1\" t=\"1\" call=\"pvm_halt\" "
     "about=\"2\" value=\"0\"/>\n</pangaea-comm>",
     "call=\"pvm_halt\": not a call a <query> may name (pvm_pstat, "
     "pvm_recvinfo, pvm_kill, ...)"},
    {PG_LOG_COMM, COMM_HEAD "  <query seq=\"1\" t=\"1\" call=\"pvm_pstat\" "
     "about=\"2\" value=\"zero\"/>\n</pangaea-comm>", "bad value=\"zero\""},
    {PG_LOG_COMM, COMM_HEAD "  <leave seq=\"1\" t=\"1\" group=\"g\"/>\n"
     "</pangaea-comm>", "lacks attribute order"},
    {PG_LOG_COMM, COMM_HEAD "  <leave seq=\"1\" t=\"1\" group=\"g\" "
     "order=\"-2\"/>\n</pangaea-comm>", "bad order=\"-2\""},
    {PG_LOG_COMM, COMM_HEAD RECV1 RECV1 "</pangaea-comm>", "seq 1 where 2"},
    {PG_LOG_COMM, COMM_HEAD RECV1 "  stray text\n</pangaea-comm>", "text"},
    {PG_LOG_COMM, COMM_HEAD "  <send seq=\"1\" t=\"1\" call=\"pvm_send\" "
     "tag=\"5\" msgid=\"1\" bytes=\"8\"><from ltid=\"1\"/></send>\n"
     "</pangaea-comm>", "other than <to>"},
    {PG_LOG_COMM, COMM_HEAD "  <?evil stuff?>\n</pangaea-comm>",
     "processing instruction"},
    {PG_LOG_COMM, "<pangaea-comm><recv/></pangaea-comm>", "no <header>"},
    {PG_LOG_COMM, "<pangaea-comm/>", "no <header>"},
    {PG_LOG_COMM, "<pangaea-comm><header format=\"pangaea-comm\" version=\"1\""
     " program=\"p\" host=\"h\"/></pangaea-comm>", "lacks attribute ltid"},
    {PG_LOG_COMM, "<pangaea-comm><header format=\"pangaea-comm\" version=\"x\""
     " ltid=\"1\" program=\"p\" host=\"h\"/></pangaea-comm>", "bad version"},
    {PG_LOG_COMM, "<html><body/></html>", "not a Pangaea log"},
    {PG_LOG_COMM, COMM_HEAD "</pangaea-comm><!-- ok --><more/>", "bad.xml:"},
    {PG_LOG_EXEC, EXEC_HEAD "  <spawn seq=\"1\" t=\"1\" program=\"p\" flags="
     "\"0\" where=\"\" count=\"-1\"/>\n</pangaea-exec>", "bad count=\"-1\""},
    {PG_LOG_EXEC, EXEC_HEAD "  <spawn seq=\"1\" t=\"1\" program=\"p\" flags="
     "\"0\" where=\"\" count=\"1\"><child ltid=\"2\" host=\"h\"/><child ltid="
     "\"3\" host=\"h\"/></spawn>\n</pangaea-exec>", "2 <child> for count"},
    {PG_LOG_EXEC, EXEC_HEAD "  <spawn seq=\"1\" t=\"1\" program=\"p\" flags="
     "\"0\" where=\"\" count=\"1\"><child ltid=\"2\" host=\"h\"/><arg>x</arg>"
     "</spawn>\n</pangaea-exec>", "<arg> after <child>"},
    {PG_LOG_EXEC, EXEC_HEAD "  <spawn seq=\"1\" t=\"1\" program=\"p\" flags="
     "\"0\" where=\"\" count=\"1\"><arg>x<b/></arg></spawn>\n</pangaea-exec>",
     "<arg> holds other than text"},
    {PG_LOG_EXEC, EXEC_HEAD "  <spawn seq=\"1\" t=\"1\" program=\"p\" flags="
     "\"0\" where=\"\" count=\"1\"><child ltid=\"2\"/></spawn>\n"
     "</pangaea-exec>", "lacks attribute host"},
    {PG_LOG_EXEC, EXEC_HEAD "  <end seq=\"1\" t=\"1\" status=\"0\">x</end>\n"
     "</pangaea-exec>", "text"},
};

START_TEST(test_reader_rejects_bad_log)
{
    const struct bad_case *c = &bad_cases[_i];
    pg_err err = {{0}};

    ck_assert_int_eq(read_all(write_text("bad.xml", c->body), c->kind, NULL,
                              &err), -1);
    ck_assert_msg(strstr(err.msg, c->want), "case %d: \"%s\" lacks \"%s\"", _i,
                  err.msg, c->want);
    ck_assert_msg(strstr(err.msg, "bad.xml:"), "case %d: no file:line in %s",
                  _i, err.msg);
}
END_TEST

/* Writes a log with one <send> of n <to>, or one <arg> of n bytes. */
static const char *write_big_event(const char *name, int nto, int arglen)
{
    const char *path = tpath(name);
    FILE *f = fopen(path, "w");
    int i;

    ck_assert_ptr_nonnull(f);
    if (nto) {
        fputs(COMM_HEAD "<send seq=\"1\" t=\"1\" call=\"pvm_mcast\" tag=\"1\" "
              "msgid=\"1\" bytes=\"1\">", f);
        for (i = 0; i < nto; i++)
            fprintf(f, "<to ltid=\"%d\"/>\n", i);
        fputs("</send></pangaea-comm>\n", f);
    } else {
        fputs(EXEC_HEAD "<spawn seq=\"1\" t=\"1\" program=\"p\" flags=\"0\" "
              "where=\"\" count=\"0\"><arg>", f);
        for (i = 0; i < arglen; i++)
            fputc('a' + i % 26, f);
        fputs("</arg></spawn></pangaea-exec>\n", f);
    }
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

START_TEST(test_reader_bounds_lists_and_strings)
{
    long n;
    pg_err err;

    ck_assert_int_eq(read_all(write_big_event("to-max.xml", PG_LOG_MAX_LIST, 0),
                              PG_LOG_COMM, &n, &err), 0);
    expect_bad(write_big_event("to-over.xml", PG_LOG_MAX_LIST + 1, 0),
               PG_LOG_COMM, "more than 65536 <to>");
    ck_assert_int_eq(read_all(write_big_event("arg-max.xml", 0, PG_LOG_MAX_STR),
                              PG_LOG_EXEC, &n, &err), 0);
    expect_bad(write_big_event("arg-over.xml", 0, PG_LOG_MAX_STR + 1),
               PG_LOG_EXEC, "longer than 4096");
}
END_TEST

/* ---- entities and hostile input --------------------------------------- */

START_TEST(test_external_entity_is_never_expanded)
{
    const char *secret = write_text("secret.txt", "TOP-SECRET-42");
    char text[2048];
    pg_err err = {{0}};
    const char *path;

    snprintf(text, sizeof text, "<?xml version=\"1.0\"?>\n<!DOCTYPE pangaea-"
             "exec [\n  <!ENTITY xxe SYSTEM \"file://%s\">\n]>\n" EXEC_ROOT
             "  <spawn seq=\"1\" t=\"1\" program=\"p\" flags=\"0\" where=\"\""
             " count=\"0\"><arg>&xxe;</arg></spawn>\n</pangaea-exec>\n",
             secret);
    path = write_text("xxe.xml", text);
    ck_assert_int_eq(read_all(path, PG_LOG_EXEC, NULL, &err), -1);
    ck_assert_ptr_null(strstr(err.msg, "TOP-SECRET"));
    ck_assert_ptr_nonnull(strstr(err.msg, "DOCTYPE"));
    ck_assert_int_eq(pg_log_validate(path, XSD, &err), -1);
    ck_assert_ptr_null(strstr(err.msg, "TOP-SECRET"));
    /* an external DTD is not loaded either */
    snprintf(text, sizeof text, "<!DOCTYPE pangaea-exec SYSTEM \"file://%s\">"
             "<pangaea-exec/>", secret);
    expect_bad(write_text("dtd.xml", text), PG_LOG_EXEC, "DOCTYPE");
}
END_TEST

START_TEST(test_entity_bomb_is_refused)
{
    expect_bad(write_text("bomb.xml", "<?xml version=\"1.0\"?>\n"
        "<!DOCTYPE pangaea-comm [\n <!ENTITY a \"aaaaaaaaaaaaaaaa\">\n"
        " <!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
        " <!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
        " <!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
        " <!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n"
        "]>\n<pangaea-comm><header format=\"&e;\" version=\"1\" ltid=\"1\" "
        "program=\"p\" host=\"h\"/></pangaea-comm>\n"),
        PG_LOG_COMM, "bomb.xml:");
}
END_TEST

START_TEST(test_reader_survives_random_bytes)
{
    static const char alphabet[] = "<>/=\"' \n\tabcdeghlmnoprstv0123456789-.&;!?[]";
    unsigned char buf[1500];
    pg_err err;
    size_t n, j;
    int i;

    srand(12345);
    for (i = 0; i < 300; i++) {
        n = (size_t)(rand() % (int)sizeof buf);
        for (j = 0; j < n; j++)
            buf[j] = (unsigned char)(i % 2 ? rand()
                                           : alphabet[rand() % (sizeof alphabet - 1)]);
        read_all(write_bytes("rnd.xml", buf, n), i % 3 ? PG_LOG_COMM
                                                       : PG_LOG_EXEC,
                 NULL, &err);
        pg_log_validate(tpath("rnd.xml"), XSD, &err);
    }
}
END_TEST

START_TEST(test_reader_survives_mutated_logs)
{
    static const char bytes[] = "<>/=\"'& \n0-9.x\xff\x80";
    size_t len[2], j;
    char *orig[2] = {slurp(write_comm_log("m.comm.xml"), &len[0]),
                     slurp(write_exec_log("m.exec.xml"), &len[1])};
    char *buf = malloc(len[0] + len[1]);
    pg_err err;
    int i, k;

    srand(777);
    for (i = 0; i < 1000; i++) {
        k = i % 2;
        memcpy(buf, orig[k], len[k]);
        for (j = 0; j < (size_t)(1 + rand() % 4); j++)
            buf[rand() % (int)len[k]] = bytes[rand() % (sizeof bytes - 1)];
        read_all(write_bytes("mut.xml", buf, len[k]), (pg_log_kind)k, NULL,
                 &err);
    }
    free(buf);
    free(orig[0]);
    free(orig[1]);
}
END_TEST

START_TEST(test_every_prefix_of_a_log_is_an_error)
{
    size_t len[2], cut;
    char *text[2] = {slurp(write_comm_log("p.comm.xml"), &len[0]),
                     slurp(write_exec_log("p.exec.xml"), &len[1])};
    pg_err err = {{0}};
    const char *path;
    int k;

    for (k = 0; k < 2; k++) {
        /* every prefix; an XML log may lack its last '\n', the binary
         * communication log (k = 0) has none to lack */
        for (cut = 0; cut + (k == 0 ? 0 : 1) < len[k]; cut++) {
            path = write_bytes("prefix.xml", text[k], cut);
            ck_assert_msg(read_all(path, (pg_log_kind)k, NULL, &err) == -1,
                          "a prefix of %zu bytes was read as complete", cut);
            ck_assert_msg(strstr(err.msg, "prefix.xml"), "%s", err.msg);
        }
        ck_assert_int_eq(read_all(write_bytes("prefix.xml", text[k], cut),
                                  (pg_log_kind)k, NULL, &err), 0);
        free(text[k]);
    }
}
END_TEST

/* ---- main ------------------------------------------------------------ */

static Suite *log_bad_suite(void)
{
    Suite *s = suite_create("log (bad logs)");
    TCase *bad = tcase_create("bad logs"), *hostile = tcase_create("hostile");

    tcase_add_test(bad, test_reader_rejects_truncated_file_naming_it);
    tcase_add_test(bad, test_log_of_a_dead_task_yields_its_events_then_an_error);
    tcase_add_test(bad, test_reader_rejects_garbage_and_empty_files);
    tcase_add_test(bad, test_reader_rejects_other_version_naming_it);
    tcase_add_test(bad, test_reader_rejects_wrong_kind);
    tcase_add_test(bad, test_reader_rejects_event_after_end);
    tcase_add_test(bad, test_malformed_xml_error_has_file_line_and_column);
    tcase_add_loop_test(bad, test_reader_rejects_bad_log, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(bad, test_reader_bounds_lists_and_strings);
    tcase_set_timeout(hostile, 120);
    tcase_add_test(hostile, test_external_entity_is_never_expanded);
    tcase_add_test(hostile, test_entity_bomb_is_refused);
    tcase_add_test(hostile, test_reader_survives_random_bytes);
    tcase_add_test(hostile, test_reader_survives_mutated_logs);
    tcase_add_test(hostile, test_every_prefix_of_a_log_is_an_error);
    suite_add_tcase(s, bad);
    suite_add_tcase(s, hostile);
    return s;
}

int main(void)
{
    return run_suite(log_bad_suite());
}
