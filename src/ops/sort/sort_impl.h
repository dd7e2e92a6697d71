/* Private to src/ops: the kernels of the "sort" group of ops (rows in sort/sort.def): sort,
 * argsort, msort, topk, kthvalue, median and NPU.npu_sort_v2 (sort.c), unique and
 * unique_consecutive (sort_unique.c), and NPU.npu_moe_gating_top_k_softmax (sort_moe.c). */
#ifndef PC_OPS_SORT_IMPL_H
#define PC_OPS_SORT_IMPL_H

#include "ops/ops_impl.h"

/* Which result of a sort the sort family returns (op param). */
enum {
    PC_SORT_SORT,    /* sort(input, dim, descending, *, stable) -> (values, indices) */
    PC_SORT_ARGSORT, /* argsort(...) -> indices */
    PC_SORT_MSORT,   /* msort(input) = sort(input, 0).values */
    PC_SORT_NPU_V2,  /* npu_sort_v2(self, dim, descending) = sort(...).values */
};

/* median or nanmedian (op param of the median rows). */
enum { PC_MEDIAN_PLAIN, PC_MEDIAN_IGNORE_NAN };

/* The sort family: every sort is stable (ties keep their index order; NaN sorts as the
 * largest value), which is one of the orders torch's unstable sort may give. Backward (the
 * values' gradient scattered to the indices) for every form with values. */
pc_status pc_k_sort_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_sort_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out);
/* topk(input, k, dim, largest, sorted) -> (values, indices); sorted=False is sorted too. */
pc_status pc_k_topk_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_topk_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out);
/* kthvalue(input, k, dim, keepdim) -> (values, indices). */
pc_status pc_k_kthvalue_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_kthvalue_backward(const pc_op_call *call, pc_compute compute,
                                 const pc_tensor *grad_out, pc_op_grads *out);
/* median(input) -> 0-dim value (the lower middle one; NaN when any is NaN; backward: dy split
 * among the elements equal to it); median(input, dim, keepdim) -> (values, indices).
 * nanmedian alike, over the values that are not NaN (NaN when all are). */
pc_status pc_k_median_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);
pc_status pc_k_median_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out);

/* unique or unique_consecutive (op param of the unique rows). */
enum { PC_UNIQUE_SORTED, PC_UNIQUE_CONSECUTIVE };

/* unique(input, sorted, return_inverse, return_counts, dim) and unique_consecutive(input,
 * return_inverse, return_counts, dim) -> values, then the inverse indices and the counts when
 * asked for (int64); the sorted order also for sorted=False. Forward only. */
pc_status pc_k_unique_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);

/* npu_moe_gating_top_k_softmax(x, finished, k) -> (y, expert_idx, row_idx), msprobe's bench:
 * the float32 softmax of the last dim cast back to x's dtype, its stable
 * descending top-k, finished rows' indices set to the expert count. Forward only. */
pc_status pc_k_moe_gating_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out);

/* ---- shared by the group (sort.c) ---- */

/* Stable sort of the n indices idx (positions 0..n-1 of keys) by their keys, NaN the largest;
 * keys are doubles (is_int false) or int64. tmp holds n int64. */
void pc_sort_indices(const void *keys, bool is_int, bool descending, int64_t n, int64_t *idx,
                     int64_t *tmp);

#endif
