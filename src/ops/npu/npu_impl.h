/* Private to src/ops: the kernels of the "npu" group of ops (rows in npu/npu.def): torch_npu's
 * fused operators, computed as msprobe's CPU bench functions define them
 * (docs/msprobe-contract.md#replay). The schema name of each row is the dumped API name
 * ("npu_rms_norm"). */
#ifndef PC_OPS_NPU_IMPL_H
#define PC_OPS_NPU_IMPL_H

#include "ops/ops_impl.h"

/* ---- npu_fused.c: rms_norm, rotary_mul, swiglu ---- */
pc_status pc_k_npu_rms_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_npu_rotary_mul_forward(const pc_op_call *call, pc_compute compute,
                                      pc_op_result *out);
pc_status pc_k_npu_rotary_mul_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_npu_swiglu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_npu_swiglu_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out);

/* ---- npu_attention.c: npu_fusion_attention (outputs 0-2; backward through output 0) ---- */
pc_status pc_k_npu_fusion_attention_forward(const pc_op_call *call, pc_compute compute,
                                            pc_op_result *out);
pc_status pc_k_npu_fusion_attention_backward(const pc_op_call *call, pc_compute compute,
                                             const pc_tensor *grad_out, pc_op_grads *out);

/* ---- npu_misc.c ---- */
pc_status pc_k_npu_scaled_masked_softmax_forward(const pc_op_call *call, pc_compute compute,
                                                 pc_op_result *out);
pc_status pc_k_npu_scaled_masked_softmax_backward(const pc_op_call *call, pc_compute compute,
                                                  const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_npu_fast_gelu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_npu_fast_gelu_backward(const pc_op_call *call, pc_compute compute,
                                      const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_npu_confusion_transpose_forward(const pc_op_call *call, pc_compute compute,
                                               pc_op_result *out);
pc_status pc_k_npu_confusion_transpose_backward(const pc_op_call *call, pc_compute compute,
                                                const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_npu_layer_norm_eval_forward(const pc_op_call *call, pc_compute compute,
                                           pc_op_result *out);
pc_status pc_k_npu_layer_norm_eval_backward(const pc_op_call *call, pc_compute compute,
                                            const pc_tensor *grad_out, pc_op_grads *out);
pc_status pc_k_npu_apply_adam_forward(const pc_op_call *call, pc_compute compute,
                                      pc_op_result *out);
pc_status pc_k_npu_apply_adam_w_forward(const pc_op_call *call, pc_compute compute,
                                        pc_op_result *out);
pc_status pc_k_npu_group_norm_silu_forward(const pc_op_call *call, pc_compute compute,
                                           pc_op_result *out);

#endif
