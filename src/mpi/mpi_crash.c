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
 * <end status=-SIG> (as a PVM task's: the views show how it died), and
 * dies of the same signal (SA_RESETHAND), which the launcher reports.
 * Best effort, as in any crash handler: a crash inside the log writer
 * may leave its last event cut, which the reader then says.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>

#include "pg_mpi.h"

static void on_crash(int sig)
{
    static volatile sig_atomic_t once;
    double t;

    if (!once && pgm.mode == PGM_LOG) {
        once = 1;
        t = pgm_now();
        if (pgm.comm)
            pg_logw_flush(pgm.comm);
        if (pgm.exec) {
            pg_logw_crash(pgm.exec, t, sig, "", 0);
            pg_logw_end(pgm.exec, t, -sig);
            pg_logw_close(pgm.exec);
            pgm.exec = NULL;
        }
    }
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
