/*
 * npu_rms_norm, npu_rotary_mul and npu_swiglu: msprobe's CPU bench functions
 * (docs/msprobe-contract.md#replay) on the bench, in float64. The reference device computes as a
 * fused NPU kernel does: float16/bfloat16 inputs in float32, the result rounded once to the output
 * dtype, except where the bench itself rounds on the way (swiglu's float16/bfloat16 branch, which
 * is what msprobe's GPU side executes); float32 and float64 inputs in their own dtype.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "ops/kernel.h"
#include "ops/npu/npu_impl.h"
#include "precheck/core/convert.h"

#define PC_TWIN_TEMPLATE "ops/npu/npu_fused_kernel.inc"
#include "ops/kernel_twins.h"

static pc_status need_floats(const pc_op_call *call, int n, const char *kernel)
{
    for (int i = 0; i < n; i++) {
        const pc_tensor *t = pc_call_tensor(call, i);
        pc_status st = t ? pc_kernel_need_float(call, t, kernel) : PC_OK;
        if (st != PC_OK)
            return st;
    }
    return PC_OK;
}

/* The promoted dtype of tensor arguments 0 .. n-1. */
static pc_dtype promoted(const pc_op_call *call, int n)
{
    pc_dtype d = pc_call_tensor(call, 0)->dtype;
    for (int i = 1; i < n; i++)
        d = pc_promote_types(d, pc_call_tensor(call, i)->dtype);
    return d;
}

/* The compute dtype of a call whose result has dtype od. */
static pc_dtype compute_dtype(pc_compute compute, pc_dtype od)
{
    return pc_kernel_compute_dtype(compute, od);
}

/* ---- the block-at-a-time passes ----
 * Every op here works a block of about PC_KERNEL_BLOCK elements (whole rows where rows matter) at
 * a time: its inputs' values read into per-thread scratch of the compute dtype (pc_kernel_read:
 * the conversion pc_tensor_cast makes), the block computed, the result rounded into the output
 * tensor (pc_kernel_write: the conversion pc_kernel_store makes). Each element, and each row's sum,
 * takes the same operations in the same order as in a pass over the whole tensor, so neither
 * the blocks nor the threads that run them (OpenMP, above NF_PARALLEL_MIN elements) change a
 * bit. */
#define NF_PARALLEL_MIN 32768

/* Blocks of whole rows of D: *per rows each (one at least), *count of them. */
static void row_blocks(int64_t rows, int64_t D, int64_t *per, int64_t *count)
{
    *per = D > 0 && D < PC_KERNEL_BLOCK ? PC_KERNEL_BLOCK / D : 1;
    *count = (rows + *per - 1) / *per;
}

/* A thread's scratch (a byte at least: an empty call still asks for it). */
static void *scratch(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

static void *at(void *base, int64_t i, pc_dtype cd)
{
    return (char *)base + (size_t)i * pc_dtype_size(cd);
}

/* ---- npu_rms_norm(x, gamma, epsilon) -> (y, rstd float32 [..., 1]) ---- */

pc_status pc_k_npu_rms_norm_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *g = pc_call_tensor(call, 1);
    double eps = call->args[2].f;
    pc_status st = need_floats(call, 2, "npu_rms_norm");
    if (st != PC_OK)
        return st;
    int64_t bs[PC_TENSOR_MAX_DIMS];
    int br = 0;
    if ((st = pc_broadcast_shapes(x->shape, x->rank, g->shape, g->rank, bs, &br)) != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (x->rank == 0 || br != x->rank || memcmp(bs, x->shape, sizeof(int64_t) * (size_t)br) != 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_rms_norm: gamma must broadcast to the shape of x (x of rank "
                            "1 or more)",
                            call->full_name);
    pc_dtype od = promoted(call, 2), cd = compute_dtype(compute, od);
    int64_t D = x->shape[x->rank - 1], rows = D ? pc_tensor_numel(x) / D : 0;
    int64_t rshape[PC_TENSOR_MAX_DIMS];
    memcpy(rshape, x->shape, sizeof rshape);
    rshape[x->rank - 1] = 1;
    /* gamma of D values (the usual [D]): read once as one row; otherwise read a block at a
     * time from its view expanded to x's shape */
    bool one_row = pc_tensor_numel(g) == D && g->rank > 0 && g->shape[g->rank - 1] == D;
    pc_tensor gb = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    if ((st = one_row ? pc_kernel_load_ro(call, g, cd, &gb)
                      : pc_tensor_expand(&gb, g, x->shape, x->rank)) != PC_OK ||
        (st = pc_tensor_alloc(&out->tensors[0], od, x->shape, x->rank)) != PC_OK ||
        (st = pc_tensor_alloc(&r, cd, rshape, x->rank)) != PC_OK) {
        pc_tensor_free(&gb);
        pc_tensor_free(&out->tensors[0]);
        return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
    }
    int64_t per, nb;
    row_blocks(rows, D, &per, &nb);
    size_t cap = (size_t)(per * D);
    pc_tensor *y = &out->tensors[0];
    bool failed = false;
    (void)pc_convert_isa(); /* the converters' choice of path, made before the threads */
#pragma omp parallel if (rows * D > NF_PARALLEL_MIN && nb > 1)
    {
        /* x, y, gamma (when not one row) of a block, and the squares of a row */
        void *buf = scratch(pc_dtype_size(cd) * (cap * (one_row ? 2 : 3) + (size_t)D));
        if (!buf) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nb; k++) {
            if (!buf)
                continue;
            int64_t r0 = k * per, nr = rows - r0 < per ? rows - r0 : per;
            void *xs = buf, *ys = at(buf, (int64_t)cap, cd), *gs = at(buf, 2 * (int64_t)cap, cd);
            void *sq = at(buf, (int64_t)cap * (one_row ? 2 : 3), cd);
            pc_kernel_read(x, r0 * D, nr * D, cd, xs);
            if (!one_row)
                pc_kernel_read(&gb, r0 * D, nr * D, cd, gs);
            const void *gp = one_row ? pc_tensor_data(&gb) : gs;
            void *rp = at(pc_tensor_data(&r), r0, cd);
            if (cd == PC_DTYPE_F64)
                rms_rows_d(xs, gp, one_row ? 0 : D, ys, rp, nr, D, eps, sq);
            else
                rms_rows_f(xs, gp, one_row ? 0 : D, ys, rp, nr, D, eps, sq);
            pc_kernel_write(y, r0 * D, nr * D, ys, cd);
        }
        free(buf);
    }
    pc_tensor_free(&gb);
    if (failed) {
        pc_tensor_free(&r);
        pc_tensor_free(y);
        return pc_kernel_nomem(call);
    }
    st = pc_kernel_store(call, &r, PC_DTYPE_F32, rshape, x->rank, &out->tensors[1]);
    if (st == PC_OK)
        out->count = 2;
    else
        pc_tensor_free(y);
    return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
}

/* ---- npu_rotary_mul(x, r1, r2) = r1 x + r2 cat(-x2, x1) ---- */

typedef struct rot_plan {
    const pc_tensor *t[3]; /* x, r1, r2 */
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int rank;
    int64_t rows, D;
    pc_dtype od, cd;
    /* per input: the step of its row's first element (an index of its own values) for each
     * broadcast dimension but the last, 0 where it is broadcast; whether it has D values a row
     * (or one, broadcast along the row); whether it is not broadcast at all */
    int64_t step[3][PC_TENSOR_MAX_DIMS];
    bool full_row[3], plain[3];
} rot_plan;

static pc_status rot_plan_make(const pc_op_call *call, pc_compute compute, rot_plan *p)
{
    pc_status st = need_floats(call, 3, "npu_rotary_mul");
    if (st != PC_OK)
        return st;
    for (int i = 0; i < 3; i++)
        p->t[i] = pc_call_tensor(call, i);
    const pc_tensor *x = p->t[0];
    int64_t s1[PC_TENSOR_MAX_DIMS];
    int r1 = 0;
    if ((st = pc_broadcast_shapes(x->shape, x->rank, p->t[1]->shape, p->t[1]->rank, s1, &r1)) !=
            PC_OK ||
        (st = pc_broadcast_shapes(s1, r1, p->t[2]->shape, p->t[2]->rank, p->shape, &p->rank)) !=
            PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    int64_t xd = x->rank ? x->shape[x->rank - 1] : 1;
    if (xd < 2)
        return pc_error_set(PC_ERR_INVALID, "%s: not enough values to unpack (expected 2, got 1)",
                            call->full_name);
    if (p->shape[p->rank - 1] != xd)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_rotary_mul: the last dimension of r1 and r2 must be x's",
                            call->full_name);
    p->D = xd;
    p->rows = 1;
    for (int i = 0; i < p->rank - 1; i++)
        p->rows *= p->shape[i];
    p->od = promoted(call, 3);
    p->cd = compute_dtype(compute, p->od);
    for (int i = 0; i < 3; i++) {
        const pc_tensor *t = p->t[i];
        int64_t ts[PC_TENSOR_MAX_DIMS];
        pc_shape_contiguous_strides(t->shape, t->rank, ts);
        for (int d = 0; d < p->rank - 1; d++) {
            int td = t->rank - p->rank + d;
            p->step[i][d] = td < 0 || t->shape[td] == 1 ? 0 : ts[td];
        }
        p->full_row[i] = t->rank > 0 && t->shape[t->rank - 1] == p->D;
        p->plain[i] = pc_tensor_numel(t) == p->rows * p->D;
    }
    return PC_OK;
}

/* Rows r0 .. r0 + nr - 1 of input i broadcast to the shape of the call, in dtype cd, to dst. */
static void rot_read(const rot_plan *p, int i, int64_t r0, int64_t nr, void *dst)
{
    const pc_tensor *t = p->t[i];
    size_t es = pc_dtype_size(p->cd);
    if (p->plain[i]) {
        pc_kernel_read(t, r0 * p->D, nr * p->D, p->cd, dst);
        return;
    }
    for (int64_t r = r0; r < r0 + nr; r++) {
        int64_t start = 0, rem = r;
        for (int d = p->rank - 2; d >= 0; d--) {
            start += rem % p->shape[d] * p->step[i][d];
            rem /= p->shape[d];
        }
        char *row = (char *)dst + (size_t)((r - r0) * p->D) * es;
        if (p->full_row[i]) {
            pc_kernel_read(t, start, p->D, p->cd, row);
        } else {
            pc_kernel_read(t, start, 1, p->cd, row);
            for (int64_t j = 1; j < p->D; j++)
                memcpy(row + (size_t)j * es, row, es);
        }
    }
}

pc_status pc_k_npu_rotary_mul_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    rot_plan p;
    pc_status st = rot_plan_make(call, compute, &p);
    if (st != PC_OK)
        return st;
    pc_tensor *y = &out->tensors[0];
    if ((st = pc_tensor_alloc(y, p.od, p.shape, p.rank)) != PC_OK)
        return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
    int64_t per, nb, D = p.D;
    row_blocks(p.rows, D, &per, &nb);
    int64_t cap = per * D;
    pc_dtype cd = p.cd;
    bool failed = false;
    (void)pc_convert_isa(); /* the converters' choice of path, made before the threads */
#pragma omp parallel if (p.rows * D > NF_PARALLEL_MIN && nb > 1)
    {
        void *buf = scratch(pc_dtype_size(cd) * (size_t)cap * 4); /* x, r1, r2, y */
        if (!buf) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nb; k++) {
            if (!buf)
                continue;
            int64_t r0 = k * per, nr = p.rows - r0 < per ? p.rows - r0 : per;
            void *b[4];
            for (int i = 0; i < 4; i++)
                b[i] = at(buf, i * cap, cd);
            for (int i = 0; i < 3; i++)
                rot_read(&p, i, r0, nr, b[i]);
            if (cd == PC_DTYPE_F64)
                rotary_rows_d(b[0], b[1], b[2], b[3], nr, D);
            else
                rotary_rows_f(b[0], b[1], b[2], b[3], nr, D);
            pc_kernel_write(y, r0 * D, nr * D, b[3], cd);
        }
        free(buf);
    }
    if (failed) {
        pc_tensor_free(y);
        return pc_kernel_nomem(call);
    }
    out->count = 1;
    return PC_OK;
}

/* The gradients: computed a block of rows at a time; the gradient of an input that is not
 * broadcast goes straight into its output (as 0 + v, what torch's sum_to over no dimension
 * gives), that of a broadcast one into a buffer of the broadcast shape, summed to the input's
 * shape afterwards in torch's order. */
pc_status pc_k_npu_rotary_mul_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out)
{
    rot_plan p;
    pc_status st = rot_plan_make(call, compute, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = p.cd;
    pc_tensor d[3] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL}, g = PC_TENSOR_NULL;
    bool want[3];
    for (int i = 0; i < 3; i++)
        want[i] = pc_kernel_wants_grad(call, i);
    /* the incoming gradient as a view of the broadcast shape (read like x) */
    if ((st = pc_tensor_expand(&g, grad_out, p.shape, p.rank)) != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    for (int i = 0; i < 3 && st == PC_OK; i++)
        if (want[i])
            st = p.plain[i]
                     ? pc_tensor_alloc(&out->grads[i], p.t[i]->dtype, p.t[i]->shape, p.t[i]->rank)
                     : pc_tensor_alloc(&d[i], cd, p.shape, p.rank);
    if (st != PC_OK) {
        for (int i = 0; i < 3; i++)
            pc_tensor_free(&d[i]);
        pc_tensor_free(&g);
        return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
    }
    int64_t per, nb, D = p.D;
    row_blocks(p.rows, D, &per, &nb);
    int64_t cap = per * D;
    bool failed = false;
    (void)pc_convert_isa(); /* the converters' choice of path, made before the threads */
#pragma omp parallel if (p.rows * D > NF_PARALLEL_MIN && nb > 1)
    {
        void *buf = scratch(pc_dtype_size(cd) * (size_t)cap * 7);
        if (!buf) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nb; k++) {
            if (!buf)
                continue;
            int64_t r0 = k * per, nr = p.rows - r0 < per ? p.rows - r0 : per;
            void *b[4], *o[3]; /* x, r1, r2, dy; dx, dr1, dr2 */
            for (int i = 0; i < 4; i++)
                b[i] = at(buf, i * cap, cd);
            for (int i = 0; i < 3; i++)
                rot_read(&p, i, r0, nr, b[i]);
            pc_kernel_read(&g, r0 * D, nr * D, cd, b[3]);
            for (int i = 0; i < 3; i++)
                o[i] = !want[i]     ? NULL
                       : p.plain[i] ? at(buf, (4 + i) * cap, cd)
                                    : at(pc_tensor_data(&d[i]), r0 * D, cd);
            if (cd == PC_DTYPE_F64)
                rotary_grad_rows_d(b[0], b[1], b[2], b[3], o[0], o[1], o[2], nr, D);
            else
                rotary_grad_rows_f(b[0], b[1], b[2], b[3], o[0], o[1], o[2], nr, D);
            for (int i = 0; i < 3; i++) {
                if (!want[i] || !p.plain[i])
                    continue;
                if (cd == PC_DTYPE_F64)
                    plus_zero_d(o[i], nr * D);
                else
                    plus_zero_f(o[i], nr * D);
                pc_kernel_write(&out->grads[i], r0 * D, nr * D, o[i], cd);
            }
        }
        free(buf);
    }
    if (failed)
        st = PC_ERR_NOMEM;
    for (int i = 0; i < 3 && st == PC_OK; i++) {
        if (!want[i] || p.plain[i])
            continue;
        pc_tensor s = PC_TENSOR_NULL;
        st = pc_tensor_alloc(&s, cd, p.t[i]->shape, p.t[i]->rank);
        if (st == PC_OK && cd == PC_DTYPE_F64)
            torch_sum_to_d(pc_tensor_data(&d[i]), p.shape, p.rank, p.t[i]->shape, p.t[i]->rank,
                           pc_tensor_data(&s));
        else if (st == PC_OK)
            torch_sum_to_f(pc_tensor_data(&d[i]), p.shape, p.rank, p.t[i]->shape, p.t[i]->rank,
                           pc_tensor_data(&s));
        if (st == PC_OK)
            st = pc_kernel_store(call, &s, p.t[i]->dtype, p.t[i]->shape, p.t[i]->rank,
                                 &out->grads[i]);
        pc_tensor_free(&d[i]);
    }
    for (int i = 0; i < 3; i++)
        pc_tensor_free(&d[i]);
    pc_tensor_free(&g);
    return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
}

/* ---- npu_swiglu(x, dim) = silu(a) b with a, b = chunk(x, 2, dim) ---- */

typedef struct swi_plan {
    const pc_tensor *x;
    int dim;
    int64_t outer, h, inner;
    int64_t oshape[PC_TENSOR_MAX_DIMS];
    pc_dtype cd;
    bool rounded; /* the float16/bfloat16 branch on the device */
} swi_plan;

static pc_status swi_plan_make(const pc_op_call *call, pc_compute compute, swi_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    pc_status st = pc_kernel_need_float(call, p->x, "npu_swiglu");
    if (st != PC_OK)
        return st;
    int rank = p->x->rank;
    if (rank == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: chunk expects at least a 1-dimensional tensor",
                            call->full_name);
    p->dim = pc_kernel_dim(call, call->args[1].i, rank);
    if (p->dim < 0)
        return PC_ERR_INVALID;
    int64_t n = p->x->shape[p->dim];
    if (n < 2)
        return pc_error_set(PC_ERR_INVALID, "%s: tuple index out of range", call->full_name);
    if (n % 2 == 1 && n != 3)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: The size of tensor a (%lld) must match the size of tensor b "
                            "(%lld) at non-singleton dimension %d",
                            call->full_name, (long long)((n + 1) / 2), (long long)(n / 2), p->dim);
    if (n % 2 == 1)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: npu_swiglu over a dimension of size 3 (halves 2 and 1 "
                            "broadcast) is not supported",
                            call->full_name);
    p->h = n / 2;
    p->outer = p->inner = 1;
    for (int i = 0; i < p->dim; i++)
        p->outer *= p->x->shape[i];
    for (int i = p->dim + 1; i < rank; i++)
        p->inner *= p->x->shape[i];
    memcpy(p->oshape, p->x->shape, sizeof p->oshape);
    p->oshape[p->dim] = p->h;
    p->cd = compute_dtype(compute, p->x->dtype);
    p->rounded = compute == PC_COMPUTE_DEVICE &&
                 (p->x->dtype == PC_DTYPE_F16 || p->x->dtype == PC_DTYPE_BF16);
    return PC_OK;
}

/* n values v rounded to the dtype dt (float16/bfloat16) and back: pc_f32_to_bf16 (or _f16)
 * then back on each, through pc_convert_buffer (its vector paths give the scalar functions'
 * bits, NaN payloads included); stage holds n values of dt. */
static void round_n(float *v, int64_t n, pc_dtype dt, void *stage)
{
    pc_convert_buffer(stage, dt, v, PC_DTYPE_F32, (size_t)n);
    pc_convert_buffer(v, PC_DTYPE_F32, stage, dt, (size_t)n);
}

/* The float16/bfloat16 branch: s = silu(a) in float32 rounded to the dtype, y = s b. */
static void swiglu_rounded_n(const float *a, const float *b, float *y, int64_t n, pc_dtype dt,
                             void *stage)
{
    for (int64_t k = 0; k < n; k++)
        y[k] = expf(-a[k]);
    for (int64_t k = 0; k < n; k++)
        y[k] = a[k] / (1.0f + y[k]);
    round_n(y, n, dt, stage); /* s */
    for (int64_t k = 0; k < n; k++)
        y[k] = y[k] * b[k];
}

/* Its autograd: the gradient of s is rounded to the dtype before silu's backward
 * (dy sig (1 + a (1 - sig))), and both halves' gradients are rounded (at the store). b is
 * overwritten (with that rounded gradient of s, dy b). */
static void swiglu_rounded_grad_n(const float *a, float *b, const float *dy, float *da, float *db,
                                  int64_t n, pc_dtype dt, void *stage)
{
    for (int64_t k = 0; k < n; k++)
        da[k] = expf(-a[k]); /* e, for sig = 1 / (1 + e) and s = a / (1 + e) */
    for (int64_t k = 0; k < n; k++) {
        db[k] = a[k] / (1.0f + da[k]);
        b[k] = dy[k] * b[k];
    }
    round_n(db, n, dt, stage); /* s */
    round_n(b, n, dt, stage);  /* the gradient of s */
    for (int64_t k = 0; k < n; k++) {
        float sg = 1.0f / (1.0f + da[k]);
        da[k] = b[k] * sg * (1.0f + a[k] * (1.0f - sg));
        db[k] = dy[k] * db[k];
    }
}

/* The elements j0 .. j0 + n - 1 of y (index order; y viewed [outer, h inner]) as runs within
 * one row o of x viewed [outer, 2 h inner]: a run of len values at column c of the output row
 * is x's values o 2hi + c (the a half) and o 2hi + hi + c (the b half), hi = h inner. */
typedef struct swi_run {
    int64_t a, len; /* a's index in x; b's is a + hi */
} swi_run;

static swi_run swi_run_at(const swi_plan *p, int64_t j, int64_t end)
{
    int64_t hi = p->h * p->inner, o = j / hi, c = j % hi;
    swi_run r = {o * 2 * hi + c, hi - c < end - j ? hi - c : end - j};
    return r;
}

static void swi_read(const swi_plan *p, int64_t j0, int64_t n, void *a, void *b)
{
    int64_t hi = p->h * p->inner;
    for (int64_t j = j0; j < j0 + n;) {
        swi_run r = swi_run_at(p, j, j0 + n);
        pc_kernel_read(p->x, r.a, r.len, p->cd, at(a, j - j0, p->cd));
        pc_kernel_read(p->x, r.a + hi, r.len, p->cd, at(b, j - j0, p->cd));
        j += r.len;
    }
}

/* Elements per block of y (and per half of x) */
#define SWI_BLOCK PC_KERNEL_BLOCK

/* The forward (grad_out NULL) or the backward of npu_swiglu into *res (y, or dx). */
static pc_status swi_run_blocks(const pc_op_call *call, const swi_plan *p,
                                const pc_tensor *grad_out, pc_tensor *res)
{
    bool bwd = grad_out != NULL;
    int64_t n = p->outer * p->h * p->inner, hi = p->h * p->inner;
    if (bwd && pc_tensor_numel(grad_out) != n)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: npu_swiglu: the gradient has %lld values, the "
                            "output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out), (long long)n);
    pc_status st = bwd ? pc_tensor_alloc(res, p->x->dtype, p->x->shape, p->x->rank)
                       : pc_tensor_alloc(res, p->x->dtype, p->oshape, p->x->rank);
    if (st != PC_OK)
        return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
    pc_dtype cd = p->cd, dt = p->x->dtype;
    int64_t nb = (n + SWI_BLOCK - 1) / SWI_BLOCK;
    bool failed = false;
    (void)pc_convert_isa(); /* the converters' choice of path, made before the threads */
#pragma omp parallel if (n > NF_PARALLEL_MIN && nb > 1)
    {
        /* a, b and y; or a, b, dy, da and db; and a stage of float16/bfloat16 values */
        void *buf = scratch((pc_dtype_size(cd) * (bwd ? 5 : 3) + 2) * SWI_BLOCK);
        if (!buf) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nb; k++) {
            if (!buf)
                continue;
            int64_t j0 = k * SWI_BLOCK, len = n - j0 < SWI_BLOCK ? n - j0 : SWI_BLOCK;
            void *a = buf, *b = at(buf, SWI_BLOCK, cd), *c = at(buf, 2 * SWI_BLOCK, cd);
            void *stage = at(buf, (bwd ? 5 : 3) * SWI_BLOCK, cd);
            swi_read(p, j0, len, a, b);
            if (!bwd) {
                if (p->rounded)
                    swiglu_rounded_n(a, b, c, len, dt, stage);
                else if (cd == PC_DTYPE_F64)
                    swiglu_n_d(a, b, c, len);
                else
                    swiglu_n_f(a, b, c, len);
                pc_kernel_write(res, j0, len, c, cd);
                continue;
            }
            void *da = at(buf, 3 * SWI_BLOCK, cd), *db = at(buf, 4 * SWI_BLOCK, cd);
            pc_kernel_read(grad_out, j0, len, cd, c);
            if (p->rounded)
                swiglu_rounded_grad_n(a, b, c, da, db, len, dt, stage);
            else if (cd == PC_DTYPE_F64)
                swiglu_grad_n_d(a, b, c, da, db, len);
            else
                swiglu_grad_n_f(a, b, c, da, db, len);
            for (int64_t j = j0; j < j0 + len;) {
                swi_run r = swi_run_at(p, j, j0 + len);
                pc_kernel_write(res, r.a, r.len, at(da, j - j0, cd), cd);
                pc_kernel_write(res, r.a + hi, r.len, at(db, j - j0, cd), cd);
                j += r.len;
            }
        }
        free(buf);
    }
    if (failed) {
        pc_tensor_free(res);
        return pc_kernel_nomem(call);
    }
    return PC_OK;
}

pc_status pc_k_npu_swiglu_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    swi_plan p;
    pc_status st = swi_plan_make(call, compute, &p);
    if (st == PC_OK && (st = swi_run_blocks(call, &p, NULL, &out->tensors[0])) == PC_OK)
        out->count = 1;
    return st;
}

pc_status pc_k_npu_swiglu_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    swi_plan p;
    pc_status st = swi_plan_make(call, compute, &p);
    if (st != PC_OK || !pc_kernel_wants_grad(call, 0))
        return st;
    return swi_run_blocks(call, &p, grad_out, &out->grads[0]);
}
