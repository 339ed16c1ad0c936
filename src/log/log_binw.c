/*
 * log_binw.c - writes a binary communication log, format 7
 * (docs/comm-log-format.md), one event at a time, from the event table.
 *
 * Design.  This runs on every send and receive, so those two are encoded
 * by compiled-in code straight into the memory-mapped file (log_sink.c:
 * one bounds check per event, no staging copy); the rare other kinds are
 * encoded into a stack buffer in one pass over their row of
 * pg_events.def and handed to the sink in one write.  Either way the
 * event's first byte is stored last, and that byte is never zero, so a
 * task killed at any instant leaves either the whole event or a zero
 * where it starts: the reader then stops there, after the last complete
 * event.  A block starts with a 4-byte length, zero while it is open; it
 * is sealed before the first event that would start past PG_BIN_BLOCK
 * bytes, never right after an event, so the event just written can still
 * be taken back (pg_logw_undo) without unsealing: its length is stored
 * first (one 4-byte store), then its trailer (marker and CRC-32C, taken
 * over the block as the file holds it), marker last.  A reader finds a
 * sealed block's end from its length, in one pass.
 * A send's call site and a receive's asked filter are written only when
 * they differ from what the reader predicts from the log so far (the
 * slots of log_bin.h); tags and sizes are predicted per site, and so is
 * a message's context (format 7): a run on one communicator or context
 * writes it once per site, the default one costs a byte per note.
 * Every field is checked before anything is written: a refused event
 * leaves the log as it was.
 */
#include "log_bin.h"

#include <endian.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"

struct pg_bw {
    pg_sink *sink;
    size_t start;      /* where the open block starts (its length field) */
    size_t block;      /* bytes of events in the open block */
    int64_t last_us;   /* time of the last event, microseconds */
    int last_sent;     /* message id of the last send */
    int prev_site;     /* call site of the last send or receive */
    pg_bin_slot slot[PG_BIN_SLOTS]; /* predictions per site */
    pg_idmap last_from; /* message id of the last receive, per sender */
    int broken;        /* a write failed: refuse everything from now on */
    int min;           /* a race-only log: each event says how many events
                          of the full log were left out before it */
    long seq, gap;     /* race-only: the last event's number, and the gap
                          the next one carries (pg_bw_seq) */
    struct {           /* as before the last event: pg_bw_undo */
        size_t at, block;
        long seq, gap;
        int64_t last_us;
        int last_sent, kind, from, from_id, prev_site;
        int full;              /* 0: a predicted note, which changed
                                  only the tag, size and last site */
        int *next, next_was;   /* the prediction the event changed */
        pg_bin_slot *slot;     /* its site's slot, and what it held */
        int tag, bytes, matcher, ctx;
        uint64_t af, asked_tag;
    } undo;
};

/* ---- checks ----------------------------------------------------------- */

static int field_ok(const pg_field *f, const pg_event *ev)
{
    const char *s;
    int v;

    switch (f->type) {
    case PG_FT_COUNT:
        v = *PG_FIELD_PTR(ev, f, const int);
        return f->optional ? v >= f->absent : v >= 0;
    case PG_FT_STR:
        s = *PG_FIELD_PTR(ev, f, const char *const);
        return s && strlen(s) < PG_LOG_MAX_STR && pg_log_text_ok(s, strlen(s));
    case PG_FT_CALL:
        return pg_log_call_known(ev->call);
    case PG_FT_QCALL:
        return pg_log_query_known(ev->call);
    case PG_FT_WHAT:
        return pg_notice_name(ev->what) != NULL;
    case PG_FT_TO:
        return ev->nto >= 0 && ev->nto <= PG_LOG_MAX_LIST &&
               (ev->nto == 0 || ev->to);
    case PG_FT_INT: case PG_FT_MSGID:
        return 1;
    case PG_FT_INTS:
        return ev->nrivals >= 0 && ev->nrivals <= PG_LOG_MAX_LIST &&
               (ev->nrivals == 0 || ev->rivals);
    default: /* exec-only types: not in a communication log */
        return 0;
    }
}

/* The bytes ev needs at most, or 0 if it cannot be written. */
static size_t check(const pg_evdesc *d, const pg_event *ev)
{
    size_t need = 5 * PG_BIN_VARINT_MAX; /* kind, time, misses, waited, gap */
    int i;

    if (!d || !(d->logs & PG_IN_COMM) || !isfinite(ev->t) ||
        fabs(ev->t) >= 1e12 || ev->misses < 0 || ev->waited < 0)
        return 0;
    for (i = 0; i < d->nfields; i++) {
        const pg_field *f = &d->fields[i];

        if (!field_ok(f, ev))
            return 0;
        need += PG_BIN_VARINT_MAX;
        if (f->type == PG_FT_STR)
            need += strlen(*PG_FIELD_PTR(ev, f, const char *const));
        if (f->type == PG_FT_TO)
            need += (size_t)ev->nto * PG_BIN_VARINT_MAX;
    }
    return need;
}

/* ---- encoding --------------------------------------------------------- */

/* The message id ev's sender was predicted to use next. */
static int64_t predicted(const pg_bw *w, const pg_event *ev)
{
    return (int64_t)(ev->kind == PG_EV_SEND ? w->last_sent
                     : pg_idmap_get(&w->last_from, ev->from)) + 1;
}

static size_t put_field(const pg_bw *w, unsigned char *p, const pg_field *f,
                        const pg_event *ev)
{
    const char *s;
    size_t n, len;
    int v = *PG_FIELD_PTR(ev, f, const int), i;

    switch (f->type) {
    case PG_FT_INT:
        return pg_put_uv(p, pg_zig(v));
    case PG_FT_COUNT: /* optional ones may hold their `absent` (-1) */
        return pg_put_uv(p, f->optional ? pg_zig(v) : (uint64_t)v);
    case PG_FT_WHAT:
        return pg_put_uv(p, (uint64_t)v);
    case PG_FT_MSGID:
        return pg_put_uv(p, pg_zig((int64_t)v - predicted(w, ev)));
    case PG_FT_STR:
        s = *PG_FIELD_PTR(ev, f, const char *const);
        len = strlen(s);
        n = pg_put_uv(p, len);
        memcpy(p + n, s, len);
        return n + len;
    case PG_FT_TO:
        n = pg_put_uv(p, (uint64_t)ev->nto);
        for (i = 0; i < ev->nto; i++)
            n += pg_put_uv(p + n, pg_zig(ev->to[i]));
        return n;
    default: /* CALL, QCALL: in the first byte */
        return 0;
    }
}

/* The call's code, for the high nibble of the first byte. */
static int call_code(const pg_event *ev)
{
    int c = pg_bw_call_code(ev->call);

    if (ev->kind == PG_EV_QUERY) { /* escaped already (pg_bw_put) */
        c = pg_call_index(pg_query_calls, pg_n_query_calls, ev->call);
        c = c > PG_QUERY_ESCAPE ? PG_QUERY_ESCAPE : c;
    }
    return c < 0 ? 0 : c;
}

/* Every field of the row is written, those version 3 added included:
 * the kinds that come here are rare (sends and receives do not). */
static size_t encode(const pg_bw *w, const pg_evdesc *d, const pg_event *ev,
                     unsigned char *p, int64_t us)
{
    size_t n = 1;
    int i;

    p[0] = (unsigned char)(call_code(ev) << 4 | d->kind);
    n += pg_put_uv(p + n, pg_head_time(us - w->last_us, ev->misses, ev->waited));
    if (ev->misses > 0)
        n += pg_put_uv(p + n, (uint64_t)ev->misses);
    if (ev->waited > 0)
        n += pg_put_uv(p + n, (uint64_t)ev->waited);
    if (w->min)
        n += pg_put_uv(p + n, (uint64_t)w->gap);
    for (i = 0; i < d->nfields; i++)
        n += put_field(w, p + n, &d->fields[i], ev);
    return n;
}

/* ---- writing ---------------------------------------------------------- */

static int write_bytes(pg_bw *w, const unsigned char *p, size_t n)
{
    if (pg_sink_write(w->sink, (const char *)p, (int)n) != (int)n) {
        w->broken = 1;
        return -1;
    }
    w->block += n;
    return 0;
}

/* Starts a block at the end of the file: its length field, zero (the
 * sink's fresh bytes are zeros) until the block is sealed. */
static int open_block(pg_bw *w)
{
    w->start = pg_sink_tell(w->sink);
    if (!pg_sink_room(w->sink, PG_BIN_LEN))
        return w->broken = 1, -1;
    pg_sink_commit(w->sink, PG_BIN_LEN);
    pg_sink_keep(w->sink, w->start);
    w->block = 0;
    return 0;
}

/* Ends the open block with `marker`: its length L (events + trailer)
 * first, in one store, then the trailer: the marker and the CRC-32C of
 * the block's first L bytes (length, events, marker), marker last.  A
 * task killed in between leaves a length whose marker is still zero,
 * which a reader takes as the end of the data (docs/comm-log-format.md).
 * The next block starts empty. */
static int seal(pg_bw *w, int marker)
{
    uint32_t len = (uint32_t)(w->block + PG_BIN_TRAILER), le = htole32(len);
    unsigned char *b = pg_sink_at(w->sink, w->start), m = (unsigned char)marker;
    unsigned char *p;
    uint32_t crc;
    int i;

    memcpy(b, &le, PG_BIN_LEN);
    crc = pg_crc32c(pg_crc32c(0, b, PG_BIN_LEN + w->block), &m, 1);
    if (!(p = pg_sink_room(w->sink, PG_BIN_TRAILER)))
        return w->broken = 1, -1;
    for (i = 0; i < 4; i++)
        p[1 + i] = (unsigned char)(crc >> (8 * i));
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *(volatile unsigned char *)p = m;
    pg_sink_commit(w->sink, PG_BIN_TRAILER);
    return marker == PG_BIN_SEAL ? open_block(w) : 0;
}

/* A query whose code is past 15 (PG_QUERY_ESCAPE): the same event, its
 * about written with the call's name in front, in buf.  NULL if the about
 * would be too long. */
static const pg_event *escaped(const pg_event *ev, pg_event *esc, char *buf,
                               size_t size)
{
    int c = pg_query_escape(ev->call, ev->about, buf, size);

    if (c < 0)
        return NULL;
    if (c == 0)
        return ev;
    *esc = *ev;
    esc->about = buf;
    return esc;
}

int pg_bw_put(pg_bw *w, const pg_event *ev)
{
    const pg_evdesc *d = pg_ev_desc(ev->kind);
    unsigned char small[256], *buf;
    size_t need, n;
    int64_t us;
    int rc;
    pg_event esc;
    char about[PG_LOG_MAX_STR];

    if (d && ev->kind == PG_EV_QUERY &&
        !(ev = escaped(ev, &esc, about, sizeof about)))
        return -1;
    need = check(d, ev);

    const pg_bw_extra x = { ev->site, ev->asked_from, ev->asked_tag,
                            ev->matcher, ev->waited, ev->posted,
                            ev->together, ev->ctx, ev->nrivals,
                            ev->rivals };

    if (d && ev->kind == PG_EV_SEND)
        return pg_bw_send(w, ev->t, pg_bw_call_code(ev->call), ev->misses,
                          ev->tag, ev->msgid, ev->bytes, ev->nto, ev->to, &x);
    if (d && ev->kind == PG_EV_RECV)
        return pg_bw_recv(w, ev->t, pg_bw_call_code(ev->call), ev->misses,
                          ev->from, ev->tag, ev->msgid, ev->bytes, &x);
    if (!w || w->broken || !need)
        return -1;
    if (w->block >= PG_BIN_BLOCK && seal(w, PG_BIN_SEAL) < 0)
        return -1;
    buf = need <= sizeof small ? small : malloc(need);
    if (!buf)
        return -1;
    us = llround(ev->t * 1e6);
    n = encode(w, d, ev, buf, us);
    w->undo.at = pg_sink_tell(w->sink);
    w->undo.block = w->block;
    w->undo.seq = w->seq, w->undo.gap = w->gap;
    rc = write_bytes(w, buf, n);
    if (rc == 0) { /* other kinds predict nothing but the time */
        w->undo.kind = ev->kind;
        w->undo.last_us = w->last_us;
        w->undo.next = NULL;
        w->undo.slot = NULL;
        w->last_us = us;
        w->seq += w->gap + 1;
        w->gap = 0;
    }
    if (buf != small)
        free(buf);
    return rc;
}

/* Takes back the last event: its bytes (zeroed) and everything it taught
 * the predictions, the race-only numbering included. */
void pg_bw_undo(pg_bw *w)
{
    pg_bin_slot *s = w->undo.slot;

    pg_sink_rewind(w->sink, w->undo.at);
    w->block = w->undo.block;
    if (w->min) /* only a race-only log numbers its events */
        w->seq = w->undo.seq, w->gap = w->undo.gap;
    w->last_us = w->undo.last_us;
    if (w->undo.kind != PG_EV_SEND && w->undo.kind != PG_EV_RECV)
        return;
    w->last_sent = w->undo.last_sent;
    w->prev_site = w->undo.prev_site;
    s->tag = w->undo.tag, s->bytes = w->undo.bytes;
    if (w->undo.full) {
        *w->undo.next = w->undo.next_was;
        s->af = w->undo.af, s->at = w->undo.asked_tag;
        s->matcher = w->undo.matcher;
        s->ctx = w->undo.ctx;
    }
    if (w->undo.kind == PG_EV_RECV &&
        pg_idmap_set(&w->last_from, w->undo.from, w->undo.from_id) < 0)
        w->broken = 1;
}

/* ---- the hot kinds: send and receive ---------------------------------- */
/* Every send and receive of a recorded program comes here, so these two
 * are encoded by compiled-in code rather than from the table (which the
 * unit tests hold them to: the same bytes as pg_bw_put), without a
 * pg_event to fill and clear, and the call named by the index of its
 * pointer: the callers pass the table's own strings or literals the
 * linker merged with them, so strcmp only runs for a stranger.  They are
 * encoded straight into the mapped file (pg_sink_room: one bounds check
 * per event, no staging copy), first byte last. */

int pg_bw_call_code(const char *call)
{
    int i;

    for (i = 0; i < pg_n_msg_calls; i++)
        if (call == pg_msg_calls[i])
            return i;
    return pg_call_index(pg_msg_calls, pg_n_msg_calls, call);
}

static inline unsigned char *put_uv(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* llround, inline: halves away from zero. */
static inline int64_t round_us(double x)
{
    return x < 0 ? -(int64_t)(0.5 - x) : (int64_t)(x + 0.5);
}

/* The time (and misses, a receive's wait, and a race-only log's gap) of
 * a send or receive, after its first byte; the caller checked them (a NaN
 * time fails fabs(t) < 1e12). */
static inline unsigned char *put_head(pg_bw *w, unsigned char *p, double t,
                               int misses, int waited, int64_t *us)
{
    *us = round_us(t * 1e6);
    p = put_uv(p, pg_head_time(*us - w->last_us, misses, waited));
    if (misses > 0)
        p = put_uv(p, (uint64_t)misses);
    if (waited > 0)
        p = put_uv(p, (uint64_t)waited);
    if (w->min)
        p = put_uv(p, (uint64_t)w->gap);
    return p;
}

/* Room for an event of at most `need` bytes at the end of the open block
 * (sealing it first when it is full), or NULL (the writer is broken). */
static inline unsigned char *room(pg_bw *w, size_t need)
{
    unsigned char *p;

    if (w->block >= PG_BIN_BLOCK && seal(w, PG_BIN_SEAL) < 0)
        return NULL;
    if (!(p = pg_sink_room(w->sink, need)))
        w->broken = 1;
    return p;
}

/* The event encoded at p + 1 .. end gets its first byte, stored last (a
 * task killed before leaves a zero there: the data end), and is counted
 * as written; the undo point is set before it. */
static void publish(pg_bw *w, unsigned char *p, unsigned char *end,
                    int first)
{
    size_t n = (size_t)(end - p);

    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *(volatile unsigned char *)p = (unsigned char)first;
    w->undo.at = pg_sink_tell(w->sink);
    w->undo.block = w->block;
    pg_sink_commit(w->sink, n);
    w->block += n;
    if (w->min) { /* race-only: the gap is used once */
        w->undo.seq = w->seq, w->undo.gap = w->gap;
        w->seq += w->gap + 1;
        w->gap = 0;
    }
}

int pg_bw_seq(pg_bw *w, long seq)
{
    if (!w || !w->min || seq <= w->seq)
        return -1;
    w->gap = seq - w->seq - 1;
    return 0;
}

/* Checks what a send or receive notes (pg_logw_note): 0 for a site,
 * matcher or context below its `absent`, which the reader would reject.
 * Asked only of a note that is written: a predicted one equals one
 * written before. */
static int note_ok(const pg_bw_extra *x)
{
    return !x || (x->site >= 0 && x->matcher >= 0 && x->ctx >= 0);
}

/* The slot of the note's site, and whether the note is what the reader
 * will predict (0) or must be written (1, kinds 13 and 14): the site that
 * followed the last send's or receive's site last time with this call,
 * and, a receive's, the filter its site had last time; and the context
 * its site had last time (format 7).  Loops repeat them, so most events
 * carry no note at all (docs/comm-log-format.md). */
static int note_differs(const pg_bw *w, int code, int site,
                        const pg_bin_slot *s, uint64_t af, uint64_t at,
                        int matcher, int ctx)
{
    return site != w->slot[PG_BIN_SLOT(w->prev_site)].next[code] ||
           af != s->af || at != s->at || matcher != s->matcher ||
           ctx != s->ctx;
}

/* What the predictions learn from a send or receive at `site` whose note
 * was predicted (note_differs 0): its site's successor, filter and
 * context stay as they are, so only its tag and size, the time and the
 * last site move, and only they are kept for pg_bw_undo: the common
 * event's path. */
static inline void learn_predicted(pg_bw *w, int kind, pg_bin_slot *s,
                                   int site, int tag, int bytes, int64_t us)
{
    w->undo.kind = kind;
    w->undo.full = 0;
    w->undo.last_us = w->last_us;
    w->undo.last_sent = w->last_sent;
    w->undo.prev_site = w->prev_site;
    w->undo.slot = s;
    w->undo.tag = s->tag, w->undo.bytes = s->bytes;
    w->prev_site = site;
    s->tag = tag, s->bytes = bytes;
    w->last_us = us;
}

/* learn_predicted() of an event whose note was written: the previous
 * site's successor, the site's filter and context learn it too, and are
 * kept for pg_bw_undo; the message ids are done by the callers. */
static void learn(pg_bw *w, int kind, int code, int site, int tag,
                  int bytes, uint64_t af, uint64_t at, int matcher,
                  int ctx, int64_t us)
{
    pg_bin_slot *s = &w->slot[PG_BIN_SLOT(site)];
    int *next = &w->slot[PG_BIN_SLOT(w->prev_site)].next[code];

    w->undo.next = next;
    w->undo.next_was = *next;
    w->undo.af = s->af, w->undo.asked_tag = s->at;
    w->undo.matcher = s->matcher;
    w->undo.ctx = s->ctx;
    *next = site;
    s->af = af, s->at = at, s->matcher = matcher;
    s->ctx = ctx;
    learn_predicted(w, kind, s, site, tag, bytes, us);
    w->undo.full = 1;
}

int pg_bw_send(pg_bw *w, double t, int code, int misses, int tag, int msgid,
               int bytes, int nto, const int *to, const pg_bw_extra *x)
{
    unsigned char *p, *q;
    int64_t us;
    int i, site = x ? x->site : 0, ctx = x ? x->ctx : 0, has;
    pg_bin_slot *s;

    if (!w || w->broken || code < 0 || code >= pg_n_msg_calls || bytes < 0 ||
        nto < 0 || nto > PG_LOG_MAX_LIST || (nto && !to) ||
        !(fabs(t) < 1e12) || misses < 0)
        return -1;
    s = &w->slot[PG_BIN_SLOT(site)];
    has = note_differs(w, code, site, s, 0, 0, 0, ctx);
    if ((has ? !note_ok(x) : x && x->matcher < 0) ||
        !(p = room(w, (9 + (size_t)nto) * PG_BIN_VARINT_MAX)))
        return -1;
    q = put_head(w, p + 1, t, misses, 0, &us);
    if (has) {
        q = put_uv(q, (uint64_t)site);
        q = put_uv(q, (uint64_t)ctx);
    }
    q = put_uv(q, pg_zig((int64_t)tag - s->tag));
    q = put_uv(q, pg_zig((int64_t)msgid - ((int64_t)w->last_sent + 1)));
    q = put_uv(q, pg_zig((int64_t)bytes - s->bytes));
    q = put_uv(q, (uint64_t)nto);
    for (i = 0; i < nto; i++)
        q = put_uv(q, pg_zig(to[i]));
    publish(w, p, q, code << 4 | (has ? PG_BIN_SEND_X : PG_EV_SEND));
    if (has) /* a send leaves the slot's filter as it was */
        learn(w, PG_EV_SEND, code, site, tag, bytes, s->af, s->at,
              s->matcher, ctx, us);
    else
        learn_predicted(w, PG_EV_SEND, s, site, tag, bytes, us);
    w->last_sent = msgid;
    return 0;
}

/* Format 8: an MPI_Irecv's rivals after its posting, their number and
 * each as a difference from the posting (they are near it). */
static unsigned char *put_rivals(unsigned char *q, const pg_bw_extra *x)
{
    int i, n = x ? x->nrivals : 0;

    q = put_uv(q, (uint64_t)n);
    for (i = 0; i < n; i++)
        q = put_uv(q, pg_zig((int64_t)x->rivals[i] - x->posted));
    return q;
}

int pg_bw_recv(pg_bw *w, double t, int code, int misses, int from, int tag,
               int msgid, int bytes, const pg_bw_extra *x)
{
    unsigned char *p, *q;
    int64_t us;
    int *last, site = x ? x->site : 0, matcher = x ? x->matcher : 0, has;
    int ctx = x ? x->ctx : 0;
    uint64_t af = x ? pg_bin_ask(x->asked_from, from, -3) : 0;
    uint64_t at = x ? pg_bin_ask(x->asked_tag, tag, -2) : 0;
    pg_bin_slot *s;

    if (!w || w->broken || code < 0 || code >= pg_n_msg_calls || bytes < 0 ||
        !(fabs(t) < 1e12) || misses < 0 ||
        (x && (x->waited < 0 || x->posted < 0 || x->nrivals < 0 ||
               x->nrivals > PG_LOG_MAX_LIST || (x->nrivals && !x->rivals))))
        return -1;
    s = &w->slot[PG_BIN_SLOT(site)];
    has = note_differs(w, code, site, s, af, at, matcher, ctx);
    if (has && !note_ok(x))
        return -1;
    if (!(last = pg_idmap_ref(&w->last_from, from)))
        return w->broken = 1, -1; /* out of memory */
    if (!(p = room(w, (15 + (size_t)(x ? x->nrivals : 0)) *
                         PG_BIN_VARINT_MAX)))
        return -1;
    q = put_head(w, p + 1, t, misses, x ? x->waited : 0, &us);
    if (has) {
        q = put_uv(q, (uint64_t)site);
        q = put_uv(q, af);
        q = put_uv(q, at);
        q = put_uv(q, (uint64_t)matcher);
        q = put_uv(q, (uint64_t)ctx);
    }
    q = put_uv(q, pg_zig(from));
    q = put_uv(q, pg_zig((int64_t)tag - s->tag));
    q = put_uv(q, pg_zig((int64_t)msgid - ((int64_t)*last + 1)));
    q = put_uv(q, pg_zig((int64_t)bytes - s->bytes));
    if (code == PG_MSG_CALL_POSTED)
        q = put_rivals(put_uv(q, x ? pg_bin_posted(x->posted, x->together)
                                   : 0), x);
    publish(w, p, q, code << 4 | (has ? PG_BIN_RECV_X : PG_EV_RECV));
    if (has)
        learn(w, PG_EV_RECV, code, site, tag, bytes, af, at, matcher, ctx, us);
    else
        learn_predicted(w, PG_EV_RECV, s, site, tag, bytes, us);
    w->undo.from = from;
    w->undo.from_id = *last;
    *last = msgid;
    return 0;
}

/* ---- opening and closing ---------------------------------------------- */

static size_t put_str(unsigned char *p, const char *s)
{
    size_t len = strlen(s), n = pg_put_uv(p, len);

    memcpy(p + n, s, len);
    return n + len;
}

/* Magic, version, ltid, program, host, selection, the recording's
 * identity (log_sink.c), CRC: one write, so a task that dies at once
 * leaves a whole header or none. */
static int write_header(pg_bw *w, int ltid, const char *program,
                        const char *host, const char *select)
{
    unsigned char buf[2048];
    size_t n = 4;
    uint32_t crc;
    int i;

    memcpy(buf, PG_BIN_MAGIC, 4);
    buf[n++] = PG_LOG_VERSION;
    n += pg_put_uv(buf + n, (uint64_t)ltid);
    n += put_str(buf + n, program);
    n += put_str(buf + n, host);
    n += put_str(buf + n, select);
    n += put_str(buf + n, pg_log_recording());
    crc = pg_crc32c(0, buf, n);
    for (i = 0; i < 4; i++)
        buf[n++] = (unsigned char)(crc >> (8 * i));
    if (pg_sink_write(w->sink, (const char *)buf, (int)n) != (int)n)
        return -1;
    return 0;
}

/* The caller (pg_logw_open_sel) has checked the strings fit the header. */
pg_bw *pg_bw_open(const char *path, int ltid, const char *program,
                  const char *host, const char *select, pg_err *err)
{
    pg_bw *w = calloc(1, sizeof *w);

    if (!w) {
        pg_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    w->sink = pg_sink_open(path, err);
    if (!w->sink) {
        free(w);
        return NULL;
    }
    if (write_header(w, ltid, program, host, select ? select : "") < 0) {
        pg_err_set(err, "%s: cannot write the log header", path);
        pg_sink_close(w->sink);
        free(w);
        return NULL;
    }
    w->min = pg_log_race_only(select);
    if (open_block(w) < 0) {
        pg_err_set(err, "%s: cannot write the log", path);
        pg_sink_close(w->sink);
        free(w);
        return NULL;
    }
    return w;
}

const char *pg_bw_why(const pg_bw *w)
{
    return w ? pg_sink_why(w->sink) : NULL;
}

int pg_bw_close(pg_bw *w)
{
    int rc = w->broken ? -1 : seal(w, PG_BIN_LAST);

    if (pg_sink_close(w->sink) != 0)
        rc = -1;
    pg_idmap_free(&w->last_from);
    free(w);
    return rc;
}
