/*
 * dump.json -> api records (docs/msprobe-contract.md#dump-records).
 *
 * pc_dump_open() reads the file once, entry by entry (each member of "data" is tokenised on
 * its own, so memory is the records plus one entry's tokens), and applies msprobe's rules:
 *   - keys containing "Module" are ignored; a key containing "forward" must end in the
 *     segment "forward", else one containing "backward" must end in "backward", anything else
 *     is an error for the whole file: "[msprobe] Unexpected name in json: <key> in file <path>";
 *   - "data" missing or null: "[msprobe] Invalid dump.json format: something wrong with dump,
 *     no data found in dump.json" (also for a "data" that is not an object, and a top level
 *     that is not an object, where msprobe dies of an AttributeError);
 *   - names are stripped of ".forward"/".backward"; duplicates keep the first position and the
 *     last body (Python's dict); forward and backward entries pair by identical stripped name;
 *   - JSON errors anywhere in the file are errors for the whole file, with line and column.
 * Everything that msprobe turns into a SKIP row later is kept instead, with what the runner
 * needs to write that row: api_name NULL for names of other than 3 or 4 segments, prefixes
 * such as Distributed/MindSpeed, unsafe_name for msprobe's character check, and an `error`
 * text on entries and arguments that cannot be rebuilt (wrong JSON types in fields, ...).
 *
 * OWNERSHIP: a pc_dump owns every record, string and array reachable from it; all of it is
 * read-only for callers and lives until pc_dump_free(). Records do not point into the file.
 * A pc_dump may be read from several threads at once.
 */
#ifndef PC_DUMP_DUMP_H
#define PC_DUMP_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/dtype.h"
#include "precheck/core/status.h"

/* msprobe's recursion limit when it rebuilds arguments (gen_args, depth > 400 is an error). */
#define PC_DUMP_MAX_ARG_DEPTH 400

/* ---- values: "value" fields and statistics, as JSON gave them ---- */

typedef enum pc_dump_value_kind {
    PC_DUMP_VALUE_ABSENT = 0, /* the key was not there */
    PC_DUMP_VALUE_NULL,
    PC_DUMP_VALUE_BOOL,
    PC_DUMP_VALUE_INT,
    PC_DUMP_VALUE_FLOAT, /* NaN and infinities too; integers outside int64 have big_int set */
    PC_DUMP_VALUE_STR,
    PC_DUMP_VALUE_LIST,
    PC_DUMP_VALUE_OBJECT,
} pc_dump_value_kind;

typedef struct pc_dump_value pc_dump_value;
typedef struct pc_dump_value_member pc_dump_value_member;

struct pc_dump_value {
    uint8_t kind;   /* pc_dump_value_kind */
    bool big_int;   /* FLOAT written as an integer literal outside int64 */
    uint32_t count; /* STR: byte length; LIST, OBJECT: number of items */
    union {
        bool b;
        int64_t i;
        double f;
        const char *s;                       /* NUL-terminated UTF-8 */
        const pc_dump_value *items;          /* LIST */
        const pc_dump_value_member *members; /* OBJECT, in Python dict order (see above) */
    } u;
};

struct pc_dump_value_member {
    const char *key;
    pc_dump_value value;
};

/* Whether v is a number (int or float) or a bool: what msprobe accepts as Min/Max. */
bool pc_dump_value_is_number(const pc_dump_value *v);
/* v as a double (bool: 0/1; big integers rounded); NaN for non-numbers. */
double pc_dump_value_as_double(const pc_dump_value *v);

/* ---- tensors ---- */

typedef struct pc_dump_tensor {
    const char *dtype_name; /* "dtype" as written ("torch.float16", "torch_npu.HiFloat8Tensor");
                               NULL when absent */
    pc_dtype dtype;         /* PC_DTYPE_INVALID when absent or not a dtype precheck knows */
    bool has_shape;
    int64_t rank;         /* entries of shape (0 for a 0-dim tensor or no shape) */
    const int64_t *shape; /* as written: dimensions are NOT checked here (negative, huge):
                             pc_dump_tensor_check() does that where data is made */
    pc_dump_value max, min, mean, norm;
    pc_dump_value max_except_inf_nan, min_except_inf_nan; /* legacy keys; usually ABSENT */
    bool requires_grad;    /* Python truthiness of "requires_grad" (false when absent) */
    const char *data_name; /* tensor mode: file name under dump_tensor_data; NULL when absent */
    const char *datapath;  /* legacy key, takes precedence over data_name; NULL when absent */
    const char *md5;       /* md5 summary mode; NULL when absent */
} pc_dump_tensor;

/* The file that holds the tensor's data: datapath if present, else data_name, else NULL. */
const char *pc_dump_tensor_file(const pc_dump_tensor *t);

/* ---- argument trees ---- */

typedef enum pc_dump_arg_kind {
    PC_DUMP_ARG_ABSENT = 0, /* the key ("input_args", "output", ...) was not there */
    PC_DUMP_ARG_NULL,       /* JSON null: None, or an object the dumper could not describe */
    PC_DUMP_ARG_LIST,       /* JSON array: a list or tuple of arguments */
    PC_DUMP_ARG_OBJECT,     /* JSON object without "type": a namedtuple/dataclass, or {} for an
                               object the dumper did not support */
    PC_DUMP_ARG_TENSOR,     /* type "torch.Tensor" or "torch.nn.parameter.Parameter" */
    PC_DUMP_ARG_INT,        /* {"type": "int", "value": <int>} (value.kind INT, or FLOAT with
                               big_int) */
    PC_DUMP_ARG_FLOAT,      /* {"type": "float", "value": <number>} */
    PC_DUMP_ARG_BOOL,       /* {"type": "bool", "value": <bool>} */
    PC_DUMP_ARG_STR,        /* {"type": "str", "value": <string>} */
    PC_DUMP_ARG_SLICE,      /* {"type": "slice", "value": [start, stop, step]} */
    PC_DUMP_ARG_ELLIPSIS,   /* {"type": "ellipsis", "value": "..."} */
    PC_DUMP_ARG_SIZE,       /* {"type": "torch.Size", "value": [ints]} */
    PC_DUMP_ARG_DTYPE,      /* {"type": "torch.dtype", "value": "torch.float32"} */
    PC_DUMP_ARG_DEVICE,     /* {"type": "torch.device", "value": "npu:0" | int} */
    PC_DUMP_ARG_NUMPY,      /* a numpy scalar: type "numpy.<name>" or a bare numpy class name
                               ("float32", "int64", "bool_") */
    PC_DUMP_ARG_OTHER,      /* any other "type" (torch.memory_format, DTensor, numpy.ndarray,
                               ProcessGroup, ...): kept with its type and "value" */
    PC_DUMP_ARG_RAW,        /* a bare JSON number, string or bool where a record was expected
                               (msprobe: "Warning: <v> is not supported"); the value is in value */
    PC_DUMP_ARG_KIND_COUNT
} pc_dump_arg_kind;

typedef struct pc_dump_arg pc_dump_arg;
typedef struct pc_dump_field pc_dump_field;

struct pc_dump_arg {
    pc_dump_arg_kind kind;
    const char *type; /* the record's "type" as written; NULL when it has none */
    /* NULL, or why precheck cannot rebuild this argument, e.g. "input_args[1]: \"value\" of an
     * int record must be an integer, found string (dump.json:120:17)"; the runner uses it as
     * the SKIP message. Only problems that make every use fail are set here; tensor shapes are
     * checked by pc_dump_tensor_check(). */
    const char *error;
    pc_dump_value value; /* the record's "value"; for RAW the bare value itself */
    union {
        struct {
            const pc_dump_arg *items;
            size_t count;
        } list; /* LIST */
        struct {
            const pc_dump_field *fields;
            size_t count;
        } object;                     /* OBJECT, in Python dict order */
        const pc_dump_tensor *tensor; /* TENSOR */
        struct {
            int64_t start, stop, step;
            bool has_start, has_stop, has_step; /* false for null */
        } slice;                                /* SLICE */
        struct {
            const int64_t *dims;
            size_t rank;
        } size;              /* SIZE */
        pc_dtype dtype;      /* DTYPE: PC_DTYPE_INVALID when the name is unknown */
        bool numpy_prefixed; /* NUMPY: the type was written "numpy.<name>" */
    } u;
};

struct pc_dump_field {
    const char *key;
    pc_dump_arg value;
};

/* ---- entries and apis ---- */

typedef struct pc_dump_entry {
    const char *key; /* as written: "Functional.conv2d.0.forward" */
    size_t line;     /* line of the key in the file, for messages */
    /* NULL, or why the body cannot be used at all (not an object, input_kwargs not an object,
     * input_args not a list, ...): the runner SKIPs the API with this message. */
    const char *error;
    pc_dump_arg input_args; /* forward: LIST normally; ABSENT when missing */
    /* forward: input_kwargs in Python dict order; has_kwargs false when missing (msprobe then
     * uses {}) */
    const pc_dump_field *kwargs;
    size_t kwarg_count;
    bool has_kwargs;
    pc_dump_arg output; /* forward: the outputs; backward: grads of the forward inputs */
    pc_dump_arg input;  /* backward: grads of the forward outputs (run_ut uses input[0]) */
    pc_dump_value is_recompute;
    /* -filter_api: a 128-bit digest of (input_args' top-level objects without Max/Min,
     * input_kwargs) under Python's == (dict order ignored, 1 == 1.0 == true, NaN == NaN as
     * json gives one NaN object, integers beyond int64 by their digits); equal digests are
     * taken as equal signatures (a collision is a 2^-128 event). filter_error says why
     * msprobe's filter would fail on this entry (missing input_args, ...), NULL when it would
     * not. Computed for forward entries only. */
    uint64_t signature[2];
    const char *filter_error;
} pc_dump_entry;

typedef struct pc_dump_api {
    const char *full_name; /* the key without ".forward": "Functional.conv2d.0" */
    const char *prefix;    /* its first dot-segment: "Functional", "Distributed", ... */
    /* 3 segments T.n.i -> api_type T, api_name n; 4 segments T.a.b.i -> api_type T, api_name
     * "a.b" (Torch.linalg.norm.0 -> linalg.norm, Aten.mul.Tensor.5 -> mul.Tensor); any other
     * count -> both NULL (run_ut: SKIP "API <full_name> not support for run ut. SKIP."). */
    const char *api_type;
    const char *api_name;
    const char *call_index; /* the last segment as written, "0" */
    /* msprobe's character check fails (a name starting with one of + - = % @ or their
     * full-width forms, or containing ';' followed by one): run_ut aborts the whole run when
     * it reaches this API (pc_dump_check_name() gives the message). */
    bool unsafe_name;
    pc_dump_entry forward;
    const pc_dump_entry *backward; /* the backward entry of the same name, NULL when none */
} pc_dump_api;

typedef struct pc_dump_backward {
    const char *full_name; /* the key without ".backward" */
    pc_dump_entry entry;
} pc_dump_backward;

typedef struct pc_dump_impl pc_dump_impl;

typedef struct pc_dump {
    const char *path; /* as given to pc_dump_open/pc_dump_parse */
    const char *task; /* top-level strings, NULL when absent or not strings */
    const char *level;
    const char *framework;
    const char *dump_data_dir;
    /* Python truthiness of "dump_data_dir": run_ut reads real tensors from
     * <dir of dump.json>/dump_tensor_data when true (the stored path is not used). */
    bool has_real_data;
    /* "data" is an empty object: run_ut logs "data field is empty, no overflow data found."
     * and writes no rows. */
    bool data_empty;
    const pc_dump_api *apis; /* forward entries in dict order */
    size_t api_count;
    const pc_dump_backward *backwards; /* backward entries in dict order */
    size_t backward_count;
    size_t module_count; /* keys containing "Module" (ignored) */
    /* Tensor files named in "data" (records with a "data_name" or "datapath" string, Module
     * entries included), and those no record of an api or backward entry holds: in Module
     * entries, and elsewhere (under keys run_ut does not read, in records that cannot be
     * rebuilt, in the earlier body of a key written twice), the first such entry's key in
     * unread_example. check_dump accounts for every one. */
    size_t named_files, module_files, unread_files;
    const char *unread_example;
    pc_dump_impl *impl; /* private */
} pc_dump;

/* Reads dump.json at path. Errors (*out untouched): PC_ERR_NOT_FOUND / PC_ERR_IO (cannot
 * read), PC_ERR_FORMAT (malformed JSON with line:column, and msprobe's whole-file errors
 * above), PC_ERR_NOMEM. */
pc_status pc_dump_open(pc_dump **out, const char *path);

/* The same over bytes in memory (not copied, not needed after it returns); path is used in
 * messages and kept. */
pc_status pc_dump_parse(pc_dump **out, const char *data, size_t size, const char *path);

void pc_dump_free(pc_dump *dump); /* NULL is fine */

/* The api of a stripped forward name ("Torch.matmul.12"), NULL when there is none. O(1). */
const pc_dump_api *pc_dump_find(const pc_dump *dump, const char *full_name);

/* msprobe's character check on a name (Const.STRING_BLACKLIST). PC_OK, or PC_ERR_INVALID with
 * msprobe's message "api name contains special characters, please check!". */
pc_status pc_dump_check_name(const char *full_name);
bool pc_dump_name_is_unsafe(const char *full_name);

/*
 * Checks, before data is made for it, that the tensor of arg can be allocated: a shape is
 * present, no dimension is negative, at most PC_TENSOR_MAX_DIMS dimensions, the element count
 * and byte size do not overflow, and the byte size is at most max_bytes (0: the core limit
 * PC_TENSOR_MAX_BYTES). On failure: PC_ERR_INVALID / PC_ERR_UNSUPPORTED / PC_ERR_RANGE with a
 * message naming the API and the argument, e.g. "Functional.linear.0: input_args[0]: tensor
 * of shape [1000000, 1000000000] (torch.float32) has 1000000000000000 elements, 4000000000000000
 * bytes, more than the limit of 281474976710656 bytes". numel and nbytes may be NULL.
 * api may be NULL (no name in the message); arg must be a TENSOR argument reachable from api
 * (for the message's path) or any tensor argument when api is NULL.
 */
pc_status pc_dump_tensor_check(const pc_dump_api *api, const pc_dump_arg *arg, size_t max_bytes,
                               int64_t *numel, size_t *nbytes);

/* Writes where arg sits in api, e.g. "input_args[0][1]", "input_kwargs[\"weight\"]",
 * "output[0]", "backward input[0]" ("?" when it is not found), snprintf-style: returns the
 * whole length. */
int pc_dump_arg_path(const pc_dump_api *api, const pc_dump_arg *arg, char *buf, size_t size);

/* "null", "list", "object", "torch.Tensor", "int", ... for messages. */
const char *pc_dump_arg_kind_name(pc_dump_arg_kind kind);

#endif
