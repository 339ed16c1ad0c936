/*
 * log_binr_event.c - decodes one event of a binary communication log
 * (docs/comm-log-format.md, formats 1 to 7) into a pg_event, and the
 * reader's errors.  log_binr.c finds the events (blocks, CRCs) and calls
 * pg_brx_decode and pg_brx_apply on each.
 *
 * Design.  Decoding is split in two.  pg_brx_decode reads the bytes: the
 * kinds on every message (sends and receives) by compiled-in code, the
 * rare others field by field from the event table (pg_events.def); the
 * values stored as differences (time, message id, tag, size, and format
 * 4's predicted notes) are left in a struct raw.  pg_brx_apply turns them
 * into values only when the event is returned, since the first pass over
 * a block of formats 1 to 3 decodes its rare events without returning
 * them.  Every value is checked as it is decoded (ranges, lengths,
 * UTF-8): random bytes give an error, never a crash.
 */
#include "log_binr.h"

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"

int pg_brx_fail(pg_br *r, pg_err *err, const char *fmt, ...)
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

int pg_brx_get_str(pg_br *r, struct cur *c, const char **out)
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

/* Room for n ints in r->to, which a send's destinations and a receive's
 * rivals share (an event has one or the other). */
static int to_room(pg_br *r, struct cur *c, int n)
{
    int *p;

    if ((size_t)n <= r->tocap)
        return 0;
    if (!(p = realloc(r->to, (size_t)n * sizeof *p)))
        return c->why = "out of memory", -1;
    r->to = p;
    r->tocap = (size_t)n;
    return 0;
}

static int get_to(pg_br *r, struct cur *c, pg_event *ev)
{
    int n, i;

    if (get_int(c, 0, 0, &n, "a count of destinations"))
        return -1;
    if (n > PG_LOG_MAX_LIST)
        return c->why = "more destinations than the limit", -1;
    if (to_room(r, c, n))
        return -1;
    for (i = 0; i < n; i++)
        if (get_int(c, 1, INT_MIN, &r->to[i], "a destination ltid"))
            return -1;
    ev->nto = n;
    ev->to = r->to;
    return 0;
}

/* Format 8: an MPI_Irecv's rivals, after its posting: their number, then
 * each as a difference from the posting (in r->to: a recv has no <to>). */
static int get_rivals(pg_br *r, struct cur *c, pg_event *ev)
{
    int n, i, d;

    if (get_int(c, 0, 0, &n, "a count of rivals"))
        return -1;
    if (n > PG_LOG_MAX_LIST)
        return c->why = "more rivals than the limit", -1;
    if (to_room(r, c, n))
        return -1;
    for (i = 0; i < n; i++) {
        if (get_int(c, 1, INT_MIN, &d, "a rival") ||
            (int64_t)ev->posted + d < 1 || (int64_t)ev->posted + d > INT_MAX)
            return c->why = "a rival", -1;
        r->to[i] = ev->posted + d;
    }
    ev->nrivals = n;
    ev->rivals = n ? r->to : NULL;
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
        return pg_brx_get_str(r, c, PG_FIELD_PTR(ev, f, const char *));
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
    ev->order = 0, ev->misses = 0, ev->waited = 0, ev->site = 0;
    ev->posted = 0, ev->together = 0, ev->ctx = 0;
    ev->nrivals = 0, ev->rivals = NULL;
    ev->asked_from = -3;
    ev->asked_tag = -2, ev->matcher = 0, ev->module = NULL, ev->offset = 0;
}

/* The time varint after an event's first byte, its misses and (format
 * 5) a receive's wait: the low bit says misses follow, the next (format
 * 5) that a wait follows them, the rest is the time's difference
 * (pg_head_time). */
static inline int get_head(const pg_br *r, struct cur *c, pg_event *ev,
                           struct raw *raw)
{
    uint64_t u;
    int v5 = r->version >= 5;

    c->p++;
    if (get_uv(c, &u, "the time"))
        return -1;
    raw->dt = pg_unzig(u >> (v5 ? 2 : 1));
    if ((u & 1) && get_int(c, 0, 1, &ev->misses, "misses"))
        return -1;
    if (v5 && (u & 2) && get_int(c, 0, 1, &ev->waited, "waited"))
        return -1;
    raw->gap = 0;
    if (r->min && (get_uv(c, &raw->gap, "the gap") || raw->gap > INT_MAX))
        return c->why = "the gap", -1;
    return 0;
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
 * asked_tag as pg_bin_ask codes, matcher), right after the head; then,
 * format 7, the context of either. */
static int get_note(const pg_br *r, struct cur *c, int kind, struct raw *raw)
{
    if (get_int(c, 0, 0, &raw->site, "site"))
        return -1;
    raw->af = raw->at = 0, raw->matcher = 0, raw->ctx = 0;
    if (kind == PG_EV_RECV &&
        (get_uv(c, &raw->af, "asked_from") || get_uv(c, &raw->at, "asked_tag") ||
         get_int(c, 0, 0, &raw->matcher, "matcher")))
        return -1;
    return r->version >= 7 ? get_int(c, 0, 0, &raw->ctx, "ctx") : 0;
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
    if (r->version >= 4 && x && get_note(r, c, kind, raw))
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
    if (kind == PG_EV_RECV && code == PG_MSG_CALL_POSTED && r->version >= 6) {
        if (get_uv(c, &u, "posted") || (u >> 1) > INT_MAX)
            return c->why = "posted", -1;
        ev->posted = (int)(u >> 1), ev->together = (int)(u & 1);
        if (r->version >= 8 && get_rivals(r, c, ev))
            return -1;
    }
    return x && r->version < 4 ? get_extra(c, ev) : 0;
}

/* A query of code 15: pvm_hosts's, or, its about starting with "pvm_",
 * a call past 15 written with the escape (log_table.h). */
static int unescape(struct cur *c, pg_event *ev)
{
    const char *about;

    if (!pg_query_escaped_name(ev->about))
        return 0;
    if (!(about = pg_query_unescape(ev->about, &ev->call)))
        return c->why = "an unknown query call", -1;
    ev->about = about;
    return 0;
}

/* Decodes the event at c->p into ev and raw, leaving c->p after it. */
int pg_brx_decode(pg_br *r, struct cur *c, pg_event *ev, struct raw *raw)
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
    return d->kind == PG_EV_QUERY && code == PG_QUERY_ESCAPE ? unescape(c, ev)
                                                             : 0;
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
    if (raw->x)
        s->ctx = raw->ctx;
    ev->ctx = s->ctx;
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
int pg_brx_apply(pg_br *r, pg_event *ev, const struct raw *raw,
                 pg_err *err)
{
    int64_t us = r->last_us + raw->dt, id;

    if (raw->dt > (int64_t)1e18 || raw->dt < -(int64_t)1e18 ||
        us > (int64_t)1e18 || us < -(int64_t)1e18)
        return pg_brx_fail(r, err, "byte offset %zu: a time out of range (the last "
                    "good event is %ld)", r->pos, r->seq);
    ev->t = (double)us / 1e6;
    r->last_us = us;
    if ((ev->kind == PG_EV_SEND || ev->kind == PG_EV_RECV) &&
        (r->version >= 4 ? apply_note(r, ev, raw) : apply_tag_bytes(r, ev, raw)))
        return pg_brx_fail(r, err, "byte offset %zu: a tag, size or filter out of range "
                    "(the last good event is %ld)", r->pos, r->seq);
    if (ev->kind == PG_EV_SEND || ev->kind == PG_EV_RECV) {
        int *last = ev->kind == PG_EV_SEND
                    ? &r->last_sent : pg_idmap_ref(&r->last_from, ev->from);

        if (!last)
            return pg_brx_fail(r, err, "out of memory");
        id = (int64_t)*last + 1 + raw->dmsgid;
        if (id < INT_MIN || id > INT_MAX)
            return pg_brx_fail(r, err, "byte offset %zu: a message id out of range "
                        "(the last good event is %ld)", r->pos, r->seq);
        ev->msgid = *last = (int)id;
    }
    if (r->ended)
        return pg_brx_fail(r, err, "byte offset %zu: an event after the <end> "
                    "event %ld", r->pos, r->seq);
    r->ended = ev->kind == PG_EV_END;
    r->seq += (long)raw->gap;
    ev->seq = ++r->seq;
    return 0;
}

/* ---- the fused path of the common send and receive ------------------- */
/* Most events of a replayed log are a send to one task or a receive,
 * their notes predicted (kinds 0 and 1, not 13 and 14), with no misses,
 * no wait, outside a race-only log, each field a one-byte varint but the
 * time (one or two bytes): pg_brx_fast decodes and applies such an event
 * in one pass, from one 8-byte load of its bytes straight into ev, with
 * no struct raw between and no varint loop (what pg_brx_decode then
 * pg_brx_apply do for every event).  It takes only what it can finish:
 * anything else (another kind or call, a longer varint, a field out of
 * range, the end of the block's data within 8 bytes ...) returns 0 with
 * r and c untouched, and the general path decodes it, with its error
 * messages.  test_log_fast.c reads logs both ways and compares
 * (pg_bin_fast_on, log_bin.c). */

/* The formats whose common send and receive pg_brx_fast reads: 5 (a
 * receive's wait flag in the time) to 8.  A later format's events go the
 * general way until their layout is taught here (and to test_log_fast.c). */
#define FAST_FIRST 5
#define FAST_LAST 8

void pg_brx_fast_init(pg_br *r)
{
    int b, kind, code;

    for (b = 0; b < 256; b++) {
        kind = b & 15, code = b >> 4;
        r->fast[b] = (unsigned char)(
            pg_bin_fast_on && r->version >= FAST_FIRST &&
            r->version <= FAST_LAST && !r->min &&
            (kind == PG_EV_SEND || kind == PG_EV_RECV) &&
            code < pg_n_msg_calls && code != PG_MSG_CALL_POSTED
            ? kind + 1 : 0);
    }
}

/* Byte i of w, and the same as a zigzag varint's value. */
#define BYTE(w, i) ((w) >> (8 * (i)) & 0xFF)
#define ZBYTE(w, i) pg_unzig(BYTE(w, i))

int pg_brx_fast(pg_br *r, struct cur *c, pg_event *ev)
{
    const unsigned char *p = c->p;
    int kind = r->fast[*p] - 1, code = *p >> 4, t2, *last, site, af = -3;
    int at = -2;
    uint64_t w, f;
    int64_t us, tag, bytes, id, peer; /* peer: the source, or destination */
    pg_bin_slot *s;

    if (kind < 0 || r->ended || c->end - p < 9)
        return 0;
    memcpy(&w, p + 1, 8);
    w = le64toh(w);
    t2 = (int)(w >> 7 & 1); /* the time takes two bytes */
    f = w >> (8 * t2);      /* from the time's last byte on */
    if ((w & 3) || (f & (kind == PG_EV_SEND ? 0x808080808080u
                                            : 0x8080808080u)) ||
        (kind == PG_EV_SEND && BYTE(f, 4) != 1))
        return 0; /* misses or a wait (w & 3), a longer varint, a list */
    us = r->last_us + pg_unzig(((w & 0x7F) | (t2 ? BYTE(w, 1) << 7 : 0)) >> 2);
    site = r->slot[PG_BIN_SLOT(r->prev_site)].next[code];
    s = &r->slot[PG_BIN_SLOT(site)];
    if (kind == PG_EV_RECV) {
        peer = ZBYTE(f, 1), tag = s->tag + ZBYTE(f, 2);
        id = ZBYTE(f, 3), bytes = s->bytes + ZBYTE(f, 4);
        last = pg_idmap_ref(&r->last_from, (int)peer);
    } else {
        tag = s->tag + ZBYTE(f, 1), id = ZBYTE(f, 2);
        bytes = s->bytes + ZBYTE(f, 3), peer = ZBYTE(f, 5);
        last = &r->last_sent;
    }
    if (!last || tag < INT_MIN || tag > INT_MAX || bytes < 0 ||
        bytes > INT_MAX || us > (int64_t)1e18 || us < -(int64_t)1e18 ||
        (id += (int64_t)*last + 1) < INT_MIN || id > INT_MAX ||
        (kind == PG_EV_RECV &&
         (unask(s->af, (int)peer, -3, &af) || unask(s->at, (int)tag, -2, &at))) ||
        (kind == PG_EV_SEND && !r->tocap && to_room(r, c, 1)))
        return 0;
    /* From here on nothing fails: ev is filled and the predictions learn
     * the event as pg_brx_apply would have. */
    clear_event(ev);
    ev->kind = kind;
    ev->call = pg_msg_calls[code];
    ev->t = (double)us / 1e6;
    r->last_us = us;
    ev->ctx = s->ctx;
    ev->tag = s->tag = (int)tag;
    ev->bytes = s->bytes = (int)bytes;
    r->prev_site = ev->site = site;
    ev->msgid = *last = (int)id;
    if (kind == PG_EV_SEND) {
        r->to[0] = (int)peer;
        ev->nto = 1, ev->to = r->to;
    } else {
        ev->from = (int)peer;
        ev->matcher = s->matcher;
        ev->asked_from = af, ev->asked_tag = at;
    }
    ev->seq = ++r->seq;
    c->p = p + 6 + t2 + (kind == PG_EV_SEND);
    return 1;
}
