/*
 * test_log_name.c - log file names: pg_log_path builds them, and
 * pg_log_name_ltid / pg_log_name_split (the one parser the command uses to
 * find a recording's logs) read them back, and nothing else.
 */
#include <check.h>

#include "check_run.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_log.h"

START_TEST(a_built_name_reads_back_as_its_ltid_and_kind)
{
    static const int ltids[] = { 0, 1, 42, 1001, INT_MAX };
    char path[256];
    size_t i;

    for (i = 0; i < sizeof ltids / sizeof ltids[0]; i++) {
        ck_assert_int_eq(pg_log_path(path, sizeof path, "d", ltids[i],
                                     PG_LOG_COMM), 0);
        ck_assert_int_eq(pg_log_name_ltid(path + 2, PG_LOG_COMM), ltids[i]);
        ck_assert_int_eq(pg_log_name_ltid(path + 2, PG_LOG_EXEC), -1);
        ck_assert_int_eq(pg_log_path(path, sizeof path, "d", ltids[i],
                                     PG_LOG_EXEC), 0);
        ck_assert_int_eq(pg_log_name_ltid(path + 2, PG_LOG_EXEC), ltids[i]);
        ck_assert_int_eq(pg_log_name_ltid(path + 2, PG_LOG_COMM), -1);
    }
}
END_TEST

START_TEST(other_names_are_no_log)
{
    static const char *bad[] = {
        "ltid-.comm.pgc", "ltid--1.comm.pgc", "ltid-+1.comm.pgc",
        "ltid- 1.comm.pgc", "ltid-1.comm.pgc~", "ltid-1.comm.xml",
        "ltid-2147483648.comm.pgc", "ltid-99999999999.exec.xml",
        "ltid-1", "ltid-1comm.pgc", "LTID-1.comm.pgc", "x/ltid-1.comm.pgc",
        "pangaea-graph.html", "",
    };
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(pg_log_name_ltid(bad[i], PG_LOG_COMM) == -1, "%s", bad[i]);
        ck_assert_msg(pg_log_name_ltid(bad[i], PG_LOG_EXEC) == -1, "%s", bad[i]);
    }
}
END_TEST

START_TEST(a_split_name_gives_ltid_and_the_rest)
{
    const char *rest = NULL;

    ck_assert_int_eq(pg_log_name_split("ltid-12.comm.xml", &rest), 12);
    ck_assert_str_eq(rest, "comm.xml");
    ck_assert_int_eq(pg_log_name_split("ltid-0.", &rest), 0);
    ck_assert_str_eq(rest, "");
    ck_assert_int_eq(pg_log_name_split("ltid-x.xml", &rest), -1);
    ck_assert_int_eq(pg_log_name_split("ltid-3", NULL), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("log_name");
    TCase *tc = tcase_create("names");
    int failed;

    tcase_add_test(tc, a_built_name_reads_back_as_its_ltid_and_kind);
    tcase_add_test(tc, other_names_are_no_log);
    tcase_add_test(tc, a_split_name_gives_ltid_and_the_rest);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
