/*
 * Tensor.__getitem__ (x[index]), forward and backward.
 *
 * An index becomes a plan in two parts, as torch's Python indexing does it: a basic view of x
 * (ints select, slices narrow and stride, None and bools add axes, the ellipsis spans the
 * dims nobody names) and a list of advanced indices (integer tensors, and the coordinates of
 * bool masks), each on one dim of that view. The advanced indices broadcast together; their
 * dims go where the first one was when they are adjacent, else to the front (torch's rule).
 * Each output element then has one offset into x's contiguous layout: forward copies, backward
 * adds the gradient back through the same offsets (repeated indices accumulate). No arithmetic
 * happens in forward, so the result is exactly torch's.
 *
 * A lone tensor index follows msprobe's special cases (docs/msprobe-contract.md#replay): uint8 is
 * read as bool; a bool index of x's shape is masked_select (the same values as x[mask]); another
 * bool index is x[mask.nonzero(as_tuple=True)] (its shape is not checked against x's); an integer
 * index of 0 dims selects, of 1 dim indexes with its values, of more dims stacks the rows (the same
 * as x[index], except that no rows is an error of stack). The values of up to 1 dim are Python
 * numbers (t.tolist()), so a lone int32 tensor works, and a float one of 1 dim too (torch reads
 * a list of floats as int64, truncated); the rows of more dims are tensors again. Anywhere else
 * (x[(t,)], x[t, :], x[:, t], ...) torch 1.13's CPU refuses an index tensor of one or more dims
 * that is not int64, uint8 or bool (a 0-dim integer one selects, as an int), and every float
 * one; it checks once the ints and slices are applied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/index/index_impl.h"
#include "ops/kernel.h"

#define VIEW_MAX (2 * PC_TENSOR_MAX_DIMS)

typedef struct adv_index {
    int dim; /* of the basic view */
    int rank;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int64_t *values;       /* malloc'ed, one per element */
    const pc_tensor *mask; /* a bool mask still to expand (values NULL until then) */
    bool check_mask;       /* its shape must be the view's at dim (not for msprobe's nonzero) */
} adv_index;

typedef struct index_plan {
    int rank; /* the basic view of x's contiguous layout */
    int64_t shape[VIEW_MAX];
    int64_t strides[VIEW_MAX];
    int64_t offset;
    int nadv;
    adv_index adv[VIEW_MAX];
} index_plan;

static void plan_free(index_plan *p)
{
    for (int j = 0; j < p->nadv; j++)
        free(p->adv[j].values);
    p->nadv = 0;
}

static pc_status nomem(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
}

static bool is_mask(const pc_tensor *t)
{
    return t->dtype == PC_DTYPE_BOOL || t->dtype == PC_DTYPE_U8;
}

static pc_status view_insert(const pc_op_call *call, index_plan *p, int d, int64_t size)
{
    if (p->rank >= VIEW_MAX)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: the index adds too many dimensions",
                            call->full_name);
    memmove(p->shape + d + 1, p->shape + d, sizeof(int64_t) * (size_t)(p->rank - d));
    memmove(p->strides + d + 1, p->strides + d, sizeof(int64_t) * (size_t)(p->rank - d));
    p->shape[d] = size;
    p->strides[d] = 0;
    p->rank++;
    return PC_OK;
}

static void view_remove(index_plan *p, int d)
{
    memmove(p->shape + d, p->shape + d + 1, sizeof(int64_t) * (size_t)(p->rank - d - 1));
    memmove(p->strides + d, p->strides + d + 1, sizeof(int64_t) * (size_t)(p->rank - d - 1));
    p->rank--;
}

static pc_status select_dim(const pc_op_call *call, index_plan *p, int d, int64_t i)
{
    int64_t size = p->shape[d];
    if (i < -size || i >= size)
        return pc_error_set(PC_ERR_RANGE,
                            "%s: index %lld is out of bounds for dimension %d with size %lld",
                            call->full_name, (long long)i, d, (long long)size);
    p->offset += (i < 0 ? i + size : i) * p->strides[d];
    view_remove(p, d);
    return PC_OK;
}

static pc_status slice_dim(const pc_op_call *call, index_plan *p, int d, const pc_index_item *it)
{
    int64_t step = it->has_step ? it->step : 1;
    if (step == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: slice step cannot be zero", call->full_name);
    if (step < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: step must be greater than zero", call->full_name);
    int64_t size = p->shape[d];
    int64_t start = it->has_start ? it->start : 0, stop = it->has_stop ? it->stop : INT64_MAX;
    if (start < 0)
        start += size;
    if (stop < 0)
        stop += size;
    start = start < 0 ? 0 : start > size ? size : start;
    stop = stop < start ? start : stop > size ? size : stop;
    p->offset += start * p->strides[d];
    p->shape[d] = (stop - start + step - 1) / step;
    p->strides[d] *= step;
    return PC_OK;
}

/* The values of an integer tensor as int64 (malloc'ed). */
static pc_status load_ints(const pc_op_call *call, const pc_tensor *t, int64_t **out)
{
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&c, t, PC_DTYPE_I64);
    if (st != PC_OK)
        return st;
    int64_t n = pc_tensor_numel(&c);
    *out = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!*out)
        st = nomem(call);
    else
        memcpy(*out, pc_tensor_data(&c), (size_t)n * sizeof(int64_t));
    pc_tensor_free(&c);
    return st;
}

static adv_index *adv_add(const pc_op_call *call, index_plan *p, int dim)
{
    if (p->nadv >= VIEW_MAX) {
        pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many tensor indices", call->full_name);
        return NULL;
    }
    adv_index *a = &p->adv[p->nadv++];
    memset(a, 0, sizeof *a);
    a->dim = dim;
    return a;
}

/* A Python bool (or a 0-dim bool tensor): a new axis indexed by [0] (True) or [] (False). */
static pc_status add_bool(const pc_op_call *call, index_plan *p, int *dim, bool b)
{
    pc_status st = view_insert(call, p, *dim, 1);
    adv_index *a = st == PC_OK ? adv_add(call, p, *dim) : NULL;
    if (!a)
        return st != PC_OK ? st : PC_ERR_UNSUPPORTED;
    a->rank = 1;
    a->shape[0] = b ? 1 : 0;
    a->values = calloc(1, sizeof(int64_t));
    if (!a->values)
        return nomem(call);
    (*dim)++;
    return PC_OK;
}

static pc_status add_int_tensor(const pc_op_call *call, index_plan *p, int dim, const pc_tensor *t)
{
    adv_index *a = adv_add(call, p, dim);
    if (!a)
        return PC_ERR_UNSUPPORTED;
    a->rank = t->rank;
    memcpy(a->shape, t->shape, sizeof(int64_t) * (size_t)t->rank);
    return load_ints(call, t, &a->values);
}

/* A mask over the view's dims [a->dim, a->dim + rank): its coordinates become rank 1-dim
 * integer indices (mask.nonzero(as_tuple=True)). */
static pc_status expand_mask(const pc_op_call *call, index_plan *p, int j)
{
    const pc_tensor *m = p->adv[j].mask;
    int d0 = p->adv[j].dim, k = m->rank;
    if (p->adv[j].check_mask)
        for (int q = 0; q < k; q++)
            if (m->shape[q] != p->shape[d0 + q]) {
                char ms[PC_SHAPE_FORMAT_MAX], vs[PC_SHAPE_FORMAT_MAX];
                pc_shape_format(ms, sizeof ms, m->shape, m->rank);
                pc_shape_format(vs, sizeof vs, p->shape, p->rank);
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: The shape of the mask %s at index %d does not match "
                                    "the shape of the indexed tensor %s at index %d",
                                    call->full_name, ms, q, vs, d0 + q);
            }
    pc_tensor c = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&c, m);
    if (st != PC_OK)
        return st;
    const uint8_t *mv = pc_tensor_data(&c);
    int64_t n = pc_tensor_numel(&c), nnz = 0;
    for (int64_t i = 0; i < n; i++)
        nnz += mv[i] != 0;
    /* the mask's slot becomes the first coordinate; the others follow it (dims d0 + q) */
    if (p->nadv + k - 1 > VIEW_MAX) {
        pc_tensor_free(&c);
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: too many tensor indices", call->full_name);
    }
    memmove(p->adv + j + k, p->adv + j + 1, sizeof(adv_index) * (size_t)(p->nadv - j - 1));
    p->nadv += k - 1;
    for (int q = 0; q < k; q++) {
        adv_index *a = &p->adv[j + q];
        memset(a, 0, sizeof *a);
        a->dim = d0 + q;
        a->rank = 1;
        a->shape[0] = nnz;
        a->values = malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int64_t));
    }
    for (int q = 0; q < k; q++)
        if (!p->adv[j + q].values)
            st = nomem(call);
    int64_t idx[PC_TENSOR_MAX_DIMS] = {0}, w = 0;
    for (int64_t i = 0; i < n && st == PC_OK; i++) {
        if (mv[i])
            for (int q = 0; q < k; q++)
                p->adv[j + q].values[w] = idx[q];
        w += mv[i] != 0;
        for (int q = k - 1; q >= 0; q--) {
            if (++idx[q] < m->shape[q])
                break;
            idx[q] = 0;
        }
    }
    pc_tensor_free(&c);
    return st;
}

static pc_status add_mask(const pc_op_call *call, index_plan *p, int *dim, const pc_tensor *t,
                          bool check)
{
    adv_index *a = adv_add(call, p, *dim);
    if (!a)
        return PC_ERR_UNSUPPORTED;
    a->mask = t;
    a->check_mask = check;
    *dim += t->rank;
    return PC_OK;
}

static int item_dims(const pc_value *v, const pc_index_item *it)
{
    if (it->kind == PC_INDEX_INT || it->kind == PC_INDEX_SLICE)
        return 1;
    if (it->kind != PC_INDEX_TENSOR)
        return 0;
    const pc_tensor *t = &v->tensors.items[it->i];
    return is_mask(t) ? t->rank : 1;
}

/* msprobe's special cases of a lone tensor index (see the top of the file). */
static pc_status plan_lone_tensor(const pc_op_call *call, const pc_tensor *x, index_plan *p,
                                  const pc_tensor *t)
{
    int dim = 0;
    if (is_mask(t)) {
        bool same = t->rank == x->rank;
        for (int d = 0; same && d < t->rank; d++)
            same = t->shape[d] == x->shape[d];
        if (t->rank == 0 && !same) { /* nonzero(as_tuple=True) of a 0-dim mask: ([0],) or ([],) */
            adv_index *a = adv_add(call, p, 0);
            if (!a)
                return PC_ERR_UNSUPPORTED;
            a->rank = 1;
            a->shape[0] = *(const uint8_t *)pc_tensor_data(t) != 0;
            a->values = calloc(1, sizeof(int64_t));
            return a->values ? PC_OK : nomem(call);
        }
        if (t->rank == 0)
            return add_bool(call, p, &dim, *(const uint8_t *)pc_tensor_data(t) != 0);
        if (t->rank > x->rank)
            return pc_error_set(PC_ERR_INVALID, "%s: too many indices for tensor of dimension %d",
                                call->full_name, x->rank);
        return add_mask(call, p, &dim, t, false);
    }
    /* msprobe indexes with t.tolist() up to 1 dim: Python ints of any integer dtype, Python
     * floats of a float one (torch reads a list of floats as int64, truncated; a lone float is
     * refused); over more dims it indexes with each row, a tensor again */
    bool fl = !pc_dtype_is_integral(t->dtype);
    if (fl && t->rank == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: only integers, slices (`:`), ellipsis (`...`), None and long or "
                            "byte Variables are valid indices (got float)",
                            call->full_name);
    if (x->rank == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: too many indices for tensor of dimension 0",
                            call->full_name);
    if (t->rank == 0) {
        int64_t *v = NULL;
        pc_status st = load_ints(call, t, &v);
        if (st == PC_OK)
            st = select_dim(call, p, 0, v[0]);
        free(v);
        return st;
    }
    if (t->rank >= 2 && t->shape[0] == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: stack expects a non-empty TensorList",
                            call->full_name);
    if (t->rank >= 2 && t->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: tensors used as indices must be long, byte or bool tensors",
                            call->full_name);
    return add_int_tensor(call, p, 0, t);
}

static pc_status plan_items(const pc_op_call *call, const pc_tensor *x, index_plan *p)
{
    const pc_value *v = &call->args[1];
    int named = 0, ellipses = 0;
    for (int k = 0; k < v->index.count; k++) {
        named += item_dims(v, &v->index.items[k]);
        ellipses += v->index.items[k].kind == PC_INDEX_ELLIPSIS;
    }
    if (ellipses > 1)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: an index can only have a single ellipsis ('...')",
                            call->full_name);
    if (named > x->rank)
        return pc_error_set(PC_ERR_INVALID, "%s: too many indices for tensor of dimension %d",
                            call->full_name, x->rank);
    int dim = 0;
    bool bad_dtype = false;
    for (int k = 0; k < v->index.count; k++) {
        const pc_index_item *it = &v->index.items[k];
        const pc_tensor *t = it->kind == PC_INDEX_TENSOR ? &v->tensors.items[it->i] : NULL;
        pc_status st = PC_OK;
        switch (it->kind) {
        case PC_INDEX_INT:
            st = select_dim(call, p, dim, it->i);
            break;
        case PC_INDEX_SLICE:
            st = slice_dim(call, p, dim, it);
            dim++;
            break;
        case PC_INDEX_NONE:
            st = view_insert(call, p, dim, 1);
            dim++;
            break;
        case PC_INDEX_ELLIPSIS:
            dim += x->rank - named;
            break;
        case PC_INDEX_BOOL:
            st = add_bool(call, p, &dim, it->i != 0);
            break;
        case PC_INDEX_TENSOR:
            if (t->dtype == PC_DTYPE_BOOL || t->dtype == PC_DTYPE_U8) {
                if (t->rank == 0)
                    st = add_bool(call, p, &dim, *(const uint8_t *)pc_tensor_data(t) != 0);
                else
                    st = add_mask(call, p, &dim, t, true);
            } else if (pc_dtype_is_integral(t->dtype) && t->rank == 0) {
                int64_t *iv = NULL;
                st = load_ints(call, t, &iv);
                if (st == PC_OK)
                    st = select_dim(call, p, dim, iv[0]);
                free(iv);
            } else {
                /* torch 1.13's CPU index takes int64 tensors only (int32 from torch 2.0) */
                bad_dtype = bad_dtype || t->dtype != PC_DTYPE_I64;
                if (!bad_dtype)
                    st = add_int_tensor(call, p, dim, t);
                dim++;
            }
            break;
        }
        if (st != PC_OK)
            return st;
    }
    if (bad_dtype)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: tensors used as indices must be long, byte or bool tensors",
                            call->full_name);
    return PC_OK;
}

static pc_status plan_make(const pc_op_call *call, const pc_tensor *x, index_plan *p)
{
    memset(p, 0, sizeof *p);
    p->rank = x->rank;
    memcpy(p->shape, x->shape, sizeof(int64_t) * (size_t)x->rank);
    pc_shape_contiguous_strides(x->shape, x->rank, p->strides);
    const pc_value *v = &call->args[1];
    if (v->kind != PC_VALUE_INDEX)
        return pc_error_set(PC_ERR_INVALID, "%s: the index did not bind", call->full_name);
    const pc_tensor *lone = v->index.lone_tensor ? &v->tensors.items[0] : NULL;
    pc_status st = lone ? plan_lone_tensor(call, x, p, lone) : plan_items(call, x, p);
    for (int j = 0; j < p->nadv && st == PC_OK; j++)
        if (p->adv[j].mask) {
            int k = p->adv[j].mask->rank;
            st = expand_mask(call, p, j);
            j += k - 1;
        }
    /* torch numbers the dimension among the indexed ones (its advanced indexing puts them
     * first) */
    for (int j = 0; j < p->nadv && st == PC_OK; j++) {
        const adv_index *a = &p->adv[j];
        int64_t size = p->shape[a->dim], n = 1;
        for (int d = 0; d < a->rank; d++)
            n *= a->shape[d];
        for (int64_t i = 0; i < n; i++)
            if (a->values[i] < -size || a->values[i] >= size) {
                st = pc_error_set(PC_ERR_RANGE,
                                  "%s: index %lld is out of bounds for dimension %d with size "
                                  "%lld",
                                  call->full_name, (long long)a->values[i], j, (long long)size);
                break;
            }
    }
    if (st != PC_OK)
        plan_free(p);
    return st;
}

/* The broadcast shape of the advanced indices, or torch's "shape mismatch" error. */
static pc_status adv_broadcast(const pc_op_call *call, const index_plan *p, int64_t *shape,
                               int *rank)
{
    int r = 0;
    for (int j = 0; j < p->nadv; j++)
        r = p->adv[j].rank > r ? p->adv[j].rank : r;
    for (int d = 0; d < r; d++)
        shape[d] = 1;
    bool ok = true;
    for (int j = 0; j < p->nadv; j++) {
        const adv_index *a = &p->adv[j];
        for (int d = 0; d < a->rank; d++) {
            int64_t *s = &shape[r - a->rank + d];
            if (*s == 1)
                *s = a->shape[d];
            else if (a->shape[d] != 1 && a->shape[d] != *s)
                ok = false;
        }
    }
    if (!ok) {
        char msg[1024];
        size_t len = 0;
        msg[0] = '\0';
        for (int j = 0; j < p->nadv && len + PC_SHAPE_FORMAT_MAX + 2 < sizeof msg; j++) {
            if (j)
                len += (size_t)snprintf(msg + len, sizeof msg - len, ", ");
            len += (size_t)pc_shape_format(msg + len, sizeof msg - len, p->adv[j].shape,
                                           p->adv[j].rank);
        }
        return pc_error_set(PC_ERR_INVALID,
                            "%s: shape mismatch: indexing tensors could not be broadcast "
                            "together with shapes %s",
                            call->full_name, msg);
    }
    *rank = r;
    return PC_OK;
}

/* The result's shape, and the offset into x of each of its n elements (malloc'ed). */
static pc_status plan_offsets(const pc_op_call *call, const index_plan *p, int64_t *shape,
                              int *rank, int64_t **offs_out, int64_t *n_out)
{
    *offs_out = NULL;
    if (p->nadv == 0) {
        if (p->rank > PC_TENSOR_MAX_DIMS)
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: the result has more than %d dimensions",
                                call->full_name, PC_TENSOR_MAX_DIMS);
        int64_t n = 1;
        for (int d = 0; d < p->rank; d++)
            n *= shape[d] = p->shape[d];
        *rank = p->rank;
        *n_out = n;
        *offs_out = pc_shape_offsets(p->shape, p->strides, p->rank, p->offset, n);
        return *offs_out ? PC_OK : nomem(call);
    }
    int64_t bshape[VIEW_MAX];
    int brank = 0;
    pc_status st = adv_broadcast(call, p, bshape, &brank);
    if (st != PC_OK)
        return st;
    bool adjacent = true;
    for (int j = 1; j < p->nadv; j++)
        adjacent = adjacent && p->adv[j].dim == p->adv[j - 1].dim + 1;
    /* the view's other dims, and how many of them come before the broadcast ones */
    int64_t rshape[VIEW_MAX], rstrides[VIEW_MAX];
    int rrank = 0, before = 0;
    for (int d = 0, j = 0; d < p->rank; d++) {
        if (j < p->nadv && p->adv[j].dim == d) {
            j++;
            continue;
        }
        if (adjacent && d < p->adv[0].dim)
            before++;
        rshape[rrank] = p->shape[d];
        rstrides[rrank++] = p->strides[d];
    }
    if (rrank + brank > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: the result has more than %d dimensions",
                            call->full_name, PC_TENSOR_MAX_DIMS);
    int64_t nb = 1, nbefore = 1, nafter = 1;
    for (int d = 0; d < brank; d++)
        nb *= bshape[d];
    for (int d = 0; d < rrank; d++)
        *(d < before ? &nbefore : &nafter) *= rshape[d];
    *rank = 0;
    for (int d = 0; d < before; d++)
        shape[(*rank)++] = rshape[d];
    for (int d = 0; d < brank; d++)
        shape[(*rank)++] = bshape[d];
    for (int d = before; d < rrank; d++)
        shape[(*rank)++] = rshape[d];
    int64_t n = nbefore * nb * nafter;
    int64_t *advoff = calloc((size_t)(nb > 0 ? nb : 1), sizeof *advoff);
    int64_t *restoff = pc_shape_offsets(rshape, rstrides, rrank, p->offset, nbefore * nafter);
    int64_t *offs = malloc((size_t)(n > 0 ? n : 1) * sizeof *offs);
    st = advoff && restoff && offs ? PC_OK : nomem(call);
    for (int j = 0; j < p->nadv && st == PC_OK; j++) {
        const adv_index *a = &p->adv[j];
        /* where each broadcast position reads a's values: strides 0 on broadcast dims */
        int64_t astr[VIEW_MAX] = {0}, acont[PC_TENSOR_MAX_DIMS];
        pc_shape_contiguous_strides(a->shape, a->rank, acont);
        for (int d = 0; d < a->rank; d++)
            astr[brank - a->rank + d] = a->shape[d] == 1 ? 0 : acont[d];
        int64_t *pos = pc_shape_offsets(bshape, astr, brank, 0, nb);
        if (!pos) {
            st = nomem(call);
            break;
        }
        int64_t size = p->shape[a->dim], stride = p->strides[a->dim];
        for (int64_t b = 0; b < nb; b++) {
            int64_t i = a->values[pos[b]];
            advoff[b] += (i < 0 ? i + size : i) * stride;
        }
        free(pos);
    }
    if (st == PC_OK) {
        int64_t o = 0;
        for (int64_t ib = 0; ib < nbefore; ib++)
            for (int64_t b = 0; b < nb; b++)
                for (int64_t ia = 0; ia < nafter; ia++)
                    offs[o++] = restoff[ib * nafter + ia] + advoff[b];
        *offs_out = offs;
        *n_out = n;
        offs = NULL;
    }
    free(advoff);
    free(restoff);
    free(offs);
    return st;
}

/* The plan of the call's index on x: result shape and offsets (malloc'ed). */
static pc_status index_resolve(const pc_op_call *call, const pc_tensor *x, int64_t *shape,
                               int *rank, int64_t **offs, int64_t *n)
{
    index_plan *p = malloc(sizeof *p);
    if (!p)
        return nomem(call);
    pc_status st = plan_make(call, x, p);
    if (st == PC_OK) {
        st = plan_offsets(call, p, shape, rank, offs, n);
        plan_free(p);
    }
    free(p);
    return st;
}

pc_status pc_k_index_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    int64_t shape[PC_TENSOR_MAX_DIMS], n = 0, *offs = NULL;
    int rank = 0;
    pc_tensor xc = PC_TENSOR_NULL, t = PC_TENSOR_NULL;
    pc_status st = index_resolve(call, x, shape, &rank, &offs, &n);
    if (st == PC_OK)
        st = pc_tensor_contiguous(&xc, x);
    if (st == PC_OK)
        st = pc_tensor_alloc(&t, x->dtype, shape, rank);
    if (st == PC_OK) {
        size_t sz = pc_dtype_size(x->dtype);
        const char *src = pc_tensor_data(&xc);
        char *dst = pc_tensor_data(&t);
        for (int64_t i = 0; i < n; i++)
            memcpy(dst + (size_t)i * sz, src + offs[i] * (int64_t)sz, sz);
        out->tensors[0] = t;
        out->count = 1;
    }
    free(offs);
    pc_tensor_free(&xc);
    return st;
}

pc_status pc_k_index_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    int64_t shape[PC_TENSOR_MAX_DIMS], n = 0, *offs = NULL;
    int rank = 0;
    pc_status st = index_resolve(call, x, shape, &rank, &offs, &n);
    if (st != PC_OK)
        return st;
    if (pc_tensor_numel(grad_out) != n) {
        free(offs);
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out), (long long)n);
    }
    pc_tensor g = PC_TENSOR_NULL;
    int64_t xn = pc_tensor_numel(x);
    double *acc = NULL;
    if ((st = pc_tensor_cast(&g, grad_out, PC_DTYPE_F64)) == PC_OK) {
        acc = calloc((size_t)(xn > 0 ? xn : 1), sizeof *acc);
        if (!acc)
            st = nomem(call);
    }
    if (st == PC_OK) {
        /* autograd holds the gradient in the output's dtype (x's); repeated indices add up
         * one after the other in that dtype, in the output's order (torch's index_put_ with
         * accumulate, serial on CPU) */
        const double *gv = pc_tensor_data(&g);
        for (int64_t i = 0; i < n; i++)
            acc[offs[i]] =
                pc_round_to_dtype(acc[offs[i]] + pc_round_to_dtype(gv[i], x->dtype), x->dtype);
        st = pc_shape_store(&out->grads[0], x->dtype, x->shape, x->rank, acc);
    }
    free(acc);
    free(offs);
    pc_tensor_free(&g);
    return st;
}
