/*
 * mpi_force.c - a rank of an MPI what-if run (`pangaea -whatif ...
 * mpiexec ...`): follow the old recording up to the plan's stop, then run
 * freely, one receive taking the message the plan chose (pg_mpi.h).
 *
 * Design.  `pangaea -whatif` (src/cli/search/whatif.c) computes the plan
 * from the old recording as for a PVM run, and src/cli/run/mpi_run.c
 * writes it into the new recording (whatif.plan) and names it to every
 * rank (PANGAEA_WHATIF) with the mode "whatif":
 *     from DIR                              the recording forked
 *     force LTID SEQ recv FROM MSGID TAG    the receive, the message
 *     stop LTID SEQ                         first event not followed (-1)
 * A what-if rank records into the new directory, as under -log, and while
 * its old log's next event is before its stop it also replays, as
 * pgm.mode PGM_REPLAY (the wrappers' replay path, unchanged): every event
 * the replay steers through is written again into the new log when it is
 * done (pgm_force_copy, from pgm_advance), with the rank's own count as a
 * receive's msgid (the new recording is renumbered after the run like any
 * other: src/cli/run/mpi_ids.c) and the call sites of this run.  At the
 * stop the old log is closed and the rank is a recording rank (PGM_LOG)
 * from then on.  For the forced rank the stop is the forced receive
 * itself: its MPI_Recv asks MPI for the chosen sender and tag
 * (pgm_force_pick), and MPI's non-overtaking rule gives it the chosen
 * message: the oldest of that sender and tag not yet taken, as it was
 * when recorded, since the rank took the same messages before.  A forced
 * MPI_Iprobe or MPI_Probe (its first poll past the stop) waits, with
 * MPI_Probe, until the chosen message is there: it finds it, as it could
 * have (its send does not follow the probe), and the program's receive
 * of what it found then takes it.  Polls of MPI_Iprobe that found nothing
 * (a <poll>, numbered SEQ, before the event that counts them: "force ...
 * poll-recv") are forced the same way at the first of them: the stop is
 * the <poll>, and the first MPI_Iprobe past it finds the chosen message.  The log
 * keeps what the program asked for (a wildcard), so the new recording's
 * -races sees the same race.  Anything else at the forced event (another
 * call than the one recorded there, a call the plan's message does not
 * fit) ends the run, named: never another order than the plan's.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pg_mpi.h"

static struct {
    char old_log[4200];      /* the log followed */
    char where[512];         /* the forced receive: "CALL at SITE" */
    long stop;               /* first event not followed, -1: none */
    int force;               /* this rank has the forced receive */
    long fseq;
    int ffrom, ftag;         /* the chosen message's sender ltid, tag */
    int at_poll;             /* forced at polls that found nothing: the
                                first of them finds the message */
    int armed;               /* the next receive is the forced one */
    char fcall[64];          /* the call recorded at the forced event */
    int fposted;             /* its posting, an MPI_Irecv's completion */
    char from[4096];
    pg_event ev, poll;       /* the event being followed, its <poll> */
    int *rivals;             /* ev's rivals (format 8), copied */
    int caprivals;
    int have_poll, to, poll_site;
} fc;

/* The plan's lines for this rank: 0, or -1 when one is malformed. */
static int plan_line(const char *line)
{
    int ltid, from, msgid, tag, n = 0;
    long seq;
    char kind[16];

    if (!strncmp(line, "from ", 5))
        return snprintf(fc.from, sizeof fc.from, "%s", line + 5) <
                       (int)sizeof fc.from ? 0 : -1;
    if (sscanf(line, "stop %d %ld", &ltid, &seq) == 2) {
        if (ltid == pgm.ltid)
            fc.stop = seq;
        return 0;
    }
    if (sscanf(line, "force %d %ld %15s %d %d %d", &ltid, &seq, kind, &from,
               &msgid, &tag) == 6) {
        if (ltid != pgm.ltid)
            return 0;
        if (strcmp(kind, "recv") && strcmp(kind, "poll-recv"))
            pgm_die(PGM_REFUSED, "the what-if plan forces event %ld to %s: "
                    "an MPI what-if forces receives and probes that took a "
                    "message, and MPI_Iprobe polls that found nothing "
                    "(README.md, MPI programs)", seq, kind);
        fc.force = 1, fc.fseq = seq, fc.ffrom = from, fc.ftag = tag;
        fc.at_poll = !strcmp(kind, "poll-recv");
        return 0;
    }
    if (sscanf(line, "where %d %n", &ltid, &n) == 1 && n > 0) {
        if (ltid == pgm.ltid) /* "CALL at SITE": named if never reached */
            snprintf(fc.where, sizeof fc.where, "%s", line + n);
        return 0;
    }
    return !strncmp(line, "turns ", 6) ? 0 : -1;
}

static void read_plan(const char *path)
{
    char line[4200];
    FILE *f = fopen(path, "r");

    if (!f)
        pgm_die(PGM_REFUSED, "cannot read the what-if plan %s", path);
    fc.stop = 1; /* a rank the plan does not name runs freely */
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (plan_line(line) < 0) {
            fclose(f);
            pgm_die(PGM_REFUSED, "the what-if plan %s has a bad line: "
                    "%.200s", path, line);
        }
    }
    fclose(f);
    if (!fc.from[0])
        pgm_die(PGM_REFUSED, "the what-if plan %s names no recording", path);
}

/* This rank's old log, opened for following (the ranks as recorded). */
static void open_old(void)
{
    char path[4200];
    pg_log_header h;
    pg_err err;

    pgm_check_ranks(fc.from, "the recording forked"); /* mpi_spawn.c */
    pg_log_path(path, sizeof path, fc.from, pgm.ltid, PG_LOG_COMM);
    if (!(pgm.rd = pg_logr_open(path, PG_LOG_COMM, &h, &err)))
        pgm_die(PGM_REFUSED, "cannot follow the recording forked: %s",
                err.msg);
    if (h.select[0])
        pgm_die(PGM_REFUSED, "%s is a selective or race-only log (\"%s\"): "
                "a what-if follows whole recordings", path, h.select);
    pgm.version = h.version; /* what its receives hold (mpi_p2p.c) */
    snprintf(fc.old_log, sizeof fc.old_log, "%s", path);
}

const char *pgm_force_old_log(void)
{
    return fc.old_log;
}

int pgm_force_start(void)
{
    const char *plan = getenv(PGM_ENV_WHATIF);

    if (!plan || !*plan)
        pgm_die(PGM_REFUSED, "a what-if rank needs its plan (%s)",
                PGM_ENV_WHATIF);
    read_plan(plan);
    pgm.whatif = 1;
    pgm.hooks |= PGM_HOOK_WHATIF;
    if (fc.stop == 1 && !fc.force)
        return 0; /* nothing followed: a recording rank from the start */
    open_old();
    pgm.mode = PGM_REPLAY;
    return 1;
}

void pgm_force_seen(const pg_event *ev)
{
    if (ev->kind == PG_EV_SITE)
        return;
    if (ev->kind == PG_EV_POLL) {
        fc.poll = *ev, fc.have_poll = 1, fc.poll_site = 0;
        return;
    }
    fc.ev = *ev;
    fc.to = ev->nto > 0 ? ev->to[0] : -1;
    fc.ev.nto = ev->nto > 0, fc.ev.to = &fc.to; /* MPI: one destination */
    if (ev->nrivals > fc.caprivals) { /* the reader's array moves on */
        free(fc.rivals);
        if (!(fc.rivals = malloc((size_t)ev->nrivals * sizeof *fc.rivals)))
            pgm_die(PGM_REFUSED, "out of memory");
        fc.caprivals = ev->nrivals;
    }
    if (ev->nrivals > 0)
        memcpy(fc.rivals, ev->rivals, (size_t)ev->nrivals * sizeof *fc.rivals);
    fc.ev.rivals = fc.rivals;
}

/* At the stop, the forced event: the receive read next, or for polls the
 * <poll> (numbered fseq) just before it; its call, or NULL. */
static const char *forced_call(void)
{
    if (!pgm.have_next)
        return NULL;
    if (fc.at_poll)
        return fc.have_poll && fc.poll.seq == fc.fseq &&
                       pgm.next.misses > 0 ? fc.poll.call : NULL;
    return pgm.next.seq == fc.fseq ? pgm.next.call : NULL;
}

/* The rank records freely from here: its old log closed, the forced
 * receive armed. */
static void switch_now(void)
{
    const char *call;

    pgm.hooks &= ~PGM_HOOK_STOP;
    if (fc.force && !(call = forced_call()))
        pgm_die(PGM_REFUSED, "the what-if's forced event %ld is not a "
                "receive or poll this rank's recording has at its stop",
                fc.fseq);
    if (fc.force) {
        fc.armed = 1;
        snprintf(fc.fcall, sizeof fc.fcall, "%s", call);
        fc.fposted = pgm.next.posted;
    }
    pg_logr_close(pgm.rd);
    pgm.rd = NULL;
    pgm.have_next = 0, pgm.misses_used = 0, fc.have_poll = 0;
    pgm.mode = PGM_LOG;
}

/* A stop read within a call (pgm.busy: the first half of an MPI_Sendrecv,
 * some of an MPI_Waitall's receives done) waits for the call's end: the
 * call's other events are followed as recorded (their source and tag,
 * which MPI could have given), the rank is free from its next call. */
void pgm_force_next(void)
{
    if (!pgm.whatif || pgm.mode != PGM_REPLAY)
        return;
    if (pgm.have_next && (fc.stop < 0 || pgm.next.seq < fc.stop))
        return; /* still followed */
    if (pgm.busy && pgm.have_next)
        pgm.hooks |= PGM_HOOK_STOP;
    else
        switch_now();
}

void pgm_force_boundary(void)
{
    if (pgm.hooks & PGM_HOOK_STOP)
        switch_now();
}

void pgm_call_hooks(void)
{
    if (pgm.hooks & PGM_HOOK_CHAOS)
        pgm_chaos_delay();
    pgm_force_boundary();
}

void pgm_force_miss(void)
{
    if (pgm.whatif && !fc.poll_site)
        fc.poll_site = pgm_site();
}

static void wrote(int rc)
{
    if (rc < 0)
        pgm_die(PGM_REFUSED, "cannot write its log in %s%s%s", pgm.dir,
                pg_logw_why(pgm.comm) ? ": " : "",
                pg_logw_why(pgm.comm) ? pg_logw_why(pgm.comm) : "");
}

void pgm_force_copy(void)
{
    int site;
    double t;

    if (!pgm.whatif || pgm.mode != PGM_REPLAY)
        return;
    if ((pgm.hooks & PGM_HOOK_STOP) && fc.force)
        pgm_die(PGM_REFUSED, "what-if: event %ld, the receive forced (%s), "
                "is made by the same call as the event before it (the "
                "receive of an MPI_Sendrecv, one of an MPI_Waitall's): an "
                "MPI what-if forces MPI_Recv, MPI_Iprobe and MPI_Probe "
                "calls only", fc.fseq, fc.ev.call ? fc.ev.call : "?");
    t = pgm_now();
    site = fc.ev.kind == PG_EV_END ? 0 : pgm_site(); /* its <site> first */
    if (fc.have_poll && fc.ev.misses > 0)
        wrote(pg_logw_poll(pgm.comm, t, fc.poll.call, fc.poll.asked_from,
                           fc.poll.asked_tag, fc.poll.matcher,
                           fc.poll_site ? fc.poll_site : site));
    fc.have_poll = 0;
    if (fc.ev.kind == PG_EV_END) { /* pgm_finish writes the end itself */
        pg_logw_misses(pgm.comm, fc.ev.misses);
        return;
    }
    fc.ev.t = t, fc.ev.site = site;
    if (fc.ev.kind == PG_EV_RECV) /* the rank's count, as recorded */
        fc.ev.msgid = pgm_count(pgm_rank_of(fc.ev.from), fc.ev.tag,
                                fc.ev.ctx, !fc.ev.call || strcmp(fc.ev.call,
                                                      "MPI_Iprobe"));
    wrote(pg_logw_event(pgm.comm, &fc.ev));
}

int pgm_force_pick(const char *call, int *source, int *tag)
{
    if (!fc.armed)
        return 0;
    fc.armed = 0;
    if (strcmp(call, fc.fcall))
        pgm_die(PGM_REFUSED, "what-if: event %ld, the receive forced, was "
                "%s when recorded; the program called %s there", fc.fseq,
                fc.fcall, call);
    if ((*source != MPI_ANY_SOURCE && pgm_ltid_of(*source) != fc.ffrom) ||
        (*tag != MPI_ANY_TAG && *tag != fc.ftag))
        pgm_die(PGM_REFUSED, "what-if: event %ld's %s does not admit the "
                "chosen message (ltid %d, tag %d)", fc.fseq, call, fc.ffrom,
                fc.ftag);
    *source = pgm_rank_of(fc.ffrom);
    *tag = fc.ftag;
    return 1;
}

int pgm_force_completion(const char *made, int *from, int *tag,
                         int *recorded)
{
    if (!fc.armed)
        return 0;
    fc.armed = 0;
    if (strcmp(fc.fcall, "MPI_Irecv"))
        pgm_die(PGM_REFUSED, "what-if: event %ld, the receive forced, was "
                "%s when recorded; the program called %s there", fc.fseq,
                fc.fcall, made);
    *from = fc.ffrom, *tag = fc.ftag, *recorded = fc.fposted;
    return 1;
}

void pgm_force_unreached(void)
{
    if (fc.armed) /* the program ends without the forced receive */
        pgm_die(PGM_DIVERGED, "what-if: the program ended before its forced "
                "receive, event %ld (%s), which was never reached: the "
                "what-if did not try its choice", fc.fseq,
                fc.where[0] ? fc.where : fc.fcall);
}

void pgm_force_check(void)
{
    if (fc.armed)
        pgm_die(PGM_REFUSED, "what-if: event %ld, the receive forced, was "
                "%s when recorded, but the program's next event is another "
                "call's: an MPI what-if forces MPI_Recv and MPI_Iprobe/"
                "MPI_Probe only", fc.fseq,
                fc.fcall);
}
