/*
 * log_binr.h - what the two halves of the binary log reader share (not
 * for other files): the reader's state, a cursor over an event's bytes,
 * the varint helpers both use, and the calls between them.
 *
 * log_binr.c owns the file and its blocks (framing, CRCs, the header, the
 * API of log_bin.h); log_binr_event.c turns one event's bytes into a
 * pg_event and owns the reader's errors.  The split follows the format:
 * a block's framing changed once (format 4's length), an event's
 * encoding at every version.
 */
#ifndef PG_LOG_BINR_H
#define PG_LOG_BINR_H

#include <limits.h>

#include "log_bin.h"

#define ARENA (4 * PG_LOG_MAX_STR) /* strings of one event */

struct pg_br {
    char *path;
    const unsigned char *map;
    size_t size;
    size_t pos;      /* the next byte to decode */
    size_t block;    /* where the current block starts */
    size_t end;      /* where its events end: its trailer, or the data end */
    size_t dropped;  /* pages before this were given back (drop_behind) */
    int scanned;     /* the current block was checked: `end` is known */
    int open;        /* it has no trailer (its task died) */
    int last;        /* its trailer says the log was closed */
    long seq;        /* events returned */
    int ended;       /* the <end> event was returned: nothing may follow */
    int64_t last_us;
    int last_sent;
    int last_tag, last_bytes; /* of the last send or receive (version 2) */
    int version;     /* of the log's format: fields added later are absent */
    int min;         /* a race-only log: each event says how many events
                        were left out before it (its gap) */
    pg_idmap last_from;
    pg_bin_slot slot[PG_BIN_SLOTS]; /* format 4: predictions per site */
    int prev_site;   /* format 4: site of the last send or receive */
    int done, cut, failed;
    int retry;       /* the cut or failure was met while finding where a
                        block's data end: a log still being written may
                        read on there (pg_br_follow) */
    long decoded;    /* events decoded or walked over (pg_br_decoded) */
    size_t last_at, last_end; /* the last event returned at the end of
                        an open block's data (last_end 0: none yet), */
    uint32_t last_crc; /* and the CRC-32C of its bytes: its writer may
                        take it back (pg_bw_undo) */
    pg_err fail;
    char arena[ARENA];
    size_t used;
    int *to;
    size_t tocap;
    unsigned char fast[256]; /* by first byte: 1 + the kind of a send or
                                receive pg_brx_fast may take, else 0 */
};

/* What decoding leaves for apply(): the values stored as differences. */

struct raw {
    int64_t dt, dmsgid, tag, bytes; /* tag and bytes: as stored */
    uint64_t gap;                   /* race-only logs: events left out */
    int code, x;      /* format 4: the call, and whether a note follows */
    int site, matcher; /* the note, when x */
    int ctx;           /* the note's context (format 7), when x */
    uint64_t af, at;
};

struct cur {
    const unsigned char *p, *end;
    const char *why; /* set when decoding fails */
};

static inline int get_uv(struct cur *c, uint64_t *v, const char *what)
{
    size_t n;

    if (c->p < c->end && *c->p < 0x80) { /* most are one byte */
        *v = *c->p++;
        return 0;
    }
    if (c->end - c->p >= 2 && c->p[1] < 0x80) { /* times: often two */
        *v = (uint64_t)(c->p[0] & 0x7F) | (uint64_t)c->p[1] << 7;
        c->p += 2;
        return 0;
    }
    n = pg_get_uv(c->p, c->end, v);

    if (!n)
        return c->why = what, -1;
    c->p += n;
    return 0;
}

/* An int field: signed (zigzag) or not, within [lo, INT_MAX]. */
static inline int get_int(struct cur *c, int zig, long lo, int *out,
                          const char *what)
{
    uint64_t u;
    int64_t v;

    if (get_uv(c, &u, what))
        return -1;
    if (!zig && u > INT_MAX)
        return c->why = what, -1;
    v = zig ? pg_unzig(u) : (int64_t)u;
    if (v < lo || v > INT_MAX)
        return c->why = what, -1;
    *out = (int)v;
    return 0;
}

/* 1 if the first byte k is a send or receive (of version 3's kinds, with
 * its new fields, only in a log of version 3 or later). */
static inline int is_msg(const pg_br *r, int k)
{
    k &= 15;
    return k == PG_EV_SEND || k == PG_EV_RECV ||
           (r->version >= 3 && (k == PG_BIN_SEND_X || k == PG_BIN_RECV_X));
}

/* Marks r failed with "PATH: what" (kept: every later call returns it),
 * copies it to *err when err is given; -1. */
int pg_brx_fail(pg_br *r, pg_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A length-prefixed UTF-8 string into r's arena (log_binr_event.c). */
int pg_brx_get_str(pg_br *r, struct cur *c, const char **out);

/* Decodes the event at c->p into ev and raw, leaving c->p after it; -1
 * with c->why set when its bytes are not an event. */
int pg_brx_decode(pg_br *r, struct cur *c, pg_event *ev, struct raw *raw);

/* Turns the differences of raw into ev's values, now that ev is
 * returned; -1 (r failed) when one is out of range. */
int pg_brx_apply(pg_br *r, pg_event *ev, const struct raw *raw, pg_err *err);

/* Decodes and applies at once the common event at c->p (a send to one
 * task or a receive, notes predicted, no misses nor wait, short varints):
 * 1, ev filled and c->p after it; 0 (r, c and the predictions untouched)
 * for any other event, which pg_brx_decode and pg_brx_apply then take. */
int pg_brx_fast(pg_br *r, struct cur *c, pg_event *ev);
/* Fills r->fast once r's version and selection are known (the header),
 * from pg_bin_fast_on as it is then. */
void pg_brx_fast_init(pg_br *r);

#endif
