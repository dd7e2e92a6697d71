/* The "cpu" backend: precheck's reference device, an emulation on the CPU -- the dumped dtypes
 * computed in fp32 opmath and rounded to nearest even, msprobe's device autocast emulated by
 * casts (cpu_autocast.c). It stands in for an accelerator where none is at hand. */
#include <stdio.h>

#include "backends_impl.h"
#include "precheck/ops/exec.h"

static pc_status cpu_open(void **state, const char *options, const pc_backend_host *host)
{
    *state = NULL;
    if (options && *options)
        return pc_error_set(PC_ERR_INVALID, "backend cpu takes no options, got '%s'", options);
    return PC_OK;
}

static void cpu_close(void *state) {}

static void cpu_describe(void *state, char *buf, size_t size)
{
    snprintf(buf, size,
             "device under test: precheck's reference device (--backend cpu), an emulation on "
             "the CPU (fp32 opmath, results rounded to the dumped dtypes), not an accelerator");
}

static bool cpu_supports(void *state, const pc_op_call *call, char *why, size_t size)
{
    return call && call->op && call->op->forward;
}

static pc_status cpu_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    pc_op_call ac;
    bool changed = false;
    pc_status st = pc_cpu_autocast(call, &ac, &changed);
    if (st != PC_OK)
        return st;
    st = pc_op_forward(changed ? &ac : call, PC_COMPUTE_DEVICE, out);
    if (changed)
        pc_op_call_free(&ac);
    return st;
}

static pc_status cpu_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    pc_op_call ac;
    bool changed = false;
    pc_status st = pc_cpu_autocast(call, &ac, &changed);
    if (st != PC_OK)
        return st;
    pc_op_grads g = {0};
    st = pc_op_backward(changed ? &ac : call, PC_COMPUTE_DEVICE, grad_out, &g);
    if (changed)
        pc_op_call_free(&ac);
    if (st == PC_OK && changed)
        st = pc_cpu_autocast_grads(call, &g);
    if (st != PC_OK) {
        pc_op_grads_free(&g);
        return st;
    }
    *out = g;
    return PC_OK;
}

const pc_backend_vtable pc_backend_cpu = {
    .abi_version = PC_BACKEND_ABI_VERSION,
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .describe = cpu_describe,
    .supports = cpu_supports,
    .forward = cpu_forward,
    .backward = cpu_backward,
};
