/*
 * api_precision_compare on two files. First both CSVs are streamed in step (row i against row
 * i), details rows going out as they are judged and each API's result row as soon as its last
 * row is read: memory is a few rows. Where the files do not follow each other (see
 * stream_pass), it starts again: the GPU CSV is indexed by API Name (only the cells the rules
 * read from it are kept), the NPU CSV is streamed one row at a time, and result rows, one per
 * API in the order APIs first appear, are written at the end. Both outputs are written under
 * temporary names and renamed when all went well, so a failed run leaves nothing that looks
 * complete.
 *
 * Where result rows go (msprobe's order, docs/msprobe-contract.md#precision-compare): an API's row
 * is due when its run of rows ends, that is when a row of another API has been judged, or at the
 * end; the row of an invalid name or of a row whose verdict raised ("direct" rows) is due at once.
 * So a direct row comes before the row of the API still open when it is met, even when it belongs
 * to that API, and it never ends or opens an API's run.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "precheck/core/arena.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/log.h"
#include "precheck/io/csv.h"
#include "precheck/io/csv_read.h"
#include "precheck/io/file_out.h"
#include "precheck/precision_compare/precision_compare.h"
#include "precision_compare/pcmp_impl.h"

/* The strings that live as long as the run are in a pc_arena (64 KiB chunks); the names are
 * found through pc_strmaps whose keys borrow them and whose values are indices. */
typedef pc_arena strpool;

static const char *pool_dup(strpool *p, const char *s)
{
    return pc_arena_strdup(p, s);
}

/* ---- the GPU index ---- */

static const pc_pcmp_col gpu_kept[] = {
    PC_PCMP_COL_SMALL_VALUE, PC_PCMP_COL_RMSE,     PC_PCMP_COL_MAX_REL, PC_PCMP_COL_MEAN_REL,
    PC_PCMP_COL_EB,          PC_PCMP_COL_ULP_MEAN, PC_PCMP_COL_ULP_PROP};
enum { GPU_KEPT = sizeof gpu_kept / sizeof gpu_kept[0] };

typedef struct gpu_row {
    const char *name;
    const char *cell[GPU_KEPT];
    size_t count; /* rows with this name */
} gpu_row;

typedef struct gpu_index {
    gpu_row *rows;
    size_t n, cap;
    pc_strmap t; /* name -> index in rows */
} gpu_index;

/* ---- the per-API result table ---- */

typedef struct api_entry {
    const char *name;    /* full name, or the row name of a direct row */
    const char *api;     /* basic API name */
    const char *message; /* direct rows: the message; others: skip_msg (malloc'd) */
    pc_pcmp_agg fwd, bwd;
    bool direct; /* an invalid-name or raised row: [name, SKIP, SKIP, message] */
    bool last_skip_dtype;
    size_t before; /* direct rows of the indexed pass: written before the API entry of this index */
} api_entry;

typedef struct api_table {
    api_entry *e;
    size_t n, cap;
    pc_strmap t; /* name -> index in e */
} api_table;

static pc_status api_push(api_table *a, api_entry entry)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 256;
        api_entry *e = realloc(a->e, cap * sizeof *e);
        if (!e)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        a->e = e;
        a->cap = cap;
    }
    a->e[a->n++] = entry;
    return PC_OK;
}

/* ---- reading ---- */

typedef struct columns {
    long at[PC_PCMP_COL_COUNT]; /* field index of each column, -1 when absent */
} columns;

static pc_status read_header(pc_csv_reader *r, const char *which, columns *cols)
{
    bool has;
    pc_status st = pc_csv_reader_next(r, &has);
    if (st != PC_OK)
        return st;
    if (!has)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s is empty: expected a run_ut accuracy_checking_details CSV (%s)",
                            pc_csv_reader_name(r), which);
    for (int c = 0; c < PC_PCMP_COL_COUNT; c++)
        cols->at[c] = -1;
    bool result_csv = false;
    for (size_t i = 0; i < pc_csv_reader_field_count(r); i++) {
        const char *f = pc_csv_reader_field(r, i, NULL);
        if (strcmp(f, pc_mcsv_column(PC_MCSV_RESULT, PC_MCSV_RES_FORWARD)) == 0)
            result_csv = true;
        for (int c = 0; c < PC_PCMP_COL_COUNT; c++)
            if (cols->at[c] < 0 && strcmp(f, pc_pcmp_col_name((pc_pcmp_col)c)) == 0)
                cols->at[c] = (long)i;
    }
    char missing[2048] = "";
    size_t len = 0;
    for (int c = 0; c < PC_PCMP_COL_REQUIRED_COUNT; c++)
        if (cols->at[c] < 0 && len < sizeof missing)
            len += (size_t)snprintf(missing + len, sizeof missing - len, "%s'%s'", len ? ", " : "",
                                    pc_pcmp_col_name((pc_pcmp_col)c));
    /* msprobe writes "missing in" and the side with no space between ("missing innpu_csv");
     * precheck puts the space in (docs/COMPATIBILITY.md), and for a result CSV given by
     * mistake says so first, before the list of columns */
    if (len && result_csv)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s (%s) is an accuracy_checking_result CSV: pass the "
                            "accuracy_checking_details CSV of the same run (the following "
                            "columns {%s} are missing in %s)",
                            which, pc_csv_reader_name(r), missing, which);
    if (len)
        return pc_error_set(PC_ERR_FORMAT, "The following columns {%s} are missing in %s (%s)",
                            missing, which, pc_csv_reader_name(r));
    return PC_OK;
}

static void row_of(const pc_csv_reader *r, const columns *cols, pc_pcmp_row *row)
{
    for (int c = 0; c < PC_PCMP_COL_COUNT; c++)
        row->cell[c] = cols->at[c] < 0 ? NULL : pc_csv_reader_field(r, (size_t)cols->at[c], NULL);
    if (!row->cell[PC_PCMP_COL_API_NAME])
        row->cell[PC_PCMP_COL_API_NAME] = "";
}

static pc_status gpu_load(const char *path, gpu_index *g, strpool *pool, size_t *rows)
{
    pc_csv_reader *r;
    pc_status st = pc_csv_reader_open(path, &r);
    if (st != PC_OK)
        return st;
    columns cols;
    if ((st = read_header(r, "gpu_csv", &cols)) != PC_OK)
        goto done;
    bool has;
    while ((st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        pc_pcmp_row row;
        row_of(r, &cols, &row);
        (*rows)++;
        const char *key = row.cell[PC_PCMP_COL_API_NAME];
        size_t klen = strlen(key);
        uint64_t h = pc_hash_fnv1a64(key, klen);
        pc_strmap_entry *found = pc_strmap_find_hashed(&g->t, key, klen, h);
        if (found) {
            g->rows[found->value.index].count++;
            continue;
        }
        if (g->n == g->cap) {
            size_t cap = g->cap ? g->cap * 2 : 1024;
            gpu_row *p = realloc(g->rows, cap * sizeof *p);
            if (!p) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
                goto done;
            }
            g->rows = p;
            g->cap = cap;
        }
        gpu_row *gr = &g->rows[g->n];
        gr->count = 1;
        if (!(gr->name = pool_dup(pool, row.cell[PC_PCMP_COL_API_NAME]))) {
            st = pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
            goto done;
        }
        for (int k = 0; k < GPU_KEPT; k++) {
            const char *c = row.cell[gpu_kept[k]];
            gr->cell[k] = c ? pool_dup(pool, c) : NULL;
            if (c && !gr->cell[k]) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
                goto done;
            }
        }
        /* the key borrows the arena's copy of the name */
        pc_strmap_entry *e = pc_strmap_put_hashed(&g->t, gr->name, klen, h, NULL);
        if (!e) {
            st = pc_error_set(PC_ERR_NOMEM, "out of memory reading %s", path);
            goto done;
        }
        e->value.index = g->n++;
    }
done:
    pc_csv_reader_free(r);
    return st;
}

/* ---- writing ---- */

/* An output CSV: its rows go to a fresh temporary beside the final name (io/file_out.h: never
 * through a link, never over an existing file), put in place when the run is done. */
typedef struct out_file {
    char final[4200];
    pc_file_out fo;
    bool bom; /* the BOM is written */
    pc_csv_buffer buf;
} out_file;

static pc_status out_flush(out_file *o, bool force)
{
    if (!force && o->buf.len < (1u << 20))
        return PC_OK;
    bool ok = true;
    if (!o->bom && o->buf.len) {
        ok = fwrite("\xEF\xBB\xBF", 1, 3, o->fo.f) == 3;
        o->bom = true;
    }
    ok = ok && (!o->buf.len || fwrite(o->buf.data, 1, o->buf.len, o->fo.f) == o->buf.len);
    pc_csv_buffer_clear(&o->buf);
    return ok ? PC_OK : pc_error_set(PC_ERR_IO, "%s: cannot write: %s", o->final, strerror(errno));
}

static pc_status out_open(out_file *o, const char *dir, const char *kind, const char *ts)
{
    size_t n = strlen(dir);
    const char *sep = n && dir[n - 1] == '/' ? "" : "/";
    snprintf(o->final, sizeof o->final, "%s%sapi_precision_compare_%s_%s.csv", dir, sep, kind, ts);
    o->bom = false;
    return pc_file_out_open(&o->fo, o->final, 0);
}

/* Empties the temporary for a second pass. */
static pc_status out_restart(out_file *o)
{
    pc_csv_buffer_clear(&o->buf);
    o->bom = false;
    if (fflush(o->fo.f) != 0 || ftruncate(fileno(o->fo.f), 0) != 0 || fseek(o->fo.f, 0, SEEK_SET))
        return pc_error_set(PC_ERR_IO, "%s: cannot write: %s", o->final, strerror(errno));
    return PC_OK;
}

static pc_status write_result_row(out_file *o, const api_entry *e)
{
    const char *fields[4];
    char msg[2048];
    fields[0] = e->name;
    if (e->direct) {
        fields[1] = fields[2] = "SKIP";
        fields[3] = e->message;
    } else if (e->last_skip_dtype) {
        fields[1] = fields[2] = "SKIP";
        fields[3] = "This data type does not support benchmark compare.";
    } else {
        fields[1] = pc_pcmp_agg_result(e->fwd);
        fields[2] = pc_pcmp_agg_result(e->bwd);
        bool topk = strcmp(fields[1], "error") == 0 && strcmp(e->api, "topk") == 0;
        snprintf(msg, sizeof msg, "%s%s",
                 topk ? "在npu上，topk的入参sorted=False时不生效，会返回有序tensor，而cpu上会返"
                        "回无序tensor。 如果topk精度不达标，请检查是否是该原因导致的。"
                      : "",
                 strcmp(fields[1], "SKIP") == 0 && e->message ? e->message : "");
        fields[3] = msg;
    }
    pc_status st = pc_csv_append_text_row(&o->buf, fields, 4);
    if (st == PC_OK)
        st = out_flush(o, false);
    return st;
}

/* The APIs' rows in order, each preceded by the direct rows placed before it (their `before`
 * values never decrease), then the direct rows placed after the last API. */
static pc_status write_result_rows(out_file *o, const api_table *apis, const api_table *directs)
{
    pc_status st = PC_OK;
    size_t d = 0;
    for (size_t i = 0; st == PC_OK && i <= apis->n; i++) {
        while (st == PC_OK && d < directs->n && directs->e[d].before == i)
            st = write_result_row(o, &directs->e[d++]);
        if (st == PC_OK && i < apis->n)
            st = write_result_row(o, &apis->e[i]);
    }
    return st;
}

typedef struct run_state {
    gpu_index gpu;
    api_table apis;    /* one entry per API, in the order APIs first appear */
    api_table directs; /* the direct rows, in the order met (no hash table) */
    /* the last API entry is the API of the last judged row, and its first run of rows is still
     * open: a direct row met now goes before it */
    bool first_run_open;
    strpool pool;
    out_file details, result;
    pc_pcmp_verdict verdict;
    size_t formulas, formula_line; /* cells written defused (pc_csv_cell_runs), the first's line */
} run_state;

/* Counts the cells of a details row that go out defused: a Message or a raw cell of the NPU
 * CSV that a spreadsheet would run (said once at the end). */
static void note_formulas(run_state *s, const pc_csv_reader *r, const pc_pcmp_verdict *v)
{
    for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS; i++)
        if (v->cells[i].kind == PC_CSV_TEXT && v->cells[i].v.text &&
            pc_csv_cell_runs(v->cells[i].v.text) && s->formulas++ == 0)
            s->formula_line = pc_csv_reader_line(r);
}

static pc_status set_skip_msg(api_entry *e, const char *msg)
{
    free((char *)(uintptr_t)e->message); /* a skip_msg (or NULL) */
    e->message = NULL;
    if (!msg)
        return PC_OK;
    e->message = strdup(msg);
    return e->message ? PC_OK : pc_error_set(PC_ERR_NOMEM, "out of memory");
}

static pc_status add_direct(run_state *s, const char *name, const char *msg)
{
    const char *n = pool_dup(&s->pool, name), *m = pool_dup(&s->pool, msg);
    if (!n || !m)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    size_t before = s->first_run_open ? s->apis.n - 1 : s->apis.n;
    return api_push(&s->directs,
                    (api_entry){.name = n, .message = m, .direct = true, .before = before});
}

enum { UNMATCHED_NAMED = 10 };

/* msprobe refuses to write an API name that a spreadsheet would run as a formula. */
static pc_status check_formula(const pc_csv_reader *r, const char *path, const char *name)
{
    if (!pc_csv_formula_like(name))
        return PC_OK;
    return pc_error_set(PC_ERR_FORMAT,
                        "%s:%zu: the API Name '%s' starts with a character that makes it a "
                        "spreadsheet formula; it is not written to the output",
                        path, pc_csv_reader_line(r), name);
}

/* The details row of an NPU row whose name does not split; msg gets its message. */
static pc_status invalid_row(run_state *s, const char *name, char *msg, size_t size)
{
    snprintf(msg, size, "The API name %.1000s is invalid.", name);
    pc_pcmp_verdict *v = &s->verdict;
    for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS; i++)
        v->cells[i] = pc_csv_space();
    v->cells[0] = pc_csv_text(name);
    v->cells[25] = pc_csv_text("SKIP");
    v->cells[27] = pc_csv_text(msg);
    return pc_csv_append_row(&s->details.buf, v->cells, PC_PCMP_DETAILS_COLUMNS, 14);
}

/* One judged row into its API's aggregate. */
static pc_status api_update(api_entry *e, const pc_pcmp_row *npu, const pcmp_name *parts,
                            const pc_pcmp_verdict *v)
{
    const char *dt = npu->cell[PC_PCMP_COL_DEVICE_DTYPE] ? npu->cell[PC_PCMP_COL_DEVICE_DTYPE] : "";
    e->last_skip_dtype = strcmp(dt, "torch.float64") == 0 || strcmp(dt, "torch.complex64") == 0 ||
                         strcmp(dt, "torch.complex128") == 0;
    if (e->last_skip_dtype)
        return PC_OK;
    if (parts->direction_len == 7 && strncmp(parts->direction, "forward", 7) == 0) {
        e->fwd = pc_pcmp_agg_add(e->fwd, v->status);
        const char *m = npu->cell[PC_PCMP_COL_MESSAGE];
        return set_skip_msg(e, strcmp(v->status, "SKIP") == 0 ? (m && *m ? m : "nan") : NULL);
    }
    if (parts->direction_len == 8 && strncmp(parts->direction, "backward", 8) == 0)
        e->bwd = pc_pcmp_agg_add(e->bwd, v->status);
    else
        pc_log_error("The API name %s has neither forward nor backward as its direction.",
                     npu->cell[PC_PCMP_COL_API_NAME]);
    return PC_OK;
}

static pc_status npu_loop(run_state *s, const char *path, pc_pcmp_summary *sum)
{
    pc_csv_reader *r;
    pc_status st = pc_csv_reader_open(path, &r);
    if (st != PC_OK)
        return st;
    columns cols;
    if ((st = read_header(r, "npu_csv", &cols)) != PC_OK)
        goto done;
    bool has;
    while ((st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        pc_pcmp_row npu;
        row_of(r, &cols, &npu);
        sum->npu_rows++;
        const char *name = npu.cell[PC_PCMP_COL_API_NAME];
        if ((st = check_formula(r, path, name)) != PC_OK)
            goto done;
        const pc_strmap_entry *ge = pc_strmap_find(&s->gpu.t, name, strlen(name));
        const gpu_row *g = ge ? &s->gpu.rows[ge->value.index] : NULL;
        pcmp_name parts;
        if (!pc_mcsv_pcmp_name_parse(name, &parts)) {
            char msg[1200];
            if ((st = invalid_row(s, name, msg, sizeof msg)) != PC_OK ||
                (st = add_direct(s, name, msg)) != PC_OK)
                goto done;
            sum->details_rows++;
            continue;
        }
        if (!g) {
            if (sum->unmatched_rows < UNMATCHED_NAMED)
                pc_log_warning("This API : %s does not exist in the GPU data.", name);
            sum->unmatched_rows++;
            continue;
        }
        if (g->count > 1) {
            st = pc_error_set(PC_ERR_INVALID,
                              "This API : %s has multiple records in the GPU data (%zu rows).",
                              name, g->count);
            goto done;
        }
        pc_pcmp_row gpu = {{0}};
        gpu.cell[PC_PCMP_COL_API_NAME] = g->name;
        for (int k = 0; k < GPU_KEPT; k++)
            gpu.cell[gpu_kept[k]] = g->cell[k];
        pc_pcmp_verdict *v = &s->verdict;
        pc_pcmp_judge_row(&npu, &gpu, v);
        note_formulas(s, r, v);
        if ((st = pc_csv_append_row(&s->details.buf, v->cells, PC_PCMP_DETAILS_COLUMNS, 14)) !=
            PC_OK)
            goto done;
        sum->details_rows++;
        if ((st = out_flush(&s->details, false)) != PC_OK)
            goto done;
        if (v->raised) {
            if ((st = add_direct(s, name, v->message)) != PC_OK)
                goto done;
            continue;
        }
        /* the API's entry, made on its first row */
        char full[4096];
        snprintf(full, sizeof full, "%.*s", (int)parts.full_len, name);
        size_t flen = strlen(full);
        uint64_t fh = pc_hash_fnv1a64(full, flen);
        pc_strmap_entry *ae = pc_strmap_find_hashed(&s->apis.t, full, flen, fh);
        bool created = !ae;
        if (created) {
            const char *n = pool_dup(&s->pool, full), *a = pool_dup(&s->pool, parts.api);
            if (!n || !a) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                goto done;
            }
            if ((st = api_push(&s->apis, (api_entry){.name = n, .api = a})) != PC_OK)
                goto done;
            /* the key borrows the arena's copy of the name */
            if (!(ae = pc_strmap_put_hashed(&s->apis.t, n, flen, fh, NULL))) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                goto done;
            }
            ae->value.index = s->apis.n - 1;
        }
        size_t idx = ae->value.index;
        s->first_run_open = created || (s->first_run_open && idx == s->apis.n - 1);
        api_entry *e = &s->apis.e[idx];
        if ((st = api_update(e, &npu, &parts, v)) != PC_OK)
            goto done;
    }
done:
    pc_csv_reader_free(r);
    return st;
}

/* ---- both CSVs in step ---- */

/*
 * Whether an API's rows come in one run, in memory that does not grow with the file: every
 * API opened is tested against and added to a Bloom filter of 2^SEEN_LOG2_BITS bits; a name the
 * filter may have seen becomes a candidate, and the hash of every opened name goes to a temporary
 * file. At the end the file is read once to count the candidates: one opened twice has rows
 * that are not consecutive (a filter's false positive opens once). Too many candidates to
 * check, or no temporary file, and the run is indexed instead, which is exact anyway.
 */
#define SEEN_LOG2_BITS  25 /* 4 MB: about 1e-4 false positives at 1M APIs */
#define SEEN_CANDIDATES 4096

static uint64_t seen_bits = (uint64_t)1 << SEEN_LOG2_BITS;

void pc_pcmp_test_seen_bits(unsigned log2_bits)
{
    seen_bits = (uint64_t)1 << (log2_bits ? log2_bits : SEEN_LOG2_BITS);
}

typedef struct seen_filter {
    uint64_t *bits;
    uint64_t cand[SEEN_CANDIDATES];
    unsigned char opened[SEEN_CANDIDATES]; /* times each candidate opened (stops at 2) */
    size_t ncand;
    FILE *log; /* the hashes of the opened APIs, in order */
    bool failed;
} seen_filter;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9u;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Records that the API of hash h opens; false when the check can no longer be made here. */
static bool seen_open(seen_filter *f, uint64_t h)
{
    if (f->failed)
        return false;
    if (!f->bits) {
        f->bits = calloc(seen_bits / 64 ? seen_bits / 64 : 1, sizeof *f->bits);
        f->log = tmpfile();
        if (!f->bits || !f->log)
            return !(f->failed = true);
    }
    uint64_t a = mix64(h), b = mix64(a) | 1;
    bool all = true;
    for (int k = 0; k < 4; k++) {
        uint64_t bit = (a + (uint64_t)k * b) & (seen_bits - 1);
        all &= (f->bits[bit / 64] >> (bit % 64)) & 1;
        f->bits[bit / 64] |= (uint64_t)1 << (bit % 64);
    }
    if (all) {
        size_t i = 0;
        while (i < f->ncand && f->cand[i] != h)
            i++;
        if (i == f->ncand) {
            if (f->ncand == SEEN_CANDIDATES)
                return !(f->failed = true);
            f->cand[f->ncand++] = h;
        }
    }
    if (fwrite(&h, sizeof h, 1, f->log) != 1)
        return !(f->failed = true);
    return true;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* After the last row: true when every API opened once (its rows were consecutive). */
static bool seen_all_once(seen_filter *f)
{
    if (f->failed)
        return false;
    if (f->ncand == 0)
        return true;
    qsort(f->cand, f->ncand, sizeof f->cand[0], cmp_u64);
    rewind(f->log);
    uint64_t buf[512];
    size_t n;
    while ((n = fread(buf, sizeof buf[0], sizeof buf / sizeof buf[0], f->log)) > 0) {
        for (size_t i = 0; i < n; i++) {
            const uint64_t *c = bsearch(&buf[i], f->cand, f->ncand, sizeof f->cand[0], cmp_u64);
            if (c && ++f->opened[c - f->cand] > 1)
                return false;
        }
    }
    return !ferror(f->log);
}

static void seen_free(seen_filter *f)
{
    free(f->bits);
    if (f->log)
        fclose(f->log);
}

/* The API whose rows are being read. */
typedef struct open_api {
    bool open;
    char name[4096];
    char api[256];
    api_entry e;
} open_api;

static pc_status close_api(run_state *s, open_api *o, pc_pcmp_summary *sum)
{
    if (!o->open)
        return PC_OK;
    o->open = false;
    pc_status st = write_result_row(&s->result, &o->e);
    sum->result_rows++;
    set_skip_msg(&o->e, NULL);
    return st;
}

static pc_status direct_result(run_state *s, const char *name, const char *msg,
                               pc_pcmp_summary *sum)
{
    api_entry e = {.name = name, .message = msg, .direct = true};
    sum->result_rows++;
    return write_result_row(&s->result, &e);
}

/*
 * The streaming pass: row i of the NPU CSV is judged against row i of the GPU CSV, and an API's
 * result row is written when its last row has been read. *fallback is set (and the pass stops)
 * at the first row where the files do not follow each other, or where an API's rows turn out
 * not to be consecutive; the outputs written so far must then be discarded.
 */
static pc_status stream_pass(run_state *s, const pc_pcmp_options *opt, pc_pcmp_summary *sum,
                             bool *fallback)
{
    *fallback = false;
    pc_csv_reader *r = NULL, *g = NULL;
    columns cols, gcols;
    seen_filter *seen = calloc(1, sizeof *seen);
    open_api *cur = calloc(1, sizeof *cur);
    pc_status st = cur && seen ? PC_OK : pc_error_set(PC_ERR_NOMEM, "out of memory");
    if (st == PC_OK)
        st = pc_csv_reader_open(opt->npu_path, &r);
    if (st == PC_OK)
        st = read_header(r, "npu_csv", &cols);
    if (st == PC_OK)
        st = pc_csv_reader_open(opt->gpu_path, &g);
    if (st == PC_OK)
        st = read_header(g, "gpu_csv", &gcols);
    bool has = false, gpu_pending = false, gpu_end = false;
    while (st == PC_OK && (st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        pc_pcmp_row npu;
        row_of(r, &cols, &npu);
        sum->npu_rows++;
        const char *name = npu.cell[PC_PCMP_COL_API_NAME];
        if ((st = check_formula(r, opt->npu_path, name)) != PC_OK)
            break;
        if (!gpu_pending && !gpu_end) {
            bool gh = false;
            if ((st = pc_csv_reader_next(g, &gh)) != PC_OK)
                break;
            gpu_pending = gh;
            gpu_end = !gh;
            sum->gpu_rows += gh;
        }
        pc_pcmp_row gpu;
        if (gpu_pending)
            row_of(g, &gcols, &gpu);
        bool same = gpu_pending && strcmp(gpu.cell[PC_PCMP_COL_API_NAME], name) == 0;
        pcmp_name parts;
        if (!pc_mcsv_pcmp_name_parse(name, &parts)) {
            char msg[1200];
            gpu_pending = gpu_pending && !same;
            if ((st = invalid_row(s, name, msg, sizeof msg)) == PC_OK)
                st = direct_result(s, name, msg, sum);
            sum->details_rows++;
            continue;
        }
        if (!same) {
            *fallback = true;
            break;
        }
        pc_pcmp_verdict *v = &s->verdict;
        pc_pcmp_judge_row(&npu, &gpu, v);
        note_formulas(s, r, v);
        gpu_pending = false;
        if ((st = pc_csv_append_row(&s->details.buf, v->cells, PC_PCMP_DETAILS_COLUMNS, 14)) !=
                PC_OK ||
            (st = out_flush(&s->details, false)) != PC_OK)
            break;
        sum->details_rows++;
        if (v->raised) { /* written now, ahead of the open API's row (msprobe's order) */
            st = direct_result(s, name, v->message, sum);
            continue;
        }
        if (!cur->open || strlen(cur->name) != parts.full_len ||
            strncmp(cur->name, name, parts.full_len) != 0) {
            if ((st = close_api(s, cur, sum)) != PC_OK)
                break;
            if (parts.full_len >= sizeof cur->name) {
                *fallback = true;
                break;
            }
            memcpy(cur->name, name, parts.full_len);
            cur->name[parts.full_len] = 0;
            if (!seen_open(seen, pc_hash_fnv1a64_str(cur->name))) { /* cannot be checked here */
                *fallback = true;
                break;
            }
            snprintf(cur->api, sizeof cur->api, "%s", parts.api);
            cur->e = (api_entry){.name = cur->name, .api = cur->api};
            cur->open = true;
        }
        st = api_update(&cur->e, &npu, &parts, v);
    }
    if (st == PC_OK && !*fallback) {
        bool gh = gpu_pending;
        if (!gh && !gpu_end)
            st = pc_csv_reader_next(g, &gh);
        if (gh) /* GPU rows without NPU rows: the index decides what they change */
            *fallback = true;
        else if (st == PC_OK)
            st = close_api(s, cur, sum);
    }
    if (cur)
        set_skip_msg(&cur->e, NULL);
    free(cur);
    if (st == PC_OK && !*fallback && !seen_all_once(seen))
        *fallback = true; /* an API's rows are not consecutive */
    if (seen)
        seen_free(seen);
    free(seen);
    pc_csv_reader_free(r);
    pc_csv_reader_free(g);
    return st;
}

/* Forgets what a pass wrote: empty outputs with their headers again. */
static pc_status restart_outputs(run_state *s, pc_pcmp_summary *sum)
{
    pc_status st = out_restart(&s->details);
    if (st == PC_OK)
        st = out_restart(&s->result);
    if (st != PC_OK)
        return st;
    sum->npu_rows = sum->gpu_rows = sum->details_rows = sum->result_rows = 0;
    sum->unmatched_rows = 0;
    s->formulas = 0;
    st = pc_csv_append_text_row(&s->result.buf, pc_pcmp_result_header(), 4);
    if (st == PC_OK)
        st = pc_csv_append_text_row(&s->details.buf, pc_pcmp_details_header(),
                                    PC_PCMP_DETAILS_COLUMNS);
    return st;
}

pc_status pc_pcmp_run(const pc_pcmp_options *opt, pc_pcmp_summary *summary)
{
    pc_pcmp_summary local;
    pc_pcmp_summary *sum = summary ? summary : &local;
    memset(sum, 0, sizeof *sum);
    if (!opt || !opt->npu_path || !opt->gpu_path)
        return pc_error_set(PC_ERR_INVALID, "api_precision_compare needs -npu and -gpu");
    char ts[32];
    if (opt->timestamp) {
        snprintf(ts, sizeof ts, "%s", opt->timestamp);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(ts, sizeof ts, "%Y%m%d%H%M%S", &tm);
    }
    run_state *s = calloc(1, sizeof *s);
    if (!s)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_arena_init(&s->pool, 64 * 1024, 0); /* names and cells: small chunks */
    const char *dir = opt->out_dir ? opt->out_dir : "./";
    pc_status st;
    /* both headers first, as msprobe checks both before it writes anything */
    const char *paths[2] = {opt->npu_path, opt->gpu_path}, *which[2] = {"npu_csv", "gpu_csv"};
    for (int k = 0; k < 2; k++) {
        pc_csv_reader *r;
        columns cols;
        if ((st = pc_csv_reader_open(paths[k], &r)) != PC_OK)
            goto done;
        st = read_header(r, which[k], &cols);
        pc_csv_reader_free(r);
        if (st != PC_OK)
            goto done;
    }
    if ((st = out_open(&s->details, dir, "details", ts)) != PC_OK ||
        (st = out_open(&s->result, dir, "result", ts)) != PC_OK)
        goto done;
    if ((st = restart_outputs(s, sum)) != PC_OK)
        goto done;
    bool fallback = false;
    if ((st = stream_pass(s, opt, sum, &fallback)) != PC_OK)
        goto done;
    sum->streamed = !fallback;
    if (fallback) {
        pc_log_debug("api_precision_compare: the GPU rows do not follow the NPU rows one for one "
                     "(row %zu); indexing the GPU CSV",
                     sum->npu_rows);
        if ((st = restart_outputs(s, sum)) != PC_OK ||
            (st = gpu_load(opt->gpu_path, &s->gpu, &s->pool, &sum->gpu_rows)) != PC_OK ||
            (st = npu_loop(s, opt->npu_path, sum)) != PC_OK)
            goto done;
        if (sum->unmatched_rows)
            pc_log_warning(
                "%zu NPU row(s) have no row of the same API Name in the GPU CSV and "
                "were skipped%s.",
                sum->unmatched_rows,
                sum->unmatched_rows > UNMATCHED_NAMED ? " (the first ones are named above)" : "");
        if ((st = write_result_rows(&s->result, &s->apis, &s->directs)) != PC_OK)
            goto done;
        sum->result_rows = s->apis.n + s->directs.n;
    }
    /* two CSVs of different dumps: msprobe would judge the few names they share and report
     * success; precheck refuses when most NPU rows find no GPU row */
    if (sum->npu_rows > 0 && sum->unmatched_rows * 2 > sum->npu_rows &&
        opt->allow_different_dumps) {
        pc_log_warning("--allow-different-dumps: %zu of %zu NPU rows have no GPU row of the same "
                       "API name; only the others are judged.",
                       sum->unmatched_rows, sum->npu_rows);
    } else if (sum->npu_rows > 0 && sum->unmatched_rows * 2 > sum->npu_rows) {
        st = pc_error_set(PC_ERR_INVALID,
                          "the NPU and GPU CSVs do not look like run_ut runs of the same dump: "
                          "%zu of %zu NPU rows have no GPU row of the same API name (more than "
                          "half is refused). -npu and -gpu must be the details CSVs of run_ut on "
                          "the same dump.json, on the NPU machine and on the GPU machine "
                          "(--allow-different-dumps judges the rows they share).",
                          sum->unmatched_rows, sum->npu_rows);
        goto done;
    }
    if (s->formulas)
        pc_log_warning("%zu cell(s) of %s would run as spreadsheet formulas (the first on line "
                       "%zu): written with a ' in front, as every cell precheck writes "
                       "(docs/msprobe-contract.md#formats).",
                       s->formulas, opt->npu_path, s->formula_line);
    if ((st = out_flush(&s->details, true)) != PC_OK || (st = out_flush(&s->result, true)) != PC_OK)
        goto done;
    /* details first: a result CSV in place means its details are too */
    if ((st = pc_file_out_commit(&s->details.fo)) != PC_OK)
        goto done;
    if ((st = pc_file_out_commit(&s->result.fo)) != PC_OK) {
        unlink(s->details.fo.path);
        goto done;
    }
    snprintf(sum->details_path, sizeof sum->details_path, "%s", s->details.final);
    snprintf(sum->result_path, sizeof sum->result_path, "%s", s->result.final);
done:
    pc_file_out_free(&s->details.fo); /* a temporary not put in place is removed */
    pc_file_out_free(&s->result.fo);
    for (size_t i = 0; i < s->apis.n; i++)
        free((char *)(uintptr_t)s->apis.e[i].message);
    free(s->apis.e);
    free(s->directs.e);
    pc_strmap_free(&s->apis.t);
    free(s->gpu.rows);
    pc_strmap_free(&s->gpu.t);
    pc_arena_free(&s->pool);
    pc_csv_buffer_free(&s->details.buf);
    pc_csv_buffer_free(&s->result.buf);
    free(s);
    return st;
}
