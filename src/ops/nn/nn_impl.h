/* Private to src/ops: the kernels of the "nn" group of ops (rows in nn/nn.def): the matrix
 * products (linalg/gemm.c), softmax, layer_norm, batch_norm and cross_entropy (norm/norm.c),
 * embedding, dropout and leaky_relu (nn/nn_misc.c). The helpers every kernel uses are in
 * ops/kernel.h. */
#ifndef PC_OPS_NN_IMPL_H
#define PC_OPS_NN_IMPL_H

#include <stdbool.h>

#include "ops/kernel.h"
#include "ops/ops_impl.h"

/* Kernel selectors (op param) of the nn rows that share kernels. */
enum {
    PC_NN_SOFTMAX = 0,
    PC_NN_LOG_SOFTMAX,
};
enum {
    PC_NN_MATMUL = 0,
    PC_NN_MM,
    PC_NN_BMM,
    PC_NN_ADDMM,
    PC_NN_BADDBMM,
};

/* ---- GEMM family (gemm.c) ---- */
pc_status pc_k_linear_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_linear_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_matmul_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_matmul_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* ---- softmax, layer_norm, batch_norm, cross_entropy (norm.c) ---- */
pc_status pc_k_softmax_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_softmax_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_layer_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_layer_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_batch_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_batch_norm_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_cross_entropy_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_cross_entropy_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out);
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

#endif
