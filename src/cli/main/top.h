/*
 * top.h - the parts of the `pangaea` command.
 *   main.c     options, checks before anything starts, the run's sequence
 *   daemon.c   finding or starting the pvmd, and stopping what we started
 *   logdir.c   the log directory: its lock, keeping the last good recording
 *   monitor.c  the run itself: task output, reports, ends, the exit status
 *   live.c     -live: the run's event graph served while it goes on (live.h)
 *   hostcheck.c  every check before a replay: the logs, the program, hosts
 *   move.c     -move, -move-host: moving tasks to other hosts in the logs
 *   postmortem.c  -display, -tasks, -export perfetto: a recorded run shown
 *              (tasks.c, perfetto.c: protobuf, perfetto_json.c, json.c),
 *              with runlog.c (loading, matching), lamport.c (logical
 *              order), display.c and graph.html (the event graph page)
 *   paths.c    where the coordinator, library and schema are (build tree
 *              or installed), relative to the executable
 *   pack.c     -pack: a recording and its programs in one file; -version
 *   unpack.c   -replay -pack: checking and unpacking a pack to replay it
 */
#ifndef PG_TOP_H
#define PG_TOP_H

#include <stddef.h>
#include <stdio.h>

#include "pangaea.h"
#include "pg_err.h"

struct top_opts {
    pangaea_mode_t mode;
    char logdir[4096];
    const char *host;       /* -host: where the first task runs      */
    const char *coordhost;  /* -coordhost: where the coordinator runs */
    char program[4096];     /* resolved path of the program           */
    char **args;            /* the program's own arguments, NULL-ended */
    char only[256];         /* -only: selective logging, "" for all    */
    const char *pack;       /* -replay -pack FILE: replay from a pack  */
    const char *pack_dir;   /* with -pack, -logdir: where it unpacks   */
    const char *whatif;     /* -whatif LTID:SEQ=SENDER:MSGID (whatif.c) */
    const char *whatif_plan; /* its plan's text, once checked (whatif.c) */
    const char *whatif_said; /* what it forces, said as the run starts */
    /* the what-if's report once the run ended, returning its status
     * (whatif.c's top_whatif_done: an MPI run's mpi_run.c calls it) */
    int (*whatif_done)(const struct top_opts *o, int status);
    int live, live_wait;    /* -live [[ADDR:]PORT], -live-wait (live.h) */
    char live_addr[64];
    int live_port;
    int hold;               /* -hold: tasks wait at their first call (live_ctl.c) */
    /* -live of an MPI run: live.c's side, which mpi_run.c (a layer below
     * it) calls through these; set by main.c */
    const struct top_live_hooks *live_hooks;
    int min;                /* -log -min: prune to race-only at the end */
    int addhosts;           /* -addhosts: a replay may add missing hosts */
    int cwd_recorded;       /* -cwd recorded: tasks start where recorded */
};

/* The live view as an MPI run (mpi_run.c) drives it: live.h's
 * top_live_start, top_live_follow, top_live_rank_note,
 * top_live_ranks_ended and top_live_finish (live.c's top_live_hooks). */
struct top_live_hooks {
    int (*start)(const struct top_opts *o, pg_err *err);
    int (*follow)(const struct top_opts *o, pg_err *err);
    void (*rank_note)(int ltid, int diverged, const char *text);
    void (*ranks_ended)(const char *logdir, int launcher_status);
    void (*finish)(int status);
};

/* Debugging a replay (debug.c): -stop LTID:EVENT, -debug LTID[:EVENT].
 * top_debug_opt takes argv[*i] if it is one (1; -1 and why if malformed;
 * 0: not ours); top_debug_misuse: why the options do not fit the mode
 * or the recording in logdir (an ltid it lacks; NULL: not yet known), or
 * NULL; top_debug_env: the tasks' environment for them (dir: where
 * pangaea-debugger is), before a pvmd starts; top_debug_pvmd: -1 and err
 * if -debug cannot work with the pvmd (started: pangaea started it);
 * top_debug_say: where gdb will be; top_debug_held: the -debug ltid, held
 * (never stalled) throughout. */
int top_debug_opt(int argc, char **argv, int *i, char *why, size_t size);
const char *top_debug_misuse(pangaea_mode_t mode, const char *logdir);
void top_debug_env(const char *dir);
int top_debug_pvmd(int started, pg_err *err);
void top_debug_say(void);
int top_debug_held(int ltid);
/* For an MPI run (mpi_run.c): the first of -otherargs, -rebuilt given,
 * or NULL (it refuses them); the -stop events, "L:E,L:E" ("" if none),
 * which it passes to the ranks (and -debug's, through top_debug_env). */
const char *top_debug_given(void);
const char *top_debug_stops(void);
/* -replay: the program's arguments against the recorded ones (spawn: the
 * first spawn of ltid 0's execution log).  None given: o->args becomes the
 * recorded ones; others given: -1 and err, unless -otherargs (a warning).
 * Also takes -otherargs in top_debug_opt. */
struct pg_event;
int top_replay_args(struct top_opts *o, const struct pg_event *spawn,
                    pg_err *err);

/* Where the run happens (runenv.c).  top_mkdirs: dir and its missing
 * parents (mkdir -p), 0 or -1 and err naming the component.  top_workdir:
 * the tasks' working directory (PANGAEA_CWD): here, or in a replay with
 * -cwd recorded the recorded one if it exists (else a warning, and here);
 * a recorded one that differs from here is refused without it (-1, err). */
int top_mkdirs(const char *dir, pg_err *err);
/* An MPI run (mpi_run.c): top_is_mpi_launcher, 1 if the program (its
 * resolved path) is an MPI launcher (mpiexec, mpirun ...); top_mpi_run
 * runs it, recording or replaying its ranks, and returns pangaea's exit
 * status. */
int top_is_mpi_launcher(const char *program);
int top_mpi_run(struct top_opts *o);
/* mpi_whatif.c, a what-if of an MPI recording: _check, its forced
 * receives are ones an MPI rank can force (else -1 and err, naming them);
 * _write, the plan (o->whatif_plan) written into the new recording,
 * o->logdir, its path into path.  0, or -1 and err. */
int top_mpi_whatif_check(const struct top_opts *o, pg_err *err);
int top_mpi_whatif_write(const struct top_opts *o, char *path, size_t size,
                         pg_err *err);
/* mpi_ids.c: after an MPI run, each receive's msgid (the rank's count of
 * the messages of that sender and tag) becomes its send's (the sender's
 * count of its sends), as in every log.  0, or -1 and err. */
int top_mpi_renumber(const char *dir, pg_err *err);
/* 1 if the recording in dir is an MPI run's: ranks' logs, and no log of
 * ltid 0 (pangaea's own in a PVM run). */
int top_mpi_recording(const char *dir);
/* An MPI recording's launcher command line (mpi_run.c writes it after
 * the run, for packs): LOGDIR/TOP_MPI_LAUNCH (top_mpi_launch_write: o's,
 * when it can be written so).  top_mpi_launch_line: it
 * as one line for people (pack.c's MANIFEST), 0, or -1 if there is none;
 * top_mpi_unpacked: o->program and o->args from it, with the packed
 * program (progdir/SHA256/NAME) for the recorded one (unpack.c).  0, or
 * -1 and err. */
#define TOP_MPI_LAUNCH "pangaea-mpi-launch"
void top_mpi_launch_write(const struct top_opts *o);
int top_mpi_launch_line(const char *dir, char *out, size_t size);
int top_mpi_unpacked(struct top_opts *o, const char *progdir, pg_err *err);
int top_workdir(const struct top_opts *o, pg_err *err);
/* pangaea's stdin for ltid 1 (stdin_fwd.c): forwarded as it comes, and
 * recorded as LOGDIR/pangaea-stdin; in replay the recorded input.  0, or
 * -1 and err.  top_stdin_end stops the forwarding (also at exit). */
int top_stdin_begin(const struct top_opts *o, pg_err *err);
/* The recording's stdin in logdir: 1 (its path in path), 0 (none), or -1
 * and err when it is not a regular file (a link, a FIFO: refused). */
int top_stdin_recorded(const char *logdir, char *path, size_t size,
                       pg_err *err);
void top_stdin_end(void);

/* Race-only recordings (minimize.c): `pangaea -min [LOGDIR]`, and the
 * pruning -log -min does once the run has ended (0, or -1 and err). */
int top_min(int argc, char **argv);
int top_min_dir(const char *dir, pg_err *err);

/* What a recording may hold, handled as untrusted (untrusted.c).
 * top_esc: s with its control characters as \xNN (a static buffer, four
 * in turn).  top_safe_output: stderr, and stdout if out_too (the
 * commands that only read logs), escape every control from here on.
 * top_host_name_ok: s is a DNS name or an address.  In a log directory:
 * top_in_dir_check: name (relative to dfd) is absent or a regular file,
 * else -1 and err naming it; top_in_dir_unlink removes it if it is one.
 * top_file_begin opens PATH.tmp (O_EXCL, O_NOFOLLOW, 0600) for writing,
 * relative to PATH's directory (NULL and err; a PATH that is no regular
 * file is refused); top_file_end closes it and renames it to PATH (ok 0:
 * removes it instead), 0 or -1 and err. */
const char *top_esc(const char *s);
void top_safe_output(int out_too);
int top_host_name_ok(const char *s);
int top_in_dir_check(int dfd, const char *dir, const char *name, pg_err *err);
int top_in_dir_unlink(int dfd, const char *dir, const char *name, pg_err *err);
struct top_file {
    int dfd;
    char dir[4096], tmp[300];
    const char *name;
    FILE *fp;
};
FILE *top_file_begin(struct top_file *f, const char *path, pg_err *err);
int top_file_end(struct top_file *f, int ok, pg_err *err);

/* Exit statuses of `pangaea` itself, from the command-line table:
 * TOP_EXIT_USAGE 2 (bad option, missing program, bad logs),
 * TOP_EXIT_DIVERGED 3, TOP_EXIT_FAILED 4 (the run could not start or
 * failed). */
enum {
#define PG_EXIT(name, code, meaning) TOP_EXIT_##name = code,
#include "options.def"
};

/* What a mode of the command-line table is (its traits column):
 * TOP_MODE_LOGDIR, it takes the log directory as an argument (-logdir
 * DIR becomes it); TOP_MODE_TEXT, its stdout is what logs hold, printed
 * with every control character escaped (untrusted.c). */
enum { TOP_MODE_LOGDIR = 1, TOP_MODE_TEXT = 2 };

/* Connects to a pvmd, starting a private one when none answers (*started
 * is then 1).  0, or -1 and err. */
int top_daemon_connect(int *started, pg_err *err);
/* Leaves PVM; halts the daemon if we started it. */
void top_daemon_release(int started);

/* Runs the program under the coordinator until every task has ended.
 * Returns pangaea's exit status. */
int top_monitor(const struct top_opts *o, int ctx, int coord, int first_tid);
/* Set by top_monitor when the run was cut short for a reason of
 * Pangaea's (a task's fatal error, a lost coordinator or host, an
 * interrupt): its recording is then not complete. */
extern int top_run_broken;

/* The checks before a replay (hostcheck.c).  Before joining PVM: every
 * log of the recording is valid, it is of this program, o->only becomes
 * its selection, every execution log agrees with the others.  After
 * joining, before anything starts: every host a task is to run on is in
 * the virtual machine or is added; says where tasks read their logs.
 * Each returns 0, or -1 and err. */
int top_check_recording(struct top_opts *o, pg_err *err);
int top_check_hosts(const struct top_opts *o, pg_err *err);
/* The largest ltid of the recording top_check_recording read (0: none):
 * tasks new to a what-if are numbered above it. */
int top_recorded_ltid_max(void);
/* 1 if the virtual machine has a host of that name (pvm_config). */
int top_host_in_vm(const char *host);
/* Set when the replay's tasks run on several hosts: the monitor then says
 * on which host each task started, as the task itself reports it. */
extern int top_multihost;

/* The log directory (logdir.c).  top_logdir_lock takes the directory's
 * lock for the rest of the process (refused, with the holder's pid, host
 * and command line, when another pangaea holds it); readonly_ok: a
 * directory nobody can write to is fine (a replay).  top_logdir_check
 * checks, moving nothing, that a recording can begin; top_logdir_begin
 * does it: the last recording goes to previous/ if it ended well, is
 * removed if not, and the new one is marked incomplete until
 * top_logdir_complete.  Each returns 0, or -1 and err. */
int top_logdir_lock(const char *dir, int readonly_ok, pg_err *err);
int top_logdir_check(const char *dir, pg_err *err);
int top_logdir_begin(const char *dir, pg_err *err);
int top_logdir_complete(const char *dir, pg_err *err);
/* 1 if `name` is a file of a recording: ltid-N.*.xml, ltid-N.*.pgc, or the page
 * -display wrote. */
int top_recording_file(const char *name);
/* The ltids that have a communication log in dir (exec_too: or an
 * execution log), each once, sorted, in *out (malloc'd).  The count, or -1
 * (errno: the directory cannot be read, or out of memory). */
int top_log_ltids(const char *dir, int exec_too, int **out);
/* What a recording lacks: every task that has a log, or that an execution
 * log says was spawned, must have both its logs, each a regular file.
 * The number of logs missing or unusable (0: whole); msg names the first
 * ("DIR/ltid-3.comm.pgc is missing (ltid 3), and 2 more logs").
 * top_note_missing says it on stderr for a reader that goes on. */
int top_logs_missing(const char *dir, char *msg, size_t size);
void top_note_missing(const char *dir);
/* The index of ltid in tasks[n], structs of `size` bytes whose first
 * member is an int ltid, sorted by it; -1 if it is not there. */
int top_find_ltid(const void *tasks, int n, size_t size, int ltid);

/* `pangaea -move LTID HOST` and `-move-host FROM TO` (move.c). */
int top_move(int argc, char **argv);

/* `pangaea -display|-tasks|-export perfetto [LOGDIR]` (postmortem.c): read a
 * recording's logs only.  top_postmortem returns the exit status. */
/* `-export perfetto`: its stdout is binary, so it is not filtered as
 * text (untrusted.c), and never written to a terminal. */
int top_is_binary_export(int argc, char **argv);
/* dump.c: -dump [LOGDIR] [LTID], the communication logs as XML. */
int top_dump(int argc, char **argv);
int top_postmortem(int argc, char **argv);
/* races_out.c: -races [-json|-jsonl] [LOGDIR] (races.h). */
int top_races(int argc, char **argv);

/* Where the coordinator, the preloaded library and the schema are: beside
 * the executable in the build tree, in ../lib/pangaea and ../share/pangaea
 * when installed (paths.c). */
const char *top_libexec_dir(void);
const char *top_schema_dir(void);

/* `pangaea -pack [-logdir DIR]... -o FILE` (pack.c), and `-version`. */
int top_pack(int argc, char **argv);
int top_version(int argc, char **argv);
/* The machine an ELF file is built for ("x86_64"; "unknown": no ELF). */
void top_elf_machine(const char *path, char *out, size_t size);
/* -replay -pack FILE (unpack.c): checks the pack (checksums, the programs'
 * architecture), unpacks it into a directory of its own (o->pack_dir, or
 * beside the pack), and sets o->logdir, o->program and, when no argument
 * was given, o->args to the recording's; PANGAEA_PROGDIR then makes the
 * replay start the packed programs (progmap.c).  0, or -1 and err. */
int top_unpack(struct top_opts *o, pg_err *err);

/* Integers packed into a JSON string (json.c): zigzag varints in base64,
 * written as they come; top_pack_end writes the last bytes.  The pages'
 * unpack() reads them. */
struct top_packer {
    FILE *fp;
    unsigned acc; /* up to 3 bytes waiting for their base64 */
    int n;
};
void top_pack_value(struct top_packer *p, long long v);
void top_pack_end(struct top_packer *p);

#endif
