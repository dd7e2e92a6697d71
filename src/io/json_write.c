/* JSON text in Python's json.dump layouts: the one JSON writer and its one string escaper. */
#include "precheck/io/json_write.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/pyrepr.h"

enum { LEVEL_HAS_ITEMS = 1, LEVEL_INLINE = 2, LEVEL_OBJECT = 4 };

void pc_json_writer_init(pc_json_writer *w, FILE *out, int indent, unsigned flags)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->indent = indent;
    w->flags = flags;
}

static void fail(pc_json_writer *w, pc_status st)
{
    if (w->status == PC_OK)
        w->status = st;
}

static void put(pc_json_writer *w, const char *s, size_t n)
{
    if (w->status || n == 0)
        return;
    if (fwrite(s, 1, n, w->out) != n)
        fail(w, pc_error_set(PC_ERR_IO, "cannot write the JSON output: %s", strerror(errno)));
}

static void puts_(pc_json_writer *w, const char *s)
{
    put(w, s, strlen(s));
}

static void newline(pc_json_writer *w, int depth)
{
    static const char spaces[64 + 1] =
        "                                                                ";
    put(w, "\n", 1);
    for (long n = (long)depth * w->indent; n > 0; n -= 64)
        put(w, spaces, n < 64 ? (size_t)n : 64);
}

/* Is the innermost container a block (items on lines of their own)? */
static bool in_block(const pc_json_writer *w)
{
    return w->indent > 0 && !(w->level[w->depth] & LEVEL_INLINE);
}

/* The separator and indentation before an item of the innermost container. */
static void item_prefix(pc_json_writer *w)
{
    unsigned char *l = &w->level[w->depth];
    bool block = in_block(w);
    if (*l & LEVEL_HAS_ITEMS)
        put(w, block ? "," : ", ", block ? 1 : 2);
    *l |= LEVEL_HAS_ITEMS;
    if (block)
        newline(w, w->depth);
}

/* Before any value: false when nothing may be written. */
static bool value_begin(pc_json_writer *w)
{
    if (w->status)
        return false;
    if (w->after_key) {
        w->after_key = false;
        return true;
    }
    if (w->depth == 0)
        return true;
    if (w->level[w->depth] & LEVEL_OBJECT) {
        fail(w, pc_error_set(PC_ERR_INVALID, "JSON writer: a value inside an object without a "
                                             "key"));
        return false;
    }
    item_prefix(w);
    return true;
}

static void open_container(pc_json_writer *w, bool object, bool inline_)
{
    if (!value_begin(w))
        return;
    if (w->depth >= PC_JSON_MAX_DEPTH) {
        fail(w, pc_error_set(PC_ERR_INVALID, "JSON writer: nesting deeper than %d",
                             PC_JSON_MAX_DEPTH));
        return;
    }
    put(w, object ? "{" : "[", 1);
    /* everything inside an inline container is inline too */
    bool flat = inline_ || (w->depth > 0 && (w->level[w->depth] & LEVEL_INLINE));
    w->level[++w->depth] = (unsigned char)((object ? LEVEL_OBJECT : 0) | (flat ? LEVEL_INLINE : 0));
}

static void close_container(pc_json_writer *w, bool object)
{
    if (w->status)
        return;
    if (w->depth == 0 || w->after_key || !(w->level[w->depth] & LEVEL_OBJECT) != !object) {
        fail(w, pc_error_set(PC_ERR_INVALID, "JSON writer: unbalanced %s", object ? "}" : "]"));
        return;
    }
    bool items = w->level[w->depth] & LEVEL_HAS_ITEMS, block = in_block(w);
    w->depth--;
    if (items && block)
        newline(w, w->depth);
    put(w, object ? "}" : "]", 1);
}

void pc_json_write_begin_object(pc_json_writer *w)
{
    open_container(w, true, false);
}

void pc_json_write_begin_object_inline(pc_json_writer *w)
{
    open_container(w, true, true);
}

void pc_json_write_end_object(pc_json_writer *w)
{
    close_container(w, true);
}

void pc_json_write_begin_array(pc_json_writer *w)
{
    open_container(w, false, false);
}

void pc_json_write_begin_array_inline(pc_json_writer *w)
{
    open_container(w, false, true);
}

void pc_json_write_end_array(pc_json_writer *w)
{
    close_container(w, false);
}

/* The next code point of UTF-8 text; an invalid or cut sequence reads as U+FFFD and its first
 * byte is skipped. */
static uint32_t utf8_next(const unsigned char *s, size_t len, size_t *i)
{
    unsigned char c = s[*i];
    int n = c < 0x80             ? 0
            : (c & 0xE0) == 0xC0 ? 1
            : (c & 0xF0) == 0xE0 ? 2
            : (c & 0xF8) == 0xF0 ? 3
                                 : -1;
    if (n == 0) {
        (*i)++;
        return c;
    }
    if (n < 0 || len - *i <= (size_t)n) {
        (*i)++;
        return 0xFFFD;
    }
    uint32_t cp = c & (0x3Fu >> n);
    for (int k = 1; k <= n; k++) {
        unsigned char d = s[*i + (size_t)k];
        if ((d & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        cp = cp << 6 | (d & 0x3Fu);
    }
    *i += (size_t)n + 1;
    return cp;
}

static void put_string(pc_json_writer *w, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    put(w, "\"", 1);
    size_t i = 0;
    bool ascii = w->flags & PC_JSON_ENSURE_ASCII;
    while (i < len && !w->status) {
        size_t run = i;
        while (run < len && u[run] >= 0x20 && u[run] != '"' && u[run] != '\\' &&
               (!ascii || u[run] <= 0x7E))
            run++;
        put(w, s + i, run - i);
        i = run;
        if (i >= len)
            break;
        char esc[16];
        uint32_t cp = utf8_next(u, len, &i);
        switch (cp) {
        case '"':
            puts_(w, "\\\"");
            continue;
        case '\\':
            puts_(w, "\\\\");
            continue;
        case '\n':
            puts_(w, "\\n");
            continue;
        case '\r':
            puts_(w, "\\r");
            continue;
        case '\t':
            puts_(w, "\\t");
            continue;
        case '\b':
            puts_(w, "\\b");
            continue;
        case '\f':
            puts_(w, "\\f");
            continue;
        default:
            break;
        }
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            snprintf(esc, sizeof esc, "\\u%04x\\u%04x", (unsigned)(0xD800 + (v >> 10)),
                     (unsigned)(0xDC00 + (v & 0x3FF)));
        } else {
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
        }
        puts_(w, esc);
    }
    put(w, "\"", 1);
}

void pc_json_write_keyz(pc_json_writer *w, const char *key)
{
    pc_json_write_key(w, key, strlen(key));
}

void pc_json_write_key(pc_json_writer *w, const char *key, size_t len)
{
    if (w->status)
        return;
    if (w->depth == 0 || w->after_key || !(w->level[w->depth] & LEVEL_OBJECT)) {
        fail(w, pc_error_set(PC_ERR_INVALID, "JSON writer: a key outside an object"));
        return;
    }
    item_prefix(w);
    put_string(w, key, len);
    put(w, ": ", 2);
    w->after_key = true;
}

void pc_json_write_null(pc_json_writer *w)
{
    if (value_begin(w))
        puts_(w, "null");
}

void pc_json_write_bool(pc_json_writer *w, bool v)
{
    if (value_begin(w))
        puts_(w, v ? "true" : "false");
}

void pc_json_write_int(pc_json_writer *w, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    if (value_begin(w))
        puts_(w, buf);
}

void pc_json_write_double(pc_json_writer *w, double v)
{
    if (!isfinite(v) && (w->flags & PC_JSON_NONFINITE_NULL)) {
        pc_json_write_null(w);
        return;
    }
    char buf[PC_JSON_DOUBLE_MAX];
    if (isfinite(v) && (w->flags & PC_JSON_DOUBLE_17G))
        snprintf(buf, sizeof buf, "%.17g", v);
    else
        pc_json_format_double(buf, sizeof buf, v);
    if (value_begin(w))
        puts_(w, buf);
}

void pc_json_write_string(pc_json_writer *w, const char *s, size_t len)
{
    if (value_begin(w))
        put_string(w, s, len);
}

void pc_json_write_stringz(pc_json_writer *w, const char *s)
{
    if (!s)
        pc_json_write_null(w);
    else if (value_begin(w))
        put_string(w, s, strlen(s));
}

void pc_json_write_number_text(pc_json_writer *w, const char *text, size_t len)
{
    if (value_begin(w))
        put(w, text, len);
}

pc_status pc_json_writer_finish(pc_json_writer *w)
{
    if (w->status == PC_OK && (w->depth != 0 || w->after_key))
        fail(w, pc_error_set(PC_ERR_INVALID, "JSON writer: %d containers left open", w->depth));
    if (w->status == PC_OK && (w->flags & PC_JSON_FINAL_NEWLINE))
        put(w, "\n", 1);
    if (w->status == PC_OK && fflush(w->out) != 0)
        fail(w, pc_error_set(PC_ERR_IO, "cannot write the JSON output: %s", strerror(errno)));
    return w->status;
}

int pc_json_format_double(char *buf, size_t size, double x)
{
    if (isnan(x))
        return snprintf(buf, size, "NaN");
    if (isinf(x))
        return snprintf(buf, size, "%s", x > 0 ? "Infinity" : "-Infinity");
    return pc_pyrepr_double(buf, size, x);
}

/* The literal of a number token in src: [-]digits[.digits][e[+-]digits]. */
static size_t number_literal_len(const char *src, size_t size, size_t at)
{
    size_t i = at;
    while (i < size && (strchr("+-.eE", src[i]) || (src[i] >= '0' && src[i] <= '9')))
        i++;
    return i - at;
}

void pc_json_write_copy(pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v, const char *src,
                        size_t size)
{
    if (w->status)
        return;
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_NULL:
        pc_json_write_null(w);
        return;
    case PC_JSON_BOOL: {
        bool b = false;
        pc_json_get_bool(doc, v, &b);
        pc_json_write_bool(w, b);
        return;
    }
    case PC_JSON_INT: {
        int64_t i = 0;
        pc_json_get_int64(doc, v, &i);
        pc_json_write_int(w, i);
        return;
    }
    case PC_JSON_FLOAT: {
        size_t at = pc_json_offset(doc, v);
        if (pc_json_is_big_integer(doc, v) && src && at < size) {
            pc_json_write_number_text(w, src + at, number_literal_len(src, size, at));
        } else if (pc_json_is_big_integer(doc, v)) {
            char buf[400];
            snprintf(buf, sizeof buf, "%.0f", pc_json_number(doc, v));
            pc_json_write_number_text(w, buf, strlen(buf));
        } else {
            pc_json_write_double(w, pc_json_number(doc, v));
        }
        return;
    }
    case PC_JSON_STRING: {
        size_t len = 0;
        const char *s = pc_json_string(doc, v, &len);
        pc_json_write_string(w, s, len);
        return;
    }
    case PC_JSON_ARRAY:
        pc_json_write_begin_array(w);
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE && !w->status;
             e = pc_json_next(doc, e))
            pc_json_write_copy(w, doc, e, src, size);
        pc_json_write_end_array(w);
        return;
    case PC_JSON_OBJECT:
        pc_json_write_begin_object(w);
        for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE && !w->status;
             k = pc_json_next(doc, k)) {
            size_t len = 0;
            const char *key = pc_json_string(doc, k, &len);
            pc_json_write_key(w, key, len);
            pc_json_write_copy(w, doc, pc_json_member_value(doc, k), src, size);
        }
        pc_json_write_end_object(w);
        return;
    default:
        fail(w, pc_error_set(PC_ERR_INVALID, "JSON writer: no value to copy"));
        return;
    }
}
