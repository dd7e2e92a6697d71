/*
 * Factories: arange, full, zeros, ones, eye, full_like, ones_like, zeros_like. No gradients
 * (torch's results do not require grad). The dtype rules are torch's: arange of Python ints
 * gives int64, with any float the default dtype (float32); full infers bool, int64 or float32
 * from its fill value; zeros, ones and eye give the default dtype; the *_like ops keep the
 * input's dtype; dtype= overrides each.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/factory/factory_impl.h"

static double scalar_of(const pc_value *v)
{
    return v->kind == PC_VALUE_FLOAT ? v->f : (double)v->i;
}

static pc_status factory_dtype_check(const pc_op_call *call, pc_dtype d)
{
    if (pc_dtype_is_complex(d) || d == PC_DTYPE_F8E4M3FN || d == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_torch_name(d));
    return PC_OK;
}

/* arange(start, end=None, step=1, *, dtype=None, ...). Values are start + i * step, computed
 * in double (torch's CPU accumulation type for float and double) and rounded once; for an
 * integer dtype torch converts the bounds to it first. */
pc_status pc_k_arange_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_value *a = &call->args[0], *b = &call->args[1], *c = &call->args[2];
    const pc_value *dt = &call->args[3];
    const pc_value *start = b->kind == PC_VALUE_NONE ? NULL : a;
    const pc_value *end = b->kind == PC_VALUE_NONE ? a : b;
    bool any_float =
        a->kind == PC_VALUE_FLOAT || b->kind == PC_VALUE_FLOAT || c->kind == PC_VALUE_FLOAT;
    pc_dtype od = dt->kind == PC_VALUE_DTYPE ? dt->dtype : any_float ? PC_DTYPE_F32 : PC_DTYPE_I64;
    pc_status st = factory_dtype_check(call, od);
    if (st != PC_OK)
        return st;
    if (od == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"arange_cpu\" not implemented for 'Bool'",
                            call->full_name);
    bool integral = !pc_dtype_is_float(od);
    double s0 = start ? scalar_of(start) : 0.0, s1 = scalar_of(end), step = scalar_of(c);
    if (integral) {
        s0 = trunc(s0);
        s1 = trunc(s1);
        step = trunc(step);
    }
    if (step == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: step must be nonzero", call->full_name);
    if (!isfinite(s0) || !isfinite(s1))
        return pc_error_set(PC_ERR_INVALID, "%s: unsupported range: %g -> %g", call->full_name, s0,
                            s1);
    if ((step > 0 && s1 < s0) || (step < 0 && s1 > s0))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: upper bound and larger bound inconsistent with step sign",
                            call->full_name);
    double len = ceil((s1 - s0) / step);
    if (len > (double)(PC_TENSOR_MAX_BYTES / 8))
        return pc_error_set(PC_ERR_RANGE, "%s: arange of %g elements is too large", call->full_name,
                            len);
    int64_t n = (int64_t)len;
    pc_tensor t = PC_TENSOR_NULL;
    if ((st = pc_tensor_alloc(&t, od, &n, 1)) != PC_OK)
        return st;
    char *p = pc_tensor_data(&t);
    size_t sz = pc_dtype_size(od);
    for (int64_t i = 0; i < n; i++) {
        if (od == PC_DTYPE_I64) {
            int64_t v = (int64_t)s0 + i * (int64_t)step;
            memcpy(p + (size_t)i * sz, &v, sizeof v);
        } else {
            pc_element_store(p + (size_t)i * sz, od, s0 + step * (double)i, 0.0);
        }
    }
    out->tensors[0] = t;
    out->count = 1;
    return PC_OK;
}

/* torch refuses a fill value outside the dtype's finite range (infinities and NaN pass). */
static pc_status fill_range_check(const pc_op_call *call, pc_dtype d, double v)
{
    static const char *const cname[PC_DTYPE_COUNT] = {
        [PC_DTYPE_U8] = "uint8_t",        [PC_DTYPE_I8] = "int8_t",   [PC_DTYPE_I16] = "int16_t",
        [PC_DTYPE_I32] = "int",           [PC_DTYPE_I64] = "int64_t", [PC_DTYPE_F16] = "at::Half",
        [PC_DTYPE_BF16] = "at::BFloat16", [PC_DTYPE_F32] = "float",
    };
    if (d < 0 || d >= PC_DTYPE_COUNT || !cname[d] || !isfinite(v))
        return PC_OK;
    const pc_dtype_traits *t = pc_dtype_traits_of(d);
    if (v > t->max_finite || v < t->lowest)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: value cannot be converted to type %s without overflow",
                            call->full_name, cname[d]);
    return PC_OK;
}

/* The shape of size (an int[] argument), checked as torch checks it. */
static pc_status size_arg(const pc_op_call *call, const int64_t **shape, int *rank)
{
    *shape = call->args[0].ints;
    *rank = call->args[0].nints;
    for (int i = 0; i < *rank; i++) {
        if ((*shape)[i] < 0) {
            char buf[PC_SHAPE_FORMAT_MAX];
            pc_shape_format(buf, sizeof buf, *shape, *rank);
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Trying to create tensor with negative dimension %lld: %s",
                                call->full_name, (long long)(*shape)[i], buf);
        }
    }
    return PC_OK;
}

/* eye(n, m=None): ones on the diagonal of an [n, m] (m = n) matrix. */
static pc_status eye_shape(const pc_op_call *call, int64_t *shape)
{
    const pc_value *n = &call->args[0], *m = &call->args[1];
    shape[0] = n->i;
    shape[1] = m->kind == PC_VALUE_NONE ? n->i : m->i;
    if (shape[0] < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: n must be greater or equal to 0, got %lld",
                            call->full_name, (long long)shape[0]);
    if (shape[1] < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: m must be greater or equal to 0, got %lld",
                            call->full_name, (long long)shape[1]);
    return PC_OK;
}

/* full(size, fill_value), zeros(size), ones(size), eye(n, m), full_like(input, fill_value),
 * ones_like(input), zeros_like(input), each with dtype= among its keyword arguments. */
pc_status pc_k_fill_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    int param = call->op->param;
    const pc_value *fill =
        param == PC_FILL_FULL || param == PC_FILL_FULL_LIKE ? &call->args[1] : NULL;
    int dt_arg = pc_schema_find_arg(call->op->schema, "dtype");
    const pc_value *dt = dt_arg >= 0 ? &call->args[dt_arg] : NULL;
    pc_dtype od;
    const int64_t *shape;
    int64_t eye[2];
    int rank;
    pc_status st;
    if (param == PC_FILL_FULL || param == PC_FILL_ZEROS || param == PC_FILL_ONES) {
        od = !fill                         ? PC_DTYPE_F32
             : fill->kind == PC_VALUE_BOOL ? PC_DTYPE_BOOL
             : fill->kind == PC_VALUE_INT  ? PC_DTYPE_I64
                                           : PC_DTYPE_F32;
        if ((st = size_arg(call, &shape, &rank)) != PC_OK)
            return st;
    } else if (param == PC_FILL_EYE) {
        od = PC_DTYPE_F32;
        if ((st = eye_shape(call, eye)) != PC_OK)
            return st;
        shape = eye;
        rank = 2;
    } else {
        const pc_tensor *x = pc_call_tensor(call, 0);
        od = x->dtype;
        shape = x->shape;
        rank = x->rank;
    }
    if (dt && dt->kind == PC_VALUE_DTYPE)
        od = dt->dtype;
    st = factory_dtype_check(call, od);
    if (st != PC_OK)
        return st;
    if (fill && (st = fill_range_check(call, od, scalar_of(fill))) != PC_OK)
        return st;
    pc_tensor t = PC_TENSOR_NULL;
    if ((st = pc_tensor_alloc(&t, od, shape, rank)) != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (param == PC_FILL_ONES_LIKE || param == PC_FILL_ONES) {
        pc_tensor_fill(&t, 1.0);
    } else if (param == PC_FILL_EYE) {
        char *p = pc_tensor_data(&t);
        size_t sz = pc_dtype_size(od);
        for (int64_t i = 0; i < shape[0] && i < shape[1]; i++)
            pc_element_store(p + (size_t)(i * shape[1] + i) * sz, od, 1.0, 0.0);
    } else if (fill && od == PC_DTYPE_I64 && fill->kind != PC_VALUE_FLOAT) {
        int64_t *p = pc_tensor_data(&t); /* exact beyond 2^53 */
        for (int64_t i = 0; i < pc_tensor_numel(&t); i++)
            p[i] = fill->i;
    } else if (fill) {
        pc_tensor_fill(&t, scalar_of(fill));
    }
    out->tensors[0] = t;
    out->count = 1;
    return PC_OK;
}
