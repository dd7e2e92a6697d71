/*
 * embedding, dropout (and dropout2d) and leaky_relu, forward and backward.
 *
 * dropout draws its keep-mask from the counter-based generator (core/rng.h), keyed by the
 * call's seed, its full name and the compute mode: the same call gives the same mask every
 * time (so the backward regenerates it), and the device and the bench draw different masks,
 * as two real devices would (run_ut compares dropout by the share of zeros only).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/kernel.h"
#include "ops/nn/nn_impl.h"
#include "precheck/core/convert.h"
#include "precheck/core/rng.h"

/* ---- embedding ---- */

typedef struct emb_plan {
    const pc_tensor *idx, *w;
    int64_t num, dim, n, pad; /* pad: the padding row, or -1 */
    bool scale_freq;
} emb_plan;

static pc_status emb_plan_make(const pc_op_call *call, emb_plan *p)
{
    p->idx = pc_call_tensor(call, 0);
    p->w = pc_call_tensor(call, 1);
    if (p->idx->dtype != PC_DTYPE_I64 && p->idx->dtype != PC_DTYPE_I32)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected tensor for argument #1 'indices' to have one of the "
                            "following scalar types: Long, Int; but got torch.%sTensor instead "
                            "(while checking arguments for embedding)",
                            call->full_name, pc_torch_type_name(p->idx->dtype));
    if (p->w->rank != 2)
        return pc_error_set(PC_ERR_INVALID, "%s: 'weight' must be 2-D", call->full_name);
    if (call->args[3].kind != PC_VALUE_NONE)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: embedding with max_norm (renormalising the weight in place) is "
                            "not supported by precheck",
                            call->full_name);
    p->num = p->w->shape[0];
    p->dim = p->w->shape[1];
    p->n = pc_tensor_numel(p->idx);
    p->pad = -1;
    if (call->args[2].kind == PC_VALUE_INT) {
        int64_t pi = call->args[2].i;
        if (pi >= p->num || pi < -p->num)
            return pc_error_set(PC_ERR_INVALID, "%s: Padding_idx must be within num_embeddings",
                                call->full_name);
        p->pad = pi < 0 ? pi + p->num : pi;
    }
    p->scale_freq = call->args[5].kind == PC_VALUE_BOOL && call->args[5].b;
    return PC_OK;
}

/* The indices as int64 (contiguous), checked against the table size. */
static pc_status emb_indices(const pc_op_call *call, const emb_plan *p, pc_tensor *out)
{
    pc_status st = pc_tensor_cast(out, p->idx, PC_DTYPE_I64);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    const int64_t *ix = pc_tensor_data(out);
    for (int64_t i = 0; i < p->n; i++)
        if (ix[i] < 0 || ix[i] >= p->num) {
            pc_tensor_free(out);
            return pc_error_set(PC_ERR_INVALID, "%s: index out of range in self", call->full_name);
        }
    return PC_OK;
}

pc_status pc_k_embedding_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    emb_plan p;
    pc_status st = emb_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor ix = PC_TENSOR_NULL, w = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    int64_t shape[PC_TENSOR_MAX_DIMS + 1];
    memcpy(shape, p.idx->shape, sizeof(int64_t) * (size_t)p.idx->rank);
    shape[p.idx->rank] = p.dim;
    if (p.idx->rank + 1 > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many dimensions", call->full_name);
    if ((st = emb_indices(call, &p, &ix)) != PC_OK)
        return st;
    /* the bench raises the weight as it reads the rows it gathers (not the whole table) */
    pc_dtype od = pc_kernel_dtype(call, p.w);
    const int64_t *k = pc_tensor_data(&ix);
    if (od != p.w->dtype) {
        if ((st = pc_tensor_alloc_uninit(&y, od, shape, p.idx->rank + 1)) == PC_OK) {
            size_t row = (size_t)p.dim * pc_dtype_size(od);
            for (int64_t i = 0; i < p.n; i++)
                pc_kernel_read(p.w, k[i] * p.dim, p.dim, od,
                               (char *)pc_tensor_data(&y) + (size_t)i * row);
            out->tensors[0] = y;
            out->count = 1;
            y = PC_TENSOR_NULL;
        }
    } else if ((st = pc_tensor_contiguous(&w, p.w)) == PC_OK &&
               (st = pc_tensor_alloc(&y, p.w->dtype, shape, p.idx->rank + 1)) == PC_OK) {
        size_t row = (size_t)p.dim * pc_dtype_size(p.w->dtype);
        for (int64_t i = 0; i < p.n; i++)
            memcpy((char *)pc_tensor_data(&y) + (size_t)i * row,
                   (const char *)pc_tensor_data(&w) + (size_t)k[i] * row, row);
        out->tensors[0] = y;
        out->count = 1;
        y = PC_TENSOR_NULL;
    }
    pc_tensor_free(&ix);
    pc_tensor_free(&w);
    pc_tensor_free(&y);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

/* Rows of dy summed into one row of dW (see pc_k_embedding_backward); acc and row hold dim
 * values of the compute dtype. */
static void emb_sum_row(const emb_plan *p, const pc_tensor *grad_out, pc_dtype cd,
                        const int64_t *rows, int64_t count, void *acc, void *row)
{
    int64_t dim = p->dim;
    memset(acc, 0, (size_t)dim * pc_dtype_size(cd)); /* +0, as the zeroed table */
    for (int64_t r = 0; r < count; r++) {
        pc_kernel_read(grad_out, rows[r] * dim, dim, cd, row);
        if (cd == PC_DTYPE_F64) {
            double *a = acc;
            const double *v = row;
            for (int64_t j = 0; j < dim; j++)
                a[j] += p->scale_freq ? v[j] / (double)count : v[j];
        } else {
            float *a = acc;
            const float *v = row;
            for (int64_t j = 0; j < dim; j++)
                a[j] += p->scale_freq ? v[j] / (float)count : v[j];
        }
    }
}

/*
 * torch's dense embedding backward: dW = 0, then dW[k[i]] += dy[i] for i in index order, in the
 * compute dtype, rounded once to the weight's dtype. Done a row of dW at a time: the indices are
 * grouped by row with a stable counting sort (so each group keeps index order), each group
 * summed from +0 in a one-row accumulator and rounded into its row. Every element sees the same
 * additions in the same order as in the whole zeroed table, without that table (8 bytes an
 * element of the weight on the bench). Rows no index names (and the padding row) keep the new
 * storage's zeros, which is what rounding +0 gives. Rows are independent: threads take groups.
 */
pc_status pc_k_embedding_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out)
{
    emb_plan p;
    pc_status st = emb_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 1))
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.w->dtype);
    pc_tensor ix = PC_TENSOR_NULL, dw = PC_TENSOR_NULL;
    int64_t *first = NULL, *order = NULL;
    if (pc_tensor_numel(grad_out) != p.n * p.dim)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: the gradient has %" PRId64 " elements, not %" PRId64,
                            call->full_name, pc_tensor_numel(grad_out), p.n * p.dim);
    if ((st = emb_indices(call, &p, &ix)) != PC_OK ||
        (st = pc_tensor_alloc(&dw, pc_kernel_dtype(call, p.w), p.w->shape, 2)) != PC_OK)
        goto done;
    first = calloc((size_t)p.num + 1, sizeof *first);
    order = malloc(((size_t)p.n + 1) * sizeof *order);
    if (!first || !order) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    /* first[r] .. first[r + 1] - 1: the positions in order[] of the indices naming row r */
    const int64_t *k = pc_tensor_data(&ix);
    for (int64_t i = 0; i < p.n; i++)
        if (k[i] != p.pad)
            first[k[i] + 1]++;
    for (int64_t r = 0; r < p.num; r++)
        first[r + 1] += first[r];
    for (int64_t i = 0; i < p.n; i++)
        if (k[i] != p.pad)
            order[first[k[i]]++] = i; /* first[r] ends at the old first[r + 1]: shift back */
    for (int64_t r = p.num; r > 0; r--)
        first[r] = first[r - 1];
    first[0] = 0;
    bool nomem = false;
    size_t rowbytes = (size_t)p.dim * pc_dtype_size(cd);
#pragma omp parallel if (p.n * p.dim > 4 * PC_KERNEL_BLOCK)
    {
        void *acc = malloc(rowbytes ? rowbytes : 1), *row = malloc(rowbytes ? rowbytes : 1);
        if (!acc || !row) {
#pragma omp atomic write
            nomem = true;
        }
#pragma omp for schedule(dynamic, 64)
        for (int64_t r = 0; r < p.num; r++) {
            int64_t count = first[r + 1] - first[r];
            if (count == 0 || !acc || !row)
                continue;
            emb_sum_row(&p, grad_out, cd, order + first[r], count, acc, row);
            pc_kernel_write(&dw, r * p.dim, p.dim, acc, cd);
        }
        free(acc);
        free(row);
    }
    if (nomem) {
        st = pc_kernel_nomem(call);
        goto done;
    }
    out->grads[1] = dw;
    dw = PC_TENSOR_NULL;
done:
    free(first);
    free(order);
    pc_tensor_free(&ix);
    pc_tensor_free(&dw);
    return st;
}

/* ---- dropout, dropout2d ---- */

typedef struct drop_plan {
    const pc_tensor *x;
    double p;
    bool active;     /* training with 0 < p: a mask is drawn */
    int64_t n, unit; /* elements; elements per mask draw (dropout2d: one per channel plane) */
} drop_plan;

static pc_status drop_plan_make(const pc_op_call *call, drop_plan *d)
{
    d->x = pc_call_tensor(call, 0);
    d->p = call->args[1].f;
    if (d->p < 0 || d->p > 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: dropout probability has to be between 0 and 1, but got %g",
                            call->full_name, d->p);
    pc_status st = pc_kernel_need_float(call, d->x, "bernoulli_");
    if (st != PC_OK)
        return st;
    d->active = call->args[2].b && d->p > 0;
    d->n = pc_tensor_numel(d->x);
    d->unit = 1;
    if (call->op->param == 2) {
        int r = d->x->rank;
        if (r != 3 && r != 4)
            return pc_error_set(PC_ERR_UNSUPPORTED,
                                "%s: dropout2d needs a 3-D or 4-D input, got %d-D", call->full_name,
                                r);
        /* 4-D (N, C, H, W): one draw per (n, c); 3-D is treated as (C, H, W) */
        d->unit = d->x->shape[r - 1] * d->x->shape[r - 2];
    }
    return PC_OK;
}

/* v[j] times scale where u[j] >= p, else times 0 (functions of their own: written in
 * drop_mask_apply's loop nest, GCC left one of the two loops scalar, "control flow in loop"). */
static void drop_scale_f(float *v, const double *u, double p, float scale, int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        v[j] *= u[j] >= p ? scale : 0.0f;
}

static void drop_scale_d(double *v, const double *u, double p, double scale, int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        v[j] *= u[j] >= p ? scale : 0.0;
}

/* The same straight from float32 values s (read and scaled in one pass: the values the read
 * into v and drop_scale_f/_d give, the widening to double being exact). */
static void drop_scale_ff(float *v, const float *s, const double *u, double p, float scale,
                          int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        v[j] = s[j] * (u[j] >= p ? scale : 0.0f);
}

static void drop_scale_fd(double *v, const float *s, const double *u, double p, double scale,
                          int64_t m)
{
    for (int64_t j = 0; j < m; j++)
        v[j] = (double)s[j] * (u[j] >= p ? scale : 0.0);
}

/* y = src m into y (contiguous, n elements of dtype cd): every element of a unit kept (times
 * 1 / (1 - p)) or zeroed (all zeroed when p is 1), src read into y a block at a time just
 * before its mask (converted as pc_tensor_cast converts). The keep draw of unit u is
 * pc_rng_uniform(u, float64) >= p, drawn in blocks by the SIMD fill (the same values, bit for
 * bit, whatever the block). */
static void drop_mask_apply(const pc_op_call *call, const drop_plan *d, pc_compute compute,
                            pc_dtype cd, const pc_tensor *src, void *y)
{
    char key[512];
    snprintf(key, sizeof key, "%s/dropout/%s", call->full_name ? call->full_name : "",
             compute == PC_COMPUTE_BENCH ? "bench" : "device");
    pc_rng_stream s;
    pc_rng_stream_init(&s, call->seed, key);
    const double scale = d->p >= 1 ? 0.0 : 1.0 / (1.0 - d->p);
    const float fscale = d->p >= 1 ? 0.0f : 1.0f / (float)(1.0 - d->p);
    const int64_t units = (d->n + d->unit - 1) / d->unit;
    const size_t es = pc_dtype_size(cd);
    enum { BLOCK = 1024 };
    double u[BLOCK];
    /* a contiguous float32 source (the device's float32, the lazy bench's float32 input) read
     * and scaled in one pass, without the copy into y first */
    const float *f32 = d->unit == 1 && d->p < 1 && src->dtype == PC_DTYPE_F32 &&
                               (cd == PC_DTYPE_F32 || cd == PC_DTYPE_F64) &&
                               pc_tensor_is_contiguous(src)
                           ? pc_tensor_data(src)
                           : NULL;
    for (int64_t u0 = 0; u0 < units; u0 += BLOCK) {
        int64_t m = units - u0 < BLOCK ? units - u0 : BLOCK;
        if (d->p < 1)
            pc_rng_fill_uniform_f64(&s, (uint64_t)u0, u, (size_t)m);
        int64_t first = u0 * d->unit, last = (u0 + m) * d->unit;
        if (last > d->n)
            last = d->n;
        if (f32 && cd == PC_DTYPE_F64) {
            drop_scale_fd((double *)y + first, f32 + first, u, d->p, scale, m);
            continue;
        }
        if (f32) {
            drop_scale_ff((float *)y + first, f32 + first, u, d->p, fscale, m);
            continue;
        }
        pc_kernel_read(src, first, last - first, cd, (char *)y + (size_t)first * es);
        if (d->unit == 1 && d->p < 1 && cd == PC_DTYPE_F64) {
            drop_scale_d((double *)y + first, u, d->p, scale, m);
        } else if (d->unit == 1 && d->p < 1) {
            drop_scale_f((float *)y + first, u, d->p, fscale, m);
        } else {
            for (int64_t i = first; i < last; i++) {
                bool keep = d->p < 1 && u[(i - first) / d->unit] >= d->p;
                if (cd == PC_DTYPE_F64)
                    ((double *)y)[i] *= keep ? scale : 0.0;
                else
                    ((float *)y)[i] *= keep ? fscale : 0.0f;
            }
        }
    }
}

/* y = x m (x itself, copied, when not active), rounded to the dtype x stands for
 * (pc_kernel_dtype: the bench's raise happens in the read, the same exact widening). x is
 * read and masked a block at a time, in one pass over the result. */
static pc_status drop_apply(const pc_op_call *call, const drop_plan *d, pc_compute compute,
                            const pc_tensor *x, pc_tensor *out)
{
    pc_dtype xd = pc_kernel_dtype(call, d->x), cd = pc_kernel_compute_dtype(compute, xd);
    pc_tensor b = PC_TENSOR_NULL;
    pc_status st;
    if (d->active) {
        /* (written whole by the mask's blocks) */
        st = pc_tensor_alloc_uninit(&b, cd, x->shape, x->rank);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        drop_mask_apply(call, d, compute, cd, x, pc_tensor_data(&b));
    } else {
        st = pc_kernel_load(call, x, cd, &b);
    }
    if (st == PC_OK)
        st = pc_kernel_store(call, &b, xd, d->x->shape, d->x->rank, out);
    pc_tensor_free(&b);
    return st;
}

pc_status pc_k_dropout_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    drop_plan d;
    pc_status st = drop_plan_make(call, &d);
    if (st == PC_OK)
        st = drop_apply(call, &d, compute, d.x, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_dropout_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    drop_plan d;
    pc_status st = drop_plan_make(call, &d);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    return drop_apply(call, &d, compute, grad_out, &out->grads[0]);
}

/* ---- leaky_relu ---- */

pc_status pc_k_leaky_relu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_kernel_need_float(call, x, "leaky_relu_cpu");
    if (st != PC_OK)
        return st;
    double slope = call->args[1].f;
    pc_dtype cd = pc_kernel_compute_dtype(compute, x->dtype);
    pc_tensor b = PC_TENSOR_NULL;
    if ((st = pc_kernel_load(call, x, cd, &b)) != PC_OK)
        return st;
    int64_t n = pc_tensor_numel(x);
    if (cd == PC_DTYPE_F64) {
        double *v = pc_tensor_data(&b);
        for (int64_t i = 0; i < n; i++)
            v[i] = v[i] > 0 ? v[i] : v[i] * slope;
    } else {
        float *v = pc_tensor_data(&b), s = (float)slope;
        for (int64_t i = 0; i < n; i++)
            v[i] = v[i] > 0 ? v[i] : v[i] * s;
    }
    st = pc_kernel_store(call, &b, x->dtype, x->shape, x->rank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_leaky_relu_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_kernel_need_float(call, x, "leaky_relu_cpu");
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    double slope = call->args[1].f;
    pc_dtype cd = pc_kernel_compute_dtype(compute, x->dtype);
    pc_tensor b = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    if ((st = pc_kernel_load_ro(call, x, cd, &b)) == PC_OK &&
        (st = pc_kernel_load(call, grad_out, cd, &g)) == PC_OK) {
        int64_t n = pc_tensor_numel(x);
        if (cd == PC_DTYPE_F64) {
            const double *v = pc_tensor_data(&b);
            double *d = pc_tensor_data(&g);
            for (int64_t i = 0; i < n; i++)
                d[i] = v[i] > 0 ? d[i] : d[i] * slope;
        } else {
            const float *v = pc_tensor_data(&b);
            float *d = pc_tensor_data(&g), s = (float)slope;
            for (int64_t i = 0; i < n; i++)
                d[i] = v[i] > 0 ? d[i] : d[i] * s;
        }
        st = pc_kernel_store(call, &g, x->dtype, x->shape, x->rank, &out->grads[0]);
    }
    pc_tensor_free(&b);
    pc_tensor_free(&g);
    return st;
}
