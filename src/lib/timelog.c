/*
 * timelog.c - the values a task's clocks and getpid returned to the
 * program: `ltid-N.time.pgc` (docs/comm-log-format.md, "The time file").
 *
 * A program that seeds its random numbers from the clock, or decides by
 * elapsed time, takes other branches in a replay unless it reads the
 * recorded times again.  These calls are frequent and cheap, so they are
 * not events of the communication log: their values form a stream of
 * their own, one record per call in the order the program made them, and
 * a replay hands them back in the same order (the program, following the
 * recording, makes the same calls).  A record is a byte naming the call,
 * then its value as varints, seconds as a difference from the previous
 * value of the same clock: a few bytes a call.
 *
 * Records collect in a buffer written out when full and when the task
 * ends (pg_time_close); a task killed in between loses its last values,
 * and its replay reads the real clock from there on (said once).  Until
 * the process is a PVM task they stay in memory (room()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_bin.h"
#include "pg_internal.h"

#define MAGIC "PGTM"
#define VERSION 1
#define HEAD 8
#define BUF (64 * 1024)

static int fd = -1, failed;
static unsigned char *buf;
static size_t used, size, pos;   /* recording: used of size; replay: size, pos */
static long nrec;
static int64_t last_sec[PG_TIME_CLOCKS];
static char path[4200];

static void name_file(void)
{
    snprintf(path, sizeof path, "%s/ltid-%d.time.pgc", pg.logdir, pg.ltid);
}

static void flush(void)
{
    size_t off = 0;
    ssize_t w;

    while (off < used) {
        w = write(fd, buf + off, used - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            pg_fatal("cannot write %s: %s", path, strerror(errno));
        off += (size_t)w;
    }
    used = 0;
}

/* The records wait in memory until the process is a PVM task (its
 * runtime started): a script's interpreter reads clocks too before it
 * execs the program, and those calls are not the program's (exec drops
 * them with the memory).  Then the file is made and they go there. */
static void open_write(void)
{
    name_file();
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
              0600); /* a log: no link followed, the user's alone */
    if (fd < 0) {
        failed = 1;
        pg_fatal("cannot create %s: %s", path, strerror(errno));
    }
}

static void room(size_t need)
{
    if (!buf) {
        if (!(buf = malloc(size = BUF)))
            pg_fatal("out of memory");
        memcpy(buf, MAGIC, 4);
        buf[4] = VERSION, buf[5] = buf[6] = buf[7] = 0;
        used = HEAD;
    }
    if (fd < 0 && pg.started)
        open_write();
    if (used + need <= size)
        return;
    if (fd >= 0)
        flush();
    else if (!(buf = realloc(buf, size *= 2)))
        pg_fatal("out of memory");
}

void pg_time_put(int code, int clock, int64_t sec, int64_t sub)
{
    unsigned char *p;

    if (failed)
        return;
    room(1 + 3 * PG_BIN_VARINT_MAX);
    p = buf + used;
    *p++ = (unsigned char)code;
    if (code == PG_TIME_CLOCK)
        p += pg_put_uv(p, (uint64_t)clock);
    p += pg_put_uv(p, pg_zig(sec - last_sec[clock]));
    last_sec[clock] = sec;
    if (code == PG_TIME_TOD || code == PG_TIME_CLOCK)
        p += pg_put_uv(p, (uint64_t)sub);
    used = (size_t)(p - buf);
    nrec++;
}

/* Replay: the whole file, read on the first call. */
static int open_read(void)
{
    struct stat;
    ssize_t r;
    size_t cap = BUF;

    name_file();
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1; /* recorded with PANGAEA_TIME=0, or before time was */
    buf = malloc(cap);
    for (size = 0; buf;) {
        if (size == cap && !(buf = realloc(buf, cap *= 2)))
            break;
        r = read(fd, buf + size, cap - size);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        size += (size_t)r;
    }
    if (!buf)
        pg_fatal("out of memory reading %s", path);
    if (size < HEAD || memcmp(buf, MAGIC, 4) || buf[4] != VERSION) {
        pg_warn("%s is not a time file of this version: the replay reads "
                "the real clocks", path);
        size = 0;
    }
    pos = HEAD;
    return 0;
}

int pg_time_get(int code, int clock, int64_t *sec, int64_t *sub)
{
    uint64_t u;
    size_t n;
    char msg[300];

    if (fd < 0 && !failed && open_read() < 0)
        failed = 1;
    if (failed || pos >= size)
        return 0;
    if (buf[pos] != code && !pg.started) {
        /* Not a PVM task yet: a script's interpreter, say, whose calls
         * were never recorded; it reads the real clocks. */
        failed = 1;
        return 0;
    }
    if (buf[pos] != code) {
        snprintf(msg, sizeof msg, "at time value %ld: recorded a call of "
                 "kind %d, the program made one of kind %d (%s)", nrec + 1,
                 buf[pos], code, "1 gettimeofday, 2 time, 3 clock_gettime, "
                 "4 getpid");
        pg_warn("replay diverged %s", msg);
        pg_end_task(PG_REP_DIVERGED, msg, PG_EXIT_DIVERGED);
    }
    pos++;
    if (code == PG_TIME_CLOCK) {
        if (!(n = pg_get_uv(buf + pos, buf + size, &u)) || (int)u != clock)
            goto bad;
        pos += n;
    }
    if (!(n = pg_get_uv(buf + pos, buf + size, &u)))
        goto bad;
    pos += n;
    *sec = last_sec[clock] += pg_unzig(u);
    if (code == PG_TIME_TOD || code == PG_TIME_CLOCK) {
        if (!(n = pg_get_uv(buf + pos, buf + size, &u)))
            goto bad;
        pos += n;
        *sub = (int64_t)u;
    }
    nrec++;
    return 1;
bad:
    pg_warn("%s: time value %ld is cut short or damaged: the replay reads "
            "the real clocks from here", path, nrec + 1);
    failed = 1;
    return 0;
}

void pg_time_close(void)
{
    if (pg.mode == PANGAEA_LOG && !failed && buf && used > HEAD) {
        if (fd < 0)
            open_write();
        flush();
    }
    if (fd >= 0)
        close(fd);
    fd = -1;
    failed = 1; /* nothing after the end */
}
