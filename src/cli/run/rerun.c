/*
 * rerun.c - running `pangaea` itself again, for -explore and -chaos.
 *
 * Design.  Each run of a driver is a whole `pangaea -log` or `-whatif`
 * in a child process (fork, exec of /proc/self/exe): it gets its own PVM
 * enrolment, coordinator, lock and log directory, and whatever goes wrong
 * in it (a crash, a stall, a pvmd it had to start) is contained and
 * cleaned up by the code every run already has.  The child's stdout (the
 * tasks' output) and stderr go to files beside its recording; stdout is
 * hashed (FNV-1a, 64 bits) to tell outputs apart.  A run that outlives
 * its time limit gets SIGINT (pangaea then stops its run cleanly), and
 * SIGKILL if it still has not ended 30 s later.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rerun.h"
#include "pg_err.h"

static void nap_ms(int ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

    nanosleep(&t, NULL);
}

/* Waits for pid up to ms milliseconds: 1 and *status when it ended. */
static int wait_for(pid_t pid, int ms, int *status)
{
    int waited;

    for (waited = 0; waited <= ms; waited += 50) {
        pid_t r = waitpid(pid, status, WNOHANG);

        if (r == pid || (r < 0 && errno != EINTR))
            return 1;
        nap_ms(50);
    }
    return 0;
}

static void child(char *const argv[], const char *out, const char *err)
{
    /* In the run's log directory: no link followed, the user's alone. */
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    sigset_t none;

    /* Started from a thread that blocks signals (the live view's): the
     * child run must take Ctrl-C and SIGTERM again. */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
        _exit(127);
    close(fo), close(fe);
    execv("/proc/self/exe", argv);
    _exit(127);
}

static void hash_file(const char *path, char hash[17])
{
    unsigned long long h = 1469598103934665603ULL;
    FILE *f = fopen(path, "r");
    int c;

    if (f) {
        while ((c = getc(f)) != EOF)
            h = (h ^ (unsigned char)c) * 1099511628211ULL;
        fclose(f);
    }
    snprintf(hash, 17, "%016llx", h);
}

int top_rerun(char *const argv[], const char *out, const char *err,
              int limit_s, struct top_rerun_result *run)
{
    int status = 0;
    pid_t pid;

    memset(run, 0, sizeof *run);
    fflush(stdout), fflush(stderr);
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0)
        child(argv, out, err);
    if (!wait_for(pid, limit_s * 1000, &status)) {
        run->timed_out = 1;
        kill(pid, SIGINT);
        if (!wait_for(pid, 30000, &status)) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
        }
    }
    run->status = WIFEXITED(status) ? WEXITSTATUS(status)
                                    : 128 + WTERMSIG(status);
    hash_file(out, run->hash);
    return 0;
}

/* The first line of path that says how a run went wrong, or "". */
void top_rerun_why(const char *path, char *buf, size_t size)
{
    static const char *keys[] = { "died of", "diverged", "stalled",
                                  "ended abnormally", "fatal", NULL };
    char line[1024];
    FILE *f = fopen(path, "r");
    int i;

    buf[0] = 0;
    if (!f)
        return;
    while (!buf[0] && fgets(line, sizeof line, f))
        for (i = 0; keys[i]; i++)
            if (strstr(line, keys[i])) {
                line[strcspn(line, "\n")] = 0;
                snprintf(buf, size, "%s", line);
                break;
            }
    fclose(f);
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int top_rerun_remove(const char *dir)
{
    return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- the drivers' options ------------------------------------------------ */

/* The synopsis of the driver's mode, from the command-line table. */
static const char *driver_synopsis(const char *what)
{
#define PG_MODE(flag, entry, traits, usage, summary)                       \
    if (!strcmp(what, flag))                                               \
        return usage;
#include "options.def"
#undef PG_MODE
    return "";
}

static int driver_usage(const char *what, const char *why, pg_err *err)
{
    return pg_err_set(err, "%s: %s\nusage: pangaea %s", what, why,
                      driver_synopsis(what));
}

static int positive(const char *what, const char *opt, const char *s, int *v,
                    pg_err *err)
{
    char *end, why[128];
    long n = strtol(s, &end, 10);

    if (*end || end == s || n < 1 || n > 100000) {
        snprintf(why, sizeof why, "%s wants a number from 1 to 100000, not "
                 "\"%.40s\"", opt, s);
        return driver_usage(what, why, err);
    }
    *v = (int)n;
    return 0;
}

/* The option at argv[i] (its argument, if any, at i + 1) into d: the
 * number of arguments it took, or -1. */
static int driver_opt(int argc, char **argv, int i, const char *what,
                      struct top_driver *d, pg_err *err)
{
    int chaos = !strcmp(what, "-chaos"), more = i + 1 < argc;
    const char *o = argv[i], *a = more ? argv[i + 1] : "";
    char why[256], *end;
    int *num = !more                         ? NULL
               : !strcmp(o, "-runs")          ? &d->runs
               : !strcmp(o, "-timeout")       ? &d->timeout
               : !chaos && !strcmp(o, "-jobs")  ? &d->jobs
               : !chaos && !strcmp(o, "-depth") ? &d->depth : NULL;

    if (num)
        return positive(what, o, a, num, err) < 0 ? -1 : 2;
    if (more && !strcmp(o, "-logdir"))
        return d->logdir = a, 2;
    if (!chaos && !strcmp(o, "-resume"))
        return d->resume = 1, 1;
    if (!chaos && more && !strcmp(o, "-until") &&
        (!strcmp(a, "crash") || !strcmp(a, "output")))
        return d->until_output = !strcmp(a, "output"), 2;
    if (chaos && more && !strcmp(o, "-seed")) {
        d->seed = strtoll(a, &end, 10);
        if (*end || end == a || d->seed < 0)
            return driver_usage(what, "-seed wants a number, 0 or more", err);
        return d->have_seed = 1, 2;
    }
    snprintf(why, sizeof why, "unknown or incomplete option %.100s", o);
    return driver_usage(what, why, err);
}

int top_driver_opts(int argc, char **argv, const char *what,
                    struct top_driver *d, pg_err *err)
{
    int i, n;

    memset(d, 0, sizeof *d);
    d->runs = 20, d->depth = 3, d->timeout = 120;
    d->jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (d->jobs < 1)
        d->jobs = 1;
    d->logdir = !strcmp(what, "-chaos") ? "chaos" : "explore";
    for (i = 2; i < argc && argv[i][0] == '-'; i += n)
        if ((n = driver_opt(argc, argv, i, what, d, err)) < 0)
            return -1;
    if (i >= argc)
        return driver_usage(what, "missing program", err);
    d->prog = &argv[i];
    return 0;
}

int top_driver_dir(const struct top_driver *d, const char *first, pg_err *err)
{
    char path[4200];

    if (mkdir(d->logdir, 0700) < 0 && errno != EEXIST) /* logs: 0700 */
        return pg_err_set(err, "cannot make %s: %s", d->logdir,
                          strerror(errno));
    if (d->resume) { /* explore.c reads where it stopped */
        snprintf(path, sizeof path, "%s/explore.state", d->logdir);
        if (access(path, R_OK) == 0)
            return 0;
        return pg_err_set(err, "-explore -resume: %s holds no exploration "
                          "to go on with (no %s)", d->logdir, path);
    }
    snprintf(path, sizeof path, "%s/%s", d->logdir, first);
    if (access(path, F_OK) == 0)
        return pg_err_set(err, "%s holds the runs of an earlier %s: remove "
                          "it or give another -logdir", d->logdir,
                          first[0] == 'r' ? "-explore" : "-chaos");
    return 0;
}

void top_driver_replay_cmd(FILE *f, const struct top_driver *d,
                           const char *dir)
{
    int i;

    fprintf(f, "pangaea -replay -logdir %s", dir);
    for (i = 0; d->prog[i]; i++)
        fprintf(f, " %s", d->prog[i]);
    fprintf(f, "\n");
}
