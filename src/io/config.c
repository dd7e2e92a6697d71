#include "precheck/io/config.h"

#include "precheck/core/log.h"
#include "precheck/io/json.h"
#include "precheck/io/path_check.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

/* The four keys, in the order msprobe's validator dict lists them (its error message prints
 * them in this order). */
enum { KEY_WHITE_LIST, KEY_BLACK_LIST, KEY_ERROR_DATA_PATH, KEY_PRECISION, KEY_COUNT };
static const char *const key_names[KEY_COUNT] = {
    [KEY_WHITE_LIST] = "white_list",
    [KEY_BLACK_LIST] = "black_list",
    [KEY_ERROR_DATA_PATH] = "error_data_path",
    [KEY_PRECISION] = "precision",
};
#define KEYS_AS_PYTHON "dict_keys(['white_list', 'black_list', 'error_data_path', 'precision'])"

enum { PRECISION_MAX = 20 };

/* msprobe's limits on rank/step lists and their elements. */
enum { STEP_RANK_MAX = 1000000 };

/* Messages are cut at PC_ERROR_MESSAGE_MAX anyway; building more than this is wasted work
 * (a list of a million bad names must not cost a million appends). */
enum { TEXT_LIMIT = 4 * PC_ERROR_MESSAGE_MAX };

/* ---------------------------------------------------------------------------------------------
 * A bounded growable string for building messages
 * ------------------------------------------------------------------------------------------- */

typedef struct text {
    char *data;
    size_t len, cap;
    bool failed; /* out of memory: the contents are dropped */
} text;

static void text_add(text *t, const char *s, size_t n)
{
    if (t->failed || t->len >= TEXT_LIMIT)
        return;
    if (n > TEXT_LIMIT - t->len)
        n = TEXT_LIMIT - t->len;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 128;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *data = realloc(t->data, cap);
        if (!data) {
            t->failed = true;
            return;
        }
        t->data = data;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void text_adds(text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void text_addf(text *t, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        text_add(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static const char *text_str(const text *t)
{
    return t->failed || !t->data ? "" : t->data;
}

/* ---------------------------------------------------------------------------------------------
 * Python's repr() of str and float, for messages that print Python values
 * ------------------------------------------------------------------------------------------- */

static void repr_str(text *t, const char *s, size_t n)
{
    bool has_single = memchr(s, '\'', n) != NULL, has_double = memchr(s, '"', n) != NULL;
    char quote = has_single && !has_double ? '"' : '\'';
    text_add(t, &quote, 1);
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == (unsigned char)quote || c == '\\') {
            char esc[2] = {'\\', (char)c};
            text_add(t, esc, 2);
        } else if (c == '\t') {
            text_adds(t, "\\t");
        } else if (c == '\n') {
            text_adds(t, "\\n");
        } else if (c == '\r') {
            text_adds(t, "\\r");
        } else if (c < 0x20 || c == 0x7f) {
            text_addf(t, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < n && (p[i + 1] <= 0xa0 || p[i + 1] == 0xad)) {
            /* U+0080..U+00A0 and U+00AD are not printable for Python */
            text_addf(t, "\\x%02x", p[i + 1]);
            i++;
        } else {
            text_add(t, (const char *)&p[i], 1);
        }
    }
    text_add(t, &quote, 1);
}

static void repr_float(text *t, double x)
{
    if (isnan(x)) {
        text_adds(t, "nan");
        return;
    }
    if (isinf(x)) {
        text_adds(t, x < 0 ? "-inf" : "inf");
        return;
    }
    if (signbit(x))
        text_adds(t, "-");
    x = fabs(x);
    /* The shortest digits that read back as x, as Python's repr finds them. */
    char buf[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, sizeof buf, "%.*e", precision - 1, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    char digits[24];
    size_t nd = 0;
    const char *p = buf;
    for (; *p && *p != 'e'; p++)
        if (*p != '.')
            digits[nd++] = *p;
    int exponent = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int decpt = exponent + 1; /* x = 0.<digits> * 10^decpt */
    if (x == 0)
        decpt = 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            text_adds(t, "0.");
            for (int i = 0; i < -decpt; i++)
                text_adds(t, "0");
            text_add(t, digits, nd);
        } else if ((size_t)decpt >= nd) {
            text_add(t, digits, nd);
            for (size_t i = nd; i < (size_t)decpt; i++)
                text_adds(t, "0");
            text_adds(t, ".0");
        } else {
            text_add(t, digits, (size_t)decpt);
            text_adds(t, ".");
            text_add(t, digits + decpt, nd - (size_t)decpt);
        }
    } else {
        text_add(t, digits, 1);
        if (nd > 1) {
            text_adds(t, ".");
            text_add(t, digits + 1, nd - 1);
        }
        text_addf(t, "e%c%02d", decpt - 1 < 0 ? '-' : '+', abs(decpt - 1));
    }
}

/* ---------------------------------------------------------------------------------------------
 * Python's int() and float() on a string, as far as config values need them
 * ------------------------------------------------------------------------------------------- */

static bool is_py_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z')
        return c - 'A' + 10;
    return 99;
}

/* int(s, base) for base 2, 8, 10 or 16: surrounding whitespace, a sign, the base's 0b/0o/0x
 * prefix (not for 10), single underscores between digits. A value beyond int64 saturates and
 * sets *big. */
static bool py_int(const char *s, size_t n, int base, int64_t *out, bool *big)
{
    size_t i = 0;
    while (i < n && is_py_space((unsigned char)s[i]))
        i++;
    while (n > i && is_py_space((unsigned char)s[n - 1]))
        n--;
    bool negative = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        negative = s[i++] == '-';
    bool after_prefix = false;
    if (base != 10 && i + 1 < n && s[i] == '0') {
        char p = (char)(s[i + 1] | 0x20);
        if ((base == 2 && p == 'b') || (base == 8 && p == 'o') || (base == 16 && p == 'x')) {
            i += 2;
            after_prefix = true;
        }
    }
    uint64_t value = 0;
    bool overflow = false;
    size_t digits = 0;
    bool last_underscore = false;
    for (; i < n; i++) {
        if (s[i] == '_') {
            if (last_underscore || (digits == 0 && !after_prefix))
                return false;
            last_underscore = true;
            continue;
        }
        int d = digit_value(s[i]);
        if (d >= base)
            return false;
        last_underscore = false;
        digits++;
        if (value > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            overflow = true;
        else
            value = value * (uint64_t)base + (uint64_t)d;
    }
    if (digits == 0 || last_underscore)
        return false;
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    *big = overflow || value > limit;
    if (*big)
        *out = negative ? INT64_MIN : INT64_MAX;
    else
        *out = negative ? (int64_t)(0 - value) : (int64_t)value;
    return true;
}

/* float(s): whitespace, a sign, inf/infinity/nan (any case), or decimal digits with an
 * optional point and exponent. */
static bool py_float(const char *s, size_t n, double *out)
{
    size_t i = 0;
    while (i < n && is_py_space((unsigned char)s[i]))
        i++;
    while (n > i && is_py_space((unsigned char)s[n - 1]))
        n--;
    char buf[64];
    if (n - i >= sizeof buf)
        return false;
    size_t m = 0;
    for (size_t k = i; k < n; k++)
        buf[m++] = (char)(s[k] >= 'A' && s[k] <= 'Z' ? s[k] | 0x20 : s[k]);
    buf[m] = '\0';
    const char *p = buf;
    double sign = 1;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    if (strcmp(p, "inf") == 0 || strcmp(p, "infinity") == 0) {
        *out = sign * HUGE_VAL;
        return true;
    }
    if (strcmp(p, "nan") == 0) {
        *out = NAN;
        return true;
    }
    const char *q = p;
    size_t mantissa_digits = 0;
    while (*q >= '0' && *q <= '9')
        q++, mantissa_digits++;
    if (*q == '.') {
        q++;
        while (*q >= '0' && *q <= '9')
            q++, mantissa_digits++;
    }
    if (mantissa_digits == 0)
        return false;
    if (*q == 'e') {
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return false;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q)
        return false;
    *out = sign * strtod(p, NULL);
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * String lists
 * ------------------------------------------------------------------------------------------- */

static void list_free(pc_string_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/* Room for `count` strings; list->count grows as they are set with list_push(). */
static bool list_reserve(pc_string_list *list, size_t count)
{
    list->count = 0;
    list->items = calloc(count ? count : 1, sizeof *list->items);
    return list->items != NULL;
}

static bool list_push(pc_string_list *list, const char *s, size_t n)
{
    char *copy = malloc(n + 1);
    if (!copy)
        return false;
    memcpy(copy, s, n);
    copy[n] = '\0';
    list->items[list->count++] = copy;
    return true;
}

void pc_config_free(pc_config *config)
{
    if (!config)
        return;
    list_free(&config->white_list);
    list_free(&config->black_list);
    free(config->error_data_path);
    memset(config, 0, sizeof *config);
}

static bool path_exists(const char *path, size_t len)
{
    struct stat st;
    return strlen(path) == len && stat(path, &st) == 0; /* NUL inside: Python says False */
}

static pc_status out_of_memory(void)
{
    return pc_error_set(PC_ERR_NOMEM, "out of memory while reading the configuration");
}

/* A whole file into memory (malloc'd, NUL-terminated). */
static pc_status read_file(const char *path, const char *what, char **data, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return pc_error_set(PC_ERR_IO, "Load %s file %s failed: %s", what, path, strerror(errno));
    char *all = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 65536 + 1 > cap) {
            size_t grown = cap ? cap * 2 : 65536 + 1;
            char *bigger = realloc(all, grown);
            if (!bigger) {
                free(all);
                fclose(fp);
                return out_of_memory();
            }
            all = bigger;
            cap = grown;
        }
        size_t n = fread(all + len, 1, cap - len - 1, fp);
        len += n;
        if (n == 0)
            break;
    }
    bool failed = ferror(fp);
    int err = errno;
    fclose(fp);
    if (failed) {
        free(all);
        return pc_error_set(PC_ERR_IO, "Load %s file %s failed: %s", what, path, strerror(err));
    }
    all[len] = '\0';
    *data = all;
    *size = len;
    return PC_OK;
}

/* ---------------------------------------------------------------------------------------------
 * YAML: a small tree built from libyaml's events, typed as PyYAML's SafeLoader types it
 * ------------------------------------------------------------------------------------------- */

typedef enum ykind {
    YK_NULL,
    YK_BOOL,
    YK_INT,
    YK_FLOAT,
    YK_STR,
    YK_TIMESTAMP,
    YK_BINARY,
    YK_SEQ,   /* a Python list */
    YK_PAIRS, /* !!omap or !!pairs: a Python list of tuples */
    YK_MAP,   /* a dict */
    YK_SET,   /* !!set */
    YK_MERGE, /* a plain "<<": only meaningful as a mapping key (a merge) */
    YK_VALUE, /* a plain "=": a string as a mapping key, refused anywhere else */
} ykind;

/* How a message names what was found instead of a mapping. */
static const char *ykind_what(ykind kind)
{
    static const char *const names[] = {
        [YK_NULL] = "nothing",       [YK_BOOL] = "a bool",  [YK_INT] = "an int",
        [YK_FLOAT] = "a float",      [YK_STR] = "a string", [YK_TIMESTAMP] = "a timestamp",
        [YK_BINARY] = "binary data", [YK_SEQ] = "a list",   [YK_PAIRS] = "a list",
        [YK_MAP] = "a mapping",      [YK_SET] = "a set",    [YK_MERGE] = "a merge key",
        [YK_VALUE] = "a value key",
    };
    _Static_assert(sizeof names / sizeof names[0] == YK_VALUE + 1, "a name for every kind");
    return names[kind];
}

static bool ykind_is_container(ykind kind)
{
    return kind == YK_SEQ || kind == YK_PAIRS || kind == YK_MAP || kind == YK_SET;
}

typedef struct ynode {
    ykind kind;
    bool bval;
    bool big; /* YK_INT outside int64 (ival saturated) */
    int64_t ival;
    double fval;
    char *str; /* scalars: the text, NUL-terminated (it may hold NULs: len is the length) */
    size_t len;
    size_t *kids; /* containers: items; mappings alternate key, value */
    size_t kid_count, kid_cap;
    size_t line, column; /* from 1 */
} ynode;

typedef struct yanchor {
    char *name;
    size_t node;
} yanchor;

typedef struct ydoc {
    const char *name; /* for messages */
    ynode *nodes;
    size_t count, cap;
    yanchor *anchors;
    size_t anchor_count, anchor_cap;
    size_t *stack; /* open containers */
    size_t depth, stack_cap;
    size_t root;
    bool has_root;
} ydoc;

static void ydoc_free(ydoc *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->nodes[i].str);
        free(d->nodes[i].kids);
    }
    free(d->nodes);
    for (size_t i = 0; i < d->anchor_count; i++)
        free(d->anchors[i].name);
    free(d->anchors);
    free(d->stack);
}

__attribute__((format(printf, 4, 5))) static pc_status
yaml_fail(const ydoc *d, size_t line, size_t column, const char *fmt, ...)
{
    char what[PC_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pc_error_set(PC_ERR_FORMAT, "Load yaml file %s failed: %s:%zu:%zu: %s", d->name, d->name,
                        line, column, what);
}

static bool grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *bigger = realloc(*items, n * size);
    if (!bigger)
        return false;
    *items = bigger;
    *cap = n;
    return true;
}

/* ---- PyYAML's implicit resolvers (YAML 1.1), on plain scalars ---- */

typedef struct cursor {
    const char *s;
    size_t n, i;
} cursor;

static bool cur_end(const cursor *c)
{
    return c->i == c->n;
}

static bool cur_eat(cursor *c, char ch)
{
    if (c->i < c->n && c->s[c->i] == ch) {
        c->i++;
        return true;
    }
    return false;
}

static bool cur_eat_in(cursor *c, const char *set)
{
    if (c->i < c->n && c->s[c->i] && strchr(set, c->s[c->i])) {
        c->i++;
        return true;
    }
    return false;
}

static size_t cur_eat_all(cursor *c, const char *set)
{
    size_t k = 0;
    while (cur_eat_in(c, set))
        k++;
    return k;
}

static bool cur_eat_word(cursor *c, const char *word)
{
    size_t n = strlen(word);
    if (c->n - c->i >= n && memcmp(c->s + c->i, word, n) == 0) {
        c->i += n;
        return true;
    }
    return false;
}

#define DIGITS    "0123456789"
#define DIGITS_US "0123456789_"

/* (?::[0-5]?[0-9])+ followed by what the caller checks next (never a digit, so taking two
 * digits when they fit is what the backtracking regex ends up doing too). */
static bool cur_eat_base60(cursor *c)
{
    size_t groups = 0;
    while (c->i < c->n && c->s[c->i] == ':') {
        size_t save = c->i++;
        if (c->i + 1 < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '5' && c->s[c->i + 1] >= '0' &&
            c->s[c->i + 1] <= '9')
            c->i += 2;
        else if (!cur_eat_in(c, DIGITS)) {
            c->i = save;
            break;
        }
        groups++;
    }
    return groups > 0;
}

/* (?:[eE][-+][0-9]+)?$ */
static bool cur_exponent_then_end(cursor *c)
{
    if (cur_end(c))
        return true;
    return cur_eat_in(c, "eE") && cur_eat_in(c, "-+") && cur_eat_all(c, DIGITS) > 0 && cur_end(c);
}

static bool match_bool(const char *s, size_t n, bool *value)
{
    static const char *const yes[] = {"yes",  "Yes", "YES", "true", "True",
                                      "TRUE", "on",  "On",  "ON"};
    static const char *const no[] = {"no",    "No",  "NO",  "false", "False",
                                     "FALSE", "off", "Off", "OFF"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strlen(yes[i]) == n && memcmp(s, yes[i], n) == 0) {
            *value = true;
            return true;
        }
        if (strlen(no[i]) == n && memcmp(s, no[i], n) == 0) {
            *value = false;
            return true;
        }
    }
    return false;
}

static bool match_float(const char *s, size_t n)
{
    cursor c = {s, n, 0};
    /* [-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)? */
    cur_eat_in(&c, "-+");
    if (cur_eat_in(&c, DIGITS)) {
        cur_eat_all(&c, DIGITS_US);
        size_t after_int = c.i;
        if (cur_eat(&c, '.')) {
            cur_eat_all(&c, DIGITS_US);
            if (cur_exponent_then_end(&c))
                return true;
        }
        /* [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* */
        c.i = after_int;
        if (cur_eat_base60(&c) && cur_eat(&c, '.')) {
            cur_eat_all(&c, DIGITS_US);
            if (cur_end(&c))
                return true;
        }
    }
    c.i = 0;
    /* \.[0-9][0-9_]*(?:[eE][-+][0-9]+)? and \.(?:nan|NaN|NAN) */
    if (cur_eat(&c, '.')) {
        if (cur_eat_in(&c, DIGITS)) {
            cur_eat_all(&c, DIGITS_US);
            if (cur_exponent_then_end(&c))
                return true;
        }
        c.i = 1;
        if ((cur_eat_word(&c, "nan") || cur_eat_word(&c, "NaN") || cur_eat_word(&c, "NAN")) &&
            cur_end(&c))
            return true;
    }
    /* [-+]?\.(?:inf|Inf|INF) */
    c.i = 0;
    cur_eat_in(&c, "-+");
    return cur_eat(&c, '.') &&
           (cur_eat_word(&c, "inf") || cur_eat_word(&c, "Inf") || cur_eat_word(&c, "INF")) &&
           cur_end(&c);
}

static bool match_int(const char *s, size_t n)
{
    cursor c = {s, n, 0};
    cur_eat_in(&c, "-+");
    size_t start = c.i;
    /* [-+]?0b[0-1_]+ | [-+]?0x[0-9a-fA-F_]+ | [-+]?0[0-7_]+ | [-+]?0 */
    if (cur_eat(&c, '0')) {
        if (cur_end(&c))
            return true;
        if (cur_eat(&c, 'b'))
            return cur_eat_all(&c, "01_") > 0 && cur_end(&c);
        if (cur_eat(&c, 'x'))
            return cur_eat_all(&c, "0123456789abcdefABCDEF_") > 0 && cur_end(&c);
        return cur_eat_all(&c, "01234567_") > 0 && cur_end(&c);
    }
    /* [-+]?[1-9][0-9_]* and [-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+ */
    c.i = start;
    if (!cur_eat_in(&c, "123456789"))
        return false;
    cur_eat_all(&c, DIGITS_US);
    if (cur_end(&c))
        return true;
    return cur_eat_base60(&c) && cur_end(&c);
}

static bool match_null(const char *s, size_t n)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        if (strlen(nulls[i]) == n && memcmp(s, nulls[i], n) == 0)
            return true;
    return false;
}

static bool leap_year(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int64_t cur_number(cursor *c, size_t min, size_t max, bool *ok)
{
    int64_t v = 0;
    size_t k = 0;
    while (k < max && c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9') {
        v = v * 10 + (c->s[c->i++] - '0');
        k++;
    }
    if (k < min)
        *ok = false;
    return v;
}

/* The timestamp forms. resolver: the implicit resolver's regex (a date alone needs two-digit
 * month and day); otherwise the constructor's. *valid: whether Python's datetime accepts the
 * fields. */
static bool match_timestamp(const char *s, size_t n, bool resolver, bool *valid)
{
    cursor c = {s, n, 0};
    bool ok = true;
    int64_t year = cur_number(&c, 4, 4, &ok);
    ok = ok && cur_eat(&c, '-');
    size_t m0 = c.i;
    int64_t month = cur_number(&c, 1, 2, &ok);
    size_t month_digits = c.i - m0;
    ok = ok && cur_eat(&c, '-');
    size_t d0 = c.i;
    int64_t day = cur_number(&c, 1, 2, &ok);
    size_t day_digits = c.i - d0;
    if (!ok)
        return false;
    int64_t hour = 0, minute = 0, second = 0, tz_minutes = 0;
    if (cur_end(&c)) {
        if (resolver && (month_digits != 2 || day_digits != 2))
            return false;
    } else {
        if (!cur_eat_in(&c, "Tt") && cur_eat_all(&c, " \t") == 0)
            return false;
        hour = cur_number(&c, 1, 2, &ok);
        ok = ok && cur_eat(&c, ':');
        minute = cur_number(&c, 2, 2, &ok);
        ok = ok && cur_eat(&c, ':');
        second = cur_number(&c, 2, 2, &ok);
        if (!ok)
            return false;
        if (cur_eat(&c, '.'))
            cur_eat_all(&c, DIGITS);
        if (!cur_end(&c)) {
            cur_eat_all(&c, " \t");
            if (!cur_eat(&c, 'Z')) {
                bool negative = c.i < c.n && c.s[c.i] == '-';
                if (!cur_eat_in(&c, "-+"))
                    return false;
                int64_t tz_hour = cur_number(&c, 1, 2, &ok);
                int64_t tz_min = 0;
                if (cur_eat(&c, ':'))
                    tz_min = cur_number(&c, 2, 2, &ok);
                tz_minutes = (tz_hour * 60 + tz_min) * (negative ? -1 : 1);
            }
            if (!ok || !cur_end(&c))
                return false;
        }
    }
    static const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    *valid = year >= 1 && month >= 1 && month <= 12 && day >= 1 &&
             day <= month_days[month >= 1 && month <= 12 ? month - 1 : 0] +
                        (month == 2 && leap_year(year)) &&
             hour <= 23 && minute <= 59 && second <= 59 && tz_minutes > -1440 && tz_minutes < 1440;
    return true;
}

/* ---- scalars: resolution and construction ---- */

#define TAG_PREFIX "tag:yaml.org,2002:"

static bool tag_is(const char *tag, const char *name)
{
    size_t p = sizeof TAG_PREFIX - 1;
    return strncmp(tag, TAG_PREFIX, p) == 0 && strcmp(tag + p, name) == 0;
}

/* construct_yaml_int: underscores dropped, a sign, then 0 / 0b / 0x / 0 (octal) / base 60 /
 * decimal, each part read by Python's int(). */
static bool construct_int(const char *s, size_t n, int64_t *out, bool *big)
{
    char *v = malloc(n + 1);
    if (!v)
        return false;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '_')
            v[m++] = s[i];
    v[m] = '\0';
    bool ok = m > 0;
    int64_t sign = 1;
    const char *p = v;
    if (ok && (*p == '-' || *p == '+'))
        sign = *p++ == '-' ? -1 : 1;
    size_t len = m - (size_t)(p - v);
    *big = false;
    if (!ok) {
        /* value[0] of an empty string: an IndexError */
    } else if (strcmp(p, "0") == 0) {
        *out = 0;
    } else if (strncmp(p, "0b", 2) == 0) {
        ok = py_int(p + 2, len - 2, 2, out, big);
    } else if (strncmp(p, "0x", 2) == 0) {
        ok = py_int(p + 2, len - 2, 16, out, big);
    } else if (p[0] == '0') {
        ok = py_int(p, len, 8, out, big);
    } else if (memchr(p, ':', len)) {
        int64_t total = 0;
        const char *part = p;
        for (;;) {
            const char *colon = strchr(part, ':');
            size_t plen = colon ? (size_t)(colon - part) : strlen(part);
            int64_t digit;
            bool part_big;
            if (!py_int(part, plen, 10, &digit, &part_big)) {
                ok = false;
                break;
            }
            /* total = total * 60 + digit, saturating */
            if (part_big || total > INT64_MAX / 60 || total < INT64_MIN / 60 ||
                (digit > 0 && total * 60 > INT64_MAX - digit) ||
                (digit < 0 && total * 60 < INT64_MIN - digit)) {
                *big = true;
                total = INT64_MAX;
            } else if (!*big) {
                total = total * 60 + digit;
            }
            if (!colon)
                break;
            part = colon + 1;
        }
        *out = total;
    } else {
        ok = py_int(p, len, 10, out, big);
    }
    if (ok && sign < 0) {
        if (*out == INT64_MIN)
            *big = true;
        *out = *big ? INT64_MIN : -*out;
    }
    free(v);
    return ok;
}

/* construct_yaml_float: underscores dropped, lower case, a sign, .inf / .nan / base 60 /
 * Python's float(). */
static bool construct_float(const char *s, size_t n, double *out)
{
    char buf[128];
    size_t m = 0;
    for (size_t i = 0; i < n && m + 1 < sizeof buf; i++)
        if (s[i] != '_')
            buf[m++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] | 0x20 : s[i]);
    if (m + 1 >= sizeof buf || m == 0)
        return false;
    buf[m] = '\0';
    double sign = 1;
    const char *p = buf;
    if (*p == '-' || *p == '+')
        sign = *p++ == '-' ? -1 : 1;
    if (strcmp(p, ".inf") == 0) {
        *out = sign * HUGE_VAL;
        return true;
    }
    if (strcmp(p, ".nan") == 0) {
        *out = NAN;
        return true;
    }
    if (strchr(p, ':')) {
        double total = 0;
        const char *part = p;
        for (;;) {
            const char *colon = strchr(part, ':');
            size_t plen = colon ? (size_t)(colon - part) : strlen(part);
            double digit;
            if (!py_float(part, plen, &digit))
                return false;
            total = total * 60 + digit;
            if (!colon)
                break;
            part = colon + 1;
        }
        *out = sign * total;
        return true;
    }
    double v;
    if (!py_float(p, strlen(p), &v))
        return false;
    *out = sign * v;
    return true;
}

/* Types a scalar as PyYAML would; fails (with a message) where PyYAML's loading fails. */
static pc_status type_scalar(const ydoc *d, ynode *node, const yaml_event_t *ev)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    const char *s = node->str;
    size_t n = node->len;
    bool implicit = (!tag || strcmp(tag, "!") == 0);
    if (implicit && ev->data.scalar.plain_implicit) {
        bool b;
        char first = n ? s[0] : '\0';
        if (n && strchr("yYnNtTfFoO", first) && match_bool(s, n, &b)) {
            node->kind = YK_BOOL;
            node->bval = b;
        } else if (n && strchr("-+0123456789.", first) && match_float(s, n)) {
            node->kind = YK_FLOAT;
            if (!construct_float(s, n, &node->fval))
                return yaml_fail(d, node->line, node->column,
                                 "could not convert string to "
                                 "float: '%s'",
                                 s);
        } else if (n && strchr("-+0123456789", first) && match_int(s, n)) {
            node->kind = YK_INT;
            if (!construct_int(s, n, &node->ival, &node->big))
                return yaml_fail(d, node->line, node->column, "invalid literal for int(): '%s'", s);
        } else if (match_null(s, n)) {
            node->kind = YK_NULL;
        } else if (n && first >= '0' && first <= '9' && match_timestamp(s, n, true, &b)) {
            node->kind = YK_TIMESTAMP;
            if (!b)
                return yaml_fail(d, node->line, node->column, "invalid timestamp '%s'", s);
        } else if (n == 2 && s[0] == '<' && s[1] == '<') {
            node->kind = YK_MERGE;
        } else if (n == 1 && first == '=') {
            node->kind = YK_VALUE;
        } else {
            node->kind = YK_STR;
        }
        return PC_OK;
    }
    if (implicit || tag_is(tag, "str")) {
        node->kind = YK_STR;
    } else if (tag_is(tag, "null")) {
        node->kind = YK_NULL;
    } else if (tag_is(tag, "bool")) {
        char lower[8] = {0};
        bool known = n < sizeof lower;
        for (size_t i = 0; known && i < n; i++)
            lower[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] | 0x20 : s[i]);
        static const char *const words[] = {"yes", "no", "true", "false", "on", "off"};
        node->kind = YK_BOOL;
        bool found = false;
        for (size_t i = 0; known && i < 6; i++)
            if (strcmp(lower, words[i]) == 0 && strlen(lower) == n) {
                node->bval = i % 2 == 0;
                found = true;
            }
        if (!found)
            return yaml_fail(d, node->line, node->column, "invalid boolean '%s'", s);
    } else if (tag_is(tag, "int")) {
        node->kind = YK_INT;
        if (!construct_int(s, n, &node->ival, &node->big))
            return yaml_fail(d, node->line, node->column, "invalid literal for int(): '%s'", s);
    } else if (tag_is(tag, "float")) {
        node->kind = YK_FLOAT;
        if (!construct_float(s, n, &node->fval))
            return yaml_fail(d, node->line, node->column, "could not convert string to float: '%s'",
                             s);
    } else if (tag_is(tag, "timestamp")) {
        bool valid = false;
        node->kind = YK_TIMESTAMP;
        if (!match_timestamp(s, n, false, &valid) || !valid)
            return yaml_fail(d, node->line, node->column, "invalid timestamp '%s'", s);
    } else if (tag_is(tag, "binary")) {
        node->kind = YK_BINARY;
    } else if (tag_is(tag, "merge")) {
        node->kind = YK_MERGE;
    } else if (tag_is(tag, "value")) {
        node->kind = YK_VALUE;
    } else if (tag_is(tag, "seq") || tag_is(tag, "omap") || tag_is(tag, "pairs")) {
        return yaml_fail(d, node->line, node->column, "expected a sequence node, but found scalar");
    } else if (tag_is(tag, "map") || tag_is(tag, "set")) {
        return yaml_fail(d, node->line, node->column, "expected a mapping node, but found scalar");
    } else {
        return yaml_fail(d, node->line, node->column,
                         "could not determine a constructor for the tag '%s'", tag);
    }
    return PC_OK;
}

/* Types a sequence or mapping by its tag. */
static pc_status type_container(const ydoc *d, ynode *node, const char *tag, bool mapping)
{
    const char *found = mapping ? "mapping" : "sequence";
    if (!tag || strcmp(tag, "!") == 0 || tag_is(tag, mapping ? "map" : "seq")) {
        node->kind = mapping ? YK_MAP : YK_SEQ;
    } else if (!mapping && (tag_is(tag, "omap") || tag_is(tag, "pairs"))) {
        node->kind = YK_PAIRS;
    } else if (mapping && tag_is(tag, "set")) {
        node->kind = YK_SET;
    } else if (tag_is(tag, "seq") || tag_is(tag, "omap") || tag_is(tag, "pairs")) {
        return yaml_fail(d, node->line, node->column, "expected a sequence node, but found %s",
                         found);
    } else if (tag_is(tag, "map") || tag_is(tag, "set")) {
        return yaml_fail(d, node->line, node->column, "expected a mapping node, but found %s",
                         found);
    } else if (tag_is(tag, "str") || tag_is(tag, "null") || tag_is(tag, "bool") ||
               tag_is(tag, "int") || tag_is(tag, "float") || tag_is(tag, "timestamp") ||
               tag_is(tag, "binary")) {
        return yaml_fail(d, node->line, node->column, "expected a scalar node, but found %s",
                         found);
    } else {
        return yaml_fail(d, node->line, node->column,
                         "could not determine a constructor for the tag '%s'", tag);
    }
    return PC_OK;
}

/* ---- the tree ---- */

static pc_status new_node(ydoc *d, const yaml_mark_t *mark, size_t *index)
{
    if (d->count >= PC_CONFIG_YAML_MAX_NODES)
        return yaml_fail(d, mark->line + 1, mark->column + 1, "more than %d nodes",
                         PC_CONFIG_YAML_MAX_NODES);
    if (!grow((void **)&d->nodes, &d->cap, d->count + 1, sizeof *d->nodes))
        return out_of_memory();
    ynode *node = &d->nodes[d->count];
    memset(node, 0, sizeof *node);
    node->line = mark->line + 1;
    node->column = mark->column + 1;
    *index = d->count++;
    return PC_OK;
}

static pc_status add_anchor(ydoc *d, const unsigned char *anchor, size_t node,
                            const yaml_mark_t *mark)
{
    if (!anchor)
        return PC_OK;
    for (size_t i = 0; i < d->anchor_count; i++)
        if (strcmp(d->anchors[i].name, (const char *)anchor) == 0)
            return yaml_fail(d, mark->line + 1, mark->column + 1, "found duplicate anchor '%s'",
                             (const char *)anchor);
    if (!grow((void **)&d->anchors, &d->anchor_cap, d->anchor_count + 1, sizeof *d->anchors))
        return out_of_memory();
    char *name = strdup((const char *)anchor);
    if (!name)
        return out_of_memory();
    d->anchors[d->anchor_count++] = (yanchor){name, node};
    return PC_OK;
}

/* Puts node under the innermost open container, or makes it the document's root. */
static pc_status attach(ydoc *d, size_t node, const yaml_mark_t *mark)
{
    ynode *parent = d->depth ? &d->nodes[d->stack[d->depth - 1]] : NULL;
    bool is_key =
        parent && (parent->kind == YK_MAP || parent->kind == YK_SET) && parent->kid_count % 2 == 0;
    ykind kind = d->nodes[node].kind;
    if (is_key && ykind_is_container(kind))
        return yaml_fail(d, mark->line + 1, mark->column + 1,
                         "while constructing a mapping, found unhashable key");
    /* SafeLoader has constructors for neither tag: they only work as mapping keys. */
    if (!is_key && (kind == YK_MERGE || kind == YK_VALUE))
        return yaml_fail(d, mark->line + 1, mark->column + 1,
                         "could not determine a constructor for the tag 'tag:yaml.org,2002:%s'",
                         kind == YK_MERGE ? "merge" : "value");
    if (!parent) {
        d->root = node;
        d->has_root = true;
        return PC_OK;
    }
    if (!grow((void **)&parent->kids, &parent->kid_cap, parent->kid_count + 1,
              sizeof *parent->kids))
        return out_of_memory();
    parent->kids[parent->kid_count++] = node;
    return PC_OK;
}

static pc_status open_container(ydoc *d, size_t node, const yaml_mark_t *mark)
{
    if (d->depth >= PC_CONFIG_YAML_MAX_DEPTH)
        return yaml_fail(d, mark->line + 1, mark->column + 1, "nesting deeper than %d",
                         PC_CONFIG_YAML_MAX_DEPTH);
    if (!grow((void **)&d->stack, &d->stack_cap, d->depth + 1, sizeof *d->stack))
        return out_of_memory();
    d->stack[d->depth++] = node;
    return PC_OK;
}

/* SafeConstructor.flatten_mapping: the pairs of mappings merged with "<<" (a mapping, or a
 * list of them, the last one first) go before the mapping's own pairs; a "=" key becomes the
 * string "=". Mappings merged in were flattened when they closed, so this needs no recursion. */
static pc_status flatten_mapping(ydoc *d, size_t index)
{
    size_t merged = 0, merge_keys = 0;
    const ynode *node = &d->nodes[index];
    for (size_t i = 0; i + 1 < node->kid_count; i += 2) {
        if (d->nodes[node->kids[i]].kind != YK_MERGE)
            continue;
        merge_keys++;
        const ynode *value = &d->nodes[node->kids[i + 1]];
        if (value->kind == YK_MAP || value->kind == YK_SET) {
            merged += value->kid_count;
        } else if (value->kind == YK_SEQ || value->kind == YK_PAIRS) {
            for (size_t k = 0; k < value->kid_count; k++) {
                const ynode *sub = &d->nodes[value->kids[k]];
                if (sub->kind != YK_MAP && sub->kind != YK_SET)
                    return yaml_fail(d, sub->line, sub->column,
                                     "while constructing a mapping, expected a mapping for "
                                     "merging, but found %s",
                                     ykind_is_container(sub->kind) ? "sequence" : "scalar");
                merged += sub->kid_count;
            }
        } else {
            return yaml_fail(d, value->line, value->column,
                             "while constructing a mapping, expected a mapping or list of "
                             "mappings for merging, but found scalar");
        }
    }
    for (size_t i = 0; i + 1 < node->kid_count; i += 2)
        if (d->nodes[node->kids[i]].kind == YK_VALUE)
            d->nodes[node->kids[i]].kind = YK_STR;
    if (merge_keys == 0)
        return PC_OK;
    size_t *kids = malloc((merged + node->kid_count + 1) * sizeof *kids);
    if (!kids)
        return out_of_memory();
    size_t n = 0;
    for (size_t i = 0; i + 1 < node->kid_count; i += 2) {
        if (d->nodes[node->kids[i]].kind != YK_MERGE)
            continue;
        const ynode *value = &d->nodes[node->kids[i + 1]];
        if (value->kind == YK_MAP || value->kind == YK_SET) {
            for (size_t k = 0; k < value->kid_count; k++)
                kids[n++] = value->kids[k];
            continue;
        }
        for (size_t k = value->kid_count; k-- > 0;) {
            const ynode *sub = &d->nodes[value->kids[k]];
            for (size_t m = 0; m < sub->kid_count; m++)
                kids[n++] = sub->kids[m];
        }
    }
    for (size_t i = 0; i + 1 < node->kid_count; i += 2) {
        if (d->nodes[node->kids[i]].kind == YK_MERGE)
            continue;
        kids[n++] = node->kids[i];
        kids[n++] = node->kids[i + 1];
    }
    ynode *target = &d->nodes[index];
    free(target->kids);
    target->kids = kids;
    target->kid_count = target->kid_cap = n;
    return PC_OK;
}

/* Mappings are flattened; !!omap and !!pairs want a list of one-pair mappings. */
static pc_status close_container(ydoc *d)
{
    size_t index = d->stack[--d->depth];
    ynode *node = &d->nodes[index];
    if (node->kind == YK_MAP || node->kind == YK_SET)
        return flatten_mapping(d, index);
    if (node->kind != YK_PAIRS)
        return PC_OK;
    for (size_t i = 0; i < node->kid_count; i++) {
        const ynode *item = &d->nodes[node->kids[i]];
        if (item->kind != YK_MAP || item->kid_count != 2)
            return yaml_fail(d, item->line, item->column,
                             "while constructing an ordered map, expected a mapping of length 1");
    }
    return PC_OK;
}

static pc_status parser_error(const ydoc *d, const yaml_parser_t *p, const char *data, size_t size)
{
    if (p->error == YAML_MEMORY_ERROR)
        return out_of_memory();
    const char *problem = p->problem ? p->problem : "cannot parse";
    if (p->error == YAML_READER_ERROR) {
        size_t line, column;
        pc_json_offset_location(data, size, p->problem_offset, &line, &column);
        if (p->problem_value != -1)
            return yaml_fail(d, line, column, "%s (#x%x)", problem, (unsigned)p->problem_value);
        return yaml_fail(d, line, column, "%s", problem);
    }
    size_t line = p->problem_mark.line + 1, column = p->problem_mark.column + 1;
    if (p->context)
        return yaml_fail(d, line, column, "%s (%s at line %zu, column %zu)", problem, p->context,
                         (size_t)p->context_mark.line + 1, (size_t)p->context_mark.column + 1);
    return yaml_fail(d, line, column, "%s", problem);
}

static pc_status handle_event(ydoc *d, const yaml_event_t *ev, int *documents)
{
    size_t index;
    pc_status s = PC_OK;
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (++*documents > 1)
            return yaml_fail(d, ev->start_mark.line + 1, ev->start_mark.column + 1,
                             "expected a single document in the stream, but found another "
                             "document");
        return PC_OK;
    case YAML_ALIAS_EVENT: {
        const char *name = (const char *)ev->data.alias.anchor;
        for (size_t i = d->anchor_count; i-- > 0;)
            if (strcmp(d->anchors[i].name, name) == 0)
                return attach(d, d->anchors[i].node, &ev->start_mark);
        return yaml_fail(d, ev->start_mark.line + 1, ev->start_mark.column + 1,
                         "found undefined alias '%s'", name);
    }
    case YAML_SCALAR_EVENT: {
        s = new_node(d, &ev->start_mark, &index);
        if (s != PC_OK)
            return s;
        ynode *node = &d->nodes[index];
        node->len = ev->data.scalar.length;
        node->str = malloc(node->len + 1);
        if (!node->str)
            return out_of_memory();
        memcpy(node->str, ev->data.scalar.value, node->len);
        node->str[node->len] = '\0';
        s = type_scalar(d, node, ev);
        if (s == PC_OK)
            s = add_anchor(d, ev->data.scalar.anchor, index, &ev->start_mark);
        return s == PC_OK ? attach(d, index, &ev->start_mark) : s;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        bool mapping = ev->type == YAML_MAPPING_START_EVENT;
        s = new_node(d, &ev->start_mark, &index);
        if (s != PC_OK)
            return s;
        const unsigned char *tag =
            mapping ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
        const unsigned char *anchor =
            mapping ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
        s = type_container(d, &d->nodes[index], (const char *)tag, mapping);
        if (s == PC_OK)
            s = add_anchor(d, anchor, index, &ev->start_mark);
        if (s == PC_OK)
            s = attach(d, index, &ev->start_mark);
        return s == PC_OK ? open_container(d, index, &ev->start_mark) : s;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        return close_container(d);
    default:
        return PC_OK;
    }
}

static pc_status ydoc_parse(ydoc *d, const char *data, size_t size)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return out_of_memory();
    yaml_parser_set_input_string(&parser, (const unsigned char *)data, size);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    int documents = 0;
    pc_status s = PC_OK;
    for (bool done = false; !done && s == PC_OK;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            s = parser_error(d, &parser, data, size);
            break;
        }
        done = ev.type == YAML_STREAM_END_EVENT;
        s = handle_event(d, &ev, &documents);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return s;
}

/* ---- validation of the top-level mapping ---- */

/* str(key) as Python prints it in "<key> must be one of ...". */
static void key_display(text *t, const ynode *key)
{
    switch (key->kind) {
    case YK_NULL:
        text_adds(t, "None");
        break;
    case YK_BOOL:
        text_adds(t, key->bval ? "True" : "False");
        break;
    case YK_INT:
        if (key->big)
            text_adds(t, key->str); /* beyond int64: the text as written */
        else
            text_addf(t, "%lld", (long long)key->ival);
        break;
    case YK_FLOAT:
        repr_float(t, key->fval);
        break;
    default:
        text_add(t, key->str ? key->str : "", key->str ? strlen(key->str) : 0);
        break;
    }
}

static int key_index(const ynode *key)
{
    if (key->kind != YK_STR)
        return -1;
    for (int k = 0; k < KEY_COUNT; k++)
        if (strlen(key_names[k]) == key->len && memcmp(key->str, key_names[k], key->len) == 0)
            return k;
    return -1;
}

/* check_filter_list_config's element checks on a list whose items are strings (or not). */
typedef struct str_items {
    size_t count;
    const char *(*get)(const void *ctx, size_t i, size_t *len); /* NULL: not a string */
    const void *ctx;
} str_items;

static pc_status check_api_list(const char *key, const str_items *items, pc_config_api_check is_api,
                                pc_string_list *out)
{
    for (size_t i = 0; i < items->count; i++) {
        size_t len;
        if (!items->get(items->ctx, i, &len))
            return pc_error_set(PC_ERR_INVALID, "All elements in %s must be string type", key);
    }
    text bad = {0};
    size_t bad_count = 0;
    for (size_t i = 0; i < items->count; i++) {
        size_t len;
        const char *name = items->get(items->ctx, i, &len);
        if (strlen(name) == len && is_api(name))
            continue;
        text_adds(&bad, bad_count++ ? ", " : "[");
        repr_str(&bad, name, len);
    }
    if (bad_count) {
        text_adds(&bad, "]");
        pc_status s =
            bad.failed ? out_of_memory()
                       : pc_error_set(PC_ERR_INVALID, "Invalid api in %s: %s", key, text_str(&bad));
        free(bad.data);
        return s;
    }
    if (!list_reserve(out, items->count))
        return out_of_memory();
    for (size_t i = 0; i < items->count; i++) {
        size_t len;
        const char *name = items->get(items->ctx, i, &len);
        if (!list_push(out, name, len)) {
            list_free(out);
            return out_of_memory();
        }
    }
    return PC_OK;
}

typedef struct yaml_list_ctx {
    const ydoc *doc;
    const ynode *list;
} yaml_list_ctx;

static const char *yaml_list_get(const void *ctx, size_t i, size_t *len)
{
    const yaml_list_ctx *c = ctx;
    const ynode *item = &c->doc->nodes[c->list->kids[i]];
    if (item->kind != YK_STR)
        return NULL;
    *len = item->len;
    return item->str;
}

static void config_release_parts(pc_string_list *white, pc_string_list *black, char *path)
{
    list_free(white);
    list_free(black);
    free(path);
}

static pc_status validate_yaml(const ydoc *d, pc_config_api_check is_api, pc_config *out)
{
    if (!d->has_root || d->nodes[d->root].kind != YK_MAP)
        return pc_error_set(PC_ERR_INVALID, "The config file %s must hold a mapping, found %s.",
                            d->name, d->has_root ? ykind_what(d->nodes[d->root].kind) : "nothing");
    const ynode *map = &d->nodes[d->root];
    /* Python's dict: the first occurrence of a key fixes its place, the last its value. */
    size_t value_of[KEY_COUNT] = {0};
    bool seen[KEY_COUNT] = {0};
    for (size_t i = 0; i + 1 < map->kid_count; i += 2) {
        int k = key_index(&d->nodes[map->kids[i]]);
        if (k >= 0)
            value_of[k] = map->kids[i + 1];
    }
    pc_string_list white = {0}, black = {0};
    char *path = NULL;
    int precision = 0;
    pc_status s = PC_OK;
    for (size_t i = 0; i + 1 < map->kid_count && s == PC_OK; i += 2) {
        const ynode *key = &d->nodes[map->kids[i]];
        int k = key_index(key);
        if (k < 0) {
            /* an unknown key; repeated unknown keys fail at their first place just the same */
            text t = {0};
            key_display(&t, key);
            s = t.failed ? out_of_memory()
                         : pc_error_set(PC_ERR_INVALID, "%s must be one of " KEYS_AS_PYTHON,
                                        text_str(&t));
            free(t.data);
            break;
        }
        if (seen[k])
            continue;
        seen[k] = true;
        const ynode *value = &d->nodes[value_of[k]];
        switch (k) {
        case KEY_WHITE_LIST:
        case KEY_BLACK_LIST: {
            if (value->kind != YK_SEQ && value->kind != YK_PAIRS) {
                s = pc_error_set(PC_ERR_INVALID, "%s must be list type", key_names[k]);
                break;
            }
            yaml_list_ctx ctx = {d, value};
            str_items items = {value->kid_count, yaml_list_get, &ctx};
            s = check_api_list(key_names[k], &items, is_api, k == KEY_WHITE_LIST ? &white : &black);
            break;
        }
        case KEY_ERROR_DATA_PATH:
            if (value->kind != YK_STR) {
                s = pc_error_set(PC_ERR_INVALID, "error_data_path must be str type");
            } else if (!path_exists(value->str, value->len)) {
                s = pc_error_set(PC_ERR_INVALID, "error_data_path: %s does not exist", value->str);
            } else if (!(path = strdup(value->str))) {
                s = out_of_memory();
            }
            break;
        default: /* KEY_PRECISION */
            if (value->kind != YK_INT && value->kind != YK_BOOL)
                s = pc_error_set(PC_ERR_INVALID, "precision must be int type");
            else if (value->kind == YK_BOOL)
                s = pc_error_set(PC_ERR_INVALID, "precision must be an integer");
            else if (value->big || value->ival < 0 || value->ival > PRECISION_MAX)
                s = pc_error_set(PC_ERR_INVALID,
                                 "precision must be greater than or equal to 0 and less than 21");
            else
                precision = (int)value->ival;
            break;
        }
    }
    for (int k = 0; k < KEY_COUNT && s == PC_OK; k++)
        if (!seen[k])
            s = pc_error_set(PC_ERR_INVALID,
                             "%s is missing in %s: it must have white_list, black_list, "
                             "error_data_path and precision",
                             key_names[k], d->name);
    if (s != PC_OK) {
        config_release_parts(&white, &black, path);
        return s;
    }
    pc_config_free(out);
    out->white_list = white;
    out->black_list = black;
    out->error_data_path = path;
    out->precision = precision;
    return PC_OK;
}

pc_status pc_config_parse_yaml(pc_config *out, const char *data, size_t size, const char *name,
                               pc_config_api_check is_api)
{
    if (!out || (!data && size) || !is_api)
        return pc_error_set(PC_ERR_INVALID, "pc_config_parse_yaml: missing argument");
    ydoc d = {0};
    d.name = name ? name : "<yaml>";
    pc_status s = ydoc_parse(&d, data ? data : "", size);
    if (s == PC_OK)
        s = validate_yaml(&d, is_api, out);
    ydoc_free(&d);
    return s;
}

pc_status pc_config_load_yaml(pc_config *out, const char *path, pc_config_api_check is_api)
{
    char real[PC_PATH_BUFFER_SIZE];
    pc_status s = pc_path_check(path, PC_PATH_FILE, PC_PATH_READ, ".yaml", real, sizeof real);
    if (s != PC_OK)
        return s;
    char *data;
    size_t size;
    s = read_file(real, "yaml", &data, &size);
    if (s != PC_OK)
        return s;
    s = pc_config_parse_yaml(out, data, size, real, is_api);
    free(data);
    return s;
}

/* ---------------------------------------------------------------------------------------------
 * config.json
 * ------------------------------------------------------------------------------------------- */

typedef struct jctx {
    const pc_json_doc *doc;
    const char *data; /* the bytes parsed, for the digits of big integers */
    size_t size;
} jctx;

/* Python's str() of a value json.loads made (repr for values inside containers). */
static void json_str(text *t, const jctx *j, pc_json_ref v, bool top, int depth)
{
    const pc_json_doc *doc = j->doc;
    if (depth > PC_JSON_MAX_DEPTH || t->len >= TEXT_LIMIT)
        return;
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_NULL:
        text_adds(t, "None");
        break;
    case PC_JSON_BOOL: {
        bool b = false;
        pc_json_get_bool(doc, v, &b);
        text_adds(t, b ? "True" : "False");
        break;
    }
    case PC_JSON_INT: {
        int64_t i = 0;
        pc_json_get_int64(doc, v, &i);
        text_addf(t, "%lld", (long long)i);
        break;
    }
    case PC_JSON_FLOAT:
        if (pc_json_is_big_integer(doc, v)) {
            size_t at = pc_json_offset(doc, v), end = at;
            while (end < j->size &&
                   (j->data[end] == '-' || (j->data[end] >= '0' && j->data[end] <= '9')))
                end++;
            text_add(t, j->data + at, end - at);
        } else {
            repr_float(t, pc_json_number(doc, v));
        }
        break;
    case PC_JSON_STRING: {
        size_t len;
        const char *s = pc_json_string(doc, v, &len);
        if (top)
            text_add(t, s, len);
        else
            repr_str(t, s, len);
        break;
    }
    case PC_JSON_ARRAY: {
        text_adds(t, "[");
        bool first = true;
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE && t->len < TEXT_LIMIT;
             e = pc_json_next(doc, e)) {
            if (!first)
                text_adds(t, ", ");
            first = false;
            json_str(t, j, e, false, depth + 1);
        }
        text_adds(t, "]");
        break;
    }
    case PC_JSON_OBJECT: {
        /* A dict: each key once, at its first place, with its last value. */
        text_adds(t, "{");
        bool first = true;
        for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE && t->len < TEXT_LIMIT;
             k = pc_json_next(doc, k)) {
            size_t klen;
            const char *key = pc_json_string(doc, k, &klen);
            bool earlier = false;
            for (pc_json_ref e = pc_json_first(doc, v); e != k && !earlier;
                 e = pc_json_next(doc, e)) {
                size_t elen;
                const char *other = pc_json_string(doc, e, &elen);
                earlier = elen == klen && memcmp(other, key, klen) == 0;
            }
            if (earlier)
                continue;
            pc_json_ref value = pc_json_member_value(doc, k);
            for (pc_json_ref e = pc_json_next(doc, k); e != PC_JSON_NONE;
                 e = pc_json_next(doc, e)) {
                size_t elen;
                const char *other = pc_json_string(doc, e, &elen);
                if (elen == klen && memcmp(other, key, klen) == 0)
                    value = pc_json_member_value(doc, e);
            }
            if (!first)
                text_adds(t, ", ");
            first = false;
            repr_str(t, key, klen);
            text_adds(t, ": ");
            json_str(t, j, value, false, depth + 1);
        }
        text_adds(t, "}");
        break;
    }
    default:
        break;
    }
}

/* Whether v is a string equal to one of words. */
static bool json_in(const pc_json_doc *doc, pc_json_ref v, const char *const *words, size_t n)
{
    size_t len;
    const char *s = pc_json_string(doc, v, &len);
    for (size_t i = 0; s && i < n; i++)
        if (strlen(words[i]) == len && memcmp(s, words[i], len) == 0)
            return true;
    return false;
}

static void python_list(text *t, const char *const *words, size_t n)
{
    text_adds(t, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            text_adds(t, ", ");
        repr_str(t, words[i], strlen(words[i]));
    }
    text_adds(t, "]");
}

static pc_status fail_not_one_of(const char *what, const char *const *words, size_t n)
{
    text t = {0};
    python_list(&t, words, n);
    pc_status s = t.failed ? out_of_memory()
                           : pc_error_set(PC_ERR_INVALID, "%s is invalid, it should be one of %s",
                                          what, text_str(&t));
    free(t.data);
    return s;
}

/* One "a-b" string of a rank or step list (get_step_or_rank_from_string). */
static pc_status check_step_range(const char *obj, const char *s, size_t len)
{
    const char *dash = memchr(s, '-', len);
    if (!dash || memchr(dash + 1, '-', len - (size_t)(dash + 1 - s)))
        return pc_error_set(PC_ERR_INVALID,
                            "The string parameter for %s only supports formats like \"3-5\". "
                            "Now string parameter for %s is \"%s\".",
                            obj, obj, s);
    int64_t a, b;
    bool abig, bbig;
    if (!py_int(s, (size_t)(dash - s), 10, &a, &abig) ||
        !py_int(dash + 1, len - (size_t)(dash + 1 - s), 10, &b, &bbig))
        return pc_error_set(PC_ERR_INVALID,
                            "The hyphen(-) must start and end with decimal numbers.");
    if (abig || bbig || a < 0 || a > STEP_RANK_MAX || b < 0 || b > STEP_RANK_MAX)
        return pc_error_set(PC_ERR_INVALID, "The boundaries must fall within the range of [0, %d].",
                            STEP_RANK_MAX);
    if (a > b)
        return pc_error_set(PC_ERR_INVALID,
                            "For the hyphen(-) in %s, the left boundary (%lld) cannot be greater "
                            "than the right boundary (%lld).",
                            obj, (long long)a, (long long)b);
    return PC_OK;
}

/* get_real_step_or_rank, without building the list (run_ut does not use it). */
static pc_status check_step_or_rank(const jctx *j, pc_json_ref list, const char *obj)
{
    const pc_json_doc *doc = j->doc;
    pc_json_type type = pc_json_type_of(doc, list);
    if (type == PC_JSON_INVALID || type == PC_JSON_NULL)
        return PC_OK;
    if (type != PC_JSON_ARRAY)
        return pc_error_set(PC_ERR_INVALID, "%s is invalid, it should be a list", obj);
    if (pc_json_count(doc, list) > STEP_RANK_MAX)
        return pc_error_set(PC_ERR_INVALID, "%s is invalid, its length cannot exceed %d", obj,
                            STEP_RANK_MAX);
    for (pc_json_ref e = pc_json_first(doc, list); e != PC_JSON_NONE; e = pc_json_next(doc, e)) {
        pc_json_type et = pc_json_type_of(doc, e);
        bool is_int = et == PC_JSON_INT || pc_json_is_big_integer(doc, e);
        if (!is_int && et != PC_JSON_STRING) {
            text t = {0};
            json_str(&t, j, e, true, 0);
            pc_status s = t.failed ? out_of_memory()
                                   : pc_error_set(PC_ERR_INVALID,
                                                  "%s element %s must be an integer or string.",
                                                  obj, text_str(&t));
            free(t.data);
            return s;
        }
        if (is_int) {
            int64_t value = 0;
            bool in_range = et == PC_JSON_INT && pc_json_get_int64(doc, e, &value) == PC_OK &&
                            value >= 0 && value <= STEP_RANK_MAX;
            if (!in_range) {
                text t = {0};
                json_str(&t, j, e, true, 0);
                pc_status s = t.failed ? out_of_memory()
                                       : pc_error_set(PC_ERR_INVALID,
                                                      "Each element of %s must be between 0 and "
                                                      "%d, currently it is %s.",
                                                      obj, STEP_RANK_MAX, text_str(&t));
                free(t.data);
                return s;
            }
            continue;
        }
        size_t len;
        const char *s = pc_json_string(doc, e, &len);
        pc_status st = check_step_range(obj, s, len);
        if (st != PC_OK)
            return st;
    }
    return PC_OK;
}

/* msprobe's CommonConfig checks, in its order. */
static pc_status check_common_config(const jctx *j, pc_json_ref root)
{
    static const char *const tasks[] = {"tensor", "statistics", "overflow_check", "free_benchmark",
                                        "run_ut", "grad_probe", "structure",      "exception_dump"};
    static const char *const levels[] = {"L0", "L1", "L2", "mix", "debug"};
    static const char *const precisions[] = {"low", "high"};
    const pc_json_doc *doc = j->doc;
    pc_status s = check_step_or_rank(j, pc_json_object_get(doc, root, "rank"), "rank");
    if (s == PC_OK)
        s = check_step_or_rank(j, pc_json_object_get(doc, root, "step"), "step");
    if (s != PC_OK)
        return s;
    pc_json_ref task = pc_json_object_get(doc, root, "task");
    if (pc_json_truthy(doc, task) && !json_in(doc, task, tasks, 8))
        return fail_not_one_of("task", tasks, 8);
    pc_json_ref dump_path = pc_json_object_get(doc, root, "dump_path");
    pc_json_type dump_type = pc_json_type_of(doc, dump_path);
    if (dump_type != PC_JSON_INVALID && dump_type != PC_JSON_NULL && dump_type != PC_JSON_STRING)
        return pc_error_set(PC_ERR_INVALID, "dump_path is invalid, it should be a string");
    pc_json_ref level = pc_json_object_get(doc, root, "level");
    if (pc_json_truthy(doc, level) && !json_in(doc, level, levels, 5))
        return fail_not_one_of("level", levels, 5);
    pc_json_ref loader = pc_json_object_get(doc, root, "enable_dataloader");
    if (loader != PC_JSON_NONE && pc_json_type_of(doc, loader) != PC_JSON_BOOL)
        return pc_error_set(PC_ERR_INVALID, "enable_dataloader is invalid, it should be a boolean");
    pc_json_ref async = pc_json_object_get(doc, root, "async_dump");
    if (async != PC_JSON_NONE && pc_json_type_of(doc, async) != PC_JSON_BOOL)
        return pc_error_set(PC_ERR_INVALID, "async_dump is invalid, it should be a boolean");
    if (pc_json_truthy(doc, async))
        pc_log_warning("async_dump is True, it may cause OOM when dumping large tensor.");
    pc_json_ref precision = pc_json_object_get(doc, root, "precision");
    if (precision != PC_JSON_NONE && !json_in(doc, precision, precisions, 2))
        return fail_not_one_of("precision", precisions, 2);
    return PC_OK;
}

typedef struct json_list_ctx {
    const pc_json_doc *doc;
    pc_json_ref *items;
} json_list_ctx;

static const char *json_list_get(const void *ctx, size_t i, size_t *len)
{
    const json_list_ctx *c = ctx;
    return pc_json_string(c->doc, c->items[i], len);
}

static pc_status json_api_list(const pc_json_doc *doc, pc_json_ref run_ut, const char *key,
                               pc_config_api_check is_api, pc_string_list *out)
{
    pc_json_ref list = pc_json_object_get(doc, run_ut, key);
    if (list == PC_JSON_NONE)
        return list_reserve(out, 0) ? PC_OK : out_of_memory();
    if (pc_json_type_of(doc, list) != PC_JSON_ARRAY)
        return pc_error_set(PC_ERR_INVALID, "%s must be a list type", key);
    size_t n = pc_json_count(doc, list);
    pc_json_ref *items = malloc((n ? n : 1) * sizeof *items);
    if (!items)
        return out_of_memory();
    size_t i = 0;
    for (pc_json_ref e = pc_json_first(doc, list); e != PC_JSON_NONE; e = pc_json_next(doc, e))
        items[i++] = e;
    json_list_ctx ctx = {doc, items};
    str_items view = {n, json_list_get, &ctx};
    pc_status s = check_api_list(key, &view, is_api, out);
    free(items);
    return s;
}

pc_status pc_config_parse_json(pc_config *out, const char *data, size_t size, const char *name,
                               pc_config_api_check is_api)
{
    if (!out || (!data && size) || !is_api)
        return pc_error_set(PC_ERR_INVALID, "pc_config_parse_json: missing argument");
    name = name ? name : "<json>";
    pc_json_doc *doc = NULL;
    pc_status s = pc_json_parse(&doc, data ? data : "", size, name);
    if (s != PC_OK)
        return pc_error_prefix(s, "Load json file %s failed", name);
    jctx j = {doc, data, size};
    pc_json_ref root = pc_json_root(doc);
    pc_string_list white = {0}, black = {0};
    char *path = NULL;
    if (pc_json_type_of(doc, root) != PC_JSON_OBJECT) {
        s = pc_error_set(PC_ERR_INVALID, "The config file %s must hold a JSON object, found %s.",
                         name, pc_json_type_name(pc_json_type_of(doc, root)));
        goto done;
    }
    s = check_common_config(&j, root);
    if (s != PC_OK)
        goto done;
    pc_json_ref run_ut = pc_json_object_get(doc, root, "run_ut");
    if (run_ut != PC_JSON_NONE && pc_json_type_of(doc, run_ut) != PC_JSON_OBJECT) {
        s = pc_error_set(PC_ERR_INVALID, "run_ut in %s must be a JSON object, found %s.", name,
                         pc_json_type_name(pc_json_type_of(doc, run_ut)));
        goto done;
    }
    s = json_api_list(doc, run_ut, "white_list", is_api, &white);
    if (s == PC_OK)
        s = json_api_list(doc, run_ut, "black_list", is_api, &black);
    if (s != PC_OK)
        goto done;
    pc_json_ref edp = pc_json_object_get(doc, run_ut, "error_data_path");
    size_t len = strlen(PC_CONFIG_DEFAULT_ERROR_DATA_PATH);
    const char *p = PC_CONFIG_DEFAULT_ERROR_DATA_PATH;
    if (edp != PC_JSON_NONE && !(p = pc_json_string(doc, edp, &len))) {
        s = pc_error_set(PC_ERR_INVALID, "error_data_path must be str type");
    } else if (!path_exists(p, len)) {
        s = pc_error_set(PC_ERR_INVALID, "error_data_path: %s does not exist", p);
    } else if (!(path = strdup(p))) {
        s = out_of_memory();
    }
done:
    pc_json_free(doc);
    if (s != PC_OK) {
        config_release_parts(&white, &black, path);
        return s;
    }
    list_free(&out->white_list);
    list_free(&out->black_list);
    free(out->error_data_path);
    out->white_list = white;
    out->black_list = black;
    out->error_data_path = path;
    return PC_OK;
}

pc_status pc_config_load_json(pc_config *out, const char *path, pc_config_api_check is_api)
{
    char real[PC_PATH_BUFFER_SIZE];
    pc_status s = pc_path_check(path, PC_PATH_FILE, PC_PATH_READ, ".json", real, sizeof real);
    if (s != PC_OK)
        return s;
    char *data;
    size_t size;
    s = read_file(real, "json", &data, &size);
    if (s != PC_OK)
        return s;
    s = pc_config_parse_json(out, data, size, real, is_api);
    free(data);
    return s;
}

pc_status pc_config_load(pc_config *out, const char *yaml_path, const char *json_path,
                         pc_config_api_check is_api)
{
    if (!out)
        return pc_error_set(PC_ERR_INVALID, "pc_config_load: missing argument");
    pc_config merged = {0};
    pc_status s = pc_config_load_yaml(&merged, yaml_path, is_api);
    if (s == PC_OK && json_path)
        s = pc_config_load_json(&merged, json_path, is_api);
    if (s != PC_OK) {
        pc_config_free(&merged);
        return s;
    }
    pc_config_free(out);
    *out = merged;
    return PC_OK;
}
