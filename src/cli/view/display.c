/*
 * display.c - `pangaea -display`: the event graph of a recorded run as one
 * self-contained HTML file.
 *
 * Design.  The page itself (canvas drawing, zoom, picking, details) is
 * src/cli/view/graph.html, a real HTML file that can be read and edited
 * as such; the assembler's .incbin puts it into this object at build
 * time (the Makefile makes this object depend on it), so the command needs
 * no file at run time and the page needs no network.  This file only
 * writes the run's data in place of the template's @PANGAEA_DATA@ marker.
 *
 * The data is columnar: one JSON object whose per-event columns are
 * packed integers (zigzag varints in base64, json.c's packer: about a
 * byte a value, and the page decodes them straight into typed arrays),
 * so 10^6 events cost some 15 MB and no JSON number parse: per event a
 * code (call index * 2 + 1 for a send), tag, msgid, bytes, `from`
 * (receives; -1 for sends), and the time and Lamport position as deltas
 * from the task's previous event (they grow along a task, so the deltas
 * are short).  Events are grouped by task, which the task table gives as
 * (first, count).  Times are integer microseconds since the whole second
 * t0 before the first event, so the page shows recorded times exactly.
 * Lines are (send, receive) pairs of event indexes, packed as steps;
 * "stubs" are (send, ltid) for destinations no receive took.  The races
 * are a second JSON block, read after the first drawing.  The page is
 * written to a temporary name and renamed, so a reader never sees half
 * of it.
 *
 * The filters' script and style (filter.js, filter.css: shared with the
 * live page, which serves them as files; filter_assets.c embeds them) are
 * copied in place of their own markers.  For the filters each site is also
 * given as [file, function, line] ("siteParts"), and each barrier a task
 * returned from as [task, index of its next event, time, site, count,
 * group] ("barriers").  The page joins the tasks of one barrier (the
 * k-th barrier each task made on a group) by a mark.  Each task a spawn
 * started (and whose logs are here) is [spawner, time, child] ("spawns"):
 * a line from the spawn to the child's first event.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter_assets.h"
#include "runlog.h"
#include "top.h"

/* The template, NUL-terminated.  The path is relative to the directory
 * make runs the compiler in, the top of the tree. */
__asm__(".pushsection .rodata\n"
        ".global top_graph_html\n"
        ".type top_graph_html, @object\n"
        "top_graph_html:\n"
        ".incbin \"src/cli/view/graph.html\"\n"
        ".byte 0\n"
        ".size top_graph_html, . - top_graph_html\n"
        ".popsection\n");
extern const char top_graph_html[];

#define MARKER "@PANGAEA_DATA@"
#define MARK_JS "@PANGAEA_FILTER_JS@"
#define MARK_CSS "@PANGAEA_FILTER_CSS@"
#define MARK_RACES "@PANGAEA_RACES@"

/* ---- the data ---------------------------------------------------------- */

/* One column of per-event integers: "name":"PACKED" */
static void column(FILE *fp, const struct top_run *run, const char *name,
                   long long (*get)(const struct top_run *, int))
{
    struct top_packer p = { fp, 0, 0 };
    int e;

    fprintf(fp, ",\n\"%s\":\"", name);
    for (e = 0; e < run->nev; e++)
        top_pack_value(&p, get(run, e));
    top_pack_end(&p);
    putc('"', fp);
}

static long long t0_of(const struct top_run *run)
{
    return (long long)run->tmin;
}

static long long usec_of(const struct top_run *run, int e)
{
    return (long long)((run->ev[e].t - (double)t0_of(run)) * 1e6 + 0.5);
}

static int first_of_task(const struct top_run *run, int e)
{
    return e == run->tasks[run->ev[e].task].first;
}

static long long get_code(const struct top_run *run, int e)
{
    return run->ev[e].call * 2 + top_run_is_send(&run->ev[e]);
}
static long long get_tag(const struct top_run *run, int e)
{
    return run->ev[e].tag;
}
static long long get_msgid(const struct top_run *run, int e)
{
    return run->ev[e].msgid;
}
static long long get_bytes(const struct top_run *run, int e)
{
    return run->ev[e].bytes;
}
static long long get_from(const struct top_run *run, int e)
{
    return top_run_is_send(&run->ev[e]) ? -1 : run->ev[e].from;
}
static long long get_dus(const struct top_run *run, int e)
{
    return usec_of(run, e) - (first_of_task(run, e) ? 0 : usec_of(run, e - 1));
}
static long long get_dlam(const struct top_run *run, int e)
{
    return run->ev[e].lam - (first_of_task(run, e) ? 0 : run->ev[e - 1].lam);
}

static long long get_site(const struct top_run *run, int e)
{
    return run->ev[e].site;
}

static long long get_dseq(const struct top_run *run, int e)
{
    return run->ev[e].seq - (first_of_task(run, e) ? 0 : run->ev[e - 1].seq);
}

static void write_tasks(FILE *fp, const struct top_run *run)
{
    char end[400];
    int i;

    fprintf(fp, ",\n\"tasks\":[");
    for (i = 0; i < run->ntasks; i++) {
        const struct top_task *t = &run->tasks[i];

        fprintf(fp, "%s[%d,%d,", i ? ",\n" : "", t->ltid, t->parent);
        top_json_str(fp, t->host);
        putc(',', fp);
        top_json_str(fp, t->program);
        putc(',', fp);
        top_json_str(fp, top_run_ending(t, end, sizeof end));
        putc(',', fp);
        top_json_str(fp, t->note);
        fprintf(fp, ",%d,%d]", t->first, t->nev);
    }
    putc(']', fp);
}

static void write_links(FILE *fp, const struct top_run *run)
{
    int i, e, n = 0;
    struct top_packer p = { fp, 0, 0 };

    /* Packed: each send as the step from the previous link's (they come
     * in send order), each receive as the step from its send. */
    fprintf(fp, ",\n\"nlinks\":%d,\"links\":\"", run->nlinks);
    for (i = 0; i < run->nlinks; i++) {
        top_pack_value(&p,
                       run->links[i].send - (i ? run->links[i - 1].send : 0));
        top_pack_value(&p, run->links[i].recv - run->links[i].send);
    }
    top_pack_end(&p);
    fprintf(fp, "\",\n\"stubs\":[");
    for (e = 0; e < run->nev; e++)
        for (i = 0; top_run_is_send(&run->ev[e]) && i < run->ev[e].nto; i++)
            if (!top_run_taken(run, e, run->to[run->ev[e].to + i]))
                fprintf(fp, n++ ? ",%d,%d" : "%d,%d", e,
                        run->to[run->ev[e].to + i]);
    putc(']', fp);
}

/* The sites apart, and the barriers (see the design comment). */
static void write_filter_data(FILE *fp, const struct top_run *run)
{
    const struct top_barrier *b;
    int i;

    fprintf(fp, ",\n\"siteParts\":[");
    for (i = 0; i < run->nsites; i++) {
        fputs(i ? ",[" : "[", fp);
        top_json_str(fp, run->site_parts[i].file);
        putc(',', fp);
        top_json_str(fp, run->site_parts[i].func);
        fprintf(fp, ",%d]", run->site_parts[i].line);
    }
    fprintf(fp, "],\n\"barriers\":[");
    for (i = 0; i < run->nbarriers; i++) {
        b = &run->barriers[i];
        fprintf(fp, "%s[%d,%d,%lld,%d,%d,", i ? ",\n" : "", b->task,
                b->before,
                (long long)((b->t - (double)t0_of(run)) * 1e6 + 0.5),
                b->site, b->count);
        top_json_str(fp, b->group);
        putc(']', fp);
    }
    putc(']', fp);
}

/* The spawns (see the design comment), times as the barriers'. */
static void write_spawns(FILE *fp, const struct top_run *run)
{
    int i;

    fprintf(fp, ",\n\"spawns\":[");
    for (i = 0; i < run->nspawns; i++)
        fprintf(fp, "%s[%d,%lld,%d]", i ? "," : "", run->spawns[i].task,
                (long long)((run->spawns[i].t - (double)t0_of(run)) * 1e6
                            + 0.5),
                run->spawns[i].child);
    putc(']', fp);
}

static void write_data(FILE *fp, const struct top_run *run)
{
    int i;

    fprintf(fp, "{\"v\":2,\"dir\":");
    top_json_str(fp, run->dir);
    fprintf(fp, ",\"t0\":%lld,\"cycles\":%d,\"nev\":%d,\n\"calls\":[",
            t0_of(run), run->cycles, run->nev);
    for (i = 0; i < run->ncalls; i++) {
        if (i)
            putc(',', fp);
        top_json_str(fp, run->calls[i]);
    }
    putc(']', fp);
    write_tasks(fp, run);
    column(fp, run, "c", get_code);
    column(fp, run, "us", get_dus);
    column(fp, run, "lam", get_dlam);
    column(fp, run, "tag", get_tag);
    column(fp, run, "id", get_msgid);
    column(fp, run, "b", get_bytes);
    column(fp, run, "from", get_from);
    column(fp, run, "sq", get_dseq); /* seq in the log, as deltas */
    column(fp, run, "site", get_site); /* into "sites", -1: none */
    fprintf(fp, ",\n\"sites\":[");
    for (i = 0; i < run->nsites; i++) {
        if (i)
            putc(',', fp);
        top_json_str(fp, run->sites[i]);
    }
    putc(']', fp);
    write_filter_data(fp, run);
    write_spawns(fp, run);
    write_links(fp, run);
    fprintf(fp, "}\n");
}

/* What -races found (display_races.c), in a block of its own: a run where
 * every receive races has several alternatives a receive, more data than
 * all the rest, and the page reads it only after its first drawing.
 * display_races.c writes its integers as a JSON array, "races":[...];
 * they pass through a stream (fopencookie) that packs them as the
 * columns are, as they are written (no copy of the whole in memory):
 * "races":"PACKED","nraces":N, each record's receive as the step from
 * the previous record's (records: recv, first, site, n, then n pairs). */
struct race_packer {
    FILE *out;
    struct top_packer p;
    int state;      /* 0: before the array, 1: in it, 2: after it */
    size_t matched; /* of RACES_KEY, before the array */
    long long v;    /* the number being read */
    int digits, neg;
    long count, at, n, prev; /* values; place in the record; its n; recv */
};
#define RACES_KEY "\"races\":["

static void race_value(struct race_packer *r)
{
    long long v = r->neg ? -r->v : r->v;

    if (r->at == 0) { /* a record's receive: the step from the last one */
        top_pack_value(&r->p, v - r->prev);
        r->prev = (long)v;
    } else {
        top_pack_value(&r->p, v);
    }
    if (r->at == 3)
        r->n = (long)v;
    r->at = r->at + 1 == 4 + 2 * r->n && r->at >= 3 ? 0 : r->at + 1;
    r->count++;
    r->v = 0;
    r->digits = r->neg = 0;
}

static void race_char(struct race_packer *r, char c)
{
    if (r->state != 1) { /* passed through; the array's '[' opens a string */
        if (r->state == 0)
            r->matched = c == RACES_KEY[r->matched] ? r->matched + 1
                                                    : c == '"';
        if (r->state == 0 && r->matched == strlen(RACES_KEY)) {
            r->state = 1;
            c = '"';
        }
        putc(c, r->out);
    } else if (c >= '0' && c <= '9') {
        r->v = r->v * 10 + (c - '0');
        r->digits++;
    } else if (c == '-') {
        r->neg = 1;
    } else if (c == ',' || c == ']' || c == '\n') {
        if (r->digits)
            race_value(r);
        if (c == ']') {
            top_pack_end(&r->p);
            fprintf(r->out, "\",\"nraces\":%ld", r->count);
            r->state = 2;
        }
    }
}

static ssize_t race_write(void *cookie, const char *buf, size_t size)
{
    size_t i;

    for (i = 0; i < size; i++)
        race_char(cookie, buf[i]);
    return (ssize_t)size;
}

static void write_races(FILE *fp, const struct top_run *run)
{
    struct race_packer r = { .out = fp, .p = { fp, 0, 0 } };
    cookie_io_functions_t io = { .write = race_write };
    FILE *in = fopencookie(&r, "w", io);

    fprintf(fp, "{\"v\":2");
    if (in) {
        top_display_races(in, run);
        fclose(in);
    }
    if (r.state == 1) { /* an array never closed: what it had */
        top_pack_end(&r.p);
        fprintf(fp, "\",\"nraces\":%ld", r.count);
    } else if (r.state == 0) { /* no array (no stream): no race */
        fprintf(fp, ",\"races\":\"\",\"nraces\":0");
    }
    fprintf(fp, "}\n");
}

/* ---- the page ---------------------------------------------------------- */

/* The template from p on, each marker replaced by what it stands for. */
static void write_page(FILE *fp, const struct top_run *run, const char *p)
{
    static const char *marks[] = { MARKER, MARK_JS, MARK_CSS, MARK_RACES };
    const char *next, *m;
    size_t k;

    for (;;) {
        next = NULL;
        m = NULL;
        for (k = 0; k < sizeof marks / sizeof marks[0]; k++) {
            const char *q = strstr(p, marks[k]);

            if (q && (!next || q < next)) {
                next = q;
                m = marks[k];
            }
        }
        if (!next) {
            fputs(p, fp);
            return;
        }
        fwrite(p, 1, (size_t)(next - p), fp);
        if (m == marks[0])
            write_data(fp, run);
        else if (m == marks[3])
            write_races(fp, run);
        else
            fputs(m == marks[1] ? top_filter_js : top_filter_css, fp);
        p = next + strlen(m);
    }
}

int top_display_write(const struct top_run *run, const char *path,
                      pg_err *err)
{
    const char *mark = strstr(top_graph_html, MARKER);
    struct top_file f; /* PATH.tmp, no link followed (untrusted.c) */
    FILE *fp;

    if (!mark)
        return pg_err_set(err, "the built-in page template has no %s "
                          "marker", MARKER);
    if (!(fp = top_file_begin(&f, path, err)))
        return -1;
    write_page(fp, run, top_graph_html);
    return top_file_end(&f, 1, err);
}
