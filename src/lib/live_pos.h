/*
 * live_pos.h - where a replaying task is in its recording, published for
 * `pangaea -live` (the task writes, pangaea reads; see live_pos.c).
 */
#ifndef PG_LIVE_POS_H
#define PG_LIVE_POS_H

#include <stdint.h>

#define PG_ENV_LIVE "PANGAEA_LIVE" /* the directory of the position files */
#define PG_LIVE_MAGIC 0x50474c50u  /* "PGLP" */

/* One small file per task, DIR/ltid-N.pos, mapped shared.  seq: the
 * recorded events consumed (as the log numbers them); waiting: 1 while a
 * receive waits for its recorded message.  Each is one aligned store, so a
 * reader sees an old or a new value, never a torn one. */
struct pg_live_pos {
    uint32_t magic;
    int32_t ltid;
    volatile int64_t seq;
    volatile int32_t waiting;
    int32_t pad;
};

extern struct pg_live_pos *pg_live;

/* Maps DIR/ltid-N.pos when PANGAEA_LIVE names a directory (a replay under
 * -live); otherwise, or on any failure, pg_live stays NULL (a warning:
 * the live view then misses this task, the replay goes on). */
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

#endif
