/*
 * log_binw.c - writes a binary communication log
 * (docs/comm-log-format.md), one event at a time, from the event table.
 *
 * Design.  This runs on every send and receive, so an event is encoded
 * into a stack buffer in one pass over its row of pg_events.def (varints,
 * no formatting), checksummed into its block's running CRC, and handed to
 * the memory-mapped sink in one write.  The sink stores the event's first
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
    uint32_t crc;      /* of the open block so far */
    size_t block;      /* bytes in the open block */
    int64_t last_us;   /* time of the last event, microseconds */
    int last_sent;     /* message id of the last send */
    pg_idmap last_from; /* message id of the last receive, per sender */
    int broken;        /* a write failed: refuse everything from now on */
    struct {           /* as before the last event: pg_bw_undo */
        size_t at, block;
        uint32_t crc;
        int64_t last_us;
        int last_sent, from, from_id;
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
    size_t need = 3 * PG_BIN_VARINT_MAX;
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
    int c = pg_call_index(pg_msg_calls, pg_n_msg_calls, ev->call);

    if (ev->kind == PG_EV_QUERY)
        c = pg_call_index(pg_query_calls, pg_n_query_calls, ev->call);
    return c < 0 ? 0 : c;
}

/* 1 if one of the fields added in version 2 is present: only then are
 * they written (the x bit of the time varint), so an event without a call
 * site or asked filter costs what it did in version 1. */
static int has_new(const pg_evdesc *d, const pg_event *ev)
{
    int i;

    for (i = 0; i < d->nfields; i++)
        if (d->fields[i].since >= 2 && pg_field_present(&d->fields[i], ev))
            return 1;
    return 0;
}

static size_t encode(const pg_bw *w, const pg_evdesc *d, const pg_event *ev,
                     unsigned char *p, int64_t us)
{
    size_t n = 1;
    int i;

    int x = has_new(d, ev);

    p[0] = (unsigned char)(call_code(ev) << 4 | d->kind);
    n += pg_put_uv(p + n, pg_zig(us - w->last_us) << 2 | x << 1 |
                              (ev->misses > 0));
    if (ev->misses > 0)
        n += pg_put_uv(p + n, (uint64_t)ev->misses);
    for (i = 0; i < d->nfields; i++)
        if (x || d->fields[i].since < 2)
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
    w->crc = pg_crc32(w->crc, p, n);
    w->block += n;
    return 0;
}

/* Ends the open block with `marker` and the CRC of its bytes, marker
 * included; the next block starts empty. */
static int seal(pg_bw *w, int marker)
{
    unsigned char t[5] = { (unsigned char)marker };
    uint32_t crc = pg_crc32(w->crc, t, 1);
    int i;

    for (i = 0; i < 4; i++)
        t[1 + i] = (unsigned char)(crc >> (8 * i));
    if (pg_sink_write(w->sink, (const char *)t, 5) != 5)
        return w->broken = 1, -1;
    w->crc = 0;
    w->block = 0;
    return 0;
}

/* What replay predicts from is updated once the event is in the file. */
static void remember(pg_bw *w, const pg_event *ev, int64_t us)
{
    w->undo.last_us = w->last_us;
    w->undo.last_sent = w->last_sent;
    w->undo.from = ev->kind == PG_EV_RECV ? ev->from : 0;
    w->undo.from_id = pg_idmap_get(&w->last_from, w->undo.from);
    w->last_us = us;
    if (ev->kind == PG_EV_SEND)
        w->last_sent = ev->msgid;
    if (ev->kind == PG_EV_RECV &&
        pg_idmap_set(&w->last_from, ev->from, ev->msgid) < 0)
        w->broken = 1; /* out of memory: later ids would be mispredicted */
}

int pg_bw_put(pg_bw *w, const pg_event *ev)
{
    const pg_evdesc *d = pg_ev_desc(ev->kind);
    unsigned char small[256], *buf;
    size_t need = check(d, ev), n;
    int64_t us;
    int rc;

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
    w->undo.crc = w->crc;
    w->undo.block = w->block;
    rc = write_bytes(w, buf, n);
    if (rc == 0)
        remember(w, ev, us);
    if (buf != small)
        free(buf);
    return rc;
}

void pg_bw_undo(pg_bw *w)
{
    pg_sink_rewind(w->sink, w->undo.at);
    w->crc = w->undo.crc;
    w->block = w->undo.block;
    w->last_us = w->undo.last_us;
    w->last_sent = w->undo.last_sent;
    if (pg_idmap_set(&w->last_from, w->undo.from, w->undo.from_id) < 0)
        w->broken = 1;
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
