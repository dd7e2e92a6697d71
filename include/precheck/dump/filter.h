/*
 * Which dumped APIs run_ut runs: the -filter_api dedup (docs/msprobe-contract.md#dump-records), the
 * white and black lists with msprobe's built-in black list (docs/msprobe-contract.md#command-line),
 * and the set of API names msprobe can wrap, which config validation checks list items against.
 *
 * All tables here are static data; nothing to free. Functions are thread-safe.
 */
#ifndef PC_DUMP_FILTER_H
#define PC_DUMP_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"
#include "precheck/dump/dump.h"

/* ---- -filter_api ---- */

/*
 * msprobe's preprocess_forward_content over dump->apis in order: an API is kept when its base
 * name (full name without the last ".<index>") is new, or when its signature (see
 * pc_dump_entry.signature) differs from that of every earlier KEPT API of the same base name.
 * keep must have dump->api_count entries; *kept_count (may be NULL) gets the number kept.
 * Errors, where msprobe's filter dies (keep is then incomplete): PC_ERR_INVALID "api name
 * contains special characters, please check!" for an unsafe name, PC_ERR_FORMAT with the
 * entry's filter_error (missing "input_args"/"input_kwargs", ...), PC_ERR_NOMEM.
 */
pc_status pc_dump_filter_dedup(const pc_dump *dump, bool *keep, size_t *kept_count);

/* ---- white and black lists ---- */

/* Names are bare api names ("conv2d", "__add__", "linalg.norm"); the arrays are borrowed. */
typedef struct pc_api_lists {
    const char *const *white;
    size_t white_count;
    const char *const *black;
    size_t black_count;
} pc_api_lists;

/* msprobe's permanent black list: to, empty, empty_like, empty_strided, new_empty,
 * new_empty_strided, empty_with_format. */
extern const char *const pc_api_builtin_black_list[];
extern const size_t pc_api_builtin_black_list_count;

/* True when run_ut skips api_name: it is in the configured black list or the built-in one,
 * or the white list is not empty and does not hold it (black wins). lists may be NULL (no
 * configured lists). */
bool pc_api_lists_skip(const pc_api_lists *lists, const char *api_name);

/* "API <api_name> in black list or not in white list. SKIP." into buf, snprintf-style. */
int pc_api_lists_skip_message(const char *api_name, char *buf, size_t size);

/* ---- wrappable API names ---- */

/* Whether name is in the union of the functional, tensor, torch and torch_npu lists of
 * msprobe's support_wrap_ops.yaml (what config white_list/black_list items must be).
 * "conv2d", "__add__", "linalg.norm", "npu_fusion_attention" are; aten and distributed names
 * are not. O(log n). */
bool pc_api_is_wrappable(const char *name);

/* The four lists as msprobe's yaml has them, for tests and tools. */
typedef enum pc_api_wrap_list {
    PC_API_WRAP_FUNCTIONAL,
    PC_API_WRAP_TENSOR,
    PC_API_WRAP_TORCH,
    PC_API_WRAP_TORCH_NPU,
    PC_API_WRAP_LIST_COUNT
} pc_api_wrap_list;

const char *const *pc_api_wrap_list_names(pc_api_wrap_list list, size_t *count);

#endif
