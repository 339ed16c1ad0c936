/*
 * live_pos.h - where a task is, published for `pangaea -live` (the task
 * writes, pangaea reads; see live_pos.c), and the control block through
 * which pangaea holds it at a PVM call (gate.c; pangaea's side:
 * src/cli/live/live_ctl.c).  The block's layout and what the gate does
 * that knows no PVM are src/log/pg_live.h, shared with the MPI front end
 * (src/mpi/mpi_gate.c).
 */
#ifndef PG_LIVE_POS_H
#define PG_LIVE_POS_H

#include <stdint.h>

/* The files' layout, and the gate's part that knows no PVM (live_gate.c),
 * shared with the MPI front end. */
#include "pg_live.h"

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
        if (pg_live_on(pg_live, pg_live_ctl))                                  \
            pg_gate((call), __builtin_return_address(0), (peer_tid), (tag),    \
                    (size), __VA_ARGS__);                                      \
    } while (0)

#endif
