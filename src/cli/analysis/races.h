/*
 * races.h - the model of a recording, and `pangaea -races`: which
 * receives of a recorded run could have taken another message, and which.
 * From the logs alone.
 *
 *   races.c       the one model of a recording: every log of a directory
 *                 read once into flat arrays, every kind of event, each
 *                 receive matched to its send once; the analysis reads it
 *                 (rc_load), and so do the views (rc_load_view: the pages,
 *                 the exports, runlog.h's graph, which is derived from it)
 *   races_clock.c happened-before as vector clocks computed offline
 *                 (nothing was added to messages): program order, send ->
 *                 receive, spawn -> the child's first event, group joins
 *                 and leaves in their recorded turns, barriers, a task's
 *                 end -> its exit notice; memory linear in events
 *   races_find.c  the potential matches of every receive and failed poll
 *   races_out.c   the report (text grouped by site and senders, or JSON),
 *                 and the `-races` command
 *   src/pvm/runtime/site_name.c  call sites (object + offset) to file:line, libdw
 * The display (display.c) marks the races found here.
 */
#ifndef TOP_RACES_H
#define TOP_RACES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pg_err.h"
#include "pg_log.h"

/* One event of a task's communication log, as the analysis needs it:
 * 40 bytes (a recording of 10^8 events keeps 10^8 of them).  No time
 * stamp: spawns are placed as the logs are read (races.c). */
struct rc_ev {
    unsigned char kind;  /* PG_EV_* */
    unsigned char call;  /* index into pg_msg_calls (SEND/RECV/NOTICE/POLL) */
    unsigned short what : 2;    /* NOTICE (pg_notice_what: 1 to 3) */
    unsigned short matcher : 1;
    unsigned short ctx : 13;    /* SEND/RECV: the message's context as an
                                   index of the run's (rc_ctx_of), 0 the
                                   default; RC_CTX_ANY for the others */
    int site;            /* the task's site id, 0: none */
    int tag, from, msgid;
    union {
        int nto;         /* SEND: entries rc_run.msg[a .. a+nto-1];
                            a turn (rc_is_turn): its number, until linked */
        int afrom;       /* RECV/NOTICE/POLL/PROBE: asked for: -3 unknown
                            (logs of versions 1, 2) */
    };
    int atag;            /* asked for: -2 unknown */
    int a;               /* RECV/NOTICE: index of the message taken, -1;
                            SEND: first message entry; BARRIER: instance;
                            a turn: index into turns; ROUTE: value */
};                       /* its number in the log, and the failed polls
                            before it: rc_ev_seq, rc_ev_misses */

/* A context index that matches every context: a poll's or a notice's
 * (their logs do not say), and a run's contexts past the 8190th
 * (judged as before contexts were recorded: conservatively). */
#define RC_CTX_ANY 8191
/* Whether a receive in context index a could take a message of b. */
static inline int rc_ctx_match(int a, int b)
{
    return a == b || a == RC_CTX_ANY || b == RC_CTX_ANY;
}

/* A turn of a group's order (the coordinator's group_order.c): a join, a
 * leave, or the lookups of a collective or pvm_bcast (a <query>
 * "pvm_group_lookup" whose value is the turn); each waits for the turn
 * before it. */
static inline int rc_is_turn(const struct rc_ev *e)
{
    return (e->kind == PG_EV_GETTID || e->kind == PG_EV_LEAVE ||
            e->kind == PG_EV_QUERY) && e->a >= 0;
}

/* One message as delivered to one destination (a multicast is several),
 * or a notice taken by a receive. */
struct rc_msg {
    int src, dst;      /* task indexes; src -1: a notice (from the daemon) */
    int src_pos;       /* the send's event number in src (1-based); its
                          tag and msgid are the send's (rc_msg_tag) */
    int notice_of;     /* notice of an exit: the task that ended, -1 */
    int vcd;           /* the send's vector clock at dst: events of dst that
                          happen before the send */
    int snap;          /* the send's clock (rc_run.snaps), -1 none yet */
    int taken_pos;     /* event number in dst of the receive that took it
                          (probes do not take), 0: never taken */
    int next;          /* next message of the same src to the same dst */
};

struct rc_site {
    int module;        /* offset into rc_run.text */
    int offset;
};

/* A group a task made barriers on, and how many so far (races.c). */
struct rc_bgroup {
    int group, k;
};

struct rc_task {
    int ltid;
    int first, n;        /* events rc_run.ev[first .. first+n-1] */
    int parent, spawn_k; /* spawner (task index, -1) and how many of its
                            events came before the spawn */
    int spawn_snap;      /* the spawner's clock then, -1 until taken */
    int end_snap;        /* the clock at its last event, -1 until then */
    struct rc_site *sites;
    int nsites;
    struct rc_odd *odd;  /* its events by number that are not the one
                            before's number in the log + 1, or that
                            carry failed polls (rc_ev_seq, rc_ev_misses) */
    int nodd;
    size_t capodd;
    int cur;             /* events placed so far */
    struct rc_bgroup *bgroups; /* its barriers per group, as read */
    int nbgroups;
    long nread;          /* events of its comm log read (rc_grow_task) */
    char note[600];      /* why its logs are incomplete, "" if they are not */
};

/* An event of a task's (by its number, pos) whose number in the log is
 * not the one before's + 1 (a race-only log's gap, a record not kept as
 * an event: a call site), or that carries failed polls: most events are
 * neither, so they keep neither (8 bytes an event less). */
struct rc_odd {
    int pos, seq, misses;
};

struct rc_turn {         /* one join or leave of a group, in turn order */
    int task, pos, snap, prev; /* prev: the turn before (index), -1 */
};

/* What a task learnt directly (races_clock.c): task `task` made `pos`
 * events, and knew then what its snapshot `snap` says (-1: nothing). */
struct rc_dent {
    int task, pos, snap;
};

/* What a task knew at one point: `pos` events of its own, what its
 * snapshot `prev` knew, and the entries run->dents[first .. first+n-1]
 * it learnt since. */
struct rc_snap {
    int pos, prev, n;
    long first;
};

struct rc_barrier {      /* the k-th pvm_barrier on a group */
    int group, k;        /* group: offset into text */
    int need, arrived;   /* participants (tasks with that barrier), so far */
    int snap;            /* the join of their clocks once all arrived */
    struct rc_dent *who; /* each participant's clock at its arrival */
};

/* A group's barriers: instance (index into rc_run.bars) by k (races.c). */
struct rc_bindex {
    int group;
    int *inst, n;
    size_t cap;
};

/* An MPI_Irecv's completion (format 6's posting): its task, posting
 * number and event; and a rival of one (format 8): another posting still
 * pending in the MPI_Waitany, Testany, Waitsome or Testsome that reported
 * the completion at (task, pos), which MPI could have completed first. */
struct rc_post {
    int task, posted, pos;
};

struct rc_run {
    char dir[4096];
    struct rc_task *tasks;
    int ntasks;
    struct rc_ev *ev;
    int nev;
    size_t cap_ev;
    struct rc_msg *msg;
    int nmsg;
    size_t cap_msg;
    struct rc_turn *turns;
    int nturns;
    size_t cap_turns;
    struct rc_barrier *bars;
    int nbars;
    size_t cap_bars;
    struct rc_bindex *bindex; /* each group's barriers by k */
    int nbindex;
    size_t cap_bindex;
    char *text;          /* interned strings: modules, groups */
    int ntext;
    size_t cap_text;
    struct rc_snap *snaps; /* clocks, as chains of what was learnt */
    size_t nsnaps, cap_snaps;
    struct rc_dent *dents;
    size_t ndents, cap_dents;
    int cycles;          /* dependencies broken (inconsistent logs) */
    int clocked;         /* the clocks are computed (rc_find needs them) */
    struct rc_view *view; /* what only the views need, or NULL (rc_load) */
    struct rc_grow *grow; /* a model that grows (rc_grow_begin), or NULL */
    long receives;       /* receives and failed polls examined */
    struct rc_ctxslot { int ctx, index; } *ctx_slot; /* the contexts
                            seen (pg_event.ctx) and their indexes: open
                            addressing, RC_CTX_SLOTS; NULL while every
                            one was 0 (races.c, ctx_index) */
    int nctx;            /* contexts other than 0 indexed so far */
    struct rc_post *posts; /* every MPI_Irecv completion with a posting,
                            sorted by task and posting once rivals need
                            them (races_find.c) */
    struct rc_post *rivals; /* format 8: (task, pos of the completion,
                            posting of a rival), sorted by task and pos */
    size_t nposts, cap_posts, nrivals, cap_rivals;
    int posts_sorted;
    long unreplayed;     /* calls Pangaea does not replay (wrap_named.c) */
    char unreplayed_calls[256]; /* their names, each once, ", " between */
};

/* A task as the views show it (rc_load_view). */
struct rc_vtask {
    char program[1024];
    char host[256];
    int ended;           /* an <end> was read (comm or exec log) */
    int status;          /* its status */
    int signal;          /* the signal it died of (its exec log's <crash>) */
    char crash_at[300];  /* where: the program's frame as file:line, or "" */
    char note[1100];     /* why its logs are incomplete, "" when they are not */
    pg_logr *live;       /* a grown model's reader of its comm log, kept
                            open between reads (rc_grow_task), or NULL */
    long live_n;         /* events that reader returned */
};

/* One pvm_spawn of a child whose logs are in the directory. */
struct rc_spawn {
    int task, child;     /* task indexes */
    double t;            /* the spawn's time, as recorded */
};

/* The columns only the views need, beside the analysis' arrays: an event's
 * time and size cost 12 bytes an event, which -races does not pay. */
struct rc_view {
    double *t;           /* per event: as recorded, seconds since the epoch */
    int *bytes;          /* per event: SEND/RECV: the message's size */
    int *waited;         /* per event: RECV: microseconds it waited for its
                            message (format 5; 0: not recorded); NULL
                            when no_waits */
    int no_waits;        /* the waits are not read in (rc_load_view_nowaits:
                            the event graph shows none) */
    int *to;             /* per message entry: the destination's ltid (its
                            dst is -1 when that task has no log) */
    size_t cap_t, cap_bytes, cap_waited, cap_to;
    struct rc_vtask *tasks; /* per task */
    struct rc_spawn *spawns; /* in the spawners' order, then log order */
    int nspawns;
    size_t cap_spawns;
    char unanalysable[700]; /* why -races would refuse these logs, or "" */
};

/* One race: a receive (or failed poll) and the messages it could take. */
struct rc_alt {            /* 4 bytes: a deep queue has many */
    unsigned msg : 31;       /* index into rc_run.msg */
    unsigned fifo_broken : 1; /* counted only because per-pair order is
                                 lost */
};
/* What the finder knows of an alternative as it hands its race over
 * (rc_found_alt): read from the receiver's senders it scans in order, so
 * a view that lists a deep queue's alternatives does not reach into
 * run->msg and the sends' events at a random place for each. */
struct rc_alt_of {
    int ltid;            /* the sender's ltid (a task's, >= 0); -1 a notice */
    int tag, msgid;      /* rc_msg_tag, rc_msg_msgid */
    int ev;              /* the send: index into run->ev; -1 a notice */
};
struct rc_race {            /* 32 bytes: every receive may race */
    int task, pos;       /* the receive: task index, event number */
    int took;            /* message it took, -1 (a failed poll) */
    int nalts;
    struct rc_alt *alts; /* into one array for all races (rc_find) */
    int out_of_order;    /* it took a sender's message while an earlier one
                            of that sender, which it accepts, was queued:
                            that one (index into rc_run.msg), or -1 */
    unsigned first : 1;  /* no other race happens before it */
    unsigned conservative : 1; /* judged without knowing the filter
                            (pvm_recvf's matcher, or a log of version 1
                            or 2) */
};

/* Loads dir (its ltid-N.comm.pgc and ltid-N.exec.xml) and computes the
 * clocks.  0, or -1 and err (a log that is malformed: exit 2). */
int rc_load(struct rc_run *run, const char *dir, pg_err *err);
/* The same without the clocks (message vcd unset; rc_find computes them
 * when asked): for rc_find_at with the receive's reach, as -whatif does,
 * and for what needs no clocks at all (-explore's orders). */
int rc_load_logs(struct rc_run *run, const char *dir, pg_err *err);
/* The same for the views: every task with a log (a comm log or an exec
 * log), run->view filled; a log that cannot be read, ends early or is
 * race-only is a note of its task (and view->unanalysable says so), not
 * an error; no clocks until rc_find.  -1 and err only when the directory
 * holds no log or memory runs out. */
int rc_load_view(struct rc_run *run, const char *dir, pg_err *err);
/* The same without the receives' waits (4 bytes an event the event
 * graph, runlog.h, never shows): view->waited stays NULL. */
int rc_load_view_nowaits(struct rc_run *run, const char *dir, pg_err *err);
void rc_free(struct rc_run *run);
/* The index (rc_ev.ctx) of the context a log names ctx, as the run's
 * events read so far gave it; -1 if none of them named it (the live
 * view names an MPI rank's pending messages by it: live_ctl.c). */
int rc_ctx_seen(const struct rc_run *run, int ctx);
/* A view's load of the tasks alone (-tasks): every task with a log, its
 * exec log read (run->view's tasks: program, host, end, crash; spawns;
 * each task's parent), no communication log read: the caller streams
 * them (rc_stream_comm).  0, or -1 and err as rc_load_view. */
int rc_load_tasks(struct rc_run *run, const char *dir, pg_err *err);
/* The model's reader of task ti's communication log: each event handed
 * to `each` as read (valid during the call) and none kept, but the call
 * sites (few: the task's rc_task.sites, for rc_site_name) and what the
 * views note (run->view: the header, the <end>, a log that ends early or
 * is race-only).  The loads read through it.  0; 1 when the log cannot
 * be opened (noted; a view goes on); -1 and err when `each` returns -1
 * (out of memory) or, without run->view, when the log does not read
 * through or is race-only. */
int rc_stream_comm(struct rc_run *run, int ti,
                   int (*each)(struct rc_run *, int, const pg_event *, void *),
                   void *arg, pg_err *err);

/* A model that grows as its logs are written (the live view): begun
 * empty with the views' columns, a task's comm log read past what the
 * model holds of it, the new events then placed among their tasks'.
 * It holds the events, sites, message entries, barriers and turns, and
 * view's columns (a task's header, its end); not matched, no spawns, no
 * clocks.  rc_grow_begin: 0, or -1 when out of memory.
 * rc_grow_task: reads ltid's log past its t->nread events (its task made
 * on first sight, in ltid order: *ti its index; a log still being
 * written ends at its last whole event: 0 and *cut, err saying so).  The
 * task's reader stays open (rc_vtask.live) and the next read resumes
 * where this one stopped, an event torn at the end read again whole: a
 * read costs the new events, not the log.  0;
 * -2 and err when the log cannot be opened (not written yet); -1 and err
 * when it does not read through, what came before kept.  Until rc_grow_place, the new events are not among their task's
 * (RC_EV does not reach them), though t->n counts them.
 * rc_grow_place: 0, or -1 when out of memory (nothing moved). */
int rc_grow_begin(struct rc_run *run, const char *dir);
int rc_grow_task(struct rc_run *run, int ltid, int *ti, int *cut, pg_err *err);
int rc_grow_place(struct rc_run *run);
/* Events the grown model's readers decoded or walked over, all reads
 * together: what its reading cost (about the events read, plus a block
 * of PG_BIN_BLOCK bytes a task and read, however long the logs). */
long rc_grow_decoded(const struct rc_run *run);
/* The model's counts for a BARRIER (its count) and an END (its status),
 * which ride in the event's tag. */
#define RC_BARRIER_COUNT(e) ((e)->tag)
#define RC_END_STATUS(e) ((e)->tag)
/* Computes the clocks (again), and for each race asked for (want[i]:
 * sorted by task, then event) sets want[i].first when it happens after
 * no race: none of task q's events from minpos[q] (its first race; 0:
 * none) on.  0, or -1 when out of memory. */
struct rc_race;
int rc_clocks_at(struct rc_run *run, struct rc_race *want, int nwant,
                 const int *minpos);
/* The same first marks from the clocks already computed (run->clocked),
 * without computing them again: a race is first when its task's
 * dependencies up to it (what its receives took, its turns, barriers,
 * its spawn) bring no news of another task's first race; news travels
 * with each snapshot as one bit (whether its task had heard of one), so
 * this is linear in the snapshots' entries, where the clocks are in the
 * entries that change (up to events x tasks).  A recording whose logs
 * could not all be placed in order (run->cycles) is asked of
 * rc_clocks_at.  0, or -1 when out of memory. */
int rc_firsts(struct rc_run *run, struct rc_race *want, int nwant,
              const int *minpos);
/* Up to this many tasks each task's clock is an array of ntasks, above
 * it a hash of what it knows (races_clock.c); the unit tests lower it. */
extern int rc_dense_max;
/* Whether tasks that need no walk through what they learn skip it
 * (races_clock.c, "lazy"); the unit tests turn it off to compare. */
extern int rc_lazy_clocks;
/* The event number pos of task t. */
#define RC_EV(run, t, pos) (&(run)->ev[(run)->tasks[t].first + (pos) - 1])
/* Event pos of task t: its number in its log (as -dump shows it), and
 * the failed polls its event carries (docs/comm-log-format.md). */
long rc_ev_seq(const struct rc_run *run, int t, int pos);
int rc_ev_misses(const struct rc_run *run, int t, int pos);

/* A message entry's tag and message id, kept once, in its send's event
 * (a notice: the notice event's tag, and id 0). */
static inline int rc_msg_tag(const struct rc_run *run, const struct rc_msg *m)
{
    return m->src >= 0 ? RC_EV(run, m->src, m->src_pos)->tag
                       : RC_EV(run, m->dst, m->taken_pos)->tag;
}

/* A message entry's context index: its send's (a notice's: any). */
static inline int rc_msg_ctx(const struct rc_run *run, const struct rc_msg *m)
{
    return m->src >= 0 ? RC_EV(run, m->src, m->src_pos)->ctx : RC_CTX_ANY;
}

static inline int rc_msg_msgid(const struct rc_run *run,
                               const struct rc_msg *m)
{
    return m->src >= 0 ? RC_EV(run, m->src, m->src_pos)->msgid : 0;
}

/* Message entry m as struct rc_alt_of says it. */
static inline struct rc_alt_of rc_alt_of_msg(const struct rc_run *run, int m)
{
    const struct rc_msg *x = &run->msg[m];

    return (struct rc_alt_of){
        x->src >= 0 ? run->tasks[x->src].ltid : -1, rc_msg_tag(run, x),
        rc_msg_msgid(run, x),
        x->src >= 0 ? run->tasks[x->src].first + x->src_pos - 1 : -1 };
}

/* The race the finder is handing over in this thread (rc_find_each and
 * its kin), and what it knows of its alternatives; NULL else. */
extern _Thread_local const struct rc_race *rc_found;
extern _Thread_local const struct rc_alt_of *rc_found_of;

/* Alternative i of race r: what the finder handed over with it while it
 * is being handed over, else read from the message entry (the same). */
static inline struct rc_alt_of rc_found_alt(const struct rc_run *run,
                                            const struct rc_race *r, int i)
{
    return rc_found == r && rc_found_of ? rc_found_of[i]
                                        : rc_alt_of_msg(run, r->alts[i].msg);
}

/* A race's message alternatives as runs (races_runs.c): a sender's
 * consecutive message ids first..last (of one tag, where asked). */
struct rc_run_of {
    int ltid, first, last, tag;
};
struct rc_change {            /* a sender whose runs changed: */
    int ltid;
    size_t at, n;            /* its runs now, run[at .. at+n) (n 0: gone) */
};
struct rc_runs {             /* one race's runs, sender by sender */
    struct rc_run_of *run;
    size_t n, cap;
    int task;                /* the race's task; -1: no race held */
    int nsenders;
    int ordered;             /* senders in rising ltid order */
    int nnotices;            /* the race's notices (rc_runs_of's first) */
    struct rc_change *chg;   /* rc_runs_as_change's, in ltid order */
    int nchg;
    size_t cap_chg;
};
/* The fewest senders a race written as changes has (races_runs.c). */
#define RC_RUNS_CHANGE_MIN 16
/* Race r's alternatives into s[0] (those not FIFO broken) and s[1] (FIFO
 * broken), as runs (by_tag: each of one tag); notices are not runs, but
 * counted (s[0].nnotices).  0, or -1 when out of memory.  r is the race
 * being handed over (rc_found_alt). */
int rc_runs_of(const struct rc_run *run, const struct rc_race *r, int by_tag,
               struct rc_runs s[2]);
/* Whether cur is written as its changes from prev: prev of the same task,
 * both in order, cur of RC_RUNS_CHANGE_MIN senders or more, a quarter of
 * them or fewer changed; if so they are cur->chg.  1, 0, or -1 when out
 * of memory. */
int rc_runs_as_change(const struct rc_runs *prev, struct rc_runs *cur);
void rc_runs_swap(struct rc_runs *a, struct rc_runs *b);
void rc_runs_free(struct rc_runs *s); /* and ready to be used again */

/* The matcher (races.c): item numbers by a 64-bit hash of their key
 * (rc_key of up to three ints); a key's items come out of its chain in
 * the order they were added, and the chain ends with -1.  The caller
 * compares keys: for (at = RC_INDEX_START; (i = rc_index_next(x, h, &at))
 * >= 0;) if (item i has the key) ... */
struct rc_index {
    int *slot;
    size_t mask;
};
#define RC_INDEX_START ((size_t)-1)
uint64_t rc_key(int a, int b, int c);
int rc_index_init(struct rc_index *x, size_t n); /* room for n items */
void rc_index_add(struct rc_index *x, uint64_t key, int item);
int rc_index_next(const struct rc_index *x, uint64_t key, size_t *at);
void rc_index_free(struct rc_index *x);

/* Finds the races (computing the clocks first if the load did not);
 * *races gets a malloc'd array, their alternatives one
 * array for all (races[0].alts; rc_races_free frees both).  Returns their
 * number, -1 when out of memory. */
int rc_find(struct rc_run *run, struct rc_race **races);
/* The same races without their alternatives: alts NULL, nalts at least
 * 1 and at most their number (the walk stops reading a receive's senders
 * once it knows the receive races), out_of_order not computed; task,
 * pos, took, conservative and first as rc_find's.  32 bytes a race,
 * where a race of a 1,000-task run has up to 999 alternatives.  rc_find_each then finds them again, in the same order,
 * and hands each to `each` with its alternatives (valid during the call)
 * and races[i]'s first mark, keeping none: a report streams them.  It
 * returns 0, or -1 when out of memory, when `each` returns -1, or when
 * the races found are not races' n (n 0: nothing is examined again). */
int rc_find_bare(struct rc_run *run, struct rc_race **races);
int rc_find_each(struct rc_run *run, const struct rc_race *races, int n,
                 int (*each)(struct rc_run *, const struct rc_race *, void *),
                 void *arg);
/* Every race handed to `each` as rc_find_each does, in the same order
 * (task, then event), but from one walk with no first pass (first is 0
 * in all), for a view that needs only how many alternatives each race
 * has (nalts): alts NULL, no rc_found_alt, out_of_order as rc_find's; a
 * deep queue's alternatives counted, not copied out.  Nothing is kept.
 * The races' number, or -1 when out of memory or when `each` returns
 * -1. */
/* rc_find_each in two walks at once, each in a thread of its own: races
 * [0, mid) handed to each(.., arg_lo) in order, races [mid, n) to
 * each(.., arg_hi) in order, the two in no order between them (each
 * callback sees only its own arg).  A report that merges what its two
 * halves gathered gets what one walk gives, in about half the time on
 * two cores.  Nothing of the run is written but its clocks (computed
 * first, if not yet) and its message chains (before the threads).  mid
 * 0 or n: one walk, in this thread.  0, or -1 as rc_find_each. */
int rc_find_each_split(struct rc_run *run, const struct rc_race *races, int n,
                       int mid,
                       int (*each)(struct rc_run *, const struct rc_race *,
                                   void *),
                       void *arg_lo, void *arg_hi);
int rc_find_counts(struct rc_run *run,
                   int (*each)(struct rc_run *, const struct rc_race *, void *),
                   void *arg);
/* rc_find_counts in two walks at once (as rc_find_each_split): the races
 * before the run's middle receive to each(.., arg_lo), the others to
 * each(.., arg_hi), each half's in order; run->receives is left as it
 * was.  The races' number, or -1. */
int rc_find_counts_split(struct rc_run *run,
                         int (*each)(struct rc_run *, const struct rc_race *,
                                     void *),
                         void *arg_lo, void *arg_hi);
void rc_races_free(struct rc_race *races, int n);
/* The race of receive (or failed poll) pos of task p alone, into *race
 * (its alts malloc'd; first not computed): 1, 0 when it is no race, -1
 * out of memory.  min: NULL (the clocks say which sends follow it), or
 * per task its first event the receive happens before (n+1: none; as
 * top_whatif_reach computes it), for a run loaded without clocks (it
 * overwrites the vcd of the messages to p: rc_find recomputes the clocks
 * afterwards).  The caller frees race->alts. */
int rc_find_at(struct rc_run *run, int p, int pos, const int *min,
               struct rc_race *race);
/* Whether event e is a receive as the finder counts and examines them
 * (run->receives): a receive, a notice taken, or a run of failed polls;
 * not an older MPI recording's failed tests of a send (log_table.h:
 * PG_MSG_CALL_ISEND), which take no message.  -min counts with it. */
int rc_examined(const struct rc_ev *e);
/* Every receive's race found again, task by task from its last receive
 * to its first, keeping none (-min decides a task's receives from the
 * last, and a deep queue's alternatives at 256 tasks are ~128 a race:
 * kept, they were tasks x events).  rc_back_open computes the clocks if
 * the load did not and the finder's lists (0, or -1 out of memory);
 * rc_back_at(b, p, pos, direct, race) examines receive (or notice, or
 * failed poll) pos of task p as rc_find would, direct saying whether p
 * routes direct there (a <route value="3"> before it): 1 and *race (its
 * alternatives valid until the next call, first not computed), 0 no
 * race, -1 out of memory.  Calls for a task go down its positions;
 * going up, or to another task, starts that task afresh (a pass over
 * its messages). */
struct rc_back;
int rc_back_open(struct rc_run *run, struct rc_back **b);
int rc_back_at(struct rc_back *b, int p, int pos, int direct,
               struct rc_race *race);
/* rc_back_at, but the receive's senders are read only until it is known
 * to race and reach(run, msg, fifo_broken, arg) has said 1 of one of its
 * alternatives (*reached 1): the race's alternatives are then those read
 * so far, its out_of_order not computed.  Where reach says 1 of none,
 * every alternative was read and offered to it (*reached 0).  A wildcard
 * receive's senders are read from the one reach last said 1 of, so the
 * alternatives may come in another order than rc_back_at's.  The return
 * value as rc_back_at's. */
int rc_back_until(struct rc_back *b, int p, int pos, int direct,
                  int (*reach)(const struct rc_run *, int msg,
                               int fifo_broken, void *),
                  void *arg, struct rc_race *race, int *reached);
void rc_back_close(struct rc_back *b);

/* "file.c:LINE", else "function+0xOFF", else "object+0xOFF", for site id
 * of task t; "" for site 0.  The buffer is the caller's. */
const char *rc_site_name(const struct rc_run *run, int t, int site, char *buf,
                         int size);
/* The last site named, kept (zeroed: none): a report's or a page's races
 * come a task at a time, most of a task's from one site, and a name is a
 * look into debug information (or a printf). */
struct rc_site_memo {
    int held, task, site;
    char name[600];
};
/* rc_site_name of site id `site` of task t, named only when it is not
 * the one m holds. */
const char *rc_site_memo_name(const struct rc_run *run, int t, int site,
                              struct rc_site_memo *m);
/* pg_site_name and pg_site_parts (pg_log.h, src/log/site_name.c): the
 * same for an object and an offset. */

/* PANGAEA_MEMSTATS=1 asks the analyses (-races, -min) and -tasks to print
 * what they kept and their peak resident set (the memory bounds of
 * tests/e2e/test_scaling.sh read it): rc_memstats says whether; the peak
 * resident set of this process so far (VmHWM), in KB, -1 unknown. */
int rc_memstats(void);
long rc_peak_kb(void);

/* `pangaea -races [-json|-jsonl] [LOGDIR]`: exit 0 none, 1 races, 2 bad input. */
int top_races(int argc, char **argv);
/* For the display: the races of a loaded directory; NULL when none or
 * the logs cannot be analysed (the graph is drawn without). */
int top_races_for_display(const char *dir, struct rc_run *run,
                          struct rc_race **races);

#endif
