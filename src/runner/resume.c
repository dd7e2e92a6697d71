/* Resuming a run (-csv_path, docs/msprobe-contract.md#formats): the done set, and the repair of
 * what an interrupted run left half-written. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/excerpt.h"
#include "precheck/io/path_check.h"
#include "runner_impl.h"

/* ---- name set ---- */

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static bool slot_is(const char *slot, const char *name, size_t len)
{
    return strlen(slot) == len && memcmp(slot, name, len) == 0;
}

bool pc_name_set_has(const pc_name_set *s, const char *name, size_t len)
{
    if (s->cap == 0)
        return false;
    for (size_t i = hash(name, len) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slots[i])
            return false;
        if (slot_is(s->slots[i], name, len))
            return true;
    }
}

static pc_status grow(pc_name_set *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64;
    char **slots = calloc(cap, sizeof *slots);
    if (!slots)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < s->cap; k++) {
        if (!s->slots[k])
            continue;
        size_t i = hash(s->slots[k], strlen(s->slots[k])) & (cap - 1);
        while (slots[i])
            i = (i + 1) & (cap - 1);
        slots[i] = s->slots[k];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
    return PC_OK;
}

pc_status pc_name_set_add(pc_name_set *s, const char *name, size_t len)
{
    if (pc_name_set_has(s, name, len))
        return PC_OK;
    if ((s->count + 1) * 2 > s->cap) {
        pc_status st = grow(s);
        if (st != PC_OK)
            return st;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    memcpy(copy, name, len);
    copy[len] = 0;
    size_t i = hash(name, len) & (s->cap - 1);
    while (s->slots[i])
        i = (i + 1) & (s->cap - 1);
    s->slots[i] = copy;
    s->count++;
    return PC_OK;
}

void pc_name_set_free(pc_name_set *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->slots[i]);
    free(s->slots);
    *s = (pc_name_set){0};
}

/* ---- CSV records ---- */

size_t pc_details_row_api_len(const char *name, size_t len)
{
    static const char *const marks[] = {".forward.output.", ".backward.output."};
    for (size_t m = 0; m < 2; m++) {
        size_t ml = strlen(marks[m]);
        for (size_t i = len; i-- > 0;) {
            if (i + ml <= len && memcmp(name + i, marks[m], ml) == 0) {
                bool digits = i + ml < len;
                for (size_t k = i + ml; k < len; k++)
                    digits &= name[k] >= '0' && name[k] <= '9';
                if (digits)
                    return i;
            }
        }
    }
    return len;
}

typedef pc_csv_record record;

pc_status pc_csv_records_split(const char *data, size_t n, record **out, size_t *count,
                               size_t *complete_end)
{
    size_t i = n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    size_t cap = 0, k = 0;
    record *r = NULL;
    *complete_end = i;
    while (i < n) {
        size_t start = i;
        bool quoted = false, in_first = true;
        size_t fcap = 64, flen = 0;
        char *first = malloc(fcap);
        if (!first)
            goto nomem;
        bool done = false;
        while (i < n) {
            char c = data[i];
            if (quoted) {
                if (c == '"') {
                    if (i + 1 < n && data[i + 1] == '"') {
                        i++;
                    } else {
                        quoted = false;
                        i++;
                        continue;
                    }
                }
            } else if (c == '"') {
                quoted = true;
                i++;
                continue;
            } else if (c == '\r' && i + 1 < n && data[i + 1] == '\n') {
                i += 2;
                done = true;
                break;
            } else if (c == ',') {
                in_first = false;
                i++;
                continue;
            }
            if (in_first) {
                if (flen + 1 >= fcap) {
                    char *g = realloc(first, fcap *= 2);
                    if (!g) {
                        free(first);
                        goto nomem;
                    }
                    first = g;
                }
                first[flen++] = c;
            }
            i++;
        }
        if (!done) {
            free(first);
            break;
        }
        first[flen] = 0;
        if (k == cap) {
            record *g = realloc(r, (cap = cap ? cap * 2 : 256) * sizeof *r);
            if (!g) {
                free(first);
                goto nomem;
            }
            r = g;
        }
        r[k++] = (record){start, i, first, flen};
        *complete_end = i;
    }
    *out = r;
    *count = k;
    return PC_OK;
nomem:
    for (size_t j = 0; j < k; j++)
        free(r[j].first);
    free(r);
    return pc_error_set(PC_ERR_NOMEM, "out of memory");
}

void pc_csv_records_free(record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(r[i].first);
    free(r);
}

pc_status pc_csv_file_read(const char *path, char **data, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pc_error_set(PC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *g = realloc(buf, cap *= 2);
        if (!g) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = g;
    }
    bool err = ferror(f);
    fclose(f);
    if (!buf)
        return pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
    if (err) {
        free(buf);
        return pc_error_set(PC_ERR_IO, "cannot read %s", path);
    }
    *data = buf;
    *n = len;
    return PC_OK;
}

/* Rewrites path with the kept byte ranges of data (a temporary file renamed over it). */
static pc_status rewrite(const char *path, const char *data, const record *r, size_t count,
                         size_t head_end, const bool *keep)
{
    char tmp[PC_PATH_BUFFER_SIZE + 16];
    snprintf(tmp, sizeof tmp, "%s.repair", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return pc_error_set(PC_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    bool ok = fwrite(data, 1, head_end, f) == head_end;
    for (size_t i = 0; i < count && ok; i++)
        if (keep[i])
            ok = fwrite(data + r[i].start, 1, r[i].end - r[i].start, f) == r[i].end - r[i].start;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return pc_error_set(PC_ERR_IO, "cannot rewrite %s: %s", path, strerror(errno));
    }
    pc_path_set_file_mode(path);
    return PC_OK;
}

/* A file to resume must be what run_ut wrote: its first record the header. */
static pc_status check_header(const char *path, const record *r, size_t count, const char *first,
                              const char *kind)
{
    if (count == 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is empty: the %s CSV of a run starts with its header, so this is "
                            "not a run to resume",
                            path, kind);
    pc_excerpt ex;
    if (strcmp(r[0].first, first) != 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is not an %s CSV of run_ut: its header starts with %s, not "
                            "\"%s\"",
                            path, kind, pc_excerpt_quote(&ex, r[0].first, r[0].first_len), first);
    return PC_OK;
}

pc_status pc_resume_prepare(const char *result_path, const char *details_path, pc_name_set *done,
                            size_t *repaired)
{
    *repaired = 0;
    char *data = NULL;
    size_t n = 0, count = 0, end = 0;
    record *r = NULL;
    pc_status st = pc_csv_file_read(result_path, &data, &n);
    if (st == PC_OK)
        st = pc_csv_records_split(data, n, &r, &count, &end);
    if (st == PC_OK && end < n) { /* a partial last record */
        if (truncate(result_path, (off_t)end) != 0)
            st = pc_error_set(PC_ERR_IO, "cannot truncate %s: %s", result_path, strerror(errno));
        (*repaired)++;
    }
    if (st == PC_OK)
        st = check_header(result_path, r, count, "API name", "accuracy_checking_result");
    for (size_t i = 1; i < count && st == PC_OK; i++) /* record 0 is the header */
        st = pc_name_set_add(done, r[i].first, r[i].first_len);
    pc_csv_records_free(r, count);
    free(data);
    if (st != PC_OK)
        return st;

    r = NULL;
    data = NULL;
    st = pc_csv_file_read(details_path, &data, &n);
    if (st == PC_OK)
        st = pc_csv_records_split(data, n, &r, &count, &end);
    if (st == PC_OK)
        st = check_header(details_path, r, count, "API Name", "accuracy_checking_details");
    bool *keep = st == PC_OK ? calloc(count + 1, sizeof *keep) : NULL;
    if (st == PC_OK && !keep)
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    size_t drop = 0;
    for (size_t i = 0; i < count && st == PC_OK; i++) {
        size_t api_len = pc_details_row_api_len(r[i].first, r[i].first_len);
        keep[i] = i == 0 || pc_name_set_has(done, r[i].first, api_len);
        drop += !keep[i];
    }
    if (st == PC_OK && (drop > 0 || end < n)) {
        size_t head = n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
        st = rewrite(details_path, data, r, count, head, keep);
        *repaired += drop + (end < n);
    }
    free(keep);
    pc_csv_records_free(r, count);
    free(data);
    return st;
}
