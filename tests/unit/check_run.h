/*
 * check_run.h - runs one Check suite: what every unit test's main() does.
 */
#ifndef CHECK_RUN_H
#define CHECK_RUN_H

#include <check.h>
#include <stdint.h>

/* Check's every passing assertion calls _mark_point, which sends its place
 * to the runner (a write(2), and a message the runner unpacks with a
 * memmove of all that follows it: quadratic in the assertions of a test),
 * only so that a test that crashes can be reported where it had got to.
 * test_log_bin, asserting on each event it reads back, spent half its CPU
 * there.  The place is sent the first time it is reached (a table by file
 * and line; a collision sends again): a crash is reported at the last
 * assertion first passed, and every assertion still checks, and fails,
 * as before. */
static inline void pg_ck_mark(const char *file, int line)
{
    static const char *seen_file[4096];
    static int seen_line[4096];
    unsigned h = (unsigned)(((uintptr_t)file >> 3) * 31u + (unsigned)line) % 4096;

    if (seen_line[h] == line && seen_file[h] == file)
        return;
    seen_file[h] = file;
    seen_line[h] = line;
    _mark_point(file, line);
}
#define _mark_point(file, line) pg_ck_mark(file, line)

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
