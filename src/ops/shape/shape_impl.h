/* Private to src/ops: the kernels of the shape family: views and copies, joins and splits,
 * triangles (shape/shape.c), pad (shape/pad.c). */
#ifndef PC_OPS_SHAPE_IMPL_H
#define PC_OPS_SHAPE_IMPL_H

#include "ops/ops_impl.h"

/* How a view op places its result on its input (op param of the view family). Every result is
 * materialised: a new contiguous tensor with the view's values. */
typedef enum pc_view_kind {
    PC_VIEW_TRANSPOSE, /* transpose, swapaxes, swapdims: (input, dim0, dim1) */
    PC_VIEW_T,
    PC_VIEW_PERMUTE,
    PC_VIEW_RESHAPE, /* reshape and view: (input, shape) with one -1 inferred */
    PC_VIEW_VIEW_AS,
    PC_VIEW_FLATTEN, /* flatten (input, start_dim, end_dim) and ravel (input) */
    PC_VIEW_UNSQUEEZE,
    PC_VIEW_SQUEEZE,
    PC_VIEW_EXPAND, /* expand, broadcast_to: (input, size) */
    PC_VIEW_EXPAND_AS,
    PC_VIEW_IDENTITY, /* contiguous, clone */
    PC_VIEW_NARROW,
    PC_VIEW_SELECT,
    PC_VIEW_REPEAT,  /* a copy per repeat: backward sums them */
    PC_VIEW_MOVEDIM, /* movedim, moveaxis: (input, source, destination) */
    PC_VIEW_FLIP,
    PC_VIEW_UNFLATTEN,
} pc_view_kind;

/* Splits (op param of the split family): several outputs, no backward (run_ut runs none). */
enum { PC_SPLIT_CHUNK, PC_SPLIT_SIZE, PC_SPLIT_SIZES, PC_SPLIT_UNBIND };
/* Joins, triangles (op params). */
enum { PC_JOIN_CAT, PC_JOIN_STACK };
enum { PC_TRI_LOWER, PC_TRI_UPPER };

PC_KERNELS(view);
PC_KERNEL_FORWARD(split);
/* cat/stack: each item's gradient is its slice of grad_out (in the output's dtype), cast to the
 * item's dtype; into out->lists[0] */
PC_KERNELS(join);
PC_KERNELS(tri);

/* pad's two forms (pad.c). */
enum { PC_FN_PAD = 0, PC_FN_CONSTANT_PAD_ND };
/* ---- pad (pad.c) ---- */
PC_KERNELS(pad);

#endif
