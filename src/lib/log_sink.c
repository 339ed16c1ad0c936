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
 * grows; the file is grown ahead of it with ftruncate.  Until the log is
 * closed its tail past the written bytes is zeros, which the reader takes as
 * the end of the data (a log cut short by a crash); each write stores its
 * first byte last, so that a death in the middle of one leaves that write
 * past the end.  Closing truncates the
 * file to exactly what was written.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log_sink.h"

#define WINDOW (1024 * 1024) /* bytes mapped at a time */

struct pg_sink {
    int fd;
    char *map;      /* the window: file bytes [off, off + len) */
    size_t off, len;
    size_t used;    /* bytes written */
    size_t size;    /* the file's length meanwhile (zeros past `used`) */
};

/* Maps a window that starts at the page holding `used` and holds `need`
 * more bytes, growing the file first.  Only a window is mapped, so a task
 * writing a long log does not grow in memory. */
static int move_window(pg_sink *s, size_t need)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), off = s->used / page * page;
    size_t len = WINDOW;
    void *map;

    while (len < s->used - off + need)
        len *= 2;
    if (off + len > s->size) {
        if (ftruncate(s->fd, (off_t)(off + len)) < 0)
            return -1;
        s->size = off + len;
    }
    if (s->map && munmap(s->map, s->len) < 0)
        return -1;
    s->map = NULL;
    map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);
    if (map == MAP_FAILED)
        return -1;
    s->map = map;
    s->off = off;
    s->len = len;
    return 0;
}

pg_sink *pg_sink_open(const char *path, pg_err *err)
{
    pg_sink *s = calloc(1, sizeof *s);

    if (!s) {
        pg_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    s->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s->fd < 0 || move_window(s, 0) < 0) {
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

int pg_sink_write(void *ctx, const char *buf, int len)
{
    pg_sink *s = ctx;

    if (len < 0)
        return -1;
    if (s->used + (size_t)len > s->off + s->len && move_window(s, len) < 0)
        return -1;
    copy_first_byte_last(s->map + (s->used - s->off), buf, (size_t)len);
    s->used += len;
    return len;
}

size_t pg_sink_tell(const pg_sink *s)
{
    return s->used;
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
