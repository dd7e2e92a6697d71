/* Real tensor files of a dump: path resolution, loading, and the statistics check. */
#include "precheck/dump/data.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
    double max = -INFINITY, min = INFINITY, sum = 0.0, sumsq = 0.0, sumabs = 0.0;
    bool any_nan = false;
    for (int64_t i = 0; i < s.numel; i++) {
        double x = complex ? hypot(v[2 * i], v[2 * i + 1]) : v[i];
        if (isnan(x))
            any_nan = true;
        if (x > max)
            max = x;
        if (x < min)
            min = x;
        sum += x;
        sumsq += x * x;
        sumabs += fabs(x);
    }
    pc_tensor_free(&vals);
    if (any_nan)
        max = min = NAN;
    s.max = max;
    s.min = min;
    s.mean_abs = sumabs / (double)s.numel;
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

static bool same_value(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

/* Mean and norm: the result's rounding (2 ulps of the dtype) plus float32 accumulation in an
 * unknown order (log2(N) steps of float32 rounding on the scale of the terms). */
static bool close_value(double rec, double ours, double scale, const pc_tensor_stats *s)
{
    if (same_value(rec, ours))
        return true;
    if (!isfinite(rec) || !isfinite(ours))
        return false;
    double eps = pc_dtype_traits_of(s->dtype)->eps;
    double steps = ceil(log2((double)s->numel + 1.0));
    double tol = 2.0 * eps * fmax(fabs(rec), fabs(ours)) + 8.0 * 0x1p-23 * steps * scale;
    return fabs(rec - ours) <= tol;
}

static pc_status mismatch(const pc_dump_api *api, const pc_dump_arg *arg, const char *what,
                          const pc_dump_value *rec, double ours)
{
    char text[64];
    if (rec->kind == PC_DUMP_VALUE_ABSENT)
        snprintf(text, sizeof text, "no value");
    else if (rec->kind == PC_DUMP_VALUE_NULL)
        snprintf(text, sizeof text, "null");
    else
        snprintf(text, sizeof text, "%.17g", pc_dump_value_as_double(rec));
    pc_error_set(PC_ERR_INVALID, "%s: the record says %s, the data give %.17g", what, text, ours);
    return fail_arg(PC_ERR_INVALID, api, arg);
}

pc_status pc_dump_verify_stats(const pc_dump_api *api, const pc_dump_arg *arg,
                               const pc_tensor_stats *s, bool *norm_loose)
{
    const pc_dump_tensor *rec = arg->u.tensor;
    if (norm_loose)
        *norm_loose = false;
    if (!s->present) {
        if (rec->max.kind == PC_DUMP_VALUE_NULL || rec->max.kind == PC_DUMP_VALUE_ABSENT)
            return PC_OK;
        return mismatch(api, arg, "Max of an empty tensor", &rec->max, NAN);
    }
    if (!pc_dump_value_is_number(&rec->max) ||
        !same_value(pc_dump_value_as_double(&rec->max), s->max))
        return mismatch(api, arg, "Max", &rec->max, s->max);
    if (!pc_dump_value_is_number(&rec->min) ||
        !same_value(pc_dump_value_as_double(&rec->min), s->min))
        return mismatch(api, arg, "Min", &rec->min, s->min);
    if (s->is_bool)
        return PC_OK;
    if (!pc_dump_value_is_number(&rec->mean) ||
        !close_value(pc_dump_value_as_double(&rec->mean), s->mean, s->mean_abs, s))
        return mismatch(api, arg, "Mean", &rec->mean, s->mean);
    if (!s->has_norm)
        return PC_OK;
    if (!pc_dump_value_is_number(&rec->norm))
        return mismatch(api, arg, "Norm", &rec->norm, s->norm);
    double norm = pc_dump_value_as_double(&rec->norm);
    if (close_value(norm, s->norm, s->norm, s))
        return PC_OK;
    /* torch 1.13 reduces float16/bfloat16 norms with half-precision partial sums (more so
     * over strided views): allow that error, eps of the dtype per level of a pairwise sum */
    double eps = pc_dtype_traits_of(s->dtype)->eps;
    double half_tol = eps * ceil(log2((double)s->numel + 1.0)) * fmax(fabs(norm), fabs(s->norm));
    if ((s->dtype == PC_DTYPE_F16 || s->dtype == PC_DTYPE_BF16) && isfinite(norm) &&
        fabs(norm - s->norm) <= half_tol) {
        if (norm_loose)
            *norm_loose = true;
        pc_error_set(PC_OK,
                     "Norm: the record says %.17g, the data give %.17g: equal only within "
                     "the error of a half-precision reduction",
                     norm, s->norm);
        fail_arg(PC_OK, api, arg);
        return PC_OK;
    }
    return mismatch(api, arg, "Norm", &rec->norm, s->norm);
}

pc_status pc_dump_check_tensor_file(const pc_dump *dump, const pc_dump_api *api,
                                    const pc_dump_arg *arg, bool *norm_loose)
{
    if (norm_loose)
        *norm_loose = false;
    pc_tensor t = PC_TENSOR_NULL;
    pc_tensor_stats stats;
    pc_status st = pc_dump_load_tensor(dump, api, arg, &t);
    if (!st)
        st = pc_tensor_stats_compute(&t, &stats);
    if (!st)
        st = pc_dump_verify_stats(api, arg, &stats, norm_loose);
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

int pc_dump_visit_tensors(const pc_dump_api *api, pc_dump_tensor_visitor fn, void *ctx)
{
    const pc_dump_entry *f = &api->forward;
    int r = visit_arg(api, &f->input_args, fn, ctx);
    for (size_t i = 0; i < f->kwarg_count && !r; i++)
        r = visit_arg(api, &f->kwargs[i].value, fn, ctx);
    if (!r)
        r = visit_arg(api, &f->output, fn, ctx);
    if (!r && api->backward) {
        r = visit_arg(api, &api->backward->input, fn, ctx);
        if (!r)
            r = visit_arg(api, &api->backward->output, fn, ctx);
    }
    return r;
}
