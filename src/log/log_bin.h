/*
 * log_bin.h - private to the log module: the binary communication log
 * (docs/comm-log-format.md): its constants, varints, CRC-32, the message
 * id predictions, and the writer (log_binw.c) and reader (log_binr.c)
 * that pg_logw_* and pg_logr_* hand communication logs to.
 */
#ifndef PG_LOG_BIN_H
#define PG_LOG_BIN_H

#include <stddef.h>
#include <stdint.h>

#include "log_sink.h"
#include "pg_log.h"

#define PG_BIN_MAGIC "PGCL"       /* the first four bytes of the file */
#define PG_BIN_BLOCK 4096         /* a block is sealed once it holds this */
#define PG_BIN_SEND_X 13          /* kinds: a send, a receive with the */
#define PG_BIN_RECV_X 14          /* fields version 3 added (site ...) */
#define PG_BIN_SEAL 0x0F          /* a block's trailer; more may follow */
#define PG_BIN_LAST 0x1F          /* the last trailer: the log was closed */
#define PG_BIN_VARINT_MAX 10      /* bytes of the longest varint */
#define PG_BIN_LEN 4              /* format 4: a block's length field */
#define PG_BIN_TRAILER 5          /* marker and CRC */

/* Format 4: what a send's or receive's call site is predicted from.  The
 * state of site s is slot s % PG_BIN_SLOTS (sites share a slot beyond
 * that: only the predictions get worse): the site that followed s last
 * time for each call code, and s's last tag, size and asked filter (as
 * codes: pg_bin_ask).  All zero at the start of a log. */
#define PG_BIN_SLOTS 64
#define PG_BIN_SLOT(site) ((unsigned)(site) % PG_BIN_SLOTS) /* site >= 0 */
typedef struct pg_bin_slot {
    int next[16];
    int tag, bytes;
    uint64_t af, at;
    int matcher;
    int ctx; /* format 7: the context of s's last send or receive */
} pg_bin_slot;
/* An asked source or tag v of a receive that took `got`, as a code:
 * 0 absent (v == none), 1 the same as taken, else zigzag(v) + 2. */
static inline uint64_t pg_bin_ask(int v, int got, int none);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32): crc of n more bytes;
 * formats 1 to 3.  CRC-32C (Castagnoli): format 4, with the SSE4.2
 * instruction when the CPU has it; pg_crc32c_portable(1) makes it use
 * the tables anyway (the unit tests compare the two). */
uint32_t pg_crc32(uint32_t crc, const void *p, size_t n);
uint32_t pg_crc32c(uint32_t crc, const void *p, size_t n);
void pg_crc32c_portable(int on);

/* Unsigned LEB128: writes v at p, returns the bytes written. */
size_t pg_put_uv(unsigned char *p, uint64_t v);
/* Reads one at p (before end) into *v: bytes read, or 0 when it is longer
 * than PG_BIN_VARINT_MAX, overflows 64 bits or runs past end. */
size_t pg_get_uv(const unsigned char *p, const unsigned char *end,
                 uint64_t *v);
static inline uint64_t pg_zig(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t pg_unzig(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* An event's time varint (format 5): the time's difference from the
 * previous event's, zigzag, shifted past two flags: bit 1, a receive's
 * wait follows (after the misses); bit 0, misses follow.  Format 4 and
 * older have bit 0 only (pg_brx reads both). */
static inline uint64_t pg_head_time(int64_t dt, int misses, int waited)
{
    return pg_zig(dt) << 2 | (uint64_t)(waited > 0) << 1 | (misses > 0);
}

/* Format 6: an MPI_Irecv's receive (call PG_MSG_CALL_POSTED) ends with
 * one varint, its posting shifted past the flag `together`. */
static inline uint64_t pg_bin_posted(int posted, int together)
{
    return (uint64_t)posted << 1 | (together > 0);
}

static inline uint64_t pg_bin_ask(int v, int got, int none)
{
    return v == none ? 0 : v == got ? 1 : pg_zig(v) + 2;
}

/* The last message id seen per sender ltid (0 when none): what the next
 * id of that sender is predicted from.  An open-addressed hash table. */
typedef struct pg_idmap {
    struct pg_idslot { int key, val, used; } *slot;
    size_t n, cap;
} pg_idmap;
int pg_idmap_get(const pg_idmap *m, int key);
int pg_idmap_set(pg_idmap *m, int key, int val); /* 0, or -1: no memory */
/* Where key's value is kept (inserted as 0 when new; valid until the next
 * insertion), NULL when out of memory.  Inline when key is in its first
 * slot (a sender seen before, the usual case: one per receive). */
int *pg_idmap_ref_slow(pg_idmap *m, int key);
static inline int *pg_idmap_ref(pg_idmap *m, int key)
{
    if (m->cap) {
        size_t i = ((unsigned)key * 2654435761u) & (m->cap - 1);

        if (m->slot[i].used && m->slot[i].key == key)
            return &m->slot[i].val;
    }
    return pg_idmap_ref_slow(m, key);
}
void pg_idmap_free(pg_idmap *m);

/* ---- the writer (log_binw.c) ---- */
typedef struct pg_bw pg_bw;
pg_bw *pg_bw_open(const char *path, int ltid, const char *program,
                  const char *host, const char *select, pg_err *err);
/* One event (its seq is ignored: derived); 0, or -1 when refused (nothing
 * written) or a write failed (the writer then refuses everything). */
int pg_bw_put(pg_bw *w, const pg_event *ev);
/* The same for the two kinds on every message, without a pg_event: code
 * is pg_bw_call_code(call) (-1, refused, for an unknown call). */
int pg_bw_call_code(const char *call);
/* What version 3 adds to a send or receive (pg_logw_note): its call site
 * (0: none) and, a receive's, the source and tag it asked for (-3, -2:
 * unknown) and whether the program's matcher chose (pvm_recvf).  NULL:
 * none of them. */
typedef struct pg_bw_extra {
    int site, asked_from, asked_tag, matcher;
    int waited; /* a receive's: microseconds it waited (0: none) */
    int posted, together; /* an MPI_Irecv's (format 6; 0: none) */
    int ctx;              /* the message's context (format 7; 0: default) */
    int nrivals;          /* an MPI_Irecv's other postings pending in */
    const int *rivals;    /* its call (format 8; 0, NULL: none) */
} pg_bw_extra;
int pg_bw_send(pg_bw *w, double t, int code, int misses, int tag, int msgid,
               int bytes, int nto, const int *to, const pg_bw_extra *x);
int pg_bw_recv(pg_bw *w, double t, int code, int misses, int from, int tag,
               int msgid, int bytes, const pg_bw_extra *x);
void pg_bw_undo(pg_bw *w);         /* takes back the last event */
/* A race-only log (its selection says so, pg_log_race_only): the next
 * event written is number seq of the full log's numbering, the events
 * before it since the last one written were left out.  0, or -1 (not a
 * race-only log, or seq not after the last event's). */
int pg_bw_seq(pg_bw *w, long seq);
int pg_bw_close(pg_bw *w);         /* seals the last block; 0 or -1 */
const char *pg_bw_why(const pg_bw *w); /* why a write failed, or NULL */

/* ---- the reader (log_binr.c) ---- */
typedef struct pg_br pg_br;
/* 1 if the first bytes of the file at fd are a binary log's magic. */
int pg_br_is_binary(int fd);
pg_br *pg_br_open(const char *path, pg_log_header *hdr, pg_err *err);
int pg_br_next(pg_br *r, pg_event *ev, pg_err *err);
int pg_br_cut(const pg_br *r);
/* A log still being written (the live view): after pg_br_next returned 0
 * or -1, lets it read on from where it stopped, over what the file holds
 * now.  Where the data stopped (a cut, or a torn event at the end of the
 * old mapping, pg_br_next's -1 found while framing a block) is read
 * again, never taken as the log's end; a log read to its end, or bad in
 * an event's values, stays as it was.  The events already returned are
 * not returned again.  0; 1 when the last event returned was taken back
 * by its writer (pg_bw_undo): the log must be read again from its start;
 * -1 and err when the file cannot be read. */
int pg_br_follow(pg_br *r, pg_err *err);
/* Events decoded or walked over since pg_br_open (what reading cost). */
long pg_br_decoded(const pg_br *r);
void pg_br_close(pg_br *r);
/* 0 makes the readers opened from then on take their common sends and
 * receives by the general path too (log_binr_event.c, pg_brx_fast): for
 * the unit tests that hold both paths to the same events.  1, the
 * default, in every program. */
extern int pg_bin_fast_on;

#endif
