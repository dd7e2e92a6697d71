/*
 * NPU.npu_moe_gating_top_k_softmax as msprobe's bench computes it
 * (docs/msprobe-contract.md#replay): per row of x [rows, E], p = softmax(x.float()) in float32
 * (max, exp(x - max), sum, divide), cast back to x's dtype; the expert indices are a stable
 * ascending argsort of -p (descending, ties to the lower expert, NaN last) cut to k; y = p at those
 * indices; a finished row's indices are E; row_idx[i][j] = j * rows + i. The bench runs it on its
 * raised inputs, so a float64 bench input still goes through float32: the result is the float32
 * softmax held in float64, like msprobe's CPU bench.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/sort/sort_impl.h"

static pc_status moe_check(const pc_op_call *call, const pc_tensor *x, const pc_tensor *fin,
                           int64_t k)
{
    if (!pc_dtype_is_float(x->dtype) || x->rank != 2)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: precheck runs npu_moe_gating_top_k_softmax on a 2-D float x "
                            "only (x is %s of rank %d)",
                            call->full_name, pc_dtype_name(x->dtype), x->rank);
    int64_t rows = x->shape[0], e = x->shape[1];
    if (k < 0 || k > e)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: precheck runs npu_moe_gating_top_k_softmax with 0 <= k <= %lld "
                            "only (k is %lld)",
                            call->full_name, (long long)e, (long long)k);
    if (e == 0 && rows > 0) /* the bench's softmax helper returns 0 on a zero row sum */
        return pc_error_set(PC_ERR_INVALID, "%s: 'int' object has no attribute 'to'",
                            call->full_name);
    if (fin && (fin->dtype != PC_DTYPE_BOOL || pc_tensor_numel(fin) != rows))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: finished must be a bool tensor of %lld elements (got %s, %lld)",
                            call->full_name, (long long)rows, pc_dtype_name(fin->dtype),
                            (long long)pc_tensor_numel(fin));
    return PC_OK;
}

/*
 * torch 1.13's float32 CPU kernels, as its AVX2 build runs them, so that the softmax is torch's
 * to the bit (checked on 10^5 values and rows of 3 to 4100): exp takes SLEEF's expf_u10
 * algorithm for every element (torch's vml map loads the last, partial vector too); the sum of
 * a contiguous row is its vectorised cascade sum (8 float lanes; rows under 8 elements: the
 * scalar cascade).
 */
#define VEC_LANES 8

/* SLEEF's expf_u10: d = q ln2 + s (ln2 in two parts), a degree-6 polynomial in s, scaled by
 * 2^q in two steps; every multiply-add fused. */
static float vec_expf(float d)
{
    if (isnan(d))
        return d;
    if (d < -104.0f)
        return 0.0f;
    if (d > 104.0f)
        return INFINITY;
    int q = (int)rintf(d * 1.442695040888963407359924681001892137426645954152985934135449406931f);
    float s = fmaf((float)q, -0.693145751953125f, d);
    s = fmaf((float)q, -1.428606765330187045e-06f, s);
    float u = 0.000198527617612853646278381f;
    u = fmaf(u, s, 0.00139304355252534151077271f);
    u = fmaf(u, s, 0.00833336077630519866943359f);
    u = fmaf(u, s, 0.0416664853692054748535156f);
    u = fmaf(u, s, 0.166666671633720397949219f);
    u = fmaf(u, s, 0.5f);
    u = 1.0f + fmaf(s * s, u, s);
    return u * ldexpf(1.0f, q >> 1) * ldexpf(1.0f, q - (q >> 1));
}

static int64_t ceil_log2(int64_t x)
{
    if (x <= 2)
        return 1;
    int64_t b = 0;
    for (uint64_t v = (uint64_t)(x - 1); v; v >>= 1)
        b++;
    return b;
}

/* torch's row_sum over count items (an item: lanes floats at v + i * lanes), lane by lane into
 * out[lanes]: four interleaved partial sums (items i * 4 + k), each a cascade of four levels,
 * the items left over added to the first, then the partials added in order. */
static void row_sum(const float *v, int64_t count, int lanes, float *out)
{
    enum { ILP = 4, LEVELS = 4 };
    int64_t size = count / ILP;
    int64_t power = ceil_log2(size) / LEVELS;
    if (power < 4)
        power = 4;
    int64_t step = (int64_t)1 << power, mask0 = step - 1;
    float acc[LEVELS][ILP][VEC_LANES] = {{{0}}};
    int64_t i = 0;
    while (i + step <= size) {
        for (int64_t j = 0; j < step; j++, i++)
            for (int k = 0; k < ILP; k++)
                for (int l = 0; l < lanes; l++)
                    acc[0][k][l] += v[(i * ILP + k) * lanes + l];
        for (int j = 1; j < LEVELS; j++) {
            for (int k = 0; k < ILP; k++)
                for (int l = 0; l < lanes; l++) {
                    acc[j][k][l] += acc[j - 1][k][l];
                    acc[j - 1][k][l] = 0;
                }
            if ((i & (mask0 << (j * power))) != 0)
                break;
        }
    }
    for (; i < size; i++)
        for (int k = 0; k < ILP; k++)
            for (int l = 0; l < lanes; l++)
                acc[0][k][l] += v[(i * ILP + k) * lanes + l];
    for (int j = 1; j < LEVELS; j++)
        for (int k = 0; k < ILP; k++)
            for (int l = 0; l < lanes; l++)
                acc[0][k][l] += acc[j][k][l];
    for (int64_t t = size * ILP; t < count; t++)
        for (int l = 0; l < lanes; l++)
            acc[0][0][l] += v[t * lanes + l];
    for (int k = 1; k < ILP; k++)
        for (int l = 0; l < lanes; l++)
            acc[0][0][l] += acc[0][k][l];
    memcpy(out, acc[0][0], (size_t)lanes * sizeof *out);
}

/* torch's float32 sum of a contiguous row of n. */
static float torch_sum_f32(const float *v, int64_t n)
{
    float r;
    if (n < VEC_LANES) {
        row_sum(v, n, 1, &r);
        return r;
    }
    float lane[VEC_LANES];
    int64_t nv = n / VEC_LANES;
    row_sum(v, nv, VEC_LANES, lane);
    r = 0;
    for (int64_t k = nv * VEC_LANES; k < n; k++)
        r += v[k];
    for (int l = 0; l < VEC_LANES; l++)
        r += lane[l];
    return r;
}

/* p of one row (e values of x's dtype at src, contiguous) as doubles of x's dtype; xf is
 * scratch of e floats. */
static void moe_softmax_row(const char *src, pc_dtype dt, int64_t e, float *xf, double *p)
{
    size_t es = pc_dtype_size(dt);
    float m = -INFINITY;
    bool nan = false;
    for (int64_t j = 0; j < e; j++) {
        double re, im;
        pc_element_load(src + (size_t)j * es, dt, &re, &im);
        xf[j] = (float)re;
        if (isnan(xf[j]))
            nan = true;
        else if (xf[j] > m)
            m = xf[j];
    }
    if (nan)
        m = NAN;
    for (int64_t j = 0; j < e; j++)
        xf[j] = vec_expf(xf[j] - m);
    float s = torch_sum_f32(xf, e);
    for (int64_t j = 0; j < e; j++)
        p[j] = pc_round_to_dtype((double)(xf[j] / s), dt);
}

pc_status pc_k_moe_gating_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x0 = pc_call_tensor(call, 0), *fin0 = pc_call_tensor(call, 1);
    int64_t k = call->args[2].i;
    pc_status st = moe_check(call, x0, fin0, k);
    if (st != PC_OK)
        return st;
    int64_t rows = x0->shape[0], e = x0->shape[1];
    int64_t shape[2] = {rows, k};
    pc_tensor x = PC_TENSOR_NULL, fin = PC_TENSOR_NULL;
    pc_tensor *y = &out->tensors[0], *ix = &out->tensors[1], *ri = &out->tensors[2];
    st = pc_tensor_contiguous(&x, x0);
    if (st == PC_OK && fin0)
        st = pc_tensor_contiguous(&fin, fin0);
    if (st == PC_OK)
        st = pc_tensor_alloc(y, x0->dtype, shape, 2);
    if (st == PC_OK)
        st = pc_tensor_alloc(ix, PC_DTYPE_I64, shape, 2);
    if (st == PC_OK)
        st = pc_tensor_alloc(ri, PC_DTYPE_I64, shape, 2);
    size_t m = (size_t)(e > 0 ? e : 1);
    float *xf = malloc(m * sizeof *xf);
    double *p = malloc(m * sizeof *p);
    int64_t *idx = malloc(m * sizeof *idx), *tmp = malloc(m * sizeof *tmp);
    if (st == PC_OK && (!xf || !p || !idx || !tmp))
        st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    if (st == PC_OK) {
        size_t es = pc_dtype_size(x0->dtype);
        const char *xs = pc_tensor_data(&x);
        const unsigned char *fs = fin0 ? pc_tensor_data(&fin) : NULL;
        char *yd = pc_tensor_data(y);
        int64_t *id = pc_tensor_data(ix), *rd = pc_tensor_data(ri);
        for (int64_t r = 0; r < rows; r++) {
            moe_softmax_row(xs + (size_t)(r * e) * es, x0->dtype, e, xf, p);
            for (int64_t j = 0; j < e; j++)
                p[j] = -p[j]; /* argsort(-p): NaN stays NaN and sorts last */
            pc_sort_indices(p, false, false, e, idx, tmp);
            for (int64_t j = 0; j < k; j++) {
                pc_element_store(yd + (size_t)(r * k + j) * es, x0->dtype, -p[idx[j]], 0);
                id[r * k + j] = fs && fs[r] != 0 ? e : idx[j];
                rd[r * k + j] = j * rows + r;
            }
        }
        out->count = 3;
    }
    free(xf);
    free(p);
    free(idx);
    free(tmp);
    pc_tensor_free(&x);
    pc_tensor_free(&fin);
    if (st != PC_OK) {
        pc_tensor_free(y);
        pc_tensor_free(ix);
        pc_tensor_free(ri);
    }
    return st;
}
