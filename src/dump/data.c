/* Real tensor files of a dump: path resolution, loading, and the statistics check. */
#include "precheck/dump/data.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dump/dump_impl.h"
#include "precheck/core/convert.h"
#include "precheck/io/npy.h"
#include "precheck/io/path_check.h"
#include "precheck/io/pt.h"

pc_status pc_dump_tensor_path(const pc_dump *dump, const pc_dump_tensor *t, char *buf, size_t size)
{
    const char *file = pc_dump_tensor_file(t);
    if (!file)
        return pc_error_set(PC_ERR_NOT_FOUND, "the tensor record names no data file");
    const char *slash = strrchr(dump->path, '/');
    int dirlen = slash ? (int)(slash - dump->path) : 1;
    const char *dir = slash ? dump->path : ".";
    int n = snprintf(buf, size, "%.*s/dump_tensor_data/%s", dirlen, dir, file);
    if (n < 0 || (size_t)n >= size)
        return pc_error_set(PC_ERR_RANGE, "the path of tensor file %s is too long", file);
    return PC_OK;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static pc_status fail_arg(pc_status st, const pc_dump_api *api, const pc_dump_arg *arg)
{
    char where[256];
    pc_dump_arg_path(api, arg, where, sizeof where);
    return pc_error_prefix(st, "%s: %s", api ? api->full_name : "?", where);
}

pc_status pc_dump_load_tensor(const pc_dump *dump, const pc_dump_api *api, const pc_dump_arg *arg,
                              pc_tensor *out)
{
    if (arg->kind != PC_DUMP_ARG_TENSOR)
        return fail_arg(pc_error_set(PC_ERR_INVALID, "not a tensor record"), api, arg);
    const pc_dump_tensor *rec = arg->u.tensor;
    char path[PC_PATH_BUFFER_SIZE], resolved[PC_PATH_BUFFER_SIZE];
    pc_status st = pc_dump_tensor_path(dump, rec, path, sizeof path);
    if (st)
        return fail_arg(st, api, arg);
    st = pc_path_check(path, PC_PATH_FILE, PC_PATH_READ, NULL, resolved, sizeof resolved);
    if (st)
        return fail_arg(st, api, arg);

    pc_tensor t = PC_TENSOR_NULL;
    if (has_suffix(resolved, ".npy"))
        st = pc_npy_read_file(resolved, &t, NULL);
    else if (has_suffix(resolved, ".pt"))
        st = pc_pt_read_file(resolved, &t, NULL);
    else
        st = pc_error_set(PC_ERR_UNSUPPORTED, "%s: tensor files must be .pt or .npy", resolved);
    if (st)
        return fail_arg(st, api, arg);

    pc_dtype want = rec->dtype;
    if (want == PC_DTYPE_INVALID) {
        pc_tensor_free(&t);
        return fail_arg(pc_error_set(PC_ERR_UNSUPPORTED,
                                     "the record's dtype %s is not one "
                                     "precheck knows",
                                     rec->dtype_name ? rec->dtype_name : "(missing)"),
                        api, arg);
    }
    if (t.dtype != want) {
        bool fp8_from_f32 =
            (want == PC_DTYPE_F8E4M3FN || want == PC_DTYPE_F8E5M2) && t.dtype == PC_DTYPE_F32;
        if (!fp8_from_f32) {
            pc_error_set(PC_ERR_INVALID, "%s holds %s, the record says %s", resolved,
                         pc_dtype_torch_name(t.dtype), pc_dtype_torch_name(want));
            pc_tensor_free(&t);
            return fail_arg(PC_ERR_INVALID, api, arg);
        }
        if ((st = pc_tensor_cast(&t, &t, want))) {
            pc_tensor_free(&t);
            return fail_arg(st, api, arg);
        }
    }
    bool same_shape = rec->has_shape && rec->rank == t.rank;
    for (int i = 0; same_shape && i < t.rank; i++)
        same_shape = rec->shape[i] == t.shape[i];
    if (!same_shape) {
        char file_shape[PC_SHAPE_FORMAT_MAX], rec_shape[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(file_shape, sizeof file_shape, t.shape, t.rank);
        if (rec->has_shape && rec->rank <= PC_TENSOR_MAX_DIMS)
            pc_shape_format(rec_shape, sizeof rec_shape, rec->shape, (int)rec->rank);
        else
            snprintf(rec_shape, sizeof rec_shape, "%s", rec->has_shape ? "(too long)" : "none");
        pc_error_set(PC_ERR_INVALID, "%s has shape %s, the record says %s", resolved, file_shape,
                     rec_shape);
        pc_tensor_free(&t);
        return fail_arg(PC_ERR_INVALID, api, arg);
    }
    *out = t;
    return PC_OK;
}

pc_status pc_tensor_stats_compute(const pc_tensor *t, pc_tensor_stats *out)
{
    pc_tensor_stats s = {0};
    s.numel = pc_tensor_numel(t);
    s.dtype = t->dtype;
    if (s.numel == 0) {
        *out = s;
        return PC_OK;
    }
    s.present = true;
    s.is_bool = t->dtype == PC_DTYPE_BOOL;
    bool complex = pc_dtype_is_complex(t->dtype);
    bool own_dtype =
        t->dtype == PC_DTYPE_F16 || t->dtype == PC_DTYPE_BF16 || t->dtype == PC_DTYPE_F32;
    if (!own_dtype && !s.is_bool)
        s.dtype = PC_DTYPE_F32; /* float64, integers, float8 (and complex magnitudes) */

    /* Values as msprobe sees them: cast to the statistics dtype first (exact for the own
     * dtypes), then widened to double, which is exact. Complex: |x| in double. */
    pc_tensor vals = PC_TENSOR_NULL;
    pc_status st;
    if (complex)
        st = pc_tensor_cast(&vals, t, PC_DTYPE_C128);
    else if (s.is_bool || own_dtype)
        st = pc_tensor_cast(&vals, t, PC_DTYPE_F64);
    else {
        pc_tensor f32 = PC_TENSOR_NULL;
        st = pc_tensor_cast(&f32, t, PC_DTYPE_F32);
        if (!st)
            st = pc_tensor_cast(&vals, &f32, PC_DTYPE_F64);
        pc_tensor_free(&f32);
    }
    if (st)
        return st;
    const double *v = pc_tensor_data(&vals);
    double max = -HUGE_VAL, min = HUGE_VAL, sum_pos = 0.0, sum_neg = 0.0, sumsq = 0.0;
    double max_abs = 0.0;
    int64_t nonzero = 0;
    bool any_nan = false;
    for (int64_t i = 0; i < s.numel; i++) {
        double x = complex ? hypot(v[2 * i], v[2 * i + 1]) : v[i];
        if (isnan(x))
            any_nan = true;
        if (x > max)
            max = x;
        if (x < min)
            min = x;
        if (x > 0)
            sum_pos += x;
        else if (x < 0)
            sum_neg += x;
        sumsq += x * x;
        max_abs = fmax(max_abs, fabs(x));
        nonzero += x != 0;
    }
    pc_tensor_free(&vals);
    if (any_nan)
        max = min = (double)NAN;
    double sum = sum_pos + sum_neg;
    if (any_nan)
        sum = sum_pos = sum_neg = sumsq = max_abs = (double)NAN;
    s.max = max;
    s.min = min;
    s.sum_pos = sum_pos;
    s.sum_neg = sum_neg;
    s.sum_sq = sumsq;
    s.max_abs = max_abs;
    s.nonzero = nonzero;
    s.mean_abs = (sum_pos - sum_neg) / (double)s.numel;
    if (s.is_bool) {
        s.max = max != 0.0; /* any */
        s.min = min != 0.0; /* all */
    } else if (t->rank == 0 && !complex) {
        /* 0-dim: every statistic is the value itself, exactly (msprobe takes .item() without
         * the float32 cast; an integer stays an integer) */
        double x, im;
        pc_element_load(pc_tensor_element_ptr(t, NULL), t->dtype, &x, &im);
        s.max = s.min = s.mean = s.norm = x;
        s.dtype = t->dtype;
        s.has_norm = true;
    } else if (t->rank == 0) {
        s.mean = s.norm = s.max;
        s.has_norm = false;
    } else {
        s.mean = pc_round_to_dtype(sum / (double)s.numel, s.dtype);
        s.norm = pc_round_to_dtype(sqrt(sumsq), s.dtype);
        s.has_norm = !complex;
    }
    *out = s;
    return PC_OK;
}

/*
 * How msprobe's Mean and Norm come about, and what precheck can check of them.
 *
 * msprobe's dumper (get_stat_info in core/data_dump/data_processor/pytorch_processor.py) calls
 * torch.max, torch.min, torch.mean and torch.norm on data.detach(): the tensor as the API saw
 * it, possibly a strided view (split outputs, transposes, expanded gradients), on its device,
 * in its own dtype (float64 and integers after .float(), everything after .float() with
 * precision "high"); .item() is taken when dump.json is written. The tensor file is
 * clone().contiguous() of the same tensor. torch.norm(x) is linalg.vector_norm(x, 2), the
 * square root of a sum of squares; torch.mean is a sum divided by N. Max and Min do not depend
 * on the order of the reduction: they must equal the file's exactly. The two sums are rounded
 * in an order and a precision that a contiguous copy does not tell:
 *  - torch's GPU kernels, and its CPU kernels on contiguous float32 (and bfloat16) data,
 *    accumulate in float32 in a tree of partial sums: within log2(N) float32 roundings of
 *    sum |x| (TIGHT). How the NPU's kernels round is not known here; whatever they do within
 *    the bounds below passes;
 *  - torch 1.13 on the CPU sums float16 (norms, and means), and bfloat16 over strided views,
 *    in float16/bfloat16 itself, sequentially: once the terms fall below half an ulp of the
 *    running sum it stops growing. Measured with torch 1.13: the Norm of 65536 float16 values
 *    0.54 times the exact one, of a bfloat16 split view of 262144 values 0.13 times; bfloat16
 *    means of such views off by up to 93 %. float32 norms go through a few long sequential
 *    float32 sums (7 % off at 2^25 elements). Its float16 mean divides by N converted to
 *    float16, inf from 65520 on: the Mean of a larger float16 tensor is +-0, or NaN;
 *  - a float32 sum overflows to -inf/+inf once its partial sums pass FLT_MAX, while the mean
 *    itself is finite: transformers' attention masks hold finfo(float32).min, so their Mean
 *    is -inf (and their Norm +inf) in every dump.
 *
 * precheck cannot reproduce those roundings (they depend on the device, torch's version, the
 * CPU's vector width, the strides, the thread count), so it bounds them. For a sum of the n
 * non-zero terms (adding a zero rounds nothing) in a precision with unit roundoff u (round to
 * nearest), in any order:
 *  (a) adding a term t to a running sum s moves it by at most 3|t| towards t's sign and never
 *      away from it: when |t| exceeds half an ulp of s the result's rounding error is at most
 *      |t| (s and s + t share a binade or the next), otherwise the sum stays s. A sequential
 *      sum thus lies in [3 sum_neg, 3 sum_pos]; each of up to log2(n) additions of partial
 *      sums widens that by a factor (1 + u). Every addition is also within a factor (1 + u)
 *      of its exact result, so the sum lies in [sum_neg, sum_pos] (1 + u)^(n - 1) too;
 *  (b) when (n - 1) u < 1: |S' - S| <= gamma(n - 1) sum |x|, gamma(k) = k u / (1 - k u)
 *      (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 4.2);
 *  (c) a sum of non-negative terms is at least its largest term (rounding is monotone), so a
 *      Norm is at least max |x| less three roundings (the square, the root, the result);
 *  (d) a partial sum can overflow only if the terms of one sign add up, within those bounds,
 *      to the overflow threshold (max + half an ulp); a float32 tree sum must overflow if the
 *      exact sum is beyond it by more than the TIGHT error.
 * Tiers: within TIGHT, or the infinity (d) says a float32 sum must reach: a match. An infinity
 * (or a NaN, +inf + -inf) a float32 tree sum may reach: loose, PC_STATS_LOOSE_OVERFLOW. A
 * value (a) to (c) allow for a sum accumulated in the statistic's own dtype, or an infinity (d)
 * allows for it: loose, PC_STATS_LOOSE_LOW_PRECISION. Anything else: an error. The loose tier
 * is wide for large half-precision tensors (a Norm between max |x| and 1.7 times the exact
 * one), so the check of such a tensor rests on its Max, Min and shape, and says so.
 */

/* Relative error of a float32 tree sum per level, on sum |x| (and on the norm) */
#define TIGHT_PER_LEVEL (8.0 * 0x1p-23)

static bool same_value(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

static double levels_of(int64_t n)
{
    return ceil(log2((double)n + 1.0));
}

/* Mean and norm: the result's rounding (2 ulps of the dtype) plus float32 accumulation in a
 * tree (log2(N) steps of float32 rounding on the scale of the terms). */
static bool close_value(double rec, double ours, double scale, const pc_tensor_stats *s)
{
    if (same_value(rec, ours))
        return true;
    if (!isfinite(rec) || !isfinite(ours))
        return false;
    double eps = pc_dtype_traits_of(s->dtype)->eps;
    double tol =
        2.0 * eps * fmax(fabs(rec), fabs(ours)) + TIGHT_PER_LEVEL * levels_of(s->numel) * scale;
    return fabs(rec - ours) <= tol;
}

/* TIGHT's relative error of the sum itself: none for one non-zero term */
static double tight_sum_error(const pc_tensor_stats *s)
{
    return s->nonzero > 1 ? TIGHT_PER_LEVEL * ceil(log2((double)s->nonzero)) : 0.0;
}

/* The smallest magnitude that rounds to infinity in a float dtype: max + half its ulp */
static double overflow_threshold(pc_dtype dtype)
{
    const pc_dtype_traits *tr = pc_dtype_traits_of(dtype);
    int e;
    frexp(tr->max_finite, &e); /* max = m 2^e, m in [0.5, 1): its ulp is eps 2^(e-1) */
    return tr->max_finite + ldexp(tr->eps / 4.0, e);
}

/* Whether a non-finite rec is what a sum that may overflow upwards (up) or downwards (down)
 * gives: +inf, -inf, or NaN from adding both. */
static bool overflow_gives(double rec, bool up, bool down)
{
    if (isnan(rec))
        return up && down;
    return rec > 0 ? up : down;
}

/* The range of a sum of terms whose negative ones add up to neg and positive ones to pos
 * (sum_abs = pos - neg) accumulated in precision u in any order, by (a) and (b) */
typedef struct sum_range {
    double lo, hi;
} sum_range;

static sum_range low_precision_sum(const pc_tensor_stats *s, double u, double neg, double pos)
{
    double n = (double)(s->nonzero > 0 ? s->nonzero : 1);
    double grow = fmin(3.0 * pow(1.0 + u, ceil(log2(n))), pow(1.0 + u, n - 1.0));
    sum_range r = {neg * grow, pos * grow};
    double k = (n - 1.0) * u;
    if (k < 1.0) {
        double err = k / (1.0 - k) * (pos - neg);
        r.lo = fmax(r.lo, neg + pos - err);
        r.hi = fmin(r.hi, neg + pos + err);
    }
    return r;
}

/* What pc_dump_verify_stats concluded about one statistic */
typedef enum stat_cause {
    CAUSE_MATCH,            /* within TIGHT, or the infinity a float32 sum must reach */
    CAUSE_MISMATCH,         /* no reduction gives it: an error */
    CAUSE_F32_OVERFLOW,     /* an infinity a float32 partial sum may reach */
    CAUSE_LOW_RANGE,        /* within the range of a sum in the statistic's own dtype */
    CAUSE_LOW_OVERFLOW,     /* an infinity such a sum may reach */
    CAUSE_INFINITE_DIVISOR, /* a float16 sum divided by N converted to float16: inf */
} stat_cause;

typedef struct stat_verdict {
    stat_cause cause;
    sum_range range; /* what the low-precision tier allows, for messages */
} stat_verdict;

static unsigned loose_bits(stat_cause cause)
{
    switch (cause) {
    case CAUSE_F32_OVERFLOW:
        return PC_STATS_LOOSE_OVERFLOW;
    case CAUSE_LOW_RANGE:
    case CAUSE_INFINITE_DIVISOR:
        return PC_STATS_LOOSE_LOW_PRECISION;
    case CAUSE_LOW_OVERFLOW:
        return PC_STATS_LOOSE_LOW_PRECISION | PC_STATS_LOOSE_OVERFLOW;
    default:
        return 0;
    }
}

static stat_verdict judge_mean(const pc_tensor_stats *s, double rec)
{
    stat_verdict v = {CAUSE_MATCH, {0, 0}};
    if (close_value(rec, s->mean, s->mean_abs, s))
        return v;
    double n = (double)s->numel, sum = s->sum_pos + s->sum_neg, sum_abs = s->sum_pos - s->sum_neg;
    double tight = tight_sum_error(s), t32 = overflow_threshold(PC_DTYPE_F32);
    if (isinf(rec) && fabs(sum) - tight * sum_abs >= t32 && (rec > 0) == (sum > 0))
        return v; /* (d): a float32 sum of these values is +-inf whatever the order */
    v.cause = CAUSE_F32_OVERFLOW;
    if (!isfinite(rec) &&
        overflow_gives(rec, s->sum_pos * (1.0 + tight) >= t32, -s->sum_neg * (1.0 + tight) >= t32))
        return v;

    /* accumulated in the statistic's own dtype */
    double u = pc_dtype_traits_of(s->dtype)->eps / 2.0, td = overflow_threshold(s->dtype);
    sum_range sr = low_precision_sum(s, u, s->sum_neg, s->sum_pos);
    bool may_overflow = sr.hi >= td || -sr.lo >= td;
    /* torch 1.13 on the CPU divides a float16 sum by N converted to float16, inf from 65520
     * on: the mean is then +-0, or NaN when the sum overflowed too */
    if (isinf(pc_round_to_dtype(n, s->dtype)) && (rec == 0.0 || (isnan(rec) && may_overflow))) {
        v.cause = CAUSE_INFINITE_DIVISOR;
        return v;
    }
    v.cause = CAUSE_LOW_OVERFLOW;
    if (!isfinite(rec) && overflow_gives(rec, sr.hi >= td, -sr.lo >= td))
        return v;
    /* the quotient's and the result's rounding */
    v.range.lo = sr.lo / n - 2.0 * u * fabs(sr.lo / n);
    v.range.hi = sr.hi / n + 2.0 * u * fabs(sr.hi / n);
    v.cause = rec >= v.range.lo && rec <= v.range.hi ? CAUSE_LOW_RANGE : CAUSE_MISMATCH;
    return v;
}

static stat_verdict judge_norm(const pc_tensor_stats *s, double rec)
{
    stat_verdict v = {CAUSE_MATCH, {0, 0}};
    if (close_value(rec, s->norm, s->norm, s))
        return v;
    double tight = tight_sum_error(s), t32 = overflow_threshold(PC_DTYPE_F32);
    if (rec == HUGE_VAL && s->sum_sq * (1.0 - tight) >= t32)
        return v; /* (d): the float32 sum of the squares overflows whatever the order */
    v.cause = CAUSE_F32_OVERFLOW;
    if (rec == HUGE_VAL && s->sum_sq * (1.0 + tight) >= t32)
        return v;

    /* squares rounded (u each) and summed in the statistic's own dtype; at least the
     * largest square by (c) */
    double u = pc_dtype_traits_of(s->dtype)->eps / 2.0, td = overflow_threshold(s->dtype);
    sum_range sr = low_precision_sum(s, u, 0.0, s->sum_sq);
    double sum_lo = fmax(s->max_abs * s->max_abs, sr.lo) * (1.0 - u);
    double sum_hi = sr.hi * (1.0 + u);
    /* the square root's and the result's rounding */
    v.range.lo = sqrt(fmax(sum_lo, 0.0)) * (1.0 - u) * (1.0 - u);
    v.range.hi = sqrt(sum_hi) * (1.0 + u) * (1.0 + u);
    v.cause = CAUSE_LOW_OVERFLOW;
    if (rec == HUGE_VAL && (sum_hi >= td || v.range.hi >= td))
        return v;
    bool in = isfinite(rec) && rec >= v.range.lo && rec <= v.range.hi;
    v.cause = in ? CAUSE_LOW_RANGE : CAUSE_MISMATCH;
    return v;
}

/* A statistic that is not reduced (a 0-dim tensor's value, an integer's) or not a float
 * one: within TIGHT or an error */
static stat_verdict judge_plain(const pc_tensor_stats *s, double rec, double ours, double scale)
{
    stat_verdict v = {close_value(rec, ours, scale, s) ? CAUSE_MATCH : CAUSE_MISMATCH, {0, 0}};
    return v;
}

static pc_status mismatch(const pc_dump_api *api, const pc_dump_arg *arg, const char *what,
                          const pc_dump_value *rec, double ours, const sum_range *r)
{
    char text[64], range[160] = "";
    if (rec->kind == PC_DUMP_VALUE_ABSENT)
        snprintf(text, sizeof text, "no value");
    else if (rec->kind == PC_DUMP_VALUE_NULL)
        snprintf(text, sizeof text, "null");
    else
        snprintf(text, sizeof text, "%.17g", pc_dump_value_as_double(rec));
    if (r && r->lo < r->hi)
        snprintf(range, sizeof range,
                 " (even a sum accumulated in low precision gives %.9g to %.9g)", r->lo, r->hi);
    pc_error_set(PC_ERR_INVALID, "%s: the record says %s, the data give %.17g%s", what, text, ours,
                 range);
    return fail_arg(PC_ERR_INVALID, api, arg);
}

/* Appends to buf what a loose verdict on one statistic means */
static void describe_loose(char *buf, size_t size, const char *what, double rec, double ours,
                           const stat_verdict *v, const pc_tensor_stats *s)
{
    size_t n = strlen(buf);
    if (n >= size)
        return;
    const char *dtype = pc_dtype_name(s->dtype);
    int w = snprintf(buf + n, size - n,
                     "%s%s: the record says %.17g, the data give %.17g: ", n ? "; " : "", what, rec,
                     ours);
    if (w < 0 || (size_t)w >= size - n)
        return;
    n += (size_t)w;
    bool norm = strcmp(what, "Norm") == 0;
    switch (v->cause) {
    case CAUSE_F32_OVERFLOW:
        if (norm)
            snprintf(buf + n, size - n,
                     "the float32 sum of the squares (%.6g) may overflow, as torch's may have",
                     s->sum_sq);
        else
            snprintf(buf + n, size - n,
                     "a float32 partial sum may overflow (the positive values add up to %.6g, "
                     "the negative ones to %.6g), as torch's may have",
                     s->sum_pos, s->sum_neg);
        break;
    case CAUSE_LOW_OVERFLOW:
        snprintf(buf + n, size - n,
                 "a partial sum accumulated in %s may overflow here: a reduction in low "
                 "precision",
                 dtype);
        break;
    case CAUSE_INFINITE_DIVISOR:
        snprintf(buf + n, size - n,
                 "torch 1.13 on the CPU divides a %s sum by the number of elements in %s, "
                 "which is inf for %" PRId64,
                 dtype, dtype, s->numel);
        break;
    default:
        snprintf(buf + n, size - n,
                 "equal only within the error of a sum accumulated in %s, %.9g to %.9g here "
                 "(torch 1.13 on the CPU sums float16 data, bfloat16 views and long float32 "
                 "norms in their own precision)",
                 dtype, v->range.lo, v->range.hi);
        break;
    }
}

pc_status pc_dump_verify_stats(const pc_dump_api *api, const pc_dump_arg *arg,
                               const pc_tensor_stats *s, unsigned *loose)
{
    const pc_dump_tensor *rec = arg->u.tensor;
    if (loose)
        *loose = 0;
    if (!s->present) {
        if (rec->max.kind == PC_DUMP_VALUE_NULL || rec->max.kind == PC_DUMP_VALUE_ABSENT)
            return PC_OK;
        return mismatch(api, arg, "Max of an empty tensor", &rec->max, (double)NAN, NULL);
    }
    if (!pc_dump_value_is_number(&rec->max) ||
        !same_value(pc_dump_value_as_double(&rec->max), s->max))
        return mismatch(api, arg, "Max", &rec->max, s->max, NULL);
    if (!pc_dump_value_is_number(&rec->min) ||
        !same_value(pc_dump_value_as_double(&rec->min), s->min))
        return mismatch(api, arg, "Min", &rec->min, s->min, NULL);
    if (s->is_bool)
        return PC_OK;
    /* a reduction only over several elements of a float statistic: a 0-dim tensor's
     * statistics are its value, an integer's exactly */
    bool reduced = s->numel > 1 && (s->dtype == PC_DTYPE_F16 || s->dtype == PC_DTYPE_BF16 ||
                                    s->dtype == PC_DTYPE_F32);
    char why[PC_ERROR_MESSAGE_MAX / 2] = "";
    unsigned bits = 0;
    if (!pc_dump_value_is_number(&rec->mean))
        return mismatch(api, arg, "Mean", &rec->mean, s->mean, NULL);
    double mean = pc_dump_value_as_double(&rec->mean);
    stat_verdict v = reduced ? judge_mean(s, mean) : judge_plain(s, mean, s->mean, s->mean_abs);
    if (v.cause == CAUSE_MISMATCH)
        return mismatch(api, arg, "Mean", &rec->mean, s->mean, &v.range);
    if (loose_bits(v.cause)) {
        bits |= loose_bits(v.cause);
        describe_loose(why, sizeof why, "Mean", mean, s->mean, &v, s);
    }
    if (s->has_norm) {
        if (!pc_dump_value_is_number(&rec->norm))
            return mismatch(api, arg, "Norm", &rec->norm, s->norm, NULL);
        double norm = pc_dump_value_as_double(&rec->norm);
        v = reduced ? judge_norm(s, norm) : judge_plain(s, norm, s->norm, s->norm);
        if (v.cause == CAUSE_MISMATCH)
            return mismatch(api, arg, "Norm", &rec->norm, s->norm, &v.range);
        if (loose_bits(v.cause)) {
            bits |= loose_bits(v.cause);
            describe_loose(why, sizeof why, "Norm", norm, s->norm, &v, s);
        }
    }
    if (bits) {
        if (loose)
            *loose = bits;
        pc_error_set(PC_OK, "%s", why);
        fail_arg(PC_OK, api, arg);
    }
    return PC_OK;
}

pc_status pc_dump_check_tensor_file(const pc_dump *dump, const pc_dump_api *api,
                                    const pc_dump_arg *arg, unsigned *loose)
{
    if (loose)
        *loose = 0;
    pc_tensor t = PC_TENSOR_NULL;
    pc_tensor_stats stats;
    pc_status st = pc_dump_load_tensor(dump, api, arg, &t);
    if (!st)
        st = pc_tensor_stats_compute(&t, &stats);
    if (!st)
        st = pc_dump_verify_stats(api, arg, &stats, loose);
    pc_tensor_free(&t);
    return st;
}

static int visit_arg(const pc_dump_api *api, const pc_dump_arg *arg, pc_dump_tensor_visitor fn,
                     void *ctx)
{
    int r = 0;
    switch (arg->kind) {
    case PC_DUMP_ARG_TENSOR:
        return fn(ctx, api, arg);
    case PC_DUMP_ARG_LIST:
        for (size_t i = 0; i < arg->u.list.count && !r; i++)
            r = visit_arg(api, &arg->u.list.items[i], fn, ctx);
        return r;
    case PC_DUMP_ARG_OBJECT:
        for (size_t i = 0; i < arg->u.object.count && !r; i++)
            r = visit_arg(api, &arg->u.object.fields[i].value, fn, ctx);
        return r;
    default:
        return 0;
    }
}

int pc_dump_visit_entry(const pc_dump_api *api, const pc_dump_entry *e, pc_dump_tensor_visitor fn,
                        void *ctx)
{
    int r = visit_arg(api, &e->input_args, fn, ctx);
    for (size_t i = 0; i < e->kwarg_count && !r; i++)
        r = visit_arg(api, &e->kwargs[i].value, fn, ctx);
    if (!r)
        r = visit_arg(api, &e->input, fn, ctx); /* backward: before its output, as written */
    if (!r)
        r = visit_arg(api, &e->output, fn, ctx);
    return r;
}

int pc_dump_visit_tensors(const pc_dump_api *api, pc_dump_tensor_visitor fn, void *ctx)
{
    int r = pc_dump_visit_entry(api, &api->forward, fn, ctx);
    if (!r && api->backward)
        r = pc_dump_visit_entry(api, api->backward, fn, ctx);
    return r;
}

static int count_tensor_file(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg)
{
    (void)api;
    *(size_t *)ctx += pc_dump_tensor_file(arg->u.tensor) != NULL;
    return 0;
}

pc_status pc_dump_check_tensor_dir(const pc_dump *dump, size_t *named)
{
    size_t files = 0;
    for (size_t i = 0; i < dump->api_count; i++)
        pc_dump_visit_tensors(&dump->apis[i], count_tensor_file, &files);
    if (named)
        *named = files;
    if (!files || !dump->has_real_data)
        return PC_OK;
    char dir[PC_PATH_BUFFER_SIZE + 32];
    const char *slash = strrchr(dump->path, '/');
    int n = slash ? (int)(slash - dump->path) : 1;
    snprintf(dir, sizeof dir, "%.*s/dump_tensor_data", n, slash ? dump->path : ".");
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return PC_OK;
    return pc_error_set(PC_ERR_NOT_FOUND,
                        "The dump's tensor files are missing: %s does not exist. %s is a "
                        "tensor-mode dump whose tensors (%zu files) live in the folder "
                        "dump_tensor_data beside it: copy the whole rank folder (dump.json with "
                        "dump_tensor_data/), not dump.json alone.",
                        dir, dump->path, files);
}
