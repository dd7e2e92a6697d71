/*
 * Writing dump.json the way msprobe writes it: Python's json.dump(data, f, indent=1).
 *
 * pc_json_writer emits JSON text with Python's formatting: one space of indentation per level,
 * ", " never (items end a line), ": " after keys, empty containers as [] and {}, no newline at
 * the end; strings ASCII-only (ensure_ascii: every byte outside ' '..'~' as \uXXXX in lower-case
 * hex, surrogate pairs above U+FFFF, \" \\ \n \r \t \b \f); integers as integers; floats as
 * Python's repr (shortest round-trip digits, "1e-05", "1e+16", "100.0") and NaN, Infinity,
 * -Infinity as bare tokens (allow_nan).
 *
 * pc_dump_rewrite re-serialises a whole dump.json from its text, streaming: the top-level object
 * and the members of "data" are tokenised one member at a time (pc_json_scanner), so memory is
 * one entry's tokens, and each value goes through a hook that may write it differently. Without
 * hooks the output is what json.dump(json.load(input), indent=1) gives: byte for byte the input
 * for a file msprobe wrote. Keys keep their order; duplicate keys are written as they come (a
 * Python reader keeps the last value, as it does for the input).
 *
 * OWNERSHIP: nothing here keeps pointers to its arguments after a call returns. The writer
 * borrows its FILE, which the caller opens and closes.
 *
 * Errors: writer calls after a failure do nothing; pc_json_writer_finish() returns the first
 * failure: PC_ERR_IO (a write failed, with the system's reason), PC_ERR_INVALID (calls in an
 * impossible order, nesting deeper than PC_JSON_MAX_DEPTH).
 */
#ifndef PC_DUMP_DUMP_WRITE_H
#define PC_DUMP_DUMP_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "precheck/core/status.h"
#include "precheck/io/json.h"

/* A buffer of this size holds pc_json_format_double() of any double. */
#define PC_JSON_DOUBLE_MAX 32

typedef struct pc_json_writer {
    FILE *out;     /* borrowed */
    int indent;    /* spaces per level (msprobe: 1); 0 writes everything on one line */
    int depth;     /* open containers */
    bool want_key; /* inside an object, before a key */
    bool after_key;
    pc_status status; /* the first failure, PC_OK so far */
    /* per open container: 0 no item yet, 1 some items, bit 2 set for objects */
    unsigned char level[PC_JSON_MAX_DEPTH + 1];
} pc_json_writer;

void pc_json_writer_init(pc_json_writer *w, FILE *out, int indent);
/* The first failure (PC_OK when none), after checking that every container was closed and
 * flushing out. */
pc_status pc_json_writer_finish(pc_json_writer *w);

void pc_json_write_begin_object(pc_json_writer *w);
void pc_json_write_end_object(pc_json_writer *w);
void pc_json_write_begin_array(pc_json_writer *w);
void pc_json_write_end_array(pc_json_writer *w);
/* The key of the next member (len bytes; may hold U+0000). */
void pc_json_write_key(pc_json_writer *w, const char *key, size_t len);
void pc_json_write_null(pc_json_writer *w);
void pc_json_write_bool(pc_json_writer *w, bool v);
void pc_json_write_int(pc_json_writer *w, int64_t v);
void pc_json_write_double(pc_json_writer *w, double v);
void pc_json_write_string(pc_json_writer *w, const char *s, size_t len);
/* A number exactly as given (the digits of an integer beyond int64). */
void pc_json_write_number_text(pc_json_writer *w, const char *text, size_t len);

/* Writes the value v of doc (recursively). src, size: the bytes doc was parsed from, for the
 * digits of integers beyond int64 (which doc only keeps as doubles); may be NULL, then those
 * are written as Python's int(float). */
void pc_json_write_copy(pc_json_writer *w, const pc_json_doc *doc, pc_json_ref v, const char *src,
                        size_t size);

/* Python's repr of x as json.dump writes it ("0.1", "1e-05", "2.0", "NaN", "-Infinity").
 * Returns the length. */
int pc_json_format_double(char *buf, size_t size, double x);

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
