/*
 * stop.c - stopping a replaying task at a recorded event, for a debugger
 * (`pangaea -replay -stop LTID:EVENT`, `-debug LTID[:EVENT]`).
 *
 * What it owns.  The events at which this task is to stop (PANGAEA_STOP,
 * "L:E,L:E..." for every task of the run; PANGAEA_DEBUG, "L" or "L:E", the
 * one task started under gdb), and the stop itself.
 *
 * Design.  The replay numbers events as the log does (pg_replay_advance);
 * when it completes event E or passes over it (call-site and poll events
 * are not replayed), replay.c arms the stop with a description of that
 * event.  The stop happens when the program's wrapped call returns
 * (PG_LEAVE at depth 0, pg_internal.h): "just after completing" means the
 * message is really sent or received and the program is about to go on,
 * so a debugger attached then sees the program's own frame calling PVM.
 *
 * Before stopping, the task tells `pangaea` (a PG_REP_HELD report, in
 * Pangaea's own message context: nothing is added to the program's
 * messages): pangaea prints the one line saying how to go on, and counts
 * neither this task nor those waiting for it as stalled until the task
 * says it goes on (PG_REP_RELEASED).  A task under -debug calls
 * pg_stop_here() instead of SIGSTOP: gdb has a breakpoint there.
 *
 * The same hook at PG_LEAVE serves the live page's gate (gate.c): a call
 * that was held before it was made sets PG_STOP_GATE, and calls
 * pg_gate_after (gdb's breakpoint) once it has returned.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pg_internal.h"

int pg_stop_armed;
long pg_stop_next = 0x7fffffffffffffffL; /* the next stop event, if any */

static long targets[64]; /* this task's stop events, ascending */
static int ntargets, next;
static int debugged = -1; /* 1: this task runs under gdb (-debug) */
static char what[600];    /* the event armed, described */
static long armed_at;

int pg_debug_ltid(void)
{
    const char *s = getenv(PG_ENV_DEBUG);

    return s && *s ? atoi(s) : -1;
}

void pg_stop_init(void)
{
    const char *s = getenv(PG_ENV_STOP), *d = getenv(PG_ENV_DEBUG);

    debugged = pg_debug_ltid() == pg.ltid && pg.ltid > 0;
    pg_stop_events(s, pg.ltid, targets, &ntargets, 64); /* util.c */
    if (debugged && d && strchr(d, ':'))
        pg_stop_events(d, pg.ltid, targets, &ntargets, 64);
    if (ntargets)
        pg_stop_next = targets[0];
}

void pg_stop_event(long seq, const char *described)
{
    while (next < ntargets && targets[next] <= seq) {
        next++;
        pg_stop_armed |= 1;
    }
    if (pg_stop_armed & 1) {
        armed_at = seq;
        snprintf(what, sizeof what, "%s", described);
    }
    pg_stop_next = next < ntargets ? targets[next] : 0x7fffffffffffffffL;
}

void pg_stop_unreached(long last)
{
    for (; next < ntargets; next++)
        pg_warn("-stop %d:%ld: the task ended at event %ld without reaching "
                "it (pangaea -dump shows its events)", pg.ltid,
                targets[next], last);
}

/* gdb's breakpoint under -debug: the task is at the recorded event. */
__attribute__((noinline)) void pg_stop_here(int ltid, long event)
{
    __asm__ volatile("" ::"r"(ltid), "r"(event) : "memory");
}

/* gdb's breakpoint after a call the live page held (gate.c). */
__attribute__((noinline)) void pg_gate_after(int ltid)
{
    __asm__ volatile("" ::"r"(ltid) : "memory");
}

/* gdb attached to a stopped task lands in raise(), inside the C library
 * under Pangaea's frames: this script, given to gdb with -x, selects the
 * program's innermost frame (the first outside the C library, PVM and
 * Pangaea) and shows it.  Written by the task as it stops, into TMPDIR
 * (O_NOFOLLOW, 0600), removed when it goes on; "" if it cannot be. */
static void frame_script(int pid, char *path, size_t size)
{
    static const char text[] =
        "python\n"
        "f = gdb.newest_frame()\n"
        "while f.older() is not None and any(s in (gdb.solib_name(f.pc()) "
        "or '') for s in ('libc.', 'libc-', 'ld-linux', 'libpangaea', "
        "'libpvm3', 'libgpvm3')):\n"
        "    f = f.older()\n"
        "f.select()\n"
        "end\n"
        "frame\n";
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
                                                            : "/tmp";
    int fd;

    if (snprintf(path, size, "%s/pangaea-frame-%d.gdb", tmp, pid) >=
        (int)size) {
        path[0] = 0;
        return;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
              0600);
    if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)sizeof text - 1)
        path[0] = 0;
    if (fd >= 0)
        close(fd);
}

void pg_stop_now(void)
{
    char line[1100], site[600], script[200]; /* pangaea takes 1100 at most */
    int pid = (int)syscall(SYS_getpid); /* the real one, not the recorded */
    int armed = pg_stop_armed;

    pg_stop_armed = 0;
    if ((armed & PG_STOP_SIG) && pg_signals_leave) /* wrap_sig.c */
        pg_signals_leave();
    if (armed & PG_STOP_GATE) /* a call held by the live page returned */
        pg_gate_after(pg.ltid);
    if (!(armed & 1))
        return;
    if (debugged) {
        snprintf(line, sizeof line, "is at event %ld: %s%s, on host %s, pid "
                 "%d: stopped in gdb (at pg_stop_here, shown in the program's "
                 "frame); the run goes on with `continue`", armed_at, what,
                 pg_site_where(site, sizeof site), pg.host, pid);
        pg_coord_report(PG_REP_HELD, line);
        pg_stop_here(pg.ltid, armed_at);
        return; /* still held: -debug holds the task throughout */
    }
    frame_script(pid, script, sizeof script);
    /* The event, its site and the host cut short where they are long, so
     * that the gdb command and its script's path always fit the line. */
    snprintf(line, sizeof line, "stopped after event %ld: %.300s%.200s, "
             "on host %.100s, pid %d: attach with gdb -p %d%s%s; the run goes "
             "on when the task gets SIGCONT (or gdb continues and detaches)",
             armed_at,
             what, pg_site_where(site, sizeof site), pg.host, pid, pid,
             script[0] ? " -x " : "", script);
    pg_coord_report(PG_REP_HELD, line);
    raise(SIGSTOP);
    if (script[0])
        unlink(script);
    pg_coord_report(PG_REP_RELEASED, "");
}
