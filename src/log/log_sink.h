/*
 * log_sink.h - a memory-mapped log file (see log_sink.c).  The write and
 * close functions have the signatures of libxml2's output callbacks.
 */
#ifndef PG_LOG_SINK_H
#define PG_LOG_SINK_H

#include <stddef.h>

#include "pg_err.h"

typedef struct pg_sink pg_sink;

/* Defined here only so that the writer's per-event calls below inline
 * (a call each cost more than what they do); use the functions. */
struct pg_sink {
    int fd;
    char *map;      /* the window: file bytes [off, off + len) */
    size_t off, len;
    size_t used;    /* bytes written */
    size_t keep;    /* bytes from here on stay mapped (pg_sink_keep) */
    size_t populated; /* the window's pages before this are pre-faulted */
    size_t size;    /* the file's length meanwhile (zeros past `used`) */
    char path[4200];
    char why[8500];  /* why the last write failed, "" if none did */
};


pg_sink *pg_sink_open(const char *path, pg_err *err);
/* Appends len bytes; returns len, or -1 when the file cannot grow. */
int pg_sink_write(void *sink, const char *buf, int len);
/* Writing in place: a pointer to `need` writable bytes at the end of
 * what was written (zeros; valid until the next call here), or NULL when
 * the file cannot grow.  The caller stores the first byte last (a zero
 * there ends the data for a reader, whenever the task dies), then
 * pg_sink_commit(n) counts n of them as written. */
unsigned char *pg_sink_room_slow(pg_sink *s, size_t need);
static inline unsigned char *pg_sink_room(pg_sink *s, size_t need)
{
    if (s->used + need <= s->size && s->used + need <= s->off + s->len)
        return (unsigned char *)s->map + (s->used - s->off);
    return pg_sink_room_slow(s, need);
}
static inline void pg_sink_commit(pg_sink *s, size_t n)
{
    s->used += n;
}
/* Where byte `mark` (kept mapped: pg_sink_keep) is, to write it again:
 * format 4 stores a block's length at its start when it is sealed. */
unsigned char *pg_sink_at(const pg_sink *s, size_t mark);
/* Why the last write failed ("no space left on MOUNT while writing
 * FILE", ...), or NULL when none did or the reason is unknown. */
const char *pg_sink_why(const pg_sink *s);
/* Why writing path (open as fd) failed with errnum, for any writer of
 * logs: "no space left on MOUNT while writing FILE" for a full disk or
 * quota, else "cannot write FILE: REASON". */
void pg_write_why(int fd, const char *path, int errnum, char *out,
                  size_t size);
/* Cuts the file to what was written and closes it; 0 or -1. */
int pg_sink_close(void *sink);

/* Bytes written so far, and taking back what was written since `mark`
 * (zeroed, so a crash afterwards cannot leave them in the file).  Only the
 * last write may be taken back: the window still holds its start. */
static inline size_t pg_sink_tell(const pg_sink *s)
{
    return s->used;
}
void pg_sink_rewind(pg_sink *s, size_t mark);

/* Keeps the bytes from `mark` on mapped (the window starts no later than
 * there, growing as needed) so that pg_sink_data can read them back: the
 * binary writer checksums a whole block when it seals it. */
void pg_sink_keep(pg_sink *s, size_t mark);
const unsigned char *pg_sink_data(const pg_sink *s, size_t mark);

#endif
