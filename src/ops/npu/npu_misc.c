/*
 * The smaller NPU fused ops, as msprobe's CPU bench functions compute them
 * (docs/msprobe-contract.md#replay): npu_scaled_masked_softmax, npu_fast_gelu,
 * npu_confusion_transpose, npu_layer_norm_eval (layer_norm ignoring weight, bias and eps: the
 * bench's quirk), npu_apply_adam and npu_apply_adam_w (Adam updates of out=(var, m, v); no
 * backward), and npu_group_norm_silu. npu_linear and npu_mish are the nn and element-wise kernels
 * (rows in npu/npu.def). The device computes float16/bfloat16 in float32 and rounds each result
 * once, float32 and float64 in their own dtype; the bench in float64.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/norm/norm_impl.h"
#include "ops/npu/npu_impl.h"

/* The scalars of the Adam updates, as msprobe's bench forms them in Python floats. */
typedef struct adam_scalars {
    double beta1, beta2, eps, lr, beta1_power, beta2_power; /* npu_apply_adam */
    bool nesterov;
    double var_scale, beta1_m1, beta2_m1, denom1, denom2, neg_lr; /* npu_apply_adam_w */
    bool maximize;
} adam_scalars;

#define PC_TWIN_TEMPLATE "ops/npu/npu_misc_kernel.inc"
#include "ops/kernel_twins.h"

/* ---- npu_scaled_masked_softmax(x, mask, scale, fixed_triu_mask) ---- */

typedef struct sms_plan {
    const pc_tensor *x;
    int64_t rows, n;
    double scale;
    pc_dtype cd;
} sms_plan;

/* The mask as bool broadcast to x's shape (materialised: a byte per element). With
 * fixed_triu_mask it is triu(ones(mask.shape), 1) instead of the mask's values. */
static pc_status sms_mask(const pc_op_call *call, const sms_plan *p, pc_tensor *out)
{
    const pc_tensor *mk = pc_call_tensor(call, 1);
    pc_tensor m = PC_TENSOR_NULL;
    pc_status st;
    if (call->args[3].b) {
        if ((st = pc_tensor_alloc(&m, PC_DTYPE_BOOL, mk->shape, mk->rank)) != PC_OK)
            return pc_kernel_nomem(call);
        int64_t cols = mk->rank ? mk->shape[mk->rank - 1] : 1;
        int64_t rows = mk->rank > 1 ? mk->shape[mk->rank - 2] : 1;
        uint8_t *v = pc_tensor_data(&m);
        for (int64_t i = 0; i < pc_tensor_numel(&m); i++)
            v[i] = i % cols > i / cols % rows;
    } else if ((st = pc_tensor_cast(&m, mk, PC_DTYPE_BOOL)) != PC_OK) {
        return pc_error_prefix(st, "%s", call->full_name);
    }
    pc_tensor e = PC_TENSOR_NULL;
    st = pc_tensor_expand(&e, &m, p->x->shape, p->x->rank);
    if (st == PC_OK)
        st = pc_tensor_contiguous(out, &e);
    pc_tensor_free(&e);
    pc_tensor_free(&m);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

static pc_status sms_plan_make(const pc_op_call *call, pc_compute compute, sms_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    pc_status st = pc_kernel_need_float(call, p->x, "npu_scaled_masked_softmax");
    if (st != PC_OK)
        return st;
    if (p->x->rank == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Dimension out of range (expected to be in range of [-1, 0], but "
                            "got -1)",
                            call->full_name);
    p->n = p->x->shape[p->x->rank - 1];
    p->rows = p->n ? pc_tensor_numel(p->x) / p->n : 0;
    p->scale = call->args[2].f;
    p->cd = pc_kernel_compute_dtype(compute, p->x->dtype);
    return PC_OK;
}

pc_status pc_k_npu_scaled_masked_softmax_forward(const pc_op_call *call, pc_compute compute,
                                                 pc_op_result *out)
{
    sms_plan p;
    pc_status st = sms_plan_make(call, compute, &p);
    if (st != PC_OK)
        return st;
    pc_tensor x = PC_TENSOR_NULL, m = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = sms_mask(call, &p, &m)) == PC_OK &&
        (st = pc_kernel_load_ro(call, p.x, p.cd, &x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, p.cd, p.x->shape, p.x->rank)) == PC_OK) {
        if (p.n > 0) {
            if (p.cd == PC_DTYPE_F64)
                sms_rows_d(pc_tensor_data(&x), pc_tensor_data(&m), pc_tensor_data(&y), p.rows, p.n,
                           p.scale);
            else
                sms_rows_f(pc_tensor_data(&x), pc_tensor_data(&m), pc_tensor_data(&y), p.rows, p.n,
                           p.scale);
        }
        st = pc_kernel_store(call, &y, p.x->dtype, p.x->shape, p.x->rank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    pc_tensor_free(&x);
    pc_tensor_free(&m);
    pc_tensor_free(&y);
    return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
}

pc_status pc_k_npu_scaled_masked_softmax_backward(const pc_op_call *call, pc_compute compute,
                                                  const pc_tensor *grad_out, pc_op_grads *out)
{
    sms_plan p;
    pc_status st = sms_plan_make(call, compute, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    pc_tensor x = PC_TENSOR_NULL, m = PC_TENSOR_NULL, g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL,
              s = PC_TENSOR_NULL;
    int64_t sshape[1] = {2 * (p.n > 0 ? p.n : 1)};
    if ((st = sms_mask(call, &p, &m)) == PC_OK &&
        (st = pc_kernel_load_ro(call, p.x, p.cd, &x)) == PC_OK &&
        (st = pc_kernel_load(call, grad_out, p.cd, &g)) == PC_OK &&
        (st = pc_tensor_alloc(&dx, p.cd, p.x->shape, p.x->rank)) == PC_OK &&
        (st = pc_tensor_alloc(&s, p.cd, sshape, 1)) == PC_OK) {
        if (p.n > 0) {
            if (p.cd == PC_DTYPE_F64) {
                double *e = pc_tensor_data(&s);
                sms_grad_rows_d(pc_tensor_data(&x), pc_tensor_data(&m), pc_tensor_data(&g),
                                pc_tensor_data(&dx), p.rows, p.n, p.scale, e, e + p.n);
            } else {
                float *e = pc_tensor_data(&s);
                sms_grad_rows_f(pc_tensor_data(&x), pc_tensor_data(&m), pc_tensor_data(&g),
                                pc_tensor_data(&dx), p.rows, p.n, p.scale, e, e + p.n);
            }
        }
        st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0]);
    }
    pc_tensor_free(&x);
    pc_tensor_free(&m);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    pc_tensor_free(&s);
    return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
}

/* ---- npu_fast_gelu(x) ---- */

pc_status pc_k_npu_fast_gelu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_kernel_need_float(call, x, "npu_fast_gelu");
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, x->dtype);
    pc_tensor b = PC_TENSOR_NULL;
    if ((st = pc_kernel_load(call, x, cd, &b)) != PC_OK)
        return st;
    if (cd == PC_DTYPE_F64)
        fast_gelu_n_d(pc_tensor_data(&b), pc_tensor_data(&b), pc_tensor_numel(x));
    else
        fast_gelu_n_f(pc_tensor_data(&b), pc_tensor_data(&b), pc_tensor_numel(x));
    st = pc_kernel_store(call, &b, x->dtype, x->shape, x->rank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_npu_fast_gelu_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = pc_kernel_need_float(call, x, "npu_fast_gelu");
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, x->dtype);
    pc_tensor b = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    if ((st = pc_kernel_load_ro(call, x, cd, &b)) == PC_OK &&
        (st = pc_kernel_load(call, grad_out, cd, &g)) == PC_OK) {
        if (cd == PC_DTYPE_F64)
            fast_gelu_grad_n_d(pc_tensor_data(&b), pc_tensor_data(&g), pc_tensor_data(&g),
                               pc_tensor_numel(x));
        else
            fast_gelu_grad_n_f(pc_tensor_data(&b), pc_tensor_data(&g), pc_tensor_data(&g),
                               pc_tensor_numel(x));
        st = pc_kernel_store(call, &g, x->dtype, x->shape, x->rank, &out->grads[0]);
    }
    pc_tensor_free(&b);
    pc_tensor_free(&g);
    return st;
}

/* ---- npu_confusion_transpose(x, perm, shape, transpose_first) ---- */

/* The permutation of the call, checked; inv (may be NULL) its inverse. */
static pc_status ct_perm(const pc_op_call *call, int rank, int *perm, int *inv)
{
    const pc_value *pv = &call->args[1];
    if (pv->nints != rank)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: permute(sparse_coo): number of dimensions in the tensor input "
                            "does not match the length of the desired ordering of dimensions "
                            "i.e. input.dim() = %d is not equal to len(dims) = %d",
                            call->full_name, rank, pv->nints);
    bool seen[PC_TENSOR_MAX_DIMS] = {0};
    for (int i = 0; i < rank; i++) {
        int d = pc_kernel_dim(call, pv->ints[i], rank);
        if (d < 0)
            return PC_ERR_INVALID;
        if (seen[d])
            return pc_error_set(PC_ERR_INVALID, "%s: permute(): duplicate dims are not allowed.",
                                call->full_name);
        seen[d] = true;
        perm[i] = d;
        if (inv)
            inv[d] = i;
    }
    return PC_OK;
}

/* a (any strides) -> contiguous, viewed as shape (rank): torch's view/reshape with one -1. */
static pc_status ct_reshape(const pc_op_call *call, const pc_tensor *a, const int64_t *shape,
                            int rank, pc_tensor *out)
{
    pc_tensor c = PC_TENSOR_NULL;
    int64_t s[PC_TENSOR_MAX_DIMS], known = 1;
    int neg = -1;
    for (int i = 0; i < rank; i++) {
        s[i] = shape[i];
        if (s[i] == -1 && neg < 0)
            neg = i;
        else
            known *= s[i];
    }
    int64_t n = pc_tensor_numel(a);
    if (neg >= 0 && known > 0)
        s[neg] = n / known;
    bool ok = true;
    int64_t total = 1;
    for (int i = 0; i < rank; i++)
        total *= s[i] < 0 ? (ok = false, 1) : s[i];
    char sh[PC_SHAPE_FORMAT_MAX];
    if (!ok || total != n) {
        pc_shape_format(sh, sizeof sh, shape, rank);
        return pc_error_set(PC_ERR_INVALID, "%s: shape '%s' is invalid for input of size %lld",
                            call->full_name, sh, (long long)n);
    }
    pc_status st = pc_tensor_contiguous(&c, a);
    if (st == PC_OK)
        st = pc_tensor_reshape(out, &c, s, rank);
    pc_tensor_free(&c);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

/* x.permute(perm).reshape(shape) or x.view(shape).permute(perm), made contiguous */
static pc_status ct_apply(const pc_op_call *call, const pc_tensor *x, bool transpose_first,
                          const int64_t *shape, int srank, pc_tensor *out)
{
    pc_status st;
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
    int perm[PC_TENSOR_MAX_DIMS];
    if (transpose_first) {
        if ((st = ct_perm(call, x->rank, perm, NULL)) != PC_OK)
            return st;
        st = pc_tensor_permute(&a, x, perm);
        if (st == PC_OK)
            st = ct_reshape(call, &a, shape, srank, out);
    } else {
        st = ct_reshape(call, x, shape, srank, &a);
        if (st == PC_OK && (st = ct_perm(call, a.rank, perm, NULL)) == PC_OK &&
            (st = pc_tensor_permute(&b, &a, perm)) == PC_OK)
            st = pc_tensor_contiguous(out, &b);
    }
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    return st;
}

pc_status pc_k_npu_confusion_transpose_forward(const pc_op_call *call, pc_compute compute,
                                               pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *sv = &call->args[2];
    pc_status st = ct_apply(call, x, call->args[3].b, sv->ints, sv->nints, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

/* backward (msprobe's npu_confusion_transpose_backward): transpose_first: grad.reshape(x's
 * permuted shape).permute(inv); else grad.permute(inv).reshape(x's shape). */
pc_status pc_k_npu_confusion_transpose_backward(const pc_op_call *call, pc_compute compute,
                                                const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_kernel_wants_grad(call, 0))
        return PC_OK;
    pc_status st;
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
    int perm[PC_TENSOR_MAX_DIMS], inv[PC_TENSOR_MAX_DIMS];
    if (call->args[3].b) {
        int64_t ps[PC_TENSOR_MAX_DIMS];
        if ((st = ct_perm(call, x->rank, perm, inv)) != PC_OK)
            return st;
        for (int i = 0; i < x->rank; i++)
            ps[i] = x->shape[perm[i]];
        st = ct_reshape(call, grad_out, ps, x->rank, &a);
        if (st == PC_OK && (st = pc_tensor_permute(&b, &a, inv)) == PC_OK)
            st = pc_tensor_contiguous(&out->grads[0], &b);
    } else {
        if ((st = ct_perm(call, grad_out->rank, perm, inv)) != PC_OK)
            return st;
        st = pc_tensor_permute(&a, grad_out, inv);
        if (st == PC_OK)
            st = ct_reshape(call, &a, x->shape, x->rank, &out->grads[0]);
    }
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    if (st == PC_OK && out->grads[0].dtype != x->dtype)
        st = pc_tensor_cast(&out->grads[0], &out->grads[0], x->dtype);
    return st;
}

/* ---- npu_layer_norm_eval: msprobe's bench is layer_norm(x, normalized_shape) ---- */

/* The call as layer_norm's kernel reads it, without weight and bias and with eps 1e-5. */
static void lne_call(const pc_op_call *call, pc_op_call *ln)
{
    *ln = *call; /* a view: it owns nothing, and is not freed */
    ln->args[2].kind = PC_VALUE_NONE;
    ln->args[3].kind = PC_VALUE_NONE;
    ln->args[4].kind = PC_VALUE_FLOAT;
    ln->args[4].f = 1e-5;
}

pc_status pc_k_npu_layer_norm_eval_forward(const pc_op_call *call, pc_compute compute,
                                           pc_op_result *out)
{
    pc_op_call *ln = malloc(sizeof *ln);
    if (!ln)
        return pc_kernel_nomem(call);
    lne_call(call, ln);
    pc_status st = pc_k_layer_norm_forward(ln, compute, out);
    free(ln);
    return st;
}

pc_status pc_k_npu_layer_norm_eval_backward(const pc_op_call *call, pc_compute compute,
                                            const pc_tensor *grad_out, pc_op_grads *out)
{
    pc_op_call *ln = malloc(sizeof *ln);
    if (!ln)
        return pc_kernel_nomem(call);
    lne_call(call, ln);
    pc_status st = pc_k_layer_norm_backward(ln, compute, grad_out, out);
    free(ln);
    return st;
}

/* ---- npu_apply_adam, npu_apply_adam_w: (var', m', v') from out=(var, m, v) ---- */

static double scalar_arg(const pc_op_call *call, int i)
{
    const pc_tensor *t = pc_call_tensor(call, i);
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0};
    return t && pc_tensor_numel(t) == 1 ? pc_tensor_get(t, idx) : (double)NAN;
}

static pc_status adam_run(const pc_op_call *call, pc_compute compute, int grad_arg, int out_arg,
                          const adam_scalars *s, bool w, pc_op_result *out)
{
    const pc_value *ov = &call->args[out_arg];
    if (ov->kind != PC_VALUE_TENSOR_LIST || ov->tensors.count != 3)
        return pc_error_set(PC_ERR_INVALID, "%s: out must be (var, m, v), three tensors",
                            call->full_name);
    const pc_tensor *t[4] = {&ov->tensors.items[0], &ov->tensors.items[1], &ov->tensors.items[2],
                             pc_call_tensor(call, grad_arg)};
    for (int i = 0; i < 4; i++) {
        pc_status st = pc_kernel_need_float(call, t[i], w ? "npu_apply_adam_w" : "npu_apply_adam");
        if (st != PC_OK)
            return st;
        if (!pc_tensor_same_shape(t[i], t[0]))
            return pc_error_set(PC_ERR_INVALID, "%s: var, m, v and grad must have one shape",
                                call->full_name);
    }
    pc_dtype cd = pc_kernel_compute_dtype(compute, t[0]->dtype);
    for (int i = 1; i < 4; i++)
        if (pc_kernel_compute_dtype(compute, t[i]->dtype) == PC_DTYPE_F64)
            cd = PC_DTYPE_F64;
    pc_tensor in[4] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL};
    pc_tensor o[3] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL};
    pc_status st = PC_OK;
    for (int i = 0; i < 4 && st == PC_OK; i++)
        st = pc_kernel_load_ro(call, t[i], cd, &in[i]);
    for (int i = 0; i < 3 && st == PC_OK; i++)
        st = pc_tensor_alloc(&o[i], cd, t[0]->shape, t[0]->rank);
    if (st == PC_OK) {
        int64_t n = pc_tensor_numel(t[0]);
        void *p[7] = {pc_tensor_data(&in[0]), pc_tensor_data(&in[1]), pc_tensor_data(&in[2]),
                      pc_tensor_data(&in[3]), pc_tensor_data(&o[0]),  pc_tensor_data(&o[1]),
                      pc_tensor_data(&o[2])};
        if (cd == PC_DTYPE_F64)
            (w ? adam_w_n_d : adam_n_d)(s, p[0], p[1], p[2], p[3], p[4], p[5], p[6], n);
        else
            (w ? adam_w_n_f : adam_n_f)(s, p[0], p[1], p[2], p[3], p[4], p[5], p[6], n);
        for (int i = 0; i < 3 && st == PC_OK; i++)
            st = pc_kernel_store(call, &o[i], t[i]->dtype, t[i]->shape, t[i]->rank,
                                 &out->tensors[i]);
        if (st == PC_OK)
            out->count = 3;
    }
    for (int i = 0; i < 4; i++)
        pc_tensor_free(&in[i]);
    for (int i = 0; i < 3; i++)
        pc_tensor_free(&o[i]);
    return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
}

/* npu_apply_adam(beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking,
 * use_nesterov, *, out) */
pc_status pc_k_npu_apply_adam_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    adam_scalars s = {0};
    s.beta1_power = scalar_arg(call, 0);
    s.beta2_power = scalar_arg(call, 1);
    s.lr = scalar_arg(call, 2);
    s.beta1 = scalar_arg(call, 3);
    s.beta2 = scalar_arg(call, 4);
    s.eps = scalar_arg(call, 5);
    s.nesterov = call->args[8].kind == PC_VALUE_BOOL && call->args[8].b;
    return adam_run(call, compute, 6, 9, &s, false, out);
}

/* npu_apply_adam_w(beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, grad,
 * max_grad_norm, amsgrad, maximize, *, out): the scalar steps in double, as the bench's
 * Python floats. */
pc_status pc_k_npu_apply_adam_w_forward(const pc_op_call *call, pc_compute compute,
                                        pc_op_result *out)
{
    if (call->args[9].kind == PC_VALUE_BOOL && call->args[9].b)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_apply_adam_w with amsgrad=True is not supported: msprobe's "
                            "bench replaces max_grad_norm by random numbers (rand * 10 - 5), so "
                            "there is no reference to compare with",
                            call->full_name);
    double b1p = scalar_arg(call, 0), b2p = scalar_arg(call, 1), lr = scalar_arg(call, 2);
    double wd = scalar_arg(call, 3), eps = scalar_arg(call, 6);
    adam_scalars s = {0};
    s.beta1 = scalar_arg(call, 4);
    s.beta2 = scalar_arg(call, 5);
    s.eps = eps;
    double b1po = b1p * s.beta1, b2po = b2p * s.beta2;
    s.var_scale = 1 + (-lr * wd);
    s.beta1_m1 = s.beta1 + (-1);
    s.beta2_m1 = s.beta2 + (-1);
    s.denom2 = 1 - b2po;
    if (1 - b1po == 0)
        b1po -= eps;
    s.denom1 = 1 - b1po;
    s.neg_lr = -lr;
    s.maximize = call->args[10].kind == PC_VALUE_BOOL && call->args[10].b;
    return adam_run(call, compute, 7, 11, &s, true, out);
}

/* ---- npu_group_norm_silu(input, weight, bias, group, eps) -> (silu(y), mean, rstd) ---- */

pc_status pc_k_npu_group_norm_silu_forward(const pc_op_call *call, pc_compute compute,
                                           pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *w = pc_call_tensor(call, 1),
                    *b = pc_call_tensor(call, 2);
    int64_t G = call->args[3].i;
    double eps = call->args[4].f;
    pc_status st = pc_kernel_need_float(call, x, "npu_group_norm_silu");
    if (st != PC_OK)
        return st;
    if (x->rank != 4)
        return pc_error_set(PC_ERR_INVALID, "%s: x shape should be (N, C, H, W)", call->full_name);
    int64_t N = x->shape[0], C = x->shape[1], HxW = x->shape[2] * x->shape[3];
    if (G <= 0 || C % G != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected number of channels in input to be divisible by "
                            "num_groups, but got input of shape [%lld, %lld, %lld, %lld] and "
                            "num_groups=%lld",
                            call->full_name, (long long)N, (long long)C, (long long)x->shape[2],
                            (long long)x->shape[3], (long long)G);
    const pc_tensor *wb[2] = {w, b};
    for (int i = 0; i < 2; i++)
        if (wb[i] && (wb[i]->rank != 1 || wb[i]->shape[0] != C))
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected %s to be a vector of size equal to the number of "
                                "channels in input, but got %s of shape [%lld] and input of "
                                "shape [%lld, %lld, %lld, %lld]",
                                call->full_name, i ? "bias" : "weight", i ? "bias" : "weight",
                                (long long)(wb[i]->rank ? wb[i]->shape[0] : 1), (long long)N,
                                (long long)C, (long long)x->shape[2], (long long)x->shape[3]);
    pc_dtype cd = pc_kernel_compute_dtype(compute, x->dtype);
    int64_t D = C / G, ms[2] = {N, G};
    pc_tensor xb = PC_TENSOR_NULL, wt = PC_TENSOR_NULL, bt = PC_TENSOR_NULL, y = PC_TENSOR_NULL,
              mean = PC_TENSOR_NULL, rstd = PC_TENSOR_NULL;
    if ((st = pc_kernel_load_ro(call, x, cd, &xb)) == PC_OK &&
        (!w || (st = pc_kernel_load_ro(call, w, cd, &wt)) == PC_OK) &&
        (!b || (st = pc_kernel_load_ro(call, b, cd, &bt)) == PC_OK) &&
        (st = pc_tensor_alloc(&y, cd, x->shape, 4)) == PC_OK &&
        (st = pc_tensor_alloc(&mean, cd, ms, 2)) == PC_OK &&
        (st = pc_tensor_alloc(&rstd, cd, ms, 2)) == PC_OK) {
        for (int64_t i = 0; i < N * G; i++) {
            int64_t off = i * D * HxW, c0 = i % G * D;
            if (cd == PC_DTYPE_F64)
                group_norm_silu_block_d((const double *)pc_tensor_data(&xb) + off,
                                        w ? (const double *)pc_tensor_data(&wt) + c0 : NULL,
                                        b ? (const double *)pc_tensor_data(&bt) + c0 : NULL, D, HxW,
                                        eps, (double *)pc_tensor_data(&y) + off,
                                        (double *)pc_tensor_data(&mean) + i,
                                        (double *)pc_tensor_data(&rstd) + i);
            else
                group_norm_silu_block_f((const float *)pc_tensor_data(&xb) + off,
                                        w ? (const float *)pc_tensor_data(&wt) + c0 : NULL,
                                        b ? (const float *)pc_tensor_data(&bt) + c0 : NULL, D, HxW,
                                        eps, (float *)pc_tensor_data(&y) + off,
                                        (float *)pc_tensor_data(&mean) + i,
                                        (float *)pc_tensor_data(&rstd) + i);
        }
        if ((st = pc_kernel_store(call, &y, x->dtype, x->shape, 4, &out->tensors[0])) == PC_OK &&
            (st = pc_kernel_store(call, &mean, x->dtype, ms, 2, &out->tensors[1])) == PC_OK &&
            (st = pc_kernel_store(call, &rstd, x->dtype, ms, 2, &out->tensors[2])) == PC_OK)
            out->count = 3;
    }
    pc_tensor *all[] = {&xb, &wt, &bt, &y, &mean, &rstd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pc_tensor_free(all[i]);
    return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
}
