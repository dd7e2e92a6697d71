/*
 * Ops that read each output element from one input element or write a zero: roll, tile,
 * repeat_interleave, diag, diagonal, diag_embed (forward and backward), one_hot (forward) and
 * fill_ (forward and backward).
 *
 * Each op is a "map": for every output element (row-major) the offset of the input element it
 * copies in x's contiguous layout, or -1 for a zero. Forward copies (exact); backward adds the
 * gradient back through the same map. Where torch's backward is an index_add
 * (repeat_interleave is index_select underneath) the repeats add in order, each sum stored in
 * the dtype on the device; tile's backward is torch's sum over the repeat dims, taken in
 * double and rounded once (as repeat's in the shape group). Also bincount and histc (counts,
 * forward only).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/index/index_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

typedef struct elem_map {
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t n;
    int64_t *offs; /* malloc'ed, n entries; -1: a zero */
} elem_map;

typedef pc_status (*map_fn)(const pc_op_call *call, const pc_tensor *x, elem_map *m);

static pc_status map_alloc(const pc_op_call *call, elem_map *m)
{
    m->n = 1;
    for (int d = 0; d < m->rank; d++)
        m->n *= m->shape[d];
    m->offs = malloc((size_t)(m->n > 0 ? m->n : 1) * sizeof *m->offs);
    return m->offs ? PC_OK : pc_idx_nomem(call);
}

/* the coordinates of output element i, row-major */
static void coords_of(int64_t i, const int64_t *shape, int rank, int64_t *c)
{
    for (int d = rank - 1; d >= 0; d--) {
        c[d] = shape[d] > 0 ? i % shape[d] : 0;
        i = shape[d] > 0 ? i / shape[d] : 0;
    }
}

static pc_status map_forward(const pc_op_call *call, map_fn fn, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    elem_map m = {0};
    pc_status st = fn(call, x, &m);
    if (st != PC_OK)
        return st;
    pc_tensor xc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = pc_tensor_contiguous(&xc, x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, x->dtype, m.shape, m.rank)) == PC_OK) {
        size_t sz = pc_dtype_size(x->dtype);
        const char *src = pc_tensor_data(&xc);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0; i < m.n; i++)
            if (m.offs[i] >= 0)
                memcpy(dst + (size_t)i * sz, src + (size_t)m.offs[i] * sz, sz);
        out->tensors[0] = y;
        out->count = 1;
    } else {
        st = pc_error_prefix(st, "%s", call->full_name);
    }
    pc_tensor_free(&xc);
    free(m.offs);
    return st;
}

/* stepwise: the repeats add up in order, each sum in the dtype (device); otherwise in double */
static pc_status map_backward(const pc_op_call *call, pc_compute compute, map_fn fn, bool stepwise,
                              const pc_tensor *grad_out, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    elem_map m = {0};
    pc_status st = fn(call, x, &m);
    if (st != PC_OK)
        return st;
    pc_tensor g = PC_TENSOR_NULL;
    pc_idx_acc acc = {0};
    if (pc_tensor_numel(grad_out) != m.n)
        st = pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                          call->full_name, (long long)pc_tensor_numel(grad_out), (long long)m.n);
    if (st == PC_OK)
        st = pc_idx_grad(call, grad_out, x->dtype, &g);
    if (st == PC_OK)
        st = pc_idx_acc_init(&acc, call, stepwise ? compute : PC_COMPUTE_BENCH, x->dtype, NULL,
                             pc_tensor_numel(x));
    if (st == PC_OK) {
        for (int64_t i = 0; i < m.n; i++)
            if (m.offs[i] >= 0)
                pc_idx_acc_add(&acc, m.offs[i], &g, i);
        st = pc_idx_acc_store(&acc, call, x->shape, x->rank, &out->grads[0]);
    }
    pc_idx_acc_free(&acc);
    pc_tensor_free(&g);
    free(m.offs);
    return st;
}

/* ---- roll ---- */

static pc_status roll_map(const pc_op_call *call, const pc_tensor *x, elem_map *m)
{
    const pc_value *sh = &call->args[1], *dv = &call->args[2];
    int64_t shift[PC_TENSOR_MAX_DIMS] = {0};
    int64_t xs[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(x->shape, x->rank, xs);
    m->rank = x->rank;
    memcpy(m->shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    bool flat = dv->nints == 0;
    if (flat && sh->nints != 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: shifts and dimensions must align. shifts: %d, "
                            "dims:%d",
                            call->full_name, sh->nints, dv->nints);
    if (!flat && sh->nints != dv->nints)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: shifts and dimensions must align. shifts: %d, "
                            "dims:%d",
                            call->full_name, sh->nints, dv->nints);
    for (int k = 0; !flat && k < dv->nints; k++) {
        int d = 0;
        pc_status st = pc_shape_wrap_dim(call, dv->ints[k], x->rank, &d);
        if (st != PC_OK)
            return st;
        if (x->rank > 0)
            shift[d] += sh->ints[k];
    }
    pc_status st = map_alloc(call, m);
    if (st != PC_OK)
        return st;
    if (flat) { /* the flattened tensor rolled */
        int64_t n = m->n, s = n > 0 ? ((sh->ints[0] % n) + n) % n : 0;
        for (int64_t i = 0; i < n; i++)
            m->offs[i] = (i - s + n) % n;
        return PC_OK;
    }
    for (int64_t i = 0; i < m->n; i++) {
        int64_t c[PC_TENSOR_MAX_DIMS], off = 0;
        coords_of(i, x->shape, x->rank, c);
        for (int d = 0; d < x->rank; d++) {
            int64_t sz = x->shape[d], s = ((shift[d] % sz) + sz) % sz;
            off += ((c[d] - s + sz) % sz) * xs[d];
        }
        m->offs[i] = off;
    }
    return PC_OK;
}

pc_status pc_k_roll_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    return map_forward(call, roll_map, out);
}

pc_status pc_k_roll_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    return map_backward(call, compute, roll_map, false, grad_out, out);
}

/* ---- tile ---- */

static pc_status tile_map(const pc_op_call *call, const pc_tensor *x, elem_map *m)
{
    const pc_value *rv = &call->args[1];
    int r = rv->nints > x->rank ? rv->nints : x->rank;
    int64_t reps[PC_TENSOR_MAX_DIMS], xsh[PC_TENSOR_MAX_DIMS], xs[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < r; d++) {
        int kr = d - (r - rv->nints), kx = d - (r - x->rank);
        reps[d] = kr >= 0 ? rv->ints[kr] : 1;
        xsh[d] = kx >= 0 ? x->shape[kx] : 1;
        if (reps[d] < 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Trying to create tensor with negative dimension %lld: %s",
                                call->full_name, (long long)reps[d] * xsh[d], "tile");
        m->shape[d] = xsh[d] * reps[d];
    }
    m->rank = r;
    pc_shape_contiguous_strides(xsh, r, xs);
    pc_status st = map_alloc(call, m);
    for (int64_t i = 0; st == PC_OK && i < m->n; i++) {
        int64_t c[PC_TENSOR_MAX_DIMS], off = 0;
        coords_of(i, m->shape, r, c);
        for (int d = 0; d < r; d++)
            off += (c[d] % xsh[d]) * xs[d];
        m->offs[i] = off;
    }
    return st;
}

pc_status pc_k_tile_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    return map_forward(call, tile_map, out);
}

pc_status pc_k_tile_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    return map_backward(call, compute, tile_map, false, grad_out, out);
}

/* ---- repeat_interleave ---- */

static pc_status repeat_interleave_map(const pc_op_call *call, const pc_tensor *x, elem_map *m)
{
    const pc_tensor *rp = pc_call_tensor(call, 1);
    bool flat = call->args[2].kind == PC_VALUE_NONE;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int rank = flat ? 1 : x->rank;
    if (flat)
        shape[0] = pc_tensor_numel(x);
    else
        memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    int dim = 0;
    pc_status st = flat ? PC_OK : pc_shape_wrap_dim(call, call->args[2].i, x->rank, &dim);
    if (st != PC_OK)
        return st;
    if (rank == 0) { /* a 0-dim input along dim 0: one slice */
        rank = 1;
        shape[0] = 1;
    }
    int64_t size = shape[dim];
    if (rp->dtype != PC_DTYPE_I64 && rp->dtype != PC_DTYPE_I32)
        return pc_error_set(PC_ERR_INVALID, "%s: repeats has to be Long or Int tensor",
                            call->full_name);
    if (rp->rank > 1)
        return pc_error_set(PC_ERR_INVALID, "%s: repeats must be 0-dim or 1-dim tensor",
                            call->full_name);
    int64_t nr = pc_tensor_numel(rp);
    bool one = rp->rank == 0 || nr == 1;
    if (!one && nr != size)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: repeats must have the same size as input along dim",
                            call->full_name);
    pc_tensor r = PC_TENSOR_NULL;
    if ((st = pc_idx_ints(call, rp, &r)) != PC_OK)
        return st;
    const int64_t *rv = pc_tensor_data(&r);
    int64_t total = 0;
    for (int64_t i = 0; i < (one ? (nr > 0 ? 1 : 0) : nr); i++)
        if (rv[i] < 0) {
            pc_tensor_free(&r);
            return pc_error_set(PC_ERR_INVALID, "%s: repeats can not be negative", call->full_name);
        }
    for (int64_t i = 0; i < size; i++)
        total += rv[one ? 0 : i];
    /* the source slice of each output slice along dim */
    int64_t *src = malloc((size_t)(total > 0 ? total : 1) * sizeof *src);
    if (!src) {
        pc_tensor_free(&r);
        return pc_idx_nomem(call);
    }
    for (int64_t i = 0, w = 0; i < size; i++)
        for (int64_t k = 0; k < rv[one ? 0 : i]; k++)
            src[w++] = i;
    pc_tensor_free(&r);
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < rank; d++)
        if (d < dim)
            outer *= shape[d];
        else if (d > dim)
            inner *= shape[d];
    m->rank = rank;
    for (int d = 0; d < rank && d < PC_TENSOR_MAX_DIMS; d++)
        m->shape[d] = d == dim ? total : shape[d];
    if ((st = map_alloc(call, m)) == PC_OK)
        for (int64_t o = 0, w = 0; o < outer; o++)
            for (int64_t j = 0; j < total; j++)
                for (int64_t k = 0; k < inner; k++)
                    m->offs[w++] = (o * size + src[j]) * inner + k;
    free(src);
    return st;
}

pc_status pc_k_repeat_interleave_forward(const pc_op_call *call, pc_compute compute,
                                         pc_op_result *out)
{
    (void)compute;
    return map_forward(call, repeat_interleave_map, out);
}

pc_status pc_k_repeat_interleave_backward(const pc_op_call *call, pc_compute compute,
                                          const pc_tensor *grad_out, pc_op_grads *out)
{
    return map_backward(call, compute, repeat_interleave_map, true, grad_out, out);
}

/* ---- diag, diagonal, diag_embed ---- */

/* The diagonal of length len at offset k of a [r, c] plane: element i at (row, col). */
static int64_t diag_len(int64_t r, int64_t c, int64_t k)
{
    int64_t len = k >= 0 ? (r < c - k ? r : c - k) : (r + k < c ? r + k : c);
    return len > 0 ? len : 0;
}

static pc_status diagonal_dims(const pc_op_call *call, int rank, int64_t a, int64_t b, int *d1,
                               int *d2)
{
    pc_status st = pc_shape_wrap_dim(call, a, rank, d1);
    if (st == PC_OK)
        st = pc_shape_wrap_dim(call, b, rank, d2);
    if (st == PC_OK && *d1 == *d2)
        st = pc_error_set(PC_ERR_INVALID, "%s: diagonal dimensions cannot be identical %lld, %lld",
                          call->full_name, (long long)a, (long long)b);
    return st;
}

static pc_status diagonal_map(const pc_op_call *call, const pc_tensor *x, elem_map *m)
{
    int64_t k = call->args[1].i;
    int d1 = 0, d2 = 0;
    pc_status st = diagonal_dims(call, x->rank, call->args[2].i, call->args[3].i, &d1, &d2);
    if (st != PC_OK)
        return st;
    int64_t xs[PC_TENSOR_MAX_DIMS], ostr[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(x->shape, x->rank, xs);
    m->rank = 0;
    for (int d = 0; d < x->rank; d++)
        if (d != d1 && d != d2) {
            ostr[m->rank] = xs[d];
            m->shape[m->rank++] = x->shape[d];
        }
    int64_t len = diag_len(x->shape[d1], x->shape[d2], k);
    m->shape[m->rank++] = len;
    int64_t base = len > 0 ? (k >= 0 ? k * xs[d2] : -k * xs[d1]) : 0;
    ostr[m->rank - 1] = xs[d1] + xs[d2];
    if ((st = map_alloc(call, m)) != PC_OK)
        return st;
    for (int64_t i = 0; i < m->n; i++) {
        int64_t c[PC_TENSOR_MAX_DIMS], off = base;
        coords_of(i, m->shape, m->rank, c);
        for (int d = 0; d < m->rank; d++)
            off += c[d] * ostr[d];
        m->offs[i] = off;
    }
    return PC_OK;
}

/* diag_embed: the last dim of x on the (dim1, dim2) diagonal at offset k of a new rank + 1
 * tensor. */
static pc_status diag_embed_map(const pc_op_call *call, const pc_tensor *x, elem_map *m, int64_t k,
                                int64_t a, int64_t b)
{
    int r = x->rank + 1;
    if (r > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many dimensions", call->full_name);
    int d1 = 0, d2 = 0;
    pc_status st = diagonal_dims(call, r, a, b, &d1, &d2);
    if (st != PC_OK)
        return st;
    int64_t n = x->rank > 0 ? x->shape[x->rank - 1] : 1, size = n + (k >= 0 ? k : -k);
    int64_t xs[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(x->shape, x->rank, xs);
    m->rank = r;
    for (int d = 0, j = 0; d < r; d++)
        m->shape[d] = (d == d1 || d == d2) ? size : x->shape[j++];
    if ((st = map_alloc(call, m)) != PC_OK)
        return st;
    for (int64_t i = 0; i < m->n; i++) {
        int64_t c[PC_TENSOR_MAX_DIMS], off = 0;
        coords_of(i, m->shape, r, c);
        int64_t row = c[d1], col = c[d2];
        int64_t pos = k >= 0 ? row : col; /* the element along the diagonal */
        bool on = k >= 0 ? col - row == k : row - col == -k;
        for (int d = 0, j = 0; on && d < r; d++)
            if (d != d1 && d != d2)
                off += c[d] * xs[j++];
        m->offs[i] = on && pos < n ? off + pos * (x->rank > 0 ? xs[x->rank - 1] : 1) : -1;
    }
    return PC_OK;
}

static pc_status diag_embed_op_map(const pc_op_call *call, const pc_tensor *x, elem_map *m)
{
    return diag_embed_map(call, x, m, call->args[1].i, call->args[2].i, call->args[3].i);
}

static pc_status diag_map(const pc_op_call *call, const pc_tensor *x, elem_map *m)
{
    int64_t k = call->args[1].i;
    if (x->rank == 1)
        return diag_embed_map(call, x, m, k, 0, 1);
    if (x->rank != 2)
        return pc_error_set(PC_ERR_INVALID, "%s: matrix or a vector expected", call->full_name);
    int64_t len = diag_len(x->shape[0], x->shape[1], k);
    m->rank = 1;
    m->shape[0] = len;
    pc_status st = map_alloc(call, m);
    for (int64_t i = 0; st == PC_OK && i < len; i++)
        m->offs[i] = k >= 0 ? i * x->shape[1] + i + k : (i - k) * x->shape[1] + i;
    return st;
}

#define MAP_OP(name, fn)                                                                           \
    pc_status pc_k_##name##_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out) \
    {                                                                                              \
        (void)compute;                                                                             \
        return map_forward(call, fn, out);                                                         \
    }                                                                                              \
    pc_status pc_k_##name##_backward(const pc_op_call *call, pc_compute compute,                   \
                                     const pc_tensor *grad_out, pc_op_grads *out)                  \
    {                                                                                              \
        return map_backward(call, compute, fn, false, grad_out, out);                              \
    }
MAP_OP(diag, diag_map)
MAP_OP(diagonal, diagonal_map)
MAP_OP(diag_embed, diag_embed_op_map)
#undef MAP_OP

/* ---- one_hot ---- */

pc_status pc_k_one_hot_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    int64_t nc = call->args[1].i;
    if (x->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID, "%s: one_hot is only applicable to index tensor.",
                            call->full_name);
    if (x->rank + 1 > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many dimensions", call->full_name);
    int64_t n = pc_tensor_numel(x);
    if (n == 0 && nc <= 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Can not infer total number of classes from empty tensor.",
                            call->full_name);
    pc_tensor v = PC_TENSOR_NULL;
    pc_status st = pc_idx_ints(call, x, &v);
    if (st != PC_OK)
        return st;
    const int64_t *iv = pc_tensor_data(&v);
    int64_t lo = 0, hi = -1;
    for (int64_t i = 0; i < n; i++) {
        lo = i == 0 || iv[i] < lo ? iv[i] : lo;
        hi = i == 0 || iv[i] > hi ? iv[i] : hi;
    }
    if (n > 0 && lo < 0)
        st =
            pc_error_set(PC_ERR_INVALID, "%s: Class values must be non-negative.", call->full_name);
    else if (n > 0 && nc == -1)
        nc = hi + 1;
    else if (n > 0 && nc <= hi)
        st = pc_error_set(PC_ERR_INVALID, "%s: Class values must be smaller than num_classes.",
                          call->full_name);
    int64_t shape[PC_TENSOR_MAX_DIMS];
    memcpy(shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    shape[x->rank] = nc;
    pc_tensor y = PC_TENSOR_NULL;
    if (st == PC_OK && (st = pc_tensor_alloc(&y, PC_DTYPE_I64, shape, x->rank + 1)) != PC_OK)
        st = pc_error_prefix(st, "%s", call->full_name);
    if (st == PC_OK) {
        int64_t *yv = pc_tensor_data(&y);
        for (int64_t i = 0; i < n; i++)
            yv[i * nc + iv[i]] = 1;
        out->tensors[0] = y;
        out->count = 1;
    }
    pc_tensor_free(&v);
    return st;
}

/* ---- fill_ ---- */

pc_status pc_k_fill_value_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0), *v = pc_call_tensor(call, 1);
    if (v->rank != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: fill_ only supports 0-dimension value tensor but got tensor with "
                            "%d dimensions.",
                            call->full_name, v->rank);
    pc_tensor vc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&vc, v, x->dtype);
    if (st == PC_OK && (st = pc_tensor_alloc(&y, x->dtype, x->shape, x->rank)) == PC_OK) {
        size_t sz = pc_dtype_size(x->dtype);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0, n = pc_tensor_numel(&y); i < n; i++)
            memcpy(dst + (size_t)i * sz, pc_tensor_data(&vc), sz);
        out->tensors[0] = y;
        out->count = 1;
    } else {
        st = pc_error_prefix(st, "%s", call->full_name);
    }
    pc_tensor_free(&vc);
    return st;
}

pc_status pc_k_fill_value_backward(const pc_op_call *call, pc_compute compute,
                                   const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0), *v = pc_call_tensor(call, 1);
    pc_status st = PC_OK;
    if (pc_shape_wants_grad(call, 0)) /* self's values are all overwritten */
        if ((st = pc_tensor_alloc(&out->grads[0], x->dtype, x->shape, x->rank)) != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
    if (pc_shape_wants_grad(call, 1)) {
        /* the value's: grad.sum(), in double and rounded once */
        pc_tensor g = PC_TENSOR_NULL;
        if ((st = pc_idx_grad(call, grad_out, x->dtype, &g)) != PC_OK)
            return st;
        double sum = 0;
        const double *gv = pc_tensor_data(&g);
        for (int64_t i = 0, n = pc_tensor_numel(&g); i < n; i++)
            sum += gv[i];
        pc_tensor_free(&g);
        sum = pc_round_to_dtype(sum, v->dtype);
        st = pc_idx_store(call, v->dtype, NULL, 0, &sum, &out->grads[1]);
    }
    return st;
}

/* ---- bincount ---- */

pc_status pc_k_bincount_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *w = pc_call_tensor(call, 1);
    int64_t minlength = call->args[2].i;
    if (!pc_dtype_is_integral(x->dtype) || x->dtype == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"bincount_cpu\" not implemented for '%s'",
                            call->full_name, pc_torch_type_name(x->dtype));
    if (minlength < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: minlength should be >= 0", call->full_name);
    if (x->rank != 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: bincount only supports 1-d non-negative integral inputs.",
                            call->full_name);
    int64_t n = pc_tensor_numel(x);
    if (w && (w->rank != 1 || pc_tensor_numel(w) != n))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: weights should be 1-d and have the same length as input",
                            call->full_name);
    pc_tensor v = PC_TENSOR_NULL;
    pc_status st = pc_idx_ints(call, x, &v);
    if (st != PC_OK)
        return st;
    const int64_t *iv = pc_tensor_data(&v);
    int64_t hi = -1;
    for (int64_t i = 0; i < n && st == PC_OK; i++) {
        if (iv[i] < 0)
            st = pc_error_set(PC_ERR_INVALID,
                              "%s: bincount only supports 1-d non-negative integral inputs.",
                              call->full_name);
        hi = iv[i] > hi ? iv[i] : hi;
    }
    int64_t nbins = hi + 1 > minlength ? hi + 1 : minlength;
    /* torch: float32 weights sum into a float32 result (one add at a time, in index order),
     * other weights are taken as float64; no weights: int64 counts. The bench holds float32
     * weights as float64 already. */
    pc_dtype od = !w ? PC_DTYPE_I64 : w->dtype == PC_DTYPE_F32 ? PC_DTYPE_F32 : PC_DTYPE_F64;
    (void)compute;
    if (st == PC_OK && (st = pc_tensor_alloc(&out->tensors[0], od, &nbins, 1)) != PC_OK)
        st = pc_error_prefix(st, "%s", call->full_name);
    if (st == PC_OK) {
        if (!w) {
            int64_t *o = pc_tensor_data(&out->tensors[0]);
            for (int64_t i = 0; i < n; i++)
                o[iv[i]]++;
        } else {
            for (int64_t i = 0; i < n; i++) {
                int64_t idx = i;
                double wi = pc_tensor_get(w, &idx);
                if (od == PC_DTYPE_F32) {
                    float *o = pc_tensor_data(&out->tensors[0]);
                    o[iv[i]] += (float)wi;
                } else {
                    double *o = pc_tensor_data(&out->tensors[0]);
                    o[iv[i]] += wi;
                }
            }
        }
        out->count = 1;
    }
    pc_tensor_free(&v);
    return st;
}

/* ---- histc ---- */

/* v rounded to the dtype the position arithmetic runs in: float opmath for float32 and the
 * half types (the device), double for float64 and the bench. */
static double histc_round(bool f32, double v)
{
    return f32 ? (double)(float)v : v;
}

/*
 * histc(input, bins, min, max): counts of the elements in bins equal parts of [min, max] (min =
 * max: the input's own extremes; equal extremes widened by 1 each way), torch 1.13's CPU
 * arithmetic: the outer edges in the input's dtype, an element's bin (x - lo) * bins / (hi - lo)
 * truncated, each step rounded to the compute dtype, x = hi in the last bin, elements outside
 * [lo, hi] and NaN not counted. The counts are exact, rounded once to the input's dtype (torch's
 * CPU adds ones in bfloat16 for a bfloat16 input, inexact beyond 256). Float inputs only: run_ut
 * gives integer ones as float32 (its CONVERT_API, inputs.c).
 */
pc_status pc_k_histc_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    int64_t bins = call->args[1].i;
    double lo = call->args[2].f, hi = call->args[3].f;
    if (!pc_dtype_is_float(x->dtype) || pc_dtype_is_complex(x->dtype))
        return pc_error_set(PC_ERR_INVALID, "%s: \"histogram_cpu\" not implemented for '%s'",
                            call->full_name, pc_torch_type_name(x->dtype));
    if (x->dtype == PC_DTYPE_F8E4M3FN || x->dtype == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: histc of %s is not supported by precheck",
                            call->full_name, pc_dtype_name(x->dtype));
    if (bins <= 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: torch.histogram(): bins must be > 0, but got %lld for "
                            "dimension 0",
                            call->full_name, (long long)bins);
    pc_tensor xd = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&xd, x, PC_DTYPE_F64);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (!pc_tensor_is_contiguous(&xd)) {
        pc_tensor c = PC_TENSOR_NULL;
        st = pc_tensor_contiguous(&c, &xd);
        pc_tensor_free(&xd);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        xd = c;
    }
    const double *v = pc_tensor_data(&xd);
    int64_t n = pc_tensor_numel(x);
    if (lo == hi && n > 0) { /* aminmax: NaN wins */
        lo = hi = v[0];
        for (int64_t i = 0; i < n; i++) {
            if (isnan(v[i]) || isnan(lo)) {
                lo = hi = (double)NAN;
                break;
            }
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
    }
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    if (!isfinite(lo) || !isfinite(hi)) {
        pc_tensor_free(&xd);
        return pc_error_set(PC_ERR_INVALID, "%s: torch.histc: range of [%g, %g] is not finite",
                            call->full_name, lo, hi);
    }
    if (!(lo < hi)) {
        pc_tensor_free(&xd);
        return pc_error_set(PC_ERR_INVALID, "%s: torch.histc: max must be larger than min",
                            call->full_name);
    }
    /* the outer bin edges: linspace(lo, hi, bins + 1)'s ends, in the input's dtype */
    lo = pc_round_to_dtype(lo, x->dtype);
    hi = pc_round_to_dtype(hi, x->dtype);
    bool f32 = compute == PC_COMPUTE_DEVICE && x->dtype != PC_DTYPE_F64;
    double width = histc_round(f32, hi - lo);
    double *counts = calloc((size_t)bins, sizeof *counts);
    if (!counts) {
        pc_tensor_free(&xd);
        return pc_idx_nomem(call);
    }
    for (int64_t i = 0; i < n; i++) {
        double e = v[i];
        if (!(e >= lo && e <= hi))
            continue;
        double q =
            histc_round(f32, histc_round(f32, histc_round(f32, e - lo) * (double)bins) / width);
        int64_t pos = (int64_t)q;
        if (pos >= bins) /* x = hi (and a quotient rounded up to bins) */
            pos = bins - 1;
        counts[pos] += 1;
    }
    st = pc_shape_store(&out->tensors[0], x->dtype, &bins, 1, counts);
    if (st == PC_OK)
        out->count = 1;
    free(counts);
    pc_tensor_free(&xd);
    return st;
}
