/*
 * hostcheck.c - every check before a replay: the recording's logs read
 * through, it is of this program, and every host the recording puts a task
 * on made sure of.
 *
 * Design.  Replay spawns each child on the host its parent's execution log
 * names (wrap_spawn.c), and a task that cannot start there ends the run
 * half-way, with other tasks already running.  So `pangaea` finds out
 * everything that would stop a task before it starts any, in two steps,
 * because they need different things:
 *  - top_check_recording(), before joining PVM (nothing to start or halt
 *    yet if the logs are bad): validates every log (an execution log
 *    against the schema, a communication log read through: those in two
 *    processes when there are two CPUs, see check_comm_logs), checks the
 *    recording spawned this program and takes its selection (-only), then
 *    reads every ltid-N.exec.xml with the
 *    streaming reader, which also checks what the schema cannot (seq order,
 *    limits), and builds the placement table: each child ltid, the host it
 *    is to run on, the program it was spawned as and the log that says so.
 *    A log whose header names another ltid than its file, or another
 *    program than its parent spawned, belongs to another recording.
 *  - top_check_hosts(), after joining the virtual machine and before the
 *    coordinator starts: each host of the table must be in the virtual
 *    machine; one that is not is an error naming the host, the ltid and
 *    the log, and asking for -addhosts, with which it is added with
 *    pvm_addhosts (as the console's `add` does).  Then, if tasks will run
 *    on other hosts than ours, it prints which log files each host's tasks
 *    read and from where: the absolute log directory, which every host
 *    must see at that path.
 * The table lives here between the two calls: `pangaea` replays once.
 * The host name in a log is PVM's own (pvm_config's hi_name), the name
 * PvmTaskHost is matched against, so it is compared exactly.
 *
 * A recording is untrusted input (it may come with a bug report): a host
 * name in it must be a host name, a DNS name or an address and nothing
 * else (top_host_name_ok, untrusted.c), because pvm_addhosts reads its
 * argument as a line of a PVM host file, whose options (`dx=`, `ep=`,
 * `so=`, ...) make the pvmd run commands; and a host is added only when the user says so
 * (-addhosts), since adding one makes the user's rsh/ssh connect to it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pvm3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_internal.h"
#include "top.h"

int top_multihost;

struct place {          /* one task of the recording, from its parent's log */
    int ltid, parent;
    char *host, *program;
    int order;          /* its rank as read (the first of a twice-spawned
                           ltid is the one the error names first) */
    int host_first;     /* the first place of its host (top_check_hosts
                           adds and lists each host once) */
};

struct header {         /* one execution log, as its header describes it */
    int ltid;
    char *program;
};

static struct place *places;
static int nplaces;
static struct header *logs;
static int nlogs;
static size_t cap_places, cap_logs;

/* Room for element n of *pp: out of memory ends pangaea. */
static void room(void *pp, size_t *cap, int n, size_t size)
{
    if (pg_grow(pp, cap, (size_t)n + 1, size) < 0) {
        fprintf(stderr, "pangaea: out of memory\n");
        exit(TOP_EXIT_FAILED);
    }
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);

    if (!d) {
        fprintf(stderr, "pangaea: out of memory\n");
        exit(TOP_EXIT_FAILED);
    }
    return d;
}

static int by_ltid(const void *a, const void *b)
{
    const struct place *p = a, *q = b;

    return (p->ltid > q->ltid) - (p->ltid < q->ltid);
}

static int by_ltid_then_order(const void *a, const void *b)
{
    const struct place *p = a, *q = b;

    return p->ltid != q->ltid ? by_ltid(a, b)
                              : (p->order > q->order) - (p->order < q->order);
}

/* The place of ltid, or NULL.  Places are kept in ltid order (sorted once
 * every execution log is read: see sort_places): every spawn of a large
 * recording looks its children up, and messages then name tasks in
 * order. */
static struct place *place_of(int ltid)
{
    struct place key = { .ltid = ltid };

    return nplaces ? bsearch(&key, places, nplaces, sizeof *places, by_ltid)
                   : NULL;
}

/* A child of a spawn, appended as read: the table is sorted once at the
 * end (sort_places), where inserting each in order cost a move of the
 * places after it (quadratic in a large recording read in directory
 * order). */
static int add_place(int ltid, int parent, const char *host,
                     const char *program, pg_err *err)
{
    struct place *p;

    if (!top_host_name_ok(host))
        return pg_err_set(err, "ltid-%d.exec.xml runs ltid %d on host \"%s\","
                          " which is not a host name (a DNS name or an "
                          "address): refused", parent, ltid,
                          top_esc(host));
    room(&places, &cap_places, nplaces, sizeof *places);
    p = &places[nplaces];
    p->ltid = ltid;
    p->parent = parent;
    p->host = xstrdup(host);
    p->program = xstrdup(program);
    p->order = nplaces++;
    return 0;
}

/* The table in ltid order; an ltid spawned twice is refused, naming the
 * log read first and the other. */
static int sort_places(pg_err *err)
{
    struct place *p, *q;
    int i;

    if (nplaces > 1)
        qsort(places, nplaces, sizeof *places, by_ltid_then_order);
    for (i = 1; i < nplaces; i++) {
        p = &places[i - 1], q = &places[i];
        if (p->ltid != q->ltid)
            continue;
        if (p->parent == q->parent)
            return pg_err_set(err, "ltid %d is spawned twice in "
                              "ltid-%d.exec.xml: an edit gave two tasks one "
                              "ltid?", q->ltid, q->parent);
        return pg_err_set(err, "ltid %d is spawned twice, in ltid-%d.exec.xml "
                          "and in ltid-%d.exec.xml: the execution logs do "
                          "not belong to one recording", q->ltid, p->parent,
                          q->parent);
    }
    return 0;
}

static int by_host(const void *a, const void *b)
{
    const struct place *const *p = a, *const *q = b;
    int c = strcmp((*p)->host, (*q)->host);

    return c ? c : (*p > *q) - (*p < *q);
}

/* Marks the first place of each host: sorted by host, each run's first
 * (n log n, where asking every earlier place was quadratic). */
static void mark_hosts(void)
{
    struct place **by = malloc(((size_t)nplaces + 1) * sizeof *by);
    int i;

    if (!by) {
        fprintf(stderr, "pangaea: out of memory\n");
        exit(TOP_EXIT_FAILED);
    }
    for (i = 0; i < nplaces; i++)
        by[i] = &places[i];
    if (nplaces > 1)
        qsort(by, nplaces, sizeof *by, by_host);
    for (i = 0; i < nplaces; i++)
        by[i]->host_first = i == 0 || strcmp(by[i - 1]->host, by[i]->host);
    free(by);
}

/* The children a spawn event of task `parent` started. */
static int add_children(int parent, const pg_event *ev, pg_err *err)
{
    int i;

    for (i = 0; ev->kind == PG_EV_SPAWN && i < ev->nchild; i++)
        if (add_place(ev->child_ltid[i], parent, ev->child_host[i],
                      ev->program, err) < 0)
            return -1;
    return 0;
}

/* Reads one execution log through; its children go to the table. */
static int read_exec_log(const char *dir, int ltid, pg_err *err)
{
    char path[PATH_MAX + 64];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    int cc;

    pg_log_path(path, sizeof path, dir, ltid, PG_LOG_EXEC);
    r = pg_logr_open(path, PG_LOG_EXEC, &h, err);
    if (!r)
        return -1;
    if (h.ltid != ltid) {
        pg_logr_close(r);
        return pg_err_set(err, "%s: its header says ltid %d: a log of "
                          "another task or recording", path, h.ltid);
    }
    room(&logs, &cap_logs, nlogs, sizeof *logs);
    logs[nlogs].ltid = ltid;
    logs[nlogs++].program = xstrdup(h.program);
    while ((cc = pg_logr_next(r, &ev, err)) == 1 &&
           add_children(ltid, &ev, err) == 0)
        ;
    if (cc < 0 && pg_logr_cut(r))
        cc = 0; /* its task died when recorded: what is there is complete */
    pg_logr_close(r);
    return cc == 1 ? -1 : cc; /* 1: add_children refused */
}

/* True when `path` names a script (#!): a wrapper that may exec a program
 * of another name, which then writes the log.  The path comes from a log:
 * only a regular file is read (a FIFO would hang the check). */
static int is_script(const char *path)
{
    char magic[2] = { 0, 0 };
    int fd = strchr(path, '/') ? open(path, O_RDONLY | O_NONBLOCK |
                                      O_CLOEXEC) : -1;
    struct stat st;

    if (fd >= 0) {
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
            read(fd, magic, 2) != 2)
            magic[0] = 0;
        close(fd);
    }
    return magic[0] == '#' && magic[1] == '!';
}

/* Each log is of the program its parent spawned under that ltid (or of
 * what a script spawned there runs). */
static int check_programs(const char *dir, pg_err *err)
{
    struct place *p;
    int i;

    for (i = 0; i < nlogs; i++) {
        p = place_of(logs[i].ltid);
        if (p && strcmp(pg_basename(p->program), pg_basename(logs[i].program))
            && !is_script(p->program))
            return pg_err_set(err, "%s/ltid-%d.exec.xml is a log of %s, but "
                              "ltid %d spawned ltid %d as %s "
                              "(ltid-%d.exec.xml): a log of another program",
                              dir, logs[i].ltid, logs[i].program, p->parent,
                              p->ltid, p->program, p->parent);
    }
    return 0;
}

int top_recorded_ltid_max(void)
{
    int i, max = nplaces ? places[nplaces - 1].ltid : 0; /* in ltid order */

    for (i = 0; i < nlogs; i++)
        if (logs[i].ltid > max)
            max = logs[i].ltid;
    return max;
}

/* Every task the recording spawned has both its logs. */
static int check_logs_present(const char *dir, pg_err *err)
{
    char path[PATH_MAX + 64];
    int i, k;

    for (i = 0; i < nplaces; i++)
        for (k = 0; k < 2; k++) {
            pg_log_path(path, sizeof path, dir, places[i].ltid,
                        k ? PG_LOG_EXEC : PG_LOG_COMM);
            if (access(path, R_OK) < 0)
                return pg_err_set(err, "%s is missing: ltid %d was spawned "
                                  "when recorded (ltid-%d.exec.xml), and a "
                                  "replay needs its logs", path,
                                  places[i].ltid, places[i].parent);
        }
    return 0;
}

/* In a replay the recording says where ltid 1 runs; -host may only agree. */
static int check_first_host(const struct top_opts *o, pg_err *err)
{
    struct place *p = place_of(1);

    if (!o->host || !p || !strcmp(p->host, o->host))
        return 0;
    return pg_err_set(err, "-host %s: the recording in %s runs ltid 1 on %s "
                      "(ltid-0.exec.xml); to run it on %s, move it first: "
                      "pangaea -move 1 %s -logdir %s", o->host, o->logdir,
                      p->host, o->host, o->host, o->logdir);
}

static int check_exec_logs(const struct top_opts *o, pg_err *err)
{
    DIR *d = opendir(o->logdir);
    struct dirent *e;
    int ltid, cc = 0;

    if (!d)
        return pg_err_set(err, "cannot open the log directory %s", o->logdir);
    while (cc == 0 && (e = readdir(d)))
        if ((ltid = pg_log_name_ltid(e->d_name, PG_LOG_EXEC)) >= 0)
            cc = read_exec_log(o->logdir, ltid, err);
    closedir(d);
    if (cc < 0 || sort_places(err) < 0 || check_programs(o->logdir, err) < 0 ||
        check_logs_present(o->logdir, err) < 0)
        return -1;
    return check_first_host(o, err);
}

/* ---- the recording ---------------------------------------------------- */

/* One log of the recording, checked before a replay: an execution log
 * against the schema (people edit them), a communication log by reading
 * it through once (the reader checks every event, in constant memory; no
 * schema pass).  A log that stops after complete events is a task that
 * died when recorded: the replay follows it up to there. */
static int check_log(const char *dir, const char *name, const char *xsd,
                     pg_err *err)
{
    char path[PATH_MAX + 300];
    pg_err cut; /* the schema's message says more than the reader's */
    long n;
    int comm = strstr(name, ".comm.") != NULL, rc;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!comm)
        return pg_log_validate(path, xsd, err) < 0 &&
                       pg_log_check_cut(path, PG_LOG_EXEC, &n, &cut) != 1
                   ? -1 : 0;
    rc = pg_log_check_cut(path, PG_LOG_COMM, &n, err);
    if (rc == 1)
        fprintf(stderr, "pangaea: %s stops after event %ld: that task died "
                "there when recorded; the replay follows it that far\n",
                name, n);
    return rc < 0 ? -1 : 0;
}

/* A communication log to read through, and its size. */
struct comm_log {
    char *name;
    off_t size;
    int half; /* 0: read by pangaea, 1: by the helper process */
};

static int by_size(const void *a, const void *b)
{
    const struct comm_log *x = a, *y = b;

    return (y->size > x->size) - (y->size < x->size);
}

/* Reads the logs of one half in turn: 0, or -1 and err at the first bad
 * one. */
static int check_half(const char *dir, struct comm_log *c, int n, int half,
                      pg_err *err)
{
    int i;

    for (i = 0; i < n; i++)
        if (c[i].half == half && check_log(dir, c[i].name, NULL, err) < 0)
            return -1;
    return 0;
}

/* Both halves in turn, in this process. */
static int check_in_turn(const char *dir, struct comm_log *c, int n,
                         pg_err *err)
{
    return check_half(dir, c, n, 0, err) < 0 ||
                   check_half(dir, c, n, 1, err) < 0 ? -1 : 0;
}

/* Reading the communication logs through is most of the time a replay
 * takes before its tasks start (some 0.2 s per million events, counted
 * in the replay's cost: BENCHMARKS.md).  With two CPUs, a child process reads
 * the logs of one half (the bytes shared out largest first) while
 * pangaea reads the other; the child writes what failed, if anything,
 * into a pipe.  The result is the same as reading them in turn. */
static int check_comm_logs(const char *dir, struct comm_log *c, int n,
                           pg_err *err)
{
    off_t load[2] = { 0, 0 };
    int fd[2], i, cc, status;
    struct {
        int failed; /* a cut log is no failure, though it fills msg */
        pg_err err;
    } child;
    pid_t pid;
    ssize_t got;

    qsort(c, n, sizeof *c, by_size);
    for (i = 0; i < n; i++) {
        c[i].half = load[1] < load[0];
        load[c[i].half] += c[i].size;
    }
    if (n < 2 || sysconf(_SC_NPROCESSORS_ONLN) < 2 || pipe(fd) < 0)
        return check_in_turn(dir, c, n, err);
    fflush(NULL); /* nothing buffered written twice */
    if ((pid = fork()) < 0) {
        close(fd[0]);
        close(fd[1]);
        return check_in_turn(dir, c, n, err);
    }
    if (pid == 0) { /* the helper: _exit, so no handler of pangaea runs */
        close(fd[0]);
        memset(&child, 0, sizeof child);
        child.failed = check_half(dir, c, n, 1, &child.err) < 0;
        if (child.failed && !child.err.msg[0])
            snprintf(child.err.msg, sizeof child.err.msg, "cannot read a log "
                     "in %.900s", dir);
        fflush(stderr);
        _exit(write(fd[1], &child, sizeof child) == (ssize_t)sizeof child
                  ? 0 : 1);
    }
    close(fd[1]);
    cc = check_half(dir, c, n, 0, err);
    got = read(fd[0], &child, sizeof child);
    close(fd[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (cc < 0)
        return -1;
    if (got != (ssize_t)sizeof child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) /* the helper failed: read them here */
        return check_half(dir, c, n, 1, err);
    child.err.msg[sizeof child.err.msg - 1] = 0;
    if (child.failed)
        return pg_err_set(err, "%s", child.err.msg);
    return 0;
}

static int is_time_file(const char *name)
{
    const char *rest;

    return pg_log_name_split(name, &rest) >= 0 && !strcmp(rest, "time.pgc");
}

static int check_logs(const char *dir, pg_err *err)
{
    char xsd[PATH_MAX], path[PATH_MAX + 300];
    struct comm_log *comm = NULL;
    size_t cap = 0;
    struct dirent *e;
    struct stat st;
    DIR *d = opendir(dir);
    int cc = 0, n = 0, i;

    snprintf(xsd, sizeof xsd, "%s/pangaea-log.xsd", top_schema_dir());
    while (cc == 0 && d && (e = readdir(d))) {
        if (pg_log_name_ltid(e->d_name, PG_LOG_EXEC) >= 0)
            cc = check_log(dir, e->d_name, xsd, err);
        else if (is_time_file(e->d_name)) { /* its CRCs and values */
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            cc = pg_time_check(path, err);
        } else if (pg_log_name_ltid(e->d_name, PG_LOG_COMM) >= 0) {
            room(&comm, &cap, n, sizeof *comm); /* not data files */
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            comm[n].name = xstrdup(e->d_name);
            comm[n++].size = stat(path, &st) == 0 ? st.st_size : 0;
        }
    }
    if (d)
        closedir(d);
    if (cc == 0)
        cc = check_comm_logs(dir, comm, n, err);
    for (i = 0; i < n; i++)
        free(comm[i].name);
    free(comm);
    return cc;
}

/* The recording is of this program, and the replay takes its selection. */
static int check_first_spawn(struct top_opts *o, pg_err *err)
{
    char path[PATH_MAX + 300];
    pg_log_header h;
    pg_event ev;
    pg_logr *r;
    int cc = 0;

    pg_log_path(path, sizeof path, o->logdir, 0, PG_LOG_EXEC);
    r = pg_logr_open(path, PG_LOG_EXEC, &h, err);
    if (!r)
        return -1;
    if (pg_logr_next(r, &ev, err) != 1 || ev.kind != PG_EV_SPAWN)
        cc = pg_err_set(err, "%s records no spawn of a program", path);
    else if (strcmp(pg_basename(ev.program), pg_basename(o->program)))
        cc = pg_err_set(err, "the recording in %s is of %s, not of %s",
                        o->logdir, ev.program, o->program);
    else if (top_replay_args(o, &ev, err) < 0) /* debug.c: as recorded */
        cc = -1;
    else if (o->only[0] && strcmp(o->only, h.select))
        cc = pg_err_set(err, "-only \"%s\": a replay uses the selection "
                        "its recording was made with (\"%s\")", o->only,
                        h.select);
    pg_logr_close(r);
    if (cc < 0)
        return -1;
    /* A replay follows the selection of its recording, whatever it is. */
    snprintf(o->only, sizeof o->only, "%s", h.select);
    if (pg_log_race_only(o->only))
        fprintf(stderr, "pangaea: replaying a race-only recording (pangaea "
                "-min): racing receives take their recorded messages, the "
                "others the one message each can take\n");
    else if (o->only[0])
        fprintf(stderr, "pangaea: replaying with the selection the recording "
                "was made with: %s\n", o->only);
    return 0;
}

int top_check_recording(struct top_opts *o, pg_err *err)
{
    char path[PATH_MAX + 300];

    pg_log_path(path, sizeof path, o->logdir, 0, PG_LOG_EXEC);
    if (access(path, R_OK) < 0 && top_mpi_recording(o->logdir))
        return pg_err_set(err, "the recording in %s is an MPI run's (its "
                          "ranks' logs, no %s): replay it with its "
                          "launcher, pangaea -replay mpiexec ...", o->logdir,
                          path);
    if (access(path, R_OK) < 0)
        return pg_err_set(err, "no recording to replay: %s is missing "
                          "(record first with pangaea -log)", path);
    if (check_logs(o->logdir, err) < 0 || check_first_spawn(o, err) < 0 ||
        top_stdin_recorded(o->logdir, path, sizeof path, err) < 0)
        return -1;
    return check_exec_logs(o, err);
}

/* ---- the hosts ------------------------------------------------------- */

int top_host_in_vm(const char *host)
{
    struct pvmhostinfo *hi;
    int nhost, narch, i;

    if (pvm_config(&nhost, &narch, &hi) < 0)
        return 0;
    for (i = 0; i < nhost; i++)
        if (!strcmp(hi[i].hi_name, host))
            return 1;
    return 0;
}

/* Who is to run on `host`, for a message: the first task and the log that
 * puts it there, and how many more. */
static void tasks_on(const struct top_opts *o, const char *host, char *buf,
                     size_t size)
{
    int i, n = 0, first = -1;

    for (i = 0; i < nplaces; i++)
        if (!strcmp(places[i].host, host) && n++ == 0)
            first = i;
    if (first < 0)
        snprintf(buf, size, "-coordhost puts the coordinator there");
    else
        snprintf(buf, size, "%s/ltid-%d.exec.xml runs ltid %d there%s",
                 o->logdir, places[first].parent, places[first].ltid,
                 n > 1 ? " (and other tasks)" : "");
}

/* Makes sure `host` is in the virtual machine, adding it with -addhosts. */
static int ensure_host(const struct top_opts *o, const char *host, pg_err *err)
{
    char *names[1] = { (char *)host }, who[PATH_MAX + 128];
    int info = 0, cc;

    if (top_host_in_vm(host))
        return 0;
    if (!o->addhosts) {
        tasks_on(o, host, who, sizeof who);
        return pg_err_set(err, "host \"%s\" is not part of the virtual "
                          "machine; %s: add it (pvm's console: add %s) or "
                          "give -addhosts to let pangaea add it", host, who,
                          host);
    }
    cc = pvm_addhosts(names, 1, &info);
    if (cc == 1 && info >= 0) {
        fprintf(stderr, "pangaea: added host %s to the virtual machine\n",
                host);
        return 0;
    }
    if (cc >= 0)
        cc = info;
    tasks_on(o, host, who, sizeof who);
    return pg_err_set(err, "host \"%s\" is not part of the virtual machine "
                      "and cannot be added (pvm_addhosts: %s, %d); %s",
                      host, pg_pvm_strerror(cc), cc, who);
}

/* The name PVM gives the host `pangaea` runs on. */
static const char *my_host(void)
{
    struct pvmhostinfo *hi;
    int nhost, narch, i, me = pvm_tidtohost(pvm_mytid());

    if (pvm_config(&nhost, &narch, &hi) < 0)
        return "";
    for (i = 0; i < nhost; i++)
        if (hi[i].hi_tid == me)
            return hi[i].hi_name;
    return "";
}

/* One line per host: which logs its tasks read. */
static void print_host_logs(const char *host)
{
    int i;

    fprintf(stderr, "pangaea:   %s:", host);
    for (i = 0; i < nplaces; i++)
        if (!strcmp(places[i].host, host))
            fprintf(stderr, " ltid-%d.exec.xml ltid-%d.comm.pgc",
                    places[i].ltid, places[i].ltid);
    fprintf(stderr, "\n");
}

static void print_plan(const struct top_opts *o)
{
    char me[256];
    int i;

    snprintf(me, sizeof me, "%s", my_host());
    for (i = 0; i < nplaces && !strcmp(places[i].host, me); i++)
        ;
    if (i == nplaces)
        return; /* every task runs here */
    top_multihost = 1;
    fprintf(stderr, "pangaea: replay on several hosts; each task reads its "
            "logs in %s, which every host must see at that path:\n",
            o->logdir);
    for (i = 0; i < nplaces; i++)
        if (places[i].host_first)
            print_host_logs(places[i].host);
}

int top_check_hosts(const struct top_opts *o, pg_err *err)
{
    int i;

    mark_hosts();
    for (i = 0; i < nplaces; i++)
        if (places[i].host_first && ensure_host(o, places[i].host, err) < 0)
            return -1;
    if (o->coordhost && ensure_host(o, o->coordhost, err) < 0)
        return -1;
    print_plan(o);
    return 0;
}
