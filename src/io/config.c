/* config.yaml and config.json: what their two validators share (Python's repr, int() and
 * float() of config values, the string lists, reading the file, the API-list checks). The
 * PyYAML 1.1 reader is yaml11.c; the validators are config_yaml.c and config_json.c. */
#include "precheck/io/config.h"

#include "config_impl.h"
#include "precheck/core/log.h"
#include "precheck/core/pyrepr.h"
#include "precheck/core/strbuf.h"
#include "precheck/io/path_check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------------------------------
 * Python's repr() of str and float, for messages that print Python values
 * ------------------------------------------------------------------------------------------- */

void pc_config_repr_str(pc_strbuf *t, const char *s, size_t n)
{
    bool has_single = memchr(s, '\'', n) != NULL, has_double = memchr(s, '"', n) != NULL;
    char quote = has_single && !has_double ? '"' : '\'';
    pc_strbuf_append(t, &quote, 1);
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == (unsigned char)quote || c == '\\') {
            char esc[2] = {'\\', (char)c};
            pc_strbuf_append(t, esc, 2);
        } else if (c == '\t') {
            pc_strbuf_appends(t, "\\t");
        } else if (c == '\n') {
            pc_strbuf_appends(t, "\\n");
        } else if (c == '\r') {
            pc_strbuf_appends(t, "\\r");
        } else if (c < 0x20 || c == 0x7f) {
            pc_strbuf_printf(t, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < n && (p[i + 1] <= 0xa0 || p[i + 1] == 0xad)) {
            /* U+0080..U+00A0 and U+00AD are not printable for Python */
            pc_strbuf_printf(t, "\\x%02x", p[i + 1]);
            i++;
        } else {
            pc_strbuf_append(t, (const char *)&p[i], 1);
        }
    }
    pc_strbuf_append(t, &quote, 1);
}

void pc_config_repr_float(pc_strbuf *t, double x)
{
    char buf[PC_PYREPR_MAX];
    pc_pyrepr_double(buf, sizeof buf, x);
    pc_strbuf_appends(t, buf);
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
bool pc_config_py_int(const char *s, size_t n, int base, int64_t *out, bool *big)
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
bool pc_config_py_float(const char *s, size_t n, double *out)
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
        *out = (double)NAN;
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

void pc_config_list_free(pc_string_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/* Room for `count` strings; list->count grows as they are set with pc_config_list_push(). */
bool pc_config_list_reserve(pc_string_list *list, size_t count)
{
    list->count = 0;
    list->items = calloc(count ? count : 1, sizeof *list->items);
    return list->items != NULL;
}

bool pc_config_list_push(pc_string_list *list, const char *s, size_t n)
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
    pc_config_list_free(&config->white_list);
    pc_config_list_free(&config->black_list);
    free(config->error_data_path);
    memset(config, 0, sizeof *config);
}

bool pc_config_path_exists(const char *path, size_t len)
{
    struct stat st;
    return strlen(path) == len && stat(path, &st) == 0; /* NUL inside: Python says False */
}

pc_status pc_config_out_of_memory(void)
{
    return pc_error_set(PC_ERR_NOMEM, "out of memory while reading the configuration");
}

/* A whole file into memory (malloc'd, NUL-terminated). */
/* A whole file into memory (malloc'd, NUL-terminated). */
static pc_status read_file(const char *path, const char *what, char **data, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return pc_error_set(PC_ERR_IO, "Load %s file %s failed: %s", what, path, strerror(errno));
    enum { CHUNK = 65536 };
    pc_strbuf all = PC_STRBUF_INIT;
    char *room;
    while ((room = pc_strbuf_extend(&all, CHUNK)) != NULL) {
        size_t n = fread(room, 1, CHUNK, fp);
        pc_strbuf_truncate(&all, pc_strbuf_len(&all) - CHUNK + n);
        if (n == 0)
            break;
    }
    bool failed = ferror(fp);
    int err = errno;
    fclose(fp);
    if (failed) {
        pc_strbuf_reset(&all);
        return pc_error_set(PC_ERR_IO, "Load %s file %s failed: %s", what, path, strerror(err));
    }
    if (pc_strbuf_error(&all) || !(*data = pc_strbuf_finish(&all, size))) {
        pc_strbuf_reset(&all);
        return pc_config_out_of_memory();
    }
    return PC_OK;
}

pc_status pc_config_load_file(pc_config *out, const char *path, const char *what,
                              pc_config_parse_fn parse, pc_config_api_check is_api)
{
    char real[PC_PATH_BUFFER_SIZE], ext[16];
    snprintf(ext, sizeof ext, ".%s", what);
    pc_status s = pc_path_check(path, PC_PATH_FILE, PC_PATH_READ, ext, real, sizeof real);
    if (s != PC_OK)
        return s;
    char *data;
    size_t size;
    s = read_file(real, what, &data, &size);
    if (s != PC_OK)
        return s;
    s = parse(out, data, size, real, is_api);
    free(data);
    return s;
}

pc_status pc_config_check_api_list(const char *key, const str_items *items,
                                   pc_config_api_check is_api, pc_string_list *out)
{
    for (size_t i = 0; i < items->count; i++) {
        size_t len;
        if (!items->get(items->ctx, i, &len))
            return pc_error_set(PC_ERR_INVALID, "All elements in %s must be string type", key);
    }
    pc_strbuf bad = TEXT_INIT;
    size_t bad_count = 0;
    for (size_t i = 0; i < items->count; i++) {
        size_t len;
        const char *name = items->get(items->ctx, i, &len);
        if (strlen(name) == len && is_api(name))
            continue;
        pc_strbuf_appends(&bad, bad_count++ ? ", " : "[");
        pc_config_repr_str(&bad, name, len);
    }
    if (bad_count) {
        pc_strbuf_appends(&bad, "]");
        pc_status s =
            pc_strbuf_error(&bad) == PC_STRBUF_NOMEM
                ? pc_config_out_of_memory()
                : pc_error_set(PC_ERR_INVALID, "Invalid api in %s: %s", key, pc_strbuf_str(&bad));
        pc_strbuf_reset(&bad);
        return s;
    }
    if (!pc_config_list_reserve(out, items->count))
        return pc_config_out_of_memory();
    for (size_t i = 0; i < items->count; i++) {
        size_t len;
        const char *name = items->get(items->ctx, i, &len);
        if (!pc_config_list_push(out, name, len)) {
            pc_config_list_free(out);
            return pc_config_out_of_memory();
        }
    }
    return PC_OK;
}

void pc_config_release_parts(pc_string_list *white, pc_string_list *black, char *path)
{
    pc_config_list_free(white);
    pc_config_list_free(black);
    free(path);
}
