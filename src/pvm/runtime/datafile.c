/*
 * datafile.c - the contents a task's communication log refers to:
 * `ltid-N.data.pgc` (docs/comm-log-format.md, "The data file").
 *
 * The communication log holds what a replay must repeat in order (who sent
 * which message); some answers a replay must also give back byte for byte,
 * because nobody can produce them again: a message from a task outside the
 * run, a mailbox entry, the task table of pvm_tasks.  Those go here, one
 * record each, in the order their events were logged, so a replay reads
 * them back in the same order: no index, no key.  Kept out of the comm
 * log on purpose: its events stay small and its format unchanged, and a
 * recording without such answers has no data file at all.
 *
 * Each record is written with one write(2) of its length, CRC and bytes:
 * a task killed mid-write leaves whole records and a cut last one, which
 * the reader reports as the end.  The file is opened on the first record
 * (recording) or the first read (replay).  A what-if task does both: it
 * reads the answers of the part it follows from the recording it forks
 * (pg_whatif_dir) and writes them again, with the rest, into its own.
 *
 * Version 2's header names the task (its ltid) and the recording (the
 * identity of log_sink.c), with a CRC, as every log's header does: a data
 * file copied in from another task or recording is refused by name.
 * Version 1 (no ltid, no recording) is still read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_bin.h"
#include "pg_internal.h"
#include "pg_log.h"

#define MAGIC "PGDA"
#define VERSION 2
#define HEAD 8           /* magic, version, three zero bytes */
#define HEAD2 48         /* version 2: then the recording (32 bytes, NULs
                            after it), le32 ltid, le32 crc32c of the 44 */
#define MAX_RECORD (1u << 30)

static int fd = -1, rfd = -1; /* writing, reading */
static long nrec, nread;      /* records written, read */
static char path[4200], rpath[4200];

static void name_file(char *out, size_t size, const char *dir)
{
    snprintf(out, size, "%s/ltid-%d.data.pgc", dir, pg.ltid);
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

static uint32_t get_u32(const unsigned char *p)
{
    return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void write_all(const void *p, size_t n)
{
    const char *c = p;
    ssize_t w;

    while (n > 0) {
        w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            pg_fatal("cannot write %s: %s", path, strerror(errno));
        c += w, n -= (size_t)w;
    }
}

void pg_data_put(char type, const void *bytes, size_t n)
{
    unsigned char head[HEAD2] = { 0 }, *rec;
    uint32_t crc;

    if (fd < 0) {
        name_file(path, sizeof path, pg.logdir);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
                  O_NOFOLLOW, 0600); /* in a log dir: no link followed */
        if (fd < 0)
            pg_fatal("cannot create %s: %s", path, strerror(errno));
        memcpy(head, MAGIC, 4);
        head[4] = VERSION;
        memcpy(head + HEAD, pg_log_recording(), strlen(pg_log_recording()));
        put_u32(head + HEAD + 32, (uint32_t)pg.ltid);
        put_u32(head + HEAD + 36, pg_crc32c(0, head, HEAD + 36));
        write_all(head, HEAD2);
    }
    if (n + 1 > MAX_RECORD)
        pg_fatal("record %ld of %s: %zu bytes is too large", nrec + 1, path,
                 n);
    if (!(rec = malloc(n + 9)))
        pg_fatal("out of memory");
    rec[8] = (unsigned char)type;
    memcpy(rec + 9, bytes, n);
    crc = pg_crc32(0, rec + 8, n + 1);
    put_u32(rec, (uint32_t)n + 1);
    put_u32(rec + 4, crc);
    write_all(rec, n + 9);
    free(rec);
    nrec++;
}

static int read_all(void *p, size_t n)
{
    char *c = p;
    ssize_t r;

    while (n > 0) {
        r = read(rfd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

/* Replay: the recording's data file is bad input, as a bad log is. */
static void bad(const char *why) __attribute__((noreturn));
static void bad(const char *why)
{
    char msg[4400];

    snprintf(msg, sizeof msg, "%s, record %ld: %s", rpath, nread + 1, why);
    pg_warn("%s", msg);
    pg_end_task(PG_REP_BADLOG, msg, PG_EXIT_FATAL);
}

/* Version 2's header, after its first 8 bytes: whole, this task's, of
 * the recording its directory holds (log_read.c). */
static void check_head2(unsigned char *head)
{
    char id[33];
    pg_err err;

    if (read_all(head + HEAD, HEAD2 - HEAD) < 0 ||
        get_u32(head + HEAD + 36) != pg_crc32c(0, head, HEAD + 36))
        bad("its header is damaged (cut, or its CRC does not match)");
    if ((int)get_u32(head + HEAD + 32) != pg.ltid) {
        snprintf(id, sizeof id, "%d", (int)get_u32(head + HEAD + 32));
        pg_err_set(&err, "its header says ltid %s: the data file of another "
                   "task (swapped or copied logs?)", id);
        bad(err.msg);
    }
    memcpy(id, head + HEAD, 32);
    id[32] = 0;
    if (!pg_log_recording_ok(id))
        bad("its header is damaged (the recording)");
    if (pg_log_same_recording(rpath, id, &err) < 0)
        bad(err.msg);
}

void *pg_data_get(char type, size_t *n)
{
    unsigned char head[HEAD2], *rec;
    uint32_t len;

    if (rfd < 0) {
        pg_err err;

        name_file(rpath, sizeof rpath, pg_whatif_dir());
        rfd = pg_log_open_read(rpath, &err); /* a FIFO would block the task */
        if (rfd < 0)
            bad(err.msg);
        if (read_all(head, HEAD) < 0 || memcmp(head, MAGIC, 4))
            bad("not a Pangaea data file");
        if (head[4] < 1 || head[4] > VERSION)
            bad("a data file of another version");
        if (head[4] >= 2)
            check_head2(head);
    }
    if (read_all(head, 8) < 0)
        bad("the recording has no more data here (the task died?)");
    len = get_u32(head);
    if (len < 1 || len > MAX_RECORD || !(rec = malloc(len)))
        bad("a record of impossible length");
    if (read_all(rec, len) < 0)
        bad("cut short");
    if (pg_crc32(0, rec, len) != get_u32(head + 4))
        bad("its CRC does not match (damaged)");
    if ((char)rec[0] != type) {
        free(rec);
        bad("another kind of record than the event asks for");
    }
    nread++;
    *n = len - 1;
    memmove(rec, rec + 1, len - 1);
    return rec;
}

void pg_data_close(void)
{
    if (fd >= 0)
        close(fd);
    if (rfd >= 0)
        close(rfd);
    fd = rfd = -1;
}
