/* The op rows of the "shape" group, in op_list.h's X-macro form (included by op_list.h only):
 * views and copies, joins and splits, triangles, reductions and factories (shape_impl.h). */
/* clang-format off */
#define PC_FAM_VIEW(id, schema, p) X(id, schema, true, pc_k_view_forward, pc_k_view_backward, p, 0u)
#define PC_FAM_SPLIT(id, schema, p) X(id, schema, true, pc_k_split_forward, NULL, p, 0u)
#define PC_FAM_ALLOC(id, schema, p) X(id, schema, true, pc_k_fill_forward, NULL, p, 0u)
#define PC_FACTORY_TAIL "Layout? layout=None, Device? device=None, bool? pin_memory=None, bool requires_grad=False"

PC_FAM_VIEW(TRANSPOSE, "transpose(Tensor input, int dim0, int dim1) -> Tensor", PC_VIEW_TRANSPOSE)
PC_FAM_VIEW(SWAPAXES, "swapaxes(Tensor input, int axis0, int axis1) -> Tensor", PC_VIEW_TRANSPOSE)
PC_FAM_VIEW(SWAPDIMS, "swapdims(Tensor input, int dim0, int dim1) -> Tensor", PC_VIEW_TRANSPOSE)
PC_FAM_VIEW(T, "t(Tensor input) -> Tensor", PC_VIEW_T)
PC_FAM_VIEW(PERMUTE, "permute(Tensor input, int[] dims) -> Tensor", PC_VIEW_PERMUTE)
PC_FAM_VIEW(RESHAPE, "reshape(Tensor input, int[] shape) -> Tensor", PC_VIEW_RESHAPE)
PC_FAM_VIEW(VIEW, "view(Tensor input, int[] size) -> Tensor", PC_VIEW_RESHAPE)
PC_FAM_VIEW(VIEW_AS, "view_as(Tensor input, Tensor other) -> Tensor", PC_VIEW_VIEW_AS)
PC_FAM_VIEW(FLATTEN, "flatten(Tensor input, int start_dim=0, int end_dim=-1) -> Tensor", PC_VIEW_FLATTEN)
PC_FAM_VIEW(RAVEL, "ravel(Tensor input) -> Tensor", PC_VIEW_FLATTEN)
PC_FAM_VIEW(UNSQUEEZE, "unsqueeze(Tensor input, int dim) -> Tensor", PC_VIEW_UNSQUEEZE)
PC_FAM_VIEW(SQUEEZE, "squeeze(Tensor input, int? dim=None) -> Tensor", PC_VIEW_SQUEEZE)
PC_FAM_VIEW(EXPAND, "expand(Tensor input, int[] size, *, bool implicit=False) -> Tensor", PC_VIEW_EXPAND)
PC_FAM_VIEW(BROADCAST_TO, "broadcast_to(Tensor input, int[] size) -> Tensor", PC_VIEW_EXPAND)
PC_FAM_VIEW(EXPAND_AS, "expand_as(Tensor input, Tensor other) -> Tensor", PC_VIEW_EXPAND_AS)
PC_FAM_VIEW(CONTIGUOUS, "contiguous(Tensor input, *, MemoryFormat memory_format=contiguous_format) -> Tensor", PC_VIEW_IDENTITY)
PC_FAM_VIEW(CLONE, "clone(Tensor input, *, MemoryFormat? memory_format=None) -> Tensor", PC_VIEW_IDENTITY)
PC_FAM_VIEW(NARROW, "narrow(Tensor input, int dim, int start, int length) -> Tensor", PC_VIEW_NARROW)
PC_FAM_VIEW(SELECT, "select(Tensor input, int dim, int index) -> Tensor", PC_VIEW_SELECT)
PC_FAM_VIEW(REPEAT, "repeat(Tensor input, int[] repeats) -> Tensor", PC_VIEW_REPEAT)
PC_FAM_VIEW(MOVEDIM, "movedim(Tensor input, int[1] source, int[1] destination) -> Tensor", PC_VIEW_MOVEDIM)
PC_FAM_VIEW(MOVEAXIS, "moveaxis(Tensor input, int[1] source, int[1] destination) -> Tensor", PC_VIEW_MOVEDIM)
PC_FAM_VIEW(FLIP, "flip(Tensor input, int[] dims) -> Tensor", PC_VIEW_FLIP)
PC_FAM_VIEW(UNFLATTEN, "unflatten(Tensor input, int dim, int[] sizes) -> Tensor", PC_VIEW_UNFLATTEN)
/* Tensor[] gradients have no slot in pc_op_grads yet: cat and stack are forward only */
X(CAT, "cat(Tensor[] tensors, int dim=0) -> Tensor", true, pc_k_join_forward, pc_k_join_backward, PC_JOIN_CAT, 0u)
X(CONCAT, "concat(Tensor[] tensors, int dim=0) -> Tensor", true, pc_k_join_forward, pc_k_join_backward, PC_JOIN_CAT, 0u)
X(STACK, "stack(Tensor[] tensors, int dim=0) -> Tensor", true, pc_k_join_forward, pc_k_join_backward, PC_JOIN_STACK, 0u)
/* int[1]: a single int is a piece size, a list the sizes of the pieces */
PC_FAM_SPLIT(SPLIT, "split(Tensor input, int[1] split_size_or_sections, int dim=0) -> Tensor[]", PC_SPLIT_SIZE)
PC_FAM_SPLIT(SPLIT_WITH_SIZES, "split_with_sizes(Tensor input, int[] split_sizes, int dim=0) -> Tensor[]", PC_SPLIT_SIZES)
PC_FAM_SPLIT(CHUNK, "chunk(Tensor input, int chunks, int dim=0) -> Tensor[]", PC_SPLIT_CHUNK)
PC_FAM_SPLIT(UNBIND, "unbind(Tensor input, int dim=0) -> Tensor[]", PC_SPLIT_UNBIND)
X(TRIL, "tril(Tensor input, int diagonal=0) -> Tensor", true, pc_k_tri_forward, pc_k_tri_backward, PC_TRI_LOWER, 0u)
X(TRIU, "triu(Tensor input, int diagonal=0) -> Tensor", true, pc_k_tri_forward, pc_k_tri_backward, PC_TRI_UPPER, 0u)
X(SUM, "sum(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", false, pc_k_reduce_forward, pc_k_reduce_backward, PC_REDUCE_SUM, 0u)
X(MEAN, "mean(Tensor input, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", false, pc_k_reduce_forward, pc_k_reduce_backward, PC_REDUCE_MEAN, 0u)
X(MAX, "max(Tensor input, int? dim=None, bool keepdim=False) -> (Tensor values, Tensor indices)", true, pc_k_extreme_forward, pc_k_extreme_backward, PC_EXTREME_MAX, 0u)
X(MIN, "min(Tensor input, int? dim=None, bool keepdim=False) -> (Tensor values, Tensor indices)", true, pc_k_extreme_forward, pc_k_extreme_backward, PC_EXTREME_MIN, 0u)
/* max(input, other), min(input, other): torch's element-wise overloads (maximum, minimum and
 * their gradients); their name rows come after the reductions', so pc_op_bind_overloads tries
 * them when a tensor stands where 'dim' is */
X(MAX_OTHER, "max(Tensor input, Tensor other) -> Tensor", true, pc_k_binary_forward, pc_k_binary_backward, PC_BINARY_MAXIMUM, 0u)
X(MIN_OTHER, "min(Tensor input, Tensor other) -> Tensor", true, pc_k_binary_forward, pc_k_binary_backward, PC_BINARY_MINIMUM, 0u)
X(AMAX, "amax(Tensor input, int[1] dim=[], bool keepdim=False) -> Tensor", true, pc_k_amax_forward, pc_k_amax_backward, PC_EXTREME_MAX, 0u)
X(AMIN, "amin(Tensor input, int[1] dim=[], bool keepdim=False) -> Tensor", true, pc_k_amax_forward, pc_k_amax_backward, PC_EXTREME_MIN, 0u)
X(ARGMAX, "argmax(Tensor input, int? dim=None, bool keepdim=False) -> Tensor", true, pc_k_argmax_forward, NULL, PC_EXTREME_MAX, 0u)
X(ARGMIN, "argmin(Tensor input, int? dim=None, bool keepdim=False) -> Tensor", true, pc_k_argmax_forward, NULL, PC_EXTREME_MIN, 0u)
X(ARANGE, "arange(Scalar start, Scalar? end=None, Scalar step=1, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ") -> Tensor", false, pc_k_arange_forward, NULL, 0, 0u)
PC_FAM_ALLOC(FULL, "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ") -> Tensor", PC_FILL_FULL)
PC_FAM_ALLOC(ZEROS, "zeros(int[] size, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ") -> Tensor", PC_FILL_ZEROS)
PC_FAM_ALLOC(ONES, "ones(int[] size, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ") -> Tensor", PC_FILL_ONES)
PC_FAM_ALLOC(EYE, "eye(int n, int? m=None, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ") -> Tensor", PC_FILL_EYE)
PC_FAM_ALLOC(FULL_LIKE, "full_like(Tensor input, Scalar fill_value, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ", MemoryFormat? memory_format=None) -> Tensor", PC_FILL_FULL_LIKE)
PC_FAM_ALLOC(ONES_LIKE, "ones_like(Tensor input, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ", MemoryFormat? memory_format=None) -> Tensor", PC_FILL_ONES_LIKE)
PC_FAM_ALLOC(ZEROS_LIKE, "zeros_like(Tensor input, *, ScalarType? dtype=None, " PC_FACTORY_TAIL ", MemoryFormat? memory_format=None) -> Tensor", PC_FILL_ZEROS_LIKE)
/* x[index] (getitem.c); Index is precheck's own schema type (call.h) */
X(GETITEM, "__getitem__(Tensor input, Index indices) -> Tensor", true, pc_k_index_forward, pc_k_index_backward, 0, 0u)

#undef PC_FAM_VIEW
#undef PC_FAM_SPLIT
#undef PC_FAM_ALLOC
#undef PC_FACTORY_TAIL
/* clang-format on */
