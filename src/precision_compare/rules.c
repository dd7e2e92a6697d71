/*
 * The per-row verdict of api_precision_compare and the per-API aggregation
 * (docs/msprobe-contract.md#precision-compare). Cells arrive as the text of the CSV; numbers are
 * parsed the way msprobe gets them (pandas NA words, then Python float()).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/compare/standard.h"
#include "precheck/io/msprobe_csv.h"
#include "precheck/precision_compare/precision_compare.h"
#include "precision_compare/pcmp_impl.h"

/* The run_ut details columns read (io/msprobe_csv.h). */
static const pc_mcsv_details_col input_cols[PC_PCMP_COL_COUNT] = {
    [PC_PCMP_COL_API_NAME] = PC_MCSV_DET_API_NAME,
    [PC_PCMP_COL_DEVICE_DTYPE] = PC_MCSV_DET_DEVICE_DTYPE,
    [PC_PCMP_COL_SMALL_VALUE] = PC_MCSV_DET_SMALL_VALUE,
    [PC_PCMP_COL_RMSE] = PC_MCSV_DET_RMSE,
    [PC_PCMP_COL_MAX_REL] = PC_MCSV_DET_MAX_REL,
    [PC_PCMP_COL_MEAN_REL] = PC_MCSV_DET_MEAN_REL,
    [PC_PCMP_COL_EB] = PC_MCSV_DET_EB,
    [PC_PCMP_COL_BINARY] = PC_MCSV_DET_BINARY,
    [PC_PCMP_COL_INF_NAN] = PC_MCSV_DET_INF_NAN,
    [PC_PCMP_COL_REL_ERR] = PC_MCSV_DET_REL_ERR,
    [PC_PCMP_COL_ABS_ERR] = PC_MCSV_DET_ABS_ERR,
    [PC_PCMP_COL_ULP_MEAN] = PC_MCSV_DET_ULP_MEAN,
    [PC_PCMP_COL_ULP_PROP] = PC_MCSV_DET_ULP_PROP,
    [PC_PCMP_COL_THOUSANDTH] = PC_MCSV_DET_THOUSANDTH,
    [PC_PCMP_COL_SHAPE] = PC_MCSV_DET_SHAPE,
    [PC_PCMP_COL_MESSAGE] = PC_MCSV_DET_MESSAGE,
};

const char *pc_pcmp_col_name(pc_pcmp_col col)
{
    return (unsigned)col < PC_PCMP_COL_COUNT ? pc_mcsv_column(PC_MCSV_DETAILS, input_cols[col])
                                             : "";
}

/* Output columns. */
enum {
    OUT_NAME = 0,
    OUT_SMALL = 1, /* ratio, then status, for the five benchmark metrics: 1..10 */
    OUT_INF_NAN = 11,
    OUT_REL_ERR = 13,
    OUT_ABS_ERR = 15,
    OUT_BINARY = 17,
    OUT_ULP_MEAN = 19,
    OUT_ULP_PROP = 20,
    OUT_ULP_RATIO = 21,
    OUT_ULP_STATUS = 22,
    OUT_THOUSANDTH = 23,
    OUT_RESULT = 25,
    OUT_ALGORITHM = 26,
    OUT_MESSAGE = 27,
};
_Static_assert(OUT_MESSAGE + 1 == PC_PCMP_DETAILS_COLUMNS, "28 details columns");

_Static_assert(PC_PCMP_DETAILS_COLUMNS == PC_MCSV_PCMP_DETAILS_COLUMNS, "pcmp details columns");
_Static_assert(OUT_RESULT == PC_MCSV_PCMP_DET_RESULT && OUT_ALGORITHM == PC_MCSV_PCMP_DET_ALGORITHM,
               "pcmp details: verdict and algorithm columns");

/* The headers are msprobe's (io/msprobe_csv.h). */
const char *const *pc_pcmp_details_header(void)
{
    return pc_mcsv_header(PC_MCSV_PCMP_DETAILS, NULL);
}

const char *const *pc_pcmp_result_header(void)
{
    return pc_mcsv_header(PC_MCSV_PCMP_RESULT, NULL);
}

static const char PASS[] = "pass", ERROR[] = "error", SKIP[] = "SKIP";

/* ---- cell parsing ---- */

static bool is_na_word(const char *s)
{
    static const char *const na[] = {"",         "#N/A", "#N/A N/A", "#NA",    "-1.#IND",
                                     "-1.#QNAN", "-NaN", "-nan",     "1.#IND", "1.#QNAN",
                                     "<NA>",     "N/A",  "NA",       "NULL",   "NaN",
                                     "None",     "n/a",  "nan",      "null"};
    for (size_t i = 0; i < sizeof na / sizeof na[0]; i++)
        if (strcmp(s, na[i]) == 0)
            return true;
    return false;
}

static bool is_blank(const char *s)
{
    if (!s)
        return true;
    for (; *s; s++)
        if (!isspace((unsigned char)*s))
            return false;
    return true;
}

/* A cell copied as read: pandas turned NA words into NaN, which csv writes as "nan". */
static const char *as_read(const char *s)
{
    return (!s || is_na_word(s)) ? "nan" : s;
}

static bool word_at(const char *p, size_t n, const char *w)
{
    if (strlen(w) != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)p[i]) != w[i])
            return false;
    return true;
}

/* Python float() literal syntax (without underscores) on [p, p+n). */
static bool python_float_syntax(const char *p, size_t n)
{
    size_t i = 0;
    if (i < n && (p[i] == '+' || p[i] == '-'))
        i++;
    if (word_at(p + i, n - i, "inf") || word_at(p + i, n - i, "infinity") ||
        word_at(p + i, n - i, "nan"))
        return true;
    size_t digits = 0;
    while (i < n && isdigit((unsigned char)p[i]))
        i++, digits++;
    if (i < n && p[i] == '.') {
        i++;
        while (i < n && isdigit((unsigned char)p[i]))
            i++, digits++;
    }
    if (!digits)
        return false;
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t e = 0;
        while (i < n && isdigit((unsigned char)p[i]))
            i++, e++;
        if (!e)
            return false;
    }
    return i == n;
}

pc_status pc_pcmp_parse_float(const char *text, double *out)
{
    if (!text || is_na_word(text)) {
        *out = (double)NAN;
        return PC_OK;
    }
    const char *p = text, *end = text + strlen(text);
    while (p < end && isspace((unsigned char)*p))
        p++;
    while (end > p && isspace((unsigned char)end[-1]))
        end--;
    if (p == end)
        return pc_error_set(PC_ERR_INVALID, "ERROR: Input data is an empty string");
    if (!python_float_syntax(p, (size_t)(end - p)))
        return pc_error_set(PC_ERR_INVALID, "could not convert string to float: '%s'", text);
    char *stop;
    double v = strtod(p, &stop);
    /* strtod gives a NaN with the sign of the text; Python's float("-nan") is a NaN too */
    *out = v;
    return PC_OK;
}

/* ---- verdict building ---- */

typedef struct judge {
    pc_pcmp_verdict *v;
    size_t msg_len;
    bool failed; /* a cell could not be parsed: the row becomes SKIP */
} judge;

static void msg_add(judge *j, const char *s)
{
    size_t n = strlen(s), cap = sizeof j->v->message;
    if (j->msg_len + n >= cap)
        n = cap - 1 - j->msg_len;
    memcpy(j->v->message + j->msg_len, s, n);
    j->msg_len += n;
    j->v->message[j->msg_len] = '\0';
}

static bool num(judge *j, const pc_pcmp_row *row, pc_pcmp_col col, double *x)
{
    if (j->failed)
        return false;
    if (pc_pcmp_parse_float(row->cell[col], x) != PC_OK) {
        j->failed = true;
        return false;
    }
    return true;
}

static void set_text(pc_pcmp_verdict *v, int col, const char *s)
{
    v->cells[col] = pc_csv_text(s);
}

static void set_f64(pc_pcmp_verdict *v, int col, double x)
{
    v->cells[col] = pc_csv_f64(x);
}

/* The row as SKIP: every cell SPACE but the result and the message. */
static void verdict_skip(pc_pcmp_verdict *v, const char *name, const char *message)
{
    for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS; i++)
        v->cells[i] = pc_csv_space();
    set_text(v, OUT_NAME, name);
    set_text(v, OUT_RESULT, SKIP);
    set_text(v, OUT_MESSAGE, message);
    v->status = SKIP;
}

static double min_error(const char *dtype)
{
    if (strcmp(dtype, "torch.float16") == 0)
        return 0x1p-11;
    if (strcmp(dtype, "torch.bfloat16") == 0)
        return 0x1p-8;
    return 0x1p-14;
}

static bool is_fp8_name(const char *dtype)
{
    return strcmp(dtype, "torch.float8_e4m3fn") == 0 || strcmp(dtype, "torch.float8_e5m2") == 0 ||
           strcmp(dtype, "torch_npu.HiFloat8Tensor") == 0 ||
           strcmp(dtype, "<class 'torch_npu.utils.hif8_tensor.HiFloat8Tensor'>") == 0;
}

static bool not_finite(double x)
{
    return isnan(x) || isinf(x);
}

/* msprobe's inf/NaN consistency check of the benchmark rule; returns whether the pair is consistent
 * and adds the message. */
static bool inf_nan_consistent(judge *j, double x, double y, const char *col)
{
    bool ok;
    if (isinf(x) || isinf(y))
        ok = isinf(x) && isinf(y) && x == y;
    else
        ok = isnan(x) && isnan(y);
    msg_add(j, col);
    msg_add(j, ok ? "同为同号inf或nan\n" : "inf或nan不一致\n");
    return ok;
}

static const char *pass_if(bool ok)
{
    return ok ? PASS : ERROR;
}

static void rule_binary(judge *j, const pc_pcmp_row *npu)
{
    double e;
    if (!num(j, npu, PC_PCMP_COL_BINARY, &e))
        return;
    const char *st = pass_if(e == 0);
    set_text(j->v, OUT_BINARY, as_read(npu->cell[PC_PCMP_COL_BINARY]));
    set_text(j->v, OUT_BINARY + 1, st);
    if (st == ERROR)
        msg_add(j, "ERROR: 二进制一致错误率超过阈值\n");
    j->v->status = st;
}

static void rule_absolute(judge *j, const pc_pcmp_row *npu, bool accumulative, const char *dtype)
{
    static const pc_pcmp_col cols[3] = {PC_PCMP_COL_INF_NAN, PC_PCMP_COL_REL_ERR,
                                        PC_PCMP_COL_ABS_ERR};
    static const char *const msgs[4] = {
        "ERROR: inf/nan错误率超过阈值", "ERROR: 相对误差错误率超过阈值",
        "ERROR: 绝对误差错误率超过阈值", "ERROR: 误差均衡性超过阈值"};
    double x[4];
    bool ok[4];
    int n = accumulative ? 4 : 3;
    for (int i = 0; i < 3; i++)
        if (!num(j, npu, cols[i], &x[i]))
            return;
    if (accumulative && !num(j, npu, PC_PCMP_COL_EB, &x[3]))
        return;
    bool all = true;
    for (int i = 0; i < 3; i++) {
        ok[i] = x[i] == 0;
        set_f64(j->v, OUT_INF_NAN + 2 * i, x[i]);
        set_text(j->v, OUT_INF_NAN + 2 * i + 1, pass_if(ok[i]));
    }
    if (accumulative) {
        double t = strcmp(dtype, "torch.float16") == 0    ? 0x1p-20
                   : strcmp(dtype, "torch.bfloat16") == 0 ? 0x1p-7
                                                          : 0x1p-14;
        ok[3] = x[3] <= t;
        set_f64(j->v, OUT_SMALL + 8, x[3]);
        set_text(j->v, OUT_SMALL + 9, pass_if(ok[3]));
    }
    bool first = true;
    for (int i = 0; i < n; i++) {
        all = all && ok[i];
        if (ok[i])
            continue;
        if (accumulative && !first)
            msg_add(j, "\n");
        msg_add(j, msgs[i]);
        if (accumulative)
            msg_add(j, "\n");
        first = false;
    }
    j->v->status = pass_if(all);
}

static void rule_thousandth(judge *j, const pc_pcmp_row *npu)
{
    double t;
    if (!num(j, npu, PC_PCMP_COL_THOUSANDTH, &t))
        return;
    const char *st = pass_if(t >= 0.999);
    set_text(j->v, OUT_THOUSANDTH, as_read(npu->cell[PC_PCMP_COL_THOUSANDTH]));
    set_text(j->v, OUT_THOUSANDTH + 1, st);
    if (st == ERROR)
        msg_add(j, "ERROR: 双千指标不达标\n");
    j->v->status = st;
}

static void rule_benchmark(judge *j, const pc_pcmp_row *npu, const pc_pcmp_row *gpu,
                           const char *dtype)
{
    static const pc_pcmp_col cols[5] = {PC_PCMP_COL_SMALL_VALUE, PC_PCMP_COL_RMSE,
                                        PC_PCMP_COL_MAX_REL, PC_PCMP_COL_MEAN_REL, PC_PCMP_COL_EB};
    static const double thr[5] = {2, 2, 10, 2, 2};
    static const char *const msgs[4] = {
        "ERROR: 小值域错误比值超过阈值\n", "ERROR: 均方根误差比值超过阈值\n",
        "ERROR: 相对误差最大值比值超过阈值\n", "ERROR: 相对误差平均值比值超过阈值\n"};
    const char *st[5];
    double m = min_error(dtype);
    for (int i = 0; i < 5; i++) {
        double x, y, ratio;
        if (!num(j, npu, cols[i], &x) || !num(j, gpu, cols[i], &y))
            return;
        bool consistent = true;
        if (not_finite(x) || not_finite(y)) {
            consistent = inf_nan_consistent(j, x, y, pc_pcmp_col_name(cols[i]));
            ratio = (double)NAN;
        } else {
            ratio = fabs(x) / fmax(fabs(y), m);
        }
        if (!consistent)
            st[i] = ERROR;
        else if (not_finite(ratio))
            st[i] = PASS;
        else
            st[i] = pass_if(!(ratio > thr[i]));
        set_f64(j->v, OUT_SMALL + 2 * i, ratio);
        set_text(j->v, OUT_SMALL + 2 * i + 1, st[i]);
    }
    bool all = true;
    for (int i = 0; i < 4; i++) {
        if (st[i] == ERROR) {
            msg_add(j, msgs[i]);
            all = false;
        }
    }
    j->v->status = pass_if(all);
}

static void rule_ulp(judge *j, const pc_pcmp_row *npu, const pc_pcmp_row *gpu, const char *dtype)
{
    static const char fail[] = "ERROR: ULP误差不满足标准\n";
    pc_pcmp_verdict *v = j->v;
    if (is_fp8_name(dtype)) {
        double p;
        if (!num(j, npu, PC_PCMP_COL_ULP_PROP, &p))
            return;
        const char *st = pass_if(p < 0.001);
        set_f64(v, OUT_ULP_PROP, p);
        set_text(v, OUT_ULP_STATUS, st);
        if (st == ERROR)
            msg_add(j, fail);
        v->status = st;
        return;
    }
    double mn, mg, pn, pg, ratio;
    if (!num(j, npu, PC_PCMP_COL_ULP_MEAN, &mn) || !num(j, gpu, PC_PCMP_COL_ULP_MEAN, &mg) ||
        !num(j, npu, PC_PCMP_COL_ULP_PROP, &pn) || !num(j, gpu, PC_PCMP_COL_ULP_PROP, &pg))
        return;
    bool consistent = true;
    if (not_finite(mn) || not_finite(mg))
        consistent = inf_nan_consistent(j, mn, mg, pc_pcmp_col_name(PC_PCMP_COL_ULP_MEAN));
    if (not_finite(pn) || not_finite(pg)) {
        consistent =
            inf_nan_consistent(j, pn, pg, pc_pcmp_col_name(PC_PCMP_COL_ULP_PROP)) && consistent;
        ratio = (double)NAN;
    } else {
        ratio = fabs(pn) / fmax(fabs(pg), min_error(dtype));
    }
    set_f64(v, OUT_ULP_MEAN, mn);
    set_f64(v, OUT_ULP_PROP, pn);
    set_f64(v, OUT_ULP_RATIO, ratio);
    const char *st;
    if (!consistent) {
        st = ERROR; /* msprobe leaves the ULP status cell blank in this branch */
    } else {
        bool ok = strcmp(dtype, "torch.float32") == 0 ? (mn < 64 || pn < 0.05 || ratio < 1)
                                                      : (pn < 0.001 || ratio < 1);
        st = pass_if(ok);
        set_text(v, OUT_ULP_STATUS, st);
    }
    if (st == ERROR)
        msg_add(j, fail);
    v->status = st;
}

static bool is_skip_dtype(const char *d)
{
    return strcmp(d, "torch.float64") == 0 || strcmp(d, "torch.complex64") == 0 ||
           strcmp(d, "torch.complex128") == 0;
}

void pc_pcmp_judge_row(const pc_pcmp_row *npu, const pc_pcmp_row *gpu, pc_pcmp_verdict *out)
{
    const char *name = npu->cell[PC_PCMP_COL_API_NAME] ? npu->cell[PC_PCMP_COL_API_NAME] : "";
    const char *dtype = npu->cell[PC_PCMP_COL_DEVICE_DTYPE];
    const char *shape = npu->cell[PC_PCMP_COL_SHAPE];
    out->message[0] = '\0';
    out->raised = false;
    if (is_blank(dtype) || is_skip_dtype(dtype) || (shape && strcmp(shape, "(0,)") == 0)) {
        verdict_skip(out, name, as_read(npu->cell[PC_PCMP_COL_MESSAGE]));
        return;
    }
    const char *in_dtype =
        is_blank(npu->cell[PC_PCMP_COL_REL_ERR]) ? "torch.float32" : "torch.float8_e4m3fn";
    pcmp_name parts;
    pc_mcsv_pcmp_name_parse(name, &parts);
    pc_standard std = pc_standard_select(parts.api, dtype, in_dtype);

    for (int i = 0; i < PC_PCMP_DETAILS_COLUMNS; i++)
        out->cells[i] = pc_csv_space();
    set_text(out, OUT_NAME, name);
    judge j = {.v = out};
    switch (std) {
    case PC_STANDARD_BINARY:
        rule_binary(&j, npu);
        break;
    case PC_STANDARD_ABSOLUTE:
        rule_absolute(&j, npu, false, dtype);
        break;
    case PC_STANDARD_ACCUMULATIVE:
        rule_absolute(&j, npu, true, dtype);
        break;
    case PC_STANDARD_THOUSANDTH:
        rule_thousandth(&j, npu);
        break;
    case PC_STANDARD_ULP:
        rule_ulp(&j, npu, gpu, dtype);
        break;
    case PC_STANDARD_BENCHMARK:
    default:
        rule_benchmark(&j, npu, gpu, dtype);
        break;
    }
    if (j.failed) {
        snprintf(out->message, sizeof out->message, "%s", pc_error_message());
        verdict_skip(out, name, out->message);
        out->raised = true;
        return;
    }
    set_text(out, OUT_RESULT, out->status);
    set_text(out, OUT_ALGORITHM, pc_standard_algorithm_name(std));
    set_text(out, OUT_MESSAGE, out->message);
}

/* ---- aggregation ---- */

enum { AGG_ANY = 1u, AGG_NON_SKIP = 2u, AGG_ERROR = 4u, AGG_WARNING = 8u };

pc_pcmp_agg pc_pcmp_agg_add(pc_pcmp_agg agg, const char *status)
{
    agg |= AGG_ANY;
    if (strcmp(status, SKIP) != 0)
        agg |= AGG_NON_SKIP;
    if (strcmp(status, ERROR) == 0)
        agg |= AGG_ERROR;
    else if (strcmp(status, "Warning") == 0)
        agg |= AGG_WARNING;
    return agg;
}

const char *pc_pcmp_agg_result(pc_pcmp_agg agg)
{
    if (!(agg & AGG_ANY))
        return " ";
    if (!(agg & AGG_NON_SKIP))
        return SKIP;
    if (agg & AGG_ERROR)
        return ERROR;
    if (agg & AGG_WARNING)
        return "Warning";
    return PASS;
}
