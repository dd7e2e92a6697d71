/* Private to src/ops: the kernels of the "indexing" group of ops (rows in index/index.def):
 * index_select / index_add / index_copy / index_fill (index.c), gather / scatter /
 * scatter_add / take_along_dim / take (index_scatter.c), masked_select / masked_scatter /
 * nonzero / argwhere (index_mask.c), Tensor.__setitem__ / index_put (setitem.c),
 * roll / tile / repeat_interleave / diag / diagonal / diag_embed / one_hot / fill_
 * (index_misc.c), Tensor.__getitem__ (getitem.c), and the helpers they share
 * (index.c).
 *
 * Every op here moves elements (exact: no rounding of its own) except linspace / logspace and
 * the ones that add (index_add, scatter_add, scatter with reduce=, index_put with accumulate,
 * and the backward passes that accumulate repeated indices). Those add the way torch 1.13's CPU
 * kernels do: in index order, each sum stored in the result's dtype on the device (float16/bfloat16
 * sums computed in float32 and rounded), in double on the bench and rounded once at the end. */
#ifndef PC_OPS_INDEX_IMPL_H
#define PC_OPS_INDEX_IMPL_H

#include <stdbool.h>

#include "ops/ops_impl.h"

/* scatter family (op param) */
enum { PC_IDX_SCATTER, PC_IDX_SCATTER_ADD };
/* nonzero family (op param): nonzero (as_tuple from the call), argwhere, where(condition)
 * (nonzero with as_tuple) */
enum { PC_IDX_NONZERO, PC_IDX_ARGWHERE, PC_IDX_WHERE_COND };

PC_KERNELS(index_select);
PC_KERNELS(index_add);
PC_KERNELS(index_copy);
PC_KERNELS(index_fill);

PC_KERNELS(gather);
/* scatter (src a tensor, or a Python number: the value form; reduce= 'add'/'multiply' forward
 * only, as torch) and scatter_add */
PC_KERNELS(scatter);

/* take_along_dim: gather on the input and indices broadcast against each other (dim None:
 * both flattened); take: the flattened input at the indices */
PC_KERNELS(take_along_dim);
PC_KERNELS(take);

PC_KERNELS(masked_select);
PC_KERNELS(masked_scatter);
/* nonzero: int64 [n, rank], or with as_tuple=True one int64 [n] tensor per dim; forward only */
PC_KERNEL_FORWARD(nonzero);

/* x[index] = value: the result is the modified copy of x (see setitem.c) */
PC_KERNELS(setitem);

/* index_put(x, indices, values, accumulate): the indices (tensors) bind as an Index */
PC_KERNELS(index_put);

/* element maps (index_misc.c): each output element copies one input element or is 0 */
PC_KERNELS(roll);
PC_KERNELS(tile);
PC_KERNELS(repeat_interleave);
PC_KERNELS(diag);
PC_KERNELS(diagonal);
PC_KERNELS(diag_embed);
PC_KERNEL_FORWARD(one_hot);
/* fill_(value): self's shape and dtype, every element the value */
PC_KERNELS(fill_value);

/* x[index] (getitem.c): basic and advanced indexing as torch does it, msprobe's special cases
 * for a lone tensor index; backward adds the gradient back (repeated indices accumulate). */
PC_KERNELS(index);

/* ---- helpers (index.c) ---- */

pc_status pc_idx_nomem(const pc_op_call *call);
/* *out: t's values as a new contiguous int64 tensor (exact for integer dtypes). */
pc_status pc_idx_ints(const pc_op_call *call, const pc_tensor *t, pc_tensor *out);
/* *out: t's values as a new contiguous float64 tensor, each rounded to dtype (the incoming
 * gradient converted to the output's dtype, as autograd does). */
pc_status pc_idx_grad(const pc_op_call *call, const pc_tensor *t, pc_dtype dtype, pc_tensor *out);
/* A new tensor of dtype and shape from n doubles (each already a value of dtype). */
pc_status pc_idx_store(const pc_op_call *call, pc_dtype dtype, const int64_t *shape, int rank,
                       const double *v, pc_tensor *out);
/* The gradient buf (float64 values of the broadcast shape bshape) summed onto shape (rank) and
 * stored in dtype: torch's sum_to of an expand's backward (float32 on the device). */
pc_status pc_idx_sum_to(const pc_op_call *call, pc_compute compute, const pc_tensor *buf,
                        const int64_t *shape, int rank, pc_dtype dtype, pc_tensor *out);

/* An accumulator of a result with sums in it: integers exactly (int64, wrapped to the dtype at
 * the end; bool is != 0), floats in double, rounded after every step on the device. */
typedef struct pc_idx_acc {
    pc_dtype dtype;
    bool ints;
    bool stepwise;
    int64_t n;
    double *f;  /* floats: n values */
    int64_t *i; /* integers: n values */
} pc_idx_acc;

/* Starts from init's values (n elements, row-major) or from zeros when init is NULL. */
pc_status pc_idx_acc_init(pc_idx_acc *a, const pc_op_call *call, pc_compute compute, pc_dtype dtype,
                          const pc_tensor *init, int64_t n);
void pc_idx_acc_free(pc_idx_acc *a);
/* src: the values to add, loaded with pc_idx_acc_values (float64 or int64, contiguous). */
pc_status pc_idx_acc_values(const pc_idx_acc *a, const pc_op_call *call, const pc_tensor *t,
                            pc_tensor *out);

/* a[pos] += src[k] */
void pc_idx_acc_add(pc_idx_acc *a, int64_t pos, const pc_tensor *src, int64_t k);
/* a[pos] = src[k] (a copy: no rounding, the values are the dtype's) */
void pc_idx_acc_set(pc_idx_acc *a, int64_t pos, const pc_tensor *src, int64_t k);
void pc_idx_acc_mul(pc_idx_acc *a, int64_t pos, const pc_tensor *src, int64_t k);
/* *out: the accumulated values in a->dtype with shape; a is freed. */
pc_status pc_idx_acc_store(pc_idx_acc *a, const pc_op_call *call, const int64_t *shape, int rank,
                           pc_tensor *out);

/* bincount (index_misc.c) */
PC_KERNEL_FORWARD(bincount);
/* histc (index_misc.c): counts in bins equal parts of [min, max], in the input's dtype */
PC_KERNEL_FORWARD(histc);

#endif
