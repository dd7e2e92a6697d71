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
#include "precheck/core/log.h"
#include "precheck/io/file_out.h"
#include "precheck/io/msprobe_csv.h"
#include "precheck/io/path_check.h"
#include "precheck/io/run_lock.h"
#include "runner_impl.h"

/* ---- name set ---- */

bool pc_name_set_has(const pc_name_set *s, const char *name, size_t len)
{
    return pc_strmap_find(&s->map, name, len) != NULL;
}

pc_status pc_name_set_add(pc_name_set *s, const char *name, size_t len)
{
    s->map.own_keys = true; /* the set keeps copies of the names */
    bool added = false;
    if (!pc_strmap_put(&s->map, name, len, &added))
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    s->count += added;
    return PC_OK;
}

void pc_name_set_free(pc_name_set *s)
{
    pc_strmap_free(&s->map);
    *s = (pc_name_set){0};
}

/* ---- the two CSVs (their records: io/msprobe_csv.h) ---- */

typedef pc_csv_record record;

/* Rewrites path whole with the kept records of data, each ending in CRLF (run_ut's endings,
 * whatever the file had), through the safe writer: readers see the old file or the new one.
 * With lock (the run lock on path), the lock moves to the new file before it takes the name. */
static pc_status rewrite(const char *path, const char *data, const record *r, size_t count,
                         size_t head_end, const bool *keep, pc_run_lock *lock)
{
    pc_file_out o;
    pc_status st = pc_file_out_open(&o, path, PC_FILE_OUT_REPLACE);
    if (st != PC_OK)
        return st;
    fwrite(data, 1, head_end, o.f);
    for (size_t i = 0; i < count; i++) {
        if (keep && !keep[i])
            continue;
        size_t body = r[i].end - r[i].start - (r[i].crlf ? 2 : 1);
        fwrite(data + r[i].start, 1, body, o.f);
        fwrite("\r\n", 1, 2, o.f);
    }
    if (lock && lock->fd >= 0 && (st = pc_run_lock_adopt(lock, o.tmp)) != PC_OK) {
        pc_file_out_free(&o);
        return st;
    }
    st = pc_file_out_commit(&o);
    if (lock)
        pc_run_lock_adopt_done(lock, st == PC_OK);
    pc_file_out_free(&o);
    if (st == PC_OK)
        pc_path_set_file_mode(path);
    return st;
}

/* One of the two CSVs of the run to resume, read and split, and what it needs. */
typedef struct csv_file {
    const char *path;
    char *data;
    size_t n, count, end, head;
    record *r;
    bool endings; /* a complete record ends other than in CRLF */
} csv_file;

static void csv_file_free(csv_file *c)
{
    pc_csv_records_free(c->r, c->count);
    free(c->data);
    c->r = NULL;
    c->data = NULL;
    c->count = 0;
}

static const char RESULT_HEAD[] = PC_MCSV_RESULT_FIRST, DETAILS_HEAD[] = PC_MCSV_DETAILS_FIRST;

/*
 * A file to resume must be what run_ut (or msprobe) wrote, whole: its first record the header
 * of its kind, no complete record with more fields than the header. Nothing is changed here:
 * a file that is not a run to resume is refused as it is.
 */
static pc_status csv_file_load(csv_file *c, const char *path, bool result)
{
    *c = (csv_file){.path = path};
    pc_status st = pc_csv_file_read(path, &c->data, &c->n);
    if (st == PC_OK)
        st = pc_csv_records_split(c->data, c->n, &c->r, &c->count, &c->end);
    if (st != PC_OK)
        return st;
    c->head = c->n >= 3 && memcmp(c->data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    const char *kind = pc_mcsv_kind_stem(result ? PC_MCSV_RESULT : PC_MCSV_DETAILS);
    const char *want = result ? RESULT_HEAD : DETAILS_HEAD;
    if (c->n == c->head)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is empty%s: the %s CSV of a run starts with its header, so this "
                            "is not a run to resume (a run killed before it wrote anything); "
                            "start a new run without -csv_path. Nothing was changed.",
                            path, c->head ? " (only a byte order mark)" : "", kind);
    if (c->count == 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s holds no complete line (%zu bytes without a line ending): the %s "
                            "CSV of a run starts with its header, so this is not a run to resume. "
                            "Nothing was changed.",
                            path, c->n, kind);
    if (result && strcmp(c->r[0].first, DETAILS_HEAD) == 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is a details CSV (its header starts with 'API Name'): give "
                            "-csv_path the result CSV accuracy_checking_result_<ts>.csv of the "
                            "run (its details CSV is found beside it). Nothing was changed.",
                            path);
    if (!result && strcmp(c->r[0].first, RESULT_HEAD) == 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is a result CSV (its header starts with 'API name'), not the "
                            "details CSV of the run. Nothing was changed.",
                            path);
    pc_excerpt ex;
    if (strcmp(c->r[0].first, want) != 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is not an %s CSV of run_ut: its header starts with %s, not "
                            "\"%s\". Nothing was changed.",
                            path, kind, pc_excerpt_quote(&ex, c->r[0].first, c->r[0].first_len),
                            want);
    size_t line = 1;
    for (size_t i = 0; i < c->count; i++) {
        /* msprobe leaves out empty trailing fields (a row without a Message), never adds */
        if (i > 0 && c->r[i].fields > c->r[0].fields)
            return pc_error_set(PC_ERR_FORMAT,
                                "%s: record %zu (from line %zu) has %zu fields, the header %zu: "
                                "the file was changed since run_ut wrote it, so it is not a run "
                                "to resume as it is. Nothing was changed.",
                                path, i + 1, line, c->r[i].fields, c->r[0].fields);
        c->endings |= !c->r[i].crlf;
        for (size_t b = c->r[i].start; b < c->r[i].end; b++)
            line += c->data[b] == '\n' ||
                    (c->data[b] == '\r' && (b + 1 == c->r[i].end || c->data[b + 1] != '\n'));
    }
    return PC_OK;
}

pc_status pc_resume_prepare(const char *result_path, const char *details_path, pc_name_set *done,
                            size_t *repaired, pc_run_lock *lock)
{
    *repaired = 0;
    csv_file res, det;
    /* both files are read and checked whole before a byte of either changes */
    pc_status st = csv_file_load(&res, result_path, true);
    if (st == PC_OK)
        st = csv_file_load(&det, details_path, false);
    else
        det = (csv_file){0};
    for (size_t i = 1; i < res.count && st == PC_OK; i++) /* record 0 is the header */
        st = pc_name_set_add(done, res.r[i].first, res.r[i].first_len);
    bool *keep = st == PC_OK ? calloc(det.count + 1, sizeof *keep) : NULL;
    if (st == PC_OK && !keep)
        st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    size_t drop = 0;
    for (size_t i = 0; i < det.count && st == PC_OK; i++) {
        pc_mcsv_row row;
        pc_mcsv_row_parse(det.r[i].first, det.r[i].first_len, &row);
        keep[i] = i == 0 || pc_name_set_has(done, det.r[i].first, row.api_len);
        drop += !keep[i];
    }
    if (st == PC_OK && (res.endings || det.endings))
        pc_log_warning("%s and its details CSV have line endings other than run_ut's CRLF (a "
                       "re-save by dos2unix, pandas or a spreadsheet): they are rewritten with "
                       "CRLF, as the run writes its rows.",
                       result_path);
    /* the result CSV first (a partial last record cut off): a result row is the mark of a
     * finished API, so the details rows are judged against what stays */
    if (st == PC_OK && res.endings) {
        st = rewrite(result_path, res.data, res.r, res.count, res.head, NULL, lock);
        *repaired += res.end < res.n;
    } else if (st == PC_OK && res.end < res.n) {
        if (truncate(result_path, (off_t)res.end) != 0)
            st = pc_error_set(PC_ERR_IO, "cannot truncate %s: %s", result_path, strerror(errno));
        (*repaired)++;
    }
    if (st == PC_OK && (drop > 0 || det.end < det.n || det.endings)) {
        st = rewrite(details_path, det.data, det.r, det.count, det.head, keep, NULL);
        *repaired += drop + (det.end < det.n);
    }
    free(keep);
    csv_file_free(&res);
    csv_file_free(&det);
    return st;
}
