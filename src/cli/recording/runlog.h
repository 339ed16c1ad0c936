/*
 * runlog.h - a recorded run as a graph, for the post-mortem modes of
 * `pangaea` (-display, -tasks, -export).
 *
 * The graph is a view of the recording's one model (races.h): the logs are
 * read and each receive matched to the send it took (the send in the log
 * of ltid `from` with that msgid; a multicast's send has several
 * receives) once, there; here every send and receive gets a flat record
 * and a logical (Lamport) position, so that whatever draws the run can
 * put a receive after its send whatever the clocks of the hosts said.
 */
#ifndef TOP_RUNLOG_H
#define TOP_RUNLOG_H

#include <stdio.h>

#include "pg_log.h"

struct rc_run;

/* One send or receive.  Events of a task are contiguous in run->ev, in the
 * order the task made them; seq is the event's number in its log (other
 * kinds of event, call sites say, come between).  48 bytes: a page of
 * 10^7 events keeps 10^7 of them beside the model (a send's receives are
 * its links, top_run_links_of; a receive's wait is the model's).  A send
 * has destinations and a receive a sender and a partner, never both: they
 * share their room (the graph has no other kind of event: pg_events.def's
 * message kinds), so read a receive's partner through top_run_partner. */
struct top_event {
    double t;     /* as recorded: seconds since the epoch */
    int task;     /* index into run->tasks */
    int tag, msgid, bytes;
    union {
        int from; /* RECV: the sender's ltid */
        int to;   /* SEND: run->to[to .. to+nto-1] are the destinations */
    };
    union {
        int partner; /* RECV: index of the matched send, or -1 */
        int nto;     /* SEND */
    };
    int lam;      /* logical position: 1 + max(previous, partner send) */
    int seq;      /* its number in the log, as -dump shows it (the
                     model's, an int) */
    int site;     /* index into run->sites (its call site), or -1 */
    unsigned char kind; /* PG_EV_SEND or PG_EV_RECV */
    unsigned char call; /* index into run->calls (16 at most) */
};

struct top_task {
    int ltid;
    int parent;      /* ltid of the spawner, -1 if no log names one */
    char program[1024];
    char host[256];
    int ended;       /* an <end> was read (comm or exec log) */
    int status;      /* its status */
    int signal;      /* the signal it died of (its exec log's <crash>), or 0 */
    char crash_at[300]; /* where: the program's frame as file:line, or "" */
    int first, nev;  /* its events: run->ev[first .. first+nev-1] */
    int nsend, nrecv;
    char note[1100]; /* why its logs are incomplete, "" when they are not */
};

/* A call site apart (the page filters' tree: files, functions, lines). */
struct top_site {
    char file[256], func[256];
    int line;     /* 0: no line information */
};

/* One pvm_barrier a task returned from: not an event of the graph, but
 * where it lies among its task's events (the pages collapse the stretch
 * between two barriers). */
struct top_barrier {
    int task;     /* index into run->tasks */
    int before;   /* index of the task's first event after it (may be
                     its end: first + nev) */
    double t;     /* as recorded */
    int site;     /* index into run->sites, or -1 */
    int count;    /* the count it was called with */
    char group[64];
};

/* One task a pvm_spawn started (its parent's exec log's <spawn>): the
 * pages draw a line from the spawn to the child's first event. */
struct top_spawn {
    int task;     /* the spawner: index into run->tasks */
    int child;    /* the child: index into run->tasks (its logs exist) */
    double t;     /* the spawn's time, as recorded */
};

struct top_link {
    int send, recv;  /* event indexes: one line of the graph, one flow */
};

struct top_run {
    char dir[4096];
    struct top_task *tasks;  /* in ltid order */
    int ntasks;
    struct top_event *ev;
    int nev;
    int *to;                 /* destinations of all sends */
    int nto;
    struct top_link *links;  /* in send order, then receive order */
    int nlinks;
    const char *calls[16];   /* call names, interned */
    int ncalls;
    int nsends, nrecvs;
    int unmatched_sends;     /* destinations of a send no receive took */
    int unmatched_recvs;     /* receives whose send is not in the logs */
    size_t kept_sends;       /* -tasks: bytes of what it kept of the sends
                                (top_run_load_summary), counted */
    int cycles;              /* receives whose order had to be broken */
    double tmin;             /* earliest event time (0 when no event) */
    char **sites;            /* call sites, named ("file.c:LINE"...), each
                                once: site_name.c, when loaded */
    struct top_site *site_parts; /* the same sites as file, function, line */
    int nsites;
    struct top_barrier *barriers; /* in task order, then log order */
    int nbarriers;
    struct top_spawn *spawns; /* in the spawners' task order, then log order */
    int nspawns;
    struct rc_run *model;    /* the recording it was derived from (races.h),
                                NULL for a summary */
    int *graph_of;           /* per event of the model: its index in ev, -1 */
    int model_nev;           /* the model's events (a lean load, freed) */
    int no_races;            /* the logs cannot be analysed: -races would
                                refuse them (a lean load, freed) */
};

/* Loads the model of dir's logs (rc_load_view: each log read once, each
 * receive matched once), derives the graph from it and orders it; the
 * model stays in run->model for the races.  A log that ends early (a
 * task that crashed) keeps what it holds and a note.  0, or -1 and err
 * when the directory cannot be read or holds no log. */
int top_run_load(struct top_run *run, const char *dir, pg_err *err);
/* The same, lean (-display): the model is given back as the graph is
 * derived (each task's events once copied, the rest before the links are
 * made), so the two are never held whole together; run->model is NULL
 * after.  top_run_model loads it again, the analysis' own load (no view
 * columns), for the races once the graph's events are dropped: 0 (also
 * when the logs cannot be analysed: run->model stays NULL, no race is
 * drawn), or -1 and err (out of memory, the logs changed meanwhile). */
int top_run_load_lean(struct top_run *run, const char *dir, pg_err *err);
int top_run_model(struct top_run *run, pg_err *err);
void top_run_free(struct top_run *run);
/* Frees the graph's events, links and destinations (ev, links and to
 * NULL; their counts, the tasks, graph_of and the model stay): what a
 * view that has written them keeps no longer. */
void top_run_drop_events(struct top_run *run);
/* The same, for a summary (-tasks, tasks.c): every task with its counts
 * and only its last message event; the run's counts of what matched, as
 * the model matches (a receive takes the send of its sender and message
 * id that names its task); no links, no order, no model kept.  The logs
 * stream through the model's reader (rc_stream_comm) twice, no event
 * kept: the sends, then the receives matched against them.  Memory
 * about half a byte an event (each sender's point-to-point destinations
 * by message id: a byte a send below 254 tasks, 2 below 65,534, and a bit
 * whether one was taken); a multicast, or a send whose message id is out
 * of its sender's order, 16 bytes and 5 a destination. */
int top_run_load_summary(struct top_run *run, const char *dir, pg_err *err);
/* Task ti of the model m (loaded for a view) as the graph shows it: its
 * ltid, parent, program, host, end and note (not its events). */
void top_run_task_of(struct top_task *t, const struct rc_run *m, int ti);
/* The index of call in run->calls, interned (0 when the table is full
 * or memory runs out). */
int top_run_call(struct top_run *run, const char *call);

/* Gives every event its logical position, lam (lamport.c).  0, or -1
 * when out of memory. */
int top_run_order(struct top_run *run);
/* Index of the task of ltid, or -1. */
int top_run_task(const struct top_run *run, int ltid);
/* The links of send s are run->links[*first .. *first+n-1]; returns n. */
int top_run_links_of(const struct top_run *run, int s, int *first);
/* 1 if a receive matched to send s is in the task of ltid d. */
int top_run_taken(const struct top_run *run, int s, int d);
/* The same for a caller visiting sends in increasing order: *at is a
 * cursor into run->links (0 to begin; it only moves forward), left at
 * send s's first link; returns s's number of links, so that a walk over
 * every send costs the links, not a search each. */
int top_run_links_next(const struct top_run *run, int s, int *at);
/* Whether one of the links run->links[first .. first+n-1] (one send's)
 * ends in the task of ltid d. */
int top_run_taken_in(const struct top_run *run, int first, int n, int d);
/* 1 if the event is a send. */
int top_run_is_send(const struct top_event *e);
/* A receive's matched send (an index into run->ev), -1 for a receive
 * unmatched and for a send. */
static inline int top_run_partner(const struct top_event *e)
{
    /* inline: lamport.c (a layer below runlog.c) reads it too */
    return e->kind == PG_EV_RECV ? e->partner : -1;
}
/* "status N", or the reason no end was recorded. */
const char *top_run_ending(const struct top_task *t, char *buf, int size);

/* Writes s as a JSON string (quotes included), escaping what JSON and an
 * HTML <script> need, and replacing invalid UTF-8 with U+FFFD. */
void top_json_str(FILE *fp, const char *s);

/* The post-mortem modes (postmortem.c, tasks.c, perfetto*.c, display.c, json.c). */
int top_tasks_print(const struct top_run *run, FILE *fp);
/* Perfetto's protobuf trace of the logs in dir (perfetto.c: it reads
 * them itself, as a stream): 0; -1 and err when the logs cannot be read
 * (none, or a log changed while read); -2 and err when fp fails or
 * memory runs out. */
int top_export_perfetto(const char *dir, FILE *fp, pg_err *err);
/* The older trace JSON (perfetto_json.c).  0, or -1 when out of memory
 * or fp fails. */
int top_export_perfetto_json(const struct top_run *run, FILE *fp);
/* The page of the run at path (display.c).  A page in parts writes
 * every part's data first, then frees the graph's events, links and
 * destinations (top_run_drop_events) before it finds the races: run->ev
 * is NULL after it then. */
int top_display_write(struct top_run *run, const char *path, pg_err *err);
/* The races of the run (races.h) as the page's "races" (display_races.c).
 * For a part of a page in parts (top_display_races_split below), a
 * top_display_map: here gives an event's index in the part, or -1 and
 * the part it is in (a race whose receive is elsewhere is left out, an
 * alternative elsewhere is named in a note). */
struct rc_race;
struct top_display_map {
    int (*here)(const void *ctx, int e, int *part);
    const void *ctx;
};
/* Where the "races" records' integers go, as numbers (the page packs
 * them, display.c): begin and end around them, put each.  NULL: written
 * to fp as a JSON array, "races":[recv,first,...]. */
struct top_race_ints {
    void (*begin)(void *ctx);
    void (*put)(void *ctx, int v);
    void (*end)(void *ctx);
    void *ctx;
};
/* The records' integers read one by one (a packer that steps each
 * record's receive from the last one's): top_race_rec_step says whether
 * v starts a record, following its form (display_races.c); start from
 * a zeroed struct. */
struct top_race_rec {
    int state, edits;
    long left;
};
enum { TOP_REC_RECV, TOP_REC_FIRST, TOP_REC_SITE, TOP_REC_N, TOP_REC_NALTS,
       TOP_REC_LINES, TOP_REC_POS, TOP_REC_DEL, TOP_REC_INS, TOP_REC_PAIRS };
static inline int top_race_rec_step(struct top_race_rec *s, int v)
{
    int start = s->state == TOP_REC_RECV;

    switch (s->state) {
    case TOP_REC_PAIRS: /* most values: a pair's */
        if (--s->left == 0)
            s->state = s->edits ? TOP_REC_POS : TOP_REC_RECV;
        break;
    case TOP_REC_N: /* n >= 0: n pairs; -1 - m: m edits */
        s->edits = v < 0 ? -1 - v : 0, s->left = v < 0 ? 0 : 2L * v;
        s->state = v < 0 ? TOP_REC_NALTS : s->left ? TOP_REC_PAIRS
                                                   : TOP_REC_RECV;
        break;
    case TOP_REC_LINES:
        s->state = s->edits ? TOP_REC_POS : TOP_REC_RECV;
        break;
    case TOP_REC_INS:
        s->edits--, s->left = 2L * v;
        s->state = s->left ? TOP_REC_PAIRS
                   : s->edits ? TOP_REC_POS : TOP_REC_RECV;
        break;
    default: /* recv, first, site; nalts; pos, del */
        s->state++;
    }
    return start;
}
void top_display_races(FILE *fp, const struct top_run *run,
                       const struct top_race_ints *ints);
/* The same from races kept with their alternatives (top_run_races), for
 * one part (pm) or the whole run (pm NULL): the reference the streamed
 * writers are held to. */
void top_display_races_of(FILE *fp, const struct top_run *run,
                          const struct rc_race *r, int n,
                          const struct top_display_map *pm,
                          const struct top_race_ints *ints);
/* A page in parts (display.c): each part's races written as they are
 * found, into temporary files (top_display_races_split: one pass of the
 * finder over the bare races r for parts [k0, k1), each race to its
 * receive's part, how->part_of; how->map_of gives a part's map), so no
 * race's alternatives are kept; then top_display_races_part writes part
 * k's block (what top_display_races_of writes) from parts (i: k - k0), and
 * top_display_races_drop closes them.  0, or -1 when out of memory or a
 * temporary file cannot be written. */
struct top_race_part;
struct top_race_split {
    int (*part_of)(const void *ctx, int e);
    struct top_display_map (*map_of)(const void *ctx, int k);
    const void *ctx;
};
int top_display_races_split(const struct top_run *run, const struct rc_race *r,
                            int n, const struct top_race_split *how, int k0,
                            int k1, struct top_race_part **parts);
void top_display_races_part(FILE *fp, struct top_race_part *parts, int i,
                            const struct top_race_ints *ints);
void top_display_races_drop(struct top_race_part *parts, int n);
/* The races of a run loaded whole, found on its model; 0 (and *races
 * NULL) when there are none or the logs cannot be analysed (a race-only
 * log, a log that cannot be read): the views then go without. */
struct rc_race;
int top_run_races(const struct top_run *run, struct rc_race **races);
/* The same without their alternatives (nalts counted; rc_find_bare): 32
 * bytes a race, where a deep queue's race at 256 tasks has ~128
 * alternatives of 4 bytes (the Perfetto export names only their count). */
int top_run_races_bare(const struct top_run *run, struct rc_race **races);

#endif
