/*
 * runenv.c - where a run happens: the log directory's missing parents,
 * and the working directory the program's tasks start in.
 *
 * PVM starts every task in the pvmd's directory (normally $HOME), so a
 * program that opens a file by a relative path would find another file
 * than the user meant.  `pangaea` tells its tasks the directory it was
 * started in (PANGAEA_CWD, task_env.c changes to it before main()); each
 * task's execution log names its directory (cwd= in the header).  A
 * recording is untrusted input (it may come from anyone), so a replay
 * starts the tasks in the recorded directory only when asked to (`-cwd
 * recorded`); a recorded directory other than the current one is refused
 * otherwise, naming both, so the user runs pangaea from there or asks.  A
 * recorded directory that does not exist on this host is not an error:
 * the replay says so and uses the current one (the logs may have been
 * copied to another machine; the program may well not care).
 *
 * The log directory is created with its parents (as mkdir -p), one
 * component at a time, so a failure names the component and the reason;
 * existing components are used as they are (links included: they are the
 * user's), and only missing ones are made: the parents as mkdir -p makes
 * them, the log directory 0700 (its logs hold the program's input and
 * arguments).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

/* The run was cut short for a reason of Pangaea's (top.h): set by the
 * monitor (src/cli/main/monitor.c), read by it, main.c and the live
 * page's end; kept here, below both, so that neither uses the other. */
int top_run_broken;

/* Makes one component; an existing directory (or link to one) is fine.
 * err: the reason first, then the component ("Not a directory (x is a
 * file)"), so the message reads as the one for a plain mkdir. */
static int make_one(const char *path, mode_t mode, pg_err *err)
{
    struct stat st;

    if (mkdir(path, mode) == 0)
        return 0;
    if (errno != EEXIST)
        return pg_err_set(err, "%s (cannot create %s)", strerror(errno),
                          path);
    if (stat(path, &st) < 0)
        return pg_err_set(err, "%s (%s is a link to nothing, not followed)",
                          strerror(errno), path);
    if (!S_ISDIR(st.st_mode))
        return pg_err_set(err, "%s (%s exists and is not a directory)",
                          strerror(ENOTDIR), path);
    return 0;
}

int top_mkdirs(const char *dir, pg_err *err)
{
    char path[PATH_MAX], *p;

    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return pg_err_set(err, "the directory name %.100s... is too long",
                          dir);
    for (p = path + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = 0;
        if (make_one(path, 0777, err) < 0)
            return -1;
        *p = '/';
    }
    return make_one(path, 0700, err); /* logs hold input and arguments */
}

/* The directory ltid 0 recorded, or "" (an older recording). */
static void recorded_cwd(const char *logdir, char *out, size_t size)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_logr *r;
    pg_err err;

    out[0] = 0;
    pg_log_path(path, sizeof path, logdir, 0, PG_LOG_EXEC);
    r = pg_logr_open(path, PG_LOG_EXEC, &h, &err);
    if (!r)
        return; /* the replay's checks name a bad log */
    snprintf(out, size, "%s", h.cwd);
    pg_logr_close(r);
}

/* In a replay: here becomes the recorded directory if it exists and the
 * user asked for it; one that differs, not asked for, is refused. */
static int replay_workdir(const struct top_opts *o, char *here, size_t size,
                          pg_err *err)
{
    char rec[PATH_MAX];
    struct stat st;

    recorded_cwd(o->logdir, rec, sizeof rec);
    if (!rec[0] || !strcmp(rec, here))
        return 0;
    if (stat(rec, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "pangaea: warning: the recorded working directory %s "
                "does not exist here: tasks start in %s\n", top_esc(rec),
                here);
        return 0;
    }
    if (!o->cwd_recorded)
        return pg_err_set(err, "the recording in %s ran its tasks in %s, "
                          "not in this directory (%s): run pangaea from "
                          "there, or give -cwd recorded to start the tasks "
                          "there (ltid-0.exec.xml)", o->logdir, top_esc(rec),
                          here);
    fprintf(stderr, "pangaea: tasks start in %s, the directory of the "
            "recording (-cwd recorded; this one is %s)\n", rec, here);
    snprintf(here, size, "%s", rec);
    return 0;
}

int top_workdir(const struct top_opts *o, pg_err *err)
{
    char here[PATH_MAX];

    if (!getcwd(here, sizeof here)) {
        fprintf(stderr, "pangaea: cannot tell the current directory (%s): "
                "tasks start in the pvmd's\n", strerror(errno));
        return 0;
    }
    if (o->mode == PANGAEA_REPLAY &&
        replay_workdir(o, here, sizeof here, err) < 0)
        return -1;
    setenv(PG_ENV_CWD, here, 1);
    if (chdir(here) < 0) /* ltid 0's own log names it too */
        fprintf(stderr, "pangaea: cannot change to %s: %s\n", here,
                strerror(errno));
    return 0;
}
