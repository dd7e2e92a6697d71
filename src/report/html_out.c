/*
 * The report page's buffer and its one escaping rule. The page is built in memory and written
 * once; a failed allocation marks the buffer and the page is refused at the end, so the
 * writers below never return errors.
 *
 * Why escape everything the same way: a text read from a dump or a CSV may land in element
 * content, in a quoted attribute (data-* values the filters read, <title> of an SVG mark), or
 * in both; escaping & < > " ' makes one function right for all of these. No text from outside
 * is ever written inside <script>, <style>, a URL or an unquoted attribute.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_impl.h"

static void put(html_buf *b, const char *s, size_t n)
{
    pc_strbuf_append(b, s, n);
}

void pc_hb_raw(html_buf *b, const char *markup)
{
    pc_strbuf_appends(b, markup);
}

void pc_hb_fmt(html_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pc_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* The length of the valid UTF-8 sequence at s (of n bytes) and its code point, or 0 when the
 * bytes there are not one (a stray continuation byte, a cut or overlong sequence, a surrogate,
 * a code point above U+10FFFF). */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2;
        min = 0x80;
        *cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        min = 0x800;
        *cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        min = 0x10000;
        *cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3f);
    }
    if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
        return 0;
    return len;
}

/* Characters shown as U+FFFD: controls (tab and line feed are kept), C1 controls, the
 * bidirectional embeddings, overrides and isolates (they could make a name read as another),
 * and the noncharacters U+FFFE / U+FFFF. */
static bool hidden(uint32_t cp)
{
    return (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp <= 0x9f) ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfffe ||
           cp == 0xffff;
}

void pc_hb_textn(html_buf *b, const char *text, size_t len)
{
    if (!text)
        return;
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        size_t run = i; /* copy plain ASCII runs in one go */
        while (run < len && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '&' && s[run] != '<' &&
               s[run] != '>' && s[run] != '"' && s[run] != '\'')
            run++;
        if (run > i) {
            put(b, text + i, run - i);
            i = run;
            continue;
        }
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        if (n == 0) {
            pc_hb_raw(b, "\xef\xbf\xbd"); /* U+FFFD for each byte that is not UTF-8 */
            i++;
            continue;
        }
        switch (cp) {
        case '&':
            pc_hb_raw(b, "&amp;");
            break;
        case '<':
            pc_hb_raw(b, "&lt;");
            break;
        case '>':
            pc_hb_raw(b, "&gt;");
            break;
        case '"':
            pc_hb_raw(b, "&quot;");
            break;
        case '\'':
            pc_hb_raw(b, "&#39;");
            break;
        default:
            if (hidden(cp))
                pc_hb_raw(b, "\xef\xbf\xbd");
            else
                put(b, text + i, n);
        }
        i += n;
    }
}

void pc_hb_text(html_buf *b, const char *text)
{
    if (text)
        pc_hb_textn(b, text, strlen(text));
}

void pc_hb_text_cut(html_buf *b, const char *text, size_t max)
{
    if (!text)
        return;
    size_t n = strlen(text);
    if (n <= max) {
        pc_hb_textn(b, text, n);
        return;
    }
    while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
        max--; /* not inside a character */
    pc_hb_textn(b, text, max);
    pc_hb_raw(b, "\xe2\x80\xa6"); /* ... */
}
