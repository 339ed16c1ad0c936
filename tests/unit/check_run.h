/*
 * check_run.h - runs one Check suite: what every unit test's main() does.
 */
#ifndef CHECK_RUN_H
#define CHECK_RUN_H

#include <check.h>

/* Runs every test of s (each in a child, Check's default); returns how
 * many failed. */
static inline int ck_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

#endif
