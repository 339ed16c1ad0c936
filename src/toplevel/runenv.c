/*
 * runenv.c - where a run happens: the log directory's missing parents,
 * and the working directory the program's tasks start in.
 *
 * PVM starts every task in the pvmd's directory (normally $HOME), so a
 * program that opens a file by a relative path would find another file
 * than the user meant.  `pangaea` tells its tasks the directory it was
 * started in (PANGAEA_CWD, task_env.c changes to it before main()); each
 * task's execution log names its directory (cwd= in the header), so a
 * replay starts the tasks where ltid 0 ran when recorded.  A recorded
 * directory that does not exist on this host is not an error: the replay
 * says so and uses the current one (the logs may have been copied to
 * another machine; the program may well not care).
 *
 * The log directory is created with its parents (as mkdir -p), one
 * component at a time, so a failure names the component and the reason;
 * existing components are used as they are (links included: they are the
 * user's), and only missing ones are made.
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

/* Makes one component; an existing directory (or link to one) is fine.
 * err: the reason first, then the component ("Not a directory (x is a
 * file)"), so the message reads as the one for a plain mkdir. */
static int make_one(const char *path, pg_err *err)
{
    struct stat st;

    if (mkdir(path, 0777) == 0)
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
        if (make_one(path, err) < 0)
            return -1;
        *p = '/';
    }
    return make_one(path, err);
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

void top_workdir(const struct top_opts *o)
{
    char here[PATH_MAX], rec[PATH_MAX];
    struct stat st;

    if (!getcwd(here, sizeof here)) {
        fprintf(stderr, "pangaea: cannot tell the current directory (%s): "
                "tasks start in the pvmd's\n", strerror(errno));
        return;
    }
    if (o->mode == PANGAEA_REPLAY) {
        recorded_cwd(o->logdir, rec, sizeof rec);
        if (rec[0] && stat(rec, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (strcmp(rec, here))
                fprintf(stderr, "pangaea: tasks start in %s, the directory "
                        "of the recording (this one is %s)\n", rec, here);
            snprintf(here, sizeof here, "%s", rec);
        } else if (rec[0])
            fprintf(stderr, "pangaea: warning: the recorded working "
                    "directory %s does not exist here: tasks start in %s\n",
                    rec, here);
    }
    setenv(PG_ENV_CWD, here, 1);
    if (chdir(here) < 0) /* ltid 0's own log names it too */
        fprintf(stderr, "pangaea: cannot change to %s: %s\n", here,
                strerror(errno));
}
