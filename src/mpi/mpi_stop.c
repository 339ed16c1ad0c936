/*
 * mpi_stop.c - stopping a replaying rank at a recorded event, for a
 * debugger (`pangaea -replay -stop LTID:EVENT ... mpiexec ...`; pg_mpi.h).
 *
 * Design.  As a PVM task's -stop (src/pvm/runtime/stop.c, whose way this
 * follows; the front ends share no runtime code): PANGAEA_STOP holds
 * "L:E,L:E..." for every rank of the run (mpi_run.c passes it through
 * the launcher); a rank keeps the events named for its ltid.  When the
 * replay has done an event at or past the next of them (pgm_advance: the
 * message is sent or received; call-site and poll events are not acted
 * on, so a stop named there happens after the next event that is), the
 * rank says where it stops, with its pid, on stderr (the launcher
 * forwards it), and stops itself with SIGSTOP inside the wrapper: gdb
 * attached then finds the program's frame a few frames up (`bt`).  It
 * goes on when it gets SIGCONT.  The other ranks run on as far as the
 * recording lets them; no watch counts them stalled (an MPI run has
 * none).  A stop the rank never reached is said at its end.
 *
 * -replay -debug LTID[:EVENT] (PANGAEA_DEBUG, mpi_run.c): the launcher,
 * not pangaea, starts the ranks, so gdb cannot start the rank as PVM's
 * hook does; it attaches to it instead.  At the event (or in MPI_Init
 * without one) the rank lets any process trace it, starts the debugger
 * script of a PVM run's -debug (pangaea-debugger.sh, PANGAEA_ATTACH=its
 * pid: gdb -p in the same tmux window or session), and waits until gdb
 * clears pgm_debug_hold; gdb then runs on to where the program's frame
 * resumes, so the user is in the program's own line.  If the script
 * ends before gdb let the rank go (no tmux, no gdb), the rank says so and
 * goes on.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_mpi.h"
#include "pg_util.h"

static long targets[64]; /* this rank's stop events, ascending */
static int ntargets, next;
static long debug_event = -1; /* -debug's event in this rank: gdb there */
/* Cleared by gdb once attached (the script's gdbinit): the rank waits. */
volatile int pgm_debug_hold;

static void debug_attach(const struct pgm_ev *e);

/* -debug LTID[:EVENT] for this rank: its event, 0 for "at once", -1 not
 * this rank. */
static long debug_point(void)
{
    const char *s = getenv(PGM_ENV_DEBUG);
    char *end;
    long l, e = 0;

    if (!s || !*s)
        return -1;
    l = strtol(s, &end, 10);
    if (*end == ':')
        e = strtol(end + 1, &end, 10);
    return l == pgm.ltid && !*end && e >= 0 ? e : -1;
}

/* The -stop events, ascending, with -debug's among them. */
static void add_target(long e)
{
    int i;

    if (ntargets >= 64)
        return;
    for (i = ntargets; i > 0 && targets[i - 1] > e; i--)
        targets[i] = targets[i - 1];
    targets[i] = e;
    ntargets++;
}

void pgm_stop_start(void)
{
    const char *s = getenv(PGM_ENV_STOP);

    if (pgm.mode != PGM_REPLAY || pgm.whatif)
        return;
    pg_stop_events(s, pgm.ltid, targets, &ntargets, 64); /* util.c */
    debug_event = debug_point();
    if (debug_event > 0)
        add_target(debug_event);
    if (ntargets)
        pgm.hooks |= PGM_HOOK_STOPS;
    if (debug_event == 0) /* gdb at once: in MPI_Init */
        debug_attach(NULL);
}

/* Says where, and stops. */
static void stop_here(const struct pgm_ev *e)
{
    char host[256] = "";

    gethostname(host, sizeof host - 1);
    fprintf(stderr, "pangaea: ltid %d (rank %d) stopped after event %ld: "
            "%s %s ltid %d, tag %d, on host %s, pid %d: attach with gdb -p "
            "%d (the program's frame is a few frames up: bt); the run goes "
            "on when the rank gets SIGCONT (or gdb continues and detaches)\n",
            pgm.ltid, pgm.rank, e->seq, e->call ? e->call : "?",
            e->kind == PG_EV_SEND ? "to" : "from",
            e->kind == PG_EV_SEND ? e->to : e->from, e->tag, host,
            (int)getpid(), (int)getpid());
    raise(SIGSTOP);
}

void pgm_stop_after(const struct pgm_ev *e)
{
    int debug = 0;

    if (next >= ntargets || e->seq < targets[next])
        return;
    while (next < ntargets && targets[next] <= e->seq)
        debug |= targets[next++] == debug_event;
    if (debug)
        debug_attach(e);
    else
        stop_here(e);
}

/* The debugger script, for gdb to attach to this rank (none of the
 * rank's files: the launcher waits for its output and its PMI socket to
 * close before it ends the run). */
static pid_t start_debugger(void)
{
    const char *script = getenv(PGM_ENV_DEBUGGER);
    char pid[32], ltid[32];
    pid_t child;
    int fd;

    if (!script || !*script)
        return -1;
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    snprintf(ltid, sizeof ltid, "%d", pgm.ltid);
    if ((child = fork()) != 0)
        return child;
    setsid();
    if ((fd = open("/dev/null", O_RDWR)) >= 0)
        dup2(fd, 0), dup2(fd, 1), dup2(fd, 2);
    for (fd = 3; fd < 1024; fd++)
        close(fd);
    unsetenv("LD_PRELOAD"); /* not into the script, tmux or gdb */
    setenv(PGM_ENV_ATTACH, pid, 1);
    setenv("PANGAEA_LTID", ltid, 1);
    execl("/bin/bash", "bash", script, (char *)NULL);
    _exit(127);
}

/* gdb attached to this rank, which waits until gdb lets it go. */
static void debug_attach(const struct pgm_ev *e)
{
    pid_t child;
    int st;

    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama, if on */
    pgm_debug_hold = 1;
    if ((child = start_debugger()) < 0) {
        fprintf(stderr, "pangaea: ltid %d (rank %d): cannot start the "
                "debugger script (%s): going on without gdb\n", pgm.ltid,
                pgm.rank, getenv(PGM_ENV_DEBUGGER) ? getenv(PGM_ENV_DEBUGGER)
                                                   : PGM_ENV_DEBUGGER " unset");
        return;
    }
    if (e)
        fprintf(stderr, "pangaea: ltid %d (rank %d) is at event %ld: %s %s "
                "ltid %d, tag %d, pid %d: gdb attaches to it\n", pgm.ltid,
                pgm.rank, e->seq, e->call ? e->call : "?",
                e->kind == PG_EV_SEND ? "to" : "from",
                e->kind == PG_EV_SEND ? e->to : e->from, e->tag,
                (int)getpid());
    else
        fprintf(stderr, "pangaea: ltid %d (rank %d) is in MPI_Init, pid %d: "
                "gdb attaches to it\n", pgm.ltid, pgm.rank, (int)getpid());
    while (pgm_debug_hold) {
        if (waitpid(child, &st, WNOHANG) == child) {
            fprintf(stderr, "pangaea: ltid %d (rank %d): the debugger "
                    "script ended before gdb attached (gdb and tmux "
                    "installed?): going on without gdb\n", pgm.ltid,
                    pgm.rank);
            return;
        }
        usleep(20000);
    }
}

void pgm_stop_unreached(long last)
{
    for (; next < ntargets; next++)
        fprintf(stderr, "pangaea: %s %d:%ld: ltid %d (rank %d) ended at "
                "event %ld without reaching it (pangaea -dump shows its "
                "events)\n", targets[next] == debug_event ? "-debug" : "-stop",
                pgm.ltid, targets[next], pgm.ltid, pgm.rank, last);
}
