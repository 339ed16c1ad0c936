/*
 * log_sink.c - where a log's bytes go: a file mapped into memory.
 *
 * A log must keep every event a task completed, even when the task is then
 * killed with SIGKILL, and writing it must cost next to nothing per event.
 * A memory-mapped file gives both: each event is copied into the shared
 * mapping (no system call), and the kernel owns those pages the moment they
 * are written, so they reach the file whatever happens to the process.
 *
 * Only a window of the file (1 MiB) is mapped at a time, moved on as the log
 * grows; the file is grown ahead of it with posix_fallocate, not ftruncate:
 * a store into a page of a sparse file that the file system has no room
 * for kills the task with SIGBUS, while space reserved beforehand makes a
 * full disk an error value, said as "no space left on MOUNT while writing
 * FILE", with every event before it still in the file.  Until the log is
 * closed its tail past the written bytes is zeros, which the reader takes as
 * the end of the data (a log cut short by a crash); each write stores its
 * first byte last, so that a death in the middle of one leaves that write
 * past the end.  The binary writer's sends and receives skip the copy:
 * pg_sink_room hands out the window's bytes at the end of the data, the
 * writer encodes into them (first byte last, the same rule) and
 * pg_sink_commit counts them.  Closing truncates the
 * file to exactly what was written.
 *
 * The file grows in steps doubling from 4 KiB to 64 KiB: a short log
 * takes a block, not 64 KiB, so a run of many tasks needs about the room
 * its logs take in the end.
 *
 * Also here, as the lowest layer that knows log files: the identity of
 * the recording the writers put in every header (pg_log_recording), their
 * names (pg_log_name_split), opening them to read without blocking, regular
 * files only (pg_log_open_read: a FIFO in place of a log would hang its
 * reader), and why a write failed (pg_write_why), for every log.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "log_sink.h"
#include "pg_log.h"

#define WINDOW (1024 * 1024) /* bytes mapped at a time */
#define RESERVE (64 * 1024)  /* bytes the file grows by, at most */
#define RESERVE_MIN 4096     /* and at first */


/* The mount point of the file system holding fd, from mountinfo (the last
 * mount of that device wins, as it is the one on top). */
static void mount_of(int fd, char *out, size_t size)
{
    char line[8192], mnt[4096];
    unsigned maj, min;
    struct stat st;
    FILE *f;

    snprintf(out, size, "its file system");
    if (fstat(fd, &st) < 0 || !(f = fopen("/proc/self/mountinfo", "re")))
        return;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &min, mnt) == 3 &&
            maj == major(st.st_dev) && min == minor(st.st_dev))
            snprintf(out, size, "%s", mnt);
    fclose(f);
}

/* ---- the recording's identity ---------------------------------------- */
static char recording[PG_LOG_RECORDING_MAX + 1];

int pg_log_recording_ok(const char *id)
{
    size_t n = id ? strlen(id) : 0;

    return id && n <= PG_LOG_RECORDING_MAX &&
           strspn(id, "0123456789abcdef") == n;
}

void pg_log_recording_set(const char *id)
{
    snprintf(recording, sizeof recording, "%s",
             pg_log_recording_ok(id) ? id : "");
}

const char *pg_log_recording(void)
{
    return recording;
}

int pg_log_recording_new(char *buf, size_t size)
{
    unsigned char r[8];
    size_t i;

    if (size < 2 * sizeof r + 1 || getrandom(r, sizeof r, 0) != sizeof r)
        return -1;
    for (i = 0; i < sizeof r; i++)
        snprintf(buf + 2 * i, 3, "%02x", r[i]);
    return 0;
}

int pg_log_name_split(const char *name, const char **rest)
{
    const char *p = name + 5;
    long n = 0;

    if (strncmp(name, "ltid-", 5) || *p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((n = n * 10 + (*p - '0')) > INT_MAX)
            return -1;
    if (*p != '.')
        return -1;
    if (rest)
        *rest = p + 1;
    return (int)n;
}

int pg_log_regular(int fd, const char *path, pg_err *err)
{
    struct stat st;
    const char *what;

    if (fstat(fd, &st) < 0)
        return pg_err_set(err, "cannot read %s: %s", path, strerror(errno));
    if (S_ISREG(st.st_mode))
        return 0;
    what = S_ISFIFO(st.st_mode)  ? "a FIFO"
           : S_ISDIR(st.st_mode) ? "a directory"
           : S_ISSOCK(st.st_mode) ? "a socket"
           : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                      : "a special file";
    return pg_err_set(err, "%s is %s, not a log file: move it away",
                      path, what);
}

int pg_log_open_read(const char *path, pg_err *err)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0)
        return pg_err_set(err, "%s: %s", path, strerror(errno));
    if (pg_log_regular(fd, path, err) < 0) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

void pg_write_why(int fd, const char *path, int errnum, char *out,
                  size_t size)
{
    char mnt[4096];

    if (errnum == ENOSPC || errnum == EDQUOT) {
        mount_of(fd, mnt, sizeof mnt);
        snprintf(out, size, "no space left on %s while writing %s%s", mnt,
                 path, errnum == EDQUOT ? " (disk quota)" : "");
    } else
        snprintf(out, size, "cannot write %s: %s", path, strerror(errnum));
}

/* Grows the file to `to` bytes with the blocks allocated.  A file system
 * that cannot allocate ahead (EOPNOTSUPP, EINVAL) is grown sparse. */
static int reserve(pg_sink *s, size_t to)
{
    int rc = posix_fallocate(s->fd, (off_t)s->size, (off_t)(to - s->size));

    if (rc == EOPNOTSUPP || rc == EINVAL)
        rc = ftruncate(s->fd, (off_t)to) < 0 ? errno : 0;
    if (rc == ENOSPC || rc == EDQUOT)
        pg_write_why(s->fd, s->path, rc, s->why, sizeof s->why);
    else if (rc)
        snprintf(s->why, sizeof s->why, "cannot grow %s: %s", s->path,
                 strerror(rc));
    errno = rc;
    return rc ? -1 : 0;
}

/* Pre-faults the window's pages that the file now holds, in one system
 * call: a page fault per 4 KiB page of a growing log (with the kernel's
 * read-ahead on the reserved blocks) cost more than encoding the events.
 * A kernel without MADV_POPULATE_WRITE (before 5.14) faults them as they
 * are written, as before. */
static void populate(pg_sink *s)
{
#ifdef MADV_POPULATE_WRITE
    size_t from = s->populated > s->off ? s->populated : s->off;
    size_t to = s->size < s->off + s->len ? s->size : s->off + s->len;

    if (!s->map || from >= to)
        return;
    madvise(s->map + (from - s->off), to - from, MADV_POPULATE_WRITE);
    s->populated = to;
#else
    (void)s;
#endif
}

/* Makes the file hold `need` more bytes past `used`, in steps that
 * double from 4 KiB to RESERVE: a log of a few events holds a block, not
 * 64 KiB, so a run of many small tasks needs about the room its logs take
 * in the end (a syscall every 64 KiB of a long log is nothing).  The
 * window may reach past the end of the file: nothing is stored there
 * before this has made room. */
static int make_room(pg_sink *s, size_t need)
{
    size_t to, step = s->size < RESERVE_MIN ? RESERVE_MIN
                      : s->size < RESERVE   ? s->size
                                            : RESERVE;

    if (s->used + need <= s->size)
        return 0;
    to = (s->used + need + step - 1) / step * step;
    if (reserve(s, to) < 0)
        return -1;
    s->size = to;
    populate(s);
    return 0;
}

/* Maps a window that starts at the page holding `used` and holds `need`
 * more bytes.  Only a window is mapped, so a task writing a long log does
 * not grow in memory. */
static int move_window(pg_sink *s, size_t need)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t from = s->keep < s->used ? s->keep : s->used;
    size_t off = from / page * page, len = WINDOW;
    void *map;

    while (len < s->used - off + need)
        len *= 2;
    if (s->map && munmap(s->map, s->len) < 0)
        return -1;
    s->map = NULL;
    map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);
    if (map == MAP_FAILED)
        return -1;
    s->map = map;
    s->off = off;
    s->len = len;
    madvise(map, len, MADV_RANDOM); /* no read-ahead of unwritten blocks */
    populate(s);
    return 0;
}

pg_sink *pg_sink_open(const char *path, pg_err *err)
{
    pg_sink *s = calloc(1, sizeof *s);

    if (!s) {
        pg_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    s->keep = (size_t)-1;
    /* O_NOFOLLOW: a link planted where a log goes must not make us write
     * (and truncate) whatever it points to. */
    s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                 0600); /* 0600: a log holds the program's input and args */
    if (s->fd < 0 || make_room(s, 1) < 0 || move_window(s, 0) < 0) {
        if (s->why[0])
            pg_err_set(err, "%s", s->why);
        else
            pg_err_set(err, "%s: %s", path, strerror(errno));
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        return NULL;
    }
    return s;
}

/* A task can die in the middle of copying an event (a signal lands at any
 * instruction).  The first byte is stored last, after a compiler barrier:
 * until it is, the event starts with the zero that ends the data, so a
 * reader sees whole events or nothing of the last one.  Stores of the dying
 * thread are not reordered as seen after its death. */
static void copy_first_byte_last(char *dst, const char *src, size_t n)
{
    if (n == 0)
        return;
    assert(src[0] != 0);
    memcpy(dst + 1, src + 1, n - 1);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *(volatile char *)dst = src[0];
}

/* Small writes (an event) copied byte by byte, from the end: a call to
 * memcpy costs more than the copy. */
static void copy_small_first_byte_last(char *dst, const char *src, size_t n)
{
    size_t i;

    assert(src[0] != 0);
    for (i = n - 1; i > 0; i--)
        dst[i] = src[i];
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    *(volatile char *)dst = src[0];
}

int pg_sink_write(void *ctx, const char *buf, int len)
{
    pg_sink *s = ctx;

    if (len < 0)
        return -1;
    if (make_room(s, (size_t)len) < 0)
        return -1; /* the window and what it holds are as they were */
    if (s->used + (size_t)len > s->off + s->len && move_window(s, len) < 0)
        return -1;
    if (len > 0 && len <= 16)
        copy_small_first_byte_last(s->map + (s->used - s->off), buf,
                                   (size_t)len);
    else
        copy_first_byte_last(s->map + (s->used - s->off), buf, (size_t)len);
    s->used += len;
    return len;
}

/* The writer's way for events (format 4): it encodes straight into the
 * window, no staging copy, with this one bounds check per event. */
unsigned char *pg_sink_room_slow(pg_sink *s, size_t need)
{
    if (make_room(s, need) < 0)
        return NULL;
    if (s->used + need > s->off + s->len && move_window(s, need) < 0)
        return NULL;
    return (unsigned char *)s->map + (s->used - s->off);
}

unsigned char *pg_sink_at(const pg_sink *s, size_t mark)
{
    assert(mark >= s->off && mark <= s->used);
    return (unsigned char *)s->map + (mark - s->off);
}

const char *pg_sink_why(const pg_sink *s)
{
    return s && s->why[0] ? s->why : NULL;
}

void pg_sink_keep(pg_sink *s, size_t mark)
{
    s->keep = mark;
}

const unsigned char *pg_sink_data(const pg_sink *s, size_t mark)
{
    assert(mark >= s->off && mark <= s->used);
    return (const unsigned char *)s->map + (mark - s->off);
}

void pg_sink_rewind(pg_sink *s, size_t mark)
{
    char *at = s->map + (mark - s->off);

    assert(mark <= s->used && mark >= s->off);
    if (mark == s->used)
        return;
    *(volatile char *)at = 0; /* first: the data end here at once */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    memset(at + 1, 0, s->used - mark - 1);
    s->used = mark;
}

int pg_sink_close(void *ctx)
{
    pg_sink *s = ctx;
    int rc = 0;

    if (s->map && munmap(s->map, s->len) < 0)
        rc = -1;
    if (ftruncate(s->fd, (off_t)s->used) < 0)
        rc = -1;
    if (close(s->fd) < 0)
        rc = -1;
    free(s);
    return rc;
}
