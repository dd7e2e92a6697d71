/* Private to src/ops: the kernels of the "functional" group of ops (rows in loss/loss.def):
 * the losses (loss/loss.c), group_norm, instance_norm and glu (norm/group_norm.c), pad
 * (shape/pad.c), einsum (linalg/einsum.c), scaled_dot_product_attention (nn/sdpa.c) and cdist
 * (linalg/cdist.c). The helpers they use (pc_fn_*) are in ops/kernel.h. */
#ifndef PC_OPS_LOSS_IMPL_H
#define PC_OPS_LOSS_IMPL_H

#include <stdbool.h>

#include "ops/kernel.h"
#include "ops/nn/nn_impl.h"
#include "ops/ops_impl.h"

/* Kernel selectors (op param) of the point-wise losses (loss.c). */
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
/* instance_norm's two argument orders (group_norm.c). */
enum { PC_FN_INSTANCE_NORM_F = 0, PC_FN_INSTANCE_NORM_ATEN };
/* pad's two forms (pad.c). */
enum { PC_FN_PAD = 0, PC_FN_CONSTANT_PAD_ND };

/* ---- losses (loss.c) ---- */
pc_status pc_k_pointwise_loss_forward(const pc_op_call *call, pc_compute compute,
                                      pc_op_result *out);
pc_status pc_k_pointwise_loss_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_nll_loss_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_nll_loss_backward(const pc_op_call *call, pc_compute compute,
                                 const pc_tensor *grad_out, pc_op_grads *out);

/* ---- group_norm, instance_norm, glu (group_norm.c) ---- */
pc_status pc_k_group_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_group_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_instance_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_instance_norm_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_glu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_glu_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out);

/* ---- pad (pad.c) ---- */
pc_status pc_k_pad_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_pad_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out);

/* ---- einsum (einsum.c) ---- */
pc_status pc_k_einsum_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_einsum_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* ---- cdist (cdist.c) ---- */
pc_status pc_k_cdist_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_cdist_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out);

/* ---- scaled_dot_product_attention (sdpa.c) ---- */
pc_status pc_k_sdpa_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_sdpa_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out);

#endif
