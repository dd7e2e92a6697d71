/*
 * The end of api_precision_compare, for people and for programs: how many APIs got each
 * verdict, then each row in error (or warning) with the standard that judged it, the checks
 * that failed, their values and the NPU and GPU figures side by side -- and one line where the
 * NPU and GPU rows are identical and msprobe's rule still says error ("rule, not device":
 * docs/glossary.md; such rows come after the real NPU/GPU differences). The same goes into
 * api_precision_compare_summary_<ts>.json (kind "api_precision_compare", docs/summary-json.md),
 * written as io/file_out.h writes every whole file: never through a link, never over an
 * existing file.
 *
 * It streams what the run wrote (its result and details CSVs) and its two inputs (the NPU and
 * GPU run_ut details CSVs), keeping only the failed rows, so that memory stays small for
 * millions of rows, as the comparison's own does.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck/core/log.h"
#include "precheck/io/csv_read.h"
#include "precheck/io/file_out.h"
#include "precheck/io/msprobe_csv.h"
#include "precheck/io/json_write.h"
#include "precheck/report/pcmp_report.h"

/* A check of the pcmp details CSV (its value column; the verdict is the next column) and the
 * run_ut details column its NPU and GPU figures come from (io/msprobe_csv.h). */
static const struct {
    size_t column; /* of api_precision_compare's details CSV */
    const char *english;
    pc_mcsv_details_col source;
} checks[] = {
    {1, "small-value error ratio, NPU/GPU", PC_MCSV_DET_SMALL_VALUE},
    {3, "root mean square error, NPU/GPU", PC_MCSV_DET_RMSE},
    {5, "max relative error, NPU/GPU", PC_MCSV_DET_MAX_REL},
    {7, "mean relative error, NPU/GPU", PC_MCSV_DET_MEAN_REL},
    {9, "error balance, NPU/GPU", PC_MCSV_DET_EB},
    {11, "inf/nan mismatch rate", PC_MCSV_DET_INF_NAN},
    {13, "relative error rate", PC_MCSV_DET_REL_ERR},
    {15, "absolute error rate", PC_MCSV_DET_ABS_ERR},
    {17, "binary mismatch rate", PC_MCSV_DET_BINARY},
    {21, "share of ULP errors above the threshold, NPU/GPU", PC_MCSV_DET_ULP_PROP},
    {23, "share of relative errors within 0.1%", PC_MCSV_DET_THOUSANDTH},
};
enum { CHECKS = sizeof checks / sizeof checks[0] };

static const char *check_column(size_t k)
{
    return pc_mcsv_column(PC_MCSV_PCMP_DETAILS, checks[k].column);
}

static const char *check_source(size_t k)
{
    return pc_mcsv_column(PC_MCSV_DETAILS, (size_t)checks[k].source);
}

static const struct {
    const char *msprobe, *english;
} algorithms[] = {
    {"二进制一致法", "binary consistency"},   {"标杆比对法", "benchmark"},
    {"ULP误差比对法", "ULP error"},           {"绝对阈值法", "absolute threshold"},
    {"双千指标法", "thousandth (dual 0.1%)"},
};

/* A figure of the CSV as the log shows it: a finite number with 6 significant digits (the CSV's
 * 48.00000000000000 is 48, 0.18750000000000 is 0.1875), anything else as it is. */
static const char *log_figure(const char *cell, char *buf, size_t size)
{
    if (!cell || !*cell)
        return cell ? cell : "?";
    char *end;
    double v = strtod(cell, &end);
    if (end == cell || *end || !isfinite(v))
        return cell; /* inf and nan as the CSV spells them */
    snprintf(buf, size, "%.6g", v);
    return buf;
}

static const char *algorithm_english(const char *a)
{
    for (size_t i = 0; i < sizeof algorithms / sizeof algorithms[0]; i++)
        if (strcmp(a, algorithms[i].msprobe) == 0)
            return algorithms[i].english;
    return a;
}

enum { V_PASS, V_WARNING, V_ERROR, V_SKIP, V_SPACE, V_OTHER, V_COUNT };
static const char *const verdict_names[V_COUNT] = {"pass", "warning",      "error",
                                                   "SKIP", "not compared", "other"};

static int verdict_of(const char *s)
{
    if (strcmp(s, "pass") == 0)
        return V_PASS;
    if (strcmp(s, "warning") == 0 || strcmp(s, "Warning") == 0)
        return V_WARNING;
    if (strcmp(s, "error") == 0)
        return V_ERROR;
    if (strcmp(s, "SKIP") == 0)
        return V_SKIP;
    if (strcmp(s, " ") == 0 || !*s)
        return V_SPACE;
    return V_OTHER;
}

/* ---- the failed rows ---- */

typedef struct failed_check {
    int k;       /* into checks[] */
    char *value; /* the pcmp cell */
    char *npu;   /* the NPU run_ut cell, NULL until found */
    char *gpu;
} failed_check;

typedef struct failed_row {
    char *name, *verdict, *algorithm;
    failed_check checks[CHECKS];
    int nchecks;
    char **npu_cells, **gpu_cells; /* the whole NPU/GPU rows, for "identical" */
    size_t npu_n, gpu_n;
    bool rule; /* "rule, not device": the NPU and GPU rows are identical (set after the inputs) */
} failed_row;

typedef struct failed_list {
    failed_row *rows; /* sorted by name after the details pass */
    size_t n, cap;
} failed_list;

static char *field_dup(const pc_csv_reader *r, size_t i)
{
    size_t len = 0;
    const char *f = i < pc_csv_reader_field_count(r) ? pc_csv_reader_field(r, i, &len) : "";
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, f, len);
        c[len] = 0;
    }
    return c;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const failed_row *)a)->name, ((const failed_row *)b)->name);
}

static failed_row *find_failed(failed_list *l, const char *name)
{
    failed_row key = {.name = (char *)(uintptr_t)name}; /* a search key: only read */
    return bsearch(&key, l->rows, l->n, sizeof *l->rows, by_name);
}

static void free_cells(char **cells, size_t n)
{
    for (size_t i = 0; cells && i < n; i++)
        free(cells[i]);
    free(cells);
}

static void failed_free(failed_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        failed_row *f = &l->rows[i];
        free(f->name);
        free(f->verdict);
        free(f->algorithm);
        for (int k = 0; k < f->nchecks; k++) {
            free(f->checks[k].value);
            free(f->checks[k].npu);
            free(f->checks[k].gpu);
        }
        free_cells(f->npu_cells, f->npu_n);
        free_cells(f->gpu_cells, f->gpu_n);
    }
    free(l->rows);
    memset(l, 0, sizeof *l);
}

static int header_index(char **header, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (header[i] && strcmp(header[i], name) == 0)
            return (int)i;
    return -1;
}

/* Reads a CSV's header into *out (malloc'ed strings). */
static pc_status read_header(pc_csv_reader *r, char ***out, size_t *n)
{
    bool has = false;
    pc_status st = pc_csv_reader_next(r, &has);
    if (st != PC_OK || !has)
        return st == PC_OK ? pc_error_set(PC_ERR_FORMAT, "%s: empty", pc_csv_reader_name(r)) : st;
    *n = pc_csv_reader_field_count(r);
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < *n; i++)
        if (!((*out)[i] = field_dup(r, i)))
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
    return PC_OK;
}

/* The details pass: every row in error or warning, with its failed checks. */
static pc_status collect_failed(const char *path, failed_list *l)
{
    pc_csv_reader *r = NULL;
    char **h = NULL;
    size_t nh = 0;
    pc_status st = pc_csv_reader_open(path, &r);
    if (st == PC_OK)
        st = read_header(r, &h, &nh);
    int vcol =
            h ? header_index(h, nh, pc_mcsv_column(PC_MCSV_PCMP_DETAILS, PC_MCSV_PCMP_DET_RESULT))
              : -1,
        acol = h ? header_index(h, nh,
                                pc_mcsv_column(PC_MCSV_PCMP_DETAILS, PC_MCSV_PCMP_DET_ALGORITHM))
                 : -1;
    int ccol[CHECKS];
    for (size_t k = 0; k < CHECKS; k++)
        ccol[k] = h ? header_index(h, nh, check_column(k)) : -1;
    bool has = false;
    while (st == PC_OK && (st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        const char *v = vcol >= 0 && (size_t)vcol < pc_csv_reader_field_count(r)
                            ? pc_csv_reader_field(r, (size_t)vcol, NULL)
                            : "";
        int verdict = verdict_of(v);
        if (verdict != V_ERROR && verdict != V_WARNING)
            continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? 2 * l->cap : 64;
            failed_row *rows = realloc(l->rows, cap * sizeof *rows);
            if (!rows) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                break;
            }
            l->rows = rows;
            l->cap = cap;
        }
        failed_row *f = &l->rows[l->n++];
        memset(f, 0, sizeof *f);
        f->name = field_dup(r, 0);
        f->verdict = field_dup(r, (size_t)vcol);
        f->algorithm = acol >= 0 ? field_dup(r, (size_t)acol) : field_dup(r, (size_t)-1);
        for (size_t k = 0; k < CHECKS; k++) {
            if (ccol[k] < 0)
                continue;
            size_t c = (size_t)ccol[k];
            const char *cv =
                c + 1 < pc_csv_reader_field_count(r) ? pc_csv_reader_field(r, c + 1, NULL) : "";
            int cverdict = verdict_of(cv);
            if (cverdict != V_ERROR && cverdict != V_WARNING)
                continue;
            f->checks[f->nchecks].k = (int)k;
            f->checks[f->nchecks++].value = field_dup(r, c);
        }
        if (!f->name || !f->verdict || !f->algorithm)
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    free_cells(h, nh);
    pc_csv_reader_free(r);
    if (st == PC_OK && l->n > 1)
        qsort(l->rows, l->n, sizeof *l->rows, by_name);
    return st;
}

/* An input pass (npu: the NPU run_ut details, else the GPU's): the failed rows' figures. */
static pc_status collect_inputs(const char *path, failed_list *l, bool npu)
{
    pc_csv_reader *r = NULL;
    char **h = NULL;
    size_t nh = 0;
    pc_status st = pc_csv_reader_open(path, &r);
    if (st == PC_OK)
        st = read_header(r, &h, &nh);
    bool has = false;
    while (st == PC_OK && (st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        failed_row *f = find_failed(l, pc_csv_reader_field(r, 0, NULL));
        if (!f)
            continue;
        size_t n = pc_csv_reader_field_count(r);
        char **cells = calloc(n ? n : 1, sizeof *cells);
        for (size_t i = 0; cells && i < n; i++)
            cells[i] = field_dup(r, i);
        if (!cells) {
            st = pc_error_set(PC_ERR_NOMEM, "out of memory");
            break;
        }
        free_cells(npu ? f->npu_cells : f->gpu_cells, npu ? f->npu_n : f->gpu_n);
        if (npu)
            f->npu_cells = cells, f->npu_n = n;
        else
            f->gpu_cells = cells, f->gpu_n = n;
        for (int k = 0; k < f->nchecks; k++) {
            int c = header_index(h, nh, check_source((size_t)f->checks[k].k));
            char **slot = npu ? &f->checks[k].npu : &f->checks[k].gpu;
            free(*slot);
            *slot = c >= 0 && (size_t)c < n ? field_dup(r, (size_t)c) : NULL;
        }
    }
    free_cells(h, nh);
    pc_csv_reader_free(r);
    return st;
}

/* The NPU and GPU rows hold the same metric cells (dtypes, shape and metrics; not status or
 * message, the last two columns). */
static bool identical(const failed_row *f)
{
    if (!f->npu_cells || !f->gpu_cells || f->npu_n != f->gpu_n || f->npu_n < 3)
        return false;
    for (size_t i = 1; i + 2 < f->npu_n; i++)
        if (strcmp(f->npu_cells[i], f->gpu_cells[i]) != 0)
            return false;
    return true;
}

/* Real NPU/GPU differences first, then the rows the rule alone fails; by name within each. */
static int by_cause(const void *a, const void *b)
{
    const failed_row *x = a, *y = b;
    if (x->rule != y->rule)
        return x->rule ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Marks the rows whose verdict is the rule's, not the devices', and puts them last; returns how
 * many. The list is no longer sorted by name for find_failed afterwards. */
static size_t rank_by_cause(failed_list *l)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->rows[i].rule = identical(&l->rows[i]);
    if (n && l->n > 1)
        qsort(l->rows, l->n, sizeof *l->rows, by_cause);
    return n;
}

/* A string member of the summary ("" for none). */
static void json_member(pc_json_writer *w, const char *key, const char *value)
{
    pc_json_write_keyz(w, key);
    pc_json_write_stringz(w, value ? value : "");
}

static void json_counts(pc_json_writer *w, const size_t *c, bool backward)
{
    pc_json_write_begin_object_inline(w);
    for (int v = 0; v < V_COUNT; v++)
        if (v != V_OTHER && (backward || v != V_SPACE)) {
            pc_json_write_keyz(w, verdict_names[v]);
            pc_json_write_int(w, (int64_t)c[v]);
        }
    pc_json_write_end_object(w);
}

pc_status pc_pcmp_report(const pc_pcmp_report_in *in, pc_fail_level fail_on, bool *fails)
{
    *fails = false;
    failed_list l = {0};
    size_t fwd[V_COUNT] = {0}, bwd[V_COUNT] = {0}, apis = 0;
    pc_file_out jo = {0};
    pc_json_writer jwriter, *jw = NULL; /* the summary for programs, when asked for */
    pc_csv_reader *r = NULL;
    pc_status st = collect_failed(in->details_csv, &l);
    if (st == PC_OK && l.n && in->npu_csv && in->gpu_csv &&
        (collect_inputs(in->npu_csv, &l, true) != PC_OK ||
         collect_inputs(in->gpu_csv, &l, false) != PC_OK))
        pc_log_warning("the NPU and GPU figures are left out of the summary: %s",
                       pc_error_message());
    size_t rule_rows = st == PC_OK ? rank_by_cause(&l) : 0;
    if (st == PC_OK && in->json_path) {
        if (pc_file_out_open(&jo, in->json_path, 0) == PC_OK) {
            jw = &jwriter;
            pc_json_writer_init(jw, jo.f, 2, PC_JSON_FINAL_NEWLINE);
        } else
            pc_log_warning("no summary for programs: %s", pc_error_message());
    }
    if (jw) {
        pc_json_write_begin_object(jw);
        json_member(jw, "schema", "precheck-summary");
        pc_json_write_keyz(jw, "version");
        pc_json_write_int(jw, 1);
        json_member(jw, "kind", "api_precision_compare");
        pc_json_write_keyz(jw, "run");
        pc_json_write_begin_object_inline(jw);
        json_member(jw, "command", in->command);
        json_member(jw, "npu_csv", in->npu_csv);
        json_member(jw, "gpu_csv", in->gpu_csv);
        json_member(jw, "result_csv", in->result_csv);
        json_member(jw, "details_csv", in->details_csv);
        if (in->started)
            json_member(jw, "started", in->started);
        if (in->seconds >= 0) {
            pc_json_write_keyz(jw, "seconds");
            pc_json_write_double(jw, in->seconds);
        }
        pc_json_write_end_object(jw);
        pc_json_write_keyz(jw, "apis");
        pc_json_write_begin_array(jw);
    }
    /* the result pass: counts, and the per-API list streamed into the JSON */
    bool has = false;
    if (st == PC_OK)
        st = pc_csv_reader_open(in->result_csv, &r);
    if (st == PC_OK)
        st = pc_csv_reader_next(r, &has); /* the header */
    while (st == PC_OK && (st = pc_csv_reader_next(r, &has)) == PC_OK && has) {
        size_t n = pc_csv_reader_field_count(r);
        const char *f1 = n > 1 ? pc_csv_reader_field(r, 1, NULL) : "";
        const char *f2 = n > 2 ? pc_csv_reader_field(r, 2, NULL) : "";
        fwd[verdict_of(f1)]++;
        bwd[verdict_of(f2)]++;
        if (jw) {
            pc_json_write_begin_object_inline(jw);
            json_member(jw, "name", pc_csv_reader_field(r, 0, NULL));
            json_member(jw, "forward", f1);
            json_member(jw, "backward", f2);
            pc_json_write_end_object(jw);
        }
        apis++;
    }
    pc_csv_reader_free(r);
    if (st != PC_OK)
        goto done;

    pc_log_info("Summary of api_precision_compare: %zu API(s)", apis);
    pc_log_info("  forward:  pass %zu, warning %zu, error %zu, SKIP %zu", fwd[V_PASS],
                fwd[V_WARNING], fwd[V_ERROR], fwd[V_SKIP]);
    pc_log_info("  backward: pass %zu, warning %zu, error %zu, SKIP %zu, not compared %zu",
                bwd[V_PASS], bwd[V_WARNING], bwd[V_ERROR], bwd[V_SKIP], bwd[V_SPACE]);
    if (l.n)
        pc_log_info("  rows in error or warning (the standard, the checks that failed, NPU and GPU "
                    "figures):");
    if (jw) {
        pc_json_write_end_array(jw);
        pc_json_write_keyz(jw, "rows_failed");
        pc_json_write_begin_array(jw);
    }
    for (size_t i = 0; i < l.n; i++) {
        const failed_row *f = &l.rows[i];
        bool same = f->rule;
        if (same && (i == 0 || !l.rows[i - 1].rule))
            pc_log_info("  rows the rule fails, not the device (the NPU and GPU rows are "
                        "identical): %zu",
                        rule_rows);
        char line[2048];
        int used = snprintf(line, sizeof line, "%s  %s  %s:", f->name, f->verdict,
                            algorithm_english(f->algorithm));
        for (int k = 0; k < f->nchecks && used > 0 && (size_t)used < sizeof line; k++) {
            const failed_check *c = &f->checks[k];
            char value[32], npu[32], gpu[32];
            used +=
                snprintf(line + used, sizeof line - (size_t)used, "%s %s %s (%s: NPU %s, GPU %s)",
                         k ? ";" : "", checks[c->k].english,
                         log_figure(c->value, value, sizeof value), check_source((size_t)c->k),
                         log_figure(c->npu, npu, sizeof npu), log_figure(c->gpu, gpu, sizeof gpu));
        }
        pc_log_info("    %s", line);
        if (same)
            pc_log_info("      the NPU and GPU rows of %s are identical, and msprobe's rule still "
                        "says %s: the verdict comes from the standard's rule, not from a "
                        "difference between the devices",
                        f->name, f->verdict);
        if (!jw)
            continue;
        pc_json_write_begin_object_inline(jw);
        json_member(jw, "row", f->name);
        json_member(jw, "verdict", f->verdict);
        json_member(jw, "standard", algorithm_english(f->algorithm));
        pc_json_write_keyz(jw, "npu_gpu_identical");
        pc_json_write_bool(jw, same);
        json_member(jw, "cause", same ? "rule, not device" : "NPU/GPU difference");
        pc_json_write_keyz(jw, "checks");
        pc_json_write_begin_array(jw);
        for (int k = 0; k < f->nchecks; k++) {
            const failed_check *c = &f->checks[k];
            pc_json_write_begin_object(jw);
            json_member(jw, "check", checks[c->k].english);
            json_member(jw, "column", check_column((size_t)c->k));
            json_member(jw, "value", c->value);
            json_member(jw, "npu", c->npu);
            json_member(jw, "gpu", c->gpu);
            pc_json_write_end_object(jw);
        }
        pc_json_write_end_array(jw);
        pc_json_write_end_object(jw);
    }
    if (jw) {
        pc_json_write_end_array(jw);
        pc_json_write_keyz(jw, "rows_rule_not_device");
        pc_json_write_int(jw, (int64_t)rule_rows);
        pc_json_write_keyz(jw, "counts");
        pc_json_write_begin_object_inline(jw);
        pc_json_write_keyz(jw, "forward");
        json_counts(jw, fwd, false);
        pc_json_write_keyz(jw, "backward");
        json_counts(jw, bwd, true);
        pc_json_write_end_object(jw);
        pc_json_write_end_object(jw);
        if (pc_json_writer_finish(jw) != PC_OK) {
            pc_log_warning("no summary for programs: %s", pc_error_message());
        } else if (pc_file_out_commit(&jo) != PC_OK) {
            pc_log_warning("no summary for programs: %s", pc_error_message());
        } else {
            pc_log_info("  summary for programs: %s", in->json_path);
        }
    }
    *fails = (fail_on != PC_FAIL_NEVER && (fwd[V_ERROR] || bwd[V_ERROR])) ||
             (fail_on == PC_FAIL_WARNING && (fwd[V_WARNING] || bwd[V_WARNING]));
done:
    pc_file_out_free(&jo);
    failed_free(&l);
    return st;
}
