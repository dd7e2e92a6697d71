/*
 * The binary element-wise ops (pc_binary): arithmetic, comparisons, logical and bitwise ops,
 * forward and backward, and outer (mul's kernels over a column and a row), on the element-wise
 * engine (elementwise.h); their math in binary_kernel.inc.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/pointwise/elementwise.h"
#include "ops/pointwise/pointwise_impl.h"
#include "precheck/core/convert.h"
#include "ops/reduce/reduce_impl.h"

enum { EW_DIV_TRUE, EW_DIV_TRUNC, EW_DIV_FLOOR };

/* Whether binary_bwd takes the gradients of k a loop per gradient (add, sub, rsub, mul, true
 * division: vectorised), the other ops in one loop over both. */
static inline bool binary_bwd_simple(pc_binary k, int mode)
{
    return k == PC_BINARY_ADD || k == PC_BINARY_SUB || k == PC_BINARY_RSUB || k == PC_BINARY_MUL ||
           (k == PC_BINARY_DIV && mode == EW_DIV_TRUE);
}

/* Which inputs binary_bwd reads for the gradients wanted (ga: a's, gb: b's): a simple op reads
 * the other input for a product or a quotient only (add's gradients read dy alone). */
static void binary_bwd_reads(pc_binary k, int mode, bool ga, bool gb, bool *read_a, bool *read_b)
{
    if (!binary_bwd_simple(k, mode)) {
        *read_a = *read_b = true;
        return;
    }
    bool mul = k == PC_BINARY_MUL, div = k == PC_BINARY_DIV;
    *read_a = gb && (mul || div);                  /* db = dy a; db = -dy a / (b b) */
    *read_b = (ga && (mul || div)) || (gb && div); /* da = dy b; da = dy / b */
}

#define PC_TWIN_TEMPLATE "ops/pointwise/binary_kernel.inc"
#include "ops/kernel_twins.h"

/* ---- binary ---- */

typedef struct binary_plan {
    pc_binary k;
    int mode;
    pc_dtype od;         /* output dtype */
    pc_dtype cd;         /* computation dtype: od, or the operands' common dtype for bool results */
    pc_dtype sq_a, sq_b; /* backward of atan2 on the device: see binary_bwd */
    double alpha;
    int64_t alpha_i;
} binary_plan;

static pc_status binary_plan_make(const pc_op_call *call, binary_plan *p)
{
    const pc_value *va = &call->args[0], *vb = &call->args[1];
    const pc_tensor *a = &va->tensor, *b = &vb->tensor;
    p->k = (pc_binary)call->op->param;
    p->mode = EW_DIV_TRUE;
    p->sq_a = p->sq_b = PC_DTYPE_INVALID;
    p->alpha = 1;
    p->alpha_i = 1;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_kernel_result_type_add(call, &rt, a, va->wrapped);
    pc_kernel_result_type_add(call, &rt, b, vb->wrapped);
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
    p->cd = p->od;
    switch (p->k) {
    case PC_BINARY_EQ:
    case PC_BINARY_NE:
    case PC_BINARY_LT:
    case PC_BINARY_LE:
    case PC_BINARY_GT:
    case PC_BINARY_GE:
    case PC_BINARY_LOGICAL_AND:
    case PC_BINARY_LOGICAL_OR:
    case PC_BINARY_LOGICAL_XOR:
        p->od = PC_DTYPE_BOOL;
        break;
    case PC_BINARY_BITWISE_AND:
    case PC_BINARY_BITWISE_OR:
    case PC_BINARY_BITWISE_XOR:
        if (pc_dtype_is_float(common))
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s_cpu\" not implemented for '%s'",
                                call->full_name, call->op->name, pc_torch_type_name(common));
        break;
    case PC_BINARY_ATAN2:
        if (!pc_dtype_is_float(common))
            p->od = p->cd = PC_DTYPE_F32;
        break;
    case PC_BINARY_FLOOR_DIVIDE:
    case PC_BINARY_REMAINDER:
    case PC_BINARY_FMOD:
        if (common == PC_DTYPE_BOOL)
            return pc_error_set(PC_ERR_INVALID, "%s: \"%s_cpu\" not implemented for 'Bool'",
                                call->full_name,
                                p->k == PC_BINARY_FLOOR_DIVIDE ? "div_floor" : call->op->name);
        p->mode = p->k == PC_BINARY_FLOOR_DIVIDE ? EW_DIV_FLOOR : p->mode;
        break;
    default:
        break;
    }
    if (p->k == PC_BINARY_POW && common == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"pow\" not implemented for 'Bool'",
                            call->full_name);
    if (p->k == PC_BINARY_POW && vb->wrapped) {
        /* pow(Tensor, Scalar) converts the exponent to the result dtype, checked */
        double e;
        pc_element_load(pc_tensor_data(b), b->dtype, &e, NULL);
        const char *tn = pc_ew_scalar_overflows(p->od, e);
        if (tn)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: value cannot be converted to type %s without overflow",
                                call->full_name, tn);
    }
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

enum { EW_ERR_ZERO_DIV = 1, EW_ERR_NEG_POW };

/* y = a op b exactly, wrapping like torch; 0, or the error code of the first element torch
 * refuses. */
static int binary_int(const binary_plan *p, const int64_t *a, const int64_t *b, int64_t *y,
                      int64_t n)
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
                return EW_ERR_ZERO_DIV;
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
                    return EW_ERR_NEG_POW;
            } else {
                y[i] = ipow(a[i], b[i]);
            }
            break;
        case PC_BINARY_FLOOR_DIVIDE: {
            if (b[i] == 0)
                return EW_ERR_ZERO_DIV;
            if (a[i] == INT64_MIN && b[i] == -1) {
                y[i] = INT64_MIN;
                break;
            }
            int64_t q = a[i] / b[i];
            if ((a[i] % b[i] != 0) && ((a[i] < 0) != (b[i] < 0)))
                q -= 1;
            y[i] = q;
            break;
        }
        case PC_BINARY_REMAINDER:
        case PC_BINARY_FMOD: {
            if (b[i] == 0)
                return EW_ERR_ZERO_DIV;
            int64_t r = b[i] == -1 ? 0 : a[i] % b[i];
            if (p->k == PC_BINARY_REMAINDER && r != 0 && ((r < 0) != (b[i] < 0)))
                r += b[i];
            y[i] = r;
            break;
        }
        case PC_BINARY_EQ:
            y[i] = a[i] == b[i];
            break;
        case PC_BINARY_NE:
            y[i] = a[i] != b[i];
            break;
        case PC_BINARY_LT:
            y[i] = a[i] < b[i];
            break;
        case PC_BINARY_LE:
            y[i] = a[i] <= b[i];
            break;
        case PC_BINARY_GT:
            y[i] = a[i] > b[i];
            break;
        case PC_BINARY_GE:
            y[i] = a[i] >= b[i];
            break;
        case PC_BINARY_LOGICAL_AND:
            y[i] = a[i] != 0 && b[i] != 0;
            break;
        case PC_BINARY_LOGICAL_OR:
            y[i] = a[i] != 0 || b[i] != 0;
            break;
        case PC_BINARY_LOGICAL_XOR:
            y[i] = (a[i] != 0) != (b[i] != 0);
            break;
        case PC_BINARY_BITWISE_AND:
            y[i] = (int64_t)(x & z);
            break;
        case PC_BINARY_BITWISE_OR:
            y[i] = (int64_t)(x | z);
            break;
        case PC_BINARY_BITWISE_XOR:
            y[i] = (int64_t)(x ^ z);
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
    return 0;
}

static int binary_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                            int64_t len)
{
    const binary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT)
        binary_fwd_f(p->k, p->mode, (float)p->alpha, in[0], in[1], out[0], len);
    else if (l->c->kind == EW_DOUBLE)
        binary_fwd_d(p->k, p->mode, p->alpha, in[0], in[1], out[0], len);
    else
        return binary_int(p, in[0], in[1], out[0], len);
    return 0;
}

pc_status pc_k_binary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    binary_plan p;
    pc_status st = binary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.cd, ts, 2)) != PC_OK)
        return st;
    if ((st = pc_ew_inplace_check(&c, call, p.od, ts[0])) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, binary_fwd_chunk, &p);
    pc_ew_loop_input(&l, ts[0]);
    pc_ew_loop_input(&l, ts[1]);
    if (p.k != PC_BINARY_POW) /* torch's pow(Tensor, Scalar) keeps the exponent as it is */
        pc_ew_loop_wrap_inputs(&l, p.cd);
    pc_ew_loop_store(&l, call->form == PC_FORM_INPLACE ? pc_kernel_dtype(call, ts[0]) : p.od);
    if ((st = pc_ew_loop_run(&l)) != PC_OK) {
        if (l.err == EW_ERR_ZERO_DIV)
            return pc_error_set(PC_ERR_INVALID, "%s: ZeroDivisionError", call->full_name);
        if (l.err == EW_ERR_NEG_POW)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Integers to negative integer powers "
                                "are not allowed.",
                                call->full_name);
        return st;
    }
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: a, b, dy (a or b absent where the gradients do not read it: binary_bwd_reads); out: da, db
 * (either may be absent). */
static int binary_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                            int64_t len)
{
    const binary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT)
        binary_bwd_f(p->k, p->mode, (float)p->alpha, p->sq_a, p->sq_b, in[0], in[1], in[2], out[0],
                     out[1], len);
    else
        binary_bwd_d(p->k, p->mode, p->alpha, p->sq_a, p->sq_b, in[0], in[1], in[2], out[0], out[1],
                     len);
    pc_ew_round_device(l->c, out[0], len);
    pc_ew_round_device(l->c, out[1], len);
    return 0;
}

pc_status pc_k_binary_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    binary_plan p;
    pc_status st = binary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    p.sq_a = p.sq_b = PC_DTYPE_INVALID;
    if (compute == PC_COMPUTE_DEVICE && p.k == PC_BINARY_ATAN2) {
        /* torch's atan2 backward squares each input in its own dtype */
        pc_dtype da = pc_kernel_dtype(call, &call->args[0].tensor),
                 db = pc_kernel_dtype(call, &call->args[1].tensor);
        if (da != p.cd)
            p.sq_a = da;
        if (db != p.cd)
            p.sq_b = db;
    }
    bool ga = pc_ew_wants_grad(call, 0), gb = pc_ew_wants_grad(call, 1);
    /* torch has no derivative of remainder(Scalar, Tensor) (Tensor.__rmod__): none here */
    if (p.k == PC_BINARY_REMAINDER && call->args[0].wrapped)
        gb = false;
    if ((!ga && !gb) || !pc_dtype_is_float(p.od))
        return PC_OK;
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.cd, ts, 2)) != PC_OK)
        return st;
    ew_loop l;
    /* an input the gradients do not read is not gathered (absent: in[k] NULL) */
    bool read_a, read_b;
    binary_bwd_reads(p.k, p.mode, ga, gb, &read_a, &read_b);
    pc_ew_loop_init(&l, &c, binary_bwd_chunk, &p);
    pc_ew_loop_input(&l, read_a ? ts[0] : NULL);
    pc_ew_loop_input(&l, read_b ? ts[1] : NULL);
    pc_ew_loop_input(&l, grad_out);
    pc_ew_loop_grad(&l, ga ? ts[0] : NULL);
    pc_ew_loop_grad(&l, gb ? ts[1] : NULL);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    pc_ew_loop_take_grad(&l, 0, &out->grads[0]);
    pc_ew_loop_take_grad(&l, 1, &out->grads[1]);
    return PC_OK;
}

/* ---- outer (ger): torch 1.13 computes self.reshape({n, 1}) * vec2 ---- */

/* call with its self seen as the column [n, 1]: *col holds the new reference, call->args[0]
 * of *out borrows it (the other tensors are call's; nothing of *out is freed but *col). */
static pc_status outer_call(const pc_op_call *call, pc_op_call *out, pc_tensor *col)
{
    static const char *const names[2] = {"self", "vec2"};
    for (int i = 0; i < 2; i++) {
        const pc_tensor *t = pc_call_tensor(call, i);
        if (t->rank != 1)
            return pc_error_set(PC_ERR_INVALID, "%s: outer: Expected 1-D argument %s, but got %d-D",
                                call->full_name, names[i], t->rank);
    }
    const pc_tensor *x = pc_call_tensor(call, 0);
    int64_t shape[2] = {x->shape[0], 1}, strides[2] = {x->strides[0], 1};
    pc_status st = pc_tensor_view(col, x, shape, strides, 2, x->offset);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    *out = *call;
    out->args[0].tensor = *col;
    return PC_OK;
}

pc_status pc_k_outer_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_op_call c;
    pc_tensor col = PC_TENSOR_NULL;
    pc_status st = outer_call(call, &c, &col);
    if (st == PC_OK)
        st = pc_k_binary_forward(&c, compute, out);
    pc_tensor_free(&col);
    return st;
}

/*
 * Gradient of input which (0: self, 1: vec2) of outer, as autograd forms mul's: the products
 * P = dy * other, each rounded to the result dtype (the device's float opmath products of two
 * values of at most float precision are exact in double, so rounding them once is the float
 * product), then P summed over the other input's dimension in torch 1.13's CPU order where the
 * reduction group knows it (float32, float64; P is a contiguous [n, m]: self's sum is an inner
 * reduction, vec2's an outer one), else compensated; the sum rounded to the result dtype, then
 * cast to the input's dtype as the autograd engine does.
 */
static pc_status outer_grad(const pc_op_call *call, pc_compute compute, const pc_tensor *dy,
                            pc_dtype od, int which, pc_tensor *g)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *y = pc_call_tensor(call, 1);
    int64_t n = x->shape[0], m = y->shape[0];
    pc_tensor d64 = PC_TENSOR_NULL, o64 = PC_TENSOR_NULL, prod = PC_TENSOR_NULL;
    pc_tensor buf = PC_TENSOR_NULL;
    double *sums = NULL;
    int64_t shape[2] = {n, m};
    pc_status st = pc_tensor_cast(&d64, dy, PC_DTYPE_F64);
    if (st == PC_OK && !pc_tensor_is_contiguous(&d64)) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, &d64);
        pc_tensor_free(&d64);
        d64 = c;
    }
    if (st == PC_OK)
        st = pc_tensor_cast(&o64, which == 0 ? y : x, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_alloc_uninit(&prod, PC_DTYPE_F64, shape, 2);
    if (st != PC_OK)
        goto done;
    const double *dv = pc_tensor_data(&d64);
    double *pv = pc_tensor_data(&prod);
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < m; j++) {
            int64_t k = which == 0 ? j : i;
            double o = pc_tensor_get(&o64, &k);
            pv[i * m + j] = pc_reduce_round(compute, od, dv[i * m + j] * o);
        }
    }
    pc_value dim = {.kind = PC_VALUE_INT, .i = which == 0 ? 1 : 0, .src_pos = -1};
    pc_reduce_plan p;
    if ((st = pc_reduce_plan_make(call, &prod, &dim, false, &p)) != PC_OK)
        goto done;
    if ((st = pc_reduce_load(&p, &prod, PC_DTYPE_F64, &buf)) != PC_OK)
        goto done;
    sums = malloc((size_t)(p.outer > 0 ? p.outer : 1) * sizeof *sums);
    if (!sums) {
        st = pc_reduce_nomem(call);
        goto done;
    }
    const double *v = pc_tensor_data(&buf);
    pc_dtype sd = compute == PC_COMPUTE_BENCH ? PC_DTYPE_F64 : od;
    if (!pc_reduce_torch_sums(&p, sd, v, sums))
        for (int64_t o = 0; o < p.outer; o++)
            sums[o] = pc_reduce_sum(v + o * p.inner, p.inner, 1);
    pc_tensor s = PC_TENSOR_NULL;
    if ((st = pc_shape_store(&s, od, p.out_shape, p.out_rank, sums)) != PC_OK)
        goto done;
    const pc_tensor *in = which == 0 ? x : y;
    if (in->dtype == od) {
        *g = s;
    } else {
        st = pc_tensor_cast(g, &s, in->dtype);
        pc_tensor_free(&s);
    }
done:
    free(sums);
    pc_tensor_free(&d64);
    pc_tensor_free(&o64);
    pc_tensor_free(&prod);
    pc_tensor_free(&buf);
    return st;
}

pc_status pc_k_outer_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    pc_op_call c;
    pc_tensor col = PC_TENSOR_NULL;
    pc_status st = outer_call(call, &c, &col);
    pc_tensor_free(&col);
    if (st != PC_OK)
        return st;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    pc_result_type_add_tensor(&rt, pc_call_tensor(call, 0), false);
    pc_result_type_add_tensor(&rt, pc_call_tensor(call, 1), false);
    pc_dtype od = pc_result_type_get(&rt);
    if (!pc_dtype_is_float(od))
        return PC_OK;
    const pc_tensor *x = pc_call_tensor(call, 0), *y = pc_call_tensor(call, 1);
    if (grad_out->rank != 2 || grad_out->shape[0] != x->shape[0] ||
        grad_out->shape[1] != y->shape[0])
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient's shape is not the output's",
                            call->full_name);
    for (int i = 0; i < 2 && st == PC_OK; i++)
        if (pc_ew_wants_grad(call, i))
            st = outer_grad(call, compute, grad_out, od, i, &out->grads[i]);
    return st;
}
