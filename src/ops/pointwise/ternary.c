/*
 * The ternary element-wise ops (addcmul, addcdiv, lerp) and clamp, forward and backward, on the
 * element-wise engine (elementwise.h); their math in ternary_kernel.inc.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/pointwise/elementwise.h"
#include "ops/pointwise/pointwise_impl.h"
#include "precheck/core/convert.h"

#define PC_TWIN_TEMPLATE "ops/pointwise/ternary_kernel.inc"
#include "ops/kernel_twins.h"

/* ---- ternary: addcmul, addcdiv, lerp ---- */

typedef struct ternary_plan {
    pc_ternary k;
    pc_dtype od;
    double v;      /* value; lerp with a number: the weight */
    int64_t v_i;   /* value for integer addcmul */
    bool w_tensor; /* lerp: the weight is a tensor */
} ternary_plan;

/* A dtype as torch's caffe2::TypeMeta prints it in messages ("float", "c10::Half"). */
static const char *meta_name(pc_dtype d)
{
    switch (d) {
    case PC_DTYPE_F16:
        return "c10::Half";
    case PC_DTYPE_BF16:
        return "c10::BFloat16";
    case PC_DTYPE_F32:
        return "float";
    case PC_DTYPE_F64:
        return "double";
    case PC_DTYPE_I64:
        return "long int";
    case PC_DTYPE_I32:
        return "int";
    case PC_DTYPE_BOOL:
        return "bool";
    default:
        return pc_dtype_torch_name(d);
    }
}

static pc_status ternary_plan_make(const pc_op_call *call, ternary_plan *p)
{
    memset(p, 0, sizeof *p);
    p->k = (pc_ternary)call->op->param;
    pc_result_type rt = PC_RESULT_TYPE_INIT;
    for (int i = 0; i < 3; i++)
        pc_kernel_result_type_add(call, &rt, &call->args[i].tensor, call->args[i].wrapped);
    pc_dtype common = pc_result_type_get(&rt);
    if (pc_dtype_is_complex(common) || common == PC_DTYPE_F8E4M3FN || common == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(common));
    p->od = common;
    if (p->k == PC_TERNARY_LERP) {
        const pc_value *w = &call->args[2];
        pc_dtype xd = pc_kernel_dtype(call, &call->args[0].tensor),
                 ed = pc_kernel_dtype(call, &call->args[1].tensor),
                 wd = pc_kernel_dtype(call, &w->tensor);
        p->od = xd;
        if (!pc_dtype_is_float(xd))
            return pc_error_set(PC_ERR_INVALID, "%s: \"lerp_kernel_%s\" not implemented for '%s'",
                                call->full_name, w->wrapped ? "scalar" : "tensor",
                                pc_torch_type_name(xd));
        if (ed != xd)
            return pc_error_set(PC_ERR_INVALID, "%s: expected dtype %s for `end` but got dtype %s",
                                call->full_name, meta_name(xd), meta_name(ed));
        if (!w->wrapped && wd != xd)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: expected dtype %s for `weight` but got dtype %s",
                                call->full_name, meta_name(xd), meta_name(wd));
        p->w_tensor = !w->wrapped;
        if (w->wrapped)
            pc_element_load(pc_tensor_data(&w->tensor), w->tensor.dtype, &p->v, NULL);
        return PC_OK;
    }
    int iv = pc_schema_find_arg(call->op->schema, "value");
    const pc_value *val = &call->args[iv];
    p->v = val->f;
    p->v_i = val->i;
    if (val->kind == PC_VALUE_FLOAT)
        p->v_i = f64_to_i64_sat(val->f); /* torch converts the value to the integer dtype */
    if (p->k == PC_TERNARY_ADDCMUL && common == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"addcmul_cpu_out\" not implemented for 'Bool'",
                            call->full_name);
    /* the value is converted (checked) to the integer dtype, or to the float opmath type */
    const char *tn = pc_ew_scalar_overflows(
        pc_dtype_is_float(common) && common != PC_DTYPE_F64 ? PC_DTYPE_F32 : common,
        val->kind == PC_VALUE_INT ? (double)val->i : val->f);
    if (tn)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: value cannot be converted to type %s without overflow",
                            call->full_name, tn);
    if (p->k == PC_TERNARY_ADDCDIV && !pc_dtype_is_float(common))
        return pc_error_set(
            PC_ERR_INVALID,
            "%s: Integer division with addcdiv is no longer supported, and in a future  "
            "release addcdiv will perform a true division of tensor1 and tensor2. The historic "
            "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
            "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
            "tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.",
            call->full_name);
    return PC_OK;
}

/* in: x, t1, t2 (absent for lerp with a number); out: y. */
static int ternary_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                             int64_t len)
{
    const ternary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT) {
        ternary_fwd_f(p->k, (float)p->v, in[0], in[1], in[2], out[0], len);
    } else if (l->c->kind == EW_DOUBLE) {
        ternary_fwd_d(p->k, p->v, in[0], in[1], in[2], out[0], len);
    } else { /* integer addcmul, wrapping like torch */
        const int64_t *x = in[0], *a = in[1], *b = in[2];
        int64_t *y = out[0];
        for (int64_t i = 0; i < len; i++)
            y[i] = (int64_t)((uint64_t)x[i] + (uint64_t)p->v_i * (uint64_t)a[i] * (uint64_t)b[i]);
        if (l->c->cd == PC_DTYPE_BOOL)
            for (int64_t i = 0; i < len; i++)
                y[i] = y[i] != 0;
    }
    return 0;
}

pc_status pc_k_ternary_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    ternary_plan p;
    pc_status st = ternary_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              p.k == PC_TERNARY_LERP && !p.w_tensor ? NULL
                                                                    : pc_call_tensor(call, 2)};
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    if ((st = pc_ew_inplace_check(&c, call, p.od, ts[0])) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, ternary_fwd_chunk, &p);
    for (int i = 0; i < 3; i++)
        pc_ew_loop_input(&l, ts[i]);
    pc_ew_loop_wrap_inputs(&l, p.od);
    pc_ew_loop_store(&l, call->form == PC_FORM_INPLACE ? pc_kernel_dtype(call, ts[0]) : p.od);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: x, t1, t2, dy; out: the three gradients (any may be absent). */
static int ternary_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                             int64_t len)
{
    const ternary_plan *p = l->arg;
    if (l->c->kind == EW_FLOAT)
        ternary_bwd_f(p->k, (float)p->v, (float)(1.0 - p->v), in[0], in[1], in[2], in[3], out[0],
                      out[1], out[2], len);
    else
        ternary_bwd_d(p->k, p->v, 1.0 - p->v, in[0], in[1], in[2], in[3], out[0], out[1], out[2],
                      len);
    for (int k = 0; k < 3; k++)
        pc_ew_round_device(l->c, out[k], len);
    return 0;
}

pc_status pc_k_ternary_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    ternary_plan p;
    pc_status st = ternary_plan_make(call, &p);
    if (st != PC_OK || !pc_dtype_is_float(p.od))
        return st;
    bool want[3] = {pc_ew_wants_grad(call, 0), pc_ew_wants_grad(call, 1),
                    pc_ew_wants_grad(call, 2)};
    if (!want[0] && !want[1] && !want[2])
        return PC_OK;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              p.k == PC_TERNARY_LERP && !p.w_tensor ? NULL
                                                                    : pc_call_tensor(call, 2)};
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, ternary_bwd_chunk, &p);
    for (int i = 0; i < 3; i++)
        pc_ew_loop_input(&l, ts[i]);
    pc_ew_loop_input(&l, grad_out);
    for (int i = 0; i < 3; i++)
        pc_ew_loop_grad(&l, want[i] && ts[i] ? ts[i] : NULL);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    for (int i = 0; i < 3; i++)
        pc_ew_loop_take_grad(&l, i, &out->grads[i]);
    return PC_OK;
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
    pc_kernel_result_type_add(call, &rt, p->x, false);
    for (int i = 1; i < call->nargs; i++)
        if (pc_call_tensor(call, i))
            pc_kernel_result_type_add(call, &rt, pc_call_tensor(call, i), call->args[i].wrapped);
    p->od = pc_result_type_get(&rt);
    if (p->od == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"clamp_cpu\" not implemented for 'Bool'",
                            call->full_name);
    if (!pc_dtype_is_float(p->od) && pc_dtype_is_float(pc_kernel_dtype(call, p->x)))
        return PC_OK; /* not reachable: promotion keeps the float */
    return PC_OK;
}

/* in: x, lo, hi (either bound may be absent); out: y. */
static int clamp_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    if (l->c->kind == EW_FLOAT) {
        clamp_fwd_f(in[0], in[1], in[2], out[0], len);
    } else if (l->c->kind == EW_DOUBLE) {
        clamp_fwd_d(in[0], in[1], in[2], out[0], len);
    } else {
        const int64_t *x = in[0], *lo = in[1], *hi = in[2];
        int64_t *y = out[0];
        for (int64_t i = 0; i < len; i++) {
            int64_t v = x[i];
            if (lo && v < lo[i])
                v = lo[i];
            if (hi && v > hi[i])
                v = hi[i];
            y[i] = v;
        }
    }
    return 0;
}

pc_status pc_k_clamp_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    clamp_plan p;
    pc_status st = clamp_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {p.x, p.lo, p.hi};
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    if ((st = pc_ew_inplace_check(&c, call, p.od, p.x)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, clamp_fwd_chunk, NULL);
    for (int i = 0; i < 3; i++)
        pc_ew_loop_input(&l, ts[i]);
    pc_ew_loop_store(&l, call->form == PC_FORM_INPLACE ? pc_kernel_dtype(call, p.x) : p.od);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: x, lo, hi, dy; out: dx. */
static int clamp_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    if (l->c->kind == EW_FLOAT)
        clamp_bwd_f(in[0], in[1], in[2], in[3], out[0], len);
    else
        clamp_bwd_d(in[0], in[1], in[2], in[3], out[0], len);
    return 0;
}

pc_status pc_k_clamp_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    clamp_plan p;
    pc_status st = clamp_plan_make(call, &p);
    if (st != PC_OK || !pc_ew_wants_grad(call, 0))
        return st;
    const pc_tensor *ts[3] = {p.x, p.lo, p.hi};
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, p.od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, clamp_bwd_chunk, NULL);
    for (int i = 0; i < 3; i++)
        pc_ew_loop_input(&l, ts[i]);
    pc_ew_loop_input(&l, grad_out);
    pc_ew_loop_grad(&l, p.x);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    pc_ew_loop_take_grad(&l, 0, &out->grads[0]);
    return PC_OK;
}
