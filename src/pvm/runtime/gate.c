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
 * Design.  What the gate does that knows no PVM (the control block's
 * files, run-to, the breakpoints and their hit counts, pause and steps,
 * publishing the held call and waiting) is src/log/live_gate.c, shared
 * with the MPI front end; this file adds PVM's side.  Run-to is exact:
 * the events done are the number of the last record made, as -dump
 * numbers it (call-site and poll records come with the event after
 * them), and the task stops before its next call once they reach the
 * target.  A held task publishes the call it is about to make (call,
 * peer, tag, size, arguments, events done and the number of the call's
 * own event, call site, real pid).
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

/* Each 100 ms while a recording's receive is held: its queue listed. */
struct queued {
    int tid, tag;
};

static void relist(void *arg)
{
    const struct queued *q = arg;

    list_queued(q->tid, q->tag);
}

static void hold(const struct pg_live_call *c, int peer_tid, const char *why,
                 const char *args)
{
    char line[1100], where[700];
    int pid = (int)syscall(SYS_getpid);
    int list = pg.mode == PANGAEA_LOG && !pg_replay_steers() &&
               (traits(c->call) & PG_GT_LIST);
    struct queued q = { peer_tid, c->tag };

    pg_live_publish(pg_live, c, next_event(c->call, c->pc, c->at), why,
                    pg_site_where_pc(c->pc, where, sizeof where), args);
    line[0] = 0;
    if (why[0])
        snprintf(line, sizeof line, "held before %s (peer %d, tag %d) after "
                 "event %ld by %s%s, pid %d: attach with gdb -p %d -ex 'break "
                 "pg_gate_after'; the live page lets it go on", c->call,
                 c->peer, c->tag, c->at, why, pg_live->site, pid, pid);
    pg_coord_report(PG_REP_HELD, line);
    pg_live_wait(pg_live, list ? relist : NULL, &q);
    if (list)
        take_choice();
    pg_stop_armed |= PG_STOP_GATE; /* pg_gate_after when the call returns */
    pg_live_release(pg_live);
    pg_coord_report(PG_REP_RELEASED, "");
}

void pg_gate(const char *call, void *pc, int peer_tid, int tag, int size,
             const char *fmt, ...)
{
    struct pg_live_call c = { call, pc, pg.ltid, -1, tag, size, 0 };
    char why[64], args[96] = "";
    va_list ap;

    c.at = done_events();
    c.peer = peer_tid > 0 ? pg_peer_ltid(peer_tid) : -1;
    if (size < 0 && (traits(call) & PG_GT_SBUF))
        c.size = send_size(); /* the send buffer is the message */
    if (!pg_live_stops(pg_live, pg_live_ctl, &c, pg_site_parts_pc, why,
                       sizeof why))
        return;
    if (fmt) {
        va_start(ap, fmt);
        vsnprintf(args, sizeof args, fmt, ap);
        va_end(ap);
    }
    hold(&c, peer_tid, why, args);
}
