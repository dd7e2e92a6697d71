/* Private to src/ops: the kernels of the norm family: softmax, log_softmax, layer_norm,
 * batch_norm and cross_entropy (norm/norm.c), group_norm, instance_norm and glu
 * (norm/group_norm.c). */
#ifndef PC_OPS_NORM_IMPL_H
#define PC_OPS_NORM_IMPL_H

#include "ops/ops_impl.h"

/* Kernel selectors (op param) of softmax and log_softmax. */
enum {
    PC_NN_SOFTMAX = 0,
    PC_NN_LOG_SOFTMAX,
};
/* instance_norm's two argument orders (group_norm.c). */
enum { PC_FN_INSTANCE_NORM_F = 0, PC_FN_INSTANCE_NORM_ATEN };

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

#endif
