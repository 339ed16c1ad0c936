/*
 * pg_internal.h - what the files of the runtime library share.
 *
 * The library defines the PVM calls under their own names.  Each wrapper
 * first asks (PG_RETURN_REAL_UNLESS, with pg_app_call()) whether the call is the
 * application's: a call made while another wrapped call is in progress, or
 * while Pangaea is off, belongs to PVM itself and goes straight to the real function (pg_real).
 * Only application calls get headers, log events and replay matching.
 *
 * Where to look:
 *   pg_calls.def   the wrapped PVM calls, one row each (see real.c)
 *   real.c         the real libpvm3 functions, found with dlsym(RTLD_NEXT)
 *   state.c        the bottom: state `pg`, warnings, fatal ends, clocks, waits
 *   select.c       PANGAEA_ONLY: which events are logged or replayed
 *   runtime.c      the top: start-up from the environment, exit, the public
 *                  API, and the wrappers' guard (pg_app_call)
 *   progsum.c      the program's executable and its checksum
 *   task_env.c     a task's working directory and (ltid 1) stdin, before main()
 *   grow.c         the growable array every list uses (pg_grow.h)
 *   notice.c       which messages are notices, read by the matcher
 *   header.c       the message header: sender ltid and message id
 *   callsite.c     call sites, asked filters, polls, barriers, routes: the
 *                  events `pangaea -races` needs (site_name.c: file:line)
 *   coord_client.c requests to the coordinator (tid <-> ltid)
 *   record.c       writing events to the task's logs
 *   replay.c       the recorded events to follow, and matching messages
 *   whatif.c       a what-if run's plan: which old events to follow
 *   chaos.c        -chaos: random receive delays, picks and empty polls
 *   live_pos.c     a replaying task's position, for `pangaea -live`
 *                  (its own header, live_pos.h, shared with pangaea)
 *   datafile.c     ltid-N.data.pgc: contents a replay must give back
 *   outside.c      messages from tasks outside the run, mailbox entries
 *   timelog.c      ltid-N.time.pgc: what clocks and getpid returned
 *   wrap_time.c    gettimeofday, time, clock_gettime, getpid (PG_LIBC rows)
 *   wrap_tasks.c   pvm_tasks, pvm_config: without our tasks, and recorded
 *   wrap_mhf.c     pvm_addmhf, pvm_delmhf: handlers' messages are receives;
 *                  pvm_catchout (its output handler is one)
 * and the wrappers of the PVM calls (pg_calls.def), each opening with
 * PG_RETURN_REAL_UNLESS:
 *   wrap_send.c    pvm_send, pvm_mcast, pvm_psend
 *   wrap_recv.c    pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe, pvm_precv, pvm_recvf
 *   wrap_spawn.c   pvm_spawn, pvm_parent, pvm_siblings, ltids of children
 *   wrap_exit.c    pvm_exit
 *   wrap_notify.c  pvm_notify, and the notices it brings (task exits, hosts)
 *   wrap_query.c   pvm_pstat, pvm_mstat, pvm_gsize, pvm_hostsync: answers
 *                  that race
 *   wrap_group.c   pvm_joingroup, pvm_lvgroup, pvm_gettid, pvm_getinst,
 *                  pvm_barrier, pvm_bcast, pvm_reduce, pvm_gather,
 *                  pvm_scatter (libgpvm3)
 *   wrap_mbox.c    pvm_putinfo, pvm_recvinfo, pvm_delinfo, pvm_getmboxinfo,
 *                  pvm_insert, pvm_lookup, pvm_delete: the mailbox
 *   wrap_hosts.c   pvm_addhosts, pvm_delhosts: the answers per host
 *   wrap_named.c   the calls not replayed (PG_NAMED rows): named, logged
 *   wrap_route.c   pvm_setopt (PvmRoute is an event; the rest passes),
 *                  pvm_getopt (the program's output settings)
 *   wrap_fds.c     pvm_getfds (replay: a descriptor always readable)
 *   wrap_kill.c    pvm_kill (an event; killed.c: the victim in replay)
 *   wrap_sig.c     pvm_sendsig: a signal lands where it landed (the
 *                  receiver's signals file counts its calls)
 *   wrap_mbox.c    the mailbox (pvm_putinfo, pvm_recvinfo, ...) and the
 *                  old database (pvm_insert, pvm_lookup, pvm_delete)
 *   wrap_fds.c     pvm_getfds: a descriptor a replay's select() can wait on
 *   wrap_named.c   the calls not replayed (PG_NAMED rows), named at first use
 * and the mechanisms they share:
 *   gate.c         holding a task before a call (-live -hold, breakpoints)
 *   reserve.c      race-only replay: messages kept for the kept receives
 *   stop.c         -stop and -debug: a task stopped after an event
 *   progmap.c      which program a replayed spawn runs (packs, rebuilds)
 *   log_*.c        the logs: their table (log_table.c), binary writer and
 *                  reader (log_binw.c, log_binr*.c), XML (log_xml.c,
 *                  log_read.c, log_write.c, log_dump.c), files (log_sink.c)
 * docs/ARCHITECTURE.md follows one receive through all of it.
 */
#ifndef PG_INTERNAL_H
#define PG_INTERNAL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>

/* The library is compiled with -fvisibility=hidden: only the PVM calls it
 * defines and pangaea.h's are its interface (libpangaea.map.in says which). */
#pragma GCC visibility push(default)
#include <pvm3.h>
#include "pangaea.h"
/* libgpvm3 exports these without declaring them in pvm3.h; a program that
 * declares them itself calls ours (PG_NAMED rows of pg_calls.def). */
int pvm_grphostinfo(char *group, int hosttid, int *coord, int *nmem,
                    int *nhosts);
int pvm_grpvhostinfo(char *group, int **coordv, int **nmemv, int *nhosts);
#pragma GCC visibility pop
#include "pg_err.h"
#include "pg_util.h"
#include "pg_log.h"
#include "pg_proto.h"
#include "live_pos.h"

/* ---- the real PVM functions (real.c) ----------------------------------- */
typedef int (*pg_matchfn)(int, int, int);
/* One function pointer per row of pg_calls.def: pg_real.send is libpvm3's
 * pvm_send.  Inside a wrapper, PVM is reached only through these. */
struct pg_real {
#define PG_CALL(name, ret, params, group, ...) ret (*name) params;
#define PG_LIBC(name, ret, params) ret (*name) params;
#define PG_NAMED(name, ret, params, args, group) ret (*name) params;
#include "pg_calls.def"
#undef PG_CALL
};
extern struct pg_real pg_real;
/* The gate column of pg_calls.def: what the live page's gate (gate.c)
 * needs to know of a call; PG_GATE_OF_name is the row's flags. */
enum { PG_GT_NONE = 0, PG_GT_SITE = 1, PG_GT_SBUF = 2, PG_GT_LIST = 4,
       PG_GT_TURN = 8 };
enum pg_gate_of {
#define PG_CALL(name, ret, params, group, what, space, code, gate)             \
    PG_GATE_OF_##name = (gate),
#include "pg_calls.def"
#undef PG_CALL
};
/* Resolves every real function; exits the process with a message if one is
 * missing (the library was loaded without libpvm3). */
void pg_real_load(void);
void pg_real_load_group(void);

/* ---- the runtime's state, warnings, clocks, waits (state.c) ------------ */
struct pg_state {
    pangaea_mode_t mode;     /* from PANGAEA_MODE; OFF when not under pangaea */
    int started;             /* pg_start() done                              */
    int depth;               /* wrapped calls in progress                    */
    int ltid;                /* this task's logical id                       */
    int tid;                 /* this task's PVM tid                          */
    int ctx;                 /* Pangaea's own message context                */
    int coord;               /* coordinator tid                              */
    int top;                 /* tid of the `pangaea` task                    */
    int nspawned;            /* children this task has spawned (for ltids)   */
    int next_msgid;          /* message ids this task has used               */
    long events;             /* communication events logged or replayed  */
    long calls;              /* PVM calls the program began (every one that
                                passes PG_RETURN_REAL_UNLESS_AT): where a signal
                                landed (wrap_sig.c)                          */
    int misses;              /* recording: polls that found nothing since the
                                last event                                   */
    double recv_since;       /* recording: when the program's blocking
                                receive began (pg_now; 0: none)              */
    char program[1024];
    char logdir[4096];
    char host[256];
    pg_logw *comm;           /* recording: the two logs                      */
    int suspended;           /* pangaea_suspend() depth                      */
    struct pg_select {       /* PANGAEA_ONLY: what is recorded/replayed      */
        char text[256];      /* as given, "" for everything                  */
        int tags[64], ntags; /* only these tags, when ntags > 0              */
        int ltids[64], nltids; /* only in these tasks, when nltids > 0      */
        int race_only;       /* "race-only": a recording pangaea -min pruned */
    } sel;
    pg_logw *exec;
    int coll;                /* a pvm_reduce/gather/scatter is in progress */
    int coll_tag;            /* ... with this message tag                  */
    int pid;                 /* the process that set the runtime up         */
};
extern struct pg_state pg;

/* True in a child made by fork() of a task: it shares the task's PVM
 * socket and log mappings, so the runtime is off there and its exit paths
 * do nothing. */
int pg_forked_child(void);
/* pvmproto.h's SYSCTX_DG: libgpvm3's context for group traffic. */
#define SYSCTX_DG_CTX (0x7ffff - 3)
/* True when a message in context `ctx` may carry our header. */
int pg_app_ctx(int ctx);
/* True for the message contexts PVM keeps for itself (pvmproto.h). */
int pg_system_ctx(int ctx);
/* pvm_getcontext(), without the call once the task is enrolled. */
int pg_context(void);
/* PANGAEA_STALL: seconds a wait may last before it is reported (30). */
int pg_stall_seconds(void);
/* A replay wait that speaks up once it has lasted PANGAEA_STALL seconds:
 * pg_wait_start when it begins; pg_wait_overdue is true once, when it has
 * lasted that long, and the caller then says what it waits for
 * (pg_wait_report); pg_wait_end says the wait is over, if it was
 * reported. */
struct pg_wait {
    double start; /* pg_seconds(); 0: not read yet, read at the first look */
    int said;
};
void pg_wait_start(struct pg_wait *w);
int pg_wait_overdue(struct pg_wait *w);
/* Prints "pangaea: ltid N (program): <message>" on stderr. */
void pg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* PVM's words for an error code (PvmNoFile: "No such file"), for messages
 * that would otherwise show a number. */
const char *pg_pvm_strerror(int code);
/* Ends this task: tells `pangaea` (report kind PG_REP_*, msg), closes the
 * logs, leaves PVM (all three through pg_ender), exits with status. */
void pg_end_task(int kind, const char *msg, int status)
    __attribute__((noreturn));
/* Reports a fatal problem to `pangaea` and ends this task with PG_EXIT_FATAL. */
void pg_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* How the task ends, set by runtime.c at start-up: pg_end_task calls it
 * before it _exits.  The bottom layer calls nothing above it. */
extern void (*pg_ender)(int kind, const char *msg, int status);
/* Set by wrap_group.c once the task joins a group: leaves them all, in
 * their turns, at the task's end. */
extern void (*pg_leave_groups)(void);
/* Set by wrap_group.c while a collective's lookups of its group's members
 * hold a turn of the group: pg_app_call_tag calls it at the collective's
 * first message (its lookups are done), which ends that turn. */
extern void (*pg_coll_lookups_done)(void);
/* Set by wrap_mhf.c once pvm_catchout's handler is taken: at the task's
 * end, the children's last output, recorded or replayed (pg_mhf_finish). */
extern void (*pg_finish_output)(void);
/* Set by wrap_sig.c (before runtime.c's constructor runs): at start-up,
 * at the task's end, and as a call returns where a recorded signal lands
 * (stop.c). */
extern void (*pg_signals_start)(void);
extern void (*pg_signals_finish)(void);
extern void (*pg_signals_leave)(void);

/* ---- buffer ids the program's receives return (bufid.c) ------------------ */
/* A receive of the program's returned this buffer id: recording, noted in
 * ltid-N.bufids.pgc; a full replay moves the message to the recorded id,
 * which it returns (else bufid). */
int pg_bufid_seen(int bufid);
/* Recording: makes ltid-N.bufids.pgc, as the other logs are made. */
void pg_bufid_open(void);
/* At the task's end: the last ids written; a replay says how many
 * differed. */
void pg_bufid_close(void);

/* ---- selection (select.c) ------------------------------------------------ */
/* True when an event with this tag (-1: any) is logged or replayed in this
 * task now: not suspended, and within PANGAEA_ONLY. */
int pg_selected(int tag);
/* Parses a selection ("tag=5,7 ltid=2"); 0, or -1 and err. */
int pg_select_parse(const char *text, struct pg_select *sel, pg_err *err);

/* ---- start-up, exit, the public API, the wrappers' guard (runtime.c) ---- */
/* Starts the runtime if Pangaea is on and it has not started yet: enrols
 * in PVM, registers with the coordinator, opens logs.  Returns 0, or -1 when
 * the runtime stays off. */
int pg_start(void);
/* True when the call being wrapped belongs to the application (not to PVM
 * itself, not with Pangaea off).  Starts the runtime on first use. */
int pg_app_call(void);
/* pg_app_call() for a send or receive with `tag`: inside a collective
 * (pvm_reduce, ...) its own messages with the collective's tag are the
 * application's too, although libgpvm3 sends them in a system context. */
int pg_app_call_tag(int tag);
/* In `pangaea` itself (ltid 0) a fatal problem must also stop what it
 * started (coordinator, tasks, a private pvmd): pg_end_task calls this,
 * after closing the logs, instead of leaving; it must not return. */
extern void (*pg_top_end)(const char *msg);
/* `pangaea` itself (ltid 0) is not spawned: it sets the runtime up with
 * its options; pg_top_off turns it off before pangaea's own end, which is
 * not a task's end. */
void pg_set_top(pangaea_mode_t mode, int ctx, int coord, const char *logdir);
void pg_top_off(void);

/* The guard every wrapper opens with.  Unless `app` holds (pg_app_call()
 * or pg_app_call_tag(tag), with the wrapper's own conditions), the call is
 * PVM's own, or made with Pangaea off: the wrapper returns `realcall`, the
 * real function called with the program's arguments.  Otherwise it goes
 * on, its work bracketed by PG_ENTER/PG_LEAVE so that calls PVM makes
 * inside it pass this guard straight through.  `call` is the wrapper's
 * row of pg_calls.def (its name without pvm_): the gate's name of it. */
#define PG_RETURN_REAL_UNLESS(call, app, realcall)                             \
    PG_RETURN_REAL_UNLESS_AT(call, app, realcall, -1, -1, -1, NULL)
/* The same, naming the call's main arguments for the live page's gate
 * (gate.c, live_pos.h): the peer's tid (-1 none), the tag, the size in
 * bytes (-1 unknown) and a printf text of the rest ("group %s count %d").
 * Every program's call passes the gate here, in this one place, before its
 * work: under -live with a pause, step, run-to or breakpoint set, it may
 * be held; with nothing set the gate costs two loads. */
#define PG_RETURN_REAL_UNLESS_AT(call, app, realcall, peer_tid, tag, size,     \
                                 ...)                                          \
    PG_RETURN_REAL_UNLESS_AS(PG_CALL_NAME(call), app, realcall, peer_tid,      \
                             tag, size, __VA_ARGS__)
/* The same in a helper shared by several calls: gate_name is the caller's
 * PG_CALL_NAME(call). */
#define PG_RETURN_REAL_UNLESS_AS(gate_name, app, realcall, peer_tid, tag,      \
                                 size, ...)                                    \
    do {                                                                       \
        pg_sig_entering = 1; /* a signal landing now: in the next call */     \
        if (!(app)) {                                                          \
            pg_sig_entering = 0;                                               \
            return realcall;                                                   \
        }                                                                      \
        ++pg.calls;                                                            \
        pg_sig_entering = 0;                                                   \
        if (pg.calls >= pg_sig_at)                                             \
            pg_sig_gate(gate_name);                                            \
        PG_GATE(gate_name, peer_tid, tag, size, __VA_ARGS__);                  \
    } while (0)
/* The name the gate knows a call by: "pvm_" and the name of its row of
 * pg_calls.def (a name that is no row's does not compile: pg_real has a
 * member per row). */
#define PG_CALL_NAME(call) ((void)sizeof pg_real.call, "pvm_" #call)
/* ---- pvm_sendsig: signals land where they landed (wrap_sig.c) ---------- */
/* Replay: the call count at which the next recorded signal lands
 * (LONG_MAX: none); PG_RETURN_REAL_UNLESS_AT calls pg_sig_gate when pg.calls
 * reaches it, which raises the signals overdue and arms PG_STOP_SIG for
 * those due as this call returns (pg_stop_now calls pg_sig_leave). */
extern volatile long pg_sig_at;
/* Set from a wrapper's first statement until it has counted its call: a
 * signal landing then landed inside the next call, which the program has
 * made already (wrap_sig.c). */
extern volatile sig_atomic_t pg_sig_entering;
void pg_sig_gate(const char *call);
/* Says once per `said` flag, through `pangaea`, "CALL is not replayed:
 * this run may not repeat" (coord_client.c). */
void pg_name_once(const char *call, int *said);

/* Brackets a wrapped call: calls PVM makes inside it pass through. */
#define PG_ENTER() (pg.depth++)
#define PG_LEAVE()                                                             \
    ((--pg.depth == 0 && pg_stop_armed) ? pg_stop_now() : (void)0)
/* A real call made as PVM's: the calls it makes pass through too. */
#define PG_AS_PVM(realcall)                                                    \
    ({                                                                         \
        __typeof__(realcall) pg_as_pvm_;                                       \
        PG_ENTER();                                                            \
        pg_as_pvm_ = (realcall);                                               \
        PG_LEAVE();                                                            \
        pg_as_pvm_;                                                            \
    })

/* ---- stopping at a recorded event, for a debugger (stop.c) ------------- */
/* Set when a -stop/-debug event was completed: the task stops as the
 * program's wrapped call returns (PG_LEAVE at depth 0, pg_stop_now). */
extern int pg_stop_armed;
void pg_stop_now(void);
/* A bit of pg_stop_armed: a call held by the live page's gate (gate.c)
 * returns; pg_stop_now then calls pg_gate_after, gdb's breakpoint. */
#define PG_STOP_GATE 2
/* Another: a recorded signal lands as the call returns (wrap_sig.c). */
#define PG_STOP_SIG 4
void pg_gate_after(int ltid);
/* Reads this task's stop events (replay start). */
void pg_stop_init(void);
/* Replay completed (or passed over) event seq >= pg_stop_next, described:
 * arms the stop. */
extern long pg_stop_next;
void pg_stop_event(long seq, const char *described);
/* The task ends at event last: says which stop events it never reached. */
void pg_stop_unreached(long last);
/* The ltid `pangaea -debug` starts under gdb, or -1. */
int pg_debug_ltid(void);

/* ---- call sites, for `pangaea -races` (callsite.c) ---------------------- */
/* Notes the return address of the program's PVM call: in every wrapper of
 * a row of pg_calls.def whose gate column has PG_GT_SITE (the gate counts
 * the <site> record it may write), once it knows the call is the
 * program's.  Inside a collective (pvm_reduce ...) the collective's own
 * site stays. */
#define PG_SITE(call)                                                          \
    do {                                                                       \
        _Static_assert(PG_GATE_OF_##call & PG_GT_SITE, "pvm_" #call           \
                       ": its row of pg_calls.def has no PG_GT_SITE");         \
        if (!pg.coll)                                                          \
            pg_site_enter(__builtin_return_address(0));                        \
    } while (0)
void pg_site_enter(void *pc);
/* Writes the <route> event of the program's pvm_setopt(PvmRoute, val). */
void pg_site_route(int val);
/* The receive being recorded asked for source tid and tag (matcher: 1
 * through the program's pvm_recvf matcher). */
void pg_site_ask(int tid, int tag, int matcher);
/* A poll found nothing: its filter and site are kept for pg_site_poll. */
void pg_site_missed(const char *call, int tid, int tag, int matcher);
/* Writes the <poll> of the last miss (before the event that counts them). */
void pg_site_poll(void);
/* The next send, recv or notice written carries the current site and the
 * asked filter (pg_logw_note). */
void pg_site_note(void);
/* The current site's id (0: unknown), writing its <site> if new. */
int pg_site_current(void);
/* " at sor.c:212" for the program's current PVM call (file:line when its
 * object has debug information and libdw is there, else function or
 * object and offset), "" if unknown: what a divergence names. */
const char *pg_site_where(char *buf, int size);
/* The same for the call made at pc (the live page's gate, before PG_SITE). */
const char *pg_site_where_pc(void *pc, char *buf, int size);
/* The call made at pc as file (base name), function and line (0 when
 * unknown): a breakpoint's site (gate.c); 0, or -1 when pc is unknown. */
int pg_site_parts_pc(void *pc, char *file, int fsize, char *func, int nsize,
                     int *line);

/* At a crash (from the signal handler; fault: the interrupted pc, or
 * NULL): the program's innermost frame, the first of the stack in an
 * object that is not the C library's, PVM's or Pangaea's: its pc, object
 * and offset; 0, or -1 if none. */
int pg_site_crash(void *fault, void **pc, char *module, size_t size,
                  int *offset);
/* For the number of a held call's event (gate.c): 1 if the call at pc
 * would write a new <site> record; 1 if a <poll> record is due first. */
int pg_site_is_new(void *pc);
int pg_site_pending(void);
/* pvm_barrier(group, count) returned: logged when recording. */
void pg_site_barrier(const char *group, int count);

/* ---- the message header (header.c) -------------------------------------- */
/* Sender ltid and message id of a message; they travel in PVM's message
 * header (the message id in its wait id), not in the program's data. */
typedef struct pg_hdr {
    int ltid;
    int msgid;
} pg_hdr;
/* The program's send buffer, its info read into *mi (mi->len: the bytes
 * sent); 0 when there is none. */
int pg_hdr_body(struct pvmminfo *mi);
/* Sends the send buffer `body` (from pg_hdr_body, with its info *mi)
 * marked with `msgid`, through `sendfn`, and unmarks it.  Returns what
 * sendfn returned. */
int pg_hdr_send(int body, struct pvmminfo *mi, int msgid,
                int (*sendfn)(void *), void *arg);
/* For message `bufid`: 1 and its source tid and message id when it carries a
 * Pangaea header, 0 when it carries none (from a daemon, in a system
 * context, from outside the run), -1 when there is no such message.  Safe
 * inside a matcher: it asks nobody. */
int pg_hdr_peek(int bufid, int *src, int *msgid);
/* pvm_getminfo of a received message (in PVM's queue, or just returned by
 * a receive; never a buffer being packed), read in place once PVM's layout
 * is learnt and checked; its dst, enc and crc are then 0.  Safe inside a
 * matcher. */
int pg_hdr_rx_info(int bufid, struct pvmminfo *mi);
/* pg_hdr_peek from info PVM already gave (pvm_getminfo): 1 or 0. */
int pg_hdr_of(const struct pvmminfo *mi, int *src, int *msgid);
/* The same with the sender's ltid (asking the coordinator once per peer). */
int pg_hdr_take(int bufid, pg_hdr *h);
int pg_hdr_take_of(const struct pvmminfo *mi, pg_hdr *h);
/* pvm_setrbuf(0): the receive buffer detached, not freed (in place, once
 * checked against libpvm3). */
void pg_hdr_detach_rbuf(void);

/* ---- ltid <-> tid (coord_client.c) -------------------------------------- */
int pg_coord_register(void);
void pg_coord_announce(int child_ltid, int child_tid);
/* A new task's ltid, numbered by the coordinator (the k-th child of this
 * task, which is in no recording followed); -1 when none is left. */
int pg_coord_new_ltid(int k);
/* A PVM context's name for the log (wrap_context.c): name > 0 tells the
 * coordinator this task made ctx under that name; 0 asks.  Returns the
 * name, 0 when none is known. */
int pg_coord_ctx_name(int ctx, int name);
/* The next send or receive logged is in PVM context ctx (not 0): its name
 * goes into the event's ctx (wrap_context.c). */
void pg_context_note(int ctx);
/* libpvm3's current context (exported): a send's message takes it. */
extern int pvmmyctx;
/* The program is about to pvm_kill task `ltid` (wrap_kill.c). */
void pg_coord_killing(int ltid);
/* A task whose output PVM sends elsewhere (its parent's pvm_catchout, or
 * PvmOutputTid) tells `pangaea` so as it enrols, with the end of its
 * output: the run's end waits for no output that never comes. */
void pg_output_elsewhere(void);
/* The ltid of the task with PVM tid `tid`, asking the coordinator once. */
int pg_ltid_of(int tid);
int pg_tid_of(int ltid);
/* The ltid of a peer, or PG_LTID_OUTSIDE (pg_log.h) for a task outside
 * the run (a server started by hand, a task of another `pangaea` run): the
 * answer, negative ones too, is asked once and kept. */
int pg_peer_ltid(int tid);
/* The ltid of tid if the coordinator knows it now, else -1 (not kept):
 * never waits for a task to register. */
int pg_ltid_now(int tid);
void pg_ltid_remember(int tid, int ltid);
/* 1 and *ltid (-1: outside the run) if this task knows tid's ltid
 * already (it spawned it, or asked before), else 0: never asks anyone,
 * so a matcher may call it. */
int pg_ltid_cached(int tid, int *ltid);
void pg_coord_exit(int status);
/* The children of one pvm_spawn call (the parent says; children ask). */
void pg_coord_group(const int *tids, int n);
int pg_coord_siblings(int **tids);
void pg_coord_report(int kind, const char *text);
/* A turn among a group's joins and leaves: the next (want -1) or the
 * recorded one; returns its number.  Then pg_coord_turn_done. */
int pg_coord_turn(const char *call, const char *group, int want);
void pg_coord_turn_done(const char *group);
/* Replay waits (state.c's pg_wait): the stall report, and its end. */
/* PVM's untimed receive for a replay wait (wrap_wait.c): the bufid, or 0
 * once a second has passed in which nothing arrived (the caller looks up,
 * then calls again), or PVM's error. */
int pg_wait_recv(int tid, int tag);
void pg_wait_report(const char *what);
void pg_wait_end(const struct pg_wait *w);

/* ---- recording (record.c) ------------------------------------------------ */
/* Opens both logs of the task; 0, or -1 and err saying why. */
int pg_record_open(pg_err *err);
void pg_record_send(const char *call, int tag, int msgid, int bytes, int nto,
                    const int *tids);
void pg_record_unsend(void); /* the send just logged failed */
void pg_record_recv(const char *call, int bufid, const pg_hdr *h);
/* A receive that may wait begins (blocking: 1) or one that does not
 * (0): the receive it logs says how long it waited (waited=, when at
 * least PG_WAIT_MIN_US), which the pages and the Perfetto export draw. */
void pg_record_wait_begin(int blocking);
/* The same when the wrapper has the message's bytes and tag already. */
void pg_record_recv_info(const char *call, int bytes, int tag,
                         const pg_hdr *h);
void pg_record_spawn(const char *program, char **argv, int flags,
                     const char *where, int count, int nchild,
                     const int *ltids, const int *tids);
void pg_record_gettid(const char *group, int inst, int ltid);
void pg_record_join(const char *group, int inst, int order);
void pg_record_leave(const char *group, int order);
void pg_record_notice(const char *call, int bufid, pg_notice_what what,
                      int ltid);
void pg_record_query(const char *call, const char *about, int value);
/* Ends and closes both logs; 0, or -1 when either could not be written
 * whole. */
int pg_record_close(int status);
/* The name of the host a task runs on. */
const char *pg_host_of(int tid);

/* ---- what-if runs and chaos (whatif.c, chaos.c) -------------------------- */
/* A what-if task (PANGAEA_WHATIF names the plan): records, and follows its
 * old logs in `from` while pg_whatif_follows(next event's seq). */
struct pg_whatif {
    int on;              /* this task follows its old logs for a while    */
    long stop;           /* its first event not followed, -1: none        */
    int force;           /* this task has the forced receive: forced      */
    pg_event forced;     /* seq, kind, from, msgid, tag of the choice     */
    int at_poll;         /* forced at polls that found nothing (a <poll>
                            numbered forced.seq): due at the next event  */
    int nothing;         /* forced to find nothing (a poll that found one) */
    int done;            /* the forced poll has happened                  */
    int reached;         /* the program made the forced receive           */
    char where[512];     /* the forced receive's call and site, as named  */
    char from[4096];     /* the old recording                             */
};
extern struct pg_whatif pg_whatif;
/* Reads the plan (if any): 1 if this task follows old logs. */
int pg_whatif_load(void);
/* Where the replay cursor reads: the old recording in a what-if. */
const char *pg_whatif_dir(void);
/* 1 if the recorded event numbered seq is still to be followed. */
int pg_whatif_follows(long seq);
/* The forced receive in place of the recorded event ev, else ev. */
const pg_event *pg_whatif_forced(const pg_event *ev);
/* 1 while the forced choice is due at the recorded event numbered seq. */
int pg_whatif_due(long seq);
/* The failed polls recorded before event ev still to be given: none when
 * the what-if forces the first of them to find a message. */
int pg_whatif_misses(const pg_event *ev);
/* 1 (once) when the poll about to replay recorded event seq is forced to
 * find nothing. */
int pg_whatif_nothing(long seq);
/* A what-if task ended (status) while its next recorded event, numbered
 * next, was still to be followed: what it never reached (its forced
 * receive, named, or the rest of the part it follows), into msg, for the
 * divergence pg_replay_whatif_end reports (pangaea then exits 3). */
void pg_whatif_unreached(int status, long next, char *msg, size_t size);
/* The turn a join or leave of group asks the coordinator for when it is
 * not followed: -1 (the next), or in a what-if -2 - P, "the next, but not
 * before the P turns of the group the what-if follows". */
int pg_whatif_turn(const char *group);
/* PANGAEA_CHAOS: 1 if this task perturbs its receives. */
int pg_chaos_load(void);
/* Before a recorded receive of kind `how` (wrap_recv.c's order): delays,
 * draws one of the queued messages that match (not for a probe); 1: let
 * the poll find nothing. */
enum { PG_CHAOS_BLOCK, PG_CHAOS_POLL, PG_CHAOS_TIMED, PG_CHAOS_PROBE };
int pg_chaos_before(int how, int tid, int tag);
void pg_chaos_after(void);
/* The matcher's verdict cc on bufid, as chaos wants it. */
int pg_chaos_match(int bufid, int cc);
/* The live view's choice at a held receive (gate.c): the bufids of the
 * messages queued that a receive of (tid, tag) would accept, at most max;
 * and the message the next receive takes (until pg_chaos_after). */
int pg_chaos_queued(int tid, int tag, int *bufids, int max);
void pg_chaos_force(int bufid);

/* ---- replay (replay.c) --------------------------------------------------- */
int pg_replay_open(void);
void pg_replay_close(void);
/* The task ends with `status`: says so if the recording does not end here
 * too (more events, another status). */
void pg_replay_check_end(int status);
/* Checks a send (of `bytes` bytes) against the next recorded event;
 * diverges if it differs.  How many of its destinations lie outside the
 * run (as recorded, and as checked now), or -1 when a race-only log left
 * the send out (nothing checked). */
int pg_replay_send(const char *call, int tag, int bytes, int nto,
                   const int *tids);
/* The message `bufid` just taken for the recorded receive `ev`: diverges if
 * its size differs from the recorded one. */
void pg_replay_check_size(const pg_event *ev, int bufid);
/* The next recorded receive, checked against what the program asked for
 * (tid -1 or the recorded source, tag -1 or the recorded tag). */
const pg_event *pg_replay_expect_recv(const char *call, int tid, int tag);
/* For a poll (pvm_nrecv, pvm_probe, pvm_trecv): 1 when the recording had a
 * poll that found no message here (the poll must then find none). */
int pg_replay_poll_missed(void);
/* The next recorded comm event, or NULL (the end, or polls owed first). */
const pg_event *pg_replay_next(void);
/* Ends the replay: the expected receive `ev` can never happen (why). */
void pg_replay_unmatchable(const pg_event *ev, const char *why)
    __attribute__((noreturn));
/* Called when the expected receive happened: moves on. */
void pg_replay_advance(void);
/* Says "replay diverged MSG" on the task's stderr only when there is no
 * `pangaea` to report it to (it prints each divergence once for the run);
 * the caller then ends the task with PG_REP_DIVERGED and MSG. */
void pg_replay_say_diverged(const char *msg);
/* Race-only recordings (pangaea -min): 1 when the program's receive is one
 * the log left out (PVM then takes the message with the program's filter;
 * the caller reports it taken with pg_replay_left_out_took); a poll there
 * is a divergence (every poll's outcome is kept). */
int pg_replay_left_out(const char *call, int poll);
void pg_replay_left_out_took(void);

/* ---- reserved messages of a race-only replay (reserve.c) ---- */
/* Reads the race-only comm log at path: the (sender ltid, message id) of
 * every receive it kept is reserved until pg_reserve_take.  0 or -1. */
int pg_reserve_load(const char *path, pg_err *err);
void pg_reserve_take(int ltid, int msgid);
/* For the matcher (asks nobody): 1 when the message from tid with this
 * message id is reserved, or may be (its sender's tid is not known yet:
 * then noted, and pg_reserve_learn asks the coordinator; 1 if it did). */
int pg_reserved(int tid, int msgid);
int pg_reserve_learn(void);
void pg_reserve_free(void);
/* Installs the matcher that accepts only the expected message while
 * `on`, and otherwise defers to the program's matcher or PVM's default. */
void pg_match_expect(const pg_event *ev);
/* A full replay (not a what-if, not race-only): its receives take the
 * recorded message from the index of messages taken out of PVM's queue
 * (replay_index.c, wrap_recv.c), not from PVM's queue. */
int pg_replay_indexed(void);
/* While on, the matcher accepts the first message of the program's
 * context from a task of the run (a message id >= 1), whatever the receive
 * asked; pg_match_taken gives the sender, message id and bytes of the
 * message it accepted last (0, or -1 if none since pg_match_drain). */
void pg_match_drain(int on);
int pg_match_taken(int *src, int *msgid, int *len);
/* The recorded receive `ev` got a message of `bytes` bytes: diverges if
 * the recording says otherwise. */
void pg_replay_check_bytes(const pg_event *ev, int bytes);

/* ---- the replay's index of messages (replay_index.c) ---- */
/* The buffer id kept for (sender tid, message id), and its bytes in *len;
 * 0 if none. */
int pg_rxi_find(int src, int msgid, int *len);
/* Keeps bufid for (src, msgid): 0, or -1 when out of memory. */
int pg_rxi_put(int src, int msgid, int bufid, int len);
void pg_rxi_del(int src, int msgid);
/* pg_rxi_find, then pg_rxi_del of what it found, in one probe. */
int pg_rxi_take(int src, int msgid, int *len);
/* The bufid PVM's receive of (tid, tag) would take among the kept ones,
 * judged by `match` (PVM's matcher convention), with its sender and
 * message id; 0 if none matches.  Leaves it kept. */
int pg_rxi_pick(int (*match)(int bufid, int tid, int tag), int tid, int tag,
                int *src, int *msgid);
/* Whether a message of the index has this buffer id; every a made b and
 * b made a (bufid.c moves a message to its recorded id). */
int pg_rxi_has_bufid(int bufid);
void pg_rxi_swap_bufid(int a, int b);
size_t pg_rxi_count(void);
void pg_rxi_clear(void);
/* Reads the event after the next one now, while a receive waits: the
 * reading then costs no time on the way of the messages. */
void pg_replay_prefetch(void);
/* The matcher every receive goes through (installed at start-up with
 * pvm_recvf); pg_match_clear forgets the expected message. */
void pg_match_clear(void);
int pg_match(int bufid, int tid, int tag);
extern pg_matchfn pg_default_match, pg_app_match;
/* Set while the program's own receive runs (its matcher then applies). */
extern int pg_app_recv;
/* The next recorded group lookup, checked against the call: same group,
 * and inst / ltid equal unless given as PG_ANY.  Moves on. */
#define PG_ANY (-2147483647 - 1)
const pg_event *pg_replay_gettid(const char *call, const char *group,
                                 int inst, int ltid);
/* The value the recording's next event, a query `call` about `about`,
 * returned; diverges if the next event is not that question.  Moves on. */
int pg_replay_query(const char *call, const char *about);
/* The turn recorded for the program's pvm_lvgroup(group) (or its leave at
 * its end), which must be the next event; diverges otherwise. */
int pg_replay_leave(const char *group);
/* The next recorded spawn, checked against the program's request. */
const pg_event *pg_replay_spawn(const char *program, int count);
/* The signal the recording of this task died of (its <crash>, due now
 * that every recorded spawn was made), and where (file:line, or ""); 0 if
 * it did not die here. */
int pg_replay_recorded_crash(char *where, int size);
/* A what-if task: 1 while its next recorded event is to be followed (a
 * receive, send or query then goes the replay way, and is recorded); for a
 * spawn, while the next recorded spawn is of that program and count (its
 * children then start where they ran, with their recorded ltids). */
int pg_replay_steers(void);
/* At a what-if task's end: a divergence if it still steers (its next
 * recorded event was to be followed), in pg_whatif_unreached's words. */
void pg_replay_whatif_end(int status);
/* The call is to give its recorded answer: a replay, or a what-if task
 * still in the part of its recording it follows (which records it too). */
int pg_replaying(void);
int pg_replay_spawn_steers(const char *program, int count);

/* ---- the program's executable (progsum.c) ------------------------------ */
/* The path of this process's executable, and its SHA-256 in hex
 * 0, or -1 when it cannot be read. */
int pg_exe_sum(char *exe, size_t exe_size, char hex[65]);

/* ---- programs of an unpacked pack (progmap.c) -------------------------- */
/* The program to start as child `ltid` in a replay: the packed copy of the
 * program the recording ran under that ltid when PANGAEA_PROGDIR is set
 * (`pangaea -replay -pack`), else `task` itself.  buf holds the path. */
const char *pg_progmap(int ltid, const char *task, char *buf, size_t size);

/* In the process PVM started: notes whether it runs a script (#!), which
 * is then the task's program, also after the interpreter execs another.
 * pg_task_script: that script's absolute path, or NULL. */
void pg_note_script(void);
const char *pg_task_script(void);

/* ---- a task the program killed when recorded (killed.c) ---------------- */
/* In replay, at the end of a log cut by death: if another task's log
 * holds a pvm_kill of this one, waits to be killed (never returns);
 * otherwise returns (a divergence).  happened: what the program did. */
void pg_await_recorded_kill(const char *happened);

/* ---- where a task starts (task_env.c) --------------------------------- */
/* Changes to PANGAEA_CWD; ltid 1 also takes PANGAEA_STDIN as fd 0.  Once,
 * in the process that takes the ltid from its parent. */
void pg_task_env(int ltid);

/* ---- notices (notice.c) ------------------------------------------------- */
/* Notices of `what` will come in context ctx with tag (pvm_notify). */
void pg_notice_want(int ctx, int tag, pg_notice_what what);
/* What the message is, if it is a notice the program asked for, else 0. */
pg_notice_what pg_notice_kind(int bufid);
/* The first int of a queued notice's body: from the matcher only. */
int pg_notice_first(int bufid);
/* What the matcher read of bufid (0 if nothing); forget: it was received. */
int pg_notice_read(int bufid, int forget);


/* ---- the data file: contents the comm log refers to (datafile.c) ---- */
/* Recording: appends a record of `type` ('M' a message, 'T' a task table,
 * 'C' a host table); a write error ends the task. */
void pg_data_put(char type, const void *bytes, size_t n);
/* Replay: the next record, which must be of `type` (malloc'ed, *n bytes);
 * a missing or bad one ends the task as a bad log. */
void *pg_data_get(char type, size_t *n);
void pg_data_close(void);

/* ---- clocks and pids the program saw (timelog.c, wrap_time.c) -------- */
enum { PG_TIME_TOD = 1, PG_TIME_TIME = 2, PG_TIME_CLOCK = 3,
       PG_TIME_PID = 4 };
#define PG_TIME_CLOCKS 16    /* slots of "previous second": clock ids 0-13, */
#define PG_TIME_PID_SLOT 15  /* gettimeofday and time use 0 (REALTIME)      */
/* Recording: one value the program got (code, clock slot, seconds or pid,
 * and micro- or nanoseconds). */
void pg_time_put(int code, int clock, int64_t sec, int64_t sub);
/* Replay: the next recorded value, 1; 0 when there is none (no time file,
 * its end); a value of another call diverges. */
int pg_time_get(int code, int clock, int64_t *sec, int64_t *sub);
/* Writes what is buffered and closes (at the task's end). */
void pg_time_close(void);

/* ---- messages from outside the run, mailboxes (outside.c) -------------- */
/* True when bufid is an application message from a task outside the run. */
int pg_outside_msg(int bufid);
/* Recording: message bufid (a mailbox entry, an outside message) as the
 * data file's next 'M' record.  Replay: that record built again as a
 * message, a buffer that is not current (*src: its sender's tid). */
void pg_outside_put(int bufid);
int pg_outside_take(int *src);
/* Recording: logs the receive of outside message bufid, contents and all. */
void pg_outside_record(const char *call, int bufid);
/* Replay of the recorded receive ev of an outside message: builds it
 * again from the data file; take 1: it becomes the receive buffer, 0: a
 * probe's (freed later), 2: a message handler's (it frees it).  Returns
 * its buffer id. */
int pg_outside_replay(const pg_event *ev, int take);
/* Replay: tids without those outside the run (*kept: tids itself when
 * none is, else a malloc'ed copy); returns how many are kept. */
int pg_outside_drop(int *tids, int n, int **kept);

/* ---- message handlers (wrap_mhf.c) -------------------------------------- */
/* At the start and end of every wrapped send and receive: recording, runs
 * (and logs) the handlers whose messages came meanwhile; replay, runs those
 * the recording says come next, waiting for their messages. */
void pg_mhf_sync(void);
/* True when the program has handlers: a blocking receive then waits in
 * slices, running them between (pg_mhf_sync), as PVM would while blocked. */
int pg_mhf_installed(void);

/* ---- sends (wrap_send.c) ------------------------------------------------ */
/* pvm_bcast to group members `tids` (n of them, the sender excluded): one
 * send event with one message id, sent by the real pvm_bcast. */
int pg_send_bcast(char *group, int *tids, int n, int tag);
/* Bytes per item of a pvm_psend/pvm_precv data type, or -1. */
int pg_type_size(int type);

/* ---- ltids of children (wrap_spawn.c) ------------------------------------ */
/* The children an execution log's spawns started, in order (the k-th
 * child is (*ltids)[k - 1], malloc'd): their count, or -1 and err. */
int pg_exec_children(const char *path, int **ltids, pg_err *err);

/* ---- groups (wrap_group.c) ---------------------------------------------- */
/* Before the task ends: leaves, in its turn, every group it is still in. */
void pg_group_leave_all(void);

#endif
