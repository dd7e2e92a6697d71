/*
 * The torch backend: --backend torch:DEVICE[:N][,threads=N] runs each API of the dump through
 * the user's own PyTorch on DEVICE (cpu, cuda, npu), as msprobe's run_ut does on its device.
 *
 * open (in the run's first process) parses the options and asks the interpreter, in a child
 * process, whether torch (and torch_npu) import and the device is there: a run that cannot
 * work fails here with one line, before any CSV exists. Python itself starts in each worker
 * (py_runtime.c): a Python, OpenMP, CUDA or Ascend runtime must not cross fork.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/backends_impl.h"
#include "precheck/core/log.h"
#include "torch_impl.h"

/* The probe, run as `python -c PROBE DEVICE IDS`: one answer a line, "E <why>" on failure. */
static const char probe_script[] =
    "import sys\n"
    "dev, ids = sys.argv[1], [int(x) for x in sys.argv[2].split(',') if x]\n"
    "try:\n"
    "    import torch\n"
    "except Exception as e:\n"
    "    print('E import torch failed: %s: %s' % (type(e).__name__, e)); sys.exit(0)\n"
    "print('T ' + torch.__version__)\n"
    "if dev == 'npu':\n"
    "    try:\n"
    "        import torch_npu\n"
    "    except Exception as e:\n"
    "        print('E import torch_npu failed: %s: %s' % (type(e).__name__, e)); sys.exit(0)\n"
    "    print('N ' + getattr(torch_npu, '__version__', '?'))\n"
    "if dev in ('cuda', 'npu'):\n"
    "    m = getattr(torch, dev)\n"
    "    if not m.is_available():\n"
    "        print('E torch.%s.is_available() is False' % dev); sys.exit(0)\n"
    "    print('D %d' % m.device_count())\n";

static void torch_close(void *state)
{
    free(state);
}

static pc_status parse_int(const char *s, size_t len, int lo, int hi, int *out)
{
    char buf[32];
    if (len == 0 || len >= sizeof buf)
        return PC_ERR_INVALID;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    long v = strtol(buf, &end, 10);
    if (*end || v < lo || v > hi)
        return PC_ERR_INVALID;
    *out = (int)v;
    return PC_OK;
}

/* DEVICE[:N][,threads=N] */
static pc_status parse_options(torch_state *s, const char *options)
{
    static const char usage[] = "--backend torch:DEVICE[:N][,threads=N] with DEVICE cpu, cuda "
                                "or npu, e.g. torch:cuda, torch:npu:1, torch:cpu,threads=8";
    const char *p = options ? options : "";
    size_t dlen = strcspn(p, ":,");
    if (dlen == 3 && strncmp(p, "cpu", 3) == 0)
        s->device = TORCH_CPU, s->device_name = "cpu";
    else if (dlen == 4 && strncmp(p, "cuda", 4) == 0)
        s->device = TORCH_CUDA, s->device_name = "cuda";
    else if (dlen == 3 && strncmp(p, "npu", 3) == 0)
        s->device = TORCH_NPU, s->device_name = "npu";
    else if (dlen == 0)
        return pc_error_set(PC_ERR_INVALID, "no device named; use %s", usage);
    else
        return pc_error_set(PC_ERR_INVALID, "'%.*s' is not a device; use %s", (int)dlen, p, usage);
    p += dlen;
    if (*p == ':') {
        size_t n = strcspn(++p, ",");
        int id;
        if (s->device == TORCH_CPU || parse_int(p, n, 0, 1 << 20, &id) != PC_OK)
            return pc_error_set(PC_ERR_INVALID, "'%.*s' is not a device index; use %s", (int)n, p,
                                usage);
        s->device_ids[0] = id;
        s->device_count = 1;
        p += n;
    }
    while (*p == ',') {
        size_t n = strcspn(++p, ",");
        if (n > 8 && strncmp(p, "threads=", 8) == 0 &&
            parse_int(p + 8, n - 8, 1, 4096, &s->threads) == PC_OK) {
            p += n;
            continue;
        }
        return pc_error_set(PC_ERR_INVALID, "unknown option '%.*s'; use %s", (int)n, p, usage);
    }
    return PC_OK;
}

/* Runs the probe; fills the versions and the device count, or says why the run cannot work. */
static pc_status probe(torch_state *s)
{
    char ids[16 * TORCH_MAX_DEVICES] = "";
    for (int i = 0; i < s->device_count; i++) {
        size_t used = strlen(ids);
        snprintf(ids + used, sizeof ids - used, "%s%d", i ? "," : "", s->device_ids[i]);
    }
    /* exec takes char *const[] (for old callers' sake); it writes none of them */
    char *argv[] = {(char *)(uintptr_t)s->env->command, "-c", (char *)(uintptr_t)probe_script,
                    (char *)(uintptr_t)s->device_name,  ids,  NULL};
    int status = 0;
    char *err = NULL;
    char *text = pc_backend_capture(argv, &status, &err);
    if (!text)
        return pc_error_set(PC_ERR_NOT_FOUND, "cannot run %s: %s", s->env->command,
                            strerror(errno));
    pc_status st = PC_OK;
    bool got_torch = false;
    for (char *line = strtok(text, "\n"); line && st == PC_OK; line = strtok(NULL, "\n")) {
        if (strncmp(line, "E ", 2) == 0) {
            const char *hint =
                strstr(line, "import torch_npu")
                    ? " (--backend torch:npu needs Ascend's torch_npu in that Python)"
                : strstr(line, "import torch")
                    ? " (install PyTorch for that Python -- Debian: apt install python3-torch; "
                      "pip: pip install torch -- or name another Python with --python PATH)"
                    : "";
            st = pc_error_set(PC_ERR_UNSUPPORTED, "%s:%s with %s (Python %s, %s): %s%s", "torch",
                              s->device_name, s->env->command, s->env->version, s->env->executable,
                              line + 2, hint);
        } else if (strncmp(line, "T ", 2) == 0) {
            snprintf(s->torch_version, sizeof s->torch_version, "%s", line + 2);
            got_torch = true;
        } else if (strncmp(line, "N ", 2) == 0) {
            snprintf(s->npu_version, sizeof s->npu_version, "%s", line + 2);
        } else if (strncmp(line, "D ", 2) == 0) {
            s->visible_devices = atoi(line + 2);
        }
    }
    if (st == PC_OK && !got_torch) {
        char last[512] = "";
        const char *e = err ? err : "";
        size_t n = strlen(e);
        while (n > 0 && (e[n - 1] == '\n' || e[n - 1] == ' '))
            n--;
        size_t start = n;
        while (start > 0 && e[start - 1] != '\n')
            start--;
        snprintf(last, sizeof last, "%.*s", (int)(n - start), e + start);
        st = pc_error_set(PC_ERR_INVALID, "%s failed when it imported torch (exit %d): %s",
                          s->env->command, WIFEXITED(status) ? WEXITSTATUS(status) : -1, last);
    }
    for (int i = 0; st == PC_OK && s->device != TORCH_CPU && i < s->device_count; i++)
        if (s->device_ids[i] >= s->visible_devices)
            st = pc_error_set(PC_ERR_NOT_FOUND,
                              "Set device id failed. device id is: [%d] (torch.%s.device_count() "
                              "is %d)",
                              s->device_ids[i], s->device_name, s->visible_devices);
    free(text);
    free(err);
    return st;
}

static pc_status torch_open(void **state, const char *options, const pc_backend_host *host)
{
    if (!host->python_env)
        return pc_error_set(PC_ERR_INVALID, "opened without a Python interpreter (the plug-in "
                                            "loader prepares one)");
    torch_state *s = calloc(1, sizeof *s);
    if (!s)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    s->env = host->python_env;
    s->workers = host->workers;
    s->jit_compile = host->jit_compile;
    pc_status st = parse_options(s, options);
    if (st == PC_OK && s->device_count == 0) {
        /* -d: one device per worker, in turn */
        int n = host->device_count > 0 ? host->device_count : 1;
        for (int i = 0; i < n && i < TORCH_MAX_DEVICES; i++)
            s->device_ids[i] = host->device_count > 0 ? host->device_ids[i] : 0;
        s->device_count = n < TORCH_MAX_DEVICES ? n : TORCH_MAX_DEVICES;
    }
    if (st == PC_OK)
        st = probe(s);
    if (st != PC_OK) {
        free(s);
        return st;
    }
    if (s->device != TORCH_CPU && s->workers > s->device_count)
        pc_log_warning("%d worker processes share %d %s device(s): each worker holds its own "
                       "torch context and memory on its device; if the device runs out of "
                       "memory, give -d more ids or fewer workers (-n/--jobs).",
                       s->workers, s->device_count, s->device_name);
    *state = s;
    return PC_OK;
}

static void torch_worker_start(void *state, int worker)
{
    torch_state *s = state;
    s->worker = worker;
    s->device_index = s->device_ids[worker % s->device_count];
}

static int threads_of(const torch_state *s)
{
    if (s->threads > 0)
        return s->threads;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long t = (cores > 0 ? cores : 1) / (s->workers > 1 ? s->workers : 1);
    return t > 0 ? (int)t : 1;
}

static void torch_describe(void *state, char *buf, size_t size)
{
    const torch_state *s = state;
    char devs[256] = "";
    if (s->device != TORCH_CPU)
        for (int i = 0; i < s->device_count; i++) {
            size_t used = strlen(devs);
            snprintf(devs + used, sizeof devs - used, "%s%s:%d", i ? ", " : "", s->device_name,
                     s->device_ids[i]);
        }
    snprintf(buf, size,
             "device under test: %s through PyTorch %s%s%s (Python %s, %s), %d intra-op "
             "thread(s) per worker",
             s->device == TORCH_CPU ? "the CPU" : devs, s->torch_version,
             s->npu_version[0] ? " with torch_npu " : "", s->npu_version, s->env->version,
             s->env->executable, threads_of(s));
}

static bool torch_supports(void *state, const pc_op_call *call, char *why, size_t size)
{
    if (!call->api) {
        if (why)
            snprintf(why, size, "the torch backend runs APIs from a dump record");
        return false;
    }
    return true;
}

static pc_status torch_vt_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    torch_state *s = state;
    if (s->threads == 0)
        s->threads = threads_of(s);
    return torch_forward(s, call, out);
}

static pc_status torch_vt_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                                   pc_op_grads *out)
{
    return torch_backward(state, call, grad_out, out);
}

static void torch_vt_idle(void *state)
{
    torch_idle(state);
}

static const pc_backend_vtable torch_vtable = {
    .abi_version = PC_BACKEND_ABI_VERSION,
    .name = "torch",
    .flags = PC_BACKEND_WANTS_RECORDS,
    .open = torch_open,
    .close = torch_close,
    .worker_start = torch_worker_start,
    .describe = torch_describe,
    .supports = torch_supports,
    .forward = torch_vt_forward,
    .backward = torch_vt_backward,
    .idle = torch_vt_idle,
};

const pc_host_api *pc_torch_host;

const pc_backend_vtable *precheck_backend_plugin(const pc_host_api *host, char *why, size_t size);

/* The entry (host_api.h): the host's table checked and kept, then the vtable. */
__attribute__((visibility("default"))) const pc_backend_vtable *
precheck_backend_plugin(const pc_host_api *host, char *why, size_t size)
{
    if (!pc_host_api_check(host, PC_HOST_API_VERSION, sizeof *host, why, size))
        return NULL;
    pc_torch_host = host;
    return &torch_vtable;
}

/* For bench/bench_torch (precheck/backends/torch_stats.h). */
const pc_torch_stats *precheck_torch_stats(void);

__attribute__((visibility("default"))) const pc_torch_stats *precheck_torch_stats(void)
{
    return &torch_process_stats;
}

/* For tests/backends/test_torch.c: t into torch as an input is made (clone: as for an API that
 * writes its inputs), torch's data_ptr of it in *ptr, and that torch tensor back into precheck
 * in *back. Starts Python in this process. */
pc_status precheck_torch_test_tensor(void *state, const pc_tensor *t, bool clone, uintptr_t *ptr,
                                     pc_tensor *back);

__attribute__((visibility("default"))) pc_status
precheck_torch_test_tensor(void *state, const pc_tensor *t, bool clone, uintptr_t *ptr,
                           pc_tensor *back)
{
    torch_state *s = state;
    if (s->threads == 0)
        s->threads = threads_of(s);
    pc_status st = torch_runtime_start(s);
    if (st != PC_OK)
        return st;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *x = torch_tensor_in(s, t, clone);
    st = x ? PC_OK : PC_ERR_INVALID;
    if (st == PC_OK) {
        PyObject *p = torch_call_method(x, "data_ptr", NULL);
        *ptr = p ? (uintptr_t)PyLong_AsUnsignedLongLong(p) : 0;
        Py_DecRef(p);
        st = p ? torch_tensor_out(s, x, back) : torch_py_error(NULL);
    }
    Py_DecRef(x);
    PyGILState_Release(g);
    return st;
}
