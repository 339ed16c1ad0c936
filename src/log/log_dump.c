/*
 * log_dump.c - a log as XML text, written from the event table: what
 * `pangaea -dump` prints, so that people and tools can read a binary
 * communication log (and the tests can check it with xmllint --schema).
 *
 * Design.  Every event goes through one function that walks the kind's
 * row of pg_events.def: the common fields, then the kind's attributes in
 * table order, then its elements (<to>, <arg>, <child>).  Nothing here
 * knows a particular kind, so a new row of the table is dumped as soon as
 * it exists.  Strings are escaped by hand (the reader has checked they
 * are text XML can carry); numbers are formatted without printf's locale.
 * A log cut short by a death ends its document with a comment saying so;
 * a corrupt one is closed after its last good event and the error given
 * back, so the output is a valid document either way.
 */
#include "pg_log.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log_table.h"

static void put_escaped(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\t': fputs("&#9;", out); break;
        case '\n': fputs("&#10;", out); break;
        case '\r': fputs("&#13;", out); break;
        default: fputc(*s, out);
        }
    }
}

static void put_str(FILE *out, const char *name, const char *v)
{
    fprintf(out, " %s=\"", name);
    put_escaped(out, v ? v : "");
    fputc('"', out);
}

/* t as "%.6f" in the C locale, whatever the locale. */
static void put_time(FILE *out, const char *name, double t)
{
    long long us = llround(fabs(t) * 1e6);

    fprintf(out, " %s=\"%s%lld.%06lld\"", name, t < 0 && us ? "-" : "",
            us / 1000000, us % 1000000);
}

static void put_field(FILE *out, const pg_field *f, const pg_event *ev)
{
    int i;

    if (!pg_field_present(f, ev))
        return;
    switch (f->type) {
    case PG_FT_SEQ:
        fprintf(out, " %s=\"%ld\"", f->name, *PG_FIELD_PTR(ev, f, const long));
        break;
    case PG_FT_TIME:
        put_time(out, f->name, *PG_FIELD_PTR(ev, f, const double));
        break;
    case PG_FT_INT: case PG_FT_COUNT: case PG_FT_MSGID:
        fprintf(out, " %s=\"%d\"", f->name, *PG_FIELD_PTR(ev, f, const int));
        break;
    case PG_FT_STR: case PG_FT_CALL: case PG_FT_QCALL:
        put_str(out, f->name, *PG_FIELD_PTR(ev, f, const char *const));
        break;
    case PG_FT_WHAT:
        put_str(out, f->name, pg_notice_name(*PG_FIELD_PTR(ev, f, const int)));
        break;
    case PG_FT_INTS: /* ev->rivals, the only list of ints so far */
        fprintf(out, " %s=\"", f->name);
        for (i = 0; i < *PG_FIELD_PTR(ev, f, const int); i++)
            fprintf(out, "%s%d", i ? " " : "", ev->rivals[i]);
        fputc('"', out);
        break;
    default: /* a list: elements, see put_elements */
        break;
    }
}

/* A list field of ev as elements (its member holds their number). */
static void put_elements(FILE *out, const pg_field *f, const pg_event *ev)
{
    int i;

    for (i = 0; f->type == PG_FT_TO && i < ev->nto; i++)
        fprintf(out, "    <to ltid=\"%d\"/>\n", ev->to[i]);
    for (i = 0; f->type == PG_FT_ARGS && i < ev->argc; i++) {
        fputs("    <arg>", out);
        put_escaped(out, ev->argv[i]);
        fputs("</arg>\n", out);
    }
    for (i = 0; f->type == PG_FT_CHILDREN && i < ev->nchild; i++) {
        fprintf(out, "    <child ltid=\"%d\"", ev->child_ltid[i]);
        put_str(out, "host", ev->child_host[i]);
        fputs("/>\n", out);
    }
}

static int is_list(const pg_field *f)
{
    return f->type == PG_FT_TO || f->type == PG_FT_ARGS ||
           f->type == PG_FT_CHILDREN;
}

int pg_log_xml_event(FILE *out, const pg_event *ev)
{
    const pg_evdesc *d = pg_ev_desc(ev->kind);
    const pg_field *c;
    int nc, i, elems = 0;

    if (!d)
        return -1;
    c = pg_ev_common(&nc);
    fprintf(out, "  <%s", d->name);
    for (i = 0; i < nc; i++)
        put_field(out, &c[i], ev);
    for (i = 0; i < d->nfields; i++) {
        put_field(out, &d->fields[i], ev);
        if (is_list(&d->fields[i]))
            elems += *PG_FIELD_PTR(ev, &d->fields[i], const int);
    }
    if (!elems)
        return fputs("/>\n", out) < 0 ? -1 : 0;
    fputs(">\n", out);
    for (i = 0; i < d->nfields; i++)
        put_elements(out, &d->fields[i], ev);
    return fprintf(out, "  </%s>\n", d->name) < 0 ? -1 : 0;
}

const char *(*pg_log_dump_site)(const char *module, long offset, char *buf,
                                int size);

/* "<!-- site N: file.c:LINE -->" after a <site>, when asked for. */
static void put_site_name(FILE *out, const pg_event *ev)
{
    char name[600], *p;

    if (ev->kind != PG_EV_SITE || !pg_log_dump_site || !ev->module)
        return;
    pg_log_dump_site(ev->module, ev->offset, name, sizeof name);
    for (p = name; (p = strstr(p, "--")); ) /* no "--" in a comment */
        p[1] = '_';
    fprintf(out, "  <!-- site %d: ", ev->site);
    put_escaped(out, name);
    fputs(" -->\n", out);
}

int pg_log_dump(const char *path, pg_log_kind kind, FILE *out, pg_err *err)
{
    const char *root = kind == PG_LOG_EXEC ? "pangaea-exec" : "pangaea-comm";
    pg_log_header h;
    pg_event ev;
    pg_logr *r = pg_logr_open(path, kind, &h, err);
    int rc;

    if (!r)
        return -1;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<%s>\n  "
            "<header format=\"%s\" version=\"%d\" ltid=\"%d\"", root, root,
            h.version, h.ltid);
    put_str(out, "program", h.program);
    put_str(out, "host", h.host);
    if (h.select[0])
        put_str(out, "select", h.select);
    if (h.recording[0])
        put_str(out, "recording", h.recording);
    fputs("/>\n", out);
    while ((rc = pg_logr_next(r, &ev, err)) == 1) {
        pg_log_xml_event(out, &ev);
        put_site_name(out, &ev);
    }
    if (rc < 0 && pg_logr_cut(r)) {
        fputs("  <!-- ", out);
        put_escaped(out, err->msg);
        fputs(" -->\n", out);
        rc = 0;
    }
    fprintf(out, "</%s>\n", root);
    pg_logr_close(r);
    return rc;
}
