/*
 * live_pos.h - where a task is, published for `pangaea -live` (the task
 * writes, pangaea reads; see live_pos.c), and the control block through
 * which pangaea holds it at a PVM call (gate.c; pangaea's side:
 * src/cli/live/live_ctl.c).
 */
#ifndef PG_LIVE_POS_H
#define PG_LIVE_POS_H

#include <stdint.h>

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
 * rest before each PVM call), pause (stop at every call), steps (calls to
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

/* A breakpoint: call ("pvm_send" or "send", "" any), ltid (the task
 * stopping), peer (ltid), tag, size (bytes); PG_LIVE_ANY matches all.  hits:
 * stop at the hits-th match only (0: at every match); count: the matches
 * so far (an atomic add by each task that matches): those of the task
 * named by ltid, or, with ltid any, of all tasks together. */
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

extern struct pg_live_pos *pg_live;
extern struct pg_live_ctl *pg_live_ctl;

/* Maps DIR/ltid-N.pos (and DIR/control) when PANGAEA_LIVE names a
 * directory (a run under -live); otherwise, or on any failure, pg_live
 * stays NULL (a warning: the live view then misses this task, the run goes
 * on).  Under PANGAEA_HOLD the task starts paused, unless the page said
 * "resume all" (all_go). */
void pg_live_pos_open(void);

static inline void pg_live_seq(long seq)
{
    if (pg_live)
        pg_live->seq = seq;
}

static inline void pg_live_waiting(int on)
{
    if (pg_live)
        pg_live->waiting = on;
}

/* The slow path of PG_GATE (gate.c): checks breakpoints, pause, steps
 * and run-to for the program's call about to be made (pc: where the
 * program called it; args: printf text of its main arguments, or NULL);
 * waits while held. */
void pg_gate(const char *call, void *pc, int peer_tid, int tag, int size,
             const char *args, ...);

/* Before every PVM call of the program, in PG_RETURN_REAL_UNLESS_AT
 * (pg_internal.h), which names the call by its row of pg_calls.def:
 * with nothing set, two loads and no call. */
#define PG_GATE(call, peer_tid, tag, size, ...)                                \
    do {                                                                       \
        if (pg_live && (pg_live->gate | (pg_live_ctl ? pg_live_ctl->nbp : 0)))  \
            pg_gate((call), __builtin_return_address(0), (peer_tid), (tag),    \
                    (size), __VA_ARGS__);                                      \
    } while (0)

#endif
