/*
 * logdir.c - the log directory of a run: its lock, and keeping the last
 * good recording.
 *
 * Design.  A run owns its log directory from start to end: `pangaea` takes
 * an exclusive flock on LOGDIR/.pangaea.lock before it looks at anything
 * else there, and holds it until it exits (the kernel lets go of it then,
 * whatever the death).  The file says who holds it (pid, host, command
 * line), so a second run, -move or -move-host is refused with the holder's
 * name and touches nothing.  Creating the lock file is also the check that
 * the directory is writable at all.
 *
 * A new recording moves the last one to LOGDIR/previous/, but only a
 * recording that ended well: while a recording is made, the file
 * LOGDIR/.pangaea-incomplete (PG_LOGDIR_INCOMPLETE, pg_log.h: the MPI
 * library's replay reads it too) says so, and it is removed only when the
 * run ended with every log written whole.  The logs of a failed recording (a
 * full disk, a lost coordinator, an interrupt) are removed by the next
 * recording instead, so previous/ keeps the last good one.  Everything that
 * can be checked is checked before anything moves.
 *
 * A recording is reported good only once the mark says so: when the
 * mark cannot be removed (the directory was made read-only or immutable
 * during the run), the word "complete" is written into it instead, which
 * a directory's permissions do not forbid; if even that fails the run
 * says the recording could not be marked complete and exits non-zero.  So
 * a recording reported good is never taken for a failed one and removed.
 *
 * Links are never followed: previous/ must be a real directory (a link
 * there is refused), and files are moved and removed by name relative to
 * directories opened with O_NOFOLLOW (renameat, unlinkat), so a link
 * inside is moved or removed itself, never what it points to.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pg_grow.h"
#include "pg_log.h"
#include "top.h"

#define LOCK_NAME ".pangaea.lock"

/* ---- the lock ---------------------------------------------------------- */

/* Who we are, for the lock file: "pid N on host H: command line". */
static void describe_self(char *out, size_t size)
{
    char host[256] = "?", cmd[2048] = "";
    FILE *f = fopen("/proc/self/cmdline", "re");
    size_t n = 0, i;

    gethostname(host, sizeof host - 1);
    if (f) {
        n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
    }
    for (i = 0; i + 1 < n; i++) /* arguments are NUL-separated */
        if (cmd[i] == 0)
            cmd[i] = ' ';
    cmd[n] = 0;
    snprintf(out, size, "pid %d on host %s: %s\n", (int)getpid(), host, cmd);
}

static int refuse_held(int fd, const char *dir, pg_err *err)
{
    char who[2400] = "";
    ssize_t n = pread(fd, who, sizeof who - 1, 0);

    who[n > 0 ? n : 0] = 0;
    who[strcspn(who, "\n")] = 0;
    close(fd);
    return pg_err_set(err, "the log directory %s is in use by another "
                      "pangaea (%s): wait for it to end, or use another "
                      "-logdir", dir, who[0] ? who : "holder unknown");
}

int top_logdir_lock(const char *dir, int readonly_ok, pg_err *err)
{
    char path[PATH_MAX + 32], me[2400];
    int fd;

    snprintf(path, sizeof path, "%s/%s", dir, LOCK_NAME);
    fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && readonly_ok && (errno == EROFS || errno == EACCES)) {
        /* A replay only reads: a directory nobody can write to is fine,
         * and nobody can be recording into it. */
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT)
            return 0;
    }
    if (fd < 0)
        return pg_err_set(err, "cannot use the log directory %s: cannot "
                          "create %s there: %s", dir, LOCK_NAME,
                          strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) < 0)
        return errno == EWOULDBLOCK
                   ? refuse_held(fd, dir, err)
                   : pg_err_set(err, "cannot lock the log directory %s "
                                "(%s): %s", dir, path, strerror(errno));
    /* Held until we exit: the fd is never closed (and not inherited). */
    describe_self(me, sizeof me);
    if (ftruncate(fd, 0) == 0 && pwrite(fd, me, strlen(me), 0) < 0)
        (void)0; /* a full disk: the lock holds, only the name is missing */
    return 0;
}

/* ---- the recording's files --------------------------------------------- */

/* A file of a recording: ltid-N.*.xml, ltid-N.*.pgc (pg_log_name_split),
 * the page -display wrote, pangaea's stdin and an MPI run's launcher
 * line. */
int top_recording_file(const char *name)
{
    size_t n = strlen(name);

    return (pg_log_name_split(name, NULL) >= 0 &&
            (!strcmp(name + n - 4, ".xml") || !strcmp(name + n - 4, ".pgc"))) ||
           !strcmp(name, "pangaea-graph.html") ||
           !strcmp(name, "pangaea-stdin") || /* stdin_fwd.c */
           !strcmp(name, TOP_MPI_LAUNCH);    /* mpi_launch.c */
}

/* Opens a directory without following a link in its last component. */
static DIR *open_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);

    if (fd >= 0 && !d)
        close(fd);
    return d;
}

/* Moves the recording files of `from` into `to` (or removes them, to
 * NULL): by name, so a link is moved or removed, never followed.  Returns
 * how many, or -1 and err. */
static int move_files(const char *from, const char *to, pg_err *err)
{
    DIR *d = open_dir(from), *t = to ? open_dir(to) : NULL;
    struct dirent *e;
    int n = 0, rc;

    if (!d || (to && !t)) {
        rc = pg_err_set(err, "cannot open %s: %s", d ? to : from,
                        strerror(errno));
        goto out;
    }
    while ((e = readdir(d))) {
        if (!top_recording_file(e->d_name))
            continue;
        rc = to ? renameat(dirfd(d), e->d_name, dirfd(t), e->d_name)
                : unlinkat(dirfd(d), e->d_name, 0);
        if (rc < 0) {
            n = pg_err_set(err, "cannot %s %s/%s: %s", to ? "move" : "remove",
                           from, e->d_name, strerror(errno));
            break;
        }
        n++;
    }
    rc = n;
out:
    if (d)
        closedir(d);
    if (t)
        closedir(t);
    return rc;
}

/* Whether dir holds a file of a recording; -1 and err if it cannot be read. */
static int holds_recording(const char *dir, pg_err *err)
{
    DIR *d = open_dir(dir);
    struct dirent *e;
    int any = 0;

    if (!d)
        return pg_err_set(err, "cannot read the log directory %s: %s", dir,
                          strerror(errno));
    while (!any && (e = readdir(d)))
        any = top_recording_file(e->d_name);
    closedir(d);
    return any;
}

/* Whether path names anything (a link itself counts: lstat). */
static int present(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* previous/ may be missing, or a real directory holding recording files
 * only; anything else is refused before anything moves. */
static int check_previous(const char *prev, pg_err *err)
{
    struct stat st;
    struct dirent *e;
    DIR *d;
    int foreign = 0;

    if (lstat(prev, &st) < 0)
        return errno == ENOENT ? 0 : pg_err_set(err, "cannot use %s: %s",
                                                prev, strerror(errno));
    if (S_ISLNK(st.st_mode))
        return pg_err_set(err, "%s is a symbolic link: pangaea keeps the "
                          "previous recording there and never follows a "
                          "link (remove the link)", prev);
    if (!S_ISDIR(st.st_mode))
        return pg_err_set(err, "%s is not a directory: pangaea keeps the "
                          "previous recording there (move it away)", prev);
    if (!(d = open_dir(prev)))
        return pg_err_set(err, "cannot read %s: %s", prev, strerror(errno));
    while ((e = readdir(d)) && !foreign)
        foreign = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                  !top_recording_file(e->d_name);
    closedir(d);
    if (foreign)
        return pg_err_set(err, "cannot replace %s, where the previous "
                          "recording is kept: it holds other files (move "
                          "them away)", prev);
    return 0;
}

int top_logdir_check(const char *dir, pg_err *err)
{
    char prev[PATH_MAX + 16];

    snprintf(prev, sizeof prev, "%s/previous", dir);
    if (holds_recording(dir, err) < 0)
        return -1;
    return check_previous(prev, err);
}

/* A failed recording's logs go; previous/ keeps the last good one. */
static int drop_failed(const char *dir, const char *prev, pg_err *err)
{
    if (move_files(dir, NULL, err) < 0)
        return -1;
    fprintf(stderr, "pangaea: removed the logs of the last recording in %s: "
            "it did not end well%s\n", dir,
            present(prev) ? "; the last good one stays in previous/" : "");
    return 0;
}

/* The last good recording goes to previous/, replacing what was there. */
static int keep_previous(const char *dir, const char *prev, pg_err *err)
{
    if (present(prev)) { /* check_previous made sure it is ours */
        if (move_files(prev, NULL, err) < 0)
            return -1;
        if (rmdir(prev) < 0)
            return pg_err_set(err, "cannot replace %s: %s", prev,
                              strerror(errno));
    }
    if (mkdir(prev, 0700) < 0) /* logs: the user's alone */
        return pg_err_set(err, "cannot create %s for the previous recording: "
                          "%s", prev, strerror(errno));
    if (move_files(dir, prev, err) < 0)
        return -1;
    fprintf(stderr, "pangaea: the previous recording was kept in %s\n", prev);
    return 0;
}

int top_logdir_begin(const char *dir, pg_err *err)
{
    char prev[PATH_MAX + 16], mark[PATH_MAX + 32];
    int any, fd, rc = 0;

    if (top_logdir_check(dir, err) < 0)
        return -1;
    snprintf(prev, sizeof prev, "%s/previous", dir);
    snprintf(mark, sizeof mark, "%s/%s", dir, PG_LOGDIR_INCOMPLETE);
    any = holds_recording(dir, err);
    if (any > 0)
        rc = pg_logdir_incomplete(dir) ? drop_failed(dir, prev, err)
                                        : keep_previous(dir, prev, err);
    if (any < 0 || rc < 0)
        return -1;
    /* O_TRUNC: a mark left saying "complete" says so no more. */
    fd = open(mark, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
              0600);
    if (fd < 0)
        return pg_err_set(err, "cannot use the log directory %s: cannot "
                          "create %s: %s", dir, mark, strerror(errno));
    close(fd);
    return 0;
}

/* Writes "complete" into the mark: for a directory where it cannot be
 * removed (the file itself may still be written). */
static int say_complete(const char *mark)
{
    int fd = open(mark, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK |
                        O_CLOEXEC);
    size_t len = strlen(PG_LOGDIR_COMPLETE_WORD);
    ssize_t n = fd < 0 ? -1 : write(fd, PG_LOGDIR_COMPLETE_WORD, len);

    if (fd >= 0 && close(fd) < 0)
        n = -1;
    return n == (ssize_t)len ? 0 : -1;
}

int top_logdir_complete(const char *dir, pg_err *err)
{
    char mark[PATH_MAX + 32];
    int why;

    snprintf(mark, sizeof mark, "%s/%s", dir, PG_LOGDIR_INCOMPLETE);
    if (unlink(mark) == 0 || errno == ENOENT)
        return 0;
    why = errno;
    if (say_complete(mark) == 0)
        return 0;
    return pg_err_set(err, "the recording in %s cannot be marked complete "
                      "(cannot remove %s: %s, nor write into it): the next "
                      "-log will take it for one that did not end well",
                      dir, mark, strerror(why));
}

/* ---- the tasks of a recording ------------------------------------------ */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

int top_log_ltids(const char *dir, int exec_too, int **out)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int *ids = NULL, n = 0, i, k = 0, ltid;
    size_t cap = 0;

    *out = NULL;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        if ((ltid = pg_log_name_ltid(e->d_name, PG_LOG_COMM)) >= 0 ||
            (exec_too && (ltid = pg_log_name_ltid(e->d_name, PG_LOG_EXEC)) >= 0)) {
            if (pg_grow(&ids, &cap, (size_t)n + 1, sizeof *ids) < 0) {
                closedir(d);
                free(ids);
                return -1;
            }
            ids[n++] = ltid;
        }
    closedir(d);
    if (n > 1)
        qsort(ids, (size_t)n, sizeof *ids, cmp_int);
    for (i = 0; i < n; i++) /* each once: a task has two logs */
        if (i == 0 || ids[i] != ids[i - 1])
            ids[k++] = ids[i];
    *out = ids;
    return k;
}

/* ---- what a recording lacks --------------------------------------------- */

/* Adds to *ids (n of them) the ltids the execution log of `ltid` spawned. */
static int spawned_by(const char *dir, int ltid, int **ids, int *n,
                      size_t *cap)
{
    char path[PATH_MAX + 64];
    pg_event ev;
    pg_logr *r;
    int i;

    pg_log_path(path, sizeof path, dir, ltid, PG_LOG_EXEC);
    if (!(r = pg_logr_open(path, PG_LOG_EXEC, NULL, NULL)))
        return 0; /* said as missing or unreadable by the caller */
    while (pg_logr_next(r, &ev, NULL) == 1)
        for (i = 0; ev.kind == PG_EV_SPAWN && i < ev.nchild; i++) {
            if (ev.child_ltid[i] < 0)
                continue;
            if (pg_grow(ids, cap, (size_t)*n + 1, sizeof **ids) < 0)
                return pg_logr_close(r), -1;
            (*ids)[(*n)++] = ev.child_ltid[i];
        }
    pg_logr_close(r);
    return 0;
}

/* Says (into msg, if it is the first) what is wrong with one log of a
 * task: missing, or not a regular file.  1 if something is. */
static int log_problem(const char *dir, int ltid, pg_log_kind kind,
                       char *msg, size_t size, int nth)
{
    char path[PATH_MAX + 64];
    struct stat st;
    const char *what;

    pg_log_path(path, sizeof path, dir, ltid, kind);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
        return 0;
    what = lstat(path, &st) < 0  ? "is missing"
           : S_ISFIFO(st.st_mode) ? "is a FIFO, not a log file"
                                  : "is not a regular file";
    if (nth == 0)
        snprintf(msg, size, "%s %s (ltid %d)", path, what, ltid);
    return 1;
}

int top_logs_missing(const char *dir, char *msg, size_t size)
{
    int *ids = NULL, n, i, k, bad = 0, known;
    size_t cap;

    msg[0] = 0;
    if ((n = top_log_ltids(dir, 1, &ids)) < 0)
        return 0; /* the caller's own reading names the directory */
    cap = (size_t)n;
    known = n;
    for (i = 0; i < known; i++)
        if (spawned_by(dir, ids[i], &ids, &n, &cap) < 0)
            break;
    if (n > 1)
        qsort(ids, (size_t)n, sizeof *ids, cmp_int);
    for (i = 0; i < n; i++) {
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        for (k = 0; k < 2; k++)
            bad += log_problem(dir, ids[i], k ? PG_LOG_EXEC : PG_LOG_COMM,
                               msg + strlen(msg), size - strlen(msg), bad);
    }
    free(ids);
    if (bad > 1)
        snprintf(msg + strlen(msg), size - strlen(msg), ", and %d more log%s",
                 bad - 1, bad > 2 ? "s" : "");
    return bad;
}

void top_note_missing(const char *dir)
{
    char msg[PATH_MAX + 200];

    if (top_logs_missing(dir, msg, sizeof msg) > 0)
        fprintf(stderr, "pangaea: the recording in %s is not whole: %s; "
                "what follows leaves out what those logs held\n", dir, msg);
}

int top_find_ltid(const void *tasks, int n, size_t size, int ltid)
{
    const char *base = tasks;
    int lo = 0, hi = n - 1, mid, here;

    while (lo <= hi) {
        mid = lo + (hi - lo) / 2;
        memcpy(&here, base + (size_t)mid * size, sizeof here);
        if (here == ltid)
            return mid;
        if (here < ltid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}
