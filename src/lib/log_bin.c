/*
 * log_bin.c - what the binary writer and reader share (see log_bin.h):
 * varints, CRC-32 and the table of message ids per sender.
 *
 * CRC-32 is computed here rather than with zlib's crc32: the library is
 * preloaded into every PVM task, and a checksum of a few bytes per event
 * does not need another shared library in each task (and zlib goes byte
 * by byte on inputs this short anyway).  It is slicing-by-8: eight
 * 256-entry tables, eight bytes per step, about a quarter of the
 * instructions of one table lookup per byte; the tables are built once
 * when the library is loaded.  It is the same CRC (IEEE 802.3, reflected,
 * initial and final value 0xFFFFFFFF), so any zlib can check a block.
 */
#include "log_bin.h"

#include <stdlib.h>
#include <string.h>

static uint32_t crc_table[8][256];

__attribute__((constructor)) static void crc_init(void)
{
    uint32_t c;
    int i, k;

    for (i = 0; i < 256; i++) {
        for (c = (uint32_t)i, k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[0][i] = c;
    }
    for (i = 0; i < 256; i++)
        for (c = crc_table[0][i], k = 1; k < 8; k++)
            crc_table[k][i] = c = crc_table[0][c & 0xFF] ^ (c >> 8);
}

uint32_t pg_crc32(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t v;

    crc = ~crc;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; n >= 8; n -= 8, b += 8) {
        memcpy(&v, b, 8);
        v ^= crc;
        crc = crc_table[7][v & 0xFF] ^ crc_table[6][(v >> 8) & 0xFF] ^
              crc_table[5][(v >> 16) & 0xFF] ^ crc_table[4][(v >> 24) & 0xFF] ^
              crc_table[3][(v >> 32) & 0xFF] ^ crc_table[2][(v >> 40) & 0xFF] ^
              crc_table[1][(v >> 48) & 0xFF] ^ crc_table[0][v >> 56];
    }
#endif
    while (n--)
        crc = crc_table[0][(crc ^ *b++) & 0xFF] ^ (crc >> 8);
    return ~crc;
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

int *pg_idmap_ref(pg_idmap *m, int key)
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
