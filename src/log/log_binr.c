/*
 * log_binr.c - reads a binary communication log (docs/comm-log-format.md,
 * formats 1 to 4) back one event at a time, from the event table.
 *
 * Design.  The file is mapped read-only (advised sequential, so pages
 * behind the reader can go): decoding is pointer arithmetic, and what the
 * reader allocates is bounded by the largest event, never by the log.
 * No event of a block is returned before the block is known good.  In
 * format 4 a sealed block starts with its length, so its CRC-32C is
 * checked and its events decoded in one pass; formats 1 to 3 (and a
 * format-4 block still open) are walked first to find where the block
 * ends (sends and receives by the lengths of their varints alone, the
 * rare other kinds decoded), then decoded.  So a corrupt block is named
 * (file, byte offset, the last good event) and everything before it has
 * been read normally.  A block with no trailer, whose data stop at a zero
 * byte or the end of the file, is the last one of a task that was killed
 * or crashed (every event is written first byte last, and that byte is
 * never zero): its events are returned, then "stops after event N" with
 * pg_br_cut() true.  Format 4's predictions (the slots of log_bin.h) are
 * replayed exactly as the writer made them.  This file owns the framing;
 * an event's bytes are decoded and checked by log_binr_event.c (shared
 * state in log_binr.h), so random bytes give an error, never a crash or
 * unbounded memory.
 */
#include "log_binr.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log_table.h"

/* ---- blocks ------------------------------------------------------------ */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Skips the varint at p: where the next value starts, or NULL when it is
 * longer than a varint can be or runs past end. */
static inline const unsigned char *skip_uv(const unsigned char *p,
                                           const unsigned char *end)
{
    const unsigned char *stop = end - p > PG_BIN_VARINT_MAX
                                ? p + PG_BIN_VARINT_MAX : end;

    while (p < stop)
        if (!(*p++ & 0x80))
            return p;
    return NULL;
}

/* Skips the send or receive at c->p: only the lengths of its values are
 * looked at (the second pass decodes and checks them).  Version 3's kinds
 * have their new fields last: 4 of a receive, a send's site after its
 * list; version 4's note follows the head (v4: 1); version 5's head may
 * hold a receive's wait (bit 1 of the time varint, v5: 1); version 6's
 * MPI_Irecv receive ends with its posting (v6: 1); version 7's note
 * ends with the context (v7: 1). */
static int skip_msg(struct cur *c, int min, int v4, int v5, int v6, int v7,
                    int v8)
{
    const unsigned char *p = c->p + 1;
    int kind = *c->p & 15, k, x = kind >= PG_BIN_SEND_X;
    uint64_t n;
    size_t got;

    if (p >= c->end)
        return c->why = "the time", -1;
    if (x)
        kind = kind == PG_BIN_SEND_X ? PG_EV_SEND : PG_EV_RECV;
    /* time [misses] fields */
    k = (*p & 1) + (v5 && (*p & 2)) + min +
        (kind == PG_EV_RECV ? 5 + 4 * x : 4 + x * v4) +
        (kind == PG_EV_RECV && v6 && *c->p >> 4 == PG_MSG_CALL_POSTED) +
        (x && v7);
    while (k-- > 0 && p)
        p = skip_uv(p, c->end);
    if (p && kind == PG_EV_SEND) {
        if (!(got = pg_get_uv(p, c->end, &n)) || n > PG_LOG_MAX_LIST)
            return c->why = "a count of destinations", -1;
        for (p += got, n += (uint64_t)(x && !v4); n-- > 0 && p;)
            p = skip_uv(p, c->end);
    }
    if (p && v8 && kind == PG_EV_RECV && *c->p >> 4 == PG_MSG_CALL_POSTED) {
        if (!(got = pg_get_uv(p, c->end, &n)) || n > PG_LOG_MAX_LIST)
            return c->why = "a count of rivals", -1;
        for (p += got; n-- > 0 && p;) /* format 8: an MPI_Irecv's rivals */
            p = skip_uv(p, c->end);
    }
    if (!p)
        return c->why = "a value longer than a varint or the file", -1;
    c->p = p;
    return 0;
}

/* Walks the events from byte `from` without returning them, to where
 * they stop: a trailer byte, a zero or the end of the file (r->end).
 * Sends and receives are only skipped; the other kinds are decoded. */
static int walk(pg_br *r, size_t from, long *n, pg_err *err)
{
    struct cur c = { r->map + from, r->map + r->size, NULL };
    pg_event ev;
    struct raw raw;

    *n = 0;
    while (c.p < c.end && *c.p && *c.p != PG_BIN_SEAL &&
           *c.p != PG_BIN_LAST) {
        const unsigned char *at = c.p;

        if (is_msg(r, *c.p) ? skip_msg(&c, r->min, r->version >= 4,
                                       r->version >= 5, r->version >= 6,
                                       r->version >= 7, r->version >= 8)
                            : pg_brx_decode(r, &c, &ev, &raw))
            return pg_brx_fail(r, err, "byte offset %zu: corrupt or torn event "
                        "(%s) in the block at byte offset %zu; the last "
                        "good event is %ld", (size_t)(at - r->map), c.why,
                        r->block, r->seq);
        ++*n;
        r->decoded++;
    }
    r->end = (size_t)(c.p - r->map);
    r->scanned = 1;
    return 0;
}

/* Formats 1 to 3: first pass over the block at r->block, where its
 * events end and whether its trailer and CRC are right.  Nothing is
 * returned yet. */
static int scan_block(pg_br *r, pg_err *err)
{
    const unsigned char *t;
    long n;

    if (walk(r, r->block, &n, err))
        return -1;
    t = r->map + r->end;
    r->open = r->end == r->size || !*t;
    if (r->open)
        return 0;
    if (r->size - r->end < 5 ||
        le32(t + 1) != pg_crc32(0, r->map + r->block, r->end + 1 - r->block))
        return pg_brx_fail(r, err, "byte offset %zu: the block there (events %ld to "
                    "%ld) fails its CRC: corrupt; the last good event is %ld",
                    r->block, r->seq + 1, r->seq + n, r->seq);
    r->last = *t == PG_BIN_LAST;
    return 0;
}

/* A block's length as the file holds it now: a reader of a log still
 * being written (the live view) may see a block sealed while it walks
 * it, its length stored before its trailer. */
static uint32_t len_now(const pg_br *r, size_t b)
{
    const volatile unsigned char *p = r->map + b;

    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static int bad_length(pg_br *r, pg_err *err, uint32_t len)
{
    return pg_brx_fail(r, err, "byte offset %zu: the block there is corrupt: its "
                "length %u does not lead to its trailer; the last good "
                "event is %ld", r->block, len, r->seq);
}

/* Format 4: the block at r->block from its length, in one pass.  A sealed
 * one (its length L leads to a trailer byte) has its CRC-32C checked over
 * its first L bytes, and its events are then decoded up to the trailer.
 * An open one (L = 0: its task died, or the log is being written) is
 * walked to where its data stop; so is one whose trailer is not there yet
 * (the task died while sealing it), whose events must then end exactly
 * where L says. */
static int scan_block4(pg_br *r, pg_err *err)
{
    size_t b = r->block, d = b + PG_BIN_LEN, t;
    uint32_t len;
    long n;

    r->scanned = 1;
    if (r->size - b < PG_BIN_LEN) { /* the data end before the block */
        r->pos = r->end = b;
        r->open = 1;
        return 0;
    }
    len = le32(r->map + b);
    if (r->pos < d) /* else read again (pg_br_follow): past what was returned */
        r->pos = d;
again:
    t = b + len - 1; /* the marker, when sealed */
    if (len == 0 || (len >= PG_BIN_TRAILER && (t >= r->size || !r->map[t]))) {
        if (walk(r, d, &n, err))
            return -1;
        r->open = 1;
        if (len == 0 && (r->end == r->size || !r->map[r->end]))
            return 0;
        if (len && r->end == (t < r->size ? t : r->size))
            return 0;
        if (len == 0 && (len = len_now(r, b)) != 0)
            goto again; /* sealed while we walked (a live view's read) */
        return bad_length(r, err, len);
    }
    if (len < PG_BIN_TRAILER ||
        (r->map[t] != PG_BIN_SEAL && r->map[t] != PG_BIN_LAST))
        return bad_length(r, err, len);
    if (r->size - t - 1 < 4 || le32(r->map + t + 1) !=
                               pg_crc32c(0, r->map + b, len))
        return pg_brx_fail(r, err, "byte offset %zu: the block there fails its CRC: "
                    "corrupt; the last good event is %ld", b, r->seq);
    r->end = t;
    r->open = 0;
    r->last = r->map[t] == PG_BIN_LAST;
    return 0;
}

/* Gives back the pages of the blocks already returned, every MiB: they
 * are never read again, and a mapped file's pages count in the task's
 * resident memory until unmapped, so a long replay would otherwise hold
 * its whole log (1.9x the memory at 10^6 messages in `make bench`). */
static void drop_behind(pg_br *r)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), to = r->block / page * page;

    if (to - r->dropped < (1u << 20))
        return;
    madvise((char *)r->map + r->dropped, to - r->dropped, MADV_DONTNEED);
    r->dropped = to;
}

/* At the end of a block's events: the data stop (a death), the log ends
 * (closed), or the next block starts. */
static int next_block(pg_br *r, pg_err *err)
{
    size_t i;

    if (r->open) {
        r->cut = r->retry = 1;
        return pg_brx_fail(r, err, "stops after event %ld without closing: the task "
                    "was killed or crashed, or the file was cut", r->seq);
    }
    r->pos = r->end + 5;
    r->scanned = 0;
    r->block = r->pos;
    drop_behind(r);
    if (!r->last)
        return 1;
    for (i = r->pos; i < r->size; i++) /* zeros: closed but not yet cut */
        if (r->map[i])
            return pg_brx_fail(r, err, "byte offset %zu: content after the end of "
                        "the log", i);
    r->done = 1;
    return 0;
}

int pg_br_next(pg_br *r, pg_event *ev, pg_err *err)
{
    struct cur c;
    struct raw raw;
    int rc;

    if (r->failed) {
        if (err)
            *err = r->fail;
        return -1;
    }
    while (!r->done && (!r->scanned || r->pos == r->end)) {
        if (!r->scanned &&
            (r->version >= 4 ? scan_block4(r, err) : scan_block(r, err)))
            return r->retry = 1, -1;
        if (r->pos == r->end && (rc = next_block(r, err)) <= 0)
            return rc;
    }
    if (r->done)
        return 0;
    c = (struct cur){ r->map + r->pos, r->map + r->end, NULL };
    if (pg_brx_fast(r, &c, ev))
        ; /* the common send or receive, decoded and applied at once */
    else if (pg_brx_decode(r, &c, ev, &raw)) /* skipped in the first pass, not checked */
        return r->retry = r->open, /* its writer may be taking it back */
               pg_brx_fail(r, err, "byte offset %zu: corrupt event (%s) in the "
                    "block at byte offset %zu; the last good event is %ld",
                    r->pos, c.why, r->block, r->seq);
    else if (pg_brx_apply(r, ev, &raw, err))
        return -1;
    if (r->open && c.p == c.end) { /* the data's last event, for now */
        r->last_at = r->pos;
        r->last_end = (size_t)(c.p - r->map);
        r->last_crc = pg_crc32c(0, c.p - (r->last_end - r->pos),
                                r->last_end - r->pos);
    }
    r->pos = (size_t)(c.p - r->map);
    r->decoded++;
    return 1;
}

/* 1 when the last event returned is no longer what the file holds there:
 * its writer took it back (pg_bw_undo, a call that failed) and may have
 * written another in its place. */
static int taken_back(const pg_br *r)
{
    return r->last_end && (r->last_end > r->size ||
           pg_crc32c(0, r->map + r->last_at, r->last_end - r->last_at) !=
           r->last_crc);
}

/* A followed log shrinks once: its writer cuts off the zeros it grew the
 * file by when it closes (log_sink.c).  A page of the reader's mapping
 * wholly past the new end then faults (SIGBUS, BUS_ADRERR) instead of
 * reading the zeros it held, and the reader touches the first such page
 * when it looks for the end of the data: `pangaea -live` died so.  The
 * guard maps a page of zeros there: the reader sees what the file held
 * before the cut (zeros past its data, the end), and its next follow maps
 * the file at its new size.  Installed by the live view before it opens
 * a log being written, and by any follow: only a process that reads logs
 * as they are written has it, never a program's task (a task's own SIGBUS
 * handler stays its own); any other SIGBUS goes to the handler there was. */
static struct sigaction before_guard;
static uintptr_t guard_page;

static void on_shrunk(int sig, siginfo_t *si, void *uc)
{
    void *at = (void *)((uintptr_t)si->si_addr & ~(guard_page - 1));

    (void)sig, (void)uc;
    if (si->si_code == BUS_ADRERR && at &&
        mmap(at, guard_page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
             MAP_FIXED, -1, 0) != MAP_FAILED)
        return; /* the load is made again, and reads 0 */
    sigaction(SIGBUS, &before_guard, NULL); /* and the fault comes again */
}

void pg_logr_guard_shrinking(void)
{
    struct sigaction sa;

    if (guard_page)
        return;
    guard_page = (uintptr_t)sysconf(_SC_PAGESIZE);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_shrunk;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &before_guard);
}

/* Only a block's framing and a walk change when the reader goes over a
 * block again: an event's values are applied once, when it is returned
 * (pg_brx_apply), so the predictions, times and message ids carry on.
 * Only the last event of the data may change under it (taken back). */
int pg_br_follow(pg_br *r, pg_err *err)
{
    const unsigned char *map;
    struct stat st;
    int fd;

    if (r->done || (r->failed && !r->retry))
        return 0; /* the log ended, or is bad before its end */
    pg_logr_guard_shrinking();
    if ((fd = pg_log_open_read(r->path, err)) < 0)
        return -1;
    if (fstat(fd, &st) < 0 || st.st_size < 4)
        return close(fd), pg_err_set(err, "%s: cannot read it", r->path), -1;
    /* Mapped again when the size changed: the writer grows the file
     * ahead in zeros and cuts them off when it closes, and a page of the
     * old mapping wholly past the new end would not read (SIGBUS). */
    if ((size_t)st.st_size != r->size) {
        map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED)
            return close(fd), pg_err_set(err, "%s: cannot read it", r->path), -1;
        munmap((void *)r->map, r->size);
        r->map = map;
        r->size = (size_t)st.st_size;
        madvise((void *)r->map, r->size, MADV_SEQUENTIAL);
    }
    close(fd);
    if (taken_back(r))
        return 1; /* its state is past that event: read the log again */
    /* The writer pre-extends the file with zeros, so its size does not
     * say whether the open block grew: it is walked again (a block is
     * PG_BIN_BLOCK bytes), from where its events were last returned. */
    if (r->retry || (r->scanned && r->open))
        r->failed = r->cut = r->retry = r->scanned = 0;
    return 0;
}

long pg_br_decoded(const pg_br *r)
{
    return r ? r->decoded : 0;
}

/* ---- the header -------------------------------------------------------- */

static int get_hstr(pg_br *r, struct cur *c, char *out, size_t size)
{
    const char *s;

    r->used = 0;
    if (pg_brx_get_str(r, c, &s))
        return -1;
    if (strlen(s) >= size)
        return c->why = "a name too long", -1;
    strcpy(out, s);
    return 0;
}

static int read_header(pg_br *r, pg_log_header *h, pg_err *err)
{
    struct cur c = { r->map + 4, r->map + r->size, NULL };
    size_t n;

    if (r->size < 5 || r->map[4] < PG_LOG_VERSION_MIN ||
        r->map[4] > PG_LOG_VERSION)
        return pg_brx_fail(r, err, "written by log format version %d, this Pangaea "
                    "reads versions %d to %d", r->size < 5 ? 0 : r->map[4],
                    PG_LOG_VERSION_MIN, PG_LOG_VERSION);
    r->version = r->map[4];
    c.p++;
    memset(h, 0, sizeof *h);
    if (get_int(&c, 0, 0, &h->ltid, "the ltid") ||
        get_hstr(r, &c, h->program, sizeof h->program) ||
        get_hstr(r, &c, h->host, sizeof h->host) ||
        get_hstr(r, &c, h->select, sizeof h->select) ||
        (r->version >= 5 &&
         get_hstr(r, &c, h->recording, sizeof h->recording)))
        return pg_brx_fail(r, err, "a bad header (%s)", c.why);
    if (!pg_log_recording_ok(h->recording))
        return pg_brx_fail(r, err, "a bad header (its recording is not "
                           "hex digits)");
    n = (size_t)(c.p - r->map);
    if (c.end - c.p < 4 ||
        le32(c.p) != (r->version >= 4 ? pg_crc32c : pg_crc32)(0, r->map, n))
        return pg_brx_fail(r, err, "a corrupt header (its CRC is wrong)");
    h->kind = PG_LOG_COMM;
    h->version = r->version = r->map[4];
    r->min = pg_log_race_only(h->select);
    pg_brx_fast_init(r);
    r->pos = r->block = n + 4;
    return 0;
}

/* ---- the API ----------------------------------------------------------- */

int pg_br_is_binary(int fd)
{
    char magic[4];

    return pread(fd, magic, 4, 0) == 4 && !memcmp(magic, PG_BIN_MAGIC, 4);
}

pg_br *pg_br_open(const char *path, pg_log_header *hdr, pg_err *err)
{
    pg_br *r = calloc(1, sizeof *r);
    pg_log_header scratch;
    struct stat st;
    int fd;

    if (!r || !(r->path = strdup(path))) {
        free(r);
        pg_err_set(err, "%s: out of memory", path);
        return NULL;
    }
    fd = pg_log_open_read(path, err);
    if (fd < 0)
        r->failed = 1;
    else if (fstat(fd, &st) < 0 || st.st_size < 4 ||
        (r->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd,
                       0)) == MAP_FAILED) {
        r->map = NULL;
        pg_brx_fail(r, err, "cannot read it");
    } else {
        r->size = (size_t)st.st_size;
        madvise((void *)r->map, r->size, MADV_SEQUENTIAL);
        read_header(r, hdr ? hdr : &scratch, err);
    }
    if (fd >= 0)
        close(fd);
    if (r->failed) {
        pg_br_close(r);
        return NULL;
    }
    return r;
}

int pg_br_cut(const pg_br *r)
{
    return r && r->cut;
}

void pg_br_close(pg_br *r)
{
    if (!r)
        return;
    if (r->map)
        munmap((void *)r->map, r->size);
    pg_idmap_free(&r->last_from);
    free(r->to);
    free(r->path);
    free(r);
}
