/*
 * bufid.c - the buffer ids PVM gives the program (receives, new buffers):
 * recorded, and given back in replay.
 *
 * libpvm3 numbers a message when it reads the message's first fragment
 * off a socket, with the id freed last (docs/pvm-notes.md), inside
 * whatever PVM call runs when the bytes come: the id a receive returns
 * depends on arrival timing, in a recording and in a replay (whose index
 * takes every message as it comes: replay_index.c).  A program that
 * prints, compares or keeps those ids would see others in replay.  So:
 *  - recording: every receive of the program that returns a message
 *    (pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe, pvm_precv), each
 *    pvm_recvinfo (wrap_mbox.c), pvm_initsend and pvm_mkbuf (wrap_buf.c),
 *    in the order made, appends the id to the task's buffer-id file,
 *    ltid-N.bufids.pgc, an int32 each (the host's order: x86-64's, as
 *    the table layout below), gathered in memory and written a block at
 *    a time: a few instructions a call, no system call on its path;
 *  - a full replay reads the file a block at a time, and each receive
 *    that returns a message moves that message to the recorded id before
 *    the program sees it: PVM's table of buffers (`pvmmidh`, exported)
 *    maps an id to its `struct pmsg`, which holds its own id (at byte 44
 *    in libpvm3 3.4.6, checked on both buffers before each move).  When
 *    the recorded id is free, pvm_mkbuf is called until PVM hands it out,
 *    the two buffers change places, and the extra buffers are freed in
 *    the reverse order: PVM's list of free ids is as before, with the
 *    message's old id where the recorded one was.  When a message of the
 *    replay's index holds it, the two change places and the index is told
 *    (pg_rxi_swap_bufid).  Anything else holding it is left alone: a
 *    buffer of the program's or of Pangaea's, or a message still in
 *    PVM's queue (the matcher may have noted a queued notice by its id:
 *    notice.c); the id then differs, and the replay says so at the end.
 * The ids pvm_upkmesg returns and those a message handler or a matcher is
 * given are PVM's own (README, "What replay guarantees").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log_sink.h"
#include "pg_internal.h"

/* libpvm3's table of message buffers (pmsg.c): an entry per id; a free
 * one holds the next free id, a used one its buffer. */
struct pg_midlist {
    int m_free;
    void *m_umb;
};
extern struct pg_midlist *pvmmidh;
extern int pvmmidhsiz;

#define MID_AT 44     /* struct pmsg's m_mid, libpvm3 3.4.6 (x86-64) */
#define BLOCK 2048       /* ids a block */

static char path[PATH_MAX + 32];
static int32_t out[BLOCK];
static size_t nout;
static int fd = -1;
/* What pg_bufid_seen does in this task, found at its first call: */
static enum { UNKNOWN, NOTE, FOLLOW, NONE } how;
static long differ;            /* replay: receives given another id */

/* ---- recording ----------------------------------------------------------- */

/* Made with the other logs, as the recording starts: the directory may
 * not be writable at the end. */
void pg_bufid_open(void)
{
    if (pg.mode != PANGAEA_LOG || pg.ltid <= 0 || fd >= 0)
        return;
    snprintf(path, sizeof path, "%s/ltid-%d.bufids.pgc", pg.logdir, pg.ltid);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        pg_fatal("cannot write %s: %s", path, strerror(errno));
}

/* A write that failed: said as every log says it ("no space left on
 * MOUNT while writing FILE"). */
static void full_disk(int errnum)
{
    char why[8400];

    pg_write_why(fd, path, errnum, why, sizeof why);
    pg_fatal("%s", why);
}

static void flush_out(void)
{
    size_t done = 0, bytes = nout * sizeof *out;
    ssize_t n;

    pg_bufid_open();
    while (done < bytes) {
        if ((n = write(fd, (char *)out + done, bytes - done)) < 0 &&
            errno == EINTR)
            continue;
        if (n <= 0)
            full_disk(n < 0 ? errno : ENOSPC);
        done += (size_t)n;
    }
    nout = 0;
}

/* ---- replay: reading the file, a block at a time ---------------------- */

static int32_t in[BLOCK];
static size_t in_len, in_at; /* in ids */
static long record_no;

static void fill(void)
{
    size_t got = 0;
    ssize_t n;

    in_at = in_len = 0;
    while (got < sizeof in) {
        n = read(fd, (char *)in + got, sizeof in - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            pg_fatal("cannot read %s: %s", path, strerror(errno));
        if (n == 0)
            break;
        got += (size_t)n;
    }
    in_len = got / sizeof *in; /* a record cut by a full disk: the end */
}

/* The next recorded id, or 0 when the file has no more (or none). */
static int next_recorded(void)
{
    int32_t v;

    if (in_at == in_len) {
        if (fd < 0)
            return 0;
        fill();
        if (in_len == 0)
            return 0;
    }
    v = in[in_at++];
    record_no++;
    if (v <= 0)
        pg_fatal("%s: byte %ld: not a buffer id (%ld): a buffer-id file "
                 "holds ids > 0", path, (record_no - 1) * 4L, (long)v);
    return v;
}

static void load(void)
{
    snprintf(path, sizeof path, "%s/ltid-%d.bufids.pgc", pg.logdir, pg.ltid);
    fd = open(path, O_RDONLY | O_CLOEXEC); /* none: an older recording,
                                              or no id was given */
}

/* ---- replay: moving a buffer to its recorded id ------------------------- */

static int *mid_of(void *umb)
{
    return (int *)((char *)umb + MID_AT);
}

/* Buffers at ids a and b change places (both in use). */
static void swap_ids(int a, int b)
{
    void *x = pvmmidh[a].m_umb, *y = pvmmidh[b].m_umb;

    pvmmidh[a].m_umb = y;
    pvmmidh[b].m_umb = x;
    *mid_of(x) = b;
    *mid_of(y) = a;
}

static int in_use(int id)
{
    return id < pvmmidhsiz && pvmmidh[id].m_umb != NULL;
}

/* PVM keeps its free ids in a list threaded through the table (a free
 * entry's m_free is the next free id, 0 ends it; the head is private to
 * libpvm3).  Taking a free id from the middle needs the entry before it:
 * prev[id] remembers it from the last scan of the table, checked before
 * use (frees and takes at the head change little else), and the table is
 * scanned again only when it is wrong: a receive costs O(1), not a walk
 * of a table that grows with the messages kept. */
static int *prev;
static size_t nprev;

static int prev_ok(int to, int p)
{
    return p > 0 && p < pvmmidhsiz && pvmmidh[p].m_umb == NULL &&
           pvmmidh[p].m_free == to;
}

static int prev_of(int to)
{
    return (size_t)to < nprev && prev_ok(to, prev[to]) ? prev[to] : 0;
}

static void prev_set(int id, int p)
{
    if (id > 0 && (size_t)id < nprev)
        prev[id] = p;
}

static void prev_scan(void)
{
    int i, *grown;

    if ((size_t)pvmmidhsiz > nprev) {
        if (!(grown = realloc(prev, (size_t)pvmmidhsiz * sizeof *prev)))
            return; /* no memory: moves to a free id inside the list fail */
        prev = grown, nprev = (size_t)pvmmidhsiz;
    }
    memset(prev, 0, nprev * sizeof *prev);
    for (i = 1; i < pvmmidhsiz; i++)
        if (!pvmmidh[i].m_umb)
            prev_set(pvmmidh[i].m_free, i);
}

/* The message at `from` takes the free id `to`, and `from` takes `to`'s
 * place in the free list (p before it): the list is as before, with the
 * message's old id where the recorded one was. */
static void relink(int from, int to, int p)
{
    void *umb = pvmmidh[from].m_umb;
    int next = pvmmidh[to].m_free;

    pvmmidh[p].m_free = from;
    pvmmidh[from].m_free = next;
    pvmmidh[from].m_umb = NULL;
    pvmmidh[to].m_umb = umb;
    *mid_of(umb) = to;
    prev_set(from, p);
    prev_set(next, from);
    prev_set(to, 0);
}

/* The free id `to` for the message at `from`: unlinked from inside the
 * list, or, at its head, taken with pvm_mkbuf (the message put there, the
 * empty buffer freed at `from`: the same list). */
static int move_to_free(int from, int to)
{
    int p, id;

    if (!(p = prev_of(to))) {
        if ((id = pg_real.mkbuf(PvmDataDefault)) == to) {
            swap_ids(from, to);
            pvm_freebuf(from);
            return 1;
        }
        if (id > 0)
            pvm_freebuf(id); /* back at the head: the list as it was */
        prev_scan();
        if (!(p = prev_of(to)))
            return 0; /* not on the list: beyond the table, say */
    }
    relink(from, to, p);
    return 1;
}

static int move(int from, int to)
{
    if (!in_use(from) || *mid_of(pvmmidh[from].m_umb) != from)
        return 0;
    if (!in_use(to)) {
        if (!move_to_free(from, to))
            return 0;
    } else if (*mid_of(pvmmidh[to].m_umb) == to && pg_rxi_has_bufid(to)) {
        swap_ids(from, to);
    } else {
        return 0; /* the program's, Pangaea's, or in PVM's queue */
    }
    if (pg_rxi_count()) /* a probed message stays in the index */
        pg_rxi_swap_bufid(from, to);
    return 1;
}

/* ---- the receive's hook ------------------------------------------------- */

static void choose(void)
{
    how = pg.ltid <= 0 ? NONE /* pangaea's own task */
        : pg.mode == PANGAEA_LOG ? NOTE
        : pg_replay_indexed() ? FOLLOW : NONE;
    if (how == FOLLOW)
        load();
}

int pg_bufid_seen(int bufid)
{
    int to;

    if (how == NOTE) {
        if (nout == BLOCK)
            flush_out();
        out[nout++] = bufid;
        return bufid;
    }
    if (how == UNKNOWN) {
        choose();
        return pg_bufid_seen(bufid);
    }
    if (how == NONE || (to = next_recorded()) == 0)
        return bufid; /* the recording ended sooner: PVM's id */
    if (to != bufid) {
        if (move(bufid, to))
            return to;
        differ++;
    }
    return bufid;
}

/* Said by `pangaea` on its stderr (the task's own is the program's
 * output). */
static void say_differ(void)
{
    char text[1200];

    snprintf(text, sizeof text, "ltid %d (%.900s): %ld receive%s or new "
             "buffer%s got another buffer id than recorded (a buffer the "
             "program or pangaea held had the recorded one)", pg.ltid,
             pg.program, differ, differ == 1 ? "" : "s",
             differ == 1 ? "" : "s");
    if (pg.top <= 0) {
        pg_warn("%s", text);
        return;
    }
    pg.depth++;
    pg_coord_report(PG_REP_NOTE, text);
    pg.depth--;
}

void pg_bufid_close(void)
{
    if (how == NOTE && nout)
        flush_out();
    if (how == FOLLOW)
        while (next_recorded() > 0) /* the rest is checked too */
            ;
    if (fd >= 0)
        close(fd);
    fd = -1;
    if (differ)
        say_differ();
    differ = 0;
}
