/*
 * msprobe's per-API rules: what run_ut does differently for one API, decided by the API's name
 * (the middle segment of its dump name: "topk" for Torch.topk and Tensor.topk alike), in one
 * table, src/dump/api_rules.def (docs/msprobe-contract.md#replay). Per-op facts (which kernel,
 * the bench's dtypes) live in the op rows (src/ops/<family>/<family>.def), not here.
 *
 * The table is static data; nothing to free. Functions are thread-safe.
 */
#ifndef PC_DUMP_API_RULES_H
#define PC_DUMP_API_RULES_H

#include <stdbool.h>

/* The input fixes of the inputs column (bits; docs/msprobe-contract.md#replay). */
enum {
    PC_API_IN_CROSS_ENTROPY = 1u << 0, /* int32 -> int64; the target's Min floored at 0 */
    PC_API_IN_HISTC = 1u << 1,         /* int64 -> float32; an int input_args[0] read as float32 */
    PC_API_IN_HF32 = 1u << 2,          /* float32 inputs rounded to HF32 for both sides */
    PC_API_IN_FA_MASK = 1u << 3,       /* atten_mask: the fixed compressed mask (sparse_mode 2-4) */
};

/* One row of api_rules.def; the row of an API the table does not name has the defaults. */
typedef struct pc_api_rule {
    const char *api_name;    /* NULL in the defaults */
    int grad_index;          /* the output whose backward runs for a tuple result; -1: none */
    bool first_output_only;  /* only output 0 is compared */
    bool returns_none;       /* both sides' outputs are None, no backward */
    const char *no_backward; /* the backward's SKIP message decided before the run, or NULL */
    unsigned inputs;         /* PC_API_IN_* */
} pc_api_rule;

/* The rules of an API by its api_name (NULL allowed); never NULL. */
const pc_api_rule *pc_api_rule_of(const char *api_name);

/* msprobe's dropout rule: an API whose full name contains "dropout" (Functional.dropout,
 * Torch.dropout_, NPU._npu_dropout) is compared by its fraction of zeros, not its values
 * (compare/ applies the same substring rule to the names it is given). */
bool pc_api_is_dropout(const char *full_name);

/* One T(...) row of api_rules.def: msprobe's rules by API type (the first segment of a name). */
typedef struct pc_api_type_rule {
    const char *api_type;  /* NULL in the defaults */
    bool refused;          /* run_ut and run_overflow_check refuse it (Distributed, MindSpeed) */
    bool overflow_refused; /* run_overflow_check alone refuses it (NPU) */
    bool executed;         /* msprobe runs its APIs (Functional, Tensor, Torch, Aten, NPU) */
    bool no_bench;         /* an API precheck lacks is "There is not bench function <name>" (NPU) */
} pc_api_type_rule;

/* The rules of an API type (NULL allowed); never NULL. */
const pc_api_type_rule *pc_api_type_rule_of(const char *api_type);

#endif
