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
 *   "raceElsewhere":[m, ltid, msgid, part, ...] (a page in parts: the
 *                                         sends in another part, each
 *                                         once; send -2 - m above)
 * A race of many senders (a master taking 999 workers' messages: each race
 * offers the head of every worker's queue, and the next race the same but
 * the one taken) may be written as the edits that make it from the record
 * before, which is of the same task:
 *   recv, first, site, -1 - m, n, lines, then m edits (pos, del, ins,
 *   then ins pairs): of the pairs before, the del pairs at pos give way
 *   to the ins pairs; lines: its sends drawn (>= 0).
 * An edit is one sender's pairs (pairs come sender by sender, in ltid
 * order); a record is so written when it has RACE_EDIT_MIN senders or
 * more, a quarter of them or fewer changed, no notice in it or in the
 * record before, and fewer than RACE_CHAIN edited records since the last
 * full one (the page reads a race by replaying the edits from there).
 * A pair's send is most often the record before's for the same message
 * (send_of): looked up only where it is not.
 * The records' integers go to a sink as numbers (struct top_race_ints:
 * the page packs them, display.c; without one, the JSON array above), and
 * a part's wait in its temporary file as binary ints: none is printed
 * and parsed back.  One walk of the finder writes a page's records and
 * its notes (which wait in a temporary file until the site names are
 * out).  An alternative's send is found through what the finder hands
 * over with its race (rc_found_alt: the send's event, no look into the
 * message entries), and a race's alternatives are looked at again for
 * notes only when its record met one.
 */
#include <stdlib.h>
#include <string.h>

#include "log_table.h"
#include "pg_grow.h"
#include "pg_util.h"
#include "races.h"
#include "runlog.h"

static int races_of(const struct top_run *run, struct rc_race **races,
                    int bare)
{
    int n;

    *races = NULL;
    if (!run->model || (run->model->view && run->model->view->unanalysable[0]))
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

/* ---- the records' integers: as a JSON array, or in binary ----------- */

/* The records as the JSON array "races":[...] (no sink given): one
 * record a line. */
struct ints_text {
    FILE *fp;
    long count;
    struct top_race_rec rec;
};

static void text_begin(void *ctx)
{
    fprintf(((struct ints_text *)ctx)->fp, ",\n\"races\":[");
}

static void text_put(void *ctx, int v)
{
    struct ints_text *t = ctx;
    int start = top_race_rec_step(&t->rec, v);

    fprintf(t->fp, "%s%d", !t->count ? "" : start ? ",\n" : ",", v);
    t->count++;
}

static void text_end(void *ctx)
{
    fprintf(((struct ints_text *)ctx)->fp, "]");
}

/* A part's records in its temporary file, as ints (copied out to the
 * page's sink when the part is written). */
static void bin_put(void *ctx, int v)
{
    fwrite(&v, sizeof v, 1, ctx);
}

/* ---- a record as edits of the one before ------------------------------ */

#define RACE_CHAIN 64        /* edited records, at most, after a full one */
#define RACE_EDIT_MIN 16     /* the fewest senders an edited record has */

struct page_alt {            /* a pair of a record, its sender and message */
    int s, fb, ltid, m;      /* ltid -1: a notice */
};
struct page_alts {           /* a record's pairs */
    struct page_alt *a;
    size_t n, cap;
    int held, task, chain;   /* chain: edited records since a full one */
    int nsenders, ordered, notices, lines;
};
struct page_edit {           /* one sender's pairs made anew */
    size_t pos, del, at, ins; /* pos, del in the pairs before; at, ins now */
};

/* What writing the races keeps: where the records' integers go, the
 * page's site names, how many notes are written; the record before and
 * the one at hand, and the edits between them. */
struct race_out {
    FILE *fp, *nfp; /* the block, the notes (fp, or a temporary file) */
    struct top_race_ints ints; /* the records' integers */
    const struct top_run *run;
    const struct top_display_map *pm;
    char (*names)[600];
    int nnames, nnotes;
    struct page_alts prev, cur;
    struct page_edit *ed;
    size_t ned, caped;
    unsigned char *seen; /* the sends in another part listed, a bit each */
    int *else_of;        /* and listed: (m, ltid, msgid, part) each */
    size_t nelse, capelse;
    struct rc_site_memo site; /* the last race's site, named */
};

/* Alternative a (message m), whose send lies in part `part`, as a pair's
 * send: -2 - m, listed once in "raceElsewhere" (named in the details, as
 * a drawn send is), or -1 (no room to list it: unnamed). */
static int elsewhere(struct race_out *o, int m, const struct rc_alt_of *a,
                     int part)
{
    const struct rc_run *rr = o->run->model;

    if (!o->seen && !(o->seen = calloc((size_t)rr->nmsg / 8 + 1, 1)))
        return -1;
    if (!(o->seen[m >> 3] & (1u << (m & 7)))) {
        if (pg_grow(&o->else_of, &o->capelse, o->nelse + 4,
                    sizeof *o->else_of) < 0)
            return -1;
        o->seen[m >> 3] |= (unsigned char)(1u << (m & 7));
        o->else_of[o->nelse++] = m, o->else_of[o->nelse++] = a->ltid;
        o->else_of[o->nelse++] = a->msgid, o->else_of[o->nelse++] = part;
    }
    return -2 - m;
}

/* Pair (s, fb) of sender ltid, message m, into the record at hand c
 * (room made). */
static void alt_add(struct page_alts *c, int s, int fb, int ltid, int m)
{
    const struct page_alt *l = c->n ? &c->a[c->n - 1] : NULL;

    if (ltid < 0)
        c->notices++;
    else if (!l || l->ltid != ltid)
        c->nsenders++, c->ordered &= !l || l->ltid < ltid;
    c->lines += s >= 0;
    c->a[c->n++] = (struct page_alt){ s, fb, ltid, m };
}

/* The end of the pairs of the sender at i. */
static size_t group_end(const struct page_alts *x, size_t i)
{
    while (++i < x->n && x->a[i].ltid == x->a[i - 1].ltid)
        ;
    return i;
}

static int same_pairs(const struct page_alt *a, const struct page_alt *b,
                      size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (a[i].s != b[i].s || a[i].fb != b[i].fb)
            return 0;
    return 1;
}

/* From pairs *i of p and *j of c on (each a sender's first), past every
 * sender whose pairs are the same in both, a pair at a time (most are:
 * the race before moved one sender on), to the first pair of the first
 * sender that differs in each. */
static void skip_same(const struct page_alts *p, const struct page_alts *c,
                      size_t *i, size_t *j)
{
    size_t a = *i, b = *j;
    int sp;

    while (a < p->n && b < c->n && p->a[a].m == c->a[b].m &&
           p->a[a].ltid == c->a[b].ltid && p->a[a].fb == c->a[b].fb)
        a++, b++; /* one message: one send */
    if (a > *i) { /* the last sender passed: all of it the same? */
        sp = p->a[a - 1].ltid;
        if ((a < p->n && p->a[a].ltid == sp) ||
            (b < c->n && c->a[b].ltid == sp))
            while (a > *i && p->a[a - 1].ltid == sp)
                a--, b--; /* no: back to its first pair, in both */
    }
    *i = a, *j = b;
}

/* An edit: the pairs before [i, ie) give way to those at hand [j, je). */
static int edit(struct race_out *o, size_t i, size_t ie, size_t j, size_t je)
{
    if (pg_grow(&o->ed, &o->caped, o->ned + 1, sizeof *o->ed) < 0)
        return -1;
    o->ed[o->ned++] = (struct page_edit){ i, ie - i, j, je - j };
    return 0;
}

/* Whether the record at hand is written as edits of the one before
 * (o->ed), the senders of both merged in ltid order. */
static int as_edits(struct race_out *o)
{
    const struct page_alts *p = &o->prev, *c = &o->cur;
    size_t i = 0, j = 0, ie, je, most = (size_t)c->nsenders / 4;
    int d;

    o->ned = 0;
    if (!p->held || p->task != c->task || p->chain + 1 >= RACE_CHAIN ||
        p->notices || c->notices || !p->ordered || !c->ordered ||
        c->nsenders < RACE_EDIT_MIN)
        return 0;
    for (skip_same(p, c, &i, &j); (i < p->n || j < c->n) && o->ned <= most;
         skip_same(p, c, &i, &j)) {
        ie = i < p->n ? group_end(p, i) : i;
        je = j < c->n ? group_end(c, j) : j;
        d = i == p->n ? 1 : j == c->n ? -1
            : (p->a[i].ltid > c->a[j].ltid) - (p->a[i].ltid < c->a[j].ltid);
        if (d == 0 && ie - i == je - j &&
            same_pairs(p->a + i, c->a + j, ie - i)) {
            i = ie, j = je; /* the same sender, the same pairs */
            continue;
        }
        if (d > 0)
            ie = i; /* a sender new: nothing before gives way */
        if (d < 0)
            je = j; /* a sender gone: nothing comes */
        if (edit(o, i, ie, j, je) < 0)
            return 0;
        i = ie, j = je;
    }
    return o->ned <= most;
}

/* The pairs of the record at hand: in full, or as edits. */
static void put_pairs(struct race_out *o)
{
    const struct page_alts *c = &o->cur;
    size_t k, j;

    if (!as_edits(o)) {
        o->ints.put(o->ints.ctx, (int)c->n);
        for (j = 0; j < c->n; j++) {
            o->ints.put(o->ints.ctx, c->a[j].s);
            o->ints.put(o->ints.ctx, c->a[j].fb);
        }
        o->cur.chain = 0;
        return;
    }
    o->ints.put(o->ints.ctx, -1 - (int)o->ned);
    o->ints.put(o->ints.ctx, (int)c->n);
    o->ints.put(o->ints.ctx, c->lines);
    for (k = 0; k < o->ned; k++) {
        o->ints.put(o->ints.ctx, (int)o->ed[k].pos);
        o->ints.put(o->ints.ctx, (int)o->ed[k].del);
        o->ints.put(o->ints.ctx, (int)o->ed[k].ins);
        for (j = o->ed[k].at; j < o->ed[k].at + o->ed[k].ins; j++) {
            o->ints.put(o->ints.ctx, c->a[j].s);
            o->ints.put(o->ints.ctx, c->a[j].fb);
        }
    }
    o->cur.chain = o->prev.chain + 1;
}

static void race_out_free(struct race_out *o)
{
    free(o->prev.a), free(o->cur.a), free(o->ed);
    free(o->seen), free(o->else_of);
    o->prev.a = o->cur.a = NULL, o->ed = NULL;
    o->seen = NULL, o->else_of = NULL;
}

/* o's sink: ints, or the JSON array on fp (t, the caller's). */
static void race_sink(struct race_out *o, const struct top_race_ints *ints,
                      struct ints_text *t)
{
    *t = (struct ints_text){ o->fp, 0, { 0 } };
    o->ints = ints ? *ints
                   : (struct top_race_ints){ text_begin, text_put, text_end, t };
}

/* Alternative a (message m) of the race at hand as a pair's send: the
 * send's place in the page (part), -2 - m in another part, -1 a notice.
 * The record before, of the same task, most often had the same message
 * of the sender: its send is taken from there (*pi: where a walk of its
 * pairs in ltid order is), not looked up (a random place in the graph's
 * map, and a search of the task's part: a race of 999 alternatives
 * costs that 999 times). */
static int send_of(struct race_out *o, const struct rc_alt_of *a, int m,
                   int carry, size_t *pi)
{
    const struct page_alts *p = &o->prev;
    int ge, s, part;

    if (a->ltid < 0)
        return -1;
    if (carry) { /* the record before is of this task */
        if (*pi < p->n && p->a[*pi].m == m && p->a[*pi].ltid == a->ltid)
            return p->a[(*pi)++].s; /* most often: in step */
        while (*pi < p->n && (p->a[*pi].ltid < a->ltid ||
                              (p->a[*pi].ltid == a->ltid && p->a[*pi].m < m)))
            (*pi)++;
        if (*pi < p->n && p->a[*pi].ltid == a->ltid && p->a[*pi].m == m)
            return p->a[(*pi)++].s; /* the same message: the same send */
    }
    ge = o->run->graph_of[a->ev]; /* the send in the graph */
    s = ge >= 0 ? race_here(o->pm, ge, &part) : -1;
    return ge >= 0 && s < 0 ? elsewhere(o, m, a, part) : s;
}

/* Race r as the page's "races" entry: its receive, first mark, site and
 * alternatives (sends, and whether FIFO is broken).  Whether it has notes
 * (race_notes: an alternative that is a notice). */
static int race_entry(struct race_out *o, const struct rc_race *r)
{
    const struct rc_run *rr = o->run->model;
    const struct rc_ev *e = RC_EV(rr, r->task, r->pos);
    const int *map = o->run->graph_of;
    const struct rc_alt_of *of = rc_found == r ? rc_found_of : NULL;
    int j, part, recv, s, si, carry, notes = 0;
    struct page_alts swap;
    size_t pi = 0;
    struct rc_alt_of a;

    recv = map[rr->tasks[r->task].first + r->pos - 1];
    if (recv < 0 || (recv = race_here(o->pm, recv, &part)) < 0)
        return 0; /* a failed poll, a notice: not drawn; elsewhere */
    si = site_index(o->names, &o->nnames,
                    rc_site_memo_name(rr, r->task, e->site, &o->site));
    o->ints.put(o->ints.ctx, recv);
    o->ints.put(o->ints.ctx, r->first);
    o->ints.put(o->ints.ctx, si);
    o->cur = (struct page_alts){ o->cur.a, 0, o->cur.cap, 1, r->task, 0, 0,
                                 1, 0, 0 };
    if (r->nalts < RACE_EDIT_MIN ||
        pg_grow(&o->cur.a, &o->cur.cap, (size_t)r->nalts + 1,
                sizeof *o->cur.a) < 0)
        o->cur.held = 0; /* too few senders to edit (or no room): written
                            in full as found, and not edited from */
    if (!o->cur.held)
        o->ints.put(o->ints.ctx, r->nalts);
    carry = o->prev.held && o->prev.task == r->task;
    for (j = 0; j < r->nalts; j++) {
        a = of ? of[j] : rc_alt_of_msg(rr, r->alts[j].msg);
        s = send_of(o, &a, (int)r->alts[j].msg, carry, &pi);
        notes |= a.ltid < 0;
        if (o->cur.held) {
            alt_add(&o->cur, s, r->alts[j].fifo_broken, a.ltid,
                    (int)r->alts[j].msg);
        } else {
            o->ints.put(o->ints.ctx, s);
            o->ints.put(o->ints.ctx, r->alts[j].fifo_broken);
        }
    }
    if (o->cur.held)
        put_pairs(o);
    swap = o->prev, o->prev = o->cur, o->cur = swap;
    return notes;
}

/* Race r's "raceNotes": its alternatives that are notices. */
static void race_notes(struct race_out *o, const struct rc_race *r)
{
    const struct rc_run *rr = o->run->model;
    const int *map = o->run->graph_of;
    int j, part, recv;

    recv = map[rr->tasks[r->task].first + r->pos - 1];
    if (recv >= 0)
        recv = race_here(o->pm, recv, &part);
    for (j = 0; recv >= 0 && j < r->nalts; j++) {
        const struct rc_msg *m = &rr->msg[r->alts[j].msg];

        if (m->src < 0) {
            fprintf(o->nfp, "%s%d,", o->nnotes++ ? "," : "", recv);
            notice_text(o->nfp, rr, r->alts[j].msg);
        }
    }
}

/* The end of the records, and the site names. */
static void race_sites(struct race_out *o)
{
    int i;

    o->ints.end(o->ints.ctx);
    fprintf(o->fp, ",\n\"raceSites\":[");
    for (i = 0; i < o->nnames; i++) {
        fprintf(o->fp, "%s", i ? "," : "");
        top_json_str(o->fp, o->names[i]);
    }
    fprintf(o->fp, "],\n\"raceNotes\":[");
}

/* The end of the notes, and the sends in other parts. */
static void race_end(const struct race_out *o, FILE *fp)
{
    size_t i;

    fprintf(fp, "]");
    if (!o->nelse)
        return;
    fprintf(fp, ",\n\"raceElsewhere\":[");
    for (i = 0; i < o->nelse; i++)
        fprintf(fp, "%s%d", i ? "," : "", o->else_of[i]);
    fprintf(fp, "]");
}

/* The notes waiting in their temporary file, after the site names (a
 * write that fails shows as the page's stream's error). */
static void copy_rest(FILE *to, FILE *from)
{
    rewind(from);
    (void)pg_copy_stream(to, from);
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

static int entry_notes_each(struct rc_run *rr, const struct rc_race *r,
                            void *arg)
{
    struct race_out *o = arg;

    (void)rr;
    if (race_entry(o, r))
        race_notes(o, r);
    return ferror(o->nfp) ? -1 : 0;
}

/* The whole run's races, streamed: kept bare (32 bytes a race: the first
 * marks need them all), their alternatives found again race by race
 * (rc_find_each) and forgotten: a deep queue's race at 256 tasks has ~128
 * of them.  One walk gives the entries and the notes, which come after
 * the site names: they wait in a temporary file (rare: notices). */
void top_display_races(FILE *fp, const struct top_run *run,
                       const struct top_race_ints *ints)
{
    static char names[256][600];
    struct race_out o = { fp, NULL, { 0 }, run, NULL, names, 0, 0 };
    struct ints_text t;
    struct rc_race *r = NULL;
    int n = top_run_races_bare(run, &r);

    race_sink(&o, ints, &t);
    o.ints.begin(o.ints.ctx);
    if (n > 0 && (o.nfp = tmpfile())) {
        rc_find_each(run->model, r, n, entry_notes_each, &o);
        race_sites(&o);
        copy_rest(fp, o.nfp);
        fclose(o.nfp);
    } else if (n > 0) { /* no temporary file: a walk for each */
        rc_find_each(run->model, r, n, entry_each, &o);
        race_sites(&o);
        o.nfp = fp;
        rc_find_each(run->model, r, n, notes_each, &o);
    } else {
        race_sites(&o);
    }
    race_end(&o, fp);
    race_out_free(&o);
    if (n > 0)
        rc_races_free(r, n);
}

/* Races kept with their alternatives (rc_find), written as the page's
 * block: what the streamed writers above and below must write (the unit
 * tests hold them to it). */
void top_display_races_of(FILE *fp, const struct top_run *run,
                          const struct rc_race *r, int n,
                          const struct top_display_map *pm,
                          const struct top_race_ints *ints)
{
    static char names[256][600];
    struct race_out o = { fp, fp, { 0 }, run, pm, names, 0, 0 };
    struct ints_text t;
    int i;

    race_sink(&o, ints, &t);
    o.ints.begin(o.ints.ctx);
    for (i = 0; i < n; i++)
        race_entry(&o, &r[i]);
    race_sites(&o);
    for (i = 0; i < n; i++)
        race_notes(&o, &r[i]);
    race_end(&o, fp);
    race_out_free(&o);
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
        o->ints = (struct top_race_ints){ NULL, bin_put, NULL, o->fp };
        x->map[k - x->k0] = x->how->map_of(x->how->ctx, k);
        o->pm = &x->map[k - x->k0];
    }
    if (race_entry(o, r))
        race_notes(o, r);
    return ferror(o->fp) || ferror(o->nfp) ? -1 : 0;
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

/* The part's records, from its temporary file's ints to the sink. */
static void copy_ints(const struct top_race_ints *to, FILE *from)
{
    int buf[16384];
    size_t n, j;

    rewind(from);
    while ((n = fread(buf, sizeof *buf, sizeof buf / sizeof *buf, from)) > 0)
        for (j = 0; j < n; j++)
            to->put(to->ctx, buf[j]);
}

void top_display_races_part(FILE *fp, struct top_race_part *parts, int i,
                            const struct top_race_ints *ints)
{
    struct race_out *o = &parts[i].o, w = *o;
    struct ints_text t;

    w.fp = fp;
    race_sink(&w, ints, &t);
    w.ints.begin(w.ints.ctx);
    if (o->fp)
        copy_ints(&w.ints, o->fp);
    race_sites(&w);
    if (o->nfp)
        copy_rest(fp, o->nfp);
    race_end(o, fp);
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
        race_out_free(&parts[k].o);
    }
    free(parts);
}
