/* The op rows of the "sort" group, in op_list.h's X-macro form (included by op_list.h only);
 * kernels declared in sort_impl.h. */
/* clang-format off */
/* stable=None is taken as False (torch asserts); every sort here is stable (sort.c) */
X(SORT, "sort(Tensor input, int dim=-1, bool descending=False, *, bool? stable=None) -> (Tensor values, Tensor indices)", true, pc_k_sort_forward, pc_k_sort_backward, PC_SORT_SORT, 0u)
X(ARGSORT, "argsort(Tensor input, int dim=-1, bool descending=False, *, bool stable=False) -> Tensor", true, pc_k_sort_forward, NULL, PC_SORT_ARGSORT, 0u)
X(MSORT, "msort(Tensor input) -> Tensor", true, pc_k_sort_forward, pc_k_sort_backward, PC_SORT_MSORT, 0u)
X(TOPK, "topk(Tensor input, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)", true, pc_k_topk_forward, pc_k_topk_backward, 0, 0u)
X(KTHVALUE, "kthvalue(Tensor input, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)", true, pc_k_kthvalue_forward, pc_k_kthvalue_backward, 0, 0u)
/* no dim: one 0-dim value (its backward splits dy among the ties); with dim: (values, indices) */
X(MEDIAN, "median(Tensor input, int? dim=None, bool keepdim=False) -> (Tensor values, Tensor indices)", true, pc_k_median_forward, pc_k_median_backward, PC_MEDIAN_PLAIN, 0u)
X(NANMEDIAN, "nanmedian(Tensor input, int? dim=None, bool keepdim=False) -> (Tensor values, Tensor indices)", true, pc_k_median_forward, pc_k_median_backward, PC_MEDIAN_IGNORE_NAN, 0u)
/* values, then inverse and counts when asked for (one to three outputs); no derivative in torch */
X(UNIQUE, "unique(Tensor input, bool sorted=True, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)", true, pc_k_unique_forward, NULL, PC_UNIQUE_SORTED, 0u)
X(UNIQUE_CONSECUTIVE, "unique_consecutive(Tensor input, bool return_inverse=False, bool return_counts=False, int? dim=None) -> (Tensor, Tensor, Tensor)", true, pc_k_unique_forward, NULL, PC_UNIQUE_CONSECUTIVE, 0u)
/* NPU ops (spec §B.4): the schema's name is the dumped api_name */
X(NPU_SORT_V2, "npu_sort_v2(Tensor self, int dim=-1, bool descending=False) -> Tensor", true, pc_k_sort_forward, pc_k_sort_backward, PC_SORT_NPU_V2, 0u)
X(NPU_MOE_GATING_TOP_K_SOFTMAX, "npu_moe_gating_top_k_softmax(Tensor x, Tensor? finished=None, int k=1) -> (Tensor, Tensor, Tensor)", false, pc_k_moe_gating_forward, NULL, 0, 0u)
/* clang-format on */
