/*
 * gate.c - holding a task before a PVM call, for the live page's controls
 * (`pangaea -log|-replay -live -hold`, breakpoints, step, run-to).
 *
 * What it owns.  The slow path of PG_GATE (live_pos.h), which every
 * wrapper runs in its guard, PG_RETURN_REAL_UNLESS_AT (pg_internal.h), once it
 * knows the call is the program's: every wrapped PVM call (pg_calls.def)
 * is gated there, in one place, with its main arguments as text.  With
 * nothing set the macro costs two loads and no call.
 *
 * Design.  pangaea (src/cli/live/live_ctl.c) writes the task's control
 * block in its position file and the run's breakpoints in PANGAEA_LIVE/
 * control; the task obeys them here, so nothing is added to the program's
 * messages and pangaea needs no round trip per call.  Before the call the
 * task checks, in order: run-to (its events done reached the target),
 * the breakpoints (call, ltid, peer ltid, tag, size; a hit count by an
 * atomic add in the shared file: a breakpoint naming a task matches only
 * its calls, so it counts that task's matches, one naming none counts all
 * tasks'), and pause.  Run-to is exact: the events done are the number
 * of the last record made, as -dump numbers it (call-site and poll
 * records come with the event after them), and the task stops before its
 * next call once they reach the target.  A task
 * that stops sets pause itself, publishes the call it is about to make
 * (call, peer, tag, size, arguments, events done and the number of the
 * call's own event, call site, real pid) and polls its
 * page every millisecond until pangaea clears pause (resume) or gives it a
 * step (steps, a credit it takes back with an atomic subtract).
 *
 * While it waits it is held on purpose: it says so to pangaea (PG_REP_HELD,
 * as stop.c does, in Pangaea's own context) so that neither it nor the
 * tasks waiting for it count as stalled, and PG_REP_RELEASED when it goes
 * on.  The text is empty for -hold and steps (pangaea then prints
 * nothing), and says how to attach gdb for a breakpoint or run-to.
 *
 * What it knows of each call (whether its event may come after a <site>
 * record, whether its size is the send buffer's, whether its queue can be
 * listed) is the gate column of the call's row in pg_calls.def: nothing
 * here names a call.
 *
 * Recording, a held receive also lists the queued messages it could take
 * (chaos.c's collecting pass through PVM's queue, with the program's
 * filter), refreshed while it waits; when pangaea names one (choice) the
 * receive takes that one, and the recording records what was taken, so
 * it replays identically.  After a held call returns, pg_gate_after (in
 * stop.c, gdb's breakpoint) runs, through stop.c's PG_LEAVE hook.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "live_pos.h"
#include "pg_internal.h"

/* Events done so far, as the log numbers them: the number of the last
 * one, call-site and poll records included (a replay passes over them
 * with the event they precede, a recording writes them with it). */
static long done_events(void)
{
    return pg.mode == PANGAEA_REPLAY ? (long)pg_live->seq
                                     : pg_logw_count(pg.comm);
}

/* What the gate knows of a call, its gate column in pg_calls.def
 * (PG_GT_ flags): looked up by the name the wrapper gave (PG_CALL_NAME),
 * only on the gate's slow path. */
static unsigned traits(const char *call)
{
    static const struct { const char *name; unsigned gate; } rows[] = {
#define PG_CALL(name, ret, params, group, what, space, code, gate)             \
    { "pvm_" #name, (gate) },
#include "pg_calls.def"
#undef PG_CALL
    };
    size_t i;

    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (!strcmp(call, rows[i].name))
            return rows[i].gate;
    return PG_GT_NONE;
}

/* The number the held call's own (first) event will have (if it makes
 * one): a replay has it recorded (the next event, past call-site and poll
 * records); a recording counts the records written first: the <poll> of
 * the misses before it and the <site> of a new call site, unless its
 * first event is its lookups' turn (PG_GT_TURN), which has no site. */
static long next_event(const char *call, void *pc, long at)
{
    const pg_event *ev;

    if (pg.mode == PANGAEA_REPLAY)
        return (ev = pg_replay_next()) && ev->seq > at ? ev->seq : at + 1;
    return at + 1 + pg_site_pending() +
           ((traits(call) & (PG_GT_SITE | PG_GT_TURN)) == PG_GT_SITE &&
            pg_site_is_new(pc));
}

static int send_size(void)
{
    int bytes = -1, tag, tid, buf = pvm_getsbuf();

    if (buf <= 0 || pvm_bufinfo(buf, &bytes, &tag, &tid) < 0)
        return -1;
    return bytes;
}

static int call_is(const char *want, const char *call)
{
    if (!want[0] || !strcmp(want, call))
        return 1;
    return !strncmp(call, "pvm_", 4) && !strcmp(want, call + 4);
}

/* The call made at pc is at site, FILE:LINE or a function's name.  The
 * names of the last few call sites are kept (a lookup in the debug
 * information is not made again at each pass of a loop). */
static int site_is(const char *site, void *pc)
{
    static struct { void *pc; char file[256], func[256]; int line; } seen[8];
    static unsigned next;
    char at[300];
    unsigned i;

    for (i = 0; i < 8 && seen[i].pc != pc; i++)
        ;
    if (i == 8) {
        i = next++ % 8;
        if (pg_site_parts_pc(pc, seen[i].file, sizeof seen[i].file,
                             seen[i].func, sizeof seen[i].func,
                             &seen[i].line) < 0)
            return 0;
        seen[i].pc = pc;
    }
    if (!strchr(site, ':'))
        return !strcmp(site, seen[i].func);
    snprintf(at, sizeof at, "%s:%d", seen[i].file, seen[i].line);
    return seen[i].line > 0 && !strcmp(site, at);
}

/* Breakpoint b matches the call: counts the match; 1 when it stops. */
static int bp_hit(struct pg_live_bp *b, const char *call, void *pc, int peer,
                  int tag, int size, char *why, size_t len)
{
    int n;

    if (b->id <= 0 || (b->ltid != PG_LIVE_ANY && b->ltid != pg.ltid) ||
        !call_is(b->call, call) || (b->peer != PG_LIVE_ANY && b->peer != peer) ||
        (b->tag != PG_LIVE_ANY && b->tag != tag) ||
        (b->size != PG_LIVE_ANY && b->size != size) ||
        (b->site[0] && !site_is(b->site, pc)))
        return 0;
    n = __atomic_add_fetch(&b->count, 1, __ATOMIC_SEQ_CST);
    if (b->hits > 0 && n != b->hits)
        return 0;
    snprintf(why, len, "breakpoint %d (match %d)", b->id, n);
    return 1;
}

/* The queued messages the held receive could take, into the page. */
static void list_queued(int tid, int tag)
{
    int bufids[PG_LIVE_CANDS], n, i, src, msgid, bytes, mtag, mtid;
    struct pg_live_cand *c;

    pg_app_recv = 1; /* the program's matcher applies, as in its receive */
    n = pg_chaos_queued(tid, tag, bufids, PG_LIVE_CANDS);
    pg_app_recv = 0;
    for (i = 0; i < n; i++) {
        c = &pg_live->cand[i];
        memset(c, 0, sizeof *c);
        c->bufid = bufids[i];
        c->ltid = -1;
        if (pvm_bufinfo(bufids[i], &bytes, &mtag, &mtid) >= 0)
            c->tid = mtid, c->tag = mtag, c->bytes = bytes;
        if (pg_hdr_peek(bufids[i], &src, &msgid) == 1) {
            c->msgid = msgid;
            c->ltid = pg_ltid_now(src);
        }
    }
    pg_live->ncand = n;
}

static void nap_ms(long ms)
{
    struct timespec t = { 0, ms * 1000000L };

    nanosleep(&t, NULL);
}

static void publish(const char *call, void *pc, int peer, int tag, int size,
                    long at, const char *why, const char *args)
{
    char site[700];

    snprintf(pg_live->call, sizeof pg_live->call, "%s", call);
    snprintf(pg_live->why, sizeof pg_live->why, "%s", why);
    snprintf(pg_live->args, sizeof pg_live->args, "%s", args);
    snprintf(pg_live->site, sizeof pg_live->site, "%s",
             pg_site_where_pc(pc, site, sizeof site));
    pg_live->next = next_event(call, pc, at);
    pg_live->peer = peer;
    pg_live->tag = tag;
    pg_live->size = size;
    pg_live->at = at;
    pg_live->ncand = 0;
    pg_live->holds++;
    __atomic_store_n(&pg_live->held, 1, __ATOMIC_RELEASE);
}

/* The choice pangaea made among the listed messages, if still queued. */
static void take_choice(void)
{
    int bufid = pg_live->choice, i;

    pg_live->choice = 0;
    for (i = 0; bufid > 0 && i < pg_live->ncand; i++)
        if (pg_live->cand[i].bufid == bufid) {
            pg_chaos_force(bufid); /* the receive accepts only it */
            return;
        }
}

static void hold(const char *call, void *pc, int peer_tid, int peer, int tag,
                 int size, long at, const char *why, const char *args)
{
    char line[1100];
    int pid = (int)syscall(SYS_getpid), n = 0;
    int list = pg.mode == PANGAEA_LOG && !pg_replay_steers() &&
               (traits(call) & PG_GT_LIST);

    publish(call, pc, peer, tag, size, at, why, args);
    line[0] = 0;
    if (why[0])
        snprintf(line, sizeof line, "held before %s (peer %d, tag %d) after "
                 "event %ld by %s%s, pid %d: attach with gdb -p %d -ex 'break "
                 "pg_gate_after'; the live page lets it go on", call, peer,
                 tag, at, why, pg_live->site, pid, pid);
    pg_coord_report(PG_REP_HELD, line);
    while (pg_live->pause && pg_live->steps <= 0) {
        if (list && n++ % 100 == 0)
            list_queued(peer_tid, tag);
        nap_ms(1);
    }
    if (pg_live->pause)
        __atomic_sub_fetch(&pg_live->steps, 1, __ATOMIC_SEQ_CST);
    if (list)
        take_choice();
    pg_stop_armed |= PG_STOP_GATE; /* pg_gate_after when the call returns */
    __atomic_store_n(&pg_live->held, 0, __ATOMIC_RELEASE);
    pg_coord_report(PG_REP_RELEASED, "");
}

void pg_gate(const char *call, void *pc, int peer_tid, int tag, int size,
             const char *fmt, ...)
{
    struct pg_live_pos *p = pg_live;
    long at = done_events();
    int peer = peer_tid > 0 ? pg_peer_ltid(peer_tid) : -1, i, n;
    char why[64] = "", hit[64], args[96] = "";
    va_list ap;

    if (size < 0 && (traits(call) & PG_GT_SBUF))
        size = send_size(); /* the send buffer is the message */
    if (p->runto > 0 && at >= p->runto) {
        snprintf(why, sizeof why, "run-to event %ld", (long)p->runto);
        p->runto = 0;
        p->pause = p->gate = 1;
    }
    n = pg_live_ctl ? pg_live_ctl->nbp : 0;
    for (i = 0; i < n && i < PG_LIVE_BPS; i++) /* each counts its match */
        if (bp_hit(&pg_live_ctl->bp[i], call, pc, peer, tag, size, hit,
                   sizeof hit)) {
            if (!why[0]) /* the first reason says why */
                snprintf(why, sizeof why, "%s", hit);
            p->steps = 0; /* a breakpoint ends a step */
            p->pause = p->gate = 1;
        }
    if (!p->pause)
        return;
    if (p->steps > 0 && !why[0]) { /* a step: this call, then wait again */
        __atomic_sub_fetch(&p->steps, 1, __ATOMIC_SEQ_CST);
        return;
    }
    if (fmt) {
        va_start(ap, fmt);
        vsnprintf(args, sizeof args, fmt, ap);
        va_end(ap);
    }
    hold(call, pc, peer_tid, peer, tag, size, at, why[0] ? why : "", args);
}
