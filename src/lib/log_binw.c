/*
 * log_binw.c - writes a binary communication log
 * (docs/comm-log-format.md), one event at a time, from the event table.
 *
 * Design.  This runs on every send and receive, so an event is encoded
 * into a stack buffer in one pass over its row of pg_events.def (varints,
 * no formatting; sends and receives by compiled-in code) and handed to
 * the memory-mapped sink in one write; a block's CRC is taken when it is
 * sealed.  The sink stores the event's first
 * byte last, and that byte is never zero, so a task killed at any instant
 * leaves either the whole event or a zero where it starts: the reader
 * then stops there, after the last complete event.  A block is sealed
 * (trailer and CRC) before the first event that would start past
 * PG_BIN_BLOCK bytes, never right after an event, so the event just
 * written can still be taken back (pg_logw_undo) without unsealing.
 * Every field is checked before anything is written: a refused event
 * leaves the log as it was.
 */
#include "log_bin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log_table.h"

struct pg_bw {
    pg_sink *sink;
    size_t start;      /* where the open block starts in the file */
    size_t block;      /* bytes in the open block */
    int64_t last_us;   /* time of the last event, microseconds */
    int last_sent;     /* message id of the last send */
    int last_tag, last_bytes; /* of the last send or receive */
    pg_idmap last_from; /* message id of the last receive, per sender */
    int broken;        /* a write failed: refuse everything from now on */
    int min;           /* a race-only log: each event says how many events
                          of the full log were left out before it */
    long seq, gap;     /* race-only: the last event's number, and the gap
                          the next one carries (pg_bw_seq) */
    struct {           /* as before the last event: pg_bw_undo */
        size_t at, block;
        int64_t last_us;
        int last_sent, kind, from, from_id, last_tag, last_bytes;
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
    default: /* exec-only types: not in a communication log */
        return 0;
    }
}

/* The bytes ev needs at most, or 0 if it cannot be written. */
static size_t check(const pg_evdesc *d, const pg_event *ev)
{
    size_t need = 4 * PG_BIN_VARINT_MAX; /* kind, time, misses, gap */
    int i;

    if (!d || !(d->logs & PG_IN_COMM) || !isfinite(ev->t) ||
        fabs(ev->t) >= 1e12 || ev->misses < 0)
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

    if (ev->kind == PG_EV_QUERY)
        c = pg_call_index(pg_query_calls, pg_n_query_calls, ev->call);
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
    n += pg_put_uv(p + n, pg_zig(us - w->last_us) << 1 | (ev->misses > 0));
    if (ev->misses > 0)
        n += pg_put_uv(p + n, (uint64_t)ev->misses);
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

/* Ends the open block with `marker` and the CRC of its bytes, marker
 * included; the next block starts empty.  The CRC is taken here, over the
 * block as the file holds it (the sink keeps it mapped), in one pass of
 * slicing-by-8, rather than a few bytes at a time per event. */
static int seal(pg_bw *w, int marker)
{
    unsigned char t[5] = { (unsigned char)marker };
    uint32_t crc = pg_crc32(0, pg_sink_data(w->sink, w->start), w->block);
    int i;

    crc = pg_crc32(crc, t, 1);
    for (i = 0; i < 4; i++)
        t[1 + i] = (unsigned char)(crc >> (8 * i));
    if (pg_sink_write(w->sink, (const char *)t, 5) != 5)
        return w->broken = 1, -1;
    w->block = 0;
    w->start = pg_sink_tell(w->sink);
    pg_sink_keep(w->sink, w->start);
    return 0;
}

/* What replay predicts from is updated once the event is in the file. */
static void remember_as(pg_bw *w, int kind, int from, int msgid, int64_t us)
{
    w->undo.last_us = w->last_us;
    w->undo.last_sent = w->last_sent;
    w->undo.from = kind == PG_EV_RECV ? from : 0;
    w->undo.from_id = kind == PG_EV_RECV ? pg_idmap_get(&w->last_from, from)
                                         : 0;
    w->undo.kind = kind;
    w->last_us = us;
    if (kind == PG_EV_SEND)
        w->last_sent = msgid;
    if (kind == PG_EV_RECV && pg_idmap_set(&w->last_from, from, msgid) < 0)
        w->broken = 1; /* out of memory: later ids would be mispredicted */
}

static void remember(pg_bw *w, const pg_event *ev, int64_t us)
{
    remember_as(w, ev->kind, ev->from, ev->msgid, us);
}

int pg_bw_put(pg_bw *w, const pg_event *ev)
{
    const pg_evdesc *d = pg_ev_desc(ev->kind);
    unsigned char small[256], *buf;
    size_t need = check(d, ev), n;
    int64_t us;
    int rc;

    const pg_bw_extra x = { ev->site, ev->asked_from, ev->asked_tag,
                            ev->matcher };

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
    rc = write_bytes(w, buf, n);
    if (rc == 0) {
        remember(w, ev, us);
        w->seq += w->gap + 1;
        w->gap = 0;
    }
    if (buf != small)
        free(buf);
    return rc;
}

void pg_bw_undo(pg_bw *w)
{
    pg_sink_rewind(w->sink, w->undo.at);
    w->block = w->undo.block;
    w->last_us = w->undo.last_us;
    w->last_sent = w->undo.last_sent;
    w->last_tag = w->undo.last_tag;
    w->last_bytes = w->undo.last_bytes;
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
 * linker merged with them, so strcmp only runs for a stranger. */

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

/* The first byte and the time (and misses) of a send or receive; NULL
 * when the time or misses cannot be written. */
static unsigned char *put_head(pg_bw *w, unsigned char *p, int first,
                               double t, int misses, int64_t *us)
{
    if (!(fabs(t) < 1e12) || misses < 0) /* NaN fails too */
        return NULL;
    *us = round_us(t * 1e6);
    *p++ = (unsigned char)first;
    p = put_uv(p, pg_zig(*us - w->last_us) << 1 | (misses > 0));
    if (misses > 0)
        p = put_uv(p, (uint64_t)misses);
    if (w->min)
        p = put_uv(p, (uint64_t)w->gap);
    return p;
}

/* Writes the n bytes at buf as the next event (sealing the block first
 * when it is full) and remembers it for prediction and undo. */
static int put_event(pg_bw *w, const unsigned char *buf, size_t n)
{
    if (w->block >= PG_BIN_BLOCK && seal(w, PG_BIN_SEAL) < 0)
        return -1;
    w->undo.at = pg_sink_tell(w->sink);
    w->undo.block = w->block;
    if (write_bytes(w, buf, n) < 0)
        return -1;
    w->seq += w->gap + 1; /* race-only: the gap is used once */
    w->gap = 0;
    return 0;
}

int pg_bw_seq(pg_bw *w, long seq)
{
    if (!w || !w->min || seq <= w->seq)
        return -1;
    w->gap = seq - w->seq - 1;
    return 0;
}

/* remember_as for the hot kinds; a receive's sender is done by the caller
 * (one look-up in the table of ids).  A send's or receive's tag and size
 * are stored as differences from the last send's or receive's: a
 * program's tags and sizes repeat or step (SOR: 1000, 1001, 1002 ...;
 * 4000 bytes each), so most take one byte. */
static void remember_msg(pg_bw *w, int kind, int msgid, int tag, int bytes,
                         int64_t us)
{
    w->undo.last_us = w->last_us;
    w->undo.last_sent = w->last_sent;
    w->undo.last_tag = w->last_tag;
    w->undo.last_bytes = w->last_bytes;
    w->undo.kind = kind;
    w->last_us = us;
    w->last_tag = tag;
    w->last_bytes = bytes;
    if (kind == PG_EV_SEND)
        w->last_sent = msgid;
}

/* Version 3's fields of a send or receive (pg_events.def's NEW ones, in
 * its order, zigzag as the table path writes optional ones): whether any
 * is present (1: they are written, and the kind is PG_BIN_SEND_X or
 * PG_BIN_RECV_X; 0: the plain kind, not a byte more than before), and
 * whether they can be (-1: a site or matcher below its `absent`, which
 * the reader would reject).  A flag in the kind rather than a bit of the
 * time keeps the time's varint as short as in version 2. */
static int extra_x(const pg_bw_extra *x, int kind)
{
    if (!x)
        return 0;
    if (x->site < 0 || (kind == PG_EV_RECV && x->matcher < 0))
        return -1;
    return x->site > 0 || (kind == PG_EV_RECV &&
                           (x->asked_from > -3 || x->asked_tag > -2 ||
                            x->matcher > 0));
}

int pg_bw_send(pg_bw *w, double t, int code, int misses, int tag, int msgid,
               int bytes, int nto, const int *to, const pg_bw_extra *x)
{
    unsigned char small[128], *buf, *p;
    size_t need = 8 * PG_BIN_VARINT_MAX + (size_t)nto * PG_BIN_VARINT_MAX;
    int64_t us;
    int rc, i, has = extra_x(x, PG_EV_SEND);

    if (!w || w->broken || code < 0 || code >= pg_n_msg_calls || bytes < 0 ||
        nto < 0 || nto > PG_LOG_MAX_LIST || (nto && !to) || has < 0)
        return -1;
    buf = need <= sizeof small ? small : malloc(need);
    if (!buf)
        return -1;
    p = put_head(w, buf, code << 4 | (has ? PG_BIN_SEND_X : PG_EV_SEND), t,
                 misses, &us);
    rc = -1;
    if (p) {
        p = put_uv(p, pg_zig((int64_t)tag - w->last_tag));
        p = put_uv(p, pg_zig((int64_t)msgid - ((int64_t)w->last_sent + 1)));
        p = put_uv(p, pg_zig((int64_t)bytes - w->last_bytes));
        p = put_uv(p, (uint64_t)nto);
        for (i = 0; i < nto; i++)
            p = put_uv(p, pg_zig(to[i]));
        if (has)
            p = put_uv(p, pg_zig(x->site));
        rc = put_event(w, buf, (size_t)(p - buf));
        if (rc == 0)
            remember_msg(w, PG_EV_SEND, msgid, tag, bytes, us);
    }
    if (buf != small)
        free(buf);
    return rc;
}

int pg_bw_recv(pg_bw *w, double t, int code, int misses, int from, int tag,
               int msgid, int bytes, const pg_bw_extra *x)
{
    unsigned char buf[13 * PG_BIN_VARINT_MAX], *p;
    int64_t us;
    int *last, has = extra_x(x, PG_EV_RECV);

    if (!w || w->broken || code < 0 || code >= pg_n_msg_calls || bytes < 0 ||
        has < 0)
        return -1;
    p = put_head(w, buf, code << 4 | (has ? PG_BIN_RECV_X : PG_EV_RECV), t,
                 misses, &us);
    if (!p)
        return -1;
    if (!(last = pg_idmap_ref(&w->last_from, from)))
        return w->broken = 1, -1; /* out of memory */
    p = put_uv(p, pg_zig(from));
    p = put_uv(p, pg_zig((int64_t)tag - w->last_tag));
    p = put_uv(p, pg_zig((int64_t)msgid - ((int64_t)*last + 1)));
    p = put_uv(p, pg_zig((int64_t)bytes - w->last_bytes));
    if (has) {
        p = put_uv(p, pg_zig(x->asked_from));
        p = put_uv(p, pg_zig(x->asked_tag));
        p = put_uv(p, pg_zig(x->matcher));
        p = put_uv(p, pg_zig(x->site));
    }
    if (put_event(w, buf, (size_t)(p - buf)) < 0)
        return -1;
    remember_msg(w, PG_EV_RECV, msgid, tag, bytes, us);
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

/* Magic, version, ltid, program, host, selection, CRC: one write, so a
 * task that dies at once leaves a whole header or none. */
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
    crc = pg_crc32(0, buf, n);
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
    w->start = pg_sink_tell(w->sink);
    pg_sink_keep(w->sink, w->start);
    w->min = pg_log_race_only(select);
    return w;
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
