/*
 * Kernel support (ops/kernel.h), used by the kernels of every family: contiguous compute
 * buffers. Such a kernel works on contiguous buffers of its compute dtype (float32 on the device,
 * float64 on the bench and for float64): the inputs are converted once
 * (pc_tensor_cast does the strided gather and the exact widening), the kernel runs, the result
 * is rounded once to the output dtype. The kernels that work a block at a time convert just
 * that block (pc_kernel_read) and round it into the output (pc_kernel_write), through the same
 * pc_convert_buffer as pc_tensor_cast, so either way gives the same bits.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ops/kernel.h"
#include "precheck/core/convert.h"

pc_dtype pc_kernel_compute_dtype(pc_compute compute, pc_dtype d)
{
    return (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64) ? PC_DTYPE_F64 : PC_DTYPE_F32;
}

pc_status pc_kernel_load(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out)
{
    pc_status st = pc_tensor_cast(out, t, cd);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

/* Whether t's memory already holds its values as compute dtype cd lays them out: the read-only
 * loads then use it in place. */
static bool holds_as(const pc_tensor *t, pc_dtype cd)
{
    return t->dtype == cd && pc_tensor_is_contiguous(t);
}

pc_status pc_kernel_load_ro(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out)
{
    if (holds_as(t, cd)) {
        pc_tensor_share(out, t);
        return PC_OK;
    }
    return pc_kernel_load(call, t, cd, out);
}

pc_status pc_kernel_load_expand(const pc_op_call *call, const pc_tensor *t, const int64_t *shape,
                                int rank, pc_dtype cd, pc_tensor *out)
{
    pc_tensor v = PC_TENSOR_NULL;
    pc_status st = pc_tensor_expand(&v, t, shape, rank);
    if (st == PC_OK)
        st = pc_tensor_cast(out, &v, cd);
    pc_tensor_free(&v);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

pc_status pc_kernel_store(const pc_op_call *call, pc_tensor *buf, pc_dtype od, const int64_t *shape,
                          int rank, pc_tensor *out)
{
    pc_tensor r = PC_TENSOR_NULL;
    pc_status st = pc_tensor_reshape(buf, buf, shape, rank);
    if (st == PC_OK) {
        if (buf->dtype == od) {
            *out = *buf;
            *buf = PC_TENSOR_NULL;
            return PC_OK;
        }
        st = pc_tensor_cast(&r, buf, od);
    }
    pc_tensor_free(buf);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    *out = r;
    return PC_OK;
}

/* One run of contiguous elements: the same conversion as pc_tensor_cast's (pc_convert_buffer;
 * a plain copy within a dtype). */
static void convert_run(void *dst, pc_dtype dd, const void *src, pc_dtype sd, int64_t n)
{
    if (n <= 0)
        return;
    if (dd == sd)
        memcpy(dst, src, (size_t)n * pc_dtype_size(dd));
    else
        pc_convert_buffer(dst, dd, src, sd, (size_t)n); /* float dtypes: cannot fail */
}

const void *pc_kernel_read_ro(const pc_tensor *t, int64_t start, int64_t count, pc_dtype cd,
                              void *dst)
{
    if (holds_as(t, cd))
        return (const unsigned char *)pc_tensor_data(t) + (size_t)start * pc_dtype_size(cd);
    pc_kernel_read(t, start, count, cd, dst);
    return dst;
}

void *pc_kernel_write_at(pc_tensor *out, int64_t start, pc_dtype cd, void *scratch)
{
    if (holds_as(out, cd))
        return (unsigned char *)pc_tensor_data(out) + (size_t)start * pc_dtype_size(cd);
    return scratch;
}

void pc_kernel_read(const pc_tensor *t, int64_t start, int64_t count, pc_dtype cd, void *dst)
{
    size_t ss = pc_dtype_size(t->dtype), ds = pc_dtype_size(cd);
    const unsigned char *base = pc_tensor_data(t);
    unsigned char *d = dst;
    if (count <= 0)
        return;
    if (pc_tensor_is_contiguous(t)) {
        convert_run(d, cd, base + (size_t)start * ss, t->dtype, count);
        return;
    }
    /* strided: runs along the last dimension, gathered in the source dtype and converted */
    enum { STAGE = 256 };
    _Alignas(64) unsigned char stage[STAGE * 16];
    int r = t->rank;
    int64_t idx[PC_TENSOR_MAX_DIMS], rem = start, off = 0;
    for (int i = r - 1; i >= 0; i--) {
        idx[i] = rem % t->shape[i];
        rem /= t->shape[i];
        off += idx[i] * t->strides[i];
    }
    int64_t st = t->strides[r - 1];
    while (count > 0) {
        int64_t run = t->shape[r - 1] - idx[r - 1];
        if (run > count)
            run = count;
        for (int64_t done = 0; done < run;) {
            int64_t k = run - done < STAGE ? run - done : STAGE;
            for (int64_t j = 0; j < k; j++)
                memcpy(stage + (size_t)j * ss, base + (size_t)(off + (done + j) * st) * ss, ss);
            convert_run(d, cd, stage, t->dtype, k);
            d += (size_t)k * ds;
            done += k;
        }
        count -= run;
        idx[r - 1] += run;
        off += run * st;
        for (int i = r - 1; i > 0 && idx[i] == t->shape[i]; i--) {
            off -= idx[i] * t->strides[i];
            idx[i] = 0;
            idx[i - 1]++;
            off += t->strides[i - 1];
        }
    }
}

void pc_kernel_read_via(const pc_tensor *t, int64_t start, int64_t count, pc_dtype via, void *stage,
                        pc_dtype cd, void *dst)
{
    if (via == t->dtype) {
        pc_kernel_read(t, start, count, cd, dst);
        return;
    }
    pc_kernel_read(t, start, count, via, stage);
    convert_run(dst, cd, stage, via, count);
}

void pc_kernel_write(pc_tensor *out, int64_t start, int64_t count, const void *src, pc_dtype cd)
{
    convert_run((unsigned char *)pc_tensor_data(out) + (size_t)start * pc_dtype_size(out->dtype),
                out->dtype, src, cd, count);
}

void pc_kernel_round(pc_tensor *buf, pc_dtype d)
{
    pc_kernel_round_n(pc_tensor_data(buf), buf->dtype, pc_tensor_numel(buf), d);
}

void pc_kernel_round_n(void *buf, pc_dtype cd, int64_t n, pc_dtype d)
{
    if (cd == PC_DTYPE_F32) {
        float *x = buf;
        if (d == PC_DTYPE_F16)
            for (int64_t i = 0; i < n; i++)
                x[i] = pc_f16_to_f32(pc_f32_to_f16(x[i]));
        else if (d == PC_DTYPE_BF16)
            for (int64_t i = 0; i < n; i++)
                x[i] = pc_bf16_to_f32(pc_f32_to_bf16(x[i]));
    } else if (cd == PC_DTYPE_F64) {
        double *x = buf;
        if (d == PC_DTYPE_F16)
            for (int64_t i = 0; i < n; i++)
                x[i] = (double)pc_f16_to_f32(pc_f64_to_f16(x[i]));
        else if (d == PC_DTYPE_BF16)
            for (int64_t i = 0; i < n; i++)
                x[i] = (double)pc_bf16_to_f32(pc_f64_to_bf16(x[i]));
        else if (d == PC_DTYPE_F32)
            for (int64_t i = 0; i < n; i++)
                x[i] = (double)(float)x[i];
    }
}

/* torch's cascade sum over the rows of x [R, C] (an outer reduction), per column: rows in
 * groups of four, row r of a group into accumulator r; every 2^p groups (p = max(4,
 * ceil(log2(groups)) / 4)) level 0 is added into level 1, which moves up the same way
 * (four levels); the rows left over after the last group go into the accumulators too, the
 * levels are added into level 0 and its four accumulators summed in order. Each step
 * rounded in T. The columns go SUM_COLS at a time, each with its own accumulators (acc:
 * LEVELS * ILP * SUM_COLS of T): every column sees the same additions in the same order as
 * alone, and a row's columns are read together (x row-major: a column alone would read a
 * cache line per element). */
#define SUM_COLS 32
#define SUM_ROWS(T, NAME)                                                                          \
    static void NAME(const T *x, int64_t R, int64_t C, T *out, T *acc)                             \
    {                                                                                              \
        enum { ILP = 4, LEVELS = 4, W = SUM_COLS };                                                \
        int64_t groups = R / ILP, lp = 0;                                                          \
        while (((int64_t)1 << lp) < groups)                                                        \
            lp++;                                                                                  \
        lp = lp / LEVELS > 4 ? lp / LEVELS : 4;                                                    \
        int64_t step = (int64_t)1 << lp, mask = step - 1;                                          \
        for (int64_t c0 = 0; c0 < C; c0 += W) {                                                    \
            int64_t nc = C - c0 < W ? C - c0 : W;                                                  \
            const T *xc = x + c0;                                                                  \
            memset(acc, 0, sizeof(T) * LEVELS * ILP * W);                                          \
            int64_t i = 0;                                                                         \
            while (i + step <= groups) {                                                           \
                for (int64_t j = 0; j < step; j++, i++)                                            \
                    for (int a = 0; a < ILP; a++)                                                  \
                        for (int64_t c = 0; c < nc; c++)                                           \
                            acc[a * W + c] += xc[(i * ILP + a) * C + c];                           \
                for (int j = 1; j < LEVELS; j++) {                                                 \
                    for (int a = 0; a < ILP; a++)                                                  \
                        for (int64_t c = 0; c < nc; c++) {                                         \
                            acc[(j * ILP + a) * W + c] += acc[((j - 1) * ILP + a) * W + c];        \
                            acc[((j - 1) * ILP + a) * W + c] = 0;                                  \
                        }                                                                          \
                    if ((i & (mask << (j * lp))) != 0)                                             \
                        break;                                                                     \
                }                                                                                  \
            }                                                                                      \
            for (; i < groups; i++)                                                                \
                for (int a = 0; a < ILP; a++)                                                      \
                    for (int64_t c = 0; c < nc; c++)                                               \
                        acc[a * W + c] += xc[(i * ILP + a) * C + c];                               \
            for (int64_t r = groups * ILP; r < R; r++)                                             \
                for (int64_t c = 0; c < nc; c++)                                                   \
                    acc[(r % ILP) * W + c] += xc[r * C + c];                                       \
            for (int j = 1; j < LEVELS; j++)                                                       \
                for (int a = 0; a < ILP; a++)                                                      \
                    for (int64_t c = 0; c < nc; c++)                                               \
                        acc[a * W + c] += acc[(j * ILP + a) * W + c];                              \
            for (int64_t c = 0; c < nc; c++) {                                                     \
                T t = acc[c];                                                                      \
                for (int a = 1; a < ILP; a++)                                                      \
                    t += acc[a * W + c];                                                           \
                out[c0 + c] = t;                                                                   \
            }                                                                                      \
        }                                                                                          \
    }
SUM_ROWS(float, sum_rows_f)
SUM_ROWS(double, sum_rows_d)
#undef SUM_ROWS

/* Whether shape (rank) is bshape with leading dimensions removed or set to 1, i.e. the sum
 * reduces rows of a [R, C] view; *rows and *cols are R and C. */
static bool leading_reduction(const int64_t *bshape, int brank, const int64_t *shape, int rank,
                              int64_t *rows, int64_t *cols)
{
    int lead = 0; /* dimensions of bshape that are summed, all of them leading */
    for (int d = 0; d < brank; d++) {
        int td = rank - brank + d;
        bool summed = td < 0 || (shape[td] == 1 && bshape[d] != 1);
        if (summed && lead != d)
            return false;
        if (summed)
            lead = d + 1;
    }
    *rows = 1;
    *cols = 1;
    for (int d = 0; d < brank; d++)
        *(d < lead ? rows : cols) *= bshape[d];
    return true;
}

/* The sums run as torch's do: a reduction of leading dimensions as its cascade sum over rows
 * (sum_rows), any other pattern in index order; in the buffer's own dtype. */
pc_status pc_kernel_sum_to(const pc_op_call *call, const pc_tensor *buf, const int64_t *shape,
                           int rank, pc_tensor *out)
{
    int brank = buf->rank;
    int64_t tstr[PC_TENSOR_MAX_DIMS], bs[PC_TENSOR_MAX_DIMS] = {0}, idx[PC_TENSOR_MAX_DIMS] = {0};
    pc_shape_contiguous_strides(shape, rank, tstr);
    for (int d = 0; d < brank; d++) {
        int td = rank - brank + d;
        bs[d] = (td < 0 || shape[td] == 1) ? 0 : tstr[td];
    }
    pc_tensor r = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&r, buf->dtype, shape, rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    int64_t n = pc_tensor_numel(buf);
    bool dbl = buf->dtype == PC_DTYPE_F64;
    const float *sf = pc_tensor_data(buf);
    const double *sd = pc_tensor_data(buf);
    float *df = pc_tensor_data(&r);
    double *dd = pc_tensor_data(&r);
    int64_t R, C;
    if (n > 0 && leading_reduction(buf->shape, brank, shape, rank, &R, &C)) {
        double accd[16 * SUM_COLS];
        float accf[16 * SUM_COLS];
        if (dbl)
            sum_rows_d(sd, R, C, dd, accd);
        else
            sum_rows_f(sf, R, C, df, accf);
        *out = r;
        return PC_OK;
    }
    int64_t off = 0;
    for (int64_t i = 0; i < n; i++) {
        if (dbl)
            dd[off] += sd[i];
        else
            df[off] += sf[i];
        for (int d = brank - 1; d >= 0; d--) {
            off += bs[d];
            if (++idx[d] < buf->shape[d])
                break;
            off -= bs[d] * idx[d];
            idx[d] = 0;
        }
    }
    *out = r;
    return PC_OK;
}

bool pc_kernel_wants_grad(const pc_op_call *call, int i)
{
    const pc_value *v = &call->args[i];
    return i < call->nargs && v->kind == PC_VALUE_TENSOR && !v->wrapped && v->requires_grad &&
           pc_dtype_is_float(v->tensor.dtype);
}

pc_status pc_kernel_same_dtype(const pc_op_call *call, const pc_tensor *a, const pc_tensor *b)
{
    pc_dtype ad = pc_kernel_dtype(call, a), bd = b ? pc_kernel_dtype(call, b) : ad;
    if (ad == bd)
        return PC_OK;
    return pc_error_set(PC_ERR_INVALID, "%s: expected scalar type %s but found %s", call->full_name,
                        pc_torch_type_name(ad), pc_torch_type_name(bd));
}

pc_dtype pc_kernel_dtype(const pc_op_call *call, const pc_tensor *t)
{
    return call->lazy_raise && pc_bench_raisable(t->dtype) ? (pc_dtype)(call->lazy_raise - 1)
                                                           : t->dtype;
}

void pc_kernel_result_type_add(const pc_op_call *call, pc_result_type *rt, const pc_tensor *t,
                               bool wrapped)
{
    pc_result_type_add_tensor_as(rt, t, pc_kernel_dtype(call, t), wrapped);
}

pc_status pc_kernel_need_float(const pc_op_call *call, const pc_tensor *t, const char *kernel)
{
    if (pc_dtype_is_float(t->dtype))
        return PC_OK;
    return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'", call->full_name,
                        kernel, pc_torch_type_name(t->dtype));
}

pc_status pc_kernel_nomem(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
}

int pc_kernel_dim(const pc_op_call *call, int64_t d, int rank)
{
    int64_t r = rank > 0 ? rank : 1;
    if (d < -r || d >= r) {
        pc_error_set(PC_ERR_INVALID,
                     "%s: Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64
                     "], but got %" PRId64 ")",
                     call->full_name, -r, r - 1, d);
        return -1;
    }
    return (int)(d < 0 ? d + r : d);
}
