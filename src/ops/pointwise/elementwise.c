/*
 * The element-wise engine (elementwise.h): the broadcast iteration space, the loads of any
 * dtype into chunk buffers of the compute type and the stores back (elementwise_kernel.inc,
 * instantiated for float and double, and the int64 forms here), the chunked loop over the
 * threads and the sums of broadcast gradients. The op families' plans and math are theirs:
 * unary.c (math and activations), binary.c (arithmetic, comparisons, logical and bitwise ops,
 * outer), ternary.c (addcmul, addcdiv, lerp, clamp), select.c (where, masked_fill), cast.c.
 *
 * Backward recomputes what it needs from the inputs; on the device the per-element gradient is
 * rounded to the computation dtype (as autograd holds it in that dtype). A gradient of an input
 * that was broadcast is summed over the broadcast dimensions in double, in an accumulator of the
 * input's size, in the order of the elements (such loops run on one thread), so the sum is the
 * same with any number of threads and the same as the first version's serial loop.
 */
#include "ops/pointwise/elementwise.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "precheck/core/convert.h"

#define PC_TWIN_TEMPLATE "ops/pointwise/elementwise_kernel.inc"
#include "ops/kernel_twins.h"

/* ---- operands and the iteration space ---- */

static ew_kind kind_of(pc_compute compute, pc_dtype d)
{
    if (!pc_dtype_is_float(d))
        return EW_INT;
    return (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64) ? EW_DOUBLE : EW_FLOAT;
}

pc_status pc_ew_init(ew_ctx *c, const pc_op_call *call, pc_compute compute, pc_dtype cd,
                     const pc_tensor *const *ts, int nts)
{
    memset(c, 0, sizeof *c);
    c->compute = compute;
    c->cd = cd;
    c->kind = kind_of(compute, cd);
    c->name = call->full_name;
    c->call = call;
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

/* The condition form of gather_run: 1 where the value is not 0, else 0, one byte each (bool and
 * 8-bit values read as bytes: a loop the compiler vectorises where the run has stride 1). */
static void gather_run_cond(const ew_src *s, int64_t off, int64_t st, int64_t len, uint8_t *dst)
{
    const char *p = s->data + (size_t)off * s->esz;
    size_t step = (size_t)st * s->esz;
    if (s->esz == 1 && st == 1) {
        const uint8_t *b = (const uint8_t *)p;
        for (int64_t j = 0; j < len; j++)
            dst[j] = b[j] != 0;
    } else if (s->esz == 1) {
        for (int64_t j = 0; j < len; j++)
            dst[j] = p[(size_t)j * step] != 0;
    } else {
        for (int64_t j = 0; j < len; j++)
            dst[j] = pc_element_load_i64(p + (size_t)j * step, s->dtype) != 0;
    }
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
        if (s->load == EW_LOAD_COND)
            gather_run_cond(s, off, st, run, (uint8_t *)dst + j);
        else if (s->kind == EW_FLOAT)
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
void pc_ew_round_device(const ew_ctx *c, void *buf, int64_t len)
{
    if (!buf || c->compute != PC_COMPUTE_DEVICE)
        return;
    if (c->kind == EW_FLOAT)
        round_chunk_f(c->cd, buf, len);
    else if (c->kind == EW_DOUBLE)
        round_chunk_d(c->cd, buf, len); /* fp64 on the device: nothing to round */
}

/* ---- the chunked loop ---- */

void pc_ew_loop_init(ew_loop *l, const ew_ctx *c, ew_chunk_fn fn, const void *arg)
{
    memset(l, 0, sizeof *l);
    l->c = c;
    l->fn = fn;
    l->arg = arg;
    for (int k = 0; k < EW_MAX_OUT; k++)
        l->out[k].t = PC_TENSOR_NULL;
}

/* The next operand: t computed in the context's type (NULL: absent). */
void pc_ew_loop_input(ew_loop *l, const pc_tensor *t)
{
    int k = l->nin++;
    l->has_in[k] = t != NULL;
    if (t)
        src_of_tensor(l->c, &l->in[k], t, l->c->kind, l->c->cd);
}

/* Integer operands of another dtype than cd converted to it on load, as torch's
 * TensorIterator casts the inputs of a binary op to the common dtype (integer computations
 * only; floats are rounded to cd anyway). */
void pc_ew_loop_wrap_inputs(ew_loop *l, pc_dtype cd)
{
    if (l->c->kind != EW_INT)
        return;
    for (int k = 0; k < l->nin; k++) /* (a condition is not cast: only its zeros count) */
        if (l->has_in[k] && l->in[k].load != EW_LOAD_COND && l->in[k].dtype != cd) {
            l->in[k].wrap = true;
            l->in[k].wrap_dtype = cd;
        }
}

/* The next operand as a condition: uint8_t 0/1. */
void pc_ew_loop_cond(ew_loop *l, const pc_tensor *t)
{
    int k = l->nin++;
    l->has_in[k] = true;
    src_of_tensor(l->c, &l->in[k], t, EW_INT, PC_DTYPE_BOOL);
    l->in[k].load = EW_LOAD_COND;
}

/* The next output: a result of dtype in the context's shape. */
void pc_ew_loop_store(ew_loop *l, pc_dtype dtype)
{
    ew_sink *k = &l->out[l->nout++];
    k->kind = EW_SINK_STORE;
    k->dtype = dtype;
}

/* The next output: the gradient of input like (NULL: not wanted). */
void pc_ew_loop_grad(ew_loop *l, const pc_tensor *like)
{
    ew_sink *k = &l->out[l->nout++];
    if (!like)
        return;
    const ew_ctx *c = l->c;
    k->like = like;
    k->dtype = pc_kernel_dtype(c->call, like); /* on a lazy bench, the raised dtype */
    /* autograd sums in the computation dtype, then casts to the input's */
    k->round = c->compute == PC_COMPUTE_DEVICE && k->dtype != c->cd;
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
        if ((char *)g != dst) /* else computed in place (direct_out) */
            store_run_f(f, k->dtype, dst, len);
    } else {
        double *d = g;
        for (int64_t j = 0; j < len; j++)
            d[j] += 0.0;
        if (k->round)
            round_chunk_d(c->cd, d, len);
        if ((char *)g != dst) /* else computed in place (direct_out) */
            store_run_d(d, k->dtype, dst, len);
    }
}

/* Bytes of one chunk's buffer (of any compute type). */
#define EW_BUF_BYTES ((size_t)EW_CHUNK * 8)

/* Where chunk [i0, i0 + len) of s already lies in its tensor as the gathered buffer would
 * hold it: float64 values computed in double or float32 values computed in float (without a
 * signalling NaN), one run of stride 1. NULL otherwise. */
static void *direct_in(const ew_iter *it, const ew_src *s, int64_t i0, int64_t len)
{
    bool f64 = s->kind == EW_DOUBLE && s->load == EW_LOAD_F64;
    bool f32 = s->kind == EW_FLOAT && s->load == EW_LOAD_F32;
    if (!(f64 || f32) || it->rank == 0)
        return NULL;
    int64_t idx[PC_TENSOR_MAX_DIMS];
    int64_t off = walk_start(it, s, i0, idx);
    if (walk_inner_stride(it, s) != 1 || walk_run(it, idx, len) < len)
        return NULL;
    const char *p = s->data + (size_t)off * s->esz;
    if (f32) { /* the gathered values quiet signalling NaNs: only a run without one is as is */
        const uint32_t *u = (const uint32_t *)(const void *)p;
        uint32_t snan = 0;
        for (int64_t j = 0; j < len; j++)
            snan |= (u[j] & 0x7fffffffu) > 0x7f800000u && !(u[j] & 0x00400000u);
        if (snan)
            return NULL;
    }
    return (void *)(uintptr_t)p;
}

/* Where the chunk's output k can be computed in place: a float64 tensor of a double loop, a
 * float32 one of a float loop (a store would copy the values unchanged). NULL otherwise. */
static void *direct_out(const ew_loop *l, const ew_sink *sk, int64_t i0)
{
    bool f64 = l->c->kind == EW_DOUBLE && sk->dtype == PC_DTYPE_F64;
    bool f32 = l->c->kind == EW_FLOAT && sk->dtype == PC_DTYPE_F32;
    if (!(f64 || f32) || (sk->kind != EW_SINK_STORE && sk->kind != EW_SINK_GRAD))
        return NULL;
    return (char *)pc_tensor_data(&sk->t) + (size_t)i0 * pc_dtype_size(sk->dtype);
}

/* Gathers, computes and stores chunk ci: the gathered operands and tmp in the buffers at s,
 * the outputs in the nout buffers at o; returns fn's code. Operands and results of the loop's
 * own compute type are read and written in their tensors where they lie in one run
 * (direct_in, direct_out): fn reads in[] only, so the values and the results are the same. */
static int loop_chunk(const ew_loop *l, char *s, char *o, int64_t ci)
{
    const ew_ctx *c = l->c;
    int64_t i0 = ci * EW_CHUNK, len = c->n - i0 < EW_CHUNK ? c->n - i0 : EW_CHUNK;
    void *in[EW_MAX_IN] = {0}, *out[EW_MAX_OUT] = {0};
    for (int k = 0; k < l->nin; k++) {
        if (!l->has_in[k])
            continue;
        in[k] = direct_in(&l->it, &l->in[k], i0, len);
        if (!in[k]) {
            in[k] = s + (size_t)k * EW_BUF_BYTES;
            gather(&l->it, &l->in[k], i0, len, in[k]);
        }
    }
    bool direct[EW_MAX_OUT] = {false};
    for (int k = 0; k < l->nout; k++) {
        if (l->out[k].kind == EW_SINK_NONE)
            continue;
        out[k] = direct_out(l, &l->out[k], i0);
        direct[k] = out[k] != NULL;
        if (!direct[k])
            out[k] = o + (size_t)k * EW_BUF_BYTES;
    }
    void *tmp = l->tmp ? s + (size_t)l->nin * EW_BUF_BYTES : NULL;
    int e = l->fn(l, in, out, tmp, len);
    if (e)
        return e;
    for (int k = 0; k < l->nout; k++) {
        const ew_sink *sk = &l->out[k];
        if (sk->kind == EW_SINK_STORE && direct[k]) {
            continue;
        } else if (sk->kind == EW_SINK_STORE) {
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
pc_status pc_ew_loop_run(ew_loop *l)
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
        case EW_SINK_STORE: /* (every chunk writes its elements whole) */
            st = pc_tensor_alloc_uninit(&sk->t, sk->dtype, c->shape, c->rank);
            break;
        case EW_SINK_GRAD:
            st = pc_tensor_alloc_uninit(&sk->t, sk->dtype, sk->like->shape, sk->like->rank);
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
void pc_ew_loop_take_grad(ew_loop *l, int k, pc_tensor *dst)
{
    if (l->out[k].kind == EW_SINK_NONE)
        return;
    *dst = l->out[k].t;
    l->out[k].t = PC_TENSOR_NULL;
}

/* In-place forms: the result goes into self, so it must have self's shape and its dtype must
 * be castable to self's. */
pc_status pc_ew_inplace_check(const ew_ctx *c, const pc_op_call *call, pc_dtype result,
                              const pc_tensor *self)
{
    if (call->form != PC_FORM_INPLACE)
        return PC_OK;
    pc_dtype sd = pc_kernel_dtype(call, self);
    if (!pc_can_cast(result, sd))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: result type %s can't be cast to the desired "
                            "output type %s",
                            call->full_name, pc_torch_type_name(result), pc_torch_type_name(sd));
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

bool pc_ew_wants_grad(const pc_op_call *call, int i)
{
    const pc_value *v = &call->args[i];
    return v->kind == PC_VALUE_TENSOR && !v->wrapped && v->requires_grad &&
           pc_dtype_is_float(v->tensor.dtype);
}

/* ---- shared by the families ---- */

/* Whether a Scalar argument of value v overflows dtype d when torch converts it (c10's
 * checked conversion): the C++ type name of its message, or NULL when it fits. Unsigned
 * types take negative values down to -max (they wrap); infinities and NaN fit a float. */
const char *pc_ew_scalar_overflows(pc_dtype d, double v)
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
