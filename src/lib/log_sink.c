/*
 * log_sink.c - where a log's bytes go: a file mapped into memory.
 *
 * A log must keep every event a task completed, even when the task is then
 * killed with SIGKILL, and writing it must cost next to nothing per event.
 * A memory-mapped file gives both: each event is copied into the shared
 * mapping (no system call), and the kernel owns those pages the moment they
 * are written, so they reach the file whatever happens to the process.
 *
 * The file is grown in steps (doubling) with ftruncate and remapped; until
 * the log is closed its tail past the written bytes is zeros, which the
 * reader takes as the end of the data (a log cut short by a crash).  Closing
 * truncates the file to exactly what was written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "log_sink.h"

#define FIRST_SIZE (256 * 1024)

struct pg_sink {
    int fd;
    char *map;
    size_t size;  /* bytes mapped (and the file's length meanwhile) */
    size_t used;  /* bytes written */
};

static int grow(pg_sink *s, size_t need)
{
    size_t size = s->size ? s->size : FIRST_SIZE;
    void *map;

    while (size < need)
        size *= 2;
    if (ftruncate(s->fd, (off_t)size) < 0)
        return -1;
    map = s->map ? mremap(s->map, s->size, size, MREMAP_MAYMOVE)
                 : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
    if (map == MAP_FAILED)
        return -1;
    s->map = map;
    s->size = size;
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
    if (s->fd < 0 || grow(s, FIRST_SIZE) < 0) {
        pg_err_set(err, "%s: %s", path, strerror(errno));
        if (s->fd >= 0)
            close(s->fd);
        free(s);
        return NULL;
    }
    return s;
}

int pg_sink_write(void *ctx, const char *buf, int len)
{
    pg_sink *s = ctx;

    if (len < 0)
        return -1;
    if (s->used + (size_t)len > s->size && grow(s, s->used + len) < 0)
        return -1;
    memcpy(s->map + s->used, buf, len);
    s->used += len;
    return len;
}

int pg_sink_close(void *ctx)
{
    pg_sink *s = ctx;
    int rc = 0;

    if (s->map && munmap(s->map, s->size) < 0)
        rc = -1;
    if (ftruncate(s->fd, (off_t)s->used) < 0)
        rc = -1;
    if (close(s->fd) < 0)
        rc = -1;
    free(s);
    return rc;
}
