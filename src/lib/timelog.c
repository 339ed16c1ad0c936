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
static size_t used, size;        /* recording: used of size */
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
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
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

/* Replay: the whole file, read on the first call, from the recording
 * replayed or, in a what-if, the one it forks (pg_whatif_dir): a what-if
 * task reads the values of the part it follows and writes them again, so
 * reading keeps a state of its own. */
static struct {
    int fd, failed;
    unsigned char *buf;
    size_t size, pos;
    long nrec;
    int64_t last_sec[PG_TIME_CLOCKS];
    char path[4200];
} rd = { -1, 0, NULL, 0, 0, 0, { 0 }, "" };

static int open_read(void)
{
    ssize_t r;
    size_t cap = BUF;

    snprintf(rd.path, sizeof rd.path, "%s/ltid-%d.time.pgc", pg_whatif_dir(),
             pg.ltid);
    if ((rd.fd = open(rd.path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1; /* recorded with PANGAEA_TIME=0, or before time was */
    rd.buf = malloc(cap);
    for (rd.size = 0; rd.buf;) {
        if (rd.size == cap && !(rd.buf = realloc(rd.buf, cap *= 2)))
            break;
        r = read(rd.fd, rd.buf + rd.size, cap - rd.size);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        rd.size += (size_t)r;
    }
    if (!rd.buf)
        pg_fatal("out of memory reading %s", rd.path);
    if (rd.size < HEAD || memcmp(rd.buf, MAGIC, 4) || rd.buf[4] != VERSION) {
        pg_warn("%s is not a time file of this version: the replay reads "
                "the real clocks", rd.path);
        rd.size = 0;
    }
    rd.pos = HEAD;
    return 0;
}

/* The next varint of the file, into *u: 0 when it is cut or damaged. */
static int next_uv(uint64_t *u)
{
    size_t n = pg_get_uv(rd.buf + rd.pos, rd.buf + rd.size, u);

    rd.pos += n;
    return n > 0;
}

int pg_time_get(int code, int clock, int64_t *sec, int64_t *sub)
{
    uint64_t u;
    char msg[300];

    if (rd.fd < 0 && !rd.failed && open_read() < 0)
        rd.failed = 1;
    if (rd.failed || rd.pos >= rd.size)
        return 0;
    if (rd.buf[rd.pos] != code && !pg.started) {
        /* Not a PVM task yet: a script's interpreter, say, whose calls
         * were never recorded; it reads the real clocks. */
        rd.failed = 1;
        return 0;
    }
    if (rd.buf[rd.pos] != code) {
        snprintf(msg, sizeof msg, "at time value %ld: recorded a call of "
                 "kind %d, the program made one of kind %d (%s)",
                 rd.nrec + 1, rd.buf[rd.pos], code, "1 gettimeofday, 2 time, "
                 "3 clock_gettime, 4 getpid");
        pg_warn("replay diverged %s", msg);
        pg_end_task(PG_REP_DIVERGED, msg, PG_EXIT_DIVERGED);
    }
    rd.pos++;
    if (code == PG_TIME_CLOCK && (!next_uv(&u) || (int)u != clock))
        goto bad;
    if (!next_uv(&u))
        goto bad;
    *sec = rd.last_sec[clock] += pg_unzig(u);
    if (code == PG_TIME_TOD || code == PG_TIME_CLOCK) {
        if (!next_uv(&u))
            goto bad;
        *sub = (int64_t)u;
    }
    rd.nrec++;
    return 1;
bad:
    pg_warn("%s: time value %ld is cut short or damaged: the replay reads "
            "the real clocks from here", rd.path, rd.nrec + 1);
    rd.failed = 1;
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
    if (rd.fd >= 0)
        close(rd.fd);
    fd = rd.fd = -1;
    failed = rd.failed = 1; /* nothing after the end */
}
