/*
 * wrap_recv.c - pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe, pvm_precv,
 * pvm_recvf.
 *
 * Every receive goes through one function, recv_common, which picks the
 * mode's function (one section each below).  Recording (live_recv, then
 * record_outcome): the real call does the matching (with the program's
 * matcher, if it installed one), then the header is read and the event
 * logged; a poll that finds nothing is counted, and the count is logged
 * with the next event.  Replay (replay_recv): polls find nothing exactly
 * as often as they did; then the next recorded receive says which message
 * (sender ltid, message id) the call must return.  A full replay takes
 * every message of the run out of PVM's queue as it comes, into an index
 * by sender and message id (replay_index.c), and hands over the recorded
 * one as PVM's receive would: PVM never walks a queue that grows while
 * the senders run ahead, and a receive costs the same with 8 senders or
 * 64.  A what-if, a race-only log and notices take the message from PVM's
 * queue, with our matcher accepting only it.  Replay waits in PVM's
 * untimed receive, which lets go after each second of silence
 * (wrap_wait.c), so that a wait that lasts says so; its clock is a tick
 * count, not a clock read.
 *
 * Names: `bufid` is PVM's buffer id (PVM's manual calls it bufid), `msgid`
 * Pangaea's message id, carried in PVM's wait id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "live_pos.h"
#include "pg_internal.h"

enum how { BLOCK = PG_CHAOS_BLOCK, POLL = PG_CHAOS_POLL,
           TIMED = PG_CHAOS_TIMED, PROBE = PG_CHAOS_PROBE };

/* A blocking receive while the program has message handlers: in slices,
 * the handlers' messages handed over between (wrap_mhf.c). */
static int sliced_recv(int tid, int tag)
{
    struct timeval slice;
    int bufid;

    for (;;) {
        slice.tv_sec = 0;
        slice.tv_usec = 10000;
        if ((bufid = pg_real.trecv(tid, tag, &slice)) != 0)
            return bufid;
        pg_mhf_sync();
    }
}

static int real_call(enum how how, int tid, int tag, struct timeval *tmout)
{
    if (how == BLOCK && pg_mhf_installed())
        return sliced_recv(tid, tag);
    switch (how) {
    case BLOCK: return pg_real.recv(tid, tag);
    case POLL: return pg_real.nrecv(tid, tag);
    case TIMED: return pg_real.trecv(tid, tag, tmout);
    default: return pg_real.probe(tid, tag);
    }
}

/* True when the sender of the expected message is gone: once its last
 * messages had time to arrive, the message can never come. */
static int sender_gone(const pg_event *ev)
{
    int tid = pg_tid_of(ev->from);

    return tid <= 0 || pg_real.pstat(tid) == PvmNoTask;
}

/* ---- full replay: the recorded message from the index ------------------ */

/* Takes one message of the program's context from a task of the run out
 * of PVM's queue: the receive accepts the first such message, which
 * becomes the receive buffer (PVM frees the previous one, as for any
 * receive).  PVM looks in its queue, then, unless `now`, blocks in its
 * untimed receive (wrap_wait.c) until a message comes or a second passes
 * in which none does.  The bufid, or 0. */
static int take_one(int now, int *src, int *msgid, int *len)
{
    int bufid;

    pg_match_drain(1);
    bufid = now ? pg_real.nrecv(-1, -1) : pg_wait_recv(-1, -1);
    if (bufid > 0 && pg_match_taken(src, msgid, len) < 0)
        bufid = 0; /* not ours (cannot be: the matcher accepted it) */
    pg_match_drain(0);
    if (bufid < 0)
        pg_fatal("PVM's receive failed while the replay waited: %s",
                 pg_pvm_strerror(bufid));
    return bufid;
}

/* A message for a later receive: detached from the receive buffer
 * (pvm_setrbuf(0) does not free it) and kept in the index. */
static void keep_for_later(int bufid, int src, int msgid, int len)
{
    pg_hdr_detach_rbuf(); /* pvm_setrbuf(0), read in place (header.c) */
    if (pg_rxi_put(src, msgid, bufid, len) < 0)
        pg_fatal("out of memory");
}

/* Says, once the wait has lasted PANGAEA_STALL seconds, which message
 * the task waits for and where. */
static void say_stalled(const pg_event *ev)
{
    char msg[1024], site[700]; /* pangaea takes 1100 at most */
    size_t n;

    if (ev->kind == PG_EV_NOTICE && ev->what == PG_NOTICE_EXIT)
        snprintf(msg, sizeof msg, "waits in %s for the notice (tag %d) "
                 "that ltid %d ended (recorded event %ld)", ev->call,
                 ev->tag, ev->from, ev->seq);
    else if (ev->kind == PG_EV_NOTICE)
        snprintf(msg, sizeof msg, "waits in %s for a host notice (tag %d, "
                 "recorded event %ld)", ev->call, ev->tag, ev->seq);
    else
        snprintf(msg, sizeof msg, "waits in %s for message %d from ltid %d "
                 "(tag %d, recorded event %ld)", ev->call, ev->msgid,
                 ev->from, ev->tag, ev->seq);
    n = strlen(msg); /* the program's call waiting: its site */
    snprintf(msg + n, sizeof msg - n, "%s", pg_site_where(site, sizeof site));
    pg_wait_report(msg);
}

/* A second of waiting has passed: ends the replay when the sender of the
 * expected message has ended without sending it (after 5 s more for its
 * last messages to arrive), and says so once the wait has lasted. */
static void waited_a_slice(const pg_event *ev, struct pg_wait *wait,
                           double *gone_since)
{
    if (ev->kind == PG_EV_NOTICE)
        ; /* a daemon sends it: nobody to be gone */
    else if (*gone_since == 0 && sender_gone(ev))
        *gone_since = pg_seconds();
    else if (*gone_since > 0 && pg_seconds() - *gone_since > 5)
        pg_replay_unmatchable(ev, "waits for it, but that sender has "
                                  "ended without sending it");
    if (pg_wait_overdue(wait))
        say_stalled(ev);
}

/* The recorded message from `src`, taking messages out of PVM's queue
 * until it comes: those PVM already has first, then waiting in PVM's
 * untimed receive, which lets go after a second of silence to look
 * whether the sender is gone and the wait overdue.  The clock is read
 * only then, and at every 16th message taken for later while it waits
 * (others' messages may keep coming: the wait is still said; a fan-in
 * keeps a few at most a wait, and reads none).  Under -live, what PVM
 * has is taken first without waiting (`now`), so that the page shows the
 * task waiting only when it has to wait, not at every receive.  The
 * message is left as the receive buffer, as PVM's receive leaves it; the
 * others taken meanwhile go to the index. */
static int index_wait(const pg_event *ev, int src, int *len)
{
    struct pg_wait wait = { 0, 0 }; /* its start read at the first look */
    double gone_since = 0;
    unsigned kept = 0;
    int bufid, s, m, now = pg_live != NULL;

    for (;;) {
        if (!now)
            pg_live_waiting(1); /* -live shows what it waits for */
        if ((bufid = take_one(now, &s, &m, len)) && s == src &&
            m == ev->msgid)
            break;
        if (bufid) {
            keep_for_later(bufid, s, m, *len);
            if (++kept % 16 == 0 && pg_wait_overdue(&wait))
                say_stalled(ev);
        } else if (now) {
            now = 0; /* nothing there: it waits */
        } else {
            if (wait.start == 0) /* a second of silence has passed */
                wait.start = pg_seconds() - 1;
            waited_a_slice(ev, &wait, &gone_since);
        }
    }
    pg_live_waiting(0);
    pg_wait_end(&wait);
    return bufid;
}

/* A full replay hands over the recorded message as PVM's receive would:
 * the previous receive buffer freed, the message made the receive buffer
 * (pvm_bufinfo and the unpacking see it as PVM's own), its bufid
 * returned.  A probe returns the bufid and leaves the receive buffer
 * alone (the message stays in the index for the receive that takes it).
 * One difference is left: a probed message the program made its receive
 * buffer and partly unpacked before receiving it is handed over from
 * where its unpacking stood, where PVM's receive starts it over (no call
 * of PVM's resets a buffer's unpack position). */
static int replay_indexed(const pg_event *ev, enum how how)
{
    int src = pg_tid_of(ev->from), bufid, len = -1, old;

    if (src <= 0)
        pg_replay_unmatchable(ev, "waits for it, but that sender never ran "
                                  "in this replay");
    if (how != PROBE && (bufid = pg_rxi_take(src, ev->msgid, &len))) {
        if ((old = pvm_setrbuf(bufid)) > 0)
            pvm_freebuf(old);
    } else if (how != PROBE) {
        bufid = index_wait(ev, src, &len);
    } else if (!(bufid = pg_rxi_find(src, ev->msgid, &len))) {
        old = pvm_setrbuf(0); /* a receive would free it */
        bufid = index_wait(ev, src, &len);
        keep_for_later(bufid, src, ev->msgid, len);
        pvm_setrbuf(old);
    }
    pg_replay_check_bytes(ev, len);
    pg_replay_advance();
    return bufid;
}

/* ---- what-if, race-only due receives, notices: from PVM's queue ------- */

/* Waits for the expected message in PVM's queue, the matcher accepting
 * only it.  A probe must not take the message, so it polls; the others
 * wait in PVM's untimed receive, which lets go after a second of
 * silence (wrap_wait.c). */
static int replay_wait(const pg_event *ev, enum how how)
{
    struct timespec nap = { 0, 200000 };
    struct pg_wait wait;
    double gone_since = 0;
    int bufid;

    pg_wait_start(&wait);
    pg_live_waiting(1); /* -live shows what it waits for */
    for (;;) {
        bufid = how == PROBE ? pg_real.probe(-1, -1) : pg_wait_recv(-1, -1);
        if (bufid != 0) {
            pg_live_waiting(0);
            pg_wait_end(&wait);
            return bufid;
        }
        if (how == PROBE)
            nanosleep(&nap, NULL);
        waited_a_slice(ev, &wait, &gone_since);
    }
}

static int replay_matched(const pg_event *ev, enum how how)
{
    int bufid;

    pg_match_expect(ev);
    if (how != PROBE)
        pg_replay_prefetch();
    bufid = replay_wait(ev, how);
    pg_match_clear();
    if (bufid > 0)
        pg_replay_check_size(ev, bufid);
    if (bufid > 0)
        pg_replay_advance();
    return bufid;
}

/* Replay of any receive: a poll that found nothing when recorded finds
 * nothing now; every other call returns the recorded message, waiting for
 * it if needed (the recording says it came): from the index in a full
 * replay, from PVM's queue for a notice (a daemon's message) or when
 * steered by a what-if or a race-only log (whose other receives take from
 * PVM's queue). */
static int replay_recv(const char *call, enum how how, int tid, int tag)
{
    const pg_event *ev;

    if (how != BLOCK && pg_replay_poll_missed())
        return 0;
    ev = pg_replay_expect_recv(call, tid, tag);
    if (ev->kind == PG_EV_RECV && ev->from == PG_LTID_OUTSIDE)
        return pg_outside_replay(ev, how != PROBE);
    if (ev->kind == PG_EV_RECV && pg_replay_indexed())
        return replay_indexed(ev, how);
    return replay_matched(ev, how);
}

/* ---- race-only replay: receives the log left out ----------------------- */

/* A blocking receive a race-only log left out: PVM takes the message,
 * with the program's filter, minus those reserved for receives the log
 * kept (replay.c's matcher, reserve.c).  A message refused because its
 * sender's tid was not known yet is looked at again once it is. */
static int left_out_recv(const char *call, int tid, int tag)
{
    struct timeval slice;
    struct pg_wait wait;
    char msg[256];
    int bufid;

    pg_wait_start(&wait);
    for (;;) {
        pg_app_recv = 1;
        bufid = pg_real.nrecv(tid, tag);
        if (bufid == 0 && !pg_reserve_learn()) {
            slice.tv_sec = 0;
            slice.tv_usec = 100000;
            bufid = pg_real.trecv(tid, tag, &slice);
        }
        pg_app_recv = 0;
        if (bufid != 0) {
            pg_wait_end(&wait);
            return bufid;
        }
        pg_reserve_learn();
        if (pg_wait_overdue(&wait)) { /* so a stalled replay is seen */
            snprintf(msg, sizeof msg, "waits in %s(tid t%x, tag %d) for a "
                     "message the race-only recording left to PVM", call,
                     tid, tag);
            pg_wait_report(msg);
        }
    }
}

/* ---- recording, -none, chaos: PVM chooses ------------------------------ */

/* A receive a full replay does not follow (outside the selection, or in
 * a region the program suspended Pangaea in): the messages the replay
 * already took out of PVM's queue come first, chosen as PVM would (they
 * arrived before whatever PVM still holds).  0 if none matches. */
static int unfollowed_from_index(enum how how, int tid, int tag)
{
    int bufid, src, msgid, old;

    if (!pg_replay_indexed() || pg_rxi_count() == 0)
        return 0;
    pg_app_recv = 1; /* pg_match judges as for the program's receive */
    bufid = pg_rxi_pick(pg_match, tid, tag, &src, &msgid);
    pg_app_recv = 0;
    if (bufid && how != PROBE) {
        pg_rxi_del(src, msgid);
        if ((old = pvm_setrbuf(bufid)) > 0)
            pvm_freebuf(old);
    }
    return bufid;
}

/* The program's receive made for real, with its matcher; a chaos run
 * (recording) may delay it, draw the message, or make a poll miss. */
static int live_recv(enum how how, int tid, int tag, struct timeval *tmout)
{
    int bufid;

    if ((bufid = unfollowed_from_index(how, tid, tag)) > 0)
        return bufid;
    pg_app_recv = 1;
    bufid = pg.mode == PANGAEA_LOG && pg_chaos_before((int)how, tid, tag)
                ? 0 : real_call(how, tid, tag, tmout);
    pg_chaos_after();
    pg_app_recv = 0;
    return bufid;
}

/* Recording a notice: an exit names the ltid that ended (-1: a task
 * outside the run), as read from the body by the matcher. */
static void record_notice(const char *call, int bufid, pg_notice_what what)
{
    int first = pg_notice_read(bufid, 0), ltid = -1;

    if (what == PG_NOTICE_EXIT && first > 0)
        ltid = pg_ltid_of(first);
    pg_record_notice(call, bufid, what, ltid);
}

/* Recording what a receive of the selected tags took: a message of the
 * run (by its header), a notice, or a message from outside the run. */
static void record_taken(const char *call, int tid, int tag, int bufid)
{
    struct pvmminfo mi;
    pg_notice_what what;
    pg_hdr h;

    if (pg_hdr_rx_info(bufid, &mi) < 0 || !pg_selected(mi.tag))
        return;
    pg_site_ask(tid, tag, pg_app_match != NULL);
    if (pg_hdr_take_of(&mi, &h) == 1 && h.ltid >= 0) {
        if (mi.ctx) /* its context's name (wrap_context.c) */
            pg_context_note(mi.ctx);
        pg_record_recv_info(call, mi.len, mi.tag, &h); /* mi: once */
    }
    else if ((what = pg_notice_kind(bufid)) != 0)
        record_notice(call, bufid, what);
    else if (pg_outside_msg(bufid))
        pg_outside_record(call, bufid);
}

/* Recording a poll that found nothing: counted, and logged with the next
 * event. */
static void record_missed(const char *call, int tid, int tag)
{
    pg.misses++;
    pg_site_missed(call, tid, tag, pg_app_match != NULL);
}

static void record_outcome(const char *call, enum how how, int tid, int tag,
                           int bufid)
{
    if (bufid == 0 && how != BLOCK && pg_selected(tag))
        record_missed(call, tid, tag);
    else if (bufid > 0)
        record_taken(call, tid, tag, bufid);
}

/* Every receive, by mode: a replay (or the part of a recording a what-if
 * steers) follows the recording, unless a race-only log left the receive
 * out; otherwise PVM chooses, and a recording logs what it chose. */
static int recv_common(const char *call, enum how how, int tid, int tag,
                       struct timeval *tmout)
{
    int bufid, replaying = (pg.mode == PANGAEA_REPLAY || pg_replay_steers()) &&
                           pg_selected(tag);

    if (replaying && pg_replay_left_out(call, how != BLOCK)) {
        bufid = left_out_recv(call, tid, tag);
        if (bufid > 0) /* PVM chose, as the pruning allows */
            pg_replay_left_out_took();
    } else if (replaying) {
        bufid = replay_recv(call, how, tid, tag); /* a what-if steers too */
    } else {
        bufid = live_recv(how, tid, tag, tmout);
    }
    if (pg.mode == PANGAEA_LOG) /* a what-if records what it follows too */
        record_outcome(call, how, tid, tag, bufid);
    if (bufid > 0 && how != PROBE)
        pg_notice_read(bufid, 1);
    if (bufid > 0) /* the id as recorded (bufid.c) */
        bufid = pg_bufid_seen(bufid);
    return bufid;
}

/* The whole body of a receive wrapper: it returns (PVM's own call for a
 * call that is PVM's, else recv_common's answer). */
#define RETURN_WRAPPED_RECV(call, how, realexpr, tmout)                        \
    int cc;                                                                    \
    PG_RETURN_REAL_UNLESS_AT(call, pg_app_call_tag(tag), realexpr, tid, tag,   \
                             -1, NULL);                                        \
    PG_SITE(call);                                                             \
    PG_ENTER();                                                                \
    pg_record_wait_begin(how == BLOCK || how == TIMED);                        \
    pg_mhf_sync();                                                             \
    cc = recv_common("pvm_" #call, how, tid, tag, tmout);                      \
    PG_LEAVE();                                                                \
    return cc;

int pvm_recv(int tid, int tag)
{
    RETURN_WRAPPED_RECV(recv, BLOCK, pg_real.recv(tid, tag), NULL)
}

int pvm_nrecv(int tid, int tag)
{
    RETURN_WRAPPED_RECV(nrecv, POLL, pg_real.nrecv(tid, tag), NULL)
}

int pvm_trecv(int tid, int tag, struct timeval *tmout)
{
    RETURN_WRAPPED_RECV(trecv, tmout ? TIMED : BLOCK,
                 pg_real.trecv(tid, tag, tmout), tmout)
}

int pvm_probe(int tid, int tag)
{
    RETURN_WRAPPED_RECV(probe, PROBE, pg_real.probe(tid, tag), NULL)
}

/* PVM's pvm_precv receives into the caller's memory, copying raw bytes, and
 * leaves the current receive buffer alone; so does ours, on top of
 * recv_common. */
int pvm_precv(int tid, int tag, void *buf, int len, int type, int *rtid,
              int *rtag, int *rlen)
{
    int size = pg_type_size(type), old, bufid, bytes, mtag, src, n;

    PG_RETURN_REAL_UNLESS_AT(precv, pg_app_call(),
                             pg_real.precv(tid, tag, buf, len, type, rtid, rtag, rlen),
                             tid, tag, -1, NULL);
    if (size < 0)
        return PvmBadParam;
    PG_SITE(precv);
    PG_ENTER();
    pg_record_wait_begin(1);
    pg_mhf_sync();
    old = pvm_setrbuf(0);
    bufid = recv_common("pvm_precv", BLOCK, tid, tag, NULL);
    if (bufid > 0) {
        pvm_bufinfo(bufid, &bytes, &mtag, &src);
        n = bytes < len * size ? bytes : len * size;
        pvm_upkbyte(buf, n, 1);
        if (rtid)
            *rtid = src;
        if (rtag)
            *rtag = mtag;
        if (rlen)
            *rlen = bytes; /* in bytes, as libpvm3 3.4.6 does */
        pvm_freebuf(bufid);
    }
    pvm_setrbuf(old);
    PG_LEAVE();
    return bufid < 0 ? bufid : 0;
}

/* The program's matcher is kept and called by ours (replay.c), so that a
 * replay can still pick the recorded message. */
/* pvm3.h declares the result oddly (a function taking a matcher); it is
 * the previous matcher all the same. */
typedef int (*pvm_recvf_result)(int (*)(int, int, int));

pvm_recvf_result pvm_recvf(pg_matchfn match)
{
    pg_matchfn prev;

    PG_RETURN_REAL_UNLESS(recvf, pg.mode != PANGAEA_OFF,
                          (pvm_recvf_result)(void *)pg_real.recvf(match));
    pg_app_call(); /* our matcher is installed at start */
    prev = pg_app_match ? pg_app_match : pg_default_match;
    pg_app_match = !match || match == pg_default_match ? NULL : match;
    return (pvm_recvf_result)(void *)prev;
}
