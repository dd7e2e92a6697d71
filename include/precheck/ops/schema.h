/*
 * PyTorch operator schemas, parsed from the strings of the op table, e.g.
 *   "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
 *    float eps=1e-05) -> Tensor"
 *
 * The subset of torch's schema language that the dumped APIs use: an operator name with an
 * optional overload (`add.Tensor`); arguments `Type name[=default]` with `*` starting the
 * keyword-only ones; types Tensor, int, SymInt, float, bool, str, Scalar, ScalarType, Layout,
 * Device, MemoryFormat, Generator, Dimname, with `?` (optional), `[]` / `[N]` (lists) and
 * `?[]` (lists of optionals); alias annotations `Tensor(a)`, `Tensor(a!)`; defaults None,
 * True, False, integers, floats (incl. inf, -inf, nan), strings ('x' or "x"), lists of numbers
 * and bare identifiers (contiguous_format, ...); returns `Tensor`, `()`, `Tensor[]`, or a
 * parenthesised list, optionally with names. One type is precheck's own: Index, the index of
 * Tensor.__getitem__ (call.h).
 *
 * Two forms stand for torch's Python overloads of one name, which its schema language writes as
 * separate schemas:
 *   `str|Type name`: the argument is a str or a Type (torch.norm's p: 'fro', 'nuc' or a
 *     number); a str default such as `str|Scalar? p='fro'` binds as a str;
 *   `Type name|Type2 name2`: the argument also takes the keyword name2, with the type Type2
 *     (torch.scatter's `Tensor src|Scalar value`: src= takes a tensor, value= a number); given
 *     by position it takes either type.
 *
 * A pc_schema is a plain value with fixed-size arrays: parsing allocates nothing and a schema
 * needs no freeing. Errors: PC_ERR_FORMAT with a message giving the column and what was
 * expected; PC_ERR_RANGE when a name or a list is longer than the limits below.
 */
#ifndef PC_OPS_SCHEMA_H
#define PC_OPS_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/core/status.h"

#define PC_SCHEMA_MAX_ARGS    24
#define PC_SCHEMA_MAX_RETURNS 8
#define PC_SCHEMA_NAME_MAX    64 /* bytes of a name, NUL included */
#define PC_SCHEMA_LIST_MAX    8  /* elements of a list default, e.g. [0, 1] */

typedef enum pc_arg_type {
    PC_ARG_TENSOR,
    PC_ARG_INT, /* int and SymInt */
    PC_ARG_FLOAT,
    PC_ARG_BOOL,
    PC_ARG_STR,
    PC_ARG_SCALAR,
    PC_ARG_SCALAR_TYPE,
    PC_ARG_LAYOUT,
    PC_ARG_DEVICE,
    PC_ARG_MEMORY_FORMAT,
    PC_ARG_GENERATOR,
    PC_ARG_DIMNAME,
    PC_ARG_INDEX, /* precheck's own: the index of Tensor.__getitem__ (call.h) */
    PC_ARG_TYPE_COUNT
} pc_arg_type;

typedef enum pc_default_kind {
    PC_DEFAULT_NONE_GIVEN = 0, /* the argument has no default: it must be passed */
    PC_DEFAULT_NULL,           /* =None */
    PC_DEFAULT_BOOL,
    PC_DEFAULT_INT,
    PC_DEFAULT_FLOAT,
    PC_DEFAULT_STR,  /* text holds the string without quotes */
    PC_DEFAULT_LIST, /* list holds numbers; is_float says whether any was written as a float */
    PC_DEFAULT_IDENT /* a bare identifier such as contiguous_format, in text */
} pc_default_kind;

typedef struct pc_schema_default {
    pc_default_kind kind;
    bool b;
    int64_t i;
    double f;
    char text[PC_SCHEMA_NAME_MAX];
    int list_len;
    double list[PC_SCHEMA_LIST_MAX];
    bool list_is_float;
} pc_schema_default;

typedef struct pc_schema_arg {
    char name[PC_SCHEMA_NAME_MAX];
    pc_arg_type type;
    bool optional;      /* Type? : None is accepted */
    bool is_list;       /* Type[] or Type[N] */
    int list_size;      /* N of Type[N]; 0 when unsized */
    bool elem_optional; /* Type?[] : the list's elements may be None */
    bool kwarg_only;    /* after the `*` */
    bool mutates;       /* alias annotation with `!`: written in place */
    char alias;         /* alias set letter ('a'), 0 when none */
    pc_schema_default def;
    bool or_str; /* `str|Type`: a str is accepted too */
    /* `Type name|Type2 name2`: the keyword name2 (with type alt_type) binds this argument too;
     * "" when none */
    char alt_name[PC_SCHEMA_NAME_MAX];
    pc_arg_type alt_type;
} pc_schema_arg;

typedef struct pc_schema_return {
    char name[PC_SCHEMA_NAME_MAX]; /* "" when unnamed */
    pc_arg_type type;
    bool optional;
    bool is_list;
    char alias;
} pc_schema_return;

typedef struct pc_schema {
    char name[PC_SCHEMA_NAME_MAX];     /* "layer_norm" */
    char overload[PC_SCHEMA_NAME_MAX]; /* "Tensor" of "add.Tensor"; "" when none */
    int nargs;
    pc_schema_arg args[PC_SCHEMA_MAX_ARGS];
    int npositional; /* arguments before the `*` */
    int nreturns;
    pc_schema_return returns[PC_SCHEMA_MAX_RETURNS];
} pc_schema;

/* Parses text into *out (written only on success). */
pc_status pc_schema_parse(const char *text, pc_schema *out);

/* Index of the argument called name (its name or its second keyword name), or -1. */
int pc_schema_find_arg(const pc_schema *schema, const char *name);

/* The spelling of a type in schemas ("Tensor", "int", ...). */
const char *pc_arg_type_name(pc_arg_type type);

#endif
