/*
 * A bound call: an op plus its arguments typed by the op's schema, and the results of running
 * it (outputs, input gradients). Nothing here reads a dump record: the binder that builds a
 * call from one is precheck/inputs/bind.h.
 *
 * OWNERSHIP: a pc_op_call owns its tensors (one reference each) and nothing else; strings
 * point into the dump (or the schema) and live as long as it. pc_op_call_free() drops the
 * tensors. pc_op_result and pc_op_grads own their tensors; free them with their _free.
 */
#ifndef PC_OPS_CALL_H
#define PC_OPS_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/core/tensor.h"
#include "precheck/ops/op.h"

/* The dump a call was bound from (precheck/dump/dump.h): the call keeps pointers only, so ops
 * does not depend on the dump module. */
typedef struct pc_dump pc_dump;
typedef struct pc_dump_api pc_dump_api;
typedef struct pc_dump_arg pc_dump_arg;

#define PC_OP_MAX_OUTPUTS    64
#define PC_VALUE_MAX_INTS    PC_TENSOR_MAX_DIMS
#define PC_VALUE_MAX_TENSORS 64
#define PC_VALUE_MAX_INDEX   16 /* items of an Index (x[a, b, ...]) */

/* One item of an Index argument (Tensor.__getitem__): what torch's Python indexing accepts. */
typedef enum pc_index_kind {
    PC_INDEX_INT,
    PC_INDEX_SLICE,
    PC_INDEX_NONE, /* a new axis */
    PC_INDEX_ELLIPSIS,
    PC_INDEX_BOOL,   /* a Python bool: a new axis of size 1 (True) or 0 (False) */
    PC_INDEX_TENSOR, /* tensors.items[i] of the value: integer, bool or uint8 */
} pc_index_kind;

typedef struct pc_index_item {
    pc_index_kind kind;
    int64_t i; /* INT: the value; BOOL: 0/1; TENSOR: position in the value's tensors */
    int64_t start, stop, step;          /* SLICE */
    bool has_start, has_stop, has_step; /* SLICE: false for None */
} pc_index_item;

typedef enum pc_value_kind {
    PC_VALUE_NONE = 0, /* None (an optional argument) */
    PC_VALUE_TENSOR,
    PC_VALUE_TENSOR_LIST,
    PC_VALUE_INT,
    PC_VALUE_INT_LIST,
    PC_VALUE_FLOAT,
    PC_VALUE_BOOL,
    PC_VALUE_STR,
    PC_VALUE_DTYPE,
    PC_VALUE_IGNORED, /* Device, Layout, MemoryFormat, Generator: accepted, not used */
    PC_VALUE_INDEX,   /* Index: index.items; its tensors (owned) in tensors */
} pc_value_kind;

typedef struct pc_value {
    pc_value_kind kind;
    /* Where it came from: input_args[src_pos], or -1 (a keyword or a default). */
    int src_pos;
    bool requires_grad; /* TENSOR: the dump record's requires_grad */
    /* TENSOR built from a Python number: int64, float64 or bool 0-dim, promoted as a scalar. */
    bool wrapped;
    pc_tensor tensor;
    struct {
        pc_tensor *items; /* malloc'ed, count tensors */
        int count;
    } tensors;
    int64_t i; /* INT; also the value of a BOOL (0/1) */
    double f;  /* FLOAT; for INT and BOOL too, converted */
    bool b;
    const char *s;
    pc_dtype dtype;
    int64_t ints[PC_VALUE_MAX_INTS];
    int nints;
    /* INDEX: when the record is a list read as a tuple, items[k] comes from its element k;
     * otherwise there is one item, from the record itself (a list of ints included) */
    struct {
        pc_index_item items[PC_VALUE_MAX_INDEX];
        int count;
        /* the index was one tensor, not a list: msprobe's special cases apply
         * (docs/msprobe-contract.md#replay) */
        bool lone_tensor;
    } index;
} pc_value;

/* A tensor record of a dump entry and the tensor precheck made of it (pc_op_call.records). */
typedef struct pc_record_tensor {
    const pc_dump_arg *record;
    pc_tensor tensor; /* one reference, the runner's */
} pc_record_tensor;

struct pc_op_call {
    const pc_op *op;
    pc_api_form form;
    const char *full_name; /* for messages: "Torch.add.0" */
    /* Seed of the op's own randomness (dropout masks): with full_name and the compute mode
     * it keys the counter-based RNG, so a run is reproducible; 0 unless the caller sets it. */
    uint64_t seed;
    int nargs; /* = op->schema->nargs */
    pc_value args[PC_SCHEMA_MAX_ARGS];
    /* Set by pc_bench_prepare for ops that raise their float inputs as they read them
     * (linear: a GB-sized weight is not copied to float64 whole first): 1 + the dtype that
     * its float16/bfloat16/float32 tensors stand for; 0 (a zeroed call) when the tensors are
     * what they are. */
    int lazy_raise;
    /* ---- Where the call came from and how msprobe runs it on its device (backend ABI 3).
     * Set by the runner; zero for calls not made from a dump (goldens, benchmarks), which
     * every backend but replay and torch runs without them. ---- */
    const pc_dump *dump;    /* the dump (replay reads its tensor files) */
    const pc_dump_api *api; /* the record the call was bound from (its api_type, api_name,
                               input_args and input_kwargs as the dump wrote them) */
    /* For backends with PC_BACKEND_WANTS_RECORDS: every tensor record of the forward entry
     * (input_args and input_kwargs, depth first) with the tensor made of it -- the same
     * tensors the binder put in args, where it used the record. Borrowed from the runner:
     * valid while the call is; pc_op_call_share copies the pointer. */
    const pc_record_tensor *records;
    int nrecords;
    /* msprobe runs the device call under autocast (docs/msprobe-contract.md#replay): 1 + the dtype
     * (float16 or bfloat16); 0: no autocast. The bench never autocasts. */
    int autocast;
    /* A backward of this call will follow (the dump has a backward record and msprobe runs
     * it): a device that records autograd history must record it in forward. */
    bool needs_backward;
};

/* The tensor made of record (NULL when call->records does not list it). */
const pc_tensor *pc_op_call_record_tensor(const pc_op_call *call, const pc_dump_arg *record);

struct pc_op_result {
    int count;
    /* the null tensor where an output is None (a device's tuple may hold one: torch's) */
    pc_tensor tensors[PC_OP_MAX_OUTPUTS];
};

struct pc_op_grads {
    /* by schema argument index; the null tensor where no gradient */
    pc_tensor grads[PC_SCHEMA_MAX_ARGS];
    /* Tensor[] arguments (cat, stack): one gradient per item, the null tensor where none;
     * items malloc'ed, NULL when the argument has no gradients */
    struct {
        pc_tensor *items;
        int count;
    } lists[PC_SCHEMA_MAX_ARGS];
};

/* *c: a call of op with every argument None and no tensors, under full_name (messages): where
 * the binder, a composite op (pc_op_call_of), a benchmark or a test starts a call before it
 * sets the arguments it passes. */
void pc_op_call_init(pc_op_call *c, const pc_op *op, pc_api_form form, const char *full_name);
/* *out: the call that a composite op (parent: einsum's bmm and matmul, instance_norm's
 * batch_norm) makes of the op named op_name, one of its row's callees (pc_op.calls, the U rows
 * of the op table): pc_op_call_init under parent's full_name, with parent's seed.
 * PC_ERR_UNSUPPORTED "<full_name>: <op_name> is missing" when the row names no such callee. */
pc_status pc_op_call_of(const pc_op_call *parent, const char *op_name, pc_op_call *out);

/* A second owner of every tensor of src (shares the data): for building a bench call. */
void pc_op_call_share(pc_op_call *out, const pc_op_call *src);
void pc_op_call_free(pc_op_call *call); /* NULL is fine; leaves an empty call */

void pc_op_result_free(pc_op_result *r);
void pc_op_grads_free(pc_op_grads *g);

/* Gradient of the tensor that was input_args[pos] (NULL when none), by the src_pos of the
 * call's arguments: what run_ut collects for the positional tensors. */
const pc_tensor *pc_op_grads_of_input(const pc_op_call *call, const pc_op_grads *g, int pos);

/* ---- reading arguments, for kernels ---- */
const pc_value *pc_call_arg(const pc_op_call *call, int i);
const pc_tensor *pc_call_tensor(const pc_op_call *call, int i); /* NULL when None */

#endif
