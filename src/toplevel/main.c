/*
 * main.c - the `pangaea` command: the top-level task of every run.
 *
 *   pangaea -log|-replay|-none [-logdir DIR] [-host HOST] [-coordhost HOST]
 *           program [args...]
 *
 * It checks everything it can before any task starts (options, the program,
 * the arguments, the log directory, which it locks for the whole run, for a
 * replay the recorded logs) and before the last recording is moved to
 * previous/ (logdir.c), connects to a pvmd or starts a private
 * one, spawns the coordinator, then the program's first task as ltid 1 (the
 * top-level task is ltid 0 and the ancestor of every task), and watches the
 * run (monitor.c).  Its own spawn goes through the runtime library like any
 * task's, so its execution log says where the first task ran.  A fatal
 * error of its own (a log it cannot write) stops what it started, the
 * private pvmd included (end_on_fatal).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

/* One usage text, for --help (stdout, exit 0) and for every usage error. */
static const char usage_text[] =
    "usage: pangaea -log|-replay|-none [-logdir DIR] [-host HOST] "
    "[-coordhost HOST] [-only tag=N,..|ltid=N,..] [-min] program "
    "[args...]\n"
    "       pangaea -min [LOGDIR]      (a recording race-only)\n"
    "       pangaea -move LTID HOST | -move-host FROMHOST TOHOST "
    "[-logdir DIR]\n"
    "       pangaea -display|-tasks [LOGDIR] | -export perfetto [LOGDIR]\n"
    "       pangaea -dump [LOGDIR] [LTID]\n"
    "       pangaea -races [-json] [LOGDIR]\n";

static void usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\n%s", why, usage_text);
    exit(TOP_EXIT_USAGE);
}

static void fail(int status, const char *fmt, const char *arg)
{
    fprintf(stderr, "pangaea: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(status);
}

/* A directory passes access(X_OK): only a regular file can be run. */
static int runnable_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A program named without '/' is looked up in PATH, as a shell would; the
 * daemon gets an absolute path, since tasks do not start in our directory. */
static void resolve_program(const char *name, char *out)
{
    char *path, *dir, *save = NULL, buf[PATH_MAX];

    if (strchr(name, '/')) {
        if (access(name, X_OK) < 0 || !realpath(name, out))
            fail(TOP_EXIT_USAGE, "cannot run the program %s: not found or "
                                 "not executable", name);
        if (!runnable_file(out))
            fail(TOP_EXIT_USAGE, "cannot run the program %s: it is a "
                                 "directory or not a regular file", name);
        return;
    }
    path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    for (dir = strtok_r(path, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, sizeof buf, "%s/%s", dir, name);
        if (access(buf, X_OK) == 0 && runnable_file(buf) &&
            realpath(buf, out)) {
            free(path);
            return;
        }
    }
    fail(TOP_EXIT_USAGE, "cannot find the program %s in PATH", name);
}

/* -log -replay says two things: refused rather than the last one taken. */
static void set_mode(struct top_opts *o, pangaea_mode_t mode, const char *opt)
{
    static const char *names[] = { "", "-none", "-log", "-replay" };
    char why[128];

    if (o->mode != PANGAEA_OFF && o->mode != mode) {
        snprintf(why, sizeof why, "conflicting modes %s and %s: give one",
                 names[o->mode], opt);
        usage(why);
    }
    o->mode = mode;
}

/* The log directory, absolute (tasks start in other directories). */
static void logdir_path(struct top_opts *o, const char *logdir)
{
    int made = 0; /* why it could not be made, if it could not */

    if (o->mode != PANGAEA_REPLAY && mkdir(logdir, 0777) < 0 &&
        errno != EEXIST)
        made = errno;
    if (realpath(logdir, o->logdir))
        return;
    if (o->mode == PANGAEA_REPLAY && errno == ENOENT)
        fail(TOP_EXIT_USAGE, "no recording to replay: the log directory %s "
                             "does not exist", logdir);
    fprintf(stderr, "pangaea: cannot use the log directory %s: %s\n",
            logdir, strerror(made ? made : errno));
    exit(TOP_EXIT_USAGE);
}

/* -only may be given several times: the selections add up. */
static void add_selection(struct top_opts *o, const char *sel)
{
    size_t n = strlen(o->only);
    struct pg_select check;
    pg_err err;

    snprintf(o->only + n, sizeof o->only - n, "%s%s", n ? " " : "", sel);
    if (pg_select_parse(o->only, &check, &err) < 0)
        usage(err.msg);
}

static void parse(int argc, char **argv, struct top_opts *o)
{
    int i;
    const char *logdir = "logs";

    memset(o, 0, sizeof *o);
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-log"))
            set_mode(o, PANGAEA_LOG, argv[i]);
        else if (!strcmp(argv[i], "-replay"))
            set_mode(o, PANGAEA_REPLAY, argv[i]);
        else if (!strcmp(argv[i], "-none"))
            set_mode(o, PANGAEA_NONE, argv[i]);
        else if (!strcmp(argv[i], "-logdir") && i + 1 < argc)
            logdir = argv[++i];
        else if (!strcmp(argv[i], "-host") && i + 1 < argc)
            o->host = argv[++i];
        else if (!strcmp(argv[i], "-coordhost") && i + 1 < argc)
            o->coordhost = argv[++i];
        else if (!strcmp(argv[i], "-only") && i + 1 < argc)
            add_selection(o, argv[++i]);
        else if (!strcmp(argv[i], "-min"))
            o->min = 1;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "-help") ||
                 !strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            exit(0);
        } else {
            char why[256];

            snprintf(why, sizeof why, "unknown or incomplete option %s", argv[i]);
            usage(why);
        }
    }
    if (o->mode == PANGAEA_OFF)
        usage("say what to do: -log, -replay or -none");
    if (o->min && (o->mode != PANGAEA_LOG || o->only[0]))
        usage("-min goes with -log, and not with -only");
    if (strstr(o->only, "race-only"))
        usage("race-only recordings are made with -log -min, not -only");
    if (i >= argc)
        usage("missing program");
    resolve_program(argv[i], o->program);
    o->args = &argv[i + 1];
    if (!pg_logw_args_ok(o->args))
        usage("an argument is too long for the log (at most 4096 bytes, "
              "2048 for one with bytes XML cannot hold)");
    logdir_path(o, logdir);
}

static void self_dir(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);

    if (n <= 0)
        fail(TOP_EXIT_FAILED, "cannot find where %s is installed", "pangaea");
    out[n] = 0;
    *strrchr(out, '/') = 0;
}

/* What every task of the run inherits (PVM_EXPORT carries it on). */
static void task_env(const struct top_opts *o, const char *dir, int ctx,
                     int coord)
{
    static const char *modes[] = { "", "none", "log", "replay" };
    char buf[PATH_MAX + 64];
    const char *exp = getenv("PVM_EXPORT");

    snprintf(buf, sizeof buf, "%s/libpangaea.so", dir);
    setenv("LD_PRELOAD", buf, 1);
    setenv(PG_ENV_MODE, modes[o->mode], 1);
    setenv(PG_ENV_LOGDIR, o->logdir, 1);
    setenv(PG_ENV_ONLY, o->only, 1);
    snprintf(buf, sizeof buf, "%d", ctx);
    setenv(PG_ENV_CTX, buf, 1);
    snprintf(buf, sizeof buf, "%d", coord);
    setenv(PG_ENV_COORD, buf, 1);
    snprintf(buf, sizeof buf, "%d", pvm_mytid());
    setenv(PG_ENV_TOP, buf, 1);
    snprintf(buf, sizeof buf, "%s%s%s", exp && *exp ? exp : "",
             exp && *exp ? ":" : "", PG_ENV_LIST);
    setenv("PVM_EXPORT", buf, 1);
}

static int start_coordinator(const struct top_opts *o, const char *dir, int ctx)
{
    char path[PATH_MAX + 32], arg[16], *argv[] = { arg, NULL };
    int tid;

    snprintf(path, sizeof path, "%s/pangaea-coord", dir);
    snprintf(arg, sizeof arg, "%d", ctx);
    if (pvm_spawn(path, argv, o->coordhost ? PvmTaskHost : PvmTaskDefault,
                  (char *)(o->coordhost ? o->coordhost : ""), 1, &tid) != 1)
        return tid < 0 ? tid : -1;
    return tid;
}

/* What this run started, for pg_top_end: a fatal error of our own (a log
 * we cannot write) must stop it all, not leave a pvmd behind. */
static struct {
    int started, coord, ready;
} run;

static void end_on_fatal(const char *msg)
{
    (void)msg; /* pg_warn has said it */
    if (run.ready) {
        if (run.coord > 0)
            pvm_kill(run.coord);
        top_daemon_release(run.started);
    }
    exit(TOP_EXIT_FAILED);
}

/* Everything before a recording is checked before anything of the last
 * one moves; then it moves (or goes, if it failed). */
static void prepare_logs(struct top_opts *o)
{
    pg_err err;

    if (o->mode == PANGAEA_NONE)
        return;
    if (top_logdir_lock(o->logdir, o->mode == PANGAEA_REPLAY, &err) < 0)
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    if (o->mode == PANGAEA_REPLAY) {
        if (top_check_recording(o, &err) < 0) /* hostcheck.c */
            fail(TOP_EXIT_USAGE, "%s", err.msg);
        if (top_logdir_incomplete(o->logdir))
            fprintf(stderr, "pangaea: the recording in %s did not end well "
                    "(its logs may stop early): replaying what it holds\n",
                    o->logdir);
    } else if (top_logdir_begin(o->logdir, &err) < 0)
        fail(TOP_EXIT_USAGE, "%s", err.msg);
}

/* Closes our own logs; a recording is complete only when every log was
 * written whole and the run was not cut short. */
static int finish_recording(const struct top_opts *o, int status)
{
    if (pg_record_close(status) < 0) {
        fprintf(stderr, "pangaea: the recording in %s is incomplete\n",
                o->logdir);
        return status ? status : TOP_EXIT_FAILED;
    }
    if (!top_run_broken)
        top_logdir_complete(o->logdir);
    return status;
}

int main(int argc, char **argv)
{
    struct top_opts o;
    char dir[PATH_MAX];
    int ctx, tid, status;
    pg_err err;

    if (argc > 1 && top_is_move(argv[1])) /* move.c: edits logs, no PVM */
        return top_move(argc, argv);
    if (argc > 1 && top_is_dump(argv[1])) /* dump.c: logs as XML */
        return top_dump(argc, argv);
    if (argc > 1 && top_is_races(argv[1])) /* races_out.c: from the logs */
        return top_races(argc, argv);
    if (top_is_min(argc, argv)) /* minimize.c: a recording race-only */
        return top_min(argc, argv);
    if (argc > 1 && top_is_postmortem(argv[1])) /* postmortem.c: reads logs */
        return top_postmortem(argc, argv);
    parse(argc, argv, &o);
    self_dir(dir, sizeof dir);
    prepare_logs(&o);
    pg_top_end = end_on_fatal;
    if (top_daemon_connect(&run.started, &err) < 0)
        fail(TOP_EXIT_FAILED, "%s", err.msg);
    run.ready = 1;
    /* The hosts need PVM; nothing may have started if one is missing. */
    if (o.mode == PANGAEA_REPLAY && top_check_hosts(&o, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        top_daemon_release(run.started);
        return TOP_EXIT_USAGE;
    }
    ctx = pvm_newcontext();
    pvm_setopt(PvmOutputTid, pvm_mytid());
    pvm_setopt(PvmOutputCode, PG_TAG_OUTPUT);
    pvm_setopt(PvmOutputContext, ctx);
    run.coord = start_coordinator(&o, dir, ctx);
    if (run.coord < 0) {
        fprintf(stderr, "pangaea: cannot start the coordinator %s/pangaea-coord"
                        "%s%s (pvm_spawn: %d)\n", dir,
                o.coordhost ? " on host " : "", o.coordhost ? o.coordhost : "",
                run.coord);
        top_daemon_release(run.started);
        return o.coordhost ? TOP_EXIT_USAGE : TOP_EXIT_FAILED;
    }
    task_env(&o, dir, ctx, run.coord);
    pg_set_top(o.mode, ctx, run.coord, o.logdir);
    if (pvm_spawn(o.program, o.args, o.host ? PvmTaskHost : PvmTaskDefault,
                  (char *)(o.host ? o.host : ""), 1, &tid) != 1) {
        fprintf(stderr, "pangaea: cannot start %s%s%s (pvm_spawn: %d)\n",
                o.program, o.host ? " on host " : "", o.host ? o.host : "", tid);
        pvm_kill(run.coord);
        pg_record_close(TOP_EXIT_USAGE);
        pg_top_off();
        top_daemon_release(run.started);
        return TOP_EXIT_USAGE;
    }
    status = top_monitor(&o, ctx, run.coord, tid);
    if (o.mode == PANGAEA_LOG)
        status = finish_recording(&o, status);
    pg_top_off(); /* our own end is not a task's end */
    top_daemon_release(run.started);
    if (o.min && !top_logdir_incomplete(o.logdir) &&
        top_min_dir(o.logdir, &err) < 0) { /* minimize.c */
        fprintf(stderr, "pangaea: -min: %s (the recording stays whole)\n",
                err.msg);
        status = status ? status : TOP_EXIT_FAILED;
    }
    if (o.mode == PANGAEA_LOG && status == 0)
        fprintf(stderr, "pangaea: recorded in %s\n", o.logdir);
    return status;
}
