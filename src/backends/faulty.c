/*
 * The "faulty" backend: the reference device with named accuracy faults injected into named
 * ops, to measure whether precheck's verdicts catch them (docs/RELIABILITY.md). For tests and
 * demonstrations only.
 *
 * Options: a comma-separated list of FAULT:OP, where OP is an op name as `precheck ops` shows
 * it ("matmul", "layer_norm") or "*" for every op, e.g. "truncate:linear,eps:layer_norm".
 * Faults change forward outputs only; gradients are the reference device's.
 *
 *   truncate      outputs rounded toward zero instead of to nearest even (computed in float64
 *                 first, then truncated to the output dtype)
 *   no_bias       the bias is dropped (linear, conv2d, layer_norm, batch_norm; addmm and
 *                 baddbmm: beta = 0)
 *   eps           layer_norm / batch_norm with eps = 1e-2 instead of the call's
 *   ulp1          every other output element (keyed random) moved by one ULP
 *   ftz           subnormal inputs and outputs flushed to zero
 *   fast_exp      exp, sigmoid and silu through a 3-term exp approximation; gelu's exact erf
 *                 form replaced by the tanh approximation
 *   seq_sum       sum and mean accumulated sequentially in the output dtype
 *   swap_block    GEMM outputs (linear, matmul, mm, bmm, addmm, baddbmm) with elements [0,1]
 *                 and [1,0] of the first matrix exchanged
 *   accum_half    linear, matmul, mm and bmm with partial sums rounded to bfloat16 (float16
 *                 for float16 data) after every product
 *   mask_shift    tril / triu with the diagonal moved by one (an off-by-one causal mask)
 *   softmax_nomax softmax over the last dimension without subtracting the maximum
 *
 * A fault that does not apply to a call (eps on an op without eps) leaves it unchanged; the
 * thread's message then says "not applicable" for tests to check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends_impl.h"
#include "precheck/backends/backend.h"
#include "precheck/core/convert.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/rng.h"
#include "precheck/ops/exec.h"
#include "precheck/ops/schema.h"

typedef enum fault_kind {
    F_TRUNCATE,
    F_NO_BIAS,
    F_EPS,
    F_ULP1,
    F_FTZ,
    F_FAST_EXP,
    F_SEQ_SUM,
    F_SWAP_BLOCK,
    F_ACCUM_HALF,
    F_MASK_SHIFT,
    F_SOFTMAX_NOMAX,
    F_COUNT
} fault_kind;

static const char *const fault_names[F_COUNT] = {
    "truncate", "no_bias",    "eps",        "ulp1",       "ftz",           "fast_exp",
    "seq_sum",  "swap_block", "accum_half", "mask_shift", "softmax_nomax",
};

#define MAX_FAULTS 32

typedef struct faulty_state {
    struct {
        fault_kind kind;
        char op[64];
    } f[MAX_FAULTS];
    int n;
} faulty_state;

static pc_status faulty_open(void **state, const char *options, const pc_backend_host *host)
{
    faulty_state *s = calloc(1, sizeof *s);
    if (!s)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    const char *p = options ? options : "";
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *colon = memchr(p, ':', len);
        int k = -1;
        for (int i = 0; colon && i < F_COUNT; i++)
            if (strlen(fault_names[i]) == (size_t)(colon - p) &&
                strncmp(p, fault_names[i], (size_t)(colon - p)) == 0)
                k = i;
        size_t oplen = colon ? len - (size_t)(colon - p) - 1 : 0;
        if (k < 0 || oplen == 0 || oplen >= sizeof s->f[0].op || s->n == MAX_FAULTS) {
            free(s);
            return pc_error_set(PC_ERR_INVALID,
                                "faulty: '%.*s' is not FAULT:OP (faults: truncate, no_bias, "
                                "eps, ulp1, ftz, fast_exp, seq_sum, swap_block, accum_half, "
                                "mask_shift, softmax_nomax; OP an op name or *)",
                                (int)len, p);
        }
        s->f[s->n].kind = (fault_kind)k;
        memcpy(s->f[s->n].op, colon + 1, oplen);
        s->f[s->n].op[oplen] = 0;
        s->n++;
        p += len + (end ? 1 : 0);
    }
    if (s->n == 0) {
        free(s);
        return pc_error_set(PC_ERR_INVALID, "faulty: no fault given (FAULT:OP[,FAULT:OP...])");
    }
    *state = s;
    return PC_OK;
}

static void faulty_close(void *state)
{
    free(state);
}

static bool faulty_supports(void *state, const pc_op_call *call, char *why, size_t size)
{
    (void)state;
    (void)why;
    (void)size;
    return call && call->op && call->op->forward;
}

static bool has_fault(const faulty_state *s, fault_kind k, const char *op)
{
    for (int i = 0; i < s->n; i++)
        if (s->f[i].kind == k && (strcmp(s->f[i].op, "*") == 0 || strcmp(s->f[i].op, op) == 0))
            return true;
    return false;
}

static bool is_one_of(const char *op, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(op, *list) == 0)
            return true;
    return false;
}

static const char *const gemm_ops[] = {"linear", "matmul", "mm", "bmm", "addmm", "baddbmm", NULL};

/* ---- element helpers ---- */

static double get(const pc_tensor *t, int64_t i)
{
    double re, im;
    pc_element_load((const char *)pc_tensor_data(t) + i * (int64_t)pc_dtype_size(t->dtype),
                    t->dtype, &re, &im);
    return re;
}

static void put(pc_tensor *t, int64_t i, double v)
{
    pc_element_store((char *)pc_tensor_data(t) + i * (int64_t)pc_dtype_size(t->dtype), t->dtype, v,
                     0);
}

/* x rounded toward zero to dtype. */
static double trunc_to(pc_dtype d, double x)
{
    if (!isfinite(x))
        return pc_round_to_dtype(x, d);
    switch (d) {
    case PC_DTYPE_F32: {
        float f = (float)x;
        if (fabs((double)f) > fabs(x))
            f = nextafterf(f, 0.0f);
        return (double)f;
    }
    case PC_DTYPE_F16:
    case PC_DTYPE_BF16: {
        bool h = d == PC_DTYPE_F16;
        uint16_t b = h ? pc_f64_to_f16(x) : pc_f64_to_bf16(x);
        double back = h ? (double)pc_f16_to_f32(b) : (double)pc_bf16_to_f32(b);
        if (fabs(back) > fabs(x) && (b & 0x7fff) != 0)
            b = (uint16_t)((b & 0x8000) | ((b & 0x7fff) - 1)); /* one step toward zero */
        return h ? (double)pc_f16_to_f32(b) : (double)pc_bf16_to_f32(b);
    }
    default:
        return x;
    }
}

/* The neighbour of x (a value of dtype) in direction dir (+1 up, -1 down). */
static double ulp_step(pc_dtype d, double x, int dir)
{
    switch (d) {
    case PC_DTYPE_F32:
        return (double)nextafterf((float)x, dir > 0 ? INFINITY : -INFINITY);
    case PC_DTYPE_F16:
    case PC_DTYPE_BF16: {
        bool h = d == PC_DTYPE_F16;
        uint16_t b = h ? pc_f64_to_f16(x) : pc_f64_to_bf16(x);
        bool neg = (b & 0x8000) != 0, away = (dir > 0) != neg;
        uint16_t mag = b & 0x7fff;
        if (away)
            mag++;
        else if (mag > 0)
            mag--;
        else
            neg = !neg, mag = 1; /* from +-0 across zero */
        b = (uint16_t)((neg ? 0x8000 : 0) | mag);
        return h ? (double)pc_f16_to_f32(b) : (double)pc_bf16_to_f32(b);
    }
    default:
        return nextafter(x, dir > 0 ? HUGE_VAL : -HUGE_VAL);
    }
}

static bool is_float_out(const pc_tensor *t)
{
    return t->dtype == PC_DTYPE_F16 || t->dtype == PC_DTYPE_BF16 || t->dtype == PC_DTYPE_F32 ||
           t->dtype == PC_DTYPE_F64;
}

static double min_normal(pc_dtype d)
{
    return ldexp(1.0, pc_dtype_traits_of(d)->min_normal_exp);
}

/* ---- call edits ---- */

static void set_none(pc_value *v)
{
    if (v->kind == PC_VALUE_TENSOR)
        pc_tensor_free(&v->tensor);
    v->kind = PC_VALUE_NONE;
}

static pc_status ftz_tensor(pc_tensor *t)
{
    if (!is_float_out(t))
        return PC_OK;
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&c, t, t->dtype); /* a private contiguous copy */
    if (st != PC_OK)
        return st;
    double mn = min_normal(c.dtype);
    for (int64_t i = 0; i < pc_tensor_numel(&c); i++) {
        double v = get(&c, i);
        if (v != 0 && fabs(v) < mn)
            put(&c, i, copysign(0.0, v));
    }
    pc_tensor_free(t);
    *t = c;
    return PC_OK;
}

/* ---- forward ---- */

static pc_status truncate_outputs(const pc_op_call *call, pc_op_result *r)
{
    pc_op_call c;
    pc_op_call_share(&c, call);
    pc_status st = PC_OK;
    for (int i = 0; i < c.nargs && st == PC_OK; i++) {
        pc_value *v = &c.args[i];
        if (v->kind == PC_VALUE_TENSOR && !v->wrapped && is_float_out(&v->tensor))
            st = pc_tensor_cast(&v->tensor, &v->tensor, PC_DTYPE_F64);
    }
    pc_op_result wide = {0};
    if (st == PC_OK)
        st = pc_op_forward(&c, PC_COMPUTE_DEVICE, &wide);
    for (int k = 0; st == PC_OK && k < r->count && k < wide.count; k++) {
        pc_tensor *t = &r->tensors[k];
        if (!is_float_out(t) || wide.tensors[k].dtype != PC_DTYPE_F64 ||
            pc_tensor_numel(&wide.tensors[k]) != pc_tensor_numel(t))
            continue;
        for (int64_t i = 0; i < pc_tensor_numel(t); i++)
            put(t, i, trunc_to(t->dtype, get(&wide.tensors[k], i)));
    }
    pc_op_result_free(&wide);
    pc_op_call_free(&c);
    return st;
}

static double fast_exp(double x)
{
    /* exp(x) = 2^(x log2 e); 2^f on [0, 1) by a 3-term polynomial (~1e-3 relative error) */
    double y = x * 1.4426950408889634;
    if (y > 1023)
        return HUGE_VAL;
    if (y < -1074)
        return 0;
    double n = floor(y), f = y - n;
    double p = 1.0 + f * (0.6565 + f * 0.3435);
    return ldexp(p, (int)n);
}

static pc_status fast_exp_outputs(const pc_op_call *call, pc_op_result *r)
{
    const char *op = call->op->name;
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!x || r->count < 1)
        return PC_OK;
    pc_tensor xc = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&xc, x);
    if (st != PC_OK)
        return st;
    pc_tensor *t = &r->tensors[0];
    for (int64_t i = 0; i < pc_tensor_numel(t) && i < pc_tensor_numel(&xc); i++) {
        double v = get(&xc, i), y;
        if (strcmp(op, "exp") == 0)
            y = fast_exp(v);
        else if (strcmp(op, "sigmoid") == 0)
            y = 1.0 / (1.0 + fast_exp(-v));
        else
            y = v / (1.0 + fast_exp(-v)); /* silu */
        put(t, i, pc_round_to_dtype((double)(float)y, t->dtype));
    }
    pc_tensor_free(&xc);
    return PC_OK;
}

/* The reduced dimensions of sum/mean: all (dim None or []) or the last one only. */
static pc_status seq_sum_outputs(const pc_op_call *call, pc_op_result *r)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *dim = &call->args[1];
    if (!x || r->count < 1 || !is_float_out(&r->tensors[0]))
        return PC_OK;
    bool all = dim->kind == PC_VALUE_NONE || (dim->kind == PC_VALUE_INT_LIST && dim->nints == 0);
    int64_t d = dim->kind == PC_VALUE_INT                           ? dim->i
                : dim->kind == PC_VALUE_INT_LIST && dim->nints == 1 ? dim->ints[0]
                                                                    : -1000;
    if (!all && d != -1 && d != x->rank - 1)
        return pc_error_set(PC_ERR_UNSUPPORTED, "faulty seq_sum: not applicable (dim)");
    pc_tensor xc = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&xc, x);
    if (st != PC_OK)
        return st;
    pc_tensor *t = &r->tensors[0];
    int64_t n = pc_tensor_numel(&xc);
    int64_t inner = all ? n : (x->rank ? x->shape[x->rank - 1] : 1);
    int64_t outer = inner ? n / inner : 0;
    bool mean = strcmp(call->op->name, "mean") == 0;
    for (int64_t o = 0; o < outer && o < pc_tensor_numel(t); o++) {
        double acc = 0;
        for (int64_t i = 0; i < inner; i++)
            acc = pc_round_to_dtype(acc + get(&xc, o * inner + i), t->dtype);
        put(t, o, mean ? pc_round_to_dtype(acc / (double)inner, t->dtype) : acc);
    }
    pc_tensor_free(&xc);
    return PC_OK;
}

static void swap_block(pc_op_result *r)
{
    pc_tensor *t = &r->tensors[0];
    if (r->count < 1 || t->rank < 2 || t->shape[t->rank - 1] < 2 || t->shape[t->rank - 2] < 2)
        return;
    int64_t cols = t->shape[t->rank - 1];
    double a = get(t, 1), b = get(t, cols);
    put(t, 1, b);
    put(t, cols, a);
}

/* C = A B with every partial sum rounded to the half dtype; A [batch, M, K], B [batch or 1, K,
 * N] as contiguous double copies. */
static pc_status accum_half_outputs(const pc_op_call *call, pc_op_result *r)
{
    const char *op = call->op->name;
    const pc_tensor *a = pc_call_tensor(call, 0), *b = pc_call_tensor(call, 1);
    if (!a || !b || r->count < 1 || !is_float_out(&r->tensors[0]) || a->rank < 2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "faulty accum_half: not applicable");
    bool linear = strcmp(op, "linear") == 0;
    pc_tensor *c = &r->tensors[0];
    pc_dtype hd = a->dtype == PC_DTYPE_F16 ? PC_DTYPE_F16 : PC_DTYPE_BF16;
    int64_t K = a->shape[a->rank - 1];
    int64_t M = a->shape[a->rank - 2];
    int64_t N = linear ? b->shape[0] : b->shape[b->rank - 1];
    int64_t batch = pc_tensor_numel(a) / (M > 0 && K > 0 ? M * K : 1);
    int64_t bbatch = linear || b->rank == 2 ? 1 : pc_tensor_numel(b) / (K > 0 && N > 0 ? K * N : 1);
    if ((bbatch != 1 && bbatch != batch) || pc_tensor_numel(c) != batch * M * N)
        return pc_error_set(PC_ERR_UNSUPPORTED, "faulty accum_half: not applicable (batch)");
    pc_tensor ac = PC_TENSOR_NULL, bc = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&ac, a);
    if (st == PC_OK)
        st = pc_tensor_contiguous(&bc, b);
    const pc_tensor *bias = linear && call->nargs > 2 ? pc_call_tensor(call, 2) : NULL;
    for (int64_t q = 0; st == PC_OK && q < batch; q++)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                double acc = 0;
                for (int64_t k = 0; k < K; k++) {
                    double x = get(&ac, (q * M + i) * K + k);
                    double y = linear ? get(&bc, j * K + k)
                                      : get(&bc, ((bbatch == 1 ? 0 : q) * K + k) * N + j);
                    acc = pc_round_to_dtype(acc + (double)(float)(x * y), hd);
                }
                if (bias)
                    acc += pc_tensor_get(bias, &j);
                put(c, (q * M + i) * N + j, pc_round_to_dtype(acc, c->dtype));
            }
    pc_tensor_free(&ac);
    pc_tensor_free(&bc);
    return st;
}

static pc_status softmax_nomax_outputs(const pc_op_call *call, pc_op_result *r)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const pc_value *dim = &call->args[1];
    if (!x || r->count < 1 || x->rank < 1 || dim->kind != PC_VALUE_INT ||
        (dim->i != -1 && dim->i != x->rank - 1))
        return pc_error_set(PC_ERR_UNSUPPORTED, "faulty softmax_nomax: not applicable");
    pc_tensor xc = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&xc, x);
    if (st != PC_OK)
        return st;
    pc_tensor *t = &r->tensors[0];
    int64_t inner = x->shape[x->rank - 1], outer = inner ? pc_tensor_numel(&xc) / inner : 0;
    for (int64_t o = 0; o < outer; o++) {
        float sum = 0;
        for (int64_t i = 0; i < inner; i++)
            sum += expf((float)get(&xc, o * inner + i));
        for (int64_t i = 0; i < inner; i++)
            put(t, o * inner + i,
                pc_round_to_dtype((double)(expf((float)get(&xc, o * inner + i)) / sum), t->dtype));
    }
    pc_tensor_free(&xc);
    return PC_OK;
}

/* The faults on a call as the reference device runs it (after its autocast). */
static pc_status faulty_run(const faulty_state *s, const pc_op_call *call, pc_op_result *out)
{
    const char *op = call->op->name;
    pc_op_call c;
    pc_op_call_share(&c, call);
    pc_status st = PC_OK;
    /* faults that change the call */
    if (has_fault(s, F_NO_BIAS, op)) {
        int b = pc_schema_find_arg(call->op->schema, "bias");
        int beta = pc_schema_find_arg(call->op->schema, "beta");
        if (b >= 0)
            set_none(&c.args[b]);
        else if (beta >= 0 && (strcmp(op, "addmm") == 0 || strcmp(op, "baddbmm") == 0))
            c.args[beta].f = 0, c.args[beta].i = 0, c.args[beta].kind = PC_VALUE_FLOAT;
    }
    if (has_fault(s, F_EPS, op)) {
        int e = pc_schema_find_arg(call->op->schema, "eps");
        if (e >= 0)
            c.args[e].f = 1e-2;
    }
    if (has_fault(s, F_MASK_SHIFT, op) && (strcmp(op, "tril") == 0 || strcmp(op, "triu") == 0)) {
        int d = pc_schema_find_arg(call->op->schema, "diagonal");
        if (d >= 0)
            c.args[d].i += 1, c.args[d].f += 1;
    }
    if (has_fault(s, F_FAST_EXP, op) && strcmp(op, "gelu") == 0) {
        int a = pc_schema_find_arg(call->op->schema, "approximate");
        if (a >= 0)
            c.args[a].s = "tanh";
    }
    if (has_fault(s, F_FTZ, op))
        for (int i = 0; i < c.nargs && st == PC_OK; i++)
            if (c.args[i].kind == PC_VALUE_TENSOR && !c.args[i].wrapped)
                st = ftz_tensor(&c.args[i].tensor);
    pc_op_result r = {0};
    if (st == PC_OK)
        st = pc_op_forward(&c, PC_COMPUTE_DEVICE, &r);
    /* faults that change the outputs */
    if (st == PC_OK && has_fault(s, F_TRUNCATE, op))
        st = truncate_outputs(&c, &r);
    if (st == PC_OK && has_fault(s, F_FAST_EXP, op) &&
        (strcmp(op, "exp") == 0 || strcmp(op, "sigmoid") == 0 || strcmp(op, "silu") == 0))
        st = fast_exp_outputs(&c, &r);
    if (st == PC_OK && has_fault(s, F_SEQ_SUM, op) &&
        (strcmp(op, "sum") == 0 || strcmp(op, "mean") == 0))
        st = seq_sum_outputs(&c, &r);
    if (st == PC_OK && has_fault(s, F_ACCUM_HALF, op) &&
        (strcmp(op, "linear") == 0 || strcmp(op, "matmul") == 0 || strcmp(op, "mm") == 0 ||
         strcmp(op, "bmm") == 0))
        st = accum_half_outputs(&c, &r);
    if (st == PC_OK && has_fault(s, F_SOFTMAX_NOMAX, op) && strcmp(op, "softmax") == 0)
        st = softmax_nomax_outputs(&c, &r);
    if (st == PC_OK && has_fault(s, F_SWAP_BLOCK, op) && is_one_of(op, gemm_ops))
        swap_block(&r);
    if (st == PC_OK && has_fault(s, F_ULP1, op)) {
        pc_rng_stream rs;
        pc_rng_stream_init(&rs, pc_hash_fnv1a64_str(call->full_name), "faulty/ulp1");
        for (int k = 0; k < r.count; k++) {
            pc_tensor *t = &r.tensors[k];
            if (!is_float_out(t))
                continue;
            for (int64_t i = 0; i < pc_tensor_numel(t); i++) {
                uint64_t u = pc_rng_u64(&rs, (uint64_t)i, 0);
                double v = get(t, i);
                if ((u & 1) && isfinite(v))
                    put(t, i, ulp_step(t->dtype, v, (u & 2) ? 1 : -1));
            }
        }
    }
    if (st == PC_OK && has_fault(s, F_FTZ, op))
        for (int k = 0; k < r.count && st == PC_OK; k++)
            st = ftz_tensor(&r.tensors[k]);
    pc_op_call_free(&c);
    if (st != PC_OK) {
        pc_op_result_free(&r);
        return st;
    }
    *out = r;
    return PC_OK;
}

static pc_status faulty_forward(void *state, const pc_op_call *call, pc_op_result *out)
{
    pc_op_call ac;
    bool changed = false;
    pc_status st = pc_cpu_autocast(call, &ac, &changed);
    if (st != PC_OK)
        return st;
    st = faulty_run(state, changed ? &ac : call, out);
    if (changed)
        pc_op_call_free(&ac);
    return st;
}

static pc_status faulty_backward(void *state, const pc_op_call *call, const pc_tensor *grad_out,
                                 pc_op_grads *out)
{
    return pc_backend_cpu.backward(NULL, call, grad_out, out);
}

static void faulty_describe(void *state, char *buf, size_t size)
{
    snprintf(buf, size,
             "device under test: precheck's reference device with injected accuracy faults "
             "(--backend faulty), an emulation on the CPU for measuring what the verdicts "
             "catch");
}

const pc_backend_vtable pc_backend_faulty = {
    .abi_version = PC_BACKEND_ABI_VERSION,
    .name = "faulty",
    .open = faulty_open,
    .close = faulty_close,
    .describe = faulty_describe,
    .supports = faulty_supports,
    .forward = faulty_forward,
    .backward = faulty_backward,
};
