/*
 * log_bin.c - what the binary writer and reader share (see log_bin.h):
 * varints, the two CRCs and the table of message ids per sender.
 *
 * The CRCs are computed here rather than with zlib: the library is
 * preloaded into every PVM task, and a checksum of a few kilobytes per
 * block does not need another shared library in each task.
 *  - CRC-32 (IEEE 802.3, zlib's crc32): formats 1 to 3, read only.
 *    Slicing-by-8: eight 256-entry tables, eight bytes per step.
 *  - CRC-32C (Castagnoli, as iSCSI, ext4, SCTP): format 4.  x86-64 has
 *    an instruction for it (SSE4.2 crc32, eight bytes a step, ~1 cycle a
 *    byte and no table to keep in cache), so the blocks of a log cost the
 *    writer and the reader a few instructions per event rather than ~44.
 *    It is compiled with __attribute__((target("sse4.2"))), so the build
 *    needs no -m flag, and used only when the CPU says it has SSE4.2
 *    (__builtin_cpu_supports); elsewhere the same slicing-by-8 tables,
 *    made for its polynomial, give the same values.
 * Both are reflected, with initial value and final XOR 0xFFFFFFFF.
 * The tables are built once when the library is loaded.
 */
#include "log_bin.h"

#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[8][256], crc_c_table[8][256];
static int have_sse42;

static void make_tables(uint32_t t[8][256], uint32_t poly)
{
    uint32_t c;
    int i, k;

    for (i = 0; i < 256; i++) {
        for (c = (uint32_t)i, k = 0; k < 8; k++)
            c = c & 1 ? poly ^ (c >> 1) : c >> 1;
        t[0][i] = c;
    }
    for (i = 0; i < 256; i++)
        for (c = t[0][i], k = 1; k < 8; k++)
            t[k][i] = c = t[0][c & 0xFF] ^ (c >> 8);
}

__attribute__((constructor)) static void crc_init(void)
{
    make_tables(crc_table, 0xEDB88320u);
    make_tables(crc_c_table, 0x82F63B78u);
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

/* Slicing-by-8 over t, on the inverted crc. */
static uint32_t crc_sliced(uint32_t t[8][256], uint32_t crc,
                           const unsigned char *b, size_t n)
{
    uint64_t v;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; n >= 8; n -= 8, b += 8) {
        memcpy(&v, b, 8);
        v ^= crc;
        crc = t[7][v & 0xFF] ^ t[6][(v >> 8) & 0xFF] ^
              t[5][(v >> 16) & 0xFF] ^ t[4][(v >> 24) & 0xFF] ^
              t[3][(v >> 32) & 0xFF] ^ t[2][(v >> 40) & 0xFF] ^
              t[1][(v >> 48) & 0xFF] ^ t[0][v >> 56];
    }
#endif
    while (n--)
        crc = t[0][(crc ^ *b++) & 0xFF] ^ (crc >> 8);
    return crc;
}

uint32_t pg_crc32(uint32_t crc, const void *p, size_t n)
{
    return ~crc_sliced(crc_table, ~crc, p, n);
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_c_sse42(uint32_t crc, const unsigned char *b, size_t n)
{
    uint64_t c = crc, v;

    for (; n >= 8; n -= 8, b += 8) {
        memcpy(&v, b, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    crc = (uint32_t)c;
    while (n--)
        crc = __builtin_ia32_crc32qi(crc, *b++);
    return crc;
}
#endif

uint32_t pg_crc32c(uint32_t crc, const void *p, size_t n)
{
#if defined(__x86_64__)
    if (have_sse42)
        return ~crc_c_sse42(~crc, p, n);
#endif
    return ~crc_sliced(crc_c_table, ~crc, p, n);
}

void pg_crc32c_portable(int on)
{
#if defined(__x86_64__)
    have_sse42 = on ? 0 : __builtin_cpu_supports("sse4.2");
#else
    (void)on;
#endif
}

size_t pg_put_uv(unsigned char *p, uint64_t v)
{
    size_t n = 0;

    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

size_t pg_get_uv(const unsigned char *p, const unsigned char *end,
                 uint64_t *v)
{
    uint64_t r = 0;
    size_t n;

    for (n = 0; n < PG_BIN_VARINT_MAX && p + n < end; n++) {
        if (n == 9 && p[n] > 1)
            return 0; /* past 64 bits */
        r |= (uint64_t)(p[n] & 0x7F) << (7 * n);
        if (!(p[n] & 0x80)) {
            *v = r;
            return n + 1;
        }
    }
    return 0;
}

static size_t slot_of(const pg_idmap *m, int key)
{
    size_t i = ((unsigned)key * 2654435761u) & (m->cap - 1);

    while (m->slot[i].used && m->slot[i].key != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

int pg_idmap_get(const pg_idmap *m, int key)
{
    size_t i;

    if (!m->cap)
        return 0;
    i = slot_of(m, key);
    return m->slot[i].used ? m->slot[i].val : 0;
}

static int grow(pg_idmap *m)
{
    pg_idmap bigger = { NULL, 0, m->cap ? m->cap * 2 : 16 };
    size_t i;

    bigger.slot = calloc(bigger.cap, sizeof *bigger.slot);
    if (!bigger.slot)
        return -1;
    for (i = 0; i < m->cap; i++)
        if (m->slot[i].used)
            bigger.slot[slot_of(&bigger, m->slot[i].key)] = m->slot[i];
    bigger.n = m->n;
    free(m->slot);
    *m = bigger;
    return 0;
}

int pg_idmap_set(pg_idmap *m, int key, int val)
{
    size_t i;

    if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
        return -1;
    i = slot_of(m, key);
    if (!m->slot[i].used) {
        m->slot[i].used = 1;
        m->slot[i].key = key;
        m->n++;
    }
    m->slot[i].val = val;
    return 0;
}

int *pg_idmap_ref_slow(pg_idmap *m, int key)
{
    size_t i;

    if (m->cap) {
        i = slot_of(m, key);
        if (m->slot[i].used)
            return &m->slot[i].val;
    }
    return pg_idmap_set(m, key, 0) < 0 ? NULL : &m->slot[slot_of(m, key)].val;
}

void pg_idmap_free(pg_idmap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->n = m->cap = 0;
}

int pg_bin_fast_on = 1; /* log_bin.h */

/* A whole word of the selection, so that "tag=5 race-only" is one too. */
int pg_log_race_only(const char *select)
{
    const char *p = select, *w = PG_SELECT_RACE_ONLY;
    size_t n = strlen(w);

    while (p && (p = strstr(p, w)) != NULL) {
        if ((p == select || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
            return 1;
        p += n;
    }
    return 0;
}
