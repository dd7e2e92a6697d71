/*
 * PyTorch's element-wise semantics: broadcasting and type promotion
 * (docs/msprobe-contract.md#replay). Pure functions over dtypes and shapes; nothing allocates.
 */
#ifndef PC_OPS_PROMOTE_H
#define PC_OPS_PROMOTE_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/core/tensor.h"

/* torch.promote_types: the smallest dtype both a and b convert to (bool < integers <
 * floating < complex; uint8 with int8 gives int16; float16 with bfloat16 gives float32). */
pc_dtype pc_promote_types(pc_dtype a, pc_dtype b);

/* One operand of torch.result_type. */
typedef enum pc_operand_rank {
    PC_OPERAND_DIM = 0,  /* a tensor with at least one dimension */
    PC_OPERAND_ZERO_DIM, /* a 0-dim tensor */
    PC_OPERAND_WRAPPED,  /* a Python number (its dtype: int64, float64 or bool) */
} pc_operand_rank;

/* Accumulates operands of torch.result_type; start from PC_RESULT_TYPE_INIT. */
typedef struct pc_result_type {
    pc_dtype dim, zero, wrapped; /* PC_DTYPE_INVALID: none yet */
} pc_result_type;
#define PC_RESULT_TYPE_INIT ((pc_result_type){PC_DTYPE_INVALID, PC_DTYPE_INVALID, PC_DTYPE_INVALID})

void pc_result_type_add(pc_result_type *r, pc_dtype dtype, pc_operand_rank rank);
/* The tensor's rank class: wrapped when asked, else by its rank. */
void pc_result_type_add_tensor(pc_result_type *r, const pc_tensor *t, bool wrapped);
/* The same for a tensor that stands for dtype, not its own (a bench that raises as it reads). */
void pc_result_type_add_tensor_as(pc_result_type *r, const pc_tensor *t, pc_dtype dtype,
                                  bool wrapped);
/* The result: dimensioned operands decide first, then 0-dim tensors, then Python numbers,
 * where a higher category lifts (a float Python number makes an integer tensor float32).
 * PC_DTYPE_INVALID when nothing was added. */
pc_dtype pc_result_type_get(const pc_result_type *r);

/* torch.can_cast(from, to): no cast to a lower category (float -> int, int -> bool). */
bool pc_can_cast(pc_dtype from, pc_dtype to);

/* Broadcast shape of a and b into out (rank max(ra, rb)). PC_ERR_INVALID with torch's message
 * "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1". */
pc_status pc_broadcast_shapes(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *out,
                              int *rank_out);

#endif
