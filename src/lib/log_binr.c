/*
 * log_binr.c - reads a binary communication log (docs/comm-log-format.md,
 * formats 1 to 4) back one event at a time, from the event table.
 *
 * Design.  The file is mapped read-only (advised sequential, so pages
 * behind the reader can go): decoding is pointer arithmetic, and what the
 * reader allocates is bounded by the largest event, never by the log.
 * No event of a block is returned before the block is known good.  In
 * format 4 a sealed block starts with its length, so its CRC-32C is
 * checked and its events decoded in one pass; formats 1 to 3 (and a
 * format-4 block still open) are walked first to find where the block
 * ends (sends and receives by the lengths of their varints alone, the
 * rare other kinds decoded), then decoded.  So a corrupt block is named
 * (file, byte offset, the last good event) and everything before it has
 * been read normally.  A block with no trailer, whose data stop at a zero
 * byte or the end of the file, is the last one of a task that was killed
 * or crashed (every event is written first byte last, and that byte is
 * never zero): its events are returned, then "stops after event N" with
 * pg_br_cut() true.  Format 4's predictions (the slots of log_bin.h) are
 * replayed exactly as the writer made them, in apply().  Every value is
 * checked as it is decoded (ranges, lengths, UTF-8), so random bytes give
 * an error, never a crash or unbounded memory.
 */
#include "log_bin.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_table.h"

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
    pg_err fail;
    char arena[ARENA];
    size_t used;
    int *to;
    size_t tocap;
};

/* What decoding leaves for apply(): the values stored as differences. */
struct raw {
    int64_t dt, dmsgid, tag, bytes; /* tag and bytes: as stored */
    uint64_t gap;                   /* race-only logs: events left out */
    int code, x;      /* format 4: the call, and whether a note follows */
    int site, matcher; /* the note, when x */
    uint64_t af, at;
};

static int fail(pg_br *r, pg_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(pg_br *r, pg_err *err, const char *fmt, ...)
{
    char what[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->failed = 1;
    pg_err_set(&r->fail, "%s: %s", r->path, what);
    if (err)
        *err = r->fail;
    return -1;
}

/* ---- decoding one event ------------------------------------------------ */

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

static int get_str(pg_br *r, struct cur *c, const char **out)
{
    uint64_t len;
    char *s;

    if (get_uv(c, &len, "a string's length"))
        return -1;
    if (len >= PG_LOG_MAX_STR || len > (uint64_t)(c->end - c->p) ||
        r->used + len + 1 > ARENA)
        return c->why = "a string longer than the limit or the file", -1;
    if (!pg_log_text_ok((const char *)c->p, (size_t)len))
        return c->why = "a string that is not UTF-8 text", -1;
    s = r->arena + r->used;
    memcpy(s, c->p, (size_t)len);
    s[len] = 0;
    r->used += (size_t)len + 1;
    c->p += len;
    *out = s;
    return 0;
}

static int get_to(pg_br *r, struct cur *c, pg_event *ev)
{
    int n, i;

    if (get_int(c, 0, 0, &n, "a count of destinations"))
        return -1;
    if (n > PG_LOG_MAX_LIST)
        return c->why = "more destinations than the limit", -1;
    if ((size_t)n > r->tocap) {
        int *p = realloc(r->to, (size_t)n * sizeof *p);

        if (!p)
            return c->why = "out of memory", -1;
        r->to = p;
        r->tocap = (size_t)n;
    }
    for (i = 0; i < n; i++)
        if (get_int(c, 1, INT_MIN, &r->to[i], "a destination ltid"))
            return -1;
    ev->nto = n;
    ev->to = r->to;
    return 0;
}

static int get_field(pg_br *r, struct cur *c, const pg_field *f, int code,
                     pg_event *ev, struct raw *raw)
{
    int *v = PG_FIELD_PTR(ev, f, int);
    uint64_t u;

    switch (f->type) {
    case PG_FT_INT:
        return get_int(c, 1, INT_MIN, v, f->name);
    case PG_FT_COUNT:
        return get_int(c, f->optional, f->optional ? f->absent : 0, v,
                       f->name);
    case PG_FT_WHAT:
        if (get_int(c, 0, 0, v, f->name) || !pg_notice_name(*v))
            return c->why = "an unknown notice", -1;
        return 0;
    case PG_FT_MSGID:
        if (get_uv(c, &u, f->name))
            return -1;
        raw->dmsgid = pg_unzig(u);
        return 0;
    case PG_FT_STR:
        return get_str(r, c, PG_FIELD_PTR(ev, f, const char *));
    case PG_FT_CALL:
        if (code >= pg_n_msg_calls)
            return c->why = "an unknown call code", -1;
        ev->call = pg_msg_calls[code];
        return 0;
    case PG_FT_QCALL:
        if (code >= pg_n_query_calls)
            return c->why = "an unknown query code", -1;
        ev->call = pg_query_calls[code];
        return 0;
    case PG_FT_TO:
        return get_to(r, c, ev);
    default:
        return c->why = "a field no communication log has", -1;
    }
}

static int has_call(const pg_evdesc *d)
{
    int i;

    for (i = 0; i < d->nfields; i++)
        if (d->fields[i].type == PG_FT_CALL || d->fields[i].type == PG_FT_QCALL)
            return 1;
    return 0;
}

/* Every field of ev as absent; field by field, since a memset of the
 * whole struct (rep stos) cost more than the rest of decoding. */
static void clear_event(pg_event *ev)
{
    ev->seq = 0, ev->t = 0, ev->call = NULL, ev->tag = 0, ev->msgid = 0;
    ev->bytes = 0, ev->from = 0, ev->what = 0, ev->about = NULL;
    ev->value = 0, ev->nto = 0, ev->to = NULL, ev->program = NULL;
    ev->argc = 0, ev->argv = NULL, ev->flags = 0, ev->where = NULL;
    ev->count = 0, ev->nchild = 0, ev->child_ltid = NULL;
    ev->child_host = NULL, ev->status = 0, ev->group = NULL, ev->inst = 0;
    ev->order = 0, ev->misses = 0, ev->site = 0, ev->asked_from = -3;
    ev->asked_tag = -2, ev->matcher = 0, ev->module = NULL, ev->offset = 0;
}

/* The time varint after an event's first byte, and its misses: the low
 * bit says misses follow, the rest is the time's difference. */
static inline int get_head(const pg_br *r, struct cur *c, pg_event *ev,
                           struct raw *raw)
{
    uint64_t u;

    c->p++;
    if (get_uv(c, &u, "the time"))
        return -1;
    raw->dt = pg_unzig(u >> 1);
    if ((u & 1) && get_int(c, 0, 1, &ev->misses, "misses"))
        return -1;
    raw->gap = 0;
    if (r->min && (get_uv(c, &raw->gap, "the gap") || raw->gap > INT_MAX))
        return c->why = "the gap", -1;
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

/* Version 3's fields of a send (site) or receive (asked_from, asked_tag,
 * matcher, site), in the order of pg_events.def, as the table path reads
 * optional ones (zigzag, at least their `absent`). */
static int get_extra(struct cur *c, pg_event *ev)
{
    if (ev->kind == PG_EV_RECV &&
        (get_int(c, 1, INT_MIN, &ev->asked_from, "asked_from") ||
         get_int(c, 1, INT_MIN, &ev->asked_tag, "asked_tag") ||
         get_int(c, 1, 0, &ev->matcher, "matcher")))
        return -1;
    return get_int(c, 1, 0, &ev->site, "site");
}

/* Format 4's note of a send (site) or receive (site, asked_from and
 * asked_tag as pg_bin_ask codes, matcher), right after the head. */
static int get_note(struct cur *c, int kind, struct raw *raw)
{
    if (get_int(c, 0, 0, &raw->site, "site"))
        return -1;
    raw->af = raw->at = 0, raw->matcher = 0;
    if (kind == PG_EV_RECV &&
        (get_uv(c, &raw->af, "asked_from") || get_uv(c, &raw->at, "asked_tag") ||
         get_int(c, 0, 0, &raw->matcher, "matcher")))
        return -1;
    return 0;
}

/* The kinds on every message, decoded by compiled-in code rather than
 * from the table, for speed: their fields in the order of pg_events.def
 * (test_log_bin.c reads every field of both back). */
static int decode_msg(pg_br *r, struct cur *c, pg_event *ev,
                      struct raw *raw)
{
    int kind = *c->p & 15, code = *c->p >> 4, x = kind >= PG_BIN_SEND_X;
    uint64_t u;

    clear_event(ev);
    if (x)
        kind = kind == PG_BIN_SEND_X ? PG_EV_SEND : PG_EV_RECV;
    if (code >= pg_n_msg_calls)
        return c->why = "an unknown call code", -1;
    ev->call = pg_msg_calls[code];
    if (get_head(r, c, ev, raw))
        return -1;
    raw->code = code, raw->x = x;
    if (r->version >= 4 && x && get_note(c, kind, raw))
        return -1;
    if (kind == PG_EV_RECV && get_int(c, 1, INT_MIN, &ev->from, "from"))
        return -1;
    if (get_uv(c, &u, "tag"))
        return -1;
    raw->tag = pg_unzig(u);
    if (get_uv(c, &u, "msgid"))
        return -1;
    raw->dmsgid = pg_unzig(u);
    if (get_uv(c, &u, "bytes"))
        return -1;
    raw->bytes = (int64_t)u; /* version 1: a count; 2: zigzag, apply() */
    if (u > (uint64_t)INT64_MAX)
        return c->why = "bytes", -1;
    ev->kind = kind;
    if (kind == PG_EV_SEND && get_to(r, c, ev))
        return -1;
    return x && r->version < 4 ? get_extra(c, ev) : 0;
}

/* Decodes the event at c->p into ev and raw, leaving c->p after it. */
static int decode(pg_br *r, struct cur *c, pg_event *ev, struct raw *raw)
{
    const pg_evdesc *d;
    int code = *c->p >> 4, i;

    if (is_msg(r, *c->p))
        return decode_msg(r, c, ev, raw);
    d = pg_ev_desc(*c->p & 15);
    clear_event(ev);
    r->used = 0;
    if (!d || !(d->logs & PG_IN_COMM))
        return c->why = "an unknown event kind", -1;
    if (code && !has_call(d))
        return c->why = "a call code on an event without a call", -1;
    if (get_head(r, c, ev, raw))
        return -1;
    for (i = 0; i < d->nfields; i++) {
        if (d->fields[i].optional)
            *PG_FIELD_PTR(ev, &d->fields[i], int) = d->fields[i].absent;
        if (d->fields[i].since > r->version)
            continue; /* not in a log of this version: absent */
        if (get_field(r, c, &d->fields[i], code, ev, raw))
            return -1;
    }
    ev->kind = d->kind;
    return 0;
}

/* A send's or receive's tag and size: version 2 stores them as
 * differences from the last send's or receive's; 0 or -1 (out of range). */
static int apply_tag_bytes(pg_br *r, pg_event *ev, const struct raw *raw)
{
    int64_t tag = raw->tag, bytes = raw->bytes;

    if (r->version >= 2) {
        tag += r->last_tag;
        bytes = pg_unzig((uint64_t)raw->bytes) + r->last_bytes;
    }
    if (tag < INT_MIN || tag > INT_MAX || bytes < 0 || bytes > INT_MAX)
        return -1;
    ev->tag = r->last_tag = (int)tag;
    ev->bytes = r->last_bytes = (int)bytes;
    return 0;
}

/* An asked source or tag from its pg_bin_ask code; 0 or -1 (out of
 * range). */
static int unask(uint64_t code, int got, int none, int *out)
{
    int64_t v = code == 0 ? none : code == 1 ? got : pg_unzig(code - 2);

    if (v < INT_MIN || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* Format 4: a send's or receive's site (written, or the one predicted)
 * and, a receive's, its filter, then its tag and size from its site's
 * last ones; the predictions learn from it as the writer's did. */
static int apply_note(pg_br *r, pg_event *ev, const struct raw *raw)
{
    int *next = &r->slot[PG_BIN_SLOT(r->prev_site)].next[raw->code];
    int site = raw->x ? raw->site : *next;
    pg_bin_slot *s = &r->slot[PG_BIN_SLOT(site)];
    int64_t tag = s->tag + raw->tag;
    int64_t bytes = s->bytes + pg_unzig((uint64_t)raw->bytes);

    if (tag < INT_MIN || tag > INT_MAX || bytes < 0 || bytes > INT_MAX)
        return -1;
    if (raw->x && ev->kind == PG_EV_RECV)
        s->af = raw->af, s->at = raw->at, s->matcher = raw->matcher;
    ev->tag = s->tag = (int)tag;
    ev->bytes = s->bytes = (int)bytes;
    *next = r->prev_site = ev->site = site;
    if (ev->kind == PG_EV_RECV) {
        ev->matcher = s->matcher;
        if (unask(s->af, ev->from, -3, &ev->asked_from) ||
            unask(s->at, ev->tag, -2, &ev->asked_tag))
            return -1;
    }
    return 0;
}

/* Turns the differences into values, now that the event is returned. */
static int apply(pg_br *r, pg_event *ev, const struct raw *raw,
                 pg_err *err)
{
    int64_t us = r->last_us + raw->dt, id;

    if (raw->dt > (int64_t)1e18 || raw->dt < -(int64_t)1e18 ||
        us > (int64_t)1e18 || us < -(int64_t)1e18)
        return fail(r, err, "byte offset %zu: a time out of range (the last "
                    "good event is %ld)", r->pos, r->seq);
    ev->t = (double)us / 1e6;
    r->last_us = us;
    if ((ev->kind == PG_EV_SEND || ev->kind == PG_EV_RECV) &&
        (r->version >= 4 ? apply_note(r, ev, raw) : apply_tag_bytes(r, ev, raw)))
        return fail(r, err, "byte offset %zu: a tag, size or filter out of range "
                    "(the last good event is %ld)", r->pos, r->seq);
    if (ev->kind == PG_EV_SEND || ev->kind == PG_EV_RECV) {
        int *last = ev->kind == PG_EV_SEND
                    ? &r->last_sent : pg_idmap_ref(&r->last_from, ev->from);

        if (!last)
            return fail(r, err, "out of memory");
        id = (int64_t)*last + 1 + raw->dmsgid;
        if (id < INT_MIN || id > INT_MAX)
            return fail(r, err, "byte offset %zu: a message id out of range "
                        "(the last good event is %ld)", r->pos, r->seq);
        ev->msgid = *last = (int)id;
    }
    if (r->ended)
        return fail(r, err, "byte offset %zu: an event after the <end> "
                    "event %ld", r->pos, r->seq);
    r->ended = ev->kind == PG_EV_END;
    r->seq += (long)raw->gap;
    ev->seq = ++r->seq;
    return 0;
}

/* ---- blocks ------------------------------------------------------------ */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Skips the varint at p: where the next value starts, or NULL when it is
 * longer than a varint can be or runs past end. */
static inline const unsigned char *skip_uv(const unsigned char *p,
                                           const unsigned char *end)
{
    const unsigned char *stop = end - p > PG_BIN_VARINT_MAX
                                ? p + PG_BIN_VARINT_MAX : end;

    while (p < stop)
        if (!(*p++ & 0x80))
            return p;
    return NULL;
}

/* Skips the send or receive at c->p: only the lengths of its values are
 * looked at (the second pass decodes and checks them).  Version 3's kinds
 * have their new fields last: 4 of a receive, a send's site after its
 * list; version 4's note follows the head (v4: 1). */
static int skip_msg(struct cur *c, int min, int v4)
{
    const unsigned char *p = c->p + 1;
    int kind = *c->p & 15, k, x = kind >= PG_BIN_SEND_X;
    uint64_t n;
    size_t got;

    if (p >= c->end)
        return c->why = "the time", -1;
    if (x)
        kind = kind == PG_BIN_SEND_X ? PG_EV_SEND : PG_EV_RECV;
    /* time [misses] fields */
    k = (*p & 1) + min + (kind == PG_EV_RECV ? 5 + 4 * x : 4 + x * v4);
    while (k-- > 0 && p)
        p = skip_uv(p, c->end);
    if (p && kind == PG_EV_SEND) {
        if (!(got = pg_get_uv(p, c->end, &n)) || n > PG_LOG_MAX_LIST)
            return c->why = "a count of destinations", -1;
        for (p += got, n += (uint64_t)(x && !v4); n-- > 0 && p;)
            p = skip_uv(p, c->end);
    }
    if (!p)
        return c->why = "a value longer than a varint or the file", -1;
    c->p = p;
    return 0;
}

/* Walks the events from byte `from` without returning them, to where
 * they stop: a trailer byte, a zero or the end of the file (r->end).
 * Sends and receives are only skipped; the other kinds are decoded. */
static int walk(pg_br *r, size_t from, long *n, pg_err *err)
{
    struct cur c = { r->map + from, r->map + r->size, NULL };
    pg_event ev;
    struct raw raw;

    *n = 0;
    while (c.p < c.end && *c.p && *c.p != PG_BIN_SEAL &&
           *c.p != PG_BIN_LAST) {
        const unsigned char *at = c.p;

        if (is_msg(r, *c.p) ? skip_msg(&c, r->min, r->version >= 4)
                            : decode(r, &c, &ev, &raw))
            return fail(r, err, "byte offset %zu: corrupt or torn event "
                        "(%s) in the block at byte offset %zu; the last "
                        "good event is %ld", (size_t)(at - r->map), c.why,
                        r->block, r->seq);
        ++*n;
    }
    r->end = (size_t)(c.p - r->map);
    r->scanned = 1;
    return 0;
}

/* Formats 1 to 3: first pass over the block at r->block, where its
 * events end and whether its trailer and CRC are right.  Nothing is
 * returned yet. */
static int scan_block(pg_br *r, pg_err *err)
{
    const unsigned char *t;
    long n;

    if (walk(r, r->block, &n, err))
        return -1;
    t = r->map + r->end;
    r->open = r->end == r->size || !*t;
    if (r->open)
        return 0;
    if (r->size - r->end < 5 ||
        le32(t + 1) != pg_crc32(0, r->map + r->block, r->end + 1 - r->block))
        return fail(r, err, "byte offset %zu: the block there (events %ld to "
                    "%ld) fails its CRC: corrupt; the last good event is %ld",
                    r->block, r->seq + 1, r->seq + n, r->seq);
    r->last = *t == PG_BIN_LAST;
    return 0;
}

/* A block's length as the file holds it now: a reader of a log still
 * being written (the live view) may see a block sealed while it walks
 * it, its length stored before its trailer. */
static uint32_t len_now(const pg_br *r, size_t b)
{
    const volatile unsigned char *p = r->map + b;

    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int bad_length(pg_br *r, pg_err *err, uint32_t len)
{
    return fail(r, err, "byte offset %zu: the block there is corrupt: its "
                "length %u does not lead to its trailer; the last good "
                "event is %ld", r->block, len, r->seq);
}

/* Format 4: the block at r->block from its length, in one pass.  A sealed
 * one (its length L leads to a trailer byte) has its CRC-32C checked over
 * its first L bytes, and its events are then decoded up to the trailer.
 * An open one (L = 0: its task died, or the log is being written) is
 * walked to where its data stop; so is one whose trailer is not there yet
 * (the task died while sealing it), whose events must then end exactly
 * where L says. */
static int scan_block4(pg_br *r, pg_err *err)
{
    size_t b = r->block, d = b + PG_BIN_LEN, t;
    uint32_t len;
    long n;

    r->scanned = 1;
    if (r->size - b < PG_BIN_LEN) { /* the data end before the block */
        r->pos = r->end = r->size;
        r->open = 1;
        return 0;
    }
    len = le32(r->map + b);
    r->pos = d;
again:
    t = b + len - 1; /* the marker, when sealed */
    if (len == 0 || (len >= PG_BIN_TRAILER && (t >= r->size || !r->map[t]))) {
        if (walk(r, d, &n, err))
            return -1;
        r->open = 1;
        if (len == 0 && (r->end == r->size || !r->map[r->end]))
            return 0;
        if (len && r->end == (t < r->size ? t : r->size))
            return 0;
        if (len == 0 && (len = len_now(r, b)) != 0)
            goto again; /* sealed while we walked (a live view's read) */
        return bad_length(r, err, len);
    }
    if (len < PG_BIN_TRAILER ||
        (r->map[t] != PG_BIN_SEAL && r->map[t] != PG_BIN_LAST))
        return bad_length(r, err, len);
    if (r->size - t - 1 < 4 || le32(r->map + t + 1) !=
                               pg_crc32c(0, r->map + b, len))
        return fail(r, err, "byte offset %zu: the block there fails its CRC: "
                    "corrupt; the last good event is %ld", b, r->seq);
    r->end = t;
    r->open = 0;
    r->last = r->map[t] == PG_BIN_LAST;
    return 0;
}

/* Gives back the pages of the blocks already returned, every MiB: they
 * are never read again, and a mapped file's pages count in the task's
 * resident memory until unmapped, so a long replay would otherwise hold
 * its whole log (1.9x the memory at 10^6 messages in `make bench`). */
static void drop_behind(pg_br *r)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), to = r->block / page * page;

    if (to - r->dropped < (1u << 20))
        return;
    madvise((char *)r->map + r->dropped, to - r->dropped, MADV_DONTNEED);
    r->dropped = to;
}

/* At the end of a block's events: the data stop (a death), the log ends
 * (closed), or the next block starts. */
static int next_block(pg_br *r, pg_err *err)
{
    size_t i;

    if (r->open) {
        r->cut = 1;
        return fail(r, err, "stops after event %ld without closing: the task "
                    "was killed or crashed, or the file was cut", r->seq);
    }
    r->pos = r->end + 5;
    r->scanned = 0;
    r->block = r->pos;
    drop_behind(r);
    if (!r->last)
        return 1;
    for (i = r->pos; i < r->size; i++) /* zeros: closed but not yet cut */
        if (r->map[i])
            return fail(r, err, "byte offset %zu: content after the end of "
                        "the log", i);
    r->done = 1;
    return 0;
}

int pg_br_next(pg_br *r, pg_event *ev, pg_err *err)
{
    struct cur c;
    struct raw raw;
    int rc;

    if (r->failed) {
        if (err)
            *err = r->fail;
        return -1;
    }
    while (!r->done && (!r->scanned || r->pos == r->end)) {
        if (!r->scanned &&
            (r->version >= 4 ? scan_block4(r, err) : scan_block(r, err)))
            return -1;
        if (r->pos == r->end && (rc = next_block(r, err)) <= 0)
            return rc;
    }
    if (r->done)
        return 0;
    c = (struct cur){ r->map + r->pos, r->map + r->end, NULL };
    if (decode(r, &c, ev, &raw)) /* skipped in the first pass, not checked */
        return fail(r, err, "byte offset %zu: corrupt event (%s) in the "
                    "block at byte offset %zu; the last good event is %ld",
                    r->pos, c.why, r->block, r->seq);
    if (apply(r, ev, &raw, err))
        return -1;
    r->pos = (size_t)(c.p - r->map);
    return 1;
}

/* ---- the header -------------------------------------------------------- */

static int get_hstr(pg_br *r, struct cur *c, char *out, size_t size)
{
    const char *s;

    r->used = 0;
    if (get_str(r, c, &s))
        return -1;
    if (strlen(s) >= size)
        return c->why = "a name too long", -1;
    strcpy(out, s);
    return 0;
}

static int read_header(pg_br *r, pg_log_header *h, pg_err *err)
{
    struct cur c = { r->map + 4, r->map + r->size, NULL };
    size_t n;

    if (r->size < 5 || r->map[4] < PG_LOG_VERSION_MIN ||
        r->map[4] > PG_LOG_VERSION)
        return fail(r, err, "written by log format version %d, this Pangaea "
                    "reads versions %d to %d", r->size < 5 ? 0 : r->map[4],
                    PG_LOG_VERSION_MIN, PG_LOG_VERSION);
    r->version = r->map[4];
    c.p++;
    memset(h, 0, sizeof *h);
    if (get_int(&c, 0, 0, &h->ltid, "the ltid") ||
        get_hstr(r, &c, h->program, sizeof h->program) ||
        get_hstr(r, &c, h->host, sizeof h->host) ||
        get_hstr(r, &c, h->select, sizeof h->select))
        return fail(r, err, "a bad header (%s)", c.why);
    n = (size_t)(c.p - r->map);
    if (c.end - c.p < 4 ||
        le32(c.p) != (r->version >= 4 ? pg_crc32c : pg_crc32)(0, r->map, n))
        return fail(r, err, "a corrupt header (its CRC is wrong)");
    h->kind = PG_LOG_COMM;
    h->version = r->version = r->map[4];
    r->min = pg_log_race_only(h->select);
    r->pos = r->block = n + 4;
    return 0;
}

/* ---- the API ----------------------------------------------------------- */

int pg_br_is_binary(int fd)
{
    char magic[4];

    return pread(fd, magic, 4, 0) == 4 && !memcmp(magic, PG_BIN_MAGIC, 4);
}

pg_br *pg_br_open(const char *path, pg_log_header *hdr, pg_err *err)
{
    pg_br *r = calloc(1, sizeof *r);
    pg_log_header scratch;
    struct stat st;
    int fd;

    if (!r || !(r->path = strdup(path))) {
        free(r);
        pg_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 4 ||
        (r->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
                       0)) == MAP_FAILED) {
        r->map = NULL;
        fail(r, err, "cannot read it");
    } else {
        r->size = (size_t)st.st_size;
        madvise((void *)r->map, r->size, MADV_SEQUENTIAL);
        read_header(r, hdr ? hdr : &scratch, err);
    }
    if (fd >= 0)
        close(fd);
    if (r->failed) {
        pg_br_close(r);
        return NULL;
    }
    return r;
}

int pg_br_cut(const pg_br *r)
{
    return r && r->cut;
}

void pg_br_close(pg_br *r)
{
    if (!r)
        return;
    if (r->map)
        munmap((void *)r->map, r->size);
    pg_idmap_free(&r->last_from);
    free(r->to);
    free(r->path);
    free(r);
}
