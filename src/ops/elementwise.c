/*
 * Element-wise op families: unary math and activations, binary arithmetic, clamp, where,
 * masked_fill and the casts, forward and backward.
 *
 * Every kernel follows one path: decide the result dtype (promote.h), broadcast the operands
 * into contiguous buffers of the compute type (float for the device's fp16/bf16/fp32, double
 * for fp64 and the bench, int64 for integers and bool, so that integer results are exact and
 * wrap like torch's), run the loop of elementwise_kernel.inc, round once to the output dtype.
 * Backward recomputes what it needs from the inputs; on the device the per-element gradient is
 * rounded to the computation dtype (as autograd holds it in that dtype) before it is summed
 * over broadcast dimensions in double.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "precheck/core/convert.h"
#include "ops_impl.h"

enum { EW_DIV_TRUE, EW_DIV_TRUNC, EW_DIV_FLOOR };

/* v rounded to the float dtype d (identity for other dtypes). */
static double ew_round_f64(pc_dtype d, double v)
{
    switch (d) {
    case PC_DTYPE_F16:
        return pc_f16_to_f32(pc_f64_to_f16(v));
    case PC_DTYPE_BF16:
        return pc_bf16_to_f32(pc_f64_to_bf16(v));
    case PC_DTYPE_F32:
        return (float)v;
    default:
        return v;
    }
}

#define EW_T   float
#define EW_SFX f
#include "elementwise_kernel.inc"
#undef EW_T
#undef EW_SFX
#define EW_T   double
#define EW_SFX d
#include "elementwise_kernel.inc"
#undef EW_T
#undef EW_SFX

/* ---- shared plumbing ---- */

typedef enum ew_kind { EW_FLOAT, EW_DOUBLE, EW_INT } ew_kind;

typedef struct ew_ctx {
    pc_compute compute;
    ew_kind kind;
    pc_dtype cd; /* the dtype values are computed in (rounded to on load) */
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t n;
    const char *name; /* full API name for messages */
} ew_ctx;

const char *pc_torch_type_name(pc_dtype dtype)
{
    static const char *names[PC_DTYPE_COUNT] = {
        [PC_DTYPE_BOOL] = "Bool",
        [PC_DTYPE_U8] = "Byte",
        [PC_DTYPE_I8] = "Char",
        [PC_DTYPE_I16] = "Short",
        [PC_DTYPE_I32] = "Int",
        [PC_DTYPE_I64] = "Long",
        [PC_DTYPE_F16] = "Half",
        [PC_DTYPE_BF16] = "BFloat16",
        [PC_DTYPE_F32] = "Float",
        [PC_DTYPE_F64] = "Double",
        [PC_DTYPE_C64] = "ComplexFloat",
        [PC_DTYPE_C128] = "ComplexDouble",
        [PC_DTYPE_F8E4M3FN] = "Float8_e4m3fn",
        [PC_DTYPE_F8E5M2] = "Float8_e5m2",
    };
    return (dtype >= 0 && dtype < PC_DTYPE_COUNT) ? names[dtype] : "Undefined";
}

static ew_kind kind_of(pc_compute compute, pc_dtype d)
{
    if (!pc_dtype_is_float(d))
        return EW_INT;
    return (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64) ? EW_DOUBLE : EW_FLOAT;
}

static pc_status ew_init(ew_ctx *c, const pc_op_call *call, pc_compute compute, pc_dtype cd,
                         const pc_tensor *const *ts, int nts)
{
    memset(c, 0, sizeof *c);
    c->compute = compute;
    c->cd = cd;
    c->kind = kind_of(compute, cd);
    c->name = call->full_name;
    for (int i = 0; i < nts; i++) {
        if (!ts[i])
            continue;
        int64_t tmp[PC_TENSOR_MAX_DIMS];
        int r;
        pc_status st = pc_broadcast_shapes(c->shape, c->rank, ts[i]->shape, ts[i]->rank, tmp, &r);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        memcpy(c->shape, tmp, sizeof tmp);
        c->rank = r;
    }
    c->n = 1;
    for (int i = 0; i < c->rank; i++)
        c->n *= c->shape[i];
    return PC_OK;
}

/* Element offsets (storage units) of t broadcast over the context's shape. */
static int64_t *ew_offsets(const ew_ctx *c, const int64_t *tshape, const int64_t *tstrides,
                           int trank, int64_t base)
{
    int64_t *offs = malloc((size_t)(c->n ? c->n : 1) * sizeof *offs);
    if (!offs)
        return NULL;
    int64_t bs[PC_TENSOR_MAX_DIMS] = {0}, idx[PC_TENSOR_MAX_DIMS] = {0};
    for (int d = 0; d < c->rank; d++) {
        int td = trank - c->rank + d;
        bs[d] = (td < 0 || tshape[td] == 1) ? 0 : tstrides[td];
    }
    int64_t off = base;
    for (int64_t i = 0; i < c->n; i++) {
        offs[i] = off;
        for (int d = c->rank - 1; d >= 0; d--) {
            off += bs[d];
            if (++idx[d] < c->shape[d])
                break;
            off -= bs[d] * idx[d];
            idx[d] = 0;
        }
    }
    return offs;
}

static int64_t load_i64(const char *p, pc_dtype d)
{
    switch (d) {
    case PC_DTYPE_I64: {
        int64_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    default: {
        double v;
        pc_element_load(p, d, &v, NULL);
        return (int64_t)v;
    }
    }
}

static void store_i64(char *p, pc_dtype d, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (d) {
    case PC_DTYPE_BOOL:
        *(uint8_t *)p = v != 0;
        break;
    case PC_DTYPE_U8:
        *(uint8_t *)p = (uint8_t)u;
        break;
    case PC_DTYPE_I8: {
        int8_t x = (int8_t)(uint8_t)u;
        memcpy(p, &x, 1);
        break;
    }
    case PC_DTYPE_I16: {
        int16_t x = (int16_t)(uint16_t)u;
        memcpy(p, &x, 2);
        break;
    }
    case PC_DTYPE_I32: {
        int32_t x = (int32_t)(uint32_t)u;
        memcpy(p, &x, 4);
        break;
    }
    case PC_DTYPE_I64:
        memcpy(p, &v, 8);
        break;
    default:
        pc_element_store(p, d, (double)v, 0.0);
        break;
    }
}

/* A buffer of the context's compute type with t's values broadcast (NULL t: NULL). */
static pc_status ew_load(const ew_ctx *c, const pc_tensor *t, void **out)
{
    *out = NULL;
    if (!t)
        return PC_OK;
    void *buf = malloc((size_t)(c->n ? c->n : 1) * 8);
    int64_t *offs = ew_offsets(c, t->shape, t->strides, t->rank, t->offset);
    if (!buf || !offs) {
        free(buf);
        free(offs);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", c->name);
    }
    if (c->kind == EW_FLOAT) {
        gather_f(t, c->cd, offs, c->n, buf);
    } else if (c->kind == EW_DOUBLE) {
        gather_d(t, c->cd, offs, c->n, buf);
    } else {
        const char *base = (const char *)pc_storage_data(t->storage);
        size_t sz = pc_dtype_size(t->dtype);
        int64_t *dst = buf;
        for (int64_t i = 0; i < c->n; i++)
            dst[i] = load_i64(base + (size_t)offs[i] * sz, t->dtype);
        if (c->cd == PC_DTYPE_BOOL)
            for (int64_t i = 0; i < c->n; i++)
                dst[i] = dst[i] != 0;
    }
    free(offs);
    *out = buf;
    return PC_OK;
}

/* A new tensor of dtype and the context's shape from a compute buffer. */
static pc_status ew_store(const ew_ctx *c, const void *buf, pc_dtype dtype, pc_tensor *out)
{
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&t, dtype, c->shape, c->rank);
    if (st != PC_OK)
        return st;
    if (c->kind == EW_FLOAT) {
        store_f(buf, &t);
    } else if (c->kind == EW_DOUBLE) {
        store_d(buf, &t);
    } else {
        const int64_t *src = buf;
        char *p = pc_tensor_data(&t);
        size_t sz = pc_dtype_size(dtype);
        for (int64_t i = 0; i < c->n; i++)
            store_i64(p + (size_t)i * sz, dtype, src[i]);
    }
    *out = t;
    return PC_OK;
}

/* On the device, values autograd holds in a half dtype are rounded to it. */
static void ew_round_device(const ew_ctx *c, void *buf)
{
    if (!buf || c->compute != PC_COMPUTE_DEVICE)
        return;
    if (c->kind == EW_FLOAT)
        round_buffer_f(c->cd, buf, c->n);
    else if (c->kind == EW_DOUBLE)
        round_buffer_d(c->cd, buf, c->n); /* fp64 on the device: nothing to round */
}

/* The gradient of input t: g (compute type, the context's shape) summed to t's shape in
 * double, stored in t's dtype. */
static pc_status ew_store_grad(const ew_ctx *c, const void *g, const pc_tensor *t, pc_tensor *out)
{
    int64_t tn = pc_tensor_numel(t);
    int64_t cstr[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(t->shape, t->rank, cstr);
    double *acc = calloc((size_t)(tn ? tn : 1), sizeof *acc);
    int64_t *offs = ew_offsets(c, t->shape, cstr, t->rank, 0);
    if (!acc || !offs) {
        free(acc);
        free(offs);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", c->name);
    }
    for (int64_t i = 0; i < c->n; i++)
        acc[offs[i]] +=
            c->kind == EW_FLOAT ? (double)((const float *)g)[i] : ((const double *)g)[i];
    free(offs);
    pc_tensor r = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&r, t->dtype, t->shape, t->rank);
    if (st == PC_OK) {
        char *p = pc_tensor_data(&r);
        size_t sz = pc_dtype_size(t->dtype);
        /* autograd sums in the computation dtype, then casts to the input's */
        bool dev = c->compute == PC_COMPUTE_DEVICE && t->dtype != c->cd;
        for (int64_t i = 0; i < tn; i++)
            pc_element_store(p + (size_t)i * sz, t->dtype,
                             dev ? ew_round_f64(c->cd, acc[i]) : acc[i], 0.0);
        *out = r;
    }
    free(acc);
    return st;
}

/* In-place forms: the result goes into self, so it must have self's shape and its dtype must
 * be castable to self's. */
static pc_status ew_inplace_check(const ew_ctx *c, const pc_op_call *call, pc_dtype result,
                                  const pc_tensor *self)
{
    if (call->form != PC_FORM_INPLACE)
        return PC_OK;
    if (!pc_can_cast(result, self->dtype))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: result type %s can't be cast to the desired "
                            "output type %s",
                            call->full_name, pc_torch_type_name(result),
                            pc_torch_type_name(self->dtype));
    if (c->rank != self->rank || memcmp(c->shape, self->shape, sizeof(int64_t) * (size_t)c->rank)) {
        char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(a, sizeof a, self->shape, self->rank);
        pc_shape_format(b, sizeof b, c->shape, c->rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: output with shape %s doesn't match the "
                            "broadcast shape %s",
                            call->full_name, a, b);
    }
    return PC_OK;
}

static bool wants_grad(const pc_op_call *call, int i)
{
    const pc_value *v = &call->args[i];
    return v->kind == PC_VALUE_TENSOR && !v->wrapped && v->requires_grad &&
           pc_dtype_is_float(v->tensor.dtype);
}

static void free_all(void **bufs, int n)
{
    for (int i = 0; i < n; i++)
        free(bufs[i]);
}

/* ---- unary ---- */

typedef enum unary_rule {
    UR_KEEP,          /* any real dtype, kept (bool refused where the row says) */
    UR_FLOAT_PROMOTE, /* integers and bool give float32 */
    UR_FLOAT_ONLY,    /* integers and bool refused */
} unary_rule;

static const struct {
    unary_rule rule;
    bool bool_ok;
    const char *bool_error; /* torch's message for bool input */
    const char *kernel;     /* torch's kernel name in "not implemented" messages */
} unary_info[PC_UNARY_COUNT] = {
    [PC_UNARY_NEG] = {UR_KEEP, false,
                      "Negation, the `-` operator, on a bool tensor is not "
                      "supported. If you are trying to invert a mask, use the `~` or "
                      "`logical_not()` operator instead.",
                      "neg"},
    [PC_UNARY_ABS] = {UR_KEEP, false, "\"abs_cpu\" not implemented for 'Bool'", "abs"},
    [PC_UNARY_EXP] = {UR_FLOAT_PROMOTE, true, NULL, "exp"},
    [PC_UNARY_LOG] = {UR_FLOAT_PROMOTE, true, NULL, "log"},
    [PC_UNARY_SQRT] = {UR_FLOAT_PROMOTE, true, NULL, "sqrt"},
    [PC_UNARY_RSQRT] = {UR_FLOAT_PROMOTE, true, NULL, "rsqrt"},
    [PC_UNARY_SQUARE] = {UR_KEEP, true, NULL, "square"},
    [PC_UNARY_RECIPROCAL] = {UR_FLOAT_PROMOTE, true, NULL, "reciprocal"},
    [PC_UNARY_SIGMOID] = {UR_FLOAT_PROMOTE, true, NULL, "sigmoid"},
    [PC_UNARY_TANH] = {UR_FLOAT_PROMOTE, true, NULL, "tanh"},
    [PC_UNARY_RELU] = {UR_KEEP, false, "Boolean inputs not supported for relu", "relu"},
    [PC_UNARY_SILU] = {UR_FLOAT_ONLY, false, NULL, "silu_cpu"},
    [PC_UNARY_GELU] = {UR_FLOAT_ONLY, false, NULL, "GeluKernelImpl"},
    [PC_UNARY_SIN] = {UR_FLOAT_PROMOTE, true, NULL, "sin"},
    [PC_UNARY_COS] = {UR_FLOAT_PROMOTE, true, NULL, "cos"},
    [PC_UNARY_ERF] = {UR_FLOAT_PROMOTE, true, NULL, "erf"},
};

/* The output dtype of a unary op on x, or an error. */
static pc_status unary_dtype(const pc_op_call *call, pc_unary k, const pc_tensor *x, pc_dtype *od,
                             bool *gelu_tanh)
{
    pc_dtype d = x->dtype;
    *gelu_tanh = false;
    if (pc_dtype_is_complex(d) || d == PC_DTYPE_F8E4M3FN || d == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(d));
    if (d == PC_DTYPE_BOOL && !unary_info[k].bool_ok && unary_info[k].bool_error)
        return pc_error_set(PC_ERR_INVALID, "%s: %s", call->full_name, unary_info[k].bool_error);
    if (k == PC_UNARY_GELU) {
        const pc_value *a = &call->args[1];
        if (strcmp(a->s, "tanh") == 0)
            *gelu_tanh = true;
        else if (strcmp(a->s, "none") != 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: approximate argument must be either none "
                                "or tanh.",
                                call->full_name);
    }
    switch (unary_info[k].rule) {
    case UR_KEEP:
        *od = (k == PC_UNARY_SQUARE && d == PC_DTYPE_BOOL) ? PC_DTYPE_I64 : d;
        break;
    case UR_FLOAT_PROMOTE:
        *od = pc_dtype_is_float(d) ? d : PC_DTYPE_F32;
        break;
    case UR_FLOAT_ONLY:
        if (!pc_dtype_is_float(d))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'",
                                call->full_name, unary_info[k].kernel, pc_torch_type_name(d));
        *od = d;
        break;
    }
    return PC_OK;
}

static void unary_int(pc_unary k, int64_t *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = (uint64_t)x[i];
        switch (k) {
        case PC_UNARY_NEG:
            x[i] = (int64_t)(0u - u);
            break;
        case PC_UNARY_ABS:
            x[i] = x[i] < 0 ? (int64_t)(0u - u) : x[i];
            break;
        case PC_UNARY_SQUARE:
            x[i] = (int64_t)(u * u);
            break;
        case PC_UNARY_RELU:
            x[i] = x[i] > 0 ? x[i] : 0;
            break;
        default:
            break;
        }
    }
}

pc_status pc_k_unary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_unary k = (pc_unary)call->op->param;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype od = PC_DTYPE_INVALID;
    bool gt;
    pc_status st = unary_dtype(call, k, x, &od, &gt);
    if (st != PC_OK)
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, od, &x, 1)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, od, x)) != PC_OK)
        return st;
    void *buf;
    if ((st = ew_load(&c, x, &buf)) != PC_OK)
        return st;
    if (c.kind == EW_FLOAT)
        unary_fwd_f(k, gt, buf, buf, c.n);
    else if (c.kind == EW_DOUBLE)
        unary_fwd_d(k, gt, buf, buf, c.n);
    else
        unary_int(k, buf, c.n);
    st = ew_store(&c, buf, call->form == PC_FORM_INPLACE ? x->dtype : od, &out->tensors[0]);
    free(buf);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_unary_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    pc_unary k = (pc_unary)call->op->param;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype od = PC_DTYPE_INVALID;
    bool gt;
    pc_status st = unary_dtype(call, k, x, &od, &gt);
    if (st != PC_OK || !wants_grad(call, 0))
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, od, &x, 1)) != PC_OK)
        return st;
    void *b[3] = {0};
    if ((st = ew_load(&c, x, &b[0])) != PC_OK || (st = ew_load(&c, grad_out, &b[1])) != PC_OK ||
        (st = ew_load(&c, x, &b[2])) != PC_OK) {
        free_all(b, 3);
        return st;
    }
    if (c.kind == EW_FLOAT) {
        unary_fwd_f(k, gt, b[0], b[2], c.n);
        round_buffer_f(od, b[2], c.n);
        unary_bwd_f(k, gt, b[0], b[2], b[1], b[1], c.n);
    } else {
        unary_fwd_d(k, gt, b[0], b[2], c.n);
        unary_bwd_d(k, gt, b[0], b[2], b[1], b[1], c.n);
    }
    ew_round_device(&c, b[1]);
    st = ew_store_grad(&c, b[1], x, &out->grads[0]);
    free_all(b, 3);
    return st;
}

/* ---- binary ---- */

typedef struct binary_plan {
    pc_binary k;
    int mode;
    pc_dtype od; /* output (and computation) dtype */
    double alpha;
    int64_t alpha_i;
} binary_plan;

static pc_status binary_plan_make(const pc_op_call *call, binary_plan *p)
{
    const pc_value *va = &call->args[0], *vb = &call->args[1];
    const pc_tensor *a = &va->tensor, *b = &vb->tensor;
    p->k = (pc_binary)call->op->param;
    p->mode = EW_DIV_TRUE;
    p->alpha = 1;
    p->alpha_i = 1;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, a, va->wrapped);
    pc_result_type_add_tensor(&rt, b, vb->wrapped);
    pc_dtype common = pc_result_type_get(&rt);
    if (pc_dtype_is_complex(common) || common == PC_DTYPE_F8E4M3FN || common == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(common));
    int ialpha = pc_schema_find_arg(call->op->schema, "alpha");
    if (ialpha >= 0) {
        const pc_value *al = &call->args[ialpha];
        if (!pc_dtype_is_float(common) && al->kind == PC_VALUE_FLOAT)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: For integral input tensors, argument alpha "
                                "must not be a floating point number.",
                                call->full_name);
        if (common == PC_DTYPE_BOOL && al->kind == PC_VALUE_INT && al->i != 0 && al->i != 1)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Boolean alpha only supported for Boolean "
                                "results.",
                                call->full_name);
        p->alpha = al->f;
        p->alpha_i = al->i;
    }
    if (p->k == PC_BINARY_SUB || p->k == PC_BINARY_RSUB) {
        if (a->dtype == PC_DTYPE_BOOL && b->dtype == PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Subtraction, the `-` operator, with two bool "
                                "tensors is not supported. Use the `^` or `logical_xor()` "
                                "operator instead.",
                                call->full_name);
        if (a->dtype == PC_DTYPE_BOOL || b->dtype == PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Subtraction, the `-` operator, with a bool "
                                "tensor is not supported. If you are trying to invert a mask, "
                                "use the `~` or `logical_not()` operator instead.",
                                call->full_name);
    }
    p->od = common;
    if (p->k == PC_BINARY_DIV) {
        const pc_value *rm = &call->args[2];
        if (rm->kind == PC_VALUE_STR) {
            if (strcmp(rm->s, "trunc") == 0)
                p->mode = EW_DIV_TRUNC;
            else if (strcmp(rm->s, "floor") == 0)
                p->mode = EW_DIV_FLOOR;
            else
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: div expected rounding_mode to be one of "
                                    "None, 'trunc', or 'floor' but found '%s'",
                                    call->full_name, rm->s);
        }
        if (p->mode == EW_DIV_TRUE && !pc_dtype_is_float(common))
            p->od = PC_DTYPE_F32;
    }
    if (p->k == PC_BINARY_POW && common == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"pow\" not implemented for 'Bool'",
                            call->full_name);
    return PC_OK;
}

static int64_t ipow(int64_t base, int64_t e)
{
    uint64_t r = 1, b = (uint64_t)base;
    while (e > 0) {
        if (e & 1)
            r *= b;
        b *= b;
        e >>= 1;
    }
    return (int64_t)r;
}

static pc_status binary_int(const pc_op_call *call, const binary_plan *p, const int64_t *a,
                            const int64_t *b, int64_t *y, int64_t n)
{
    uint64_t al = (uint64_t)p->alpha_i;
    for (int64_t i = 0; i < n; i++) {
        uint64_t x = (uint64_t)a[i], z = (uint64_t)b[i];
        switch (p->k) {
        case PC_BINARY_ADD:
            y[i] = (int64_t)(x + al * z);
            break;
        case PC_BINARY_SUB:
            y[i] = (int64_t)(x - al * z);
            break;
        case PC_BINARY_RSUB:
            y[i] = (int64_t)(z - al * x);
            break;
        case PC_BINARY_MUL:
            y[i] = (int64_t)(x * z);
            break;
        case PC_BINARY_DIV: {
            if (b[i] == 0)
                return pc_error_set(PC_ERR_INVALID, "%s: ZeroDivisionError", call->full_name);
            if (a[i] == INT64_MIN && b[i] == -1) {
                y[i] = INT64_MIN;
                break;
            }
            int64_t q = a[i] / b[i];
            if (p->mode == EW_DIV_FLOOR && (a[i] % b[i] != 0) && ((a[i] < 0) != (b[i] < 0)))
                q -= 1;
            y[i] = q;
            break;
        }
        case PC_BINARY_POW:
            if (b[i] < 0) {
                if (a[i] == 1)
                    y[i] = 1;
                else if (a[i] == -1)
                    y[i] = (b[i] & 1) ? -1 : 1;
                else
                    return pc_error_set(PC_ERR_INVALID,
                                        "%s: Integers to negative integer powers "
                                        "are not allowed.",
                                        call->full_name);
            } else {
                y[i] = ipow(a[i], b[i]);
            }
            break;
        case PC_BINARY_MAXIMUM:
            y[i] = a[i] > b[i] ? a[i] : b[i];
            break;
        case PC_BINARY_MINIMUM:
            y[i] = a[i] < b[i] ? a[i] : b[i];
            break;
        default:
            break;
        }
    }
    return PC_OK;
}

pc_status pc_k_binary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    binary_plan p;
    pc_status st = binary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 2)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, p.od, ts[0])) != PC_OK)
        return st;
    void *b[2] = {0};
    if ((st = ew_load(&c, ts[0], &b[0])) != PC_OK || (st = ew_load(&c, ts[1], &b[1])) != PC_OK) {
        free_all(b, 2);
        return st;
    }
    if (c.kind == EW_FLOAT)
        binary_fwd_f(p.k, p.mode, (float)p.alpha, b[0], b[1], b[0], c.n);
    else if (c.kind == EW_DOUBLE)
        binary_fwd_d(p.k, p.mode, p.alpha, b[0], b[1], b[0], c.n);
    else
        st = binary_int(call, &p, b[0], b[1], b[0], c.n);
    if (st == PC_OK)
        st = ew_store(&c, b[0], call->form == PC_FORM_INPLACE ? ts[0]->dtype : p.od,
                      &out->tensors[0]);
    free_all(b, 2);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_binary_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    binary_plan p;
    pc_status st = binary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    bool ga = wants_grad(call, 0), gb = wants_grad(call, 1);
    if ((!ga && !gb) || !pc_dtype_is_float(p.od))
        return PC_OK;
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 2)) != PC_OK)
        return st;
    void *b[5] = {0};
    if ((st = ew_load(&c, ts[0], &b[0])) != PC_OK || (st = ew_load(&c, ts[1], &b[1])) != PC_OK ||
        (st = ew_load(&c, grad_out, &b[2])) != PC_OK)
        goto done;
    b[3] = ga ? malloc((size_t)(c.n ? c.n : 1) * 8) : NULL;
    b[4] = gb ? malloc((size_t)(c.n ? c.n : 1) * 8) : NULL;
    if ((ga && !b[3]) || (gb && !b[4])) {
        st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
        goto done;
    }
    if (c.kind == EW_FLOAT)
        binary_bwd_f(p.k, p.mode, (float)p.alpha, b[0], b[1], b[2], b[3], b[4], c.n);
    else
        binary_bwd_d(p.k, p.mode, p.alpha, b[0], b[1], b[2], b[3], b[4], c.n);
    ew_round_device(&c, b[3]);
    ew_round_device(&c, b[4]);
    if (ga)
        st = ew_store_grad(&c, b[3], ts[0], &out->grads[0]);
    if (st == PC_OK && gb)
        st = ew_store_grad(&c, b[4], ts[1], &out->grads[1]);
done:
    free_all(b, 5);
    return st;
}

/* ---- clamp ---- */

typedef struct clamp_plan {
    const pc_tensor *x, *lo, *hi;
    pc_dtype od;
} clamp_plan;

static pc_status clamp_plan_make(const pc_op_call *call, clamp_plan *p)
{
    int param = call->op->param;
    p->x = pc_call_tensor(call, 0);
    p->lo = param == PC_CLAMP_MAX ? NULL : pc_call_tensor(call, 1);
    p->hi = param == PC_CLAMP_MIN ? NULL : pc_call_tensor(call, param == PC_CLAMP_MAX ? 1 : 2);
    if (!p->lo && !p->hi)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: torch.clamp: At least one of 'min' or 'max' "
                            "must not be None",
                            call->full_name);
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, p->x, false);
    for (int i = 1; i < call->nargs; i++)
        if (pc_call_tensor(call, i))
            pc_result_type_add_tensor(&rt, pc_call_tensor(call, i), call->args[i].wrapped);
    p->od = pc_result_type_get(&rt);
    if (p->od == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"clamp_cpu\" not implemented for 'Bool'",
                            call->full_name);
    if (!pc_dtype_is_float(p->od) && pc_dtype_is_float(p->x->dtype))
        return PC_OK; /* not reachable: promotion keeps the float */
    return PC_OK;
}

pc_status pc_k_clamp_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    clamp_plan p;
    pc_status st = clamp_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {p.x, p.lo, p.hi};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, p.od, p.x)) != PC_OK)
        return st;
    void *b[3] = {0};
    for (int i = 0; i < 3 && st == PC_OK; i++)
        st = ew_load(&c, ts[i], &b[i]);
    if (st == PC_OK) {
        if (c.kind == EW_FLOAT) {
            clamp_fwd_f(b[0], b[1], b[2], b[0], c.n);
        } else if (c.kind == EW_DOUBLE) {
            clamp_fwd_d(b[0], b[1], b[2], b[0], c.n);
        } else {
            int64_t *x = b[0], *lo = b[1], *hi = b[2];
            for (int64_t i = 0; i < c.n; i++) {
                if (lo && x[i] < lo[i])
                    x[i] = lo[i];
                if (hi && x[i] > hi[i])
                    x[i] = hi[i];
            }
        }
        st =
            ew_store(&c, b[0], call->form == PC_FORM_INPLACE ? p.x->dtype : p.od, &out->tensors[0]);
    }
    free_all(b, 3);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_clamp_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    clamp_plan p;
    pc_status st = clamp_plan_make(call, &p);
    if (st != PC_OK || !wants_grad(call, 0))
        return st;
    const pc_tensor *ts[3] = {p.x, p.lo, p.hi};
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    void *b[4] = {0};
    for (int i = 0; i < 3 && st == PC_OK; i++)
        st = ew_load(&c, ts[i], &b[i]);
    if (st == PC_OK)
        st = ew_load(&c, grad_out, &b[3]);
    if (st == PC_OK) {
        if (c.kind == EW_FLOAT)
            clamp_bwd_f(b[0], b[1], b[2], b[3], b[3], c.n);
        else
            clamp_bwd_d(b[0], b[1], b[2], b[3], b[3], c.n);
        st = ew_store_grad(&c, b[3], p.x, &out->grads[0]);
    }
    free_all(b, 4);
    return st;
}

/* ---- where and masked_fill: selections, exact in every compute type ---- */

static pc_status check_bool_mask(const pc_op_call *call, const pc_tensor *m, const char *what)
{
    bool is_where = strncmp(what, "where", 5) == 0;
    if (is_where ? m->dtype != PC_DTYPE_BOOL : !pc_dtype_is_integral(m->dtype))
        return pc_error_set(
            PC_ERR_INVALID, "%s: %s, but got %s with dtype %s", call->full_name, what,
            strcmp(what, "where expected condition to be a boolean tensor") ? "mask" : "a tensor",
            pc_torch_type_name(m->dtype));
    return PC_OK;
}

static pc_dtype where_dtype(const pc_op_call *call)
{
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, &call->args[1].tensor, call->args[1].wrapped);
    pc_result_type_add_tensor(&rt, &call->args[2].tensor, call->args[2].wrapped);
    return pc_result_type_get(&rt);
}

/* y[i] = c[i] ? a[i] : b[i] over 8-byte compute slots (float slots hold floats in the first 4
 * bytes; both are copied whole). */
static void select8(const int64_t *cnd, const void *a, const void *b, void *y, ew_kind kind,
                    int64_t n)
{
    if (kind == EW_FLOAT) {
        const float *fa = a, *fb = b;
        float *fy = y;
        for (int64_t i = 0; i < n; i++)
            fy[i] = cnd[i] ? fa[i] : fb[i];
    } else {
        const int64_t *ia = a, *ib = b;
        int64_t *iy = y;
        for (int64_t i = 0; i < n; i++)
            iy[i] = cnd[i] ? ia[i] : ib[i];
    }
}

/* The condition as int64 0/1 over the context's shape. */
static pc_status load_cond(const ew_ctx *c, const pc_tensor *m, int64_t **out)
{
    ew_ctx ci = *c;
    ci.kind = EW_INT;
    ci.cd = PC_DTYPE_BOOL;
    return ew_load(&ci, m, (void **)out);
}

pc_status pc_k_where_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_status st = check_bool_mask(call, ts[0], "where expected condition to be a boolean tensor");
    if (st != PC_OK)
        return st;
    pc_dtype od = where_dtype(call);
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, od, ts, 3)) != PC_OK)
        return st;
    int64_t *cnd = NULL;
    void *b[2] = {0};
    if ((st = load_cond(&c, ts[0], &cnd)) == PC_OK && (st = ew_load(&c, ts[1], &b[0])) == PC_OK &&
        (st = ew_load(&c, ts[2], &b[1])) == PC_OK) {
        select8(cnd, b[0], b[1], b[0], c.kind, c.n);
        st = ew_store(&c, b[0], od, &out->tensors[0]);
    }
    free(cnd);
    free_all(b, 2);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

/* g = dy where the condition is `keep`, 0 elsewhere, in place. */
static void mask_grad(const ew_ctx *c, const int64_t *cnd, bool keep, void *g)
{
    for (int64_t i = 0; i < c->n; i++) {
        if ((cnd[i] != 0) == keep)
            continue;
        if (c->kind == EW_FLOAT)
            ((float *)g)[i] = 0;
        else
            ((double *)g)[i] = 0;
    }
}

pc_status pc_k_where_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_status st = check_bool_mask(call, ts[0], "where expected condition to be a boolean tensor");
    pc_dtype od = where_dtype(call);
    if (st != PC_OK || !pc_dtype_is_float(od))
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, od, ts, 3)) != PC_OK)
        return st;
    int64_t *cnd = NULL;
    if ((st = load_cond(&c, ts[0], &cnd)) != PC_OK)
        return st;
    for (int i = 1; i <= 2 && st == PC_OK; i++) {
        if (!wants_grad(call, i))
            continue;
        void *g = NULL;
        if ((st = ew_load(&c, grad_out, &g)) == PC_OK) {
            mask_grad(&c, cnd, i == 1, g);
            st = ew_store_grad(&c, g, ts[i], &out->grads[i]);
        }
        free(g);
    }
    free(cnd);
    return st;
}

static pc_status masked_fill_check(const pc_op_call *call)
{
    const pc_tensor *m = pc_call_tensor(call, 1), *v = pc_call_tensor(call, 2);
    pc_status st = check_bool_mask(call, m, "masked_fill_ only supports boolean masks");
    if (st != PC_OK)
        return st;
    if (v->rank != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: masked_fill_ only supports a 0-dimensional "
                            "value tensor, but got tensor with %d dimension(s).",
                            call->full_name, v->rank);
    return PC_OK;
}

pc_status pc_k_masked_fill_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_status st = masked_fill_check(call);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_dtype od = ts[0]->dtype;
    ew_ctx c;
    /* in place, the mask broadcasts to self; out of place both broadcast */
    if ((st = ew_init(&c, call, compute, od, ts, 2)) != PC_OK)
        return st;
    if ((st = ew_inplace_check(&c, call, od, ts[0])) != PC_OK)
        return st;
    int64_t *cnd = NULL;
    void *b[2] = {0};
    /* the value goes through the output dtype first (torch converts it to self's dtype) */
    double fill;
    pc_element_load(pc_tensor_data(ts[2]), ts[2]->dtype, &fill, NULL);
    if ((st = load_cond(&c, ts[1], &cnd)) == PC_OK && (st = ew_load(&c, ts[0], &b[0])) == PC_OK) {
        b[1] = malloc((size_t)(c.n ? c.n : 1) * 8);
        if (!b[1]) {
            st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
        } else {
            char cell[16] = {0};
            double v;
            pc_element_store(cell, od, fill, 0.0);
            pc_element_load(cell, od, &v, NULL);
            int64_t vi = c.kind == EW_INT ? load_i64(pc_tensor_data(ts[2]), ts[2]->dtype) : 0;
            if (c.kind == EW_INT && pc_dtype_is_float(ts[2]->dtype))
                vi = (int64_t)v;
            if (c.kind == EW_INT && od == PC_DTYPE_BOOL)
                vi = vi != 0 || (pc_dtype_is_float(ts[2]->dtype) && fill != 0);
            for (int64_t i = 0; i < c.n; i++) {
                if (c.kind == EW_FLOAT)
                    ((float *)b[1])[i] = (float)v;
                else if (c.kind == EW_DOUBLE)
                    ((double *)b[1])[i] = v;
                else
                    ((int64_t *)b[1])[i] = vi;
            }
            select8(cnd, b[1], b[0], b[0], c.kind, c.n);
            st = ew_store(&c, b[0], od, &out->tensors[0]);
        }
    }
    free(cnd);
    free_all(b, 2);
    if (st == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_masked_fill_backward(const pc_op_call *call, pc_compute compute,
                                    const pc_tensor *grad_out, pc_op_grads *out)
{
    pc_status st = masked_fill_check(call);
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    if (st != PC_OK || !pc_dtype_is_float(ts[0]->dtype))
        return st;
    ew_ctx c;
    if ((st = ew_init(&c, call, compute, ts[0]->dtype, ts, 2)) != PC_OK)
        return st;
    int64_t *cnd = NULL;
    if ((st = load_cond(&c, ts[1], &cnd)) != PC_OK)
        return st;
    for (int i = 0; i <= 2 && st == PC_OK; i += 2) {
        if (!wants_grad(call, i))
            continue;
        void *g = NULL;
        if ((st = ew_load(&c, grad_out, &g)) == PC_OK) {
            mask_grad(&c, cnd, i == 2, g);
            st = ew_store_grad(&c, g, pc_call_tensor(call, i), &out->grads[i]);
        }
        free(g);
    }
    free(cnd);
    return st;
}

/* ---- casts ---- */

static pc_dtype cast_target(const pc_op_call *call)
{
    int param = call->op->param;
    if (param == PC_CAST_TO_ARG)
        return call->args[1].dtype;
    if (param == PC_CAST_TYPE_AS)
        return call->args[1].tensor.dtype;
    return (pc_dtype)param;
}

pc_status pc_k_cast_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_status st = pc_tensor_cast(&out->tensors[0], pc_call_tensor(call, 0), cast_target(call));
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_cast_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_dtype target = cast_target(call);
    if (!wants_grad(call, 0) || !pc_dtype_is_float(target))
        return PC_OK;
    /* autograd holds the gradient in the output's dtype, then casts it back */
    pc_tensor g = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&g, grad_out, target);
    if (st == PC_OK)
        st = pc_tensor_cast(&out->grads[0], &g, x->dtype);
    pc_tensor_free(&g);
    return st;
}
