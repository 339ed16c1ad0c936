/*
 * views_only.c - the race analysis of a recording, linked without PVM.
 *
 * The recording model, the analyses and the pages (src/base, src/log,
 * src/cli/{files,recording,analysis,view}) know nothing of PVM, so that a
 * second front end shares them as they are: this program links them from
 * build/libpangaea-views.a with no libpvm3 (the Makefile's rule fails to
 * link if one of them needs PVM), and prints how many races the recording
 * in DIR has, which tests/e2e/test_races.sh compares with `pangaea -races`.
 */
#include <stdio.h>

#include "races.h"

int main(int argc, char **argv)
{
    struct rc_run run;
    struct rc_race *races = NULL;
    pg_err err;
    int n;

    if (argc != 2) {
        fprintf(stderr, "usage: views_only LOGDIR\n");
        return 2;
    }
    if (rc_load(&run, argv[1], &err) < 0) {
        fprintf(stderr, "views_only: %s\n", err.msg);
        return 2;
    }
    n = rc_find(&run, &races);
    if (n < 0) {
        fprintf(stderr, "views_only: out of memory\n");
        rc_free(&run);
        return 2;
    }
    printf("%d\n", n);
    rc_races_free(races, n);
    rc_free(&run);
    return 0;
}
