/*
 * where and masked_fill, forward and backward, on the element-wise engine (elementwise.h):
 * selections, exact in every compute type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/pointwise/elementwise.h"
#include "ops/pointwise/pointwise_impl.h"
#include "precheck/core/convert.h"

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
    pc_kernel_result_type_add(call, &rt, &call->args[1].tensor, call->args[1].wrapped);
    pc_kernel_result_type_add(call, &rt, &call->args[2].tensor, call->args[2].wrapped);
    return pc_result_type_get(&rt);
}

/* y[i] = cnd[i] ? a[i] : b[i] (cnd: bytes 0/1) over buffers of the compute type (a select
 * moves the bits unchanged, NaN payloads included). */
static void select_chunk(ew_kind kind, const uint8_t *cnd, const void *a, const void *b, void *y,
                         int64_t n)
{
    if (kind == EW_FLOAT) {
        const float *fa = a, *fb = b;
        float *fy = y;
        for (int64_t i = 0; i < n; i++) { /* both read: a select the compiler vectorises */
            float av = fa[i], bv = fb[i];
            fy[i] = cnd[i] ? av : bv;
        }
    } else if (kind == EW_DOUBLE) { /* (as int64 slots it stayed scalar: SSE2 has no 64-bit
                                       compare to widen the bytes to) */
        const double *da = a, *db = b;
        double *dy = y;
        for (int64_t i = 0; i < n; i++) {
            double av = da[i], bv = db[i];
            dy[i] = cnd[i] ? av : bv;
        }
    } else {
        const int64_t *ia = a, *ib = b;
        int64_t *iy = y;
        for (int64_t i = 0; i < n; i++) {
            int64_t av = ia[i], bv = ib[i];
            iy[i] = cnd[i] ? av : bv;
        }
    }
}

/* g = dy where the condition is `keep`, 0 elsewhere (g NULL: not wanted). */
static void mask_chunk(ew_kind kind, const uint8_t *cnd, bool keep, const void *dy, void *g,
                       int64_t n)
{
    if (!g)
        return;
    const uint8_t want = keep; /* the conditions are 0/1 */
    /* dy read unconditionally: a select the compiler vectorises */
    if (kind == EW_FLOAT) {
        const float *s = dy;
        float *d = g;
        for (int64_t i = 0; i < n; i++) {
            float v = s[i];
            d[i] = cnd[i] == want ? v : 0.0f;
        }
    } else {
        const double *s = dy;
        double *d = g;
        for (int64_t i = 0; i < n; i++) {
            double v = s[i];
            d[i] = cnd[i] == want ? v : 0.0;
        }
    }
}

/* in: cond, a, b; out: y. */
static int where_fwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                           int64_t len)
{
    select_chunk(l->c->kind, in[0], in[1], in[2], out[0], len);
    return 0;
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
    if ((st = pc_ew_init(&c, call, compute, od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, where_fwd_chunk, NULL);
    pc_ew_loop_cond(&l, ts[0]);
    pc_ew_loop_input(&l, ts[1]);
    pc_ew_loop_input(&l, ts[2]);
    pc_ew_loop_store(&l, od);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

/* in: cond, dy; out: the gradient kept where cond is true, the one kept where it is false. */
static int mask_bwd_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                          int64_t len)
{
    mask_chunk(l->c->kind, in[0], true, in[1], out[0], len);
    mask_chunk(l->c->kind, in[0], false, in[1], out[1], len);
    return 0;
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
    if ((st = pc_ew_init(&c, call, compute, od, ts, 3)) != PC_OK)
        return st;
    ew_loop l;
    pc_ew_loop_init(&l, &c, mask_bwd_chunk, NULL);
    pc_ew_loop_cond(&l, ts[0]);
    pc_ew_loop_input(&l, grad_out);
    pc_ew_loop_grad(&l, pc_ew_wants_grad(call, 1) ? ts[1] : NULL);
    pc_ew_loop_grad(&l, pc_ew_wants_grad(call, 2) ? ts[2] : NULL);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    pc_ew_loop_take_grad(&l, 0, &out->grads[1]);
    pc_ew_loop_take_grad(&l, 1, &out->grads[2]);
    return PC_OK;
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

/* The fill value in each compute type. */
typedef struct fill_plan {
    float f;
    double d;
    int64_t i;
} fill_plan;

/* in: mask, x; out: y. */
static int masked_fill_chunk(const ew_loop *l, void *const *in, void *const *out, void *tmp,
                             int64_t len)
{
    const fill_plan *p = l->arg;
    const uint8_t *cnd = in[0];
    /* the fill value held and x read unconditionally: a select the compiler vectorises */
    if (l->c->kind == EW_FLOAT) {
        const float *x = in[1], f = p->f;
        float *y = out[0];
        for (int64_t i = 0; i < len; i++) {
            float v = x[i];
            y[i] = cnd[i] ? f : v;
        }
    } else if (l->c->kind == EW_DOUBLE) {
        const double *x = in[1], d = p->d;
        double *y = out[0];
        for (int64_t i = 0; i < len; i++) {
            double v = x[i];
            y[i] = cnd[i] ? d : v;
        }
    } else {
        const int64_t *x = in[1], f = p->i;
        int64_t *y = out[0];
        for (int64_t i = 0; i < len; i++) {
            int64_t v = x[i];
            y[i] = cnd[i] ? f : v;
        }
    }
    return 0;
}

pc_status pc_k_masked_fill_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_status st = masked_fill_check(call);
    if (st != PC_OK)
        return st;
    const pc_tensor *ts[3] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1),
                              pc_call_tensor(call, 2)};
    pc_dtype od = pc_kernel_dtype(call, ts[0]);
    ew_ctx c;
    /* in place, the mask broadcasts to self; out of place both broadcast */
    if ((st = pc_ew_init(&c, call, compute, od, ts, 2)) != PC_OK)
        return st;
    if ((st = pc_ew_inplace_check(&c, call, od, ts[0])) != PC_OK)
        return st;
    /* the value goes through the output dtype first (torch converts it to self's dtype) */
    double fill;
    pc_element_load(pc_tensor_data(ts[2]), ts[2]->dtype, &fill, NULL);
    char cell[16] = {0};
    double v;
    pc_element_store(cell, od, fill, 0.0);
    pc_element_load(cell, od, &v, NULL);
    int64_t vi = c.kind == EW_INT ? pc_element_load_i64(pc_tensor_data(ts[2]), ts[2]->dtype) : 0;
    if (c.kind == EW_INT && pc_dtype_is_float(ts[2]->dtype))
        vi = (int64_t)v;
    if (c.kind == EW_INT && od == PC_DTYPE_BOOL)
        vi = vi != 0 || (pc_dtype_is_float(ts[2]->dtype) && fill != 0);
    fill_plan fp = {.f = (float)v, .d = v, .i = vi};
    ew_loop l;
    pc_ew_loop_init(&l, &c, masked_fill_chunk, &fp);
    pc_ew_loop_cond(&l, ts[1]);
    pc_ew_loop_input(&l, ts[0]);
    pc_ew_loop_store(&l, od);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    out->tensors[0] = l.out[0].t;
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_masked_fill_backward(const pc_op_call *call, pc_compute compute,
                                    const pc_tensor *grad_out, pc_op_grads *out)
{
    pc_status st = masked_fill_check(call);
    const pc_tensor *ts[2] = {pc_call_tensor(call, 0), pc_call_tensor(call, 1)};
    if (st != PC_OK || !pc_dtype_is_float(ts[0]->dtype))
        return st;
    ew_ctx c;
    if ((st = pc_ew_init(&c, call, compute, pc_kernel_dtype(call, ts[0]), ts, 2)) != PC_OK)
        return st;
    /* self keeps dy where the mask is false, the value gets the sum where it is true */
    ew_loop l;
    pc_ew_loop_init(&l, &c, mask_bwd_chunk, NULL);
    pc_ew_loop_cond(&l, ts[1]);
    pc_ew_loop_input(&l, grad_out);
    pc_ew_loop_grad(&l, pc_ew_wants_grad(call, 2) ? pc_call_tensor(call, 2) : NULL);
    pc_ew_loop_grad(&l, pc_ew_wants_grad(call, 0) ? ts[0] : NULL);
    if ((st = pc_ew_loop_run(&l)) != PC_OK)
        return st;
    pc_ew_loop_take_grad(&l, 0, &out->grads[2]);
    pc_ew_loop_take_grad(&l, 1, &out->grads[0]);
    return PC_OK;
}
