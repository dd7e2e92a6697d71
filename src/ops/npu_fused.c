/*
 * npu_rms_norm, npu_rotary_mul and npu_swiglu: msprobe's CPU bench functions (dump_and_ops.md
 * §B.4) on the bench, in float64. The reference device computes as a fused NPU kernel does:
 * float16/bfloat16 inputs in float32, the result rounded once to the output dtype, except
 * where the bench itself rounds on the way (swiglu's float16/bfloat16 branch, which is what
 * msprobe's GPU side executes); float32 and float64 inputs in their own dtype.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "nn_impl.h"
#include "npu_impl.h"
#include "precheck/core/convert.h"

#define NK_T     float
#define NK_SFX   f
#define NK_LANES 8
#include "npu_fused_kernel.inc"
#undef NK_T
#undef NK_SFX
#undef NK_LANES
#define NK_T     double
#define NK_SFX   d
#define NK_LANES 4
#include "npu_fused_kernel.inc"
#undef NK_T
#undef NK_SFX
#undef NK_LANES

static float round_to(float v, pc_dtype d)
{
    if (d == PC_DTYPE_F16)
        return pc_f16_to_f32(pc_f32_to_f16(v));
    if (d == PC_DTYPE_BF16)
        return pc_bf16_to_f32(pc_f32_to_bf16(v));
    return v;
}

static pc_status need_floats(const pc_op_call *call, int n, const char *kernel)
{
    for (int i = 0; i < n; i++) {
        const pc_tensor *t = pc_call_tensor(call, i);
        pc_status st = t ? pc_nn_need_float(call, t, kernel) : PC_OK;
        if (st != PC_OK)
            return st;
    }
    return PC_OK;
}

/* The promoted dtype of tensor arguments 0 .. n-1. */
static pc_dtype promoted(const pc_op_call *call, int n)
{
    pc_dtype d = pc_call_tensor(call, 0)->dtype;
    for (int i = 1; i < n; i++)
        d = pc_promote_types(d, pc_call_tensor(call, i)->dtype);
    return d;
}

/* The compute dtype of a call whose result has dtype od. */
static pc_dtype compute_dtype(pc_compute compute, pc_dtype od)
{
    return pc_nn_compute_dtype(compute, od);
}

/* ---- npu_rms_norm(x, gamma, epsilon) -> (y, rstd float32 [..., 1]) ---- */

pc_status pc_k_npu_rms_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *g = pc_call_tensor(call, 1);
    double eps = call->args[2].f;
    pc_status st = need_floats(call, 2, "npu_rms_norm");
    if (st != PC_OK)
        return st;
    int64_t bs[PC_TENSOR_MAX_DIMS];
    int br = 0;
    if ((st = pc_broadcast_shapes(x->shape, x->rank, g->shape, g->rank, bs, &br)) != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (x->rank == 0 || br != x->rank || memcmp(bs, x->shape, sizeof(int64_t) * (size_t)br) != 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_rms_norm: gamma must broadcast to the shape of x (x of rank "
                            "1 or more)",
                            call->full_name);
    pc_dtype od = promoted(call, 2), cd = compute_dtype(compute, od);
    int64_t D = x->shape[x->rank - 1], rows = D ? pc_tensor_numel(x) / D : 0;
    int64_t rshape[PC_TENSOR_MAX_DIMS];
    memcpy(rshape, x->shape, sizeof rshape);
    rshape[x->rank - 1] = 1;
    pc_tensor xb = PC_TENSOR_NULL, gb = PC_TENSOR_NULL, y = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    pc_tensor sq = PC_TENSOR_NULL;
    int64_t dd[1] = {D > 0 ? D : 1};
    /* gamma of D values (the usual [D]): read as one row, not expanded to x's shape */
    bool one_row = pc_tensor_numel(g) == D && g->rank > 0 && g->shape[g->rank - 1] == D;
    if ((st = pc_nn_load_ro(call, x, cd, &xb)) == PC_OK &&
        (st = pc_tensor_alloc(&sq, cd, dd, 1)) == PC_OK &&
        (st = one_row ? pc_nn_load_ro(call, g, cd, &gb)
                      : pc_nn_load_expand(call, g, x->shape, x->rank, cd, &gb)) == PC_OK &&
        (st = pc_tensor_alloc(&y, cd, x->shape, x->rank)) == PC_OK &&
        (st = pc_tensor_alloc(&r, cd, rshape, x->rank)) == PC_OK) {
        if (cd == PC_DTYPE_F64)
            rms_rows_d(pc_tensor_data(&xb), pc_tensor_data(&gb), one_row ? 0 : D,
                       pc_tensor_data(&y), pc_tensor_data(&r), rows, D, eps, pc_tensor_data(&sq));
        else
            rms_rows_f(pc_tensor_data(&xb), pc_tensor_data(&gb), one_row ? 0 : D,
                       pc_tensor_data(&y), pc_tensor_data(&r), rows, D, eps, pc_tensor_data(&sq));
        st = pc_nn_store(call, &y, od, x->shape, x->rank, &out->tensors[0]);
        if (st == PC_OK)
            st = pc_nn_store(call, &r, PC_DTYPE_F32, rshape, x->rank, &out->tensors[1]);
        if (st == PC_OK)
            out->count = 2;
    }
    pc_tensor_free(&xb);
    pc_tensor_free(&gb);
    pc_tensor_free(&y);
    pc_tensor_free(&r);
    pc_tensor_free(&sq);
    return st == PC_ERR_NOMEM ? pc_nn_nomem(call) : st;
}

/* ---- npu_rotary_mul(x, r1, r2) = r1 x + r2 cat(-x2, x1) ---- */

typedef struct rot_plan {
    const pc_tensor *t[3]; /* x, r1, r2 */
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int rank;
    int64_t rows, D;
    pc_dtype od, cd;
} rot_plan;

static pc_status rot_plan_make(const pc_op_call *call, pc_compute compute, rot_plan *p)
{
    pc_status st = need_floats(call, 3, "npu_rotary_mul");
    if (st != PC_OK)
        return st;
    for (int i = 0; i < 3; i++)
        p->t[i] = pc_call_tensor(call, i);
    const pc_tensor *x = p->t[0];
    int64_t s1[PC_TENSOR_MAX_DIMS];
    int r1 = 0;
    if ((st = pc_broadcast_shapes(x->shape, x->rank, p->t[1]->shape, p->t[1]->rank, s1, &r1)) !=
            PC_OK ||
        (st = pc_broadcast_shapes(s1, r1, p->t[2]->shape, p->t[2]->rank, p->shape, &p->rank)) !=
            PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    int64_t xd = x->rank ? x->shape[x->rank - 1] : 1;
    if (xd < 2)
        return pc_error_set(PC_ERR_INVALID, "%s: not enough values to unpack (expected 2, got 1)",
                            call->full_name);
    if (p->shape[p->rank - 1] != xd)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_rotary_mul: the last dimension of r1 and r2 must be x's",
                            call->full_name);
    p->D = xd;
    p->rows = 1;
    for (int i = 0; i < p->rank - 1; i++)
        p->rows *= p->shape[i];
    p->od = promoted(call, 3);
    p->cd = compute_dtype(compute, p->od);
    return PC_OK;
}

static pc_status rot_load(const pc_op_call *call, const rot_plan *p, pc_tensor *b)
{
    pc_status st = PC_OK;
    for (int i = 0; i < 3 && st == PC_OK; i++)
        st = pc_nn_load_expand(call, p->t[i], p->shape, p->rank, p->cd, &b[i]);
    return st;
}

pc_status pc_k_npu_rotary_mul_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    rot_plan p;
    pc_status st = rot_plan_make(call, compute, &p);
    if (st != PC_OK)
        return st;
    pc_tensor b[3] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL}, y = PC_TENSOR_NULL;
    if ((st = rot_load(call, &p, b)) == PC_OK &&
        (st = pc_tensor_alloc(&y, p.cd, p.shape, p.rank)) == PC_OK) {
        if (p.cd == PC_DTYPE_F64)
            rotary_rows_d(pc_tensor_data(&b[0]), pc_tensor_data(&b[1]), pc_tensor_data(&b[2]),
                          pc_tensor_data(&y), p.rows, p.D);
        else
            rotary_rows_f(pc_tensor_data(&b[0]), pc_tensor_data(&b[1]), pc_tensor_data(&b[2]),
                          pc_tensor_data(&y), p.rows, p.D);
        st = pc_nn_store(call, &y, p.od, p.shape, p.rank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    for (int i = 0; i < 3; i++)
        pc_tensor_free(&b[i]);
    pc_tensor_free(&y);
    return st == PC_ERR_NOMEM ? pc_nn_nomem(call) : st;
}

pc_status pc_k_npu_rotary_mul_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out)
{
    rot_plan p;
    pc_status st = rot_plan_make(call, compute, &p);
    if (st != PC_OK)
        return st;
    pc_tensor b[3] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL}, g = PC_TENSOR_NULL;
    pc_tensor d[3] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL};
    bool want[3];
    for (int i = 0; i < 3; i++)
        want[i] = pc_nn_wants_grad(call, i);
    if ((st = rot_load(call, &p, b)) == PC_OK &&
        (st = pc_nn_load_expand(call, grad_out, p.shape, p.rank, p.cd, &g)) == PC_OK) {
        for (int i = 0; i < 3 && st == PC_OK; i++)
            if (want[i])
                st = pc_tensor_alloc(&d[i], p.cd, p.shape, p.rank);
    }
    if (st == PC_OK) {
        if (p.cd == PC_DTYPE_F64)
            rotary_grad_rows_d(pc_tensor_data(&b[0]), pc_tensor_data(&b[1]), pc_tensor_data(&b[2]),
                               pc_tensor_data(&g), want[0] ? pc_tensor_data(&d[0]) : NULL,
                               want[1] ? pc_tensor_data(&d[1]) : NULL,
                               want[2] ? pc_tensor_data(&d[2]) : NULL, p.rows, p.D);
        else
            rotary_grad_rows_f(pc_tensor_data(&b[0]), pc_tensor_data(&b[1]), pc_tensor_data(&b[2]),
                               pc_tensor_data(&g), want[0] ? pc_tensor_data(&d[0]) : NULL,
                               want[1] ? pc_tensor_data(&d[1]) : NULL,
                               want[2] ? pc_tensor_data(&d[2]) : NULL, p.rows, p.D);
    }
    for (int i = 0; i < 3 && st == PC_OK; i++) {
        if (!want[i])
            continue;
        pc_tensor s = PC_TENSOR_NULL;
        st = pc_tensor_alloc(&s, p.cd, p.t[i]->shape, p.t[i]->rank);
        if (st == PC_OK && p.cd == PC_DTYPE_F64)
            torch_sum_to_d(pc_tensor_data(&d[i]), p.shape, p.rank, p.t[i]->shape, p.t[i]->rank,
                           pc_tensor_data(&s));
        else if (st == PC_OK)
            torch_sum_to_f(pc_tensor_data(&d[i]), p.shape, p.rank, p.t[i]->shape, p.t[i]->rank,
                           pc_tensor_data(&s));
        if (st == PC_OK)
            st = pc_nn_store(call, &s, p.t[i]->dtype, p.t[i]->shape, p.t[i]->rank, &out->grads[i]);
    }
    for (int i = 0; i < 3; i++) {
        pc_tensor_free(&b[i]);
        pc_tensor_free(&d[i]);
    }
    pc_tensor_free(&g);
    return st == PC_ERR_NOMEM ? pc_nn_nomem(call) : st;
}

/* ---- npu_swiglu(x, dim) = silu(a) b with a, b = chunk(x, 2, dim) ---- */

typedef struct swi_plan {
    const pc_tensor *x;
    int dim;
    int64_t outer, h, inner;
    int64_t oshape[PC_TENSOR_MAX_DIMS];
    pc_dtype cd;
    bool rounded; /* the float16/bfloat16 branch on the device */
} swi_plan;

static pc_status swi_plan_make(const pc_op_call *call, pc_compute compute, swi_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    pc_status st = pc_nn_need_float(call, p->x, "npu_swiglu");
    if (st != PC_OK)
        return st;
    int rank = p->x->rank;
    if (rank == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: chunk expects at least a 1-dimensional tensor",
                            call->full_name);
    p->dim = pc_nn_dim(call, call->args[1].i, rank);
    if (p->dim < 0)
        return PC_ERR_INVALID;
    int64_t n = p->x->shape[p->dim];
    if (n < 2)
        return pc_error_set(PC_ERR_INVALID, "%s: tuple index out of range", call->full_name);
    if (n % 2 == 1 && n != 3)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: The size of tensor a (%lld) must match the size of tensor b "
                            "(%lld) at non-singleton dimension %d",
                            call->full_name, (long long)((n + 1) / 2), (long long)(n / 2), p->dim);
    if (n % 2 == 1)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_swiglu over a dimension of size 3 (halves 2 and 1 "
                            "broadcast) is not supported",
                            call->full_name);
    p->h = n / 2;
    p->outer = p->inner = 1;
    for (int i = 0; i < p->dim; i++)
        p->outer *= p->x->shape[i];
    for (int i = p->dim + 1; i < rank; i++)
        p->inner *= p->x->shape[i];
    memcpy(p->oshape, p->x->shape, sizeof p->oshape);
    p->oshape[p->dim] = p->h;
    p->cd = compute_dtype(compute, p->x->dtype);
    p->rounded = compute == PC_COMPUTE_DEVICE &&
                 (p->x->dtype == PC_DTYPE_F16 || p->x->dtype == PC_DTYPE_BF16);
    return PC_OK;
}

/* The float16/bfloat16 branch: s = silu(a) in float32 rounded to the dtype, y = s b. */
static void swiglu_rounded(const float *x, float *y, const swi_plan *p)
{
    pc_dtype dt = p->x->dtype;
    int64_t hi = p->h * p->inner;
    for (int64_t o = 0; o < p->outer; o++)
        for (int64_t k = 0; k < hi; k++) {
            float a = x[o * 2 * hi + k], b = x[o * 2 * hi + hi + k];
            float s = round_to(a / (1.0f + expf(-a)), dt);
            y[o * hi + k] = s * b;
        }
}

/* Its autograd: the gradient of s is rounded to the dtype before silu's backward
 * (dy sig (1 + a (1 - sig))), and both halves' gradients are rounded (at the store). */
static void swiglu_rounded_grad(const float *x, const float *dy, float *dx, const swi_plan *p)
{
    pc_dtype dt = p->x->dtype;
    int64_t hi = p->h * p->inner;
    for (int64_t o = 0; o < p->outer; o++)
        for (int64_t k = 0; k < hi; k++) {
            int64_t ia = o * 2 * hi + k, ib = ia + hi;
            float a = x[ia], b = x[ib], g = dy[o * hi + k];
            float sg = 1.0f / (1.0f + expf(-a));
            float s = round_to(a / (1.0f + expf(-a)), dt);
            float gs = round_to(g * b, dt);
            dx[ia] = gs * sg * (1.0f + a * (1.0f - sg));
            dx[ib] = g * s;
        }
}

pc_status pc_k_npu_swiglu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    swi_plan p;
    pc_status st = swi_plan_make(call, compute, &p);
    if (st != PC_OK)
        return st;
    pc_tensor xb = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = pc_nn_load_ro(call, p.x, p.cd, &xb)) == PC_OK &&
        (st = pc_tensor_alloc(&y, p.cd, p.oshape, p.x->rank)) == PC_OK) {
        if (p.rounded)
            swiglu_rounded(pc_tensor_data(&xb), pc_tensor_data(&y), &p);
        else if (p.cd == PC_DTYPE_F64)
            swiglu_plain_d(pc_tensor_data(&xb), pc_tensor_data(&y), p.outer, p.h, p.inner);
        else
            swiglu_plain_f(pc_tensor_data(&xb), pc_tensor_data(&y), p.outer, p.h, p.inner);
        st = pc_nn_store(call, &y, p.x->dtype, p.oshape, p.x->rank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    pc_tensor_free(&xb);
    pc_tensor_free(&y);
    return st == PC_ERR_NOMEM ? pc_nn_nomem(call) : st;
}

pc_status pc_k_npu_swiglu_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    swi_plan p;
    pc_status st = swi_plan_make(call, compute, &p);
    if (st != PC_OK || !pc_nn_wants_grad(call, 0))
        return st;
    pc_tensor xb = PC_TENSOR_NULL, g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL;
    if ((st = pc_nn_load_ro(call, p.x, p.cd, &xb)) == PC_OK &&
        (st = pc_nn_load(call, grad_out, p.cd, &g)) == PC_OK &&
        (st = pc_tensor_alloc(&dx, p.cd, p.x->shape, p.x->rank)) == PC_OK) {
        if (p.rounded)
            swiglu_rounded_grad(pc_tensor_data(&xb), pc_tensor_data(&g), pc_tensor_data(&dx), &p);
        else if (p.cd == PC_DTYPE_F64)
            swiglu_plain_grad_d(pc_tensor_data(&xb), pc_tensor_data(&g), pc_tensor_data(&dx),
                                p.outer, p.h, p.inner);
        else
            swiglu_plain_grad_f(pc_tensor_data(&xb), pc_tensor_data(&g), pc_tensor_data(&dx),
                                p.outer, p.h, p.inner);
        st = pc_nn_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
    }
    pc_tensor_free(&xb);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    return st == PC_ERR_NOMEM ? pc_nn_nomem(call) : st;
}
