/*
 * pad (Functional.pad: constant, reflect, replicate, circular) and constant_pad_nd, forward
 * and backward.
 *
 * Every output element is one input element or the fill value: along each padded dimension,
 * output index o maps to input index i = o - left, which constant mode keeps when it lies in
 * the input (else the value), reflect mirrors about the edges (-i, 2 (n - 1) - i), replicate
 * clamps and circular wraps. Negative pads crop. The forward copies elements in their dtype
 * (exact); the backward adds dy into the input index of each output element, in output order,
 * each add rounded to the input's dtype on the device (torch's reflection/replication
 * backward kernels accumulate in the dtype; circular's is a sum of slices).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ops/kernel.h"
#include "ops/shape/shape_impl.h"

enum { PAD_CONSTANT, PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR };

typedef struct pad_plan {
    const pc_tensor *x;
    int mode;
    int rank;
    int64_t left[PC_TENSOR_MAX_DIMS]; /* per dimension of x (0 where not padded) */
    /* circular: the input cropped by the negative pads first (start, size), then wrapped */
    int64_t cstart[PC_TENSOR_MAX_DIMS], csize[PC_TENSOR_MAX_DIMS];
    int64_t osh[PC_TENSOR_MAX_DIMS];
    double value;
    int64_t n; /* output elements */
} pad_plan;

static pc_status pad_plan_make(const pc_op_call *call, pad_plan *p)
{
    memset(p, 0, sizeof *p);
    p->x = pc_call_tensor(call, 0);
    p->rank = p->x->rank;
    const pc_value *pv = &call->args[1];
    int np = pv->nints;
    bool nd = call->op->param == PC_FN_CONSTANT_PAD_ND;
    const char *mode = nd || call->args[2].kind != PC_VALUE_STR ? "constant" : call->args[2].s;
    if (strcmp(mode, "constant") == 0)
        p->mode = PAD_CONSTANT;
    else if (strcmp(mode, "reflect") == 0)
        p->mode = PAD_REFLECT;
    else if (strcmp(mode, "replicate") == 0)
        p->mode = PAD_REPLICATE;
    else if (strcmp(mode, "circular") == 0)
        p->mode = PAD_CIRCULAR;
    else
        return pc_error_set(PC_ERR_INVALID, "%s: Unrecognised padding mode %s", call->full_name,
                            mode);
    if (nd)
        p->value = call->args[2].kind == PC_VALUE_NONE ? 0.0 : call->args[2].f;
    else
        p->value = call->args[3].kind == PC_VALUE_NONE ? 0.0 : call->args[3].f;
    if (np % 2 != 0)
        return pc_error_set(PC_ERR_INVALID, "%s: Padding length must be divisible by 2",
                            call->full_name);
    if (np / 2 > p->rank)
        return pc_error_set(PC_ERR_INVALID, "%s: Padding length too large", call->full_name);
    int k = np / 2;
    if (p->mode != PAD_CONSTANT) {
        if (call->args[3].kind != PC_VALUE_NONE)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Padding mode \"%s\" doesn't take in value argument",
                                call->full_name, mode);
        if (k < 1 || k > 3 || (p->rank != k + 1 && p->rank != k + 2))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Only 2D, 3D, 4D, 5D padding with non-constant padding are "
                                "supported for now",
                                call->full_name);
    }
    if (p->x->dtype == PC_DTYPE_BF16 &&
        ((p->mode == PAD_REFLECT && k < 3) || p->mode == PAD_REPLICATE))
        return pc_error_set(PC_ERR_INVALID, "%s: \"%s_pad%dd%s\" not implemented for 'BFloat16'",
                            call->full_name, p->mode == PAD_REFLECT ? "reflection" : "replication",
                            k, p->mode == PAD_REFLECT ? "" : "_cpu");
    p->n = 1;
    for (int d = 0; d < p->rank; d++) {
        p->osh[d] = p->x->shape[d];
        p->left[d] = 0;
        p->cstart[d] = 0;
        p->csize[d] = p->x->shape[d];
    }
    for (int j = 0; j < k; j++) {
        int d = p->rank - 1 - j;
        int64_t l = pv->ints[2 * j], r = pv->ints[2 * j + 1], n = p->x->shape[d];
        if (p->mode == PAD_REFLECT && (l >= n || r >= n)) {
            char sx[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(sx, sizeof sx, p->x->shape, p->x->rank);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Argument #4: Padding size should be less than the "
                                "corresponding input dimension, but got: padding (%" PRId64
                                ", %" PRId64 ") at dimension %d of input %s",
                                call->full_name, l, r, d, sx);
        }
        if (p->mode == PAD_CIRCULAR && (l > n || r > n))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Padding value causes wrapping around more than once.",
                                call->full_name);
        if (p->mode != PAD_CONSTANT && n == 0 && l + r > 0)
            return pc_error_set(PC_ERR_INVALID, "%s: padding a dimension of size 0 in %s mode",
                                call->full_name, mode);
        p->left[d] = l;
        p->osh[d] = n + l + r;
        p->cstart[d] = l < 0 ? -l : 0;
        p->csize[d] = n + (l < 0 ? l : 0) + (r < 0 ? r : 0);
        if (p->osh[d] < 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: The input size %" PRId64 ", plus negative padding %" PRId64
                                " and %" PRId64
                                " resulted in a negative output size, which is invalid. Check "
                                "dimension %d of your input.",
                                call->full_name, n, l, r, d);
    }
    for (int d = 0; d < p->rank; d++)
        p->n *= p->osh[d];
    return PC_OK;
}

/* The input index of output index o along a dimension of n elements with left pad l; -1 for
 * the fill value. */
static int64_t pad_src(const pad_plan *p, int d, int64_t o)
{
    int mode = p->mode;
    int64_t l = p->left[d], n = p->x->shape[d], i = o - l;
    switch (mode) {
    case PAD_CONSTANT:
        return i >= 0 && i < n ? i : -1;
    case PAD_REFLECT:
        if (i < 0)
            i = -i;
        if (i >= n)
            i = 2 * (n - 1) - i;
        return i;
    case PAD_REPLICATE:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    default: /* circular: torch crops first, then copies the wrapped slices */
        i = o - (l > 0 ? l : 0);
        n = p->csize[d];
        i %= n;
        return p->cstart[d] + (i < 0 ? i + n : i);
    }
}

/* Calls fn(ctx, k, src) for every output element k in order, src the input element offset (in
 * elements from x's data, by its strides) or -1. */
typedef void (*pad_visit_fn)(void *ctx, int64_t k, int64_t src);

static void pad_walk(const pad_plan *p, pad_visit_fn fn, void *ctx)
{
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0};
    for (int64_t k = 0; k < p->n; k++) {
        int64_t off = 0;
        bool fill = false;
        for (int d = 0; d < p->rank && !fill; d++) {
            int64_t s = pad_src(p, d, idx[d]);
            if (s < 0)
                fill = true;
            else
                off += s * p->x->strides[d];
        }
        fn(ctx, k, fill ? -1 : off);
        for (int d = p->rank - 1; d >= 0; d--) {
            if (++idx[d] < p->osh[d])
                break;
            idx[d] = 0;
        }
    }
}

typedef struct pad_copy_ctx {
    const unsigned char *src;
    unsigned char *dst;
    const unsigned char *fill;
    size_t es;
} pad_copy_ctx;

static void pad_copy(void *ctx, int64_t k, int64_t src)
{
    pad_copy_ctx *c = ctx;
    memcpy(c->dst + (size_t)k * c->es, src < 0 ? c->fill : c->src + (size_t)src * c->es, c->es);
}

pc_status pc_k_pad_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    pad_plan p;
    pc_status st = pad_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor y = PC_TENSOR_NULL, fill = PC_TENSOR_NULL;
    if ((st = pc_tensor_alloc(&y, p.x->dtype, p.osh, p.rank)) != PC_OK ||
        (st = pc_tensor_alloc(&fill, p.x->dtype, NULL, 0)) != PC_OK) {
        pc_tensor_free(&y);
        return pc_error_prefix(st, "%s", call->full_name);
    }
    pc_tensor_fill(&fill, p.value); /* converted as torch casts the Scalar (ints truncate) */
    pad_copy_ctx c = {(const unsigned char *)pc_tensor_data(p.x), pc_tensor_data(&y),
                      pc_tensor_data(&fill), pc_dtype_size(p.x->dtype)};
    pad_walk(&p, pad_copy, &c);
    pc_tensor_free(&fill);
    out->tensors[0] = y;
    out->count = 1;
    return PC_OK;
}

typedef struct pad_grad_ctx {
    const double *dy;
    double *dx;
    pc_dtype rd;
} pad_grad_ctx;

static void pad_add(void *ctx, int64_t k, int64_t src)
{
    pad_grad_ctx *c = ctx;
    if (src >= 0)
        c->dx[src] = pc_fn_round(c->rd, c->dx[src] + c->dy[k]);
}

/* Moves the gradient of the slice [dst, dst + len) of dimension d of G (shape osh) onto the
 * slice [src, src + len): the backward of torch's out.slice(d, dst).copy_(out.slice(d, src)),
 * each add rounded to rd. */
static void circ_move(double *G, const int64_t *osh, int rank, int d, int64_t dst, int64_t src,
                      int64_t len, pc_dtype rd)
{
    int64_t inner = 1, outer = 1;
    for (int i = d + 1; i < rank; i++)
        inner *= osh[i];
    for (int i = 0; i < d; i++)
        outer *= osh[i];
    for (int64_t o = 0; o < outer; o++)
        for (int64_t c = 0; c < len; c++)
            for (int64_t in = 0; in < inner; in++) {
                double *a = G + (o * osh[d] + dst + c) * inner + in;
                double *b = G + (o * osh[d] + src + c) * inner + in;
                *b = pc_fn_round(rd, *b + *a);
                *a = 0;
            }
}

/* circular's backward: the copies of torch's _pad_circular undone in reverse order (per padded
 * dimension from the first to the last: the left pad, then the right), then the centre. */
static void circ_backward(const pc_op_call *call, const pad_plan *p, pc_dtype rd, double *G,
                          pc_tensor *dx)
{
    int k = call->args[1].nints / 2, rank = p->rank;
    const int64_t *pads = call->args[1].ints;
    for (int i = k - 1; i >= 0; i--) {
        int d = rank - 1 - i;
        int64_t l = pads[2 * i], r = pads[2 * i + 1], O = p->osh[d];
        int64_t lp = l > 0 ? l : 0, rp = r > 0 ? r : 0;
        if (r > 0)
            circ_move(G, p->osh, rank, d, O - r, lp, r, rd);
        if (l > 0)
            circ_move(G, p->osh, rank, d, 0, O - l - rp, l, rd);
    }
    /* the centre: x index xi <- out index xi - cstart + max(l, 0) where not cropped */
    double *dv = pc_tensor_data(dx);
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0}, n = pc_tensor_numel(dx);
    int64_t ost[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(p->osh, rank, ost);
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        bool in = true;
        for (int d = 0; d < rank && in; d++) {
            int64_t lp = p->left[d] > 0 ? p->left[d] : 0;
            int64_t c = idx[d] - p->cstart[d];
            in = c >= 0 && c < p->csize[d];
            off += (c + lp) * ost[d];
        }
        dv[e] = in ? G[off] : 0.0;
        for (int d = rank - 1; d >= 0; d--) {
            if (++idx[d] < p->x->shape[d])
                break;
            idx[d] = 0;
        }
    }
}

pc_status pc_k_pad_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out)
{
    pad_plan p;
    pc_status st = pad_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    /* walk with x seen as contiguous, so that offsets index the gradient buffer */
    pc_tensor xc = *p.x;
    pc_shape_contiguous_strides(xc.shape, xc.rank, xc.strides);
    p.x = &xc;
    pc_tensor g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    if ((st = pc_kernel_load(call, grad_out, PC_DTYPE_F64, &g)) != PC_OK ||
        (st = pc_tensor_alloc(&dx, PC_DTYPE_F64, xc.shape, xc.rank)) != PC_OK)
        goto done;
    pad_grad_ctx c = {pc_tensor_data(&g), pc_tensor_data(&dx),
                      pc_fn_round_dtype(compute, xc.dtype)};
    if (p.mode == PAD_CIRCULAR)
        circ_backward(call, &p, c.rd, pc_tensor_data(&g), &dx);
    else
        pad_walk(&p, pad_add, &c);
    st = pc_kernel_store(call, &dx, xc.dtype, xc.shape, xc.rank, &out->grads[0]);
done:
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st;
}
