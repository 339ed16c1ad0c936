/*
 * log_write.c - writes a task's logs (see pg_log.h): the execution log as
 * XML with libxml2's xmlTextWriter, the communication log in binary
 * through log_binw.c.
 *
 * Design.  Sends and receives are on the hot path of every message, so a
 * communication log is binary (docs/comm-log-format.md): the functions
 * here only fill a pg_event and hand it to the encoder, which writes from
 * the event table.  Execution logs are few events and people edit them
 * (to move a task), so they stay XML:
 *  - one xmlTextWriter over an xmlOutputBuffer over a memory-mapped file
 *    (log_sink.c): libxml2 escapes, and every event is flushed into the
 *    mapping as soon as it is complete, which survives any death of the
 *    process (SIGKILL included);
 *  - numbers are formatted by hand, not with printf, so that a traced
 *    program that calls setlocale(LC_NUMERIC, ...) cannot turn the decimal
 *    point of a timestamp into a comma.
 * Every argument of an event is checked before any of it is written, so a
 * refused event leaves the log readable.  A write that fails part-way
 * marks the writer broken: it refuses everything after, rather than go on
 * producing a log whose structure lies.  Strings must be valid UTF-8
 * without control characters other than tab, newline and carriage return:
 * XML 1.0 cannot carry the others.  A program's arguments are data, any
 * bytes a C string holds: one XML cannot carry is written as
 * <arg enc="hex"> with its bytes in hex (so it may have half the length).
 */
#include "pg_log.h"
#include "log_bin.h"
#include "log_sink.h"
#include "log_table.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

struct pg_logw {
    pg_bw *bin;  /* a communication log: binary (log_binw.c) */
    pg_sink *sink;
    xmlTextWriterPtr xw;
    pg_log_kind kind;
    long seq;   /* seq of the last event written */
    int ended;  /* <end> written: the reader rejects anything after it */
    int broken; /* a write failed: refuse everything from now on */
    int misses; /* for the next event */
    pg_bw_extra note; /* for the next send, recv or notice: pg_logw_note */
    struct {    /* before the last comm event: pg_logw_undo */
        long seq;
        int misses;
    } undo;
};

static const char *root_name(pg_log_kind kind)
{
    return kind == PG_LOG_EXEC ? "pangaea-exec" : "pangaea-comm";
}

/* ---- input checks --------------------------------------------------- */

/* Adds strlen(s) + 1 to *budget if s is a string the format can carry in
 * at most `max` bytes; -1 if not (or if the event grows over its limit). */
static int check_str(const char *s, size_t max, size_t *budget)
{
    size_t n;

    if (!s || (n = strlen(s)) > max || !pg_log_text_ok(s, n))
        return -1;
    *budget += n + 1;
    return *budget > PG_LOG_MAX_EVENT ? -1 : 0;
}

/* Whether w may take one more event, of a log of `kind`. */
static int usable(const pg_logw *w, pg_log_kind kind)
{
    return w && !w->broken && !w->ended && w->kind == kind;
}

/* ---- formatting ------------------------------------------------------ */

/* Writes v in decimal into buf (at least 24 bytes); returns buf. */
static char *fmt_long(char *buf, long v)
{
    char tmp[24];
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    int n = 0, i = 0;

    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        buf[i++] = '-';
    while (n)
        buf[i++] = tmp[--n];
    buf[i] = '\0';
    return buf;
}

/* Writes t as "%.6f" would in the C locale into buf (at least 48 bytes).
 * Callers keep |t| under 1e12, where t * 1e6 is exact to the microsecond. */
static char *fmt_time(char *buf, double t)
{
    long long us = llround(fabs(t) * 1e6), frac = us % 1000000;
    char *p = buf;
    int i;

    if (t < 0 && us > 0)
        *p++ = '-';
    fmt_long(p, (long)(us / 1000000));
    p += strlen(p);
    *p++ = '.';
    for (i = 5; i >= 0; i--, frac /= 10)
        p[i] = (char)('0' + frac % 10);
    p[6] = '\0';
    return buf;
}

static int time_ok(double t)
{
    return isfinite(t) && fabs(t) < 1e12;
}

/* ---- writing --------------------------------------------------------- */

/* Turns a libxml2 result into ours; a failure breaks the writer. */
static int wrote(pg_logw *w, int rc)
{
    if (rc < 0) {
        w->broken = 1;
        return -1;
    }
    return 0;
}

static int put_str(pg_logw *w, const char *name, const char *val)
{
    return wrote(w, xmlTextWriterWriteAttribute(w->xw, BAD_CAST name,
                                                BAD_CAST val));
}

static int put_long(pg_logw *w, const char *name, long v)
{
    char buf[24];

    return put_str(w, name, fmt_long(buf, v));
}

static int start(pg_logw *w, const char *elem)
{
    return wrote(w, xmlTextWriterStartElement(w->xw, BAD_CAST elem));
}

static int finish(pg_logw *w)
{
    return wrote(w, xmlTextWriterEndElement(w->xw));
}

/* Ends an event and hands it to the sink at once: an event is in the file
 * as soon as its call returns. */
static int end_event(pg_logw *w)
{
    return finish(w) || wrote(w, xmlTextWriterFlush(w->xw));
}

/* Starts an event element with its seq and t. */
static int begin_event(pg_logw *w, const char *elem, double t)
{
    char buf[48];

    if (start(w, elem) || put_long(w, "seq", w->seq + 1))
        return -1;
    w->seq++;
    if (w->misses > 0 && put_long(w, "misses", w->misses))
        return -1;
    w->misses = 0;
    return put_str(w, "t", fmt_time(buf, t));
}

long pg_logw_count(const pg_logw *w)
{
    return w ? w->seq : 0;
}

int pg_logw_seq(pg_logw *w, long seq)
{
    return w && w->bin ? pg_bw_seq(w->bin, seq) : -1;
}

void pg_logw_misses(pg_logw *w, int n)
{
    if (w)
        w->misses = n;
}

void pg_logw_waited(pg_logw *w, int us)
{
    if (w)
        w->note.waited = us > 0 ? us : 0;
}

void pg_logw_posted(pg_logw *w, int posted, int together)
{
    if (w) {
        w->note.posted = posted > 0 ? posted : 0;
        w->note.together = together > 0;
    }
}

void pg_logw_rivals(pg_logw *w, int n, const int *rivals)
{
    if (w) {
        w->note.nrivals = n > 0 && rivals ? n : 0;
        w->note.rivals = w->note.nrivals ? rivals : NULL;
    }
}

void pg_logw_ctx(pg_logw *w, int ctx)
{
    if (w)
        w->note.ctx = ctx > 0 ? ctx : 0;
}

static int write_header(pg_logw *w, int ltid, const char *program,
                        const char *host, const char *select,
                        const char *exe, const char *sha256,
                        const char *cwd)
{
    if (wrote(w, xmlTextWriterStartDocument(w->xw, NULL, NULL, NULL)) ||
        start(w, root_name(w->kind)) || start(w, "header") ||
        put_str(w, "format", root_name(w->kind)) ||
        put_long(w, "version", PG_LOG_VERSION) || put_long(w, "ltid", ltid) ||
        put_str(w, "program", program) || put_str(w, "host", host) ||
        (select && *select && put_str(w, "select", select)) ||
        (exe && *exe && put_str(w, "exe", exe)) ||
        (sha256 && *sha256 && put_str(w, "sha256", sha256)) ||
        (cwd && *cwd && put_str(w, "cwd", cwd)) ||
        (*pg_log_recording() &&
         put_str(w, "recording", pg_log_recording())) ||
        finish(w))
        return -1;
    return pg_logw_flush(w); /* a task that dies at once still has a header */
}

/* Checks open's arguments against what pg_log_header can hold. */
static int check_open(const char *path, pg_log_kind kind, int ltid,
                      const char *program, const char *host, pg_err *err)
{
    pg_log_header h;
    size_t budget = 0;

    if (!path || (kind != PG_LOG_COMM && kind != PG_LOG_EXEC) || ltid < 0)
        return pg_err_set(err, "pg_logw_open: bad path, kind or ltid %d",
                          ltid);
    if (check_str(program, sizeof h.program - 1, &budget) ||
        check_str(host, sizeof h.host - 1, &budget))
        return pg_err_set(err, "%s: program or host name missing, too "
                          "long, not UTF-8 or with control characters", path);
    return 0;
}

pg_logw *pg_logw_open(const char *path, pg_log_kind kind, int ltid,
                      const char *program, const char *host, pg_err *err)
{
    return pg_logw_open_sel(path, kind, ltid, program, host, NULL, err);
}

pg_logw *pg_logw_open_sel(const char *path, pg_log_kind kind, int ltid,
                          const char *program, const char *host,
                          const char *select, pg_err *err)
{
    return pg_logw_open_prog(path, kind, ltid, program, host, select, NULL,
                             NULL, NULL, err);
}

pg_logw *pg_logw_open_prog(const char *path, pg_log_kind kind, int ltid,
                           const char *program, const char *host,
                           const char *select, const char *exe,
                           const char *sha256, const char *cwd, pg_err *err)
{
    xmlOutputBufferPtr out;
    pg_logw *w;
    size_t budget = 0;

    if (check_open(path, kind, ltid, program, host, err) ||
        (select && strlen(select) >= sizeof ((pg_log_header *)0)->select &&
         pg_err_set(err, "%s: selection too long", path)) ||
        (exe && *exe &&
         check_str(exe, sizeof ((pg_log_header *)0)->exe - 1, &budget) &&
         pg_err_set(err, "%s: executable path unfit for the log", path)) ||
        (sha256 && strlen(sha256) != 64 * (*sha256 != 0) &&
         pg_err_set(err, "%s: bad SHA-256", path)) ||
        (cwd && *cwd &&
         check_str(cwd, sizeof ((pg_log_header *)0)->cwd - 1, &budget) &&
         pg_err_set(err, "%s: working directory unfit for the log", path)))
        return NULL;
    w = calloc(1, sizeof *w);
    if (!w) {
        pg_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    w->kind = kind;
    pg_logw_note(w, 0, -3, -2, 0);
    if (kind == PG_LOG_COMM) {
        w->bin = pg_bw_open(path, ltid, program, host, select, err);
        if (!w->bin) {
            free(w);
            return NULL;
        }
        return w;
    }
    w->sink = pg_sink_open(path, err);
    if (!w->sink) {
        free(w);
        return NULL;
    }
    out = xmlOutputBufferCreateIO(pg_sink_write, NULL, w->sink, NULL);
    w->xw = out ? xmlNewTextWriter(out) : NULL;
    if (!w->xw) {
        if (out)
            xmlOutputBufferClose(out);
        w->broken = 1;
    } else {
        xmlTextWriterSetIndent(w->xw, 1);
        xmlTextWriterSetIndentString(w->xw, BAD_CAST "  ");
    }
    if (w->broken ||
        write_header(w, ltid, program, host, select, exe, sha256, cwd)) {
        pg_err_set(err, "%s: cannot write the log header", path);
        pg_logw_close(w);
        return NULL;
    }
    return w;
}

/* ---- communication logs: binary, from the event table --------------- */
/* Every comm event goes to log_binw.c: sends and receives to its
 * compiled-in encoders (with the note, pg_logw_note), the rest through
 * put_comm, which encodes it from
 * its row of pg_events.def; the functions below only fill a pg_event from
 * their arguments. */
/* After the binary writer took a comm event (rc 0) or refused it. */
static int took_comm(pg_logw *w, int rc)
{
    if (rc < 0)
        return -1;
    w->undo.seq = w->seq++;
    w->undo.misses = w->misses;
    w->misses = 0;
    return 0;
}

static int put_comm(pg_logw *w, pg_event *ev)
{
    if (!usable(w, PG_LOG_COMM) || !w->bin)
        return -1;
    ev->misses = w->misses;
    return took_comm(w, pg_bw_put(w->bin, ev));
}

void pg_logw_note(pg_logw *w, int site, int asked_from, int asked_tag,
                  int matcher)
{
    if (w) {
        w->note.site = site, w->note.asked_from = asked_from;
        w->note.asked_tag = asked_tag, w->note.matcher = matcher;
    }
}

/* What the note is when none was made: no site, filter unknown. */
static const pg_bw_extra no_note = { .asked_from = -3, .asked_tag = -2 };

/* The note (pg_logw_note) for the event being written: it is used once,
 * then absent again, whether or not the event is taken. */
static pg_bw_extra take_note(pg_logw *w)
{
    pg_bw_extra x = w->note;

    w->note = no_note;
    return x;
}

/* put_comm for a notice, which takes the note too. */
static int put_noted(pg_logw *w, pg_event *ev)
{
    if (w) {
        pg_bw_extra x = take_note(w);

        ev->site = x.site, ev->asked_from = x.asked_from;
        ev->asked_tag = x.asked_tag, ev->matcher = x.matcher;
        ev->waited = x.waited;
    }
    return put_comm(w, ev);
}

/* The writer of a send or receive, which is handed the note where it is
 * (w->note: no copy on the path of every message) and drops it after;
 * NULL when w cannot take it. */
static pg_bw *message_writer(pg_logw *w)
{
    return usable(w, PG_LOG_COMM) ? w->bin : NULL;
}

/* After a send or receive: the note is dropped whether or not it was
 * taken, the event counted when it was. */
static int took_message(pg_logw *w, int rc)
{
    w->note = no_note;
    return took_comm(w, rc);
}

/* pg_bw_call_code of call, remembered for the last name seen at each
 * caller: a program sends, and receives, mostly with one call. */
static int call_code(const char *call, const char **last, int *code)
{
    if (call != *last) {
        *code = pg_bw_call_code(call);
        *last = call;
    }
    return *code;
}

int pg_logw_send(pg_logw *w, double t, const char *call, int tag, int msgid,
                 int bytes, int nto, const int *to)
{
    static const char *last;
    static int code;
    pg_bw *bw;

    if (!w)
        return -1;
    bw = message_writer(w);
    return took_message(w, bw ? pg_bw_send(bw, t, call_code(call, &last, &code),
                                           w->misses, tag, msgid, bytes, nto,
                                           to, &w->note) : -1);
}

void pg_logw_undo(pg_logw *w)
{
    assert(w && !w->broken && w->bin && w->seq == w->undo.seq + 1);
    pg_bw_undo(w->bin);
    w->seq = w->undo.seq;
    w->misses = w->undo.misses;
}

int pg_logw_recv(pg_logw *w, double t, const char *call, int from, int tag,
                 int msgid, int bytes)
{
    static const char *last;
    static int code;
    pg_bw *bw;

    if (!w)
        return -1;
    bw = message_writer(w);
    return took_message(w, bw ? pg_bw_recv(bw, t, call_code(call, &last, &code),
                                           w->misses, from, tag, msgid, bytes,
                                           &w->note) : -1);
}

int pg_logw_notice(pg_logw *w, double t, const char *call, int tag,
                   pg_notice_what what, int ltid, int bytes)
{
    pg_event ev = { .kind = PG_EV_NOTICE, .t = t, .call = call, .tag = tag,
                    .what = what, .from = ltid, .bytes = bytes };

    return put_noted(w, &ev);
}

int pg_logw_gettid(pg_logw *w, double t, const char *group, int inst,
                   int ltid)
{
    pg_event ev = { .kind = PG_EV_GETTID, .t = t, .group = group,
                    .inst = inst, .from = ltid, .order = -1 };

    return put_comm(w, &ev);
}

int pg_logw_join(pg_logw *w, double t, const char *group, int inst,
                 int ltid, int order)
{
    pg_event ev = { .kind = PG_EV_GETTID, .t = t, .group = group,
                    .inst = inst, .from = ltid, .order = order };

    return order < 0 ? -1 : put_comm(w, &ev);
}

int pg_logw_leave(pg_logw *w, double t, const char *group, int order)
{
    pg_event ev = { .kind = PG_EV_LEAVE, .t = t, .group = group,
                    .order = order };

    return put_comm(w, &ev);
}

int pg_logw_query(pg_logw *w, double t, const char *call, const char *about,
                  int value)
{
    pg_event ev = { .kind = PG_EV_QUERY, .t = t, .call = call,
                    .about = about, .value = value };

    return put_comm(w, &ev);
}

int pg_logw_site(pg_logw *w, double t, int id, const char *module,
                 int offset)
{
    pg_event ev = { .kind = PG_EV_SITE, .t = t, .site = id, .module = module,
                    .offset = offset };

    return id < 1 ? -1 : put_comm(w, &ev);
}

int pg_logw_barrier(pg_logw *w, double t, const char *group, int count,
                    int site)
{
    pg_event ev = { .kind = PG_EV_BARRIER, .t = t, .group = group,
                    .count = count, .site = site };

    return put_comm(w, &ev);
}

int pg_logw_route(pg_logw *w, double t, int value, int site)
{
    pg_event ev = { .kind = PG_EV_ROUTE, .t = t, .value = value,
                    .site = site };

    return put_comm(w, &ev);
}

int pg_logw_poll(pg_logw *w, double t, const char *call, int asked_from,
                 int asked_tag, int matcher, int site)
{
    pg_event ev = { .kind = PG_EV_POLL, .t = t, .call = call,
                    .asked_from = asked_from, .asked_tag = asked_tag,
                    .matcher = matcher, .site = site };

    return put_comm(w, &ev);
}

int pg_logw_event(pg_logw *w, const pg_event *ev)
{
    pg_event copy = *ev;

    if (w && w->kind == PG_LOG_EXEC && ev->kind == PG_EV_SPAWN)
        return pg_logw_spawn(w, ev->t, ev->program, ev->argv, ev->flags,
                             ev->where, ev->count, ev->nchild, ev->child_ltid,
                             ev->child_host);
    if (w && w->kind == PG_LOG_EXEC && ev->kind == PG_EV_CRASH)
        return pg_logw_crash(w, ev->t, ev->value, ev->module, ev->offset);
    if (ev->kind == PG_EV_END)
        return pg_logw_misses(w, ev->misses), pg_logw_end(w, ev->t, ev->status);
    if (w)
        w->misses = ev->misses;
    return put_comm(w, &copy);
}

/* 1 if the argument must go in hex: XML cannot carry it as it is. */
static int arg_needs_hex(const char *s)
{
    size_t budget = 0;

    return check_str(s, PG_LOG_MAX_STR, &budget) < 0;
}

/* An argument, as text or in hex; adds it to *budget as the reader will
 * count it.  0, or -1 when it is too long even for that. */
static int check_arg(const char *s, size_t *budget)
{
    size_t n;

    if (!s)
        return -1;
    if (!arg_needs_hex(s))
        return check_str(s, PG_LOG_MAX_STR, budget);
    n = strlen(s);
    if (2 * n > PG_LOG_MAX_STR)
        return -1;
    *budget += 2 * n + 1;
    return *budget > PG_LOG_MAX_EVENT ? -1 : 0;
}

static int write_arg(pg_logw *w, const char *s)
{
    static const char digits[] = "0123456789abcdef";
    char hex[2 * PG_LOG_MAX_STR + 1];
    size_t i, n = strlen(s);

    if (!arg_needs_hex(s))
        return wrote(w, xmlTextWriterWriteElement(w->xw, BAD_CAST "arg",
                                                  BAD_CAST s));
    for (i = 0; i < n && i < PG_LOG_MAX_STR; i++) {
        hex[2 * i] = digits[(unsigned char)s[i] >> 4];
        hex[2 * i + 1] = digits[(unsigned char)s[i] & 15];
    }
    hex[2 * i] = 0;
    return start(w, "arg") || put_str(w, "enc", "hex") ||
           wrote(w, xmlTextWriterWriteString(w->xw, BAD_CAST hex)) ||
           finish(w);
}

int pg_logw_args_ok(char *const *argv)
{
    size_t budget = 0;
    int argc;

    for (argc = 0; argv && argv[argc]; argc++)
        if (argc >= PG_LOG_MAX_LIST || check_arg(argv[argc], &budget))
            return 0;
    return 1;
}

/* Checks every string of a spawn against the limits; returns argc or -1. */
static int check_spawn(const char *program, char *const *argv,
                       const char *where, int count, int nchild,
                       const int *child_ltid, const char *const *child_host)
{
    size_t budget = 0;
    int argc = 0, i;

    if (count < 0 || nchild < 0 || nchild > count ||
        nchild > PG_LOG_MAX_LIST || (nchild > 0 && !child_ltid) ||
        check_str(program, PG_LOG_MAX_STR, &budget) ||
        check_str(where ? where : "", PG_LOG_MAX_STR, &budget))
        return -1;
    for (; argv && argv[argc]; argc++)
        if (argc >= PG_LOG_MAX_LIST ||
            check_arg(argv[argc], &budget))
            return -1;
    for (i = 0; i < nchild; i++)
        if (check_str(child_host && child_host[i] ? child_host[i] : "",
                      PG_LOG_MAX_STR, &budget))
            return -1;
    return argc;
}

int pg_logw_spawn(pg_logw *w, double t, const char *program,
                  char *const *argv, int flags, const char *where, int count,
                  int nchild, const int *child_ltid,
                  const char *const *child_host)
{
    const char *host;
    int argc, i;

    if (!usable(w, PG_LOG_EXEC) || !time_ok(t))
        return -1;
    argc = check_spawn(program, argv, where, count, nchild, child_ltid,
                       child_host);
    if (argc < 0)
        return -1;
    if (begin_event(w, "spawn", t) || put_str(w, "program", program) ||
        put_long(w, "flags", flags) || put_str(w, "where", where ? where : "") ||
        put_long(w, "count", count))
        return -1;
    for (i = 0; i < argc; i++)
        if (write_arg(w, argv[i]))
            return -1;
    for (i = 0; i < nchild; i++) {
        host = child_host && child_host[i] ? child_host[i] : "";
        if (start(w, "child") || put_long(w, "ltid", child_ltid[i]) ||
            put_str(w, "host", host) || finish(w))
            return -1;
    }
    return end_event(w);
}

int pg_logw_crash(pg_logw *w, double t, int sig, const char *module,
                  int offset)
{
    if (!usable(w, PG_LOG_EXEC) || !time_ok(t))
        return -1;
    if (begin_event(w, "crash", t) || put_long(w, "signal", sig) ||
        put_str(w, "module", module ? module : "") ||
        put_long(w, "offset", offset < 0 ? 0 : offset))
        return -1;
    return end_event(w);
}

int pg_logw_end(pg_logw *w, double t, int status)
{
    pg_event ev = { .kind = PG_EV_END, .t = t, .status = status };

    if (!w || !usable(w, w->kind) || !time_ok(t))
        return -1;
    if (w->bin) {
        if (put_comm(w, &ev) < 0)
            return -1;
        w->ended = 1;
        return 0;
    }
    if (begin_event(w, "end", t) || put_long(w, "status", status) ||
        end_event(w))
        return -1;
    w->ended = 1;
    return 0;
}

int pg_logw_flush(pg_logw *w)
{
    if (!w || w->broken)
        return -1;
    if (w->bin) /* every event is in the mapping when its call returns */
        return 0;
    if (xmlTextWriterFlush(w->xw) < 0) {
        w->broken = 1;
        return -1;
    }
    return 0;
}

const char *pg_logw_why(const pg_logw *w)
{
    if (!w)
        return NULL;
    return w->bin ? pg_bw_why(w->bin) : pg_sink_why(w->sink);
}

int pg_logw_close(pg_logw *w)
{
    int rc = 0;

    if (!w)
        return -1;
    if (w->bin) {
        rc = pg_bw_close(w->bin);
        free(w);
        return rc;
    }
    if (!w->broken && xmlTextWriterEndDocument(w->xw) < 0)
        rc = -1;
    if (w->xw)
        xmlFreeTextWriter(w->xw); /* flushes into the sink, leaves it open */
    if (w->broken)
        rc = -1;
    if (pg_sink_close(w->sink) != 0)
        rc = -1;
    free(w);
    return rc;
}
