/*
 * Writing dump.json the way msprobe writes it: Python's json.dump(data, f, indent=1).
 *
 * The JSON text is io/json_write.h's writer in msprobe's layout (indent 1,
 * PC_JSON_ENSURE_ASCII).
 *
 * pc_dump_rewrite re-serialises a whole dump.json from its text, streaming: the top-level object
 * and the members of "data" are tokenised one member at a time (pc_json_scanner), so memory is
 * one entry's tokens, and each value goes through a hook that may write it differently. Without
 * hooks the output is what json.dump(json.load(input), indent=1) gives: byte for byte the input
 * for a file msprobe wrote. Keys keep their order; duplicate keys are written as they come (a
 * Python reader keeps the last value, as it does for the input).
 *
 * OWNERSHIP: nothing here keeps pointers to its arguments after a call returns; out is
 * borrowed.
 */
#ifndef PC_DUMP_DUMP_WRITE_H
#define PC_DUMP_DUMP_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "precheck/core/status.h"
#include "precheck/io/json.h"
#include "precheck/io/json_write.h"

/* Hooks of pc_dump_rewrite; any may be NULL (the value is copied). Each value hook is called
 * after the member's key was written and must write exactly one value with w. */
typedef struct pc_dump_rewrite_hooks {
    /* A top-level member other than "data". */
    pc_status (*top_member)(void *ctx, pc_json_writer *w, const char *key, const pc_json_doc *doc,
                            pc_json_ref value);
    /* Once, just before the key "data": may add top-level members (key and value each). */
    pc_status (*before_data)(void *ctx, pc_json_writer *w);
    /* A member of "data" (an entry: "Functional.linear.0.forward", a Module record, ...). */
    pc_status (*entry)(void *ctx, pc_json_writer *w, const char *key, const pc_json_doc *doc,
                       pc_json_ref body);
    void *ctx;
} pc_dump_rewrite_hooks;

/* Re-serialises the dump.json text data[0, size) into out through hooks (NULL: none). name is
 * used in messages. The top level must be an object; "data", when it is an object, is streamed
 * entry by entry. Errors: PC_ERR_FORMAT for malformed JSON (with line and column), the hooks'
 * errors, the writer's. */
pc_status pc_dump_rewrite(const char *data, size_t size, const char *name, FILE *out,
                          const pc_dump_rewrite_hooks *hooks);

#endif
