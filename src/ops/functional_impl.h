/* Private to src/ops: the kernels of the "functional" group of ops (rows in op_list_functional.h)
 * and the helpers they share (functional_common.c). */
#ifndef PC_OPS_FUNCTIONAL_IMPL_H
#define PC_OPS_FUNCTIONAL_IMPL_H

#include <stdbool.h>

#include "nn_impl.h"
#include "ops_impl.h"

/* Kernel selectors (op param) of the point-wise losses (functional_loss.c). */
enum {
    PC_FN_MSE = 0,
    PC_FN_L1,
    PC_FN_SMOOTH_L1,
    PC_FN_HUBER,
    PC_FN_BCE,
    PC_FN_BCE_LOGITS,      /* Functional.binary_cross_entropy_with_logits */
    PC_FN_BCE_LOGITS_ATEN, /* Torch.binary_cross_entropy_with_logits: reduction an int */
    PC_FN_KL_DIV,          /* Functional.kl_div */
    PC_FN_KL_DIV_ATEN,     /* Torch.kl_div: reduction an int */
};
/* instance_norm's two argument orders (functional_norm.c). */
enum { PC_FN_INSTANCE_NORM_F = 0, PC_FN_INSTANCE_NORM_ATEN };
/* pad's two forms (functional_pad.c). */
enum { PC_FN_PAD = 0, PC_FN_CONSTANT_PAD_ND };

/* Reductions of the losses. */
enum { PC_FN_RED_NONE = 0, PC_FN_RED_MEAN, PC_FN_RED_SUM, PC_FN_RED_BATCHMEAN };

/* ---- helpers (functional_common.c) ---- */

/* v rounded to dtype rd (float32, bfloat16 through float32, float16 through float32); float64
 * and anything else: v itself. */
double pc_fn_round(pc_dtype rd, double v);
/* The dtype the losses round their intermediates to: od on the device, none (float64) on the
 * bench. */
pc_dtype pc_fn_round_dtype(pc_compute compute, pc_dtype od);
/* The reduction of a loss: argument red_idx (a str, or the aten forms' int), overridden by the
 * legacy size_average / reduce bools (indices, -1 when the op has none); batchmean: whether
 * 'batchmean' is accepted. torch's "x is not a valid value for reduction" otherwise. */
pc_status pc_fn_reduction(const pc_op_call *call, int red_idx, int sa_idx, int reduce_idx,
                          bool batchmean, int *out);
/* *out: t broadcast to shape and converted to a contiguous float64 buffer. */
pc_status pc_fn_load_f64(const pc_op_call *call, const pc_tensor *t, const int64_t *shape, int rank,
                         pc_tensor *out);
/* *out: the gradient buf (a float64 buffer of the broadcast shape; consumed) summed to like's
 * shape and converted to like's dtype. */
pc_status pc_fn_store_grad(const pc_op_call *call, pc_tensor *buf, const pc_tensor *like,
                           pc_tensor *out);

/* The sum of the n values v (contiguous) as torch 1.13's CPU sum adds them: in float (8 lanes)
 * for rd float32/bfloat16/float16, rounded to rd; in double (4 lanes) for float64. */
double pc_fn_torch_sum(pc_dtype rd, const double *v, int64_t n);

/* ---- losses (functional_loss.c) ---- */
pc_status pc_k_pointwise_loss_forward(const pc_op_call *call, pc_compute compute,
                                      pc_op_result *out);
pc_status pc_k_pointwise_loss_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_nll_loss_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_nll_loss_backward(const pc_op_call *call, pc_compute compute,
                                 const pc_tensor *grad_out, pc_op_grads *out);

/* ---- group_norm, instance_norm, glu (functional_norm.c) ---- */
pc_status pc_k_group_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_group_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_instance_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_instance_norm_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_glu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_glu_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out);

/* ---- pad (functional_pad.c) ---- */
pc_status pc_k_pad_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_pad_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out);

/* ---- einsum (functional_einsum.c) ---- */
pc_status pc_k_einsum_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_einsum_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* ---- cdist (functional_dist.c) ---- */
pc_status pc_k_cdist_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_cdist_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out);

/* ---- scaled_dot_product_attention (functional_sdpa.c) ---- */
pc_status pc_k_sdpa_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_sdpa_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out);

#endif
