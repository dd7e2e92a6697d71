/*
 * Private to the torch plug-in (src/backends/torch): each API of the dump through the user's
 * own PyTorch, on the CPU, a CUDA GPU or an Ascend NPU, the way msprobe's run_ut calls it on
 * its device (docs/msprobe-contract.md#replay).
 *
 * Pieces:
 *   torch_backend.c  the vtable, options, the start-up probe (a child process), describe
 *   py_runtime.c     the interpreter started lazily in each worker, and small helpers
 *   py_tensor.c      precheck's tensors into torch without copies (DLPack), results back
 *   py_call.c        the dump record as Python arguments, the call, its backward
 *
 * Python: the stable ABI of 3.8 (Py_LIMITED_API), so one build runs with any CPython >= 3.8;
 * the library is the one the loader found and loaded (backends/loader.c). Every function here
 * that touches Python objects runs with the GIL held (py_call.c takes it around each call).
 */
#ifndef PC_BACKENDS_TORCH_IMPL_H
#define PC_BACKENDS_TORCH_IMPL_H

#define PY_SSIZE_T_CLEAN
#define Py_LIMITED_API 0x03080000
#include <Python.h>

#include <stdbool.h>
#include <stdint.h>

#include "precheck/backends/backend.h"
#include "precheck/backends/host_api.h"
#include "precheck/backends/torch_stats.h"

typedef enum torch_device {
    TORCH_CPU,
    TORCH_CUDA,
    TORCH_NPU,
} torch_device;

#define TORCH_MAX_DEVICES 64

/* A tensor made for the device call from a record, kept for the backward: the one that
 * requires grad (msprobe's non-leaf copy), whose gradient is collected. */
typedef struct torch_grad_input {
    const pc_dump_arg *record;
    PyObject *tensor;
} torch_grad_input;

typedef struct torch_state {
    /* ---- set in open (the parent): options and what the probe found ---- */
    torch_device device;
    const char *device_name; /* "cpu", "cuda", "npu" */
    int device_ids[TORCH_MAX_DEVICES];
    int device_count;
    int threads; /* intra-op threads per worker; 0: the cores shared by the workers */
    int workers;
    bool jit_compile;
    const pc_python_env *env;
    char torch_version[64];
    char npu_version[64];
    int visible_devices; /* torch.cuda/npu.device_count() in the probe */

    /* ---- in the worker ---- */
    int worker;
    int device_index; /* the device this worker uses */
    int started;      /* 0 not yet, 1 running, -1 failed (start_error says why) */
    char start_error[1024];
    PyObject *torch, *functional, *tensor_type, *torch_npu, *from_dlpack, *size_type;
    PyObject *cpu_generator;   /* torch.default_generator */
    PyObject *device_seed_all; /* torch.cuda.manual_seed_all / torch_npu.npu.manual_seed_all */
    PyObject *dtype_of[16];    /* torch dtypes by pc_dtype (NULL: none) */
    PyObject *device_str;      /* "cpu", "cuda:0", ... */
    /* the last forward kept for its backward (needs_backward) */
    PyObject *last_out;
    torch_grad_input *grad_inputs;
    int ngrad_inputs, grad_inputs_cap;
    const pc_dump_api *last_api;
} torch_state;

/* This process's measurements (precheck/backends/torch_stats.h). */
extern pc_torch_stats torch_process_stats;

/* ---- py_runtime.c ---- */

/* Starts Python and torch in this process if it has not been done (the first call of a
 * worker); PC_OK when they run. Takes and releases the GIL itself. */
pc_status torch_runtime_start(torch_state *s);

/* The current Python exception as the thread's pc message (prefix: what failed, may be
 * NULL), the exception cleared; returns PC_ERR_INVALID. msprobe writes str(exception). */
pc_status torch_py_error(const char *prefix);

/* getattr(o, name), a new reference; NULL with an exception set. */
PyObject *torch_attr(PyObject *o, const char *name);
/* o.name(*args) with args given as a NULL-terminated list of borrowed references. */
PyObject *torch_call_method(PyObject *o, const char *name, ...);
/* str(o) copied into buf (false when it cannot be had). */
bool torch_str(PyObject *o, char *buf, size_t size);

/* ---- py_tensor.c ---- */

/* A torch tensor over t's memory (no copy: DLPack; the capsule's deleter drops the reference
 * it holds on t's storage), then moved to the device when it is not the CPU, and cloned when
 * clone is set (an API that writes its inputs must not write precheck's). New reference;
 * NULL with the pc message set. */
PyObject *torch_tensor_in(torch_state *s, const pc_tensor *t, bool clone);
/* *out: torch tensor o on the CPU as a precheck tensor; no copy when it is already on the
 * CPU and contiguous (the storage holds a reference to the torch tensor). */
pc_status torch_tensor_out(torch_state *s, PyObject *o, pc_tensor *out);
/* torch's dtype object for d (borrowed), NULL when torch has none. */
PyObject *torch_dtype(torch_state *s, pc_dtype d);

/* ---- py_call.c ---- */

pc_status torch_forward(torch_state *s, const pc_op_call *call, pc_op_result *out);
pc_status torch_backward(torch_state *s, const pc_op_call *call, const pc_tensor *grad_out,
                         pc_op_grads *out);
/* Drops what the last forward kept; empties the device's cache (msprobe does after each API). */
void torch_idle(torch_state *s);

/* precheck's host table (host_api.h), kept by the entry (torch_backend.c): every pc_ function
 * the plug-in calls goes through it (the executable exports nothing). */
extern const pc_host_api *pc_torch_host;
#define PC_PLUGIN_HOST pc_torch_host
#include "precheck/backends/host_api.h"

#endif
