/*
 * Private to src/ops/pointwise: the element-wise engine (elementwise.c) that every element-wise
 * op family runs on (unary.c, binary.c, ternary.c, select.c, cast.c).
 *
 * An op decides its result dtype (promote.h), sets up a context over the broadcast shape of its
 * operands (pc_ew_init), then a loop (ew_loop): its operands (pc_ew_loop_input, _cond), its
 * outputs (pc_ew_loop_store for a result, pc_ew_loop_grad for an input's gradient) and a chunk
 * function. pc_ew_loop_run walks the iteration space in chunks of EW_CHUNK elements: per chunk
 * it gathers each operand into a small per-thread buffer of the compute type (float for the
 * device's fp16/bf16/fp32, double for fp64 and the bench, int64 for integers and bool, so that
 * integer results are exact and wrap like torch's; a condition into bytes), calls the chunk
 * function, and rounds once straight into the output tensor. Nothing of the size of the tensors
 * is allocated besides the results, so a call needs O(chunk x threads) memory of its own.
 */
#ifndef PC_OPS_POINTWISE_ELEMENTWISE_H
#define PC_OPS_POINTWISE_ELEMENTWISE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops/kernel.h"

/* Elements per chunk: the buffers of one chunk (up to 8 of 8 bytes per element) stay in the
 * caches of one core, and a chunk is long enough that the per-chunk index arithmetic and the
 * calls of the converters are negligible. */
enum { EW_CHUNK = 4096 };

typedef enum ew_kind { EW_FLOAT, EW_DOUBLE, EW_INT } ew_kind;

/* How the elements of an operand become compute values. */
typedef enum ew_load_mode {
    EW_LOAD_F16, /* the value as it is, from the dtype named */
    EW_LOAD_BF16,
    EW_LOAD_F32,
    EW_LOAD_F64,
    EW_LOAD_EXACT, /* the value as it is, from any other dtype (through double) */
    EW_LOAD_ROUND, /* the value rounded to the computation dtype (cd) first */
    EW_LOAD_INT,   /* int64, exactly; 0/1 when cd is bool */
    EW_LOAD_COND,  /* a condition (pc_ew_loop_cond): uint8_t 0/1, whether the value is not 0 */
} ew_load_mode;

/* An operand over the iteration space: its element strides per iteration dimension, 0 where it
 * is broadcast. A sum target (the gradient of a broadcast input) is only walked: data NULL. */
typedef struct ew_src {
    const char *data; /* the storage's first byte */
    pc_dtype dtype;
    size_t esz;
    ew_kind kind; /* compute type of its buffer */
    ew_load_mode load;
    pc_dtype cd; /* EW_LOAD_ROUND: the dtype rounded to; EW_LOAD_INT: bool gives 0/1 */
    bool wrap;   /* EW_LOAD_INT: values converted to wrap_dtype first (torch casts integer */
    pc_dtype wrap_dtype; /* operands to the common dtype: 300 in a uint8 op is 44) */
    int64_t offset;
    int64_t strides[PC_TENSOR_MAX_DIMS];
} ew_src;

typedef struct ew_ctx {
    pc_compute compute;
    ew_kind kind;
    pc_dtype cd; /* the dtype values are computed in (rounded to on load) */
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t n;
    const char *name; /* full API name for messages */
    /* The call: the dtypes its tensors stand for (pc_kernel_dtype) name the gradients' dtypes
     * and the in-place result's. */
    const pc_op_call *call;
} ew_ctx;

/* The iteration space: the context's shape without its dimensions of size 1 and with
 * neighbouring dimensions merged where every operand walks them as one (so that the inner runs
 * are long). Rewrites the operands' strides to it. */
typedef struct ew_iter {
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
} ew_iter;

typedef enum ew_sink_kind {
    EW_SINK_NONE = 0,
    EW_SINK_STORE, /* a result of the context's shape */
    EW_SINK_GRAD,  /* the gradient of an input of the context's size: stored directly */
    EW_SINK_SUM,   /* the gradient of a broadcast input: summed over the broadcast dimensions */
} ew_sink_kind;

typedef struct ew_sink {
    ew_sink_kind kind;
    pc_dtype dtype;
    bool round;            /* GRAD, SUM: rounded to the computation dtype before the store */
    const pc_tensor *like; /* GRAD, SUM: the input */
    pc_tensor t;           /* the result */
    ew_src target;         /* SUM: where each element is added in acc */
    double *acc;           /* SUM: one double per element of the input */
} ew_sink;

enum { EW_MAX_IN = 4, EW_MAX_OUT = 3 };

typedef struct ew_loop ew_loop;

/* One chunk of an op: in[k] holds len gathered values of operand k (NULL for an absent one;
 * it may point into the operand's tensor itself: read only), the function writes out[k] (NULL
 * where the sink is NONE; it may be the result tensor's memory) and may use tmp (when the loop
 * asked for it). Returns 0, or an op-specific error code (the first one in index order wins). */
typedef int (*ew_chunk_fn)(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len);

struct ew_loop {
    const ew_ctx *c;
    ew_chunk_fn fn;
    const void *arg; /* the op's plan, for fn */
    int nin, nout;
    bool has_in[EW_MAX_IN];
    ew_src in[EW_MAX_IN];
    ew_sink out[EW_MAX_OUT];
    bool tmp; /* fn needs one more chunk buffer */
    int err;  /* after loop_run: fn's error code, 0 when none */
    ew_iter it;
};

/* ---- the context and the loop ---- */

/* *c over the broadcast shape of the nts tensors ts (NULL entries skipped), computed in cd
 * (the compute type from compute and cd). Errors: the shapes do not broadcast (the message
 * prefixed with the call's name). */
pc_status pc_ew_init(ew_ctx *c, const pc_op_call *call, pc_compute compute, pc_dtype cd,
                     const pc_tensor *const *ts, int nts);

/* On the device, the len values at buf (the context's compute type; NULL: nothing) rounded to
 * the computation dtype, as autograd holds values in a half dtype. */
void pc_ew_round_device(const ew_ctx *c, void *buf, int64_t len);

/* An empty loop over c's elements that calls fn with the op's plan arg; then its operands and
 * outputs in fn's order, then pc_ew_loop_run. */
void pc_ew_loop_init(ew_loop *l, const ew_ctx *c, ew_chunk_fn fn, const void *arg);
/* The next operand: t computed in the context's type (NULL: absent, its in[k] NULL). */
void pc_ew_loop_input(ew_loop *l, const pc_tensor *t);
/* Integer operands of another dtype than cd converted to it on load, as torch's TensorIterator
 * casts the inputs of a binary op to the common dtype (integer contexts only). */
void pc_ew_loop_wrap_inputs(ew_loop *l, pc_dtype cd);
/* The next operand as a condition (an integral or bool tensor): its in[k] holds one uint8_t per
 * element, 1 where the value is not 0, else 0 (bytes, not the context's compute type, so that
 * the selections read a quarter to an eighth of the memory and their loops vectorise). */
void pc_ew_loop_cond(ew_loop *l, const pc_tensor *t);
/* The next output: a result of dtype in the context's shape. */
void pc_ew_loop_store(ew_loop *l, pc_dtype dtype);
/* The next output: the gradient of input like (NULL: not wanted, its out[k] NULL), of the dtype
 * like stands for in the call (pc_kernel_dtype). */
void pc_ew_loop_grad(ew_loop *l, const pc_tensor *like);
/* Runs the loop: the results in l->out[k].t, the caller's (pc_ew_loop_take_grad moves one out;
 * pc_tensor_free what is taken). When fn returns an error code, l->err is set, the results are
 * freed and PC_ERR_INVALID is returned without a message (the caller words it). Errors also:
 * PC_ERR_NOMEM, the results freed. */
pc_status pc_ew_loop_run(ew_loop *l);
/* Moves the gradient of output k (if any) into *dst. */
void pc_ew_loop_take_grad(ew_loop *l, int k, pc_tensor *dst);

/* In-place forms: the result goes into self, so it must have self's shape and its dtype must
 * be castable to self's (the dtype self stands for in the call, pc_kernel_dtype). PC_OK for the
 * other forms. */
pc_status pc_ew_inplace_check(const ew_ctx *c, const pc_op_call *call, pc_dtype result,
                              const pc_tensor *self);
/* Whether the call wants the gradient of its argument i (a float tensor that requires it). */
bool pc_ew_wants_grad(const pc_op_call *call, int i);

/* Whether a Scalar argument of value v overflows dtype d when torch converts it (c10's
 * checked conversion): the C++ type name of its message, or NULL when it fits. */
const char *pc_ew_scalar_overflows(pc_dtype d, double v);

/* A double as an int64, saturated (NaN: 0), where C's conversion would be undefined. */
static inline int64_t f64_to_i64_sat(double v)
{
    if (isnan(v))
        return 0;
    if (v >= 9223372036854775807.0)
        return INT64_MAX;
    if (v <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)v;
}

/* The loop of one case of a kernel's switch: the switch is outside the loop, so that each
 * case is a simple loop the compiler can vectorise. */
#define EW_EACH(body)                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                              \
        body;                                                                                      \
    }                                                                                              \
    break

#endif
