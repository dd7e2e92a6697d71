/*
 * index_select, index_add, index_copy and index_fill (forward and backward), and the helpers of
 * the indexing group.
 *
 * The four ops see a tensor as [outer, size, inner] around their dim (a 0-dim tensor as [1])
 * and move whole slices: torch 1.13's CPU kernels go through the index in order, a slice at a
 * time, so a repeated index adds (index_add) or overwrites (index_copy: the last one wins) in
 * index order, which is the order used here. Their index checks and messages are torch's:
 * index_select and index_add take int32 or int64 indices in [0, size), index_copy and
 * index_fill int64 only, index_fill also negative ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/index/index_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

/* ---- helpers ---- */

pc_status pc_idx_nomem(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
}

pc_status pc_idx_ints(const pc_op_call *call, const pc_tensor *t, pc_tensor *out)
{
    pc_status st = pc_tensor_cast(out, t, PC_DTYPE_I64);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

pc_status pc_idx_grad(const pc_op_call *call, const pc_tensor *t, pc_dtype dtype, pc_tensor *out)
{
    pc_status st = pc_tensor_cast(out, t, PC_DTYPE_F64);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    double *v = pc_tensor_data(out);
    for (int64_t i = 0, n = pc_tensor_numel(out); i < n; i++)
        v[i] = pc_round_to_dtype(v[i], dtype);
    return PC_OK;
}

pc_status pc_idx_store(const pc_op_call *call, pc_dtype dtype, const int64_t *shape, int rank,
                       const double *v, pc_tensor *out)
{
    pc_status st = pc_shape_store(out, dtype, shape, rank, v);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

pc_status pc_idx_sum_to(const pc_op_call *call, pc_compute compute, const pc_tensor *buf,
                        const int64_t *shape, int rank, pc_dtype dtype, pc_tensor *out)
{
    bool same = buf->rank == rank;
    for (int d = 0; same && d < rank; d++)
        same = buf->shape[d] == shape[d];
    if (same)
        return pc_idx_store(call, dtype, shape, rank, pc_tensor_data(buf), out);
    /* torch sums the expanded gradient in its dtype (float16/bfloat16 in float32) */
    pc_dtype cd = pc_kernel_compute_dtype(compute, dtype);
    pc_tensor c = PC_TENSOR_NULL, s = PC_TENSOR_NULL;
    pc_status st = pc_kernel_load(call, buf, cd, &c);
    if (st == PC_OK)
        st = pc_kernel_sum_to(call, &c, shape, rank, &s);
    pc_tensor_free(&c);
    if (st == PC_OK)
        st = pc_kernel_store(call, &s, dtype, shape, rank, out);
    return st;
}

pc_status pc_idx_acc_init(pc_idx_acc *a, const pc_op_call *call, pc_compute compute, pc_dtype dtype,
                          const pc_tensor *init, int64_t n)
{
    memset(a, 0, sizeof *a);
    a->dtype = dtype;
    a->ints = !pc_dtype_is_float(dtype);
    a->stepwise = compute == PC_COMPUTE_DEVICE;
    a->n = n;
    size_t cnt = (size_t)(n > 0 ? n : 1);
    if (a->ints)
        a->i = calloc(cnt, sizeof *a->i);
    else
        a->f = calloc(cnt, sizeof *a->f);
    if (!a->i && !a->f)
        return pc_idx_nomem(call);
    if (!init)
        return PC_OK;
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&c, init, a->ints ? PC_DTYPE_I64 : PC_DTYPE_F64);
    if (st != PC_OK) {
        pc_idx_acc_free(a);
        return pc_error_prefix(st, "%s", call->full_name);
    }
    memcpy(a->ints ? (void *)a->i : (void *)a->f, pc_tensor_data(&c), (size_t)n * 8);
    pc_tensor_free(&c);
    return PC_OK;
}

void pc_idx_acc_free(pc_idx_acc *a)
{
    free(a->f);
    free(a->i);
    a->f = NULL;
    a->i = NULL;
}

pc_status pc_idx_acc_values(const pc_idx_acc *a, const pc_op_call *call, const pc_tensor *t,
                            pc_tensor *out)
{
    pc_status st = pc_tensor_cast(out, t, a->ints ? PC_DTYPE_I64 : PC_DTYPE_F64);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

void pc_idx_acc_add(pc_idx_acc *a, int64_t pos, const pc_tensor *src, int64_t k)
{
    if (a->ints) {
        a->i[pos] =
            (int64_t)((uint64_t)a->i[pos] + (uint64_t)((const int64_t *)pc_tensor_data(src))[k]);
        return;
    }
    double v = a->f[pos] + ((const double *)pc_tensor_data(src))[k];
    a->f[pos] = a->stepwise ? pc_round_to_dtype(v, a->dtype) : v;
}

void pc_idx_acc_mul(pc_idx_acc *a, int64_t pos, const pc_tensor *src, int64_t k)
{
    if (a->ints) {
        a->i[pos] =
            (int64_t)((uint64_t)a->i[pos] * (uint64_t)((const int64_t *)pc_tensor_data(src))[k]);
        return;
    }
    double v = a->f[pos] * ((const double *)pc_tensor_data(src))[k];
    a->f[pos] = a->stepwise ? pc_round_to_dtype(v, a->dtype) : v;
}

void pc_idx_acc_set(pc_idx_acc *a, int64_t pos, const pc_tensor *src, int64_t k)
{
    if (a->ints)
        a->i[pos] = ((const int64_t *)pc_tensor_data(src))[k];
    else
        a->f[pos] = ((const double *)pc_tensor_data(src))[k];
}

pc_status pc_idx_acc_store(pc_idx_acc *a, const pc_op_call *call, const int64_t *shape, int rank,
                           pc_tensor *out)
{
    pc_status st;
    if (!a->ints) {
        st = pc_idx_store(call, a->dtype, shape, rank, a->f, out);
    } else {
        pc_tensor t = PC_TENSOR_NULL;
        st = pc_tensor_alloc(&t, a->dtype, shape, rank);
        if (st == PC_OK) {
            char *p = pc_tensor_data(&t);
            size_t sz = pc_dtype_size(a->dtype);
            for (int64_t i = 0; i < a->n; i++)
                pc_element_store_i64(p + (size_t)i * sz, a->dtype, a->i[i]);
            *out = t;
        } else {
            st = pc_error_prefix(st, "%s", call->full_name);
        }
    }
    pc_idx_acc_free(a);
    return st;
}

/* ---- the [outer, size, inner] geometry ---- */

typedef struct slices {
    int dim;
    int64_t outer, size, inner;
} slices;

static pc_status slices_of(const pc_op_call *call, const pc_tensor *t, int64_t dim, slices *s)
{
    int d = 0;
    pc_status st = pc_shape_wrap_dim(call, dim, t->rank, &d);
    if (st != PC_OK)
        return st;
    s->dim = d;
    s->outer = s->inner = 1;
    s->size = t->rank > 0 ? t->shape[d] : 1;
    for (int k = 0; k < t->rank; k++)
        if (k < d)
            s->outer *= t->shape[k];
        else if (k > d)
            s->inner *= t->shape[k];
    return PC_OK;
}

static pc_status need_vector(const pc_op_call *call, const pc_tensor *idx, const char *what)
{
    if (idx->rank <= 1)
        return PC_OK;
    return pc_error_set(PC_ERR_INVALID, "%s: %s", call->full_name, what);
}

/* The index as int64 with every value in [lo, size) (negatives wrapped when lo < 0); on a value
 * out of range, err_fmt (with the value, the dim and the size, or with no conversions) is the
 * message. */
static pc_status load_index(const pc_op_call *call, const pc_tensor *idx, int dim, int64_t size,
                            bool negatives, const char *err_fmt, bool err_has_args, pc_tensor *out)
{
    pc_status st = pc_idx_ints(call, idx, out);
    if (st != PC_OK)
        return st;
    int64_t *v = pc_tensor_data(out);
    for (int64_t i = 0, n = pc_tensor_numel(out); i < n; i++) {
        int64_t k = v[i];
        bool ok = negatives ? (k >= -size && k < size) : (k >= 0 && k < size);
        if (!ok) {
            pc_tensor_free(out);
            char msg[256];
            if (err_has_args)
                snprintf(msg, sizeof msg, err_fmt, (long long)k, dim, (long long)size);
            else
                snprintf(msg, sizeof msg, "%s", err_fmt);
            return pc_error_set(PC_ERR_RANGE, "%s: %s", call->full_name, msg);
        }
        v[i] = k < 0 ? k + size : k;
    }
    return PC_OK;
}

/* ---- index_select ---- */

typedef struct select_plan {
    const pc_tensor *x, *idx;
    slices s;
    int64_t n; /* indices */
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
} select_plan;

static pc_status select_plan_make(const pc_op_call *call, select_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->idx = pc_call_tensor(call, 2);
    pc_status st = slices_of(call, p->x, call->args[1].i, &p->s);
    if (st != PC_OK)
        return st;
    if ((st = need_vector(call, p->idx, "index_select(): Index is supposed to be a vector")) !=
        PC_OK)
        return st;
    if (p->idx->dtype != PC_DTYPE_I64 && p->idx->dtype != PC_DTYPE_I32)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_select(): Expected dtype int32 or int64 for index",
                            call->full_name);
    p->n = pc_tensor_numel(p->idx);
    p->rank = p->x->rank;
    memcpy(p->shape, p->x->shape, sizeof(int64_t) * (size_t)p->rank);
    if (p->rank > 0)
        p->shape[p->s.dim] = p->n;
    return PC_OK;
}

pc_status pc_k_index_select_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    select_plan p;
    pc_status st = select_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor ix = PC_TENSOR_NULL, xc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    st =
        load_index(call, p.idx, p.s.dim, p.s.size, false, "index out of range in self", false, &ix);
    if (st == PC_OK && (st = pc_tensor_contiguous(&xc, p.x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, p.x->dtype, p.shape, p.rank)) == PC_OK) {
        size_t row = (size_t)p.s.inner * pc_dtype_size(p.x->dtype);
        const int64_t *k = pc_tensor_data(&ix);
        const char *src = pc_tensor_data(&xc);
        char *dst = pc_tensor_data(&y);
        /* a 0-dim self gives itself, whatever the number of (zero) indices */
        int64_t n = p.rank == 0 && p.n > 1 ? 1 : p.n;
        for (int64_t o = 0; o < p.s.outer; o++)
            for (int64_t i = 0; i < n; i++)
                memcpy(dst + (size_t)(o * p.n + i) * row, src + (size_t)(o * p.s.size + k[i]) * row,
                       row);
        out->tensors[0] = y;
        out->count = 1;
        y = PC_TENSOR_NULL;
    }
    pc_tensor_free(&ix);
    pc_tensor_free(&xc);
    return st;
}

/* acc[o, k[i], :] += g[o, i, :] for every (o, i) in order: torch's index_add of the gradient */
static void add_slices(pc_idx_acc *acc, const pc_tensor *g, const int64_t *k, int64_t n,
                       const slices *s)
{
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < s->inner; j++)
                pc_idx_acc_add(acc, (o * s->size + k[i]) * s->inner + j, g,
                               (o * n + i) * s->inner + j);
}

pc_status pc_k_index_select_backward(const pc_op_call *call, pc_compute compute,
                                     const pc_tensor *grad_out, pc_op_grads *out)
{
    select_plan p;
    pc_status st = select_plan_make(call, &p);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    pc_tensor ix = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    pc_idx_acc acc = {0};
    st =
        load_index(call, p.idx, p.s.dim, p.s.size, false, "index out of range in self", false, &ix);
    if (st == PC_OK)
        st = pc_idx_grad(call, grad_out, p.x->dtype, &g);
    if (st == PC_OK)
        st = pc_idx_acc_init(&acc, call, compute, p.x->dtype, NULL, pc_tensor_numel(p.x));
    if (st == PC_OK) {
        add_slices(&acc, &g, pc_tensor_data(&ix), p.rank == 0 && p.n > 1 ? 1 : p.n, &p.s);
        st = pc_idx_acc_store(&acc, call, p.x->shape, p.x->rank, &out->grads[0]);
    }
    pc_idx_acc_free(&acc);
    pc_tensor_free(&ix);
    pc_tensor_free(&g);
    return st;
}

/* ---- index_add, index_copy: a source of slices ---- */

typedef struct source_plan {
    const pc_tensor *x, *idx, *src;
    slices s;
    int64_t n;
} source_plan;

static void slice_shape(const pc_tensor *t, int dim, int64_t *shape, int *rank)
{
    *rank = 0;
    for (int d = 0; d < t->rank; d++)
        if (d != dim)
            shape[(*rank)++] = t->shape[d];
}

/* index_add: torch's checks (index_func_meta_impl, then the add's shapes) */
static pc_status add_plan_make(const pc_op_call *call, source_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->idx = pc_call_tensor(call, 2);
    p->src = pc_call_tensor(call, 3);
    pc_status st = slices_of(call, p->x, call->args[1].i, &p->s);
    if (st != PC_OK)
        return st;
    int dim = p->s.dim;
    if (p->idx->rank > 1) {
        char s[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(s, sizeof s, p->idx->shape, p->idx->rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_add_(): Index is supposed to be a vector, but got dim: %d "
                            "with type: %s and size: %s",
                            call->full_name, p->idx->rank, pc_torch_type_name(p->idx->dtype), s);
    }
    if (p->idx->dtype != PC_DTYPE_I64 && p->idx->dtype != PC_DTYPE_I32)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_add_(): Expected dtype int32/int64 for index but got: %s",
                            call->full_name, pc_torch_type_name(p->idx->dtype));
    if (p->x->dtype != p->src->dtype)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_add_(): self (%s) and source (%s) must have the same "
                            "scalar type",
                            call->full_name, pc_torch_type_name(p->x->dtype),
                            pc_torch_type_name(p->src->dtype));
    if (!(dim == 0 || dim < p->src->rank))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_add_(): Indexing dim %d is out of bounds of the source "
                            "tensor with dim %d",
                            call->full_name, dim, p->src->rank);
    p->n = pc_tensor_numel(p->idx);
    int64_t ssize = p->src->rank == 0 ? 1 : p->src->shape[dim];
    if (p->n != ssize)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_add_(): Number of indices (%lld) should be equal to "
                            "source.size(dim): (%lld), for dim: %d",
                            call->full_name, (long long)p->n, (long long)ssize, dim);
    if (p->x->rank <= 1) {
        if (p->src->rank > 1)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: source.dim() (%d) must one or zero for given self.dim() (%d)",
                                call->full_name, p->src->rank, p->x->rank);
        return PC_OK;
    }
    /* the slices are added as tensors: the source's must be the self's */
    int64_t a[PC_TENSOR_MAX_DIMS], b[PC_TENSOR_MAX_DIMS];
    int ra = 0, rb = 0;
    slice_shape(p->x, dim, a, &ra);
    slice_shape(p->src, dim, b, &rb);
    if (rb > ra) {
        char sa[PC_SHAPE_FORMAT_MAX], sb[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(sa, sizeof sa, a, ra);
        pc_shape_format(sb, sizeof sb, b, rb);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: output with shape %s doesn't match the broadcast shape %s",
                            call->full_name, sa, sb);
    }
    bool same = ra == rb;
    for (int k = 1; k <= rb; k++) {
        int64_t da = a[ra - k], db = b[rb - k];
        if (da != db && db != 1)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: The size of tensor a (%lld) must match the size of tensor b "
                                "(%lld) at non-singleton dimension %d",
                                call->full_name, (long long)da, (long long)db, ra - k);
        same = same && da == db;
    }
    if (!same)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: index_add with source slices broadcast against self's is not "
                            "supported by precheck",
                            call->full_name);
    return PC_OK;
}

/* alpha as a double (floats) or an int64 (integers) */
static pc_status alpha_of(const pc_op_call *call, const pc_tensor *x, double *f, int64_t *i)
{
    (void)call;
    const pc_value *v = &call->args[4];
    /* integers: torch converts alpha to the dtype (a float truncates) */
    *f = v->f;
    *i = v->kind == PC_VALUE_FLOAT ? (int64_t)v->f : v->i;
    if (x->dtype == PC_DTYPE_BOOL)
        *i = *i != 0;
    return PC_OK;
}

pc_status pc_k_index_add_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    source_plan p;
    pc_status st = add_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    double af = 1;
    int64_t ai = 1;
    if ((st = alpha_of(call, p.x, &af, &ai)) != PC_OK)
        return st;
    pc_tensor ix = PC_TENSOR_NULL, sv = PC_TENSOR_NULL;
    pc_idx_acc acc = {0};
    st =
        load_index(call, p.idx, p.s.dim, p.s.size, false, "index out of range in self", false, &ix);
    if (st == PC_OK)
        st = pc_idx_acc_init(&acc, call, compute, p.x->dtype, p.x, pc_tensor_numel(p.x));
    if (st == PC_OK)
        st = pc_idx_acc_values(&acc, call, p.src, &sv);
    if (st == PC_OK) {
        int64_t ns = pc_tensor_numel(&sv);
        if (acc.ints) {
            int64_t *v = pc_tensor_data(&sv);
            for (int64_t k = 0; k < ns && ai != 1; k++)
                v[k] = (int64_t)((uint64_t)v[k] * (uint64_t)ai);
        } else if (af != 1) {
            /* self of 1 dim: torch multiplies in the dtype (`*self += src * alpha`); more dims:
             * the add kernel's fused self + alpha * src */
            double *v = pc_tensor_data(&sv);
            bool round = acc.stepwise && p.x->rank <= 1;
            /* the device's alpha: the dtype's (one dim) or float32 opmath (more dims) */
            double a = !acc.stepwise || p.x->dtype == PC_DTYPE_F64 ? af
                       : round ? pc_round_to_dtype(af, p.x->dtype)
                               : (double)(float)af;
            for (int64_t k = 0; k < ns; k++)
                v[k] = round ? pc_round_to_dtype(v[k] * a, p.x->dtype) : v[k] * a;
        }
        add_slices(&acc, &sv, pc_tensor_data(&ix), p.n, &p.s);
        st = pc_idx_acc_store(&acc, call, p.x->shape, p.x->rank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    pc_idx_acc_free(&acc);
    pc_tensor_free(&ix);
    pc_tensor_free(&sv);
    return st;
}

/* grad.index_select(dim, index) of a gradient g of x's shape: rows k[i] of every outer slice */
static pc_status select_grad(const pc_op_call *call, const pc_tensor *g, const int64_t *k,
                             int64_t n, const slices *s, const pc_tensor *like, pc_dtype dtype,
                             double scale, pc_tensor *out)
{
    int64_t cnt = s->outer * n * s->inner;
    double *v = malloc((size_t)(cnt > 0 ? cnt : 1) * sizeof *v);
    if (!v)
        return pc_idx_nomem(call);
    const double *gv = pc_tensor_data(g);
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < s->inner; j++) {
                double x = gv[(o * s->size + k[i]) * s->inner + j];
                v[(o * n + i) * s->inner + j] =
                    scale == 1 ? x : pc_round_to_dtype(x * scale, dtype);
            }
    pc_status st = pc_idx_store(call, dtype, like->shape, like->rank, v, out);
    free(v);
    return st;
}

pc_status pc_k_index_add_backward(const pc_op_call *call, pc_compute compute,
                                  const pc_tensor *grad_out, pc_op_grads *out)
{
    source_plan p;
    pc_status st = add_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor ix = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    st =
        load_index(call, p.idx, p.s.dim, p.s.size, false, "index out of range in self", false, &ix);
    if (st == PC_OK)
        st = pc_idx_grad(call, grad_out, p.x->dtype, &g);
    if (st == PC_OK && pc_shape_wants_grad(call, 0))
        st = pc_idx_store(call, p.x->dtype, p.x->shape, p.x->rank, pc_tensor_data(&g),
                          &out->grads[0]);
    /* the source's gradient times alpha: a number multiplied in float32 opmath */
    double alpha = call->args[4].f;
    if (compute == PC_COMPUTE_DEVICE && p.x->dtype != PC_DTYPE_F64)
        alpha = (double)(float)alpha;
    if (st == PC_OK && pc_shape_wants_grad(call, 3))
        st = select_grad(call, &g, pc_tensor_data(&ix), p.n, &p.s, p.src, p.src->dtype, alpha,
                         &out->grads[3]);
    pc_tensor_free(&ix);
    pc_tensor_free(&g);
    return st;
}

/* index_copy: torch's checks (index_copy's meta function) */
static pc_status copy_plan_make(const pc_op_call *call, source_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->idx = pc_call_tensor(call, 2);
    p->src = pc_call_tensor(call, 3);
    pc_status st = slices_of(call, p->x, call->args[1].i, &p->s);
    if (st != PC_OK)
        return st;
    int dim = p->s.dim;
    if (p->idx->rank > 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): Index should have dimension 1 or 0 (got %d)",
                            call->full_name, p->idx->rank);
    p->n = pc_tensor_numel(p->idx);
    if (p->src->rank == 0 && p->n != 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): When source is scalar, index should have one "
                            "element (got %lld)",
                            call->full_name, (long long)p->n);
    if (p->src->rank != p->x->rank && p->src->rank != 0 && p->x->rank != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): When source and destination are not scalars, "
                            "their dimensionality must match. Source dimensionality (%d), "
                            "destination dimensionality (%d)",
                            call->full_name, p->src->rank, p->x->rank);
    if (p->idx->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): Expected a long tensor for index, but got %s",
                            call->full_name, pc_torch_type_name(p->idx->dtype));
    if (p->x->dtype != p->src->dtype)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): self and source expected to have the same dtype, "
                            "but got (self) %s and (source) %s",
                            call->full_name, pc_torch_type_name(p->x->dtype),
                            pc_torch_type_name(p->src->dtype));
    int64_t a[PC_TENSOR_MAX_DIMS], b[PC_TENSOR_MAX_DIMS];
    int ra = 0, rb = 0;
    slice_shape(p->x, dim, a, &ra);
    slice_shape(p->src, dim, b, &rb);
    bool same = ra == rb;
    for (int k = 0; same && k < ra; k++)
        same = a[k] == b[k];
    if (!same) {
        /* torch prints the sizes as a vector: "2" for one, "[2, 3]" for more */
        char sa[PC_SHAPE_FORMAT_MAX], sb[PC_SHAPE_FORMAT_MAX];
        if (ra == 1)
            snprintf(sa, sizeof sa, "%lld", (long long)a[0]);
        else
            pc_shape_format(sa, sizeof sa, a, ra);
        if (rb == 1)
            snprintf(sb, sizeof sb, "%lld", (long long)b[0]);
        else
            pc_shape_format(sb, sizeof sb, b, rb);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): Source/destination tensor must have same slice "
                            "shapes. Destination slice shape: %s at dimension %d and source "
                            "slice shape: %s at dimension 0.",
                            call->full_name, sa, dim, sb);
    }
    if (p->src->rank != 0 && p->n != p->src->shape[dim])
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_copy_(): Number of indices (%lld) should be equal to "
                            "source.size(dim) (%lld)",
                            call->full_name, (long long)p->n, (long long)p->src->shape[dim]);
    return PC_OK;
}

static pc_status copy_index(const pc_op_call *call, const source_plan *p, pc_tensor *ix)
{
    return load_index(call, p->idx, p->s.dim, p->s.size, false,
                      "index_copy_(): index %lld is out of bounds for dimension %d with size %lld",
                      true, ix);
}

pc_status pc_k_index_copy_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    source_plan p;
    pc_status st = copy_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor ix = PC_TENSOR_NULL, sc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = copy_index(call, &p, &ix)) == PC_OK &&
        (st = pc_tensor_contiguous(&sc, p.src)) == PC_OK &&
        (st = pc_tensor_cast(&y, p.x, p.x->dtype)) == PC_OK) {
        size_t row = (size_t)p.s.inner * pc_dtype_size(p.x->dtype);
        const int64_t *k = pc_tensor_data(&ix);
        const char *src = pc_tensor_data(&sc);
        char *dst = pc_tensor_data(&y);
        for (int64_t o = 0; o < p.s.outer; o++)
            for (int64_t i = 0; i < p.n; i++)
                memcpy(dst + (size_t)(o * p.s.size + k[i]) * row, src + (size_t)(o * p.n + i) * row,
                       row);
        out->tensors[0] = y;
        out->count = 1;
        y = PC_TENSOR_NULL;
    }
    pc_tensor_free(&ix);
    pc_tensor_free(&sc);
    return st;
}

/* grad with the slices k[0..n) of every outer slice zeroed: index_fill(grad, dim, index, 0) */
static pc_status zero_slices(const pc_op_call *call, const pc_tensor *g, const int64_t *k,
                             int64_t n, const slices *s, const pc_tensor *x, pc_tensor *out)
{
    double *v = pc_tensor_data(g); /* g is the caller's own copy */
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < s->inner; j++)
                v[(o * s->size + k[i]) * s->inner + j] = 0;
    return pc_idx_store(call, x->dtype, x->shape, x->rank, v, out);
}

pc_status pc_k_index_copy_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    source_plan p;
    pc_status st = copy_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_tensor ix = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    if ((st = copy_index(call, &p, &ix)) == PC_OK)
        st = pc_idx_grad(call, grad_out, p.x->dtype, &g);
    const int64_t *k = pc_tensor_data(&ix);
    if (st == PC_OK && pc_shape_wants_grad(call, 3))
        st = select_grad(call, &g, k, p.n, &p.s, p.src, p.src->dtype, 1, &out->grads[3]);
    if (st == PC_OK && pc_shape_wants_grad(call, 0))
        st = zero_slices(call, &g, k, p.n, &p.s, p.x, &out->grads[0]);
    pc_tensor_free(&ix);
    pc_tensor_free(&g);
    return st;
}

/* ---- index_fill ---- */

static pc_status fill_plan_make(const pc_op_call *call, source_plan *p, pc_tensor *ix)
{
    p->x = pc_call_tensor(call, 0);
    p->idx = pc_call_tensor(call, 2);
    p->src = pc_call_tensor(call, 3);
    if (p->src->rank != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: index_fill_ only supports a 0-dimensional value tensor, but got "
                            "tensor with %d dimension(s).",
                            call->full_name, p->src->rank);
    if (p->idx->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID, "%s: index_fill_(): Expected dtype int64 for index.",
                            call->full_name);
    pc_status st = slices_of(call, p->x, call->args[1].i, &p->s);
    if (st != PC_OK)
        return st;
    if (p->idx->rank > 1)
        return pc_error_set(PC_ERR_INVALID, "%s: Index has to be a vector/scalar", call->full_name);
    p->n = pc_tensor_numel(p->idx);
    return load_index(call, p->idx, p->s.dim, p->s.size, true,
                      "index %lld is out of bounds for dimension %d with size %lld", true, ix);
}

pc_status pc_k_index_fill_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    source_plan p;
    pc_tensor ix = PC_TENSOR_NULL, vc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    pc_status st = fill_plan_make(call, &p, &ix);
    /* the value converted to self's dtype (torch: value.item() filled in) */
    if (st == PC_OK && (st = pc_tensor_cast(&vc, p.src, p.x->dtype)) == PC_OK &&
        (st = pc_tensor_cast(&y, p.x, p.x->dtype)) == PC_OK) {
        size_t sz = pc_dtype_size(p.x->dtype);
        const int64_t *k = pc_tensor_data(&ix);
        const char *val = pc_tensor_data(&vc);
        char *dst = pc_tensor_data(&y);
        for (int64_t o = 0; o < p.s.outer; o++)
            for (int64_t i = 0; i < p.n; i++)
                for (int64_t j = 0; j < p.s.inner; j++)
                    memcpy(dst + (size_t)((o * p.s.size + k[i]) * p.s.inner + j) * sz, val, sz);
        out->tensors[0] = y;
        out->count = 1;
        y = PC_TENSOR_NULL;
    }
    pc_tensor_free(&ix);
    pc_tensor_free(&vc);
    return st;
}

pc_status pc_k_index_fill_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    source_plan p;
    pc_tensor ix = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    pc_status st = fill_plan_make(call, &p, &ix);
    if (st == PC_OK)
        st = pc_idx_grad(call, grad_out, p.x->dtype, &g);
    const int64_t *k = pc_tensor_data(&ix);
    if (st == PC_OK && pc_shape_wants_grad(call, 3)) {
        /* value: grad.index_select(dim, unique(index)).sum(), summed here in double */
        bool *seen = calloc((size_t)(p.s.size > 0 ? p.s.size : 1), sizeof *seen);
        if (!seen) {
            st = pc_idx_nomem(call);
        } else {
            const double *gv = pc_tensor_data(&g);
            double sum = 0;
            for (int64_t i = 0; i < p.n; i++) {
                if (seen[k[i]])
                    continue;
                seen[k[i]] = true;
                for (int64_t o = 0; o < p.s.outer; o++)
                    for (int64_t j = 0; j < p.s.inner; j++)
                        sum += gv[(o * p.s.size + k[i]) * p.s.inner + j];
            }
            free(seen);
            sum = pc_round_to_dtype(sum, p.src->dtype);
            st = pc_idx_store(call, p.src->dtype, NULL, 0, &sum, &out->grads[3]);
        }
    }
    if (st == PC_OK && pc_shape_wants_grad(call, 0))
        st = zero_slices(call, &g, k, p.n, &p.s, p.x, &out->grads[0]);
    pc_tensor_free(&ix);
    pc_tensor_free(&g);
    return st;
}
