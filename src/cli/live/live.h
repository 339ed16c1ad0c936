/*
 * live.h - `pangaea -log|-replay -live [[ADDR:]PORT]`: the run's event
 * graph served over HTTP while it goes on.
 *   live.c       options, the HTTP server (libmicrohttpd), its routes
 *   live_snap.c  the snapshot: tasks and events read from what the tasks
 *                write (growing comm logs; in replay, the recording and
 *                each task's position file, src/pvm/runtime/live_pos.h)
 *   live_mpi.c   an MPI recording's receives renumbered as read
 *   live_json.c  the snapshot as /events.json
 *   live_ctl.c   the control path: holding tasks at their PVM calls
 *                (step, pause, resume, run-to, breakpoints), /control.json
 *   live_alt.c   choosing a receive's message: /alternatives.json,
 *                /control/choose, the what-if runs they start
 *   live_guard.c who may ask: the run's token, Host and Origin, the
 *                controls' content type, each route's fields
 *   live.html    the page served at /
 *   filter.js, filter.css (filter_assets.c)  its filters, served at
 *                /filter.js and /filter.css, shared with -display's page
 */
#ifndef TOP_LIVE_H
#define TOP_LIVE_H

#include <stdio.h>

#include "pg_err.h"
#include "top.h"

/* ---- the run's side: called from main.c and monitor.c ------------------ */

/* Parses -live's optional argument: "PORT" or "ADDR:PORT".  1 if arg is
 * one (it is then taken), 0 if not. */
int top_live_arg(const char *arg, struct top_opts *o);
/* Starts the server (before anything of the logs is touched: a port in
 * use changes nothing) and says where; in a replay makes the position
 * directory and names it in PANGAEA_LIVE for the tasks.  Then, once the
 * log directory is ready, top_live_follow starts reading the run.  Each
 * returns 0, or -1 and err (the address cannot be bound, say). */
int top_live_start(const struct top_opts *o, pg_err *err);
int top_live_follow(const struct top_opts *o, pg_err *err);
/* What the monitor learns of a task: it started; it ended (normal: by
 * itself, with status; stopped: killed by pangaea, which ended the run
 * after another task's error or a stall); a report (PG_REP_*) with its
 * text. */
void top_live_started(int ltid, const char *program, const char *host);
void top_live_ended(int ltid, int normal, int status, int stopped);
void top_live_report(int ltid, int kind, const char *text);
/* An MPI run (src/cli/run/mpi_run.c), which has no monitor: once the
 * launcher ended, top_live_ranks_ended says how each rank ended (its
 * communication log whole: ended, else crashed; a rank that left a note,
 * diverged (PGM_DIVERGED) or failed; the others stopped if the launcher
 * failed) and reads the logs a last time, before pangaea renumbers the
 * receives (mpi_ids.c: the view renumbers them as it reads,
 * live_mpi.c). */
void top_live_rank_note(int ltid, int diverged, const char *text);
void top_live_ranks_ended(const char *logdir, int launcher_status);
/* These, and start, follow and finish, for mpi_run.c (top.h). */
extern const struct top_live_hooks top_live_hooks;
/* The run is over, pangaea's status is `status`: a last complete snapshot;
 * with -live-wait the page is served until SIGINT/SIGTERM (or Enter on a
 * terminal); then all stops. */
void top_live_finish(int status);

/* ---- inside the live view ---------------------------------------------- */

int lv_snap_start(const struct top_opts *o, const char *posdir, pg_err *err);
/* 1 for an MPI run (no pangaea task, ltid 0; receives renumbered as read). */
extern int lv_mpi;
/* An MPI recording's receives renumbered as read (live_mpi.c): a send of
 * ltid s to r with tag on context ctx (the model's index), in s's order
 * (0, or -1 out of memory); the msgid of the k-th such send, or -1 if not
 * read yet; all forgotten. */
int lv_mpi_send(int s, int r, int ctx, int tag, int msgid);
int lv_mpi_id(int s, int r, int ctx, int tag, int k);
void lv_mpi_free(void);
void lv_snap_stop(void);      /* a last scan, then the thread ends */
/* A page or client read /events.json (called under lv_snap_lock): the
 * scanner, resting as for nobody watching (20 times its last scan), scans
 * again as for a page that watches (lv_scan_pause), and lv.next_scan
 * says so. */
void lv_snap_watched(void);
void lv_snap_lock(void);
void lv_snap_unlock(void);
/* Writes the snapshot as JSON: the tasks, and at most `max` events from
 * the since-th on (under the lock). */
void lv_json_write(FILE *fp, long since, long max);
/* The same in columns (?format=cols): an array per field, names by index. */
void lv_json_write_cols(FILE *fp, long since, long max);

/* The reader's pause after a scan of the logs that took `took` seconds,
 * watched (a client read /events.json in the last 2 s) or not
 * (live_snap.c). */
double lv_scan_pause(double took, int watched);

/* ---- the control path (live_ctl.c, live_alt.c) ------------------------ */

/* A request's fields: the query string's, then a form-encoded POST body's
 * (decoded; a key given twice is refused by lv_guard_fields).  dropped:
 * fields past LV_FORM_MAX, not kept (and refused). */
#define LV_FORM_MAX 32
struct lv_form {
    int n, dropped;
    char *key[LV_FORM_MAX], *val[LV_FORM_MAX];
};
const char *lv_form_get(const struct lv_form *f, const char *key);
/* Adds a field (copied); adds a form-encoded body's fields (decoding it
 * in place); frees the fields. */
void lv_form_add(struct lv_form *f, const char *key, const char *val);
void lv_form_body(struct lv_form *f, char *body);
void lv_form_free(struct lv_form *f);
/* 1 and *v; 0 when absent, empty or "any"; -1 when not a number. */
int lv_form_int(const struct lv_form *f, const char *key, long *v);
/* Writes {"ok":false,"error":...} (printf's fmt) and returns 400. */
int lv_bad(FILE *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- who may ask (live_guard.c) ----------------------------------------- */

/* Makes the run's token and notes the address and port served (addr
 * "0.0.0.0": every address of the host); 0, or -1 and err. */
int lv_guard_start(const char *addr, unsigned port, pg_err *err);
const char *lv_guard_token(void);
/* 1 if given is the run's token. */
int lv_guard_token_ok(const char *given);
/* 0 if Host names the address served and Origin, if any, is it; else
 * 403 and *why. */
int lv_guard_origin(const char *host, const char *origin, const char **why);
/* 1 if a Content-Type is application/x-www-form-urlencoded. */
int lv_guard_form_type(const char *type);
/* 0 if every field of f is one of takes (space-separated words), once;
 * else writes the error naming the field and returns 400. */
int lv_guard_fields(const struct lv_form *f, const char *takes, FILE *out);

/* Makes PANGAEA_LIVE/control (the breakpoints) in posdir and, for -hold,
 * names PANGAEA_HOLD to the tasks; 0, or -1 and err.  lv_ctl_stop lets
 * every task go and unmaps all. */
int lv_ctl_start(const struct top_opts *o, const char *posdir, pg_err *err);
void lv_ctl_stop(void);
/* ltid ended (killed, say, while held): its page no longer says it is
 * held, so the panel drops its call, gdb line and choices, and a wait of
 * the others is a stall again. */
void lv_ctl_gone(int ltid);
void lv_alt_start(const struct top_opts *o);
/* Waits for the what-if runs started from the page (saying so once). */
void lv_alt_stop(void);
/* The control block of ltid (src/pvm/runtime/live_pos.h), once the task made it;
 * under lv_ctl_lock. */
struct pg_live_pos *lv_ctl_page(int ltid);
/* The ltids that made a control block, ascending (at most max). */
int lv_ctl_tasks(int *ids, int max);
void lv_ctl_lock(void);
void lv_ctl_unlock(void);
/* 1 while a task waits at its gate (takes lv_ctl_lock: not under the
 * snapshot's lock, which /control.json takes under lv_ctl_lock). */
int lv_ctl_any_held(void);
/* The handlers of the routes: each writes JSON to out and returns the
 * HTTP status. */
int lv_ctl_step(const struct lv_form *f, FILE *out);
int lv_ctl_pause(const struct lv_form *f, FILE *out);
int lv_ctl_resume(const struct lv_form *f, FILE *out);
int lv_ctl_runto(const struct lv_form *f, FILE *out);
int lv_ctl_break(const struct lv_form *f, FILE *out);
int lv_ctl_unbreak(const struct lv_form *f, FILE *out);
/* The gdb command line that attaches to a held task (pid): a PVM task's
 * stops once its held call returned, an MPI rank's attaches only. */
void lv_gdb_line(int pid, char *buf, size_t len);
/* POST /control/gdb: gdb attached to held ltid in a new tmux window
 * (live_gdb.c). */
int lv_gdb_open(const struct lv_form *f, FILE *out);
int lv_alt_get(const struct lv_form *f, FILE *out);
int lv_alt_choose(const struct lv_form *f, FILE *out);
int lv_alt_control_json(const struct lv_form *f, FILE *out);
/* What the page says of choosing a message while an MPI run is recorded
 * (its ranks list, at a held wildcard MPI_Recv, each source's first
 * pending message: src/mpi/mpi_gate.c), or NULL; said in /control.json
 * ("choose"). */
const char *lv_ctl_choose_note(void);
/* The msgid the page names a listed message by: a PVM task's is the
 * sender's; an MPI rank lists the receiver's count of that sender and
 * tag, named here as the view names receives (live_mpi.c, the sender's
 * msgid), -1 while the view has not read that send.  ltid: the held
 * task's. */
struct pg_live_cand;
int lv_ctl_cand_msgid(int ltid, const struct pg_live_cand *c);
/* An MPI run: the msgid of the k-th send of s to r with tag on the
 * context a log names ctx, as the view read them (live_snap.c), or -1. */
int lv_snap_mpi_msgid(int s, int r, int ctx, int tag, int k);
/* The first members of /control.json: tasks, breakpoints. */
void lv_ctl_json(FILE *out);

/* The snapshot, read under lv_snap_lock. */
struct lv_event {
    int ltid, kind, call; /* call: index into lv.calls, -1 none */
    int tag, msgid, bytes, from;
    int nto, to;          /* SEND: lv.to[to .. to+nto-1] */
    int site;             /* index into lv.sites, -1 none */
    long seq;
    double t;
};

struct lv_task {
    int ltid;
    char program[256], host[128];
    int started;          /* the monitor saw it start (or a log exists) */
    char state[16];       /* running, ended, crashed, stopped, diverged,
                             stalled, failed; waiting (while the control
                             panel holds a task: not a stall) */
    int status, has_status;
    char note[1100];      /* the last report, or why its log is unread */
    long shown;           /* its events in the snapshot */
    /* -log: the model's events of it taken so far (rec_loaded; shown:
       those of them a viewer wants) */
    /* -replay: its recorded events, and what its position file says */
    struct lv_event *rec;
    int *rec_to;
    long nrec, rec_loaded;
    long mpi_sends;       /* -log of an MPI run: its model's events whose
                             sends lv_mpi_send noted */
    long bad_at, bad_size; /* -log: the event its log last failed to read
                              at (-1 none), and the log's size then */
    int waiting;          /* in a receive, as its position file says */
    long next_recv;       /* index in rec of what it waits for, or -1 */
    int *site_map;        /* its log's site ids 1, 2... -> lv.sites */
    int nsite_map;
    size_t cap_site_map;
};

/* A call site as the filters show it: file, function, line (0: none). */
struct lv_site {
    char file[256], func[256];
    int line;
};

struct lv_state {
    int mode;             /* PANGAEA_LOG or PANGAEA_REPLAY */
    int running;          /* 0 once the run is over */
    struct lv_task **tasks; /* in ltid order, each allocated alone */
    int ntasks;
    size_t cap_tasks;
    struct lv_event *ev;  /* in the order they were seen */
    long nev;
    size_t cap_ev;
    int *to;
    long nto;
    size_t cap_to;
    const char *calls[32];
    int ncalls;
    struct lv_site *sites; /* named by pangaea (site_name.c), each once */
    int nsites;
    size_t cap_sites;
    long scans;
    double polled;        /* pg_seconds of the last /events.json answer */
    double next_scan;     /* pg_seconds by when the next scan should be done */
};
extern struct lv_state lv;

/* The task of ltid, added in order if new (under the lock); NULL when out
 * of memory. */
struct lv_task *lv_task(int ltid);

#endif
