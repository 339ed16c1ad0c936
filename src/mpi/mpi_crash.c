/*
 * mpi_crash.c - a rank that dies of a signal keeps its log (pg_mpi.h).
 *
 * Design.  The communication log is written through a buffer: a rank
 * that died of SIGSEGV or SIGABRT would lose the events still in it, and
 * a replay of that recording (the one `-explore` keeps for a run that
 * failed) would find the log ending before the program's last calls and
 * say it diverged, instead of dying where the recording died.  So a
 * recording rank catches the signals of a crash, once: it pushes its
 * communication log out, ends its execution log with a <crash> and an
 * <end status=-SIG> (as a PVM task's: the views show how it died),
 * leaves pangaea a note (pg_mpi_env.h) saying it "died of SIGABRT after
 * event N of its log" (in a replay: before which recorded event), which
 * pangaea prints after the run (keeping the launcher's exit status) and
 * `-explore` gives as why a run failed, and dies of the same signal
 * (SA_RESETHAND), which the launcher reports.
 * Best effort, as in any crash handler: a crash inside the log writer
 * may leave its last event cut, which the reader then says.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pg_mpi.h"

/* "died of SIGABRT after event 5 of its log", said through pangaea. */
static void say(int sig)
{
    const char *name = sigabbrev_np(sig);
    char msg[300], where[120];

    if (pgm.comm) /* recording (a what-if rank too) */
        snprintf(where, sizeof where, "after event %ld of its log",
                 pg_logw_count(pgm.comm));
    else if (pgm.have_next)
        snprintf(where, sizeof where, "in a replay, before recorded event "
                 "%ld", pgm.next.seq);
    else
        snprintf(where, sizeof where, "in a replay, past its recording's "
                 "end");
    snprintf(msg, sizeof msg, "pangaea: ltid %d (rank %d, pid %d) died of "
             "SIG%s %s\n", pgm.ltid, pgm.rank, (int)getpid(),
             name ? name : "?", where);
    if (pgm_leave_note(0, msg) < 0 && write(2, msg, strlen(msg)) < 0)
        return;
}

static void on_crash(int sig)
{
    static volatile sig_atomic_t once;
    double t;

    if (!once && pgm.mode != PGM_OFF)
        say(sig);
    if (!once && pgm.comm) { /* recording (a what-if rank too) */
        t = pgm_now();
        pg_logw_flush(pgm.comm);
        if (pgm.exec) {
            pg_logw_crash(pgm.exec, t, sig, "", 0);
            pg_logw_end(pgm.exec, t, -sig);
            pg_logw_close(pgm.exec);
            pgm.exec = NULL;
        }
    }
    once = 1;
    raise(sig); /* SA_RESETHAND: now the default action */
}

void pgm_crash_catch(void)
{
    static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
    struct sigaction sa;
    size_t i;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}
