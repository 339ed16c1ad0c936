/*
 * log_test_util.h - what the log unit tests (test_log.c, test_log_bad.c)
 * share: one temporary directory (mkdtemp under /tmp) made before the tests
 * and removed after them, small logs of every event by the writer, and
 * helpers that read a whole log or expect it to be refused.  Everything is
 * static inline so each test binary takes what it uses without warnings.
 */
#ifndef LOG_TEST_UTIL_H
#define LOG_TEST_UTIL_H

#include <check.h>

#include "check_run.h"
#include "rm_tree.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_log.h"

#define XSD PG_SCHEMA_DIR "/pangaea-log.xsd"

static char tmpdir[] = "/tmp/pg_test_log.XXXXXX";

/* ---- helpers --------------------------------------------------------- */

/* A path in the temporary directory (from a ring of buffers, so that a few
 * can be alive at once). */
static inline const char *tpath(const char *name)
{
    static char ring[8][512];
    static int next;
    char *buf = ring[next++ % 8];

    snprintf(buf, sizeof ring[0], "%s/%s", tmpdir, name);
    return buf;
}

static inline const char *write_text(const char *name, const char *text)
{
    const char *path = tpath(name);
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

static inline const char *write_bytes(const char *name, const void *p, size_t n)
{
    const char *path = tpath(name);
    FILE *f = fopen(path, "wb");

    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Whole file into a malloc'ed string. */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

/* A log's XML, whatever its format: a binary communication log is dumped
 * (pg_log_dump, what `pangaea -dump` prints) to path + ".dump.xml", whose
 * name is returned; an XML log is its own. */
static inline const char *as_xml(const char *path)
{
    static char out[8][600];
    static int next;
    char *buf = out[next++ % 8];
    FILE *f;
    pg_err err = {{0}};
    char magic[4] = {0};

    f = fopen(path, "rb");
    if (!f || fread(magic, 1, 4, f) != 4 || memcmp(magic, "PGCL", 4)) {
        if (f)
            fclose(f);
        return path;
    }
    fclose(f);
    snprintf(buf, sizeof out[0], "%s.dump.xml", path);
    f = fopen(buf, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(pg_log_dump(path, PG_LOG_COMM, f, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(fclose(f), 0);
    return buf;
}

/* Validates a log of either format against the schema. */
static inline int log_validate(const char *path, const char *xsd, pg_err *err)
{
    return pg_log_validate(as_xml(path), xsd, err);
}

/* Reads a whole log: the last result (0 clean end, -1 error), the number
 * of events read before it, and the error message. */
static inline int read_all(const char *path, pg_log_kind kind, long *nev, pg_err *err)
{
    pg_log_header h;
    pg_event ev;
    pg_logr *r = pg_logr_open(path, kind, &h, err);
    long n = 0;
    int rc;

    if (nev)
        *nev = 0;
    if (!r)
        return -1;
    while ((rc = pg_logr_next(r, &ev, err)) == 1 && n < 1000000)
        n++;
    pg_logr_close(r);
    if (nev)
        *nev = n;
    return rc;
}

/* Asserts that reading path fails with a message containing `want`. */
static inline void expect_bad(const char *path, pg_log_kind kind, const char *want)
{
    pg_err err = {{0}};

    ck_assert_int_eq(read_all(path, kind, NULL, &err), -1);
    ck_assert_msg(strstr(err.msg, want), "error \"%s\" lacks \"%s\"", err.msg,
                  want);
}

#define COMM_HEAD                                                            \
    "<?xml version=\"1.0\"?>\n<pangaea-comm>\n  <header format=\"pangaea-" \
    "comm\" version=\"1\" ltid=\"2\" program=\"./p\" host=\"h\"/>\n"
#define EXEC_ROOT                                                            \
    "<pangaea-exec>\n  <header format=\"pangaea-exec\" version=\"1\" "      \
    "ltid=\"1\" program=\"./p\" host=\"h\"/>\n"
#define EXEC_HEAD "<?xml version=\"1.0\"?>\n" EXEC_ROOT
#define RECV1                                                                \
    "  <recv seq=\"1\" t=\"1.5\" call=\"pvm_recv\" from=\"3\" tag=\"5\" "    \
    "msgid=\"1\" bytes=\"8\"/>\n"

/* A small comm log of every comm event, by the writer. */
static inline const char *write_comm_log(const char *name)
{
    static const int one[] = {3}, three[] = {3, 4, 5};
    const char *path = tpath(name);
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 2, "./sor", "node1", &err);

    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_send(w, 1763769600.000123, "pvm_send", 5, 1, 80,
                                  1, one), 0);
    ck_assert_int_eq(pg_logw_send(w, 1763769600.5, "pvm_mcast", -7, 2, 0, 3,
                                  three), 0);
    ck_assert_int_eq(pg_logw_recv(w, 1763769601.25, "pvm_nrecv", 3, 6, 9,
                                  4096), 0);
    ck_assert_int_eq(pg_logw_end(w, 1763769602.0, 3), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    return path;
}

static char *spawn_argv[] = {"4", "a b", "<&>\"'", "tab\tnl\ncr\r.",
                             "\xc3\xa9t\xc3\xa9", "", " ", NULL};

/* A small exec log of every exec event, by the writer. */
static inline const char *write_exec_log(const char *name)
{
    static const int ltids[] = {2, 3};
    static const char *const hosts[] = {"node1", "node2"};
    const char *path = tpath(name);
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_EXEC, 1, "./sor", "node0", &err);

    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_spawn(w, 10.25, "./sor", spawn_argv, 1, "node1",
                                   3, 2, ltids, hosts), 0);
    ck_assert_int_eq(pg_logw_spawn(w, 11.0, "/bin/x", NULL, 0, NULL, 1, 0,
                                   NULL, NULL), 0);
    ck_assert_int_eq(pg_logw_end(w, 12.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    return path;
}

static inline pg_logr *open_ok(const char *path, pg_log_kind kind, pg_log_header *h)
{
    pg_err err;
    pg_logr *r = pg_logr_open(path, kind, h, &err);

    ck_assert_msg(r != NULL, "%s", err.msg);
    return r;
}

static inline void next_ok(pg_logr *r, pg_event *ev)
{
    pg_err err = {{0}};

    ck_assert_msg(pg_logr_next(r, ev, &err) == 1, "%s", err.msg);
}

static inline void end_ok(pg_logr *r)
{
    pg_err err = {{0}};
    pg_event ev;

    ck_assert_msg(pg_logr_next(r, &ev, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(pg_logr_next(r, &ev, &err), 0); /* and stays there */
}

/* ---- main ------------------------------------------------------------ */

/* Runs the suite inside a fresh temporary directory, then removes it.
 * Returns the exit status: 0 when every test passed. */
static inline int run_suite(Suite *s)
{
    int failed;

    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    failed = ck_run(s);
    ck_rm_tree(tmpdir);
    return failed ? 1 : 0;
}

#endif
