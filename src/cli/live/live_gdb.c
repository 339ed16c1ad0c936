/*
 * live_gdb.c - POST /control/gdb ltid: gdb attached to a held task, in a
 * new window of the tmux session pangaea runs in, as `-debug`
 * (debug.c, pangaea-debugger.sh) opens one for a replayed task.
 *
 * Design.  The held task publishes its real pid (gate.c); gdb is started
 * with the command line the page shows, `gdb -p PID -ex 'break
 * pg_gate_after' -ex continue` (quiet, pagination off), so that it stops just after the held call
 * returns once the task is let go (an MPI rank's: `gdb -p PID`, the rank
 * waiting in its gate, src/mpi/mpi_gate.c).  pangaea must run inside tmux (TMUX
 * set): the window is made by `tmux new-window` of that server, which
 * returns at once; otherwise the route says so (400) and the user runs
 * the command line by hand.  LD_PRELOAD, which pangaea sets for the
 * program's tasks, is kept away from tmux and gdb (`env -u`), as the
 * debugger script does.  Detaching is gdb's (`detach`, `quit`): the task
 * then goes on waiting at its gate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live.h"
#include "live_pos.h"
#include "runlog.h"

/* Runs argv, waiting for it: its exit status, or -1 (errno). */
static int run_wait(char *const argv[])
{
    pid_t pid = fork();
    int st;

    if (pid < 0)
        return -1;
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int lv_gdb_open(const struct lv_form *f, FILE *out)
{
    const struct pg_live_pos *p;
    char cmd[300], line[200], title[32], st[16];
    long l;
    int pid, rc;

    if (lv_form_int(f, "ltid", &l) != 1 || l < 1 || l > 0x7fffffff)
        return lv_bad(out, "gdb needs ltid=N, a held task%s", "");
    if (!getenv("TMUX") || !getenv("TMUX")[0])
        return lv_bad(out, "pangaea does not run inside tmux (TMUX is not "
                      "set): run the held task's gdb command line in a "
                      "terminal%s", "");
    lv_ctl_lock();
    p = lv_ctl_page((int)l);
    pid = p && p->held ? p->pid : 0;
    lv_ctl_unlock();
    lv_gdb_line(pid, line, sizeof line); /* "gdb -p PID ..." */
    if (pid <= 0)
        return lv_bad(out, "ltid %s is not held: gdb attaches to a task "
                      "waiting at a call", lv_form_get(f, "ltid"));
    /* quiet, and no pagination: attaching prints pages the window would
     * hold back, before `continue` */
    snprintf(cmd, sizeof cmd, "gdb -q -iex 'set pagination off' %s", line + 4);
    snprintf(title, sizeof title, "gdb ltid %ld", l);
    {
        char *argv[] = { "env", "-u", "LD_PRELOAD", "tmux", "new-window",
                         "-n", title, cmd, NULL };

        rc = run_wait(argv);
    }
    if (rc != 0) {
        snprintf(st, sizeof st, "%d", rc);
        return lv_bad(out, "tmux new-window failed (status %s): is tmux "
                      "installed, and its server the one TMUX names?", st);
    }
    fprintf(out, "{\"ok\":true,\"ltid\":%ld,\"pid\":%d,\"window\":", l, pid);
    top_json_str(out, title);
    fputs(",\"command\":", out);
    top_json_str(out, cmd);
    fputs("}\n", out);
    return 200;
}
