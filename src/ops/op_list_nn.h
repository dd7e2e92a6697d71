/* The op rows of the "nn" group, in op_list.h's X-macro form (included by op_list.h only);
 * conv2d and the two 2-D pools run on the conv group's N-d kernels (conv_impl.h). */
/* clang-format off */
X(LINEAR, "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", false, pc_k_linear_forward, pc_k_linear_backward, 0, 0u)
X(MATMUL, "matmul(Tensor input, Tensor other) -> Tensor", false, pc_k_matmul_forward, pc_k_matmul_backward, PC_NN_MATMUL, 0u)
X(MM, "mm(Tensor input, Tensor mat2) -> Tensor", false, pc_k_matmul_forward, pc_k_matmul_backward, PC_NN_MM, 0u)
X(BMM, "bmm(Tensor input, Tensor mat2) -> Tensor", false, pc_k_matmul_forward, pc_k_matmul_backward, PC_NN_BMM, 0u)
X(ADDMM, "addmm(Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", false, pc_k_matmul_forward, pc_k_matmul_backward, PC_NN_ADDMM, 0u)
X(BADDBMM, "baddbmm(Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", false, pc_k_matmul_forward, pc_k_matmul_backward, PC_NN_BADDBMM, 0u)
X(SOFTMAX, "softmax(Tensor input, int? dim=None, ScalarType? dtype=None, int _stacklevel=3) -> Tensor", false, pc_k_softmax_forward, pc_k_softmax_backward, PC_NN_SOFTMAX, 0u)
X(LOG_SOFTMAX, "log_softmax(Tensor input, int? dim=None, ScalarType? dtype=None, int _stacklevel=3) -> Tensor", false, pc_k_softmax_forward, pc_k_softmax_backward, PC_NN_LOG_SOFTMAX, 0u)
X(LAYER_NORM, "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor", false, pc_k_layer_norm_forward, pc_k_layer_norm_backward, 0, 0u)
X(EMBEDDING, "embedding(Tensor input, Tensor weight, int? padding_idx=None, float? max_norm=None, float norm_type=2.0, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor", true, pc_k_embedding_forward, pc_k_embedding_backward, 0, 0u)
X(DROPOUT, "dropout(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor", false, pc_k_dropout_forward, pc_k_dropout_backward, 1, 0u)
X(DROPOUT2D, "dropout2d(Tensor input, float p=0.5, bool training=True, bool inplace=False) -> Tensor", false, pc_k_dropout_forward, pc_k_dropout_backward, 2, 0u)
X(LEAKY_RELU, "leaky_relu(Tensor input, Scalar negative_slope=0.01, bool inplace=False) -> Tensor", false, pc_k_leaky_relu_forward, pc_k_leaky_relu_backward, 0, 0u)
X(CROSS_ENTROPY, "cross_entropy(Tensor input, Tensor target, Tensor? weight=None, bool? size_average=None, int ignore_index=-100, bool? reduce=None, str reduction='mean', float label_smoothing=0.0) -> Tensor", false, pc_k_cross_entropy_forward, pc_k_cross_entropy_backward, 0, 0u)
X(CONV2D, "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor", false, pc_k_convnd_forward, pc_k_convnd_backward, 2, 0u)
X(BATCH_NORM, "batch_norm(Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, bool training=False, float momentum=0.1, float eps=1e-05) -> Tensor", false, pc_k_batch_norm_forward, pc_k_batch_norm_backward, 0, 0u)
X(MAX_POOL2D, "max_pool2d(Tensor input, int[2] kernel_size, int[2]? stride=None, int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, bool return_indices=False) -> Tensor", true, pc_k_poolnd_forward, pc_k_poolnd_backward, PC_POOL_PARAM(PC_POOL_MAX, 2), 0u)
X(ADAPTIVE_AVG_POOL2D, "adaptive_avg_pool2d(Tensor input, int[2] output_size) -> Tensor", false, pc_k_poolnd_forward, pc_k_poolnd_backward, PC_POOL_PARAM(PC_POOL_ADAPTIVE_AVG, 2), 0u)
/* clang-format on */
