/* The binder: dump argument trees -> values typed by the op's schema (rules in
 * precheck/inputs/bind.h). */
#include "precheck/inputs/bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/status.h"
#include "precheck/ops/schema.h"

static const char *found_name(const pc_dump_arg *a)
{
    if (a->kind == PC_DUMP_ARG_RAW) {
        switch (a->value.kind) {
        case PC_DUMP_VALUE_INT:
            return "int";
        case PC_DUMP_VALUE_FLOAT:
            return "float";
        case PC_DUMP_VALUE_BOOL:
            return "bool";
        case PC_DUMP_VALUE_STR:
            return "str";
        default:
            return "raw value";
        }
    }
    if (a->kind == PC_DUMP_ARG_NULL)
        return "None";
    return pc_dump_arg_kind_name(a->kind);
}

static pc_status mismatch(const pc_op_call *call, const pc_schema_arg *sa, const char *expected,
                          const pc_dump_arg *a)
{
    return pc_error_set(PC_ERR_INVALID, "%s: argument '%s': expected %s, found %s", call->full_name,
                        sa->name, expected, found_name(a));
}

/* A Python number from a record (int, float, bool records and numpy scalars). */
static bool number_of(const pc_dump_arg *a, pc_value *v)
{
    const pc_dump_value *x = &a->value;
    switch (a->kind) {
    case PC_DUMP_ARG_INT:
        if (x->kind != PC_DUMP_VALUE_INT)
            return false;
        v->kind = PC_VALUE_INT;
        v->i = x->u.i;
        v->f = (double)x->u.i;
        return true;
    case PC_DUMP_ARG_FLOAT:
        if (x->kind != PC_DUMP_VALUE_FLOAT && x->kind != PC_DUMP_VALUE_INT)
            return false;
        v->kind = PC_VALUE_FLOAT;
        v->f = pc_dump_value_as_double(x);
        return true;
    case PC_DUMP_ARG_BOOL:
        if (x->kind != PC_DUMP_VALUE_BOOL)
            return false;
        v->kind = PC_VALUE_BOOL;
        v->b = x->u.b;
        v->i = x->u.b;
        v->f = x->u.b;
        return true;
    default:
        return false;
    }
}

static pc_status wrap_number(pc_value *v)
{
    pc_dtype d = v->kind == PC_VALUE_INT    ? PC_DTYPE_I64
                 : v->kind == PC_VALUE_BOOL ? PC_DTYPE_BOOL
                                            : PC_DTYPE_F64;
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&t, d, NULL, 0);
    if (st != PC_OK)
        return st;
    if (d == PC_DTYPE_I64)
        *(int64_t *)pc_tensor_data(&t) = v->i;
    else
        pc_tensor_fill(&t, v->f);
    v->kind = PC_VALUE_TENSOR;
    v->wrapped = true;
    v->tensor = t;
    return PC_OK;
}

static pc_status bind_tensor(const pc_op_call *call, const pc_dump_api *api,
                             const pc_schema_arg *sa, const pc_dump_arg *a,
                             pc_tensor_provider provider, void *ctx, pc_tensor *out, bool *rg)
{
    if (a->kind != PC_DUMP_ARG_TENSOR)
        return mismatch(call, sa, "Tensor", a);
    if (a->error)
        return pc_error_set(PC_ERR_INVALID, "%s: argument '%s': %s", call->full_name, sa->name,
                            a->error);
    pc_status st = provider(ctx, api, a, out);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s: argument '%s'", call->full_name, sa->name);
    *rg = a->u.tensor->requires_grad;
    return PC_OK;
}

/* ---- Index (Tensor.__getitem__) ---- */

static bool is_int_or_bool(const pc_dump_arg *e)
{
    return (e->kind == PC_DUMP_ARG_INT && e->value.kind == PC_DUMP_VALUE_INT) ||
           (e->kind == PC_DUMP_ARG_BOOL && e->value.kind == PC_DUMP_VALUE_BOOL);
}

/* torch reads a list of only ints and bools as one index tensor (its treatSequenceAsTuple):
 * int64, or bool when every item is a bool. */
static pc_status index_list_tensor(const pc_op_call *call, const pc_schema_arg *sa,
                                   const pc_dump_arg *a, pc_tensor *out)
{
    size_t n = a->u.list.count;
    bool all_bool = n > 0;
    for (size_t k = 0; k < n; k++) {
        const pc_dump_arg *e = &a->u.list.items[k];
        if (!is_int_or_bool(e))
            return pc_error_set(PC_ERR_UNSUPPORTED,
                                "%s: argument '%s': a list inside an index must hold ints and "
                                "bools only, found %s at position %zu",
                                call->full_name, sa->name, found_name(e), k);
        all_bool = all_bool && e->kind == PC_DUMP_ARG_BOOL;
    }
    int64_t shape[1] = {(int64_t)n};
    pc_status st = pc_tensor_alloc(out, all_bool ? PC_DTYPE_BOOL : PC_DTYPE_I64, shape, 1);
    if (st != PC_OK)
        return st;
    for (size_t k = 0; k < n; k++) {
        const pc_dump_arg *e = &a->u.list.items[k];
        int64_t x = e->kind == PC_DUMP_ARG_BOOL ? (int64_t)e->value.u.b : e->value.u.i;
        if (all_bool)
            ((uint8_t *)pc_tensor_data(out))[k] = (uint8_t)x;
        else
            ((int64_t *)pc_tensor_data(out))[k] = x;
    }
    return PC_OK;
}

/* Adds the tensor of one tensor record (or of a list of ints) to v->tensors and an item. */
static pc_status index_add_tensor(pc_op_call *call, const pc_dump_api *api, const pc_schema_arg *sa,
                                  const pc_dump_arg *a, pc_tensor_provider provider, void *ctx,
                                  pc_value *v)
{
    int k = v->tensors.count;
    pc_index_item *it = &v->index.items[v->index.count];
    pc_status st;
    v->tensors.items[k] = PC_TENSOR_NULL;
    if (a->kind == PC_DUMP_ARG_LIST) {
        st = index_list_tensor(call, sa, a, &v->tensors.items[k]);
    } else {
        bool rg = false;
        st = bind_tensor(call, api, sa, a, provider, ctx, &v->tensors.items[k], &rg);
    }
    if (st != PC_OK)
        return st;
    v->tensors.count = k + 1;
    it->kind = PC_INDEX_TENSOR;
    it->i = k;
    v->index.count++;
    return PC_OK;
}

static pc_status index_add_item(pc_op_call *call, const pc_dump_api *api, const pc_schema_arg *sa,
                                const pc_dump_arg *a, pc_tensor_provider provider, void *ctx,
                                pc_value *v)
{
    pc_index_item *it = &v->index.items[v->index.count];
    memset(it, 0, sizeof *it);
    switch (a->kind) {
    case PC_DUMP_ARG_TENSOR:
    case PC_DUMP_ARG_LIST:
        return index_add_tensor(call, api, sa, a, provider, ctx, v);
    case PC_DUMP_ARG_INT:
        if (a->value.kind != PC_DUMP_VALUE_INT)
            break;
        it->kind = PC_INDEX_INT;
        it->i = a->value.u.i;
        v->index.count++;
        return PC_OK;
    case PC_DUMP_ARG_BOOL:
        if (a->value.kind != PC_DUMP_VALUE_BOOL)
            break;
        it->kind = PC_INDEX_BOOL;
        it->i = a->value.u.b;
        v->index.count++;
        return PC_OK;
    case PC_DUMP_ARG_NULL:
        it->kind = PC_INDEX_NONE;
        v->index.count++;
        return PC_OK;
    case PC_DUMP_ARG_ELLIPSIS:
        it->kind = PC_INDEX_ELLIPSIS;
        v->index.count++;
        return PC_OK;
    case PC_DUMP_ARG_SLICE:
        it->kind = PC_INDEX_SLICE;
        it->start = a->u.slice.start;
        it->stop = a->u.slice.stop;
        it->step = a->u.slice.step;
        it->has_start = a->u.slice.has_start;
        it->has_stop = a->u.slice.has_stop;
        it->has_step = a->u.slice.has_step;
        v->index.count++;
        return PC_OK;
    default:
        break;
    }
    if (a->error)
        return pc_error_set(PC_ERR_INVALID, "%s: argument '%s': %s", call->full_name, sa->name,
                            a->error);
    return mismatch(call, sa, "an index (int, bool, None, slice, ellipsis, tensor or a list)", a);
}

static pc_status bind_index(pc_op_call *call, const pc_dump_api *api, const pc_schema_arg *sa,
                            const pc_dump_arg *a, pc_tensor_provider provider, void *ctx,
                            pc_value *v)
{
    size_t n = a->kind == PC_DUMP_ARG_LIST ? a->u.list.count : 1;
    bool one_tensor = a->kind != PC_DUMP_ARG_LIST;
    if (a->kind == PC_DUMP_ARG_LIST) { /* a tuple, unless it holds only ints and bools */
        one_tensor = true;
        for (size_t k = 0; k < n; k++)
            one_tensor = one_tensor && is_int_or_bool(&a->u.list.items[k]);
    }
    if (n > PC_VALUE_MAX_INDEX && !one_tensor)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: argument '%s': an index of %zu items, more "
                            "than %d",
                            call->full_name, sa->name, n, PC_VALUE_MAX_INDEX);
    v->kind = PC_VALUE_INDEX;
    v->tensors.items = calloc(one_tensor ? 1 : (n ? n : 1), sizeof(pc_tensor));
    if (!v->tensors.items)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    v->index.lone_tensor = a->kind == PC_DUMP_ARG_TENSOR;
    if (one_tensor)
        return index_add_item(call, api, sa, a, provider, ctx, v);
    for (size_t k = 0; k < n; k++) {
        pc_status st = index_add_item(call, api, sa, &a->u.list.items[k], provider, ctx, v);
        if (st != PC_OK)
            return st;
    }
    return PC_OK;
}

/* How an argument was given: by position, by its keyword name, by its second keyword name
 * (schema.h's `Type name|Type2 name2`). */
typedef enum bind_how { BIND_POSITIONAL, BIND_KEYWORD, BIND_ALT_KEYWORD } bind_how;

/* A 0-dim tensor given where torch wants a Scalar (torch's Python binding takes one that does
 * not require grad) as the number it holds: an int64, float64 or bool value. */
static pc_status tensor_as_number(const pc_op_call *call, const pc_schema_arg *sa,
                                  const pc_dump_arg *a, const pc_tensor *t, pc_value *v)
{
    if (t->rank != 0)
        return mismatch(call, sa, "Scalar (a number or a 0-dim tensor)", a);
    pc_dtype as = t->dtype == PC_DTYPE_BOOL        ? PC_DTYPE_BOOL
                  : pc_dtype_is_integral(t->dtype) ? PC_DTYPE_I64
                                                   : PC_DTYPE_F64;
    if (pc_dtype_is_complex(t->dtype))
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: argument '%s': a complex Scalar is not supported", call->full_name,
                            sa->name);
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&c, t, as);
    if (st != PC_OK)
        return st;
    if (as == PC_DTYPE_I64) {
        v->kind = PC_VALUE_INT;
        v->i = *(const int64_t *)pc_tensor_data(&c);
        v->f = (double)v->i;
    } else if (as == PC_DTYPE_BOOL) {
        v->kind = PC_VALUE_BOOL;
        v->b = *(const uint8_t *)pc_tensor_data(&c) != 0;
        v->i = v->b;
        v->f = v->b;
    } else {
        v->kind = PC_VALUE_FLOAT;
        v->f = *(const double *)pc_tensor_data(&c);
    }
    pc_tensor_free(&c);
    return PC_OK;
}

/* An argument given by its second keyword name: bound as its alt_type. A Scalar for a Tensor
 * argument (torch.scatter's value=) becomes a wrapped number, as a number given by position
 * does. */
static pc_status bind_alt(pc_op_call *call, const pc_dump_api *api, int idx, const pc_dump_arg *a,
                          pc_tensor_provider provider, void *ctx)
{
    const pc_schema_arg *sa = &call->op->schema->args[idx];
    pc_value *v = &call->args[idx];
    if (sa->type != PC_ARG_TENSOR || sa->alt_type != PC_ARG_SCALAR) /* the one form needed */
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: argument '%s': a %s given for a %s argument is not supported",
                            call->full_name, sa->alt_name, pc_arg_type_name(sa->alt_type),
                            pc_arg_type_name(sa->type));
    pc_schema_arg alt = *sa; /* for messages: the name the dump used */
    memcpy(alt.name, sa->alt_name, sizeof alt.name);
    pc_value num = {0};
    if (a->kind == PC_DUMP_ARG_TENSOR) {
        pc_tensor t = PC_TENSOR_NULL;
        bool rg = false;
        pc_status st = bind_tensor(call, api, &alt, a, provider, ctx, &t, &rg);
        if (st == PC_OK && rg) /* torch's Python binding takes no tensor that requires grad */
            st = mismatch(call, &alt, "Scalar (a tensor that requires grad is not one)", a);
        if (st == PC_OK)
            st = tensor_as_number(call, &alt, a, &t, &num);
        pc_tensor_free(&t);
        if (st != PC_OK)
            return st;
    } else if (!number_of(a, &num)) {
        return mismatch(call, &alt, "Scalar", a);
    }
    int pos = v->src_pos;
    *v = num;
    v->src_pos = pos;
    return wrap_number(v);
}

static pc_status bind_one(pc_op_call *call, const pc_dump_api *api, int idx, const pc_dump_arg *a,
                          pc_tensor_provider provider, void *ctx, bind_how how)
{
    const pc_schema_arg *sa = &call->op->schema->args[idx];
    pc_value *v = &call->args[idx];
    if (how == BIND_ALT_KEYWORD)
        return bind_alt(call, api, idx, a, provider, ctx);
    if (sa->type == PC_ARG_INDEX)
        return bind_index(call, api, sa, a, provider, ctx, v);
    /* `str|Type`: a str binds as a str (torch.norm's p='fro') */
    if (sa->or_str && a->kind == PC_DUMP_ARG_STR && a->value.kind == PC_DUMP_VALUE_STR) {
        v->kind = PC_VALUE_STR;
        v->s = a->value.u.s;
        return PC_OK;
    }
    if (a->kind == PC_DUMP_ARG_NULL) {
        if (!sa->optional && sa->type != PC_ARG_DEVICE && sa->type != PC_ARG_LAYOUT &&
            sa->type != PC_ARG_MEMORY_FORMAT && sa->type != PC_ARG_GENERATOR)
            return mismatch(call, sa, pc_arg_type_name(sa->type), a);
        v->kind = PC_VALUE_NONE;
        return PC_OK;
    }
    if (sa->is_list) {
        if (sa->type == PC_ARG_TENSOR) {
            if (a->kind != PC_DUMP_ARG_LIST)
                return mismatch(call, sa, "Tensor[]", a);
            size_t n = a->u.list.count;
            if (n > PC_VALUE_MAX_TENSORS)
                return pc_error_set(PC_ERR_UNSUPPORTED,
                                    "%s: argument '%s': %zu tensors, more "
                                    "than %d",
                                    call->full_name, sa->name, n, PC_VALUE_MAX_TENSORS);
            v->tensors.items = calloc(n ? n : 1, sizeof(pc_tensor));
            if (!v->tensors.items)
                return pc_error_set(PC_ERR_NOMEM, "out of memory");
            v->kind = PC_VALUE_TENSOR_LIST;
            for (size_t k = 0; k < n; k++) {
                bool rg = false;
                v->tensors.items[k] = PC_TENSOR_NULL;
                pc_status st = bind_tensor(call, api, sa, &a->u.list.items[k], provider, ctx,
                                           &v->tensors.items[k], &rg);
                if (st != PC_OK)
                    return st;
                v->tensors.count = (int)k + 1;
            }
            return PC_OK;
        }
        if (sa->type != PC_ARG_INT)
            return pc_error_set(PC_ERR_UNSUPPORTED,
                                "%s: argument '%s': lists of %s are not "
                                "supported",
                                call->full_name, sa->name, pc_arg_type_name(sa->type));
        v->kind = PC_VALUE_INT_LIST;
        if (a->kind == PC_DUMP_ARG_INT && sa->list_size > 0) {
            for (int k = 0; k < sa->list_size; k++)
                v->ints[k] = a->value.u.i;
            v->nints = sa->list_size;
            return PC_OK;
        }
        if (a->kind == PC_DUMP_ARG_SIZE) {
            if (a->u.size.rank > PC_VALUE_MAX_INTS)
                return pc_error_set(PC_ERR_UNSUPPORTED, "%s: argument '%s': too many dimensions",
                                    call->full_name, sa->name);
            for (size_t k = 0; k < a->u.size.rank; k++)
                v->ints[k] = a->u.size.dims[k];
            v->nints = (int)a->u.size.rank;
            return PC_OK;
        }
        if (a->kind != PC_DUMP_ARG_LIST || a->u.list.count > PC_VALUE_MAX_INTS)
            return mismatch(call, sa, "int[]", a);
        for (size_t k = 0; k < a->u.list.count; k++) {
            const pc_dump_arg *e = &a->u.list.items[k];
            if (e->kind != PC_DUMP_ARG_INT || e->value.kind != PC_DUMP_VALUE_INT)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: argument '%s': expected int[], found "
                                    "%s at position %zu",
                                    call->full_name, sa->name, found_name(e), k);
            v->ints[k] = e->value.u.i;
        }
        v->nints = (int)a->u.list.count;
        return PC_OK;
    }
    pc_value num = {0};
    switch (sa->type) {
    case PC_ARG_TENSOR: {
        /* a number where the op takes one (scalar_args), or where the argument's second keyword
         * name takes a Scalar; given by the tensor's own keyword name (scatter's src=), only a
         * tensor, as torch's overloads have it */
        bool numbers = (call->op->scalar_args >> idx & 1u) ||
                       (sa->alt_name[0] && sa->alt_type == PC_ARG_SCALAR);
        if (how == BIND_KEYWORD && sa->alt_name[0])
            numbers = false;
        if (a->kind != PC_DUMP_ARG_TENSOR && numbers && number_of(a, &num)) {
            int pos = v->src_pos;
            *v = num;
            v->src_pos = pos;
            return wrap_number(v);
        }
        v->kind = PC_VALUE_TENSOR;
        return bind_tensor(call, api, sa, a, provider, ctx, &v->tensor, &v->requires_grad);
    }
    case PC_ARG_INT:
        if (a->kind != PC_DUMP_ARG_INT || !number_of(a, v))
            return mismatch(call, sa, "int", a);
        return PC_OK;
    case PC_ARG_FLOAT:
        if ((a->kind != PC_DUMP_ARG_FLOAT && a->kind != PC_DUMP_ARG_INT) || !number_of(a, v))
            return mismatch(call, sa, "float", a);
        v->kind = PC_VALUE_FLOAT;
        return PC_OK;
    case PC_ARG_BOOL:
        if (a->kind != PC_DUMP_ARG_BOOL || !number_of(a, v))
            return mismatch(call, sa, "bool", a);
        return PC_OK;
    case PC_ARG_SCALAR:
        if (!number_of(a, v))
            return mismatch(call, sa, "Scalar", a);
        return PC_OK;
    case PC_ARG_STR:
        if (a->kind != PC_DUMP_ARG_STR || a->value.kind != PC_DUMP_VALUE_STR)
            return mismatch(call, sa, "str", a);
        v->kind = PC_VALUE_STR;
        v->s = a->value.u.s;
        return PC_OK;
    case PC_ARG_SCALAR_TYPE:
        if (a->kind != PC_DUMP_ARG_DTYPE)
            return mismatch(call, sa, "torch.dtype", a);
        if (a->u.dtype == PC_DTYPE_INVALID)
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: argument '%s': unknown dtype %s",
                                call->full_name, sa->name,
                                a->value.kind == PC_DUMP_VALUE_STR ? a->value.u.s : "?");
        v->kind = PC_VALUE_DTYPE;
        v->dtype = a->u.dtype;
        return PC_OK;
    case PC_ARG_DEVICE:
    case PC_ARG_LAYOUT:
    case PC_ARG_MEMORY_FORMAT:
    case PC_ARG_GENERATOR:
        v->kind = PC_VALUE_IGNORED;
        return PC_OK;
    default:
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: argument '%s': type %s is not supported",
                            call->full_name, sa->name, pc_arg_type_name(sa->type));
    }
}

static void set_default(pc_value *v, const pc_schema_arg *sa)
{
    const pc_schema_default *d = &sa->def;
    switch (d->kind) {
    case PC_DEFAULT_NULL:
        v->kind = PC_VALUE_NONE;
        break;
    case PC_DEFAULT_BOOL:
        v->kind = PC_VALUE_BOOL;
        v->b = d->b;
        v->i = d->b;
        v->f = d->b;
        break;
    case PC_DEFAULT_INT:
        v->kind = sa->type == PC_ARG_FLOAT ? PC_VALUE_FLOAT : PC_VALUE_INT;
        v->i = d->i;
        v->f = (double)d->i;
        if (sa->is_list) {
            v->kind = PC_VALUE_INT_LIST;
            v->nints = sa->list_size;
            for (int k = 0; k < sa->list_size; k++)
                v->ints[k] = d->i;
        }
        break;
    case PC_DEFAULT_FLOAT:
        v->kind = PC_VALUE_FLOAT;
        v->f = d->f;
        break;
    case PC_DEFAULT_STR:
        v->kind = PC_VALUE_STR;
        v->s = d->text;
        break;
    case PC_DEFAULT_LIST:
        v->kind = PC_VALUE_INT_LIST;
        v->nints = d->list_len;
        for (int k = 0; k < d->list_len; k++)
            v->ints[k] = (int64_t)d->list[k];
        break;
    default: /* identifiers (memory formats) */
        v->kind = PC_VALUE_IGNORED;
        break;
    }
}

/* Varargs int lists (shape-group fix): torch's Python binding lets a trailing unsized int[]
 * parameter take separate ints, x.view(2, 3) and x.permute(0, 2, 1), and the dump lists each
 * int as its own positional argument. The index of that parameter when the call does so, else
 * -1. */
static int int_varargs_start(const pc_schema *s, const pc_dump_arg *args)
{
    int j = s->npositional - 1;
    size_t n = args->kind == PC_DUMP_ARG_LIST ? args->u.list.count : 0;
    if (j < 0 || (size_t)j >= n || !s->args[j].is_list || s->args[j].type != PC_ARG_INT ||
        s->args[j].list_size != 0 || n - (size_t)j > PC_VALUE_MAX_INTS)
        return -1;
    for (size_t p = (size_t)j; p < n; p++)
        if (args->u.list.items[p].kind != PC_DUMP_ARG_INT ||
            args->u.list.items[p].value.kind != PC_DUMP_VALUE_INT)
            return -1;
    return j;
}

static void bind_int_varargs(pc_value *v, const pc_dump_arg *args, int start)
{
    v->kind = PC_VALUE_INT_LIST;
    v->src_pos = start;
    v->nints = (int)(args->u.list.count - (size_t)start);
    for (int k = 0; k < v->nints; k++)
        v->ints[k] = args->u.list.items[(size_t)start + (size_t)k].value.u.i;
}

pc_status pc_op_bind(const pc_dump_api *api, const pc_api_name *name, pc_tensor_provider provider,
                     void *ctx, pc_op_call *out)
{
    const pc_op *op = name->op;
    const pc_schema *s = op->schema;
    pc_op_call *call = malloc(sizeof *call);
    if (!call)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_op_call_init(call, op, name->form, api->full_name);
    bool given[PC_SCHEMA_MAX_ARGS] = {0};
    pc_status st = PC_OK;
    const pc_dump_entry *e = &api->forward;
    if (e->error) {
        st = pc_error_set(PC_ERR_INVALID, "%s: %s", api->full_name, e->error);
        goto fail;
    }
    size_t npos = e->input_args.kind == PC_DUMP_ARG_LIST ? e->input_args.u.list.count : 0;
    int varargs = int_varargs_start(s, &e->input_args);
    if (varargs >= 0) {
        bind_int_varargs(&call->args[varargs], &e->input_args, varargs);
        given[varargs] = true;
        npos = (size_t)varargs;
    }
    if (npos > (size_t)s->npositional) {
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: %s() takes %d positional arguments but %zu were "
                          "given",
                          api->full_name, s->name, s->npositional, npos);
        goto fail;
    }
    for (size_t p = 0; p < npos; p++) {
        int idx = (int)p;
        if (call->form == PC_FORM_SWAPPED && p < 2)
            idx = 1 - (int)p;
        call->args[idx].src_pos = (int)p;
        given[idx] = true;
        st = bind_one(call, api, idx, &e->input_args.u.list.items[p], provider, ctx,
                      BIND_POSITIONAL);
        if (st != PC_OK)
            goto fail;
    }
    for (size_t k = 0; k < e->kwarg_count; k++) {
        const pc_dump_field *f = &e->kwargs[k];
        int idx = pc_schema_find_arg(s, f->key);
        /* out=: the returned tensor is the value written to out; the comparison uses it */
        if (idx < 0 && strcmp(f->key, "out") == 0)
            continue;
        if (idx < 0) {
            st = pc_error_set(PC_ERR_UNSUPPORTED,
                              "%s: argument '%s' is not supported by "
                              "precheck's %s",
                              api->full_name, f->key, s->name);
            goto fail;
        }
        if (given[idx]) {
            st = pc_error_set(PC_ERR_INVALID, "%s: %s() got multiple values for argument '%s'",
                              api->full_name, s->name, f->key);
            goto fail;
        }
        given[idx] = true;
        bind_how how = strcmp(s->args[idx].name, f->key) == 0 ? BIND_KEYWORD : BIND_ALT_KEYWORD;
        st = bind_one(call, api, idx, &f->value, provider, ctx, how);
        if (st != PC_OK)
            goto fail;
    }
    for (int i = 0; i < s->nargs; i++) {
        if (given[i])
            continue;
        if (s->args[i].def.kind == PC_DEFAULT_NONE_GIVEN) {
            st = pc_error_set(PC_ERR_INVALID, "%s: %s() missing required argument '%s'",
                              api->full_name, s->name, s->args[i].name);
            goto fail;
        }
        set_default(&call->args[i], &s->args[i]);
    }
    *out = *call;
    free(call);
    return PC_OK;
fail:
    pc_op_call_free(call);
    free(call);
    return st;
}

pc_status pc_op_bind_overloads(const pc_dump_api *api, const pc_api_name *name,
                               pc_tensor_provider provider, void *ctx, pc_op_call *out,
                               const pc_api_name **used)
{
    pc_status st = pc_op_bind(api, name, provider, ctx, out);
    const pc_api_name *next = pc_api_lookup_next(name);
    if (st == PC_OK || st == PC_ERR_NOMEM || !next) {
        if (used)
            *used = name;
        return st;
    }
    char first[512];
    snprintf(first, sizeof first, "%s", pc_error_message());
    for (; next; next = pc_api_lookup_next(next))
        if (pc_op_bind(api, next, provider, ctx, out) == PC_OK) {
            if (used)
                *used = next;
            return PC_OK;
        }
    if (used)
        *used = name;
    return pc_error_set(st, "%s", first);
}
