/*
 * live_json.c - the live view's snapshot as JSON: what /events.json
 * serves, to the page and to any other tool (the README documents it).
 *
 * Design.  One object: the run ("mode", "running", "count" of events so
 * far), the tasks (each with its state and, in a replay, the recorded
 * message a waiting task waits for), and the events after the since-th,
 * at most `max` of them ("more": true when there are others: ask again
 * with since = since + their number), and "next_ms": in how many ms the
 * reader's next scan of the logs should be done (0 once the run is over:
 * a client polling then gets new events without asking in vain).  Events keep the order they were
 * seen in, so a client that asks with since = the count it has gets each
 * event once.  Written under the snapshot's lock, into memory (live.c
 * hands it to the HTTP library).  An event with a call site has "file",
 * "func" and "line" (named by pangaea: the page's filters use them); a
 * barrier has "call": "pvm_barrier" and its "count".
 *
 * ?format=cols (what the page asks for) gives the same "n" events in
 * columns: per field a string of packed integers (json.c: zigzag varints
 * in base64, as -display's data; "ltid", "seq", "kind" as a code into
 * "kinds", "call" into "calls", "site" into "sites" as [file, func,
 * line], -1 none; "us": microseconds since the whole second "t0" of the
 * first event; "tag", "msgid", "bytes", "from", "nto", and the "nto_all"
 * destinations of all sends in one "to"): about twelve bytes an event
 * instead of a hundred and fifty, and no JSON number to parse; up to
 * 100,000 events an answer.
 */
#include <stdio.h>

#include "live.h"
#include "log_table.h"
#include "pg_util.h"
#include "runlog.h"
#include "top.h"

static const char *kind_name(int kind)
{
    const pg_evdesc *d = pg_ev_desc(kind);

    return d ? d->name : "?";
}

static const char *call_name(int call)
{
    return call >= 0 && call < lv.ncalls ? lv.calls[call] : "";
}

/* What a waiting task waits for, from its recorded receive. */
static void write_waits(FILE *fp, const struct lv_task *t)
{
    const struct lv_event *e;

    if (t->next_recv < 0 || t->next_recv >= t->nrec) {
        fputs("null", fp);
        return;
    }
    e = &t->rec[t->next_recv];
    fprintf(fp, "{\"kind\":\"%s\",\"call\":", kind_name(e->kind));
    top_json_str(fp, call_name(e->call));
    fprintf(fp, ",\"from\":%d,\"msgid\":%d,\"tag\":%d,\"seq\":%ld}", e->from,
            e->kind == PG_EV_RECV ? e->msgid : 0, e->tag, e->seq);
}

static void write_task(FILE *fp, const struct lv_task *t)
{
    fprintf(fp, "{\"ltid\":%d,\"program\":", t->ltid);
    top_json_str(fp, t->program);
    fputs(",\"host\":", fp);
    top_json_str(fp, t->host);
    fputs(",\"state\":", fp);
    top_json_str(fp, t->state);
    if (t->has_status)
        fprintf(fp, ",\"status\":%d", t->status);
    else
        fputs(",\"status\":null", fp);
    fputs(",\"note\":", fp);
    top_json_str(fp, t->note);
    fprintf(fp, ",\"events\":%ld", t->shown);
    if (lv.mode == PANGAEA_REPLAY)
        fprintf(fp, ",\"recorded\":%ld,\"waiting\":%s", t->nrec,
                t->waiting ? "true" : "false");
    fputs(",\"waits\":", fp);
    write_waits(fp, t);
    putc('}', fp);
}

static void write_event(FILE *fp, long i, const struct lv_event *e)
{
    int k;

    fprintf(fp, "{\"i\":%ld,\"ltid\":%d,\"seq\":%ld,\"kind\":\"%s\","
            "\"t\":%.6f", i, e->ltid, e->seq, kind_name(e->kind), e->t);
    if (e->call >= 0) {
        fputs(",\"call\":", fp);
        top_json_str(fp, call_name(e->call));
    } else if (e->kind == PG_EV_BARRIER) {
        fprintf(fp, ",\"call\":\"pvm_barrier\",\"count\":%d", e->tag);
    }
    if (e->site >= 0 && e->site < lv.nsites) {
        const struct lv_site *s = &lv.sites[e->site];

        fputs(",\"file\":", fp);
        top_json_str(fp, s->file);
        fputs(",\"func\":", fp);
        top_json_str(fp, s->func);
        fprintf(fp, ",\"line\":%d", s->line);
    }
    if (e->kind == PG_EV_SEND || e->kind == PG_EV_RECV ||
        e->kind == PG_EV_NOTICE)
        fprintf(fp, ",\"tag\":%d,\"bytes\":%d", e->tag, e->bytes);
    if (e->kind == PG_EV_SEND || e->kind == PG_EV_RECV)
        fprintf(fp, ",\"msgid\":%d", e->msgid);
    if (e->kind == PG_EV_RECV || e->kind == PG_EV_NOTICE)
        fprintf(fp, ",\"from\":%d", e->from);
    if (e->kind == PG_EV_SEND) {
        fputs(",\"to\":[", fp);
        for (k = 0; k < e->nto; k++)
            fprintf(fp, k ? ",%d" : "%d", lv.to[e->to + k]);
        putc(']', fp);
    }
    if (e->kind == PG_EV_END)
        fprintf(fp, ",\"status\":%d", e->tag);
    putc('}', fp);
}

/* The head of both forms: the run, and the tasks; returns the end of the
 * events to write. */
static long write_head(FILE *fp, long *since, long max)
{
    long end;
    double next;
    int k;

    if (*since < 0)
        *since = 0;
    if (*since > lv.nev)
        *since = lv.nev;
    end = max > 0 && lv.nev - *since > max ? *since + max : lv.nev;
    next = lv.running ? lv.next_scan - pg_seconds() : 0;
    fprintf(fp, "{\"v\":1,\"mode\":\"%s\",\"running\":%s,\"count\":%ld,"
            "\"since\":%ld,\"more\":%s,\"next_ms\":%ld,\n\"tasks\":[",
            lv.mode == PANGAEA_REPLAY ? "replay" : "log",
            lv.running ? "true" : "false", lv.nev, *since,
            end < lv.nev ? "true" : "false", next > 0 ? (long)(next * 1000) : 0L);
    for (k = 0; k < lv.ntasks; k++) {
        if (k)
            fputs(",\n", fp);
        write_task(fp, lv.tasks[k]);
    }
    fputs("]", fp);
    return end;
}

void lv_json_write(FILE *fp, long since, long max)
{
    long i, end = write_head(fp, &since, max);

    fputs(",\n\"events\":[", fp);
    for (i = since; i < end; i++) {
        if (i > since)
            fputs(",\n", fp);
        write_event(fp, i, &lv.ev[i]);
    }
    fputs("]}\n", fp);
}

/* ---- the columns: ?format=cols ----------------------------------------- */

/* One column of the events [since, end), packed (json.c): "name":"..." */
static void int_column(FILE *fp, const char *name, long since, long end,
                       long long (*get)(const struct lv_event *))
{
    struct top_packer p = { fp, 0, 0 };
    long i;

    fprintf(fp, ",\n\"%s\":\"", name);
    for (i = since; i < end; i++)
        top_pack_value(&p, get(&lv.ev[i]));
    top_pack_end(&p);
    putc('"', fp);
}

static long long c_ltid(const struct lv_event *e) { return e->ltid; }
static long long c_seq(const struct lv_event *e) { return e->seq; }
static long long c_kind(const struct lv_event *e) { return e->kind; }
static long long c_call(const struct lv_event *e) { return e->call; }
static long long c_tag(const struct lv_event *e) { return e->tag; }
static long long c_msgid(const struct lv_event *e) { return e->msgid; }
static long long c_bytes(const struct lv_event *e) { return e->bytes; }
static long long c_from(const struct lv_event *e) { return e->from; }
static long long c_site(const struct lv_event *e) { return e->site; }
static long long c_nto(const struct lv_event *e) { return e->nto; }
static long long c_us(const struct lv_event *e)
{
    return (long long)((e->t - (double)(long long)lv.ev[0].t) * 1e6 + 0.5);
}

/* The vocabularies the columns index: kinds, calls, sites. */
static void write_names(FILE *fp)
{
    int k;

    fputs(",\n\"kinds\":[", fp);
    for (k = 0; k < PG_EV_MAX; k++) { /* by code; "?" where none */
        fputs(k ? "," : "", fp);
        top_json_str(fp, kind_name(k));
    }
    fputs("],\n\"calls\":[", fp);
    for (k = 0; k < lv.ncalls; k++) {
        fputs(k ? "," : "", fp);
        top_json_str(fp, lv.calls[k]);
    }
    fputs("],\n\"sites\":[", fp);
    for (k = 0; k < lv.nsites; k++) {
        fputs(k ? ",[" : "[", fp);
        top_json_str(fp, lv.sites[k].file);
        putc(',', fp);
        top_json_str(fp, lv.sites[k].func);
        fprintf(fp, ",%d]", lv.sites[k].line);
    }
    putc(']', fp);
}

void lv_json_write_cols(FILE *fp, long since, long max)
{
    long i, end = write_head(fp, &since, max);
    struct top_packer p = { fp, 0, 0 };
    int k, n = 0;

    write_names(fp);
    fprintf(fp, ",\n\"t0\":%lld,\"n\":%ld", lv.nev ? (long long)lv.ev[0].t : 0,
            end - since);
    int_column(fp, "ltid", since, end, c_ltid);
    int_column(fp, "seq", since, end, c_seq);
    int_column(fp, "kind", since, end, c_kind);
    int_column(fp, "call", since, end, c_call);
    int_column(fp, "us", since, end, c_us);
    int_column(fp, "tag", since, end, c_tag);
    int_column(fp, "msgid", since, end, c_msgid);
    int_column(fp, "bytes", since, end, c_bytes);
    int_column(fp, "from", since, end, c_from);
    int_column(fp, "site", since, end, c_site);
    int_column(fp, "nto", since, end, c_nto);
    for (i = since; i < end; i++)
        n += lv.ev[i].nto;
    fprintf(fp, ",\n\"nto_all\":%d,\"to\":\"", n);
    for (i = since; i < end; i++)
        for (k = 0; k < lv.ev[i].nto; k++)
            top_pack_value(&p, lv.to[lv.ev[i].to + k]);
    top_pack_end(&p);
    fputs("\"}\n", fp);
}
