/*
 * linspace and logspace (forward only: no tensor inputs), computed as torch 1.13's CPU kernels
 * compute them, on the device and on the bench alike (msprobe's bench is the same CPU call).
 *
 * linspace (its AVX2 kernel, the capability torch uses on x86-64 machines with AVX2): step =
 * (end - start) / (steps - 1) in the dtype; element i is start + step * i below steps / 2 and
 * end - step * (steps - i - 1) from there, as one fused multiply-add (the kernel's scalar code
 * is contracted); the kernel fills vectors of W lanes (W = 32 bytes / element size: 8 float32,
 * 4 float64, 16 float16/bfloat16), two at a time, each from the value at its first lane plus
 * lane * step (product and sum rounded), and the last steps % (2 W) elements one by one.
 * float16/bfloat16 arithmetic rounds every operation to the dtype (integers converted first).
 * Integer dtypes compute in double and truncate. torch splits more than 32768 steps among its
 * threads, each starting its own vectors, which depends on the thread count: precheck follows
 * the one-thread order.
 *
 * logspace: base ^ (start + step * i) (or end - step * (steps - i - 1)) with step in double
 * from the difference in the dtype, pow in double, the result converted through float32.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/factory/factory_impl.h"
#include "precheck/core/convert.h"

/* A Scalar argument converted as torch's Scalar.to<scalar_t>() does (half precision through
 * float32; integers truncate). */
static double scalar_to(const pc_value *v, pc_dtype dt)
{
    if (!pc_dtype_is_float(dt)) {
        int64_t i = v->kind == PC_VALUE_FLOAT ? (int64_t)v->f : v->i;
        double d = 0;
        char buf[8];
        pc_element_store_i64(buf, dt, i);
        pc_element_load(buf, dt, &d, NULL);
        return d;
    }
    double f = v->kind == PC_VALUE_INT ? (double)(float)v->i : v->f;
    if (dt == PC_DTYPE_F64)
        return v->kind == PC_VALUE_INT ? (double)v->i : v->f;
    return pc_round_to_dtype((double)(float)f, dt);
}

static pc_status range_dtype(const pc_op_call *call, int argi, pc_dtype *dt)
{
    const pc_value *d = &call->args[argi];
    *dt = d->kind == PC_VALUE_DTYPE ? d->dtype : PC_DTYPE_F32;
    if (pc_dtype_is_float(*dt) && *dt != PC_DTYPE_F8E4M3FN && *dt != PC_DTYPE_F8E5M2)
        return PC_OK;
    if (pc_dtype_is_integral(*dt) && *dt != PC_DTYPE_BOOL)
        return PC_OK;
    return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of dtype %s is not supported by precheck",
                        call->full_name, call->op->name, pc_dtype_torch_name(*dt));
}

static pc_status range_alloc(const pc_op_call *call, pc_dtype dt, int64_t steps, pc_tensor *out)
{
    if (steps < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: number of steps must be non-negative",
                            call->full_name);
    pc_status st = pc_tensor_alloc(out, dt, &steps, 1);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

static void put(pc_tensor *t, int64_t i, double v)
{
    char *p = (char *)pc_tensor_data(t) + (size_t)i * pc_dtype_size(t->dtype);
    if (pc_dtype_is_float(t->dtype))
        pc_element_store(p, t->dtype, v, 0);
    else
        pc_element_store_i64(p, t->dtype, (int64_t)v);
}

/* ---- linspace ---- */

typedef struct lin {
    pc_dtype dt;
    int64_t steps, half;
    double start, end, step;
} lin;

/* one operation's result in the dtype's arithmetic */
static double lin_round(const lin *l, double v)
{
    return pc_dtype_is_float(l->dt) ? pc_round_to_dtype(v, l->dt) : v;
}

/* the kernel's scalar value at idx (also the first lane of a vector) */
static double lin_at(const lin *l, int64_t idx)
{
    bool low = idx < l->half;
    double k = (double)(low ? idx : l->steps - idx - 1), s = low ? l->step : -l->step;
    double from = low ? l->start : l->end;
    if (l->dt == PC_DTYPE_F32)
        return (double)fmaf((float)s, (float)k, (float)from);
    if (l->dt == PC_DTYPE_F16 || l->dt == PC_DTYPE_BF16)
        return lin_round(l, from + lin_round(l, s * lin_round(l, k)));
    return fma(s, k, from); /* float64 and the integers (in double) */
}

static double lin_lane(const lin *l, double base, int lane)
{
    if (!pc_dtype_is_float(l->dt))
        return trunc(base) + (double)lane * l->step;
    double p = lin_round(l, lin_round(l, (double)lane) * l->step);
    return lin_round(l, base + p);
}

pc_status pc_k_linspace_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    lin l;
    pc_status st = range_dtype(call, 3, &l.dt);
    if (st != PC_OK)
        return st;
    l.steps = call->args[2].i;
    pc_tensor y = PC_TENSOR_NULL;
    if ((st = range_alloc(call, l.dt, l.steps, &y)) != PC_OK)
        return st;
    l.start = scalar_to(&call->args[0], l.dt);
    l.end = scalar_to(&call->args[1], l.dt);
    l.half = l.steps / 2;
    if (l.steps == 1) {
        put(&y, 0, l.start);
    } else if (l.steps > 1) {
        bool half_prec = l.dt == PC_DTYPE_F16 || l.dt == PC_DTYPE_BF16;
        double n1 = half_prec ? lin_round(&l, (double)(l.steps - 1)) : (double)(l.steps - 1);
        if (l.dt == PC_DTYPE_F32)
            l.step = (double)((float)(l.end - l.start) / (float)n1);
        else
            l.step = lin_round(&l, lin_round(&l, l.end - l.start) / n1);
        int64_t w = 32 / (int64_t)pc_dtype_size(l.dt), i = 0;
        for (; i + 2 * w <= l.steps; i += 2 * w)
            for (int64_t v = i; v < i + 2 * w; v += w) {
                double base = lin_at(&l, v);
                if (!pc_dtype_is_float(l.dt)) /* the vector's base is a value of the dtype */
                    base = trunc(base);
                for (int k = 0; k < w; k++)
                    put(&y, v + k, lin_lane(&l, base, k));
            }
        for (; i < l.steps; i++)
            put(&y, i, lin_at(&l, i));
    }
    out->tensors[0] = y;
    out->count = 1;
    return PC_OK;
}

/* ---- logspace ---- */

pc_status pc_k_logspace_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    pc_dtype dt;
    pc_status st = range_dtype(call, 4, &dt);
    if (st != PC_OK)
        return st;
    int64_t steps = call->args[2].i;
    if (dt == PC_DTYPE_F16)
        return pc_error_set(PC_ERR_INVALID, "%s: \"logspace_cpu\" not implemented for 'Half'",
                            call->full_name);
    pc_tensor y = PC_TENSOR_NULL;
    if ((st = range_alloc(call, dt, steps, &y)) != PC_OK)
        return st;
    bool is_float = pc_dtype_is_float(dt);
    /* integers: the base as float32 (torch avoids the promotion) */
    double base = is_float ? call->args[3].f : (double)(float)call->args[3].f;
    double start = scalar_to(&call->args[0], dt), end = scalar_to(&call->args[1], dt);
    if (steps == 1) {
        double v = pow(call->args[3].f, call->args[0].f); /* fill_(pow(base, start)) */
        put(&y, 0, is_float ? (double)(float)v : v);
    } else if (steps > 1) {
        double diff = end - start; /* in the dtype */
        if (dt == PC_DTYPE_F32)
            diff = (double)((float)end - (float)start);
        else if (is_float)
            diff = pc_round_to_dtype(diff, dt);
        double step = diff / (double)(steps - 1);
        for (int64_t i = 0; i < steps; i++) {
            double e =
                i < steps / 2 ? start + step * (double)i : end - step * (double)(steps - i - 1);
            double v = pow(base, e);
            /* stored through float32 for the float dtypes below float64 */
            put(&y, i, is_float && dt != PC_DTYPE_F64 ? (double)(float)v : v);
        }
    }
    out->tensors[0] = y;
    out->count = 1;
    return PC_OK;
}
