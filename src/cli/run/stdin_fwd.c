/*
 * stdin_fwd.c - `pangaea`'s standard input, given to the program's first
 * task (ltid 1), recorded, and fed again in replay.
 *
 * PVM starts ltid 1 with the pvmd's stdin (/dev/null), so a program that
 * reads its input would read nothing.  Design:
 *  - -log and -none: a FIFO in a private directory (mkdtemp) is named to
 *    the tasks (PANGAEA_STDIN); ltid 1 opens it as fd 0 before main()
 *    (task_env.c).  A helper process forked here copies our stdin into it
 *    as it comes (an interactive program gets each line when typed, not at
 *    end of file), and when recording first appends every chunk to
 *    LOGDIR/pangaea-stdin (made with the first byte): the task can never
 *    have read a byte the log does not hold.  A helper rather than the
 *    monitor's loop, because the monitor waits in PVM calls and a pipe may
 *    block.
 *  - -replay: PANGAEA_STDIN names the recorded LOGDIR/pangaea-stdin, which
 *    ltid 1 opens as fd 0: the recorded input always wins, whether or not
 *    stdin is given again.  A stdin that is a regular file is compared with
 *    it and a difference is named (a pipe or a terminal is not read: it
 *    might never end).  A recording without the file (no input was read,
 *    or an older version) leaves stdin as PVM gives it (/dev/null).
 * pangaea's own stdin becomes /dev/null once the helper has it.  The
 * helper dies with pangaea (PR_SET_PDEATHSIG, and top_stdin_end kills it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

#define STDIN_LOG "pangaea-stdin"

static struct {
    pid_t helper;
    char dir[PATH_MAX], fifo[PATH_MAX + 16];
    char log[PATH_MAX + 32]; /* the record, when recording */
} fwd;

static int write_all(int fd, const char *buf, ssize_t n)
{
    ssize_t w;

    while (n > 0) {
        w = write(fd, buf, (size_t)n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= w;
    }
    return 0;
}

/* The record of stdin, made with the first byte: a run that reads none
 * leaves no file (a replay then gives ltid 1 PVM's /dev/null: the same). */
static int open_log(void)
{
    int fd = open(fwd.log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                  O_CLOEXEC, 0600);

    if (fd < 0) {
        fprintf(stderr, "pangaea: cannot record stdin in %s: %s\n", fwd.log,
                strerror(errno));
        _exit(1); /* end of file to the task rather than unrecorded input */
    }
    return fd;
}

/* The helper: our stdin to the log (first) and to the FIFO, until EOF. */
static void copy_stdin(void)
{
    char buf[65536];
    ssize_t n;
    int out, to_task = 1, logfd = -1;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN);
    if (getppid() == 1)
        _exit(0);
    out = open(fwd.fifo, O_WRONLY | O_CLOEXEC); /* waits for ltid 1 */
    if (out < 0)
        _exit(1);
    for (;;) {
        n = read(0, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (fwd.log[0] && logfd < 0)
            logfd = open_log();
        if (logfd >= 0 && write_all(logfd, buf, n) < 0) {
            fprintf(stderr, "pangaea: cannot record stdin in %s: %s\n",
                    fwd.log, strerror(errno));
            _exit(1); /* EOF to the task rather than unrecorded input */
        }
        if (to_task && write_all(out, buf, n) < 0)
            to_task = 0; /* the task closed its stdin: still recorded */
    }
    _exit(0);
}

/* -log, -none: the FIFO and the helper that fills it. */
static int start_forwarding(const struct top_opts *o, pg_err *err)
{
    const char *tmp = getenv("TMPDIR");
    int null;

    if (o->mode == PANGAEA_LOG) /* the last recording's went with it */
        snprintf(fwd.log, sizeof fwd.log, "%s/%s", o->logdir, STDIN_LOG);
    snprintf(fwd.dir, sizeof fwd.dir, "%s/pangaea-stdin.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fwd.dir))
        return pg_err_set(err, "cannot make a directory for stdin in %s: %s",
                          tmp && *tmp ? tmp : "/tmp", strerror(errno));
    snprintf(fwd.fifo, sizeof fwd.fifo, "%s/stdin", fwd.dir);
    if (mkfifo(fwd.fifo, 0600) < 0)
        return pg_err_set(err, "cannot make the FIFO %s: %s", fwd.fifo,
                          strerror(errno));
    fflush(NULL);
    fwd.helper = fork();
    if (fwd.helper < 0)
        return pg_err_set(err, "cannot fork to forward stdin: %s",
                          strerror(errno));
    if (fwd.helper == 0)
        copy_stdin();
    null = open("/dev/null", O_RDONLY);
    if (null > 0) {
        dup2(null, 0); /* the helper reads it now, nobody else */
        close(null);
    }
    setenv(PG_ENV_STDIN, fwd.fifo, 1);
    return 0;
}

/* 1 if the regular file on fd 0 holds exactly what `path` holds. */
static int same_as_stdin(const char *path)
{
    char a[8192], b[8192];
    FILE *f = fopen(path, "rb"), *in = fdopen(dup(0), "rb");
    size_t na, nb;
    int same = f && in;

    while (same) {
        na = fread(a, 1, sizeof a, f);
        nb = fread(b, 1, sizeof b, in);
        same = na == nb && !memcmp(a, b, na);
        if (na == 0)
            break;
    }
    if (f)
        fclose(f);
    if (in)
        fclose(in);
    return same;
}

/* The recorded input, which must be a regular file of the log directory:
 * a recording may come from anyone, and a symbolic link there would feed
 * the program any file the user can read, a FIFO hang the run (ltid 1
 * opens it with O_NOFOLLOW too, task_env.c). */
int top_stdin_recorded(const char *logdir, char *path, size_t size,
                       pg_err *err)
{
    struct stat st;

    snprintf(path, size, "%s/%s", logdir, STDIN_LOG);
    if (lstat(path, &st) < 0)
        return 0; /* recorded before stdin was, or no input was read */
    if (!S_ISREG(st.st_mode))
        return pg_err_set(err, "%s is %s, not a regular file: a recorded "
                          "stdin is a file pangaea wrote; refused", path,
                          S_ISLNK(st.st_mode) ? "a symbolic link" :
                          S_ISFIFO(st.st_mode) ? "a FIFO" : "no plain file");
    return 1;
}

/* -replay: ltid 1 reads the recorded input. */
static int replay_input(const struct top_opts *o, pg_err *err)
{
    char path[PATH_MAX + 32];
    struct stat st;
    int cc = top_stdin_recorded(o->logdir, path, sizeof path, err);

    if (cc <= 0)
        return cc;
    setenv(PG_ENV_STDIN, path, 1);
    if (fstat(0, &st) == 0 && S_ISREG(st.st_mode) && !same_as_stdin(path))
        fprintf(stderr, "pangaea: note: the stdin given differs from the "
                "recorded one: the replay feeds ltid 1 the recorded input "
                "(%s)\n", path);
    return 0;
}

int top_stdin_begin(const struct top_opts *o, pg_err *err)
{
    /* a what-if: whatif.c copied the input of the recording it forks */
    if (o->mode == PANGAEA_REPLAY || o->whatif)
        return replay_input(o, err);
    atexit(top_stdin_end); /* every way out: no helper, no FIFO left */
    if (start_forwarding(o, err) < 0) {
        top_stdin_end();
        return -1;
    }
    return 0;
}

void top_stdin_end(void)
{
    int status;

    if (fwd.helper > 0) {
        kill(fwd.helper, SIGKILL); /* stopped (SIGTTIN) or not */
        waitpid(fwd.helper, &status, 0);
        fwd.helper = 0;
    }
    if (fwd.fifo[0])
        unlink(fwd.fifo);
    if (fwd.dir[0])
        rmdir(fwd.dir);
    fwd.fifo[0] = fwd.dir[0] = 0;
}
