/*
 * replay.c - following a recording.
 *
 * Each task reads its own two logs with the streaming reader, one event
 * ahead: the next recorded communication event and the next recorded spawn.
 * A send or spawn of the program is checked against them; a receive is
 * turned into "the message with this sender ltid and message id", which the
 * matcher below accepts and nothing else, whatever order messages arrive in.
 * Messages that arrive early simply stay in PVM's queue until asked for.
 *
 * Any difference between what the program does and what was recorded is a
 * divergence: the task says which event, what was recorded and what
 * happened, tells `pangaea`, and ends.
 *
 * A race-only log (`pangaea -min`, src/cli/analysis/minimize.c) holds only the
 * events a replay cannot do without, each numbered as in the full log
 * (counting the events replay acts on).  The task counts its events; one
 * whose number is the next kept event's is replayed as above ("due"); any
 * other is left to PVM: a send is not checked, a blocking receive takes
 * what the program's own filter takes, minus the messages reserved for
 * kept receives (reserve.c; refused by pg_match), which the pruning
 * guarantees is the recorded message (minimize.c says why).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live_pos.h"
#include "log_table.h"
#include "pg_grow.h"
#include "pg_internal.h"

pg_matchfn pg_default_match, pg_app_match;
int pg_app_recv;

/* Events read ahead while a receive waits: a receive and the send that
 * answers it, typically, so that neither is read on the messages' way. */
#define AHEAD 2

/* A comm event copied out of the reader, which reuses its memory on the
 * next read: a ring of them lets events be read ahead. */
struct slot {
    pg_event ev;
    char *text;      /* call, group, about */
    size_t text_cap;
    int *to;
    size_t to_cap;
};

struct cursor {
    pg_logr *r;
    pg_event ev;     /* exec: the next event, in the reader's memory */
    struct slot slot[AHEAD + 1]; /* comm: the next event, then read ahead */
    int cur;         /* comm: slot[cur] holds the next event */
    int ahead;       /* comm: events read ahead, after slot[cur] */
    int have;      /* ev holds the next event          */
    int done;      /* the log has no more events       */
    long seq;      /* events consumed                  */
    int misses;    /* failed polls still to give before ev */
    int cut;       /* the log stops where its task died when recorded */
    int end_status; /* the status its <end> records, if it has one */
    int has_end;
    char path[4200];
};

/* What the cursor's flags promise each other (cursor_ok asserts it before
 * every read, so a reading-ahead change that breaks one stops at the next
 * event):
 *  - have and done exclude each other: a held event is never the end;
 *  - only comm reads ahead: 0 <= cur, ahead <= AHEAD, and exec keeps both 0;
 *  - misses >= 0: failed polls still owed before the next event;
 *  - has_end only once done, and never with cut: a log cut short has no
 *    <end> of its own (end_status then says nothing);
 *  - seq >= 0: events consumed. */
static struct cursor comm, exec;

static void cursor_ok(const struct cursor *c)
{
    assert(!(c->have && c->done));
    assert(c->cur >= 0 && c->cur <= AHEAD && c->ahead >= 0 &&
           c->ahead <= AHEAD);
    assert(c == &comm || (c->cur == 0 && c->ahead == 0));
    assert(c->misses >= 0);
    assert(!c->has_end || (c->done && !c->cut));
    assert(c->seq >= 0);
}
static int race_only; /* this task's comm log is race-only */
static long end_seq;  /* race-only: the number its <end> carries */

static struct {
    int on;
    int tid, msgid;  /* the recorded sender, as a tid of this run */
    pg_notice_what notice; /* or a notice: what, under which tag, and the */
    int tag;               /* tid that ended (0: any), for an exit */
} want;
/* The message the matcher last accepted for a recorded receive, with its
 * bytes: pg_replay_check_size needs no other look at it.  Reset by each
 * pg_match_expect and by its use, so it never speaks of a bufid PVM has
 * given to another message since. */
static struct {
    int bufid, len;
} accepted;

/* The recording itself is unreadable (edited, truncated mid-event): that
 * is bad input, not a failure of the run, and `pangaea` exits 2 for it. */
static void bad_log(const char *msg) __attribute__((noreturn));
static void bad_log(const char *msg)
{
    pg_warn("%s", msg);
    pg_end_task(PG_REP_BADLOG, msg, PG_EXIT_FATAL);
}

static int open_cursor(struct cursor *c, pg_log_kind kind, pg_log_header *h)
{
    pg_err err;

    pg_log_path(c->path, sizeof c->path, pg_whatif_dir(), pg.ltid, kind);
    c->r = pg_logr_open(c->path, kind, h, &err);
    if (!c->r)
        bad_log(err.msg);
    return 0;
}

/* The task runs the executable it ran when recorded, byte for byte: the
 * same base name is not enough (a rebuilt program behaves otherwise),
 * unless `pangaea -replay -rebuilt` asked for another build on purpose.
 * Checked by each task as it starts, since only the pvmd knows where it
 * found a child's program; pangaea then exits 3, as for any divergence. */
static void check_program(const pg_log_header *h)
{
    char exe[1024], sum[65], msg[1024]; /* pangaea takes 1100 at most */

    if (pg.ltid == 0 || !h->sha256[0])
        return; /* pangaea itself; or a log from before checksums */
    if (pg_exe_sum(exe, sizeof exe, sum) < 0)
        snprintf(sum, sizeof sum, "unreadable");
    if (!strcmp(sum, h->sha256))
        return;
    if (getenv(PG_ENV_REBUILT) && !strcmp(getenv(PG_ENV_REBUILT), "1")) {
        /* -rebuilt: the classic loop (add a printf, rebuild, replay); the
         * replay goes on while the messages agree, and the first that
         * differs is a divergence like any other. */
        pg_warn("runs %.300s, another build than recorded (-rebuilt): it "
                "replays while its messages agree with the recording", exe);
        return;
    }
    snprintf(msg, sizeof msg, "at its start: recorded program %.300s with "
             "SHA-256 %s; the task runs %.300s with SHA-256 %s (another build "
             "or another program; -rebuilt replays another build)",
             h->exe[0] ? h->exe : h->program,
             h->sha256, exe, sum);
    pg_replay_say_diverged(msg);
    pg_end_task(PG_REP_DIVERGED, msg, PG_EXIT_DIVERGED);
}

int pg_replay_open(void)
{
    pg_log_header h;

    if (open_cursor(&comm, PG_LOG_COMM, &h) < 0)
        return -1;
    race_only = pg_log_race_only(h.select);
    if (race_only) { /* reserve.c: what kept receives take */
        pg_err err;

        if (pg_reserve_load(comm.path, &err) < 0)
            bad_log(err.msg);
    }
    if (open_cursor(&exec, PG_LOG_EXEC, &h) < 0)
        return -1;
    check_program(&h);
    pg_live_pos_open(); /* -live: publishes how far this task got */
    pg_stop_init(); /* -stop, -debug: stop.c */
    return 0;
}

static void forget_all(void);

void pg_replay_close(void)
{
    forget_all();
    pg_rxi_clear();
    pg_reserve_free();
    if (comm.r)
        pg_logr_close(comm.r);
    if (exec.r)
        pg_logr_close(exec.r);
    comm.r = exec.r = NULL;
    for (int i = 0; i < AHEAD + 1; i++) {
        free(comm.slot[i].text);
        free(comm.slot[i].to);
        comm.slot[i].text = NULL;
        comm.slot[i].to = NULL;
        comm.slot[i].text_cap = comm.slot[i].to_cap = 0;
    }
}

/* A call name of the event table (log_table.c): static, kept as it is.
 * The two found last are remembered: a loop's send and receive make most
 * events, and this is asked of every event read. */
static int static_call(const char *call)
{
    static const char *last[2]; /* table pointers only */
    int i;

    if (call == last[0] || call == last[1])
        return 1;
    for (i = 0; i < pg_n_msg_calls; i++)
        if (call == pg_msg_calls[i]) {
            last[1] = last[0], last[0] = call;
            return 1;
        }
    for (i = 0; i < pg_n_query_calls; i++)
        if (call == pg_query_calls[i])
            return 1;
    return 0;
}

/* The comm event just read into the slot (s->ev) takes its strings and
 * list out of the reader's memory into the slot's own.  Called once per
 * event read, so a send or receive (its call one of the table's strings,
 * no group, no text) copies nothing but its destinations, without a call
 * to grow what is big enough already. */
static void keep_to(struct slot *s)
{
    if ((!s->to || (size_t)s->ev.nto > s->to_cap) &&
        pg_grow(&s->to, &s->to_cap, s->ev.nto ? s->ev.nto : 1,
                sizeof *s->to) < 0)
        pg_fatal("out of memory");
    if (s->ev.nto == 1) /* a send: one destination, no call */
        s->to[0] = s->ev.to[0];
    else if (s->ev.nto)
        memcpy(s->to, s->ev.to, s->ev.nto * sizeof *s->to);
    s->ev.to = s->to;
}

/* keep() of an event with strings of its own (a group, an about, a call
 * not of the table): out of line, so that a send's or receive's keep()
 * sets none of this up. */
static __attribute__((noinline)) void keep_text(struct slot *s)
{
    const pg_event *ev = &s->ev;
    const char *strs[3] = { ev->call, ev->group, ev->about };
    const char **dst[3] = { &s->ev.call, &s->ev.group, &s->ev.about };
    size_t len[3] = { 0, 0, 0 }, off = 0, i;

    if (strs[0] && static_call(strs[0]))
        strs[0] = NULL; /* s->ev.call stays the table's */
    for (i = 0; i < 3; i++)
        off += len[i] = strs[i] ? strlen(strs[i]) + 1 : 0;
    if ((!s->text || off > s->text_cap) &&
        pg_grow(&s->text, &s->text_cap, off ? off : 1, 1) < 0)
        pg_fatal("out of memory");
    keep_to(s);
    for (i = 0, off = 0; i < 3; off += len[i], i++)
        if (strs[i]) /* else the copied pointer stays (NULL, or static) */
            *dst[i] = memcpy(s->text + off, strs[i], len[i]);
}

static void keep(struct slot *s)
{
    const pg_event *ev = &s->ev;

    if (!ev->group && !ev->about && (!ev->call || static_call(ev->call)))
        keep_to(s); /* a send or receive: only its list to copy */
    else
        keep_text(s);
}

/* A kind a replay passes over (pg_events.def's replay trait). */
static int passed_over(int kind)
{
    const pg_evdesc *d = pg_ev_desc(kind);

    return d && d->replay_passes;
}

/* Reads the next event of a log into *ev: 1, or 0 at the end of the events
 * with *ev an <end> (the log's own, whose misses count, or one made up for
 * a log that stops: cut short by a crash, the task is followed that far). */
static int read_next(struct cursor *c, pg_event *ev)
{
    pg_err err;
    int cc;

    /* The kinds only `pangaea -races` reads (call sites, barriers, routes,
     * the filter of missed polls: pg_events.def's replay trait PASSES)
     * are passed over. */
    while ((cc = pg_logr_next(c->r, ev, &err)) == 1 &&
           ev->kind != PG_EV_SEND && ev->kind != PG_EV_RECV && /* never */
           passed_over(ev->kind))
        ;

    if (cc < 0 && pg_logr_cut(c->r))
        c->cut = 1, cc = 0;
    else if (cc < 0)
        bad_log(err.msg);
    if (cc == 0) {
        memset(ev, 0, sizeof *ev);
        ev->kind = PG_EV_END;
    }
    return ev->kind != PG_EV_END;
}

/* The next event of a log, or NULL at its end.  Failed polls recorded on
 * the <end> still count (c->misses). */
static const pg_event *peek(struct cursor *c)
{
    const pg_event *ev;

    if (c->have) /* no move: the flags were checked when it was read */
        return c == &comm ? &c->slot[c->cur].ev : &c->ev;
    cursor_ok(c);
    if (c->done || !c->r)
        return NULL;
    if (c == &comm && c->ahead) {
        c->cur = (c->cur + 1) % (AHEAD + 1);
        c->ahead--;
    } else if (c == &comm) {
        read_next(c, &c->slot[c->cur].ev);
        keep(&c->slot[c->cur]);
    } else {
        read_next(c, &c->ev);
    }
    ev = c == &comm ? &c->slot[c->cur].ev : &c->ev;
    c->misses = c == &comm ? pg_whatif_misses(ev) : ev->misses;
    if (ev->kind == PG_EV_END) {
        if (c == &comm)
            end_seq = ev->seq;
        c->done = 1;
        c->has_end = !c->cut;
        c->end_status = ev->status;
        return NULL;
    }
    c->have = 1;
    return ev;
}

/* The next recorded spawn of this task, or NULL: its crash (the <crash>
 * a recording that died ends with) is no spawn. */
static const pg_event *peek_spawn(void)
{
    const pg_event *ev = peek(&exec);

    return ev && ev->kind == PG_EV_SPAWN ? ev : NULL;
}

void pg_replay_prefetch(void)
{
    struct slot *s;

    if (!comm.have || comm.done || !comm.r)
        return;
    while (comm.ahead < AHEAD) {
        s = &comm.slot[(comm.cur + comm.ahead + 1) % (AHEAD + 1)];
        if (comm.ahead > 0 && comm.slot[(comm.cur + comm.ahead) %
                                        (AHEAD + 1)].ev.kind == PG_EV_END)
            return; /* nothing after the end */
        read_next(&comm, &s->ev);
        keep(s);
        comm.ahead++;
    }
}

/* Race-only logs: whether the program's next event is the next one the
 * log kept (always, in a full log). */
static int due(void)
{
    const pg_event *ev;

    if (!race_only)
        return 1;
    ev = peek(&comm);
    return ev ? ev->seq == comm.seq + 1 : end_seq == comm.seq + 1;
}

/* The next event, if it is the program's next one: NULL when it lies
 * further on in a race-only log. */
static const pg_event *peek_due(void)
{
    const pg_event *ev = peek(&comm);

    return due() ? ev : NULL;
}

/* The program's next event was left out of a race-only log: counted. */
static void pass(void)
{
    comm.seq++;
    pg.events = comm.seq;
}

static void diverge(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* The number of the event a divergence is at, as the log (and -dump,
 * and -stop) numbers it: call-site and poll events passed over before it
 * count too. */
static long next_seq(void)
{
    const pg_event *ev = &comm.slot[comm.cur].ev;

    return comm.have && ev->kind != PG_EV_END && ev->seq > comm.seq
               ? ev->seq : comm.seq + 1;
}

static void diverge(const char *happened, const char *fmt, ...)
{
    char rec[512], msg[1024], site[700];
    va_list ap;

    /* killed.c: the task died here because the program killed it */
    if (!comm.misses && comm.cut && !peek(&comm))
        pg_await_recorded_kill(happened);
    va_start(ap, fmt);
    vsnprintf(rec, sizeof rec, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg,
             "at event %ld: recorded %s; the program %s%s",
             next_seq(), rec, happened, pg_site_where(site, sizeof site));
    pg_replay_say_diverged(msg);
    pg_end_task(PG_REP_DIVERGED, msg, PG_EXIT_DIVERGED);
}

static const char *describe(const pg_event *ev, char *buf, int size)
{
    if (!due())
        snprintf(buf, size, "a send or blocking receive (left out of the "
                 "race-only recording)");
    else if (comm.misses > 0)
        snprintf(buf, size, "%d more poll(s) that found no message first",
                 comm.misses);
    else if (!ev && comm.cut)
        snprintf(buf, size, "nothing more (the task died here when recorded)");
    else if (!ev)
        snprintf(buf, size, "nothing more (the recorded run ended here)");
    else if (ev->kind == PG_EV_GETTID)
        snprintf(buf, size, "group lookup: instance %d of \"%s\" is ltid %d",
                 ev->inst, ev->group, ev->from);
    else if (ev->kind == PG_EV_LEAVE)
        snprintf(buf, size, "leaving group \"%.100s\" (turn %d)", ev->group,
                 ev->order);
    else if (ev->kind == PG_EV_QUERY)
        snprintf(buf, size, "%s(%.100s) returning %d", ev->call, ev->about,
                 ev->value);
    else if (ev->kind == PG_EV_NOTICE && ev->what == PG_NOTICE_EXIT)
        snprintf(buf, size, "%s of the notice (tag %d) that ltid %d ended",
                 ev->call, ev->tag, ev->from);
    else if (ev->kind == PG_EV_NOTICE)
        snprintf(buf, size, "%s of a notice (tag %d) that a host %s",
                 ev->call, ev->tag, ev->what == PG_NOTICE_HOSTADD
                                        ? "joined" : "left");
    else if (ev->kind == PG_EV_SEND)
        snprintf(buf, size, "%s to ltid %d%s tag %d (message %d)", ev->call,
                 ev->nto ? ev->to[0] : -1, ev->nto > 1 ? " and others" : "",
                 ev->tag, ev->msgid);
    else
        snprintf(buf, size, "%s of message %d from ltid %d tag %d", ev->call,
                 ev->msgid, ev->from, ev->tag);
    return buf;
}

/* At the task's end the recording must end too, with the same status:
 * a program that now stops early (or ends otherwise) has diverged, even if
 * no other task notices.  Reported, not fatal: the task is ending anyway. */
void pg_replay_check_end(int status)
{
    const pg_event *ev;
    char rec[256], msg[700];

    if (!comm.r || !exec.r)
        return;
    pg_stop_unreached(comm.seq); /* -stop past the task's last event */
    ev = peek(&comm);
    if (ev || (comm.misses > 0 && due()))
        describe(ev, rec, sizeof rec);
    else if (race_only && !comm.cut && end_seq > comm.seq + 1)
        snprintf(rec, sizeof rec, "%ld more send(s) or receive(s) (left out "
                 "of the race-only recording)", end_seq - comm.seq - 1);
    else if (peek_spawn())
        snprintf(rec, sizeof rec, "a pvm_spawn of %s", exec.ev.program);
    else if (peek(&exec)) /* a <crash> */
        snprintf(rec, sizeof rec, "that the task died of SIG%s here",
                 sigabbrev_np(exec.ev.value) ? sigabbrev_np(exec.ev.value)
                                             : "?");
    else if (comm.cut)
        snprintf(rec, sizeof rec, "that the task died here");
    else if (comm.has_end && comm.end_status != status)
        snprintf(rec, sizeof rec, "that the task ended with status %d",
                 comm.end_status);
    else
        return;
    snprintf(msg, sizeof msg, "at event %ld: recorded %s; the program "
             "ended with status %d", next_seq(), rec, status);
    pg_replay_say_diverged(msg);
    pg_coord_report(PG_REP_DIVERGED, msg);
}

void pg_replay_unmatchable(const pg_event *ev, const char *why)
{
    char rec[256];

    diverge(why, "%s", describe(ev, rec, sizeof rec));
}

int pg_replay_send(const char *call, int tag, int bytes, int nto,
                   const int *tids)
{
    const pg_event *ev = peek_due();
    char rec[256], did[512];
    int i, ok, outside = 0;

    if (!ev && race_only && !due()) {
        pass(); /* a send a race-only log left out: nothing to check */
        return -1;
    }
    ok = ev && !comm.misses && ev->kind == PG_EV_SEND && ev->tag == tag &&
         ev->nto == nto;
    for (i = 0; ok && i < nto; i++) {
        ok = ev->to[i] == pg_peer_ltid(tids[i]);
        outside += ev->to[i] == PG_LTID_OUTSIDE;
    }
    if (!ok) {
        snprintf(did, sizeof did, "called %s to ltid %d%s tag %d", call,
                 nto ? pg_peer_ltid(tids[0]) : -1, nto > 1 ? " and others" : "",
                 tag);
        diverge(did, "%s", describe(ev, rec, sizeof rec));
    }
    /* Same call, other data: the receiver would get another message. */
    if (ev->bytes != bytes) {
        snprintf(did, sizeof did, "sent it with %d bytes", bytes);
        diverge(did, "%s of %d bytes (sender ltid %d)",
                describe(ev, rec, sizeof rec), ev->bytes, pg.ltid);
    }
    pg_replay_advance();
    return outside;
}

void pg_replay_check_bytes(const pg_event *ev, int bytes)
{
    char rec[256], did[128];

    if (ev->kind != PG_EV_RECV || ev->bytes < 0 || bytes == ev->bytes)
        return;
    snprintf(did, sizeof did, "received it with %d bytes", bytes);
    diverge(did, "%s of %d bytes", describe(ev, rec, sizeof rec), ev->bytes);
}

void pg_replay_check_size(const pg_event *ev, int bufid)
{
    int bytes = -1, tag, src, known = bufid > 0 && bufid == accepted.bufid;
    char rec[256], did[128];

    if (known)
        bytes = accepted.len;
    accepted.bufid = 0;
    if (ev->kind != PG_EV_RECV || ev->bytes < 0 || /* a forced what-if */
        (!known && pvm_bufinfo(bufid, &bytes, &tag, &src) < 0) ||
        bytes == ev->bytes)
        return;
    snprintf(did, sizeof did, "received it with %d bytes", bytes);
    diverge(did, "%s of %d bytes", describe(ev, rec, sizeof rec), ev->bytes);
}

/* The next event; at the log's end, when a what-if forces the polls
 * recorded just before the task's <end> to find a message, that <end>
 * (the forced receive stands in for it). */
static const pg_event *peek_forced(void)
{
    const pg_event *ev = peek_due();

    if (!ev && comm.done && !comm.cut && pg_whatif_due(end_seq))
        return &comm.slot[comm.cur].ev;
    return ev;
}

const pg_event *pg_replay_expect_recv(const char *call, int tid, int tag)
{
    const pg_event *ev = pg_whatif_forced(peek_forced());
    char rec[256], did[256];

    if (ev && !comm.misses && ev->kind == PG_EV_RECV &&
        (tag == -1 || tag == ev->tag) &&
        (tid == -1 || pg_peer_ltid(tid) == ev->from))
        return ev;
    /* A notice comes from a daemon: asked for by tag, or by a daemon's tid */
    if (ev && !comm.misses && ev->kind == PG_EV_NOTICE &&
        (tag == -1 || tag == ev->tag) && (tid == -1 || tid < 0))
        return ev;
    snprintf(did, sizeof did, "called %s(tid t%x = ltid %d, tag %d)", call,
             tid, tid == -1 ? -1 : pg_ltid_of(tid), tag);
    diverge(did, "%s", describe(ev, rec, sizeof rec));
}

const pg_event *pg_replay_gettid(const char *call, const char *group,
                                 int inst, int ltid)
{
    const pg_event *ev = peek_due();
    char rec[256], did[512];

    if (ev && !comm.misses && ev->kind == PG_EV_GETTID &&
        !strcmp(ev->group, group) && (inst == PG_ANY || inst == ev->inst) &&
        (ltid == PG_ANY || ltid == ev->from ||
         (ev->inst < 0 && ev->from == ev->inst))) { /* older logs' failed
                                                      pvm_getinst */
        pg_replay_advance();
        return ev; /* still valid: the next peek has not happened yet */
    }
    snprintf(did, sizeof did, "called %s(\"%.100s\", %s %d)", call, group,
             inst != PG_ANY ? "inst" : "ltid", inst != PG_ANY ? inst : ltid);
    diverge(did, "%s", describe(ev, rec, sizeof rec));
}

int pg_replay_query(const char *call, const char *about)
{
    const pg_event *ev = peek_due();
    char rec[256], did[512];

    if (ev && !comm.misses && ev->kind == PG_EV_QUERY &&
        !strcmp(ev->call, call) && !strcmp(ev->about, about)) {
        int value = ev->value;

        pg_replay_advance();
        return value;
    }
    snprintf(did, sizeof did, "called %s(%.200s)", call, about);
    diverge(did, "%s", describe(ev, rec, sizeof rec));
}

int pg_replay_leave(const char *group)
{
    const pg_event *ev = peek_due();
    char rec[256], did[256];

    if (ev && !comm.misses && ev->kind == PG_EV_LEAVE &&
        !strcmp(ev->group, group)) {
        int order = ev->order;

        pg_replay_advance();
        return order;
    }
    snprintf(did, sizeof did, "left group \"%.100s\"", group);
    diverge(did, "%s", describe(ev, rec, sizeof rec));
}

const pg_event *pg_replay_next(void)
{
    const pg_event *ev = peek(&comm);

    return comm.misses ? NULL : ev;
}

int pg_replay_poll_missed(void)
{
    const pg_event *ev = peek(&comm);

    if (comm.misses <= 0 || !due()) /* a what-if may force one more */
        return comm.misses <= 0 && ev && pg_whatif_nothing(ev->seq);
    comm.misses--;
    return 1;
}

/* A receive of the program's that a race-only log left out: 1, and the
 * caller lets PVM take the message (then calls pg_replay_left_out_took).
 * Every poll that found something, and the count of those that found
 * nothing, is kept: a poll here has diverged. */
int pg_replay_left_out(const char *call, int poll)
{
    char rec[256], did[128];

    if (!race_only || due())
        return 0;
    if (poll) {
        snprintf(did, sizeof did, "called %s", call);
        diverge(did, "%s", describe(NULL, rec, sizeof rec));
    }
    return 1;
}

void pg_replay_left_out_took(void)
{
    pass();
}

void pg_replay_advance(void)
{
    const pg_event *ev = &comm.slot[comm.cur].ev;

    if (race_only && ev->kind == PG_EV_RECV && strcmp(ev->call, "pvm_probe"))
        pg_reserve_take(ev->from, ev->msgid); /* taken: reserved no more */
    comm.have = 0;
    comm.seq++;
    if (comm.slot[comm.cur].ev.seq > comm.seq) /* events passed over */
        comm.seq = comm.slot[comm.cur].ev.seq;
    if (pg.mode == PANGAEA_REPLAY) /* a what-if counts what it records */
        pg.events = comm.seq; /* as the log numbers its events */
    pg_live_seq(comm.seq);
    if (comm.seq >= pg_stop_next) { /* -stop, -debug: stop.c */
        char d[256];

        pg_stop_event(comm.seq, describe(&comm.slot[comm.cur].ev, d, sizeof d));
    }
}

/* ---- the matcher ------------------------------------------------------------ */
void pg_match_expect(const pg_event *ev)
{
    /* What a receive may be replayed as (pg_replay_expect_recv). */
    assert(ev->kind == PG_EV_RECV || ev->kind == PG_EV_NOTICE);
    accepted.bufid = 0;
    /* Translated before the receive: the matcher may not ask anybody. */
    if (ev->kind == PG_EV_NOTICE) {
        want.notice = ev->what;
        want.tag = ev->tag;
        want.tid = ev->what == PG_NOTICE_EXIT && ev->from >= 0
                       ? pg_tid_of(ev->from) : 0;
        if (want.tid < 0)
            pg_replay_unmatchable(ev, "waits for it, but that task never "
                                      "ran in this replay");
        want.on = 1;
        return;
    }
    want.notice = 0;
    want.tid = pg_tid_of(ev->from);
    if (want.tid <= 0)
        pg_replay_unmatchable(ev, "waits for it, but that sender never ran "
                                  "in this replay");
    want.on = 1;
    want.msgid = ev->msgid;
    assert(want.tid > 0); /* pg_replay_unmatchable does not return */
}

void pg_match_clear(void)
{
    want.on = 0;
}

/* The program's matcher runs as program code: its calls (a peek with
 * pvm_setrbuf, pvm_bufinfo) must see messages without our header. */
static int app_match(int bufid, int tid, int tag)
{
    int depth = pg.depth, cc;

    pg.depth = 0;
    cc = pg_app_match(bufid, tid, tag);
    pg.depth = depth;
    return cc;
}

/* What the matcher learnt of a queued message, by bufid: PVM calls it for
 * every queued message at every receive, so a message that waits while
 * others are taken would be looked at (pvm_getminfo) again and again.  A
 * bufid stays the same message while it is queued; it leaves the queue only
 * by a receive whose matcher (this one) said yes, and only then can PVM
 * free it and give its bufid to another message: so an entry is forgotten
 * whenever the matcher accepts its bufid, whoever asked. */
struct seen {
    int src, wid, len, known; /* known: src, wid and len are this bufid's */
};
static struct seen *seen;
static int nseen;

#define SEEN_MAX (1 << 20) /* bufids past this are looked at every time */

static struct seen *seen_of(int bufid)
{
    int n = nseen ? nseen : 256;

    if (bufid <= 0 || bufid >= SEEN_MAX)
        return NULL;
    if (bufid >= nseen) {
        struct seen *more;

        while (n <= bufid)
            n *= 2;
        more = realloc(seen, (size_t)n * sizeof *seen);
        if (!more)
            return NULL; /* no memo: look every time */
        memset(more + nseen, 0, (size_t)(n - nseen) * sizeof *more);
        seen = more;
        nseen = n;
    }
    return &seen[bufid];
}

static void forget_all(void)
{
    free(seen);
    seen = NULL;
    nseen = 0;
}

static void forget(int bufid)
{
    if (bufid > 0 && bufid < nseen)
        seen[bufid].known = 0;
}

/* The matcher accepts bufid for the armed receive.  One message per armed
 * receive: PVM stops its walk at the first yes, and the receive is armed
 * again (pg_match_expect) before it asks for another.  A bufid accepted
 * leaves the memo: PVM may give its number to another message. */
static int accept(int bufid, int len)
{
    assert(want.on && !want.notice);
    assert(accepted.bufid == 0 || accepted.bufid == bufid);
    forget(bufid);
    accepted.bufid = bufid, accepted.len = len;
    assert(bufid >= nseen || !seen[bufid].known);
    return 1;
}

/* The sender and wait id of the message, looked at once per queued
 * message: -1 if PVM does not know the bufid or it is of another context
 * (then it never matches the program's receives). */
static int header_of(int bufid, int *src, int *wid, int *len)
{
    struct seen *s = seen_of(bufid);
    struct pvmminfo mi;

    if (s && s->known) {
        *src = s->src, *wid = s->wid, *len = s->len;
        return 0;
    }
    if (pg_hdr_rx_info(bufid, &mi) < 0 || mi.ctx != pg_context())
        return -1;
    *src = mi.src, *wid = mi.wid, *len = mi.len;
    if (s)
        *s = (struct seen){ mi.src, mi.wid, mi.len, 1 };
    return 0;
}


/* ---- taking messages out of PVM's queue (wrap_recv.c, replay_index.c) ---- */
static struct {
    int on, taken;
    int src, wid, len; /* of the message accepted last */
} drain;

int pg_replay_indexed(void)
{
    return pg.mode == PANGAEA_REPLAY && !race_only && comm.r;
}

void pg_match_drain(int on)
{
    drain.on = on;
    drain.taken = 0;
}

int pg_match_taken(int *src, int *msgid, int *len)
{
    if (!drain.taken)
        return -1;
    *src = drain.src, *msgid = drain.wid, *len = drain.len;
    return 0;
}

/* A task's tid: neither a daemon's (the top bit) nor a group's, and a
 * task part (PVM's TIDISTASK). */
static int task_tid(int tid)
{
    return (tid & (int)0xc0000000) == 0 && (tid & 0x3ffff) != 0;
}

/* The first message of the program's context from a task of the run: a
 * message without a wait id (a task outside the run, replayed from the
 * log) or from a daemon (a notice) stays in PVM's queue. */
static int drain_match(int bufid)
{
    struct pvmminfo mi;

    if (pg_hdr_rx_info(bufid, &mi) < 0 || mi.ctx != pg_context() ||
        mi.wid <= 0 || !task_tid(mi.src))
        return 0;
    drain.src = mi.src, drain.wid = mi.wid, drain.len = mi.len;
    drain.taken = 1;
    forget(bufid);
    return 1;
}

int pg_match(int bufid, int tid, int tag)
{
    struct pvmminfo mi;
    int src, wid, len, cc;

    if (drain.on)
        return drain_match(bufid);

    /* PVM's walk, first: a replayed receive passing over a queued message
     * it has looked at before.  With many senders most calls are this
     * (64 tasks: about 135 per receive), so it is tested before anything
     * else and without a call (header_of does the same more slowly). */
    if (want.on && !want.notice && bufid > 0 && bufid < nseen && seen[bufid].known) {
        if (seen[bufid].src != want.tid || seen[bufid].wid != want.msgid)
            return 0;
        return accept(bufid, seen[bufid].len);
    }
    if (!want.on) {
        cc = pg_app_recv && pg_app_match ? app_match(bufid, tid, tag)
                                          : pg_default_match(bufid, tid, tag);
        cc = pg_chaos_match(bufid, cc);

        /* Recording an exit notice needs its body read before the receive
         * returns it (wrap_notify.c). */
        if (cc > 0 && pg.mode == PANGAEA_LOG &&
            pg_notice_kind(bufid) == PG_NOTICE_EXIT)
            pg_notice_first(bufid);
        /* A race-only replay keeps what kept receives take (reserve.c) */
        if (cc > 0 && race_only && header_of(bufid, &src, &wid, &len) == 0 &&
            pg_reserved(src, wid))
            cc = 0;
        if (cc > 0)
            forget(bufid);
        return cc;
    }
    if (want.notice) {
        cc = pvm_getminfo(bufid, &mi) >= 0 && mi.ctx == pg_context() &&
             mi.tag == want.tag && pg_notice_kind(bufid) == want.notice &&
             (!want.tid || pg_notice_first(bufid) == want.tid);
        if (cc)
            forget(bufid);
        return cc;
    }
    /* want.tid is a task's and want.msgid >= 1, so daemon messages and
     * messages without a header (wait id 0) never match; the context check
     * is PVM's own. */
    assert(want.tid > 0);
    cc = header_of(bufid, &src, &wid, &len) == 0 && src == want.tid &&
         wid == want.msgid;
    return cc ? accept(bufid, len) : 0;
}

/* ---- spawns ----------------------------------------------------------------- */
static int same_program(const char *a, const char *b)
{
    return !strcmp(pg_basename(a), pg_basename(b));
}

int pg_replay_recorded_crash(char *where, int size)
{
    const pg_event *ev = exec.r ? peek(&exec) : NULL;
    char name[600];

    if (!ev || ev->kind != PG_EV_CRASH)
        return 0;
    if (where && size > 0)
        where[0] = 0;
    if (where && ev->module && ev->module[0])
        snprintf(where, size, "%s",
                 pg_site_name(ev->module, ev->offset, name, sizeof name));
    return ev->value;
}

const pg_event *pg_replay_spawn(const char *program, int count)
{
    const pg_event *ev = peek_spawn();

    if (!ev || ev->kind != PG_EV_SPAWN || !same_program(ev->program, program) ||
        ev->count != count) {
        char msg[1024];

        snprintf(msg, sizeof msg,
                 "at spawn %ld: recorded %s%s (count %d); the "
                 "program spawned %s (count %d)", exec.seq + 1,
                 ev ? "pvm_spawn of " : "no more spawns",
                 ev ? ev->program : "", ev ? ev->count : 0, program, count);
        pg_replay_say_diverged(msg);
        pg_end_task(PG_REP_DIVERGED, msg, PG_EXIT_DIVERGED);
    }
    exec.have = 0;
    exec.seq++;
    return ev;
}

/* ---- what-if runs (whatif.c has the plan) ----------------------------------- */
int pg_replaying(void)
{
    return pg.mode == PANGAEA_REPLAY || pg_replay_steers();
}

int pg_replay_steers(void)
{
    const pg_event *ev;

    if (!pg_whatif.on)
        return 0;
    if (!comm.r) /* not a PVM task yet (a clock read first): it follows */
        return !pg.started && pg_whatif_follows(1); /* if its start does */
    ev = peek(&comm);
    if (!ev) /* polls before the <end> may still be forced */
        return comm.done && !comm.cut && pg_whatif_due(end_seq);
    return pg_whatif_follows(ev->seq);
}

void pg_replay_whatif_end(int status)
{
    char msg[900];

    if (!pg_whatif.on || !comm.r || !pg_replay_steers())
        return;
    pg_whatif_unreached(status, next_seq(), msg, sizeof msg);
    pg_replay_say_diverged(msg);
    pg_coord_report(PG_REP_DIVERGED, msg);
}

int pg_replay_spawn_steers(const char *program, int count)
{
    const pg_event *ev;

    if (!pg_whatif.on || !exec.r)
        return 0;
    ev = peek_spawn();
    return ev && same_program(ev->program, program)
           && ev->count == count;
}
