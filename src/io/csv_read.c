/*
 * A small streaming CSV reader. libcsv would do, but it is not a dependency of the project and
 * the dialect we need (Python csv's reader, non-strict) is a state machine of a few states; a
 * reader of our own also lets memory stay bounded by one record and gives file:line messages.
 */
#include "precheck/io/csv_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { READ_CHUNK = 64 * 1024 };

struct pc_csv_reader {
    FILE *file;       /* NULL for a memory reader */
    const char *data; /* the bytes not consumed yet: buf for files, the block for memory */
    size_t pos, len;  /* data[pos..len) is unread */
    char *buf;        /* file read buffer */
    bool eof;         /* no more bytes after data[len) */
    bool started;     /* the BOM test was done */
    char *rec;        /* the current record: the fields, each followed by a NUL */
    size_t rec_len, rec_cap;
    size_t *offs; /* offset of each field in rec */
    size_t nfields, offs_cap;
    size_t line;     /* line of the next unread byte */
    size_t rec_line; /* line where the current record starts */
    char name[];
};

static pc_status reader_new(const char *name, pc_csv_reader **out)
{
    size_t n = strlen(name);
    pc_csv_reader *r = calloc(1, sizeof *r + n + 1);
    if (!r)
        return pc_error_set(PC_ERR_NOMEM, "out of memory opening %s", name);
    memcpy(r->name, name, n + 1);
    r->line = 1;
    *out = r;
    return PC_OK;
}

pc_status pc_csv_reader_open(const char *path, pc_csv_reader **out)
{
    *out = NULL;
    pc_csv_reader *r = NULL;
    pc_status st = reader_new(path, &r);
    if (st != PC_OK)
        return st;
    r->buf = malloc(READ_CHUNK);
    if (!r->buf) {
        free(r);
        return pc_error_set(PC_ERR_NOMEM, "out of memory opening %s", path);
    }
    r->file = fopen(path, "rb");
    if (!r->file) {
        int e = errno;
        free(r->buf);
        free(r);
        return pc_error_set(e == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO, "cannot open %s: %s", path,
                            strerror(e));
    }
    r->data = r->buf;
    *out = r;
    return PC_OK;
}

pc_status pc_csv_reader_open_memory(const char *data, size_t len, const char *name,
                                    pc_csv_reader **out)
{
    *out = NULL;
    pc_csv_reader *r = NULL;
    pc_status st = reader_new(name ? name : "<memory>", &r);
    if (st != PC_OK)
        return st;
    r->data = data;
    r->len = len;
    r->eof = true;
    *out = r;
    return PC_OK;
}

void pc_csv_reader_free(pc_csv_reader *r)
{
    if (!r)
        return;
    if (r->file)
        fclose(r->file);
    free(r->buf);
    free(r->rec);
    free(r->offs);
    free(r);
}

/* Makes unread bytes available; false at the end of the input (or on a read error, *st set). */
static bool refill(pc_csv_reader *r, pc_status *st)
{
    if (r->pos < r->len)
        return true;
    if (r->eof)
        return false;
    size_t n = fread(r->buf, 1, READ_CHUNK, r->file);
    if (n < READ_CHUNK) {
        if (ferror(r->file)) {
            *st = pc_error_set(PC_ERR_IO, "cannot read %s: %s", r->name, strerror(errno));
            return false;
        }
        r->eof = true;
    }
    r->pos = 0;
    r->len = n;
    return n > 0;
}

static pc_status rec_reserve(pc_csv_reader *r, size_t extra)
{
    if (r->rec_len + extra <= r->rec_cap)
        return PC_OK;
    if (r->rec_len + extra > PC_CSV_RECORD_MAX)
        return pc_error_set(PC_ERR_RANGE, "%s:%zu: a record is longer than %zu bytes", r->name,
                            r->rec_line, (size_t)PC_CSV_RECORD_MAX);
    size_t cap = r->rec_cap ? r->rec_cap : 1024;
    while (cap < r->rec_len + extra)
        cap *= 2;
    char *p = realloc(r->rec, cap);
    if (!p)
        return pc_error_set(PC_ERR_NOMEM, "%s:%zu: out of memory", r->name, r->rec_line);
    r->rec = p;
    r->rec_cap = cap;
    return PC_OK;
}

static pc_status field_begin(pc_csv_reader *r)
{
    if (r->nfields == r->offs_cap) {
        size_t cap = r->offs_cap ? r->offs_cap * 2 : 32;
        size_t *p = realloc(r->offs, cap * sizeof *p);
        if (!p)
            return pc_error_set(PC_ERR_NOMEM, "%s:%zu: out of memory", r->name, r->rec_line);
        r->offs = p;
        r->offs_cap = cap;
    }
    r->offs[r->nfields++] = r->rec_len;
    return PC_OK;
}

static pc_status field_end(pc_csv_reader *r)
{
    pc_status st = rec_reserve(r, 1);
    if (st == PC_OK)
        r->rec[r->rec_len++] = '\0';
    return st;
}

/* Appends the run of bytes of data[pos..) up to (not including) the first byte that is one of
 * the stop bytes; the common case of a plain field costs one pass. */
static pc_status copy_run(pc_csv_reader *r, bool quoted)
{
    const char *p = r->data + r->pos, *end = r->data + r->len, *q = p;
    if (quoted) {
        const char *hit = memchr(p, '"', (size_t)(end - p));
        q = hit ? hit : end;
        for (const char *c = p; c < q; c++)
            if (*c == '\n')
                r->line++;
    } else {
        while (q < end && *q != ',' && *q != '\n' && *q != '\r')
            q++;
    }
    size_t n = (size_t)(q - p);
    if (n) {
        pc_status st = rec_reserve(r, n);
        if (st != PC_OK)
            return st;
        memcpy(r->rec + r->rec_len, p, n);
        r->rec_len += n;
        r->pos += n;
    }
    return PC_OK;
}

static pc_status push_byte(pc_csv_reader *r, char c)
{
    pc_status st = rec_reserve(r, 1);
    if (st == PC_OK)
        r->rec[r->rec_len++] = c;
    return st;
}

/* Consumes an LF right after a CR (the two end one record), possibly across a refill. */
static void skip_lf_after_cr(pc_csv_reader *r, pc_status *st)
{
    if (refill(r, st) && r->data[r->pos] == '\n')
        r->pos++;
}

pc_status pc_csv_reader_next(pc_csv_reader *r, bool *has_row)
{
    pc_status st = PC_OK;
    *has_row = false;
    if (!r->started) {
        r->started = true;
        /* a BOM split over two reads cannot happen: the first read is 64 KiB or the file */
        if (refill(r, &st) && r->len - r->pos >= 3 &&
            memcmp(r->data + r->pos, "\xEF\xBB\xBF", 3) == 0)
            r->pos += 3;
        if (st != PC_OK)
            return st;
    }
    for (;;) {
        r->rec_len = 0;
        r->nfields = 0;
        r->rec_line = r->line;
        if (!refill(r, &st))
            return st;
        char c = r->data[r->pos];
        if (c == '\n' || c == '\r') { /* an empty line: skipped */
            r->pos++;
            r->line++;
            if (c == '\r')
                skip_lf_after_cr(r, &st);
            if (st != PC_OK)
                return st;
            continue;
        }
        break;
    }
    /* one record: fields until an unquoted line end or the end of the input */
    for (;;) {
        if ((st = field_begin(r)) != PC_OK)
            return st;
        bool quoted = refill(r, &st) && r->data[r->pos] == '"';
        if (st != PC_OK)
            return st;
        if (quoted) {
            r->pos++;
            for (;;) {
                if (!refill(r, &st)) {
                    if (st != PC_OK)
                        return st;
                    return pc_error_set(PC_ERR_FORMAT,
                                        "%s:%zu: the quoted field that starts here has no "
                                        "closing quote before the end of the file",
                                        r->name, r->rec_line);
                }
                if ((st = copy_run(r, true)) != PC_OK)
                    return st;
                if (r->pos == r->len)
                    continue;
                r->pos++; /* the quote */
                if (refill(r, &st) && r->data[r->pos] == '"') {
                    r->pos++;
                    if ((st = push_byte(r, '"')) != PC_OK)
                        return st;
                    continue;
                }
                if (st != PC_OK)
                    return st;
                break;
            }
        }
        /* unquoted text (or text after a closing quote, kept as Python does) */
        for (;;) {
            if (!refill(r, &st))
                break;
            if ((st = copy_run(r, false)) != PC_OK)
                return st;
            if (r->pos < r->len)
                break;
        }
        if (st != PC_OK)
            return st;
        if ((st = field_end(r)) != PC_OK)
            return st;
        if (!refill(r, &st)) { /* end of input ends the record */
            if (st != PC_OK)
                return st;
            break;
        }
        char c = r->data[r->pos++];
        if (c == ',')
            continue;
        r->line++;
        if (c == '\r')
            skip_lf_after_cr(r, &st);
        if (st != PC_OK)
            return st;
        break;
    }
    *has_row = true;
    return PC_OK;
}

size_t pc_csv_reader_field_count(const pc_csv_reader *r)
{
    return r->nfields;
}

const char *pc_csv_reader_field(const pc_csv_reader *r, size_t i, size_t *len)
{
    if (i >= r->nfields)
        return NULL;
    size_t start = r->offs[i];
    size_t stop = i + 1 < r->nfields ? r->offs[i + 1] - 1 : r->rec_len - 1;
    if (len)
        *len = stop - start;
    return r->rec + start;
}

size_t pc_csv_reader_line(const pc_csv_reader *r)
{
    return r->rec_line;
}

const char *pc_csv_reader_name(const pc_csv_reader *r)
{
    return r->name;
}
