/* Private to src/ops: the kernels of the nn family: embedding, dropout and leaky_relu
 * (nn/nn_misc.c), scaled_dot_product_attention (nn/sdpa.c). */
#ifndef PC_OPS_NN_IMPL_H
#define PC_OPS_NN_IMPL_H

#include <stdbool.h>

#include "ops/kernel.h"
#include "ops/ops_impl.h"

/* ---- embedding, dropout, leaky_relu (nn_misc.c) ---- */
pc_status pc_k_embedding_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_embedding_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out);
/* param 1: dropout (one draw per element), 2: dropout2d (one per channel plane) */
pc_status pc_k_dropout_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_dropout_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_leaky_relu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_leaky_relu_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);

/* ---- scaled_dot_product_attention (sdpa.c) ---- */
pc_status pc_k_sdpa_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_sdpa_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out);

#endif
