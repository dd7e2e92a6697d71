/* The op rows of the "indexing" group, in op_list.h's X-macro form (included by op_list.h only);
 * kernels declared in index_impl.h. exact: the op only moves elements (index_add, scatter's
 * reduce=, scatter_add and index_put's accumulate add; linspace and logspace compute). */
/* clang-format off */
X(INDEX_SELECT, "index_select(Tensor input, int dim, Tensor index) -> Tensor", true, pc_k_index_select_forward, pc_k_index_select_backward, 0, 0u)
X(INDEX_ADD, "index_add(Tensor input, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor", false, pc_k_index_add_forward, pc_k_index_add_backward, 0, 0u)
X(INDEX_COPY, "index_copy(Tensor input, int dim, Tensor index, Tensor source) -> Tensor", true, pc_k_index_copy_forward, pc_k_index_copy_backward, 0, 0u)
/* value: a Python number or a 0-dim tensor */
X(INDEX_FILL, "index_fill(Tensor input, int dim, Tensor index, Tensor value) -> Tensor", true, pc_k_index_fill_forward, pc_k_index_fill_backward, 0, 8u)
X(GATHER, "gather(Tensor input, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor", true, pc_k_gather_forward, pc_k_gather_backward, 0, 0u)
/* src a tensor, or a Python number (torch's value form): by keyword src= a tensor, value= a number or a 0-dim tensor */
X(SCATTER, "scatter(Tensor input, int dim, Tensor index, Tensor src|Scalar value, *, str? reduce=None) -> Tensor", false, pc_k_scatter_forward, pc_k_scatter_backward, PC_IDX_SCATTER, 8u)
X(SCATTER_ADD, "scatter_add(Tensor input, int dim, Tensor index, Tensor src) -> Tensor", false, pc_k_scatter_forward, pc_k_scatter_backward, PC_IDX_SCATTER_ADD, 0u)
X(TAKE_ALONG_DIM, "take_along_dim(Tensor input, Tensor indices, int? dim=None) -> Tensor", true, pc_k_take_along_dim_forward, pc_k_take_along_dim_backward, 0, 0u)
X(TAKE, "take(Tensor input, Tensor index) -> Tensor", true, pc_k_take_forward, pc_k_take_backward, 0, 0u)
X(MASKED_SELECT, "masked_select(Tensor input, Tensor mask) -> Tensor", true, pc_k_masked_select_forward, pc_k_masked_select_backward, 0, 0u)
X(MASKED_SCATTER, "masked_scatter(Tensor input, Tensor mask, Tensor source) -> Tensor", true, pc_k_masked_scatter_forward, pc_k_masked_scatter_backward, 0, 0u)
/* as_tuple=True returns one tensor per dim (several outputs) */
X(NONZERO, "nonzero(Tensor input, *, bool as_tuple=False) -> Tensor", true, pc_k_nonzero_forward, NULL, PC_IDX_NONZERO, 0u)
X(ARGWHERE, "argwhere(Tensor input) -> Tensor", true, pc_k_nonzero_forward, NULL, PC_IDX_ARGWHERE, 0u)
/* torch.where(condition): nonzero(condition, as_tuple=True); an overload of Torch.where (its row
 * comes after the element-wise where's, pc_op_bind_overloads tries it second) */
X(WHERE_COND, "where(Tensor condition) -> Tensor[]", true, pc_k_nonzero_forward, NULL, PC_IDX_WHERE_COND, 0u)
/* counts of non-negative integers (weights: their sums, float32 weights in float32, others in
 * float64) */
X(BINCOUNT, "bincount(Tensor input, Tensor? weights=None, int minlength=0) -> Tensor", false, pc_k_bincount_forward, NULL, 0, 0u)
/* counts (exact) of a float tensor in bins equal parts of [min, max] (min = max: its extremes); not
 * differentiable in torch */
X(HISTC, "histc(Tensor input, int bins=100, Scalar min=0, Scalar max=0) -> Tensor", true, pc_k_histc_forward, NULL, 0, 0u)
/* x[indices] = value (setitem.c): the result is the modified x; value a tensor or a
 * Python number */
X(SETITEM, "__setitem__(Tensor input, Index indices, Tensor value) -> Tensor", true, pc_k_setitem_forward, pc_k_setitem_backward, 0, 4u)
/* indices: a tuple of tensors, bound as an Index (setitem.c) */
X(INDEX_PUT, "index_put(Tensor input, Index indices, Tensor values, bool accumulate=False) -> Tensor", false, pc_k_index_put_forward, pc_k_index_put_backward, 0, 0u)
X(ROLL, "roll(Tensor input, int[1] shifts, int[1] dims=[]) -> Tensor", true, pc_k_roll_forward, pc_k_roll_backward, 0, 0u)
X(TILE, "tile(Tensor input, int[] dims) -> Tensor", true, pc_k_tile_forward, pc_k_tile_backward, 0, 0u)
/* repeats: a tensor or a Python int; msprobe runs no backward of it (run_ut.md 5.6) */
X(REPEAT_INTERLEAVE, "repeat_interleave(Tensor input, Tensor repeats, int? dim=None, *, int? output_size=None) -> Tensor", true, pc_k_repeat_interleave_forward, pc_k_repeat_interleave_backward, 0, 2u)
X(DIAG, "diag(Tensor input, int diagonal=0) -> Tensor", true, pc_k_diag_forward, pc_k_diag_backward, 0, 0u)
X(DIAGONAL, "diagonal(Tensor input, int offset=0, int dim1=0, int dim2=1) -> Tensor", true, pc_k_diagonal_forward, pc_k_diagonal_backward, 0, 0u)
X(DIAG_EMBED, "diag_embed(Tensor input, int offset=0, int dim1=-2, int dim2=-1) -> Tensor", true, pc_k_diag_embed_forward, pc_k_diag_embed_backward, 0, 0u)
X(ONE_HOT, "one_hot(Tensor input, int num_classes=-1) -> Tensor", true, pc_k_one_hot_forward, NULL, 0, 0u)
/* value: a Python number or a 0-dim tensor */
X(FILL_VALUE, "fill(Tensor input, Tensor value) -> Tensor", true, pc_k_fill_value_forward, pc_k_fill_value_backward, 0, 2u)
X(LINSPACE, "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor", false, pc_k_linspace_forward, NULL, 0, 0u)
X(LOGSPACE, "logspace(Scalar start, Scalar end, int steps, float base=10.0, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool requires_grad=False) -> Tensor", false, pc_k_logspace_forward, NULL, 0, 0u)
/* clang-format on */
