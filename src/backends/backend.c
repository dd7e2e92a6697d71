/* The backend registry and the two built-in backends: "cpu" (the reference device) and
 * "bench" (double compute with a bench policy). */
#include "precheck/backends/backend.h"

#include <stdlib.h>
#include <string.h>

#include "precheck/ops/exec.h"

/* ---- cpu: the dumped dtypes, fp32 opmath ---- */

static pc_status cpu_open(void **state, const char *options)
{
    *state = NULL;
    if (options && *options)
        return pc_error_set(PC_ERR_INVALID, "backend cpu takes no options, got '%s'", options);
    return PC_OK;
}

static void cpu_close(void *state) {}

static bool any_supports(void *state, const pc_op_call *call, char *why, size_t size)
{
    return call && call->op && call->op->forward;
}

static pc_status cpu_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    return pc_op_forward(call, PC_COMPUTE_DEVICE, out);
}

static pc_status cpu_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    return pc_op_backward(call, PC_COMPUTE_DEVICE, grad_out, out);
}

/* ---- bench: raised inputs, double compute ---- */

typedef struct bench_state {
    pc_bench_policy policy;
} bench_state;

static pc_status bench_open(void **state, const char *options)
{
    bench_state *s = malloc(sizeof *s);
    if (!s)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    s->policy = PC_BENCH_MSPROBE;
    if (options && *options) {
        pc_status st = pc_bench_policy_from_name(options, &s->policy);
        if (st != PC_OK) {
            free(s);
            return st;
        }
    }
    *state = s;
    return PC_OK;
}

static void bench_close(void *state)
{
    free(state);
}

static pc_status bench_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    const bench_state *s = state;
    pc_op_call b;
    pc_status st = pc_bench_prepare(call, s->policy, &b);
    if (st != PC_OK)
        return st;
    st = pc_op_forward(&b, PC_COMPUTE_BENCH, out);
    pc_op_call_free(&b);
    return st;
}

static pc_status bench_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                                pc_op_grads *out)
{
    const bench_state *s = state;
    pc_op_call b;
    pc_status st = pc_bench_prepare(call, s->policy, &b);
    if (st != PC_OK)
        return st;
    pc_tensor g = PC_TENSOR_NULL;
    st = pc_bench_prepare_grad(call, s->policy, grad_out, &g);
    if (st == PC_OK)
        st = pc_op_backward(&b, PC_COMPUTE_BENCH, &g, out);
    pc_tensor_free(&g);
    pc_op_call_free(&b);
    return st;
}

static const pc_backend_vtable builtins[] = {
    {PC_BACKEND_ABI_VERSION, "cpu", cpu_open, cpu_close, any_supports, cpu_forward, cpu_backward},
    {PC_BACKEND_ABI_VERSION, "bench", bench_open, bench_close, any_supports, bench_forward,
     bench_backward},
};

const pc_backend_vtable *pc_backend_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    if (name && strcmp(name, pc_backend_faulty.name) == 0)
        return &pc_backend_faulty;
    return NULL;
}

pc_status pc_backend_open(pc_backend *out, const pc_backend_vtable *vt, const char *options)
{
    if (!vt || vt->abi_version != PC_BACKEND_ABI_VERSION)
        return pc_error_set(PC_ERR_UNSUPPORTED, "backend %s: ABI version %d, precheck needs %d",
                            vt && vt->name ? vt->name : "?", vt ? vt->abi_version : -1,
                            PC_BACKEND_ABI_VERSION);
    void *state = NULL;
    pc_status st = vt->open(&state, options);
    if (st != PC_OK)
        return pc_error_prefix(st, "backend %s", vt->name);
    out->vt = vt;
    out->state = state;
    return PC_OK;
}

void pc_backend_close(pc_backend *b)
{
    if (!b || !b->vt)
        return;
    b->vt->close(b->state);
    b->vt = NULL;
    b->state = NULL;
}

bool pc_backend_supports(const pc_backend *b, const pc_op_call *call, char *why, size_t size)
{
    return b->vt->supports(b->state, call, why, size);
}

pc_status pc_backend_forward(const pc_backend *b, const pc_op_call *call, pc_op_result *out)
{
    return b->vt->forward(b->state, call, out);
}

pc_status pc_backend_backward(const pc_backend *b, const pc_op_call *call,
                              const pc_tensor *grad_out, pc_op_grads *out)
{
    return b->vt->backward(b->state, call, grad_out, out);
}
