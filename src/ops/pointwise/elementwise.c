/*
 * Element-wise op families: unary math and activations, binary arithmetic, clamp, where,
 * masked_fill and the casts, forward and backward.
 *
 * Every kernel follows one path: decide the result dtype (promote.h), then walk the broadcast
 * iteration space in chunks of EW_CHUNK elements (ew_loop): per chunk, gather each operand into
 * a small per-thread buffer of the compute type (float for the device's fp16/bf16/fp32, double
 * for fp64 and the bench, int64 for integers and bool, so that integer results are exact and
 * wrap like torch's), run the loop of elementwise_kernel.inc, and round once straight into the
 * output tensor. Nothing of the size of the tensors is allocated besides the results, so a call
 * needs O(chunk x threads) memory of its own.
 *
 * Backward recomputes what it needs from the inputs; on the device the per-element gradient is
 * rounded to the computation dtype (as autograd holds it in that dtype). A gradient of an input
 * that was broadcast is summed over the broadcast dimensions in double, in an accumulator of the
 * input's size, in the order of the elements (such loops run on one thread), so the sum is the
 * same with any number of threads and the same as the first version's serial loop.
 */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/pointwise/pointwise_impl.h"
#include "ops/reduce/reduce_impl.h"

enum { EW_DIV_TRUE, EW_DIV_TRUNC, EW_DIV_FLOOR };

/* Elements per chunk: the buffers of one chunk (up to 8 of 8 bytes per element) stay in the
 * caches of one core, and a chunk is long enough that the per-chunk index arithmetic and the
 * calls of the converters are negligible. */
enum { EW_CHUNK = 4096 };

typedef enum ew_kind { EW_FLOAT, EW_DOUBLE, EW_INT } ew_kind;

/* How the elements of an operand become compute values. */
typedef enum ew_load_mode {
    EW_LOAD_F16, /* the value as it is, from the dtype named */
    EW_LOAD_BF16,
    EW_LOAD_F32,
    EW_LOAD_F64,
    EW_LOAD_EXACT, /* the value as it is, from any other dtype (through double) */
    EW_LOAD_ROUND, /* the value rounded to the computation dtype (cd) first */
    EW_LOAD_INT,   /* int64, exactly; 0/1 when cd is bool */
} ew_load_mode;

/* An operand over the iteration space: its element strides per iteration dimension, 0 where it
 * is broadcast. A sum target (the gradient of a broadcast input) is only walked: data NULL. */
typedef struct ew_src {
    const char *data; /* the storage's first byte */
    pc_dtype dtype;
    size_t esz;
    ew_kind kind; /* compute type of its buffer */
    ew_load_mode load;
    pc_dtype cd; /* EW_LOAD_ROUND: the dtype rounded to; EW_LOAD_INT: bool gives 0/1 */
    bool wrap;   /* EW_LOAD_INT: values converted to wrap_dtype first (torch casts integer */
    pc_dtype wrap_dtype; /* operands to the common dtype: 300 in a uint8 op is 44) */
    int64_t offset;
    int64_t strides[PC_TENSOR_MAX_DIMS];
} ew_src;

/* The parameters of a unary function (softplus: a beta, b threshold; elu/selu: a alpha,
 * b scale, c input scale; hardtanh/relu6: a min, b max; nan_to_num: a, b, c the values for
 * NaN, +inf and -inf, already in the output dtype). */
typedef struct ew_uparams {
    bool gelu_tanh;
    double a, b, c;
} ew_uparams;

#define PC_TWIN_TEMPLATE "ops/pointwise/elementwise_kernel.inc"
#include "ops/kernel_twins.h"

/* ---- shared plumbing ---- */

typedef struct ew_ctx {
    pc_compute compute;
    ew_kind kind;
    pc_dtype cd; /* the dtype values are computed in (rounded to on load) */
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t n;
    const char *name; /* full API name for messages */
} ew_ctx;

static ew_kind kind_of(pc_compute compute, pc_dtype d)
{
    if (!pc_dtype_is_float(d))
        return EW_INT;
    return (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64) ? EW_DOUBLE : EW_FLOAT;
}

static pc_status ew_init(ew_ctx *c, const pc_op_call *call, pc_compute compute, pc_dtype cd,
                         const pc_tensor *const *ts, int nts)
{
    memset(c, 0, sizeof *c);
    c->compute = compute;
    c->cd = cd;
    c->kind = kind_of(compute, cd);
    c->name = call->full_name;
    for (int i = 0; i < nts; i++) {
        if (!ts[i])
            continue;
        int64_t tmp[PC_TENSOR_MAX_DIMS];
        int r;
        pc_status st = pc_broadcast_shapes(c->shape, c->rank, ts[i]->shape, ts[i]->rank, tmp, &r);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        memcpy(c->shape, tmp, sizeof tmp);
        c->rank = r;
    }
    c->n = 1;
    for (int i = 0; i < c->rank; i++)
        c->n *= c->shape[i];
    return PC_OK;
}

/* How values of dtype src enter a computation in dtype cd: as they are where cd holds them
 * all (the same dtype, a wider float, or float64), else rounded to cd first. */
static ew_load_mode load_mode(ew_kind kind, pc_dtype src, pc_dtype cd)
{
    if (kind == EW_INT)
        return EW_LOAD_INT;
    bool as_is =
        src == cd || cd == PC_DTYPE_F64 ||
        (pc_dtype_is_float(src) && pc_dtype_is_float(cd) && pc_dtype_size(src) < pc_dtype_size(cd));
    if (!as_is)
        return EW_LOAD_ROUND;
    switch (src) {
    case PC_DTYPE_F16:
        return EW_LOAD_F16;
    case PC_DTYPE_BF16:
        return EW_LOAD_BF16;
    case PC_DTYPE_F32:
        return EW_LOAD_F32;
    case PC_DTYPE_F64:
        return EW_LOAD_F64;
    default:
        return EW_LOAD_EXACT;
    }
}

/* Strides over the context's dimensions of a tensor of tshape/tstrides broadcast to them. */
static void src_strides(const ew_ctx *c, ew_src *s, const int64_t *tshape, const int64_t *tstrides,
                        int trank)
{
    for (int d = 0; d < c->rank; d++) {
        int td = trank - c->rank + d;
        s->strides[d] = (td < 0 || tshape[td] == 1) ? 0 : tstrides[td];
    }
}

/* t as an operand computed in (kind, cd). */
static void src_of_tensor(const ew_ctx *c, ew_src *s, const pc_tensor *t, ew_kind kind, pc_dtype cd)
{
    memset(s, 0, sizeof *s);
    s->data = (const char *)pc_storage_data(t->storage);
    s->dtype = t->dtype;
    s->esz = pc_dtype_size(t->dtype);
    s->kind = kind;
    s->load = load_mode(kind, t->dtype, cd);
    s->cd = kind == EW_INT ? (cd == PC_DTYPE_BOOL ? PC_DTYPE_BOOL : PC_DTYPE_I64) : cd;
    s->offset = t->offset;
    src_strides(c, s, t->shape, t->strides, t->rank);
}

/* The iteration space: the context's shape without its dimensions of size 1 and with
 * neighbouring dimensions merged where every operand walks them as one (so that the inner runs
 * are long). Rewrites the operands' strides to it. */
typedef struct ew_iter {
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
} ew_iter;

static void iter_make(const ew_ctx *c, ew_src *const *srcs, int nsrc, ew_iter *it)
{
    it->rank = 0;
    for (int d = 0; d < c->rank; d++) {
        if (c->shape[d] == 1)
            continue;
        int r = it->rank;
        bool merge = r > 0;
        for (int k = 0; k < nsrc && merge; k++)
            merge = srcs[k]->strides[r - 1] == srcs[k]->strides[d] * c->shape[d];
        if (merge) {
            it->shape[r - 1] *= c->shape[d];
            for (int k = 0; k < nsrc; k++)
                srcs[k]->strides[r - 1] = srcs[k]->strides[d];
        } else {
            it->shape[r] = c->shape[d];
            for (int k = 0; k < nsrc; k++)
                srcs[k]->strides[r] = srcs[k]->strides[d];
            it->rank++;
        }
    }
}

/* The element offset of s at linear index i of the iteration; idx gets the multi-index. */
static int64_t walk_start(const ew_iter *it, const ew_src *s, int64_t i, int64_t *idx)
{
    int64_t off = s->offset;
    for (int d = it->rank - 1; d >= 0; d--) {
        idx[d] = i % it->shape[d];
        i /= it->shape[d];
        off += idx[d] * s->strides[d];
    }
    return off;
}

/* Elements left in the innermost dimension from idx, at most left. */
static int64_t walk_run(const ew_iter *it, const int64_t *idx, int64_t left)
{
    if (it->rank == 0)
        return left;
    int64_t r = it->shape[it->rank - 1] - idx[it->rank - 1];
    return r < left ? r : left;
}

static int64_t walk_inner_stride(const ew_iter *it, const ew_src *s)
{
    return it->rank ? s->strides[it->rank - 1] : 0;
}

/* off and idx moved on by a run of len elements (from walk_run), carrying into the outer
 * dimensions at the end of the innermost one. */
static int64_t walk_step(const ew_iter *it, const ew_src *s, int64_t *idx, int64_t off, int64_t len)
{
    int last = it->rank - 1;
    if (last < 0)
        return off;
    idx[last] += len;
    off += len * s->strides[last];
    if (idx[last] < it->shape[last])
        return off;
    off -= s->strides[last] * it->shape[last];
    idx[last] = 0;
    for (int d = last - 1; d >= 0; d--) {
        off += s->strides[d];
        if (++idx[d] < it->shape[d])
            return off;
        off -= s->strides[d] * it->shape[d];
        idx[d] = 0;
    }
    return off;
}

/* A double as an int64, saturated (NaN: 0), where C's conversion would be undefined. */
static int64_t f64_to_i64_sat(double v)
{
    if (isnan(v))
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* v converted to the integer dtype d (two's complement wrap-around, bool: v != 0). */
static int64_t int_wrap(pc_dtype d, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (d) {
    case PC_DTYPE_BOOL:
        return v != 0;
    case PC_DTYPE_U8:
        return (uint8_t)u;
    case PC_DTYPE_I8:
        return (int8_t)(uint8_t)u;
    case PC_DTYPE_I16:
        return (int16_t)(uint16_t)u;
    case PC_DTYPE_I32:
        return (int32_t)(uint32_t)u;
    default:
        return v;
    }
}

/* The integer form of gather_run: exact int64 values (0/1 for a bool computation). */
static void gather_run_i64(const ew_src *s, int64_t off, int64_t st, int64_t len, int64_t *dst)
{
    const char *p = s->data + (size_t)off * s->esz;
    size_t step = (size_t)st * s->esz;
    switch (s->dtype) {
    case PC_DTYPE_BOOL:
        for (int64_t j = 0; j < len; j++)
            dst[j] = p[(size_t)j * step] != 0;
        break;
    case PC_DTYPE_U8:
        for (int64_t j = 0; j < len; j++)
            dst[j] = (uint8_t)p[(size_t)j * step];
        break;
    case PC_DTYPE_I8:
        for (int64_t j = 0; j < len; j++)
            dst[j] = (int8_t)p[(size_t)j * step];
        break;
    case PC_DTYPE_I16:
        for (int64_t j = 0; j < len; j++) {
            int16_t v;
            memcpy(&v, p + (size_t)j * step, 2);
            dst[j] = v;
        }
        break;
    case PC_DTYPE_I32:
        for (int64_t j = 0; j < len; j++) {
            int32_t v;
            memcpy(&v, p + (size_t)j * step, 4);
            dst[j] = v;
        }
        break;
    default:
        for (int64_t j = 0; j < len; j++)
            dst[j] = pc_element_load_i64(p + (size_t)j * step, s->dtype);
        break;
    }
    if (s->cd == PC_DTYPE_BOOL)
        for (int64_t j = 0; j < len; j++)
            dst[j] = dst[j] != 0;
    if (s->wrap)
        for (int64_t j = 0; j < len; j++)
            dst[j] = int_wrap(s->wrap_dtype, dst[j]);
}

static void store_run_i64(const int64_t *src, pc_dtype d, char *dst, int64_t len)
{
    size_t sz = pc_dtype_size(d);
    if (d == PC_DTYPE_I64) {
        memcpy(dst, src, (size_t)len * 8);
        return;
    }
    for (int64_t j = 0; j < len; j++)
        pc_element_store_i64(dst + (size_t)j * sz, d, src[j]);
}

/* len values of s from linear index i0 of the iteration into dst (s->kind's type). */
static void gather(const ew_iter *it, const ew_src *s, int64_t i0, int64_t len, void *dst)
{
    int64_t idx[PC_TENSOR_MAX_DIMS];
    int64_t off = walk_start(it, s, i0, idx), st = walk_inner_stride(it, s);
    for (int64_t j = 0; j < len;) {
        int64_t run = walk_run(it, idx, len - j);
        if (s->kind == EW_FLOAT)
            gather_run_f(s, off, st, run, (float *)dst + j);
        else if (s->kind == EW_DOUBLE)
            gather_run_d(s, off, st, run, (double *)dst + j);
        else
            gather_run_i64(s, off, st, run, (int64_t *)dst + j);
        off = walk_step(it, s, idx, off, run);
        j += run;
    }
}

/* acc + v with the NaN that the first version's scalar loops kept where both are NaN (x86
 * keeps the first operand's; that loop added float terms as v + acc and double terms as
 * acc + v), written out so that it does not depend on the operand order the compiler picks. */
static inline double sum_step_f(double acc, double v)
{
    return isnan(v) ? v + 0.0 : acc + v;
}

static inline double sum_step_d(double acc, double v)
{
    return isnan(acc) ? acc + 0.0 : acc + v;
}

/* acc[target offset] += g over the len elements from linear index i0, in index order. */
static void accumulate(const ew_iter *it, const ew_src *s, ew_kind kind, const void *g, int64_t i0,
                       int64_t len, double *acc)
{
    int64_t idx[PC_TENSOR_MAX_DIMS];
    int64_t off = walk_start(it, s, i0, idx), st = walk_inner_stride(it, s);
    const float *gf = g;
    const double *gd = g;
    for (int64_t j = 0; j < len;) {
        int64_t run = walk_run(it, idx, len - j);
        double *a = acc + off;
        if (kind == EW_FLOAT)
            for (int64_t k = 0; k < run; k++)
                a[k * st] = sum_step_f(a[k * st], (double)gf[j + k]);
        else
            for (int64_t k = 0; k < run; k++)
                a[k * st] = sum_step_d(a[k * st], gd[j + k]);
        off = walk_step(it, s, idx, off, run);
        j += run;
    }
}

/* On the device, values autograd holds in a half dtype are rounded to it. */
static void round_device(const ew_ctx *c, void *buf, int64_t len)
{
    if (!buf || c->compute != PC_COMPUTE_DEVICE)
        return;
    if (c->kind == EW_FLOAT)
        round_chunk_f(c->cd, buf, len);
    else if (c->kind == EW_DOUBLE)
        round_chunk_d(c->cd, buf, len); /* fp64 on the device: nothing to round */
}

/* ---- the chunked loop ---- */

typedef enum ew_sink_kind {
    EW_SINK_NONE = 0,
    EW_SINK_STORE, /* a result of the context's shape */
    EW_SINK_GRAD,  /* the gradient of an input of the context's size: stored directly */
    EW_SINK_SUM,   /* the gradient of a broadcast input: summed over the broadcast dimensions */
} ew_sink_kind;

typedef struct ew_sink {
    ew_sink_kind kind;
    pc_dtype dtype;
    bool round;            /* GRAD, SUM: rounded to the computation dtype before the store */
    const pc_tensor *like; /* GRAD, SUM: the input */
    pc_tensor t;           /* the result */
    ew_src target;         /* SUM: where each element is added in acc */
    double *acc;           /* SUM: one double per element of the input */
} ew_sink;

enum { EW_MAX_IN = 4, EW_MAX_OUT = 3 };

typedef struct ew_loop ew_loop;

/* One chunk of an op: in[k] holds len gathered values of operand k (NULL for an absent one),
 * the function writes out[k] (NULL where the sink is NONE) and may use tmp (when the loop asked
 * for it). Returns 0, or an op-specific error code (the first one in index order wins). */
typedef int (*ew_chunk_fn)(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len);

struct ew_loop {
    const ew_ctx *c;
    ew_chunk_fn fn;
    const void *arg; /* the op's plan, for fn */
    int nin, nout;
    bool has_in[EW_MAX_IN];
    ew_src in[EW_MAX_IN];
    ew_sink out[EW_MAX_OUT];
    bool tmp; /* fn needs one more chunk buffer */
    int err;  /* after loop_run: fn's error code, 0 when none */
    ew_iter it;
};

static void loop_init(ew_loop *l, const ew_ctx *c, ew_chunk_fn fn, const void *arg)
{
    memset(l, 0, sizeof *l);
    l->c = c;
    l->fn = fn;
    l->arg = arg;
    for (int k = 0; k < EW_MAX_OUT; k++)
        l->out[k].t = PC_TENSOR_NULL;
}

/* The next operand: t computed in the context's type (NULL: absent). */
static void loop_input(ew_loop *l, const pc_tensor *t)
{
    int k = l->nin++;
    l->has_in[k] = t != NULL;
    if (t)
        src_of_tensor(l->c, &l->in[k], t, l->c->kind, l->c->cd);
}

/* Integer operands of another dtype than cd converted to it on load, as torch's
 * TensorIterator casts the inputs of a binary op to the common dtype (integer computations
 * only; floats are rounded to cd anyway). */
static void loop_wrap_inputs(ew_loop *l, pc_dtype cd)
{
    if (l->c->kind != EW_INT)
        return;
    for (int k = 0; k < l->nin; k++)
        if (l->has_in[k] && l->in[k].dtype != cd) {
            l->in[k].wrap = true;
            l->in[k].wrap_dtype = cd;
        }
}

/* The next operand as a condition: int64 0/1. */
static void loop_cond(ew_loop *l, const pc_tensor *t)
{
    int k = l->nin++;
    l->has_in[k] = true;
    src_of_tensor(l->c, &l->in[k], t, EW_INT, PC_DTYPE_BOOL);
}

/* The next output: a result of dtype in the context's shape. */
static void loop_store(ew_loop *l, pc_dtype dtype)
{
    ew_sink *k = &l->out[l->nout++];
    k->kind = EW_SINK_STORE;
    k->dtype = dtype;
}

/* The next output: the gradient of input like (NULL: not wanted). */
static void loop_grad(ew_loop *l, const pc_tensor *like)
{
    ew_sink *k = &l->out[l->nout++];
    if (!like)
        return;
    const ew_ctx *c = l->c;
    k->like = like;
    k->dtype = like->dtype;
    /* autograd sums in the computation dtype, then casts to the input's */
    k->round = c->compute == PC_COMPUTE_DEVICE && like->dtype != c->cd;
    if (pc_tensor_numel(like) == c->n) {
        k->kind = EW_SINK_GRAD; /* the same elements in the same order */
        return;
    }
    k->kind = EW_SINK_SUM;
    int64_t cstr[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(like->shape, like->rank, cstr);
    memset(&k->target, 0, sizeof k->target);
    src_strides(c, &k->target, like->shape, cstr, like->rank);
}

static void loop_free(ew_loop *l)
{
    for (int k = 0; k < l->nout; k++) {
        pc_tensor_free(&l->out[k].t);
        free(l->out[k].acc);
        l->out[k].acc = NULL;
    }
}

/* The gradient of one chunk into its tensor, as a sum of one term would give it: -0 becomes
 * +0 (the accumulator starts at +0), then the rounding, then the input's dtype. */
static void grad_store(const ew_ctx *c, const ew_sink *k, void *g, int64_t i0, int64_t len)
{
    char *dst = (char *)pc_tensor_data(&k->t) + (size_t)i0 * pc_dtype_size(k->dtype);
    if (c->kind == EW_FLOAT) {
        float *f = g;
        for (int64_t j = 0; j < len; j++)
            f[j] += 0.0f;
        if (k->round)
            round_chunk_f(c->cd, f, len);
        store_run_f(f, k->dtype, dst, len);
    } else {
        double *d = g;
        for (int64_t j = 0; j < len; j++)
            d[j] += 0.0;
        if (k->round)
            round_chunk_d(c->cd, d, len);
        store_run_d(d, k->dtype, dst, len);
    }
}

/* Bytes of one chunk's buffer (of any compute type). */
#define EW_BUF_BYTES ((size_t)EW_CHUNK * 8)

/* Gathers, computes and stores chunk ci: the gathered operands and tmp in the buffers at s,
 * the outputs in the nout buffers at o; returns fn's code. */
static int loop_chunk(const ew_loop *l, char *s, char *o, int64_t ci)
{
    const ew_ctx *c = l->c;
    int64_t i0 = ci * EW_CHUNK, len = c->n - i0 < EW_CHUNK ? c->n - i0 : EW_CHUNK;
    void *in[EW_MAX_IN] = {0}, *out[EW_MAX_OUT] = {0};
    for (int k = 0; k < l->nin; k++) {
        if (!l->has_in[k])
            continue;
        in[k] = s + (size_t)k * EW_BUF_BYTES;
        gather(&l->it, &l->in[k], i0, len, in[k]);
    }
    for (int k = 0; k < l->nout; k++)
        if (l->out[k].kind != EW_SINK_NONE)
            out[k] = o + (size_t)k * EW_BUF_BYTES;
    void *tmp = l->tmp ? s + (size_t)l->nin * EW_BUF_BYTES : NULL;
    int e = l->fn(l, in, out, tmp, len);
    if (e)
        return e;
    for (int k = 0; k < l->nout; k++) {
        const ew_sink *sk = &l->out[k];
        if (sk->kind == EW_SINK_STORE) {
            char *dst = (char *)pc_tensor_data(&sk->t) + (size_t)i0 * pc_dtype_size(sk->dtype);
            if (c->kind == EW_FLOAT)
                store_run_f(out[k], sk->dtype, dst, len);
            else if (c->kind == EW_DOUBLE)
                store_run_d(out[k], sk->dtype, dst, len);
            else
                store_run_i64(out[k], sk->dtype, dst, len);
        } else if (sk->kind == EW_SINK_GRAD) {
            grad_store(c, sk, out[k], i0, len);
        }
    }
    return 0;
}

/* Adds chunk ci's gradients (in the nout buffers at o) to the sums. */
static void loop_chunk_sum(const ew_loop *l, const char *o, int64_t ci)
{
    int64_t i0 = ci * EW_CHUNK, len = l->c->n - i0 < EW_CHUNK ? l->c->n - i0 : EW_CHUNK;
    for (int k = 0; k < l->nout; k++)
        if (l->out[k].kind == EW_SINK_SUM)
            accumulate(&l->it, &l->out[k].target, l->c->kind, o + (size_t)k * EW_BUF_BYTES, i0, len,
                       l->out[k].acc);
}

/*
 * Runs the loop over the context's elements: the results in l->out[k].t (the caller takes
 * them; loop_free frees what is left). When fn reports an error code, l->err is set, the results
 * are freed and PC_ERR_INVALID is returned without a message (the caller words it).
 *
 * Chunks are spread over the threads (static schedule); results element by element do not
 * depend on that. A loop with sums of broadcast gradients runs on one thread, chunk after chunk:
 * the additions are then in index order within each sum, as in the first version's serial loop,
 * with any thread count. (Computing blocks of chunks in parallel and adding them in order on
 * one thread was measured: with the threads meeting after every block it ran 6x slower than one
 * thread on a loaded 2-core machine, where a waiting thread's spin takes the time slice.)
 */
static pc_status loop_run(ew_loop *l)
{
    const ew_ctx *c = l->c;
    pc_status st = PC_OK;
    bool any_sum = false;
    ew_src *srcs[EW_MAX_IN + EW_MAX_OUT];
    int nsrc = 0;
    for (int k = 0; k < l->nin; k++)
        if (l->has_in[k])
            srcs[nsrc++] = &l->in[k];
    for (int k = 0; k < l->nout && st == PC_OK; k++) {
        ew_sink *sk = &l->out[k];
        switch (sk->kind) {
        case EW_SINK_STORE:
            st = pc_tensor_alloc(&sk->t, sk->dtype, c->shape, c->rank);
            break;
        case EW_SINK_GRAD:
            st = pc_tensor_alloc(&sk->t, sk->dtype, sk->like->shape, sk->like->rank);
            break;
        case EW_SINK_SUM: {
            int64_t tn = pc_tensor_numel(sk->like);
            sk->acc = calloc((size_t)(tn ? tn : 1), sizeof *sk->acc);
            if (!sk->acc)
                st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", c->name);
            srcs[nsrc++] = &sk->target;
            any_sum = true;
            break;
        }
        default:
            break;
        }
    }
    if (st != PC_OK) {
        loop_free(l);
        return st;
    }
    iter_make(c, srcs, nsrc, &l->it);
    int64_t nch = (c->n + EW_CHUNK - 1) / EW_CHUNK;
    if (nch > 0) {
        int nt = omp_get_max_threads();
        if (nt > nch)
            nt = (int)nch;
        if (nt < 1)
            nt = 1;
        if (any_sum)
            nt = 1;
        /* per thread: the operands, tmp and the outputs */
        size_t per_thread = (size_t)(l->nin + (l->tmp ? 1 : 0) + l->nout) * EW_BUF_BYTES;
        size_t outs = (size_t)l->nout * EW_BUF_BYTES;
        char *scratch = malloc(per_thread * (size_t)nt);
        if (!scratch) {
            loop_free(l);
            return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", c->name);
        }
        (void)pc_convert_isa(); /* the converters' choice of path, made before the threads */
        int64_t err_chunk = nch;
        int err = 0;
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
        for (int64_t ci = 0; ci < nch; ci++) {
            char *s = scratch + per_thread * (size_t)omp_get_thread_num(),
                 *o = s + per_thread - outs;
            int e = loop_chunk(l, s, o, ci);
            if (e) {
#pragma omp critical(ew_loop_err)
                if (ci < err_chunk) {
                    err_chunk = ci;
                    err = e;
                }
            } else if (any_sum) {
                loop_chunk_sum(l, o, ci); /* one thread: chunk after chunk */
            }
        }
        free(scratch);
        if (err) {
            l->err = err;
            loop_free(l);
            return PC_ERR_INVALID;
        }
    }
    for (int k = 0; k < l->nout && st == PC_OK; k++) {
        ew_sink *sk = &l->out[k];
        if (sk->kind != EW_SINK_SUM)
            continue;
        st = pc_tensor_alloc(&sk->t, sk->dtype, sk->like->shape, sk->like->rank);
        if (st != PC_OK)
            break;
        char *p = pc_tensor_data(&sk->t);
        size_t sz = pc_dtype_size(sk->dtype);
        int64_t tn = pc_tensor_numel(sk->like);
        for (int64_t i = 0; i < tn; i++)
            pc_element_store(p + (size_t)i * sz, sk->dtype,
                             sk->round ? pc_round_to_dtype(sk->acc[i], c->cd) : sk->acc[i], 0.0);
        free(sk->acc);
        sk->acc = NULL;
    }
    if (st != PC_OK)
        loop_free(l);
    return st;
}

/* Moves the gradient of output k (if any) into *dst. */
static void loop_take_grad(ew_loop *l, int k, pc_tensor *dst)
{
    if (l->out[k].kind == EW_SINK_NONE)
        return;
    *dst = l->out[k].t;
    l->out[k].t = PC_TENSOR_NULL;
}

/* In-place forms: the result goes into self, so it must have self's shape and its dtype must
 * be castable to self's. */
static pc_status ew_inplace_check(const ew_ctx *c, const pc_op_call *call, pc_dtype result,
                                  const pc_tensor *self)
{
    if (call->form != PC_FORM_INPLACE)
        return PC_OK;
    if (!pc_can_cast(result, self->dtype))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: result type %s can't be cast to the desired "
                            "output type %s",
                            call->full_name, pc_torch_type_name(result),
                            pc_torch_type_name(self->dtype));
    if (c->rank != self->rank || memcmp(c->shape, self->shape, sizeof(int64_t) * (size_t)c->rank)) {
        char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(a, sizeof a, self->shape, self->rank);
        pc_shape_format(b, sizeof b, c->shape, c->rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: output with shape %s doesn't match the "
                            "broadcast shape %s",
                            call->full_name, a, b);
    }
    return PC_OK;
}

static bool wants_grad(const pc_op_call *call, int i)
{
    const pc_value *v = &call->args[i];
    return v->kind == PC_VALUE_TENSOR && !v->wrapped && v->requires_grad &&
           pc_dtype_is_float(v->tensor.dtype);
}
/* ---- unary ---- */

typedef enum unary_rule {
    UR_KEEP,          /* any real dtype, kept (bool refused where the row says) */
    UR_FLOAT_PROMOTE, /* integers and bool give float32 */
    UR_FLOAT_ONLY,    /* integers and bool refused */
    UR_BOOL_OUT,      /* any real dtype, computed in it, a bool result */
    UR_INT_ONLY,      /* integers and bool, kept; floats refused */
} unary_rule;

static const struct {
    unary_rule rule;
    bool bool_ok;
    const char *bool_error; /* torch's message for bool input */
    const char *kernel;     /* torch's kernel name in "not implemented" messages */
} unary_info[PC_UNARY_COUNT] = {
    [PC_UNARY_NEG] = {UR_KEEP, false,
                      "Negation, the `-` operator, on a bool tensor is not "
                      "supported. If you are trying to invert a mask, use the `~` or "
                      "`logical_not()` operator instead.",
                      "neg"},
    [PC_UNARY_ABS] = {UR_KEEP, false, "\"abs_cpu\" not implemented for 'Bool'", "abs"},
    [PC_UNARY_EXP] = {UR_FLOAT_PROMOTE, true, NULL, "exp"},
    [PC_UNARY_LOG] = {UR_FLOAT_PROMOTE, true, NULL, "log"},
    [PC_UNARY_SQRT] = {UR_FLOAT_PROMOTE, true, NULL, "sqrt"},
    [PC_UNARY_RSQRT] = {UR_FLOAT_PROMOTE, true, NULL, "rsqrt"},
    [PC_UNARY_SQUARE] = {UR_KEEP, true, NULL, "square"},
    [PC_UNARY_RECIPROCAL] = {UR_FLOAT_PROMOTE, true, NULL, "reciprocal"},
    [PC_UNARY_SIGMOID] = {UR_FLOAT_PROMOTE, true, NULL, "sigmoid"},
    [PC_UNARY_TANH] = {UR_FLOAT_PROMOTE, true, NULL, "tanh"},
    [PC_UNARY_RELU] = {UR_KEEP, false, "Boolean inputs not supported for relu", "relu"},
    [PC_UNARY_SILU] = {UR_FLOAT_ONLY, false, NULL, "silu_cpu"},
    [PC_UNARY_GELU] = {UR_FLOAT_ONLY, false, NULL, "GeluKernelImpl"},
    [PC_UNARY_SIN] = {UR_FLOAT_PROMOTE, true, NULL, "sin"},
    [PC_UNARY_COS] = {UR_FLOAT_PROMOTE, true, NULL, "cos"},
    [PC_UNARY_ERF] = {UR_FLOAT_PROMOTE, true, NULL, "erf"},
    [PC_UNARY_SIGN] = {UR_KEEP, true, NULL, "sign"},
    [PC_UNARY_FLOOR] = {UR_KEEP, false, "\"floor_vml_cpu\" not implemented for 'Bool'", "floor"},
    [PC_UNARY_CEIL] = {UR_KEEP, false, "\"ceil_vml_cpu\" not implemented for 'Bool'", "ceil"},
    [PC_UNARY_ROUND] = {UR_KEEP, false, "\"round_vml_cpu\" not implemented for 'Bool'", "round"},
    [PC_UNARY_TRUNC] = {UR_KEEP, false, "\"trunc_vml_cpu\" not implemented for 'Bool'", "trunc"},
    [PC_UNARY_FRAC] = {UR_FLOAT_ONLY, false, NULL, "frac_cpu"},
    [PC_UNARY_EXP2] = {UR_FLOAT_PROMOTE, true, NULL, "exp2"},
    [PC_UNARY_EXPM1] = {UR_FLOAT_PROMOTE, true, NULL, "expm1"},
    [PC_UNARY_LOG2] = {UR_FLOAT_PROMOTE, true, NULL, "log2"},
    [PC_UNARY_LOG10] = {UR_FLOAT_PROMOTE, true, NULL, "log10"},
    [PC_UNARY_LOG1P] = {UR_FLOAT_PROMOTE, true, NULL, "log1p"},
    [PC_UNARY_SINH] = {UR_FLOAT_PROMOTE, true, NULL, "sinh"},
    [PC_UNARY_COSH] = {UR_FLOAT_PROMOTE, true, NULL, "cosh"},
    [PC_UNARY_ASIN] = {UR_FLOAT_PROMOTE, true, NULL, "asin"},
    [PC_UNARY_ACOS] = {UR_FLOAT_PROMOTE, true, NULL, "acos"},
    [PC_UNARY_ATAN] = {UR_FLOAT_PROMOTE, true, NULL, "atan"},
    [PC_UNARY_TAN] = {UR_FLOAT_PROMOTE, true, NULL, "tan"},
    [PC_UNARY_ERFINV] = {UR_FLOAT_PROMOTE, true, NULL, "erfinv"},
    [PC_UNARY_SOFTPLUS] = {UR_FLOAT_ONLY, false, NULL, "softplus_cpu"},
    [PC_UNARY_HARDSWISH] = {UR_FLOAT_ONLY, false, NULL, "hardswish_cpu"},
    [PC_UNARY_HARDSIGMOID] = {UR_FLOAT_ONLY, false, NULL, "hardsigmoid_cpu"},
    [PC_UNARY_MISH] = {UR_FLOAT_ONLY, false, NULL, "mish_cpu"},
    [PC_UNARY_ELU] = {UR_FLOAT_ONLY, false, NULL, "elu_cpu"},
    [PC_UNARY_SELU] = {UR_FLOAT_ONLY, false, NULL, "elu_cpu"},
    [PC_UNARY_LOGSIGMOID] = {UR_FLOAT_ONLY, false, NULL, "log_sigmoid_cpu"},
    [PC_UNARY_HARDTANH] = {UR_KEEP, false, "Bool inputs not supported for hardtanh", "hardtanh"},
    [PC_UNARY_RELU6] = {UR_KEEP, false, "Bool inputs not supported for hardtanh", "relu6"},
    [PC_UNARY_ISINF] = {UR_BOOL_OUT, true, NULL, "isinf"},
    [PC_UNARY_ISNAN] = {UR_BOOL_OUT, true, NULL, "isnan"},
    [PC_UNARY_ISFINITE] = {UR_BOOL_OUT, true, NULL, "isfinite"},
    [PC_UNARY_LOGICAL_NOT] = {UR_BOOL_OUT, true, NULL, "logical_not"},
    [PC_UNARY_BITWISE_NOT] = {UR_INT_ONLY, true, NULL, "bitwise_not_cpu"},
    [PC_UNARY_NAN_TO_NUM] = {UR_KEEP, true, NULL, "nan_to_num"},
};

typedef struct unary_plan {
    pc_unary k;
    ew_uparams up;
    pc_dtype od; /* the result's dtype */
    pc_dtype cd; /* the dtype it is computed in (od but for the bool results) */
} unary_plan;

/* A Scalar / float argument by name as a double (def where it is None or absent). */
static double arg_f64(const pc_op_call *call, const char *name, double def)
{
    int i = pc_schema_find_arg(call->op->schema, name);
    if (i < 0 || call->args[i].kind == PC_VALUE_NONE)
        return def;
    return call->args[i].f;
}

/* The parameters of p->k from the call, once p->od is known. */
static pc_status unary_params(const pc_op_call *call, unary_plan *p)
{
    ew_uparams *u = &p->up;
    switch (p->k) {
    case PC_UNARY_SOFTPLUS:
        u->a = arg_f64(call, "beta", 1.0);
        u->b = arg_f64(call, "threshold", 20.0);
        break;
    case PC_UNARY_ELU:
        u->a = arg_f64(call, "alpha", 1.0);
        u->b = 1.0;
        u->c = 1.0;
        break;
    case PC_UNARY_SELU:
        u->a = 1.6732632423543772848170429916717;
        u->b = 1.0507009873554804934193349852946;
        u->c = 1.0;
        break;
    case PC_UNARY_HARDTANH:
        u->a = arg_f64(call, "min_val", -1.0);
        u->b = arg_f64(call, "max_val", 1.0);
        break;
    case PC_UNARY_RELU6:
        u->a = 0.0;
        u->b = 6.0;
        break;
    case PC_UNARY_ROUND: {
        /* decimals: x * 10^d rounded, / 10^d (d < 0: x / 10^-d rounded, * 10^-d), as
         * torch's round_decimals kernel; integers and bool refused there */
        int i = pc_schema_find_arg(call->op->schema, "decimals");
        int64_t dec = i >= 0 && call->args[i].kind == PC_VALUE_INT ? call->args[i].i : 0;
        u->a = 1.0;
        if (dec != 0) {
            if (!pc_dtype_is_float(p->od))
                return pc_error_set(PC_ERR_INVALID, "%s: \"round_cpu\" not implemented for '%s'",
                                    call->full_name, pc_torch_type_name(p->od));
            u->a = pow(10.0, (double)(dec < 0 ? -dec : dec));
            u->b = dec < 0 ? 1.0 : 0.0;
        }
        break;
    }
    case PC_UNARY_NAN_TO_NUM:
        if (pc_dtype_is_float(p->od)) {
            double big = p->od == PC_DTYPE_F16    ? 65504.0
                         : p->od == PC_DTYPE_BF16 ? 3.3895313892515355e38
                         : p->od == PC_DTYPE_F32  ? 3.4028234663852886e38
                                                  : 1.7976931348623157e308;
            u->a = pc_round_to_dtype(arg_f64(call, "nan", 0.0), p->od);
            u->b = pc_round_to_dtype(arg_f64(call, "posinf", big), p->od);
            u->c = pc_round_to_dtype(arg_f64(call, "neginf", -big), p->od);
        }
        break;
    default:
        break;
    }
    return PC_OK;
}

/* The output dtype of a unary op on x (and its parameters), or an error. */
static pc_status unary_plan_make(const pc_op_call *call, unary_plan *p)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_unary k = (pc_unary)call->op->param;
    memset(p, 0, sizeof *p);
    p->k = k;
    pc_dtype d = x->dtype;
    if (pc_dtype_is_complex(d) || d == PC_DTYPE_F8E4M3FN || d == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(d));
    if (d == PC_DTYPE_BOOL && !unary_info[k].bool_ok && unary_info[k].bool_error)
        return pc_error_set(PC_ERR_INVALID, "%s: %s", call->full_name, unary_info[k].bool_error);
    if (k == PC_UNARY_GELU) {
        const pc_value *a = &call->args[1];
        if (strcmp(a->s, "tanh") == 0)
            p->up.gelu_tanh = true;
        else if (strcmp(a->s, "none") != 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: approximate argument must be either none "
                                "or tanh.",
                                call->full_name);
    }
    switch (unary_info[k].rule) {
    case UR_KEEP:
        p->od = (k == PC_UNARY_SQUARE && d == PC_DTYPE_BOOL) ? PC_DTYPE_I64 : d;
        break;
    case UR_FLOAT_PROMOTE:
        p->od = pc_dtype_is_float(d) ? d : PC_DTYPE_F32;
        break;
    case UR_FLOAT_ONLY:
        if (!pc_dtype_is_float(d))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'",
                                call->full_name, unary_info[k].kernel, pc_torch_type_name(d));
        p->od = d;
        break;
    case UR_BOOL_OUT:
        p->od = PC_DTYPE_BOOL;
        break;
    case UR_INT_ONLY:
        if (pc_dtype_is_float(d))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'",
                                call->full_name, unary_info[k].kernel, pc_torch_type_name(d));
        p->od = d;
        break;
    }
    p->cd = unary_info[k].rule == UR_BOOL_OUT ? d : p->od;
    return unary_params(call, p);
}

/* The integer forms (exact; bool values are 0/1 when is_bool). */
static void unary_int(const unary_plan *p, bool is_bool, int64_t *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = (uint64_t)x[i];
        switch (p->k) {
        case PC_UNARY_NEG:
            x[i] = (int64_t)(0u - u);
            break;
        case PC_UNARY_ABS:
            x[i] = x[i] < 0 ? (int64_t)(0u - u) : x[i];
            break;
        case PC_UNARY_SQUARE:
            x[i] = (int64_t)(u * u);
            break;
        case PC_UNARY_RELU:
            x[i] = x[i] > 0 ? x[i] : 0;
            break;
        case PC_UNARY_SIGN:
            x[i] = (x[i] > 0) - (x[i] < 0);
            break;
        case PC_UNARY_HARDTANH:
        case PC_UNARY_RELU6: {
            /* the bounds as integers (torch converts the Scalar bounds to the dtype) */
            int64_t lo = f64_to_i64_sat(p->up.a), hi = f64_to_i64_sat(p->up.b);
            x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
            break;
        }
        case PC_UNARY_ISINF:
        case PC_UNARY_ISNAN:
            x[i] = 0;
            break;
        case PC_UNARY_ISFINITE:
            x[i] = 1;
            break;
        case PC_UNARY_LOGICAL_NOT:
            x[i] = x[i] == 0;
            break;
        case PC_UNARY_BITWISE_NOT:
            x[i] = is_bool ? !x[i] : (int64_t)~u;
            break;
        default: /* floor, ceil, round, trunc, nan_to_num: the value */
            break;
        }
    }
}

static int unary_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    const unary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT) {
        unary_fwd_f(p->k, &p->up, in[0], out[0], len);
    } else if (l->c->kind == EW_DOUBLE) {
        unary_fwd_d(p->k, &p->up, in[0], out[0], len);
    } else {
        memcpy(out[0], in[0], (size_t)len * 8);
        unary_int(p, p->cd == PC_DTYPE_BOOL, out[0], len);
    }
    return 0;
}

pc_status pc_k_unary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    unary_plan p;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = unary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.cd, &x, 1)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, p.od, x)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, unary_fwd_chunk, &p);
    loop_input(&l, x);
    loop_store(&l, call->form == PC_FORM_INPLACE ? x->dtype : p.od);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: x, dy; out: dx; tmp: the forward result, rounded to the output dtype as autograd saw
 * it. */
static int unary_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    const unary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT) {
        unary_fwd_f(p->k, &p->up, in[0], tmp, len);
        round_chunk_f(p->od, tmp, len);
        unary_bwd_f(p->k, &p->up, in[0], tmp, in[1], out[0], len);
    } else {
        unary_fwd_d(p->k, &p->up, in[0], tmp, len);
        unary_bwd_d(p->k, &p->up, in[0], tmp, in[1], out[0], len);
    }
    round_device(l->c, out[0], len);
    return 0;
}

pc_status pc_k_unary_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    unary_plan p;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = unary_plan_make(call, &p);
    if (st != PC_OK || !wants_grad(call, 0) || !pc_dtype_is_float(p.od))
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, &x, 1)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, unary_bwd_chunk, &p);
    loop_input(&l, x);
    loop_input(&l, grad_out);
    loop_grad(&l, x);
    l.tmp = true;
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    loop_take_grad(&l, 0, &out->grads[0]);
    return PC_OK;
}
/* ---- binary ---- */

typedef struct binary_plan {
    pc_binary k;
    int mode;
    pc_dtype od;         /* output dtype */
    pc_dtype cd;         /* computation dtype: od, or the operands' common dtype for bool results */
    pc_dtype sq_a, sq_b; /* backward of atan2 on the device: see binary_bwd */
    double alpha;
    int64_t alpha_i;
} binary_plan;

/* Whether a Scalar argument of value v overflows dtype d when torch converts it (c10's
 * checked conversion): the C++ type name of its message, or NULL when it fits. Unsigned
 * types take negative values down to -max (they wrap); infinities and NaN fit a float. */
static const char *scalar_overflows(pc_dtype d, double v)
{
    switch (d) {
    case PC_DTYPE_U8:
        return (v > 255 || v < -255) ? "uint8_t" : NULL;
    case PC_DTYPE_I8:
        return (v > 127 || v < -128) ? "int8_t" : NULL;
    case PC_DTYPE_I16:
        return (v > 32767 || v < -32768) ? "int16_t" : NULL;
    case PC_DTYPE_I32:
        return (v > 2147483647.0 || v < -2147483648.0) ? "int" : NULL;
    case PC_DTYPE_F16:
        return (isfinite(v) && fabs(v) > 65504.0) ? "at::Half" : NULL;
    case PC_DTYPE_BF16:
        return (isfinite(v) && fabs(v) > 3.3895313892515355e38) ? "at::BFloat16" : NULL;
    case PC_DTYPE_F32:
        return (isfinite(v) && fabs(v) > 3.4028234663852886e38) ? "float" : NULL;
    default:
        return NULL;
    }
}

static pc_status binary_plan_make(const pc_op_call *call, binary_plan *p)
{
    const pc_value *va = &call->args[0], *vb = &call->args[1];
    const pc_tensor *a = &va->tensor, *b = &vb->tensor;
    p->k = (pc_binary)call->op->param;
    p->mode = EW_DIV_TRUE;
    p->sq_a = p->sq_b = PC_DTYPE_INVALID;
    p->alpha = 1;
    p->alpha_i = 1;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, a, va->wrapped);
    pc_result_type_add_tensor(&rt, b, vb->wrapped);
    pc_dtype common = pc_result_type_get(&rt);
    if (pc_dtype_is_complex(common) || common == PC_DTYPE_F8E4M3FN || common == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(common));
    int ialpha = pc_schema_find_arg(call->op->schema, "alpha");
    if (ialpha >= 0) {
        const pc_value *al = &call->args[ialpha];
        if (!pc_dtype_is_float(common) && al->kind == PC_VALUE_FLOAT)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: For integral input tensors, argument alpha "
                                "must not be a floating point number.",
                                call->full_name);
        if (common == PC_DTYPE_BOOL && al->kind == PC_VALUE_INT && al->i != 0 && al->i != 1)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Boolean alpha only supported for Boolean "
                                "results.",
                                call->full_name);
        p->alpha = al->f;
        p->alpha_i = al->i;
    }
    if (p->k == PC_BINARY_SUB || p->k == PC_BINARY_RSUB) {
        if (a->dtype == PC_DTYPE_BOOL && b->dtype == PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Subtraction, the `-` operator, with two bool "
                                "tensors is not supported. Use the `^` or `logical_xor()` "
                                "operator instead.",
                                call->full_name);
        if (a->dtype == PC_DTYPE_BOOL || b->dtype == PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Subtraction, the `-` operator, with a bool "
                                "tensor is not supported. If you are trying to invert a mask, "
                                "use the `~` or `logical_not()` operator instead.",
                                call->full_name);
    }
    p->od = common;
    if (p->k == PC_BINARY_DIV) {
        const pc_value *rm = &call->args[2];
        if (rm->kind == PC_VALUE_STR) {
            if (strcmp(rm->s, "trunc") == 0)
                p->mode = EW_DIV_TRUNC;
            else if (strcmp(rm->s, "floor") == 0)
                p->mode = EW_DIV_FLOOR;
            else
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: div expected rounding_mode to be one of "
                                    "None, 'trunc', or 'floor' but found '%s'",
                                    call->full_name, rm->s);
        }
        if (p->mode == EW_DIV_TRUE && !pc_dtype_is_float(common))
            p->od = PC_DTYPE_F32;
    }
    p->cd = p->od;
    switch (p->k) {
    case PC_BINARY_EQ:
    case PC_BINARY_NE:
    case PC_BINARY_LT:
    case PC_BINARY_LE:
    case PC_BINARY_GT:
    case PC_BINARY_GE:
    case PC_BINARY_LOGICAL_AND:
    case PC_BINARY_LOGICAL_OR:
    case PC_BINARY_LOGICAL_XOR:
        p->od = PC_DTYPE_BOOL;
        break;
    case PC_BINARY_BITWISE_AND:
    case PC_BINARY_BITWISE_OR:
    case PC_BINARY_BITWISE_XOR:
        if (pc_dtype_is_float(common))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s_cpu\" not implemented for '%s'",
                                call->full_name, call->op->name, pc_torch_type_name(common));
        break;
    case PC_BINARY_ATAN2:
        if (!pc_dtype_is_float(common))
            p->od = p->cd = PC_DTYPE_F32;
        break;
    case PC_BINARY_FLOOR_DIVIDE:
    case PC_BINARY_REMAINDER:
    case PC_BINARY_FMOD:
        if (common == PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s_cpu\" not implemented for 'Bool'",
                                call->full_name,
                                p->k == PC_BINARY_FLOOR_DIVIDE ? "div_floor" : call->op->name);
        p->mode = p->k == PC_BINARY_FLOOR_DIVIDE ? EW_DIV_FLOOR : p->mode;
        break;
    default:
        break;
    }
    if (p->k == PC_BINARY_POW && common == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"pow\" not implemented for 'Bool'",
                            call->full_name);
    if (p->k == PC_BINARY_POW && vb->wrapped) {
        /* pow(Tensor, Scalar) converts the exponent to the result dtype, checked */
        double e;
        pc_element_load(pc_tensor_data(b), b->dtype, &e, NULL);
        const char *tn = scalar_overflows(p->od, e);
        if (tn)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: value cannot be converted to type %s without overflow",
                                call->full_name, tn);
    }
    return PC_OK;
}

static int64_t ipow(int64_t base, int64_t e)
{
    uint64_t r = 1, b = (uint64_t)base;
    while (e > 0) {
        if (e & 1)
            r *= b;
        b *= b;
        e >>= 1;
    }
    return (int64_t)r;
}

enum { EW_ERR_ZERO_DIV = 1, EW_ERR_NEG_POW };

/* y = a op b exactly, wrapping like torch; 0, or the error code of the first element torch
 * refuses. */
static int binary_int(const binary_plan *p, const int64_t *a, const int64_t *b, int64_t *y,
                      int64_t n)
{
    uint64_t al = (uint64_t)p->alpha_i;
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)a[i], z = (uint64_t)b[i];
        switch (p->k) {
        case PC_BINARY_ADD:
            y[i] = (int64_t)(x + al * z);
            break;
        case PC_BINARY_SUB:
            y[i] = (int64_t)(x - al * z);
            break;
        case PC_BINARY_RSUB:
            y[i] = (int64_t)(z - al * x);
            break;
        case PC_BINARY_MUL:
            y[i] = (int64_t)(x * z);
            break;
        case PC_BINARY_DIV: {
            if (b[i] == 0)
                return EW_ERR_ZERO_DIV;
            if (a[i] == INT64_MIN && b[i] == -1) {
                y[i] = INT64_MIN;
                break;
            }
            int64_t q = a[i] / b[i];
            if (p->mode == EW_DIV_FLOOR && (a[i] % b[i] != 0) && ((a[i] < 0) != (b[i] < 0)))
                q -= 1;
            y[i] = q;
            break;
        }
        case PC_BINARY_POW:
            if (b[i] < 0) {
                if (a[i] == 1)
                    y[i] = 1;
                else if (a[i] == -1)
                    y[i] = (b[i] & 1) ? -1 : 1;
                else
                    return EW_ERR_NEG_POW;
            } else {
                y[i] = ipow(a[i], b[i]);
            }
            break;
        case PC_BINARY_FLOOR_DIVIDE: {
            if (b[i] == 0)
                return EW_ERR_ZERO_DIV;
            if (a[i] == INT64_MIN && b[i] == -1) {
                y[i] = INT64_MIN;
                break;
            }
            int64_t q = a[i] / b[i];
            if ((a[i] % b[i] != 0) && ((a[i] < 0) != (b[i] < 0)))
                q -= 1;
            y[i] = q;
            break;
        }
        case PC_BINARY_REMAINDER:
        case PC_BINARY_FMOD: {
            if (b[i] == 0)
                return EW_ERR_ZERO_DIV;
            int64_t r = b[i] == -1 ? 0 : a[i] % b[i];
            if (p->k == PC_BINARY_REMAINDER && r != 0 && ((r < 0) != (b[i] < 0)))
                r += b[i];
            y[i] = r;
            break;
        }
        case PC_BINARY_EQ:
            y[i] = a[i] == b[i];
            break;
        case PC_BINARY_NE:
            y[i] = a[i] != b[i];
            break;
        case PC_BINARY_LT:
            y[i] = a[i] < b[i];
            break;
        case PC_BINARY_LE:
            y[i] = a[i] <= b[i];
            break;
        case PC_BINARY_GT:
            y[i] = a[i] > b[i];
            break;
        case PC_BINARY_GE:
            y[i] = a[i] >= b[i];
            break;
        case PC_BINARY_LOGICAL_AND:
            y[i] = a[i] != 0 && b[i] != 0;
            break;
        case PC_BINARY_LOGICAL_OR:
            y[i] = a[i] != 0 || b[i] != 0;
            break;
        case PC_BINARY_LOGICAL_XOR:
            y[i] = (a[i] != 0) != (b[i] != 0);
            break;
        case PC_BINARY_BITWISE_AND:
            y[i] = (int64_t)(x & z);
            break;
        case PC_BINARY_BITWISE_OR:
            y[i] = (int64_t)(x | z);
            break;
        case PC_BINARY_BITWISE_XOR:
            y[i] = (int64_t)(x ^ z);
            break;
        case PC_BINARY_MAXIMUM:
            y[i] = a[i] > b[i] ? a[i] : b[i];
            break;
        case PC_BINARY_MINIMUM:
            y[i] = a[i] < b[i] ? a[i] : b[i];
            break;
        default:
            break;
        }
    }
    return 0;
}

static int binary_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                            int64_t len)
{
    const binary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT)
        binary_fwd_f(p->k, p->mode, (float)p->alpha, in[0], in[1], out[0], len);
    else if (l->c->kind == EW_DOUBLE)
        binary_fwd_d(p->k, p->mode, p->alpha, in[0], in[1], out[0], len);
    else
        return binary_int(p, in[0], in[1], out[0], len);
    return 0;
}

pc_status pc_k_binary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    binary_plan p;
    pc_status st = binary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.cd, ts, 2)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, p.od, ts[0])) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, binary_fwd_chunk, &p);
    loop_input(&l, ts[0]);
    loop_input(&l, ts[1]);
    if (p.k != PC_BINARY_POW) /* torch's pow(Tensor, Scalar) keeps the exponent as it is */
        loop_wrap_inputs(&l, p.cd);
    loop_store(&l, call->form == PC_FORM_INPLACE ? ts[0]->dtype : p.od);
    if ((st = loop_run(&l)) != PC_OK) {
        if (l.err == EW_ERR_ZERO_DIV)
            return pc_error_set(PC_ERR_INVALID, "%s: ZeroDivisionError", call->full_name);
        if (l.err == EW_ERR_NEG_POW)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Integers to negative integer powers "
                                "are not allowed.",
                                call->full_name);
        return st;
    }
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: a, b, dy; out: da, db (either may be absent). */
static int binary_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                            int64_t len)
{
    const binary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT)
        binary_bwd_f(p->k, p->mode, (float)p->alpha, p->sq_a, p->sq_b, in[0], in[1], in[2], out[0],
                     out[1], len);
    else
        binary_bwd_d(p->k, p->mode, p->alpha, p->sq_a, p->sq_b, in[0], in[1], in[2], out[0], out[1],
                     len);
    round_device(l->c, out[0], len);
    round_device(l->c, out[1], len);
    return 0;
}

pc_status pc_k_binary_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    binary_plan p;
    pc_status st = binary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    p.sq_a = p.sq_b = PC_DTYPE_INVALID;
    if (compute == PC_COMPUTE_DEVICE && p.k == PC_BINARY_ATAN2) {
        /* torch's atan2 backward squares each input in its own dtype */
        if (call->args[0].tensor.dtype != p.cd)
            p.sq_a = call->args[0].tensor.dtype;
        if (call->args[1].tensor.dtype != p.cd)
            p.sq_b = call->args[1].tensor.dtype;
    }
    bool ga = wants_grad(call, 0), gb = wants_grad(call, 1);
    /* torch has no derivative of remainder(Scalar, Tensor) (Tensor.__rmod__): none here */
    if (p.k == PC_BINARY_REMAINDER && call->args[0].wrapped)
        gb = false;
    if ((!ga && !gb) || !pc_dtype_is_float(p.od))
        return PC_OK;
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.cd, ts, 2)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, binary_bwd_chunk, &p);
    loop_input(&l, ts[0]);
    loop_input(&l, ts[1]);
    loop_input(&l, grad_out);
    loop_grad(&l, ga ? ts[0] : NULL);
    loop_grad(&l, gb ? ts[1] : NULL);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    loop_take_grad(&l, 0, &out->grads[0]);
    loop_take_grad(&l, 1, &out->grads[1]);
    return PC_OK;
}

/* ---- ternary: addcmul, addcdiv, lerp ---- */

typedef struct ternary_plan {
    pc_ternary k;
    pc_dtype od;
    double v;      /* value; lerp with a number: the weight */
    int64_t v_i;   /* value for integer addcmul */
    bool w_tensor; /* lerp: the weight is a tensor */
} ternary_plan;

/* A dtype as torch's caffe2::TypeMeta prints it in messages ("float", "c10::Half"). */
static const char *meta_name(pc_dtype d)
{
    switch (d) {
    case PC_DTYPE_F16:
        return "c10::Half";
    case PC_DTYPE_BF16:
        return "c10::BFloat16";
    case PC_DTYPE_F32:
        return "float";
    case PC_DTYPE_F64:
        return "double";
    case PC_DTYPE_I64:
        return "long int";
    case PC_DTYPE_I32:
        return "int";
    case PC_DTYPE_BOOL:
        return "bool";
    default:
        return pc_dtype_torch_name(d);
    }
}

static pc_status ternary_plan_make(const pc_op_call *call, ternary_plan *p)
{
    memset(p, 0, sizeof *p);
    p->k = (pc_ternary)call->op->param;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    for (int i = 0; i < 3; i++)
        pc_result_type_add_tensor(&rt, &call->args[i].tensor, call->args[i].wrapped);
    pc_dtype common = pc_result_type_get(&rt);
    if (pc_dtype_is_complex(common) || common == PC_DTYPE_F8E4M3FN || common == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(common));
    p->od = common;
    if (p->k == PC_TERNARY_LERP) {
        const pc_value *w = &call->args[2];
        pc_dtype xd = call->args[0].tensor.dtype;
        p->od = xd;
        if (!pc_dtype_is_float(xd))
            return pc_error_set(PC_ERR_INVALID, "%s: \"lerp_kernel_%s\" not implemented for '%s'",
                                call->full_name, w->wrapped ? "scalar" : "tensor",
                                pc_torch_type_name(xd));
        if (call->args[1].tensor.dtype != xd)
            return pc_error_set(PC_ERR_INVALID, "%s: expected dtype %s for `end` but got dtype %s",
                                call->full_name, meta_name(xd),
                                meta_name(call->args[1].tensor.dtype));
        if (!w->wrapped && w->tensor.dtype != xd)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: expected dtype %s for `weight` but got dtype %s",
                                call->full_name, meta_name(xd), meta_name(w->tensor.dtype));
        p->w_tensor = !w->wrapped;
        if (w->wrapped)
            pc_element_load(pc_tensor_data(&w->tensor), w->tensor.dtype, &p->v, NULL);
        return PC_OK;
    }
    int iv = pc_schema_find_arg(call->op->schema, "value");
    const pc_value *val = &call->args[iv];
    p->v = val->f;
    p->v_i = val->i;
    if (val->kind == PC_VALUE_FLOAT)
        p->v_i = f64_to_i64_sat(val->f); /* torch converts the value to the integer dtype */
    if (p->k == PC_TERNARY_ADDCMUL && common == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"addcmul_cpu_out\" not implemented for 'Bool'",
                            call->full_name);
    /* the value is converted (checked) to the integer dtype, or to the float opmath type */
    const char *tn = scalar_overflows(
        pc_dtype_is_float(common) && common != PC_DTYPE_F64 ? PC_DTYPE_F32 : common,
        val->kind == PC_VALUE_INT ? (double)val->i : val->f);
    if (tn)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: value cannot be converted to type %s without overflow",
                            call->full_name, tn);
    if (p->k == PC_TERNARY_ADDCDIV && !pc_dtype_is_float(common))
        return pc_error_set(
            PC_ERR_INVALID,
            "%s: Integer division with addcdiv is no longer supported, and in a future  "
            "release addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.",
            call->full_name);
    return PC_OK;
}

/* in: x, t1, t2 (absent for lerp with a number); out: y. */
static int ternary_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                             int64_t len)
{
    const ternary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT) {
        ternary_fwd_f(p->k, (float)p->v, in[0], in[1], in[2], out[0], len);
    } else if (l->c->kind == EW_DOUBLE) {
        ternary_fwd_d(p->k, p->v, in[0], in[1], in[2], out[0], len);
    } else { /* integer addcmul, wrapping like torch */
        const int64_t *x = in[0], *a = in[1], *b = in[2];
        int64_t *y = out[0];
        for (int64_t i = 0; i < len; i++)
            y[i] = (int64_t)((uint64_t)x[i] + (uint64_t)p->v_i * (uint64_t)a[i] * (uint64_t)b[i]);
        if (l->c->cd == PC_DTYPE_BOOL)
            for (int64_t i = 0; i < len; i++)
                y[i] = y[i] != 0;
    }
    return 0;
}

pc_status pc_k_ternary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    ternary_plan p;
    pc_status st = ternary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              p.k == PC_TERNARY_LERP && !p.w_tensor ? NULL
                                                                    : pc_call_tensor(call, 2)};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, p.od, ts[0])) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, ternary_fwd_chunk, &p);
    for (int i = 0; i < 3; i++)
        loop_input(&l, ts[i]);
    loop_wrap_inputs(&l, p.od);
    loop_store(&l, call->form == PC_FORM_INPLACE ? ts[0]->dtype : p.od);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: x, t1, t2, dy; out: the three gradients (any may be absent). */
static int ternary_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                             int64_t len)
{
    const ternary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT)
        ternary_bwd_f(p->k, (float)p->v, (float)(1.0 - p->v), in[0], in[1], in[2], in[3], out[0],
                      out[1], out[2], len);
    else
        ternary_bwd_d(p->k, p->v, 1.0 - p->v, in[0], in[1], in[2], in[3], out[0], out[1], out[2],
                      len);
    for (int k = 0; k < 3; k++)
        round_device(l->c, out[k], len);
    return 0;
}

pc_status pc_k_ternary_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    ternary_plan p;
    pc_status st = ternary_plan_make(call, &p);
    if (st != PC_OK || !pc_dtype_is_float(p.od))
        return st;
    bool want[3] = {wants_grad(call, 0), wants_grad(call, 1), wants_grad(call, 2)};
    if (!want[0] && !want[1] && !want[2])
        return PC_OK;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              p.k == PC_TERNARY_LERP && !p.w_tensor ? NULL
                                                                    : pc_call_tensor(call, 2)};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, ternary_bwd_chunk, &p);
    for (int i = 0; i < 3; i++)
        loop_input(&l, ts[i]);
    loop_input(&l, grad_out);
    for (int i = 0; i < 3; i++)
        loop_grad(&l, want[i] && ts[i] ? ts[i] : NULL);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    for (int i = 0; i < 3; i++)
        loop_take_grad(&l, i, &out->grads[i]);
    return PC_OK;
}

/* ---- clamp ---- */

typedef struct clamp_plan {
    const pc_tensor *x, *lo, *hi;
    pc_dtype od;
} clamp_plan;

static pc_status clamp_plan_make(const pc_op_call *call, clamp_plan *p)
{
    int param = call->op->param;
    p->x = pc_call_tensor(call, 0);
    p->lo = param == PC_CLAMP_MAX ? NULL : pc_call_tensor(call, 1);
    p->hi = param == PC_CLAMP_MIN ? NULL : pc_call_tensor(call, param == PC_CLAMP_MAX ? 1 : 2);
    if (!p->lo && !p->hi)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: torch.clamp: At least one of 'min' or 'max' "
                            "must not be None",
                            call->full_name);
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, p->x, false);
    for (int i = 1; i < call->nargs; i++)
        if (pc_call_tensor(call, i))
            pc_result_type_add_tensor(&rt, pc_call_tensor(call, i), call->args[i].wrapped);
    p->od = pc_result_type_get(&rt);
    if (p->od == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"clamp_cpu\" not implemented for 'Bool'",
                            call->full_name);
    if (!pc_dtype_is_float(p->od) && pc_dtype_is_float(p->x->dtype))
        return PC_OK; /* not reachable: promotion keeps the float */
    return PC_OK;
}

/* in: x, lo, hi (either bound may be absent); out: y. */
static int clamp_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    if (l->c->kind == EW_FLOAT) {
        clamp_fwd_f(in[0], in[1], in[2], out[0], len);
    } else if (l->c->kind == EW_DOUBLE) {
        clamp_fwd_d(in[0], in[1], in[2], out[0], len);
    } else {
        const int64_t *x = in[0], *lo = in[1], *hi = in[2];
        int64_t *y = out[0];
        for (int64_t i = 0; i < len; i++) {
            int64_t v = x[i];
            if (lo && v < lo[i])
                v = lo[i];
            if (hi && v > hi[i])
                v = hi[i];
            y[i] = v;
        }
    }
    return 0;
}

pc_status pc_k_clamp_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    clamp_plan p;
    pc_status st = clamp_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {p.x, p.lo, p.hi};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, p.od, p.x)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, clamp_fwd_chunk, NULL);
    for (int i = 0; i < 3; i++)
        loop_input(&l, ts[i]);
    loop_store(&l, call->form == PC_FORM_INPLACE ? p.x->dtype : p.od);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: x, lo, hi, dy; out: dx. */
static int clamp_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    if (l->c->kind == EW_FLOAT)
        clamp_bwd_f(in[0], in[1], in[2], in[3], out[0], len);
    else
        clamp_bwd_d(in[0], in[1], in[2], in[3], out[0], len);
    return 0;
}

pc_status pc_k_clamp_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    clamp_plan p;
    pc_status st = clamp_plan_make(call, &p);
    if (st != PC_OK || !wants_grad(call, 0))
        return st;
    const pc_tensor *ts[3] = {p.x, p.lo, p.hi};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, clamp_bwd_chunk, NULL);
    for (int i = 0; i < 3; i++)
        loop_input(&l, ts[i]);
    loop_input(&l, grad_out);
    loop_grad(&l, p.x);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    loop_take_grad(&l, 0, &out->grads[0]);
    return PC_OK;
}

/* ---- where and masked_fill: selections, exact in every compute type ---- */

static pc_status check_bool_mask(const pc_op_call *call, const pc_tensor *m, const char *what)
{
    bool is_where = strncmp(what, "where", 5) == 0;
    if (is_where ? m->dtype != PC_DTYPE_BOOL : !pc_dtype_is_integral(m->dtype))
        return pc_error_set(
            PC_ERR_INVALID, "%s: %s, but got %s with dtype %s", call->full_name, what,
            strcmp(what, "where expected condition to be a boolean tensor") ? "mask" : "a tensor",
            pc_torch_type_name(m->dtype));
    return PC_OK;
}

static pc_dtype where_dtype(const pc_op_call *call)
{
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, &call->args[1].tensor, call->args[1].wrapped);
    pc_result_type_add_tensor(&rt, &call->args[2].tensor, call->args[2].wrapped);
    return pc_result_type_get(&rt);
}

/* y[i] = cnd[i] ? a[i] : b[i] over buffers of the compute type (float, or 8-byte slots copied
 * whole: doubles and int64). */
static void select_chunk(ew_kind kind, const int64_t *cnd, const void *a, const void *b, void *y,
                         int64_t n)
{
    if (kind == EW_FLOAT) {
        const float *fa = a, *fb = b;
        float *fy = y;
        for (int64_t i = 0; i < n; i++)
            fy[i] = cnd[i] ? fa[i] : fb[i];
    } else {
        const int64_t *ia = a, *ib = b;
        int64_t *iy = y;
        for (int64_t i = 0; i < n; i++)
            iy[i] = cnd[i] ? ia[i] : ib[i];
    }
}

/* g = dy where the condition is `keep`, 0 elsewhere (g NULL: not wanted). */
static void mask_chunk(ew_kind kind, const int64_t *cnd, bool keep, const void *dy, void *g,
                       int64_t n)
{
    if (!g)
        return;
    if (kind == EW_FLOAT) {
        const float *s = dy;
        float *d = g;
        for (int64_t i = 0; i < n; i++)
            d[i] = (cnd[i] != 0) == keep ? s[i] : 0;
    } else {
        const double *s = dy;
        double *d = g;
        for (int64_t i = 0; i < n; i++)
            d[i] = (cnd[i] != 0) == keep ? s[i] : 0;
    }
}

/* in: cond, a, b; out: y. */
static int where_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    select_chunk(l->c->kind, in[0], in[1], in[2], out[0], len);
    return 0;
}

pc_status pc_k_where_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_status st = check_bool_mask(call, ts[0], "where expected condition to be a boolean tensor");
    if (st != PC_OK)
        return st;
    pc_dtype od = where_dtype(call);
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, where_fwd_chunk, NULL);
    loop_cond(&l, ts[0]);
    loop_input(&l, ts[1]);
    loop_input(&l, ts[2]);
    loop_store(&l, od);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: cond, dy; out: the gradient kept where cond is true, the one kept where it is false. */
static int mask_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                          int64_t len)
{
    mask_chunk(l->c->kind, in[0], true, in[1], out[0], len);
    mask_chunk(l->c->kind, in[0], false, in[1], out[1], len);
    return 0;
}

pc_status pc_k_where_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_status st = check_bool_mask(call, ts[0], "where expected condition to be a boolean tensor");
    pc_dtype od = where_dtype(call);
    if (st != PC_OK || !pc_dtype_is_float(od))
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    loop_init(&l, &c, mask_bwd_chunk, NULL);
    loop_cond(&l, ts[0]);
    loop_input(&l, grad_out);
    loop_grad(&l, wants_grad(call, 1) ? ts[1] : NULL);
    loop_grad(&l, wants_grad(call, 2) ? ts[2] : NULL);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    loop_take_grad(&l, 0, &out->grads[1]);
    loop_take_grad(&l, 1, &out->grads[2]);
    return PC_OK;
}

static pc_status masked_fill_check(const pc_op_call *call)
{
    const pc_tensor *m = pc_call_tensor(call, 1), *v = pc_call_tensor(call, 2);
    pc_status st = check_bool_mask(call, m, "masked_fill_ only supports boolean masks");
    if (st != PC_OK)
        return st;
    if (v->rank != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: masked_fill_ only supports a 0-dimensional "
                            "value tensor, but got tensor with %d dimension(s).",
                            call->full_name, v->rank);
    return PC_OK;
}

/* The fill value in each compute type. */
typedef struct fill_plan {
    float f;
    double d;
    int64_t i;
} fill_plan;

/* in: mask, x; out: y. */
static int masked_fill_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                             int64_t len)
{
    const fill_plan *p = l->arg;
    const int64_t *cnd = in[0];
    if (l->c->kind == EW_FLOAT) {
        const float *x = in[1];
        float *y = out[0];
        for (int64_t i = 0; i < len; i++)
            y[i] = cnd[i] ? p->f : x[i];
    } else if (l->c->kind == EW_DOUBLE) {
        const double *x = in[1];
        double *y = out[0];
        for (int64_t i = 0; i < len; i++)
            y[i] = cnd[i] ? p->d : x[i];
    } else {
        const int64_t *x = in[1];
        int64_t *y = out[0];
        for (int64_t i = 0; i < len; i++)
            y[i] = cnd[i] ? p->i : x[i];
    }
    return 0;
}

pc_status pc_k_masked_fill_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_status st = masked_fill_check(call);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_dtype od = ts[0]->dtype;
    ew_ctx c;
    /* in place, the mask broadcasts to self; out of place both broadcast */
    if ((st = ew_init(&c, call, compute, od, ts, 2)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, od, ts[0])) != PC_OK)
        return st;
    /* the value goes through the output dtype first (torch converts it to self's dtype) */
    double fill;
    pc_element_load(pc_tensor_data(ts[2]), ts[2]->dtype, &fill, NULL);
    char cell[16] = {0};
    double v;
    pc_element_store(cell, od, fill, 0.0);
    pc_element_load(cell, od, &v, NULL);
    int64_t vi = c.kind == EW_INT ? pc_element_load_i64(pc_tensor_data(ts[2]), ts[2]->dtype) : 0;
    if (c.kind == EW_INT && pc_dtype_is_float(ts[2]->dtype))
        vi = (int64_t)v;
    if (c.kind == EW_INT && od == PC_DTYPE_BOOL)
        vi = vi != 0 || (pc_dtype_is_float(ts[2]->dtype) && fill != 0);
    fill_plan fp = {.f = (float)v, .d = v, .i = vi};
    ew_loop l;
    loop_init(&l, &c, masked_fill_chunk, &fp);
    loop_cond(&l, ts[1]);
    loop_input(&l, ts[0]);
    loop_store(&l, od);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_masked_fill_backward(const pc_op_call *call, pc_compute compute,
                                    const pc_tensor *grad_out, pc_op_grads *out)
{
    pc_status st = masked_fill_check(call);
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    if (st != PC_OK || !pc_dtype_is_float(ts[0]->dtype))
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, ts[0]->dtype, ts, 2)) != PC_OK)
        return st;
    /* self keeps dy where the mask is false, the value gets the sum where it is true */
    ew_loop l;
    loop_init(&l, &c, mask_bwd_chunk, NULL);
    loop_cond(&l, ts[1]);
    loop_input(&l, grad_out);
    loop_grad(&l, wants_grad(call, 2) ? pc_call_tensor(call, 2) : NULL);
    loop_grad(&l, wants_grad(call, 0) ? ts[0] : NULL);
    if ((st = loop_run(&l)) != PC_OK)
        return st;
    loop_take_grad(&l, 0, &out->grads[2]);
    loop_take_grad(&l, 1, &out->grads[0]);
    return PC_OK;
}

/* ---- casts ---- */

static pc_dtype cast_target(const pc_op_call *call)
{
    int param = call->op->param;
    if (param == PC_CAST_TO_ARG)
        return call->args[1].dtype;
    if (param == PC_CAST_TYPE_AS)
        return call->args[1].tensor.dtype;
    return (pc_dtype)param;
}

/* A cast to the dtype a tensor already has is the tensor itself, as in torch (x.float() of a
 * float32 x is x; autograd's cast back is a no-op too): the same values without a copy. The
 * result is contiguous either way (a strided source is copied). */
static pc_status cast_or_share(pc_tensor *out, const pc_tensor *src, pc_dtype dtype)
{
    if (src->dtype == dtype)
        return pc_tensor_contiguous(out, src);
    return pc_tensor_cast(out, src, dtype);
}

pc_status pc_k_cast_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_status st = cast_or_share(&out->tensors[0], pc_call_tensor(call, 0), cast_target(call));
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_cast_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype target = cast_target(call);
    if (!wants_grad(call, 0) || !pc_dtype_is_float(target))
        return PC_OK;
    /* autograd holds the gradient in the output's dtype, then casts it back */
    pc_tensor g = PC_TENSOR_NULL;
    pc_status st = cast_or_share(&g, grad_out, target);
    if (st == PC_OK)
        st = cast_or_share(&out->grads[0], &g, x->dtype);
    pc_tensor_free(&g);
    return st;
}

/* ---- outer (ger): torch 1.13 computes self.reshape({n, 1}) * vec2 ---- */

/* call with its self seen as the column [n, 1]: *col holds the new reference, call->args[0]
 * of *out borrows it (the other tensors are call's; nothing of *out is freed but *col). */
static pc_status outer_call(const pc_op_call *call, pc_op_call *out, pc_tensor *col)
{
    static const char *const names[2] = {"self", "vec2"};
    for (int i = 0; i < 2; i++) {
        const pc_tensor *t = pc_call_tensor(call, i);
        if (t->rank != 1)
            return pc_error_set(PC_ERR_INVALID, "%s: outer: Expected 1-D argument %s, but got %d-D",
                                call->full_name, names[i], t->rank);
    }
    const pc_tensor *x = pc_call_tensor(call, 0);
    int64_t shape[2] = {x->shape[0], 1}, strides[2] = {x->strides[0], 1};
    pc_status st = pc_tensor_view(col, x, shape, strides, 2, x->offset);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    *out = *call;
    out->args[0].tensor = *col;
    return PC_OK;
}

pc_status pc_k_outer_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_op_call c;
    pc_tensor col = PC_TENSOR_NULL;
    pc_status st = outer_call(call, &c, &col);
    if (st == PC_OK)
        st = pc_k_binary_forward(&c, compute, out);
    pc_tensor_free(&col);
    return st;
}

/*
 * Gradient of input which (0: self, 1: vec2) of outer, as autograd forms mul's: the products
 * P = dy * other, each rounded to the result dtype (the device's float opmath products of two
 * values of at most float precision are exact in double, so rounding them once is the float
 * product), then P summed over the other input's dimension in torch 1.13's CPU order where the
 * reduction group knows it (float32, float64; P is a contiguous [n, m]: self's sum is an inner
 * reduction, vec2's an outer one), else compensated; the sum rounded to the result dtype, then
 * cast to the input's dtype as the autograd engine does.
 */
static pc_status outer_grad(const pc_op_call *call, pc_compute compute, const pc_tensor *dy,
                            pc_dtype od, int which, pc_tensor *g)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *y = pc_call_tensor(call, 1);
    int64_t n = x->shape[0], m = y->shape[0];
    pc_tensor d64 = PC_TENSOR_NULL, o64 = PC_TENSOR_NULL, prod = PC_TENSOR_NULL;
    pc_tensor buf = PC_TENSOR_NULL;
    double *sums = NULL;
    int64_t shape[2] = {n, m};
    pc_status st = pc_tensor_cast(&d64, dy, PC_DTYPE_F64);
    if (st == PC_OK && !pc_tensor_is_contiguous(&d64)) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, &d64);
        pc_tensor_free(&d64);
        d64 = c;
    }
    if (st == PC_OK)
        st = pc_tensor_cast(&o64, which == 0 ? y : x, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_alloc_uninit(&prod, PC_DTYPE_F64, shape, 2);
    if (st != PC_OK)
        goto done;
    const double *dv = pc_tensor_data(&d64);
    double *pv = pc_tensor_data(&prod);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < m; j++) {
            int64_t k = which == 0 ? j : i;
            double o = pc_tensor_get(&o64, &k);
            pv[i * m + j] = pc_reduce_round(compute, od, dv[i * m + j] * o);
        }
    }
    pc_value dim = {.kind = PC_VALUE_INT, .i = which == 0 ? 1 : 0, .src_pos = -1};
    pc_reduce_plan p;
    if ((st = pc_reduce_plan_make(call, &prod, &dim, false, &p)) != PC_OK)
        goto done;
    if ((st = pc_reduce_load(&p, &prod, PC_DTYPE_F64, &buf)) != PC_OK)
        goto done;
    sums = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *sums);
    if (!sums) {
        st = pc_reduce_nomem(call);
        goto done;
    }
    const double *v = pc_tensor_data(&buf);
    pc_dtype sd = compute == PC_COMPUTE_BENCH ? PC_DTYPE_F64 : od;
    if (!pc_reduce_torch_sums(&p, sd, v, sums))
        for (int64_t o = 0; o < p.outer; o++)
            sums[o] = pc_reduce_sum(v + o * p.inner, p.inner, 1);
    pc_tensor s = PC_TENSOR_NULL;
    if ((st = pc_shape_store(&s, od, p.out_shape, p.out_rank, sums)) != PC_OK)
        goto done;
    const pc_tensor *in = which == 0 ? x : y;
    if (in->dtype == od) {
        *g = s;
    } else {
        st = pc_tensor_cast(g, &s, in->dtype);
        pc_tensor_free(&s);
    }
done:
    free(sums);
    pc_tensor_free(&d64);
    pc_tensor_free(&o64);
    pc_tensor_free(&prod);
    pc_tensor_free(&buf);
    return st;
}

pc_status pc_k_outer_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    pc_op_call c;
    pc_tensor col = PC_TENSOR_NULL;
    pc_status st = outer_call(call, &c, &col);
    pc_tensor_free(&col);
    if (st != PC_OK)
        return st;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, pc_call_tensor(call, 0), false);
    pc_result_type_add_tensor(&rt, pc_call_tensor(call, 1), false);
    pc_dtype od = pc_result_type_get(&rt);
    if (!pc_dtype_is_float(od))
        return PC_OK;
    const pc_tensor *x = pc_call_tensor(call, 0), *y = pc_call_tensor(call, 1);
    if (grad_out->rank != 2 || grad_out->shape[0] != x->shape[0] ||
        grad_out->shape[1] != y->shape[0])
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient's shape is not the output's",
                            call->full_name);
    for (int i = 0; i < 2 && st == PC_OK; i++)
        if (wants_grad(call, i))
            st = outer_grad(call, compute, grad_out, od, i, &out->grads[i]);
    return st;
}
