/*
 * perfetto.c - pangaea -export perfetto: a recorded run in Perfetto's
 * binary trace format (protobuf), for ui.perfetto.dev and trace_processor.
 *
 * Design.  The JSON trace (perfetto_json.c) costs ~285 bytes an event;
 * this one about 30, so a run of 10^7 events is a trace Perfetto loads.
 * A small hand-written encoder (pb_*) writes the wire format directly: no
 * library, and each packet is built in a buffer and written at once.
 *
 * The trace is a `Trace` of `TracePacket`s.  Each task is a track and a
 * packet sequence of its own (trusted_packet_sequence_id = its index + 1):
 * the sequence's first packet carries the track's TrackDescriptor, clears
 * the incremental state, sets the sequence's default track
 * (TracePacketDefaults.track_event_defaults.track_uuid) and interns the
 * event names the task uses, so that each event after is a packet of a
 * timestamp, an interned name and its flows: about 28 bytes.
 *   - Every send and receive is a TYPE_INSTANT TrackEvent named by its
 *     call and call site ("pvm_send sor.c:88"), at the time it returned.
 *   - A receive whose log says how long it waited for its message
 *     (waited=, format 5: written from 100 us) is also a slice of that
 *     name, from the program's call to its return (TYPE_SLICE_BEGIN and
 *     TYPE_SLICE_END around the instant): the task's blocked time.  No
 *     other duration is made up.
 *   - Every matched message is a flow: its id (the link's number + 1) in
 *     the send's flow_ids and the receive's terminating_flow_ids.
 *   - Every racing receive (races.c's analysis, as -races finds them) gets
 *     a second instant at its time named "race: N alternatives".
 * Timestamps are nanoseconds since the whole second before the first
 * event (the recorded microseconds times 1000), as recorded: Perfetto
 * takes a flow's earliest event as its start, so a receive whose host's
 * clock stamped it before its send (see -display's logical order) shows
 * its arrow reversed.
 *
 * Field numbers, from Perfetto's public protos (protos/perfetto/trace/):
 *   trace.proto          Trace.packet = 1
 *   trace_packet.proto   TracePacket.timestamp = 8, track_event = 11,
 *                        trusted_packet_sequence_id = 10,
 *                        interned_data = 12, sequence_flags = 13
 *                        (SEQ_INCREMENTAL_STATE_CLEARED = 1,
 *                        SEQ_NEEDS_INCREMENTAL_STATE = 2),
 *                        trace_packet_defaults = 59, track_descriptor = 60
 *   trace_packet_defaults.proto  TracePacketDefaults.track_event_defaults = 11
 *   track_event/track_event.proto  TrackEvent.type = 9 (TYPE_SLICE_BEGIN
 *                        = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3),
 *                        name_iid = 10, track_uuid = 11,
 *                        flow_ids = 47 (fixed64),
 *                        terminating_flow_ids = 48 (fixed64);
 *                        TrackEventDefaults.track_uuid = 11;
 *                        EventName.iid = 1, name = 2
 *   track_event/track_descriptor.proto  TrackDescriptor.uuid = 1, name = 2
 *   interned_data/interned_data.proto   InternedData.event_names = 2
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "races.h"
#include "runlog.h"
#include "top.h"

/* ---- the encoder ------------------------------------------------------ */

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

struct pb {
    unsigned char *p;
    size_t n, cap;
    int oom;
};

static void pb_bytes(struct pb *b, const void *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n > b->cap) {
        size_t cap = (b->n + n) * 2 + 64;
        unsigned char *p = realloc(b->p, cap);

        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
    unsigned char buf[10];
    int n = 0;

    do {
        buf[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    pb_bytes(b, buf, n);
}

static void pb_uint(struct pb *b, int field, uint64_t v)
{
    pb_varint(b, (uint64_t)field << 3 | WT_VARINT);
    pb_varint(b, v);
}

static void pb_fixed64(struct pb *b, int field, uint64_t v)
{
    unsigned char buf[8];
    int i;

    for (i = 0; i < 8; i++)
        buf[i] = (unsigned char)(v >> (8 * i)); /* little endian */
    pb_varint(b, (uint64_t)field << 3 | WT_I64);
    pb_bytes(b, buf, 8);
}

static void pb_len(struct pb *b, int field, const void *s, size_t n)
{
    pb_varint(b, (uint64_t)field << 3 | WT_LEN);
    pb_varint(b, n);
    pb_bytes(b, s, n);
}

static void pb_str(struct pb *b, int field, const char *s)
{
    pb_len(b, field, s, strlen(s));
}

/* Appends inner as the embedded message field of b, and empties inner. */
static void pb_msg(struct pb *b, int field, struct pb *inner)
{
    b->oom |= inner->oom;
    pb_len(b, field, inner->p, inner->n);
    inner->n = 0;
}

/* ---- the trace -------------------------------------------------------- */

enum {
    TRACE_PACKET = 1,
    TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11,
    TP_INTERNED = 12, TP_FLAGS = 13, TP_DEFAULTS = 59, TP_TRACK = 60,
    SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2,
    DEF_TRACK_EVENT = 11, TED_TRACK_UUID = 11,
    TE_TYPE = 9, TE_NAME_IID = 10, TE_FLOW = 47, TE_FLOW_END = 48,
    TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3,
    TD_UUID = 1, TD_NAME = 2,
    ID_EVENT_NAMES = 2, EN_IID = 1, EN_NAME = 2
};

struct exp {
    const struct top_run *run;
    FILE *fp;
    struct pb pkt, a, c;   /* a packet, and two levels of inner messages */
    int *link_of;          /* receive event -> its link, or -1 */
    int *alts;             /* event -> alternatives of its race, 0: none */
    int nnames;            /* call/site names: iid 1 .. nnames */
    char *used;            /* this task's iids in use */
    int niids;
};

/* The interned name of an event: its call and site. */
static int name_iid(const struct exp *x, const struct top_event *ev)
{
    return ev->call * (x->run->nsites + 1) + ev->site + 1 + 1;
}

static int race_iid(const struct exp *x, int nalts)
{
    return x->nnames + nalts;
}

static void name_text(const struct exp *x, int iid, char *buf, size_t size)
{
    int k = iid - 1, per = x->run->nsites + 1;

    if (iid > x->nnames)
        snprintf(buf, size, "race: %d alternative%s", iid - x->nnames,
                 iid - x->nnames == 1 ? "" : "s");
    else if (k % per == 0)
        snprintf(buf, size, "%s", x->run->calls[k / per]);
    else
        snprintf(buf, size, "%s %s", x->run->calls[k / per],
                 x->run->sites[k % per - 1]);
}

static int put_packet(struct exp *x)
{
    struct pb out = { 0 };

    if (x->pkt.oom)
        return -1;
    pb_varint(&out, (uint64_t)TRACE_PACKET << 3 | WT_LEN);
    pb_varint(&out, x->pkt.n);
    if (out.oom || fwrite(out.p, 1, out.n, x->fp) != out.n ||
        fwrite(x->pkt.p, 1, x->pkt.n, x->fp) != x->pkt.n) {
        free(out.p);
        return -1;
    }
    free(out.p);
    x->pkt.n = 0;
    return 0;
}

/* The sequence's first packet: the track, its defaults, its names. */
static int task_start(struct exp *x, int i)
{
    const struct top_task *t = &x->run->tasks[i];
    const char *prog = strrchr(t->program, '/');
    char name[1400];
    int e, iid;

    memset(x->used, 0, (size_t)x->niids + 1);
    for (e = t->first; e < t->first + t->nev; e++) {
        x->used[name_iid(x, &x->run->ev[e])] = 1;
        if (x->alts[e])
            x->used[race_iid(x, x->alts[e])] = 1;
    }
    snprintf(name, sizeof name, "ltid %d: %s on %s", t->ltid,
             prog ? prog + 1 : t->program, t->host);
    pb_uint(&x->pkt, TP_SEQ_ID, (uint64_t)i + 1);
    pb_uint(&x->pkt, TP_FLAGS, SEQ_CLEARED);
    pb_uint(&x->a, TD_UUID, (uint64_t)t->ltid + 1);
    pb_str(&x->a, TD_NAME, name);
    pb_msg(&x->pkt, TP_TRACK, &x->a);
    pb_uint(&x->c, TED_TRACK_UUID, (uint64_t)t->ltid + 1);
    pb_msg(&x->a, DEF_TRACK_EVENT, &x->c);
    pb_msg(&x->pkt, TP_DEFAULTS, &x->a);
    for (iid = 1; iid <= x->niids; iid++)
        if (x->used[iid]) {
            name_text(x, iid, name, sizeof name);
            pb_uint(&x->c, EN_IID, (uint64_t)iid);
            pb_str(&x->c, EN_NAME, name);
            pb_msg(&x->a, ID_EVENT_NAMES, &x->c);
        }
    pb_msg(&x->pkt, TP_INTERNED, &x->a);
    return put_packet(x);
}

static uint64_t ts_ns(const struct exp *x, double t)
{
    double us = (t - (double)(long long)x->run->tmin) * 1e6 + 0.5;

    return us > 0 ? (uint64_t)us * 1000 : 0;
}

static int instant(struct exp *x, int seq, double t, int iid)
{
    pb_uint(&x->pkt, TP_TIMESTAMP, ts_ns(x, t));
    pb_uint(&x->pkt, TP_SEQ_ID, (uint64_t)seq);
    pb_uint(&x->pkt, TP_FLAGS, SEQ_NEEDS_STATE);
    pb_uint(&x->a, TE_TYPE, TYPE_INSTANT);
    pb_uint(&x->a, TE_NAME_IID, (uint64_t)iid);
    return 0;
}

/* The begin (named as the receive) or the end of a receive's wait. */
static int wait_packet(struct exp *x, int i, const struct top_event *ev,
                       int type)
{
    double t = type == TYPE_SLICE_BEGIN ? ev->t - ev->waited / 1e6 : ev->t;

    pb_uint(&x->pkt, TP_TIMESTAMP, ts_ns(x, t));
    pb_uint(&x->pkt, TP_SEQ_ID, (uint64_t)i + 1);
    pb_uint(&x->pkt, TP_FLAGS, SEQ_NEEDS_STATE);
    pb_uint(&x->a, TE_TYPE, (uint64_t)type);
    if (type == TYPE_SLICE_BEGIN)
        pb_uint(&x->a, TE_NAME_IID, (uint64_t)name_iid(x, ev));
    pb_msg(&x->pkt, TP_TRACK_EVENT, &x->a);
    return put_packet(x);
}

static int event_packet(struct exp *x, int i, int e)
{
    const struct top_event *ev = &x->run->ev[e];
    int first, n, k, waited = ev->waited > 0 && !top_run_is_send(ev);

    if (waited && wait_packet(x, i, ev, TYPE_SLICE_BEGIN) < 0)
        return -1;
    instant(x, i + 1, ev->t, name_iid(x, ev));
    if (top_run_is_send(ev)) {
        n = top_run_links_of(x->run, e, &first);
        for (k = 0; k < n; k++)
            pb_fixed64(&x->a, TE_FLOW, (uint64_t)first + k + 1);
    } else if (x->link_of[e] >= 0) {
        pb_fixed64(&x->a, TE_FLOW_END, (uint64_t)x->link_of[e] + 1);
    }
    pb_msg(&x->pkt, TP_TRACK_EVENT, &x->a);
    if (put_packet(x) < 0)
        return -1;
    if (x->alts[e]) {
        instant(x, i + 1, ev->t, race_iid(x, x->alts[e]));
        pb_msg(&x->pkt, TP_TRACK_EVENT, &x->a);
        if (put_packet(x) < 0)
            return -1;
    }
    return waited ? wait_packet(x, i, ev, TYPE_SLICE_END) : 0;
}

/* x->alts: for each racing receive of the run, its alternatives (a race
 * at a failed poll or a notice is no event here).  The largest count. */
static int find_races(struct exp *x)
{
    struct rc_race *r = NULL;
    const struct rc_run *rr = x->run->model;
    const int *graph_of = x->run->graph_of; /* the run's own model's */
    int n = top_run_races_bare(x->run, &r), i, e, max = 0; /* counts */

    for (i = 0; i < n; i++)
        if ((e = graph_of[rr->tasks[r[i].task].first + r[i].pos - 1]) >= 0 &&
            x->run->ev[e].kind == PG_EV_RECV) {
            x->alts[e] = r[i].nalts;
            max = r[i].nalts > max ? r[i].nalts : max;
        }
    if (n > 0)
        rc_races_free(r, n);
    return max;
}

static int export_tasks(struct exp *x)
{
    int i, e;

    for (i = 0; i < x->run->ntasks; i++) {
        if (task_start(x, i) < 0)
            return -1;
        for (e = x->run->tasks[i].first;
             e < x->run->tasks[i].first + x->run->tasks[i].nev; e++)
            if (event_packet(x, i, e) < 0)
                return -1;
    }
    return 0;
}

int top_export_perfetto(const struct top_run *run, FILE *fp)
{
    struct exp x = { .run = run, .fp = fp };
    size_t nev = (size_t)run->nev + 1;
    int i, rc = -1;

    x.link_of = malloc(nev * sizeof *x.link_of);
    x.alts = calloc(nev, sizeof *x.alts);
    if (!x.link_of || !x.alts)
        goto out;
    for (i = 0; i < run->nev; i++)
        x.link_of[i] = -1;
    for (i = 0; i < run->nlinks; i++)
        x.link_of[run->links[i].recv] = i;
    x.nnames = run->ncalls * (run->nsites + 1);
    x.niids = x.nnames + find_races(&x);
    x.used = malloc((size_t)x.niids + 1);
    if (x.used)
        rc = export_tasks(&x);
out:
    free(x.link_of), free(x.alts), free(x.used);
    free(x.pkt.p), free(x.a.p), free(x.c.p);
    return rc < 0 || ferror(fp) ? -1 : 0;
}
