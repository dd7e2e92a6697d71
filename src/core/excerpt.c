#include "precheck/core/excerpt.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (at most n bytes) and its code point; 0 when the
 * bytes there are not one (a lone continuation byte, overlong forms, surrogates, past U+10FFFF,
 * a sequence cut short). */
static size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                 : c >= 0xe0 && c <= 0xef ? 3
                 : c >= 0xf0 && c <= 0xf4 ? 4
                                          : 0;
    if (!len || len > n)
        return 0;
    uint32_t v = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

/* Characters that are valid but must not reach a terminal as they are. */
static bool hidden(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

const char *pc_excerpt_quote(pc_excerpt *buf, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    if (!text)
        len = 0;
    char *out = buf->text;
    size_t o = 0, chars = 0, i = 0;
    out[o++] = '"';
    while (i < len && chars < PC_EXCERPT_CHARS) {
        unsigned char c = s[i];
        uint32_t cp = 0;
        size_t n = c >= 0x80 ? utf8_char(s + i, len - i, &cp) : 1;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            out[o++] = '\\';
            out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 0x20 || c == 0x7f || n == 0) {
            o += (size_t)snprintf(out + o, PC_EXCERPT_SIZE - o, "\\x%02X", c);
            n = 1;
        } else if (c >= 0x80 && hidden(cp)) {
            o += (size_t)snprintf(out + o, PC_EXCERPT_SIZE - o, "\\u{%04X}", (unsigned)cp);
        } else {
            memcpy(out + o, s + i, n);
            o += n;
        }
        i += n;
        chars++;
    }
    out[o++] = '"';
    if (i < len) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = 0;
    return out;
}

const char *pc_excerpt_of(pc_excerpt *buf, const char *text)
{
    return pc_excerpt_quote(buf, text, text ? strlen(text) : 0);
}
