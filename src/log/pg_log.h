/*
 * pg_log.h - the per-task logs, and the one interface the rest of Pangaea
 * uses to write (pg_logw_*) and read (pg_logr_*) them.  The kinds of event
 * and their fields are rows of pg_events.def.
 *
 * Every task has two logs in the log directory, named from its ltid only:
 *   ltid-<N>.exec.xml   its spawns (execution log): XML, written with
 *                       libxml2's xmlTextWriter, read with its streaming
 *                       xmlTextReader, valid against schema/pangaea-log.xsd
 *   ltid-<N>.comm.pgc   its sends and receives (communication log): binary,
 *                       docs/comm-log-format.md; `pangaea -dump` prints it
 *                       as the XML below, valid against the same schema
 * (an XML communication log, e.g. a -dump, is read too).  Either is read
 * in memory that does not grow with its length.
 * Each opens with a <header> element that states the format ("pangaea-exec"
 * or "pangaea-comm"), the format version, the ltid and the program; events
 * follow in the order the task made them, each with a 1-based seq and a
 * timestamp t (seconds since the epoch, microsecond resolution); an <end>
 * element with the exit status closes a log whose task ended normally.
 *
 *   <pangaea-comm>
 *     <header format="pangaea-comm" version="1" ltid="2" program="./sor" host="h"/>
 *     <send seq="1" t="1763769600.000123" call="pvm_send" tag="5" msgid="1" bytes="80">
 *       <to ltid="3"/>
 *     </send>
 *     <recv seq="2" t="..." call="pvm_recv" from="3" tag="5" msgid="1" bytes="80"/>
 *     <recv seq="3" t="..." call="pvm_nrecv" from="3" tag="5" msgid="2" bytes="80"
 *           misses="12"/>      (12 polls found nothing before this one did)
 *     <gettid seq="4" t="..." group="g" inst="2" ltid="5"/>  (instance 2 of
 *           group g was ltid 5: pvm_gettid, pvm_getinst, pvm_joingroup)
 *     <end seq="5" t="..." status="0"/>
 *   </pangaea-comm>
 *
 *   <pangaea-exec>
 *     <header format="pangaea-exec" version="1" ltid="1" program="./sor" host="h"/>
 *     <spawn seq="1" t="..." program="./sor" flags="0" where="" count="3">
 *       <arg>4</arg> ...     (<arg enc="hex">0178</arg>: bytes XML cannot hold)
 *       <child ltid="2" host="h"/> ...
 *     </spawn>
 *     <end seq="2" t="..." status="0"/>
 *   </pangaea-exec>
 */
#ifndef PG_LOG_H
#define PG_LOG_H

#include <stdint.h>
#include <stdio.h>

#include "pg_err.h"

#define PG_LOG_VERSION 8 /* written, XML and binary alike.  4, 3, 2
                            (binary: a send's or receive's tag and size
                            as differences) and 1 are read too; 3 adds
                            call sites, asked filters, barrier, route,
                            poll (pg_events.def, docs/comm-log-format.md);
                            4 changes the binary framing and predictions
                            only (CRC-32C, block lengths, notes written
                            when they change); 5 adds the recording's
                            identity to the header; 6 an MPI_Irecv's
                            posting (posted, together); 7 a send's and
                            a receive's context (ctx); 8 the other
                            receives pending in the wait or test over
                            several requests that completed an
                            MPI_Irecv (rivals) */
#define PG_LOG_VERSION_MIN 1 /* the oldest version the readers take */

/* Limits of the format.  The writer refuses an event beyond them and the
 * reader rejects one, so whatever is recorded can be read back, and a
 * hostile or corrupt log cannot make the reader's memory grow unbounded. */
#define PG_LOG_MAX_STR   4096      /* bytes of one string (call, arg, host...) */
#define PG_LOG_MAX_LIST  65536     /* <to>, <arg> or <child> in one event      */
#define PG_LOG_MAX_EVENT (1 << 20) /* bytes of all strings of one event, each
                                      counted with its terminating NUL        */

typedef enum { PG_LOG_COMM = 0, PG_LOG_EXEC = 1 } pg_log_kind;

/* The kinds of event: one per row of pg_events.def, where each is
 * described (its log, whether it is a message, its fields). */
typedef enum {
#define PG_EVENT(kind, code, name, log, ...) PG_EV_##kind = code,
#include "pg_events.def"
} pg_ev_kind;

/* What a notice says (PvmTaskExit, PvmHostDelete, PvmHostAdd). */
typedef enum {
    PG_NOTICE_EXIT = 1,
    PG_NOTICE_HOSTDELETE = 2,
    PG_NOTICE_HOSTADD = 3
} pg_notice_what;

/* One event as read back.  Pointers stay valid until the next
 * pg_logr_next() or pg_logr_close() on the same reader. */
typedef struct pg_event {
    pg_ev_kind kind;
    long seq;
    double t;
    const char *call;   /* SEND/RECV/NOTICE: "pvm_send", "pvm_recv", ... */
    int tag;            /* SEND/RECV/NOTICE */
    int msgid;          /* SEND/RECV: the sender's message id */
    int bytes;          /* SEND/RECV/NOTICE: the program's bytes */
    int from;           /* RECV: source ltid; NOTICE: the ltid that ended */
    pg_notice_what what;       /* NOTICE */
    const char *about;         /* QUERY: an ltid, a host or a group */
    int value;                 /* QUERY: what the call returned; CRASH:
                                  the signal */
    int nto;            /* SEND: number of destination ltids */
    const int *to;      /* SEND: destination ltids */
    const char *program;       /* SPAWN */
    int argc;                  /* SPAWN */
    char *const *argv;         /* SPAWN: argc strings, then NULL */
    int flags;                 /* SPAWN */
    const char *where;         /* SPAWN: "" when none */
    int count;                 /* SPAWN: tasks asked for */
    int nchild;                /* SPAWN: tasks started */
    const int *child_ltid;     /* SPAWN */
    const char *const *child_host; /* SPAWN */
    int status;                /* END */
    const char *group;         /* GETTID: the group's name */
    int inst;                  /* GETTID: the instance number */
    int order;                 /* GETTID of a join, LEAVE: the turn among
                                  the group's joins and leaves; -1 if none */
    int site;           /* SEND/RECV/NOTICE/BARRIER/ROUTE/POLL: call site
                           (a SITE's id), 0 if unknown; SITE: its id */
    int asked_from;     /* RECV/NOTICE/POLL: source asked for (ltid, -1
                           any, -2 outside the run), -3 if unknown */
    int asked_tag;      /* RECV/NOTICE/POLL: tag asked for (-1 any), -2 if
                           unknown */
    int matcher;        /* RECV/NOTICE/POLL: 1 through pvm_recvf's matcher */
    const char *module; /* SITE, CRASH: the object file (path as loaded) */
    int offset;         /* SITE: return address minus the object's base */
    int misses;                /* SEND/RECV/END: polls (pvm_nrecv, pvm_probe,
                                  pvm_trecv) that found no message just
                                  before this event; 0 when absent */
    int waited;                /* RECV: microseconds the receive waited for
                                  its message (format 5); 0 when absent */
    int posted;                /* RECV of MPI_Irecv (format 6): which of the
                                  rank's MPI_Irecv calls (1, 2, ...); 0
                                  when absent */
    int together;              /* RECV of MPI_Irecv (format 6): 1 when one
                                  call reported it with the recv before */
    int ctx;                   /* SEND/RECV (format 7): the message's
                                  context (an MPI communicator, a PVM
                                  context) as a number the same in every
                                  task and run; 0 the default one or
                                  unknown, and in older logs */
    int nrivals;               /* RECV of MPI_Irecv (format 8): the other */
    const int *rivals;         /* receives (their postings, as `posted`)
                                  pending in the MPI_Waitany, Testany,
                                  Waitsome or Testsome that reported this
                                  one, any of which MPI could have
                                  reported instead; 0 and NULL: none */
} pg_event;

/* Header of a log as read back. */
/* A recording's identity: lowercase hex digits, at most this many. */
#define PG_LOG_RECORDING_MAX 32

typedef struct pg_log_header {
    pg_log_kind kind;
    int version;
    int ltid;
    char program[1024];
    char host[256];
    char select[256];  /* selective logging: what was recorded; "" = all */
    char exe[1024];    /* exec log: the executable the task ran, "" if not
                          recorded (logs of older versions) */
    char sha256[65];   /* exec log: its SHA-256 in hex, "" if not recorded */
    char cwd[4096];    /* exec log: the task's working directory at its
                          start, "" if not recorded */
    char recording[PG_LOG_RECORDING_MAX + 1]; /* the recording's identity
                          (log_recording.c), "" before version 5 */
} pg_log_header;

/* ---- writing ---------------------------------------------------------- */
typedef struct pg_logw pg_logw;

/* Creates (truncates) path and writes the root and <header>. */
pg_logw *pg_logw_open(const char *path, pg_log_kind kind, int ltid,
                      const char *program, const char *host, pg_err *err);
/* The same for a selective recording: the header also says select="...",
 * the selection the log was made with (e.g. "tag=5,7 ltid=2"). */
pg_logw *pg_logw_open_sel(const char *path, pg_log_kind kind, int ltid,
                          const char *program, const char *host,
                          const char *select, pg_err *err);
/* The same for an execution log that names the executable, its SHA-256
 * and the working directory (exe, sha256, cwd: NULL or "" to leave them
 * out). */
pg_logw *pg_logw_open_prog(const char *path, pg_log_kind kind, int ltid,
                           const char *program, const char *host,
                           const char *select, const char *exe,
                           const char *sha256, const char *cwd, pg_err *err);
int pg_logw_send(pg_logw *w, double t, const char *call, int tag, int msgid,
                 int bytes, int nto, const int *to);
/* Takes back the send or receive just written (its call failed after
 * all): the log is as it was before, misses included. */
void pg_logw_undo(pg_logw *w);

int pg_logw_recv(pg_logw *w, double t, const char *call, int from, int tag,
                 int msgid, int bytes);
/* argv is NULL-terminated as execv's (NULL: no arguments); child_host may
 * be NULL (hosts written as "").  Each pg_logw_* event call returns 0, or -1
 * when it refused the event (then nothing of it is written) or a write
 * failed (then the writer refuses everything after). */
int pg_logw_spawn(pg_logw *w, double t, const char *program,
                  char *const *argv, int flags, const char *where, int count,
                  int nchild, const int *child_ltid,
                  const char *const *child_host);
/* The exec log's <crash>: the task died of `sig`, the program's frame at
 * `offset` in `module` ("" unknown); then comes <end status=-sig>. */
int pg_logw_crash(pg_logw *w, double t, int sig, const char *module,
                  int offset);
int pg_logw_end(pg_logw *w, double t, int status);
/* <gettid group= inst= ltid=/>: instance `inst` of `group` was task `ltid`
 * (negative: the PVM error the call returned). */
/* A notice: `what` happened (to task `ltid`, for an exit; else -1). */
int pg_logw_notice(pg_logw *w, double t, const char *call, int tag,
                   pg_notice_what what, int ltid, int bytes);
/* A query: `call` (pvm_pstat, pvm_mstat or pvm_gsize) about `about`
 * (an ltid in decimal, a host, a group) returned `value`. */
int pg_logw_query(pg_logw *w, double t, const char *call, const char *about,
                  int value);
/* 1 if `call` is one of the calls a <query> may name, else 0. */
int pg_log_query_known(const char *call);
/* A join (a <gettid> with its turn `order`), and a leave. */
int pg_logw_join(pg_logw *w, double t, const char *group, int inst,
                 int ltid, int order);
int pg_logw_leave(pg_logw *w, double t, const char *group, int order);
int pg_logw_gettid(pg_logw *w, double t, const char *group, int inst,
                   int ltid);
/* Version 3 (what `pangaea -races` needs).  The next send, recv or notice
 * written carries this call site (0: none) and, a recv or notice, the
 * source and tag the program asked for (-3, -2: unknown) and whether its
 * own matcher chose (pvm_recvf); used once. */
void pg_logw_note(pg_logw *w, int site, int asked_from, int asked_tag,
                  int matcher);
/* Call site `id` (>= 1) is `offset` bytes into the object `module`. */
int pg_logw_site(pg_logw *w, double t, int id, const char *module,
                 int offset);
/* pvm_barrier(group, count) returned. */
int pg_logw_barrier(pg_logw *w, double t, const char *group, int count,
                    int site);
/* pvm_setopt(PvmRoute, value). */
int pg_logw_route(pg_logw *w, double t, int value, int site);
/* The last poll that found nothing, before the event that counts them. */
int pg_logw_poll(pg_logw *w, double t, const char *call, int asked_from,
                 int asked_tag, int matcher, int site);
/* Any event, as the reader gives it back (its seq is ignored): what a
 * tool that rewrites a log uses. */
int pg_logw_event(pg_logw *w, const pg_event *ev);
/* The next event written carries misses="n" (when n > 0). */
void pg_logw_misses(pg_logw *w, int n);
/* The next receive written carries waited="us" (when us > 0): how long
 * the program's receive waited for its message, in microseconds. */
void pg_logw_waited(pg_logw *w, int us);
/* The next receive written (of MPI_Irecv) carries posted="n" and
 * together="1" (format 6): which of the rank's MPI_Irecv calls it
 * completes, and whether the call that reported it reported the receive
 * before it too (docs/mpi-notes.md). */
void pg_logw_posted(pg_logw *w, int posted, int together);
/* The next send or receive written carries ctx="ctx" (format 7): its
 * message's context (pg_event.ctx; 0, the default, costs nothing). */
void pg_logw_ctx(pg_logw *w, int ctx);
/* The next receive written (of MPI_Irecv) carries rivals="..." (format
 * 8): the n other postings pending in the call that reported it (the
 * array is the caller's and must stay as it is until that receive is
 * written; n at most PG_LOG_MAX_LIST). */
void pg_logw_rivals(pg_logw *w, int n, const int *rivals);
/* Race-only logs (`pangaea -min`, docs/comm-log-format.md): a log whose
 * selection holds the word PG_SELECT_RACE_ONLY keeps only what a replay
 * needs, and each of its events carries the number of events left out
 * before it.  pg_logw_seq: the next event written is number seq (of the
 * full log, counting only the events a replay acts on); 0, or -1 when the
 * log is not race-only or seq is not past the last one. */
#define PG_SELECT_RACE_ONLY "race-only"
int pg_log_race_only(const char *select);
int pg_logw_seq(pg_logw *w, long seq);
/* The number of the last event written (0: none yet). */
long pg_logw_count(const pg_logw *w);
/* Pushes what is buffered to the file. */
int pg_logw_flush(pg_logw *w);
/* 1 if a spawn event can hold these arguments (any bytes; within the
 * limits: PG_LOG_MAX_STR bytes, half that for one that goes in hex). */
int pg_logw_args_ok(char *const *argv);
/* Why writing failed when the file could not grow ("no space left on
 * MOUNT while writing FILE"), or NULL. */
const char *pg_logw_why(const pg_logw *w);
/* Closes the root element and the file; frees w.  Returns 0 or -1. */
int pg_logw_close(pg_logw *w);

/* ---- reading (streaming) ---------------------------------------------- */
typedef struct pg_logr pg_logr;

/* Opens path, reads up to and including <header>, checks its format against
 * `kind` and its version against PG_LOG_VERSION.  NULL and err on failure
 * (err names the file, and line and column where they apply). */
pg_logr *pg_logr_open(const char *path, pg_log_kind kind,
                      pg_log_header *hdr, pg_err *err);
/* 1 and *ev filled: an event; 0: no more events (the log ended cleanly);
 * -1 and err: malformed (file:line:column: what). */
int pg_logr_next(pg_logr *r, pg_event *ev, pg_err *err);
void pg_logr_close(pg_logr *r);
/* After pg_logr_next returned -1: true when the log simply stops after its
 * last complete event (its task died while writing it), not malformed. */
int pg_logr_cut(const pg_logr *r);
/* A binary comm log still being written (the live view): after
 * pg_logr_next returned 0 or -1, the next calls read on from where it
 * stopped, over what the file holds now; an event cut or torn at the end
 * is read again whole, never taken as corrupt (see pg_br_follow in
 * log_bin.h).  0; 1 when the log cannot be followed (an XML log, or its
 * last event returned was taken back by its writer: open it again);
 * -1 and err when the file cannot be read. */
int pg_logr_follow(pg_logr *r, pg_err *err);
/* For a process that reads logs while their tasks write them (before it
 * opens one): a page of a mapped log its writer cut short on closing reads
 * as zeros (the log's end), not SIGBUS.  Never in a program's task: it
 * takes the process's SIGBUS handler, passing on what it does not handle. */
void pg_logr_guard_shrinking(void);
/* Events decoded or walked over since the open: what reading cost (a
 * binary log's; 0 for an XML log). */
long pg_logr_decoded(const pg_logr *r);
/* Reads a whole log through: 0 when complete, 1 when cut short after
 * *events complete events (see pg_logr_cut), -1 and err when malformed. */
int pg_log_check_cut(const char *path, pg_log_kind kind, long *events,
                     pg_err *err);

/* Validates a whole log against the schema at xsd_path.  0, or -1 and err
 * naming file, line and column of the first violation. */
int pg_log_validate(const char *path, const char *xsd_path, pg_err *err);

/* A log as an XML document valid against the schema, whatever its format
 * (what `pangaea -dump` prints): 0 when the log was read to its end or to
 * where its task died (said in a comment), -1 and err when it is bad (the
 * document then ends after the last good event). */
int pg_log_dump(const char *path, pg_log_kind kind, FILE *out, pg_err *err);
/* When set (`pangaea -dump`: site_name.c's pg_site_name), each <site> of a
 * dump is followed by a comment naming it: file:line, else function+offset
 * (a comment: the document stays what the schema and comm_from_xml take). */
extern const char *(*pg_log_dump_site)(const char *module, long offset,
                                       char *buf, int size);
/* One event as an XML element, indented as in a log. */
int pg_log_xml_event(FILE *out, const pg_event *ev);

/* ---- the recording a log belongs to (log_recording.c) ------------------ */
/* Every log a recording's tasks write names the recording in its header:
 * a random identity `pangaea -log` makes for each recording, which the
 * writers of this process put in every header they write (set it before
 * opening them; "" writes none).  A reader of a log named ltid-N.* in a
 * directory compares it with that directory's ltid-0.exec.xml, the log
 * `pangaea` itself wrote: a log copied in from another recording is
 * refused, naming the file. */
void pg_log_recording_set(const char *id);
const char *pg_log_recording(void);
/* A new identity (16 hex digits from the kernel's random numbers) in buf
 * (at least PG_LOG_RECORDING_MAX + 1 bytes): 0, or -1 if none could be
 * had. */
int pg_log_recording_new(char *buf, size_t size);
/* 1 if id is "" or an identity (hex digits, not too many). */
int pg_log_recording_ok(const char *id);
/* 0 if the log at path (its header saying recording `id`) belongs to the
 * recording of its directory, or cannot be compared (not named ltid-N.*,
 * or no ltid-0.exec.xml beside it); -1 and err naming the file if not. */
int pg_log_same_recording(const char *path, const char *id, pg_err *err);

/* Writes into buf the file name of a task's log: <dir>/ltid-<N>.exec.xml
 * or <dir>/ltid-<N>.comm.pgc. */
int pg_log_path(char *buf, int size, const char *dir, int ltid,
                pg_log_kind kind);
/* The other way: N of a file name "ltid-N.<rest>" (N in decimal digits,
 * at most INT_MAX), *rest then pointing at <rest> (rest may be NULL); -1
 * for any other name. */
int pg_log_name_split(const char *name, const char **rest);
/* N when `name` is the log of `kind` of task N, as pg_log_path names it
 * (no directory); -1 otherwise. */
int pg_log_name_ltid(const char *name, pg_log_kind kind);
/* The mark of a recording that has not ended well: `pangaea -log`
 * creates DIR/PG_LOGDIR_INCOMPLETE before the program starts and removes
 * it (or, where it cannot, writes PG_LOGDIR_COMPLETE_WORD into it) only
 * once every log was written whole (src/cli/files/logdir.c).  A replay
 * reads it to say why a log is missing or stops early. */
#define PG_LOGDIR_INCOMPLETE ".pangaea-incomplete"
#define PG_LOGDIR_COMPLETE_WORD "complete\n"
/* 1 if dir holds the mark and it does not say "complete": the recording
 * there failed, or is still being made; 0 otherwise.  Links are not
 * followed, a FIFO does not block. */
int pg_logdir_incomplete(const char *dir);
/* 0 if fd (opened as path, O_NONBLOCK) is a regular file; else -1 and
 * err naming it and what it is (a FIFO in place of a log would block its
 * reader forever).  The readers of every log open them this way. */
int pg_log_regular(int fd, const char *path, pg_err *err);
/* Opens a log to read it: without blocking, a regular file only; the fd,
 * or -1 and err ("PATH: REASON", "PATH is a FIFO, not a log file"). */
int pg_log_open_read(const char *path, pg_err *err);
/* Checks a time file (ltid-N.time.pgc, timelog.c): its header, the CRC
 * of every chunk, every value; a file cut at its end (its task died) is
 * good.  0, or -1 and err naming the file and where. */
int pg_time_check(const char *path, pg_err *err);

/* 1 if `call` is a PVM call name the format knows (the schema's list:
 * pvm_send, pvm_mcast, pvm_psend, pvm_bcast, pvm_recv, pvm_nrecv,
 * pvm_trecv, pvm_probe, pvm_precv), else 0. */
int pg_log_call_known(const char *call);

/* The sender ltid of a message from a task outside the run (a server
 * started by hand, a task of another `pangaea` run). */
#define PG_LTID_OUTSIDE (-2)

/* An object and an offset from its start as "file.c:LINE", or
 * "function+0xOFF (object)", or "object+0xOFF" (site_name.c). */
const char *pg_site_name(const char *module, long offset, char *buf,
                         int size);
/* The same site as its source file (else the object's name), function
 * (else "?") and line (else 0), each apart (site_name.c). */
void pg_site_parts(const char *module, long offset, char *file, int fsize,
                   char *func, int nsize, int *line);
/* The object a return address pc lies in (its path as loaded, or the
 * program's own for the main program) and pc's offset from where it was
 * loaded, as call sites are logged (the PVM and MPI front ends both);
 * 0, or -1 if unknown. */
int pg_site_locate(const void *pc, char *path, size_t size, uintptr_t *off);

#endif
