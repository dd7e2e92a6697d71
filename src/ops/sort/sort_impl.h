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
PC_KERNELS(sort);
/* topk(input, k, dim, largest, sorted) -> (values, indices); sorted=False is sorted too. */
PC_KERNELS(topk);
/* kthvalue(input, k, dim, keepdim) -> (values, indices). */
PC_KERNELS(kthvalue);
/* median(input) -> 0-dim value (the lower middle one; NaN when any is NaN; backward: dy split
 * among the elements equal to it); median(input, dim, keepdim) -> (values, indices).
 * nanmedian alike, over the values that are not NaN (NaN when all are). */
PC_KERNELS(median);

/* unique or unique_consecutive (op param of the unique rows). */
enum { PC_UNIQUE_SORTED, PC_UNIQUE_CONSECUTIVE };

/* unique(input, sorted, return_inverse, return_counts, dim) and unique_consecutive(input,
 * return_inverse, return_counts, dim) -> values, then the inverse indices and the counts when
 * asked for (int64); the sorted order also for sorted=False. Forward only. */
PC_KERNEL_FORWARD(unique);

/* npu_moe_gating_top_k_softmax(x, finished, k) -> (y, expert_idx, row_idx), msprobe's bench:
 * the float32 softmax of the last dim cast back to x's dtype, its stable
 * descending top-k, finished rows' indices set to the expert count. Forward only. */
PC_KERNEL_FORWARD(moe_gating);

/* ---- shared by the group (sort.c) ---- */

/* Stable sort of the n indices idx (positions 0..n-1 of keys) by their keys, NaN the largest;
 * keys are doubles (is_int false) or int64. tmp holds n int64. */
void pc_sort_indices(const void *keys, bool is_int, bool descending, int64_t n, int64_t *idx,
                     int64_t *tmp);

#endif
