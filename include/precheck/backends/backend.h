/*
 * Backends: where a bound call runs. Each is a vtable with an ABI version, so that optional
 * backends live in plug-ins (shared objects loaded at run time) built against this header.
 *
 * Built in (backends/registry.c):
 *   "cpu"     the reference device: an emulation on the CPU (the dumped dtypes, fp32 opmath,
 *             RNE to the output dtype; the device autocast msprobe asks for emulated by casts);
 *   "bench"   the high-precision benchmark (double compute; options "msprobe" (default) or
 *             "fp64" choose the bench policy);
 *   "replay"  the device results recorded in a tensor-mode dump (its output and gradient
 *             files): computes nothing, reads call->dump / call->api;
 *   "faulty"  the reference device with accuracy faults injected into named ops (options
 *             "FAULT:OP,..."; see src/backends/faulty.c), for measuring what verdicts catch.
 * Plug-ins (backends/loader.c): "torch" -- each API through the user's own PyTorch on a GPU,
 * an Ascend NPU or the CPU (src/backends/torch/, the shared object precheck-backend-torch.so).
 *
 * A run names its device as --backend NAME[:OPTIONS] (pc_backend_open_spec).
 *
 * Processes: a backend is opened in the run's first process, which then forks the workers
 * (runner/worker_pool.c); what must not cross fork (a Python interpreter, a CUDA or Ascend context,
 * OpenMP threads) is started lazily by the backend inside each worker, never in open.
 * worker_start tells the backend which worker it is in.
 *
 * OWNERSHIP: a backend instance is opened with pc_backend_open(_spec) and closed with
 * pc_backend_close; results are the caller's (pc_op_result_free / pc_op_grads_free).
 */
#ifndef PC_BACKENDS_BACKEND_H
#define PC_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/ops/call.h"

/* 3: open takes the host's settings; worker_start, describe and flags; the call carries where
 * it came from (ops/call.h). */
#define PC_BACKEND_ABI_VERSION 3

/* The Python interpreter a plug-in that embeds Python runs in: found by the loader (the
 * interpreter's own answers), its shared library loaded (RTLD_GLOBAL) but not initialised. */
typedef struct pc_python_env {
    const char *command;    /* the interpreter as the user named it (--python, or "python3") */
    const char *executable; /* its sys.executable */
    const char *version;    /* "3.11.2" */
    const char *library;    /* the libpython that was loaded */
    const char *home;       /* PYTHONHOME for it: "base_prefix" or "base_prefix:base_exec_prefix" */
    const char *const *path; /* sys.path (without the script directory) */
    int npath;
} pc_python_env;

/* What the run tells a backend when it opens it. Every field may be left 0/NULL (defaults). */
typedef struct pc_backend_host {
    const int *device_ids; /* -d: worker k uses device_ids[k % device_count] */
    int device_count;      /* 0: device 0 */
    int workers;           /* processes that will run calls (0: the opening process itself) */
    bool jit_compile;      /* -j (Ascend's compile mode) */
    /* --python: the interpreter of a backend that embeds Python; NULL: python3 on PATH */
    const char *python;
    /* set by the loader for plug-ins that embed Python; NULL otherwise */
    const pc_python_env *python_env;
} pc_backend_host;

/* A plug-in (precheck-backend-<name>.so) exports this function, which takes precheck's host
 * table and returns its vtable (host_api.h: pc_backend_plugin_fn). */
#define PC_BACKEND_PLUGIN_ENTRY "precheck_backend_plugin"

/* vtable flags */
enum {
    /* forward needs call->records: every tensor record of the forward entry with its tensor
     * (the runner then makes the ones the binder did not use, such as out=) */
    PC_BACKEND_WANTS_RECORDS = 1u << 0,
};

typedef struct pc_backend_vtable {
    int abi_version; /* PC_BACKEND_ABI_VERSION of the header it was built with */
    const char *name;
    unsigned flags; /* PC_BACKEND_* */
    /* options: backend-specific text, NULL for defaults; host: never NULL here (the registry
     * passes an empty one). *state is the instance's. Parses and checks only: nothing that
     * must not cross fork. */
    pc_status (*open)(void **state, const char *options, const pc_backend_host *host);
    void (*close)(void *state);
    /* In a worker process before its first call: worker is its index (0..workers-1), or 0
     * when calls run in the opening process. NULL: nothing to do. */
    void (*worker_start)(void *state, int worker);
    /* One line for the log naming the device under test ("device under test: ..."). */
    void (*describe)(void *state, char *buf, size_t size);
    /* false with a message in why (may be NULL) when the backend cannot run the call. */
    bool (*supports)(void *state, const pc_op_call *call, char *why, size_t size);
    pc_status (*forward)(void *state, const pc_op_call *call, pc_op_result *out);
    /* grad_out: the incoming gradient of output 0 (of grad_index where msprobe names one) as
     * the dump gives it (the backend raises or moves it as it needs). PC_ERR_NOT_FOUND: the
     * device has no gradients to give for this call (replay: none recorded in a form that maps
     * onto the arguments) -- the backward is SKIP with the message, the forward stands; any
     * other error makes the whole API a SKIP, as an exception does in msprobe. */
    pc_status (*backward)(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                          pc_op_grads *out);
    /* Called when an API is done (its backward, if any, has run): drop what was kept for it
     * (the bench keeps a forward's raised inputs for its backward). NULL: nothing kept. */
    void (*idle)(void *state);
} pc_backend_vtable;

typedef struct pc_backend {
    const pc_backend_vtable *vt;
    void *state;
} pc_backend;

extern const pc_backend_vtable pc_backend_cpu;
extern const pc_backend_vtable pc_backend_bench;
extern const pc_backend_vtable pc_backend_replay;
extern const pc_backend_vtable pc_backend_faulty;

/* The built-in vtable called name ("cpu", "bench", "replay", "faulty"); NULL when there is
 * none (plug-ins are found by pc_backend_open_spec). */
const pc_backend_vtable *pc_backend_find(const char *name);

/* Whether spec ("NAME" or "NAME:OPTIONS") names a backend pc_backend_open_spec would find: a
 * built-in one, a plug-in precheck knows of (built or not), or a plug-in file where plug-ins
 * are looked for. Its options are not looked at: the backend judges them when it opens. */
bool pc_backend_name_known(const char *spec);
/* The backends --backend takes, for a user: "cpu, torch:DEVICE, replay, faulty:FAULT:OP" (cut
 * to fit buf). */
void pc_backend_choices(char *buf, size_t size);

/* What a backend name that precheck does not have most likely meant: "torch:npu" for npu,
 * "torch:cuda" for cuda or gpu (any case); NULL for other names. */
const char *pc_backend_suggest(const char *spec);

/* Opens a backend from a vtable (host NULL: defaults); PC_ERR_UNSUPPORTED when its
 * abi_version is not ours. */
pc_status pc_backend_open(pc_backend *out, const pc_backend_vtable *vt, const char *options,
                          const pc_backend_host *host);
/* Opens the backend that spec names, "NAME" or "NAME:OPTIONS": a built-in one, or a plug-in
 * (backends/loader.h). PC_ERR_NOT_FOUND with the list of backends when there is none. */
pc_status pc_backend_open_spec(pc_backend *out, const char *spec, const pc_backend_host *host);
void pc_backend_close(pc_backend *b); /* NULL and a closed backend are fine */

/* worker_start of the backend (NULL and backends without one are fine). */
void pc_backend_worker_start(const pc_backend *b, int worker);
/* The backend's line naming its device ("device under test: ..."). */
void pc_backend_describe(const pc_backend *b, char *buf, size_t size);
bool pc_backend_supports(const pc_backend *b, const pc_op_call *call, char *why, size_t size);
pc_status pc_backend_forward(const pc_backend *b, const pc_op_call *call, pc_op_result *out);
/* The API is done (vtable idle); NULL and a closed backend are fine. */
void pc_backend_idle(const pc_backend *b);
pc_status pc_backend_backward(const pc_backend *b, const pc_op_call *call,
                              const pc_tensor *grad_out, pc_op_grads *out);

#endif
