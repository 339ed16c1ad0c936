/*
 * log_xml.c - the strict streaming XML walk under the log reader and the
 * log validator (see log_xml.h).
 *
 * Design.  Logs come from tasks that may have crashed, and from disks, so
 * nothing in them is trusted.  libxml2 reads a descriptor we opened, with
 * XML_PARSE_NONET | XML_PARSE_NOBLANKS only: no entity substitution, no DTD
 * loading, no network, and (because it is a descriptor, not a file name)
 * no transparent gunzip, so a log cannot make libxml2 read another file or
 * URL, nor inflate a bomb.  The walk refuses any DOCTYPE, processing
 * instruction or entity reference: a log has none, and refusing the
 * DOCTYPE keeps every entity trick out before it starts.  xmlTextReader
 * frees each node once past it, and strings are copied into an arena that
 * is reset per element, so memory depends on the largest element (bounded
 * by pg_log.h's limits), never on the length of the file.
 *
 * libxml2's errors go to pg_lx_on_error, which keeps the first one with
 * line and column instead of printing it.  Line numbers of our own
 * complaints come from the node (exact) or, past line 65535 where libxml2
 * stops counting per node, from the parser, which may be a few lines ahead
 * of the node as it reads by chunks.
 */
#define _GNU_SOURCE /* memmem */
#include "log_xml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_log.h"

#define XML_OPTS (XML_PARSE_NONET | XML_PARSE_NOBLANKS)

/* ---- errors ---------------------------------------------------------- */

#if LIBXML_VERSION >= 21200
void pg_lx_on_error(void *lx, const xmlError *e)
#else
void pg_lx_on_error(void *lx, xmlErrorPtr e)
#endif
{
    pg_lx *x = lx;
    const char *msg = e && e->message ? e->message : "error";
    size_t n;

    if (x->failed || !e || e->level < XML_ERR_ERROR)
        return; /* warnings do not make a log bad */
    if (e->line > 0 && e->int2 > 0)
        pg_err_set(&x->fail, "%s:%d:%d: %s", x->path, e->line, e->int2, msg);
    else if (e->line > 0)
        pg_err_set(&x->fail, "%s:%d: %s", x->path, e->line, msg);
    else
        pg_err_set(&x->fail, "%s: %s", x->path, msg);
    n = strlen(x->fail.msg); /* libxml2 ends its messages with a newline */
    while (n > 0 && (x->fail.msg[n - 1] == '\n' || x->fail.msg[n - 1] == ' '))
        x->fail.msg[--n] = '\0';
    x->failed = 1;
}

static long cur_line(pg_lx *x)
{
    long line = xmlGetLineNo(xmlTextReaderCurrentNode(x->xr));

    return (line > 0 && line < 65535) ? line
                                      : xmlTextReaderGetParserLineNumber(x->xr);
}

int pg_lx_fail(pg_lx *x, pg_err *err, const char *fmt, ...)
{
    char what[768];
    va_list ap;

    if (!x->failed) {
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        xmlTextReaderMoveToElement(x->xr); /* attributes have no line */
        pg_err_set(&x->fail, "%s:%ld: %s", x->path, cur_line(x), what);
        x->failed = 1;
    }
    if (err)
        *err = x->fail;
    return -1;
}

/* ---- opening --------------------------------------------------------- */

/* A log whose task died before closing it ends in zeros (log_sink.c), or
 * simply stops.  The data end at the first zero byte; if they stop inside
 * the root element, we close it ourselves (and say so in x->cut), so that
 * every complete event before the cut is still delivered: libxml2 reads
 * ahead, and would otherwise report the premature end before handing out
 * the last events. */
static void remember(pg_lx *x, const char *buf, size_t n)
{
    size_t keep = sizeof x->tail - 1, old = strlen(x->tail);
    const char *r;

    /* Only an opened root, "<pangaea-comm>", can be left open. */
    if (!x->root[0] && (r = memmem(buf, n, "<pangaea-", 9)) &&
        (size_t)(buf + n - r) >= 14 && r[13] == '>')
        snprintf(x->root, sizeof x->root, "%.12s", r + 1);
    if (n >= keep) {
        memcpy(x->tail, buf + n - keep, keep);
        x->tail[keep] = 0;
    } else {
        if (old + n > keep) {
            memmove(x->tail, x->tail + (old + n - keep), keep - n);
            old = keep - n;
        }
        memcpy(x->tail + old, buf, n);
        x->tail[old + n] = 0;
    }
}

static int closes_root(const pg_lx *x)
{
    const char *end = strstr(x->tail, "</pangaea-");

    return end != NULL;
}

static int read_to_zero(void *ctx, char *buf, int len)
{
    pg_lx *x = ctx;
    ssize_t n = 0;
    char *z;

    if (!x->at_zero) {
        do
            n = read(x->fd, buf, len);
        while (n < 0 && errno == EINTR);
        if (n > 0 && (z = memchr(buf, 0, n))) {
            x->at_zero = 1;
            n = z - buf;
        }
        if (n == 0)
            x->at_zero = 1;
        if (n > 0)
            remember(x, buf, n);
    }
    if (n != 0 || x->cut || !x->root[0] || closes_root(x) || len < 20)
        return (int)n;
    x->cut = 1;
    return snprintf(buf, len, "\n</%s>\n", x->root);
}

int pg_lx_open(pg_lx *x, const char *path, pg_err *err)
{
    memset(x, 0, sizeof *x);
    x->path = path;
    x->fd = pg_log_open_read(path, err); /* a FIFO would block us */
    if (x->fd < 0)
        return -1;
    x->xr = xmlReaderForIO(read_to_zero, NULL, x, path, NULL, XML_OPTS);
    if (!x->xr) {
        close(x->fd);
        x->fd = -1;
        return pg_err_set(err, "%s: cannot start the XML reader", path);
    }
    xmlTextReaderSetStructuredErrorHandler(x->xr, pg_lx_on_error, x);
    return 0;
}

void pg_lx_close(pg_lx *x)
{
    if (x->xr)
        xmlFreeTextReader(x->xr); /* leaves the descriptor open */
    if (x->fd >= 0)
        close(x->fd);
    free(x->arena);
    x->xr = NULL, x->fd = -1, x->arena = NULL;
}

/* ---- nodes ----------------------------------------------------------- */

int pg_lx_step(pg_lx *x, pg_err *err)
{
    int rc = 1, type = XML_READER_TYPE_COMMENT;

    while (!x->failed && rc == 1 && type == XML_READER_TYPE_COMMENT) {
        rc = xmlTextReaderRead(x->xr);
        type = xmlTextReaderNodeType(x->xr);
    }
    if (x->failed || rc < 0) { /* libxml2 may err yet return a node */
        if (!x->failed)
            pg_err_set(&x->fail, "%s: cannot be read", x->path);
        x->failed = 1;
        if (err)
            *err = x->fail;
        return -1;
    }
    if (rc == 0)
        return 0;
    switch (type) {
    case XML_READER_TYPE_DOCUMENT_TYPE:
        return pg_lx_fail(x, err, "a DOCTYPE, which a log never has");
    case XML_READER_TYPE_PROCESSING_INSTRUCTION:
        return pg_lx_fail(x, err, "a processing instruction, which a log "
                          "never has");
    case XML_READER_TYPE_ENTITY_REFERENCE:
        return pg_lx_fail(x, err, "an entity reference, which a log never "
                          "has");
    }
    return type;
}

static int is_blank(int type)
{
    return type == XML_READER_TYPE_WHITESPACE ||
           type == XML_READER_TYPE_SIGNIFICANT_WHITESPACE;
}

int pg_lx_step_markup(pg_lx *x, pg_err *err)
{
    int type;

    while (is_blank(type = pg_lx_step(x, err)))
        ;
    if (type > 0 && type != XML_READER_TYPE_ELEMENT &&
        type != XML_READER_TYPE_END_ELEMENT)
        return pg_lx_fail(x, err, "text where an element belongs");
    return type;
}

const char *pg_lx_name(pg_lx *x)
{
    const xmlChar *name = xmlTextReaderConstName(x->xr);

    return name ? (const char *)name : "?";
}

int pg_lx_at(pg_lx *x, int type, const char *name)
{
    return type == XML_READER_TYPE_ELEMENT && strcmp(pg_lx_name(x), name) == 0;
}

int pg_lx_no_content(pg_lx *x, const char *elem, int empty, pg_err *err)
{
    int type;

    if (empty)
        return 0;
    type = pg_lx_step_markup(x, err);
    if (type == XML_READER_TYPE_END_ELEMENT)
        return 0;
    return type < 0 ? -1 : pg_lx_fail(x, err, "<%s> has content", elem);
}

/* ---- storage --------------------------------------------------------- */

int pg_lx_arena_add(pg_lx *x, size_t off, const char *s, size_t len,
                    pg_err *err)
{
    size_t need = x->used + len + 1, cap;
    char *p;

    if (x->used - off + len > PG_LOG_MAX_STR)
        return pg_lx_fail(x, err, "a string longer than %d bytes",
                          PG_LOG_MAX_STR);
    if (need > PG_LOG_MAX_EVENT)
        return pg_lx_fail(x, err, "an element with more than %d bytes of "
                          "strings", PG_LOG_MAX_EVENT);
    if (need > x->cap) {
        for (cap = x->cap ? x->cap : 4096; cap < need; cap *= 2)
            ;
        p = realloc(x->arena, cap);
        if (!p)
            return pg_lx_fail(x, err, "out of memory");
        x->arena = p, x->cap = cap;
    }
    memcpy(x->arena + x->used, s, len);
    x->used += len;
    x->arena[x->used] = '\0'; /* need counted it */
    return 0;
}

int pg_lx_arena_end(pg_lx *x, size_t off, pg_err *err)
{
    if (pg_lx_arena_add(x, off, "", 0, err))
        return -1;
    x->used++;
    return 0;
}

int pg_lx_arena_put(pg_lx *x, const char *s, size_t *off, pg_err *err)
{
    *off = x->used;
    if (pg_lx_arena_add(x, *off, s, strlen(s), err))
        return -1;
    x->used++;
    return 0;
}

void *pg_lx_push(pg_lx *x, pg_lx_vec *v, size_t elem, pg_err *err)
{
    size_t cap;
    void *p;

    if (v->n == v->cap) {
        cap = v->cap ? v->cap * 2 : 16;
        p = realloc(v->p, cap * elem);
        if (!p) {
            pg_lx_fail(x, err, "out of memory");
            return NULL;
        }
        v->p = p, v->cap = cap;
    }
    return (char *)v->p + elem * v->n++;
}

/* ---- numbers and attributes ------------------------------------------ */

int pg_lx_parse_long(const char *s, long *out)
{
    const char *p = s + (*s == '-' || *s == '+');
    size_t digits = strspn(p, "0123456789");

    if (digits == 0 || digits > 18 || p[digits] != '\0')
        return -1; /* 18 digits always fit: no overflow to detect */
    *out = strtol(s, NULL, 10);
    return 0;
}

/* xs:decimal's lexical form, e.g. the writer's "1763769600.000123";
 * 15 digits each side keeps both parts exact in a double. */
int pg_lx_parse_decimal(const char *s, double *out)
{
    const char *p = s + (*s == '-' || *s == '+');
    size_t ni = strspn(p, "0123456789"), nf = 0, i;
    double ip = 0, fp = 0, scale = 1;

    if (p[ni] == '.')
        nf = strspn(p + ni + 1, "0123456789");
    if (ni + nf == 0 || ni > 15 || nf > 15 ||
        p[ni + (p[ni] == '.') + nf] != '\0')
        return -1;
    for (i = 0; i < ni; i++)
        ip = ip * 10 + (p[i] - '0');
    for (i = 0; i < nf; i++, scale *= 10)
        fp = fp * 10 + (p[ni + 1 + i] - '0');
    *out = (*s == '-' ? -1 : 1) * (ip + fp / scale);
    return 0;
}

static int parse_attr(pg_lx *x, const pg_lx_attr *a, const char *v,
                      const char *elem, pg_err *err)
{
    long n;

    switch (a->type) {
    case PG_LX_TIME:
        if (pg_lx_parse_decimal(v, a->dst) == 0)
            return 0;
        break;
    case PG_LX_STR:
        return pg_lx_arena_put(x, v, a->dst, err);
    case PG_LX_CALL:
        if (pg_log_call_known(v))
            return pg_lx_arena_put(x, v, a->dst, err);
        break;
    case PG_LX_SEQ:
        if (pg_lx_parse_long(v, &n) == 0 && n > 0) {
            *(long *)a->dst = n;
            return 0;
        }
        break;
    case PG_LX_INT:
    case PG_LX_COUNT:
        if (pg_lx_parse_long(v, &n) == 0 && n <= INT_MAX &&
            n >= (a->type == PG_LX_COUNT ? 0 : INT_MIN)) {
            *(int *)a->dst = (int)n;
            return 0;
        }
    }
    return pg_lx_fail(x, err, "<%s> has a bad %s=\"%.40s\"", elem, a->name,
                      v);
}

int pg_lx_attrs(pg_lx *x, const char *elem, const pg_lx_attr *spec, int n,
                pg_err *err)
{
    unsigned long seen = 0;
    const char *name, *val;
    int rc, i;

    for (rc = xmlTextReaderMoveToFirstAttribute(x->xr); rc == 1;
         rc = xmlTextReaderMoveToNextAttribute(x->xr)) {
        name = pg_lx_name(x);
        val = (const char *)xmlTextReaderConstValue(x->xr);
        for (i = 0; i < n && strcmp(spec[i].name, name) != 0; i++)
            ;
        if (i == n)
            return pg_lx_fail(x, err, "<%s> has an unknown attribute %.40s",
                              elem, name);
        if (parse_attr(x, &spec[i], val ? val : "", elem, err))
            return -1;
        seen |= 1UL << i;
    }
    xmlTextReaderMoveToElement(x->xr);
    if (rc < 0)
        return pg_lx_fail(x, err, "<%s> has attributes libxml2 cannot read",
                          elem);
    for (i = 0; i < n; i++)
        if (!(seen & (1UL << i)) && !spec[i].optional)
            return pg_lx_fail(x, err, "<%s> lacks attribute %s", elem,
                              spec[i].name);
    return 0;
}
