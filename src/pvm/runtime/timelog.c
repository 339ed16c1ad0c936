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
 *
 * Integrity, as the communication log has it (version 2 of the file):
 * each buffer is written as one chunk, its length and a CRC-32C of it
 * first, so a flipped byte is found (the pre-replay check reads every
 * time file through pg_time_check) and a chunk the task could not finish
 * writing (killed, or a full disk) is a cut file, not values read
 * wrongly.  A write that fails marks the log failed before anything else
 * runs: the exit path never writes the same buffer a second time.
 * Version 3 adds a header naming the task (its ltid) and the recording
 * (log_sink.c's identity), with a CRC: a time file copied in from another
 * task or recording is refused by name, as the communication log is.
 * Version 1 files (no chunks, no CRC) and 2 (no ltid, no recording) are
 * still read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_bin.h"
#include "log_sink.h"
#include "pg_internal.h"
#include "pg_log.h"

#define MAGIC "PGTM"
#define VERSION 3
#define HEAD 8            /* "PGTM", version, three zero bytes */
#define HEAD3 48          /* version 3: then the recording (32 bytes, NULs
                             after it), le32 ltid, le32 crc32c of the 44 */
#define CHUNK 12          /* a chunk's le32 length, its complement, crc32c */
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

static void put_le32(unsigned char *p, uint32_t v)
{
    p[0] = v & 0xff, p[1] = (v >> 8) & 0xff, p[2] = (v >> 16) & 0xff,
    p[3] = v >> 24;
}

static uint32_t get_le32(const unsigned char *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Writes n bytes; on failure the log is failed first, then the task ends
 * (pg_fatal's exit path calls pg_time_close, which then writes nothing). */
static void write_all(const unsigned char *p, size_t n)
{
    size_t off = 0;
    ssize_t w;
    char why[8500];

    while (off < n) {
        w = write(fd, p + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            failed = 1;
            used = CHUNK;
            pg_write_why(fd, path, errno, why, sizeof why);
            pg_fatal("%s", why);
        }
        off += (size_t)w;
    }
}

/* The buffered records as one chunk: length, its complement (a flipped
 * bit of the length is damage, not a cut file), CRC, records. */
static void flush(void)
{
    uint32_t n = (uint32_t)(used - CHUNK);

    if (used <= CHUNK)
        return;
    put_le32(buf, n);
    put_le32(buf + 4, ~n);
    put_le32(buf + 8, pg_crc32c(0, buf + CHUNK, n));
    write_all(buf, used);
    used = CHUNK;
}

/* The records wait in memory until the process is a PVM task (its
 * runtime started): a script's interpreter reads clocks too before it
 * execs the program, and those calls are not the program's (exec drops
 * them with the memory).  Then the file is made and they go there. */
static void open_write(void)
{
    unsigned char head[HEAD3] = { 'P', 'G', 'T', 'M', VERSION, 0, 0, 0 };

    memcpy(head + HEAD, pg_log_recording(), strlen(pg_log_recording()));
    put_le32(head + HEAD + 32, (uint32_t)pg.ltid);
    put_le32(head + HEAD + 36, pg_crc32c(0, head, HEAD + 36));
    name_file();
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
              0600); /* a log: no link followed, the user's alone */
    if (fd < 0) {
        failed = 1;
        pg_fatal("cannot create %s: %s", path, strerror(errno));
    }
    write_all(head, HEAD3);
}

static void room(size_t need)
{
    if (!buf) {
        if (!(buf = malloc(size = BUF)))
            pg_fatal("out of memory");
        used = CHUNK;
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

/* ---- reading ------------------------------------------------------------ */

/* The length of the record at p, 0 if it is damaged or cut. */
static size_t rec_len(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *q = p + 1;
    uint64_t u;
    size_t n;
    int code = p < end ? *p : 0, k, fields;

    if (code < PG_TIME_TOD || code > PG_TIME_PID)
        return 0;
    fields = 1 + (code == PG_TIME_CLOCK) +
             (code == PG_TIME_TOD || code == PG_TIME_CLOCK);
    for (k = 0; k < fields; k++, q += n)
        if (!(n = pg_get_uv(q, end, &u)) ||
            (k == 0 && code == PG_TIME_CLOCK && u >= PG_TIME_CLOCKS))
            return 0;
    return (size_t)(q - p);
}

/* The records of a version 2 or 3 file b (n bytes), moved together
 * right after its header (head bytes); *end is where they end.  0: whole;
 * 1: the last chunk is cut (its task died, or the disk was full); -1 and
 * err: a chunk is damaged (its records are left out, and those after
 * it). */
static int join_chunks(const char *file, unsigned char *b, size_t n,
                       size_t head, size_t *end, pg_err *err)
{
    size_t at = head, to = head, len;

    for (*end = head; at < n; at += CHUNK + len) {
        if (n - at < CHUNK)
            return 1;
        len = get_le32(b + at);
        if (len == 0 || get_le32(b + at + 4) != (uint32_t)~len)
            return pg_err_set(err, "%s: the chunk of time values at byte %zu "
                              "is damaged (its length)", file, at);
        if (len > n - at - CHUNK)
            return 1;
        if (get_le32(b + at + 8) != pg_crc32c(0, b + at + CHUNK, len))
            return pg_err_set(err, "%s: the chunk of time values at byte %zu "
                              "is damaged (its CRC does not match)", file, at);
        memmove(b + to, b + at + CHUNK, len);
        *end = to += len;
    }
    return 0;
}

/* A whole file, malloc'd, in *out (*n bytes); -1 and err if it cannot be
 * read.  Opened without blocking (a FIFO in its place would hang us) and
 * refused unless it is a regular file. */
static int slurp(const char *file, unsigned char **out, size_t *n,
                 pg_err *err)
{
    size_t cap = BUF;
    unsigned char *b = malloc(cap), *nb;
    ssize_t r;
    int f = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

    *out = NULL, *n = 0;
    if (f < 0 || pg_log_regular(f, file, err) < 0 || !b) {
        if (f < 0)
            pg_err_set(err, "cannot read %s: %s", file, strerror(errno));
        else if (!b)
            pg_err_set(err, "out of memory reading %s", file);
        free(b);
        if (f >= 0)
            close(f);
        return -1;
    }
    for (;;) {
        if (*n == cap && (nb = realloc(b, cap *= 2)))
            b = nb;
        else if (*n == cap)
            break;
        r = read(f, b + *n, cap - *n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        *n += (size_t)r;
    }
    close(f);
    *out = b;
    return 0;
}

/* Version 3's header: whole, the task's (the file is named ltid-N.*),
 * and, if `dir`, the recording's of its directory (log_read.c: it reads
 * ltid-0.exec.xml with libxml2, which reads clocks itself, so a replaying
 * task, inside its clock call, leaves that to pangaea's check before the
 * replay). */
static int check_head3(const char *file, const unsigned char *b, size_t n,
                       int dir, pg_err *err)
{
    char id[33];
    const char *base = strrchr(file, '/');
    int ltid = pg_log_name_split(base ? base + 1 : file, NULL);

    if (n < HEAD3 || get_le32(b + HEAD + 36) != pg_crc32c(0, b, HEAD + 36))
        return pg_err_set(err, "%s: its header is damaged (cut, or its CRC "
                          "does not match)", file);
    memcpy(id, b + HEAD, 32);
    id[32] = 0;
    if (!pg_log_recording_ok(id))
        return pg_err_set(err, "%s: its header is damaged (the recording)",
                          file);
    if (ltid >= 0 && (int)get_le32(b + HEAD + 32) != ltid)
        return pg_err_set(err, "%s: its header says ltid %d: the time file "
                          "of another task (swapped or copied logs?)", file,
                          (int)get_le32(b + HEAD + 32));
    return dir ? pg_log_same_recording(file, id, err) : 0;
}

/* The records of a file read whole: checks the header (its recording if
 * `dir`) and the chunks; *head is where they start, *end where they end.
 * 1: cut; 0: whole; -1 and err. */
static int time_records(const char *file, unsigned char *b, size_t n,
                        int dir, size_t *head, size_t *end, pg_err *err)
{
    *head = *end = HEAD; /* no values, unless the header is good */
    if (n < HEAD || memcmp(b, MAGIC, 4) || b[4] < 1 || b[4] > VERSION ||
        b[5] || b[6] || b[7])
        return pg_err_set(err, "%s is not a time file of a version this "
                          "pangaea reads (1 to %d)", file, VERSION);
    if (b[4] == 1) {
        *end = n;
        return 0;
    }
    if (b[4] >= 3 && check_head3(file, b, n, dir, err) < 0)
        return -1;
    *head = *end = b[4] >= 3 ? HEAD3 : HEAD;
    return join_chunks(file, b, n, *head, end, err);
}

int pg_time_check(const char *file, pg_err *err)
{
    unsigned char *b;
    size_t n, head, end, at, len;
    long k = 0;
    int cc;

    if (slurp(file, &b, &n, err) < 0)
        return -1;
    cc = time_records(file, b, n, 1, &head, &end, err);
    for (at = head; cc >= 0 && at < end; at += len, k++)
        if (!(len = rec_len(b + at, b + end)))
            cc = pg_err_set(err, "%s: time value %ld is damaged", file, k + 1);
    free(b);
    return cc < 0 ? -1 : 0;
}

/* Replay: the whole file, read on the first call, from the recording
 * replayed or, in a what-if, the one it forks (pg_whatif_dir): a what-if
 * task reads the values of the part it follows and writes them again, so
 * reading keeps a state of its own. */
static struct {
    int loaded, failed;
    unsigned char *buf;
    size_t size, pos;
    long nrec;
    int64_t last_sec[PG_TIME_CLOCKS];
    char path[4200];
} rd;

static int open_read(void)
{
    pg_err err;
    size_t head;
    int cc;

    snprintf(rd.path, sizeof rd.path, "%s/ltid-%d.time.pgc", pg_whatif_dir(),
             pg.ltid);
    if (access(rd.path, F_OK) < 0)
        return -1; /* recorded with PANGAEA_TIME=0, or before time was */
    if (slurp(rd.path, &rd.buf, &rd.size, &err) < 0)
        pg_fatal("%s", err.msg);
    cc = time_records(rd.path, rd.buf, rd.size, 0, &head, &rd.size, &err);
    if (cc < 0)
        pg_warn("%s: the replay reads the real clocks from there on",
                err.msg);
    rd.pos = head;
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

    if (!rd.loaded && !rd.failed && (rd.loaded = 1) && open_read() < 0)
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
        pg_replay_say_diverged(msg); /* once: pangaea says it */
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
    if (pg.mode == PANGAEA_LOG && !failed && buf && used > CHUNK) {
        if (fd < 0)
            open_write();
        flush();
    }
    if (fd >= 0)
        close(fd);
    fd = -1;
    failed = rd.failed = 1; /* nothing after the end */
}
