/*
 * Private to dump/: the reader's state and the pieces shared by its files.
 *   dump_read.c  the file, the top-level object, entry names, pairing (pc_dump_open)
 *   dump_args.c  one entry's tokens -> pc_dump_entry (argument trees, values, signature)
 *   dump_check.c shape checks, argument paths, the name check
 */
#ifndef PC_DUMP_DUMP_IMPL_H
#define PC_DUMP_DUMP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/arena.h"
#include "precheck/dump/data.h"
#include "precheck/dump/dump.h"
#include "precheck/io/json.h"

/* Stripped name -> index, open addressing; names live in the arena. */
typedef struct pc_name_slot {
    uint64_t hash;   /* of key, so that a probe compares strings only on a likely match */
    const char *key; /* NULL: empty */
    uint32_t value;
} pc_name_slot;

typedef struct pc_name_map {
    pc_name_slot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
} pc_name_map;

struct pc_dump_impl {
    pc_arena arena;
    pc_dump_api *apis;
    size_t api_cap;
    pc_dump_backward *backwards;
    size_t backward_cap;
    pc_name_map forward_map, backward_map;
};

/* Everything an entry needs while it is turned into records. */
typedef struct pc_entry_builder {
    pc_arena *arena;
    const pc_json_doc *doc;
    const char *data; /* the whole file */
    size_t size;
    const char *name; /* the file name for messages */
    char path[512];   /* where in the entry we are, e.g. "input_args[1][0]" */
    size_t path_len;
    bool oom;
    const char *last_dtype_name; /* a canonical torch name seen last, and its dtype */
    pc_dtype last_dtype;
} pc_entry_builder;

/* Fills *entry (already zeroed, key and line set) from the entry's value at ref. forward
 * selects the forward layout and the -filter_api signature. Sets b->oom on allocation
 * failure; every other problem ends up in entry->error or an argument's error. */
void pc_entry_build(pc_entry_builder *b, pc_json_ref ref, bool forward, pc_dump_entry *entry);

/* Calls fn on every tensor record of e (arguments, kwargs, outputs, backward lists) with
 * api passed through; stops at the first nonzero return, which it returns. */
int pc_dump_visit_entry(const pc_dump_api *api, const pc_dump_entry *e, pc_dump_tensor_visitor fn,
                        void *ctx);

/* Line and column of offset in the file (b->doc's locator: linear over many messages). */
void pc_entry_location(const pc_entry_builder *b, size_t offset, size_t *line, size_t *column);

/* Newlines in data[0, n): a loop the compiler vectorises. */
size_t pc_count_newlines(const char *data, size_t n);

#endif
