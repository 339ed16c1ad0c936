/*
 * pg_mpi.h - the MPI front end's runtime (src/mpi/): what its files share.
 *
 * Design.  The front end is a PMPI library (libpangaea-mpich.so,
 * libpangaea-openmpi.so: built once per MPI, their ABIs differ) that the
 * launcher preloads into every rank (pangaea sets LD_PRELOAD through the
 * launcher's own environment passing: src/cli/run/mpi_run.c).  It writes
 * the same logs as a PVM task, with the log layer (src/log), and knows
 * nothing of PVM.  A rank of MPI_COMM_WORLD is ltid rank+1 (ltid 1 is the
 * first task, as in a PVM run; ltid 0 is pangaea's own in PVM runs, and
 * absent in MPI runs); ranks MPI_Comm_spawn started are numbered after
 * them (mpi_spawn.c).
 *
 * A message is named as in every Pangaea log by (sender ltid, msgid),
 * msgid being the sender's count of its sends.  A receiver cannot know
 * that count without something carried in the message; what it knows is
 * that it took the k-th message of one tag from one sender (MPI's
 * non-overtaking rule: docs/mpi-notes.md).  So a rank writes k as a
 * receive's msgid, and pangaea rewrites it into the sender's count after
 * the run (src/cli/recording/mpi_ids.c); a replay reads the rewritten
 * logs, and posts receives by source and tag only.
 *
 * The files, lowest first (tests/layers.sh): mpi_state.c (the state, the
 * counters, the clock, communicators' ranks), mpi_comm.c (communicators'
 * names in the log), mpi_chaos.c (-chaos's
 * perturbation), mpi_site.c (call sites), mpi_crash.c (a crash keeps the
 * log), mpi_stop.c (-replay -stop, -debug), mpi_force.c (a what-if rank:
 * following, then the forced receive), mpi_log.c (writing and reading the
 * rank's logs, divergence), mpi_p2p.c (the wrapped message calls) and
 * mpi_clock.c (MPI_Wtime, MPI_Wtick), mpi_start.c (persistent requests'
 * starts, on mpi_p2p.c's sends and postings); mpi_fortran.c (Open MPI's
 * Fortran names, mpi_f08's too) and mpi_f08.c (MPICH's mpi_f08 names),
 * on top of them all, the f08 calls listed in mpi_f08.def; mpi_isend.c
 * (the sends in flight) and mpi_persist.c (the persistent requests) sit
 * beside mpi_site.c, and mpi_gate.c (-live's gate, on the log layer's
 * live_gate.c) beside mpi_crash.c; mpi_spawn.c (MPI_Comm_spawn: spawned
 * ranks' ltids) between mpi_force.c and mpi_log.c, the remote ranks of
 * its intercommunicators being mpi_state.c's.
 *
 * This header includes mpi.h: each object is built twice, against
 * MPICH's and against Open MPI's (Makefile).  pg_mpi_env.h holds what the
 * command shares with it (no mpi.h there).
 */
#ifndef PG_MPI_H
#define PG_MPI_H

#include <mpi.h>

#include "pg_live.h"
#include "pg_log.h"
#include "pg_mpi_env.h"

#define PGM_API __attribute__((visibility("default")))
/* In each wrapper the program called: where it called from (mpi_site.c),
 * unless a Fortran binding of ours (mpi_fortran.c, mpi_f08.c) set it
 * already; then the hooks of -chaos, -whatif and -stop, if any
 * (mpi_force.c). */
#define PGM_SITE()                                                          \
    ((void)(pgm.pc_set ? 0 : (pgm.pc = __builtin_return_address(0), 0)),    \
     pgm.hooks ? pgm_call_hooks() : (void)0)
/* In a Fortran binding of ours (mpi_fortran.c, mpi_f08.c), before it
 * calls the C wrapper: the site is the Fortran program's call; the
 * binding clears pc_set when the wrapper returns. */
#define PGM_FORTRAN_SITE()                                                  \
    (pgm.pc = __builtin_return_address(0), pgm.pc_set = 1)
/* pgm.hooks: 0 in a plain recording or replay, so that the hot path
 * pays one test for all of these; PGM_SITE calls pgm_call_hooks. */
#define PGM_HOOK_CHAOS 1  /* -chaos: a delay (mpi_chaos.c) */
#define PGM_HOOK_STOP 2   /* a what-if rank's stop was read (mpi_force.c) */
#define PGM_HOOK_WHATIF 4 /* a what-if rank (mpi_force.c) */
#define PGM_HOOK_STOPS 8  /* -replay -stop events (mpi_stop.c) */

enum pgm_mode { PGM_OFF = 0, PGM_LOG = 1, PGM_REPLAY = 2 };

/* One event as the replay needs it (a copy: pg_logr's strings and lists
 * go with its next event). */
struct pgm_ev {
    pg_ev_kind kind;
    long seq;
    const char *call;  /* the table's string (log_table.c) */
    int tag, msgid, bytes, from, to, misses, status;
    int posted, together; /* an MPI_Irecv's completion (format 6) */
    char about[64];       /* a query's (a clock's value) */
};

/* Replay: what the recording says the program's k-th MPI_Irecv took
 * (read ahead at the start: the receive is posted long before its
 * completion's event comes), so that a wildcard one is posted with the
 * recorded source and tag. */
struct pgm_post {
    int from, tag; /* from 0: never completed when recorded */
};

struct pgm_state {
    enum pgm_mode mode;
    int rank, size, ltid;
    int base;                 /* world ranks (ltid - 1) are base + rank:
                                 0 in the first job, past the ranks that
                                 existed in a spawned one (mpi_spawn.c) */
    int started;              /* MPI_Init went through the library */
    int busy;                 /* inside a wrapper: MPI calling itself */
    void *pc;                 /* the program's call of the wrapper */
    int pc_set;               /* pc is a Fortran caller's (mpi_fortran.c,
                                 mpi_f08.c) */
    pg_logw *comm, *exec;     /* recording */
    pg_logr *rd;              /* replay: the rank's communication log */
    struct pgm_ev next;       /* replay: the next recorded event */
    int have_next;
    int misses_used;          /* replay: of next.misses, polls done */
    int sent;                 /* messages sent: a send's msgid */
    int misses;               /* recording: polls that found nothing */
    const char *poll_call;    /* recording: the last receive's poll of
                                 them, NULL: none (tests of sends) */
    int poll_from, poll_tag, poll_site;
    int whatif;               /* a what-if rank (mpi_force.c) */
    int chaos;                /* -chaos perturbs this rank (mpi_chaos.c) */
    int hooks;                /* PGM_HOOK_*: PGM_SITE calls pgm_call_hooks */
    int posted, together;     /* recording: the next receive's posting */
    int ctx;                  /* recording: the next send's or receive's
                                 communicator (pgm_ctx_of), 0 the world */
    struct pgm_post *posts;   /* replay: by posting number */
    int nposts;
    int version;              /* replay: the recording's log format */
    int race_only;            /* replay: a race-only recording (-min) */
    long acts;                /* replay: the rank's events done so far, as
                                 a race-only log numbers them */
    MPI_Comm nowhere;         /* replay: where no message ever comes */
    char dir[4096];
};
extern struct pgm_state pgm;

/* ---- mpi_comm.c ---- */
/* comm's name in the log (pg_event.ctx): the same in every rank and run;
 * 0 MPI_COMM_WORLD, or a communicator made where Pangaea does not see. */
int pgm_ctx_of_made(MPI_Comm comm);
/* Every send and receive asks: MPI_COMM_WORLD's answer inline, without
 * a call (bench/mpi_insn.sh). */
static inline int pgm_ctx_of(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD ? 0 : pgm_ctx_of_made(comm);
}
/* made (a spawn's intercommunicator) is parent's next child: named, and
 * its name returned (0: parent unnamed); a spawned rank names its parent
 * intercommunicator as its parents did (mpi_spawn.c). */
int pgm_ctx_made(MPI_Comm parent, MPI_Comm made);
void pgm_ctx_set(MPI_Comm comm, int id);

/* ---- mpi_spawn.c: MPI_Comm_spawn, MPI_Comm_spawn_multiple ---- */
/* In MPI_Init, before the logs open: a spawned rank learns from its
 * parents its first ltid (pgm.base) and its parent intercommunicator's
 * name and ranks; nothing in a rank of the first job. */
void pgm_spawn_start(void);
/* mpi_state.c: a spawn's intercommunicator's remote ranks, n world ranks
 * (kept on it as an attribute, freed with it). */
void pgm_inter_remember(MPI_Comm inter, int n, const int *u);
/* mpi_state.c: the first ltid that ltids 1 to `ranks` of the recording
 * in dir spawned (their <spawn> events), 0 if none: the first job had
 * first - 1 ranks. */
int pgm_first_spawned(const char *dir, int ranks);
/* Replay, rank 0 of the first job: refused, naming the log, if the
 * recording's first job had more or fewer ranks than this run's (pgm.size). */
void pgm_check_ranks(const char *dir, const char *what);

/* ---- mpi_state.c ---- */
/* Wall clock, seconds since the epoch (the logs' t). */
double pgm_now(void);
/* The number of the message of `tag` from rank `peer` on the
 * communicator named ctx (pgm_ctx_of) a receive takes (counts it when
 * take is 1; a probe only peeks); `peer` a world rank. */
int pgm_count(int peer, int tag, int ctx, int take);
/* The bytes of count items of type. */
int pgm_bytes_of(MPI_Datatype type, int count);
/* The predefined datatype sized last (size -1: none yet; mpi_state.c),
 * so that a program's sends of one type are sized without a call. */
extern struct pgm_last_type {
    MPI_Datatype type;
    int size;
} pgm_last_type;
static inline int pgm_bytes(MPI_Datatype type, int count)
{
    long long n;

    if (type != pgm_last_type.type || pgm_last_type.size < 0)
        return pgm_bytes_of(type, count);
    n = (long long)pgm_last_type.size * (count < 0 ? 0 : count);
    return n > 0x7fffffff ? 0x7fffffff : (int)n;
}
/* An MPI rank as an ltid, and back (MPI_ANY_SOURCE is -1). */
static inline int pgm_ltid_of(int rank)
{
    return rank < 0 ? -1 : rank + 1;
}
static inline int pgm_rank_of(int ltid)
{
    return ltid < 1 ? MPI_ANY_SOURCE : ltid - 1;
}
/* Ends the run: prints "pangaea: ltid N (rank R): WHY" and aborts every
 * rank with `code` (PGM_DIVERGED for a replay that diverged). */
#define PGM_DIVERGED 3
#define PGM_REFUSED 4
/* The note for pangaea (pg_mpi_env.h) that it prints after the run, its
 * exit status `code` unless 0: 0 when written whole, -1 (no directory, a
 * note of this rank there already). */
int pgm_leave_note(int code, const char *msg);
_Noreturn void pgm_die(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A rank of communicator comm as a world rank, which the logs name
 * (ltid - 1: pgm.base + its rank of MPI_COMM_WORLD; a spawn's remote
 * ranks: mpi_spawn.c; MPI_ANY_SOURCE and MPI_PROC_NULL stay as they
 * are); an intercommunicator no spawn made, or a rank of another job on
 * an intracommunicator (MPI_Intercomm_merge), ends the run naming
 * `call` (not recorded). */
int pgm_to_world_other(MPI_Comm comm, int rank, const char *call);
static inline int pgm_to_world(MPI_Comm comm, int rank, const char *call)
{
    /* inline: every send and receive asks (bench/mpi_insn.sh) */
    return rank < 0                  ? rank
           : comm == MPI_COMM_WORLD ? pgm.base + rank
                                    : pgm_to_world_other(comm, rank, call);
}
/* A world rank as a rank of comm: MPI_UNDEFINED if it is not in comm. */
int pgm_from_world_other(MPI_Comm comm, int world);
static inline int pgm_from_world(MPI_Comm comm, int world)
{
    unsigned r = (unsigned)(world - pgm.base);

    return world < 0 ? world
           : comm == MPI_COMM_WORLD && r < (unsigned)pgm.size
               ? (int)r
               : pgm_from_world_other(comm, world);
}

/* ---- mpi_isend.c ---- */
/* An MPI_Isend's request and its message id (its send's msgid), until
 * the program learns it completed; 0 for a request not remembered (a
 * handle remembered twice gives the newest). */
void pgm_isend_remember(const MPI_Request *req, int msgid);
int pgm_isend_msgid(const MPI_Request *req);
void pgm_isend_forget(const MPI_Request *req);

/* ---- mpi_persist.c ---- */
/* A persistent request the program made (MPI_Send_init, MPI_Recv_init:
 * mpi_start.c), as it made it, and what its real request asks for now
 * (a replay makes a receive's again with each start's recorded source
 * and tag). */
struct pgm_persist {
    MPI_Request req;           /* the handle the program holds */
    int recv;                  /* 1: MPI_Recv_init; 0: a send's init */
    void *buf;
    int count, peer, tag;      /* peer: a rank of comm, as given */
    MPI_Datatype type;
    MPI_Comm comm;
    int made_peer, made_tag;   /* a receive's real request asks for */
    MPI_Comm made_comm;
};
/* NULL for a handle that is none of them (MPI_REQUEST_NULL too). */
struct pgm_persist *pgm_persist_find(const MPI_Request *req);
void pgm_persist_add(const struct pgm_persist *p);
void pgm_persist_forget(const MPI_Request *req);

/* ---- mpi_chaos.c: -chaos (PANGAEA_CHAOS, a recording only) ---- */
/* At the start: pgm.chaos set if the run is perturbed (said on stderr). */
void pgm_chaos_start(void);
/* Before a wrapped call (PGM_SITE): a random delay, not at a repeat. */
void pgm_chaos_delay(void);
/* MPI_Recv about to ask for *source (MPI_ANY_SOURCE), tag: one of the
 * senders whose message has arrived, drawn. */
void pgm_chaos_pick(int *source, int tag, MPI_Comm comm);

/* ---- mpi_site.c ---- */
/* The id of the call site pgm.pc (its <site> written the first time), 0
 * if unknown. */
int pgm_site(void);
/* 1 if the call site at pc has its <site> written already. */
int pgm_site_known(void *pc);

/* ---- mpi_gate.c: -live (PANGAEA_LIVE, PANGAEA_HOLD) ---- */
extern struct pg_live_pos *pgm_live;
extern struct pg_live_ctl *pgm_live_ctl;
/* After MPI_Init, the rank's ltid known: maps its page of the live view
 * (under -hold, paused), if pangaea named a directory. */
void pgm_gate_start(void);
/* The slow path of PGM_GATE: run-to, breakpoints, pause and steps for the
 * program's call (pgm.pc) about to be made; waits while held.  peer: a
 * world rank, MPI_ANY_SOURCE, or PGM_GATE_NONE (a wait or a test: no one
 * peer); tag, size: -1 if none or unknown. */
#define PGM_GATE_NONE (-1000)
void pgm_gate(const char *call, int peer, int tag, int size);
/* The same for a receive on comm: recording, a wildcard one (peer
 * MPI_ANY_SOURCE) lists what it could take while held, and returns the
 * source the page chose (a rank of comm), else MPI_ANY_SOURCE. */
int pgm_gate_recv(const char *call, int peer, int tag, int size,
                  MPI_Comm comm);
/* -live, replaying: the rank waits in a receive for its recorded message
 * (on 1) or no longer (0); the view shows which message from the
 * recording (src/cli/live/live_snap.c). */
static inline void pgm_live_waiting(int on)
{
    if (pgm_live)
        pgm_live->waiting = on;
}
/* Before each wrapped call whose event the page shows, once its world
 * peer is known: with nothing set, two loads and no call. */
#define PGM_GATE(call, peer, tag, size)                                     \
    do {                                                                    \
        if (pg_live_on(pgm_live, pgm_live_ctl))                             \
            pgm_gate((call), (peer), (tag), (size));                        \
    } while (0)

/* ---- mpi_force.c: a what-if rank (PANGAEA_MODE=whatif) ---- */
/* After its new logs are open: reads the plan; 1 if the rank follows its
 * old log first (pgm.mode is then PGM_REPLAY, pgm.rd open), 0 if it
 * records freely from the start. */
int pgm_force_start(void);
/* The path of the old log a what-if rank follows (for its postings). */
const char *pgm_force_old_log(void);
/* At MPI_Finalize: a forced receive still armed (the program ended
 * without making it) ends the run as a divergence, named. */
void pgm_force_unreached(void);
/* Each event the replay reader gives (sites and polls too). */
void pgm_force_seen(const pg_event *ev);
/* After pgm.next was read: at the rank's stop, the old log is closed and
 * the rank records freely (PGM_LOG), the forced receive armed; read
 * within a call (a stop between MPI_Sendrecv's halves), at the next call
 * (pgm_call_hooks) or MPI_Finalize (pgm_force_boundary). */
void pgm_force_next(void);
void pgm_force_boundary(void);
/* At the start of a wrapped call (PGM_SITE), when pgm.hooks is set. */
void pgm_call_hooks(void);
/* A followed poll found nothing (its call site, for the copy). */
void pgm_force_miss(void);
/* The followed event just done, written into the new log. */
void pgm_force_copy(void);
/* MPI_Recv or MPI_Iprobe (call, as the log names it) about to ask MPI for
 * *source, *tag: the forced one asks for the chosen message's sender and
 * tag instead, and 1 is returned (a forced probe waits for it). */
int pgm_force_pick(const char *call, int *source, int *tag);
/* MPI_Waitany, MPI_Testany, MPI_Waitsome or MPI_Testsome (`made`) about
 * to report a completion: at a forced completion of MPI_Irecv (a race
 * of such a call, format 8's rivals), 1, with the chosen message's
 * sender ltid and tag and the posting the recording completed there
 * (*recorded), which the call must not complete now; else 0. */
int pgm_force_completion(const char *made, int *from, int *tag,
                         int *recorded);
/* Before an event is recorded: the forced receive must come first. */
void pgm_force_check(void);

/* ---- mpi_crash.c ---- */
/* A recording rank that dies of a crash's signal pushes its logs out
 * first (its <crash> and <end> in the execution log). */
void pgm_crash_catch(void);

/* ---- mpi_stop.c: -replay -stop (PANGAEA_STOP), -debug ---- */
struct pgm_ev;
/* At the start of a replay: this rank's stop events. */
void pgm_stop_start(void);
/* The replay has done event e: stops the rank (SIGSTOP) if a stop is due,
 * saying where, with its pid. */
void pgm_stop_after(const struct pgm_ev *e);
/* At the rank's end (its last event, last): the stops never reached. */
void pgm_stop_unreached(long last);

/* ---- mpi_log.c ---- */
/* After PMPI_Init: opens the logs (record) or the recording (replay). */
void pgm_start(void);
/* At MPI_Finalize: the <end>; a replay checks it is the recording's. */
void pgm_finish(void);
/* Recording: a send to `peer` rank, a message taken (or found by a probe)
 * from `from` rank, a receive's poll that found nothing (a wait or test
 * of receives, a probe: `call` "MPI_Irecv" or "MPI_Iprobe", asking for
 * world rank asked_from, asked_tag), a test of sends only that found
 * none done.  Both count among the next event's misses (the replay's);
 * only a receive's poll is a <poll> (-races: it could have found a
 * message; a send's test takes none). */
void pgm_log_send(const char *call, int peer, int tag, int msgid,
                  int bytes);
void pgm_log_recv(const char *call, int from, int tag, int msgid, int bytes,
                  int asked_from, int asked_tag);
void pgm_log_miss(const char *call, int asked_from, int asked_tag);
void pgm_log_send_miss(void);
/* Recording: what a clock (MPI_Wtime, MPI_Wtick) returned; that the
 * program learned its send `msgid` completed, request `index` of its
 * call (PGM_SEND_DONE). */
void pgm_log_clock(const char *call, double value);
/* Recording: a <query> `call` about `about`, value 0 (the C library's
 * clocks: mpi_clock.c). */
void pgm_log_query(const char *call, const char *about);
void pgm_log_send_done(int index, int msgid);
#define PGM_SEND_DONE "MPI_Send_done"
/* Recording: MPI_Request_get_status found a request done (`kind` "recv"
 * or "send"), a <query> PGM_REQUEST_DONE: the misses before it are its
 * own, not those of the test or wait that completes the request later. */
void pgm_log_request_done(const char *kind);
#define PGM_REQUEST_DONE "MPI_Request_done"
/* Replay: what the program's k-th MPI_Irecv took when recorded; NULL if
 * it never completed then (or the log, older than format 6, does not
 * say: pgm.version). */
const struct pgm_post *pgm_posting(int k);
/* Replay: the next recorded event, which must be of `kind` made by one
 * of the calls in `calls` (NULL-ended); else the replay diverged (ends
 * the run naming the event and the call the program made).  A poll
 * (`poll` 1) that missed when recorded returns NULL: it misses now. */
const struct pgm_ev *pgm_expect(pg_ev_kind kind, const char *const *calls,
                                const char *made, int poll);
/* Replay: the event pgm_expect returned was done; on to the next. */
void pgm_advance(void);
/* Replay of a race-only recording (pangaea -min): 1 if the rank's next
 * event is one the recording left out (a send, or an MPI_Recv that did
 * not race): the program's call is made as it asks, unchecked, and then
 * counted with pgm_left_out_done (e: what it did, for -stop).  0 when the
 * next event is in the log (or the recording is whole): pgm_expect. */
static inline int pgm_left_out(void)
{
    /* a race-only log numbers its events as the full log did (the gap,
     * docs/comm-log-format.md): the events between the last one done and
     * the next one kept were left out; inline, asked at every event */
    return pgm.race_only && pgm.have_next && pgm.next.seq > pgm.acts + 1;
}
void pgm_left_out_done(const struct pgm_ev *e);

/* ---- mpi_p2p.c: what mpi_start.c shares of the message calls ---- */
/* A send about to be made (world rank `to`), `call` as the log names it,
 * `made` the program's call: replay checks it against the recording
 * (the event, NULL if left out of a race-only one, or recording); once
 * made, pgm_send_made counts it, remembers its request (NULL: blocking)
 * and logs or follows it. */
const struct pgm_ev *pgm_send_expect(const char *call, const char *made,
                                     int to, int tag);
void pgm_send_made(const char *call, int to, int tag, int bytes,
                   const MPI_Request *req, const struct pgm_ev *e);
/* Replay: the program's next MPI_Irecv posting (world rank `from`) is to
 * ask for *source (a rank of comm), *tag as recorded; 1 if it never
 * completed when recorded (to be posted on pgm.nowhere). */
int pgm_irecv_replay(MPI_Comm comm, int from, int *source, int *tag);
/* A receive was posted (request req, asking world rank `from`, tag): it
 * is the rank's next posting, completed by the waits and tests; and a
 * request freed before its completion. */
void pgm_irecv_posted(const MPI_Request *req, MPI_Comm comm, int from,
                      int tag, int never);
void pgm_irecv_forget(const MPI_Request *req);

#endif
