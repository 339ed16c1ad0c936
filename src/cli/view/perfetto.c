/*
 * perfetto.c - pangaea -export perfetto: a recorded run in Perfetto's
 * binary trace format (protobuf), for ui.perfetto.dev and trace_processor.
 *
 * Design.  The JSON trace (perfetto_json.c) costs ~285 bytes an event;
 * this one about 30, so a run of 10^7 events is a trace Perfetto loads.
 * A small hand-written encoder (pb_*) writes the wire format directly: no
 * library, and each packet is built in a buffer and written at once.
 *
 * It streams.  The run is read three times, none of it kept whole: (1)
 * the race analysis' model (rc_load_logs, what -races loads), its races
 * handed over as found (rc_find_counts), and kept of it only the marks (struct pt_task): a bit per
 * message end (whether the model matched it) and each racing receive's
 * count of alternatives; the model is freed; (2) each comm log streamed
 * for the first event's time; (3) each comm log streamed again, task by
 * task, each send and receive written as it is read.  The peak is the
 * analysis'; what is kept after it is about a bit an event.
 *
 * The trace is a `Trace` of `TracePacket`s.  Each task is a track and a
 * packet sequence of its own (trusted_packet_sequence_id = its index + 1):
 * the sequence's first packet carries the track's TrackDescriptor, clears
 * the incremental state and sets the sequence's defaults: its track
 * (TracePacketDefaults.track_event_defaults.track_uuid) and its clock
 * (timestamp_clock_id = 64, the first sequence-scoped id).  The second is
 * that clock's ClockSnapshot, in a packet of its own (trace_processor reads
 * nothing else of a packet holding one): clock 64 counts microseconds, the
 * logs' own unit (unit_multiplier_ns = 1000), incrementally
 * (is_incremental: each packet's timestamp is the time since the
 * sequence's last one), and its 0 is BOOTTIME's 0, the trace's clock.  A
 * task's events come in its log's order, so their deltas are a byte or
 * two where absolute nanoseconds were six; a time before the sequence's
 * last (a clock stepped back) is written absolute, on BOOTTIME
 * (timestamp_clock_id = 6 in that packet), and the sequence's count goes
 * on from where it was.  An event name is interned in the packet that
 * first uses it, so that each event is a packet of a time, an interned
 * name and its flows: about 25 bytes.
 *   - Every send and receive is a TYPE_INSTANT TrackEvent named by its
 *     call and call site ("pvm_send sor.c:88"), at the time it returned.
 *   - A receive whose log says how long it waited for its message
 *     (waited=, format 5: written from 100 us) is also a slice of that
 *     name, from the program's call to its return (TYPE_SLICE_BEGIN and
 *     TYPE_SLICE_END around the instant): the task's blocked time.  No
 *     other duration is made up.
 *   - Every matched message is a flow, in the send's flow_ids and the
 *     receive's (or probe's) terminating_flow_ids; its id is made of the
 *     sender, the message id and the destination (flow_id), which each
 *     end knows from its own log, so no table of the run is needed.
 *   - Every racing receive (races.c's analysis, as -races finds them) gets
 *     a second instant at its time named "race: N alternatives".
 * Times are the recorded microseconds since the whole second before the
 * first event (in trace time, nanoseconds: times 1000), as recorded: Perfetto
 * takes a flow's earliest event as its start, so a receive whose host's
 * clock stamped it before its send (see -display's logical order) shows
 * its arrow reversed.
 *
 * Field numbers, from Perfetto's public protos (protos/perfetto/trace/):
 *   trace.proto          Trace.packet = 1
 *   trace_packet.proto   TracePacket.timestamp = 8, track_event = 11,
 *                        clock_snapshot = 6, timestamp_clock_id = 58,
 *                        trusted_packet_sequence_id = 10,
 *                        interned_data = 12, sequence_flags = 13
 *                        (SEQ_INCREMENTAL_STATE_CLEARED = 1,
 *                        SEQ_NEEDS_INCREMENTAL_STATE = 2),
 *                        trace_packet_defaults = 59, track_descriptor = 60
 *   trace_packet_defaults.proto  TracePacketDefaults.track_event_defaults = 11,
 *                        timestamp_clock_id = 58
 *   clock_snapshot.proto ClockSnapshot.clocks = 1; Clock.clock_id = 1,
 *                        timestamp = 2, is_incremental = 3,
 *                        unit_multiplier_ns = 4 (ids 64-127: the
 *                        sequence's own; BOOTTIME = 6, common/builtin_clock)
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
#include <unistd.h>

#include "log_table.h"
#include "pg_grow.h"
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
    TP_CLOCKS = 6, TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11,
    TP_INTERNED = 12, TP_FLAGS = 13, TP_CLOCK_ID = 58, TP_DEFAULTS = 59,
    TP_TRACK = 60,
    SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2,
    DEF_TRACK_EVENT = 11, DEF_CLOCK_ID = 58, TED_TRACK_UUID = 11,
    CS_CLOCK = 1, CL_ID = 1, CL_TIMESTAMP = 2, CL_INCREMENTAL = 3,
    CL_UNIT_NS = 4,
    CLOCK_BOOTTIME = 6, CLOCK_TASK = 64, TASK_UNIT_NS = 1000,
    TE_TYPE = 9, TE_NAME_IID = 10, TE_FLOW = 47, TE_FLOW_END = 48,
    TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3,
    TD_UUID = 1, TD_NAME = 2,
    ID_EVENT_NAMES = 2, EN_IID = 1, EN_NAME = 2
};

/* top_export_perfetto's failure to write (exit 4), beside -1: the logs. */
#define PT_FAILED (-2)

/* ---- what the analysis knows, kept while the logs stream --------------- */

/* A racing receive: its task's k-th send or receive (from 0; its event
 * number while the races are handed over, task_recvs).  8 bytes: every
 * receive of a deep queue races. */
struct pt_race {
    int k;
    int nalts;
};

/* A slot whose flows are not one plain message (see struct pt_task). */
struct pt_dup {
    long slot;
    int occ;   /* a receive's: which of the destinations naming its task
                  in its multicast it took (0: the first) */
    int n;     /* a receive's: receives (and probes) of the same message
                  before it in its task; a send's: its receives, >= 2 */
};

/* One task's marks.  A slot is a send's destination (nto slots a send)
 * or a receive (one): its bit says the message went to a receive in the
 * logs (a send's) or came from a send in the logs (a receive's), the
 * model's match; a probe names the message it saw as a receive does, so
 * a message may have several (pt_dup). */
struct pt_task {
    int ltid;              /* first: top_find_ltid */
    long nmsg, nslots;     /* its sends and receives; their slots */
    unsigned char *matched; /* a bit a slot */
    struct pt_race *races; /* in k order */
    int nraces;
    size_t capraces;
    struct pt_dup *dups;   /* in slot order */
    int ndups;
    size_t capdups;
};

struct pt_marks {
    struct pt_task *t;
    int n;
};

static int is_message(int kind)
{
    const pg_evdesc *d = pg_ev_desc(kind);

    return d && d->message;
}

static int cmp_dup(const void *a, const void *b)
{
    const struct pt_dup *x = a, *y = b;

    return (x->slot > y->slot) - (x->slot < y->slot);
}

static void set_bit(struct pt_task *p, long s)
{
    p->matched[s / 8] |= (unsigned char)(1 << s % 8);
}

static int add_dup(struct pt_task *p, long s, int occ, int n)
{
    if (pg_grow(&p->dups, &p->capdups, (size_t)p->ndups + 1,
                sizeof *p->dups) < 0)
        return -1;
    p->dups[p->ndups++] = (struct pt_dup){ s, occ, n };
    return 0;
}

/* Which destination of its send message entry i is, among those naming
 * the same task (0: the first or only one). */
static int entry_occ(const struct rc_run *m, int i)
{
    const struct rc_msg *g = &m->msg[i];
    int a = RC_EV(m, g->src, g->src_pos)->a, j, occ = 0;

    for (j = a; j < i; j++)
        occ += m->msg[j].dst == g->dst;
    return occ;
}

/* Task ti's slots: their count, and room for their bits. */
static int task_slots(const struct rc_run *m, int ti, struct pt_task *p)
{
    const struct rc_task *k = &m->tasks[ti];
    int pos;

    p->ltid = k->ltid;
    for (pos = 1; pos <= k->n; pos++) {
        const struct rc_ev *x = RC_EV(m, ti, pos);

        p->nslots += x->kind == PG_EV_SEND ? x->nto : x->kind == PG_EV_RECV;
        p->nmsg += is_message(x->kind);
    }
    return (p->matched = calloc((size_t)p->nslots / 8 + 1, 1)) ? 0 : -1;
}

/* Race (task, pos, nalts) kept as its task's (by event number, in event
 * order: the finder examines each task's events in order). */
static int add_race(struct pt_marks *mk, int task, int pos, int nalts)
{
    struct pt_task *p = &mk->t[task];

    if (pg_grow(&p->races, &p->capraces, (size_t)p->nraces + 1,
                sizeof *p->races) < 0)
        return -1;
    p->races[p->nraces++] = (struct pt_race){ pos, nalts };
    return 0;
}

/* The later half's races, kept aside until the earlier half's are in. */
struct pt_later {
    struct { int task, pos, nalts; } *r;
    int n;
    size_t cap;
};

/* Where a walk's races go: the marks (one walk, or a split's earlier
 * half), or aside (a split's later half). */
struct pt_half {
    struct pt_marks *mk;
    struct pt_later *later;
};

static int half_each(struct rc_run *m, const struct rc_race *r, void *arg)
{
    const struct pt_half *h = arg;
    struct pt_later *l = h->later;

    (void)m;
    if (h->mk)
        return add_race(h->mk, r->task, r->pos, r->nalts);
    if (pg_grow(&l->r, &l->cap, (size_t)l->n + 1, sizeof *l->r) < 0)
        return -1;
    l->r[l->n].task = r->task, l->r[l->n].pos = r->pos;
    l->r[l->n++].nalts = r->nalts;
    return 0;
}

/* The races into the marks, found and counted by two walks at once where
 * there are two processors (the count is ~999 alternatives a race at
 * 1,000 tasks).  0, or -1. */
static int find_races(struct rc_run *m, struct pt_marks *mk)
{
    struct pt_later later = { 0 };
    struct pt_half lo = { mk, NULL }, hi = { NULL, &later };
    int i, rc;

    if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
        return rc_find_counts(m, half_each, &lo) < 0 ? -1 : 0;
    rc = rc_find_counts_split(m, half_each, &lo, &hi) < 0 ? -1 : 0;
    for (i = 0; rc == 0 && i < later.n; i++)
        rc = add_race(mk, later.r[i].task, later.r[i].pos, later.r[i].nalts);
    free(later.r);
    return rc;
}

/* Task ti's receives: matched, and counted on their message entries
 * (cnt, saturating at 255: the 255th probe of one message on shares its
 * flow id); its races renumbered by k, those at a failed poll dropped. */
static int task_recvs(const struct rc_run *m, int ti, unsigned char *cnt,
                      struct pt_task *p)
{
    const struct rc_task *k = &m->tasks[ti];
    int pos, ri = 0, nr = 0, occ, kk = 0;
    long s = 0;

    for (pos = 1; pos <= k->n; pos++) {
        const struct rc_ev *x = RC_EV(m, ti, pos);

        for (; ri < p->nraces && p->races[ri].k <= pos; ri++)
            if (p->races[ri].k == pos && x->kind == PG_EV_RECV)
                p->races[nr++] = (struct pt_race){ kk, p->races[ri].nalts };
        kk += is_message(x->kind);
        if (x->kind == PG_EV_SEND)
            s += x->nto;
        if (x->kind != PG_EV_RECV)
            continue;
        if (x->a >= 0 && m->msg[x->a].src >= 0) {
            set_bit(p, s);
            occ = entry_occ(m, x->a);
            if ((occ || cnt[x->a]) && add_dup(p, s, occ, cnt[x->a]) < 0)
                return -1;
            cnt[x->a] += cnt[x->a] < 255;
        }
        s++;
    }
    p->nraces = nr;
    return 0;
}

/* Task ti's sends: each destination's receives (cnt). */
static int task_sends(const struct rc_run *m, int ti, const unsigned char *cnt,
                      struct pt_task *p)
{
    const struct rc_task *k = &m->tasks[ti];
    int pos, j;
    long s = 0;

    for (pos = 1; pos <= k->n; pos++) {
        const struct rc_ev *x = RC_EV(m, ti, pos);

        s += x->kind == PG_EV_RECV;
        for (j = 0; x->kind == PG_EV_SEND && j < x->nto; j++, s++) {
            if (cnt[x->a + j])
                set_bit(p, s);
            if (cnt[x->a + j] > 1 && add_dup(p, s, 0, cnt[x->a + j]) < 0)
                return -1;
        }
    }
    qsort(p->dups, (size_t)p->ndups, sizeof *p->dups, cmp_dup);
    return 0;
}

/* Every task's marks, from the model and its races, handed over as they
 * are found (races: whether -races would analyse the model; a recording
 * it refuses is drawn without, as the page does). */
static int marks_of(struct rc_run *m, int races, struct pt_marks *mk)
{
    unsigned char *cnt = calloc((size_t)m->nmsg + 1, 1);
    int i, rc = 0;

    mk->n = m->ntasks;
    if (!cnt || !(mk->t = calloc((size_t)m->ntasks + 1, sizeof *mk->t)))
        rc = -1;
    for (i = 0; rc == 0 && i < m->ntasks; i++)
        rc = task_slots(m, i, &mk->t[i]);
    if (rc == 0 && races && find_races(m, mk) < 0)
        for (i = 0; i < m->ntasks; i++) /* drawn without */
            free(mk->t[i].races), mk->t[i].races = NULL,
                mk->t[i].nraces = 0, mk->t[i].capraces = 0;
    for (i = 0; rc == 0 && i < m->ntasks; i++)
        rc = task_recvs(m, i, cnt, &mk->t[i]);
    for (i = 0; rc == 0 && i < m->ntasks; i++)
        rc = task_sends(m, i, cnt, &mk->t[i]);
    free(cnt);
    return rc;
}

static void marks_free(struct pt_marks *mk)
{
    int i;

    for (i = 0; i < mk->n; i++)
        free(mk->t[i].matched), free(mk->t[i].races), free(mk->t[i].dups);
    free(mk->t);
    mk->t = NULL, mk->n = 0;
}

/* The model of dir (the analysis' own load; a recording -races refuses,
 * the views' load, without races), its races handed over as they are
 * found (one walk, no race kept: the trace needs no "first" mark), and
 * what of it the trace needs: its marks.  The model is freed before the
 * trace is written, so the export's peak is the model's and its marks
 * (8 bytes a racing receive), below -races' (which keeps every race).
 * 0, or -1 and err when dir holds no log or memory runs out. */
static int learn(const char *dir, struct pt_marks *mk, pg_err *err)
{
    struct rc_run m;
    int rc;
    pg_err ignored;

    if (rc_load_logs(&m, dir, &ignored) < 0) {
        rc_free(&m);
        if (rc_load_view(&m, dir, err) < 0)
            return rc_free(&m), -1;
    }
    rc = marks_of(&m, !m.view || !m.view->unanalysable[0], mk);
    rc_free(&m);
    return rc < 0 ? pg_err_set(err, "out of memory reading %s", dir) : 0;
}

/* ---- the packets ------------------------------------------------------- */

/* The writer, one task at a time: the task's sequence, its marks and
 * where the stream is in them, its names interned so far. */
struct exp {
    FILE *fp;
    struct pb pkt, a, c;   /* a packet, and two levels of inner messages */
    struct pb names;       /* InternedData to go with the next packet */
    long long t0;          /* the whole second before the first event */
    uint64_t last_us;      /* the sequence's clock (CLOCK_TASK) so far */
    const struct rc_run *run; /* tasks (rc_load_tasks), streamed */
    int ti, started;
    const struct pt_task *mk; /* the task's marks, or NULL (none) */
    long k, slot;          /* its sends and receives so far; their slots */
    int ri, di;            /* its next race, its next dup */
    int *iid;              /* name key (call, site) -> iid, 0: not yet */
    size_t iidcap;
    int *race_iid;         /* alternatives -> iid, 0: not yet */
    size_t racecap;
    int niids, oom;
};

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

/* The sequence's clock: microseconds, incremental, 0 at BOOTTIME's 0. */
static int clock_packet(struct exp *x)
{
    x->last_us = 0;
    pb_uint(&x->pkt, TP_SEQ_ID, (uint64_t)x->ti + 1);
    pb_uint(&x->c, CL_ID, CLOCK_TASK);
    pb_uint(&x->c, CL_TIMESTAMP, x->last_us);
    pb_uint(&x->c, CL_INCREMENTAL, 1);
    pb_uint(&x->c, CL_UNIT_NS, TASK_UNIT_NS);
    pb_msg(&x->a, CS_CLOCK, &x->c);
    pb_uint(&x->c, CL_ID, CLOCK_BOOTTIME);
    pb_uint(&x->c, CL_TIMESTAMP, 0);
    pb_msg(&x->a, CS_CLOCK, &x->c);
    pb_msg(&x->pkt, TP_CLOCKS, &x->a);
    return put_packet(x);
}

/* The sequence's first packet: the track, its defaults; then its clock. */
static int task_start(struct exp *x)
{
    const struct rc_vtask *v = &x->run->view->tasks[x->ti];
    int ltid = x->run->tasks[x->ti].ltid;
    const char *prog = strrchr(v->program, '/');
    char name[1400];

    x->started = 1;
    snprintf(name, sizeof name, "ltid %d: %s on %s", ltid,
             prog ? prog + 1 : v->program, v->host);
    pb_uint(&x->pkt, TP_SEQ_ID, (uint64_t)x->ti + 1);
    pb_uint(&x->pkt, TP_FLAGS, SEQ_CLEARED);
    pb_uint(&x->a, TD_UUID, (uint64_t)ltid + 1);
    pb_str(&x->a, TD_NAME, name);
    pb_msg(&x->pkt, TP_TRACK, &x->a);
    pb_uint(&x->c, TED_TRACK_UUID, (uint64_t)ltid + 1);
    pb_msg(&x->a, DEF_TRACK_EVENT, &x->c);
    pb_uint(&x->a, DEF_CLOCK_ID, CLOCK_TASK);
    pb_msg(&x->pkt, TP_DEFAULTS, &x->a);
    return put_packet(x) < 0 ? -1 : clock_packet(x);
}

/* Room for need ints in *p (capacity *cap), the new ones 0. */
static int grow_zeroed(int **p, size_t *cap, size_t need)
{
    size_t old = *cap;

    if (pg_grow(p, cap, need, sizeof **p) < 0)
        return -1;
    if (*cap > old)
        memset(*p + old, 0, (*cap - old) * sizeof **p);
    return 0;
}

/* *slot's iid, given the next number and the name interned with the next
 * packet when it has none yet. */
static int intern(struct exp *x, int *slot, const char *name)
{
    if (!*slot) {
        *slot = ++x->niids;
        pb_uint(&x->c, EN_IID, (uint64_t)*slot);
        pb_str(&x->c, EN_NAME, name);
        pb_msg(&x->names, ID_EVENT_NAMES, &x->c);
    }
    return *slot;
}

/* The interned name of an event: its call and site ("pvm_recv sor.c:88"). */
static int name_iid(struct exp *x, const pg_event *ev)
{
    const struct rc_task *t = &x->run->tasks[x->ti];
    int call = ev->call ? pg_call_index(pg_msg_calls, pg_n_msg_calls, ev->call)
                        : pg_n_msg_calls;
    int site = ev->site >= 1 && ev->site <= t->nsites ? ev->site : 0;
    size_t key;
    char name[700], where[600];

    call = call >= 0 && call < pg_n_msg_calls ? call : pg_n_msg_calls;
    key = (size_t)site * (pg_n_msg_calls + 1) + call;
    if (grow_zeroed(&x->iid, &x->iidcap, key + 1) < 0)
        return x->oom = 1, 1;
    if (x->iid[key])
        return x->iid[key];
    snprintf(name, sizeof name, "%s%s%s",
             call < pg_n_msg_calls ? pg_msg_calls[call] : "?",
             site ? " " : "",
             site ? pg_site_name(x->run->text + t->sites[site - 1].module,
                                 t->sites[site - 1].offset, where,
                                 sizeof where) : "");
    return intern(x, &x->iid[key], name);
}

static int race_iid(struct exp *x, int nalts)
{
    char name[64];

    if (grow_zeroed(&x->race_iid, &x->racecap, (size_t)nalts + 1) < 0)
        return x->oom = 1, 1;
    snprintf(name, sizeof name, "race: %d alternative%s", nalts,
             nalts == 1 ? "" : "s");
    return intern(x, &x->race_iid[nalts], name);
}

static uint64_t ts_us(const struct exp *x, double t)
{
    double us = (t - (double)x->t0) * 1e6 + 0.5;

    return us > 0 ? (uint64_t)us : 0;
}

/* A packet's time: since the sequence's last on its clock, or, before
 * that (a clock stepped back), absolute on BOOTTIME. */
static void packet_time(struct exp *x, double t)
{
    uint64_t us = ts_us(x, t);

    if (us >= x->last_us) {
        pb_uint(&x->pkt, TP_TIMESTAMP, us - x->last_us);
        x->last_us = us;
    } else {
        pb_uint(&x->pkt, TP_TIMESTAMP, us * TASK_UNIT_NS);
        pb_uint(&x->pkt, TP_CLOCK_ID, CLOCK_BOOTTIME);
    }
}

/* A packet's head: its time, its sequence, the names it interns. */
static void packet_head(struct exp *x, double t)
{
    packet_time(x, t);
    pb_uint(&x->pkt, TP_SEQ_ID, (uint64_t)x->ti + 1);
    pb_uint(&x->pkt, TP_FLAGS, SEQ_NEEDS_STATE);
    if (x->names.n)
        pb_msg(&x->pkt, TP_INTERNED, &x->names);
}

/* The begin (named as the receive) or the end of a receive's wait. */
static int wait_packet(struct exp *x, const pg_event *ev, int iid, int type)
{
    packet_head(x, type == TYPE_SLICE_BEGIN ? ev->t - ev->waited / 1e6
                                            : ev->t);
    pb_uint(&x->a, TE_TYPE, (uint64_t)type);
    if (type == TYPE_SLICE_BEGIN)
        pb_uint(&x->a, TE_NAME_IID, (uint64_t)iid);
    pb_msg(&x->pkt, TP_TRACK_EVENT, &x->a);
    return put_packet(x);
}

/* A message's flow: its sender, message id and destination, which both
 * ends know without a table of the run; for the rare message a probe saw
 * before its receive took it (several ends), or a multicast's naming one
 * task twice, also which end (n) and which destination (occ) it is.
 * Exact for a plain message below 65,535 tasks (message ids are 32
 * bits); a 64-bit mix of the four otherwise. */
static uint64_t flow_id(int src, int msgid, int dst, int occ, int n)
{
    uint64_t v;

    if (!occ && !n && src >= 0 && src < 65535 && dst >= 0 && dst < 65536)
        return (uint64_t)(src + 1) << 48 | (uint64_t)dst << 32 |
               (uint32_t)msgid;
    v = (uint64_t)(uint32_t)src << 32 ^ (uint32_t)msgid ^
        (uint64_t)(uint32_t)dst * 0x9e3779b97f4a7c15ULL ^
        (uint64_t)(uint32_t)occ * 0xd1b54a32d192ed03ULL ^
        (uint64_t)(uint32_t)n * 0x8cb92ba72f3d8dd7ULL;
    v = (v ^ v >> 30) * 0xbf58476d1ce4e5b9ULL; /* splitmix64's finish */
    v = (v ^ v >> 27) * 0x94d049bb133111ebULL;
    return (v ^ v >> 31) | 1;
}

static int slot_matched(const struct exp *x, long s)
{
    return x->mk && s < x->mk->nslots &&
           (x->mk->matched[s / 8] >> s % 8 & 1);
}

/* Which of the send's destinations naming to[j]'s task to[j] is (0: the
 * first); quadratic, but only over a multicast's list. */
static int dest_occ(const pg_event *ev, int j)
{
    int i, occ = 0;

    for (i = 0; i < j; i++)
        occ += ev->to[i] == ev->to[j];
    return occ;
}

/* Slot s's entry among the marks' dups, or NULL (a plain message). */
static const struct pt_dup *dup_at(struct exp *x, long s)
{
    const struct pt_task *m = x->mk;

    while (m && x->di < m->ndups && m->dups[x->di].slot < s)
        x->di++;
    return m && x->di < m->ndups && m->dups[x->di].slot == s
               ? &m->dups[x->di] : NULL;
}

/* The flows of a send (one to each receive of each destination) or a
 * receive (matched). */
static void flows(struct exp *x, const pg_event *ev)
{
    int ltid = x->run->tasks[x->ti].ltid, j, i, n;
    const struct pt_dup *d;

    if (ev->kind == PG_EV_SEND) {
        for (j = 0; j < ev->nto; j++, x->slot++) {
            if (!slot_matched(x, x->slot))
                continue;
            n = (d = dup_at(x, x->slot)) ? d->n : 1;
            for (i = 0; i < n; i++)
                pb_fixed64(&x->a, TE_FLOW, flow_id(ltid, ev->msgid, ev->to[j],
                                                   dest_occ(ev, j), i));
        }
    } else {
        if (slot_matched(x, x->slot)) {
            d = dup_at(x, x->slot);
            pb_fixed64(&x->a, TE_FLOW_END,
                       flow_id(ev->from, ev->msgid, ltid, d ? d->occ : 0,
                               d ? d->n : 0));
        }
        x->slot++;
    }
}

/* The alternatives of the race at this event, 0: none. */
static int race_at(struct exp *x)
{
    const struct pt_task *m = x->mk;

    while (m && x->ri < m->nraces && m->races[x->ri].k < x->k)
        x->ri++;
    return m && x->ri < m->nraces && m->races[x->ri].k == x->k
               ? m->races[x->ri].nalts : 0;
}

static int event_packet(struct exp *x, const pg_event *ev)
{
    int waited = ev->kind == PG_EV_RECV && ev->waited > 0;
    int iid = name_iid(x, ev), nalts = race_at(x);

    if (waited && wait_packet(x, ev, iid, TYPE_SLICE_BEGIN) < 0)
        return -1;
    packet_head(x, ev->t);
    pb_uint(&x->a, TE_TYPE, TYPE_INSTANT);
    pb_uint(&x->a, TE_NAME_IID, (uint64_t)iid);
    flows(x, ev);
    pb_msg(&x->pkt, TP_TRACK_EVENT, &x->a);
    if (put_packet(x) < 0)
        return -1;
    if (nalts) {
        iid = race_iid(x, nalts);
        packet_head(x, ev->t);
        pb_uint(&x->a, TE_TYPE, TYPE_INSTANT);
        pb_uint(&x->a, TE_NAME_IID, (uint64_t)iid);
        pb_msg(&x->pkt, TP_TRACK_EVENT, &x->a);
        if (put_packet(x) < 0)
            return -1;
    }
    return waited ? wait_packet(x, ev, iid, TYPE_SLICE_END) : 0;
}

/* rc_stream_comm's callback: each send or receive as it is read. */
static int each_event(struct rc_run *run, int ti, const pg_event *ev,
                      void *arg)
{
    struct exp *x = arg;

    (void)run, (void)ti;
    if (!is_message(ev->kind))
        return 0;
    if ((!x->started && task_start(x) < 0) || event_packet(x, ev) < 0 ||
        x->oom)
        return -1;
    x->k++;
    return 0;
}

/* The earliest send or receive of the logs (a first pass). */
static int each_time(struct rc_run *run, int ti, const pg_event *ev,
                     void *arg)
{
    double *tmin = arg;

    (void)run, (void)ti;
    if (is_message(ev->kind) && (*tmin < 0 || ev->t < *tmin))
        *tmin = ev->t;
    return 0;
}

static int first_time(const char *dir, long long *t0, pg_err *err)
{
    struct rc_run z;
    double tmin = -1;
    int i, rc = rc_load_tasks(&z, dir, err);

    for (i = 0; rc == 0 && i < z.ntasks; i++)
        rc = rc_stream_comm(&z, i, each_time, &tmin, err) < 0 ? -1 : 0;
    rc_free(&z);
    *t0 = tmin > 0 ? (long long)tmin : 0;
    return rc;
}

/* Task ti streamed to the trace; its marks checked against what it held
 * (a log rewritten between the passes is said, not mismarked). */
static int export_task(struct exp *x, struct rc_run *run, int ti,
                       const struct pt_marks *mk, pg_err *err)
{
    int i = top_find_ltid(mk->t, mk->n, sizeof *mk->t, run->tasks[ti].ltid);

    x->ti = ti, x->started = 0, x->k = x->slot = 0, x->ri = x->di = 0;
    x->mk = i >= 0 ? &mk->t[i] : NULL;
    x->niids = 0;
    if (x->iidcap)
        memset(x->iid, 0, x->iidcap * sizeof *x->iid);
    if (x->racecap)
        memset(x->race_iid, 0, x->racecap * sizeof *x->race_iid);
    if (rc_stream_comm(run, ti, each_event, x, err) < 0)
        return PT_FAILED; /* out of memory, or the trace not written */
    if (x->k != (x->mk ? x->mk->nmsg : 0))
        return pg_err_set(err, "the log of ltid %d changed while it was "
                          "read: %ld sends and receives, then %ld",
                          run->tasks[ti].ltid, x->mk ? x->mk->nmsg : 0,
                          x->k);
    return x->started || task_start(x) == 0 ? 0 : PT_FAILED;
}

/* The trace, task by task from the logs, each event written as it is
 * read: the marks (learn) are all that is kept of the run. */
int top_export_perfetto(const char *dir, FILE *fp, pg_err *err)
{
    struct pt_marks mk = { 0 };
    struct exp x = { .fp = fp };
    struct rc_run run;
    int i, rc;

    memset(&run, 0, sizeof run);
    if (learn(dir, &mk, err) < 0)
        return -1;
    rc = first_time(dir, &x.t0, err) < 0 || rc_load_tasks(&run, dir, err) < 0
             ? -1 : 0;
    x.run = &run;
    for (i = 0; rc == 0 && i < run.ntasks; i++)
        rc = export_task(&x, &run, i, &mk, err);
    if (rc == PT_FAILED || (rc == 0 && (fflush(fp) != 0 || ferror(fp)))) {
        pg_err_set(err, "cannot write the trace of %s%s", dir,
                   x.oom || x.pkt.oom ? ": out of memory" : "");
        rc = PT_FAILED;
    }
    rc_free(&run);
    marks_free(&mk);
    free(x.pkt.p), free(x.a.p), free(x.c.p), free(x.names.p);
    free(x.iid), free(x.race_iid);
    return rc;
}
