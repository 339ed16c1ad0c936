/*
 * mpi_log.c - a rank's logs: written when recording, followed when
 * replaying (pg_mpi.h).
 *
 * Design.  The same files as a PVM task's, through the log layer:
 * ltid-N.comm.pgc (sends, receives, what probes found, polls that found
 * nothing as `misses`, call sites) and ltid-N.exec.xml (the program, the
 * end).  A
 * replay reads the communication log with the streaming reader, one event
 * ahead, and passes over the events a replay does not act on (call sites,
 * the last poll before an event); every wrapped call checks that it is
 * what the next event says (pgm_expect) and otherwise ends the run naming
 * both, since a replay that went on would follow another run.  A
 * race-only log (pangaea -min, src/cli/analysis/minimize.c) numbers its
 * events as the full log did: the rank counts its events (pgm.acts), and
 * one the log left out (a send, an MPI_Recv that did not race) is made as
 * the program asks, unchecked (pgm_left_out).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_mpi.h"
#include "pg_util.h"

/* ---- starting ------------------------------------------------------------ */

/* The library is built against one MPI's mpi.h: a program of the other
 * would read our constants wrongly (MPI_COMM_WORLD differs). */
static void check_library(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
#ifdef OPEN_MPI
    const char *want = "Open MPI";
#else
    const char *want = "MPICH";
#endif

    if (PMPI_Get_library_version(v, &n) != MPI_SUCCESS || !strstr(v, want)) {
        fprintf(stderr, "pangaea: this program runs with another MPI than "
                "%s, the one its launcher belongs to (\"%.60s\"): run it "
                "with %s's launcher\n", want, v, want);
        _exit(PGM_REFUSED);
    }
}

static void die_err(const char *what, const pg_err *err)
{
    pgm_die(PGM_REFUSED, "%s: %s", what, err->msg);
}

/* The log this rank follows, into path: its own in the recording, or,
 * in a what-if, the old one it follows up to its stop (its pgm.dir is the
 * new recording's, marked incomplete while it is made); the directory
 * holding it into dir. */
static void followed(char *path, size_t psize, char *dir, size_t dsize)
{
    char *slash;

    if (pgm.whatif)
        snprintf(path, psize, "%s", pgm_force_old_log());
    else
        pg_log_path(path, (int)psize, pgm.dir, pgm.ltid, PG_LOG_COMM);
    snprintf(dir, dsize, "%s", path);
    if ((slash = strrchr(dir, '/')))
        *slash = 0;
}

/* A replay's words for a log it cannot follow whole, in dir (followed):
 * its recording is marked as one that did not end well
 * (pg_logdir_incomplete), which the user must know to tell a broken log
 * from a cut one. */
static const char *failed_run(const char *dir)
{
    return pg_logdir_incomplete(dir)
               ? " (the recorded run failed: " PG_LOGDIR_INCOMPLETE " marks "
                 "the recording as one that did not end well)"
               : "";
}

static void replay_err(const pg_err *err)
{
    char path[PATH_MAX + 64], dir[PATH_MAX + 64];

    followed(path, sizeof path, dir, sizeof dir);
    pgm_die(PGM_REFUSED, "cannot replay: %s%s", err->msg, failed_run(dir));
}

static void open_logs(const char *exe, const char *host, const char *cwd)
{
    char path[PATH_MAX + 64], sum[65] = "";
    pg_err err;

    /* the program's checksum: a pack holds the program by it (pack.c) */
    if (pg_file_sum(exe, sum) < 0)
        sum[0] = 0;
    pg_log_path(path, sizeof path, pgm.dir, pgm.ltid, PG_LOG_COMM);
    if (!(pgm.comm = pg_logw_open(path, PG_LOG_COMM, pgm.ltid, exe, host,
                                  &err)))
        die_err("cannot record", &err);
    pg_log_path(path, sizeof path, pgm.dir, pgm.ltid, PG_LOG_EXEC);
    if (!(pgm.exec = pg_logw_open_prog(path, PG_LOG_EXEC, pgm.ltid, exe,
                                       host, NULL, exe, sum[0] ? sum : NULL,
                                       cwd, &err)))
        die_err("cannot record", &err);
}

static void read_next(void);
static void read_postings(const char *path);

/* A replay from a pack (pangaea -replay -pack, unpack.c) runs the packed
 * program, PANGAEA_PROGDIR/SHA256/NAME, which unpack.c checked. */
static int unpacked(const pg_log_header *h, const char *exe)
{
    const char *dir = getenv(PGM_ENV_PROGDIR);
    char want[PATH_MAX + 200];

    if (!dir || !*dir || !h->sha256[0])
        return 0;
    snprintf(want, sizeof want, "%s/%s/%s", dir, h->sha256,
             pg_basename(h->exe));
    return !strcmp(want, exe);
}

/* The recorded rank ran the program this rank runs (its path: a program
 * rebuilt in place is not noticed yet), or its packed copy. */
static void check_program(const char *exe)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_logr *r;
    pg_err err;

    pg_log_path(path, sizeof path, pgm.dir, pgm.ltid, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, &h, &err)))
        replay_err(&err);
    pg_logr_close(r);
    if (h.exe[0] && strcmp(h.exe, exe) && !unpacked(&h, exe))
        pgm_die(PGM_REFUSED, "the recording ran %s (%s), this run runs %s",
                h.exe, path, exe);
}

static void add_posting(const pg_event *ev)
{
    struct pgm_post *p;
    int n = pgm.nposts;

    if (ev->posted >= n) {
        while (n <= ev->posted)
            n = n ? 2 * n : 64;
        if (!(p = realloc(pgm.posts, (size_t)n * sizeof *p)))
            pgm_die(PGM_REFUSED, "out of memory");
        memset(p + pgm.nposts, 0, (size_t)(n - pgm.nposts) * sizeof *p);
        pgm.posts = p, pgm.nposts = n;
    }
    pgm.posts[ev->posted] = (struct pgm_post){ ev->from, ev->tag };
}

/* The log whose postings pgm_posting reads at its first call, or "": a
 * replay's rank reads them only if it calls MPI_Irecv (or starts a
 * persistent receive), not, as before, at MPI_Init, which decoded every
 * event of the log twice in a program of blocking receives
 * (docs/mpi-notes.md, "Cost"). */
static char postings_from[PATH_MAX + 64];

static void postings_later(const char *path)
{
    snprintf(postings_from, sizeof postings_from, "%s", path);
}

/* Reads the rank's whole log once ahead: which message each MPI_Irecv
 * took (pg_mpi.h, struct pgm_post). */
static void read_postings(const char *path)
{
    pg_log_header h;
    pg_event ev;
    pg_err err;
    pg_logr *r;
    int rc;

    if (!(r = pg_logr_open(path, PG_LOG_COMM, &h, &err)))
        replay_err(&err);
    while ((rc = pg_logr_next(r, &ev, &err)) == 1)
        if (ev.kind == PG_EV_RECV && ev.posted > 0)
            add_posting(&ev);
    if (rc < 0 && !pg_logr_cut(r))
        replay_err(&err);
    pg_logr_close(r);
}

const struct pgm_post *pgm_posting(int k)
{
    if (postings_from[0]) {
        read_postings(postings_from);
        postings_from[0] = 0;
    }
    return k > 0 && k < pgm.nposts && pgm.posts[k].from > 0 ? &pgm.posts[k]
                                                             : NULL;
}

/* The first communication log of a rank after this one in this run's
 * world, into later; 0 if the recording holds none. */
static int later_rank_log(char *later, size_t size)
{
    int ltid;

    for (ltid = pgm.ltid + 1; ltid <= pgm.base + pgm.size; ltid++) {
        pg_log_path(later, (int)size, pgm.dir, ltid, PG_LOG_COMM);
        if (access(later, F_OK) == 0)
            return ltid;
    }
    return 0;
}

/* This rank has no log to follow: said as what the recording tells.  A
 * later rank's log proves the recording had this rank; a recording
 * marked incomplete failed, which is why a rank it had never began its
 * log (the launcher ended it, or it died before or in MPI_Init); only a
 * complete recording with no later rank's log had fewer ranks. */
static _Noreturn void refuse_missing(const char *path)
{
    char later[PATH_MAX + 64];
    int failed = pg_logdir_incomplete(pgm.dir), k = later_rank_log(later,
                                                                  sizeof later);

    if (failed && k)
        pgm_die(PGM_REFUSED, "no log %s to replay: the recorded run failed "
                "before this rank began its log (" PG_LOGDIR_INCOMPLETE
                " marks the recording as one that did not end well; rank %d "
                "has its log), so there is nothing to replay for this rank: "
                "a replay needs every rank's log", path, k - 1 - pgm.base);
    if (failed)
        pgm_die(PGM_REFUSED, "no log %s to replay: the recorded run failed "
                "before this rank began its log, or had fewer than the %d "
                "ranks of this run (" PG_LOGDIR_INCOMPLETE " marks the "
                "recording as one that did not end well; no later rank has "
                "a log): there is nothing to replay for this rank, and a "
                "replay needs every rank's log", path, pgm.size);
    if (k)
        pgm_die(PGM_REFUSED, "no log %s to replay, though the recording "
                "holds %s: the recorded run had this rank, which wrote no "
                "log (its MPI calls did not reach Pangaea's library, or the "
                "log was removed since); a replay needs every rank's log",
                path, later);
    pgm_die(PGM_REFUSED, "no log %s to replay: the recording had fewer "
            "than %d ranks", path, pgm.size);
}

/* A replay needs this rank's log, of this program, and rank 0 checks
 * that the recording had no more ranks than this run (past the ranks its
 * ranks spawned). */
static void open_recording(const char *exe)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_err err;

    pg_log_path(path, sizeof path, pgm.dir, pgm.ltid, PG_LOG_COMM);
    if (access(path, F_OK) < 0)
        refuse_missing(path);
    if (!(pgm.rd = pg_logr_open(path, PG_LOG_COMM, &h, &err)))
        replay_err(&err);
    pgm.race_only = pg_log_race_only(h.select);
    if (h.select[0] && !pgm.race_only) /* -only is refused for MPI runs */
        pgm_die(PGM_REFUSED, "%s is a selective log (\"%s\"): an MPI "
                "replay follows whole or race-only recordings", path,
                h.select);
    pgm_check_ranks(pgm.dir, "the recording"); /* rank 0: mpi_spawn.c */
    check_program(exe);
    /* a receive that never took a message when recorded is posted here
     * (mpi_p2p.c): a communicator of our own, collective, so every rank
     * makes it at the same point */
    PMPI_Comm_dup(MPI_COMM_WORLD, &pgm.nowhere);
    pgm.version = h.version;
    pg_log_path(path, sizeof path, pgm.dir, pgm.ltid, PG_LOG_COMM);
    postings_later(path);
    read_next();
}

void pgm_start(void)
{
    const char *mode = getenv(PGM_ENV_MODE), *dir = getenv(PGM_ENV_LOGDIR);
    char exe[PATH_MAX] = "", host[256] = "", cwd[PATH_MAX] = "";
    int whatif = mode && !strcmp(mode, "whatif"); /* records: mpi_force.c */

    check_library();
    pgm.started = 1;
    pgm.mode = !mode                    ? PGM_OFF
               : !strcmp(mode, "log") || whatif ? PGM_LOG
               : !strcmp(mode, "replay") ? PGM_REPLAY
                                         : PGM_OFF;
    PMPI_Comm_rank(MPI_COMM_WORLD, &pgm.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &pgm.size);
    if (pgm.mode != PGM_OFF)
        pgm_spawn_start(); /* a spawned rank's pgm.base (mpi_spawn.c) */
    pgm.ltid = pgm_ltid_of(pgm.base + pgm.rank);
    if (pgm.mode == PGM_OFF)
        return;
    if (!dir || dir[0] != '/' || strlen(dir) >= sizeof pgm.dir)
        pgm_die(PGM_REFUSED, "%s must name the log directory, absolute "
                "(pangaea sets it: pangaea -log mpiexec ...)", PGM_ENV_LOGDIR);
    snprintf(pgm.dir, sizeof pgm.dir, "%s", dir);
    if (readlink("/proc/self/exe", exe, sizeof exe - 1) < 0)
        snprintf(exe, sizeof exe, "%s", program_invocation_name);
    gethostname(host, sizeof host - 1);
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = 0;
    if (pgm.mode == PGM_LOG)
        open_logs(exe, host, cwd);
    else
        open_recording(exe);
    if (whatif) {
        /* as a replay does (open_recording): collective, every rank */
        PMPI_Comm_dup(MPI_COMM_WORLD, &pgm.nowhere);
        if (pgm_force_start()) { /* follows its old log for a while */
            postings_later(pgm_force_old_log());
            read_next();
        }
    }
    pgm_chaos_start();
    pgm_stop_start();
    pgm_crash_catch();
    pgm_gate_start(); /* -live: the rank's page (mpi_gate.c) */
}

/* A rank of a recording or replay whose MPI_Init never reached the
 * library: the program called PMPI_Init, or a Fortran binding that calls
 * PMPI_Init directly and that the library does not take (mpi_fortran.c
 * and mpi_f08.c take gfortran's names of mpif.h, `use mpi` and `use
 * mpi_f08`: docs/mpi-notes.md).  Said, rather than a silent run; only in
 * a process that has an MPI's Fortran bindings (the library is preloaded
 * into whatever the launcher starts: a script around the program too). */
static int fortran_bindings(void)
{
#ifdef OPEN_MPI
    static const char *const libs[] = { "libmpi_mpifh.so.40",
                                        "libmpi_usempif08.so.40" };
#else
    static const char *const libs[] = { "libmpichfort.so.12" };
#endif
    size_t i;

    for (i = 0; i < sizeof libs / sizeof *libs; i++)
        if (dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD))
            return 1;
    return 0;
}

__attribute__((destructor)) static void never_started(void)
{
    const char *mode = getenv(PGM_ENV_MODE);

    if (!pgm.started && mode &&
        (!strcmp(mode, "log") || !strcmp(mode, "replay")) &&
        fortran_bindings())
        fprintf(stderr, "pangaea: a rank (pid %d) ended without its MPI "
                "calls reaching Pangaea's library (PMPI_Init started MPI, "
                "past the library: called by the program or by a Fortran "
                "binding the library does not take): nothing of it was "
                "%s\n",
                (int)getpid(), strcmp(mode, "log") ? "replayed" : "recorded");
}

/* ---- recording ------------------------------------------------------------- */

static void wrote(int rc)
{
    if (rc < 0)
        pgm_die(PGM_REFUSED, "cannot write its log in %s%s%s", pgm.dir,
                pg_logw_why(pgm.comm) ? ": " : "",
                pg_logw_why(pgm.comm) ? pg_logw_why(pgm.comm) : "");
}

static int asked_tag(int tag)
{
    return tag == MPI_ANY_TAG ? -1 : tag;
}

/* The polls that found nothing go with the next event (as a PVM task's
 * pvm_nrecv misses: a replay finds nothing as often), the last receive's
 * of them as a <poll> before it, which -races judges as a receive that
 * could have found a message.  A run of failed tests of sends only has
 * no <poll>: those tests could take no message (pgm_log_send_miss). */
static void flush_misses(double t)
{
    if (!pgm.misses)
        return;
    if (pgm.poll_call)
        wrote(pg_logw_poll(pgm.comm, t, pgm.poll_call,
                           pgm_ltid_of(pgm.poll_from), pgm.poll_tag, 0,
                           pgm.poll_site));
    pg_logw_misses(pgm.comm, pgm.misses);
    pgm.misses = 0;
    pgm.poll_call = NULL;
}

void pgm_log_send(const char *call, int peer, int tag, int msgid, int bytes)
{
    int site = pgm_site(), to = pgm_ltid_of(peer); /* its <site> first */
    double t = pgm_now();

    if (pgm.hooks)
        pgm_force_check();
    flush_misses(t);
    pg_logw_note(pgm.comm, site, -3, -2, 0);
    if (pgm.ctx) /* the log's note has ctx 0 unless told (pg_log.h) */
        pg_logw_ctx(pgm.comm, pgm.ctx);
    pgm.ctx = 0;
    wrote(pg_logw_send(pgm.comm, t, call, tag, msgid, bytes, 1, &to));
}

void pgm_log_recv(const char *call, int from, int tag, int msgid, int bytes,
                  int asked_from, int asked)
{
    int site = pgm_site(); /* its <site> before the misses' <poll> */
    double t = pgm_now();

    if (pgm.hooks)
        pgm_force_check();
    flush_misses(t);
    pg_logw_note(pgm.comm, site, pgm_ltid_of(asked_from), asked_tag(asked),
                 0);
    /* the note has neither unless told (pg_log.h): an MPI_Recv's
     * receive (no posting) and the world's (ctx 0) skip the calls */
    if (pgm.posted || pgm.together)
        pg_logw_posted(pgm.comm, pgm.posted, pgm.together);
    if (pgm.ctx)
        pg_logw_ctx(pgm.comm, pgm.ctx);
    pgm.posted = pgm.together = pgm.ctx = 0;
    wrote(pg_logw_recv(pgm.comm, t, call, pgm_ltid_of(from), tag, msgid,
                       bytes));
}

static void log_query(const char *call, const char *about, int value);

void pgm_log_query(const char *call, const char *about)
{
    log_query(call, about, 0);
}

static void log_query(const char *call, const char *about, int value)
{
    double t = pgm_now();

    flush_misses(t);
    wrote(pg_logw_query(pgm.comm, t, call, about, value));
}

void pgm_log_request_done(const char *kind)
{
    log_query(PGM_REQUEST_DONE, kind, 0);
}

void pgm_log_clock(const char *call, double value)
{
    char about[64];

    snprintf(about, sizeof about, "%.17g", value);
    log_query(call, about, 0);
}

void pgm_log_send_done(int index, int msgid)
{
    char about[32];

    snprintf(about, sizeof about, "%d", index);
    log_query(PGM_SEND_DONE, about, msgid);
}

void pgm_log_miss(const char *call, int asked_from, int asked)
{
    pgm.misses++;
    pgm.poll_site = pgm_site();
    pgm.poll_call = call;
    pgm.poll_from = asked_from;
    pgm.poll_tag = asked_tag(asked);
}

void pgm_log_send_miss(void)
{
    pgm.misses++;
}

/* ---- replaying ------------------------------------------------------------- */

/* The next event a replay acts on (sites and polls are for -races). */
static void read_next(void)
{
    pg_event ev;
    pg_err err;
    int rc;

    do
        if ((rc = pg_logr_next(pgm.rd, &ev, &err)) == 1 && pgm.whatif)
            pgm_force_seen(&ev);
    while (rc == 1 && (ev.kind == PG_EV_SITE || ev.kind == PG_EV_POLL));
    if (rc < 0 && !pg_logr_cut(pgm.rd))
        replay_err(&err);
    pgm.have_next = rc == 1;
    pgm.misses_used = 0;
    if (rc == 1) { /* field by field: a compound literal zeroed about */
        struct pgm_ev *n = &pgm.next;

        n->kind = ev.kind, n->seq = ev.seq, n->call = ev.call;
        n->tag = ev.tag, n->msgid = ev.msgid, n->bytes = ev.bytes;
        n->from = ev.from, n->to = ev.nto > 0 ? ev.to[0] : -1;
        n->misses = ev.misses, n->status = ev.status;
        n->posted = ev.posted, n->together = ev.together;
        n->about[0] = 0;
    }
    if (rc == 1 && ev.kind == PG_EV_QUERY && ev.about)
        snprintf(pgm.next.about, sizeof pgm.next.about, "%s", ev.about);
    if (pgm.hooks) /* a what-if rank at its stop records from here */
        pgm_force_next();
}

/* "a receive (MPI_Recv) from ltid 3, tag 5, msgid 1" */
static const char *describe(const struct pgm_ev *e, char *buf, size_t size)
{
    if (e->kind == PG_EV_SEND)
        snprintf(buf, size, "a send (%s) to ltid %d, tag %d", e->call, e->to,
                 e->tag);
    else if (e->kind == PG_EV_RECV)
        snprintf(buf, size, "a receive (%s) from ltid %d, tag %d, msgid %d",
                 e->call, e->from, e->tag, e->msgid);
    else if (e->kind == PG_EV_QUERY && !strcmp(e->call, PGM_SEND_DONE))
        snprintf(buf, size, "a send's completion (%s)", e->call);
    else if (e->kind == PG_EV_QUERY && !strcmp(e->call, PGM_REQUEST_DONE))
        snprintf(buf, size, "MPI_Request_get_status finding a request "
                 "done (%s)", e->call);
    else if (e->kind == PG_EV_QUERY)
        snprintf(buf, size, "a clock's reading (%s)", e->call);
    else if (e->kind == PG_EV_END)
        snprintf(buf, size, "the end of the rank");
    else
        snprintf(buf, size, "an event the MPI front end does not replay "
                 "(kind %d)", (int)e->kind);
    return buf;
}

/* The event's call (the log table's string) is one of calls; the same
 * pointer first: the linker merges the table's names with this
 * library's literals, which spares a strcmp an event. */
static int call_in(const char *call, const char *const *calls)
{
    for (; calls && *calls; calls++)
        if (call && (call == *calls || !strcmp(call, *calls)))
            return 1;
    return !calls;
}

/* The program called `made` where this rank's log ends without the
 * rank's end (pgm_finish follows that event; it is never read past): the
 * recorded rank died or was ended there, and the replay went further
 * than the recording did, which is not a divergence from it.  A what-if
 * rank that switched to recording has closed its old log (mpi_force.c)
 * and is not here but by a fault of the switch: said as before. */
static _Noreturn void past_end(const char *made)
{
    char path[PATH_MAX + 64], dir[PATH_MAX + 64];

    if (!pgm.rd)
        pgm_die(PGM_DIVERGED, "the replay diverged: the program called %s, "
                "where the recording of this rank ends", made);
    followed(path, sizeof path, dir, sizeof dir);
    pgm_die(PGM_DIVERGED, "the replay went past this rank's recording: the "
            "program called %s after event %ld, where its log %s stops "
            "without the rank's end (the recorded rank died or was ended "
            "there)%s", made, pgm.acts, path, failed_run(dir));
}

/* pgm_expect's cases other than the next event being the one asked for
 * with no polls left before it: apart, so that the usual case sets up no
 * frame for the messages' text. */
static __attribute__((noinline)) const struct pgm_ev *
expect_other(pg_ev_kind kind, const char *const *calls, const char *made,
             int poll)
{
    char d[256];

    if (!pgm.have_next)
        past_end(made);
    if (pgm.race_only && pgm.next.seq > pgm.acts + 1)
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: the program "
                "called %s, where the recording has %ld send(s) or "
                "receive(s) left out of the race-only recording before %s",
                pgm.acts + 1, made, pgm.next.seq - pgm.acts - 1,
                pgm.next.kind == PG_EV_END ? "the rank's end"
                                           : "its next event");
    if (pgm.misses_used < pgm.next.misses) {
        if (poll) {
            if (pgm.hooks)
                pgm_force_miss();
            pgm.misses_used++;
            return NULL;
        }
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: the program "
                "called %s, where the recording has %d more polls that found "
                "nothing", pgm.next.seq, made,
                pgm.next.misses - pgm.misses_used);
    }
    if (pgm.next.kind != kind || !call_in(pgm.next.call, calls))
        pgm_die(PGM_DIVERGED, "the replay diverged at event %ld: recorded %s; "
                "the program called %s", pgm.next.seq,
                describe(&pgm.next, d, sizeof d), made);
    return &pgm.next;
}

const struct pgm_ev *pgm_expect(pg_ev_kind kind, const char *const *calls,
                                const char *made, int poll)
{
    /* the usual case: the very call named first (the table's string is
     * this library's literal: call_in); no loop, no frame */
    if (pgm.have_next && !pgm.race_only &&
        pgm.misses_used >= pgm.next.misses && pgm.next.kind == kind &&
        calls && calls[0] == pgm.next.call)
        return &pgm.next;
    return expect_other(kind, calls, made, poll);
}

void pgm_advance(void)
{
    pgm.acts = pgm.race_only ? pgm.next.seq : pgm.acts + 1;
    if (pgm_live) /* -live: how far the replay is (mpi_gate.c) */
        pgm_live->seq = pgm.next.seq;
    if (pgm.hooks) {
        pgm_force_copy(); /* a what-if rank records what it followed */
        pgm_stop_after(&pgm.next); /* -stop: the event is done */
    }
    read_next();
}

void pgm_left_out_done(const struct pgm_ev *e)
{
    struct pgm_ev done = *e;

    done.seq = ++pgm.acts;
    if (pgm_live)
        pgm_live->seq = done.seq;
    if (pgm.hooks)
        pgm_stop_after(&done); /* -stop: the event is done */
}

/* ---- the end ------------------------------------------------------------- */

void pgm_finish(void)
{
    double t = pgm_now();
    int rc = 0;

    pgm_force_boundary(); /* a what-if rank's stop read in its last call */
    pgm_force_unreached();
    if (pgm.mode == PGM_REPLAY) {
        pgm_expect(PG_EV_END, NULL, "MPI_Finalize", 0);
        pgm_stop_unreached(pgm.next.seq);
        pgm_force_copy(); /* a what-if rank followed to the end */
        pg_logr_close(pgm.rd);
        pgm.rd = NULL;
        pgm.mode = pgm.whatif ? PGM_LOG : PGM_REPLAY;
    }
    if (pgm.mode == PGM_LOG) {
        flush_misses(t);
        rc |= pg_logw_end(pgm.comm, t, 0);
        rc |= pg_logw_close(pgm.comm);
        pgm.comm = NULL;
        rc |= pg_logw_end(pgm.exec, t, 0);
        rc |= pg_logw_close(pgm.exec);
        pgm.exec = NULL;
        if (rc)
            fprintf(stderr, "pangaea: ltid %d (rank %d): its logs in %s "
                    "could not be written whole\n", pgm.ltid, pgm.rank,
                    pgm.dir);
    }
    pgm.mode = PGM_OFF;
}
