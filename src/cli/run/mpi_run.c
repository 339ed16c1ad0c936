/*
 * mpi_run.c - `pangaea -log|-replay|-none LAUNCHER args...`: a run of an
 * MPI program, as its user starts it (mpiexec -n 4 ./prog).
 *
 * Design.  The program pangaea is given is an MPI launcher (the table
 * below, by the file its name resolves to: Debian's mpiexec and mpirun
 * are links to one MPI's launcher).  No pvmd and no coordinator: the
 * launcher starts the ranks, and pangaea puts the PMPI library of the
 * launcher's MPI (libpangaea-mpich.so or libpangaea-openmpi.so, beside
 * libpangaea.so; src/mpi/) into every rank through the launcher's own
 * environment passing (hydra's -genv NAME VALUE, Open MPI's -x
 * NAME=VALUE: these reach ranks on other hosts too, and leave the
 * launcher itself unpreloaded), with the mode and the log directory
 * (pg_mpi_env.h).  The log directory is used as in a PVM run: locked, the
 * last good recording kept in previous/, marked complete once every
 * rank's communication log ends well and its receives name their sends
 * as in every Pangaea log (mpi_ids.c), the launcher's line kept for a
 * pack (mpi_launch.c), and made race-only with -min (minimize.c).  A
 * replay passes -stop's and -debug's events (mpi_stop.c) and a pack's
 * programs to the ranks the same way.  pangaea's exit status is the
 * launcher's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_live.h"
#include "pg_log.h"
#include "pg_mpi_env.h"
#include "top.h"

/* The launchers pangaea knows, by the name of the file they resolve to. */
static const struct launcher {
    const char *file, *mpi, *lib;
    int genv; /* 1: -genv NAME VALUE (hydra); 0: -x NAME=VALUE (Open MPI) */
} launchers[] = {
    { "mpiexec.hydra", "MPICH", "libpangaea-mpich.so", 1 },
    { "mpiexec.mpich", "MPICH", "libpangaea-mpich.so", 1 },
    { "mpirun.mpich", "MPICH", "libpangaea-mpich.so", 1 },
    { "orterun", "Open MPI", "libpangaea-openmpi.so", 0 },
    { "mpiexec.openmpi", "Open MPI", "libpangaea-openmpi.so", 0 },
    { "mpirun.openmpi", "Open MPI", "libpangaea-openmpi.so", 0 },
};

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

static const struct launcher *launcher_of(const char *program)
{
    size_t i;

    for (i = 0; i < sizeof launchers / sizeof *launchers; i++)
        if (!strcmp(base_of(program), launchers[i].file))
            return &launchers[i];
    return NULL;
}

int top_is_mpi_launcher(const char *program)
{
    const char *b = base_of(program);

    /* another MPI's mpiexec is named, not run as a PVM program */
    return launcher_of(program) || !strcmp(b, "mpiexec") ||
           !strcmp(b, "mpirun") || !strncmp(b, "mpiexec.", 8) ||
           !strncmp(b, "mpirun.", 7);
}

/* What an MPI run does not do yet: said rather than ignored. */
static const char *unsupported(const struct top_opts *o)
{
    return o->only[0]  ? "-only"
           : top_debug_given() ? top_debug_given()
           : o->pack && o->mode != PANGAEA_REPLAY ? "-pack"
           : o->host     ? "-host"
           : o->coordhost ? "-coordhost"
           : o->cwd_recorded ? "-cwd recorded"
           : o->addhosts ? "-addhosts"
                         : NULL;
}

/* Whether the log at path is race-only (pangaea -min, minimize.c): the
 * ranks then follow it so (src/mpi/mpi_log.c). */
static int race_only(const char *path)
{
    pg_log_header h;
    pg_logr *r;
    pg_err err;
    int yes;

    if (!(r = pg_logr_open(path, PG_LOG_COMM, &h, &err)))
        return 0; /* the rank says what is wrong with it */
    yes = pg_log_race_only(h.select);
    pg_logr_close(r);
    return yes;
}

/* The log directory, as a PVM run uses it (logdir.c). */
static int prepare(const struct top_opts *o, pg_err *err)
{
    char path[PATH_MAX + 64];

    if (o->mode == PANGAEA_NONE)
        return 0;
    if (top_logdir_lock(o->logdir, o->mode == PANGAEA_REPLAY, err) < 0)
        return -1;
    if (o->mode == PANGAEA_LOG)
        return top_logdir_check(o->logdir, err) < 0 ||
                       top_logdir_begin(o->logdir, err) < 0
                   ? -1
                   : 0;
    pg_log_path(path, sizeof path, o->logdir, 0, PG_LOG_EXEC);
    if (access(path, F_OK) == 0)
        return pg_err_set(err, "the recording in %s is a PVM run's (it has "
                          "%s): replay it without the MPI launcher",
                          o->logdir, path);
    pg_log_path(path, sizeof path, o->logdir, 1, PG_LOG_COMM);
    if (access(path, F_OK) < 0)
        return pg_logdir_incomplete(o->logdir)
                   ? pg_err_set(err, "nothing to replay in %s: the recorded "
                                "run failed before rank 0 began its log (no "
                                "%s; %s marks the recording as one that did "
                                "not end well), and a replay needs every "
                                "rank's log", o->logdir, path,
                                PG_LOGDIR_INCOMPLETE)
                   : pg_err_set(err, "no recording to replay in %s (no %s)",
                                o->logdir, path);
    if (pg_logdir_incomplete(o->logdir))
        fprintf(stderr, "pangaea: the recording in %s did not end well (its "
                "logs may stop early): replaying what it holds\n", o->logdir);
    if (race_only(path))
        fprintf(stderr, "pangaea: replaying a race-only recording (pangaea "
                "-min): racing receives take their recorded messages, the "
                "others the one message each can take\n");
    return 0;
}

/* One NAME=VALUE for every rank, the launcher's way. */
static void pass_env(const struct launcher *l, char **argv, int *n,
                     const char *name, const char *value)
{
    if (l->genv) {
        argv[(*n)++] = "-genv";
        argv[(*n)++] = strdup(name);
        argv[(*n)++] = strdup(value);
    } else {
        argv[(*n)++] = "-x";
        if (asprintf(&argv[(*n)++], "%s=%s", name, value) < 0)
            argv[*n - 1] = NULL;
    }
}

/* -live (live.c's side, through top.h's hooks: it is a layer above). */
static int live_on(const struct top_opts *o)
{
    return o->live && o->live_hooks;
}

/* What ranks that ended the run left (pg_mpi_env.h): each said, in the
 * order of their ltids (and shown on the live page), and removed with the
 * directory; the status of the first, or 0 if none. */
static int say_note(const struct top_opts *o, const char *dir, int ltid)
{
    char path[PATH_MAX + 64], text[1200];
    int code, n;
    FILE *f;

    snprintf(path, sizeof path, "%s/" PGM_NOTE_NAME, dir, ltid);
    if (!(f = fopen(path, "r")))
        return 0;
    n = (int)fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    text[n > 0 ? n : 0] = 0;
    if (sscanf(text, "%d", &code) != 1 || !strchr(text, '\n'))
        return 0;
    fputs(strchr(text, '\n') + 1, stderr);
    if (live_on(o))
        o->live_hooks->rank_note(ltid, code == TOP_EXIT_DIVERGED,
                                 strchr(text, '\n') + 1);
    return code;
}

static int by_value(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

static int read_notes(const struct top_opts *o, const char *dir)
{
    char path[PATH_MAX + 64];
    int *ltids = NULL, n = 0, i, ltid, status = 0, code;
    size_t cap = 0;
    struct dirent *e;
    DIR *d = opendir(dir);

    while (d && (e = readdir(d)))
        if (sscanf(e->d_name, PGM_NOTE_NAME, &ltid) == 1 &&
            pg_grow(&ltids, &cap, (size_t)n + 1, sizeof *ltids) == 0)
            ltids[n++] = ltid;
    if (d)
        closedir(d);
    if (n > 1)
        qsort(ltids, (size_t)n, sizeof *ltids, by_value);
    for (i = 0; i < n; i++)
        if ((code = say_note(o, dir, ltids[i])) && !status)
            status = code;
    free(ltids);
    snprintf(path, sizeof path, "%s/" PGM_SPAWNS_NAME, dir); /* mpi_spawn.c */
    unlink(path);
    rmdir(dir);
    return status;
}

/* -replay -debug: what top_debug_env (debug.c) set for a PVM run's tasks,
 * given to the ranks (mpi_stop.c: the -debug rank has gdb attached). */
static void pass_debug(const struct launcher *l, char **argv, int *n)
{
    static const char *const names[] = { PGM_ENV_DEBUG, PGM_ENV_TMUX,
                                         PGM_ENV_TOP_PID, PGM_ENV_DEBUGGER };
    const char *v = getenv(PGM_ENV_DEBUG);
    size_t i;

    if (!v || !*v)
        return;
    for (i = 0; i < sizeof names / sizeof *names; i++)
        if ((v = getenv(names[i])))
            pass_env(l, argv, n, names[i], v);
}

/* -live: where the ranks' pages are, and -hold (live.c, live_ctl.c set
 * them for pangaea's own environment; src/mpi/mpi_gate.c reads them). */
static void pass_live(const struct launcher *l, char **argv, int *n)
{
    static const char *const names[] = { PG_ENV_LIVE, PG_ENV_HOLD };
    const char *v;
    size_t i;

    for (i = 0; i < sizeof names / sizeof *names; i++)
        if ((v = getenv(names[i])) && *v)
            pass_env(l, argv, n, names[i], v);
}

/* launcher [env passing] the user's arguments. */
static char **launcher_argv(const struct top_opts *o,
                            const struct launcher *l, const char *lib,
                            const char *notes, const char *plan)
{
    static const char *modes[] = { "", "none", "log", "replay" };
    const char *pre = getenv("LD_PRELOAD"), *chaos = getenv(PGM_ENV_CHAOS);
    char **argv, *preload;
    int n = 0, k;

    for (k = 0; o->args[k]; k++)
        ;
    if (!(argv = calloc((size_t)k + 40, sizeof *argv)) ||
        asprintf(&preload, "%s%s%s", lib, pre && *pre ? ":" : "",
                 pre ? pre : "") < 0)
        return NULL;
    argv[n++] = (char *)o->program;
    if (o->mode != PANGAEA_NONE) {
        pass_env(l, argv, &n, "LD_PRELOAD", preload);
        pass_env(l, argv, &n, PGM_ENV_MODE, *plan ? "whatif" : modes[o->mode]);
        pass_env(l, argv, &n, PGM_ENV_LOGDIR, o->logdir);
        pass_env(l, argv, &n, PGM_ENV_NOTES, notes);
        if (*plan) /* a what-if run (mpi_whatif.c) */
            pass_env(l, argv, &n, PGM_ENV_WHATIF, plan);
        if (chaos && *chaos && o->mode == PANGAEA_LOG) /* -chaos's seed */
            pass_env(l, argv, &n, PGM_ENV_CHAOS, chaos);
        if (*top_debug_stops()) /* -replay -stop (mpi_stop.c) */
            pass_env(l, argv, &n, PGM_ENV_STOP, top_debug_stops());
        pass_debug(l, argv, &n);
        if (o->pack && getenv(PGM_ENV_PROGDIR)) /* unpack.c: its programs */
            pass_env(l, argv, &n, PGM_ENV_PROGDIR, getenv(PGM_ENV_PROGDIR));
        if (live_on(o))
            pass_live(l, argv, &n);
    }
    memcpy(&argv[n], o->args, (size_t)k * sizeof *argv);
    return argv;
}

/* A signal that ends pangaea (a timeout's TERM) ends the launcher too,
 * which ends its ranks: nothing of the run is left behind. */
static volatile pid_t launched;

static void forward(int sig)
{
    if (launched > 0)
        kill(launched, sig);
}

static void forward_signals(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    size_t i;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigemptyset(&sa.sa_mask);
    for (i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

static int launch(char **argv)
{
    int status;
    pid_t pid = fork();

    if (pid == 0) {
        execv(argv[0], argv);
        fprintf(stderr, "pangaea: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    if (pid < 0)
        return fprintf(stderr, "pangaea: cannot start %s: %s\n", argv[0],
                       strerror(errno)),
               TOP_EXIT_FAILED;
    launched = pid;
    forward_signals();
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return TOP_EXIT_FAILED;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Says the ltids that have no log though a later one has (ids: the n
 * that have, sorted): ranks of a run whose logs are whole that wrote none
 * (rank 2 of 4 calling PMPI_Init), which a replay refuses. */
static void say_gaps(const struct top_opts *o, const int *ids, int n)
{
    char path[PATH_MAX + 64];
    int i, ltid;

    for (i = 0, ltid = 1; i < n; ltid++) {
        if (ids[i] == ltid) {
            i++;
            continue;
        }
        pg_log_path(path, sizeof path, o->logdir, ltid, PG_LOG_COMM);
        fprintf(stderr, "pangaea: the recording in %s has no log of ltid %d "
                "(no %s), though later ltids have theirs: its MPI calls did "
                "not reach Pangaea's library, and a replay of this recording "
                "will refuse it\n", o->logdir, ltid, path);
    }
}

/* Every rank's communication log read to its end: the number of ranks
 * (the highest ltid: one that wrote no log is a rank too), or -1 (said)
 * when one stops early (its rank died) or none is there; failed: the
 * launcher's status. */
static int whole(const struct top_opts *o, int failed)
{
    char path[PATH_MAX + 64];
    int *ids, n = top_log_ltids(o->logdir, 0, &ids), i, bad = 0;
    long events;
    pg_err err;

    for (i = 0; i < n && !bad; i++) {
        pg_log_path(path, sizeof path, o->logdir, ids[i], PG_LOG_COMM);
        if (pg_log_check_cut(path, PG_LOG_COMM, &events, &err) != 0) {
            fprintf(stderr, "pangaea: the recording in %s is incomplete: %s "
                    "stops early or is bad\n", o->logdir, path);
            bad = 1;
        }
    }
    if (!bad && n > 0)
        say_gaps(o, ids, n);
    i = n > 0 ? ids[n - 1] : n;
    free(ids);
    if (n <= 0 && !bad && failed)
        fprintf(stderr, "pangaea: the recording in %s holds no rank's log: "
                "the run failed (the launcher's exit status %d) before any "
                "rank began its log\n", o->logdir, failed);
    else if (n <= 0 && !bad)
        fprintf(stderr, "pangaea: the recording in %s holds no rank's log: "
                "did the launcher start the program?\n", o->logdir);
    return bad || n <= 0 ? -1 : i;
}

/* The receives renumbered (mpi_ids.c: a cut log too, for the views); the
 * recording marked complete if every log was whole before (status: the
 * launcher's, for whole's words).  The number of ranks, or -1 (said). */
static int seal(const struct top_opts *o, int status)
{
    int n = whole(o, status);
    pg_err err;

    if (top_mpi_renumber(o->logdir, &err) < 0) {
        fprintf(stderr, "pangaea: the recording in %s is incomplete: %s\n",
                o->logdir, err.msg);
        return -1;
    }
    if (n > 0 && top_logdir_complete(o->logdir, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return -1;
    }
    if (n > 0) /* for a pack (mpi_launch.c) */
        top_mpi_launch_write(o);
    return n;
}

/* -live: the page follows the logs once the directory is ready. */
static int live_begin(const struct top_opts *o, pg_err *err)
{
    return live_on(o) ? o->live_hooks->follow(o, err) : 0;
}

/* -live: the run is over (-live-wait: the page stays until the user is
 * done); pangaea's status. */
static int live_end(const struct top_opts *o, int status)
{
    if (live_on(o))
        o->live_hooks->finish(status);
    return status;
}

int top_mpi_run(struct top_opts *o)
{
    const struct launcher *l = launcher_of(o->program);
    char lib[PATH_MAX + 64], **argv, plan[PATH_MAX + 32] = "";
    const char *opt = unsupported(o);
    const char *tmp = getenv("TMPDIR");
    char notes[PATH_MAX];
    int status, n, noted;
    pg_err err;

    snprintf(notes, sizeof notes, "%s/pangaea-mpi.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");

    if (!l) {
        fprintf(stderr, "pangaea: %s looks like an MPI launcher, but not "
                "MPICH's (mpiexec.hydra) or Open MPI's (orterun), the ones "
                "Pangaea knows\n", o->program);
        return TOP_EXIT_USAGE;
    }
    if (opt) {
        fprintf(stderr, "pangaea: %s is not available for MPI runs yet "
                "(%s's launcher %s)\n", opt, l->mpi, o->program);
        return TOP_EXIT_USAGE;
    }
    snprintf(lib, sizeof lib, "%s/%s", top_libexec_dir(), l->lib);
    if (o->mode != PANGAEA_NONE && access(lib, R_OK) < 0) {
        fprintf(stderr, "pangaea: %s is %s's launcher, but Pangaea was built "
                "without %s's library (%s: %s; build it with %s's compiler "
                "installed: scripts/install-deps.sh test, then make)\n",
                o->program, l->mpi, l->mpi, lib, strerror(errno), l->mpi);
        return TOP_EXIT_FAILED;
    }
    if (!live_on(o)) { /* a what-if the page started: its ranks go free */
        unsetenv(PG_ENV_LIVE);
        unsetenv(PG_ENV_HOLD);
    }
    /* the live server first: a port in use moves nothing */
    if ((o->whatif && top_mpi_whatif_check(o, &err) < 0) ||
        (live_on(o) && o->live_hooks->start(o, &err) < 0) ||
        prepare(o, &err) < 0 ||
        (o->whatif && top_mpi_whatif_write(o, plan, sizeof plan, &err) < 0)) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_USAGE;
    }
    if (live_begin(o, &err) < 0) {
        fprintf(stderr, "pangaea: %s\n", err.msg);
        return TOP_EXIT_USAGE;
    }
    if (!mkdtemp(notes)) {
        fprintf(stderr, "pangaea: cannot make a directory %s: %s\n", notes,
                strerror(errno));
        return TOP_EXIT_FAILED;
    }
    if (o->mode == PANGAEA_REPLAY) { /* -debug (mpi_stop.c) */
        top_debug_env(top_libexec_dir());
        top_debug_say();
    }
    if (!(argv = launcher_argv(o, l, lib, notes, plan)))
        return fprintf(stderr, "pangaea: out of memory\n"), TOP_EXIT_FAILED;
    status = launch(argv);
    noted = read_notes(o, notes);
    status = noted ? noted : status;
    if (live_on(o)) /* the page's last reading, before the renumbering */
        o->live_hooks->ranks_ended(o->logdir, status);
    if (o->mode != PANGAEA_LOG)
        return live_end(o, status);
    n = seal(o, status);
    if (n > 0 && o->min && top_min_dir(o->logdir, &err) < 0) {
        fprintf(stderr, "pangaea: -min: %s (the recording stays whole)\n",
                err.msg); /* minimize.c: race-only logs */
        status = status ? status : TOP_EXIT_FAILED;
    }
    if (n < 0)
        status = status ? status : TOP_EXIT_FAILED;
    else if (status == 0)
        fprintf(stderr, "pangaea: recorded in %s (an MPI run: %s, %d "
                "rank%s)\n", o->logdir, l->mpi, n, n == 1 ? "" : "s");
    return live_end(o, o->whatif && o->whatif_done ? o->whatif_done(o, status)
                                                   : status);
}
