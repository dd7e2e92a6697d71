/* io/yaml11.c: a YAML text as PyYAML 1.1 (SafeLoader) reads it, as a small tree. */
#ifndef PC_IO_YAML11_IMPL_H
#define PC_IO_YAML11_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"

typedef enum ykind {
    YK_NULL,
    YK_BOOL,
    YK_INT,
    YK_FLOAT,
    YK_STR,
    YK_TIMESTAMP,
    YK_BINARY,
    YK_SEQ,   /* a Python list */
    YK_PAIRS, /* !!omap or !!pairs: a Python list of tuples */
    YK_MAP,   /* a dict */
    YK_SET,   /* !!set */
    YK_MERGE, /* a plain "<<": only meaningful as a mapping key (a merge) */
    YK_VALUE, /* a plain "=": a string as a mapping key, refused anywhere else */
} ykind;

typedef struct ynode {
    ykind kind;
    bool bval;
    bool big; /* YK_INT outside int64 (ival saturated) */
    int64_t ival;
    double fval;
    char *str; /* scalars: the text, NUL-terminated (it may hold NULs: len is the length) */
    size_t len;
    size_t *kids; /* containers: items; mappings alternate key, value */
    size_t kid_count, kid_cap;
    size_t line, column; /* from 1 */
} ynode;

typedef struct yanchor {
    char *name;
    size_t node;
} yanchor;

typedef struct ydoc {
    const char *name; /* for messages */
    ynode *nodes;
    size_t count, cap;
    yanchor *anchors;
    size_t anchor_count, anchor_cap;
    size_t *stack; /* open containers */
    size_t depth, stack_cap;
    size_t root;
    bool has_root;
} ydoc;

/* How a message names what was found instead of a mapping ("a list", "nothing"). */
const char *pc_yaml11_kind_what(ykind kind);
/* Reads the YAML text data[0, size) into d (zeroed, d->name set for messages). Errors:
 * PC_ERR_FORMAT with PyYAML's message and the line and column, PC_ERR_NOMEM. d is freed with
 * pc_yaml11_free() either way. */
pc_status pc_yaml11_parse(ydoc *d, const char *data, size_t size);
void pc_yaml11_free(ydoc *d);

#endif
