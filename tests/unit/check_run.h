/*
 * check_run.h - runs one Check suite, and removes a test's temporary
 * directory: what every unit test's main() does.
 */
#ifndef CHECK_RUN_H
#define CHECK_RUN_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>

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

static inline int ck_rm_entry(const char *path, const struct stat *st,
                              int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes the directory tree dir (a test's temporary directory), not
 * following links. */
static inline void ck_rm_tree(const char *dir)
{
    nftw(dir, ck_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
