/* The op rows of the "functional" group, in op_list.h's X-macro form (included by op_list.h only);
 * kernels declared in loss_impl.h. The aten forms of Torch.kl_div,
 * Torch.binary_cross_entropy_with_logits and Torch.instance_norm take other arguments than
 * their Functional namesakes, so they are rows of their own (names prefixed "torch_"). */
/* clang-format off */
X(NLL_LOSS, "nll_loss(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction='mean') -> Tensor", false, pc_k_nll_loss_forward, pc_k_nll_loss_backward, 0, 0u)
X(MSE_LOSS, "mse_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_MSE, 0u)
X(L1_LOSS, "l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_L1, 0u)
X(SMOOTH_L1_LOSS, "smooth_l1_loss(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean', float beta=1.0) -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_SMOOTH_L1, 0u)
X(HUBER_LOSS, "huber_loss(Tensor input, Tensor target, str reduction='mean', float delta=1.0) -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_HUBER, 0u)
X(BINARY_CROSS_ENTROPY, "binary_cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, bool? reduce=None, str reduction='mean') -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_BCE, 0u)
X(BINARY_CROSS_ENTROPY_WITH_LOGITS, "binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, bool? reduce=None, str reduction='mean', Tensor? pos_weight=None) -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_BCE_LOGITS, 0u)
X(TORCH_BINARY_CROSS_ENTROPY_WITH_LOGITS, "torch_binary_cross_entropy_with_logits(Tensor input, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1) -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_BCE_LOGITS_ATEN, 0u)
X(KL_DIV, "kl_div(Tensor input, Tensor target, bool? size_average=None, bool? reduce=None, str reduction='mean', bool log_target=False) -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_KL_DIV, 0u)
X(TORCH_KL_DIV, "torch_kl_div(Tensor input, Tensor target, int reduction=0, *, bool log_target=False) -> Tensor", false, pc_k_pointwise_loss_forward, pc_k_pointwise_loss_backward, PC_FN_KL_DIV_ATEN, 0u)
X(GROUP_NORM, "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor", false, pc_k_group_norm_forward, pc_k_group_norm_backward, 0, 0u)
X(INSTANCE_NORM, "instance_norm(Tensor input, Tensor? running_mean=None, Tensor? running_var=None, Tensor? weight=None, Tensor? bias=None, bool use_input_stats=True, float momentum=0.1, float eps=1e-05) -> Tensor", false, pc_k_instance_norm_forward, pc_k_instance_norm_backward, PC_FN_INSTANCE_NORM_F, 0u)
X(TORCH_INSTANCE_NORM, "torch_instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor", false, pc_k_instance_norm_forward, pc_k_instance_norm_backward, PC_FN_INSTANCE_NORM_ATEN, 0u)
X(GLU, "glu(Tensor input, int dim=-1) -> Tensor", false, pc_k_glu_forward, pc_k_glu_backward, 0, 0u)
X(PAD, "pad(Tensor input, int[] pad, str mode='constant', float? value=None) -> Tensor", true, pc_k_pad_forward, pc_k_pad_backward, PC_FN_PAD, 0u)
X(CONSTANT_PAD_ND, "constant_pad_nd(Tensor input, int[] pad, Scalar value=0) -> Tensor", true, pc_k_pad_forward, pc_k_pad_backward, PC_FN_CONSTANT_PAD_ND, 0u)
X(EINSUM, "einsum(str equation, Tensor? t0=None, Tensor? t1=None, Tensor? t2=None, Tensor? t3=None, Tensor? t4=None, Tensor? t5=None, Tensor? t6=None, Tensor? t7=None) -> Tensor", false, pc_k_einsum_forward, pc_k_einsum_backward, 0, 0u)
X(SCALED_DOT_PRODUCT_ATTENTION, "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> Tensor", false, pc_k_sdpa_forward, pc_k_sdpa_backward, 0, 0u)
/* the p-norm distances of the rows of x1 to the rows of x2 (cdist.c) */
X(CDIST, "cdist(Tensor x1, Tensor x2, float p=2.0, str compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor", false, pc_k_cdist_forward, pc_k_cdist_backward, 0, 0u)
/* clang-format on */
