/*
 * json.c - the JSON string writer every JSON output of `pangaea` shares
 * (-display's data, -export perfetto).
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
