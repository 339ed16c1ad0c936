/*
 * display_races.c - the races of `pangaea -races` in the event graph
 * (display.c, graph.html): the page marks each racing receive and draws a
 * dashed line from each alternative send to it; its details list the
 * alternatives and the call site.
 *
 * Design.  The graph is derived from the recording's model (races.h,
 * runlog.c), which the analysis reads too: the races are found on the
 * run's own model, and an event of the model is the graph's through
 * run->graph_of (no second load, no second matching).  Failed polls and
 * notices are not drawn (no mark, no line);
 * a notice an alternative is named in the details only.  A run where
 * every receive races (a master taking results from anyone) has as many
 * races as receives, so the data is flat integers:
 *   "races":[recv, first, site, n, send, fifo_broken, ... (n pairs), ...]
 *   "raceSites":["file.c:LINE", ...]     (site indexes into it)
 *   "raceNotes":[recv, "text", ...]      (alternatives that are notices:
 *                                         send -1 above)
 */
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
#include "races.h"
#include "runlog.h"

static int races_of(const struct top_run *run, struct rc_race **races,
                    int bare)
{
    int n;

    *races = NULL;
    if (!run->model || run->model->view->unanalysable[0])
        return 0; /* -races would refuse these logs: drawn without */
    if ((n = bare ? rc_find_bare(run->model, races)
                  : rc_find(run->model, races)) < 0)
        return *races = NULL, 0;
    return n;
}

int top_run_races(const struct top_run *run, struct rc_race **races)
{
    return races_of(run, races, 0);
}

int top_run_races_bare(const struct top_run *run, struct rc_race **races)
{
    return races_of(run, races, 1);
}

static void notice_text(FILE *fp, const struct rc_run *rr, int m)
{
    char buf[160];

    if (rr->msg[m].notice_of >= 0)
        snprintf(buf, sizeof buf, "the exit notice of ltid %d (tag %d)",
                 rr->tasks[rr->msg[m].notice_of].ltid,
                 rc_msg_tag(rr, &rr->msg[m]));
    else
        snprintf(buf, sizeof buf, "a notice of PVM's (tag %d)",
                 rc_msg_tag(rr, &rr->msg[m]));
    top_json_str(fp, buf);
}

/* The index of the site's name in names (adding it), -1 when full. */
static int site_index(char names[][600], int *n, const char *name)
{
    int i;

    for (i = 0; i < *n; i++)
        if (!strcmp(names[i], name))
            return i;
    if (*n == 256)
        return -1;
    snprintf(names[*n], 600, "%s", name);
    return (*n)++;
}

/* e's index in the page (part) being written, or -1 and *part the part
 * it is in; every event is in a page of the whole run. */
static int race_here(const struct top_display_map *m, int e, int *part)
{
    *part = 0;
    return !m ? e : m->here(m->ctx, e, part);
}

/* An alternative send (message entry m) that lies in another part of
 * the page: named by the model (a page in parts has freed the graph's
 * events by the time its races are written). */
static void elsewhere_text(FILE *fp, const struct rc_run *rr,
                           const struct rc_msg *m, int part)
{
    char buf[160];

    snprintf(buf, sizeof buf, "ltid %d msg %d, in part %d of this page",
             rr->tasks[m->src].ltid, rc_msg_msgid(rr, m), part + 1);
    top_json_str(fp, buf);
}

/* What writing the races keeps: the page's site names, how many races
 * and notes are written. */
struct race_out {
    FILE *fp, *nfp; /* the entries, the notes (the same stream, or two) */
    const struct top_run *run;
    const struct top_display_map *pm;
    char (*names)[600];
    int nnames, out, nnotes;
};

/* Race r as the page's "races" entry: its receive, first mark, site and
 * alternatives (sends, and whether FIFO is broken). */
static void race_entry(struct race_out *o, const struct rc_race *r)
{
    const struct rc_run *rr = o->run->model;
    const struct rc_ev *e = RC_EV(rr, r->task, r->pos);
    const int *map = o->run->graph_of;
    int j, part, recv, s, si;
    char site[600];

    recv = map[rr->tasks[r->task].first + r->pos - 1];
    if (recv < 0 || (recv = race_here(o->pm, recv, &part)) < 0)
        return; /* a failed poll, a notice: not drawn; elsewhere */
    si = site_index(o->names, &o->nnames,
                    rc_site_name(rr, r->task, e->site, site, sizeof site));
    fprintf(o->fp, "%s%d,%d,%d,%d", o->out++ ? ",\n" : "", recv, r->first,
            si, r->nalts);
    for (j = 0; j < r->nalts; j++) {
        const struct rc_msg *m = &rr->msg[r->alts[j].msg];

        s = m->src >= 0 ? map[rr->tasks[m->src].first + m->src_pos - 1] : -1;
        fprintf(o->fp, ",%d,%d", s >= 0 ? race_here(o->pm, s, &part) : -1,
                r->alts[j].fifo_broken);
    }
}

/* Race r's "raceNotes": its alternatives that are notices, or in another
 * part of the page. */
static void race_notes(struct race_out *o, const struct rc_race *r)
{
    const struct rc_run *rr = o->run->model;
    const int *map = o->run->graph_of;
    int j, part, recv, s;

    recv = map[rr->tasks[r->task].first + r->pos - 1];
    if (recv >= 0)
        recv = race_here(o->pm, recv, &part);
    for (j = 0; recv >= 0 && j < r->nalts; j++) {
        const struct rc_msg *m = &rr->msg[r->alts[j].msg];

        if (m->src < 0) {
            fprintf(o->nfp, "%s%d,", o->nnotes++ ? "," : "", recv);
            notice_text(o->nfp, rr, r->alts[j].msg);
        } else if ((s = map[rr->tasks[m->src].first + m->src_pos - 1]) >= 0
                   && race_here(o->pm, s, &part) < 0) {
            fprintf(o->nfp, "%s%d,", o->nnotes++ ? "," : "", recv);
            elsewhere_text(o->nfp, rr, m, part);
        }
    }
}

static void race_sites(struct race_out *o)
{
    int i;

    fprintf(o->fp, "],\n\"raceSites\":[");
    for (i = 0; i < o->nnames; i++) {
        fprintf(o->fp, "%s", i ? "," : "");
        top_json_str(o->fp, o->names[i]);
    }
    fprintf(o->fp, "],\n\"raceNotes\":[");
}

static int entry_each(struct rc_run *rr, const struct rc_race *r, void *arg)
{
    (void)rr;
    race_entry(arg, r);
    return 0;
}

static int notes_each(struct rc_run *rr, const struct rc_race *r, void *arg)
{
    (void)rr;
    race_notes(arg, r);
    return 0;
}

/* The whole run's races, streamed: kept bare (32 bytes a race), their
 * alternatives found again race by race (rc_find_each) for the entries,
 * then for the notes, and forgotten: a deep queue's race at 256 tasks has
 * ~128 of them. */
void top_display_races(FILE *fp, const struct top_run *run)
{
    static char names[256][600];
    struct race_out o = { fp, fp, run, NULL, names, 0, 0, 0 };
    struct rc_race *r = NULL;
    int n = top_run_races_bare(run, &r);

    fprintf(fp, ",\n\"races\":[");
    if (n > 0)
        rc_find_each(run->model, r, n, entry_each, &o);
    race_sites(&o);
    if (n > 0)
        rc_find_each(run->model, r, n, notes_each, &o);
    fprintf(fp, "]");
    if (n > 0)
        rc_races_free(r, n);
}

/* Races kept with their alternatives (rc_find), written as the page's
 * block: what the streamed writers above and below must write (the unit
 * tests hold them to it). */
void top_display_races_of(FILE *fp, const struct top_run *run,
                          const struct rc_race *r, int n,
                          const struct top_display_map *pm)
{
    static char names[256][600];
    struct race_out o = { fp, fp, run, pm, names, 0, 0, 0 };
    int i;

    fprintf(fp, ",\n\"races\":[");
    for (i = 0; i < n; i++)
        race_entry(&o, &r[i]);
    race_sites(&o);
    for (i = 0; i < n; i++)
        race_notes(&o, &r[i]);
    fprintf(fp, "]");
}

/* ---- a page in parts: each part's races as they are found ------------- */

struct top_race_part {
    struct race_out o;
};

struct top_race_parts {
    const struct top_run *run;
    int k0, k1;                /* the parts [k0, k1) */
    const struct top_race_split *how;
    struct top_race_part *out; /* per part: its temporary files, names */
    struct top_display_map *map;
};

static int split_each(struct rc_run *rr, const struct rc_race *r, void *arg)
{
    struct top_race_parts *x = arg;
    int e = x->run->graph_of[rr->tasks[r->task].first + r->pos - 1], k;
    struct race_out *o;

    if (e < 0 || (k = x->how->part_of(x->how->ctx, e)) < x->k0 || k >= x->k1)
        return 0; /* a failed poll, a notice: not drawn; another batch */
    o = &x->out[k - x->k0].o;
    if (!o->fp) { /* the part's first race */
        if (!(o->fp = tmpfile()) || !(o->nfp = tmpfile()) ||
            !(o->names = calloc(256, sizeof *o->names)))
            return -1;
        x->map[k - x->k0] = x->how->map_of(x->how->ctx, k);
        o->pm = &x->map[k - x->k0];
    }
    race_entry(o, r);
    race_notes(o, r);
    return ferror(o->fp) || ferror(o->nfp) ? -1 : 0;
}

static void copy_rest(FILE *to, FILE *from)
{
    char buf[65536];
    size_t n;

    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        fwrite(buf, 1, n, to);
}

int top_display_races_split(const struct top_run *run, const struct rc_race *r,
                            int n, const struct top_race_split *how, int k0,
                            int k1, struct top_race_part **parts)
{
    struct top_race_parts x = { run, k0, k1, how, NULL, NULL };
    int k, rc = 0;

    x.out = calloc((size_t)(k1 - k0) + 1, sizeof *x.out);
    x.map = calloc((size_t)(k1 - k0) + 1, sizeof *x.map);
    if (!x.out || !x.map)
        return free(x.out), free(x.map), -1;
    for (k = 0; k < k1 - k0; k++)
        x.out[k].o.run = run;
    if (n > 0)
        rc = rc_find_each(run->model, r, n, split_each, &x);
    free(x.map); /* the out's pm are used no more: written */
    for (k = 0; k < k1 - k0; k++)
        x.out[k].o.pm = NULL;
    *parts = x.out;
    if (rc < 0)
        top_display_races_drop(*parts, k1 - k0), *parts = NULL;
    return rc;
}

void top_display_races_part(FILE *fp, struct top_race_part *parts, int i)
{
    struct race_out *o = &parts[i].o, w = *o;

    fprintf(fp, ",\n\"races\":[");
    if (o->fp)
        copy_rest(fp, o->fp);
    w.fp = fp;
    race_sites(&w);
    if (o->nfp)
        copy_rest(fp, o->nfp);
    fprintf(fp, "]");
}

void top_display_races_drop(struct top_race_part *parts, int n)
{
    int k;

    for (k = 0; parts && k < n; k++) {
        if (parts[k].o.fp)
            fclose(parts[k].o.fp);
        if (parts[k].o.nfp)
            fclose(parts[k].o.nfp);
        free(parts[k].o.names);
    }
    free(parts);
}
