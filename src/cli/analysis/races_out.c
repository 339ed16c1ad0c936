/*
 * races_out.c - `pangaea -races [-json|-jsonl] [LOGDIR]`: the report of races.h.
 *
 * Exit status 0: no race; 1: races (a CI job can gate on it); 2: bad
 * input (no logs, a malformed log), as the other commands.
 *
 * Design.  The text report is for a person: races are grouped by call
 * site and sender set, so a race in a loop is one entry ("same at 49 more
 * receives"), and the entries whose races are "first" (no other race
 * happens before them) come first: the later ones may be artifacts of
 * those.  Each entry shows its earliest receive.  The JSON report is for
 * tools: every race, ungrouped, with the fields README.md lists, its
 * alternatives as runs of a sender's consecutive message ids ([ltid,
 * first, last, tag]): a queue that lost per-pair order is one run, and a
 * race of a 256-task deep queue (the head of each sender's queue) costs
 * ~16 bytes a sender.  JSON lines (-jsonl) are for big recordings: a line
 * a race, the runs per sender without their tags.  In both, a race of
 * many senders is written as what changed since the race before it, of
 * the same task, where that is short (races_runs.c); -full writes every
 * race whole.  Both are written in two halves at once (each_race).
 */
#include "races.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_table.h"
#include "pg_grow.h"
#include "pg_log.h"
#include "pg_util.h"
#include "runlog.h"
#include "top.h"

#define DEFAULT_LOGDIR "logs"

const char *rc_site_memo_name(const struct rc_run *run, int t, int site,
                              struct rc_site_memo *m)
{
    if (!m->held || m->task != t || m->site != site)
        rc_site_name(run, t, site, m->name, sizeof m->name);
    m->held = 1, m->task = t, m->site = site;
    return m->name;
}

const char *rc_site_name(const struct rc_run *run, int t, int site, char *buf,
                         int size)
{
    const struct rc_task *k = &run->tasks[t];

    if (site < 1 || site > k->nsites) {
        snprintf(buf, size, "an unknown site");
        return buf;
    }
    return pg_site_name(run->text + k->sites[site - 1].module,
                            k->sites[site - 1].offset, buf, size);
}

static const char *call_of(const struct rc_ev *e)
{
    return pg_msg_calls[e->call < pg_n_msg_calls ? e->call : 0];
}

static const char *source_text(int afrom, char *buf, int size)
{
    if (afrom == -1)
        return "-1";
    if (afrom == -2)
        return "a task outside the run";
    if (afrom <= -3)
        return "?";
    snprintf(buf, size, "ltid %d", afrom);
    return buf;
}

/* "ltid 2 msg 5", "the exit notice of ltid 3", "a host notice". */
static void msg_text(const struct rc_run *run, int m, FILE *fp)
{
    const struct rc_msg *x = &run->msg[m];

    if (x->src >= 0)
        fprintf(fp, "ltid %d msg %d", run->tasks[x->src].ltid,
                rc_msg_msgid(run, x));
    else if (x->notice_of >= 0)
        fprintf(fp, "the exit notice of ltid %d (tag %d)",
                run->tasks[x->notice_of].ltid, rc_msg_tag(run, x));
    else
        fprintf(fp, "a notice of PVM's (tag %d)", rc_msg_tag(run, x));
}

/* ---- grouping -------------------------------------------------------------- */

/* An entry's key: the site (object, offset), the call, the kind, then
 * every sender, sorted (a pool of ints: a receive of a 256-task run has
 * 256 senders, and a receive that lost per-pair order may list one
 * sender's whole queue before the next sender: no fixed room cuts a set
 * short, so receives with other senders are never one entry). */
struct entry {
    size_t koff;       /* its key: grouper.keys[koff .. koff+nkey-1] */
    int nkey;
    struct rc_race rep; /* the race it shows (its first, or its first
                           "first" race), its alternatives a copy */
    int count, any_first;
    long polls;        /* runs of failed polls: the polls they held */
};

struct grouper {
    struct entry *g;
    int ng;
    size_t capg;
    int *tab, hcap;    /* hash of the entries, open addressing */
    int *keys;         /* every entry's key */
    size_t nkeys, capk;
    int *key;          /* the key of the race at hand */
    size_t capkey;
};

/* A message's sender as a number: its ltid; a notice of PVM's -1, the exit
 * notice of ltid L -2 - L (the notices of two tasks are two senders). */
static int sender_of(const struct rc_run *run, int m)
{
    const struct rc_msg *x = &run->msg[m];

    if (x->src >= 0)
        return run->tasks[x->src].ltid;
    return x->notice_of >= 0 ? -2 - run->tasks[x->notice_of].ltid : -1;
}

/* Alternative i of race r's sender, as sender_of says it (from what the
 * finder handed over with r: no look into run->msg for a task's). */
static int alt_sender(const struct rc_run *run, const struct rc_race *r,
                      int i)
{
    struct rc_alt_of a = rc_found_alt(run, r, i);

    return a.ltid >= 0 ? a.ltid : sender_of(run, r->alts[i].msg);
}

/* How many polls the run of failed polls of race r held: the number
 * rides on the event after its <poll> (docs/comm-log-format.md); 0 when r
 * is no such run, -1 when the log ends before saying. */
static int polls_of(const struct rc_run *run, const struct rc_race *r)
{
    if (RC_EV(run, r->task, r->pos)->kind != PG_EV_POLL)
        return 0;
    if (r->pos >= run->tasks[r->task].n)
        return -1;
    return rc_ev_misses(run, r->task, r->pos + 1);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* The first of ids[lo .. hi), which is sorted, not below x. */
static int lower_int(const int *ids, int lo, int hi, int x)
{
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;

        if (ids[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Sorts ids[0 .. n).  Most often all but the first are in order already
 * (a race's alternatives come sender by sender in task order, which is
 * ltid order; the first is the taken message's sender): that one is put
 * in its place; anything else is sorted whole. */
static void sort_ids(int *ids, int n)
{
    int i, x;

    if (n < 2)
        return;
    for (i = 2; i < n && ids[i - 1] <= ids[i]; i++)
        ;
    if (i < n) {
        qsort(ids, n, sizeof *ids, cmp_int);
        return;
    }
    x = ids[0];
    i = lower_int(ids, 1, n, x); /* x goes before ids[i] */
    memmove(ids, ids + 1, (size_t)(i - 1) * sizeof *ids);
    ids[i - 1] = x;
}

/* The key of race r into gr->key: the site (object and offset: the same
 * in every task), the call, the kind, and the senders (taken and
 * alternatives); returns its length, -1 when out of memory. */
static int group_key(const struct rc_run *run, const struct rc_race *r,
                     struct grouper *gr)
{
    const struct rc_ev *e = RC_EV(run, r->task, r->pos);
    const struct rc_task *t = &run->tasks[r->task];
    int *key, *ids, n = 0, i, k, s;

    if (pg_grow(&gr->key, &gr->capkey, (size_t)r->nalts + 5,
                sizeof *gr->key) < 0)
        return -1;
    key = gr->key, ids = key + 4;
    key[0] = e->site >= 1 && e->site <= t->nsites
                 ? t->sites[e->site - 1].module : -1;
    key[1] = key[0] >= 0 ? t->sites[e->site - 1].offset : r->task;
    key[2] = e->call, key[3] = e->kind;
    if (r->took >= 0)
        ids[n++] = sender_of(run, r->took);
    for (i = 0; i < r->nalts; i++) { /* they come sender by sender */
        s = alt_sender(run, r, i);
        if (n == 0 || s != ids[n - 1])
            ids[n++] = s;
    }
    sort_ids(ids, n);
    for (i = k = 0; i < n; i++)
        if (i == 0 || ids[i] != ids[k - 1])
            ids[k++] = ids[i];
    return 4 + k;
}

/* FNV-1a over the key's ints in four lanes (a key is ~1,000 senders at
 * 1,000 tasks: one chain of multiplications was most of the grouping),
 * folded into one; only the table's placement depends on it. */
static unsigned long hash_key(const int *k, int n)
{
    const unsigned long prime = 1099511628211ul;
    unsigned long h[4] = { 1469598103934665603ul, 1, 2, 3 }, x;
    int i;

    for (i = 0; i + 4 <= n; i += 4) {
        h[0] = (h[0] ^ (unsigned)k[i]) * prime;
        h[1] = (h[1] ^ (unsigned)k[i + 1]) * prime;
        h[2] = (h[2] ^ (unsigned)k[i + 2]) * prime;
        h[3] = (h[3] ^ (unsigned)k[i + 3]) * prime;
    }
    for (; i < n; i++)
        h[0] = (h[0] ^ (unsigned)k[i]) * prime;
    x = h[0];
    for (i = 1; i < 4; i++)
        x = (x ^ h[i]) * prime;
    return x ^ x >> 29;
}

static int same_key(const struct grouper *gr, const struct entry *g,
                    const int *key, int n)
{
    return g->nkey == n && !memcmp(gr->keys + g->koff, key, n * sizeof *key);
}

/* The slot of key in the hash table: its entry's, or the empty one. */
static int slot_of(const struct grouper *gr, const int *key, int n)
{
    int h, j;

    for (h = hash_key(key, n) & (gr->hcap - 1); (j = gr->tab[h]) >= 0 &&
         !same_key(gr, &gr->g[j], key, n); h = (h + 1) & (gr->hcap - 1))
        ;
    return h;
}

/* Twice the room in the hash table, every entry hashed again. */
static int rehash(struct grouper *gr)
{
    int *old = gr->tab, k;

    if (!(gr->tab = malloc(2 * gr->hcap * sizeof *gr->tab)))
        return gr->tab = old, -1;
    free(old);
    gr->hcap *= 2;
    memset(gr->tab, -1, gr->hcap * sizeof *gr->tab);
    for (k = 0; k < gr->ng; k++)
        gr->tab[slot_of(gr, gr->keys + gr->g[k].koff, gr->g[k].nkey)] = k;
    return 0;
}

/* The race an entry shows: r, its alternatives copied (r's are the
 * finder's, valid only while it is handed over).  0, or -1. */
static int set_rep(struct entry *g, const struct rc_race *r)
{
    struct rc_alt *a = malloc(((size_t)r->nalts + 1) * sizeof *a);

    if (!a)
        return -1;
    memcpy(a, r->alts, (size_t)r->nalts * sizeof *a);
    free(g->rep.alts);
    g->rep = *r;
    g->rep.alts = a;
    return 0;
}

/* A new entry of key (its race r); its index, -1 when out of memory. */
static int new_entry(struct grouper *gr, const int *key, int nkey,
                     const struct rc_race *r)
{
    struct entry *g;

    if (pg_grow(&gr->g, &gr->capg, (size_t)gr->ng + 1, sizeof *gr->g) < 0 ||
        pg_grow(&gr->keys, &gr->capk, gr->nkeys + nkey, sizeof *gr->keys) < 0 ||
        (2 * (gr->ng + 1) > gr->hcap && rehash(gr) < 0))
        return -1;
    g = &gr->g[gr->ng];
    memset(g, 0, sizeof *g);
    if (set_rep(g, r) < 0)
        return -1;
    memcpy(gr->keys + gr->nkeys, key, nkey * sizeof *key);
    g->koff = gr->nkeys, g->nkey = nkey;
    gr->nkeys += nkey;
    gr->tab[slot_of(gr, key, nkey)] = gr->ng;
    return gr->ng++;
}

/* Race r (handed over by rc_find_each, in order) into its entry: one per
 * site and sender set, found through a hash table (a loop may race a
 * million times).  0, or -1 when out of memory. */
static int group_one(struct rc_run *run, const struct rc_race *r, void *arg)
{
    struct grouper *gr = arg;
    int j, nkey;

    if ((nkey = group_key(run, r, gr)) < 0 ||
        ((j = gr->tab[slot_of(gr, gr->key, nkey)]) < 0 &&
         (j = new_entry(gr, gr->key, nkey, r)) < 0))
        return -1;
    if (r->first && !gr->g[j].rep.first && set_rep(&gr->g[j], r) < 0)
        return -1; /* show a first race if it has one */
    gr->g[j].count++;
    gr->g[j].polls += polls_of(run, r) > 0 ? polls_of(run, r) : 0;
    gr->g[j].any_first |= r->first;
    return 0;
}

static void free_entries(struct entry *g, int n)
{
    int i;

    for (i = 0; i < n; i++)
        free(g[i].rep.alts);
    free(g);
}

static int grouper_init(struct grouper *gr)
{
    memset(gr, 0, sizeof *gr);
    gr->hcap = 1024;
    if (!(gr->tab = malloc(gr->hcap * sizeof *gr->tab)))
        return -1;
    memset(gr->tab, -1, gr->hcap * sizeof *gr->tab);
    return 0;
}

static void grouper_free(struct grouper *gr)
{
    free(gr->tab), free(gr->keys), free(gr->key);
    free_entries(gr->g, gr->ng);
    memset(gr, 0, sizeof *gr);
}

/* The entries of the later races (hi) added to those of the earlier
 * (lo), as if one walk had grouped them all: an entry of both counts
 * both's races and shows lo's race, or hi's if only hi's is "first";
 * an entry of hi's alone comes after lo's, in hi's order.  0, or -1. */
static int merge(struct grouper *lo, const struct grouper *hi)
{
    const struct entry *e;
    struct entry *g;
    const int *key;
    int i, j;

    for (i = 0; i < hi->ng; i++) {
        e = &hi->g[i];
        key = hi->keys + e->koff;
        if ((j = lo->tab[slot_of(lo, key, e->nkey)]) < 0 &&
            (j = new_entry(lo, key, e->nkey, &e->rep)) < 0)
            return -1;
        g = &lo->g[j];
        if (e->rep.first && !g->rep.first && set_rep(g, &e->rep) < 0)
            return -1;
        g->count += e->count;
        g->polls += e->polls;
        g->any_first |= e->any_first;
    }
    return 0;
}

/* Groups the races, found again one by one (rc_find_each): their
 * alternatives are never all kept.  With two processors, the earlier
 * and the later half of the races are found again at once, each
 * grouped on its own, and the two merged (rc_find_each_split): the same
 * entries as one walk.  The number of entries, -1 when out of memory. */
static int group(struct rc_run *run, const struct rc_race *r, int n,
                 struct entry **out)
{
    struct grouper gr[2];
    int rc, mid = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? n / 2 : n;

    if (grouper_init(&gr[0]) < 0)
        return -1;
    if (grouper_init(&gr[1]) < 0)
        return grouper_free(&gr[0]), -1;
    rc = rc_find_each_split(run, r, n, mid, group_one, &gr[0], &gr[1]);
    if (rc == 0)
        rc = merge(&gr[0], &gr[1]);
    grouper_free(&gr[1]);
    if (rc < 0)
        return grouper_free(&gr[0]), -1;
    free(gr[0].tab), free(gr[0].keys), free(gr[0].key);
    *out = gr[0].g;
    return gr[0].ng;
}

/* ---- text ------------------------------------------------------------------- */

/* The size of a run of failed polls (polls_of()), after "found nothing". */
static void print_polls(int n, FILE *fp)
{
    if (n < 0)
        fprintf(fp, " (a run of failed polls; how many, the log does not "
                "say: it ends there)");
    else if (n > 1)
        fprintf(fp, " (%d failed polls in a row)", n);
    else if (n == 1)
        fprintf(fp, " (1 failed poll)");
}

static void print_entry(const struct rc_run *run, const struct rc_race *r,
                        const struct entry *g, int num, FILE *fp)
{
    const struct rc_ev *e = RC_EV(run, r->task, r->pos);
    char site[600], src[64];
    int i;

    fprintf(fp, "R%d ltid %d event %ld %s(%s, %d) at %s ", num,
            run->tasks[r->task].ltid, rc_ev_seq(run, r->task, r->pos),
            call_of(e),
            source_text(e->afrom, src, sizeof src), e->atag,
            rc_site_name(run, r->task, e->site, site, sizeof site));
    if (r->took < 0) {
        fprintf(fp, "found nothing");
        print_polls(polls_of(run, r), fp);
    } else {
        fprintf(fp, "took ");
        msg_text(run, r->took, fp);
    }
    fprintf(fp, ";\n   could have taken ");
    for (i = 0; i < r->nalts; i++) {
        fprintf(fp, "%s", i ? ", " : "");
        msg_text(run, r->alts[i].msg, fp);
        if (r->alts[i].fifo_broken)
            fprintf(fp, " (FIFO broken)");
    }
    if (g->count > 1 && e->kind == PG_EV_POLL)
        fprintf(fp, "   (same at %d more run%s of failed polls; %ld failed "
                "polls in all)", g->count - 1, g->count > 2 ? "s" : "",
                g->polls);
    else if (g->count > 1)
        fprintf(fp, "   (same at %d more receive%s)", g->count - 1,
                g->count > 2 ? "s" : "");
    fprintf(fp, "\n");
    if (r->conservative)
        fprintf(fp, "   (%s: judged as if it took any source and tag)\n",
                e->matcher ? "through the program's own matcher, pvm_recvf"
                           : "the log does not say what it asked for");
}

/* Receives that took a sender's messages out of its order, each. */
static void print_out_of_order(const struct rc_run *run,
                               const struct rc_race *r, int n, FILE *fp)
{
    int i, k = 0;

    for (i = 0; i < n; i++) {
        if (r[i].out_of_order < 0)
            continue;
        if (!k++)
            fprintf(fp, "Out of the sender's order (PVM keeps each "
                    "sender's messages in order: no run of PVM takes these "
                    "so; was the recording edited, or made by a tool that "
                    "broke that order?):\n");
        fprintf(fp, "   ltid %d event %ld took ", run->tasks[r[i].task].ltid,
                rc_ev_seq(run, r[i].task, r[i].pos));
        msg_text(run, r[i].took, fp);
        fprintf(fp, " while ");
        msg_text(run, r[i].out_of_order, fp);
        fprintf(fp, ", sent before it and accepted, was queued\n");
    }
}

static int print_text(struct rc_run *run, struct rc_race *r, int n,
                      FILE *fp)
{
    struct entry *g;
    int ng = group(run, r, n, &g), i, pass, num = 0, nfirst = 0;

    if (ng < 0)
        return -1;
    for (i = 0; i < n; i++)
        nfirst += r[i].first;
    for (pass = 1; pass >= 0; pass--) {
        if (pass == 0 && num > 0 && num < ng)
            fprintf(fp, "Later races (they may follow from those above):\n");
        for (i = 0; i < ng; i++)
            if (g[i].any_first == pass)
                print_entry(run, &g[i].rep, &g[i], ++num, fp);
    }
    print_out_of_order(run, r, n, fp);
    if (n == 0)
        fprintf(fp, "no race in %ld receives examined\n", run->receives);
    else
        fprintf(fp, "%d race%s (%d first) in %ld receives examined, %d "
                "entr%s\n", n, n > 1 ? "s" : "", nfirst, run->receives, ng,
                ng > 1 ? "ies" : "y");
    if (run->unreplayed > 0)
        fprintf(fp, "%ld call%s not replayed (%s): a replay may not repeat "
                "what they did\n", run->unreplayed,
                run->unreplayed > 1 ? "s" : "", run->unreplayed_calls);
    free_entries(g, ng);
    return 0;
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_msg(const struct rc_run *run, int m, FILE *fp, int with_tag)
{
    const struct rc_msg *x = &run->msg[m];

    if (x->src >= 0)
        fprintf(fp, "{\"ltid\": %d, \"msgid\": %d", run->tasks[x->src].ltid,
                rc_msg_msgid(run, x));
    else
        fprintf(fp, "{\"ltid\": %d, \"msgid\": 0, \"notice\": \"%s\"",
                x->notice_of >= 0 ? run->tasks[x->notice_of].ltid : -1,
                x->notice_of >= 0 ? "exit" : "host");
    if (with_tag)
        fprintf(fp, ", \"tag\": %d", rc_msg_tag(run, x));
}

/* n in decimal at p; the end.  Runs are a race's bulk (10^8 numbers at
 * 256 tasks x 10^6 events): printf's parsing of its format was most of
 * -json's time; two digits at a time. */
static char *put_int(char *p, int n)
{
    static const char two[] =
        "00010203040506070809101112131415161718192021222324252627282930313233"
        "34353637383940414243444546474849505152535455565758596061626364656667"
        "6869707172737475767778798081828384858687888990919293949596979899";
    unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n, v;
    char *e;

    if (n < 0)
        *p++ = '-';
    for (e = p + 1, v = u; v >= 10; v /= 10)
        e++; /* the end: as many places as digits */
    p = e;
    for (; u >= 100; u /= 100)
        e -= 2, memcpy(e, two + 2 * (u % 100), 2);
    if (u >= 10)
        memcpy(e - 2, two + 2 * u, 2);
    else
        e[-1] = (char)('0' + u);
    return p;
}

/* A race's runs as they are written: gathered here and written a few KB
 * at a time (a deep queue's race at 1,000 tasks is ~999 runs: one write
 * of the stream a run was a sixth of -json's time). */
struct obuf {
    FILE *fp;
    char *p, b[4096];
};

static void ob_flush(struct obuf *o)
{
    fwrite(o->b, 1, (size_t)(o->p - o->b), o->fp);
    o->p = o->b;
}

/* Room for one more run (at most 64 bytes): the buffer written out when
 * it is nearly full.  Where the next bytes go. */
static char *ob_room(struct obuf *o)
{
    if (o->p > o->b + sizeof o->b - 64)
        ob_flush(o);
    return o->p;
}

/* One character c, with the room for it. */
static void ob_char(struct obuf *o, char c)
{
    *ob_room(o) = c;
    o->p++;
}

/* One run [ltid,first,last,tag], after a comma unless it is the first. */
static void put_run(struct obuf *o, int comma, int ltid, int first, int last,
                    int tag)
{
    char *p = ob_room(o);

    if (comma)
        *p++ = ',';
    *p++ = '[';
    p = put_int(p, ltid), *p++ = ',';
    p = put_int(p, first), *p++ = ',';
    p = put_int(p, last), *p++ = ',';
    p = put_int(p, tag), *p++ = ']';
    o->p = p;
}

/* Where a report streams to, how many races it wrote, and the runs of
 * the race before (each kind: FIFO broken or not), which the next race
 * may be written as changes from (races_runs.c); full: never so. */
struct sink {
    FILE *fp;
    int i, full;
    struct rc_runs cur[2], prev[2];
    int nnotices; /* the race's, at hand */
    struct rc_site_memo site; /* the last race's site, named */
};

/* Race r's call site, named (once for the races of one site in a row). */
static const char *site_of(struct sink *k, const struct rc_run *run,
                           const struct rc_race *r)
{
    return rc_site_memo_name(run, r->task, RC_EV(run, r->task, r->pos)->site,
                             &k->site);
}

/* An object keyed by ltid being written: the buffer, the keys so far,
 * and whose form (-jsonl's, or -json's). */
struct keyed {
    struct obuf o;
    int nkeys, jsonl;
};

/* Key "LTID": after a comma unless it is the first. */
static void put_key(struct keyed *k, int ltid)
{
    char *p = ob_room(&k->o);

    if (k->nkeys++)
        *p++ = ',';
    *p++ = '"';
    p = put_int(p, ltid);
    *p++ = '"', *p++ = ':', *p++ = '[';
    k->o.p = p;
}

/* A run of message ids as -jsonl writes it, after a comma unless it is
 * the first of its sender: "5" alone, "[5,9]" for 5..9; as -json writes
 * it within a change, [5,9,TAG]. */
static void put_ids(struct keyed *k, int comma, const struct rc_run_of *a)
{
    char *p = ob_room(&k->o);

    if (comma)
        *p++ = ',';
    if (k->jsonl && a->first == a->last) {
        p = put_int(p, a->first);
    } else {
        *p++ = '[';
        p = put_int(p, a->first), *p++ = ',';
        p = put_int(p, a->last);
        if (!k->jsonl)
            *p++ = ',', p = put_int(p, a->tag);
        *p++ = ']';
    }
    k->o.p = p;
}

/* One sender of an object keyed by ltid: "LTID":[runs] ([] a sender
 * whose alternatives are gone). */
static void put_sender(struct keyed *k, int ltid, const struct rc_run_of *runs,
                       size_t n)
{
    size_t i;

    put_key(k, ltid);
    for (i = 0; i < n; i++)
        put_ids(k, i > 0, &runs[i]);
    ob_char(&k->o, ']');
}

/* Every sender of s as put_sender writes it. */
static void put_senders(const struct rc_runs *s, struct keyed *k)
{
    size_t i, j;

    for (i = 0; i < s->n; i = j) {
        for (j = i; j < s->n && s->run[j].ltid == s->run[i].ltid; j++)
            ;
        put_sender(k, s->run[i].ltid, s->run + i, j - i);
    }
}

/* -json's runs in full: [[LTID, FIRST, LAST, TAG], ...].  A 256-task deep
 * queue's race (the head of each sender's queue) is ~16 bytes a sender,
 * where an object a message was ~40. */
static void json_runs(const struct rc_runs *s, FILE *fp)
{
    struct obuf o;
    size_t i;

    o.fp = fp, o.p = o.b;
    *o.p++ = '[';
    for (i = 0; i < s->n; i++)
        put_run(&o, i > 0, s->run[i].ltid, s->run[i].first, s->run[i].last,
                s->run[i].tag);
    ob_char(&o, ']');
    ob_flush(&o);
}

/* Race r's message alternatives that are FIFO broken (broken 1) or not
 * (0), as runs_of found them, as key NAME (in full) or NAME_change (the
 * senders changed since the race before, which is of the same task),
 * after SEP: -json's [[LTID, FIRST, LAST, TAG], ...] or {"LTID":
 * [[FIRST, LAST, TAG], ...]}, -jsonl's {"LTID": [ID, [FIRST, LAST], ...]}
 * either way. */
static void put_alts(struct sink *k, int broken, int jsonl, const char *sep,
                     const char *name)
{
    struct rc_runs *prev = &k->prev[broken], *cur = &k->cur[broken];
    struct keyed o = { { k->fp, NULL, { 0 } }, 0, jsonl };
    int change = !k->full && rc_runs_as_change(prev, cur) > 0, i;

    fprintf(k->fp, "%s\"%s%s\":%s", sep, name, change ? "_change" : "",
            jsonl ? "" : " ");
    if (!change && !jsonl) {
        json_runs(cur, k->fp);
    } else {
        o.o.p = o.o.b;
        *o.o.p++ = '{';
        for (i = 0; change && i < cur->nchg; i++)
            put_sender(&o, cur->chg[i].ltid, cur->run + cur->chg[i].at,
                       cur->chg[i].n);
        if (!change)
            put_senders(cur, &o);
        ob_char(&o.o, '}');
        ob_flush(&o.o);
    }
    rc_runs_swap(prev, cur);
}

/* Race r's message alternatives as runs, both kinds (and whether it has
 * notices), for put_alts.  0, or -1 when out of memory. */
static int runs_of(struct sink *k, const struct rc_run *run,
                   const struct rc_race *r, int jsonl)
{
    if (rc_runs_of(run, r, !jsonl, k->cur) < 0)
        return -1;
    k->nnotices = k->cur[0].nnotices;
    return 0;
}

static void sink_free(struct sink *k)
{
    int i;

    for (i = 0; i < 2; i++)
        rc_runs_free(&k->cur[i]), rc_runs_free(&k->prev[i]);
}

/* One race of the JSON report (rc_find_each hands them over in order). */
static int json_race(struct rc_run *run, const struct rc_race *r, void *arg)
{
    struct sink *k = arg;
    FILE *fp = k->fp;
    const struct rc_ev *e = RC_EV(run, r->task, r->pos);
    int j, n;

    fprintf(fp, "%s\n  {\"ltid\": %d, \"seq\": %ld, \"call\": \"%s\", "
            "\"tag\": ", k->i++ ? "," : "", run->tasks[r->task].ltid,
            rc_ev_seq(run, r->task, r->pos), call_of(e));
    if (r->took >= 0)
        fprintf(fp, "%d", rc_msg_tag(run, &run->msg[r->took]));
    else
        fprintf(fp, "null");
    fprintf(fp, ", \"site\": ");
    top_json_str(fp, site_of(k, run, r));
    fprintf(fp, ", \"asked\": {\"from\": %d, \"tag\": %d}, \"took\": ",
            e->afrom, e->atag);
    if (r->took >= 0) {
        json_msg(run, r->took, fp, 0);
        fprintf(fp, "}");
    } else {
        fprintf(fp, "null");
    }
    if (runs_of(k, run, r, 0) < 0)
        return -1;
    put_alts(k, 0, 0, ", ", "alternatives");
    put_alts(k, 1, 0, ", ", "fifo_broken");
    fprintf(fp, ", \"notices\": [");
    for (j = n = 0; k->nnotices && j < r->nalts; j++)
        if (rc_found_alt(run, r, j).ltid < 0) {
            fprintf(fp, "%s", n++ ? ", " : "");
            json_msg(run, r->alts[j].msg, fp, 1);
            fprintf(fp, "}");
        }
    fprintf(fp, "], \"first\": %s, \"conservative\": %s",
            r->first ? "true" : "false", r->conservative ? "true" : "false");
    if (r->out_of_order >= 0) {
        fprintf(fp, ", \"out_of_order\": ");
        json_msg(run, r->out_of_order, fp, 0);
        fprintf(fp, "}");
    }
    fprintf(fp, "}");
    return 0;
}

/* A report's sink: full, its first race the i-th. */
static struct sink sink_at(FILE *fp, int i, int full)
{
    return (struct sink){ fp, i, full, { { .task = -1 }, { .task = -1 } },
                          { { .task = -1 }, { .task = -1 } }, 0, { 0 } };
}

/* Every race to `each`, streamed: found again one by one, written and
 * forgotten.  The earlier half of the races is written to fp as found,
 * the later half at once in a thread of its own into a temporary file
 * (tmpfile: TMPDIR is not read), copied after (rc_find_each_split): about
 * half the time on two cores.  The later half's first race is written in
 * full, as after a race of another task, wherever it runs: the report is
 * the same on any machine.  0, or -1 when out of memory or when the
 * temporary file cannot be written (then *why says so). */
static int each_race(struct rc_run *run, const struct rc_race *r, int n,
                     int (*each)(struct rc_run *, const struct rc_race *,
                                 void *),
                     FILE *fp, int full, const char **why)
{
    struct sink lo = sink_at(fp, 0, full), hi = sink_at(NULL, n / 2, full);
    int rc;

    *why = "out of memory";
    if (n < 2) { /* no halves */
        rc = rc_find_each(run, r, n, each, &lo);
        sink_free(&lo);
        return rc;
    }
    if (!(hi.fp = tmpfile())) {
        *why = "no temporary file for the later races (tmpfile in /tmp)";
        return -1;
    }
    rc = rc_find_each_split(run, r, n, n / 2, each, &lo, &hi);
    if (rc == 0 && (fflush(hi.fp) != 0 || fseek(hi.fp, 0, SEEK_SET) != 0 ||
                    pg_copy_stream(fp, hi.fp) < 0)) {
        *why = "the temporary file of the later races (in /tmp) could not "
               "be written or read back";
        rc = -1;
    }
    fclose(hi.fp);
    sink_free(&lo), sink_free(&hi);
    return rc;
}

static int print_json(struct rc_run *run, const struct rc_race *r, int n,
                      FILE *fp, int full, const char **why)
{
    int rc;

    fprintf(fp, "{\"receives\": %ld, \"not_replayed\": %ld, \"races\": [",
            run->receives, run->unreplayed);
    rc = each_race(run, r, n, json_race, fp, full, why);
    fprintf(fp, "%s]}\n", n ? "\n" : "");
    return rc;
}

/* ---- JSON lines -------------------------------------------------------------- */

/* The exit notices race r could have taken, by the ltid that ended (-1:
 * a host notice). */
static void jsonl_notices(const struct rc_run *run, const struct rc_race *r,
                          int any, FILE *fp)
{
    const struct rc_msg *m;
    int i, nn = 0;

    fprintf(fp, "[");
    for (i = 0; any && i < r->nalts; i++) {
        if (rc_found_alt(run, r, i).ltid >= 0)
            continue; /* no notice: no look at its message entry */
        m = &run->msg[r->alts[i].msg];
        fprintf(fp, "%s%d", nn++ ? "," : "",
                m->notice_of >= 0 ? run->tasks[m->notice_of].ltid : -1);
    }
    fprintf(fp, "]");
}

/* One line a race, as found: for a stream reader (jq, a script reading
 * line by line).  Per race "ltid", "seq", "call", "tag", "site",
 * "asked": [from, tag], "took": [ltid, msgid] or null (a notice:
 * [ended ltid, 0]), "alts" (runs of message ids per sender),
 * "fifo_broken" (the same, of the alternatives counted only because the
 * receiver lost per-pair order), "notices" (the ltids whose exit notice
 * it could have taken, -1 a host notice), "first", "conservative"; a
 * last line {"receives", "races"}. */
static int jsonl_race(struct rc_run *run, const struct rc_race *r, void *arg)
{
    struct sink *k = arg;
    FILE *fp = k->fp;
    const struct rc_ev *e = RC_EV(run, r->task, r->pos);
    const struct rc_msg *t;

    fprintf(fp, "{\"ltid\":%d,\"seq\":%ld,\"call\":\"%s\",\"tag\":",
            run->tasks[r->task].ltid, rc_ev_seq(run, r->task, r->pos),
            call_of(e));
    if (r->took >= 0)
        fprintf(fp, "%d", rc_msg_tag(run, &run->msg[r->took]));
    else
        fprintf(fp, "null");
    fprintf(fp, ",\"site\":");
    top_json_str(fp, site_of(k, run, r));
    fprintf(fp, ",\"asked\":[%d,%d],\"took\":", e->afrom, e->atag);
    if (r->took < 0) {
        fprintf(fp, "null");
    } else {
        t = &run->msg[r->took];
        fprintf(fp, "[%d,%d]", t->src >= 0 ? run->tasks[t->src].ltid
                               : t->notice_of >= 0
                                   ? run->tasks[t->notice_of].ltid : -1,
                rc_msg_msgid(run, t));
    }
    if (runs_of(k, run, r, 1) < 0)
        return -1;
    put_alts(k, 0, 1, ",", "alts");
    put_alts(k, 1, 1, ",", "fifo_broken");
    fprintf(fp, ",\"notices\":");
    jsonl_notices(run, r, k->nnotices, fp);
    fprintf(fp, ",\"first\":%s,\"conservative\":%s}\n",
            r->first ? "true" : "false", r->conservative ? "true" : "false");
    return 0;
}

static int print_jsonl(struct rc_run *run, const struct rc_race *r, int n,
                       FILE *fp, int full, const char **why)
{
    int rc = each_race(run, r, n, jsonl_race, fp, full, why);

    fprintf(fp, "{\"receives\":%ld,\"races\":%d}\n", run->receives, n);
    return rc;
}

/* ---- the command ------------------------------------------------------------ */

/* PANGAEA_MEMSTATS=1: what the analysis kept, counted (the bytes of its
 * arrays in use: the same on every machine), and the peak resident set
 * (the report written), on stderr; the memory bounds of
 * tests/e2e/test_scaling.sh read it.  The races are kept without their
 * alternatives (rc_find_bare), which the report finds again one race at
 * a time. */
static void print_memstats(const struct rc_run *run, const struct rc_race *r,
                           int n)
{
    size_t model = (size_t)run->nev * sizeof *run->ev +
                   (size_t)run->nmsg * sizeof *run->msg +
                   run->nsnaps * sizeof *run->snaps +
                   run->ndents * sizeof *run->dents, races;
    int t;

    for (t = 0; t < run->ntasks; t++)
        model += (size_t)run->tasks[t].nodd * sizeof *run->tasks[t].odd;

    if (!rc_memstats())
        return;
    races = (size_t)n * sizeof *r;
    fprintf(stderr, "pangaea: memory: %d events, model %zu bytes, races "
            "%zu bytes: %.1f bytes an event; peak resident %ld KB\n",
            run->nev, model, races,
            run->nev ? (double)(model + races) / run->nev : 0.0, rc_peak_kb());
}

static int races_usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\nusage: pangaea -races [-json|-jsonl "
            "[-full]] [LOGDIR]\n", why);
    return TOP_EXIT_USAGE;
}

int top_races(int argc, char **argv)
{
    const char *dir = NULL;
    struct rc_race *races;
    struct rc_run run;
    int json = 0, full = 0, i, n, rc;
    const char *why = "out of memory";
    pg_err err;

    for (i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "-json") && !json)
            json = 1;
        else if (!strcmp(argv[i], "-jsonl") && !json)
            json = 2;
        else if (!strcmp(argv[i], "-full") && !full)
            full = 1;
        else if (argv[i][0] == '-' || dir)
            return races_usage("-races takes -json or -jsonl (with -full), "
                               "and one log directory");
        else
            dir = argv[i];
    }
    if (full && !json)
        return races_usage("-full goes with -json or -jsonl");
    if (rc_load(&run, dir ? dir : DEFAULT_LOGDIR, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        rc_free(&run);
        return TOP_EXIT_USAGE;
    }
    top_note_missing(dir ? dir : DEFAULT_LOGDIR); /* logdir.c */
    for (i = 0; i < run.ntasks; i++)
        if (run.tasks[i].note[0])
            fprintf(stderr, "pangaea: ltid %d: %s (its events until then "
                    "are analysed)\n", run.tasks[i].ltid, run.tasks[i].note);
    if ((n = rc_find_bare(&run, &races)) < 0) {
        fprintf(stderr, "pangaea: out of memory analysing %s\n", run.dir);
        rc_free(&run);
        return TOP_EXIT_FAILED;
    }
    if (run.cycles)
        fprintf(stderr, "pangaea: the logs of %s are inconsistent: %d "
                "dependencies could not be met (logs of two runs?)\n",
                run.dir, run.cycles);
    rc = json == 2 ? print_jsonl(&run, races, n, stdout, full, &why)
         : json    ? print_json(&run, races, n, stdout, full, &why)
                   : print_text(&run, races, n, stdout);
    if (rc < 0) {
        fprintf(stderr, "pangaea: %s reporting the races of %s\n", why,
                run.dir);
        rc = TOP_EXIT_FAILED;
    }
    print_memstats(&run, races, n);
    rc_races_free(races, n);
    rc_free(&run);
    if (fflush(stdout) != 0)
        return TOP_EXIT_FAILED;
    return rc ? rc : n > 0;
}

int top_races_for_display(const char *dir, struct rc_run *run,
                          struct rc_race **races)
{
    pg_err err;
    int n;

    if (rc_load(run, dir, &err) < 0 || (n = rc_find(run, races)) < 0) {
        rc_free(run);
        *races = NULL;
        return 0;
    }
    return n;
}
