/*
 * log_bin.c - what the binary writer and reader share (see log_bin.h):
 * varints, CRC-32 and the table of message ids per sender.
 *
 * CRC-32 is computed here, byte by byte from a 256-entry table, rather
 * than with zlib's crc32: the library is preloaded into every PVM task,
 * and a checksum of a few bytes per event does not need zlib's wide
 * tables or another shared library in each task.  It is the same CRC
 * (IEEE 802.3, reflected, initial and final value 0xFFFFFFFF), so any
 * zlib can check a block.
 */
#include "log_bin.h"

#include <pthread.h>
#include <stdlib.h>

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    uint32_t c;
    int i, k;

    for (i = 0; i < 256; i++) {
        for (c = (uint32_t)i, k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t pg_crc32(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;

    pthread_once(&crc_once, crc_init);
    crc = ~crc;
    while (n--)
        crc = crc_table[(crc ^ *b++) & 0xFF] ^ (crc >> 8);
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

void pg_idmap_free(pg_idmap *m)
{
    free(m->slot);
    m->slot = NULL;
    m->n = m->cap = 0;
}
