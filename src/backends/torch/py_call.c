/*
 * One API through torch, as msprobe's run_ut calls it on its device
 * (docs/msprobe-contract.md#replay):
 *
 *   - the function: Functional.X -> torch.nn.functional.X, Torch.X -> torch.X (dotted names
 *     through the submodules), Tensor.X -> torch.Tensor.X with self first, NPU.X -> torch_npu.X;
 *   - the arguments rebuilt from the dump record as msprobe rebuilds them (gen_args /
 *     gen_kwargs): lists stay lists, None, slices, Ellipsis, torch.Size, numbers and strings as
 *     they are, a keyword torch.dtype as torch's dtype, the device keyword as the device under
 *     test; tensors are precheck's own (call->records: the bytes the bench sees);
 *   - a tensor that requires grad when a backward follows becomes msprobe's non-leaf copy
 *     (detach().requires_grad_() * 1), whose gradient is collected for the positional ones;
 *   - Tensor.__getitem__ with one tensor index and Tensor.__eq__ with None are adapted as
 *     msprobe's parameter_adapter does;
 *   - torch's autocast around the call when msprobe's rule asks for it (call->autocast);
 *   - torch's generator seeded per API from (seed, API name), so random ops (dropout) do not
 *     depend on which worker ran which API before (msprobe seeds once per process);
 *   - a torch exception is the API's error with torch's message (msprobe writes str(err)).
 *
 * NPU.X on a CPU or a GPU: msprobe runs its own CPU reference of the fused op there (a torch
 * composition); precheck runs its reference device's kernels for it (the same formulas in
 * float32 opmath), and says so once per op in the log.
 *
 * In-place forms (add_, __iadd__, __setitem__, out=, inplace=True, batch_norm's running
 * statistics) must not write precheck's inputs, which the bench shares: on the CPU their
 * tensors are cloned; on an accelerator every input is a copy already.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/clock.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/log.h"
#include "precheck/dump/dump.h"
#include "torch_impl.h"

/* ---- which APIs write their inputs ---- */

static const char *const inplace_dunders[] = {
    "__iadd__",    "__isub__",    "__imul__",    "__itruediv__", "__ifloordiv__",
    "__imod__",    "__ipow__",    "__iand__",    "__ior__",      "__ixor__",
    "__ilshift__", "__irshift__", "__imatmul__", "__idiv__",     "__setitem__",
};

static bool kwarg_true(const pc_dump_entry *e, const char *key)
{
    for (size_t i = 0; i < e->kwarg_count; i++)
        if (strcmp(e->kwargs[i].key, key) == 0) {
            const pc_dump_arg *v = &e->kwargs[i].value;
            return key[0] == 'o' || (v->kind == PC_DUMP_ARG_BOOL && v->value.u.b);
        }
    return false;
}

static bool writes_inputs(const pc_op_call *call)
{
    const char *n = call->api->api_name;
    size_t len = strlen(n);
    if (call->form == PC_FORM_INPLACE || (len > 1 && n[len - 1] == '_' && n[0] != '_'))
        return true;
    for (size_t i = 0; i < sizeof inplace_dunders / sizeof inplace_dunders[0]; i++)
        if (strcmp(n, inplace_dunders[i]) == 0)
            return true;
    return kwarg_true(&call->api->forward, "out") || kwarg_true(&call->api->forward, "inplace") ||
           strcmp(n, "batch_norm") == 0 || strcmp(n, "instance_norm") == 0 ||
           strncmp(n, "npu_apply_adam", 14) == 0;
}

/* ---- the arguments ---- */

typedef struct build {
    torch_state *s;
    const pc_op_call *call;
    bool clone; /* the API writes its inputs */
    bool grad;  /* a backward follows */
} build;

static PyObject *none_ref(void)
{
    Py_IncRef(Py_None);
    return Py_None;
}

/* A JSON value as Python's json gives it. */
static PyObject *py_value(const pc_dump_value *v)
{
    switch (v->kind) {
    case PC_DUMP_VALUE_BOOL:
        return PyBool_FromLong(v->u.b);
    case PC_DUMP_VALUE_INT:
        return PyLong_FromLongLong(v->u.i);
    case PC_DUMP_VALUE_FLOAT:
        return PyFloat_FromDouble(v->u.f);
    case PC_DUMP_VALUE_STR:
        return PyUnicode_FromStringAndSize(v->u.s, v->count);
    case PC_DUMP_VALUE_LIST: {
        PyObject *l = PyList_New(v->count);
        for (uint32_t i = 0; l && i < v->count; i++) {
            PyObject *item = py_value(&v->u.items[i]);
            if (!item) {
                Py_DecRef(l);
                return NULL;
            }
            PyList_SetItem(l, i, item);
        }
        return l;
    }
    case PC_DUMP_VALUE_OBJECT: {
        PyObject *d = PyDict_New();
        for (uint32_t i = 0; d && i < v->count; i++) {
            PyObject *item = py_value(&v->u.members[i].value);
            if (!item || PyDict_SetItemString(d, v->u.members[i].key, item) != 0) {
                Py_DecRef(item);
                Py_DecRef(d);
                return NULL;
            }
            Py_DecRef(item);
        }
        return d;
    }
    default:
        return none_ref();
    }
}

/* The record's tensor for the device: a copy on the device (or precheck's memory on the CPU,
 * cloned when the API writes it), and msprobe's non-leaf grad copy when it requires grad and a
 * backward follows (kept in grad_inputs when positional). */
static PyObject *tensor_arg(build *b, const pc_dump_arg *rec, bool may_grad, bool positional)
{
    torch_state *s = b->s;
    const pc_tensor *t = pc_op_call_record_tensor(b->call, rec);
    if (!t)
        return (pc_error_set(PC_ERR_INVALID, "torch backend: no tensor was made for a record"),
                NULL);
    bool rg = may_grad && b->grad && rec->u.tensor->requires_grad &&
              (pc_dtype_is_float(t->dtype) || pc_dtype_is_complex(t->dtype));
    PyObject *x = torch_tensor_in(s, t, b->clone && !rg);
    if (!x || !rg)
        return x;
    PyObject *leaf = torch_call_method(x, "detach", NULL);
    Py_DecRef(x);
    PyObject *req = leaf ? torch_call_method(leaf, "requires_grad_", NULL) : NULL;
    Py_DecRef(req);
    /* msprobe passes a non-leaf copy (x * 1), which an in-place API may write; any other API
     * gets the same gradient through the leaf itself, without copying a weight */
    PyObject *copy = NULL;
    if (req && b->clone) {
        PyObject *one = PyLong_FromLong(1);
        copy = one ? PyNumber_Multiply(leaf, one) : NULL;
        Py_DecRef(one);
        Py_DecRef(leaf);
    } else if (req) {
        copy = leaf;
    } else {
        Py_DecRef(leaf);
    }
    if (!copy) {
        torch_py_error("torch backend: making an input that requires grad");
        return NULL;
    }
    if (positional) {
        if (s->ngrad_inputs == s->grad_inputs_cap) {
            int cap = s->grad_inputs_cap ? 2 * s->grad_inputs_cap : 8;
            torch_grad_input *g = realloc(s->grad_inputs, (size_t)cap * sizeof *g);
            if (!g) {
                Py_DecRef(copy);
                return (pc_error_set(PC_ERR_NOMEM, "out of memory"), NULL);
            }
            s->grad_inputs = g;
            s->grad_inputs_cap = cap;
        }
        Py_IncRef(copy);
        s->grad_inputs[s->ngrad_inputs++] = (torch_grad_input){rec, copy};
    }
    return copy;
}

static PyObject *size_arg(build *b, const pc_dump_arg *rec)
{
    PyObject *l = PyList_New((Py_ssize_t)rec->u.size.rank);
    for (size_t i = 0; l && i < rec->u.size.rank; i++)
        PyList_SetItem(l, (Py_ssize_t)i, PyLong_FromLongLong(rec->u.size.dims[i]));
    PyObject *r = l ? PyObject_CallFunctionObjArgs(b->s->size_type, l, NULL) : NULL;
    Py_DecRef(l);
    return r;
}

static PyObject *opt_int(bool has, int64_t v)
{
    return has ? PyLong_FromLongLong(v) : none_ref();
}

/* A positional argument (msprobe's gen_args / gen_data). */
static PyObject *positional_arg(build *b, const pc_dump_arg *rec)
{
    switch (rec->kind) {
    case PC_DUMP_ARG_LIST: {
        PyObject *l = PyList_New((Py_ssize_t)rec->u.list.count);
        for (size_t i = 0; l && i < rec->u.list.count; i++) {
            PyObject *item = positional_arg(b, &rec->u.list.items[i]);
            if (!item) {
                Py_DecRef(l);
                return NULL;
            }
            PyList_SetItem(l, (Py_ssize_t)i, item);
        }
        return l;
    }
    case PC_DUMP_ARG_TENSOR:
        return tensor_arg(b, rec, true, true);
    case PC_DUMP_ARG_SIZE:
        return size_arg(b, rec);
    case PC_DUMP_ARG_SLICE: {
        PyObject *a = opt_int(rec->u.slice.has_start, rec->u.slice.start);
        PyObject *o = opt_int(rec->u.slice.has_stop, rec->u.slice.stop);
        PyObject *p = opt_int(rec->u.slice.has_step, rec->u.slice.step);
        PyObject *r = a && o && p ? PySlice_New(a, o, p) : NULL;
        Py_DecRef(a), Py_DecRef(o), Py_DecRef(p);
        return r;
    }
    case PC_DUMP_ARG_ELLIPSIS:
        Py_IncRef(Py_Ellipsis);
        return Py_Ellipsis;
    case PC_DUMP_ARG_OBJECT:
        return (pc_error_set(PC_ERR_INVALID, "'NoneType' object has no attribute 'startswith'"),
                NULL);
    case PC_DUMP_ARG_ABSENT:
    case PC_DUMP_ARG_NULL:
        return none_ref();
    default: /* numbers, strings, and dtypes/devices passed positionally: the raw "value" */
        return py_value(&rec->value);
    }
}

/* A keyword argument (msprobe's gen_kwargs and the device rule of run_torch_api). */
static PyObject *keyword_arg(build *b, const char *key, const pc_dump_arg *rec)
{
    torch_state *s = b->s;
    switch (rec->kind) {
    case PC_DUMP_ARG_LIST: {
        PyObject *l = PyList_New((Py_ssize_t)rec->u.list.count);
        for (size_t i = 0; l && i < rec->u.list.count; i++) {
            const pc_dump_arg *item = &rec->u.list.items[i];
            PyObject *v = item->kind == PC_DUMP_ARG_TENSOR ? tensor_arg(b, item, false, false)
                          : item->kind == PC_DUMP_ARG_SIZE ? size_arg(b, item)
                          : item->kind == PC_DUMP_ARG_LIST || item->kind == PC_DUMP_ARG_NULL
                              ? (pc_error_set(PC_ERR_INVALID, "'%s' object has no attribute 'get'",
                                              item->kind == PC_DUMP_ARG_LIST ? "list" : "NoneType"),
                                 NULL)
                              : py_value(&item->value);
            if (!v) {
                Py_DecRef(l);
                return NULL;
            }
            PyList_SetItem(l, (Py_ssize_t)i, v);
        }
        return l;
    }
    case PC_DUMP_ARG_ABSENT:
    case PC_DUMP_ARG_NULL:
        return none_ref();
    case PC_DUMP_ARG_TENSOR:
        return tensor_arg(b, rec, true, false);
    case PC_DUMP_ARG_DTYPE: {
        PyObject *d = rec->u.dtype != PC_DTYPE_INVALID ? torch_dtype(s, rec->u.dtype) : NULL;
        if (!d)
            return (pc_error_set(PC_ERR_INVALID, "torch backend: dtype %s",
                                 rec->value.kind == PC_DUMP_VALUE_STR ? rec->value.u.s : "?"),
                    NULL);
        Py_IncRef(d);
        return d;
    }
    case PC_DUMP_ARG_DEVICE: {
        const pc_dump_value *v = &rec->value;
        bool truthy = (v->kind == PC_DUMP_VALUE_STR && v->count > 0) ||
                      (v->kind == PC_DUMP_VALUE_INT && v->u.i != 0) ||
                      (v->kind == PC_DUMP_VALUE_BOOL && v->u.b);
        if (strcmp(key, "device") == 0 && truthy) /* the device under test, bare */
            return PyUnicode_FromString(s->device_name);
        PyObject *d = PyDict_New(); /* msprobe passes the record itself: torch refuses it */
        PyObject *t = PyUnicode_FromString("torch.device"), *val = py_value(v);
        if (d && t && val) {
            PyDict_SetItemString(d, "type", t);
            PyDict_SetItemString(d, "value", val);
        }
        Py_DecRef(t), Py_DecRef(val);
        return d;
    }
    case PC_DUMP_ARG_OBJECT:
        return (pc_error_set(PC_ERR_INVALID, "'NoneType' object has no attribute 'startswith'"),
                NULL);
    default: /* numbers, strings, slices and sizes as raw lists, "...": the raw "value" */
        return py_value(&rec->value);
    }
}

/* ---- the function ---- */

static PyObject *function_of(torch_state *s, const pc_dump_api *api)
{
    PyObject *root = NULL;
    if (strcmp(api->api_type, "Functional") == 0)
        root = s->functional;
    else if (strcmp(api->api_type, "Torch") == 0)
        root = s->torch;
    else if (strcmp(api->api_type, "Tensor") == 0)
        root = s->tensor_type;
    else if (strcmp(api->api_type, "NPU") == 0)
        root = s->torch_npu;
    PyObject *f = root;
    Py_IncRef(f);
    char part[128];
    for (const char *p = api->api_name; f && *p;) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        PyObject *next = torch_attr(f, part);
        Py_DecRef(f);
        f = next;
        p += n + (p[n] == '.');
    }
    if (!f) {
        PyErr_Clear();
        pc_error_set(PC_ERR_INVALID, "'NoneType' object is not callable");
    }
    return f;
}

/* Tensor.__getitem__ with one tensor index (msprobe's parameter_adapter): a uint8 index is
 * read as bool; a bool index of self's shape is masked_select (bfloat16 via float32), another
 * bool index its nonzero() tuple; an integer index of 0 or 1 dimensions its list of values, of
 * 2 the stack of indexing by each row, of more the stack of indexing by each sub-tensor.
 * *handled false: not that case. */
static PyObject *adapted_getitem(build *b, PyObject *f, PyObject *args, bool *handled)
{
    torch_state *s = b->s;
    *handled = false;
    if (PyTuple_Size(args) != 2)
        return NULL;
    PyObject *self = PyTuple_GetItem(args, 0), *idx = PyTuple_GetItem(args, 1);
    if (PyObject_IsInstance(idx, s->tensor_type) != 1)
        return NULL;
    *handled = true;
    PyObject *dt = torch_attr(idx, "dtype");
    PyObject *r = NULL;
    Py_IncRef(idx);
    if (dt == torch_dtype(s, PC_DTYPE_U8)) {
        PyObject *bi = torch_call_method(idx, "bool", NULL);
        Py_DecRef(idx);
        idx = bi;
        Py_DecRef(dt);
        dt = idx ? torch_attr(idx, "dtype") : NULL;
    }
    if (!idx || !dt)
        goto out;
    if (dt == torch_dtype(s, PC_DTYPE_BOOL)) {
        PyObject *ss = torch_attr(self, "shape"), *is = torch_attr(idx, "shape");
        int same = ss && is ? PyObject_RichCompareBool(ss, is, Py_EQ) : -1;
        Py_DecRef(ss), Py_DecRef(is);
        if (same == 1) {
            PyObject *sdt = torch_attr(self, "dtype");
            bool bf16 = sdt == torch_dtype(s, PC_DTYPE_BF16);
            Py_DecRef(sdt);
            PyObject *x = bf16 ? torch_call_method(self, "to", torch_dtype(s, PC_DTYPE_F32), NULL)
                               : (Py_IncRef(self), self);
            PyObject *m = x ? torch_call_method(s->torch, "masked_select", x, idx, NULL) : NULL;
            Py_DecRef(x);
            r = m && bf16 ? torch_call_method(m, "to", torch_dtype(s, PC_DTYPE_BF16), NULL) : m;
            if (m && bf16)
                Py_DecRef(m);
        } else if (same == 0) {
            PyObject *nz = torch_attr(s->torch, "nonzero");
            PyObject *a = PyTuple_Pack(1, idx), *kw = Py_BuildValue("{s:O}", "as_tuple", Py_True);
            PyObject *t = nz && a && kw ? PyObject_Call(nz, a, kw) : NULL;
            r = t ? PyObject_CallFunctionObjArgs(f, self, t, NULL) : NULL;
            Py_DecRef(t), Py_DecRef(kw), Py_DecRef(a), Py_DecRef(nz);
        }
        goto out;
    }
    PyObject *shape = torch_attr(idx, "shape");
    Py_ssize_t nd = shape ? PySequence_Size(shape) : -1;
    Py_DecRef(shape);
    if (nd < 0)
        goto out;
    if (nd <= 1) {
        PyObject *l = torch_call_method(idx, "tolist", NULL);
        r = l ? PyObject_CallFunctionObjArgs(f, self, l, NULL) : NULL;
        Py_DecRef(l);
        goto out;
    }
    /* 2-D: self[row list] for each row; more: self[sub-tensor] for each sub-tensor */
    PyObject *rows = nd == 2 ? torch_call_method(idx, "tolist", NULL) : PySequence_List(idx);
    Py_ssize_t n = rows ? PySequence_Size(rows) : -1;
    PyObject *parts = n >= 0 ? PyList_New(n) : NULL;
    for (Py_ssize_t i = 0; parts && i < n; i++) {
        PyObject *row = PySequence_GetItem(rows, i);
        PyObject *v = row ? PyObject_CallFunctionObjArgs(f, self, row, NULL) : NULL;
        Py_DecRef(row);
        if (!v) {
            Py_DecRef(parts);
            parts = NULL;
            break;
        }
        PyList_SetItem(parts, i, v);
    }
    PyObject *zero = PyLong_FromLong(0);
    r = parts && zero ? torch_call_method(s->torch, "stack", parts, zero, NULL) : NULL;
    Py_DecRef(zero), Py_DecRef(parts), Py_DecRef(rows);
out:
    Py_DecRef(dt);
    Py_DecRef(idx);
    return r;
}

/* ---- results ---- */

static pc_status scalar_out(PyObject *o, pc_tensor *out)
{
    pc_dtype d = PyBool_Check(o) ? PC_DTYPE_BOOL : PyLong_Check(o) ? PC_DTYPE_I64 : PC_DTYPE_F64;
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&t, d, NULL, 0);
    if (st != PC_OK)
        return st;
    void *p = pc_tensor_data(&t);
    if (d == PC_DTYPE_BOOL) {
        *(uint8_t *)p = PyObject_IsTrue(o) == 1;
    } else if (d == PC_DTYPE_I64) {
        long long v = PyLong_AsLongLong(o);
        memcpy(p, &(int64_t){v}, sizeof(int64_t));
    } else {
        double v = PyFloat_AsDouble(o);
        memcpy(p, &v, sizeof v);
    }
    if (PyErr_Occurred()) {
        pc_tensor_free(&t);
        return torch_py_error("torch backend: reading a result");
    }
    *out = t;
    return PC_OK;
}

static pc_status item_out(torch_state *s, PyObject *o, pc_tensor *out)
{
    if (o == Py_None) {
        *out = PC_TENSOR_NULL; /* compared as None */
        return PC_OK;
    }
    if (PyObject_IsInstance(o, s->tensor_type) == 1)
        return torch_tensor_out(s, o, out);
    if (PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o))
        return scalar_out(o, out);
    char type[128] = "?";
    PyObject *t = PyObject_Type(o);
    torch_str(t, type, sizeof type);
    Py_DecRef(t);
    return pc_error_set(PC_ERR_UNSUPPORTED, "torch backend: a result of %s", type);
}

static pc_status result_out(torch_state *s, PyObject *o, pc_op_result *out)
{
    pc_op_result r = {0};
    pc_status st = PC_OK;
    if (o == Py_None) {
        r.count = 0;
    } else if (PyTuple_Check(o) || PyList_Check(o)) {
        Py_ssize_t n = PySequence_Size(o);
        if (n > PC_OP_MAX_OUTPUTS)
            return pc_error_set(PC_ERR_UNSUPPORTED, "torch backend: %zd results", (ssize_t)n);
        for (Py_ssize_t i = 0; i < n && st == PC_OK; i++) {
            PyObject *item = PySequence_GetItem(o, i);
            st = item ? item_out(s, item, &r.tensors[i]) : torch_py_error(NULL);
            Py_DecRef(item);
            r.count = (int)i + 1;
        }
    } else {
        st = item_out(s, o, &r.tensors[0]);
        r.count = 1;
    }
    if (st != PC_OK) {
        pc_op_result_free(&r);
        return st;
    }
    *out = r;
    return PC_OK;
}

/* ---- forward, backward ---- */

static void drop_last(torch_state *s)
{
    double t0 = pc_clock_seconds();
    Py_DecRef(s->last_out);
    s->last_out = NULL;
    for (int i = 0; i < s->ngrad_inputs; i++)
        Py_DecRef(s->grad_inputs[i].tensor);
    s->ngrad_inputs = 0;
    s->last_api = NULL;
    torch_process_stats.free_seconds += pc_clock_seconds() - t0;
}

static uint64_t api_seed(const pc_op_call *call)
{
    const char *name = call->full_name ? call->full_name : "";
    uint64_t h = pc_hash_fnv1a64_more(PC_HASH_FNV1A64_BASIS ^ call->seed, name, strlen(name));
    return h >> 1; /* torch takes seeds below 2^63 everywhere */
}

/* The call itself, inside autocast when msprobe's rule asks; *res a new reference. */
static pc_status run_call(build *b, PyObject *f, PyObject *args, PyObject *kwargs, PyObject **res)
{
    torch_state *s = b->s;
    const pc_op_call *call = b->call;
    PyObject *ctx = NULL;
    if (call->autocast) {
        PyObject *dt = torch_dtype(s, (pc_dtype)(call->autocast - 1));
        PyObject *kw = Py_BuildValue("{s:O}", "dtype", dt);
        if (s->device == TORCH_NPU) {
            PyObject *npu = torch_attr(s->torch_npu, "npu");
            PyObject *amp = npu ? torch_attr(npu, "amp") : NULL;
            PyObject *ac = amp ? torch_attr(amp, "autocast") : NULL;
            PyObject *none = PyTuple_New(0);
            ctx = ac && kw && none ? PyObject_Call(ac, none, kw) : NULL;
            Py_DecRef(none), Py_DecRef(ac), Py_DecRef(amp), Py_DecRef(npu);
        } else {
            PyObject *ac = torch_attr(s->torch, "autocast");
            PyObject *a = Py_BuildValue("(s)", s->device_name);
            ctx = ac && a && kw ? PyObject_Call(ac, a, kw) : NULL;
            Py_DecRef(a), Py_DecRef(ac);
        }
        Py_DecRef(kw);
        PyObject *entered = ctx ? torch_call_method(ctx, "__enter__", NULL) : NULL;
        Py_DecRef(entered);
        if (!entered) {
            Py_DecRef(ctx);
            return torch_py_error("torch backend: entering autocast");
        }
    }
    PyObject *r = NULL;
    bool handled = false;
    double t0 = pc_clock_seconds();
    if (strcmp(call->api->api_type, "Tensor") == 0 &&
        strcmp(call->api->api_name, "__getitem__") == 0)
        r = adapted_getitem(b, f, args, &handled);
    if (!handled && strcmp(call->api->api_type, "Tensor") == 0 &&
        strcmp(call->api->api_name, "__eq__") == 0 && PyTuple_Size(args) > 1 &&
        PyTuple_GetItem(args, 1) == Py_None) {
        handled = true;
        r = PyBool_FromLong(0);
    }
    if (!handled)
        r = PyObject_Call(f, args, kwargs);
    torch_process_stats.torch_seconds += pc_clock_seconds() - t0;
    pc_status st = r ? PC_OK : torch_py_error(NULL);
    if (ctx) {
        PyObject *ex = torch_call_method(ctx, "__exit__", Py_None, Py_None, Py_None, NULL);
        if (!ex && st == PC_OK)
            st = torch_py_error("torch backend: leaving autocast");
        PyErr_Clear();
        Py_DecRef(ex);
        Py_DecRef(ctx);
    }
    if (st != PC_OK) {
        Py_DecRef(r);
        return st;
    }
    *res = r;
    return PC_OK;
}

static pc_status forward_locked(torch_state *s, const pc_op_call *call, pc_op_result *out)
{
    const pc_dump_api *api = call->api;
    const pc_dump_entry *e = &api->forward;
    drop_last(s);
    PyObject *seed = PyLong_FromUnsignedLongLong(api_seed(call));
    PyObject *sr = seed ? torch_call_method(s->cpu_generator, "manual_seed", seed, NULL) : NULL;
    PyObject *sd = sr && s->device_seed_all
                       ? PyObject_CallFunctionObjArgs(s->device_seed_all, seed, NULL)
                       : (Py_IncRef(Py_None), Py_None);
    Py_DecRef(seed);
    Py_DecRef(sr);
    Py_DecRef(sd);
    if (!sr || !sd)
        return torch_py_error("torch backend: seeding torch's generator");

    /* clone: the API writes its inputs (on an accelerator only the grad copies matter, the
     * inputs being copies there already) */
    build b = {s, call, writes_inputs(call), call->needs_backward};
    PyObject *f = function_of(s, api);
    if (!f)
        return PC_ERR_INVALID;
    size_t n = e->input_args.kind == PC_DUMP_ARG_LIST ? e->input_args.u.list.count : 0;
    PyObject *args = PyTuple_New((Py_ssize_t)n);
    PyObject *kwargs = PyDict_New();
    pc_status st = args && kwargs ? PC_OK : torch_py_error(NULL);
    for (size_t i = 0; st == PC_OK && i < n; i++) {
        PyObject *a = positional_arg(&b, &e->input_args.u.list.items[i]);
        if (!a)
            st = PyErr_Occurred() ? torch_py_error(NULL) : PC_ERR_INVALID;
        else
            PyTuple_SetItem(args, (Py_ssize_t)i, a);
    }
    for (size_t i = 0; st == PC_OK && i < e->kwarg_count; i++) {
        PyObject *v = keyword_arg(&b, e->kwargs[i].key, &e->kwargs[i].value);
        if (!v || PyDict_SetItemString(kwargs, e->kwargs[i].key, v) != 0)
            st = PyErr_Occurred() ? torch_py_error(NULL) : PC_ERR_INVALID;
        Py_DecRef(v);
    }
    PyObject *r = NULL;
    if (st == PC_OK)
        st = run_call(&b, f, args, kwargs, &r);
    Py_DecRef(args);
    Py_DecRef(kwargs);
    Py_DecRef(f);
    if (st == PC_OK)
        st = result_out(s, r, out);
    if (st == PC_OK && call->needs_backward) {
        s->last_out = r; /* kept, with grad_inputs, for the backward */
        s->last_api = api;
    } else {
        Py_DecRef(r);
        drop_last(s);
    }
    return st;
}

/* NPU ops on a CPU or a GPU: precheck's reference device (see the top of this file). */
static bool npu_elsewhere(const torch_state *s, const pc_op_call *call)
{
    return s->device != TORCH_NPU && strcmp(call->api->api_type, "NPU") == 0;
}

static void say_npu_elsewhere(const pc_op_call *call)
{
    static char said[64][64];
    static int nsaid;
    for (int i = 0; i < nsaid; i++)
        if (strcmp(said[i], call->api->api_name) == 0)
            return;
    if (nsaid < 64)
        snprintf(said[nsaid++], sizeof said[0], "%s", call->api->api_name);
    pc_log_info("NPU.%s has no torch implementation off an Ascend NPU: precheck's reference "
                "device computes it (msprobe runs its own CPU reference of the op there)",
                call->api->api_name);
}

pc_status torch_forward(torch_state *s, const pc_op_call *call, pc_op_result *out)
{
    if (npu_elsewhere(s, call)) {
        say_npu_elsewhere(call);
        return pc_backend_cpu.forward(NULL, call, out);
    }
    pc_status st = torch_runtime_start(s);
    if (st != PC_OK)
        return st;
    double t0 = pc_clock_seconds();
    PyGILState_STATE g = PyGILState_Ensure();
    st = forward_locked(s, call, out);
    PyGILState_Release(g);
    torch_process_stats.bridge_seconds += pc_clock_seconds() - t0;
    torch_process_stats.calls++;
    return st;
}

/* The gradient collected for record, or NULL (borrowed from grads). */
static PyObject *grad_of(const torch_state *s, PyObject *grads, const pc_dump_arg *record)
{
    for (int i = 0; grads && i < s->ngrad_inputs; i++)
        if (s->grad_inputs[i].record == record)
            return PyTuple_GetItem(grads, i);
    return NULL;
}

/* The gradients of the positional tensors onto the call's arguments (pc_op_grads layout). */
static pc_status grads_out(torch_state *s, const pc_op_call *call, PyObject *grads,
                           pc_op_grads *out)
{
    const pc_dump_arg *in = &call->api->forward.input_args;
    size_t n = in->kind == PC_DUMP_ARG_LIST ? in->u.list.count : 0;
    pc_op_grads g = {0};
    pc_status st = PC_OK;
    for (size_t p = 0; p < n && st == PC_OK; p++) {
        int idx = -1;
        for (int i = 0; i < call->nargs; i++)
            if (call->args[i].src_pos == (int)p)
                idx = i;
        if (idx < 0)
            continue;
        const pc_value *v = &call->args[idx];
        const pc_dump_arg *rec = &in->u.list.items[p];
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped) {
            PyObject *gt = grad_of(s, grads, rec);
            if (gt && gt != Py_None)
                st = torch_tensor_out(s, gt, &g.grads[idx]);
        } else if (v->kind == PC_VALUE_TENSOR_LIST && rec->kind == PC_DUMP_ARG_LIST) {
            int count = (int)rec->u.list.count;
            g.lists[idx].items = calloc((size_t)(count ? count : 1), sizeof(pc_tensor));
            if (!g.lists[idx].items) {
                st = pc_error_set(PC_ERR_NOMEM, "out of memory");
                break;
            }
            g.lists[idx].count = count;
            for (int k = 0; k < count && st == PC_OK; k++) {
                g.lists[idx].items[k] = PC_TENSOR_NULL;
                PyObject *gt = grad_of(s, grads, &rec->u.list.items[k]);
                if (gt && gt != Py_None)
                    st = torch_tensor_out(s, gt, &g.lists[idx].items[k]);
            }
        }
    }
    if (st != PC_OK) {
        pc_op_grads_free(&g);
        return st;
    }
    *out = g;
    return PC_OK;
}

static pc_status backward_locked(torch_state *s, const pc_op_call *call, const pc_tensor *grad_out,
                                 pc_op_grads *out)
{
    if (!s->last_out || s->last_api != call->api)
        return pc_error_set(PC_ERR_INVALID, "torch backend: %s: a backward without its forward",
                            call->full_name);
    PyObject *o = s->last_out;
    /* the output whose backward msprobe runs: output[grad_index] (0) of a tuple, else all */
    PyObject *target =
        PyTuple_Check(o) || PyList_Check(o) ? PySequence_GetItem(o, 0) : (Py_IncRef(o), o);
    PyObject *g = target ? torch_tensor_in(s, grad_out, false) : NULL;
    PyObject *autograd = g ? torch_attr(s->torch, "autograd") : NULL;
    PyObject *outs = target ? PyList_New(1) : NULL, *gl = g ? PyList_New(1) : NULL;
    pc_status st = target && g && autograd && outs && gl ? PC_OK
                   : PyErr_Occurred()                    ? torch_py_error(NULL)
                                                         : PC_ERR_INVALID;
    PyObject *grads = NULL;
    if (st == PC_OK) {
        Py_IncRef(target);
        Py_IncRef(g);
        PyList_SetItem(outs, 0, target);
        PyList_SetItem(gl, 0, g);
        double t0 = pc_clock_seconds();
        if (s->ngrad_inputs > 0) {
            PyObject *inputs = PyList_New(s->ngrad_inputs);
            for (int i = 0; inputs && i < s->ngrad_inputs; i++) {
                Py_IncRef(s->grad_inputs[i].tensor);
                PyList_SetItem(inputs, i, s->grad_inputs[i].tensor);
            }
            PyObject *fn = torch_attr(autograd, "grad");
            PyObject *a = inputs ? PyTuple_Pack(3, outs, inputs, gl) : NULL;
            PyObject *kw = Py_BuildValue("{s:O}", "allow_unused", Py_True);
            grads = fn && a && kw ? PyObject_Call(fn, a, kw) : NULL;
            Py_DecRef(kw), Py_DecRef(a), Py_DecRef(fn), Py_DecRef(inputs);
            /* a tuple, one entry per input (None where unused) */
            if (grads && !PyTuple_Check(grads)) {
                PyObject *t = PySequence_Tuple(grads);
                Py_DecRef(grads);
                grads = t;
            }
        } else {
            /* no positional tensor requires grad: msprobe's backward still runs (and fails
             * where the output has no grad_fn); nothing is collected */
            PyObject *r = torch_call_method(autograd, "backward", outs, gl, NULL);
            grads = r ? PyTuple_New(0) : NULL;
            Py_DecRef(r);
        }
        torch_process_stats.torch_seconds += pc_clock_seconds() - t0;
        if (!grads)
            st = torch_py_error(NULL);
    }
    if (st == PC_OK)
        st = grads_out(s, call, grads, out);
    Py_DecRef(grads);
    Py_DecRef(gl), Py_DecRef(outs), Py_DecRef(autograd), Py_DecRef(g), Py_DecRef(target);
    drop_last(s);
    return st;
}

pc_status torch_backward(torch_state *s, const pc_op_call *call, const pc_tensor *grad_out,
                         pc_op_grads *out)
{
    if (npu_elsewhere(s, call))
        return pc_backend_cpu.backward(NULL, call, grad_out, out);
    pc_status st = torch_runtime_start(s);
    if (st != PC_OK)
        return st;
    double t0 = pc_clock_seconds();
    PyGILState_STATE g = PyGILState_Ensure();
    st = backward_locked(s, call, grad_out, out);
    PyGILState_Release(g);
    torch_process_stats.bridge_seconds += pc_clock_seconds() - t0;
    torch_process_stats.calls++;
    return st;
}

void torch_idle(torch_state *s)
{
    if (s->started <= 0)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    drop_last(s);
    if (s->device != TORCH_CPU) { /* msprobe empties the device cache after each API */
        PyObject *m = torch_attr(s->device == TORCH_NPU ? s->torch_npu : s->torch,
                                 s->device == TORCH_NPU ? "npu" : "cuda");
        PyObject *r = m ? torch_call_method(m, "empty_cache", NULL) : NULL;
        Py_DecRef(r);
        Py_DecRef(m);
        PyErr_Clear();
    }
    PyGILState_Release(g);
}
