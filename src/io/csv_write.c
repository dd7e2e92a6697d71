#include "precheck/io/csv.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/pyrepr.h"

pc_csv_cell pc_csv_space(void)
{
    return (pc_csv_cell){.kind = PC_CSV_SPACE};
}

pc_csv_cell pc_csv_text(const char *text)
{
    return (pc_csv_cell){.kind = PC_CSV_TEXT, .v.text = text};
}

pc_csv_cell pc_csv_f64(double x)
{
    return (pc_csv_cell){.kind = PC_CSV_F64, .v.f64 = x};
}

pc_csv_cell pc_csv_f32(float x)
{
    return (pc_csv_cell){.kind = PC_CSV_F32, .v.f32 = x};
}

pc_csv_cell pc_csv_f16(uint16_t bits)
{
    return (pc_csv_cell){.kind = PC_CSV_F16, .v.f16 = bits};
}

pc_csv_cell pc_csv_int(int64_t x)
{
    return (pc_csv_cell){.kind = PC_CSV_INT, .v.i64 = x};
}

/* Copies text into dst like snprintf("%s") and returns its length. */
static int put_text(char *dst, size_t size, const char *text)
{
    size_t n = strlen(text);
    if (size > 0) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, text, k);
        dst[k] = '\0';
    }
    return (int)n;
}

int pc_format_fixed(char *dst, size_t size, double x, int precision)
{
    if (precision < 0)
        precision = 0;
    if (precision > PC_CSV_MAX_PRECISION)
        precision = PC_CSV_MAX_PRECISION;
    /* C prints a NaN with its sign bit as "-nan"; Python prints every NaN as "nan". */
    if (isnan(x))
        return put_text(dst, size, "nan");
    return snprintf(dst, size, "%.*f", precision, x);
}

int pc_csv_format_cell(char *dst, size_t size, const pc_csv_cell *cell, int precision)
{
    switch (cell->kind) {
    case PC_CSV_SPACE:
        return put_text(dst, size, " ");
    case PC_CSV_EMPTY:
        return put_text(dst, size, "");
    case PC_CSV_TEXT:
        return put_text(dst, size, cell->v.text ? cell->v.text : "");
    case PC_CSV_F64:
        return pc_format_fixed(dst, size, cell->v.f64, precision);
    case PC_CSV_F32:
        return pc_pyrepr_numpy_f32(dst, size, cell->v.f32);
    case PC_CSV_F16:
        return pc_pyrepr_numpy_f16(dst, size, cell->v.f16);
    case PC_CSV_INT:
        return snprintf(dst, size, "%" PRId64, cell->v.i64);
    }
    return put_text(dst, size, "");
}

/* ---- buffers ---- */

void pc_csv_buffer_free(pc_csv_buffer *buf)
{
    pc_strbuf_reset(buf);
}

void pc_csv_buffer_clear(pc_csv_buffer *buf)
{
    pc_strbuf_truncate(buf, 0);
    buf->err = PC_STRBUF_OK; /* a failed growth kept the old memory: usable again */
}

/* PC_OK, or the message for the buffer's error (its appends check once, at the end). */
static pc_status buffer_status(const pc_csv_buffer *buf)
{
    return pc_strbuf_error(buf) ? pc_error_set(PC_ERR_NOMEM, "CSV buffer: out of memory") : PC_OK;
}

static bool needs_quotes(const char *s)
{
    return strpbrk(s, ",\"\r\n") != NULL;
}

/* The characters that make a spreadsheet run a cell (ASCII and their full-width forms). */
static size_t formula_char(const char *s)
{
    static const char *const lead[] = {"+",
                                       "-",
                                       "=",
                                       "%",
                                       "@",
                                       "\xEF\xBC\x8B" /* ＋ */,
                                       "\xEF\xBC\x8D" /* － */,
                                       "\xEF\xBC\x9D" /* ＝ */,
                                       "\xEF\xBC\x85" /* ％ */,
                                       "\xEF\xBC\xA0" /* ＠ */};
    for (size_t i = 0; i < sizeof lead / sizeof lead[0]; i++)
        if (strncmp(s, lead[i], strlen(lead[i])) == 0)
            return strlen(lead[i]);
    return 0;
}

bool pc_csv_formula_like(const char *s)
{
    if (formula_char(s))
        return true;
    for (const char *p = strchr(s, ';'); p; p = strchr(p + 1, ';'))
        if (formula_char(p + 1))
            return true;
    return false;
}

/* A number as text ("-0.5", "-inf", "+1e-05"): a spreadsheet reads it as a number. */
static bool plain_number(const char *s)
{
    if (!*s || strchr(" \t\r\n\f\v", *s))
        return false;
    char *end;
    (void)strtod(s, &end);
    return *end == '\0';
}

bool pc_csv_cell_runs(const char *s)
{
    return (formula_char(s) || strchr(s, ';')) && pc_csv_formula_like(s) && !plain_number(s);
}

/* s with a ' in front of every place pc_csv_formula_like names (malloc'd; NULL: no memory). */
static char *defuse(const char *s)
{
    size_t n = strlen(s), marks = formula_char(s) ? 1 : 0;
    for (const char *p = strchr(s, ';'); p; p = strchr(p + 1, ';'))
        marks += formula_char(p + 1) ? 1 : 0;
    char *d = malloc(n + marks + 1), *o = d;
    if (!d)
        return NULL;
    for (const char *p = s; *p; p++) {
        if ((p == s || p[-1] == ';') && formula_char(p))
            *o++ = '\'';
        *o++ = *p;
    }
    *o = '\0';
    return d;
}

static pc_status append_field(pc_csv_buffer *buf, const char *s);

/* A text cell: one that a spreadsheet would run is written with a ' in front of the formula
 * (docs/msprobe-contract.md#formats). */
static pc_status append_text(pc_csv_buffer *buf, const char *s)
{
    if (!pc_csv_cell_runs(s))
        return append_field(buf, s);
    char *d = defuse(s);
    if (!d)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_status st = append_field(buf, d);
    free(d);
    return st;
}

static pc_status append_field(pc_csv_buffer *buf, const char *s)
{
    size_t n = strlen(s);
    if (!needs_quotes(s)) {
        pc_strbuf_append(buf, s, n);
        return buffer_status(buf);
    }
    size_t quotes = 0;
    for (const char *p = s; *p; p++)
        quotes += *p == '"';
    char *o = pc_strbuf_extend(buf, n + quotes + 2);
    if (!o)
        return buffer_status(buf);
    *o++ = '"';
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            *o++ = '"';
        *o++ = *p;
    }
    *o = '"';
    return PC_OK;
}

static pc_status append_raw(pc_csv_buffer *buf, const char *s, size_t n)
{
    pc_strbuf_append(buf, s, n);
    return buffer_status(buf);
}

pc_status pc_csv_append_row(pc_csv_buffer *buf, const pc_csv_cell *cells, size_t n, int precision)
{
    size_t start = buf->len;
    pc_status st = PC_OK;
    for (size_t i = 0; i < n && st == PC_OK; i++) {
        if (i > 0)
            st = append_raw(buf, ",", 1);
        if (st != PC_OK)
            break;
        if (cells[i].kind == PC_CSV_TEXT) {
            st = append_text(buf, cells[i].v.text ? cells[i].v.text : "");
        } else {
            char num[PC_CSV_NUMBER_MAX];
            pc_csv_format_cell(num, sizeof num, &cells[i], precision);
            st = append_field(buf, num);
        }
    }
    if (st == PC_OK)
        st = append_raw(buf, "\r\n", 2);
    if (st != PC_OK) { /* a row is appended whole or not at all */
        pc_strbuf_truncate(buf, start);
        buf->err = PC_STRBUF_OK; /* realloc failing kept the rows before: usable again */
    }
    return st;
}

pc_status pc_csv_append_text_row(pc_csv_buffer *buf, const char *const *fields, size_t n)
{
    pc_csv_cell cells[64];
    if (n > sizeof cells / sizeof cells[0])
        return pc_error_set(PC_ERR_RANGE, "CSV row: %zu fields, at most 64", n);
    for (size_t i = 0; i < n; i++)
        cells[i] = pc_csv_text(fields[i]);
    return pc_csv_append_row(buf, cells, n, 0);
}

/* ---- files ---- */

static const char utf8_bom[3] = {'\xEF', '\xBB', '\xBF'};

static pc_status write_all(int fd, const char *p, size_t n, const char *path)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return pc_error_set(PC_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    return PC_OK;
}

pc_status pc_csv_append_file(const char *path, const pc_csv_buffer *buf)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            return pc_error_set(PC_ERR_INVALID,
                                "%s is a symbolic link: precheck does not write through links; "
                                "remove the link",
                                path);
        return pc_error_set(e == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO, "%s: cannot open: %s", path,
                            strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pc_error_set(PC_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    pc_status status = PC_OK;
    if (buf->len > 0) {
        /* BOM and rows go out in one write, so that a reader never sees half of them. */
        bool bom = st.st_size == 0;
        size_t total = buf->len + (bom ? sizeof utf8_bom : 0);
        char *out = bom ? malloc(total) : buf->data;
        if (!out) {
            close(fd);
            return pc_error_set(PC_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, total);
        }
        if (bom) {
            memcpy(out, utf8_bom, sizeof utf8_bom);
            memcpy(out + sizeof utf8_bom, buf->data, buf->len);
        }
        status = write_all(fd, out, total, path);
        if (bom)
            free(out);
    }
    if (status == PC_OK && fchmod(fd, 0640) != 0)
        status = pc_error_set(PC_ERR_IO, "%s: cannot set mode 0640: %s", path, strerror(errno));
    if (close(fd) != 0 && status == PC_OK)
        status = pc_error_set(PC_ERR_IO, "%s: cannot close: %s", path, strerror(errno));
    return status;
}
