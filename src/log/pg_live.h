/*
 * pg_live.h - a task's control block for `pangaea -live` (step, pause,
 * run-to, breakpoints), as both front ends' tasks and pangaea share it:
 * the files' layout and the part of the gate that knows no front end
 * (live_gate.c).  PVM's side: src/pvm/runtime/live_pos.h and gate.c;
 * MPI's: src/mpi/mpi_gate.c; pangaea's: src/cli/live/live_ctl.c.
 */
#ifndef PG_LIVE_H
#define PG_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "pg_err.h"

#define PG_ENV_LIVE "PANGAEA_LIVE" /* the directory of the position files */
#define PG_ENV_HOLD "PANGAEA_HOLD" /* "1": wait before the first call   */
#define PG_LIVE_MAGIC 0x50474c50u  /* "PGLP" */
#define PG_LIVE_CTL_MAGIC 0x5047434cu /* "PGCL" */
#define PG_LIVE_CTL_FILE "control"
#define PG_LIVE_CANDS 16           /* queued messages shown at a receive */
#define PG_LIVE_BPS 16             /* breakpoints at once */
#define PG_LIVE_ANY INT32_MIN           /* a breakpoint field that matches all */

/* A message queued at a held receive that it could take (recording). */
struct pg_live_cand {
    int32_t bufid, tid, ltid, tag, bytes, msgid;
};

/* One small file per task, DIR/ltid-N.pos, mapped shared.  seq: the
 * recorded events consumed (as the log numbers them; a replay only);
 * waiting: 1 while a receive waits for its recorded message.  Each is one
 * aligned store, so a reader sees an old or a new value, never a torn one.
 *
 * The control block follows.  pangaea writes gate (nonzero: look at the
 * rest before each call), pause (stop at every call), steps (calls to
 * let through while paused: "step"), runto (stop once this many events
 * are done), choice (a recording: the queued message, by bufid, the held
 * receive takes).  The task writes the rest while it waits: held, and the
 * call it is about to make. */
struct pg_live_pos {
    uint32_t magic;
    int32_t ltid;
    volatile int64_t seq;
    volatile int32_t waiting;
    int32_t pad;
    /* written by pangaea */
    volatile int32_t gate, pause, steps, choice;
    volatile int64_t runto;
    /* written by the task */
    volatile int32_t held;   /* 1 while it waits before `call` */
    volatile int32_t ncand;  /* entries of cand (a held receive) */
    int32_t pid;             /* the real one, for `gdb -p` */
    int32_t peer, tag, size; /* peer ltid, -1 any; size -1 unknown */
    int64_t at;              /* events done before the held call: the
                                number of the last one, as -dump shows */
    int64_t next;            /* the held call's own event, if it makes one
                                (after any call-site or poll record) */
    uint32_t holds;          /* times it was held, so pangaea sees a new one */
    int32_t pad2;
    char call[24], why[64], site[200];
    char args[96];           /* its main arguments: "group g count 3" */
    struct pg_live_cand cand[PG_LIVE_CANDS];
};

/* A breakpoint: call ("pvm_send" or "send", "MPI_Recv" or "Recv"; ""
 * any), ltid (the task stopping), peer (ltid), tag, size (bytes);
 * PG_LIVE_ANY matches all.  hits: stop at the hits-th match only (0: at
 * every match); count: the matches so far (an atomic add by each task
 * that matches): those of the task named by ltid, or, with ltid any, of
 * all tasks together. */
struct pg_live_bp {
    int32_t id, ltid, peer, tag, size, hits;
    volatile int32_t count;
    int32_t pad;
    char call[24];
    char site[64]; /* FILE:LINE (the file's base name) or a function;
                      "" any */
};

/* DIR/control, one per run, mapped by pangaea (read-write) and each task:
 * nbp breakpoints, written by pangaea under its own lock (a task reads a
 * slot as it is, at worst one call before or after the change). */
struct pg_live_ctl {
    uint32_t magic;
    volatile int32_t nbp;
    struct pg_live_bp bp[PG_LIVE_BPS];
    /* "resume all" is the run's state, not only its tasks' so far: set,
     * a task starting under -hold starts running; "pause all" clears it. */
    volatile int32_t all_go;
};

/* ---- the task's side (live_gate.c) --------------------------------------- */

/* Maps DIR/ltid-N.pos, cleared, and DIR/control if pangaea made it (into
 * *ctl, else NULL); hold: the task starts paused unless the page said
 * "resume all".  The page, or NULL and err (the task then runs
 * unwatched). */
struct pg_live_pos *pg_live_map(const char *dir, int ltid, int hold,
                                struct pg_live_ctl **ctl, pg_err *err);

/* Whether the gate must look at a call: with nothing set, two loads. */
static inline int pg_live_on(const struct pg_live_pos *p,
                             const struct pg_live_ctl *ctl)
{
    return p && (p->gate | (ctl ? ctl->nbp : 0));
}

/* A call about to be made, as the gate sees it.  call: its name as the
 * page and breakpoints know it; pc: where the program called it; peer:
 * an ltid or -1; size: bytes or -1; at: the task's events done. */
struct pg_live_call {
    const char *call;
    void *pc;
    int ltid, peer, tag, size;
    long at;
};

/* The parts of the call site at pc (site_name.c's pg_site_parts of where
 * pc lies); 0, or -1 if unknown. */
typedef int (*pg_live_site_fn)(void *pc, char *file, int fsize, char *func,
                               int nsize, int *line);

/* Run-to, then the breakpoints (each counting its match; site: how a
 * call site is named, NULL: the object pc lies in), then pause and steps:
 * 1 when the call must wait (why: the reason, "" for -hold, pause or a
 * step), 0 when it goes on (a step taken). */
int pg_live_stops(struct pg_live_pos *p, struct pg_live_ctl *ctl,
                  const struct pg_live_call *c, pg_live_site_fn site,
                  char *why, size_t len);
/* The call the task waits before, for pangaea: next is the number its own
 * event will have, where the call site's text (" at f.c:12"), args its
 * main arguments; then held. */
void pg_live_publish(struct pg_live_pos *p, const struct pg_live_call *c,
                     long next, const char *why, const char *where,
                     const char *args);
/* Waits while paused and given no step, calling tick(arg) every 100 ms
 * (NULL: none); a step it goes on with is taken back. */
void pg_live_wait(struct pg_live_pos *p, void (*tick)(void *), void *arg);
/* The call goes on: no longer held. */
void pg_live_release(struct pg_live_pos *p);

#endif
