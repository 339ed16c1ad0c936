/*
 * util.c - small things every part needs and none owns: a path's last
 * component, clocks that are never the program's, a file's SHA-256, a
 * stream copied into another.
 *
 * They are here, below the log format and the PVM runtime, so that the
 * analyses and pages (src/cli/analysis, view, ...) use them without
 * linking anything of PVM's.  SHA-256 from nettle (nettle-dev): small, no
 * global set-up or configuration files read into every task, unlike
 * libgcrypt or OpenSSL.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <nettle/sha2.h>

#include "pg_util.h"

int pg_copy_stream(FILE *to, FILE *from)
{
    char buf[65536];
    size_t n;

    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n)
            return -1;
    return ferror(from) ? -1 : 0;
}

const char *pg_basename(const char *path)
{
    const char *s = strrchr(path, '/');

    return s ? s + 1 : path;
}

/* libc's clock_gettime, not the one the runtime gives the program
 * (src/pvm/wrap/wrap_time.c): Pangaea's own time stamps are never
 * recorded or replayed. */
static int clock_now(clockid_t clk, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
    if (!real)
        return (int)syscall(SYS_clock_gettime, clk, ts);
    return real(clk, ts);
}

double pg_now(void)
{
    struct timespec ts;

    clock_now(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double pg_seconds(void)
{
    struct timespec ts;

    clock_now(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The SHA-256 of the open file fd, in hex; 0, or -1 (a read failed). */
static int fd_sum(int fd, char hex[65])
{
    struct sha256_ctx ctx;
    uint8_t digest[SHA256_DIGEST_SIZE], buf[65536];
    ssize_t n;
    int i;

    sha256_init(&ctx);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&ctx, n, buf);
    if (n < 0)
        return -1;
    sha256_digest(&ctx, sizeof digest, digest);
    for (i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return 0;
}

/* Only a regular file is read: the path may come from a log, and a FIFO
 * there would hang the reader (opened without waiting, then checked). */
int pg_file_sum(const char *path, char hex[65])
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), cc;
    struct stat st;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    cc = fd_sum(fd, hex);
    close(fd);
    return cc;
}

/* One item "L:E": E added if L is ltid. */
static void stop_item(const char *item, int ltid, long *events, int *n,
                      int max)
{
    char *end;
    long l = strtol(item, &end, 10), e;
    int i;

    if (end == item || *end != ':' || l != ltid)
        return;
    e = strtol(end + 1, &end, 10);
    if (e < 1 || (*end && *end != ',') || *n >= max)
        return;
    for (i = (*n)++; i > 0 && events[i - 1] > e; i--)
        events[i] = events[i - 1];
    events[i] = e;
}

void pg_stop_events(const char *list, int ltid, long *events, int *n,
                    int max)
{
    for (; list && *list;
         list = strchr(list, ',') ? strchr(list, ',') + 1 : "")
        stop_item(list, ltid, events, n, max);
}
