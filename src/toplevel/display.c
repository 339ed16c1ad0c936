/*
 * display.c - `pangaea -display`: the event graph of a recorded run as one
 * self-contained HTML file.
 *
 * Design.  The page itself (canvas drawing, zoom, picking, details) is
 * src/toplevel/graph.html, a real HTML file that can be read and edited
 * as such; the assembler's .incbin puts it into this object at build
 * time (the Makefile makes this object depend on it), so the command needs
 * no file at run time and the page needs no network.  This file only
 * writes the run's data in place of the template's @PANGAEA_DATA@ marker.
 *
 * The data is columnar: one JSON object whose per-event columns are
 * packed integers (zigzag varints in base64, see "packer" below: about a
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
        ".incbin \"src/toplevel/graph.html\"\n"
        ".byte 0\n"
        ".size top_graph_html, . - top_graph_html\n"
        ".popsection\n");
extern const char top_graph_html[];

#define MARKER "@PANGAEA_DATA@"
#define MARK_JS "@PANGAEA_FILTER_JS@"
#define MARK_CSS "@PANGAEA_FILTER_CSS@"
#define MARK_RACES "@PANGAEA_RACES@"

/* ---- the data ---------------------------------------------------------- */

/* Packed integers: each value zigzag-encoded (0,-1,1,-2... as 0,1,2,3...)
 * as a little-endian base-128 varint (7 bits a byte, the high bit set
 * on all but the last), the bytes in base64 inside a JSON string.  Most
 * values (deltas, codes, small tags) take one byte: a third of their
 * decimal text, and the page decodes them without a JSON number parse. */
static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct packer {
    FILE *fp;
    unsigned acc; /* up to 3 bytes waiting for their base64 */
    int n;
};

static void pack_byte(struct packer *p, unsigned b)
{
    p->acc = p->acc << 8 | (b & 0xff);
    if (++p->n < 3)
        return;
    putc(B64[p->acc >> 18 & 63], p->fp);
    putc(B64[p->acc >> 12 & 63], p->fp);
    putc(B64[p->acc >> 6 & 63], p->fp);
    putc(B64[p->acc & 63], p->fp);
    p->acc = 0;
    p->n = 0;
}

static void pack_value(struct packer *p, long long v)
{
    unsigned long long z = v < 0 ? ((unsigned long long)(-(v + 1)) << 1) | 1
                                 : (unsigned long long)v << 1;

    while (z >= 0x80) {
        pack_byte(p, (unsigned)(z & 0x7f) | 0x80);
        z >>= 7;
    }
    pack_byte(p, (unsigned)z);
}

/* The last 1 or 2 bytes, padded with '=' as base64 is. */
static void pack_end(struct packer *p)
{
    int k = p->n, i;

    if (!k)
        return;
    for (i = k; i < 3; i++) /* the bytes' bits where a full group has them */
        p->acc <<= 8;
    p->n = 0;
    putc(B64[p->acc >> 18 & 63], p->fp);
    putc(B64[p->acc >> 12 & 63], p->fp);
    fputs(k == 1 ? "==" : "", p->fp);
    if (k == 2)
        fprintf(p->fp, "%c=", B64[p->acc >> 6 & 63]);
    p->acc = 0;
}

/* One column of per-event integers: "name":"PACKED" */
static void column(FILE *fp, const struct top_run *run, const char *name,
                   long long (*get)(const struct top_run *, int))
{
    struct packer p = { fp, 0, 0 };
    int e;

    fprintf(fp, ",\n\"%s\":\"", name);
    for (e = 0; e < run->nev; e++)
        pack_value(&p, get(run, e));
    pack_end(&p);
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
    struct packer p = { fp, 0, 0 };

    /* Packed: each send as the step from the previous link's (they come
     * in send order), each receive as the step from its send. */
    fprintf(fp, ",\n\"nlinks\":%d,\"links\":\"", run->nlinks);
    for (i = 0; i < run->nlinks; i++) {
        pack_value(&p, run->links[i].send - (i ? run->links[i - 1].send : 0));
        pack_value(&p, run->links[i].recv - run->links[i].send);
    }
    pack_end(&p);
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
 * all the rest, and the page reads it only after its first drawing. */
static void write_races(FILE *fp, const struct top_run *run)
{
    fprintf(fp, "{\"v\":2");
    top_display_races(fp, run);
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
