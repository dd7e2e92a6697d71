/* The op rows of the "reduction" group, in op_list.h's X-macro form (included by op_list.h only);
 * kernels declared in reduce_impl.h. No Torch.vector_norm name (op_names_reduction.inc): a
 * dumped torch.linalg.vector_norm is replayed by its bare name, which msprobe's torch list
 * lacks, so msprobe SKIPs it; msprobe wraps no Torch.allclose. */
/* clang-format off */
X(NANSUM, "nansum(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", false, pc_k_nansum_forward, pc_k_nansum_backward, 0, 0u)
/* prod's dim is a single int (torch has no dim-list overload) */
X(PROD, "prod(Tensor input, int? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", false, pc_k_prod_forward, pc_k_prod_backward, 0, 0u)
/* torch's positional var(input, unbiased) overload does not bind (a bool where dim is) */
X(VAR, "var(Tensor input, int[1]? dim=None, bool unbiased=True, bool keepdim=False, *, int? correction=None) -> Tensor", false, pc_k_var_forward, pc_k_var_backward, PC_RD_VAR, 0u)
X(STD, "std(Tensor input, int[1]? dim=None, bool unbiased=True, bool keepdim=False, *, int? correction=None) -> Tensor", false, pc_k_var_forward, pc_k_var_backward, PC_RD_STD, 0u)
X(VAR_MEAN, "var_mean(Tensor input, int[1]? dim=None, bool unbiased=True, bool keepdim=False, *, int? correction=None) -> (Tensor, Tensor)", false, pc_k_var_forward, NULL, PC_RD_VAR_MEAN, 0u)
X(STD_MEAN, "std_mean(Tensor input, int[1]? dim=None, bool unbiased=True, bool keepdim=False, *, int? correction=None) -> (Tensor, Tensor)", false, pc_k_var_forward, NULL, PC_RD_STD_MEAN, 0u)
X(CUMSUM, "cumsum(Tensor input, int dim, *, ScalarType? dtype=None) -> Tensor", false, pc_k_scan_forward, pc_k_scan_backward, PC_RD_CUMSUM, 0u)
X(CUMPROD, "cumprod(Tensor input, int dim, *, ScalarType? dtype=None) -> Tensor", false, pc_k_scan_forward, pc_k_scan_backward, PC_RD_CUMPROD, 0u)
X(LOGSUMEXP, "logsumexp(Tensor input, int[1] dim, bool keepdim=False) -> Tensor", false, pc_k_logsumexp_forward, pc_k_logsumexp_backward, 0, 0u)
/* p: a number, or torch.norm's str forms (reduce_sum.c's pc_k_norm_str_*: 'fro', the default, is torch's frobenius_norm; 'nuc' is refused) */
X(NORM, "norm(Tensor input, str|Scalar? p='fro', int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", false, pc_k_norm_str_forward, pc_k_norm_str_backward, 0, 0u)
X(NORMALIZE, "normalize(Tensor input, float p=2.0, int dim=1, float eps=1e-12, Tensor? out=None) -> Tensor", false, pc_k_normalize_forward, pc_k_normalize_backward, 0, 0u)
X(FOREACH_NORM, "_foreach_norm(Tensor[] tensors, Scalar ord=2) -> Tensor[]", false, pc_k_foreach_norm_forward, NULL, 0, 0u)
X(ALL, "all(Tensor input, int? dim=None, bool keepdim=False) -> Tensor", true, pc_k_all_forward, NULL, PC_RD_ALL, 0u)
X(ANY, "any(Tensor input, int? dim=None, bool keepdim=False) -> Tensor", true, pc_k_all_forward, NULL, PC_RD_ANY, 0u)
/* equal and allclose return a Python bool: a 0-dim bool tensor here, "-> bool" for the runner */
X(EQUAL, "equal(Tensor input, Tensor other) -> bool", true, pc_k_close_forward, NULL, PC_RD_EQUAL, 0u)
X(ALLCLOSE, "allclose(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool", true, pc_k_close_forward, NULL, PC_RD_ALLCLOSE, 0u)
X(ISCLOSE, "isclose(Tensor input, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor", true, pc_k_close_forward, NULL, PC_RD_ISCLOSE, 0u)
/* clang-format on */
