/*
 * Tensors across the bridge.
 *
 * In: a DLPack capsule over precheck's own memory (the same bytes the bench reads), made into
 * a torch tensor by torch.utils.dlpack.from_dlpack -- no copy, measured at the same address for
 * every dtype and for offset and strided views. The managed tensor holds a reference to
 * precheck's storage, dropped by its deleter when torch frees the tensor (or by the capsule's
 * destructor when torch never took it). torch 1.13 ignores DLPack's byte_offset (the offset is
 * folded into the data pointer) and refuses DLPack bool (bool goes as uint8 and is viewed as
 * bool).
 *
 * Out: a torch tensor moved to the CPU and made contiguous (no copy when it is both already),
 * then wrapped as a precheck storage that holds a reference to it.
 */
#include <dlpack/dlpack.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/clock.h"
#include "torch_impl.h"

typedef struct managed {
    DLManagedTensor m;
    pc_tensor t; /* a reference to precheck's storage */
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t strides[PC_TENSOR_MAX_DIMS];
} managed;

static void managed_delete(DLManagedTensor *self)
{
    managed *m = self->manager_ctx;
    pc_tensor_free(&m->t);
    free(m);
}

/* A capsule torch did not consume is still named "dltensor": its tensor is ours to free. */
static void capsule_destructor(PyObject *capsule)
{
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    } else {
        PyErr_Clear();
    }
}

static bool dl_type(pc_dtype d, DLDataType *out)
{
    switch (d) {
    case PC_DTYPE_BOOL: /* viewed as bool after the import */
    case PC_DTYPE_U8:
        *out = (DLDataType){kDLUInt, 8, 1};
        return true;
    case PC_DTYPE_I8:
        *out = (DLDataType){kDLInt, 8, 1};
        return true;
    case PC_DTYPE_I16:
        *out = (DLDataType){kDLInt, 16, 1};
        return true;
    case PC_DTYPE_I32:
        *out = (DLDataType){kDLInt, 32, 1};
        return true;
    case PC_DTYPE_I64:
        *out = (DLDataType){kDLInt, 64, 1};
        return true;
    case PC_DTYPE_F16:
        *out = (DLDataType){kDLFloat, 16, 1};
        return true;
    case PC_DTYPE_BF16:
        *out = (DLDataType){kDLBfloat, 16, 1};
        return true;
    case PC_DTYPE_F32:
        *out = (DLDataType){kDLFloat, 32, 1};
        return true;
    case PC_DTYPE_F64:
        *out = (DLDataType){kDLFloat, 64, 1};
        return true;
    case PC_DTYPE_C64:
        *out = (DLDataType){kDLComplex, 64, 1};
        return true;
    case PC_DTYPE_C128:
        *out = (DLDataType){kDLComplex, 128, 1};
        return true;
    default: /* float8: DLPack 0.6 has no type for it */
        return false;
    }
}

/* A CPU torch tensor over t's memory, no copy. New reference, NULL with the pc message set. */
static PyObject *import_tensor(torch_state *s, const pc_tensor *t)
{
    DLDataType type;
    if (!dl_type(t->dtype, &type))
        return (pc_error_set(PC_ERR_UNSUPPORTED,
                             "torch backend: %s tensors cannot be passed "
                             "to torch",
                             pc_dtype_name(t->dtype)),
                NULL);
    managed *m = calloc(1, sizeof *m);
    if (!m)
        return (pc_error_set(PC_ERR_NOMEM, "out of memory"), NULL);
    pc_tensor_share(&m->t, t);
    for (int i = 0; i < t->rank; i++) {
        m->shape[i] = t->shape[i];
        m->strides[i] = t->strides[i];
    }
    m->m.dl_tensor = (DLTensor){
        .data = pc_tensor_data(t), /* the offset folded in: torch 1.13 ignores byte_offset */
        .device = {kDLCPU, 0},
        .ndim = t->rank,
        .dtype = type,
        .shape = m->shape,
        .strides = m->strides,
        .byte_offset = 0,
    };
    m->m.manager_ctx = m;
    m->m.deleter = managed_delete;
    PyObject *capsule = PyCapsule_New(&m->m, "dltensor", capsule_destructor);
    if (!capsule) {
        managed_delete(&m->m);
        torch_py_error("torch backend: DLPack capsule");
        return NULL;
    }
    PyObject *r = PyObject_CallFunctionObjArgs(s->from_dlpack, capsule, NULL);
    Py_DecRef(capsule);
    if (r && t->dtype == PC_DTYPE_BOOL) {
        PyObject *b = torch_call_method(r, "view", torch_dtype(s, PC_DTYPE_BOOL), NULL);
        Py_DecRef(r);
        r = b;
    }
    if (!r)
        torch_py_error("torch backend: from_dlpack");
    return r;
}

PyObject *torch_tensor_in(torch_state *s, const pc_tensor *t, bool clone)
{
    PyObject *r = import_tensor(s, t);
    if (r && s->device != TORCH_CPU) {
        PyObject *d = torch_call_method(r, "to", s->device_str, NULL); /* a copy */
        Py_DecRef(r);
        r = d;
        if (!r)
            torch_py_error("torch backend: moving an input to the device");
    } else if (r && clone && s->device == TORCH_CPU) {
        PyObject *c = torch_call_method(r, "clone", NULL);
        Py_DecRef(r);
        r = c;
        if (!r)
            torch_py_error("torch backend: clone");
    }
    return r;
}

static void release_pyobject(void *ctx, void *data, size_t nbytes)
{
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DecRef((PyObject *)ctx);
    PyGILState_Release(g);
}

/* The precheck dtype of a torch tensor (PC_DTYPE_INVALID when precheck has none). */
static pc_dtype dtype_of(torch_state *s, PyObject *o)
{
    PyObject *d = torch_attr(o, "dtype");
    pc_dtype r = PC_DTYPE_INVALID;
    for (int i = 0; d && i < (int)(sizeof s->dtype_of / sizeof s->dtype_of[0]); i++)
        if (s->dtype_of[i] && s->dtype_of[i] == d)
            r = (pc_dtype)i;
    Py_DecRef(d);
    return r;
}

static long long as_ll(PyObject *o)
{
    long long v = o ? PyLong_AsLongLong(o) : -1;
    Py_DecRef(o);
    return v;
}

static pc_status tensor_out(torch_state *s, PyObject *o, pc_tensor *out);

pc_status torch_tensor_out(torch_state *s, PyObject *o, pc_tensor *out)
{
    double t0 = pc_clock_seconds();
    pc_status st = tensor_out(s, o, out);
    torch_process_stats.out_seconds += pc_clock_seconds() - t0;
    return st;
}

static pc_status tensor_out(torch_state *s, PyObject *o, pc_tensor *out)
{
    PyObject *t = torch_call_method(o, "detach", NULL);
    if (t && s->device != TORCH_CPU) {
        PyObject *c = torch_call_method(t, "cpu", NULL);
        Py_DecRef(t);
        t = c;
    }
    if (t) {
        PyObject *c = torch_call_method(t, "contiguous", NULL);
        Py_DecRef(t);
        t = c;
    }
    if (t) { /* conjugate and negative views become plain tensors (no-ops otherwise) */
        PyObject *c = torch_call_method(t, "resolve_conj", NULL);
        if (!c)
            PyErr_Clear();
        else
            Py_DecRef(t), t = c;
    }
    if (!t)
        return torch_py_error("torch backend: reading a result");
    pc_dtype dtype = dtype_of(s, t);
    if (dtype == PC_DTYPE_INVALID) {
        char name[64] = "?";
        PyObject *d = torch_attr(t, "dtype");
        torch_str(d, name, sizeof name);
        Py_DecRef(d);
        Py_DecRef(t);
        return pc_error_set(PC_ERR_UNSUPPORTED, "torch backend: a result of dtype %s", name);
    }
    PyObject *shape = torch_attr(t, "shape");
    Py_ssize_t rank = shape ? PySequence_Size(shape) : -1;
    int64_t dims[PC_TENSOR_MAX_DIMS];
    if (rank < 0 || rank > PC_TENSOR_MAX_DIMS) {
        Py_DecRef(shape);
        Py_DecRef(t);
        if (rank < 0)
            return torch_py_error("torch backend: reading a result's shape");
        return pc_error_set(PC_ERR_UNSUPPORTED, "torch backend: a result of %zd dimensions",
                            (ssize_t)rank);
    }
    for (Py_ssize_t i = 0; i < rank; i++)
        dims[i] = as_ll(PySequence_GetItem(shape, i));
    Py_DecRef(shape);
    long long ptr = as_ll(torch_call_method(t, "data_ptr", NULL));
    long long numel = as_ll(torch_call_method(t, "numel", NULL));
    long long esize = as_ll(torch_call_method(t, "element_size", NULL));
    if (PyErr_Occurred()) {
        Py_DecRef(t);
        return torch_py_error("torch backend: reading a result");
    }
    /* the storage owns t (one reference) and gives it back when the last tensor on it goes */
    return pc_tensor_wrap(out, dtype, dims, (int)rank, (void *)(intptr_t)ptr,
                          (size_t)numel * (size_t)esize, release_pyobject, t);
}
