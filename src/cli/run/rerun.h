/*
 * rerun.h - running `pangaea` itself again (rerun.c), for -explore and
 * -chaos (whatif.h).
 */
#ifndef PG_TOP_RERUN_H
#define PG_TOP_RERUN_H

#include <stddef.h>
#include <stdio.h>

#include "pg_err.h"

/* How a child run of pangaea ended (a recording's contents are runlog.h's
 * struct top_run). */
struct top_rerun_result {
    int status;      /* pangaea's exit status, 128+N for a signal */
    int timed_out;   /* it outlived its limit and was stopped */
    char hash[17];   /* of its stdout (the tasks' output) */
};

/* Runs /proc/self/exe with argv (argv[0] included), stdout into out and
 * stderr into err, stopping it after limit_s seconds.  0, or -1 (no fork). */
int top_rerun(char *const argv[], const char *out, const char *err,
              int limit_s, struct top_rerun_result *run);
/* The first line of the file that names a failure (a signal, a
 * divergence, a stall), or "". */
void top_rerun_why(const char *path, char *buf, size_t size);
/* Removes a directory and everything in it (links not followed). */
int top_rerun_remove(const char *dir);

#endif

/* The options -explore and -chaos share, and the program after them. */
struct top_driver {
    int runs, depth, until_output, timeout;
    int jobs;        /* -explore: runs at once (default: the cores) */
    long long seed;
    int have_seed;
    int resume;      /* -explore -resume: go on with DIR's exploration */
    const char *logdir;
    char **prog;     /* program and arguments, NULL-ended */
};
/* Parses argv[2..] (argv[1] is the driver's own option): 0, or -1 with
 * err saying what is wrong and the mode's usage.  `what` names the driver
 * ("-explore", "-chaos"). */
int top_driver_opts(int argc, char **argv, const char *what,
                    struct top_driver *d, pg_err *err);
/* Makes the driver's log directory: 0, or -1 with err when it cannot, or
 * when it holds runs already (file `first`, a run directory, exists). */
int top_driver_dir(const struct top_driver *d, const char *first,
                   pg_err *err);
/* Prints "pangaea -replay -logdir DIR program args" to f. */
void top_driver_replay_cmd(FILE *f, const struct top_driver *d,
                           const char *dir);
