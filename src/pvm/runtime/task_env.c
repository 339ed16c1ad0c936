/*
 * task_env.c - what a task takes over from where `pangaea` runs, before
 * main(): the working directory (PANGAEA_CWD) and, for the first task,
 * standard input (PANGAEA_STDIN).
 *
 * PVM starts a task in the pvmd's directory with the pvmd's stdin
 * (/dev/null).  The constructor calls pg_task_env once, in the process
 * that takes the ltid from its parent (not again after a wrapper script's
 * exec, which keeps what the script set up: a `cd` before `exec prog`
 * counts, and the FIFO is opened once).  PANGAEA_STDIN is a FIFO that
 * `pangaea` fills as its own stdin comes (stdin_fwd.c), or in replay the
 * recorded input; the open waits for the writer, which `pangaea` started
 * before spawning ltid 1.  A failure is a warning, not an end: the task
 * then runs where PVM put it, as it would without Pangaea.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"

/* O_NOFOLLOW: in a replay the path is the recording's pangaea-stdin,
 * which pangaea checked is a regular file; a link put there since is not
 * followed. */
static void take_stdin(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW);

    if (fd < 0) {
        pg_warn("cannot open pangaea's stdin %s: %s (ltid 1 reads the "
                "pvmd's)", path, strerror(errno));
        return;
    }
    if (fd != 0) {
        dup2(fd, 0);
        close(fd);
    }
}

void pg_task_env(int ltid)
{
    const char *cwd = getenv(PG_ENV_CWD), *in = getenv(PG_ENV_STDIN);

    if (cwd && *cwd && chdir(cwd) < 0)
        pg_warn("ltid %d cannot start in %s: %s (it runs in the pvmd's "
                "directory)", ltid, cwd, strerror(errno));
    if (ltid == 1 && in && *in)
        take_stdin(in);
}
