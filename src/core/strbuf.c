#include "precheck/core/strbuf.h"

#include "core/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pc_strbuf_init(pc_strbuf *b, char *fixed, size_t fixed_size, size_t max)
{
    memset(b, 0, sizeof *b);
    b->max = max;
    if (fixed && fixed_size) {
        b->fixed = b->data = fixed;
        b->cap = b->fixed_size = fixed_size;
        fixed[0] = '\0';
    }
}

/* The most bytes of text b may hold. */
static size_t limit_of(const pc_strbuf *b)
{
    return b->max ? b->max : SIZE_MAX - 1;
}

/* Makes room for n more bytes of text and its NUL; false (error set) when it cannot. A request
 * past the limit is cut to the limit first, in *n. */
static int make_room(pc_strbuf *b, size_t *n)
{
    if (b->err)
        return 0;
    size_t room = limit_of(b) - b->len;
    if (*n > room) {
        b->err = PC_STRBUF_TOOBIG;
        *n = room;
    }
    size_t need = b->len + *n + 1;
    if (need <= b->cap)
        return 1;
    /* Doubling from 64 bytes (or from the fixed buffer's size): appends are amortised O(1). */
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *data = NULL;
    if (!pc_alloc_hook_fails())
        data = b->data == b->fixed ? malloc(cap) : realloc(b->data, cap);
    if (!data) {
        b->err = PC_STRBUF_NOMEM;
        return 0;
    }
    if (b->data && b->data == b->fixed)
        memcpy(data, b->fixed, b->len + 1);
    b->data = data;
    b->cap = cap;
    return 1;
}

void pc_strbuf_append(pc_strbuf *b, const void *bytes, size_t n)
{
    if (!make_room(b, &n))
        return;
    if (n)
        memcpy(b->data + b->len, bytes, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void pc_strbuf_appends(pc_strbuf *b, const char *s)
{
    if (s)
        pc_strbuf_append(b, s, strlen(s));
}

void pc_strbuf_appendc(pc_strbuf *b, char c)
{
    if (!b->err && b->len + 2 <= b->cap && b->len < limit_of(b)) {
        b->data[b->len++] = c;
        b->data[b->len] = '\0';
        return;
    }
    pc_strbuf_append(b, &c, 1);
}

void pc_strbuf_appendn(pc_strbuf *b, char c, size_t count)
{
    if (!make_room(b, &count))
        return;
    memset(b->data + b->len, c, count);
    b->len += count;
    b->data[b->len] = '\0';
}

void pc_strbuf_printf(pc_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pc_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
}

void pc_strbuf_vprintf(pc_strbuf *b, const char *fmt, va_list ap)
{
    if (b->err)
        return;
    /* First into what room there is; a second pass only when the text did not fit. */
    char small[1];
    size_t avail = b->cap > b->len ? b->cap - b->len : 0;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(avail ? b->data + b->len : small, avail ? avail : sizeof small, fmt, ap);
    if (n < 0) {
        va_end(again);
        if (b->data)
            b->data[b->len] = '\0';
        b->err = PC_STRBUF_NOMEM; /* an encoding error: nothing sensible was appended */
        return;
    }
    size_t want = (size_t)n, got = want;
    if (want + 1 <= avail && want <= limit_of(b) - b->len) {
        b->len += want;
        va_end(again);
        return;
    }
    if (!make_room(b, &got)) {
        va_end(again);
        if (b->data)
            b->data[b->len] = '\0';
        return;
    }
    if (got == want) {
        vsnprintf(b->data + b->len, got + 1, fmt, again);
    } else {
        /* cut at the limit: format whole into a temporary, keep the part that fits */
        char *tmp = pc_alloc_hook_fails() ? NULL : malloc(want + 1);
        if (!tmp) {
            b->err = PC_STRBUF_NOMEM;
            b->data[b->len] = '\0';
            va_end(again);
            return;
        }
        vsnprintf(tmp, want + 1, fmt, again);
        memcpy(b->data + b->len, tmp, got);
        free(tmp);
    }
    va_end(again);
    b->len += got;
    b->data[b->len] = '\0';
}

char *pc_strbuf_extend(pc_strbuf *b, size_t n)
{
    size_t got = n;
    if (!make_room(b, &got))
        return NULL;
    if (got != n) {
        b->data[b->len] = '\0';
        return NULL;
    }
    char *p = b->data + b->len;
    b->len += n;
    b->data[b->len] = '\0';
    return p;
}

void pc_strbuf_truncate(pc_strbuf *b, size_t len)
{
    if (len >= b->len)
        return;
    b->len = len;
    b->data[len] = '\0';
}

int pc_strbuf_error(const pc_strbuf *b)
{
    return b->err;
}

const char *pc_strbuf_str(const pc_strbuf *b)
{
    return b->data ? b->data : "";
}

void pc_strbuf_reset(pc_strbuf *b)
{
    if (b->data != b->fixed)
        free(b->data);
    pc_strbuf_init(b, b->fixed, b->fixed_size, b->max);
}

char *pc_strbuf_finish(pc_strbuf *b, size_t *len)
{
    char *text = NULL;
    size_t n = b->len;
    if (b->err == PC_STRBUF_NOMEM) {
        n = 0;
    } else if (b->data && b->data != b->fixed) {
        text = b->data; /* handed over: reset must not free it */
        b->data = NULL;
    } else if (!pc_alloc_hook_fails() && (text = malloc(n + 1)) != NULL) {
        memcpy(text, pc_strbuf_str(b), n + 1);
    } else {
        n = 0;
    }
    pc_strbuf_reset(b);
    if (len)
        *len = n;
    return text;
}
