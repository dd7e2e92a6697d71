/*
 * Backends: where a bound call runs. Each is a vtable with an ABI version, so that optional
 * backends (CUDA, Ascend aclnn) can live in plug-ins built against this header.
 *
 * Built in: "cpu", the reference device (the dumped dtypes, fp32 opmath, RNE to the output
 * dtype), "bench", the high-precision benchmark (double compute; options "msprobe"
 * (default) or "fp64" choose the bench policy), and "faulty", the reference device with
 * accuracy faults injected into named ops (options "FAULT:OP,..."; see src/backends/faulty.c),
 * for measuring what precheck's verdicts catch.
 *
 * OWNERSHIP: a backend instance is opened with pc_backend_open and closed with
 * pc_backend_close; results are the caller's (pc_op_result_free / pc_op_grads_free).
 */
#ifndef PC_BACKENDS_BACKEND_H
#define PC_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/ops/call.h"

#define PC_BACKEND_ABI_VERSION 2

typedef struct pc_backend_vtable {
    int abi_version; /* PC_BACKEND_ABI_VERSION of the header it was built with */
    const char *name;
    /* options: backend-specific text, NULL for defaults. *state is the instance's. */
    pc_status (*open)(void **state, const char *options);
    void (*close)(void *state);
    /* false with a message in why (may be NULL) when the backend cannot run the call. */
    bool (*supports)(void *state, const pc_op_call *call, char *why, size_t size);
    pc_status (*forward)(void *state, const pc_op_call *call, pc_op_result *out);
    /* grad_out: the incoming gradient of output 0 as the dump gives it (the backend raises it
     * as its policy says). */
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

extern const pc_backend_vtable pc_backend_faulty;

/* The built-in vtable called name ("cpu", "bench"); NULL when there is none. */
const pc_backend_vtable *pc_backend_find(const char *name);

/* Opens a backend from a vtable; PC_ERR_UNSUPPORTED when its abi_version is not ours. */
pc_status pc_backend_open(pc_backend *out, const pc_backend_vtable *vt, const char *options);
void pc_backend_close(pc_backend *b); /* NULL and a closed backend are fine */

bool pc_backend_supports(const pc_backend *b, const pc_op_call *call, char *why, size_t size);
pc_status pc_backend_forward(const pc_backend *b, const pc_op_call *call, pc_op_result *out);
/* The API is done (vtable idle); NULL and a closed backend are fine. */
void pc_backend_idle(const pc_backend *b);
pc_status pc_backend_backward(const pc_backend *b, const pc_op_call *call,
                              const pc_tensor *grad_out, pc_op_grads *out);

#endif
