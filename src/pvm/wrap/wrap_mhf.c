/*
 * wrap_mhf.c - pvm_addmhf, pvm_delmhf: messages taken by message handlers
 * are receives too.
 *
 * PVM calls a handler from inside whatever PVM call reads the message off
 * its socket, at an instant that depends on timing; the handler takes the
 * message (and frees it), so no receive of the program ever sees it, and
 * in a recording the message had no receiver.  So the library installs
 * its own handler (`trampoline`) for each of the program's, and:
 *  - the trampoline only notes the message (reading its header could ask
 *    the coordinator, a PVM receive inside PVM's own reading);
 *  - at the start of every wrapped send and receive, and between the
 *    slices of a blocking receive's wait (pg_mhf_sync), the noted
 *    messages are handed to the program's handlers, in arrival order,
 *    each logged first as a <recv call="pvm_addmhf"> (from a task outside
 *    the run: with its contents, outside.c); the handler runs as program
 *    code, so its own sends are the program's.  A handler therefore runs
 *    a little later than PVM would have run it, never in the middle of
 *    another PVM call.  Not at the end of a call: a handler logged
 *    between two calls then always ran after the program's code between
 *    them (at the start of the second, or inside its wait), and the
 *    replay, which runs it at the start of the second, cannot put it
 *    before that code by mistake;
 *  - in replay the trampoline only notes messages; at those same points,
 *    when the recording's next event is a handler's receive, the library
 *    waits for that message (by sender ltid and message id, pumping PVM
 *    with pvm_probe) and runs the handler with it, so handlers run at the
 *    recorded points with the recorded messages.
 * With Pangaea on but not recording or replaying (-none), the program's
 * handler is called directly.
 *
 * pvm_catchout is such a handler too: libpvm3 installs one (with
 * pvm_addmhf, in its system context) that takes the children's output,
 * sent by their daemons, and prints each whole line to the program's
 * FILE.  Which child's output comes first differs from run to run, so
 * that handler is the program's as far as order goes: while pvm_catchout
 * runs, its pvm_addmhf gets the trampoline.  Its messages come from a
 * daemon (no task of the run), so each is recorded with its contents, as
 * a message from outside the run (outside.c), and a replay hands the
 * handler the recorded messages at the recorded points, dropping the
 * output the children send this time (the same lines, in another order).
 * At the task's end PVM waits in pvm_exit for the children's output
 * (libpvm3's second handler, taken as well): finish_output runs that wait
 * while the logs are still open, recording, or hands over the rest of the
 * recorded output, replaying.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_grow.h"
#include "pg_internal.h"

typedef int (*handler_fn)(int);

struct handler {
    int id;          /* PVM's handler id, -1 when deleted */
    int src, tag, ctx;
    handler_fn fn;
    int output;      /* pvm_catchout's: the children's output */
};

struct noted {
    int bufid, src, wid;
};

static struct handler *handlers;
static size_t nhandlers, cap_handlers;
static struct noted *noted;
static size_t nnoted, cap_noted;
static int running; /* a handler of the program is running */
/* pvm_catchout: 1 while it runs, 2 once its handlers are taken */
static int catching;
static handler_fn flush_output; /* its wait for the children's output */
static int finishing; /* the task ends: output handed over as it comes */

/* The program's handler for a message, as PVM matched it. */
static struct handler *handler_of(int bufid)
{
    struct pvmminfo mi;
    size_t i;

    if (pvm_getminfo(bufid, &mi) < 0)
        return NULL;
    for (i = 0; i < nhandlers; i++)
        if (handlers[i].id >= 0 &&
            (handlers[i].src == -1 || handlers[i].src == mi.src) &&
            (handlers[i].tag == -1 || handlers[i].tag == mi.tag) &&
            handlers[i].ctx == mi.ctx)
            return &handlers[i];
    return NULL;
}

/* Runs the program's handler as program code (its calls are its own). */
static void call_handler(struct handler *h, int bufid)
{
    int depth = pg.depth, rbuf = 0;

    running = 1;
    pg.depth = 0;
    if (h->output) /* libpvm3's unpacks at once: its message made current */
        rbuf = pvm_setrbuf(bufid);
    h->fn(bufid);
    if (h->output)
        pvm_setrbuf(rbuf);
    pg.depth = depth;
    running = 0;
}

/* PVM frees a handler's message once the handler returns: the message is
 * kept as a copy (sharing its fragments), with the same source, tag,
 * context, wait id and encoding, ready to unpack from its start. */
static int copy_of(int bufid, struct pvmminfo *mi)
{
    int copy, osb;

    copy = pg_real.mkbuf(mi->enc == 0x10000000 ? PvmDataDefault
                                               : PvmDataRaw); /* ours */
    osb = pvm_setsbuf(copy);
    pvm_pkmesgbody(bufid);
    pvm_setsbuf(osb);
    if (copy > 0) {
        struct pvmminfo ci;

        pvm_getminfo(copy, &ci);
        ci.src = mi->src, ci.tag = mi->tag, ci.ctx = mi->ctx;
        ci.wid = mi->wid, ci.enc = mi->enc;
        pvm_setminfo(copy, &ci);
    }
    return copy;
}

static void record_noted(void);
static void finish_output(void);

static int trampoline(int bufid)
{
    struct handler *h = handler_of(bufid);
    struct pvmminfo mi;

    if (!h)
        return 0; /* deleted meanwhile: PVM would not have called it */
    if (h->output && pg_replaying())
        return 0; /* the recorded output is handed over instead */
    if (pg.mode != PANGAEA_LOG && pg.mode != PANGAEA_REPLAY) {
        call_handler(h, bufid);
        return 0;
    }
    pvm_getminfo(bufid, &mi);
    if (pg_grow(&noted, &cap_noted, nnoted + 1, sizeof *noted) < 0)
        pg_fatal("out of memory");
    noted[nnoted++] = (struct noted){ copy_of(bufid, &mi), mi.src, mi.wid };
    if (finishing && !running)
        record_noted(); /* inside the task's last wait for output */
    return 0;
}

/* Recording: hands the noted messages over, logging each first. */
static void record_noted(void)
{
    struct handler *h;
    struct noted n;
    pg_hdr hd;

    while (nnoted > 0) {
        n = noted[0];
        memmove(noted, noted + 1, --nnoted * sizeof *noted);
        if (!(h = handler_of(n.bufid)))
            continue;
        if (h->output) { /* a daemon's message: no header to read */
            pg_site_ask(n.src, -1, 0); /* from outside the run: `pangaea
                                          -races` races it with no task's */
            if (pg_selected(-1))
                pg_outside_record("pvm_addmhf", n.bufid);
        } else if (pg_selected(-1) && pg_hdr_take(n.bufid, &hd) == 1 &&
                   hd.ltid >= 0)
            pg_record_recv("pvm_addmhf", n.bufid, &hd);
        else if (pg_selected(-1) && pg_outside_msg(n.bufid))
            pg_outside_record("pvm_addmhf", n.bufid);
        call_handler(h, n.bufid);
    }
}

/* Replay: the noted message from `tid` with message id `msgid`, waiting
 * for it to come (PVM calls the trampoline when it reads it). */
static int wait_noted(const pg_event *ev, int tid)
{
    struct timeval slice;
    struct pg_wait wait;
    char msg[300];
    size_t i;
    int bufid;

    /* A receive frees the current receive buffer: the program's last
     * message, which it may not have read yet.  Put it aside meanwhile. */
    int rbuf = pvm_setrbuf(0);

    pg_wait_start(&wait);
    for (;;) {
        for (i = 0; i < nnoted; i++)
            if (noted[i].src == tid && noted[i].wid == ev->msgid) {
                bufid = noted[i].bufid;
                memmove(noted + i, noted + i + 1,
                        (--nnoted - i) * sizeof *noted);
                pg_wait_end(&wait);
                pvm_setrbuf(rbuf);
                return bufid;
            }
        /* Waits for input (a tag nobody sends): PVM reads what comes, and
         * calls the trampoline for handlers' messages.  (A pvm_probe does
         * not wait, and did not always hand them over.) */
        slice.tv_sec = 0;
        slice.tv_usec = 10000;
        pg_real.trecv(pg.tid, 0x7fffffff, &slice);
        if (pg_wait_overdue(&wait)) {
            snprintf(msg, sizeof msg, "waits for message %d from ltid %d "
                     "for a message handler (tag %d, recorded event %ld)",
                     ev->msgid, ev->from, ev->tag, ev->seq);
            pg_wait_report(msg);
        }
    }
}

/* A what-if records the handler's message it follows, as record_noted
 * does. */
static void record_followed(int bufid, int outside)
{
    pg_hdr hd;

    if (pg.mode != PANGAEA_LOG || !pg_selected(-1))
        return;
    if (outside)
        pg_outside_record("pvm_addmhf", bufid);
    else if (pg_hdr_take(bufid, &hd) == 1 && hd.ltid >= 0)
        pg_record_recv("pvm_addmhf", bufid, &hd);
}

/* Replay, and the part of its recording a what-if follows: runs the
 * handlers the recording has next. */
static void replay_due(void)
{
    const pg_event *ev;
    struct handler *h;
    int bufid, tid;

    while (pg_replaying() && (ev = pg_replay_next()) &&
           ev->kind == PG_EV_RECV && !strcmp(ev->call, "pvm_addmhf")) {
        if (ev->from == PG_LTID_OUTSIDE) {
            bufid = pg_outside_replay(ev, 2);
            record_followed(bufid, 1);
        } else {
            if ((tid = pg_tid_of(ev->from)) <= 0)
                pg_replay_unmatchable(ev, "waits for it, but that sender "
                                          "never ran in this replay");
            bufid = wait_noted(ev, tid);
            pg_replay_check_size(ev, bufid);
            pg_replay_advance();
            record_followed(bufid, 0);
        }
        if (!(h = handler_of(bufid)))
            pg_replay_unmatchable(ev, "took it by a message handler the "
                                      "program has not installed");
        call_handler(h, bufid);
    }
}

int pg_mhf_installed(void)
{
    return nhandlers > 0 && !running;
}

void pg_mhf_sync(void)
{
    if (running || !nhandlers)
        return;
    if (pg_replaying()) /* a what-if too, in the part it follows */
        replay_due();
    if (pg.mode == PANGAEA_LOG && !pg_replaying())
        record_noted();
}

static int add_handler(int src, int tag, int ctx, handler_fn fn, int output)
{
    int id = pg_real.addmhf(src, tag, ctx, trampoline);

    if (id >= 0) {
        if (pg_grow(&handlers, &cap_handlers, nhandlers + 1,
                    sizeof *handlers) < 0)
            pg_fatal("out of memory");
        handlers[nhandlers++] =
            (struct handler){ id, src, tag, ctx, fn, output };
    }
    return id;
}

/* pvm_catchout's own handlers, installed once: the first takes the
 * children's output (the trampoline's), the second waits for the rest of
 * it in pvm_exit (kept for pg_mhf_finish). */
static int catchout_handler(int src, int tag, int ctx, handler_fn fn)
{
    if (!flush_output && nhandlers && handlers[nhandlers - 1].output) {
        flush_output = fn;
        pg_finish_output = finish_output; /* runtime.c, at the task's end */
        return pg_real.addmhf(src, tag, ctx, fn);
    }
    return add_handler(src, tag, ctx, fn, 1);
}

int pvm_addmhf(int src, int tag, int ctx, handler_fn fn)
{
    int id;

    if (catching == 1 && pg_system_ctx(ctx) && fn &&
        (pg.mode == PANGAEA_LOG || pg.mode == PANGAEA_REPLAY))
        return catchout_handler(src, tag, ctx, fn);
    /* libpvm3 installs its own handlers (direct routes, in its system
     * context) while it enrols: asked first, before pg_app_call() can
     * enrol us in the middle of that. */
    PG_RETURN_REAL_UNLESS(addmhf, !pg_system_ctx(ctx) && fn && pg_app_call(),
                          pg_real.addmhf(src, tag, ctx, fn));
    PG_ENTER();
    id = add_handler(src, tag, ctx, fn, 0);
    PG_LEAVE();
    return id;
}

/* The program's pvm_catchout, whose pvm_addmhf calls (its first only)
 * come to pvm_addmhf above; its other calls are PVM's as they were. */
int pvm_catchout(FILE *ff)
{
    int cc;

    pg_real_load();
    PG_RETURN_REAL_UNLESS(catchout, pg_app_call() && pg.ltid != 0, pg_real.catchout(ff));
    if (catching == 0 && ff)
        catching = 1;
    cc = pg_real.catchout(ff);
    if (catching == 1)
        catching = 2; /* once: PVM installs them at the first call only */
    return cc;
}

static void finish_output(void)
{
    if (!flush_output || finishing)
        return;
    pg_mhf_sync();
    finishing = 1;
    if (pg.mode == PANGAEA_LOG && !pg_replaying()) {
        PG_ENTER(); /* PVM's receives inside are PVM's */
        flush_output(0);
        PG_LEAVE();
    }
}

int pvm_delmhf(int id)
{
    size_t i;

    for (i = 0; i < nhandlers; i++) /* only ids we gave out */
        if (handlers[i].id == id)
            handlers[i].id = -1;
    return pg_real.delmhf(id);
}
