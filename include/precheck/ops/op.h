/*
 * The op table ("ops are data"): one row per op with its PyTorch schema string, its forward
 * and backward (VJP) kernels, whether it is exact, and the table of API names (Functional.x,
 * Torch.x, Tensor.x, dunder, reflected, in-place) that map dump records onto rows.
 *
 * Everything here is static data; the schemas are parsed once, on the first call of any
 * function below (thread-safe), and a schema that does not parse is a broken invariant that
 * aborts (tests/ops/test_ops.c parses every row). Returned pointers live for the program.
 */
#ifndef PC_OPS_OP_H
#define PC_OPS_OP_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"
#include "precheck/core/tensor.h"
#include "precheck/ops/schema.h"

typedef struct pc_op_call pc_op_call;     /* precheck/ops/call.h */
typedef struct pc_op_result pc_op_result; /* precheck/ops/call.h */
typedef struct pc_op_grads pc_op_grads;   /* precheck/ops/call.h */

/* How kernels compute (DESIGN "One kernel source per op, two compute types"). */
typedef enum pc_compute {
    /* The reference device: fp16/bf16/fp32 in float "opmath", fp64 in double, results rounded
     * to nearest even to the output dtype; integers exactly in int64. */
    PC_COMPUTE_DEVICE = 0,
    /* The bench: every float computed in double and rounded once to the output dtype. */
    PC_COMPUTE_BENCH,
} pc_compute;

/* Forward: writes the op's outputs into out (out->count set). Errors are torch's, as values. */
typedef pc_status (*pc_op_forward_fn)(const pc_op_call *call, pc_compute compute,
                                      pc_op_result *out);
/* Backward: given the incoming gradient of output 0, writes the input gradients of the tensor
 * arguments that require grad (by schema argument index) into out. */
typedef pc_status (*pc_op_backward_fn)(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out);

/* What precheck does differently for an op because of the op (its row's last column, an or of
 * these; 0 for most): how the bench raises its inputs (msprobe's run_ut; docs/msprobe-contract.md
 * #replay), how replay maps a recorded gradient, its AMP class. */
enum {
    /* The bench kernels read every float input through the compute dtype (pc_kernel_load,
     * pc_kernel_read) and take the dtypes of their results from pc_kernel_dtype: the inputs are not
     * raised ahead as whole copies (for the vocabulary-sized linear, a GB of float64 weight and as
     * much again of gradient; embedding raises only the rows its indices name). The values they
     * compute with are the same. */
    PC_OP_BENCH_LAZY = 1u << 0,
    PC_OP_BENCH_NEVER = 1u << 1, /* the bench does not raise the inputs (type_as) */
    /* Under msprobe's policy float32 inputs are not raised (the runner has rounded them to HF32
     * for both sides already); float16/bfloat16 still are (conv1d, conv2d). */
    PC_OP_BENCH_KEEP_F32 = 1u << 2,
    /* On a 2-D input torch records one addmm (bias, input, weight^T) or mm node, whose gradients
     * replay maps back onto the arguments (linear). */
    PC_OP_REPLAY_ADDMM = 1u << 3,
    /* The AMP op lists (what autocast does to the op when msprobe runs the device call under
     * it; the reference device emulates it, backends/cpu_autocast.c): GEMM-like ops run in the
     * autocast dtype, precision-sensitive ones in float32, the rest in their input dtypes. */
    PC_OP_AMP_LOWER = 1u << 4,
    PC_OP_AMP_FP32 = 1u << 5,
    /* With PC_OP_BENCH_LAZY: a tensor whose raised copy takes at most PC_BENCH_SMALL_BYTES is
     * raised ahead all the same, so that the forward and the backward (which the bench hands
     * the same prepared call) read one copy instead of each widening the tensor whole again
     * (linear's operands); a larger one (the vocabulary-sized weight) stays lazy. The values
     * are the same either way. */
    PC_OP_BENCH_RAISE_SMALL = 1u << 6,
};
/* The largest raised copy that PC_OP_BENCH_RAISE_SMALL makes ahead. */
#define PC_BENCH_SMALL_BYTES ((size_t)16 << 20)

#define PC_OP_MAX_CALLS 2 /* the most ops one op calls */

typedef struct pc_op {
    const char *name;        /* "add": the schema's name, unique in the table */
    const char *schema_text; /* the PyTorch schema string */
    bool exact; /* the result is an input's value or a cast of it: no rounding of its own */
    pc_op_forward_fn forward;
    pc_op_backward_fn backward; /* NULL: not differentiable / not implemented */
    int param;                  /* kernel selector shared by a family (unary function, dtype) */
    /* Bit i set: schema argument i (a Tensor) also accepts a Python number, which becomes a
     * "wrapped number" 0-dim tensor that takes part in type promotion as a scalar. */
    unsigned scalar_args;
    unsigned rules; /* PC_OP_BENCH_LAZY ... */
    /* A composite op's callees (einsum: bmm, matmul; instance_norm: batch_norm), which its
     * kernels call through pc_op_call_of; NULL past the last. */
    const struct pc_op *calls[PC_OP_MAX_CALLS];
    const pc_schema *schema; /* parsed schema_text */
} pc_op;

/* How a dump name calls its op. */
typedef enum pc_api_form {
    PC_FORM_PLAIN = 0, /* arguments in schema order (Tensor.x passes self first) */
    PC_FORM_SWAPPED,   /* the first two positional arguments swapped: __radd__, Tensor.where */
    PC_FORM_INPLACE,   /* add_, __iadd__: the result is written into self (dtype of self) */
} pc_api_form;

typedef struct pc_api_name {
    const char *api_type; /* "Functional", "Torch", "Tensor" */
    const char *api_name; /* "__radd__" */
    const pc_op *op;
    pc_api_form form;
} pc_api_name;

size_t pc_op_count(void);
const pc_op *pc_op_at(size_t i); /* NULL past the end */
const pc_op *pc_op_find(const char *name);

size_t pc_api_name_count(void);
const pc_api_name *pc_api_name_at(size_t i); /* NULL past the end, in table order */

/* The row of (api_type, api_name), e.g. ("Tensor", "__radd__"); NULL when precheck does not
 * implement it. */
const pc_api_name *pc_api_lookup(const char *api_type, const char *api_name);
/* The next row of the same name after prev (an overload: torch.where(condition) beside
 * torch.where(condition, input, other)), in table order; NULL when there is none. */
const pc_api_name *pc_api_lookup_next(const pc_api_name *prev);

/* Whether the API can be run; when not, writes a message for the SKIP row into why (may be
 * NULL), e.g. "API Torch.einsum is not supported by precheck yet". */
bool pc_api_supported(const char *api_type, const char *api_name, char *why, size_t size);

const char *pc_api_form_name(pc_api_form form); /* "plain", "swapped", "inplace" */

#endif
