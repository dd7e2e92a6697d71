#include "precheck/io/json.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/strbuf.h"

/*
 * One flat array of tokens in document order. A container's subtree is the run of tokens
 * after it up to `end`; an object's members are key, value, key, value, ... Every token knows
 * its parent, so that pc_json_next() can tell the end of a container without a stack.
 * 32 bytes a token: the dump reader tokenises one entry at a time, so the array stays small.
 */
enum { TOK_KEY = 1, TOK_BIG_INT = 2 };

typedef struct json_token {
    uint8_t type;
    uint8_t flags;
    uint32_t count;  /* containers: elements or members; strings: decoded byte length */
    uint32_t end;    /* containers: index after the subtree; others: index + 1 */
    uint32_t parent; /* PC_JSON_NONE for the root */
    uint64_t offset; /* of the first byte in the input */
    union {
        int64_t i;  /* INT; BOOL as 0/1 */
        double d;   /* FLOAT */
        uint64_t s; /* STRING: offset of the decoded bytes in the pool */
    } v;
} json_token;

struct pc_json_doc {
    char *name;
    const char *data; /* borrowed (or owned_data) */
    size_t size;
    char *owned_data;
    json_token *tok;
    uint32_t ntok, captok;
    pc_strbuf pool; /* the decoded strings, each NUL-terminated, found by offset */
    uint32_t stack[PC_JSON_MAX_DEPTH];
    char decimal_point;       /* of the C library's current locale, for strtod */
    struct json_locator *loc; /* for positions in messages; behind a pointer: see below */
};

static const char *doc_name(const pc_json_doc *doc)
{
    return doc->name ? doc->name : "<json>";
}

/* ---- positions and messages ---- */

/* Moves (line, column) at offset from to offset to, counting forward (columns in characters:
 * UTF-8 continuation bytes do not count, as Python counts them). */
static void advance_location(const char *data, size_t from, size_t to, size_t *line, size_t *column)
{
    const char *p = data + from, *e = data + to, *line_start = NULL;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl)
            break;
        ++*line;
        line_start = p = nl + 1;
    }
    if (line_start) {
        *column = 1;
        p = line_start;
    } else {
        p = data + from;
    }
    for (; p < e; p++)
        if (((unsigned char)*p & 0xC0) != 0x80)
            ++*column;
}

void pc_json_offset_location(const char *data, size_t size, size_t pos, size_t *line,
                             size_t *column)
{
    if (pos > size)
        pos = size;
    *line = 1;
    *column = 1;
    advance_location(data, 0, pos, line, column);
}

/*
 * Positions for the messages of one document. Counting from the start of the input for each
 * message made a dump with n bad records cost n times the file (21,120 bad records: 153 s
 * against 0.33 s clean). The locator keeps the line and column of every LOC_STEP-th byte up to
 * the furthest position asked (16 bytes per 8 KiB, built once as positions move forward) and
 * of the last position asked, and counts forward from the nearer of the two: each message
 * costs at most LOC_STEP bytes besides the one pass over the file. It lives behind a pointer
 * and a mutex so that a const document can still be read from several threads.
 */
enum { LOC_STEP = 8192 };

typedef struct json_locator {
    pthread_mutex_t lock;
    const char *data; /* the input the marks describe; a new input resets them */
    size_t size;
    size_t (*marks)[2]; /* line and column of offset i * LOC_STEP */
    size_t nmarks, capmarks;
    size_t last_pos, last_line, last_column;
} json_locator;

static json_locator *locator_new(void)
{
    json_locator *loc = calloc(1, sizeof *loc);
    if (loc && pthread_mutex_init(&loc->lock, NULL) != 0) {
        free(loc);
        loc = NULL;
    }
    return loc;
}

static void locator_free(json_locator *loc)
{
    if (!loc)
        return;
    pthread_mutex_destroy(&loc->lock);
    free(loc->marks);
    free(loc);
}

/* With loc->lock held. */
static void locator_find(json_locator *loc, const char *data, size_t size, size_t pos, size_t *line,
                         size_t *column)
{
    if (loc->data != data || loc->size != size) {
        loc->data = data;
        loc->size = size;
        loc->nmarks = 0;
        loc->last_pos = 0;
        loc->last_line = loc->last_column = 1;
    }
    if (!loc->nmarks) {
        if (!loc->capmarks) {
            loc->marks = malloc(64 * sizeof *loc->marks);
            loc->capmarks = loc->marks ? 64 : 0;
        }
        if (loc->capmarks) {
            loc->marks[0][0] = loc->marks[0][1] = 1;
            loc->nmarks = 1;
        }
    }
    size_t want = pos / LOC_STEP + 1; /* marks needed: up to the one at or before pos */
    while (loc->nmarks && loc->nmarks < want) {
        if (loc->nmarks == loc->capmarks) {
            size_t cap = loc->capmarks * 2;
            void *m = realloc(loc->marks, cap * sizeof *loc->marks);
            if (!m)
                break; /* fewer marks: slower messages, same positions */
            loc->marks = m;
            loc->capmarks = cap;
        }
        size_t i = loc->nmarks, ln = loc->marks[i - 1][0], col = loc->marks[i - 1][1];
        advance_location(data, (i - 1) * LOC_STEP, i * LOC_STEP, &ln, &col);
        loc->marks[i][0] = ln;
        loc->marks[i][1] = col;
        loc->nmarks++;
    }
    size_t from = 0, ln = 1, col = 1;
    if (loc->nmarks) {
        size_t i = want <= loc->nmarks ? want - 1 : loc->nmarks - 1;
        from = i * LOC_STEP;
        ln = loc->marks[i][0];
        col = loc->marks[i][1];
    }
    if (loc->last_pos <= pos && loc->last_pos > from) {
        from = loc->last_pos;
        ln = loc->last_line;
        col = loc->last_column;
    }
    advance_location(data, from, pos, &ln, &col);
    loc->last_pos = pos;
    loc->last_line = *line = ln;
    loc->last_column = *column = col;
}

void pc_json_doc_offset_location(const pc_json_doc *doc, size_t pos, size_t *line, size_t *column)
{
    if (!doc || !doc->data) {
        *line = *column = 0;
        return;
    }
    if (pos > doc->size)
        pos = doc->size;
    json_locator *loc = doc->loc;
    if (!loc || pthread_mutex_lock(&loc->lock) != 0) {
        pc_json_offset_location(doc->data, doc->size, pos, line, column);
        return;
    }
    locator_find(loc, doc->data, doc->size, pos, line, column);
    pthread_mutex_unlock(&loc->lock);
}

/* What is at pos, for "found ..." in messages. */
static void describe_at(const char *data, size_t size, size_t pos, char *buf, size_t cap)
{
    if (pos >= size) {
        snprintf(buf, cap, "end of input");
        return;
    }
    unsigned char c = (unsigned char)data[pos];
    if (c == '\'')
        snprintf(buf, cap, "\"'\"");
    else if (c > 0x20 && c < 0x7F)
        snprintf(buf, cap, "'%c'", c);
    else if (c == '\n')
        snprintf(buf, cap, "end of line");
    else
        snprintf(buf, cap, "byte 0x%02X", c);
}

static pc_status syntax_error(const char *name, const char *data, size_t size, size_t pos,
                              const char *expected)
{
    size_t line, col;
    char found[32];
    pc_json_offset_location(data, size, pos, &line, &col);
    describe_at(data, size, pos, found, sizeof found);
    return pc_error_set(PC_ERR_FORMAT, "%s:%zu:%zu: expected %s, found %s", name, line, col,
                        expected, found);
}

static pc_status error_at(const char *name, const char *data, size_t size, size_t pos,
                          const char *what)
{
    size_t line, col;
    pc_json_offset_location(data, size, pos, &line, &col);
    return pc_error_set(PC_ERR_FORMAT, "%s:%zu:%zu: %s", name, line, col, what);
}

/* ---- small helpers ---- */

static inline int is_ws(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline size_t skip_ws(const char *d, size_t pos, size_t end)
{
    while (pos < end && is_ws((unsigned char)d[pos]))
        pos++;
    return pos;
}

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Four hex digits at p (p + 4 <= end checked by the caller); -1 when not hex. */
static long hex4(const char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value((unsigned char)p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Length of the valid UTF-8 sequence at p (lead byte >= 0x80), 0 when invalid: overlong
 * forms, UTF-16 surrogates and code points above U+10FFFF are refused, as Python's strict
 * UTF-8 decoder refuses them. */
static size_t utf8_sequence(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if ((size_t)(end - p) < n)
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return n;
}

/* Why decoding a string stopped. */
typedef enum str_result {
    STR_OK = 0,
    STR_UNTERMINATED, /* reached end before the closing quote */
    STR_CONTROL,      /* a raw control character at *stop */
    STR_BAD_UTF8,     /* at *stop */
    STR_BAD_ESCAPE,   /* the character after the backslash at *stop */
    STR_BAD_U,        /* \u without four hex digits; the backslash at *stop */
} str_result;

/*
 * Decodes the string whose opening quote is at data[pos] (pos < end) into out, which needs
 * room for the raw length between the quotes (escapes never grow). On STR_OK sets *len to the
 * decoded length and *stop after the closing quote; otherwise *stop is where it went wrong.
 * No message is made here: probing with a short end is cheap.
 */
static str_result decode_string_raw(const char *data, size_t pos, size_t end, char *out,
                                    size_t *len, size_t *stop)
{
    const unsigned char *d = (const unsigned char *)data;
    size_t i = pos + 1;
    size_t o = 0;
    for (;;) {
        size_t run = i;
        while (run < end && d[run] >= 0x20 && d[run] < 0x80 && d[run] != '"' && d[run] != '\\')
            run++;
        memcpy(out + o, d + i, run - i);
        o += run - i;
        i = run;
        *stop = i;
        if (i >= end)
            return STR_UNTERMINATED;
        unsigned char c = d[i];
        if (c == '"') {
            *len = o;
            *stop = i + 1;
            return STR_OK;
        }
        if (c < 0x20)
            return STR_CONTROL;
        if (c >= 0x80) {
            size_t n = utf8_sequence(d + i, d + end);
            if (!n) {
                /* Cut by end (a probe's short end, or the input's): let the caller decide. */
                size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
                return (size_t)(end - i) < need ? STR_UNTERMINATED : STR_BAD_UTF8;
            }
            memcpy(out + o, d + i, n);
            o += n;
            i += n;
            continue;
        }
        /* backslash */
        if (i + 1 >= end)
            return STR_UNTERMINATED;
        unsigned char e = d[i + 1];
        char simple = 0;
        switch (e) {
        case '"':
            simple = '"';
            break;
        case '\\':
            simple = '\\';
            break;
        case '/':
            simple = '/';
            break;
        case 'b':
            simple = '\b';
            break;
        case 'f':
            simple = '\f';
            break;
        case 'n':
            simple = '\n';
            break;
        case 'r':
            simple = '\r';
            break;
        case 't':
            simple = '\t';
            break;
        case 'u':
            break;
        default:
            *stop = i + 1;
            return STR_BAD_ESCAPE;
        }
        if (simple) {
            out[o++] = simple;
            i += 2;
            continue;
        }
        if (i + 6 > end) {
            for (size_t k = i + 2; k < end; k++)
                if (hex_value(d[k]) < 0)
                    return STR_BAD_U;
            return STR_UNTERMINATED;
        }
        long cp = hex4(data + i + 2);
        if (cp < 0)
            return STR_BAD_U;
        i += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            long lo = -1;
            if (i + 6 <= end && d[i] == '\\' && d[i + 1] == 'u')
                lo = hex4(data + i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            } else {
                cp = 0xFFFD; /* lone high surrogate (Python keeps it; UTF-8 cannot) */
            }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            cp = 0xFFFD; /* lone low surrogate */
        }
        o += put_utf8(out + o, (unsigned long)cp);
    }
}

static pc_status string_error(const char *name, const char *data, size_t size, size_t pos,
                              str_result r, size_t at)
{
    switch (r) {
    case STR_UNTERMINATED:
        return error_at(name, data, size, pos, "unterminated string starting here");
    case STR_CONTROL: {
        char what[96];
        snprintf(what, sizeof what,
                 "invalid control character 0x%02X in a string (it must be escaped)",
                 (unsigned char)data[at]);
        return error_at(name, data, size, at, what);
    }
    case STR_BAD_UTF8:
        return error_at(name, data, size, at, "invalid UTF-8 in a string");
    case STR_BAD_ESCAPE:
        return syntax_error(name, data, size, at,
                            "an escape (one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
    case STR_BAD_U:
        return syntax_error(name, data, size, at, "four hex digits after \\u");
    default:
        return PC_OK;
    }
}

/* Where the string starting at data[pos] ends (just after its closing quote), or end when it
 * does not: the first quote not escaped by an odd run of backslashes. */
static size_t string_end(const char *d, size_t pos, size_t end)
{
    size_t i = pos + 1;
    for (;;) {
        const char *q = memchr(d + i, '"', end - i);
        if (!q)
            return end;
        size_t k = (size_t)(q - d);
        size_t bs = 0;
        while (k - bs > pos + 1 && d[k - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            return k + 1;
        i = k + 1;
    }
}

/* decode_string_raw with a message on failure. */
static pc_status decode_string(const char *name, const char *data, size_t size, size_t pos,
                               size_t end, char *out, size_t *len, size_t *next)
{
    size_t stop;
    str_result r = decode_string_raw(data, pos, end, out, len, &stop);
    if (r == STR_OK) {
        *next = stop;
        return PC_OK;
    }
    return string_error(name, data, size, pos, r, stop);
}

/* ---- the document ---- */

static pc_status grow_tokens(pc_json_doc *doc)
{
    if (doc->captok >= UINT32_MAX - 1)
        return pc_error_set(PC_ERR_RANGE, "%s: more than %u JSON values", doc_name(doc),
                            UINT32_MAX - 1);
    uint64_t cap = doc->captok ? (uint64_t)doc->captok * 2 : 256;
    if (cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    json_token *t = realloc(doc->tok, (size_t)cap * sizeof *t);
    if (!t)
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory for %llu JSON tokens", doc_name(doc),
                            (unsigned long long)cap);
    doc->tok = t;
    doc->captok = (uint32_t)cap;
    return PC_OK;
}

/* Room for extra bytes at the end of the pool, for a string to be decoded into: *at is where
 * they start. The pool keeps them only when keep_pooled says so. */
static pc_status reserve_pool(pc_json_doc *doc, size_t extra, char **at)
{
    size_t n = pc_strbuf_len(&doc->pool);
    if (!pc_strbuf_extend(&doc->pool, extra))
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory for %zu bytes of strings",
                            doc_name(doc), n + extra);
    pc_strbuf_truncate(&doc->pool, n);
    *at = doc->pool.data + n;
    return PC_OK;
}

/* Keeps the len bytes decoded at the pool's end (reserved: nothing moves) and a NUL after them;
 * their offset. */
static uint64_t keep_pooled(pc_json_doc *doc, size_t len)
{
    size_t at = pc_strbuf_len(&doc->pool);
    pc_strbuf_extend(&doc->pool, len + 1);
    doc->pool.data[at + len] = '\0';
    return at;
}

pc_status pc_json_doc_new(pc_json_doc **out, const char *name)
{
    pc_json_doc *doc = calloc(1, sizeof *doc);
    if (!doc)
        return pc_error_set(PC_ERR_NOMEM, "out of memory for a JSON document");
    doc->loc = locator_new(); /* NULL: positions counted from the start, slower */
    if (name) {
        doc->name = strdup(name);
        if (!doc->name) {
            pc_json_free(doc);
            return pc_error_set(PC_ERR_NOMEM, "out of memory for a JSON document");
        }
    }
    *out = doc;
    return PC_OK;
}

void pc_json_free(pc_json_doc *doc)
{
    if (!doc)
        return;
    free(doc->name);
    free(doc->owned_data);
    free(doc->tok);
    pc_strbuf_reset(&doc->pool);
    locator_free(doc->loc);
    free(doc);
}

/* ---- numbers ---- */

static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* m rounded to 53 bits (half to even; sticky: whether nonzero bits were already dropped
 * below m), times 2^exp2. m > 0. */
static double round_to_double(uint64_t m, int exp2, int sticky)
{
    int bits = 64 - __builtin_clzll(m);
    if (bits > 53) {
        int drop = bits - 53;
        uint64_t rest = m & ((1ULL << drop) - 1);
        uint64_t half = 1ULL << (drop - 1);
        m >>= drop;
        exp2 += drop;
        if (rest > half || (rest == half && (sticky || (m & 1))))
            m++; /* m may become 2^53: still exact */
    }
    return ldexp((double)m, exp2);
}

/*
 * mant * 10^e correctly rounded, without strtod, when that is quick to do exactly:
 *   - mant <= 2^53 and |e| <= 22: one IEEE operation on exact operands (Clinger's fast path);
 *   - otherwise, with 128-bit integers, |e| <= 27 (5^27 < 2^63): for e > 0 the product
 *     mant * 5^e is exact; for e < 0 the quotient (mant << s) / 5^|e| has at least 64 bits and
 *     its remainder is the sticky bit.
 * Returns false when it does not apply (the caller uses strtod).
 */
static bool decimal_to_double(uint64_t mant, long e, double *out)
{
    if (mant == 0) {
        *out = 0.0;
        return true;
    }
#if FLT_EVAL_METHOD == 0
    if (mant <= ((uint64_t)1 << 53) && e >= -22 && e <= 22) {
        double v = (double)mant;
        *out = e < 0 ? v / exact_pow10[-e] : v * exact_pow10[e];
        return true;
    }
#endif
#ifdef __SIZEOF_INT128__
    if (e < -27 || e > 27)
        return false;
    uint64_t p5 = 1;
    for (long k = 0; k < (e < 0 ? -e : e); k++)
        p5 *= 5;
    typedef unsigned __int128 u128;
    if (e >= 0) {
        u128 n = (u128)mant * p5; /* < 2^64 * 2^63 */
        uint64_t hi = (uint64_t)(n >> 64), lo = (uint64_t)n;
        if (!hi) {
            *out = round_to_double(lo, (int)e, 0);
            return true;
        }
        int shift = 64 - __builtin_clzll(hi); /* bring the value into 64 bits */
        uint64_t top = (uint64_t)(n >> shift);
        int sticky = (n & (((u128)1 << shift) - 1)) != 0;
        *out = round_to_double(top, (int)e + shift, sticky);
        return true;
    }
    int s = 127 - (64 - __builtin_clzll(mant));
    u128 n = (u128)mant << s; /* in [2^126, 2^127) */
    u128 q = n / p5;          /* >= 2^63 */
    int rem = (n % p5) != 0;
    uint64_t qhi = (uint64_t)(q >> 64);
    int shift = qhi ? 64 - __builtin_clzll(qhi) : 0;
    uint64_t top = (uint64_t)(q >> shift);
    int sticky = rem || (shift && (q & (((u128)1 << shift) - 1)) != 0);
    *out = round_to_double(top, shift - s + (int)e, sticky);
    return true;
#else
    return false;
#endif
}

/* strtod on a NUL-terminated copy of the validated literal (the input need not be
 * terminated), with '.' turned into the locale's decimal point. */
static double slow_strtod(pc_json_doc *doc, const char *p, size_t n)
{
    char small[128];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return (double)NAN; /* unreachable in practice; a literal that long is pathological */
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (doc->decimal_point != '.') {
        char *dot = memchr(buf, '.', n);
        if (dot)
            *dot = doc->decimal_point;
    }
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    return v;
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* The value of 8 ASCII digits (checked by the caller), in a few multiplications. */
static inline uint64_t eight_digits(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    v = (v & 0x0F0F0F0F0F0F0F0FULL) * 2561 >> 8;
    v = (v & 0x00FF00FF00FF00FFULL) * 6553601 >> 16;
    return (v & 0x0000FFFF0000FFFFULL) * 42949672960001ULL >> 32;
}

static inline int all_eight_digits(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return ((v & 0xF0F0F0F0F0F0F0F0ULL) |
            (((v + 0x0606060606060606ULL) & 0xF0F0F0F0F0F0F0F0ULL) >> 4)) == 0x3333333333333333ULL;
}

/* Appends the digits p[0, n) to *mant, leading zeros of the whole number skipped while *mant
 * is 0, counting significant digits in *sig; false when there would be more than 19 (the
 * caller then uses strtod). */
static int take_digits(uint64_t *mant, int *sig, const char *p, size_t n)
{
    size_t k = 0;
    if (*sig == 0)
        while (k < n && p[k] == '0')
            k++;
    if ((size_t)(19 - *sig) < n - k)
        return 0;
    uint64_t m = *mant;
    *sig += (int)(n - k);
    for (; k + 8 <= n; k += 8)
        m = m * 100000000ULL + eight_digits(p + k);
    for (; k < n; k++)
        m = m * 10 + (uint64_t)(p[k] - '0');
    *mant = m;
    return 1;
}

/*
 * Parses the number at data[pos] (Python's grammar: -?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?,
 * or -Infinity) into tok. Integers that fit int64 are kept exact; floats of up to 19
 * significant digits go through decimal_to_double() (exact), the rest through strtod (glibc's
 * is correctly rounded).
 */
static pc_status parse_number(pc_json_doc *doc, size_t pos, size_t end, json_token *tok,
                              size_t *next)
{
    const char *d = doc->data;
    size_t i = pos;
    int neg = 0;
    if (d[i] == '-') {
        neg = 1;
        i++;
        if (i < end && d[i] == 'I') {
            if (end - i >= 8 && memcmp(d + i, "Infinity", 8) == 0) {
                tok->type = PC_JSON_FLOAT;
                tok->v.d = -HUGE_VAL;
                *next = i + 8;
                return PC_OK;
            }
            return syntax_error(doc_name(doc), d, doc->size, pos, "a value");
        }
    }
    if (i >= end || !is_digit(d[i]))
        return syntax_error(doc_name(doc), d, doc->size, pos, "a value");
    size_t int_begin = i;
    if (d[i] == '0') {
        i++;
    } else {
        while (i + 8 <= end && all_eight_digits(d + i))
            i += 8;
        while (i < end && is_digit(d[i]))
            i++;
    }
    size_t int_end = i, frac_begin = i, frac_end = i;
    int is_int = 1;
    if (i + 1 < end && d[i] == '.' && is_digit(d[i + 1])) {
        is_int = 0;
        frac_begin = ++i;
        while (i + 8 <= end && all_eight_digits(d + i))
            i += 8;
        while (i < end && is_digit(d[i]))
            i++;
        frac_end = i;
    }
    long exp10 = 0;
    int exp_big = 0;
    if (i < end && (d[i] == 'e' || d[i] == 'E')) {
        size_t j = i + 1;
        int eneg = 0;
        if (j < end && (d[j] == '+' || d[j] == '-')) {
            eneg = d[j] == '-';
            j++;
        }
        if (j < end && is_digit(d[j])) {
            is_int = 0;
            for (; j < end && is_digit(d[j]); j++) {
                if (exp10 < 100000)
                    exp10 = exp10 * 10 + (d[j] - '0');
                else
                    exp_big = 1;
            }
            if (eneg)
                exp10 = -exp10;
            i = j;
        }
        /* "1e" or "1e+": Python's regex takes "1" and stops before the 'e'. */
    }
    *next = i;
    uint64_t mant = 0;
    int sig = 0;
    int exact = take_digits(&mant, &sig, d + int_begin, int_end - int_begin);
    if (is_int) {
        /* 19 digits always fit uint64; int64 takes up to 2^63 - 1 (2^63 when negative). */
        if (exact && (mant <= (uint64_t)INT64_MAX || (neg && mant == (uint64_t)INT64_MAX + 1))) {
            tok->type = PC_JSON_INT;
            tok->v.i = !neg                              ? (int64_t)mant
                       : mant == (uint64_t)INT64_MAX + 1 ? INT64_MIN
                                                         : -(int64_t)mant;
            return PC_OK;
        }
        tok->type = PC_JSON_FLOAT;
        tok->flags |= TOK_BIG_INT;
        tok->v.d = slow_strtod(doc, d + pos, i - pos);
        return PC_OK;
    }
    tok->type = PC_JSON_FLOAT;
    if (exact && !exp_big && take_digits(&mant, &sig, d + frac_begin, frac_end - frac_begin)) {
        double v;
        if (decimal_to_double(mant, exp10 - (long)(frac_end - frac_begin), &v)) {
            tok->v.d = neg ? -v : v;
            return PC_OK;
        }
    }
    tok->v.d = slow_strtod(doc, d + pos, i - pos);
    return PC_OK;
}

/* ---- the tokenizer ---- */

static pc_status push_token(pc_json_doc *doc, uint8_t type, size_t offset, uint32_t parent,
                            json_token **out)
{
    if (doc->ntok == doc->captok) {
        pc_status st = grow_tokens(doc);
        if (st)
            return st;
    }
    json_token *t = &doc->tok[doc->ntok];
    t->type = type;
    t->flags = 0;
    t->count = 0;
    t->end = doc->ntok + 1;
    t->parent = parent;
    t->offset = offset;
    t->v.i = 0;
    doc->ntok++;
    *out = t;
    return PC_OK;
}

static pc_status parse_string_token(pc_json_doc *doc, size_t pos, size_t end, uint32_t parent,
                                    int is_key, size_t *next)
{
    /* Most strings are short: decode straight into a small reservation, and only for longer
     * ones find the closing quote first to reserve exactly enough. */
    enum { PROBE = 96 };
    const char *d = doc->data;
    size_t len = 0, stop;
    size_t probe_end = end - pos > PROBE + 1 ? pos + PROBE + 1 : end;
    char *at = NULL;
    pc_status st = reserve_pool(doc, PROBE + 1, &at);
    if (st)
        return st;
    str_result r = decode_string_raw(d, pos, probe_end, at, &len, &stop);
    if (r == STR_UNTERMINATED && probe_end < end) {
        size_t raw_end = string_end(d, pos, end);
        st = reserve_pool(doc, raw_end - pos + 1, &at);
        if (st)
            return st;
        r = decode_string_raw(d, pos, raw_end, at, &len, &stop);
    }
    if (r != STR_OK)
        return string_error(doc_name(doc), d, doc->size, pos, r, stop);
    if (len >= UINT32_MAX)
        return pc_error_set(PC_ERR_RANGE, "%s: a string longer than 4 GiB", doc_name(doc));
    json_token *t;
    st = push_token(doc, PC_JSON_STRING, pos, parent, &t);
    if (st)
        return st;
    t->flags = is_key ? TOK_KEY : 0;
    t->count = (uint32_t)len;
    t->v.s = keep_pooled(doc, len);
    *next = stop;
    return PC_OK;
}

/*
 * Tokenizes one value starting at the first non-space byte at or after begin, not reading at
 * or past end; *stop is set just after the value. Iterative, with the open containers on
 * doc->stack, so that hostile nesting cannot overflow the C stack.
 */
static pc_status tokenize(pc_json_doc *doc, size_t begin, size_t end, size_t *stop)
{
    const char *d = doc->data;
    const char *name = doc_name(doc);
    size_t pos = skip_ws(d, begin, end);
    int depth = 0;
    pc_status st;
    uint32_t parent = PC_JSON_NONE;
    json_token *t;

    for (;;) {
        /* A value is expected at pos. */
        if (pos >= end)
            return syntax_error(name, d, doc->size, pos, "a value");
        unsigned char c = (unsigned char)d[pos];
        if (parent != PC_JSON_NONE && doc->tok[parent].type == PC_JSON_ARRAY)
            doc->tok[parent].count++;
        if (c == '{' || c == '[') {
            if (depth == PC_JSON_MAX_DEPTH)
                return error_at(name, d, doc->size, pos,
                                "arrays and objects nested too deeply (more than 1000 levels)");
            st = push_token(doc, c == '{' ? PC_JSON_OBJECT : PC_JSON_ARRAY, pos, parent, &t);
            if (st)
                return st;
            uint32_t self = doc->ntok - 1;
            doc->stack[depth++] = self;
            parent = self;
            pos = skip_ws(d, pos + 1, end);
            if (pos < end && (unsigned char)d[pos] == (c == '{' ? '}' : ']')) {
                pos++;
                depth--;
                doc->tok[self].end = doc->ntok;
                parent = doc->tok[self].parent;
                goto after_value;
            }
            if (c == '[')
                continue;
            goto member_key;
        }
        if (c == '"') {
            st = parse_string_token(doc, pos, end, parent, 0, &pos);
            if (st)
                return st;
            goto after_value;
        }
        st = push_token(doc, PC_JSON_NULL, pos, parent, &t);
        if (st)
            return st;
        if (c == '-' || (c >= '0' && c <= '9')) {
            st = parse_number(doc, pos, end, t, &pos);
            if (st)
                return st;
            goto after_value;
        }
        {
            /* true, false, null, NaN, Infinity: dispatched on the first byte */
            size_t avail = end - pos;
            const char *p = d + pos;
            if (c == 't' && avail >= 4 && memcmp(p, "true", 4) == 0) {
                t->type = PC_JSON_BOOL;
                t->v.i = 1;
                pos += 4;
            } else if (c == 'f' && avail >= 5 && memcmp(p, "false", 5) == 0) {
                t->type = PC_JSON_BOOL;
                pos += 5;
            } else if (c == 'n' && avail >= 4 && memcmp(p, "null", 4) == 0) {
                pos += 4;
            } else if (c == 'N' && avail >= 3 && memcmp(p, "NaN", 3) == 0) {
                t->type = PC_JSON_FLOAT;
                t->v.d = (double)NAN;
                pos += 3;
            } else if (c == 'I' && avail >= 8 && memcmp(p, "Infinity", 8) == 0) {
                t->type = PC_JSON_FLOAT;
                t->v.d = HUGE_VAL;
                pos += 8;
            } else {
                return syntax_error(name, d, doc->size, pos, "a value");
            }
        }

    after_value:
        for (;;) {
            if (depth == 0) {
                *stop = pos;
                return PC_OK;
            }
            json_token *top = &doc->tok[doc->stack[depth - 1]];
            pos = skip_ws(d, pos, end);
            char close = top->type == PC_JSON_OBJECT ? '}' : ']';
            if (pos < end && d[pos] == ',') {
                pos = skip_ws(d, pos + 1, end);
                if (top->type == PC_JSON_OBJECT)
                    goto member_key;
                break; /* next element */
            }
            if (pos < end && d[pos] == close) {
                pos++;
                top->end = doc->ntok;
                depth--;
                parent = top->parent;
                continue;
            }
            return syntax_error(name, d, doc->size, pos,
                                top->type == PC_JSON_OBJECT ? "',' or '}' after an object member"
                                                            : "',' or ']' after an array element");
        }
        continue;

    member_key:
        /* pos is at the first non-space byte where a key must start; parent is the object. */
        if (pos >= end || d[pos] != '"')
            return syntax_error(name, d, doc->size, pos,
                                "an object key (a string in double quotes)");
        doc->tok[parent].count++;
        st = parse_string_token(doc, pos, end, parent, 1, &pos);
        if (st)
            return st;
        pos = skip_ws(d, pos, end);
        if (pos >= end || d[pos] != ':')
            return syntax_error(name, d, doc->size, pos, "':' after an object key");
        pos = skip_ws(d, pos + 1, end);
        continue;
    }
}

static void doc_reset(pc_json_doc *doc, const char *data, size_t size)
{
    doc->data = data;
    doc->size = size;
    doc->ntok = 0;
    if (pc_strbuf_error(&doc->pool))
        pc_strbuf_reset(&doc->pool); /* an out-of-memory sticks: start afresh */
    else
        pc_strbuf_truncate(&doc->pool, 0);
    const struct lconv *lc = localeconv();
    doc->decimal_point =
        lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
}

static pc_status parse_into(pc_json_doc *doc, const char *data, size_t size, size_t begin,
                            size_t end, size_t *stop)
{
    doc_reset(doc, data, size);
    if (begin == 0 && end >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
        doc->ntok = 0;
        return error_at(doc_name(doc), data, size, 0,
                        "unexpected UTF-8 byte order mark (Python's json refuses it too)");
    }
    pc_status st = tokenize(doc, begin, end, stop);
    if (st)
        doc->ntok = 0;
    return st;
}

pc_status pc_json_parse_range(pc_json_doc *doc, const char *data, size_t size, size_t begin,
                              size_t end)
{
    if (end > size || begin > end)
        return pc_error_set(PC_ERR_INVALID, "%s: range [%zu, %zu) outside the %zu-byte input",
                            doc_name(doc), begin, end, size);
    size_t stop;
    pc_status st = parse_into(doc, data, size, begin, end, &stop);
    if (st)
        return st;
    stop = skip_ws(data, stop, end);
    if (stop != end) {
        doc->ntok = 0;
        return syntax_error(doc_name(doc), data, size, stop, "end of input after the value");
    }
    return PC_OK;
}

pc_status pc_json_parse_value_at(pc_json_doc *doc, const char *data, size_t size, size_t begin,
                                 size_t *stop)
{
    if (begin > size)
        return pc_error_set(PC_ERR_INVALID, "%s: offset %zu outside the %zu-byte input",
                            doc_name(doc), begin, size);
    return parse_into(doc, data, size, begin, size, stop);
}

pc_status pc_json_parse(pc_json_doc **out, const char *data, size_t size, const char *name)
{
    pc_json_doc *doc = NULL;
    pc_status st = pc_json_doc_new(&doc, name);
    if (st)
        return st;
    st = pc_json_parse_range(doc, data, size, 0, size);
    if (st) {
        pc_json_free(doc);
        return st;
    }
    *out = doc;
    return PC_OK;
}

pc_status pc_json_parse_file(pc_json_doc **out, const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return pc_error_set(errno == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO, "%s: %s", path,
                            strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        int err = errno;
        close(fd);
        return pc_error_set(PC_ERR_IO, "%s: %s", path,
                            S_ISREG(sb.st_mode) ? strerror(err) : "not a regular file");
    }
    size_t size = (size_t)sb.st_size;
    char *buf = malloc(size ? size : 1);
    if (!buf) {
        close(fd);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory for %zu bytes", path, size);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : 0;
            close(fd);
            free(buf);
            return pc_error_set(PC_ERR_IO, "%s: %s", path,
                                err ? strerror(err) : "file shrank while reading");
        }
        got += (size_t)n;
    }
    close(fd);
    pc_json_doc *doc = NULL;
    pc_status st = pc_json_doc_new(&doc, path);
    if (st) {
        free(buf);
        return st;
    }
    doc->owned_data = buf;
    st = pc_json_parse_range(doc, buf, size, 0, size);
    if (st) {
        pc_json_free(doc);
        return st;
    }
    *out = doc;
    return PC_OK;
}

/* ---- navigation ---- */

static inline const json_token *tok_at(const pc_json_doc *doc, pc_json_ref v)
{
    return (doc && v < doc->ntok) ? &doc->tok[v] : NULL;
}

pc_json_ref pc_json_root(const pc_json_doc *doc)
{
    return doc && doc->ntok ? 0 : PC_JSON_NONE;
}

pc_json_type pc_json_type_of(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    return t ? (pc_json_type)t->type : PC_JSON_INVALID;
}

const char *pc_json_type_name(pc_json_type type)
{
    switch (type) {
    case PC_JSON_NULL:
        return "null";
    case PC_JSON_BOOL:
        return "boolean";
    case PC_JSON_INT:
        return "integer";
    case PC_JSON_FLOAT:
        return "number";
    case PC_JSON_STRING:
        return "string";
    case PC_JSON_ARRAY:
        return "array";
    case PC_JSON_OBJECT:
        return "object";
    default:
        return "nothing";
    }
}

size_t pc_json_count(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    if (!t || (t->type != PC_JSON_ARRAY && t->type != PC_JSON_OBJECT))
        return 0;
    return t->count;
}

pc_json_ref pc_json_first(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    if (!t || (t->type != PC_JSON_ARRAY && t->type != PC_JSON_OBJECT) || t->count == 0)
        return PC_JSON_NONE;
    return v + 1;
}

pc_json_ref pc_json_next(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    if (!t || t->parent == PC_JSON_NONE)
        return PC_JSON_NONE;
    uint32_t n = (t->flags & TOK_KEY) ? doc->tok[v + 1].end : t->end;
    if (n >= doc->ntok || doc->tok[n].parent != t->parent)
        return PC_JSON_NONE;
    return n;
}

pc_json_ref pc_json_member_value(const pc_json_doc *doc, pc_json_ref key_ref)
{
    const json_token *t = tok_at(doc, key_ref);
    if (!t || !(t->flags & TOK_KEY))
        return PC_JSON_NONE;
    return key_ref + 1;
}

pc_json_ref pc_json_array_at(const pc_json_doc *doc, pc_json_ref array, size_t i)
{
    if (pc_json_type_of(doc, array) != PC_JSON_ARRAY || i >= pc_json_count(doc, array))
        return PC_JSON_NONE;
    pc_json_ref e = pc_json_first(doc, array);
    while (i-- && e != PC_JSON_NONE)
        e = pc_json_next(doc, e);
    return e;
}

static int key_equals(const pc_json_doc *doc, const json_token *k, const char *key, size_t len)
{
    return k->count == len && memcmp(doc->pool.data + k->v.s, key, len) == 0;
}

pc_json_ref pc_json_object_get(const pc_json_doc *doc, pc_json_ref obj, const char *key)
{
    if (pc_json_type_of(doc, obj) != PC_JSON_OBJECT || !key)
        return PC_JSON_NONE;
    size_t len = strlen(key);
    pc_json_ref found = PC_JSON_NONE;
    for (pc_json_ref k = pc_json_first(doc, obj); k != PC_JSON_NONE; k = pc_json_next(doc, k))
        if (key_equals(doc, &doc->tok[k], key, len))
            found = k + 1;
    return found;
}

bool pc_json_member_is_last_of_key(const pc_json_doc *doc, pc_json_ref key_ref)
{
    const json_token *t = tok_at(doc, key_ref);
    if (!t || !(t->flags & TOK_KEY))
        return false;
    for (pc_json_ref k = pc_json_next(doc, key_ref); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
        const json_token *o = &doc->tok[k];
        if (o->count == t->count &&
            memcmp(doc->pool.data + o->v.s, doc->pool.data + t->v.s, t->count) == 0)
            return false;
    }
    return true;
}

/* ---- scalars ---- */

bool pc_json_is_null(const pc_json_doc *doc, pc_json_ref v)
{
    return pc_json_type_of(doc, v) == PC_JSON_NULL;
}

const char *pc_json_string(const pc_json_doc *doc, pc_json_ref v, size_t *len)
{
    const json_token *t = tok_at(doc, v);
    if (!t || t->type != PC_JSON_STRING)
        return NULL;
    if (len)
        *len = t->count;
    return doc->pool.data + t->v.s;
}

double pc_json_number(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    if (!t)
        return (double)NAN;
    if (t->type == PC_JSON_INT)
        return (double)t->v.i;
    if (t->type == PC_JSON_FLOAT)
        return t->v.d;
    return (double)NAN;
}

bool pc_json_is_big_integer(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    return t && t->type == PC_JSON_FLOAT && (t->flags & TOK_BIG_INT);
}

bool pc_json_is_key(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    return t && (t->flags & TOK_KEY);
}

const char *pc_json_doc_name(const pc_json_doc *doc)
{
    return doc ? doc_name(doc) : "<json>";
}

size_t pc_json_offset(const pc_json_doc *doc, pc_json_ref v)
{
    const json_token *t = tok_at(doc, v);
    return t ? (size_t)t->offset : SIZE_MAX;
}

void pc_json_location(const pc_json_doc *doc, pc_json_ref v, size_t *line, size_t *column)
{
    const json_token *t = tok_at(doc, v);
    if (!t) {
        *line = *column = 0;
        return;
    }
    pc_json_doc_offset_location(doc, (size_t)t->offset, line, column);
}

/* ---- typed getters ---- */

/* "<name>:<line>:<col>: [\"key\": ]expected X, found Y" */
static pc_status type_error(const pc_json_doc *doc, pc_json_ref v, const char *key,
                            const char *expected, pc_status status)
{
    size_t line, col;
    pc_json_location(doc, v, &line, &col);
    const char *found = pc_json_is_big_integer(doc, v) ? "an integer outside the 64-bit range"
                                                       : pc_json_type_name(pc_json_type_of(doc, v));
    if (key)
        return pc_error_set(status, "%s:%zu:%zu: \"%s\": expected %s, found %s", doc_name(doc),
                            line, col, key, expected, found);
    return pc_error_set(status, "%s:%zu:%zu: expected %s, found %s", doc_name(doc), line, col,
                        expected, found);
}

static pc_status no_value(const pc_json_doc *doc)
{
    return pc_error_set(PC_ERR_NOT_FOUND, "%s: no value", pc_json_doc_name(doc));
}

static pc_status get_bool(const pc_json_doc *doc, pc_json_ref v, const char *key, bool *out)
{
    const json_token *t = tok_at(doc, v);
    if (!t)
        return no_value(doc);
    if (t->type != PC_JSON_BOOL)
        return type_error(doc, v, key, "a boolean", PC_ERR_INVALID);
    *out = t->v.i != 0;
    return PC_OK;
}

static pc_status get_int64(const pc_json_doc *doc, pc_json_ref v, const char *key, int64_t *out)
{
    const json_token *t = tok_at(doc, v);
    if (!t)
        return no_value(doc);
    if (t->type != PC_JSON_INT)
        return type_error(doc, v, key, "an integer",
                          (t->flags & TOK_BIG_INT) ? PC_ERR_RANGE : PC_ERR_INVALID);
    *out = t->v.i;
    return PC_OK;
}

static pc_status get_double(const pc_json_doc *doc, pc_json_ref v, const char *key, double *out)
{
    const json_token *t = tok_at(doc, v);
    if (!t)
        return no_value(doc);
    if (t->type != PC_JSON_INT && t->type != PC_JSON_FLOAT)
        return type_error(doc, v, key, "a number", PC_ERR_INVALID);
    *out = pc_json_number(doc, v);
    return PC_OK;
}

static pc_status get_string(const pc_json_doc *doc, pc_json_ref v, const char *key,
                            const char **out, size_t *len)
{
    const json_token *t = tok_at(doc, v);
    if (!t)
        return no_value(doc);
    if (t->type != PC_JSON_STRING)
        return type_error(doc, v, key, "a string", PC_ERR_INVALID);
    *out = pc_json_string(doc, v, len);
    return PC_OK;
}

pc_status pc_json_get_bool(const pc_json_doc *doc, pc_json_ref v, bool *out)
{
    return get_bool(doc, v, NULL, out);
}

pc_status pc_json_get_int64(const pc_json_doc *doc, pc_json_ref v, int64_t *out)
{
    return get_int64(doc, v, NULL, out);
}

pc_status pc_json_get_double(const pc_json_doc *doc, pc_json_ref v, double *out)
{
    return get_double(doc, v, NULL, out);
}

pc_status pc_json_get_string(const pc_json_doc *doc, pc_json_ref v, const char **out, size_t *len)
{
    return get_string(doc, v, NULL, out, len);
}

/* The member's value, or PC_ERR_NOT_FOUND naming the object's position. */
static pc_status member(const pc_json_doc *doc, pc_json_ref obj, const char *key, pc_json_ref *v)
{
    if (!tok_at(doc, obj))
        return no_value(doc);
    if (pc_json_type_of(doc, obj) != PC_JSON_OBJECT)
        return type_error(doc, obj, NULL, "an object", PC_ERR_INVALID);
    *v = pc_json_object_get(doc, obj, key);
    if (*v == PC_JSON_NONE) {
        size_t line, col;
        pc_json_location(doc, obj, &line, &col);
        return pc_error_set(PC_ERR_NOT_FOUND, "%s:%zu:%zu: missing key \"%s\"", doc_name(doc), line,
                            col, key);
    }
    return PC_OK;
}

pc_status pc_json_object_get_bool(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                  bool *out)
{
    pc_json_ref v = PC_JSON_NONE;
    pc_status st = member(doc, obj, key, &v);
    return st ? st : get_bool(doc, v, key, out);
}

pc_status pc_json_object_get_int64(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                   int64_t *out)
{
    pc_json_ref v = PC_JSON_NONE;
    pc_status st = member(doc, obj, key, &v);
    return st ? st : get_int64(doc, v, key, out);
}

pc_status pc_json_object_get_double(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                    double *out)
{
    pc_json_ref v = PC_JSON_NONE;
    pc_status st = member(doc, obj, key, &v);
    return st ? st : get_double(doc, v, key, out);
}

pc_status pc_json_object_get_string(const pc_json_doc *doc, pc_json_ref obj, const char *key,
                                    const char **out)
{
    pc_json_ref v = PC_JSON_NONE;
    pc_status st = member(doc, obj, key, &v);
    return st ? st : get_string(doc, v, key, out, NULL);
}

/* ---- the member scanner ---- */

enum { SCAN_FIRST = 0, SCAN_AFTER_MEMBER, SCAN_IN_VALUE, SCAN_DONE };

static const char *scan_name(const pc_json_scanner *s)
{
    return s->name ? s->name : "<json>";
}

pc_status pc_json_scanner_init(pc_json_scanner *s, const char *data, size_t size, size_t pos,
                               const char *name)
{
    memset(s, 0, sizeof *s);
    s->data = data;
    s->size = size;
    s->name = name;
    pos = skip_ws(data, pos, size);
    if (pos >= size || data[pos] != '{')
        return syntax_error(scan_name(s), data, size, pos, "'{'");
    s->pos = pos + 1;
    s->state = SCAN_FIRST;
    return PC_OK;
}

void pc_json_scanner_free(pc_json_scanner *s)
{
    if (!s)
        return;
    free(s->key);
    s->key = NULL;
    s->key_cap = 0;
}

/* Where the value starting at pos ends: brackets of both kinds counted together outside
 * strings (the tokenizer, run on the span later, catches mismatched kinds). */
static pc_status skip_value(const pc_json_scanner *s, size_t pos, size_t *end)
{
    const char *d = s->data;
    size_t n = s->size;
    if (pos >= n)
        return syntax_error(scan_name(s), d, n, pos, "a value");
    char c = d[pos];
    if (c == '"') {
        size_t i = pos + 1;
        for (;;) {
            const char *q = memchr(d + i, '"', n - i);
            if (!q)
                return error_at(scan_name(s), d, n, pos, "unterminated string starting here");
            size_t k = (size_t)(q - d);
            size_t bs = 0;
            while (k - bs > pos + 1 && d[k - bs - 1] == '\\')
                bs++;
            i = k + 1;
            if (bs % 2 == 0)
                break;
        }
        *end = i;
        return PC_OK;
    }
    if (c == '{' || c == '[') {
        size_t depth = 0;
        for (size_t i = pos; i < n; i++) {
            char ch = d[i];
            if (ch == '{' || ch == '[') {
                depth++;
            } else if (ch == '}' || ch == ']') {
                if (--depth == 0) {
                    *end = i + 1;
                    return PC_OK;
                }
            } else if (ch == '"') {
                size_t j = i + 1;
                while (j < n && d[j] != '"') {
                    if (d[j] == '\\')
                        j++;
                    j++;
                }
                if (j >= n)
                    return error_at(scan_name(s), d, n, i, "unterminated string starting here");
                i = j;
            }
        }
        return error_at(scan_name(s), d, n, pos,
                        c == '{' ? "unterminated object starting here"
                                 : "unterminated array starting here");
    }
    size_t i = pos;
    while (i < n && !is_ws((unsigned char)d[i]) && d[i] != ',' && d[i] != '}' && d[i] != ']')
        i++;
    if (i == pos)
        return syntax_error(scan_name(s), d, n, pos, "a value");
    *end = i;
    return PC_OK;
}

static pc_status scan_key(pc_json_scanner *s, const char **key, size_t *key_len, size_t *key_offset,
                          size_t *value_begin, bool *done)
{
    const char *d = s->data;
    size_t n = s->size;
    size_t pos = skip_ws(d, s->pos, n);
    *done = false;
    if (s->state == SCAN_DONE) {
        *done = true;
        return PC_OK;
    }
    if (s->state == SCAN_IN_VALUE)
        return pc_error_set(PC_ERR_INVALID, "%s: JSON scanner used out of order", scan_name(s));
    if (s->state == SCAN_AFTER_MEMBER) {
        if (pos < n && d[pos] == '}') {
            s->pos = pos + 1;
            s->state = SCAN_DONE;
            *done = true;
            return PC_OK;
        }
        if (pos >= n || d[pos] != ',')
            return syntax_error(scan_name(s), d, n, pos, "',' or '}' after an object member");
        pos = skip_ws(d, pos + 1, n);
    } else if (pos < n && d[pos] == '}') {
        s->pos = pos + 1;
        s->state = SCAN_DONE;
        *done = true;
        return PC_OK;
    }
    if (pos >= n || d[pos] != '"')
        return syntax_error(scan_name(s), d, n, pos, "an object key (a string in double quotes)");
    size_t raw_end;
    pc_status st = skip_value(s, pos, &raw_end);
    if (st)
        return st;
    size_t need = raw_end - pos + 1;
    if (need > s->key_cap) {
        char *k = realloc(s->key, need);
        if (!k)
            return pc_error_set(PC_ERR_NOMEM, "%s: out of memory for a key", scan_name(s));
        s->key = k;
        s->key_cap = need;
    }
    size_t len = 0, next = raw_end;
    st = decode_string(scan_name(s), d, n, pos, raw_end, s->key, &len, &next);
    if (st)
        return st;
    s->key[len] = '\0';
    *key = s->key;
    *key_len = len;
    *key_offset = pos;
    pos = skip_ws(d, next, n);
    if (pos >= n || d[pos] != ':')
        return syntax_error(scan_name(s), d, n, pos, "':' after an object key");
    pos = skip_ws(d, pos + 1, n);
    if (pos >= n)
        return syntax_error(scan_name(s), d, n, pos, "a value");
    *value_begin = pos;
    s->pos = pos;
    s->state = SCAN_IN_VALUE;
    return PC_OK;
}

pc_status pc_json_scanner_next(pc_json_scanner *s, const char **key, size_t *key_len,
                               size_t *key_offset, size_t *value_begin, size_t *value_end,
                               bool *done)
{
    pc_status st = scan_key(s, key, key_len, key_offset, value_begin, done);
    if (st || *done)
        return st;
    st = skip_value(s, *value_begin, value_end);
    if (st)
        return st;
    s->pos = *value_end;
    s->state = SCAN_AFTER_MEMBER;
    return PC_OK;
}

pc_status pc_json_scanner_next_key(pc_json_scanner *s, const char **key, size_t *key_len,
                                   size_t *key_offset, size_t *value_begin, bool *done)
{
    return scan_key(s, key, key_len, key_offset, value_begin, done);
}

void pc_json_scanner_value_done(pc_json_scanner *s, size_t value_end)
{
    s->pos = value_end;
    s->state = SCAN_AFTER_MEMBER;
}

pc_status pc_json_expect_end(const char *data, size_t size, size_t pos, const char *name)
{
    pos = skip_ws(data, pos, size);
    if (pos != size)
        return syntax_error(name ? name : "<json>", data, size, pos,
                            "end of input after the value");
    return PC_OK;
}

bool pc_json_truthy(const pc_json_doc *doc, pc_json_ref v)
{
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_BOOL: {
        bool b = false;
        pc_json_get_bool(doc, v, &b);
        return b;
    }
    case PC_JSON_INT:
    case PC_JSON_FLOAT: /* NaN is truthy in Python, and NaN != 0 is true in C */
        return pc_json_number(doc, v) != 0 || pc_json_is_big_integer(doc, v);
    case PC_JSON_STRING: {
        size_t len = 0;
        pc_json_string(doc, v, &len);
        return len > 0;
    }
    case PC_JSON_ARRAY:
    case PC_JSON_OBJECT:
        return pc_json_count(doc, v) > 0;
    default:
        return false;
    }
}
