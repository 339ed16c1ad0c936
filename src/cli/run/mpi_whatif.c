/*
 * mpi_whatif.c - `pangaea -whatif LTID:SEQ=SENDER:MSGID -logdir DIR
 * mpiexec ...`: the command's side of an MPI what-if run (the ranks'
 * side is src/mpi/mpi_force.c).
 *
 * Design.  The choice was checked against DIR's race analysis and the
 * plan computed as for a PVM run (src/cli/search/whatif.c: only messages
 * `-races` lists as the receive's alternatives, so never an order MPI
 * could not have produced).  What an MPI rank can force so far: a receive
 * made by MPI_Recv that took a message (posted for the chosen sender and
 * tag, MPI's non-overtaking rule gives it the chosen message), an
 * MPI_Iprobe or MPI_Probe that found one (it finds the chosen one),
 * MPI_Iprobe polls that found nothing (the first of them finds it), and
 * the completion of an MPI_Irecv by MPI_Waitany, Testany, Waitsome or
 * Testsome that had rivals (format 8: the rank completes instead the
 * rival that takes the chosen message).
 * Each forced event is looked up in its rank's log and anything else
 * (other polls that found nothing, such as MPI_Test's, a poll forced to
 * find nothing, the completions of MPI_Irecv by MPI_Wait or MPI_Test, or
 * of older logs, logged as "MPI_Irecv" without rivals) is
 * refused here, named, before anything runs.  Then the plan goes into the new recording (whatif.plan), which
 * mpi_run.c names to every rank.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_log.h"
#include "top.h"

/* Whether, after the completion ev (read from r), one of its rivals
 * (format 8) took message msgid of ltid from: what a forced completion
 * can make happen (the rank completes that rival instead: mpi_p2p.c).
 * 1, 0; -1 when out of memory. */
static int rival_took(pg_logr *r, const pg_event *ev, int from, int msgid)
{
    int *riv = malloc((size_t)ev->nrivals * sizeof *riv), n = ev->nrivals;
    int found = 0, i;
    pg_event x;
    pg_err err;

    if (!riv)
        return -1;
    memcpy(riv, ev->rivals, (size_t)n * sizeof *riv); /* ev's moves on */
    while (!found && pg_logr_next(r, &x, &err) == 1)
        for (i = 0; x.kind == PG_EV_RECV && x.posted > 0 && i < n; i++)
            found |= x.posted == riv[i] && x.from == from && x.msgid == msgid;
    free(riv);
    return found;
}

/* The call recorded at event seq of ltid in dir, into call, and for the
 * completion of an MPI_Irecv with rivals whether one of them took the
 * chosen message (*by_rival): 0, or -1 and err when the log has no such
 * event. */
static int recorded_call(const char *dir, int ltid, long seq, char *call,
                         size_t size, pg_ev_kind *kind, int from, int msgid,
                         int *by_rival, pg_err *err)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    int rc;

    pg_log_path(path, sizeof path, dir, ltid, PG_LOG_COMM);
    if (!(r = pg_logr_open(path, PG_LOG_COMM, &h, err)))
        return -1;
    while ((rc = pg_logr_next(r, &ev, err)) == 1 && ev.seq != seq)
        ;
    if (rc == 1) {
        snprintf(call, size, "%s", ev.call ? ev.call : "?");
        *kind = ev.kind;
        *by_rival = ev.kind == PG_EV_RECV && ev.nrivals > 0 &&
                    rival_took(r, &ev, from, msgid) == 1;
    }
    pg_logr_close(r);
    return rc == 1 ? 0 : pg_err_set(err, "%s has no event %ld", path, seq);
}

/* A force line of the plan an MPI rank can carry out: 0, or -1 and err. */
static int check_force(const char *dir, const char *line, pg_err *err)
{
    char kind[16], call[64];
    int ltid, from, msgid, tag;
    pg_ev_kind k = PG_EV_END;
    int by_rival = 0;
    long seq;

    if (sscanf(line, "force %d %ld %15s %d %d %d", &ltid, &seq, kind, &from,
               &msgid, &tag) != 6)
        return pg_err_set(err, "-whatif: a bad line in the plan: %.100s",
                          line);
    if (recorded_call(dir, ltid, seq, call, sizeof call, &k, from, msgid,
                      &by_rival, err) < 0)
        return -1;
    if (!strcmp(kind, "poll-recv") && k == PG_EV_POLL &&
        !strcmp(call, "MPI_Iprobe"))
        return 0; /* the first of those polls finds the message */
    if (strcmp(kind, "recv"))
        return pg_err_set(err, "-whatif %d:%ld: in an MPI run Pangaea forces "
                          "a receive that took a message, or MPI_Iprobe polls "
                          "that found nothing, not %s (%s)", ltid, seq,
                          !strcmp(kind, "nothing") ? "a poll to find nothing"
                                                   : "polls that found nothing",
                          call);
    if (k == PG_EV_RECV && !strcmp(call, "MPI_Irecv") && by_rival)
        return 0; /* a wait or test over several: that rival completes */
    if (k != PG_EV_RECV || (strcmp(call, "MPI_Recv") &&
                            strcmp(call, "MPI_Iprobe")))
        return pg_err_set(err, "-whatif %d:%ld: the receive is %s; in an MPI "
                          "run Pangaea forces MPI_Recv, MPI_Iprobe and "
                          "MPI_Probe, and the completions of MPI_Irecv by "
                          "MPI_Waitany, MPI_Testany, MPI_Waitsome and "
                          "MPI_Testsome to take what another of the call's "
                          "pending receives took, only so far (README.md, "
                          "MPI programs)", ltid, seq, call);
    return 0;
}

int top_mpi_whatif_check(const struct top_opts *o, pg_err *err)
{
    char from[PATH_MAX + 8] = "";
    const char *line, *nl;

    if (!o->whatif_plan || sscanf(o->whatif_plan, "from %4095[^\n]", from) != 1)
        return pg_err_set(err, "-whatif: no plan for the MPI run");
    if (!top_mpi_recording(from)) /* its ranks would follow a PVM task's */
        return pg_err_set(err, "-whatif: the recording in %s is a PVM run's: "
                          "fork it without the MPI launcher", from);
    for (line = o->whatif_plan; line && *line;
         line = (nl = strchr(line, '\n')) ? nl + 1 : NULL)
        if (!strncmp(line, "force ", 6) && check_force(from, line, err) < 0)
            return -1;
    return 0;
}

int top_mpi_whatif_write(const struct top_opts *o, char *path, size_t size,
                         pg_err *err)
{
    struct top_file plan;
    FILE *f;

    snprintf(path, size, "%s/whatif.plan", o->logdir);
    if (!(f = top_file_begin(&plan, path, err)) || /* no link followed */
        top_file_end(&plan, fputs(o->whatif_plan, f) >= 0, err) < 0)
        return -1;
    fputs(o->whatif_said, stderr); /* checked: the run starts */
    return 0;
}
