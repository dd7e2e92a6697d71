/* Private to src/ops: the kernels of the "reduction" group of ops (rows in reduce/reduce.def):
 * nansum, prod, var/std (and their _mean forms), logsumexp, norm, normalize, all/any
 * (reduce.c), cumsum/cumprod (reduce_scan.c), equal/allclose/isclose and _foreach_norm
 * (reduce_close.c), and the helpers they share (reduce.c). */
#ifndef PC_OPS_REDUCE_IMPL_H
#define PC_OPS_REDUCE_IMPL_H

#include <stdbool.h>

#include "ops/ops_impl.h"

/* Kernel selectors (op params). */
enum { PC_RD_VAR, PC_RD_STD, PC_RD_VAR_MEAN, PC_RD_STD_MEAN };
enum { PC_RD_ALL, PC_RD_ANY };
enum { PC_RD_CUMSUM, PC_RD_CUMPROD };
enum { PC_RD_EQUAL, PC_RD_ALLCLOSE, PC_RD_ISCLOSE };

PC_KERNELS(nansum);
PC_KERNELS(prod);
/* var, std (one tensor, backward) and var_mean, std_mean ((var or std, mean), forward only) */
PC_KERNELS(var);
PC_KERNELS(logsumexp);
PC_KERNELS(norm);
PC_KERNELS(normalize);
PC_KERNEL_FORWARD(all);
PC_KERNELS(scan);
/* equal, allclose (a 0-dim bool tensor standing for torch's Python bool), isclose */
PC_KERNEL_FORWARD(close);
/* _foreach_norm: one 0-dim norm per tensor of the list, a tuple (no backward in run_ut) */
PC_KERNEL_FORWARD(foreach_norm);

/* ---- sum, mean, max/min, amax/amin, argmax/argmin, torch.norm's str p (reduce_sum.c) ---- */
enum { PC_REDUCE_SUM, PC_REDUCE_MEAN };
enum { PC_EXTREME_MAX, PC_EXTREME_MIN };
PC_KERNELS(reduce);
/* norm with torch.norm's Python layer (reduce_sum.c): p a number -> the reduction group's norm
 * kernels; p='fro' -> torch's frobenius_norm (the 2-norm over no dim, all, or one dim; over two
 * dims sqrt(sum(x * x)), each op rounded as torch rounds it); 'nuc' refused. */
PC_KERNELS(norm_str);
/* max/min: no dim -> one 0-dim tensor (backward: dy split among the ties); with dim ->
 * (values, indices), forward only. */
PC_KERNELS(extreme);
/* amax/amin over a dim list (backward: dy split among the ties of each slot). */
PC_KERNELS(amax);
PC_KERNEL_FORWARD(argmax);

/* ---- helpers (reduce.c) ---- */

/* A reduction over some dimensions of x, laid out with the kept dimensions first and the
 * reduced ones last: output slot o reduces elements o * inner .. o * inner + inner - 1. */
typedef struct pc_reduce_plan {
    const pc_tensor *x;
    bool reduced[PC_TENSOR_MAX_DIMS];
    int perm[PC_TENSOR_MAX_DIMS]; /* kept dimensions, then the reduced ones */
    int out_rank;
    int64_t out_shape[PC_TENSOR_MAX_DIMS];
    int64_t outer, inner; /* output elements, elements reduced into each */
} pc_reduce_plan;

/* dims: an int, an int list (empty: all), or None (all); torch's messages for a dim out of
 * range or repeated. */
pc_status pc_reduce_plan_make(const pc_op_call *call, const pc_tensor *x, const pc_value *dims,
                              bool keepdim, pc_reduce_plan *p);
/* *buf: t (x's shape) in the plan's order, contiguous, as float64 or int64 (as). */
pc_status pc_reduce_load(const pc_reduce_plan *p, const pc_tensor *t, pc_dtype as, pc_tensor *buf);
/* *out: a tensor of x's shape and dtype d from v (plan order), each value converted once. */
pc_status pc_reduce_unload(const pc_op_call *call, const pc_reduce_plan *p, const double *v,
                           pc_dtype d, pc_tensor *out);
/* *buf: the incoming gradient as outer float64 values (PC_ERR_INVALID on a size mismatch). */
pc_status pc_reduce_grad_load(const pc_op_call *call, const pc_reduce_plan *p,
                              const pc_tensor *grad_out, pc_tensor *buf);
/* v rounded as a tensor op of dtype d rounds it: on the device through float32 opmath to d,
 * on the bench (and for float64) not at all. */
double pc_reduce_round(pc_compute compute, pc_dtype d, double v);
/* Neumaier-compensated sum of n doubles (step apart), NaN and infinities as a plain sum. */
double pc_reduce_sum(const double *v, int64_t n, int64_t step);
/* y[o]: the sum of slot o (v in plan order) added in torch 1.13's CPU order for dtype t
 * (float32: every step rounded to float32; float64), for a contiguous x whose reduced
 * dimensions form one block (an inner or an outer reduction); false (y untouched) otherwise. */
bool pc_reduce_torch_sums(const pc_reduce_plan *p, pc_dtype t, const double *v, double *y);
pc_status pc_reduce_nomem(const pc_op_call *call);
/* PC_ERR_UNSUPPORTED for complex and fp8 tensors. */
pc_status pc_reduce_real(const pc_op_call *call, const pc_tensor *t);

#endif
