/*
 * mpi_launch.c - an MPI recording's launcher command line, kept for packs:
 * `pangaea -pack` of an MPI recording, and `pangaea -replay -pack FILE`
 * (src/cli/pack/).
 *
 * Design.  A PVM recording names its program and arguments in pangaea's
 * own execution log (ltid 0's first spawn); an MPI run has no such log, so
 * after a recording mpi_run.c writes LOGDIR/pangaea-mpi-launch (a file of
 * the recording: logdir.c moves it to previous/ with the logs, pack.c
 * packs it with them), text, a fact a line:
 *   pangaea-mpi-launch 1      the format
 *   launcher PATH             the launcher, resolved (mpi_run.c's table)
 *   program K                 which argument is the ranks' program (the
 *                             one that names the program rank 0 ran,
 *                             ltid-1.exec.xml's exe, by its path or
 *                             through PATH), -1 if none does
 *   arg ARG                   each of the launcher's arguments, in order
 * An argument holding a newline cannot be written so: no file then, and a
 * pack says the recording lacks it.  A replay from the pack runs the same
 * launcher (the path recorded, which must exist here) with the same
 * arguments, the program's replaced by its packed copy
 * (PROGDIR/SHA256/NAME, which the ranks accept: src/mpi/mpi_log.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_log.h"
#include "pg_util.h"
#include "top.h"

#define MAGIC "pangaea-mpi-launch 1"

/* What rank 0 ran (the exe its execution log names) and its checksum. */
static int rank0_program(const char *dir, pg_log_header *h, pg_err *err)
{
    char path[PATH_MAX + 64];
    pg_logr *r;

    pg_log_path(path, sizeof path, dir, 1, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, h, err)))
        return -1;
    pg_logr_close(r);
    return 0;
}

/* Whether name, as the launcher finds a program (a path, or a name
 * searched in PATH), is the file exe. */
static int names_exe(const char *name, const char *exe)
{
    char real[PATH_MAX], path[PATH_MAX + 256], *dirs, *d, *save = NULL;
    const char *env = getenv("PATH");
    int yes = 0;

    if (strchr(name, '/') || !env)
        return realpath(name, real) && !strcmp(real, exe);
    if (!(dirs = strdup(env)))
        return 0;
    for (d = strtok_r(dirs, ":", &save); d && !yes;
         d = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof path, "%s/%s", *d ? d : ".", name);
        yes = access(path, X_OK) == 0 && realpath(path, real) &&
              !strcmp(real, exe);
    }
    free(dirs);
    return yes;
}

/* The argument that names exe, or -1. */
static int program_arg(char **args, const char *exe)
{
    int i;

    for (i = 0; args && args[i]; i++)
        if (names_exe(args[i], exe))
            return i;
    return -1;
}

void top_mpi_launch_write(const struct top_opts *o)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_err err;
    FILE *f;
    int i;

    for (i = 0; o->args && o->args[i]; i++)
        if (strchr(o->args[i], '\n'))
            return; /* cannot be a line: a pack says so */
    if (strchr(o->program, '\n') || rank0_program(o->logdir, &h, &err) < 0)
        return;
    snprintf(path, sizeof path, "%s/" TOP_MPI_LAUNCH, o->logdir);
    if (!(f = fopen(path, "w")))
        return;
    fprintf(f, MAGIC "\nlauncher %s\nprogram %d\n", o->program,
            program_arg(o->args, h.exe));
    for (i = 0; o->args && o->args[i]; i++)
        fprintf(f, "arg %s\n", o->args[i]);
    if (fclose(f) != 0)
        unlink(path); /* half a file would name another command */
}

/* The file's lines: launcher, program index, arguments (malloc'd, NULL
 * ended).  0, or -1 and err. */
static int read_launch(const char *dir, char *launcher, size_t size, int *k,
                       char ***args, pg_err *err)
{
    char path[PATH_MAX + 64], *line = NULL, **a = NULL;
    size_t cap = 0, n = 0;
    ssize_t len;
    int cc = 0, no = 0;
    FILE *f;

    snprintf(path, sizeof path, "%s/" TOP_MPI_LAUNCH, dir);
    if (!(f = fopen(path, "r")))
        return pg_err_set(err, "the MPI recording in %s has no %s (the "
                          "launcher's command line, written after a "
                          "recording by this pangaea): record it again",
                          dir, TOP_MPI_LAUNCH);
    *k = -1;
    while (cc == 0 && (len = getline(&line, &cap, f)) > 0) {
        line[len - 1] = line[len - 1] == '\n' ? 0 : line[len - 1];
        if (no++ == 0 && strcmp(line, MAGIC))
            cc = pg_err_set(err, "%s: not a launcher line of this pangaea "
                            "(\"%.40s\")", path, line);
        else if (!strncmp(line, "launcher ", 9))
            snprintf(launcher, size, "%s", line + 9);
        else if (!strncmp(line, "program ", 8))
            *k = atoi(line + 8);
        else if (!strncmp(line, "arg ", 4) &&
                 (!(a = realloc(a, (n + 2) * sizeof *a)) ||
                  !(a[n++] = strdup(line + 4))))
            cc = pg_err_set(err, "out of memory");
        if (a)
            a[n] = NULL;
    }
    free(line);
    fclose(f);
    if (cc == 0 && (!*launcher || *k < 0 || *k >= (int)n))
        cc = pg_err_set(err, "%s names no launcher, or not which of its "
                        "arguments is the program rank 0 ran", path);
    *args = a;
    return cc;
}

int top_mpi_launch_line(const char *dir, char *out, size_t size)
{
    char launcher[PATH_MAX] = "", **args = NULL;
    size_t n;
    int k, i;
    pg_err err;

    if (read_launch(dir, launcher, sizeof launcher, &k, &args, &err) < 0) {
        for (i = 0; args && args[i]; i++)
            free(args[i]);
        free(args);
        return -1;
    }
    n = (size_t)snprintf(out, size, "pangaea -log -logdir %s %s", dir,
                         launcher);
    for (i = 0; args[i]; i++) {
        if (n < size)
            n += (size_t)snprintf(out + n, size - n, " %s", args[i]);
        free(args[i]);
    }
    free(args);
    return 0;
}

int top_mpi_unpacked(struct top_opts *o, const char *progdir, pg_err *err)
{
    char launcher[PATH_MAX] = "", packed[2 * PATH_MAX + 100], **args = NULL;
    pg_log_header h;
    int k;

    if (read_launch(o->logdir, launcher, sizeof launcher, &k, &args, err) < 0 ||
        rank0_program(o->logdir, &h, err) < 0)
        return -1; /* args: the process ends with the error */
    if (o->args && o->args[0])
        return pg_err_set(err, "-replay -pack of an MPI run takes the "
                          "recorded launcher command line; give no program "
                          "or arguments");
    if (access(launcher, X_OK) < 0)
        return pg_err_set(err, "the pack's MPI run was launched by %s, "
                          "which is not here (%s): install that MPI",
                          launcher, strerror(errno));
    snprintf(packed, sizeof packed, "%s/%s/%s", progdir, h.sha256,
             pg_basename(h.exe));
    if (access(packed, X_OK) < 0)
        return pg_err_set(err, "the pack holds no program for ltid 1 (%s)",
                          packed);
    free(args[k]);
    args[k] = strdup(packed);
    snprintf(o->program, sizeof o->program, "%s", launcher);
    o->args = args;
    return args[k] ? 0 : pg_err_set(err, "out of memory");
}
