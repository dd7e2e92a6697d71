/* Private to src/ops: the kernels of the "nn" group of ops (rows in op_list_nn.h) and the
 * helpers they share (nn_common.c). */
#ifndef PC_OPS_NN_IMPL_H
#define PC_OPS_NN_IMPL_H

#include <stdbool.h>

#include "ops_impl.h"

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

/* ---- helpers (nn_common.c) ---- */

/* The compute dtype of a float tensor of dtype d: float64 on the bench and for float64,
 * float32 (the device's opmath) otherwise. */
pc_dtype pc_nn_compute_dtype(pc_compute compute, pc_dtype d);
/* *out: a new contiguous copy of t in dtype cd (values converted exactly or rounded RNE). */
pc_status pc_nn_load(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out);
/* The same, or t itself (a second owner, NOT to be written) when it already is a contiguous
 * tensor of dtype cd. */
pc_status pc_nn_load_ro(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out);
/* The same for t broadcast to shape (the broadcast materialised). */
pc_status pc_nn_load_expand(const pc_op_call *call, const pc_tensor *t, const int64_t *shape,
                            int rank, pc_dtype cd, pc_tensor *out);
/* *out: buf (consumed: freed on every path) converted to dtype od with shape/rank. */
pc_status pc_nn_store(const pc_op_call *call, pc_tensor *buf, pc_dtype od, const int64_t *shape,
                      int rank, pc_tensor *out);
/* Rounds every value of the compute buffer buf to dtype d (float16/bfloat16/float32 held in a
 * wider buffer), as a tensor of dtype d between two of torch's ops would be. */
void pc_nn_round(pc_tensor *buf, pc_dtype d);
/* buf (a contiguous compute buffer of shape bshape) summed in its dtype over the dimensions that
 * are broadcast from shape (rank) into bshape; *out is a new compute buffer of shape. */
pc_status pc_nn_sum_to(const pc_op_call *call, const pc_tensor *buf, const int64_t *shape, int rank,
                       pc_tensor *out);
/* Whether schema argument i is a float tensor that requires grad. */
bool pc_nn_wants_grad(const pc_op_call *call, int i);
/* PC_ERR_INVALID "<name>: expected scalar type Float but found Half" unless b has a's dtype. */
pc_status pc_nn_same_dtype(const pc_op_call *call, const pc_tensor *a, const pc_tensor *b);
/* PC_ERR_INVALID "<name>: "<kernel>" not implemented for 'Long'" for non-float t. */
pc_status pc_nn_need_float(const pc_op_call *call, const pc_tensor *t, const char *kernel);
pc_status pc_nn_nomem(const pc_op_call *call);
/* Dimension d of a rank-r tensor normalised (negative counts from the end); -1 when out of
 * range (with torch's message set). */
int pc_nn_dim(const pc_op_call *call, int64_t d, int rank);

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
/* ---- embedding, dropout, leaky_relu (misc_nn.c) ---- */
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
/* ---- convolution (conv.c) ---- */
pc_status pc_k_conv2d_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_conv2d_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);
/* ---- pooling (pool.c) ---- */
pc_status pc_k_max_pool2d_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_max_pool2d_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_adaptive_avg_pool2d_forward(const pc_op_call *call, pc_compute compute,
                                           pc_op_result *out);
pc_status pc_k_adaptive_avg_pool2d_backward(const pc_op_call *call, pc_compute compute,
                                            const pc_tensor *grad_out, pc_op_grads *out);

#endif
