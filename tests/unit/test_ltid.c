/*
 * test_ltid.c - ltids are a function of the family tree only.
 */
#include <check.h>

#include "check_run.h"
#include <limits.h>
#include <stdlib.h>

#include "pg_internal.h"

START_TEST(first_task_is_ltid_1)
{
    ck_assert_int_eq(pg_child_ltid(0, 1), 1);
}
END_TEST

START_TEST(children_of_the_first_task_are_numbered_from_2)
{
    ck_assert_int_eq(pg_child_ltid(1, 1), 2);
    ck_assert_int_eq(pg_child_ltid(1, 3), 4);
    ck_assert_int_eq(pg_child_ltid(1, 998), 999);
}
END_TEST

START_TEST(grandchildren_are_parent_times_1000_plus_k)
{
    ck_assert_int_eq(pg_child_ltid(2, 1), 2001);
    ck_assert_int_eq(pg_child_ltid(4, 999), 4999);
    ck_assert_int_eq(pg_child_ltid(2001, 7), 2001007);
}
END_TEST

START_TEST(no_two_tasks_of_a_tree_share_an_ltid)
{
    /* Three generations, every parent spawning up to 40 children. */
    static char seen[4000000];
    int p, k, l, g;

    for (k = 1; k <= 40; k++) {
        l = pg_child_ltid(1, k);
        ck_assert(l > 1 && !seen[l]);
        seen[l] = 1;
        for (g = 1; g <= 40; g++) {
            p = pg_child_ltid(l, g);
            ck_assert(p > 1 && p < (int)sizeof seen && !seen[p]);
            seen[p] = 1;
        }
    }
}
END_TEST

START_TEST(out_of_range_children_get_no_ltid)
{
    ck_assert_int_eq(pg_child_ltid(1, 999), -1);
    ck_assert_int_eq(pg_child_ltid(2, 1000), -1);
    ck_assert_int_eq(pg_child_ltid(3, 0), -1);
    ck_assert_int_eq(pg_child_ltid(-1, 1), -1);
    ck_assert_int_eq(pg_child_ltid(INT_MAX / 1000, 1), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ltid");
    TCase *tc = tcase_create("assignment");
    int failed;

    tcase_add_test(tc, first_task_is_ltid_1);
    tcase_add_test(tc, children_of_the_first_task_are_numbered_from_2);
    tcase_add_test(tc, grandchildren_are_parent_times_1000_plus_k);
    tcase_add_test(tc, no_two_tasks_of_a_tree_share_an_ltid);
    tcase_add_test(tc, out_of_range_children_get_no_ltid);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
