/* Private to src/ops: the kernel support that every family of ops uses (declared here, defined
 * in kernel_support.c, kernel_f64.c and kernel_common.c): contiguous compute buffers of a
 * kernel's dtype, their conversions and roundings, the float64 path's helpers, and dimensions,
 * offsets and stores. */
#ifndef PC_OPS_KERNEL_H
#define PC_OPS_KERNEL_H

#include <stdbool.h>

#include "ops/ops_impl.h"

/* ---- contiguous compute buffers of the float kernels (kernel_support.c) ---- */

/* The compute dtype of a float tensor of dtype d: float64 on the bench and for float64,
 * float32 (the device's opmath) otherwise. */
pc_dtype pc_kernel_compute_dtype(pc_compute compute, pc_dtype d);
/* *out: a new contiguous copy of t in dtype cd (values converted exactly or rounded RNE). */
pc_status pc_kernel_load(const pc_op_call *call, const pc_tensor *t, pc_dtype cd, pc_tensor *out);
/* The same, or t itself (a second owner, NOT to be written) when it already is a contiguous
 * tensor of dtype cd. */
pc_status pc_kernel_load_ro(const pc_op_call *call, const pc_tensor *t, pc_dtype cd,
                            pc_tensor *out);
/* The same for t broadcast to shape (the broadcast materialised). */
pc_status pc_kernel_load_expand(const pc_op_call *call, const pc_tensor *t, const int64_t *shape,
                                int rank, pc_dtype cd, pc_tensor *out);
/* *out: buf (consumed: freed on every path) converted to dtype od with shape/rank. */
pc_status pc_kernel_store(const pc_op_call *call, pc_tensor *buf, pc_dtype od, const int64_t *shape,
                          int rank, pc_tensor *out);
/* Scratch of the kernels that work a block at a time: a block holds about PC_KERNEL_BLOCK elements
 * (whole rows: one row at least), so a call needs O(block) memory beyond its outputs. */
#define PC_KERNEL_BLOCK 32768
/* Elements start .. start + count - 1 of t (any strides), in row-major index order, converted
 * to dtype cd (float32/float64: exactly or RNE, as pc_tensor_cast does) into dst. */
void pc_kernel_read(const pc_tensor *t, int64_t start, int64_t count, pc_dtype cd, void *dst);
/* The same values where t holds them already (contiguous, of dtype cd): a pointer into t, else
 * dst, read into. Read only; valid while t is. */
const void *pc_kernel_read_ro(const pc_tensor *t, int64_t start, int64_t count, pc_dtype cd,
                              void *dst);
/* Where elements start .. of out (contiguous) can be computed in place: out's memory when its
 * dtype is cd (pc_kernel_write would copy them as they are), else scratch. */
void *pc_kernel_write_at(pc_tensor *out, int64_t start, pc_dtype cd, void *scratch);
/* The same through dtype via (t -> via -> cd, each step as pc_tensor_cast rounds: torch's
 * cast before an op); stage holds count elements of via. via may be t's dtype. */
void pc_kernel_read_via(const pc_tensor *t, int64_t start, int64_t count, pc_dtype via, void *stage,
                        pc_dtype cd, void *dst);
/* count values of dtype cd at src into elements start .. of the contiguous tensor out,
 * converted (RNE) to out's dtype. */
void pc_kernel_write(pc_tensor *out, int64_t start, int64_t count, const void *src, pc_dtype cd);
/* pc_kernel_round on n values of dtype cd at buf. */
void pc_kernel_round_n(void *buf, pc_dtype cd, int64_t n, pc_dtype d);
/* Rounds every value of the compute buffer buf to dtype d (float16/bfloat16/float32 held in a
 * wider buffer), as a tensor of dtype d between two of torch's ops would be. */
void pc_kernel_round(pc_tensor *buf, pc_dtype d);
/* buf (a contiguous compute buffer of shape bshape) summed in its dtype over the dimensions that
 * are broadcast from shape (rank) into bshape; *out is a new compute buffer of shape. */
pc_status pc_kernel_sum_to(const pc_op_call *call, const pc_tensor *buf, const int64_t *shape,
                           int rank, pc_tensor *out);
/* Whether schema argument i is a float tensor that requires grad. */
bool pc_kernel_wants_grad(const pc_op_call *call, int i);
/* PC_ERR_INVALID "<name>: expected scalar type Float but found Half" unless b has the dtype a
 * has (b NULL: no check); both as they stand in call (pc_kernel_dtype). */
pc_status pc_kernel_same_dtype(const pc_op_call *call, const pc_tensor *a, const pc_tensor *b);
/* The dtype tensor argument t stands for in call: its own, or the bench's raised dtype when
 * pc_bench_prepare left the raising to the kernel (call->lazy_raise; only ops that read
 * their inputs through pc_kernel_read/pc_kernel_load with the compute dtype get such calls). */
pc_dtype pc_kernel_dtype(const pc_op_call *call, const pc_tensor *t);
/* pc_result_type_add_tensor (promote.h) of t as the dtype it stands for in call
 * (pc_kernel_dtype): the type promotion of an op whose bench raises as it reads. */
void pc_kernel_result_type_add(const pc_op_call *call, pc_result_type *rt, const pc_tensor *t,
                               bool wrapped);
/* PC_ERR_INVALID "<name>: "<kernel>" not implemented for 'Long'" for non-float t. */
pc_status pc_kernel_need_float(const pc_op_call *call, const pc_tensor *t, const char *kernel);
pc_status pc_kernel_nomem(const pc_op_call *call);
/* Dimension d of a rank-r tensor normalised (negative counts from the end); -1 when out of
 * range (with torch's message set). */
int pc_kernel_dim(const pc_op_call *call, int64_t d, int rank);

/* Reductions of the losses. */
enum { PC_FN_RED_NONE = 0, PC_FN_RED_MEAN, PC_FN_RED_SUM, PC_FN_RED_BATCHMEAN };

/* ---- the float64 path: torch's roundings of intermediates, the losses' reduction
 * argument (kernel_f64.c) ---- */

/* v rounded to dtype rd (float32, bfloat16 through float32, float16 through float32); float64
 * and anything else: v itself. */
double pc_fn_round(pc_dtype rd, double v);
/* The dtype the losses round their intermediates to: od on the device, none (float64) on the
 * bench. */
pc_dtype pc_fn_round_dtype(pc_compute compute, pc_dtype od);
/* The reduction of a loss: argument red_idx (a str, or the aten forms' int), overridden by the
 * legacy size_average / reduce bools (indices, -1 when the op has none); batchmean: whether
 * 'batchmean' is accepted. torch's "x is not a valid value for reduction" otherwise. */
pc_status pc_fn_reduction(const pc_op_call *call, int red_idx, int sa_idx, int reduce_idx,
                          bool batchmean, int *out);
/* *out: t broadcast to shape and converted to a contiguous float64 buffer. */
pc_status pc_fn_load_f64(const pc_op_call *call, const pc_tensor *t, const int64_t *shape, int rank,
                         pc_tensor *out);
/* *out: the gradient buf (a float64 buffer of the broadcast shape; consumed) summed to like's
 * shape and converted to like's dtype. */
pc_status pc_fn_store_grad(const pc_op_call *call, pc_tensor *buf, const pc_tensor *like,
                           pc_tensor *out);

/* The sum of the n values v (contiguous) as torch 1.13's CPU sum adds them: in float (8 lanes)
 * for rd float32/bfloat16/float16, rounded to rd; in double (4 lanes) for float64. */
double pc_fn_torch_sum(pc_dtype rd, const double *v, int64_t n);

/* ---- dimensions, offsets, stores, names (kernel_common.c) ---- */

/* dim wrapped into [0, rank) as torch does (a 0-dim tensor takes -1 and 0); PC_ERR_RANGE with
 * torch's "Dimension out of range (expected to be in range of [-2, 1], but got 5)". */
pc_status pc_shape_wrap_dim(const pc_op_call *call, int64_t dim, int rank, int *out);
/* Argument i is a float tensor (not a Python number) whose record requires grad. */
bool pc_shape_wants_grad(const pc_op_call *call, int i);
/* Element offsets (from base) of the n elements of a strided shape in row-major order;
 * malloc'ed, NULL when out of memory. */
int64_t *pc_shape_offsets(const int64_t *shape, const int64_t *strides, int rank, int64_t base,
                          int64_t n);
/* A new tensor of dtype and shape from n doubles (values converted as pc_element_store). */
pc_status pc_shape_store(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank,
                         const double *v);
/* torch's short type name in "not implemented for 'Half'" messages. */
const char *pc_torch_type_name(pc_dtype dtype);

#endif
