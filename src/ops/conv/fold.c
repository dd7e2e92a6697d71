/*
 * unfold (im2col) and fold (col2im), forward and backward, over (N, C, H, W) images and
 * (N, C kh kw, L) columns (the batch dimension optional), as torch's CPU kernels: column row
 * (c, i, j) and position (oh, ow) hold x[c, oh s - p + i d, ow s - p + j d] (0 outside);
 * col2im adds the columns back channel by channel, kernel positions, then positions, in the
 * tensor's dtype (float16/bfloat16 rounded after every addition, as torch's scalar_t sums).
 * unfold's gradient is col2im of dY, fold's is im2col of dY.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ops/conv/conv_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

typedef struct fold_plan {
    const pc_tensor *x;
    bool batched, is_fold;
    int64_t N, C, H, W, kh, kw, dh, dw, ph, pw, sh, sw, Lh, Lw;
    int64_t ish[4], csh[3]; /* the image's and the columns' shapes */
    int irank, crank;
} fold_plan;

static pc_status fold_pair(const pc_op_call *call, int i, const char *what, int64_t *a, int64_t *b)
{
    const pc_value *v = &call->args[i];
    if (v->nints != 2 && v->nints != 1)
        return pc_error_set(PC_ERR_INVALID, "%s: %s must be an int or a pair of ints",
                            call->full_name, what);
    *a = v->ints[0];
    *b = v->ints[v->nints - 1];
    return PC_OK;
}

static pc_status fold_plan_make(const pc_op_call *call, fold_plan *p)
{
    memset(p, 0, sizeof *p);
    p->is_fold = call->op->param == 1;
    p->x = pc_call_tensor(call, 0);
    int r = p->x->rank, k0 = p->is_fold ? 2 : 1;
    pc_status st =
        pc_kernel_need_float(call, p->x, p->is_fold ? "col2im_out_cpu" : "im2col_out_cpu");
    if (st != PC_OK)
        return st;
    if ((st = fold_pair(call, k0, "kernel_size", &p->kh, &p->kw)) != PC_OK ||
        (st = fold_pair(call, k0 + 1, "dilation", &p->dh, &p->dw)) != PC_OK ||
        (st = fold_pair(call, k0 + 2, "padding", &p->ph, &p->pw)) != PC_OK ||
        (st = fold_pair(call, k0 + 3, "stride", &p->sh, &p->sw)) != PC_OK ||
        (p->is_fold && (st = fold_pair(call, 1, "output_size", &p->H, &p->W)) != PC_OK))
        return st;
    if (p->kh <= 0 || p->kw <= 0 || p->dh <= 0 || p->dw <= 0 || p->sh <= 0 || p->sw <= 0 ||
        p->ph < 0 || p->pw < 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: kernel size, dilation and stride should be greater than zero "
                            "and padding non-negative",
                            call->full_name);
    if (p->is_fold) {
        if (r != 2 && r != 3)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected 2D or 3D (batch mode) tensor for input with "
                                "possibly 0 batch size and non-zero dimensions for input, but "
                                "got: [%dD]",
                                call->full_name, r);
        p->batched = r == 3;
        p->N = p->batched ? p->x->shape[0] : 1;
        int64_t rows = p->x->shape[r - 2], L = p->x->shape[r - 1];
        if (rows % (p->kh * p->kw) != 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected size of input's dimension 1 to be divisible by the "
                                "product of kernel_size, but got input.size(1)=%" PRId64
                                " and kernel_size=(%" PRId64 ", %" PRId64 ").",
                                call->full_name, rows, p->kh, p->kw);
        p->C = rows / (p->kh * p->kw);
        p->Lh = (p->H + 2 * p->ph - p->dh * (p->kh - 1) - 1) / p->sh + 1;
        p->Lw = (p->W + 2 * p->pw - p->dw * (p->kw - 1) - 1) / p->sw + 1;
        if (p->Lh < 1 || p->Lw < 1 || p->Lh * p->Lw != L)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Given output_size=(%" PRId64 ", %" PRId64
                                "), kernel_size=(%" PRId64 ", %" PRId64 "), dilation=(%" PRId64
                                ", %" PRId64 "), padding=(%" PRId64 ", %" PRId64
                                "), stride=(%" PRId64 ", %" PRId64
                                "), expected size of input's dimension 2 to match the calculated "
                                "number of sliding blocks %" PRId64 " * %" PRId64 " = %" PRId64
                                ", but got input.size(2)=%" PRId64 ".",
                                call->full_name, p->H, p->W, p->kh, p->kw, p->dh, p->dw, p->ph,
                                p->pw, p->sh, p->sw, p->Lh, p->Lw, p->Lh * p->Lw, L);
    } else {
        if (r != 3 && r != 4)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected 3D or 4D (batch mode) tensor for input with "
                                "possibly 0 batch size and non-zero dimensions for input, but "
                                "got: [%dD]",
                                call->full_name, r);
        p->batched = r == 4;
        p->N = p->batched ? p->x->shape[0] : 1;
        p->C = p->x->shape[r - 3];
        p->H = p->x->shape[r - 2];
        p->W = p->x->shape[r - 1];
        p->Lh = (p->H + 2 * p->ph - p->dh * (p->kh - 1) - 1) / p->sh + 1;
        p->Lw = (p->W + 2 * p->pw - p->dw * (p->kw - 1) - 1) / p->sw + 1;
        if (p->H + 2 * p->ph < p->dh * (p->kh - 1) + 1 ||
            p->W + 2 * p->pw < p->dw * (p->kw - 1) + 1)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Given input with spatial size (%" PRId64 ", %" PRId64
                                "), kernel_size=(%" PRId64 ", %" PRId64 "), dilation=(%" PRId64
                                ", %" PRId64 "), padding=(%" PRId64 ", %" PRId64
                                "), calculated shape of the array of sliding blocks as (%" PRId64
                                ", %" PRId64 "), but its components must be at least one.",
                                call->full_name, p->H, p->W, p->kh, p->kw, p->dh, p->dw, p->ph,
                                p->pw, p->Lh, p->Lw);
    }
    int k = 0;
    if (p->batched)
        p->ish[k++] = p->N;
    p->ish[k++] = p->C;
    p->ish[k++] = p->H;
    p->ish[k++] = p->W;
    p->irank = k;
    k = 0;
    if (p->batched)
        p->csh[k++] = p->N;
    p->csh[k++] = p->C * p->kh * p->kw;
    p->csh[k++] = p->Lh * p->Lw;
    p->crank = k;
    return PC_OK;
}

/* cols[n] = im2col(img[n]) (overwritten) or img[n] += col2im(cols[n]) (round: the dtype to
 * round every addition to, on the device; PC_DTYPE_INVALID for none). */
static void fold_run(const fold_plan *p, pc_dtype cd, void *img, void *cols, bool to_cols,
                     pc_dtype round)
{
    bool dbl = cd == PC_DTYPE_F64;
    int64_t HW = p->H * p->W, L = p->Lh * p->Lw, R = p->C * p->kh * p->kw;
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t c = 0; c < p->C; c++)
            for (int64_t i = 0; i < p->kh; i++)
                for (int64_t j = 0; j < p->kw; j++) {
                    int64_t row = (n * R + (c * p->kh + i) * p->kw + j) * L;
                    for (int64_t a = 0; a < p->Lh; a++) {
                        int64_t h = a * p->sh - p->ph + i * p->dh;
                        for (int64_t b = 0; b < p->Lw; b++) {
                            int64_t w = b * p->sw - p->pw + j * p->dw;
                            int64_t ci = row + a * p->Lw + b;
                            bool in = h >= 0 && h < p->H && w >= 0 && w < p->W;
                            int64_t ii = (n * p->C + c) * HW + h * p->W + w;
                            if (to_cols) {
                                if (dbl)
                                    ((double *)cols)[ci] = in ? ((const double *)img)[ii] : 0.0;
                                else
                                    ((float *)cols)[ci] = in ? ((const float *)img)[ii] : 0.0f;
                            } else if (in) {
                                if (dbl) {
                                    ((double *)img)[ii] += ((const double *)cols)[ci];
                                } else {
                                    float *d = (float *)img + ii;
                                    float v = *d + ((const float *)cols)[ci];
                                    if (round == PC_DTYPE_BF16)
                                        v = pc_bf16_to_f32(pc_f32_to_bf16(v));
                                    else if (round == PC_DTYPE_F16)
                                        v = pc_f16_to_f32(pc_f32_to_f16(v));
                                    *d = v;
                                }
                            }
                        }
                    }
                }
}

/* src (image for im2col, columns for col2im) -> the other side. */
static pc_status fold_apply(const pc_op_call *call, const fold_plan *p, pc_compute compute,
                            const pc_tensor *src, bool to_cols, pc_tensor *out)
{
    pc_dtype cd = pc_kernel_compute_dtype(compute, p->x->dtype);
    pc_dtype round =
        compute == PC_COMPUTE_DEVICE && p->x->dtype != PC_DTYPE_F32 && p->x->dtype != PC_DTYPE_F64
            ? p->x->dtype
            : PC_DTYPE_INVALID;
    pc_tensor s = PC_TENSOR_NULL, d = PC_TENSOR_NULL;
    const int64_t *dsh = to_cols ? p->csh : p->ish;
    int drank = to_cols ? p->crank : p->irank;
    pc_status st;
    if ((st = pc_kernel_load(call, src, cd, &s)) == PC_OK &&
        (st = pc_tensor_alloc(&d, cd, dsh, drank)) == PC_OK) {
        if (to_cols)
            fold_run(p, cd, pc_tensor_data(&s), pc_tensor_data(&d), true, round);
        else
            fold_run(p, cd, pc_tensor_data(&d), pc_tensor_data(&s), false, round);
        st = pc_kernel_store(call, &d, p->x->dtype, dsh, drank, out);
    }
    pc_tensor_free(&s);
    pc_tensor_free(&d);
    return st;
}

/* op param: 0 unfold, 1 fold */
pc_status pc_k_fold_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    fold_plan p;
    pc_status st = fold_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    st = fold_apply(call, &p, compute, p.x, !p.is_fold, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_fold_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    fold_plan p;
    pc_status st = fold_plan_make(call, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    return fold_apply(call, &p, compute, grad_out, p.is_fold, &out->grads[0]);
}
