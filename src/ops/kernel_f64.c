/*
 * Kernel support (ops/kernel.h) for the kernels that compute in float64: the reduction argument
 * of the losses and the rounding of one intermediate value the way torch rounds a tensor between
 * two of its ops.
 *
 * The losses compute in double from values converted exactly, and on the device round each
 * intermediate to the output dtype where torch's kernel holds it in that dtype (float32: a
 * float operation; bfloat16/float16: the float result rounded again, as torch's scalar types
 * do). A double holds the exact result of a float +, -, * and / of two floats closely enough
 * that rounding it once more to float gives the float operation's bits.
 */
#include <string.h>

#include "ops/kernel.h"
#include "precheck/core/convert.h"

double pc_fn_round(pc_dtype rd, double v)
{
    switch (rd) {
    case PC_DTYPE_F32:
        return (double)(float)v;
    case PC_DTYPE_BF16:
        return (double)pc_bf16_to_f32(pc_f32_to_bf16((float)v));
    case PC_DTYPE_F16:
        return (double)pc_f16_to_f32(pc_f32_to_f16((float)v));
    default:
        return v;
    }
}

pc_dtype pc_fn_round_dtype(pc_compute compute, pc_dtype od)
{
    return compute == PC_COMPUTE_BENCH ? PC_DTYPE_F64 : od;
}

pc_status pc_fn_reduction(const pc_op_call *call, int red_idx, int sa_idx, int reduce_idx,
                          bool batchmean, int *out)
{
    const pc_value *rv = &call->args[red_idx];
    if (rv->kind == PC_VALUE_INT) { /* the aten form: 0 none, 1 mean, 2 sum */
        if (rv->i < 0 || rv->i > 2)
            return pc_error_set(PC_ERR_INVALID, "%s: %lld is not a valid value for reduction",
                                call->full_name, (long long)rv->i);
        *out = rv->i == 0 ? PC_FN_RED_NONE : rv->i == 1 ? PC_FN_RED_MEAN : PC_FN_RED_SUM;
        return PC_OK;
    }
    const char *r = rv->kind == PC_VALUE_STR ? rv->s : "mean";
    bool legacy = (sa_idx >= 0 && call->args[sa_idx].kind == PC_VALUE_BOOL) ||
                  (reduce_idx >= 0 && call->args[reduce_idx].kind == PC_VALUE_BOOL);
    if (legacy) { /* size_average / reduce: torch's _Reduction.legacy_get_string */
        bool avg = sa_idx < 0 || call->args[sa_idx].kind != PC_VALUE_BOOL || call->args[sa_idx].b;
        bool red = reduce_idx < 0 || call->args[reduce_idx].kind != PC_VALUE_BOOL ||
                   call->args[reduce_idx].b;
        r = !red ? "none" : avg ? "mean" : "sum";
    }
    if (strcmp(r, "mean") == 0)
        *out = PC_FN_RED_MEAN;
    else if (strcmp(r, "sum") == 0)
        *out = PC_FN_RED_SUM;
    else if (strcmp(r, "none") == 0)
        *out = PC_FN_RED_NONE;
    else if (batchmean && strcmp(r, "batchmean") == 0)
        *out = PC_FN_RED_BATCHMEAN;
    else
        return pc_error_set(PC_ERR_INVALID, "%s: %s is not a valid value for reduction",
                            call->full_name, r);
    return PC_OK;
}

pc_status pc_fn_load_f64(const pc_op_call *call, const pc_tensor *t, const int64_t *shape, int rank,
                         pc_tensor *out)
{
    if (pc_tensor_numel(t) == 0 || rank == t->rank) {
        bool same = rank == t->rank;
        for (int i = 0; same && i < rank; i++)
            same = shape[i] == t->shape[i];
        if (same)
            return pc_kernel_load(call, t, PC_DTYPE_F64, out);
    }
    return pc_kernel_load_expand(call, t, shape, rank, PC_DTYPE_F64, out);
}

pc_status pc_fn_store_grad(const pc_op_call *call, pc_tensor *buf, const pc_tensor *like,
                           pc_tensor *out)
{
    bool same = buf->rank == like->rank;
    for (int i = 0; same && i < like->rank; i++)
        same = buf->shape[i] == like->shape[i];
    if (!same) {
        pc_tensor s = PC_TENSOR_NULL;
        pc_status st = pc_kernel_sum_to(call, buf, like->shape, like->rank, &s);
        pc_tensor_free(buf);
        if (st != PC_OK)
            return st;
        *buf = s;
    }
    return pc_kernel_store(call, buf, like->dtype, like->shape, like->rank, out);
}

/* torch 1.13's CPU sum of a contiguous row (SumKernel.cpp's vectorized_inner_sum): the row as
 * vectors of `lanes` elements; the vectors in groups of four into four vector accumulators
 * through the cascade of multi_row_sum (four levels, level_power = max(4, ceil(log2(groups))
 * / 4)), the leftover vectors into accumulator 0, accumulators 1..3 added into 0; then the
 * scalar tail summed in order, and the lanes of the accumulator added to it one by one. */
#define FN_ROW_SUM(T, NAME)                                                                        \
    static T NAME(const double *v, int64_t n, int lanes)                                           \
    {                                                                                              \
        enum { ILP = 4, LEVELS = 4, MAXL = 16 };                                                   \
        T acc[LEVELS][ILP][MAXL];                                                                  \
        memset(acc, 0, sizeof acc);                                                                \
        int64_t nvec = n / lanes, groups = nvec / ILP, lg = 0;                                     \
        while (((int64_t)1 << lg) < groups)                                                        \
            lg++;                                                                                  \
        int64_t power = lg / LEVELS > 4 ? lg / LEVELS : 4;                                         \
        int64_t step = (int64_t)1 << power, mask = step - 1;                                       \
        int64_t i = 0;                                                                             \
        while (i + step <= groups) {                                                               \
            for (int64_t j = 0; j < step; j++, i++)                                                \
                for (int k = 0; k < ILP; k++)                                                      \
                    for (int l = 0; l < lanes; l++)                                                \
                        acc[0][k][l] += (T)v[((i * ILP + k) * lanes) + l];                         \
            for (int j = 1; j < LEVELS; j++) {                                                     \
                for (int k = 0; k < ILP; k++)                                                      \
                    for (int l = 0; l < lanes; l++) {                                              \
                        acc[j][k][l] += acc[j - 1][k][l];                                          \
                        acc[j - 1][k][l] = 0;                                                      \
                    }                                                                              \
                if ((i & (mask << (j * power))) != 0)                                              \
                    break;                                                                         \
            }                                                                                      \
        }                                                                                          \
        for (; i < groups; i++)                                                                    \
            for (int k = 0; k < ILP; k++)                                                          \
                for (int l = 0; l < lanes; l++)                                                    \
                    acc[0][k][l] += (T)v[((i * ILP + k) * lanes) + l];                             \
        for (int j = 1; j < LEVELS; j++)                                                           \
            for (int k = 0; k < ILP; k++)                                                          \
                for (int l = 0; l < lanes; l++)                                                    \
                    acc[0][k][l] += acc[j][k][l];                                                  \
        for (int64_t r = groups * ILP; r < nvec; r++)                                              \
            for (int l = 0; l < lanes; l++)                                                        \
                acc[0][0][l] += (T)v[r * lanes + l];                                               \
        for (int k = 1; k < ILP; k++)                                                              \
            for (int l = 0; l < lanes; l++)                                                        \
                acc[0][0][l] += acc[0][k][l];                                                      \
        T s = 0;                                                                                   \
        for (int64_t r = nvec * lanes; r < n; r++)                                                 \
            s += (T)v[r];                                                                          \
        for (int l = 0; l < lanes; l++)                                                            \
            s += acc[0][0][l];                                                                     \
        return s;                                                                                  \
    }
FN_ROW_SUM(float, row_sum_f)
FN_ROW_SUM(double, row_sum_d)
#undef FN_ROW_SUM

double pc_fn_torch_sum(pc_dtype rd, const double *v, int64_t n)
{
    if (rd == PC_DTYPE_F64)
        return row_sum_d(v, n, 4);
    return pc_fn_round(rd, (double)row_sum_f(v, n, 8));
}
