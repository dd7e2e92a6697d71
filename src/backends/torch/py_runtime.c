/*
 * The interpreter in a worker: started on the worker's first call (never in the process that
 * forks the workers), with msprobe's device settings, then kept for the worker's life. Python
 * is never finalised: torch cannot be unloaded, and a worker ends with _exit.
 *
 * Settings, logged once per worker: CUBLAS_WORKSPACE_CONFIG=:4096:8 before torch starts (the
 * user's value wins), cuDNN deterministic on and benchmark off, deterministic algorithms off,
 * TF32 left at torch's defaults; on an NPU torch_npu imported, its compile mode jit_compile=-j
 * and allow_internal_format=-j; the worker's device set; torch's intra-op threads fixed (the
 * cores shared among the workers unless threads= says) and inter-op threads 1, so results do
 * not depend on the machine's load. torch's generator is seeded per API (py_call.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "torch_impl.h"

pc_torch_stats torch_process_stats;

PyObject *torch_attr(PyObject *o, const char *name)
{
    return PyObject_GetAttrString(o, name);
}

PyObject *torch_call_method(PyObject *o, const char *name, ...)
{
    PyObject *m = PyObject_GetAttrString(o, name);
    if (!m)
        return NULL;
    va_list ap;
    va_start(ap, name);
    PyObject *items[8];
    int n = 0;
    for (PyObject *a; n < 8 && (a = va_arg(ap, PyObject *)) != NULL;)
        items[n++] = a;
    va_end(ap);
    PyObject *args = PyTuple_New(n);
    if (!args) {
        Py_DecRef(m);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        Py_IncRef(items[i]);
        PyTuple_SetItem(args, i, items[i]);
    }
    PyObject *r = PyObject_Call(m, args, NULL);
    Py_DecRef(args);
    Py_DecRef(m);
    return r;
}

bool torch_str(PyObject *o, char *buf, size_t size)
{
    PyObject *s = o ? PyObject_Str(o) : NULL;
    PyObject *b = s ? PyUnicode_AsUTF8String(s) : NULL;
    const char *c = b ? PyBytes_AsString(b) : NULL;
    if (c)
        snprintf(buf, size, "%s", c);
    Py_DecRef(b);
    Py_DecRef(s);
    if (!c)
        PyErr_Clear();
    return c != NULL;
}

pc_status torch_py_error(const char *prefix)
{
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    char text[PC_ERROR_MESSAGE_MAX] = "";
    if (!value || !torch_str(value, text, sizeof text))
        torch_str(type, text, sizeof text);
    Py_DecRef(type);
    Py_DecRef(value);
    Py_DecRef(tb);
    if (prefix)
        return pc_error_set(PC_ERR_INVALID, "%s: %s", prefix, text);
    return pc_error_set(PC_ERR_INVALID, "%s", text);
}

/* f(*args) for a module function, args a NULL-terminated list of new references (stolen). */
static bool call_steal(PyObject *mod, const char *name, ...)
{
    PyObject *f = PyObject_GetAttrString(mod, name);
    va_list ap;
    va_start(ap, name);
    PyObject *items[4];
    int n = 0;
    for (PyObject *a; n < 4 && (a = va_arg(ap, PyObject *)) != NULL;)
        items[n++] = a;
    va_end(ap);
    PyObject *args = PyTuple_New(n);
    for (int i = 0; i < n; i++) {
        if (args)
            PyTuple_SetItem(args, i, items[i]);
        else
            Py_DecRef(items[i]);
    }
    PyObject *r = f && args ? PyObject_Call(f, args, NULL) : NULL;
    Py_DecRef(args);
    Py_DecRef(f);
    Py_DecRef(r);
    return r != NULL;
}

static bool set_attr_bool(PyObject *o, const char *path_attr, bool v)
{
    PyObject *b = PyBool_FromLong(v);
    int rc = PyObject_SetAttrString(o, path_attr, b);
    Py_DecRef(b);
    return rc == 0;
}

static const struct {
    pc_dtype dtype;
    const char *name;
} dtype_names[] = {
    {PC_DTYPE_BOOL, "bool"},
    {PC_DTYPE_U8, "uint8"},
    {PC_DTYPE_I8, "int8"},
    {PC_DTYPE_I16, "int16"},
    {PC_DTYPE_I32, "int32"},
    {PC_DTYPE_I64, "int64"},
    {PC_DTYPE_F16, "float16"},
    {PC_DTYPE_BF16, "bfloat16"},
    {PC_DTYPE_F32, "float32"},
    {PC_DTYPE_F64, "float64"},
    {PC_DTYPE_C64, "complex64"},
    {PC_DTYPE_C128, "complex128"},
    {PC_DTYPE_F8E4M3FN, "float8_e4m3fn"},
    {PC_DTYPE_F8E5M2, "float8_e5m2"},
};

PyObject *torch_dtype(torch_state *s, pc_dtype d)
{
    return d >= 0 && d < (pc_dtype)(sizeof s->dtype_of / sizeof s->dtype_of[0]) ? s->dtype_of[d]
                                                                                : NULL;
}

/* What runs the first time: env, interpreter, sys, torch, settings. Holds the GIL. */
static pc_status start(torch_state *s)
{
    const pc_python_env *env = s->env;
    setenv("PYTHONHOME", env->home, 1);
    setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
    setenv("PYTHONHASHSEED", "1234", 0);
    Py_InitializeEx(0); /* 0: precheck keeps its own signal handlers */
    /* the embedded interpreter takes the user's sys.path and executable (a venv's included) */
    PyObject *path = PyList_New(0);
    for (int i = 0; path && i < env->npath; i++) {
        PyObject *item = PyUnicode_FromString(env->path[i]);
        if (item) {
            PyList_Append(path, item);
            Py_DecRef(item);
        }
    }
    PyObject *exe = PyUnicode_FromString(env->executable);
    PyObject *argv = Py_BuildValue("[s]", env->executable);
    if (!path || !exe || !argv || PySys_SetObject("path", path) != 0 ||
        PySys_SetObject("executable", exe) != 0 || PySys_SetObject("argv", argv) != 0) {
        Py_DecRef(path), Py_DecRef(exe), Py_DecRef(argv);
        return torch_py_error("torch backend: setting up the embedded Python");
    }
    Py_DecRef(path), Py_DecRef(exe), Py_DecRef(argv);

    s->torch = PyImport_ImportModule("torch");
    if (!s->torch)
        return torch_py_error("import torch failed in the worker");
    if (s->device == TORCH_NPU) {
        s->torch_npu = PyImport_ImportModule("torch_npu");
        if (!s->torch_npu)
            return torch_py_error("import torch_npu failed in the worker");
    }
    PyObject *nn = torch_attr(s->torch, "nn");
    s->functional = nn ? torch_attr(nn, "functional") : NULL;
    Py_DecRef(nn);
    s->tensor_type = torch_attr(s->torch, "Tensor");
    s->size_type = torch_attr(s->torch, "Size");
    /* torch._C._from_dlpack takes the capsule itself; torch.utils.dlpack.from_dlpack is its
     * public (and slower) wrapper, kept for a torch without the private name */
    PyObject *c = torch_attr(s->torch, "_C");
    s->from_dlpack = c ? torch_attr(c, "_from_dlpack") : NULL;
    Py_DecRef(c);
    if (!s->from_dlpack) {
        PyErr_Clear();
        PyObject *utils = PyImport_ImportModule("torch.utils.dlpack");
        s->from_dlpack = utils ? torch_attr(utils, "from_dlpack") : NULL;
        Py_DecRef(utils);
    }
    /* seeding per API: the CPU generator directly (torch.manual_seed also queues a CUDA seeding
     * with a stack trace on a machine without CUDA: 30 us), the device's once it runs */
    s->cpu_generator = torch_attr(s->torch, "default_generator");
    if (s->device != TORCH_CPU) {
        PyObject *m = s->device == TORCH_CUDA ? torch_attr(s->torch, "cuda")
                                              : torch_attr(s->torch_npu, "npu");
        s->device_seed_all = m ? torch_attr(m, "manual_seed_all") : NULL;
        Py_DecRef(m);
    }
    if (!s->functional || !s->tensor_type || !s->size_type || !s->from_dlpack ||
        !s->cpu_generator || (s->device != TORCH_CPU && !s->device_seed_all))
        return torch_py_error("torch backend: this torch lacks what precheck calls");
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++) {
        s->dtype_of[dtype_names[i].dtype] = torch_attr(s->torch, dtype_names[i].name);
        if (!s->dtype_of[dtype_names[i].dtype])
            PyErr_Clear(); /* float8 types are newer than some torch versions */
    }

    char dev[32];
    if (s->device == TORCH_CPU)
        snprintf(dev, sizeof dev, "cpu");
    else
        snprintf(dev, sizeof dev, "%s:%d", s->device_name, s->device_index);
    s->device_str = PyUnicode_FromString(dev);

    /* msprobe's settings (seed_all, run_ut_command) */
    bool ok = call_steal(s->torch, "use_deterministic_algorithms", PyBool_FromLong(0), NULL);
    if (ok && s->device == TORCH_CUDA) {
        PyObject *backends = torch_attr(s->torch, "backends");
        PyObject *cudnn = backends ? torch_attr(backends, "cudnn") : NULL;
        ok = cudnn && set_attr_bool(cudnn, "deterministic", true) &&
             set_attr_bool(cudnn, "benchmark", false);
        Py_DecRef(cudnn);
        Py_DecRef(backends);
        PyObject *cuda = ok ? torch_attr(s->torch, "cuda") : NULL;
        ok = cuda && call_steal(cuda, "set_device", PyUnicode_FromString(dev), NULL);
        Py_DecRef(cuda);
    }
    if (ok && s->device == TORCH_NPU) {
        PyObject *npu = torch_attr(s->torch, "npu");
        PyObject *config = npu ? torch_attr(npu, "config") : NULL;
        PyObject *set_mode = npu ? torch_attr(npu, "set_compile_mode") : NULL;
        PyObject *kw = Py_BuildValue("{s:O}", "jit_compile", s->jit_compile ? Py_True : Py_False);
        PyObject *none = PyTuple_New(0);
        PyObject *r = set_mode && kw && none ? PyObject_Call(set_mode, none, kw) : NULL;
        ok = r && config && set_attr_bool(config, "allow_internal_format", s->jit_compile) &&
             call_steal(npu, "set_device", PyUnicode_FromString(dev), NULL);
        Py_DecRef(r), Py_DecRef(none), Py_DecRef(kw), Py_DecRef(set_mode), Py_DecRef(config);
        Py_DecRef(npu);
    }
    if (ok)
        ok = call_steal(s->torch, "set_num_threads", PyLong_FromLong(s->threads), NULL);
    if (!ok)
        return torch_py_error("torch backend: applying msprobe's device settings");
    /* inter-op threads can be set once per process, before any inter-op work */
    if (!call_steal(s->torch, "set_num_interop_threads", PyLong_FromLong(1), NULL))
        PyErr_Clear();
    pc_log_info("torch backend, worker %d: Python %s (%s), torch %s%s%s on %s; intra-op "
                "threads %d, inter-op 1; seed per API from --seed and the API's name; cuDNN "
                "deterministic, benchmark off; CUBLAS_WORKSPACE_CONFIG=%s%s",
                s->worker, env->version, env->executable, s->torch_version,
                s->npu_version[0] ? ", torch_npu " : "", s->npu_version, dev, s->threads,
                getenv("CUBLAS_WORKSPACE_CONFIG"),
                s->device == TORCH_NPU ? (s->jit_compile ? "; jit_compile on" : "; jit_compile off")
                                       : "");
    return PC_OK;
}

pc_status torch_runtime_start(torch_state *s)
{
    if (s->started > 0)
        return PC_OK;
    if (s->started < 0)
        return pc_error_set(PC_ERR_INVALID, "%s", s->start_error);
    double t0 = pc_clock_seconds();
    pc_status st = start(s);
    torch_process_stats.start_seconds += pc_clock_seconds() - t0;
    if (st != PC_OK) {
        snprintf(s->start_error, sizeof s->start_error, "%s", pc_error_message());
        pc_log_error("%s", s->start_error);
        s->started = -1;
    } else {
        s->started = 1;
    }
    /* the GIL is taken per call from now on (py_call.c) */
    PyEval_SaveThread();
    return st;
}
