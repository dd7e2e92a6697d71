/* The "bench" backend: the call's float inputs raised by a bench policy, double compute. */
#include "precheck/backends/backend.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/ops/exec.h"

/* ---- bench: raised inputs, double compute ---- */

/*
 * The raised inputs of the last forward, kept for the backward of the same call: the runner
 * runs a call's bench forward, then its device forward, then its bench backward, and raising
 * the inputs again for the backward (a bfloat16 weight of 32000 x 4096 becomes 512 MB of
 * float32 a second time) would give the same tensors. "The same call" is checked, not assumed:
 * src shares the forward call's tensors, so their storages stay alive and cannot be reused by
 * other tensors; a backward call whose tensor arguments are those same tensors (storage,
 * offset, dtype, shape and strides) and whose op is the same has the same raise (the policy
 * looks at the op and the tensors' dtypes only, and ops do not write their inputs, exec.h), and
 * takes the raised tensors from here; anything else raises anew. Only calls that can have a
 * backward (an op with one, a tensor requiring grad) are kept, and the backward, the end of the
 * API (idle: the runner calls it whether or not a backward ran), the next forward or closing the
 * backend drops them. One entry, taken and put with atomic exchanges,
 * so that calls from several threads stay correct (they just miss).
 */
typedef struct bench_raised {
    pc_op_call src;    /* the forward's call, shared */
    pc_op_call raised; /* pc_bench_prepare of it */
} bench_raised;

typedef struct bench_state {
    pc_bench_policy policy;
    _Atomic(bench_raised *) last;
} bench_state;

static void raised_free(bench_raised *r)
{
    if (!r)
        return;
    pc_op_call_free(&r->src);
    pc_op_call_free(&r->raised);
    free(r);
}

static bool same_tensor(const pc_tensor *a, const pc_tensor *b)
{
    if (a->storage != b->storage || a->offset != b->offset || a->dtype != b->dtype ||
        a->rank != b->rank)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d])
            return false;
    return true;
}

/* Whether pc_bench_prepare gives the same raise for both calls (see above). */
static bool same_tensors(const pc_op_call *a, const pc_op_call *b)
{
    if (a->op != b->op || a->nargs != b->nargs)
        return false;
    for (int i = 0; i < a->nargs; i++) {
        const pc_value *u = &a->args[i], *v = &b->args[i];
        if (u->kind != v->kind || u->wrapped != v->wrapped)
            return false;
        if (u->kind == PC_VALUE_TENSOR && !same_tensor(&u->tensor, &v->tensor))
            return false;
        if (u->kind == PC_VALUE_TENSOR_LIST) {
            if (u->tensors.count != v->tensors.count)
                return false;
            for (int k = 0; k < u->tensors.count; k++)
                if (!same_tensor(&u->tensors.items[k], &v->tensors.items[k]))
                    return false;
        }
    }
    return true;
}

static bool may_have_backward(const pc_op_call *call)
{
    if (!call->op->backward)
        return false;
    for (int i = 0; i < call->nargs; i++)
        if (call->args[i].requires_grad)
            return true;
    return false;
}

/* *out: call with its tensors replaced by r's raised ones (call's other arguments kept). */
static void reuse_raised(const pc_op_call *call, const bench_raised *r, pc_op_call *out)
{
    pc_op_call_share(out, call);
    out->lazy_raise = r->raised.lazy_raise;
    for (int i = 0; i < out->nargs; i++) {
        pc_value *v = &out->args[i];
        const pc_value *w = &r->raised.args[i];
        if (v->kind == PC_VALUE_TENSOR) {
            pc_tensor_free(&v->tensor);
            pc_tensor_share(&v->tensor, &w->tensor);
        }
        for (int k = 0; v->kind == PC_VALUE_TENSOR_LIST && k < v->tensors.count; k++) {
            pc_tensor_free(&v->tensors.items[k]);
            pc_tensor_share(&v->tensors.items[k], &w->tensors.items[k]);
        }
    }
}

static pc_status bench_open(void **state, const char *options, const pc_backend_host *host)
{
    bench_state *s = malloc(sizeof *s);
    if (!s)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    s->policy = PC_BENCH_MSPROBE;
    atomic_init(&s->last, NULL);
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

static void bench_idle(void *state)
{
    bench_state *s = state;
    raised_free(atomic_exchange(&s->last, NULL)); /* an API whose backward did not run */
}

static void bench_close(void *state)
{
    bench_state *s = state;
    raised_free(atomic_exchange(&s->last, NULL));
    free(s);
}

static pc_status bench_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    bench_state *s = state;
    raised_free(atomic_exchange(&s->last, NULL)); /* a call that had no backward */
    pc_op_call b;
    pc_status st = pc_bench_prepare(call, s->policy, &b);
    if (st != PC_OK)
        return st;
    st = pc_op_forward(&b, PC_COMPUTE_BENCH, out);
    bench_raised *r = st == PC_OK && may_have_backward(call) ? malloc(sizeof *r) : NULL;
    if (r) {
        pc_op_call_share(&r->src, call);
        r->raised = b;
        raised_free(atomic_exchange(&s->last, r));
    } else {
        pc_op_call_free(&b);
    }
    return st;
}

static pc_status bench_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                                pc_op_grads *out)
{
    bench_state *s = state;
    bench_raised *r = atomic_exchange(&s->last, NULL);
    pc_op_call b;
    pc_status st = PC_OK;
    if (r && same_tensors(call, &r->src))
        reuse_raised(call, r, &b);
    else
        st = pc_bench_prepare(call, s->policy, &b);
    raised_free(r);
    if (st != PC_OK)
        return st;
    pc_tensor g = PC_TENSOR_NULL;
    st = pc_bench_kernel_grad(call, s->policy, grad_out, &g);
    if (st == PC_OK)
        st = pc_op_backward(&b, PC_COMPUTE_BENCH, &g, out);
    pc_tensor_free(&g);
    pc_op_call_free(&b);
    return st;
}

static bool bench_supports(void *state, const pc_op_call *call, char *why, size_t size)
{
    return call && call->op && call->op->forward;
}

static void bench_describe(void *state, char *buf, size_t size)
{
    const bench_state *s = state;
    snprintf(buf, size, "bench: precheck's CPU kernels in double, inputs raised by the %s policy",
             s->policy == PC_BENCH_FP64 ? "fp64" : "msprobe");
}

const pc_backend_vtable pc_backend_bench = {
    .abi_version = PC_BACKEND_ABI_VERSION,
    .name = "bench",
    .open = bench_open,
    .close = bench_close,
    .describe = bench_describe,
    .supports = bench_supports,
    .forward = bench_forward,
    .backward = bench_backward,
    .idle = bench_idle,
};
