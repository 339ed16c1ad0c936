/*
 * test_ltid.c - a task's children as its execution log names them
 * (pg_exec_children, wrap_spawn.c): the k-th child started is the k-th
 * <child> over all its spawns, with no limit on how many a task has; a
 * log cut where its task died still gives the children before; a log that
 * cannot be read is an error naming it.  (ltids are numbered by the
 * coordinator when recording and read from these logs afterwards: the
 * e2e test test_spawn_limits.sh runs that.)
 */
#define _XOPEN_SOURCE 700
#include "log_test_util.h"
#include "pg_internal.h"

START_TEST(children_in_spawn_order_over_every_spawn)
{
    static const int a[] = { 7, 3 }, b[] = { 12 };
    static const char *const ha[] = { "h", "h" }, *const hb[] = { "h" };
    const char *path = tpath("ltid-5.exec.xml");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_EXEC, 5, "./p", "h", &err);
    int *kids = NULL, n;

    ck_assert_msg(w != NULL, "%s", err.msg);
    ck_assert_int_eq(pg_logw_spawn(w, 1.0, "./p", NULL, 0, "", 3, 2, a, ha),
                     0);
    ck_assert_int_eq(pg_logw_spawn(w, 2.0, "./q", NULL, 0, "", 1, 0, NULL,
                                   NULL), 0); /* failed: no child */
    ck_assert_int_eq(pg_logw_spawn(w, 3.0, "./p", NULL, 0, "", 1, 1, b, hb),
                     0);
    ck_assert_int_eq(pg_logw_end(w, 4.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    n = pg_exec_children(path, &kids, &err);
    ck_assert_msg(n == 3, "%d: %s", n, n < 0 ? err.msg : "");
    ck_assert_int_eq(kids[0], 7);
    ck_assert_int_eq(kids[1], 3);
    ck_assert_int_eq(kids[2], 12);
    free(kids);
}
END_TEST

/* 5000 children, numbered far beyond the old P*1000+k (k <= 999). */
START_TEST(a_task_may_have_thousands_of_children)
{
    static const char *const h[] = { "h" };
    const char *path = tpath("ltid-2.exec.xml");
    pg_err err;
    pg_logw *w = pg_logw_open(path, PG_LOG_EXEC, 2, "./p", "h", &err);
    int *kids = NULL, n, k, ltid;

    ck_assert_msg(w != NULL, "%s", err.msg);
    for (k = 1; k <= 5000; k++) {
        ltid = 100000 + k;
        ck_assert_int_eq(pg_logw_spawn(w, k, "./w", NULL, 0, "", 1, 1, &ltid,
                                       h), 0);
    }
    ck_assert_int_eq(pg_logw_end(w, 6000.0, 0), 0);
    ck_assert_int_eq(pg_logw_close(w), 0);
    n = pg_exec_children(path, &kids, &err);
    ck_assert_msg(n == 5000, "%d: %s", n, n < 0 ? err.msg : "");
    for (k = 1; k <= 5000; k++)
        ck_assert_int_eq(kids[k - 1], 100000 + k);
    free(kids);
}
END_TEST

START_TEST(a_missing_log_is_an_error_naming_it)
{
    const char *path = tpath("ltid-9.exec.xml");
    pg_err err = {{0}};
    int *kids = (int *)&err;

    ck_assert_int_eq(pg_exec_children(path, &kids, &err), -1);
    ck_assert_ptr_null(kids);
    ck_assert_msg(strstr(err.msg, "ltid-9.exec.xml"), "%s", err.msg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ltid");
    TCase *tc = tcase_create("children");

    tcase_add_test(tc, children_in_spawn_order_over_every_spawn);
    tcase_add_test(tc, a_task_may_have_thousands_of_children);
    tcase_add_test(tc, a_missing_log_is_an_error_naming_it);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
