/*
 * test_log_fast.c - the fused paths of the binary log's common event
 * (docs/comm-log-format.md): the reader's pg_brx_fast returns, field by
 * field, what its general decode-then-apply path returns, on a log of a
 * recorded loop's sends and receives broken now and then by what the
 * fused path leaves to the general one (misses, a wait of one, two or
 * three bytes, a time of three bytes or more, a new site or context, a
 * multicast, a size jump, other kinds).
 */
#define _XOPEN_SOURCE 700
#include <limits.h>

#include "log_test_util.h"
#include "log_bin.h"

/* Writes a log of n rounds of a ping-pong (a send at site 1, a receive
 * at site 2) whose predictions break as a real recording's do. */
static const char *write_loop(const char *name, int n)
{
    static const int three[] = { 4, 5, 6 };
    const char *path = tpath(name);
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_COMM, 3, "./p", "h", &err);
    double t = 1.7e9;
    int i, tag, bytes, peer = 4;

    ck_assert_msg(w != NULL, "%s", err.msg);
    for (i = 0; i < n; i++) {
        tag = i % 43 == 0 ? i : 7;
        bytes = i % 37 == 0 ? i * 1000 : 8;
        t += i % 97 == 0 ? 2.5 : i % 89 == 0 ? -1e-3 : i % 9 * 1.7e-5 + 1e-6;
        pg_logw_ctx(w, i / 71 % 2 ? 5 : 0); /* a run on a context */
        if (i % 50 == 0)
            pg_logw_misses(w, i % 7 + 1);
        if (i % 73 == 0) { /* a send whose call failed: taken back */
            pg_logw_note(w, 1, -3, -2, 0);
            ck_assert_int_eq(pg_logw_send(w, t, "pvm_send", tag, 2 * i + 1,
                                          bytes, 1, &peer), 0);
            pg_logw_undo(w);
        }
        pg_logw_note(w, i % 61 == 0 ? 9 : 1, -3, -2, 0);
        ck_assert_int_eq(i % 31 == 0
                         ? pg_logw_send(w, t, "pvm_mcast", tag, 2 * i + 1,
                                        bytes, 3, three)
                         : pg_logw_send(w, t, "pvm_send", tag, 2 * i + 1,
                                        bytes, 1, &peer), 0);
        t += i % 38 ? 5e-6 : 0.02; /* a time of three bytes, a wait */
        if (i % 53 == 0 || i % 19 == 0) /* one, two or three bytes */
            pg_logw_waited(w, i % 53 ? i % 100 + 1 : 100 + 9 * i);
        if (i % 67 == 0)
            ck_assert_int_eq(pg_logw_notice(w, t, "pvm_recv", 9,
                                            PG_NOTICE_HOSTADD, -1, 4), 0);
        pg_logw_note(w, 2, i % 29 == 0 ? 4 : -1, i % 83 == 0 ? 7 : -1,
                     i % 101 == 0);
        ck_assert_int_eq(pg_logw_recv(w, t, i % 41 ? "pvm_recv" : "pvm_nrecv",
                                      i % 47 ? 4 : 5, tag,
                                      i % 59 ? 2 * i + 2 : 3 * i, bytes), 0);
    }
    ck_assert_int_eq(pg_logw_end(w, t + 1, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    return path;
}

/* Every field a reader fills. */
static void same_event(const pg_event *a, const pg_event *b, long k)
{
    ck_assert_msg(a->kind == b->kind && a->seq == b->seq && a->t == b->t &&
                  a->tag == b->tag && a->msgid == b->msgid &&
                  a->bytes == b->bytes && a->from == b->from &&
                  a->what == b->what && a->value == b->value &&
                  a->nto == b->nto && a->argc == b->argc &&
                  a->flags == b->flags && a->count == b->count &&
                  a->nchild == b->nchild && a->status == b->status &&
                  a->inst == b->inst && a->order == b->order &&
                  a->misses == b->misses && a->waited == b->waited &&
                  a->site == b->site && a->posted == b->posted &&
                  a->together == b->together && a->ctx == b->ctx &&
                  a->nrivals == b->nrivals &&
                  a->asked_from == b->asked_from &&
                  a->asked_tag == b->asked_tag &&
                  a->matcher == b->matcher && a->offset == b->offset,
                  "event %ld differs between the fused and general paths",
                  k);
    ck_assert_msg((a->call == NULL) == (b->call == NULL) &&
                  (!a->call || !strcmp(a->call, b->call)),
                  "event %ld: another call", k);
    ck_assert_msg(a->nto == 0 ||
                  !memcmp(a->to, b->to, (size_t)a->nto * sizeof *a->to),
                  "event %ld: other destinations", k);
}

/* A reader of path with the fused path on or off. */
static pg_logr *open_with(const char *path, int fast)
{
    pg_err err;
    pg_logr *r;

    pg_bin_fast_on = fast;
    r = pg_logr_open(path, PG_LOG_COMM, NULL, &err);
    pg_bin_fast_on = 1;
    ck_assert_msg(r != NULL, "%s", err.msg);
    return r;
}

/* The next event of r; `ev` first filled with what a caller may have
 * left there. */
static int next(pg_logr *r, pg_event *ev)
{
    pg_err err;
    int rc;

    memset(ev, 0x5a, sizeof *ev);
    rc = pg_logr_next(r, ev, &err);
    ck_assert_msg(rc >= 0, "%s", err.msg);
    return rc;
}

START_TEST(test_fused_reader_returns_what_the_general_path_does)
{
    const char *path = write_loop("loop.comm.pgc", 3000);
    pg_logr *f = open_with(path, 1), *s = open_with(path, 0);
    pg_event a, b;
    long k;

    for (k = 0; next(f, &a) == 1; k++) {
        ck_assert_int_eq(next(s, &b), 1);
        same_event(&a, &b, k);
    }
    ck_assert_int_eq(next(s, &b), 0);
    ck_assert_int_gt(k, 6000);
    pg_logr_close(f);
    pg_logr_close(s);
}
END_TEST

static Suite *log_fast_suite(void)
{
    Suite *s = suite_create("fused paths of the binary log");
    TCase *tc = tcase_create("fast");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_fused_reader_returns_what_the_general_path_does);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return run_suite(log_fast_suite());
}
