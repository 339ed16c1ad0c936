/*
 * test_select.c - selective logging (select.c) without a pvmd: what
 * PANGAEA_ONLY parses to, and which events a task then logs or replays.
 * Each test sets the runtime state `pg` it needs (ltid, selection,
 * suspension depth) by hand, as the constructor would from the environment.
 */
#include <check.h>

#include "check_run.h"
#include <stdlib.h>
#include <string.h>

#include "pg_internal.h"

static void select_as(const char *text, int ltid)
{
    pg_err err;

    ck_assert_msg(pg_select_parse(text, &pg.sel, &err) == 0, "%s", err.msg);
    pg.ltid = ltid;
    pg.suspended = 0;
}

START_TEST(tags_and_ltids_are_parsed_in_order)
{
    struct pg_select sel;
    pg_err err;

    ck_assert_int_eq(pg_select_parse("tag=5,7 ltid=2 tag=-3", &sel, &err), 0);
    ck_assert_str_eq(sel.text, "tag=5,7 ltid=2 tag=-3");
    ck_assert_int_eq(sel.ntags, 3);
    ck_assert_int_eq(sel.tags[0], 5);
    ck_assert_int_eq(sel.tags[1], 7);
    ck_assert_int_eq(sel.tags[2], -3);
    ck_assert_int_eq(sel.nltids, 1);
    ck_assert_int_eq(sel.ltids[0], 2);
}
END_TEST

START_TEST(no_selection_selects_everything)
{
    struct pg_select sel;
    pg_err err;

    ck_assert_int_eq(pg_select_parse(NULL, &sel, &err), 0);
    ck_assert_int_eq(sel.ntags + sel.nltids, 0);
    ck_assert_int_eq(pg_select_parse("", &sel, &err), 0);
    ck_assert_str_eq(sel.text, "");
    select_as("", 7);
    ck_assert_int_eq(pg_selected(12345), 1);
    ck_assert_int_eq(pg_selected(-1), 1);
}
END_TEST

START_TEST(a_bad_selection_is_refused_with_its_text)
{
    static const char *bad[] = { "tag=", "tag=x", "tag=5,", "tags=5",
                                 "ltid=1;2", "tag=99999999999" };
    struct pg_select sel;
    pg_err err;
    size_t i;

    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(pg_select_parse(bad[i], &sel, &err) == -1, "%s", bad[i]);
        ck_assert_msg(strstr(err.msg, bad[i]) != NULL, "%s: %s", bad[i],
                      err.msg);
    }
}
END_TEST

START_TEST(more_than_64_tags_are_refused)
{
    char text[600] = "tag=0";
    struct pg_select sel;
    pg_err err;
    int i;

    for (i = 1; i < 64; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), ",%d", i);
    ck_assert_int_eq(pg_select_parse(text, &sel, &err), 0);
    ck_assert_int_eq(sel.ntags, 64);
    strcat(text, ",64");
    ck_assert_int_eq(pg_select_parse(text, &sel, &err), -1);
}
END_TEST

START_TEST(only_the_named_tags_are_selected_and_any_tag_counts)
{
    select_as("tag=5,7", 3);
    ck_assert_int_eq(pg_selected(5), 1);
    ck_assert_int_eq(pg_selected(7), 1);
    ck_assert_int_eq(pg_selected(6), 0);
    ck_assert_int_eq(pg_selected(-1), 1); /* a wildcard receive */
}
END_TEST

START_TEST(only_the_named_tasks_log_anything)
{
    select_as("ltid=2,4 tag=5", 2);
    ck_assert_int_eq(pg_selected(5), 1);
    ck_assert_int_eq(pg_selected(6), 0);
    select_as("ltid=2,4 tag=5", 3);
    ck_assert_int_eq(pg_selected(5), 0);
    ck_assert_int_eq(pg_selected(-1), 0);
}
END_TEST

START_TEST(suspended_regions_nest_and_select_nothing)
{
    select_as("", 1);
    pangaea_suspend();
    pangaea_suspend();
    ck_assert_int_eq(pg_selected(5), 0);
    pangaea_resume();
    ck_assert_int_eq(pg_selected(5), 0);
    pangaea_resume();
    ck_assert_int_eq(pg_selected(5), 1);
    pangaea_resume(); /* one too many: no negative depth */
    pangaea_suspend();
    ck_assert_int_eq(pg_selected(5), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("select");
    TCase *tc = tcase_create("selection");
    int failed;

    tcase_add_test(tc, tags_and_ltids_are_parsed_in_order);
    tcase_add_test(tc, no_selection_selects_everything);
    tcase_add_test(tc, a_bad_selection_is_refused_with_its_text);
    tcase_add_test(tc, more_than_64_tags_are_refused);
    tcase_add_test(tc, only_the_named_tags_are_selected_and_any_tag_counts);
    tcase_add_test(tc, only_the_named_tasks_log_anything);
    tcase_add_test(tc, suspended_regions_nest_and_select_nothing);
    suite_add_tcase(s, tc);
    failed = ck_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
