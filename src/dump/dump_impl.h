/*
 * Private to dump/: the reader's state and the pieces shared by its files.
 *   dump_read.c  the file, the top-level object, entry names, pairing (pc_dump_open)
 *   dump_args.c  one entry's tokens -> pc_dump_entry (argument trees, values)
 *   filter.c     the -filter_api signature of a forward entry (and the dedup over it)
 *   dump_check.c shape checks, argument paths, the name check
 */
#ifndef PC_DUMP_DUMP_IMPL_H
#define PC_DUMP_DUMP_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/arena.h"
#include "precheck/core/hashmap.h"
#include "precheck/dump/data.h"
#include "precheck/dump/dump.h"
#include "precheck/io/json.h"

struct pc_dump_impl {
    pc_arena arena;
    pc_dump_api *apis;
    size_t api_cap;
    pc_dump_backward *backwards;
    size_t backward_cap;
    pc_strmap forward_map, backward_map; /* stripped name -> index; keys borrowed from the arena */
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

/* The -filter_api signature of a forward entry (filter.c): sets entry->signature from body's
 * "input_args" (the dicts among them, less their "Max"/"Min") and "input_kwargs", or
 * entry->filter_error (in b's arena) when msprobe's filter would die on the entry. Sets b->oom
 * on allocation failure. */
void pc_dump_filter_signature(pc_entry_builder *b, pc_json_ref body, pc_dump_entry *entry);

/* "<path>: <what> (<file>:<line>:<col>)" in b's arena, the position being that of the token
 * at; without "<path>: " at the entry itself. NULL (and b->oom) when out of memory. */
const char *pc_entry_error_at(pc_entry_builder *b, pc_json_ref at, const char *what);

/* What a message calls the value at v: its JSON type's name, or "an integer outside the 64-bit
 * range". A static string. */
const char *pc_entry_found_name(const pc_json_doc *doc, pc_json_ref v);

/* An object's members as Python's dict sees them: a key given twice appears once, at its first
 * position, with its last value. */
typedef struct pc_entry_dict_member {
    pc_json_ref key, value;
} pc_entry_dict_member;

/* The members of an object in memory of their own (malloc; small objects inside the view). */
typedef struct pc_entry_dict_view {
    pc_entry_dict_member small[16];
    pc_entry_dict_member *items;
    size_t count;
} pc_entry_dict_view;

/* Fills *v with obj's members; false (b->oom set, v->count 0) when out of memory. Release with
 * pc_entry_dict_view_free in either case. */
bool pc_entry_dict_view_init(pc_entry_builder *b, pc_json_ref obj, pc_entry_dict_view *v);
void pc_entry_dict_view_free(pc_entry_dict_view *v);

/* Calls fn on every tensor record of e (arguments, kwargs, outputs, backward lists) with
 * api passed through; stops at the first nonzero return, which it returns. */
int pc_dump_visit_entry(const pc_dump_api *api, const pc_dump_entry *e, pc_dump_tensor_visitor fn,
                        void *ctx);

/* Line and column of offset in the file (b->doc's locator: linear over many messages). */
void pc_entry_location(const pc_entry_builder *b, size_t offset, size_t *line, size_t *column);

/* Newlines in data[0, n): a loop the compiler vectorises. */
size_t pc_count_newlines(const char *data, size_t n);

#endif
