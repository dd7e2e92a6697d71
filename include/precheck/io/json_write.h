/*
 * Writing JSON: the one writer of JSON text in precheck (dump.json for materialize, the run
 * record precheck_run_<ts>.json, the summary JSONs, `precheck ops --json`) and the one string
 * escaper.
 *
 * pc_json_writer streams JSON in the layouts of Python's json.dump:
 *   - a container opened with pc_json_write_begin_object/_array is a block when the writer's
 *     indent is > 0: each item on a line of its own, indented by indent spaces per level, ","
 *     ending the line; the closing bracket on a line of its own at the parent's level; an empty
 *     container as [] or {} (json.dump(indent=N));
 *   - one opened with _begin_object_inline/_array_inline, and every container inside it, is on
 *     one line with ", " between items (json.dumps without indent), as is everything when the
 *     indent is 0;
 *   - ": " after each key; no newline at the end unless PC_JSON_FINAL_NEWLINE.
 * Strings: \" \\ \n \r \t \b \f, other controls as \u00XX (lower-case hex); with
 * PC_JSON_ENSURE_ASCII (Python's default) every character outside ' '..'~' as \uXXXX too,
 * surrogate pairs above U+FFFF, an invalid UTF-8 byte as \ufffd; without it UTF-8 (and any
 * other byte >= 0x80) is written as it is. Integers as integers; floats as Python's repr
 * (core/pyrepr.h: "0.1", "1e-05", "100.0"), or "%.17g" with PC_JSON_DOUBLE_17G; NaN and infinities
 * as NaN, Infinity, -Infinity (Python's allow_nan), or as null with PC_JSON_NONFINITE_NULL (strict
 * JSON).
 *
 * OWNERSHIP: the writer borrows its FILE, which the caller opens and closes; nothing keeps a
 * pointer to an argument after a call returns.
 *
 * Errors: calls after a failure do nothing; pc_json_writer_finish() returns the first failure:
 * PC_ERR_IO (a write failed, with the system's reason), PC_ERR_INVALID (calls in an impossible
 * order: a value inside an object without a key, unbalanced brackets, containers left open,
 * nesting deeper than PC_JSON_MAX_DEPTH).
 */
#ifndef PC_IO_JSON_WRITE_H
#define PC_IO_JSON_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "precheck/core/status.h"
#include "precheck/io/json.h"

/* A buffer of this size holds pc_json_format_double() of any double. */
#define PC_JSON_DOUBLE_MAX 32

/* pc_json_writer_init's flags. */
enum {
    PC_JSON_ENSURE_ASCII = 1,   /* escape every character outside ' '..'~' */
    PC_JSON_NONFINITE_NULL = 2, /* NaN and infinities as null */
    PC_JSON_FINAL_NEWLINE = 4,  /* pc_json_writer_finish ends the text with a newline */
    /* finite doubles as C's "%.17g" ("0", "0.10000000000000001"): the spelling of schema 1 of
     * precheck's summary.json, kept so that its files stay byte for byte what they were */
    PC_JSON_DOUBLE_17G = 8,
};

typedef struct pc_json_writer {
    FILE *out;      /* borrowed */
    int indent;     /* spaces per level of a block container; 0: everything on one line */
    unsigned flags; /* PC_JSON_* */
    int depth;      /* open containers */
    bool after_key;
    pc_status status; /* the first failure, PC_OK so far */
    /* per open container: bit 1 some items, bit 2 inline, bit 4 object */
    unsigned char level[PC_JSON_MAX_DEPTH + 1];
} pc_json_writer;

/* msprobe's dump.json (json.dump(data, f, indent=1)): indent 1, PC_JSON_ENSURE_ASCII. */
void pc_json_writer_init(pc_json_writer *w, FILE *out, int indent, unsigned flags);
/* The first failure (PC_OK when none), after checking that every container was closed, writing
 * the final newline (PC_JSON_FINAL_NEWLINE) and flushing out. */
pc_status pc_json_writer_finish(pc_json_writer *w);

void pc_json_write_begin_object(pc_json_writer *w);
void pc_json_write_begin_object_inline(pc_json_writer *w);
void pc_json_write_end_object(pc_json_writer *w);
void pc_json_write_begin_array(pc_json_writer *w);
void pc_json_write_begin_array_inline(pc_json_writer *w);
void pc_json_write_end_array(pc_json_writer *w);
/* The key of the next member (len bytes; may hold U+0000). */
void pc_json_write_key(pc_json_writer *w, const char *key, size_t len);
/* The same for a NUL-terminated key. */
void pc_json_write_keyz(pc_json_writer *w, const char *key);
void pc_json_write_null(pc_json_writer *w);
void pc_json_write_bool(pc_json_writer *w, bool v);
void pc_json_write_int(pc_json_writer *w, int64_t v);
void pc_json_write_double(pc_json_writer *w, double v);
void pc_json_write_string(pc_json_writer *w, const char *s, size_t len);
/* A NUL-terminated string; NULL writes null. */
void pc_json_write_stringz(pc_json_writer *w, const char *s);
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

#endif
