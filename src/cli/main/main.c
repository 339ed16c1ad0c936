/*
 * main.c - the `pangaea` command: the top-level task of every run.
 *
 *   pangaea -log|-replay|-none [-logdir DIR] [-host HOST] [-coordhost HOST]
 *           program [args...]
 *   pangaea -replay -pack FILE [-logdir DIR] [args...]   (unpack.c)
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
 *
 * The command line is one table, options.def (modes, options, exit
 * statuses, environment): -help and the usage are printed from it.  One
 * rule for all modes: the mode comes first (a mode given later is named
 * as such), and every mode takes -logdir DIR (the viewers' LOGDIR
 * argument too: logdir_as_arg).  The hosts of -host and -coordhost are
 * checked once PVM is joined, before the last recording moves
 * (check_named_hosts, then begin_logs).
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
#include "live.h"
#include "top.h"
#include "whatif.h"

/* The usage and -help, printed from the command-line table (options.def):
 * README.md and the man page are held to what it prints by
 * tests/e2e/cli_contract.py. */

/* `first`, then the words of text, wrapped before column 79; continuation
 * lines indented by `indent` columns. */
static void wrap(FILE *f, const char *first, const char *text, int indent)
{
    size_t col = strlen(first), n;

    fputs(first, f);
    for (; *text; text += n, text += *text == ' ') {
        n = strcspn(text, " ");
        if (col > (size_t)indent && col + n + 1 > 78) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > strlen(first) || (col && first[col - 1] != ' ')) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", (int)n, text);
        col += n;
    }
    fputc('\n', f);
}

static void print_usage(FILE *f)
{
    const char *lead = "usage: pangaea ";

#define PG_MODE(flag, entry, traits, usage, summary)                       \
    if (*usage) {                                                          \
        wrap(f, lead, usage, 19);                                          \
        lead = "       pangaea ";                                          \
    }
#include "options.def"
}

/* "log replay" -> "-log -replay" */
static void print_opt(const char *name, const char *arg, const char *modes,
                      const char *summary)
{
    char na[64], head[96], text[512];
    size_t n;
    const char *m;

    snprintf(na, sizeof na, "%s%s%s", name, *arg ? " " : "", arg);
    snprintf(head, sizeof head, "  %-24s", na);
    n = snprintf(text, sizeof text, "%s (with", summary);
    for (m = modes; *m && n < sizeof text; m += strcspn(m, " "), m += *m == ' ')
        n += snprintf(text + n, sizeof text - n, " -%.*s",
                      (int)strcspn(m, " "), m);
    snprintf(text + n, n < sizeof text ? sizeof text - n : 0, ")");
    if (strlen(na) > 23) { /* a long argument: the text below it */
        printf("  %s\n", na);
        snprintf(head, sizeof head, "%26s", "");
    }
    wrap(stdout, head, text, 26);
}

/* 1 stands for any status of the first task, 128 for 128+N. */
static void print_exit(int code, const char *meaning)
{
    char head[16];

    snprintf(head, sizeof head, code == 1     ? "  other  "
                                : code == 128 ? "  128+N  "
                                              : "  %-7d", code);
    wrap(stdout, head, meaning, 9);
}

static void print_env(const char *name, const char *meaning)
{
    char head[32];

    snprintf(head, sizeof head, "  %-19s", name);
    wrap(stdout, head, meaning, 21);
}

static void print_help(void)
{
    print_usage(stdout);
    printf("\nmodes (the mode comes first, its options after it):\n");
#define PG_MODE(flag, entry, traits, usage, summary)                       \
    printf("  %-24s%s\n", flag, summary);
#include "options.def"
    printf("\noptions:\n");
#define PG_OPT(name, arg, modes, summary) print_opt(name, arg, modes, summary);
#include "options.def"
    printf("\nexit status:\n");
#define PG_EXIT(name, code, meaning) print_exit(code, meaning);
#include "options.def"
    printf("\nenvironment:\n");
#define PG_ENV(name, meaning) print_env(name, meaning);
#include "options.def"
    printf("\nThe manual page pangaea(1) and README.md say more.\n");
}

/* The modes of the table, with the function that runs each on its own
 * (NULL for the runs, which parse() reads and main() starts). */
static const struct mode {
    const char *flag;
    int (*entry)(int argc, char **argv);
    unsigned traits; /* TOP_MODE_* */
} modes[] = {
#define NONE NULL
#define PG_MODE(flag, entry, traits, usage, summary) { flag, entry, traits },
#include "options.def"
#undef NONE
};

/* The row of mode `arg` (--version is -version), or NULL. */
static const struct mode *find_mode(const char *arg)
{
    size_t i;

    if (!strcmp(arg, "--version"))
        arg = "-version";
    for (i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(arg, modes[i].flag))
            return &modes[i];
    return NULL;
}

/* 1 if arg is a mode of the table (-dump, -races, ...). */
static int is_mode(const char *arg)
{
    return find_mode(arg) != NULL;
}

static void usage(const char *why)
{
    fprintf(stderr, "pangaea: %s\n", why);
    print_usage(stderr);
    exit(TOP_EXIT_USAGE);
}

/* A command line refused for what it names (a choice, a recording), where
 * the usage would say nothing more. */
static void refused(const pg_err *err)
{
    fprintf(stderr, "pangaea: %s\n", err->msg);
    exit(TOP_EXIT_USAGE);
}

/* The one rule: the mode comes first.  argv[1] is no mode: name the mode
 * given later, if any. */
static void mode_first(int argc, char **argv)
{
    char why[512];
    int j;

    for (j = 2; j < argc && !is_mode(argv[j]); j++)
        ;
    if (j < argc && is_mode(argv[j]))
        snprintf(why, sizeof why, "%s is a mode: the mode comes first, "
                 "before %s (pangaea %s ...)", argv[j], argv[1], argv[j]);
    else
        snprintf(why, sizeof why, "unknown or incomplete option %s, where "
                 "the mode comes first (-log, -replay, -none, -dump, ...: "
                 "pangaea -help lists them)", argv[1]);
    usage(why);
}

/* The viewers take the log directory as an argument (pangaea -dump
 * [LOGDIR] [LTID]), -move, -pack and the runs as -logdir DIR: every mode
 * takes both.  A viewer's "-logdir DIR" becomes its LOGDIR argument, after
 * its flags (-json) and before the rest (-dump's LTID). */
static int logdir_as_arg(int argc, char **argv)
{
    int i, k, pos, first;
    char *dir = NULL;

    /* -export's format word comes before its LOGDIR */
    first = 2 + (!strcmp(argv[1], "-export") && argc > 2 && argv[2][0] != '-');
    for (i = k = first; i < argc; i++)
        if (!dir && !strcmp(argv[i], "-logdir") && i + 1 < argc)
            dir = argv[++i];
        else
            argv[k++] = argv[i];
    if (!dir)
        return argc;
    for (pos = first; pos < k && argv[pos][0] == '-'; pos++)
        ;
    memmove(&argv[pos + 1], &argv[pos], (k - pos) * sizeof *argv);
    argv[pos] = dir;
    argv[++k] = NULL;
    return k;
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

/* What the kernel can exec: an ELF binary or a #! script.  Anything else
 * (a text file made executable) would fail in the pvmd's exec, which a run
 * only learns of as a task that never started. */
static int a_program(const char *path)
{
    unsigned char head[4] = { 0 };
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;

    if (f)
        fclose(f);
    return (n == 4 && !memcmp(head, "\177ELF", 4)) ||
           (n >= 2 && head[0] == '#' && head[1] == '!');
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
        if (!a_program(out))
            fail(TOP_EXIT_USAGE, "cannot run the program %s: it is neither "
                                 "a binary (ELF) nor a script (#!)", name);
        return;
    }
    path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    for (dir = strtok_r(path, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(buf, sizeof buf, "%s/%s", dir, name);
        if (access(buf, X_OK) == 0 && runnable_file(buf) &&
            realpath(buf, out)) {
            free(path);
            if (!a_program(out))
                fail(TOP_EXIT_USAGE, "cannot run the program %s: it is "
                                     "neither a binary (ELF) nor a script "
                                     "(#!)", out);
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

/* Set when logdir_path made the log directory itself: a run that stops
 * before it starts (a -live port in use) removes it again, if still
 * empty. */
static int made_logdir;

/* The log directory, absolute (tasks start in other directories). */
static void logdir_path(struct top_opts *o, const char *logdir)
{
    struct stat st;
    pg_err err;

    made_logdir = o->mode != PANGAEA_REPLAY && lstat(logdir, &st) < 0 &&
                  errno == ENOENT;
    /* runenv.c: with its parents, naming the one that cannot be made */
    if (o->mode != PANGAEA_REPLAY && top_mkdirs(logdir, &err) < 0) {
        fprintf(stderr, "pangaea: cannot use the log directory %s: %s\n",
                logdir, err.msg);
        exit(TOP_EXIT_USAGE);
    }
    if (realpath(logdir, o->logdir))
        return;
    if (o->mode == PANGAEA_REPLAY && errno == ENOENT)
        fail(TOP_EXIT_USAGE, "no recording to replay: the log directory %s "
                             "does not exist", logdir);
    fprintf(stderr, "pangaea: cannot use the log directory %s: %s\n",
            logdir, strerror(errno));
    exit(TOP_EXIT_USAGE);
}

/* [ADDR:]DIGITS: meant as -live's port, never a program's name. */
static int port_like(const char *arg)
{
    const char *p = strrchr(arg, ':') ? strrchr(arg, ':') + 1 : arg;

    return *p && strspn(p, "0123456789") == strlen(p);
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

/* The program's arguments, each short enough for the execution log. */
static void take_args(struct top_opts *o, char **args)
{
    o->args = args;
    if (!pg_logw_args_ok(args))
        usage("an argument is too long for the log (at most 4096 bytes, "
              "2048 for one with bytes XML cannot hold)");
}

/* What parse() gathers beyond top_opts: where the logs go, and a
 * what-if's forked recording and new directory. */
struct parsed {
    const char *logdir, *whatif;
    char newdir[4096];
};
static const char default_logdir[] = "logs";

/* -live [[ADDR:]PORT]: a port-like word after it must be a good one. */
static void parse_live(int argc, char **argv, int *i, struct top_opts *o)
{
    char why[512];

    o->live = 1;
    if (*i + 1 < argc && !top_live_arg(argv[*i + 1], o) && /* live.c */
        port_like(argv[*i + 1])) {
        snprintf(why, sizeof why, "-live %s: not a port (0 to 65535) on an "
                 "IPv4 address or localhost", argv[*i + 1]);
        usage(why);
    }
    *i += *i + 1 < argc && top_live_arg(argv[*i + 1], o);
}

/* A word where an option of the runs should be: named as the mode it is,
 * or as unknown. */
static void not_an_option(int argc, char **argv, int i, const struct top_opts *o)
{
    char why[512];

    if (i > 1 && o->mode == PANGAEA_OFF && is_mode(argv[i])) {
        snprintf(why, sizeof why, "%s is a mode: the mode comes first, "
                 "before %s (pangaea %s ...)", argv[i], argv[1], argv[i]);
        usage(why);
    }
    if (i == 1)
        mode_first(argc, argv);
    snprintf(why, sizeof why, is_mode(argv[i])
             ? "%s is a mode: the mode comes first (pangaea -help)"
             : "unknown or incomplete option %s", argv[i]);
    usage(why);
}

/* The option at argv[*i] (and its argument: *i moves past it). */
static void parse_option(int argc, char **argv, int *i, struct top_opts *o,
                         struct parsed *p)
{
    const char *opt = argv[*i], *arg = *i + 1 < argc ? argv[*i + 1] : NULL;
    char why[512];
    pg_err err;
    int k;

    if (*i > 1 && o->mode == PANGAEA_OFF && is_mode(opt))
        not_an_option(argc, argv, *i, o); /* a mode after an option */
    if (*i == 1 && !is_mode(opt) && strcmp(opt, "--help") && strcmp(opt, "-h"))
        not_an_option(argc, argv, *i, o);
    if (!strcmp(opt, "-log"))
        set_mode(o, PANGAEA_LOG, opt);
    else if (!strcmp(opt, "-replay"))
        set_mode(o, PANGAEA_REPLAY, opt);
    else if (!strcmp(opt, "-none"))
        set_mode(o, PANGAEA_NONE, opt);
    else if (!strcmp(opt, "-logdir") && arg && ++*i)
        p->logdir = arg;
    else if (!strcmp(opt, "-host") && arg && ++*i)
        o->host = arg;
    else if (!strcmp(opt, "-coordhost") && arg && ++*i)
        o->coordhost = arg;
    else if (!strcmp(opt, "-only") && arg && ++*i)
        add_selection(o, arg);
    else if (!strcmp(opt, "-pack") && arg && ++*i)
        o->pack = arg; /* unpack.c: replay from a pack */
    else if (!strcmp(opt, "-whatif") && arg && ++*i) {
        set_mode(o, PANGAEA_LOG, opt); /* it records (whatif.c) */
        if (top_whatif_add(arg, &err) < 0) /* may be repeated */
            refused(&err);
        p->whatif = arg;
    } else if (!strcmp(opt, "-o") && arg && ++*i)
        snprintf(p->newdir, sizeof p->newdir, "%s", arg);
    else if (!strcmp(opt, "-live")) /* [ADDR:]PORT may follow */
        parse_live(argc, argv, i, o);
    else if (!strcmp(opt, "-live-wait"))
        o->live_wait = 1;
    else if (!strcmp(opt, "-hold")) /* live_ctl.c */
        o->hold = 1;
    else if ((k = top_debug_opt(argc, argv, i, why, sizeof why)))
        k < 0 ? usage(why) : (void)0; /* -stop, -debug: debug.c */
    else if (!strcmp(opt, "-notime")) /* clocks, pids: wrap_time.c */
        setenv(PG_ENV_TIME, "0", 1);
    else if (!strcmp(opt, "-min"))
        o->min = 1;
    else if (!strcmp(opt, "-addhosts")) /* hostcheck.c */
        o->addhosts = 1;
    else if (!strcmp(opt, "-cwd") && arg && !strcmp(arg, "recorded") && ++*i)
        o->cwd_recorded = 1; /* runenv.c */
    else if (!strcmp(opt, "-h") || !strcmp(opt, "-help") ||
             !strcmp(opt, "--help")) {
        print_help();
        exit(0);
    } else
        not_an_option(argc, argv, *i, o);
}

/* Options that do not go together, refused before anything starts. */
static void check_together(const struct top_opts *o, int more)
{
    if (o->mode == PANGAEA_OFF)
        usage(more ? "say what to do first: a mode (-log, -replay, "
                     "-none, ...: pangaea -help lists them)"
                   : "say what to do: a mode (-log, -replay, -none, "
                     "...: pangaea -help lists them)");
    if (o->min && (o->mode != PANGAEA_LOG || o->only[0]))
        usage("-min goes with -log, and not with -only");
    if (strstr(o->only, "race-only"))
        usage("race-only recordings are made with -log -min, not -only");
    if ((o->live || o->live_wait) && (o->mode == PANGAEA_NONE || !o->live))
        usage("-live needs -log or -replay, and -live-wait needs -live");
    if (o->hold && !o->live)
        usage("-hold needs -live: the tasks wait until the live page (or its "
              "HTTP API) lets them go on");
    if (top_debug_misuse(o->mode, NULL)) /* -stop, -debug: debug.c */
        usage(top_debug_misuse(o->mode, NULL));
}

/* The command line of a run: -log, -replay, -none, -whatif, -replay
 * -pack.  Exits with the usage on anything wrong. */
static void parse(int argc, char **argv, struct top_opts *o)
{
    static struct parsed p;
    pg_err err;
    int i;

    memset(o, 0, sizeof *o);
    p.logdir = default_logdir;
    for (i = 1; i < argc && argv[i][0] == '-'; i++)
        parse_option(argc, argv, &i, o, &p);
    check_together(o, i < argc);
    if (o->pack) { /* the program and the logs come from the pack */
        if (o->mode != PANGAEA_REPLAY)
            usage("-pack FILE goes with -replay (to make a pack: "
                  "pangaea -pack -o FILE)");
        take_args(o, &argv[i]);
        o->pack_dir = p.logdir == default_logdir ? NULL : p.logdir;
        return;
    }
    if (i >= argc)
        usage("missing program");
    resolve_program(argv[i], o->program);
    take_args(o, &argv[i + 1]);
    if (p.whatif) { /* logdir is the recording forked; newdir the new one */
        if (top_whatif_parse(o, p.logdir, p.newdir, sizeof p.newdir, &err) < 0)
            refused(&err);
        p.logdir = p.newdir;
    } else if (p.newdir[0])
        usage("-o goes with -whatif");
    logdir_path(o, p.logdir);
    if (top_debug_misuse(o->mode, o->logdir))
        usage(top_debug_misuse(o->mode, o->logdir));
}

/* Where the coordinator and the library are (paths.c). */
static void self_dir(char *out, size_t size)
{
    snprintf(out, size, "%s", top_libexec_dir());
}

/* A recording gets an identity of its own, which every log of it names
 * in its header (a log copied in from another recording is refused by
 * every reader): random, or, should the kernel give no random numbers,
 * made of the time and our pid. */
static void recording_id(const struct top_opts *o)
{
    char id[PG_LOG_RECORDING_MAX + 1];

    if (o->mode != PANGAEA_LOG)
        return;
    if (pg_log_recording_new(id, sizeof id) < 0)
        snprintf(id, sizeof id, "%08lx%08x", (unsigned long)time(NULL),
                 (unsigned)getpid());
    setenv(PG_ENV_RECORDING, id, 1);
    pg_log_recording_set(id);
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
    recording_id(o);
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

/* The coordinator numbers new tasks from after the recording a what-if
 * follows (wrap_spawn.c); a recording's from 2 (ltid 1 is our child). */
static int start_coordinator(const struct top_opts *o, const char *dir, int ctx)
{
    char path[PATH_MAX + 32], arg[16], first[16];
    char *argv[] = { arg, first, NULL };
    int tid, max = top_recorded_ltid_max();

    snprintf(path, sizeof path, "%s/pangaea-coord", dir);
    snprintf(arg, sizeof arg, "%d", ctx);
    snprintf(first, sizeof first, "%d", max > 1 ? max + 1 : 2);
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
 * one moves (here: the directory; after joining PVM: the hosts); then it
 * moves, or goes if it failed (begin_logs). */
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
        if (pg_logdir_incomplete(o->logdir))
            fprintf(stderr, "pangaea: the recording in %s did not end well "
                    "(its logs may stop early): replaying what it holds\n",
                    o->logdir);
    } else if (top_logdir_check(o->logdir, &err) < 0)
        fail(TOP_EXIT_USAGE, "%s", err.msg);
}

static int begin_logs(const struct top_opts *o, pg_err *err)
{
    return o->mode == PANGAEA_LOG ? top_logdir_begin(o->logdir, err) : 0;
}

/* -host and -coordhost of a recording (or -none) name hosts of the virtual
 * machine: checked before the last recording moves.  A replay's hosts are
 * the recording's (hostcheck.c adds them). */
static int check_named_hosts(const struct top_opts *o, pg_err *err)
{
    const char *h[2] = { o->host, o->coordhost };
    const char *what[2] = { "-host", "-coordhost" };
    int i;

    for (i = 0; i < 2 && o->mode != PANGAEA_REPLAY; i++)
        if (h[i] && !top_host_in_vm(h[i]))
            return pg_err_set(err, "%s %s: no host of that name in the "
                              "virtual machine (add it first, e.g. with "
                              "the pvm console's add %s); nothing was "
                              "started or moved", what[i], h[i], h[i]);
    return 0;
}

/* Closes our own logs; a recording is complete only when every log was
 * written whole and the run was not cut short. */
static int finish_recording(const struct top_opts *o, int status)
{
    pg_err err;

    if (pg_record_close(status) < 0) {
        fprintf(stderr, "pangaea: the recording in %s is incomplete\n",
                o->logdir);
        return status ? status : TOP_EXIT_FAILED;
    }
    if (!top_run_broken && top_logdir_complete(o->logdir, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return status ? status : TOP_EXIT_FAILED;
    }
    return status;
}

/* A mode that runs from its command line alone (options.def's entry
 * column: the viewers, -move, -pack, -explore, ...): its exit status, or
 * -1 when argv[1] is a run that parse() reads. */
static int run_alone(int argc, char **argv)
{
    const struct mode *m = argc > 1 ? find_mode(argv[1]) : NULL;

    if (!m || !m->entry)
        return -1;
    if (m->traits & TOP_MODE_LOGDIR)
        argc = logdir_as_arg(argc, argv);
    /* untrusted.c: a log's strings print escaped; stdout too for the
     * modes that print what logs hold (a binary trace's bytes are data,
     * not text: postmortem.c) */
    top_safe_output((m->traits & TOP_MODE_TEXT) &&
                    !top_is_binary_export(argc, argv));
    return m->entry(argc, argv);
}

/* The end of a run that started nothing yet, or whose start failed: what
 * it started goes (the coordinator, a private pvmd), err is said, and the
 * status returned. */
static int abandon(int status, const pg_err *err)
{
    fprintf(stderr, "pangaea: %s\n", err->msg);
    if (run.coord > 0)
        pvm_kill(run.coord);
    pg_top_off();
    top_daemon_release(run.started);
    return status;
}

/* Joined to PVM: the checks that need it, made before anything starts or
 * the last recording moves (hosts, the what-if's plan, the live page). */
static int check_with_pvm(struct top_opts *o, pg_err *err)
{
    if (top_debug_pvmd(run.started, err) < 0)
        return TOP_EXIT_USAGE;
    top_debug_say();
    if (check_named_hosts(o, err) < 0)
        return TOP_EXIT_FAILED;
    if ((o->mode == PANGAEA_REPLAY && top_check_hosts(o, err) < 0) ||
        begin_logs(o, err) < 0 ||
        (o->whatif && top_whatif_start(o, err) < 0))
        return TOP_EXIT_USAGE;
    if (top_live_follow(o, err) < 0) /* live.c: before any task */
        return TOP_EXIT_USAGE;
    return 0;
}

/* The coordinator, then the program as ltid 1 (its tid in *tid); 0, or
 * the exit status with err set. */
static int start_tasks(struct top_opts *o, const char *dir, int *ctx,
                       int *tid, pg_err *err)
{
    *ctx = pvm_newcontext();
    pvm_setopt(PvmOutputTid, pvm_mytid());
    pvm_setopt(PvmOutputCode, PG_TAG_OUTPUT);
    pvm_setopt(PvmOutputContext, *ctx);
    run.coord = start_coordinator(o, dir, *ctx);
    if (run.coord < 0)
        return pg_err_set(err, "cannot start the coordinator "
                          "%s/pangaea-coord%s%s (pvm_spawn: %s, %d)", dir,
                          o->coordhost ? " on host " : "",
                          o->coordhost ? o->coordhost : "",
                          pg_pvm_strerror(run.coord), run.coord),
               TOP_EXIT_FAILED;
    task_env(o, dir, *ctx, run.coord);
    if (top_stdin_begin(o, err) < 0) /* stdin_fwd.c: ltid 1's stdin */
        return TOP_EXIT_FAILED;
    pg_set_top(o->mode, *ctx, run.coord, o->logdir);
    if (pvm_spawn(o->program, o->args, o->host ? PvmTaskHost : PvmTaskDefault,
                  (char *)(o->host ? o->host : ""), 1, tid) != 1) {
        pg_err_set(err, "cannot start %s%s%s (pvm_spawn: %s, %d)",
                   o->program, o->host ? " on host " : "",
                   o->host ? o->host : "", pg_pvm_strerror(*tid), *tid);
        pg_record_close(TOP_EXIT_FAILED);
        return TOP_EXIT_FAILED;
    }
    return 0;
}

/* After the run: the recording closed (and made race-only with -min),
 * the what-if's or the recording's last words. */
static int end_run(struct top_opts *o, int status)
{
    pg_err err;

    if (o->mode == PANGAEA_LOG)
        status = finish_recording(o, status);
    pg_top_off(); /* our own end is not a task's end */
    top_daemon_release(run.started);
    if (o->min && !pg_logdir_incomplete(o->logdir) &&
        top_min_dir(o->logdir, &err) < 0) { /* minimize.c */
        fprintf(stderr, "pangaea: -min: %s (the recording stays whole)\n",
                err.msg);
        status = status ? status : TOP_EXIT_FAILED;
    }
    if (o->whatif)
        status = top_whatif_done(o, status);
    else if (o->mode == PANGAEA_LOG && status == 0)
        fprintf(stderr, "pangaea: recorded in %s\n", o->logdir);
    top_live_finish(status); /* -live-wait: the page stays until the user is done */
    return status;
}

/* -log, -replay, -none and -whatif of a PVM program: checked, started,
 * watched (monitor.c), ended. */
static int run_program(struct top_opts *o)
{
    char dir[PATH_MAX];
    int ctx, tid, status;
    pg_err err;

    if (o->pack && top_unpack(o, &err) < 0) /* unpack.c */
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    if (o->pack && top_is_mpi_launcher(o->program)) { /* an MPI run's pack */
        o->live_hooks = &top_live_hooks;
        return top_mpi_run(o);
    }
    if (top_live_start(o, &err) < 0) { /* live.c: a port in use moves nothing */
        if (made_logdir)
            rmdir(o->logdir); /* made just now, empty: nothing is left */
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    }
    self_dir(dir, sizeof dir);
    if (o->whatif && top_whatif_check(o, &err) < 0) { /* whatif.c */
        if (made_logdir)
            rmdir(o->logdir); /* made just now, empty: nothing is left */
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    }
    prepare_logs(o);
    if (top_workdir(o, &err) < 0) /* runenv.c: where the tasks start */
        fail(TOP_EXIT_USAGE, "%s", err.msg);
    pg_top_end = end_on_fatal;
    top_debug_env(dir); /* before a pvmd of ours starts: PVM_DEBUGGER */
    if (top_daemon_connect(&run.started, &err) < 0)
        fail(TOP_EXIT_FAILED, "%s", err.msg);
    run.ready = 1;
    if ((status = check_with_pvm(o, &err)) ||
        (status = start_tasks(o, dir, &ctx, &tid, &err)))
        return abandon(status, &err);
    return end_run(o, top_monitor(o, ctx, run.coord, tid));
}

int main(int argc, char **argv)
{
    struct top_opts o;
    int status = run_alone(argc, argv);

    if (status >= 0)
        return status;
    top_safe_output(0); /* stderr: a run's stdout is the program's */
    parse(argc, argv, &o);
    if (top_is_mpi_launcher(o.program)) { /* mpi_run.c: no pvmd */
        o.live_hooks = &top_live_hooks; /* -live, driven from there */
        return top_mpi_run(&o);
    }
    return run_program(&o);
}
