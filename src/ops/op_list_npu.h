/* The op rows of the "npu" group, in op_list.h's X-macro form (included by op_list.h only);
 * kernels declared in npu_impl.h. Each schema's name is the dumped API name; the defaults are
 * those of msprobe's bench functions where they differ from torch_npu's (dump_and_ops.md §B.4):
 * npu_rms_norm's epsilon 1e-5 (torch_npu: 1e-6) and npu_fusion_attention's scale, 1/sqrt(D)
 * when not given (None here; torch_npu: 1.0). */
/* clang-format off */
X(NPU_RMS_NORM, "npu_rms_norm(Tensor x, Tensor gamma, float epsilon=1e-05) -> (Tensor, Tensor)", false, pc_k_npu_rms_norm_forward, NULL, 0, 0u)
X(NPU_ROTARY_MUL, "npu_rotary_mul(Tensor x, Tensor r1, Tensor r2) -> Tensor", false, pc_k_npu_rotary_mul_forward, pc_k_npu_rotary_mul_backward, 0, 0u)
X(NPU_SWIGLU, "npu_swiglu(Tensor x, int dim=-1) -> Tensor", false, pc_k_npu_swiglu_forward, pc_k_npu_swiglu_backward, 0, 0u)
X(NPU_FUSION_ATTENTION, "npu_fusion_attention(Tensor query, Tensor key, Tensor value, int head_num, str input_layout, Tensor? pse=None, Tensor? padding_mask=None, Tensor? atten_mask=None, float? scale=None, float keep_prob=1.0, int pre_tockens=2147483647, int next_tockens=2147483647, int inner_precise=0, int[]? prefix=None, int[]? actual_seq_qlen=None, int[]? actual_seq_kvlen=None, int sparse_mode=0, bool gen_mask_parallel=True, bool sync=False) -> (Tensor, Tensor, Tensor)", false, pc_k_npu_fusion_attention_forward, pc_k_npu_fusion_attention_backward, 0, 0u)
X(NPU_SCALED_MASKED_SOFTMAX, "npu_scaled_masked_softmax(Tensor x, Tensor mask, float scale=1.0, bool fixed_triu_mask=False) -> Tensor", false, pc_k_npu_scaled_masked_softmax_forward, pc_k_npu_scaled_masked_softmax_backward, 0, 0u)
X(NPU_FAST_GELU, "npu_fast_gelu(Tensor input) -> Tensor", false, pc_k_npu_fast_gelu_forward, pc_k_npu_fast_gelu_backward, 0, 0u)
X(NPU_CONFUSION_TRANSPOSE, "npu_confusion_transpose(Tensor self, int[] perm, int[] shape, bool transpose_first) -> Tensor", true, pc_k_npu_confusion_transpose_forward, pc_k_npu_confusion_transpose_backward, 0, 0u)
X(NPU_LINEAR, "npu_linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", false, pc_k_linear_forward, pc_k_linear_backward, 0, 0u)
X(NPU_LAYER_NORM_EVAL, "npu_layer_norm_eval(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05) -> Tensor", false, pc_k_npu_layer_norm_eval_forward, pc_k_npu_layer_norm_eval_backward, 0, 0u)
X(NPU_MISH, "npu_mish(Tensor input) -> Tensor", false, pc_k_unary_forward, pc_k_unary_backward, PC_UNARY_MISH, 0u)
X(NPU_APPLY_ADAM, "npu_apply_adam(Tensor beta1_power, Tensor beta2_power, Tensor lr, Tensor beta1, Tensor beta2, Tensor epsilon, Tensor grad, bool? use_locking=None, bool? use_nesterov=None, *, Tensor[] out) -> (Tensor, Tensor, Tensor)", false, pc_k_npu_apply_adam_forward, NULL, 0, 0x3Fu)
X(NPU_APPLY_ADAM_W, "npu_apply_adam_w(Tensor beta1_power, Tensor beta2_power, Tensor lr, Tensor weight_decay, Tensor beta1, Tensor beta2, Tensor epsilon, Tensor grad, Tensor? max_grad_norm=None, bool? amsgrad=None, bool? maximize=None, *, Tensor[] out) -> (Tensor, Tensor, Tensor)", false, pc_k_npu_apply_adam_w_forward, NULL, 0, 0x7Fu)
X(NPU_GROUP_NORM_SILU, "npu_group_norm_silu(Tensor input, Tensor? weight, Tensor? bias, int group, float eps=1e-05) -> (Tensor, Tensor, Tensor)", false, pc_k_npu_group_norm_silu_forward, NULL, 0, 0u)
/* clang-format on */
