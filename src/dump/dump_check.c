#include "dump/dump_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "precheck/core/strbuf.h"
#include "precheck/core/tensor.h"
#include "precheck/io/csv.h"

/* ---- msprobe's character check (Const.STRING_BLACKLIST): the rule for a value a spreadsheet
 * would run, which io/csv.h states once (pc_csv_formula_like) ---- */

bool pc_dump_name_is_unsafe(const char *name)
{
    return name && pc_csv_formula_like(name);
}

pc_status pc_dump_check_name(const char *full_name)
{
    if (pc_dump_name_is_unsafe(full_name))
        return pc_error_set(PC_ERR_INVALID, "api name contains special characters, please check!");
    return PC_OK;
}

/* ---- small accessors ---- */

const char *pc_dump_tensor_file(const pc_dump_tensor *t)
{
    if (!t)
        return NULL;
    return t->datapath ? t->datapath : t->data_name;
}

bool pc_dump_value_is_number(const pc_dump_value *v)
{
    return v && (v->kind == PC_DUMP_VALUE_BOOL || v->kind == PC_DUMP_VALUE_INT ||
                 v->kind == PC_DUMP_VALUE_FLOAT);
}

double pc_dump_value_as_double(const pc_dump_value *v)
{
    if (!v)
        return (double)NAN;
    switch (v->kind) {
    case PC_DUMP_VALUE_BOOL:
        return v->u.b ? 1.0 : 0.0;
    case PC_DUMP_VALUE_INT:
        return (double)v->u.i;
    case PC_DUMP_VALUE_FLOAT:
        return v->u.f;
    default:
        return (double)NAN;
    }
}

static const char *const kind_names[PC_DUMP_ARG_KIND_COUNT] = {
    [PC_DUMP_ARG_ABSENT] = "absent",
    [PC_DUMP_ARG_NULL] = "null",
    [PC_DUMP_ARG_LIST] = "list",
    [PC_DUMP_ARG_OBJECT] = "object",
    [PC_DUMP_ARG_TENSOR] = "torch.Tensor",
    [PC_DUMP_ARG_INT] = "int",
    [PC_DUMP_ARG_FLOAT] = "float",
    [PC_DUMP_ARG_BOOL] = "bool",
    [PC_DUMP_ARG_STR] = "str",
    [PC_DUMP_ARG_SLICE] = "slice",
    [PC_DUMP_ARG_ELLIPSIS] = "ellipsis",
    [PC_DUMP_ARG_SIZE] = "torch.Size",
    [PC_DUMP_ARG_DTYPE] = "torch.dtype",
    [PC_DUMP_ARG_DEVICE] = "torch.device",
    [PC_DUMP_ARG_NUMPY] = "numpy scalar",
    [PC_DUMP_ARG_OTHER] = "other",
    [PC_DUMP_ARG_RAW] = "bare value",
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == PC_DUMP_ARG_KIND_COUNT,
               "a name per argument kind");

const char *pc_dump_arg_kind_name(pc_dump_arg_kind kind)
{
    if ((unsigned)kind >= PC_DUMP_ARG_KIND_COUNT || !kind_names[kind])
        return "unknown";
    return kind_names[kind];
}

/* ---- where an argument sits ---- */

/* The path is built in a pc_strbuf on a fixed buffer, cut at PATH_MAX_TEXT bytes. */
enum { PATH_MAX_TEXT = 511 };

/* Appends; returns the length before, for path_truncate. fmt has one %s. */
static size_t path_append(pc_strbuf *p, const char *fmt, const char *s)
{
    size_t old = pc_strbuf_len(p);
    pc_strbuf_printf(p, fmt, s ? s : "");
    return old;
}

static size_t path_append_index(pc_strbuf *p, size_t i)
{
    size_t old = pc_strbuf_len(p);
    pc_strbuf_printf(p, "[%zu]", i);
    return old;
}

static bool find_arg(const pc_dump_arg *root, const pc_dump_arg *target, pc_strbuf *p, int depth)
{
    if (root == target)
        return true;
    if (depth > PC_DUMP_MAX_ARG_DEPTH + 1)
        return false;
    if (root->kind == PC_DUMP_ARG_LIST) {
        for (size_t i = 0; i < root->u.list.count; i++) {
            size_t old = path_append_index(p, i);
            if (find_arg(&root->u.list.items[i], target, p, depth + 1))
                return true;
            pc_strbuf_truncate(p, old);
        }
    } else if (root->kind == PC_DUMP_ARG_OBJECT) {
        for (size_t i = 0; i < root->u.object.count; i++) {
            size_t old = path_append(p, ".%s", root->u.object.fields[i].key);
            if (find_arg(&root->u.object.fields[i].value, target, p, depth + 1))
                return true;
            pc_strbuf_truncate(p, old);
        }
    }
    return false;
}

static bool find_in_entry(const pc_dump_entry *e, const pc_dump_arg *target, pc_strbuf *p,
                          const char *prefix)
{
    struct {
        const char *name;
        const pc_dump_arg *arg;
    } roots[] = {{"input_args", &e->input_args}, {"output", &e->output}, {"input", &e->input}};
    for (size_t r = 0; r < sizeof roots / sizeof roots[0]; r++) {
        size_t old = path_append(p, "%s", prefix);
        path_append(p, "%s", roots[r].name);
        if (find_arg(roots[r].arg, target, p, 0))
            return true;
        pc_strbuf_truncate(p, old);
    }
    for (size_t i = 0; i < e->kwarg_count; i++) {
        size_t old = path_append(p, "%s", prefix);
        path_append(p, "input_kwargs[\"%s\"]", e->kwargs[i].key);
        if (find_arg(&e->kwargs[i].value, target, p, 0))
            return true;
        pc_strbuf_truncate(p, old);
    }
    return false;
}

int pc_dump_arg_path(const pc_dump_api *api, const pc_dump_arg *arg, char *buf, size_t size)
{
    char text[PATH_MAX_TEXT + 1];
    pc_strbuf p;
    pc_strbuf_init(&p, text, sizeof text, PATH_MAX_TEXT);
    bool found = api && arg &&
                 (find_in_entry(&api->forward, arg, &p, "") ||
                  (api->backward && find_in_entry(api->backward, arg, &p, "backward ")));
    return snprintf(buf, size, "%s", found ? pc_strbuf_str(&p) : "?");
}

/* ---- shapes, checked where data is made ---- */

pc_status pc_dump_tensor_check(const pc_dump_api *api, const pc_dump_arg *arg, size_t max_bytes,
                               int64_t *numel, size_t *nbytes)
{
    char where[600];
    if (api) {
        char path[520];
        pc_dump_arg_path(api, arg, path, sizeof path);
        snprintf(where, sizeof where, "%s: %s", api->full_name, path);
    } else {
        snprintf(where, sizeof where, "tensor argument");
    }
    if (!arg || arg->kind != PC_DUMP_ARG_TENSOR || !arg->u.tensor)
        return pc_error_set(PC_ERR_INVALID, "%s: not a tensor record", where);
    const pc_dump_tensor *t = arg->u.tensor;
    if (!t->has_shape)
        return pc_error_set(PC_ERR_INVALID, "%s: the tensor record has no valid \"shape\"", where);
    if (t->rank > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: a tensor of %lld dimensions, more than the %d precheck supports",
                            where, (long long)t->rank, PC_TENSOR_MAX_DIMS);
    int64_t count;
    size_t bytes;
    if (t->dtype == PC_DTYPE_INVALID) {
        /* An unknown dtype (HiFloat8, ...; what is done with it is the caller's business):
         * the shape alone, one byte an element. */
        char shape[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(shape, sizeof shape, t->shape, (int)t->rank);
        count = 1;
        bool empty = false;
        for (int64_t i = 0; i < t->rank; i++) {
            if (t->shape[i] < 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: tensor of shape %s (%s) has a negative dimension %lld",
                                    where, shape, t->dtype_name ? t->dtype_name : "no dtype",
                                    (long long)t->shape[i]);
            if (t->shape[i] == 0)
                empty = true;
            else if (__builtin_mul_overflow(count, t->shape[i], &count))
                return pc_error_set(PC_ERR_RANGE,
                                    "%s: tensor of shape %s (%s) has more elements than fit in "
                                    "64 bits",
                                    where, shape, t->dtype_name ? t->dtype_name : "no dtype");
        }
        if (empty)
            count = 0;
        bytes = (size_t)count;
        if ((uint64_t)count > (uint64_t)PC_TENSOR_MAX_BYTES && !max_bytes)
            max_bytes = (size_t)PC_TENSOR_MAX_BYTES;
    } else {
        pc_status st = pc_tensor_check_shape(t->dtype, t->shape, (int)t->rank, &count, &bytes);
        if (st)
            return pc_error_prefix(st, "%s", where);
    }
    if (max_bytes && bytes > max_bytes) {
        char shape[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(shape, sizeof shape, t->shape, (int)t->rank);
        return pc_error_set(PC_ERR_RANGE,
                            "%s: a tensor of shape %s (%s) has %lld elements, %zu bytes, more "
                            "than the limit of %zu bytes",
                            where, shape, t->dtype_name ? t->dtype_name : "no dtype",
                            (long long)count, bytes, max_bytes);
    }
    if (numel)
        *numel = count;
    if (nbytes)
        *nbytes = bytes;
    return PC_OK;
}
