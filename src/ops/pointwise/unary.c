/*
 * The unary element-wise ops: math and activations (pc_unary), forward and backward, on the
 * element-wise engine (elementwise.h); their math in unary_kernel.inc.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/pointwise/elementwise.h"
#include "ops/pointwise/pointwise_impl.h"
#include "precheck/core/convert.h"

/* The parameters of a unary function (softplus: a beta, b threshold; elu/selu: a alpha,
 * b scale, c input scale; hardtanh/relu6: a min, b max; nan_to_num: a, b, c the values for
 * NaN, +inf and -inf, already in the output dtype). */
typedef struct ew_uparams {
    bool gelu_tanh;
    double a, b, c;
} ew_uparams;

#define PC_TWIN_TEMPLATE "ops/pointwise/unary_kernel.inc"
#include "ops/kernel_twins.h"

/* ---- unary ---- */

typedef enum unary_rule {
    UR_KEEP,          /* any real dtype, kept (bool refused where the row says) */
    UR_FLOAT_PROMOTE, /* integers and bool give float32 */
    UR_FLOAT_ONLY,    /* integers and bool refused */
    UR_BOOL_OUT,      /* any real dtype, computed in it, a bool result */
    UR_INT_ONLY,      /* integers and bool, kept; floats refused */
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
    [PC_UNARY_SIGN] = {UR_KEEP, true, NULL, "sign"},
    [PC_UNARY_FLOOR] = {UR_KEEP, false, "\"floor_vml_cpu\" not implemented for 'Bool'", "floor"},
    [PC_UNARY_CEIL] = {UR_KEEP, false, "\"ceil_vml_cpu\" not implemented for 'Bool'", "ceil"},
    [PC_UNARY_ROUND] = {UR_KEEP, false, "\"round_vml_cpu\" not implemented for 'Bool'", "round"},
    [PC_UNARY_TRUNC] = {UR_KEEP, false, "\"trunc_vml_cpu\" not implemented for 'Bool'", "trunc"},
    [PC_UNARY_FRAC] = {UR_FLOAT_ONLY, false, NULL, "frac_cpu"},
    [PC_UNARY_EXP2] = {UR_FLOAT_PROMOTE, true, NULL, "exp2"},
    [PC_UNARY_EXPM1] = {UR_FLOAT_PROMOTE, true, NULL, "expm1"},
    [PC_UNARY_LOG2] = {UR_FLOAT_PROMOTE, true, NULL, "log2"},
    [PC_UNARY_LOG10] = {UR_FLOAT_PROMOTE, true, NULL, "log10"},
    [PC_UNARY_LOG1P] = {UR_FLOAT_PROMOTE, true, NULL, "log1p"},
    [PC_UNARY_SINH] = {UR_FLOAT_PROMOTE, true, NULL, "sinh"},
    [PC_UNARY_COSH] = {UR_FLOAT_PROMOTE, true, NULL, "cosh"},
    [PC_UNARY_ASIN] = {UR_FLOAT_PROMOTE, true, NULL, "asin"},
    [PC_UNARY_ACOS] = {UR_FLOAT_PROMOTE, true, NULL, "acos"},
    [PC_UNARY_ATAN] = {UR_FLOAT_PROMOTE, true, NULL, "atan"},
    [PC_UNARY_TAN] = {UR_FLOAT_PROMOTE, true, NULL, "tan"},
    [PC_UNARY_ERFINV] = {UR_FLOAT_PROMOTE, true, NULL, "erfinv"},
    [PC_UNARY_SOFTPLUS] = {UR_FLOAT_ONLY, false, NULL, "softplus_cpu"},
    [PC_UNARY_HARDSWISH] = {UR_FLOAT_ONLY, false, NULL, "hardswish_cpu"},
    [PC_UNARY_HARDSIGMOID] = {UR_FLOAT_ONLY, false, NULL, "hardsigmoid_cpu"},
    [PC_UNARY_MISH] = {UR_FLOAT_ONLY, false, NULL, "mish_cpu"},
    [PC_UNARY_ELU] = {UR_FLOAT_ONLY, false, NULL, "elu_cpu"},
    [PC_UNARY_SELU] = {UR_FLOAT_ONLY, false, NULL, "elu_cpu"},
    [PC_UNARY_LOGSIGMOID] = {UR_FLOAT_ONLY, false, NULL, "log_sigmoid_cpu"},
    [PC_UNARY_HARDTANH] = {UR_KEEP, false, "Bool inputs not supported for hardtanh", "hardtanh"},
    [PC_UNARY_RELU6] = {UR_KEEP, false, "Bool inputs not supported for hardtanh", "relu6"},
    [PC_UNARY_ISINF] = {UR_BOOL_OUT, true, NULL, "isinf"},
    [PC_UNARY_ISNAN] = {UR_BOOL_OUT, true, NULL, "isnan"},
    [PC_UNARY_ISFINITE] = {UR_BOOL_OUT, true, NULL, "isfinite"},
    [PC_UNARY_LOGICAL_NOT] = {UR_BOOL_OUT, true, NULL, "logical_not"},
    [PC_UNARY_BITWISE_NOT] = {UR_INT_ONLY, true, NULL, "bitwise_not_cpu"},
    [PC_UNARY_NAN_TO_NUM] = {UR_KEEP, true, NULL, "nan_to_num"},
};

typedef struct unary_plan {
    pc_unary k;
    ew_uparams up;
    pc_dtype od; /* the result's dtype */
    pc_dtype cd; /* the dtype it is computed in (od but for the bool results) */
} unary_plan;

/* A Scalar / float argument by name as a double (def where it is None or absent). */
static double arg_f64(const pc_op_call *call, const char *name, double def)
{
    int i = pc_schema_find_arg(call->op->schema, name);
    if (i < 0 || call->args[i].kind == PC_VALUE_NONE)
        return def;
    return call->args[i].f;
}

/* The parameters of p->k from the call, once p->od is known. */
static pc_status unary_params(const pc_op_call *call, unary_plan *p)
{
    ew_uparams *u = &p->up;
    switch (p->k) {
    case PC_UNARY_SOFTPLUS:
        u->a = arg_f64(call, "beta", 1.0);
        u->b = arg_f64(call, "threshold", 20.0);
        break;
    case PC_UNARY_ELU:
        u->a = arg_f64(call, "alpha", 1.0);
        u->b = 1.0;
        u->c = 1.0;
        break;
    case PC_UNARY_SELU:
        u->a = 1.6732632423543772848170429916717;
        u->b = 1.0507009873554804934193349852946;
        u->c = 1.0;
        break;
    case PC_UNARY_HARDTANH:
        u->a = arg_f64(call, "min_val", -1.0);
        u->b = arg_f64(call, "max_val", 1.0);
        break;
    case PC_UNARY_RELU6:
        u->a = 0.0;
        u->b = 6.0;
        break;
    case PC_UNARY_ROUND: {
        /* decimals: x * 10^d rounded, / 10^d (d < 0: x / 10^-d rounded, * 10^-d), as
         * torch's round_decimals kernel; integers and bool refused there */
        int i = pc_schema_find_arg(call->op->schema, "decimals");
        int64_t dec = i >= 0 && call->args[i].kind == PC_VALUE_INT ? call->args[i].i : 0;
        u->a = 1.0;
        if (dec != 0) {
            if (!pc_dtype_is_float(p->od))
                return pc_error_set(PC_ERR_INVALID, "%s: \"round_cpu\" not implemented for '%s'",
                                    call->full_name, pc_torch_type_name(p->od));
            u->a = pow(10.0, (double)(dec < 0 ? -dec : dec));
            u->b = dec < 0 ? 1.0 : 0.0;
        }
        break;
    }
    case PC_UNARY_NAN_TO_NUM:
        if (pc_dtype_is_float(p->od)) {
            double big = p->od == PC_DTYPE_F16    ? 65504.0
                         : p->od == PC_DTYPE_BF16 ? 3.3895313892515355e38
                         : p->od == PC_DTYPE_F32  ? 3.4028234663852886e38
                                                  : 1.7976931348623157e308;
            u->a = pc_round_to_dtype(arg_f64(call, "nan", 0.0), p->od);
            u->b = pc_round_to_dtype(arg_f64(call, "posinf", big), p->od);
            u->c = pc_round_to_dtype(arg_f64(call, "neginf", -big), p->od);
        }
        break;
    default:
        break;
    }
    return PC_OK;
}

/* The output dtype of a unary op on x (and its parameters), or an error. */
static pc_status unary_plan_make(const pc_op_call *call, unary_plan *p)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_unary k = (pc_unary)call->op->param;
    memset(p, 0, sizeof *p);
    p->k = k;
    pc_dtype d = pc_kernel_dtype(call, x);
    if (pc_dtype_is_complex(d) || d == PC_DTYPE_F8E4M3FN || d == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(d));
    if (d == PC_DTYPE_BOOL && !unary_info[k].bool_ok && unary_info[k].bool_error)
        return pc_error_set(PC_ERR_INVALID, "%s: %s", call->full_name, unary_info[k].bool_error);
    if (k == PC_UNARY_GELU) {
        const pc_value *a = &call->args[1];
        if (strcmp(a->s, "tanh") == 0)
            p->up.gelu_tanh = true;
        else if (strcmp(a->s, "none") != 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: approximate argument must be either none "
                                "or tanh.",
                                call->full_name);
    }
    switch (unary_info[k].rule) {
    case UR_KEEP:
        p->od = (k == PC_UNARY_SQUARE && d == PC_DTYPE_BOOL) ? PC_DTYPE_I64 : d;
        break;
    case UR_FLOAT_PROMOTE:
        p->od = pc_dtype_is_float(d) ? d : PC_DTYPE_F32;
        break;
    case UR_FLOAT_ONLY:
        if (!pc_dtype_is_float(d))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'",
                                call->full_name, unary_info[k].kernel, pc_torch_type_name(d));
        p->od = d;
        break;
    case UR_BOOL_OUT:
        p->od = PC_DTYPE_BOOL;
        break;
    case UR_INT_ONLY:
        if (pc_dtype_is_float(d))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'",
                                call->full_name, unary_info[k].kernel, pc_torch_type_name(d));
        p->od = d;
        break;
    }
    p->cd = unary_info[k].rule == UR_BOOL_OUT ? d : p->od;
    return unary_params(call, p);
}

/* The integer forms (exact; bool values are 0/1 when is_bool). */
static void unary_int(const unary_plan *p, bool is_bool, int64_t *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t u = (uint64_t)x[i];
        switch (p->k) {
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
        case PC_UNARY_SIGN:
            x[i] = (x[i] > 0) - (x[i] < 0);
            break;
        case PC_UNARY_HARDTANH:
        case PC_UNARY_RELU6: {
            /* the bounds as integers (torch converts the Scalar bounds to the dtype) */
            int64_t lo = f64_to_i64_sat(p->up.a), hi = f64_to_i64_sat(p->up.b);
            x[i] = x[i] < lo ? lo : (x[i] > hi ? hi : x[i]);
            break;
        }
        case PC_UNARY_ISINF:
        case PC_UNARY_ISNAN:
            x[i] = 0;
            break;
        case PC_UNARY_ISFINITE:
            x[i] = 1;
            break;
        case PC_UNARY_LOGICAL_NOT:
            x[i] = x[i] == 0;
            break;
        case PC_UNARY_BITWISE_NOT:
            x[i] = is_bool ? !x[i] : (int64_t)~u;
            break;
        default: /* floor, ceil, round, trunc, nan_to_num: the value */
            break;
        }
    }
}

static int unary_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    const unary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT) {
        unary_fwd_f(p->k, &p->up, in[0], out[0], len);
    } else if (l->c->kind == EW_DOUBLE) {
        unary_fwd_d(p->k, &p->up, in[0], out[0], len);
    } else {
        memcpy(out[0], in[0], (size_t)len * 8);
        unary_int(p, p->cd == PC_DTYPE_BOOL, out[0], len);
    }
    return 0;
}

pc_status pc_k_unary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    unary_plan p;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = unary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.cd, &x, 1)) != PC_OK)
        return st;
    if ((st = pc_ew_inplace_check(&c, call, p.od, x)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, unary_fwd_chunk, &p);
    pc_ew_loop_input(&l, x);
    pc_ew_loop_store(&l, call->form == PC_FORM_INPLACE ? pc_kernel_dtype(call, x) : p.od);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* Whether the derivative of k reads the forward result (unary_bwd's r); the others take it
 * from x alone, and the backward need not compute the forward again (GELU's erf). */
static bool unary_bwd_uses_result(pc_unary k)
{
    switch (k) {
    case PC_UNARY_EXP:
    case PC_UNARY_SQRT:
    case PC_UNARY_RSQRT:
    case PC_UNARY_RECIPROCAL:
    case PC_UNARY_SIGMOID:
    case PC_UNARY_TANH:
    case PC_UNARY_RELU:
    case PC_UNARY_EXP2:
    case PC_UNARY_EXPM1:
    case PC_UNARY_TAN:
    case PC_UNARY_ERFINV:
        return true;
    default:
        return false;
    }
}

/* in: x, dy; out: dx; tmp: the forward result, rounded to the output dtype as autograd saw
 * it, where the derivative reads it (else x stands in, unread; GELU's erf form keeps its erf
 * values there). */
static int unary_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    const unary_plan *p = l->arg;
    bool uses = unary_bwd_uses_result(p->k);
    if (l->c->kind == EW_FLOAT) {
        if (uses) {
            unary_fwd_f(p->k, &p->up, in[0], tmp, len);
            round_chunk_f(p->od, tmp, len);
        }
        unary_bwd_f(p->k, &p->up, in[0], uses ? tmp : in[0], in[1], out[0], tmp, len);
    } else {
        if (uses)
            unary_fwd_d(p->k, &p->up, in[0], tmp, len);
        unary_bwd_d(p->k, &p->up, in[0], uses ? tmp : in[0], in[1], out[0], tmp, len);
    }
    pc_ew_round_device(l->c, out[0], len);
    return 0;
}

pc_status pc_k_unary_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    unary_plan p;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = unary_plan_make(call, &p);
    if (st != PC_OK || !pc_ew_wants_grad(call, 0) || !pc_dtype_is_float(p.od))
        return st;
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.od, &x, 1)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, unary_bwd_chunk, &p);
    pc_ew_loop_input(&l, x);
    pc_ew_loop_input(&l, grad_out);
    pc_ew_loop_grad(&l, x);
    l.tmp = true;
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    pc_ew_loop_take_grad(&l, 0, &out->grads[0]);
    return PC_OK;
}
