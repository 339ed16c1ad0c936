/*
 * json.c - the JSON string writer every JSON output of `pangaea` shares
 * (-display's data, -export perfetto), and the packed integers of the
 * event-graph pages' data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runlog.h"
#include "top.h"

/* Length of the valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s)
{
    int n, i;
    unsigned c = s[0], min;

    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    c &= 0x3F >> (n - 1);
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    return n;
}

/* Besides what JSON needs, '<', '>' and '&' are escaped so that no string
 * can close the <script> the display embeds its data in, and U+2028/9 so
 * the text is also a valid JavaScript literal. */
void top_json_str(FILE *fp, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    int n;

    putc('"', fp);
    for (; *s; s += n) {
        n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", fp);
            n = 1;
        } else if (*s == '"' || *s == '\\')
            fprintf(fp, "\\%c", *s);
        else if (*s < 0x20 || *s == '<' || *s == '>' || *s == '&')
            fprintf(fp, "\\u%04x", *s);
        else if (n == 3 && s[0] == 0xE2 && s[1] == 0x80 &&
                 (s[2] == 0xA8 || s[2] == 0xA9))
            fprintf(fp, "\\u%04x", 0x2000 | (s[2] & 0x2F));
        else
            fwrite(s, 1, n, fp);
    }
    putc('"', fp);
}

/* ---- packed integers ---------------------------------------------------- */

/* Packed integers: each value zigzag-encoded (0,-1,1,-2... as 0,1,2,3...)
 * as a little-endian base-128 varint (7 bits a byte, the high bit set
 * on all but the last), the bytes in base64 inside a JSON string.  Most
 * values (deltas, codes, small tags) take one byte: a third of their
 * decimal text, and a page decodes them without a JSON number parse
 * (-display's data, the live view's columns). */
static const char B64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* (putc_unlocked: a page's races at 1,000 tasks are ~10^9 of these
 * characters, and a packer's stream is one thread's) */
static inline void pack_byte(struct top_packer *p, unsigned b)
{
    p->acc = p->acc << 8 | (b & 0xff);
    if (++p->n < 3)
        return;
    putc_unlocked(B64[p->acc >> 18 & 63], p->fp);
    putc_unlocked(B64[p->acc >> 12 & 63], p->fp);
    putc_unlocked(B64[p->acc >> 6 & 63], p->fp);
    putc_unlocked(B64[p->acc & 63], p->fp);
    p->acc = 0;
    p->n = 0;
}

void top_pack_value(struct top_packer *p, long long v)
{
    unsigned long long z = v < 0 ? ((unsigned long long)(-(v + 1)) << 1) | 1
                                 : (unsigned long long)v << 1;

    while (z >= 0x80) {
        pack_byte(p, (unsigned)(z & 0x7f) | 0x80);
        z >>= 7;
    }
    pack_byte(p, (unsigned)z);
}

/* The last 1 or 2 bytes, padded with '=' as base64 is. */
void top_pack_end(struct top_packer *p)
{
    int k = p->n, i;

    if (!k)
        return;
    for (i = k; i < 3; i++) /* the bytes' bits where a full group has them */
        p->acc <<= 8;
    p->n = 0;
    putc(B64[p->acc >> 18 & 63], p->fp);
    putc(B64[p->acc >> 12 & 63], p->fp);
    fputs(k == 1 ? "==" : "", p->fp);
    if (k == 2)
        fprintf(p->fp, "%c=", B64[p->acc >> 6 & 63]);
    p->acc = 0;
}
