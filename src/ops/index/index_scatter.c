/*
 * gather, scatter (a src tensor or a number; reduce='add'/'multiply') and scatter_add, forward
 * and backward.
 *
 * Element n of the index (row-major, coordinates c) pairs self's element c with c[dim] replaced
 * by index[n] and, for scatter, src's element c (src may be larger than the index). torch 1.13's
 * CPU kernel walks each line along dim in order, so repeated indices of scatter overwrite (the
 * last one wins) and those of scatter_add add up in index order: row-major order here, which
 * visits each line in the same order. 0-dim tensors count as one element of one dim, as torch's
 * ensure_nonempty_dim does. Checks and messages are torch's (scatter_gather_dtype_check,
 * gather_shape_check, scatter_shape_check, and the kernel's bounds check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/index/index_impl.h"
#include "ops/kernel.h"
#include "precheck/core/convert.h"

typedef struct sg_plan {
    const pc_tensor *x, *idx, *src; /* src: NULL for gather and the value form */
    const char *name;               /* "gather", "scatter", "scatter_add" */
    int dim, rank;                  /* rank: at least 1 */
    int64_t xshape[PC_TENSOR_MAX_DIMS], ishape[PC_TENSOR_MAX_DIMS], sshape[PC_TENSOR_MAX_DIMS];
    int64_t n;  /* index elements */
    int reduce; /* scatter: 0 none, 1 add, 2 multiply */
} sg_plan;

static void nonempty_shape(const pc_tensor *t, int64_t *shape)
{
    if (t->rank == 0)
        shape[0] = 1;
    else
        memcpy(shape, t->shape, sizeof(int64_t) * (size_t)t->rank);
}

static int nonempty_rank(const pc_tensor *t)
{
    return t->rank > 0 ? t->rank : 1;
}

static pc_status sg_plan_make(const pc_op_call *call, bool gather, sg_plan *p)
{
    memset(p, 0, sizeof *p);
    p->x = pc_call_tensor(call, 0);
    p->idx = pc_call_tensor(call, 2);
    bool add = !gather && call->op->param == PC_IDX_SCATTER_ADD;
    p->name = gather ? "gather" : add ? "scatter_add" : "scatter";
    if (!gather) {
        const pc_value *s = &call->args[3];
        p->src = s->kind == PC_VALUE_TENSOR && !s->wrapped ? &s->tensor : NULL;
    }
    pc_status st = pc_shape_wrap_dim(call, call->args[1].i, p->x->rank, &p->dim);
    if (st != PC_OK)
        return st;
    if (p->idx->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID, "%s: %s(): Expected dtype int64 for index",
                            call->full_name, gather ? "gather" : "scatter");
    if (p->src && p->src->dtype != p->x->dtype)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: scatter(): Expected self.dtype to be equal to "
                            "src.dtype",
                            call->full_name);
    p->n = pc_tensor_numel(p->idx);
    p->rank = nonempty_rank(p->x);
    nonempty_shape(p->x, p->xshape);
    nonempty_shape(p->idx, p->ishape);
    if (!gather && call->args[4].kind == PC_VALUE_STR) {
        const char *r = call->args[4].s;
        p->reduce = strcmp(r, "add") == 0 ? 1 : strcmp(r, "multiply") == 0 ? 2 : -1;
    }
    if (p->n == 0)
        return p->reduce < 0 ? pc_error_set(PC_ERR_INVALID,
                                            "%s: reduce argument must be either add or multiply.",
                                            call->full_name)
                             : PC_OK;
    char is[PC_SHAPE_FORMAT_MAX], xs[PC_SHAPE_FORMAT_MAX], ss[PC_SHAPE_FORMAT_MAX];
    pc_shape_format(is, sizeof is, p->idx->shape, p->idx->rank);
    pc_shape_format(xs, sizeof xs, p->x->shape, p->x->rank);
    if (nonempty_rank(p->idx) != p->rank)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Index tensor must have the same number of dimensions as %s "
                            "tensor",
                            call->full_name, gather ? "input" : "self");
    if (gather) {
        for (int d = 0; d < p->rank; d++)
            if (d != p->dim && p->ishape[d] > p->xshape[d])
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: Size does not match at dimension %d expected index %s to "
                                    "be smaller than self %s apart from dimension %d",
                                    call->full_name, d, is, xs, p->dim);
        return PC_OK;
    }
    bool wrong = false;
    for (int d = 0; d < p->rank; d++)
        wrong = wrong || (d != p->dim && p->ishape[d] > p->xshape[d]);
    if (p->src) {
        if (nonempty_rank(p->src) != p->rank)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Index tensor must have the same number of dimensions as src "
                                "tensor",
                                call->full_name);
        nonempty_shape(p->src, p->sshape);
        for (int d = 0; d < p->rank; d++)
            wrong = wrong || p->ishape[d] > p->sshape[d];
        pc_shape_format(ss, sizeof ss, p->src->shape, p->src->rank);
        if (wrong)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Expected index %s to be smaller than self %s apart from "
                                "dimension %d and to be smaller size than src %s",
                                call->full_name, is, xs, p->dim, ss);
    } else if (wrong) {
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected index %s to be smaller than self %s apart from "
                            "dimension %d",
                            call->full_name, is, xs, p->dim);
    }
    if (p->reduce < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: reduce argument must be either add or multiply.",
                            call->full_name);
    return PC_OK;
}

/* Per index element: self's offset without the dim's part (xoff), src's offset (soff, when
 * wanted), and the index value checked against self's size along dim. All malloc'ed. */
typedef struct sg_walk {
    int64_t *xoff, *soff;
    int64_t xstride; /* self's contiguous stride along dim */
    pc_tensor ix;
} sg_walk;

static void sg_walk_free(sg_walk *w)
{
    free(w->xoff);
    free(w->soff);
    pc_tensor_free(&w->ix);
}

static pc_status sg_walk_make(const pc_op_call *call, const sg_plan *p, const int64_t *sshape,
                              sg_walk *w)
{
    memset(w, 0, sizeof *w);
    w->ix = PC_TENSOR_NULL;
    int64_t xs[PC_TENSOR_MAX_DIMS], ss[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(p->xshape, p->rank, xs);
    w->xstride = xs[p->dim];
    xs[p->dim] = 0;
    w->xoff = pc_shape_offsets(p->ishape, xs, p->rank, 0, p->n);
    if (sshape) {
        pc_shape_contiguous_strides(sshape, p->rank, ss);
        w->soff = pc_shape_offsets(p->ishape, ss, p->rank, 0, p->n);
    }
    pc_status st = !w->xoff || (sshape && !w->soff) ? pc_idx_nomem(call) : PC_OK;
    if (st == PC_OK)
        st = pc_idx_ints(call, p->idx, &w->ix);
    int64_t size = p->xshape[p->dim];
    const int64_t *k = st == PC_OK ? pc_tensor_data(&w->ix) : NULL;
    for (int64_t i = 0; st == PC_OK && i < p->n; i++)
        if (k[i] < 0 || k[i] >= size)
            st = pc_error_set(PC_ERR_RANGE,
                              "%s: index %lld is out of bounds for dimension %d with size %lld",
                              call->full_name, (long long)k[i], p->dim, (long long)size);
    if (st != PC_OK)
        sg_walk_free(w);
    return st;
}

static int64_t sg_pos(const sg_walk *w, int64_t i)
{
    return w->xoff[i] + ((const int64_t *)pc_tensor_data(&w->ix))[i] * w->xstride;
}

pc_status pc_k_gather_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    sg_plan p;
    sg_walk w;
    pc_status st = sg_plan_make(call, true, &p);
    if (st != PC_OK || (st = sg_walk_make(call, &p, NULL, &w)) != PC_OK)
        return st;
    pc_tensor xc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    if ((st = pc_tensor_contiguous(&xc, p.x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, p.x->dtype, p.idx->shape, p.idx->rank)) == PC_OK) {
        size_t sz = pc_dtype_size(p.x->dtype);
        const char *src = pc_tensor_data(&xc);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0; i < p.n; i++)
            memcpy(dst + (size_t)i * sz, src + (size_t)sg_pos(&w, i) * sz, sz);
        out->tensors[0] = y;
        out->count = 1;
    }
    pc_tensor_free(&xc);
    sg_walk_free(&w);
    return st;
}

/* grad.gather(dim, index) into a tensor of shape like (torch checks the index's shape is it) */
static pc_status gather_grad(const pc_op_call *call, const sg_plan *p, const sg_walk *w,
                             const pc_tensor *g, const pc_tensor *like, const char *fn, int argi,
                             pc_tensor *out)
{
    if (!pc_tensor_same_shape(like, p->idx)) {
        char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(a, sizeof a, p->idx->shape, p->idx->rank);
        pc_shape_format(b, sizeof b, like->shape, like->rank);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Function %s returned an invalid gradient at index %d - got %s "
                            "but expected shape compatible with %s",
                            call->full_name, fn, argi, a, b);
    }
    double *v = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *v);
    if (!v)
        return pc_idx_nomem(call);
    const double *gv = pc_tensor_data(g);
    for (int64_t i = 0; i < p->n; i++)
        v[i] = gv[sg_pos(w, i)];
    pc_status st = pc_idx_store(call, like->dtype, like->shape, like->rank, v, out);
    free(v);
    return st;
}

pc_status pc_k_gather_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    sg_plan p;
    sg_walk w;
    pc_status st = sg_plan_make(call, true, &p);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    if ((st = sg_walk_make(call, &p, NULL, &w)) != PC_OK)
        return st;
    pc_tensor g = PC_TENSOR_NULL;
    pc_idx_acc acc = {0};
    /* zeros.scatter_add(dim, index, grad), in index order */
    if ((st = pc_idx_grad(call, grad_out, p.x->dtype, &g)) == PC_OK &&
        (st = pc_idx_acc_init(&acc, call, compute, p.x->dtype, NULL, pc_tensor_numel(p.x))) ==
            PC_OK) {
        for (int64_t i = 0; i < p.n; i++)
            pc_idx_acc_add(&acc, sg_pos(&w, i), &g, i);
        st = pc_idx_acc_store(&acc, call, p.x->shape, p.x->rank, &out->grads[0]);
    }
    pc_idx_acc_free(&acc);
    pc_tensor_free(&g);
    sg_walk_free(&w);
    return st;
}

pc_status pc_k_scatter_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    sg_plan p;
    sg_walk w;
    pc_status st = sg_plan_make(call, false, &p);
    if (st != PC_OK || (st = sg_walk_make(call, &p, p.src ? p.sshape : NULL, &w)) != PC_OK)
        return st;
    pc_idx_acc acc = {0};
    pc_tensor sv = PC_TENSOR_NULL, v1 = PC_TENSOR_NULL;
    bool add = call->op->param == PC_IDX_SCATTER_ADD || p.reduce == 1;
    st = pc_idx_acc_init(&acc, call, compute, p.x->dtype, p.x, pc_tensor_numel(p.x));
    if (st == PC_OK) {
        if (p.src) {
            st = pc_idx_acc_values(&acc, call, p.src, &sv);
        } else {
            /* the value form: the number converted to self's dtype first */
            st = pc_tensor_cast(&v1, &call->args[3].tensor, p.x->dtype);
            if (st == PC_OK)
                st = pc_idx_acc_values(&acc, call, &v1, &sv);
        }
    }
    if (st == PC_OK) {
        for (int64_t i = 0; i < p.n; i++) {
            int64_t pos = sg_pos(&w, i), k = p.src ? w.soff[i] : 0;
            if (add)
                pc_idx_acc_add(&acc, pos, &sv, k);
            else if (p.reduce == 2)
                pc_idx_acc_mul(&acc, pos, &sv, k);
            else
                pc_idx_acc_set(&acc, pos, &sv, k);
        }
        st = pc_idx_acc_store(&acc, call, p.x->shape, p.x->rank, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
    }
    pc_idx_acc_free(&acc);
    pc_tensor_free(&sv);
    pc_tensor_free(&v1);
    sg_walk_free(&w);
    return st;
}

pc_status pc_k_scatter_backward(const pc_op_call *call, pc_compute compute,
                                const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    sg_plan p;
    sg_walk w;
    pc_status st = sg_plan_make(call, false, &p);
    if (st != PC_OK)
        return st;
    if (p.reduce != 0)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: derivative for aten::scatter is not "
                            "implemented",
                            call->full_name);
    if ((st = sg_walk_make(call, &p, NULL, &w)) != PC_OK)
        return st;
    bool add = call->op->param == PC_IDX_SCATTER_ADD;
    pc_tensor g = PC_TENSOR_NULL;
    st = pc_idx_grad(call, grad_out, p.x->dtype, &g);
    if (st == PC_OK && p.src && pc_shape_wants_grad(call, 3))
        st = gather_grad(call, &p, &w, &g, p.src, add ? "ScatterAddBackward0" : "ScatterBackward0",
                         1, &out->grads[3]);
    if (st == PC_OK && pc_shape_wants_grad(call, 0)) {
        /* scatter: grad.scatter(dim, index, 0); scatter_add: grad */
        double *gv = pc_tensor_data(&g);
        for (int64_t i = 0; !add && i < p.n; i++)
            gv[sg_pos(&w, i)] = 0;
        st = pc_idx_store(call, p.x->dtype, p.x->shape, p.x->rank, gv, &out->grads[0]);
    }
    pc_tensor_free(&g);
    sg_walk_free(&w);
    return st;
}

/* ---- take_along_dim, take ---- */

/* A borrowed call of gather's argument layout (input, dim, index) on x and idx: the name and
 * the requires_grad of the original call's input; freed with free(), never as a call. */
static pc_op_call *gather_call(const pc_op_call *call, const pc_tensor *x, int64_t dim,
                               const pc_tensor *idx)
{
    pc_op_call *c = malloc(sizeof *c);
    if (!c) {
        pc_idx_nomem(call);
        return NULL;
    }
    *c = *call;
    c->args[0].tensor = *x;
    c->args[0].kind = PC_VALUE_TENSOR;
    c->args[0].wrapped = false;
    c->args[1] = (pc_value){.kind = PC_VALUE_INT, .i = dim, .src_pos = -1};
    c->args[2] = (pc_value){.kind = PC_VALUE_TENSOR, .tensor = *idx, .src_pos = -1};
    c->args[3] = (pc_value){.kind = PC_VALUE_BOOL, .src_pos = -1};
    return c;
}

/* x and the indices broadcast against each other except along dim (torch's
 * _take_along_dim_helper); without a dim both are flattened. Views of the call's tensors. */
static pc_status along_dim_views(const pc_op_call *call, pc_tensor *xe, pc_tensor *ie, int *dim)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *idx = pc_call_tensor(call, 1);
    pc_status st;
    if (call->args[2].kind == PC_VALUE_NONE) {
        int64_t nx = pc_tensor_numel(x), ni = pc_tensor_numel(idx);
        pc_tensor xc = PC_TENSOR_NULL, ic = PC_TENSOR_NULL;
        *dim = 0;
        if ((st = pc_tensor_contiguous(&xc, x)) == PC_OK &&
            (st = pc_tensor_contiguous(&ic, idx)) == PC_OK &&
            (st = pc_tensor_reshape(xe, &xc, &nx, 1)) == PC_OK &&
            (st = pc_tensor_reshape(ie, &ic, &ni, 1)) != PC_OK)
            pc_tensor_free(xe);
        pc_tensor_free(&xc);
        pc_tensor_free(&ic);
        return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
    }
    if (x->rank != idx->rank)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: torch.take_along_dim(): input and indices should have the same "
                            "number of dimensions, but got %d dimensions for input, and %d "
                            "dimensions for indices",
                            call->full_name, x->rank, idx->rank);
    if (idx->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: torch.take_along_dim(): dtype of indices should be Long but got "
                            "%s",
                            call->full_name, pc_torch_type_name(idx->dtype));
    if ((st = pc_shape_wrap_dim(call, call->args[2].i, x->rank, dim)) != PC_OK)
        return st;
    int64_t a[PC_TENSOR_MAX_DIMS], bi[PC_TENSOR_MAX_DIMS], bx[PC_TENSOR_MAX_DIMS];
    int ri = 0, rx = 0, r = x->rank;
    if (r > 0) {
        memcpy(a, x->shape, sizeof(int64_t) * (size_t)r);
        a[*dim] = idx->shape[*dim];
        if ((st = pc_broadcast_shapes(a, r, idx->shape, r, bi, &ri)) != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        memcpy(a, idx->shape, sizeof(int64_t) * (size_t)r);
        a[*dim] = x->shape[*dim];
        if ((st = pc_broadcast_shapes(a, r, x->shape, r, bx, &rx)) != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
    }
    if ((st = pc_tensor_expand(xe, x, bx, rx)) == PC_OK &&
        (st = pc_tensor_expand(ie, idx, bi, ri)) != PC_OK)
        pc_tensor_free(xe);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", call->full_name);
}

pc_status pc_k_take_along_dim_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    pc_tensor xe = PC_TENSOR_NULL, ie = PC_TENSOR_NULL;
    int dim = 0;
    pc_status st = along_dim_views(call, &xe, &ie, &dim);
    if (st != PC_OK)
        return st;
    pc_op_call *c = gather_call(call, &xe, dim, &ie);
    st = c ? pc_k_gather_forward(c, compute, out) : PC_ERR_NOMEM;
    free(c);
    pc_tensor_free(&xe);
    pc_tensor_free(&ie);
    return st;
}

pc_status pc_k_take_along_dim_backward(const pc_op_call *call, pc_compute compute,
                                       const pc_tensor *grad_out, pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    pc_tensor xe = PC_TENSOR_NULL, ie = PC_TENSOR_NULL, gc = PC_TENSOR_NULL;
    int dim = 0;
    pc_status st = along_dim_views(call, &xe, &ie, &dim);
    if (st != PC_OK)
        return st;
    pc_op_call *c = gather_call(call, &xe, dim, &ie);
    pc_op_grads g = {0};
    st = c ? pc_k_gather_backward(c, compute, grad_out, &g) : PC_ERR_NOMEM;
    free(c);
    /* the broadcast input's gradient summed back onto the input (expand's backward) */
    if (st == PC_OK && (st = pc_tensor_cast(&gc, &g.grads[0], PC_DTYPE_F64)) != PC_OK)
        st = pc_error_prefix(st, "%s", call->full_name);
    /* without a dim the input was flattened: its gradient only takes the input's shape */
    bool flat = call->args[2].kind == PC_VALUE_NONE;
    if (st == PC_OK && (st = pc_tensor_reshape(&gc, &gc, flat ? x->shape : xe.shape,
                                               flat ? x->rank : xe.rank)) == PC_OK)
        st = pc_idx_sum_to(call, compute, &gc, x->shape, x->rank, x->dtype, &out->grads[0]);
    pc_op_grads_free(&g);
    pc_tensor_free(&gc);
    pc_tensor_free(&xe);
    pc_tensor_free(&ie);
    return st;
}

/* take: the flattened input at the indices (negatives count from the end) */
static pc_status take_index(const pc_op_call *call, pc_tensor *ix)
{
    const pc_tensor *x = pc_call_tensor(call, 0), *idx = pc_call_tensor(call, 1);
    if (idx->dtype != PC_DTYPE_I64)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: take(): Expected a long tensor for index, but "
                            "got %s",
                            call->full_name, pc_torch_type_name(idx->dtype));
    pc_status st = pc_idx_ints(call, idx, ix);
    if (st != PC_OK)
        return st;
    int64_t n = pc_tensor_numel(x), *v = pc_tensor_data(ix);
    for (int64_t i = 0, m = pc_tensor_numel(ix); i < m; i++) {
        if (v[i] < -n || v[i] >= n) {
            st = pc_error_set(PC_ERR_RANGE,
                              "%s: out of range: tried to access index %lld on a tensor of %lld "
                              "elements.",
                              call->full_name, (long long)v[i], (long long)n);
            pc_tensor_free(ix);
            return st;
        }
        v[i] = v[i] < 0 ? v[i] + n : v[i];
    }
    return PC_OK;
}

pc_status pc_k_take_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0), *idx = pc_call_tensor(call, 1);
    pc_tensor ix = PC_TENSOR_NULL, xc = PC_TENSOR_NULL, y = PC_TENSOR_NULL;
    pc_status st = take_index(call, &ix);
    if (st != PC_OK)
        return st;
    if ((st = pc_tensor_contiguous(&xc, x)) == PC_OK &&
        (st = pc_tensor_alloc(&y, x->dtype, idx->shape, idx->rank)) == PC_OK) {
        size_t sz = pc_dtype_size(x->dtype);
        const int64_t *k = pc_tensor_data(&ix);
        const char *src = pc_tensor_data(&xc);
        char *dst = pc_tensor_data(&y);
        for (int64_t i = 0, n = pc_tensor_numel(&y); i < n; i++)
            memcpy(dst + (size_t)i * sz, src + (size_t)k[i] * sz, sz);
        out->tensors[0] = y;
        out->count = 1;
    } else {
        st = pc_error_prefix(st, "%s", call->full_name);
    }
    pc_tensor_free(&ix);
    pc_tensor_free(&xc);
    return st;
}

pc_status pc_k_take_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    pc_tensor ix = PC_TENSOR_NULL, g = PC_TENSOR_NULL;
    pc_idx_acc acc = {0};
    pc_status st = take_index(call, &ix);
    if (st != PC_OK)
        return st;
    /* zeros.put_(index, grad, accumulate=True): serial on CPU, in index order */
    if ((st = pc_idx_grad(call, grad_out, x->dtype, &g)) == PC_OK &&
        (st = pc_idx_acc_init(&acc, call, compute, x->dtype, NULL, pc_tensor_numel(x))) == PC_OK) {
        const int64_t *k = pc_tensor_data(&ix);
        for (int64_t i = 0, n = pc_tensor_numel(&ix); i < n; i++)
            pc_idx_acc_add(&acc, k[i], &g, i);
        st = pc_idx_acc_store(&acc, call, x->shape, x->rank, &out->grads[0]);
    }
    pc_idx_acc_free(&acc);
    pc_tensor_free(&ix);
    pc_tensor_free(&g);
    return st;
}
