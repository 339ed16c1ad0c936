/*
 * main.c - the `pangaea` command: the top-level task of every run.
 *
 *   pangaea -log|-replay|-none [-logdir DIR] [-host HOST] [-coordhost HOST]
 *           program [args...]
 *
 * It checks everything it can before any task starts (options, the program,
 * for a replay the recorded logs), connects to a pvmd or starts a private
 * one, spawns the coordinator, then the program's first task as ltid 1 (the
 * top-level task is ltid 0 and the ancestor of every task), and watches the
 * run (monitor.c).  Its own spawn goes through the runtime library like any
 * task's, so its execution log says where the first task ran.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

void pg_set_top(pangaea_mode_t mode, int ctx, int coord, const char *logdir);

static void usage(const char *why)
{
    fprintf(stderr,
            "pangaea: %s\n"
            "usage: pangaea -log|-replay|-none [-logdir DIR] [-host HOST] "
            "[-coordhost HOST] [-only tag=N,..|ltid=N,..] program [args...]\n"
            "       pangaea -move LTID HOST | -move-host FROMHOST TOHOST "
            "[-logdir DIR]\n"
            "       pangaea -dump [LOGDIR] [LTID]\n", why);
    exit(TOP_EXIT_USAGE);
}

static void fail(int status, const char *fmt, const char *arg)
{
    fprintf(stderr, "pangaea: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(status);
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
        return;
    }
    path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    for (dir = strtok_r(path, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, sizeof buf, "%s/%s", dir, name);
        if (access(buf, X_OK) == 0 && realpath(buf, out)) {
            free(path);
            return;
        }
    }
    fail(TOP_EXIT_USAGE, "cannot find the program %s in PATH", name);
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
            o->mode = PANGAEA_LOG;
        else if (!strcmp(argv[i], "-replay"))
            o->mode = PANGAEA_REPLAY;
        else if (!strcmp(argv[i], "-none"))
            o->mode = PANGAEA_NONE;
        else if (!strcmp(argv[i], "-logdir") && i + 1 < argc)
            logdir = argv[++i];
        else if (!strcmp(argv[i], "-host") && i + 1 < argc)
            o->host = argv[++i];
        else if (!strcmp(argv[i], "-coordhost") && i + 1 < argc)
            o->coordhost = argv[++i];
        else if (!strcmp(argv[i], "-only") && i + 1 < argc)
            add_selection(o, argv[++i]);
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "-help") ||
                 !strcmp(argv[i], "--help")) {
            printf("usage: pangaea -log|-replay|-none [-logdir DIR] "
                   "[-host HOST] [-coordhost HOST] program [args...]\n");
            exit(0);
        } else {
            char why[256];

            snprintf(why, sizeof why, "unknown or incomplete option %s", argv[i]);
            usage(why);
        }
    }
    if (o->mode == PANGAEA_OFF)
        usage("say what to do: -log, -replay or -none");
    if (i >= argc)
        usage("missing program");
    resolve_program(argv[i], o->program);
    o->args = &argv[i + 1];
    if (o->mode != PANGAEA_REPLAY)
        mkdir(logdir, 0777);
    if (!realpath(logdir, o->logdir))
        fail(TOP_EXIT_USAGE, o->mode == PANGAEA_REPLAY
                 ? "no recording to replay: the log directory %s does not exist"
                 : "cannot use the log directory %s", logdir);
}

/* A file of a recording: ltid-*.xml, ltid-*.pgc, or the page -display
 * wrote. */
static int recording_file(const char *name)
{
    size_t n = strlen(name);

    return (!strncmp(name, "ltid-", 5) && n > 4 &&
            (!strcmp(name + n - 4, ".xml") || !strcmp(name + n - 4, ".pgc"))) ||
           !strcmp(name, "pangaea-graph.html");
}

/* Moves (to_dir) or removes (to_dir NULL) the recording files of dir;
 * returns how many there were.  Only those files are touched. */
static int move_recording(const char *dir, const char *to_dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char from[PATH_MAX + 300], to[PATH_MAX + 600];
    int n = 0;

    if (!d)
        return 0; /* no previous/ yet (clear_logs has opened dir itself) */
    while ((e = readdir(d))) {
        if (!recording_file(e->d_name))
            continue;
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        if (to_dir) {
            snprintf(to, sizeof to, "%s/%s", to_dir, e->d_name);
            if (rename(from, to) < 0)
                fail(TOP_EXIT_USAGE, "cannot keep the previous recording: "
                     "cannot move %s", from);
        } else {
            unlink(from);
        }
        n++;
    }
    closedir(d);
    return n;
}

/* A new recording never overwrites the last one silently: the recording
 * files in the directory go to DIR/previous/ (replacing an older one there:
 * its recording files, then the directory, which must then be empty), so
 * that no log of a task this run lacks is mixed with the new ones. */
static void clear_logs(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char prev[PATH_MAX + 16];
    int any = 0, foreign = 0;

    if (!d)
        fail(TOP_EXIT_USAGE, "cannot open the log directory %s", dir);
    while (!any && (e = readdir(d)))
        any = recording_file(e->d_name);
    closedir(d);
    if (!any)
        return;
    snprintf(prev, sizeof prev, "%s/previous", dir);
    if ((d = opendir(prev))) { /* check it all before removing anything */
        while ((e = readdir(d)) && !foreign)
            foreign = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                      !recording_file(e->d_name);
        closedir(d);
    }
    if (!foreign)
        move_recording(prev, NULL);
    if (foreign || (rmdir(prev) < 0 && errno != ENOENT))
        fail(TOP_EXIT_USAGE, "cannot replace %s, where the previous recording "
             "is kept: it holds other files (move them away)", prev);
    if (mkdir(prev, 0777) < 0)
        fail(TOP_EXIT_USAGE, "cannot create %s for the previous recording",
             prev);
    move_recording(dir, prev);
    fprintf(stderr, "pangaea: the previous recording was kept in %s\n", prev);
}


/* One log of the recording, checked before a replay: an execution log
 * against the schema (people edit them), a communication log by reading
 * it through once (the reader checks every event, in constant memory; no
 * schema pass).  A log that stops after complete events is a task that
 * died when recorded: the replay follows it up to there. */
static void check_log(const char *dir, const char *name, const char *xsd)
{
    char path[PATH_MAX + 300];
    pg_err err;
    long n;
    int comm = strstr(name, ".comm.") != NULL, rc;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!comm) {
        if (pg_log_validate(path, xsd, &err) < 0 &&
            pg_log_check_cut(path, PG_LOG_EXEC, &n, &err) != 1)
            fail(TOP_EXIT_USAGE, "%s", err.msg);
        return;
    }
    rc = pg_log_check_cut(path, PG_LOG_COMM, &n, &err);
    if (rc < 0)
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    if (rc == 1)
        fprintf(stderr, "pangaea: %s stops after event %ld: that task died "
                "there when recorded; the replay follows it that far\n",
                name, n);
}

/* Before a replay: every log is well-formed and valid, and the recording is
 * of this program. */
static void check_recording(struct top_opts *o)
{
    char path[PATH_MAX + 300], xsd[PATH_MAX];
    struct dirent *e;
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    pg_err err;
    DIR *d;

    pg_log_path(path, sizeof path, o->logdir, 0, PG_LOG_EXEC);
    if (access(path, R_OK) < 0)
        fail(TOP_EXIT_USAGE, "no recording to replay: %s is missing "
                             "(record first with pangaea -log)", path);
    snprintf(xsd, sizeof xsd, "%s/pangaea-log.xsd", PG_SCHEMA_DIR);
    d = opendir(o->logdir);
    while (d && (e = readdir(d)))
        if (recording_file(e->d_name) && strncmp(e->d_name, "pangaea-", 8))
            check_log(o->logdir, e->d_name, xsd);
    if (d)
        closedir(d);
    pg_log_path(path, sizeof path, o->logdir, 0, PG_LOG_EXEC);
    r = pg_logr_open(path, PG_LOG_EXEC, &h, &err);
    if (!r)
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    if (pg_logr_next(r, &ev, &err) != 1 || ev.kind != PG_EV_SPAWN)
        fail(TOP_EXIT_USAGE, "%s records no spawn of a program", path);
    if (strcmp(pg_basename(ev.program), pg_basename(o->program))) {
        fprintf(stderr, "pangaea: the recording in %s is of %s, not of %s\n",
                o->logdir, ev.program, o->program);
        exit(TOP_EXIT_USAGE);
    }
    /* A replay follows the selection of its recording, whatever it is. */
    if (o->only[0] && strcmp(o->only, h.select)) {
        fprintf(stderr, "pangaea: -only \"%s\": a replay uses the selection "
                "its recording was made with (\"%s\")\n", o->only, h.select);
        exit(TOP_EXIT_USAGE);
    }
    snprintf(o->only, sizeof o->only, "%s", h.select);
    if (o->only[0])
        fprintf(stderr, "pangaea: replaying with the selection the recording "
                "was made with: %s\n", o->only);
    pg_logr_close(r);
    if (top_check_exec_logs(o, &err) < 0) /* hostcheck.c */
        fail(TOP_EXIT_USAGE, "%s", err.msg);
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

int main(int argc, char **argv)
{
    struct top_opts o;
    char dir[PATH_MAX];
    int started, ctx, coord, tid, status;
    pg_err err;

    if (argc > 1 && top_is_move(argv[1])) /* move.c: edits logs, no PVM */
        return top_move(argc, argv);
    if (argc > 1 && top_is_dump(argv[1])) /* dump.c: logs as XML */
        return top_dump(argc, argv);
    if (argc > 1 && top_is_postmortem(argv[1])) /* export.c: reads logs */
        return top_postmortem(argc, argv);
    parse(argc, argv, &o);
    if (o.mode == PANGAEA_REPLAY)
        check_recording(&o);
    else if (o.mode == PANGAEA_LOG)
        clear_logs(o.logdir);
    self_dir(dir, sizeof dir);
    if (top_daemon_connect(&started, &err) < 0)
        fail(TOP_EXIT_FAILED, "%s", err.msg);
    /* The hosts need PVM; nothing may have started if one is missing. */
    if (o.mode == PANGAEA_REPLAY && top_check_hosts(&o, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        top_daemon_release(started);
        return TOP_EXIT_USAGE;
    }
    ctx = pvm_newcontext();
    pvm_setopt(PvmOutputTid, pvm_mytid());
    pvm_setopt(PvmOutputCode, PG_TAG_OUTPUT);
    pvm_setopt(PvmOutputContext, ctx);
    coord = start_coordinator(&o, dir, ctx);
    if (coord < 0) {
        fprintf(stderr, "pangaea: cannot start the coordinator %s/pangaea-coord"
                        "%s%s (pvm_spawn: %d)\n", dir,
                o.coordhost ? " on host " : "", o.coordhost ? o.coordhost : "",
                coord);
        top_daemon_release(started);
        return o.coordhost ? TOP_EXIT_USAGE : TOP_EXIT_FAILED;
    }
    task_env(&o, dir, ctx, coord);
    pg_set_top(o.mode, ctx, coord, o.logdir);
    if (pvm_spawn(o.program, o.args, o.host ? PvmTaskHost : PvmTaskDefault,
                  (char *)(o.host ? o.host : ""), 1, &tid) != 1) {
        fprintf(stderr, "pangaea: cannot start %s%s%s (pvm_spawn: %d)\n",
                o.program, o.host ? " on host " : "", o.host ? o.host : "", tid);
        pvm_kill(coord);
        pg_record_close(TOP_EXIT_USAGE);
        pg.mode = PANGAEA_OFF;
        top_daemon_release(started);
        return TOP_EXIT_USAGE;
    }
    status = top_monitor(&o, ctx, coord, tid);
    if (o.mode == PANGAEA_LOG)
        pg_record_close(status);
    pg.mode = PANGAEA_OFF; /* our own end is not a task's end */
    top_daemon_release(started);
    if (o.mode == PANGAEA_LOG && status == 0)
        fprintf(stderr, "pangaea: recorded in %s\n", o.logdir);
    return status;
}
