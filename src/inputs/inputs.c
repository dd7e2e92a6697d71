/* Rebuilding API inputs from dump records: real tensors, random tensors from statistics, and
 * msprobe's per-API preprocessing (docs/msprobe-contract.md#replay). */
#include "precheck/inputs/inputs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck/core/convert.h"
#include "precheck/core/log.h"
#include "precheck/core/pyrepr.h"
#include "precheck/core/rng.h"
#include "precheck/dump/api_rules.h"
#include "precheck/dump/data.h"

size_t pc_inputs_default_max_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 0;
    return (size_t)pages / 4 * (size_t)size;
}

void pc_inputs_begin(pc_inputs *ctx, const pc_dump *dump, uint64_t seed, const pc_dump_api *api)
{
    unsigned fix = pc_api_rule_of(api ? api->api_name : NULL)->inputs; /* api_rules.def */
    size_t max_bytes = ctx->max_bytes;
    memset(ctx, 0, sizeof *ctx);
    ctx->dump = dump;
    ctx->seed = seed;
    ctx->max_bytes = max_bytes;
    ctx->convert_from = ctx->convert_to = PC_DTYPE_INVALID;
    ctx->cross_entropy = (fix & PC_API_IN_CROSS_ENTROPY) != 0;
    ctx->histc = (fix & PC_API_IN_HISTC) != 0;
    ctx->hf32 = (fix & PC_API_IN_HF32) != 0;
    if (ctx->cross_entropy) {
        ctx->convert_from = PC_DTYPE_I32;
        ctx->convert_to = PC_DTYPE_I64;
    } else if (ctx->histc) {
        ctx->convert_from = PC_DTYPE_I64;
        ctx->convert_to = PC_DTYPE_F32;
    }
}

/* Python's repr of a statistic for msprobe's message. */
static void value_repr(char *buf, size_t size, const pc_dump_value *v)
{
    switch (v->kind) {
    case PC_DUMP_VALUE_ABSENT:
    case PC_DUMP_VALUE_NULL:
        snprintf(buf, size, "None");
        break;
    case PC_DUMP_VALUE_BOOL:
        snprintf(buf, size, "%s", v->u.b ? "True" : "False");
        break;
    case PC_DUMP_VALUE_INT:
        snprintf(buf, size, "%lld", (long long)v->u.i);
        break;
    case PC_DUMP_VALUE_FLOAT:
        pc_pyrepr_double(buf, size, v->u.f);
        break;
    case PC_DUMP_VALUE_STR:
        snprintf(buf, size, "'%s'", v->u.s);
        break;
    case PC_DUMP_VALUE_LIST:
        snprintf(buf, size, "[...]");
        break;
    default:
        snprintf(buf, size, "{...}");
        break;
    }
}

static bool truthy(const pc_dump_value *v)
{
    return pc_dump_value_is_number(v) && pc_dump_value_as_double(v) != 0.0;
}

static void store_flat_int(pc_tensor *t, int64_t i, int64_t v)
{
    pc_element_store_i64((char *)pc_tensor_data(t) + (size_t)i * pc_dtype_size(t->dtype), t->dtype,
                         v);
}

static void store_flat(pc_tensor *t, int64_t i, double v)
{
    char *p = (char *)pc_tensor_data(t) + (size_t)i * pc_dtype_size(t->dtype);
    pc_element_store(p, t->dtype, v, 0);
}

/* Python's int() of a statistic: truncation; NaN and infinities raise. */
static pc_status to_int(double x, int64_t *out)
{
    if (isnan(x))
        return pc_error_set(PC_ERR_INVALID, "cannot convert float NaN to integer");
    if (isinf(x))
        return pc_error_set(PC_ERR_INVALID, "cannot convert float infinity to integer");
    if (x >= 9223372036854775808.0 || x < -9223372036854775808.0)
        return pc_error_set(PC_ERR_RANGE, "value cannot be converted to type int64 without "
                                          "overflow");
    *out = (int64_t)x;
    return PC_OK;
}

/* Elements per chunk of the parallel fills; values depend only on the element index. */
#define GEN_CHUNK 16384

/* t = U * scale + low evaluated as torch does (float opmath below float64, rounded to the
 * dtype after each operation), U uniform in [0, 1) drawn in t's dtype. */
static void fill_affine(pc_tensor *t, const pc_rng_stream *s, double scale, double low)
{
    int64_t n = pc_tensor_numel(t), chunks = (n + GEN_CHUNK - 1) / GEN_CHUNK;
    pc_dtype dt = t->dtype;
    void *data = pc_tensor_data(t);
    float fs = (float)scale, fl = (float)low;
#pragma omp parallel for schedule(static) if (n > 4 * GEN_CHUNK)
    for (int64_t c = 0; c < chunks; c++) {
        int64_t i0 = c * GEN_CHUNK, i1 = i0 + GEN_CHUNK < n ? i0 + GEN_CHUNK : n;
        if (dt == PC_DTYPE_F64) { /* drawn and scaled in one pass, the same bits */
            pc_rng_fill_affine_f64(s, (uint64_t)i0, (double *)data + i0, (size_t)(i1 - i0), scale,
                                   low);
        } else if (dt == PC_DTYPE_F32) {
            pc_rng_fill_affine_f32(s, (uint64_t)i0, (float *)data + i0, (size_t)(i1 - i0), fs, fl);
        } else { /* float16, bfloat16 (float8 is drawn in float32 and cast after) */
            /* torch: U drawn in the dtype, U * scale and + low each rounded to it */
            float u[GEN_CHUNK];
            uint16_t *p = (uint16_t *)data + i0, h[GEN_CHUNK];
            size_t m = (size_t)(i1 - i0);
            pc_rng_fill_uniform(s, (uint64_t)i0, dt, u, m);
            for (size_t i = 0; i < m; i++)
                u[i] *= fs;
            if (dt == PC_DTYPE_F16) {
                pc_convert_f32_to_f16(h, u, m);
                pc_convert_f16_to_f32(u, h, m);
            } else {
                pc_convert_f32_to_bf16(h, u, m);
                pc_convert_bf16_to_f32(u, h, m);
            }
            for (size_t i = 0; i < m; i++)
                u[i] += fl;
            if (dt == PC_DTYPE_F16)
                pc_convert_f32_to_f16(p, u, m);
            else
                pc_convert_f32_to_bf16(p, u, m);
        }
    }
}

/* Integers uniform in [lo, hi] (bool: > 0 of them). */
static void fill_ints(pc_tensor *t, const pc_rng_stream *s, int64_t lo, int64_t hi, bool as_bool)
{
    int64_t n = pc_tensor_numel(t), chunks = (n + GEN_CHUNK - 1) / GEN_CHUNK;
    char *data = pc_tensor_data(t);
    const size_t es = pc_dtype_size(t->dtype);
    enum { BLOCK = 512 };
#pragma omp parallel for schedule(static) if (n > 4 * GEN_CHUNK)
    for (int64_t c = 0; c < chunks; c++) {
        int64_t i1 = (c + 1) * GEN_CHUNK < n ? (c + 1) * GEN_CHUNK : n;
        for (int64_t i0 = c * GEN_CHUNK; i0 < i1; i0 += BLOCK) {
            int64_t v[BLOCK], m = i1 - i0 < BLOCK ? i1 - i0 : BLOCK;
            pc_rng_fill_int_range(s, (uint64_t)i0, lo, hi, v, (size_t)m);
            for (int64_t j = 0; j < m; j++)
                pc_element_store_i64(data + (size_t)(i0 + j) * es, t->dtype,
                                     as_bool ? v[j] > 0 : v[j]);
        }
    }
}

static pc_status random_float(pc_tensor *t, const pc_rng_stream *s, double low, double high,
                              double low_origin, double high_origin, bool high_origin_truthy)
{
    int64_t n = pc_tensor_numel(t);
    pc_dtype dt = t->dtype;
    /* fp8: drawn and computed in float32, cast at the end (the caller casts) */
    if (isnan(high)) {
        pc_tensor_fill(t, (double)NAN);
        return PC_OK;
    }
    if (high_origin_truthy && isinf(high)) {
        if (t->rank == 0)
            return pc_error_set(PC_ERR_INVALID,
                                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python "
                                "or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a "
                                "number");
        pc_tensor_fill(t, high);
        int64_t slice = n / t->shape[0];
        for (int64_t i = n - slice; i < n; i++)
            store_flat(t, i, low);
        return PC_OK;
    }
    const pc_dtype_traits *tr = pc_dtype_traits_of(dt);
    double low_s = isinf(low) ? (low > 0 ? tr->max_finite : tr->lowest) : low;
    double high_s = isinf(high) ? (high > 0 ? tr->max_finite : tr->lowest) : high;
    fill_affine(t, s, high_s - low_s, low_s);
    if (n == 0)
        return PC_OK;
    if (high_origin_truthy && isnan(high_origin)) {
        if (n <= 2) {
            store_flat(t, 0, (double)NAN);
        } else {
            store_flat(t, 0, low);
            store_flat(t, 1, (double)NAN);
        }
        store_flat(t, n - 1, high);
        return PC_OK;
    }
    store_flat(t, 0, low);
    store_flat(t, n - 1, high);
    if (isinf(high_origin))
        store_flat(t, n - 1, high_origin);
    if (isinf(low_origin))
        store_flat(t, 0, low_origin);
    return PC_OK;
}

pc_status pc_inputs_random(const pc_dump_tensor *rec, pc_dtype dtype, bool min_floor_zero,
                           uint64_t seed, const char *key, pc_tensor *out)
{
    const pc_dump_value *lo_v =
        rec->min_except_inf_nan.kind != PC_DUMP_VALUE_ABSENT ? &rec->min_except_inf_nan : &rec->min;
    const pc_dump_value *hi_v =
        rec->max_except_inf_nan.kind != PC_DUMP_VALUE_ABSENT ? &rec->max_except_inf_nan : &rec->max;
    bool empty = false;
    for (int64_t d = 0; d < rec->rank; d++)
        empty |= rec->shape[d] == 0;
    if (dtype == PC_DTYPE_INVALID || pc_dtype_is_complex(dtype)) {
        /* msprobe logs this and raises with no text; the row says it here */
        pc_log_error("Dtype is not supported: %s", rec->dtype_name ? rec->dtype_name : "None");
        return pc_error_set(PC_ERR_UNSUPPORTED, "Dtype is not supported: %s",
                            rec->dtype_name ? rec->dtype_name : "None");
    }
    double low = 0, high = 0, low_origin = 0, high_origin = 0;
    bool high_truthy = false;
    if (!empty) {
        if (!pc_dump_value_is_number(lo_v) || !pc_dump_value_is_number(hi_v)) {
            char a[64], b[64];
            value_repr(a, sizeof a, lo_v);
            value_repr(b, sizeof b, hi_v);
            return pc_error_set(PC_ERR_INVALID,
                                "Data info Min: %s , Max: %s, info type must be int or float.", a,
                                b);
        }
        low = pc_dump_value_as_double(lo_v);
        high = pc_dump_value_as_double(hi_v);
        low_origin = pc_dump_value_as_double(&rec->min);
        high_origin = pc_dump_value_as_double(&rec->max);
        high_truthy = truthy(&rec->max);
        if (min_floor_zero && low_origin <= 0) /* cross_entropy: args[1].Min = 0 */
            low = low_origin = 0;
    }
    pc_dtype gen = dtype == PC_DTYPE_F8E4M3FN || dtype == PC_DTYPE_F8E5M2 ? PC_DTYPE_F32 : dtype;
    pc_tensor t = PC_TENSOR_NULL; /* every element is drawn or filled below */
    pc_status st = pc_tensor_alloc_uninit(&t, gen, rec->shape, (int)rec->rank);
    if (st != PC_OK)
        return st;
    pc_rng_stream s;
    pc_rng_stream_init(&s, seed, key);
    int64_t n = pc_tensor_numel(&t);
    if (empty || n == 0) {
        /* nothing to draw */
    } else if (gen == PC_DTYPE_BOOL) {
        int64_t lo = (int64_t)low, hi = (int64_t)high;
        if (isnan(low) || isnan(high)) {
            st = pc_error_set(PC_ERR_INVALID, "cannot convert float NaN to integer");
        } else {
            if (lo > hi) {
                int64_t x = lo;
                lo = hi;
                hi = x;
            }
            fill_ints(&t, &s, lo, hi, true);
        }
    } else if (pc_dtype_is_float(gen)) {
        st = random_float(&t, &s, low, high, low_origin, high_origin, high_truthy);
    } else {
        int64_t lo = 0, hi = 0;
        st = to_int(low, &lo);
        if (st == PC_OK)
            st = to_int(high, &hi);
        if (st == PC_OK && (hi == INT64_MAX || lo >= hi + 1))
            st = pc_error_set(PC_ERR_INVALID,
                              "random_ expects 'from' to be less than 'to', but got from=%lld "
                              ">= to=%lld",
                              (long long)lo, (long long)(hi == INT64_MAX ? hi : hi + 1));
        if (st == PC_OK) {
            fill_ints(&t, &s, lo, hi, false);
            store_flat_int(&t, 0, lo);
            store_flat_int(&t, n - 1, hi);
        }
    }
    if (st == PC_OK && gen != dtype)
        st = pc_tensor_cast(&t, &t, dtype);
    if (st != PC_OK) {
        pc_tensor_free(&t);
        return st;
    }
    *out = t;
    return PC_OK;
}

/* The dump module's messages start with the API's name; the binder names the API and the
 * argument itself, so the message loses its own prefix. */
static pc_status unprefixed(pc_status st, const pc_dump_api *api)
{
    const char *m = pc_error_message();
    size_t fl = strlen(api->full_name);
    if (strncmp(m, api->full_name, fl) == 0 && strncmp(m + fl, ": ", 2) == 0) {
        char copy[2048];
        snprintf(copy, sizeof copy, "%s", m + fl + 2);
        pc_error_set(st, "%s", copy);
    }
    return st;
}

/* npu_fusion_attention's atten_mask: with sparse_mode 2, 3 or 4 and no
 * data file, msprobe passes its fixed "compressed" mask, a 2048 x 2048 bool tensor true strictly
 * above the diagonal, whatever the record says. *is_sparse: whether sparse_mode (the kwarg's
 * value, 0 when missing) is one of those; a list or null sparse_mode is msprobe's error. */
static pc_status fa_sparse_mode(const pc_dump_api *api, bool *is_sparse)
{
    *is_sparse = false;
    const pc_dump_entry *e = &api->forward;
    for (size_t i = 0; i < e->kwarg_count; i++) {
        if (strcmp(e->kwargs[i].key, "sparse_mode") != 0)
            continue;
        const pc_dump_arg *v = &e->kwargs[i].value;
        bool raw_str = v->kind == PC_DUMP_ARG_RAW && v->value.kind == PC_DUMP_VALUE_STR;
        const char *bad = v->kind == PC_DUMP_ARG_LIST   ? "list"
                          : v->kind == PC_DUMP_ARG_NULL ? "NoneType"
                          : raw_str                     ? "str"
                                                        : NULL;
        if (bad)
            return pc_error_set(PC_ERR_INVALID,
                                "The sparse_mode value is not int or dict, but <class '%s'>", bad);
        bool boolean = v->value.kind == PC_DUMP_VALUE_BOOL; /* True == 1, False == 0 */
        double m = boolean ? -1.0 : pc_dump_value_as_double(&v->value);
        *is_sparse = m == 2.0 || m == 3.0 || m == 4.0;
        return PC_OK;
    }
    return PC_OK;
}

static bool is_fa_atten_mask(const pc_dump_api *api, const pc_dump_arg *arg)
{
    if (!(pc_api_rule_of(api->api_name)->inputs & PC_API_IN_FA_MASK)) /* npu_fusion_attention */
        return false;
    for (size_t i = 0; i < api->forward.kwarg_count; i++)
        if (&api->forward.kwargs[i].value == arg)
            return strcmp(api->forward.kwargs[i].key, "atten_mask") == 0;
    return false;
}

static pc_status fa_compressed_mask(pc_tensor *out)
{
    enum { N = 2048 };
    int64_t shape[2] = {N, N};
    pc_status st = pc_tensor_alloc(out, PC_DTYPE_BOOL, shape, 2);
    if (st != PC_OK)
        return st;
    uint8_t *m = pc_tensor_data(out);
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = i + 1; j < N; j++)
            m[i * N + j] = 1;
    return PC_OK;
}

pc_status pc_inputs_provide(void *vctx, const pc_dump_api *api, const pc_dump_arg *arg,
                            pc_tensor *out)
{
    if (is_fa_atten_mask(api, arg) && !pc_dump_tensor_file(arg->u.tensor)) {
        bool sparse = false;
        pc_status st = fa_sparse_mode(api, &sparse);
        if (st != PC_OK || sparse)
            return st != PC_OK ? st : fa_compressed_mask(out);
    }
    const pc_inputs *ctx = vctx;
    const pc_dump_tensor *rec = arg->u.tensor;
    char path[256];
    pc_dump_arg_path(api, arg, path, sizeof path);
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st;
    if (pc_dump_tensor_file(rec)) {
        if (!ctx->dump || !ctx->dump->has_real_data)
            return pc_error_set(PC_ERR_INVALID,
                                "expected str, bytes or os.PathLike object, not NoneType");
        st = pc_dump_load_tensor(ctx->dump, api, arg, &t);
        if (st != PC_OK)
            return unprefixed(st, api);
    } else {
        st = pc_dump_tensor_check(api, arg, ctx->max_bytes, NULL, NULL);
        if (st != PC_OK)
            return unprefixed(st, api);
        pc_dtype dt = rec->dtype;
        if (ctx->histc && (dt == PC_DTYPE_I8 || dt == PC_DTYPE_I32 || dt == PC_DTYPE_I64) &&
            strcmp(path, "input_args[0]") == 0)
            dt = PC_DTYPE_F32;
        if (ctx->convert_from != PC_DTYPE_INVALID && dt == ctx->convert_from)
            dt = ctx->convert_to;
        char key[512];
        snprintf(key, sizeof key, "%s/%s", api->full_name, path);
        bool floor_zero = ctx->cross_entropy && strcmp(path, "input_args[1]") == 0;
        st = pc_inputs_random(rec, dt, floor_zero, ctx->seed, key, &t);
        if (st != PC_OK)
            return st;
    }
    if (ctx->convert_from != PC_DTYPE_INVALID && t.dtype == ctx->convert_from) {
        st = pc_tensor_cast(&t, &t, ctx->convert_to);
        if (st != PC_OK) {
            pc_tensor_free(&t);
            return st;
        }
    }
    if (ctx->hf32 && t.dtype == PC_DTYPE_F32) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, &t);
        if (st == PC_OK && c.storage == t.storage) {
            /* the data may be a mapped file or shared: round a private copy */
            pc_tensor_free(&c);
            st = pc_tensor_alloc_like(&c, &t, PC_DTYPE_F32);
            if (st == PC_OK)
                st = pc_tensor_copy(&c, &t);
        }
        pc_tensor_free(&t);
        if (st != PC_OK) {
            pc_tensor_free(&c);
            return st;
        }
        pc_hf32_round_buffer(pc_tensor_data(&c), (size_t)pc_tensor_numel(&c));
        t = c;
    }
    *out = t;
    return PC_OK;
}
