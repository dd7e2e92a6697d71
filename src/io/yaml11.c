/* The PyYAML 1.1 emulation: a YAML text read with libyaml into a small tree whose scalars are
 * typed as PyYAML's SafeLoader types them (yaml11_impl.h). */
#include "yaml11_impl.h"

#include "config_impl.h"
#include "precheck/io/json.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---------------------------------------------------------------------------------------------
 * YAML: a small tree built from libyaml's events, typed as PyYAML's SafeLoader types it
 * ------------------------------------------------------------------------------------------- */

/* How a message names what was found instead of a mapping. */
const char *pc_yaml11_kind_what(ykind kind)
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

void pc_yaml11_free(ydoc *d)
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
        ok = pc_config_py_int(p + 2, len - 2, 2, out, big);
    } else if (strncmp(p, "0x", 2) == 0) {
        ok = pc_config_py_int(p + 2, len - 2, 16, out, big);
    } else if (p[0] == '0') {
        ok = pc_config_py_int(p, len, 8, out, big);
    } else if (memchr(p, ':', len)) {
        int64_t total = 0;
        const char *part = p;
        for (;;) {
            const char *colon = strchr(part, ':');
            size_t plen = colon ? (size_t)(colon - part) : strlen(part);
            int64_t digit;
            bool part_big;
            if (!pc_config_py_int(part, plen, 10, &digit, &part_big)) {
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
        ok = pc_config_py_int(p, len, 10, out, big);
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
        *out = (double)NAN;
        return true;
    }
    if (strchr(p, ':')) {
        double total = 0;
        const char *part = p;
        for (;;) {
            const char *colon = strchr(part, ':');
            size_t plen = colon ? (size_t)(colon - part) : strlen(part);
            double digit;
            if (!pc_config_py_float(part, plen, &digit))
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
    if (!pc_config_py_float(p, strlen(p), &v))
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
        return pc_config_out_of_memory();
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
        return pc_config_out_of_memory();
    char *name = strdup((const char *)anchor);
    if (!name)
        return pc_config_out_of_memory();
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
        return pc_config_out_of_memory();
    parent->kids[parent->kid_count++] = node;
    return PC_OK;
}

static pc_status open_container(ydoc *d, size_t node, const yaml_mark_t *mark)
{
    if (d->depth >= PC_CONFIG_YAML_MAX_DEPTH)
        return yaml_fail(d, mark->line + 1, mark->column + 1, "nesting deeper than %d",
                         PC_CONFIG_YAML_MAX_DEPTH);
    if (!grow((void **)&d->stack, &d->stack_cap, d->depth + 1, sizeof *d->stack))
        return pc_config_out_of_memory();
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
        return pc_config_out_of_memory();
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
        return pc_config_out_of_memory();
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
            return pc_config_out_of_memory();
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

pc_status pc_yaml11_parse(ydoc *d, const char *data, size_t size)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return pc_config_out_of_memory();
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
