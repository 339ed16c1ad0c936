/*
 * pg_proto.h - the messages between tasks, the coordinator and `pangaea`.
 *
 * All of them travel in Pangaea's own PVM message context (PANGAEA_CTX, made
 * by `pangaea` with pvm_newcontext), so no receive of the program can ever
 * take one.  Every field is a packed int (PvmDataDefault) unless said.
 *
 *  task  -> coord  PG_TAG_REGISTER  ltid, tid, parent ltid, str program, str host
 *  task  -> coord  PG_TAG_ANNOUNCE  child ltid, child tid   (right after a spawn)
 *  task  -> coord  PG_TAG_WHOIS     key kind (PG_KEY_TID|PG_KEY_LTID), key
 *  coord -> task   PG_TAG_WHOIS_R   tid, ltid                (waits for the task)
 *  task  -> coord  PG_TAG_SIBLINGS  n, n tids                (one pvm_spawn's children)
 *  task  -> coord  PG_TAG_WHOIS     PG_KEY_SIBS, own tid    -> PG_TAG_SIBS_R n, n tids
 *  task  -> coord  PG_TAG_EXIT      ltid, exit status, children announced
 *  task  -> coord  PG_TAG_GTURN     turn wanted (-1: next), str group
 *  coord -> task   PG_TAG_GTURN_R   turn number     (when it is that turn)
 *  task  -> coord  PG_TAG_GDONE     str group       (the join or leave is done)
 *  task  -> top    PG_TAG_REPORT    ltid, kind (PG_REP_*), str text
 *  coord -> top    PG_TAG_STARTED   ltid, tid, str program, str host
 *  task  -> coord  PG_TAG_KILLING   victim ltid       (just before its pvm_kill)
 *  task  -> coord  PG_TAG_NEWLTID   parent ltid, k   -> PG_TAG_NEWLTID_R new ltid
 *                                   (the k-th child of a task: wrap_spawn.c)
 *  task  -> coord  PG_TAG_CTXNAME   context, name  -> PG_TAG_CTXNAME_R name
 *                                   (name > 0: a context the task made gets
 *                                   that name, echoed; 0: what is its name?
 *                                   0 if none: wrap_context.c)
 *  coord -> top    PG_TAG_ENDED     ltid, tid, status, ended normally (0/1;
 *                                   2: killed by the program's pvm_kill)
 *  coord -> top    PG_TAG_ALLDONE   (no body): every task has ended
 *  top   -> coord  PG_TAG_QUIT      (no body)
 *  pvmd  -> top    PG_TAG_OUTPUT    tasks' stdout/stderr (PvmOutputCode)
 */
#ifndef PG_PROTO_H
#define PG_PROTO_H

enum {
    PG_TAG_REGISTER = 0x7a6e01,
    PG_TAG_ANNOUNCE,
    PG_TAG_WHOIS,
    PG_TAG_WHOIS_R,
    PG_TAG_EXIT,
    PG_TAG_REPORT,
    PG_TAG_STARTED,
    PG_TAG_ENDED,
    PG_TAG_ALLDONE,
    PG_TAG_QUIT,
    PG_TAG_OUTPUT,
    PG_TAG_TASKEXIT, /* coordinator's pvm_notify(PvmTaskExit) */
    PG_TAG_SIBLINGS,
    PG_TAG_SIBS_R,
    PG_TAG_COORD_GONE, /* top's pvm_notify(PvmTaskExit) on the coordinator */
    PG_TAG_HOST_GONE,  /* top's pvm_notify(PvmHostDelete) */
    PG_TAG_GTURN,
    PG_TAG_GTURN_R,
    PG_TAG_GDONE,
    PG_TAG_KILLING,
    PG_TAG_NEWLTID,
    PG_TAG_NEWLTID_R,
    PG_TAG_CTXNAME,
    PG_TAG_CTXNAME_R
};

/* PG_KEY_TID_NOW: as PG_KEY_TID, answered at once (-1 when not known yet;
 * pvm_tasks asks so about every task listed, the group server too) */
enum { PG_KEY_TID = 1, PG_KEY_LTID = 2, PG_KEY_SIBS = 3, PG_KEY_TID_NOW = 4 };
/* STALL: a replay wait has lasted PANGAEA_STALL seconds; BLOCKED: the task
 * entered a call that cannot say so itself (pvm_barrier), counted as a
 * stall once that long; RESUMED ends either.  BADLOG: a replaying task
 * found its recorded log unreadable (pangaea then exits 2, bad logs). */
enum { PG_REP_DIVERGED = 1, PG_REP_FATAL = 2, PG_REP_STALL = 3,
       PG_REP_RESUMED = 4, PG_REP_CRASH = 5, PG_REP_BLOCKED = 6,
       PG_REP_BADLOG = 7, PG_REP_HELD = 8, PG_REP_RELEASED = 9,
       PG_REP_NOTE = 10 };
/* HELD: the task stops on purpose (-stop, -debug: stop.c), text says how
 * to go on; RELEASED: it goes on.  Never a stall while held.  NOTE: a
 * remark pangaea prints on its own stderr after "pangaea: ", the text
 * naming the task itself, "ltid N (program): ..." (a call not replayed:
 * wrap_named.c), not among the program's output, where its place among
 * other tasks' lines would differ from run to run. */

/* Exit statuses of a task that Pangaea ends itself. */
#define PG_EXIT_DIVERGED 86
#define PG_EXIT_FATAL 87

/* Environment `pangaea` gives every task (and PVM_EXPORT passes on). */
#define PG_ENV_MODE "PANGAEA_MODE"      /* none | log | replay          */
#define PG_ENV_LTID "PANGAEA_LTID"      /* set by the parent per child  */
#define PG_ENV_LOGDIR "PANGAEA_LOGDIR"
#define PG_ENV_CTX "PANGAEA_CTX"
#define PG_ENV_COORD "PANGAEA_COORD"
#define PG_ENV_TOP "PANGAEA_TOP"
#define PG_ENV_STALL "PANGAEA_STALL"    /* seconds before a waiting replay speaks */
#define PG_ENV_ONLY "PANGAEA_ONLY"      /* selection: "tag=5,7 ltid=2"  */
#define PG_ENV_CWD "PANGAEA_CWD"        /* where tasks start (runenv.c) */
#define PG_ENV_STDIN "PANGAEA_STDIN"    /* ltid 1's stdin (stdin_fwd.c) */
#define PG_ENV_SCRIPT "PANGAEA_SCRIPT"  /* a task's script (progsum.c); not
                                           exported to children */
#define PG_ENV_TIME "PANGAEA_TIME"      /* "0": clocks, pids not recorded */
#define PG_ENV_PROGDIR "PANGAEA_PROGDIR" /* replay from a pack: its programs */
#define PG_ENV_WHATIF "PANGAEA_WHATIF"  /* a what-if run's plan (whatif.c) */
#define PG_ENV_CHAOS "PANGAEA_CHAOS"    /* -chaos: the run's seed (chaos.c) */
#define PG_ENV_STOP "PANGAEA_STOP"    /* -stop: "L:E,L:E" (stop.c)      */
#define PG_ENV_DEBUG "PANGAEA_DEBUG"  /* -debug: "L" or "L:E"           */
#define PG_ENV_TMUX "PANGAEA_TMUX"    /* -debug: pangaea's $TMUX, or "" */
#define PG_ENV_TOP_PID "PANGAEA_TOP_PID" /* -debug: pangaea's pid@host, for
                                           pangaea-debugger to watch */
#define PG_ENV_REBUILT "PANGAEA_REBUILT" /* -rebuilt: "1", another build may
                                           replay (replay.c) */
#define PG_ENV_RECORDING "PANGAEA_RECORDING" /* the recording's identity,
                                           in every log's header */
#define PG_ENV_LIST "LD_PRELOAD:PANGAEA_MODE:PANGAEA_LTID:PANGAEA_LOGDIR:" \
                    "PANGAEA_CTX:PANGAEA_COORD:PANGAEA_TOP:PANGAEA_STALL:" \
                    "PANGAEA_ONLY:PANGAEA_PROGDIR:PANGAEA_WHATIF:PANGAEA_CHAOS:" \
                    "PANGAEA_LIVE:PANGAEA_STOP:PANGAEA_DEBUG:PANGAEA_TMUX:PANGAEA_TIME:" \
                    "PANGAEA_CWD:PANGAEA_STDIN:PANGAEA_HOLD:PANGAEA_REBUILT:" \
                    "PANGAEA_TOP_PID:PANGAEA_RECORDING:" \
                    "PVM_EXPORT"

#endif
