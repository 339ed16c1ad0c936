/*
 * wrap_recv.c - pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe, pvm_precv,
 * pvm_recvf.
 *
 * Every receive goes through one function, recv_common, with the real call
 * to make.  Recording: the real call does the matching (with the program's
 * matcher, if it installed one), then the header is read and the event
 * logged; a poll that finds nothing is counted, and the count is logged
 * with the next event.  Replay: polls find nothing exactly as often as they
 * did; then the next recorded receive says which message (sender ltid,
 * message id) the call must return, and the real call runs with our matcher
 * accepting only that message, whatever else has arrived.  Replay waits in
 * slices, so that a wait that lasts says so.
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
    int mid;

    for (;;) {
        slice.tv_sec = 0;
        slice.tv_usec = 10000;
        if ((mid = pg_real.trecv(tid, tag, &slice)) != 0)
            return mid;
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

/* Replay: wait for the expected message, speaking up when it takes longer
 * than PANGAEA_STALL seconds, and ending the replay when its sender has
 * ended without sending it.  A probe must not take the message, so it
 * polls; the others wait in one-second slices. */
static int replay_wait(const pg_event *ev, enum how how)
{
    struct timeval slice;
    struct timespec nap = { 0, 200000 };
    struct pg_wait wait;
    double gone_since = 0;
    char msg[1024], site[700]; /* pangaea takes 1100 at most */
    size_t n;
    int mid;

    pg_wait_start(&wait);
    pg_live_waiting(1); /* -live shows what it waits for */
    for (;;) {
        slice.tv_sec = 1;
        slice.tv_usec = 0;
        mid = how == PROBE ? pg_real.probe(-1, -1)
                           : pg_real.trecv(-1, -1, &slice);
        if (mid != 0) {
            pg_live_waiting(0);
            pg_wait_end(&wait);
            return mid;
        }
        if (how == PROBE)
            nanosleep(&nap, NULL);
        else if (ev->kind == PG_EV_NOTICE)
            ; /* a daemon sends it: nobody to be gone */
        else if (gone_since == 0 && sender_gone(ev))
            gone_since = pg_seconds();
        else if (gone_since > 0 && pg_seconds() - gone_since > 5)
            pg_replay_unmatchable(ev, "waits for it, but that sender has "
                                      "ended without sending it");
        if (pg_wait_overdue(&wait)) {
            if (ev->kind == PG_EV_NOTICE && ev->what == PG_NOTICE_EXIT)
                snprintf(msg, sizeof msg, "waits in %s for the notice (tag "
                         "%d) that ltid %d ended (recorded event %ld)",
                         ev->call, ev->tag, ev->from, ev->seq);
            else if (ev->kind == PG_EV_NOTICE)
                snprintf(msg, sizeof msg, "waits in %s for a host notice "
                         "(tag %d, recorded event %ld)", ev->call, ev->tag,
                         ev->seq);
            else
                snprintf(msg, sizeof msg,
                         "waits in %s for message %d from ltid %d (tag %d, "
                         "recorded event %ld)", ev->call, ev->msgid, ev->from,
                         ev->tag, ev->seq);
            n = strlen(msg); /* the program's call waiting: its site */
            snprintf(msg + n, sizeof msg - n, "%s",
                     pg_site_where(site, sizeof site));
            pg_wait_report(msg);
        }
    }
}

/* Replay of any receive: a poll that found nothing when recorded finds
 * nothing now; every other call returns the recorded message, waiting for
 * it if needed (the recording says it came). */
static int replay_recv(const char *call, enum how how, int tid, int tag)
{
    const pg_event *ev;
    int mid;

    if (how != BLOCK && pg_replay_poll_missed())
        return 0;
    ev = pg_replay_expect_recv(call, tid, tag);
    if (ev->kind == PG_EV_RECV && ev->from == PG_LTID_OUTSIDE)
        return pg_outside_replay(ev, how != PROBE);
    pg_match_expect(ev);
    if (how != PROBE)
        pg_replay_prefetch();
    mid = replay_wait(ev, how);
    pg_match_clear();
    if (mid > 0)
        pg_replay_check_size(ev, mid);
    if (mid > 0)
        pg_replay_advance();
    return mid;
}

/* A blocking receive a race-only log left out: PVM takes the message,
 * with the program's filter, minus those reserved for receives the log
 * kept (replay.c's matcher, reserve.c).  A message refused because its
 * sender's tid was not known yet is looked at again once it is. */
static int left_out_recv(const char *call, int tid, int tag)
{
    struct timeval slice;
    struct pg_wait wait;
    char msg[256];
    int mid;

    pg_wait_start(&wait);
    for (;;) {
        pg_app_recv = 1;
        mid = pg_real.nrecv(tid, tag);
        if (mid == 0 && !pg_reserve_learn()) {
            slice.tv_sec = 0;
            slice.tv_usec = 100000;
            mid = pg_real.trecv(tid, tag, &slice);
        }
        pg_app_recv = 0;
        if (mid != 0) {
            pg_wait_end(&wait);
            return mid;
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

/* Recording a notice: an exit names the ltid that ended (-1: a task
 * outside the run), as read from the body by the matcher. */
static void record_notice(const char *call, int mid, pg_notice_what what)
{
    int first = pg_notice_read(mid, 0), ltid = -1;

    if (what == PG_NOTICE_EXIT && first > 0)
        ltid = pg_ltid_of(first);
    pg_record_notice(call, mid, what, ltid);
}

static int recv_common(const char *call, enum how how, int tid, int tag,
                       struct timeval *tmout)
{
    struct pvmminfo mi;
    pg_notice_what what;
    int mid, left_out = 0;
    pg_hdr h;

    if ((pg.mode == PANGAEA_REPLAY || pg_replay_steers()) &&
        pg_selected(tag) &&
        !(left_out = pg_replay_left_out(call, how != BLOCK))) {
        mid = replay_recv(call, how, tid, tag); /* a what-if steers too */
    } else if (left_out) {
        mid = left_out_recv(call, tid, tag);
    } else {
        pg_app_recv = 1;
        mid = pg.mode == PANGAEA_LOG &&
                      pg_chaos_before((int)how, tid, tag)
                  ? 0 : real_call(how, tid, tag, tmout);
        pg_chaos_after();
        pg_app_recv = 0;
    }
    if (mid == 0 && how != BLOCK && pg.mode == PANGAEA_LOG &&
        pg_selected(tag)) {
        pg.misses++;
        pg_site_missed(call, tid, tag, pg_app_match != NULL);
    }
    if (mid <= 0)
        return mid;
    if (left_out) /* a race-only replay: PVM chose, as the pruning allows */
        pg_replay_left_out_took();
    if (pg.mode == PANGAEA_LOG && pvm_getminfo(mid, &mi) >= 0 &&
        pg_selected(mi.tag)) {
        pg_site_ask(tid, tag, pg_app_match != NULL);
        if (pg_hdr_take_of(&mi, &h) == 1 && h.ltid >= 0)
            pg_record_recv_info(call, mi.len, mi.tag, &h); /* mi: once */
        else if ((what = pg_notice_kind(mid)) != 0)
            record_notice(call, mid, what);
        else if (pg_outside_msg(mid))
            pg_outside_record(call, mid);
    }
    if (how != PROBE)
        pg_notice_read(mid, 1);
    return mid;
}

#define RECV_WRAPPER(name, how, realexpr, tmout)                               \
    int cc;                                                                    \
    PG_PASS_UNLESS_AT(pg_app_call_tag(tag), realexpr, tid, tag, -1, NULL);     \
    PG_SITE();                                                                 \
    PG_ENTER();                                                                \
    pg_record_wait_begin(how == BLOCK || how == TIMED);                        \
    pg_mhf_sync();                                                             \
    cc = recv_common(name, how, tid, tag, tmout);                              \
    pg_mhf_sync();                                                             \
    PG_LEAVE();                                                                \
    return cc;

int pvm_recv(int tid, int tag)
{
    RECV_WRAPPER("pvm_recv", BLOCK, pg_real.recv(tid, tag), NULL)
}

int pvm_nrecv(int tid, int tag)
{
    RECV_WRAPPER("pvm_nrecv", POLL, pg_real.nrecv(tid, tag), NULL)
}

int pvm_trecv(int tid, int tag, struct timeval *tmout)
{
    RECV_WRAPPER("pvm_trecv", tmout ? TIMED : BLOCK,
                 pg_real.trecv(tid, tag, tmout), tmout)
}

int pvm_probe(int tid, int tag)
{
    RECV_WRAPPER("pvm_probe", PROBE, pg_real.probe(tid, tag), NULL)
}

/* PVM's pvm_precv receives into the caller's memory, copying raw bytes, and
 * leaves the current receive buffer alone; so does ours, on top of
 * recv_common. */
int pvm_precv(int tid, int tag, void *buf, int len, int type, int *rtid,
              int *rtag, int *rlen)
{
    int size = pg_type_size(type), old, mid, bytes, mtag, src, n;

    PG_PASS_UNLESS_AT(pg_app_call(),
                      pg_real.precv(tid, tag, buf, len, type, rtid, rtag, rlen),
                      tid, tag, -1, NULL);
    if (size < 0)
        return PvmBadParam;
    PG_SITE();
    PG_ENTER();
    pg_record_wait_begin(1);
    pg_mhf_sync();
    old = pvm_setrbuf(0);
    mid = recv_common("pvm_precv", BLOCK, tid, tag, NULL);
    if (mid > 0) {
        pvm_bufinfo(mid, &bytes, &mtag, &src);
        n = bytes < len * size ? bytes : len * size;
        pvm_upkbyte(buf, n, 1);
        if (rtid)
            *rtid = src;
        if (rtag)
            *rtag = mtag;
        if (rlen)
            *rlen = bytes; /* in bytes, as libpvm3 3.4.6 does */
        pvm_freebuf(mid);
    }
    pvm_setrbuf(old);
    pg_mhf_sync();
    PG_LEAVE();
    return mid < 0 ? mid : 0;
}

/* The program's matcher is kept and called by ours (replay.c), so that a
 * replay can still pick the recorded message. */
/* pvm3.h declares the result oddly (a function taking a matcher); it is
 * the previous matcher all the same. */
typedef int (*pvm_recvf_result)(int (*)(int, int, int));

pvm_recvf_result pvm_recvf(pg_matchfn match)
{
    pg_matchfn prev;

    PG_PASS_UNLESS(pg.mode != PANGAEA_OFF,
                   (pvm_recvf_result)(void *)pg_real.recvf(match));
    pg_app_call(); /* our matcher is installed at start */
    prev = pg_app_match ? pg_app_match : pg_default_match;
    pg_app_match = !match || match == pg_default_match ? NULL : match;
    return (pvm_recvf_result)(void *)prev;
}
