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
 *
 * A run of more than a part (PANGAEA_DISPLAY_PART, 10^6 events) is never
 * one file: the page holds the parts' index, and each part, a stretch of
 * time of every task cut at the same instants (make_cuts), is a script
 * beside it (NAME.parts/part-NNNN.js) holding the same data for its
 * events (struct dwin: per task the events it holds, numbered from 0 in
 * the part) and their races; a message with one end in another part is
 * listed as "across" with that part, and a race's alternative elsewhere
 * is named in a note.  A part's lines, stubs and messages across are
 * found from its own events (the links of a task's sends in the part are
 * one stretch of run->links, which is sorted by send; a receive's send is
 * its partner), so the parts together cost the run once, not once each.
 * The cuts' instants are the times of evenly spaced ranks, found by
 * merging the tasks' events (no sorted copy of every time, unless a
 * task's clock stepped back).  Memory: -display loads the run lean
 * (top_run_load_lean: the model given back as the graph is derived, so
 * the two are never held whole together); every part's data is written
 * first, into one temporary file, while the graph's events are there;
 * then they are freed, the model loaded again (top_run_model, what
 * -races loads) and the races found, so that the races and the graph's
 * events are never held together either: the peak is about -races'.
 * A page of one file does the same between its data and its races
 * (races_ready).
 * The races are found once for all the parts, bare (32 bytes a race: a
 * deep queue's race at 256 tasks has ~128 alternatives); then, for a
 * batch of parts at a time (race_batch: all of them, as open files allow),
 * the finder hands each race over again with its alternatives
 * (rc_find_each) and display_races.c writes it to its receive's part's
 * temporary files, forgetting them; each part is its data copied from
 * the first temporary file and its races from these.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter_assets.h"
#include "pg_grow.h"
#include "races.h"
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
#define MARK_SRC "@PANGAEA_SCRIPT_SRC@"

/* ---- the data ---------------------------------------------------------- */

/* The events a page or a part holds: per task, run->ev[lo .. hi-1], at
 * base in the part's own numbering (tasks in order, each contiguous). */
struct dwin {
    const struct top_run *run;
    int *lo, *hi, *base;
    int nev;
    const int *cut; /* per task, nparts + 1 cuts (parts: see below), or NULL */
    int *pbase;     /* per part, per task: its base there (parts) */
    int part, nparts;
    double tend;    /* the run's last event time (parts: the index) */
    struct top_run *whole; /* a page of one file: its run, whose events
                              are freed and model loaded again between
                              the data and the races (write_page) */
    pg_err *err;    /* why that failed, */
    int failed;     /* and that it did */
};

/* The task whose events hold run->ev index e (the graph's events may be
 * gone: a page in parts frees them before its races are found): the last
 * task whose first event is e or before it (a task without events shares
 * its first with the next task's). */
static int task_of(const struct top_run *run, int e)
{
    int a = 0, b = run->ntasks - 1;

    while (a < b) {
        int m = (a + b + 1) / 2;

        if (run->tasks[m].first <= e)
            a = m;
        else
            b = m - 1;
    }
    return a;
}

/* The part's index of run->ev[e], or -1 when e is not in it. */
static int local_of(const struct dwin *w, int e)
{
    int t = w->run->ev[e].task;

    return e >= w->lo[t] && e < w->hi[t] ? w->base[t] + e - w->lo[t] : -1;
}

/* The part event e is in (its task's cuts). */
static int part_of(const struct dwin *w, int e)
{
    const int *c = w->cut + (size_t)task_of(w->run, e) * (w->nparts + 1);
    int a = 0, b = w->nparts - 1;

    while (a < b) { /* the last part k with c[k] <= e */
        int m = (a + b + 1) / 2;

        if (c[m] <= e)
            a = m;
        else
            b = m - 1;
    }
    return a;
}

/* Event e's index in part k (any part, not only the window's), or -1. */
static int local_in(const struct dwin *w, int k, int e)
{
    int t = task_of(w->run, e);
    const int *c = w->cut + (size_t)t * (w->nparts + 1);

    return e >= c[k] && e < c[k + 1]
               ? w->pbase[(size_t)k * w->run->ntasks + t] + e - c[k] : -1;
}

/* One column of per-event integers: "name":"PACKED" */
static void column(FILE *fp, const struct dwin *w, const char *name,
                   long long (*get)(const struct dwin *, int))
{
    struct top_packer p = { fp, 0, 0 };
    int t, e;

    fprintf(fp, ",\n\"%s\":\"", name);
    for (t = 0; t < w->run->ntasks; t++)
        for (e = w->lo[t]; e < w->hi[t]; e++)
            top_pack_value(&p, get(w, e));
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

/* The first event of its task in this page or part: its deltas are from 0. */
static int first_here(const struct dwin *w, int e)
{
    return e == w->lo[w->run->ev[e].task];
}

static long long get_code(const struct dwin *w, int e)
{
    return w->run->ev[e].call * 2 + top_run_is_send(&w->run->ev[e]);
}
static long long get_tag(const struct dwin *w, int e)
{
    return w->run->ev[e].tag;
}
static long long get_msgid(const struct dwin *w, int e)
{
    return w->run->ev[e].msgid;
}
static long long get_bytes(const struct dwin *w, int e)
{
    return w->run->ev[e].bytes;
}
static long long get_from(const struct dwin *w, int e)
{
    return top_run_is_send(&w->run->ev[e]) ? -1 : w->run->ev[e].from;
}
static long long get_dus(const struct dwin *w, int e)
{
    return usec_of(w->run, e) - (first_here(w, e) ? 0 : usec_of(w->run, e - 1));
}
static long long get_dlam(const struct dwin *w, int e)
{
    return w->run->ev[e].lam - (first_here(w, e) ? 0 : w->run->ev[e - 1].lam);
}

static long long get_site(const struct dwin *w, int e)
{
    return w->run->ev[e].site;
}

static long long get_dseq(const struct dwin *w, int e)
{
    return w->run->ev[e].seq - (first_here(w, e) ? 0 : w->run->ev[e - 1].seq);
}

/* 1 when task i's end is in this page or part: its last event is, or it
 * has none and this is the first part. */
static int ends_here(const struct dwin *w, int i)
{
    const struct top_task *t = &w->run->tasks[i];

    if (w->hi[i] != t->first + t->nev)
        return 0;
    return t->nev ? w->lo[i] < w->hi[i] : w->part == 0;
}

static void write_tasks(FILE *fp, const struct dwin *w)
{
    const struct top_run *run = w->run;
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
        fprintf(fp, ",%d,%d,%d]", w->base[i], w->hi[i] - w->lo[i],
                ends_here(w, i));
    }
    putc(']', fp);
}

/* The first of run->links whose send is event e or after it. */
static int link_from(const struct top_run *run, int e)
{
    int first;

    top_run_links_of(run, e, &first);
    return first;
}

static int cmp_across(const void *a, const void *b)
{
    const struct top_link *x = a, *y = b;

    if (x->send != y->send)
        return (x->send > y->send) - (x->send < y->send);
    return (x->recv > y->recv) - (x->recv < y->recv);
}

/* The messages across of a part (write_across): a growing list. */
struct across {
    struct top_link *a;
    size_t n, cap;
    int oom;
};

static void add_across(struct across *x, int send, int recv)
{
    if (!x->oom && pg_grow(&x->a, &x->cap, x->n + 1, sizeof *x->a) < 0)
        x->oom = 1;
    if (!x->oom)
        x->a[x->n++] = (struct top_link){ send, recv };
}

/* A part's messages whose other end is in another part: (event, part)
 * pairs, packed, in the order of run->links (send, then receive); the
 * page draws them as matched and names the part.  They are the links of
 * the part's sends whose receive is elsewhere and the links of its
 * receives whose send is elsewhere (a receive has one link, its partner),
 * gathered and sorted: the cost is the part's, not the run's.  -1 when
 * out of memory. */
static int write_across(FILE *fp, const struct dwin *w)
{
    const struct top_run *run = w->run;
    struct top_packer p = { fp, 0, 0 };
    struct across x = { NULL, 0, 0, 0 };
    struct top_link *a;
    size_t n, i;
    int t, e, l;

    for (t = 0; w->cut && t < run->ntasks; t++) {
        for (l = link_from(run, w->lo[t]);
             l < run->nlinks && run->links[l].send < w->hi[t]; l++)
            if (local_of(w, run->links[l].recv) < 0)
                add_across(&x, run->links[l].send, run->links[l].recv);
        for (e = w->lo[t]; e < w->hi[t]; e++)
            if ((l = top_run_partner(&run->ev[e])) >= 0 &&
                local_of(w, l) < 0)
                add_across(&x, l, e);
    }
    if (x.oom)
        return free(x.a), -1;
    a = x.a, n = x.n;
    if (n > 1)
        qsort(a, n, sizeof *a, cmp_across);
    fprintf(fp, ",\n\"across\":\"");
    for (i = 0; i < n; i++) {
        int s = local_of(w, a[i].send);

        top_pack_value(&p, s >= 0 ? s : local_of(w, a[i].recv));
        top_pack_value(&p, part_of(w, s >= 0 ? a[i].recv : a[i].send));
    }
    top_pack_end(&p);
    fprintf(fp, "\",\"nacross\":%d", (int)n);
    free(a);
    return 0;
}

/* The lines (both ends here), the stubs and the messages across.  The
 * links of a task's sends in the window are one stretch of run->links,
 * found once: a part costs its own events and links.  -1 when out of
 * memory. */
static int write_links(FILE *fp, const struct dwin *w)
{
    const struct top_run *run = w->run;
    int i, e, t, l, at, k, n = 0, prev = 0, s, r;
    struct top_packer p = { fp, 0, 0 };

    /* Packed: each send as the step from the previous link's (they come
     * in send order), each receive as the step from its send. */
    for (t = 0; t < run->ntasks; t++)
        for (l = link_from(run, w->lo[t]);
             l < run->nlinks && run->links[l].send < w->hi[t]; l++)
            n += local_of(w, run->links[l].recv) >= 0;
    fprintf(fp, ",\n\"nlinks\":%d,\"links\":\"", n);
    for (t = 0; t < run->ntasks; t++)
        for (l = link_from(run, w->lo[t]);
             l < run->nlinks && run->links[l].send < w->hi[t]; l++) {
            s = local_of(w, run->links[l].send);
            if ((r = local_of(w, run->links[l].recv)) < 0)
                continue;
            top_pack_value(&p, s - prev);
            top_pack_value(&p, r - s);
            prev = s;
        }
    top_pack_end(&p);
    fprintf(fp, "\",\n\"stubs\":[");
    n = 0;
    for (t = 0; t < run->ntasks; t++)
        for (e = w->lo[t], at = link_from(run, e); e < w->hi[t]; e++) {
            if (!top_run_is_send(&run->ev[e]))
                continue;
            k = top_run_links_next(run, e, &at);
            for (i = 0; i < run->ev[e].nto; i++)
                if (!top_run_taken_in(run, at, k, run->to[run->ev[e].to + i]))
                    fprintf(fp, n++ ? ",%d,%d" : "%d,%d", local_of(w, e),
                            run->to[run->ev[e].to + i]);
        }
    putc(']', fp);
    return write_across(fp, w);
}

/* A barrier's place in the part: its next event's index, or -1 when the
 * barrier lies in another part (one at a task's end goes with the part
 * of the task's last event). */
static int barrier_here(const struct dwin *w, const struct top_barrier *b)
{
    const struct top_task *t = &w->run->tasks[b->task];

    if (b->before >= w->lo[b->task] && b->before < w->hi[b->task])
        return local_of(w, b->before);
    if (b->before == w->hi[b->task] &&
        (w->hi[b->task] == t->first + t->nev || !w->cut))
        return w->base[b->task] + w->hi[b->task] - w->lo[b->task];
    return -1;
}

/* The sites apart, and the barriers (see the design comment). */
static void write_filter_data(FILE *fp, const struct dwin *w)
{
    const struct top_run *run = w->run;
    const struct top_barrier *b;
    int i, n = 0, at;

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
        if ((at = barrier_here(w, b)) < 0)
            continue;
        fprintf(fp, "%s[%d,%d,%lld,%d,%d,", n++ ? ",\n" : "", b->task, at,
                (long long)((b->t - (double)t0_of(run)) * 1e6 + 0.5),
                b->site, b->count);
        top_json_str(fp, b->group);
        putc(']', fp);
    }
    putc(']', fp);
}

/* The spawns (see the design comment), times as the barriers'; in a part,
 * those whose child's first event is in it. */
static void write_spawns(FILE *fp, const struct dwin *w)
{
    const struct top_run *run = w->run;
    int i, n = 0, c;

    fprintf(fp, ",\n\"spawns\":[");
    for (i = 0; i < run->nspawns; i++) {
        c = run->spawns[i].child;
        if (w->cut && w->lo[c] != run->tasks[c].first)
            continue;
        fprintf(fp, "%s[%d,%lld,%d]", n++ ? "," : "", run->spawns[i].task,
                (long long)((run->spawns[i].t - (double)t0_of(run)) * 1e6
                            + 0.5),
                c);
    }
    putc(']', fp);
}

/* The data of a page or part: 0, or -1 when out of memory (a part's
 * messages across). */
static int write_data(FILE *fp, const struct dwin *w)
{
    const struct top_run *run = w->run;
    int i, rc;

    fprintf(fp, "{\"v\":2,\"dir\":");
    top_json_str(fp, run->dir);
    fprintf(fp, ",\"t0\":%lld,\"cycles\":%d,\"nev\":%d,\n\"calls\":[",
            t0_of(run), run->cycles, w->nev);
    for (i = 0; i < run->ncalls; i++) {
        if (i)
            putc(',', fp);
        top_json_str(fp, run->calls[i]);
    }
    putc(']', fp);
    write_tasks(fp, w);
    column(fp, w, "c", get_code);
    column(fp, w, "us", get_dus);
    column(fp, w, "lam", get_dlam);
    column(fp, w, "tag", get_tag);
    column(fp, w, "id", get_msgid);
    column(fp, w, "b", get_bytes);
    column(fp, w, "from", get_from);
    column(fp, w, "sq", get_dseq); /* seq in the log, as deltas */
    column(fp, w, "site", get_site); /* into "sites", -1: none */
    fprintf(fp, ",\n\"sites\":[");
    for (i = 0; i < run->nsites; i++) {
        if (i)
            putc(',', fp);
        top_json_str(fp, run->sites[i]);
    }
    putc(']', fp);
    write_filter_data(fp, w);
    write_spawns(fp, w);
    rc = write_links(fp, w);
    fprintf(fp, "}\n");
    return rc;
}

/* What -races found (display_races.c), in a block of its own: a run where
 * every receive races has several alternatives a receive, more data than
 * all the rest, and the page reads it only after its first drawing.
 * display_races.c hands the records' integers over as numbers
 * (top_race_ints), packed as the columns are, as they come (no copy of
 * the whole in memory): "races":"PACKED","nraces":N, each record's
 * receive as the step from the previous record's (the records' form:
 * display_races.c; top_race_rec_step finds where they start). */
struct race_packer {
    FILE *out;
    struct top_packer p;
    long count, prev; /* values; the last record's recv */
    struct top_race_rec rec; /* where in a record */
};

static void race_begin(void *ctx)
{
    fprintf(((struct race_packer *)ctx)->out, ",\n\"races\":\"");
}

static void race_value(void *ctx, int v)
{
    struct race_packer *r = ctx;

    if (top_race_rec_step(&r->rec, v)) { /* a receive: the step from the last */
        top_pack_value(&r->p, (long long)v - r->prev);
        r->prev = v;
    } else {
        top_pack_value(&r->p, v);
    }
    r->count++;
}

static void race_end(void *ctx)
{
    struct race_packer *r = ctx;

    top_pack_end(&r->p);
    fprintf(r->out, "\",\"nraces\":%ld", r->count);
}

/* The races of a page in parts: found bare for all the parts (r, n), and
 * written for a batch of parts [k0, k1) at a time (part: theirs, from
 * top_display_races_split's temporary files), so that no race keeps its
 * alternatives. */
struct race_set {
    struct rc_race *r;
    int n;
    struct top_race_part *part;
    int k0, k1;
};

/* A part's map for display_races.c: (the window, the part). */
struct part_ctx {
    const struct dwin *w;
    int k;
};

static int race_here(const void *ctx, int e, int *part)
{
    const struct part_ctx *pc = ctx;
    int l = local_in(pc->w, pc->k, e);

    *part = l < 0 ? part_of(pc->w, e) : pc->k;
    return l;
}

static int race_part_of(const void *ctx, int e)
{
    return part_of(((const struct part_ctx *)ctx)->w, e);
}

static struct top_display_map race_map_of(const void *ctx, int k)
{
    const struct part_ctx *pc = ctx; /* pc[k]: part k's */

    return (struct top_display_map){ race_here, &pc[k] };
}

static void write_races(FILE *fp, const struct dwin *w,
                        const struct race_set *rs)
{
    struct race_packer r = { .out = fp, .p = { fp, 0, 0 } };
    struct top_race_ints ints = { race_begin, race_value, race_end, &r };

    fprintf(fp, "{\"v\":2");
    if (!w->cut)
        top_display_races(fp, w->run, &ints);
    else if (rs->part)
        top_display_races_part(fp, rs->part, w->part - rs->k0, &ints);
    else /* no race written for this part */
        fprintf(fp, ",\"races\":\"\",\"nraces\":0");
    fprintf(fp, "}\n");
}

/* ---- a page in parts -------------------------------------------------- */

/* Events a part holds at most: PANGAEA_DISPLAY_PART (1 to 10^8), else
 * 10^6 (about what a page draws within its goals); a run no bigger is one
 * file. */
static int part_size(void)
{
    const char *v = getenv("PANGAEA_DISPLAY_PART");
    long n = v ? strtol(v, NULL, 10) : 0;

    return n >= 1 && n <= 100000000 ? (int)n : 1000000;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The time of task t's next event in a merge (pos[t] along it). */
static double merge_t(const struct top_run *run, const int *pos, int t)
{
    return run->ev[run->tasks[t].first + pos[t]].t;
}

/* Restores the heap (h[0] the task whose next event is earliest) below i. */
static void merge_down(const struct top_run *run, const int *pos, int *h,
                       int n, int i)
{
    for (;;) {
        int c = 2 * i + 1, x;

        if (c + 1 < n && merge_t(run, pos, h[c + 1]) < merge_t(run, pos, h[c]))
            c++;
        if (c >= n || !(merge_t(run, pos, h[c]) < merge_t(run, pos, h[i])))
            return;
        x = h[i], h[i] = h[c], h[c] = x;
        i = c;
    }
}

/* at[k] = the time of rank k * nev / P among all the events, by merging
 * the tasks' events (a heap of tasks: 8 bytes a task, no copy of the
 * times), when every task's times go forward.  1, or 0 when one steps
 * back (the caller sorts a copy) or memory runs out. */
static int ranks_by_merge(const struct top_run *run, int P, double *at)
{
    int *pos = calloc((size_t)run->ntasks + 1, sizeof *pos);
    int *h = malloc(((size_t)run->ntasks + 1) * sizeof *h);
    int n = 0, t, e, k = 0;
    size_t rank;

    for (t = 0; pos && h && t < run->ntasks; t++) {
        const struct top_task *tk = &run->tasks[t];

        for (e = tk->first + 1; e < tk->first + tk->nev; e++)
            if (run->ev[e].t < run->ev[e - 1].t)
                return free(pos), free(h), 0;
        if (tk->nev > 0)
            h[n++] = t;
    }
    if (!pos || !h)
        return free(pos), free(h), 0;
    for (t = n / 2 - 1; t >= 0; t--)
        merge_down(run, pos, h, n, t);
    for (rank = 0; k < P && n > 0; rank++) {
        if (rank == (size_t)k * run->nev / P)
            at[k++] = merge_t(run, pos, h[0]);
        if (++pos[h[0]] == run->tasks[h[0]].nev)
            h[0] = h[--n];
        merge_down(run, pos, h, n, 0);
    }
    free(pos), free(h);
    return k == P;
}

/* The parts: by time, each about `size` events of the whole run.  at[k]
 * is the time part k starts at (at[0] the run's start; the times of
 * ranks k * nev / P: merged from the tasks, or a sorted copy when a
 * task's clock stepped back); cut[task * (P+1) + k] the task's first
 * event in part k, in order along the task (a clock that stepped back
 * keeps an event in its predecessor's part).  Returns P, or -1 when out
 * of memory. */
static int make_cuts(const struct top_run *run, int size, double **at,
                     int **cut)
{
    int P = (run->nev + size - 1) / size, k, m, t, e;
    double *ts;

    *at = malloc((size_t)P * sizeof **at);
    *cut = malloc((size_t)run->ntasks * (P + 1) * sizeof **cut);
    if (!*at || !*cut)
        return -1;
    if (!ranks_by_merge(run, P, *at)) {
        if (!(ts = malloc((size_t)run->nev * sizeof *ts)))
            return -1;
        for (e = 0; e < run->nev; e++)
            ts[e] = run->ev[e].t;
        qsort(ts, (size_t)run->nev, sizeof *ts, cmp_double);
        for (k = 0; k < P; k++)
            (*at)[k] = ts[(size_t)k * run->nev / P];
        free(ts);
    }
    for (k = m = 1; k < P; k++) /* a time many events share: one part, not an empty one */
        if ((*at)[k] > (*at)[m - 1])
            (*at)[m++] = (*at)[k];
    P = m;
    for (t = 0; t < run->ntasks; t++) {
        int *c = *cut + (size_t)t * (P + 1), end = run->tasks[t].first +
                                                  run->tasks[t].nev;

        c[0] = run->tasks[t].first;
        for (k = 1; k < P; k++)
            for (c[k] = c[k - 1]; c[k] < end && run->ev[c[k]].t < (*at)[k];)
                c[k]++;
        c[P] = end;
    }
    return P;
}

/* w: part k of the cuts (its lo, hi and base), or the whole run (cut NULL). */
static void set_window(struct dwin *w, int k)
{
    const struct top_run *run = w->run;
    int t, n = 0;

    w->part = k;
    for (t = 0; t < run->ntasks; t++) {
        const int *c = w->cut ? w->cut + (size_t)t * (w->nparts + 1) : NULL;

        w->lo[t] = c ? c[k] : run->tasks[t].first;
        w->hi[t] = c ? c[k + 1] : run->tasks[t].first + run->tasks[t].nev;
        w->base[t] = n;
        n += w->hi[t] - w->lo[t];
    }
    w->nev = n;
}

/* The page's data when its run is in parts: where they are and what each
 * holds ([first event, events, from, to]: microseconds since t0). */
static void write_index(FILE *fp, struct dwin *w, const double *at,
                        const char *pdir)
{
    const struct top_run *run = w->run;
    int k, first = 0;

    fprintf(fp, "{\"v\":2,\"dir\":");
    top_json_str(fp, run->dir);
    fprintf(fp, ",\"nev\":%d,\"ntasks\":%d,\"parts\":{\"at\":", run->nev,
            run->ntasks);
    top_json_str(fp, pdir);
    fprintf(fp, ",\"n\":%d,\"list\":[", w->nparts);
    for (k = 0; k < w->nparts; k++) {
        /* the last part ends at the run's last event */
        double from = at[k], to = k + 1 < w->nparts ? at[k + 1] : w->tend;

        set_window(w, k);
        fprintf(fp, "%s[%d,%d,%lld,%lld]", k ? "," : "", first, w->nev,
                (long long)((from - (double)t0_of(run)) * 1e6 + 0.5),
                (long long)((to - (double)t0_of(run)) * 1e6 + 0.5));
        first += w->nev;
    }
    fprintf(fp, "]}}\n");
}

/* The parts' data, written first (while the graph's events are there)
 * into one temporary file, part k at off[k] .. off[k + 1]. */
struct scratch {
    FILE *fp;
    long *off;
};

/* part-NNNN.js in dir: a script calling window.pangaeaPart(data, races),
 * its data copied from the scratch file. */
static int write_part(struct dwin *w, int k, const char *dir,
                      const struct race_set *rs, const struct scratch *sc,
                      pg_err *err)
{
    char path[4400], buf[65536];
    struct top_file f;
    long left = sc->off[k + 1] - sc->off[k];
    size_t n;
    FILE *fp;

    snprintf(path, sizeof path, "%s/part-%04d.js", dir, k + 1);
    if (!(fp = top_file_begin(&f, path, err)))
        return -1;
    set_window(w, k);
    fprintf(fp, "/* pangaea -display: part %d of %d of a page */\n"
            "window.pangaeaPart(", k + 1, w->nparts);
    if (fseek(sc->fp, sc->off[k], SEEK_SET) < 0)
        left = -1;
    for (; left > 0; left -= (long)n) {
        n = fread(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf,
                  sc->fp);
        if (n == 0)
            break;
        fwrite(buf, 1, n, fp);
    }
    if (left != 0) {
        top_file_end(&f, 0, err);
        return pg_err_set(err, "cannot read back the data of %s from its "
                          "temporary file", path);
    }
    putc(',', fp);
    write_races(fp, w, rs);
    fprintf(fp, ");\n");
    return top_file_end(&f, 1, err);
}

/* The parts' directory beside the page (made if absent; it must be a
 * directory, not a link), and the parts from the last one on that an
 * earlier, longer run left there (Pangaea's own files: part-NNNN.js). */
static int parts_dir(const char *dir, int from, pg_err *err)
{
    char path[4400];
    struct stat st;
    int k;

    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        return pg_err_set(err, "cannot make %s: %s", dir, strerror(errno));
    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return pg_err_set(err, "%s is not a directory: the page's parts "
                          "go there", dir);
    for (k = from; k < 100000; k++) {
        snprintf(path, sizeof path, "%s/part-%04d.js", dir, k + 1);
        if (unlink(path) < 0)
            break;
    }
    return 0;
}

/* A page of one file where a page in parts was: its parts (Pangaea's
 * part-NNNN.js) go, and their directory if nothing else is in it. */
static void drop_old_parts(const char *dir)
{
    char path[4400];
    struct stat st;
    int k;

    if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return;
    for (k = 0; k < 100000; k++) {
        snprintf(path, sizeof path, "%s/part-%04d.js", dir, k + 1);
        if (unlink(path) < 0)
            break;
    }
    rmdir(dir); /* fails, as it should, when the user keeps files there */
}

/* ---- the page ---------------------------------------------------------- */

/* A page of one file, its data written: the graph's events freed and
 * the model loaded again for the races (a lean load freed it), so the
 * two are never held together, as in a page in parts.  0 when it
 * failed (w->err says why; the page is not kept). */
static int races_ready(struct dwin *w)
{
    if (!w->whole)
        return 1;
    top_run_drop_events(w->whole);
    if (top_run_model(w->whole, w->err) == 0)
        return 1;
    w->failed = 1;
    return 0;
}

/* The template from p on, each marker replaced by what it stands for:
 * the run's data, or, for a page in parts, their index (at, pdir). */
static void write_page(FILE *fp, struct dwin *w, const char *p,
                       const double *at, const char *pdir)
{
    static const char *marks[] = { MARKER, MARK_JS, MARK_CSS, MARK_RACES,
                                   MARK_SRC };
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
        if (m == marks[0] && w->cut)
            write_index(fp, w, at, pdir);
        else if (m == marks[0])
            (void)write_data(fp, w); /* a whole run: nothing across */
        else if (m == marks[3] && w->cut)
            fputs("{\"v\":2,\"races\":\"\",\"nraces\":0}", fp);
        else if (m == marks[3] && races_ready(w))
            write_races(fp, w, NULL);
        else if (m == marks[4])
            fputs(w->cut ? " file: 'self'" : "", fp); /* the parts' scripts */
        else
            fputs(m == marks[1] ? top_filter_js : top_filter_css, fp);
        p = next + strlen(m);
    }
}

/* The parts of a page in parts: DIR/NAME.parts beside PATH (NAME.html),
 * its name relative to the page in rel. */
static int parts_paths(const char *path, char *dir, size_t size, char *rel,
                       size_t rsize, pg_err *err)
{
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strlen(base);

    if (n > 5 && !strcmp(base + n - 5, ".html"))
        n -= 5;
    if ((size_t)snprintf(rel, rsize, "%.*s.parts", (int)n, base) >= rsize ||
        (size_t)snprintf(dir, size, "%.*s%s", (int)(base - path), path, rel)
            >= size)
        return pg_err_set(err, "the page's name %.100s... is too long", path);
    return 0;
}

/* Parts whose races are written to temporary files in one pass of the
 * finder (two files each, and a table of 256 site names once a part has
 * a race: 150 KB): as many as the open files allowed leave room for
 * (RLIMIT_NOFILE less 64 for the rest), 1 to 1,000.  Each batch is a
 * pass of the finder over every race, so fewer batches keep the page
 * linear: 1,024 files make one pass up to 480 parts (4.8*10^8 events at
 * 10^6 a part). */
static int race_batch(void)
{
    struct rlimit rl;
    rlim_t n;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 64;
    n = rl.rlim_cur == RLIM_INFINITY ? 2064 : rl.rlim_cur;
    n = n > 66 ? (n - 64) / 2 : 1;
    return n > 1000 ? 1000 : (int)n;
}

/* The parts [k0, k0 + race_batch()) (their races split first, rs), each
 * written. */
static int write_batch(struct dwin *w, int k0, const char *dir,
                       struct race_set *rs, const struct part_ctx *pc,
                       const struct scratch *sc, pg_err *err)
{
    struct top_race_split how = { race_part_of, race_map_of, pc };
    int k, rc = 0, batch = race_batch();

    rs->k0 = k0;
    rs->k1 = k0 + batch < w->nparts ? k0 + batch : w->nparts;
    if (top_display_races_split(w->run, rs->r, rs->n, &how, rs->k0, rs->k1,
                                &rs->part) < 0)
        return pg_err_set(err, "cannot keep the races of the page's parts "
                          "(out of memory, or no room for temporary files)");
    for (k = rs->k0; rc == 0 && k < rs->k1; k++)
        rc = write_part(w, k, dir, rs, sc, err);
    top_display_races_drop(rs->part, rs->k1 - rs->k0);
    rs->part = NULL;
    return rc;
}

/* Each part's base per task (w->pbase), and its map's context (pc). */
static void part_bases(struct dwin *w, struct part_ctx *pc)
{
    int k, t, n;

    for (k = 0; k < w->nparts; k++) {
        const int *c = w->cut;

        pc[k] = (struct part_ctx){ w, k };
        for (t = n = 0; t < w->run->ntasks; t++, c += w->nparts + 1) {
            w->pbase[(size_t)k * w->run->ntasks + t] = n;
            n += c[k + 1] - c[k];
        }
    }
}

/* The parts' data into one temporary file (sc), in part order.  0, or
 * -1 and err. */
static int write_scratch(struct dwin *w, struct scratch *sc, pg_err *err)
{
    int k;

    if (!(sc->off = malloc(((size_t)w->nparts + 1) * sizeof *sc->off)) ||
        !(sc->fp = tmpfile()))
        return pg_err_set(err, "cannot keep the data of the page's parts "
                          "(out of memory, or no room for a temporary file)");
    for (k = 0; k < w->nparts; k++) {
        set_window(w, k);
        sc->off[k] = ftell(sc->fp);
        if (write_data(sc->fp, w) < 0)
            return pg_err_set(err, "out of memory writing the page's parts");
    }
    sc->off[k] = ftell(sc->fp);
    if (fflush(sc->fp) != 0 || ferror(sc->fp) || sc->off[k] < 0)
        return pg_err_set(err, "cannot write the data of the page's parts to "
                          "a temporary file: %s", strerror(errno));
    return 0;
}

/* Writes the parts, then the page: every part's data first, while the
 * graph's events are there; then they are freed (top_run_drop_events),
 * the races found bare (rs) and each part written with its races: the
 * races never share the memory with the graph's events. */
static int write_parts(struct top_run *run, struct dwin *w, const char *dir,
                       struct race_set *rs, const struct part_ctx *pc,
                       pg_err *err)
{
    struct scratch sc = { NULL, NULL };
    int k, rc = write_scratch(w, &sc, err);

    if (rc == 0) {
        top_run_drop_events(run);
        rc = top_run_model(run, err); /* a lean load freed it */
    }
    if (rc == 0)
        rs->n = top_run_races_bare(run, &rs->r);
    for (k = 0; rc == 0 && k < w->nparts; k = rs->k1)
        rc = write_batch(w, k, dir, rs, pc, &sc, err);
    if (sc.fp)
        fclose(sc.fp);
    free(sc.off);
    return rc;
}

/* Writes the parts (write_parts), then the page. */
static int write_parted(struct top_run *run, struct dwin *w, const char *path,
                        const double *at, struct race_set *rs, pg_err *err)
{
    char dir[4200], rel[1100];
    struct part_ctx *pc = malloc(((size_t)w->nparts + 1) * sizeof *pc);
    struct top_file f;
    FILE *fp;

    w->pbase = malloc(((size_t)w->nparts * w->run->ntasks + 1) *
                      sizeof *w->pbase);
    if (!pc || !w->pbase) {
        free(pc);
        return pg_err_set(err, "out of memory writing the page's parts");
    }
    part_bases(w, pc);
    if (parts_paths(path, dir, sizeof dir, rel, sizeof rel, err) < 0 ||
        parts_dir(dir, w->nparts, err) < 0 ||
        write_parts(run, w, dir, rs, pc, err) < 0)
        return free(pc), -1;
    free(pc);
    if (!(fp = top_file_begin(&f, path, err)))
        return -1;
    write_page(fp, w, top_graph_html, at, rel);
    return top_file_end(&f, 1, err);
}

/* The run's last event time (the last part's end in the page's index). */
static double last_time(const struct top_run *run)
{
    double to = 0;
    int e;

    for (e = 0; e < run->nev; e++)
        to = run->ev[e].t > to ? run->ev[e].t : to;
    return to;
}

int top_display_write(struct top_run *run, const char *path, pg_err *err)
{
    const char *mark = strstr(top_graph_html, MARKER);
    struct dwin w = { .run = run, .nparts = 1 };
    struct race_set rs = { NULL, 0 };
    struct top_file f; /* PATH.tmp, no link followed (untrusted.c) */
    double *at = NULL;
    int *cut = NULL, rc = -1;
    FILE *fp;

    if (!mark)
        return pg_err_set(err, "the built-in page template has no %s "
                          "marker", MARKER);
    w.lo = malloc((size_t)(run->ntasks + 1) * sizeof *w.lo);
    w.hi = malloc((size_t)(run->ntasks + 1) * sizeof *w.hi);
    w.base = malloc((size_t)(run->ntasks + 1) * sizeof *w.base);
    if (!w.lo || !w.hi || !w.base)
        goto oom;
    if (run->nev > part_size()) {
        if ((w.nparts = make_cuts(run, part_size(), &at, &cut)) < 0)
            goto oom;
        w.cut = cut;
        w.tend = last_time(run);
        rc = write_parted(run, &w, path, at, &rs, err);
        if (rs.n > 0)
            rc_races_free(rs.r, rs.n);
    } else if ((fp = top_file_begin(&f, path, err))) {
        char dir[4200], rel[1100];

        set_window(&w, 0);
        w.whole = run, w.err = err;
        write_page(fp, &w, top_graph_html, NULL, NULL);
        rc = w.failed ? (top_file_end(&f, 0, NULL), -1)
                      : top_file_end(&f, 1, err);
        if (rc == 0 && parts_paths(path, dir, sizeof dir, rel, sizeof rel,
                                   err) == 0)
            drop_old_parts(dir);
    }
    goto out;
oom:
    rc = pg_err_set(err, "out of memory writing the page of %s", run->dir);
out:
    free(w.lo);
    free(w.hi);
    free(w.base);
    free(at);
    free(cut);
    free(w.pbase);
    return rc;
}
