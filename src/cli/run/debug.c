/*
 * debug.c - the top-level side of debugging a replay: the options
 * `-stop LTID:EVENT` (any number) and `-debug LTID[:EVENT]` (one), what
 * they tell the tasks, and the pvmd they need.
 *
 * Design.  The tasks learn their stop events from the environment every
 * task inherits (PANGAEA_STOP, PANGAEA_DEBUG: PVM_EXPORT carries them) and
 * stop themselves (src/pvm/runtime/stop.c); the monitor counts a task held while it
 * says so, and the -debug task throughout (top_debug_held), so no stall is
 * reported for it or for the tasks waiting for it.  -debug goes through
 * PVM's own hook: the spawn of that ltid asks for PvmTaskDebug, and the
 * pvmd then runs $PVM_DEBUGGER from ITS environment, which must be our
 * pangaea-debugger script.  A pvmd pangaea starts inherits it from us; a
 * pvmd already running is looked at in /proc (its pid is in its socket's
 * name, pvmtmpPID.N) and refused, with how to fix it, when it lacks it.
 * gdb goes to a new window of the user's tmux session when pangaea runs
 * inside tmux, else to a detached tmux session of its own whose socket
 * pangaea names.
 *
 * The program's arguments in a replay are the recorded ones (the first
 * spawn of ltid 0's execution log): a replay given none takes them, one
 * given others is refused, as the program would compute something else and
 * the replay would say nothing of it; -otherargs replays with the given
 * ones all the same, with a warning.  -rebuilt lets the tasks run another
 * build of their programs (PANGAEA_REBUILT, replay.c): the replay goes on
 * while their messages agree with the recording.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg_internal.h"
#include "top.h"

static char stops[1024];    /* "L:E,L:E" */
static int debug_ltid = -1; /* -debug's ltid */
static char debug_arg[64];  /* "L" or "L:E" */
static char hook[PATH_MAX + 32];
static int other_args;      /* -otherargs */
static int rebuilt;         /* -rebuilt: tasks may run another build */

/* "L:E" (event required) or "L[:E]": 0 and the numbers, or -1. */
static int parse_point(const char *s, int need_event, long *l, long *e)
{
    char *end;

    *e = 0;
    *l = strtol(s, &end, 10);
    if (end == s || *l < 1 || *l > 0x7fffffff)
        return -1;
    if (!*end)
        return need_event ? -1 : 0;
    if (*end != ':')
        return -1;
    s = end + 1;
    *e = strtol(s, &end, 10);
    return end == s || *end || *e < 1 ? -1 : 0;
}

int top_debug_opt(int argc, char **argv, int *i, char *why, size_t size)
{
    size_t n = strlen(stops);
    long l, e;

    if (!strcmp(argv[*i], "-otherargs"))
        return other_args = 1;
    if (!strcmp(argv[*i], "-rebuilt"))
        return rebuilt = 1;
    if (strcmp(argv[*i], "-stop") && strcmp(argv[*i], "-debug"))
        return 0;
    if (*i + 1 >= argc) {
        snprintf(why, size, "%s needs LTID%s", argv[*i],
                 argv[*i][1] == 's' ? ":EVENT" : "[:EVENT]");
        return -1;
    }
    (*i)++;
    if (parse_point(argv[*i], argv[*i - 1][1] == 's', &l, &e) < 0) {
        snprintf(why, size, "%s %s: give LTID%s (positive numbers: the ltid "
                 "and the event number that -dump and divergence messages "
                 "show)", argv[*i - 1], argv[*i],
                 argv[*i - 1][1] == 's' ? ":EVENT" : "[:EVENT]");
        return -1;
    }
    if (argv[*i - 1][1] == 'd') {
        if (debug_ltid >= 0) {
            snprintf(why, size, "-debug given twice: one task runs under gdb");
            return -1;
        }
        debug_ltid = (int)l;
        snprintf(debug_arg, sizeof debug_arg, "%s", argv[*i]);
    } else if (n + strlen(argv[*i]) + 2 > sizeof stops) {
        snprintf(why, size, "too many -stop options");
        return -1;
    } else {
        snprintf(stops + n, sizeof stops - n, "%s%s", n ? "," : "", argv[*i]);
    }
    return 1;
}

/* 1 if the recording in logdir has a communication log of ltid. */
static int recorded(const char *logdir, long ltid)
{
    char path[PATH_MAX + 64];

    pg_log_path(path, sizeof path, logdir, (int)ltid, PG_LOG_COMM);
    return access(path, F_OK) == 0;
}

/* The last event seq in ltid's communication log, or -1 when it cannot
 * be read (the replay's own checks then name the log). */
static long last_event(const char *logdir, long ltid)
{
    char path[PATH_MAX + 64];
    pg_logr *r;
    pg_event ev;
    pg_err err;
    long last = 0;

    pg_log_path(path, sizeof path, logdir, (int)ltid, PG_LOG_COMM);
    if (!(r = pg_logr_open(path, PG_LOG_COMM, NULL, &err)))
        return -1;
    while (pg_logr_next(r, &ev, &err) == 1)
        last = ev.seq > last ? ev.seq : last;
    pg_logr_close(r);
    return last;
}

/* Why the point "L[:E]" cannot be reached in the recording, or NULL: a
 * task it lacks, or an event past the task's last (it would never stop). */
static const char *point_misuse(const char *logdir, const char *point)
{
    static char why[2 * PATH_MAX + 256];
    long l = atol(point), e = strchr(point, ':') ? atol(strchr(point, ':') + 1) : 0,
         last;

    if (!recorded(logdir, l))
        snprintf(why, sizeof why, "-stop/-debug: the recording in %s has no "
                 "ltid %ld (pangaea -tasks %s lists its tasks)", logdir, l,
                 logdir);
    else if (e > 0 && (last = last_event(logdir, l)) >= 0 && e > last)
        snprintf(why, sizeof why, "-stop/-debug %ld:%ld: ltid %ld's recording "
                 "ends at event %ld (pangaea -dump %s %ld lists its events)",
                 l, e, l, last, logdir, l);
    else
        return NULL;
    return why;
}

const char *top_debug_misuse(pangaea_mode_t mode, const char *logdir)
{
    const char *s, *why = NULL;

    if ((stops[0] || debug_ltid >= 0) && mode != PANGAEA_REPLAY)
        return "-stop and -debug stop a task at a recorded event: they go "
               "with -replay";
    if ((other_args || rebuilt) && mode != PANGAEA_REPLAY)
        return "-otherargs and -rebuilt go with -replay";
    if (!logdir) /* not known yet: the mode alone */
        return NULL;
    if (debug_ltid >= 0)
        why = point_misuse(logdir, debug_arg);
    for (s = stops; *s && !why; s = strchr(s, ',') ? strchr(s, ',') + 1 : "")
        why = point_misuse(logdir, s);
    return why;
}

/* The arguments, quoted, printable bytes as they are, others in \ooo. */
static void quote_args(char *const *argv, int argc, char *out, size_t size)
{
    size_t n = 0;
    const unsigned char *c;
    int i;

    out[0] = 0;
    for (i = 0; i < argc && n + 8 < size; i++) {
        out[n++] = i ? ' ' : '"';
        if (i)
            out[n++] = '"';
        for (c = (const unsigned char *)argv[i]; *c && n + 8 < size; c++)
            n += *c >= 0x20 && *c < 0x7f && *c != '"' && *c != '\\'
                     ? (size_t)snprintf(out + n, size - n, "%c", *c)
                     : (size_t)snprintf(out + n, size - n, "\\%03o", *c);
        out[n++] = '"';
        out[n] = 0;
    }
    if (i < argc)
        snprintf(out + n, size - n, " ...");
}

static int same_args(char *const *a, int na, char *const *b)
{
    int i;

    for (i = 0; i < na && b[i]; i++)
        if (strcmp(a[i], b[i]))
            return 0;
    return i == na && !b[i];
}

int top_replay_args(struct top_opts *o, const pg_event *spawn, pg_err *err)
{
    char rec[1024], given[1024];
    int i, n;

    if (!o->args || !o->args[0]) { /* none given: the recorded ones */
        if (!(o->args = calloc(spawn->argc + 1, sizeof *o->args)))
            return pg_err_set(err, "out of memory");
        for (i = 0; i < spawn->argc; i++)
            if (!(o->args[i] = strdup(spawn->argv[i])))
                return pg_err_set(err, "out of memory");
        return 0;
    }
    if (same_args(spawn->argv, spawn->argc, o->args))
        return 0;
    for (n = 0; o->args[n]; n++)
        ;
    quote_args(spawn->argv, spawn->argc, rec, sizeof rec);
    quote_args(o->args, n, given, sizeof given);
    if (!other_args)
        return pg_err_set(err, "the recording in %s ran %s with the "
                          "arguments %s, not %s: give none to replay with the "
                          "recorded ones (-otherargs replays with these all "
                          "the same)", o->logdir, pg_basename(spawn->program),
                          spawn->argc ? rec : "(none)", given);
    fprintf(stderr, "pangaea: warning: -otherargs: replaying with %s, recorded "
            "with %s: the program may diverge from its recording\n", given,
            spawn->argc ? rec : "(none)");
    return 0;
}

const char *top_debug_given(void)
{
    return other_args ? "-otherargs" : rebuilt ? "-rebuilt" : NULL;
}

const char *top_debug_stops(void)
{
    return stops;
}

int top_debug_held(int ltid)
{
    return ltid > 0 && ltid == debug_ltid;
}

/* Where gdb goes: "window:$TMUX" or "session:SOCKET".  The socket lies
 * in a directory of its own, made 0700 (mkdtemp) under XDG_RUNTIME_DIR
 * (private by definition) or TMPDIR or /tmp: a predictable name in a
 * shared directory would let another user plant a tmux server there and
 * take the gdb session.  On another host pangaea-debugger makes that
 * directory, 0700, or refuses one that is not its user's own. */
static void tmux_place(char *out, size_t size)
{
    const char *t = getenv("TMUX"), *base = getenv("XDG_RUNTIME_DIR");
    char dir[PATH_MAX];

    if (t && *t) {
        snprintf(out, size, "window:%s", t);
        return;
    }
    if (!base || !*base || access(base, W_OK) < 0)
        base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
                                                     : "/tmp";
    snprintf(dir, sizeof dir, "%s/pangaea-debug.XXXXXX", base);
    if (!mkdtemp(dir))
        fprintf(stderr, "pangaea: cannot make a directory for gdb's tmux "
                "socket in %s: %s\n", base, strerror(errno));
    snprintf(out, size, "session:%s/tmux.sock", dir);
}

void top_debug_env(const char *dir)
{
    char place[PATH_MAX + 64];

    setenv(PG_ENV_STOP, stops, 1);
    setenv(PG_ENV_REBUILT, rebuilt ? "1" : "", 1);
    setenv(PG_ENV_DEBUG, debug_arg, 1);
    place[0] = 0;
    if (debug_ltid >= 0) {
        char host[256] = "";

        gethostname(host, sizeof host - 1);
        snprintf(place, sizeof place, "%d@%s", (int)getpid(), host);
        setenv(PG_ENV_TOP_PID, place, 1); /* pangaea-debugger watches it */
        snprintf(hook, sizeof hook, "%s/pangaea-debugger", dir);
        setenv("PVM_DEBUGGER", hook, 1); /* for a pvmd we start */
        tmux_place(place, sizeof place);
    }
    setenv(PG_ENV_TMUX, place, 1);
}

/* The pid of the pvmd of PVM_TMP, from its socket's name; -1 if unknown. */
static int pvmd_pid(void)
{
    const char *dir = getenv("PVM_TMP") ? getenv("PVM_TMP") : "/tmp";
    char path[PATH_MAX], line[PATH_MAX], *p;
    FILE *f;
    int pid = -1;

    snprintf(path, sizeof path, "%s/pvmd.%d", dir, (int)getuid());
    if (!(f = fopen(path, "r")))
        return -1;
    if (fgets(line, sizeof line, f) && (p = strstr(line, "pvmtmp")))
        pid = atoi(p + 6);
    fclose(f);
    return pid > 0 ? pid : -1;
}

/* 1 if process pid's environment has name=value. */
static int env_has(int pid, const char *name, const char *value)
{
    char path[64], *buf = NULL, *p;
    size_t cap = 0, n;
    FILE *f;
    int found = 0;

    snprintf(path, sizeof path, "/proc/%d/environ", pid);
    if (!(f = fopen(path, "r")))
        return 0;
    while ((n = getdelim(&buf, &cap, 0, f)) != (size_t)-1 && !found) {
        p = buf;
        found = !strncmp(p, name, strlen(name)) && p[strlen(name)] == '=' &&
                !strcmp(p + strlen(name) + 1, value);
    }
    free(buf);
    fclose(f);
    return found;
}

int top_debug_pvmd(int started, pg_err *err)
{
    int pid;

    if (debug_ltid < 0 || started)
        return 0;
    pid = pvmd_pid();
    if (pid > 0 && env_has(pid, "PVM_DEBUGGER", hook))
        return 0;
    return pg_err_set(err, "-debug: the pvmd already running (pid %d) was "
                      "not started with PVM_DEBUGGER=%s, and PVM starts a "
                      "task under a debugger only through that variable of "
                      "the pvmd's environment. Halt it (echo halt | pvm) so "
                      "that pangaea starts a pvmd of its own, or start it as "
                      "PVM_DEBUGGER=%s pvmd", pid, hook, hook);
}

void top_debug_say(void)
{
    const char *t = getenv(PG_ENV_TMUX);

    if (debug_ltid < 0 || !t)
        return;
    if (!strncmp(t, "window:", 7))
        fprintf(stderr, "pangaea: ltid %d runs under gdb in a new window of "
                "this tmux session\n", debug_ltid);
    else
        fprintf(stderr, "pangaea: ltid %d runs under gdb in a tmux session "
                "of its own, on the host it runs on: tmux -S %s attach\n",
                debug_ltid, t + 8);
}
