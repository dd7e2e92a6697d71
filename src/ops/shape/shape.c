/*
 * The shape group's views, splits, joins and triangles, forward and backward, and the helpers
 * the group shares.
 *
 * A view op is a description of where each element of its result lies in the input's
 * contiguous layout (shape, strides, offset): forward copies those elements into a new
 * contiguous tensor (torch would return a view; run_ut compares values, so a copy is the same
 * answer and owns its memory), and backward adds the incoming gradient into a zero tensor of
 * the input's shape through the same description. One mechanism then gives every VJP, also
 * expand's sum over the broadcast dimensions (stride 0: several gradient elements land on one
 * input element). No arithmetic happens in forward, so the device and the bench agree with
 * torch exactly; the only sums (expand's backward) are taken in double and rounded once. Where
 * the view reaches each input element at most once the backward's "sum" has one term, and it
 * is done as a copy (core/strided_copy.h, which also does every forward).
 */
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/strided_copy.h"
#include "ops/kernel.h"
#include "ops/shape/shape_impl.h"

static pc_status nomem(const pc_op_call *call)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
}

static const char *fmt_ints(char *buf, size_t size, const int64_t *v, int n)
{
    pc_shape_format(buf, size, v, n);
    return buf;
}

/* dst (a view) = src, both of one shape: a byte copy when the dtypes agree, pc_tensor_copy's
 * conversion otherwise. */
static pc_status copy_into(pc_tensor *dst, const pc_tensor *src)
{
    if (dst->dtype != src->dtype || !pc_tensor_same_shape(dst, src))
        return pc_tensor_copy(dst, src);
    pc_strided_copy(pc_tensor_data(dst), dst->dtype, dst->strides, pc_tensor_data(src), src->dtype,
                    src->strides, src->shape, src->rank, 0);
    return PC_OK;
}

/* A new contiguous tensor of dtype with src's values (pc_tensor_cast, with copy_into's byte
 * copy when the dtype is src's). */
static pc_status cast_new(pc_tensor *out, const pc_tensor *src, pc_dtype dtype)
{
    if (dtype != src->dtype)
        return pc_tensor_cast(out, src, dtype);
    pc_tensor t = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc(&t, dtype, src->shape, src->rank);
    if (st == PC_OK)
        st = copy_into(&t, src);
    if (st == PC_OK)
        *out = t;
    else
        pc_tensor_free(&t);
    return st;
}

/* ---- view descriptions ---- */

/* Strides may be negative (flip) or 0 (expand, repeat). repeat walks twice the input's rank and
 * relabels the result with its own shape (out_rank >= 0); others are their own shape. */
typedef struct view_spec {
    int rank;
    int64_t shape[2 * PC_TENSOR_MAX_DIMS];
    int64_t strides[2 * PC_TENSOR_MAX_DIMS]; /* elements of the input's contiguous layout */
    int64_t offset;
    int out_rank;
    int64_t out_shape[PC_TENSOR_MAX_DIMS];
} view_spec;

static void spec_of(view_spec *s, const int64_t *shape, int rank)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->out_rank = -1;
    memcpy(s->shape, shape, sizeof(int64_t) * (size_t)rank);
    pc_shape_contiguous_strides(shape, rank, s->strides);
}

static int64_t spec_numel(const view_spec *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++)
        n *= s->shape[i];
    return n;
}

static void spec_insert(view_spec *s, int d, int64_t size, int64_t stride)
{
    memmove(s->shape + d + 1, s->shape + d, sizeof(int64_t) * (size_t)(s->rank - d));
    memmove(s->strides + d + 1, s->strides + d, sizeof(int64_t) * (size_t)(s->rank - d));
    s->shape[d] = size;
    s->strides[d] = stride;
    s->rank++;
}

static void spec_remove(view_spec *s, int d)
{
    memmove(s->shape + d, s->shape + d + 1, sizeof(int64_t) * (size_t)(s->rank - d - 1));
    memmove(s->strides + d, s->strides + d + 1, sizeof(int64_t) * (size_t)(s->rank - d - 1));
    s->rank--;
    s->shape[s->rank] = 0;
    s->strides[s->rank] = 0;
}

/* torch's shape inference for view/reshape: one -1 takes the remaining size. */
static pc_status infer_shape(const pc_op_call *call, const int64_t *req, int n, int64_t numel,
                             int64_t *out)
{
    char buf[PC_SHAPE_FORMAT_MAX];
    int infer = -1;
    int64_t prod = 1;
    for (int i = 0; i < n; i++) {
        if (req[i] == -1) {
            if (infer >= 0)
                return pc_error_set(PC_ERR_INVALID, "%s: only one dimension can be inferred",
                                    call->full_name);
            infer = i;
        } else if (req[i] < 0) {
            return pc_error_set(PC_ERR_INVALID, "%s: invalid shape dimension %lld", call->full_name,
                                (long long)req[i]);
        } else {
            prod *= req[i];
        }
        out[i] = req[i];
    }
    if (infer >= 0 && prod == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: cannot reshape tensor of %lld elements into shape %s because "
                            "the unspecified dimension size -1 can be any value and is ambiguous",
                            call->full_name, (long long)numel, fmt_ints(buf, sizeof buf, req, n));
    if (infer >= 0 && numel % prod == 0)
        out[infer] = numel / prod;
    else if (infer >= 0 || prod != numel)
        return pc_error_set(PC_ERR_INVALID, "%s: shape '%s' is invalid for input of size %lld",
                            call->full_name, fmt_ints(buf, sizeof buf, req, n), (long long)numel);
    return PC_OK;
}

static pc_status spec_expand(const pc_op_call *call, const pc_tensor *x, const int64_t *size, int n,
                             view_spec *s)
{
    char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
    if (n < x->rank)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: expand(torch.%sTensor{%s}, size=%s): the number of sizes "
                            "provided (%d) must be greater or equal to the number of dimensions "
                            "in the tensor (%d)",
                            call->full_name, pc_torch_type_name(x->dtype),
                            fmt_ints(a, sizeof a, x->shape, x->rank),
                            fmt_ints(b, sizeof b, size, n), n, x->rank);
    if (n > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: more than %d dimensions", call->full_name,
                            PC_TENSOR_MAX_DIMS);
    view_spec c;
    spec_of(&c, x->shape, x->rank);
    memset(s, 0, sizeof *s);
    s->rank = n;
    s->out_rank = -1;
    for (int i = n - 1; i >= 0; i--) { /* torch reports the last mismatch first */
        int xd = i - (n - x->rank);
        if (xd < 0) {
            if (size[i] < 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: The expanded size of the tensor (%lld) isn't allowed in "
                                    "a leading, non-existing dimension %d",
                                    call->full_name, (long long)size[i], i);
            s->shape[i] = size[i];
            s->strides[i] = 0;
            continue;
        }
        int64_t have = x->shape[xd];
        int64_t want = size[i] == -1 ? have : size[i];
        if (have == want) {
            s->shape[i] = have;
            s->strides[i] = c.strides[xd];
        } else if (have == 1 && want >= 0) {
            s->shape[i] = want;
            s->strides[i] = 0;
        } else {
            return pc_error_set(PC_ERR_INVALID,
                                "%s: The expanded size of the tensor (%lld) must match the "
                                "existing size (%lld) at non-singleton dimension %d.  Target "
                                "sizes: %s.  Tensor sizes: %s",
                                call->full_name, (long long)want, (long long)have, i,
                                fmt_ints(a, sizeof a, size, n),
                                fmt_ints(b, sizeof b, x->shape, x->rank));
        }
    }
    return PC_OK;
}

static pc_status spec_permute(const pc_op_call *call, const pc_tensor *x, const pc_value *dims,
                              view_spec *s)
{
    if (dims->nints != x->rank)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: permute(sparse_coo): number of dimensions in the tensor input "
                            "does not match the length of the desired ordering of dimensions "
                            "i.e. input.dim() = %d is not equal to len(dims) = %d",
                            call->full_name, x->rank, dims->nints);
    view_spec c = *s;
    bool seen[PC_TENSOR_MAX_DIMS] = {0};
    for (int i = 0; i < x->rank; i++) {
        int d;
        pc_status st = pc_shape_wrap_dim(call, dims->ints[i], x->rank, &d);
        if (st != PC_OK)
            return st;
        if (seen[d])
            return pc_error_set(PC_ERR_INVALID, "%s: permute(): duplicate dims are not allowed.",
                                call->full_name);
        seen[d] = true;
        s->shape[i] = c.shape[d];
        s->strides[i] = c.strides[d];
    }
    return PC_OK;
}

static pc_status spec_flatten(const pc_op_call *call, const pc_tensor *x, view_spec *s)
{
    if (x->rank == 0) {
        int64_t one = 1;
        spec_of(s, &one, 1);
        return PC_OK;
    }
    int start = 0, end = x->rank - 1;
    pc_status st = PC_OK;
    if (call->nargs >= 3) {
        if ((st = pc_shape_wrap_dim(call, call->args[1].i, x->rank, &start)) != PC_OK ||
            (st = pc_shape_wrap_dim(call, call->args[2].i, x->rank, &end)) != PC_OK)
            return st;
    }
    if (start > end)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: flatten() has invalid args: start_dim cannot come after end_dim",
                            call->full_name);
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i <= start || i > end)
            shape[r++] = x->shape[i];
        else
            shape[r - 1] *= x->shape[i];
    }
    spec_of(s, shape, r);
    return PC_OK;
}

static pc_status spec_narrow(const pc_op_call *call, const pc_tensor *x, bool select, view_spec *s)
{
    char buf[PC_SHAPE_FORMAT_MAX];
    if (x->rank == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: %s() cannot be applied to a 0-dim tensor.",
                            call->full_name, select ? "select" : "narrow");
    int d;
    pc_status st = pc_shape_wrap_dim(call, call->args[1].i, x->rank, &d);
    if (st != PC_OK)
        return st;
    int64_t size = x->shape[d], start = call->args[2].i, len = 1;
    if (select) {
        if (start < -size || start >= size)
            return pc_error_set(PC_ERR_RANGE,
                                "%s: select(): index %lld out of range for tensor of size %s at "
                                "dimension %d",
                                call->full_name, (long long)start,
                                fmt_ints(buf, sizeof buf, x->shape, x->rank), d);
        start = start < 0 ? start + size : start;
    } else {
        len = call->args[3].i;
        if (start != size) { /* the end is a valid start, not a valid index */
            if (start < -size || start >= size)
                return pc_error_set(PC_ERR_RANGE,
                                    "%s: Dimension out of range (expected to be in range of "
                                    "[%lld, %lld], but got %lld)",
                                    call->full_name, (long long)-size, (long long)(size - 1),
                                    (long long)start);
            start = start < 0 ? start + size : start;
        }
        if (len < 0 || start > size - len)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: start (%lld) + length (%lld) exceeds dimension size (%lld).",
                                call->full_name, (long long)start, (long long)len, (long long)size);
    }
    s->offset = start * s->strides[d];
    s->shape[d] = len;
    if (select)
        spec_remove(s, d);
    return PC_OK;
}

static pc_status spec_repeat(const pc_op_call *call, const pc_tensor *x, view_spec *s)
{
    const pc_value *rep = &call->args[1];
    int m = rep->nints;
    if (m < x->rank)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Number of dimensions of repeat dims can not be smaller than "
                            "number of dimensions of tensor",
                            call->full_name);
    view_spec c = *s;
    memset(s, 0, sizeof *s);
    s->rank = 2 * m;
    s->out_rank = m;
    for (int i = 0; i < m; i++) {
        int xd = i - (m - x->rank);
        if (rep->ints[i] < 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Trying to create tensor with negative dimension %lld",
                                call->full_name, (long long)rep->ints[i]);
        s->shape[2 * i] = rep->ints[i];
        s->strides[2 * i] = 0;
        s->shape[2 * i + 1] = xd < 0 ? 1 : c.shape[xd];
        s->strides[2 * i + 1] = xd < 0 ? 0 : c.strides[xd];
        s->out_shape[i] = s->shape[2 * i] * s->shape[2 * i + 1];
    }
    return PC_OK;
}

static pc_status spec_movedim(const pc_op_call *call, const pc_tensor *x, view_spec *s)
{
    const pc_value *src = &call->args[1], *dst = &call->args[2];
    char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
    if (src->nints != dst->nints)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: movedim: Invalid source or destination dims: source (%s dims) "
                            "should contain the same number of dims as destination (%s dims)",
                            call->full_name, fmt_ints(a, sizeof a, src->ints, src->nints),
                            fmt_ints(b, sizeof b, dst->ints, dst->nints));
    int r = x->rank, order[PC_TENSOR_MAX_DIMS];
    bool src_used[PC_TENSOR_MAX_DIMS] = {0}, dst_used[PC_TENSOR_MAX_DIMS] = {0};
    for (int i = 0; i < r; i++)
        order[i] = -1;
    for (int i = 0; i < src->nints; i++) {
        int sd, dd;
        pc_status st = pc_shape_wrap_dim(call, src->ints[i], r, &sd);
        if (st == PC_OK)
            st = pc_shape_wrap_dim(call, dst->ints[i], r, &dd);
        if (st != PC_OK)
            return st;
        if (r == 0)
            return PC_OK;
        if (src_used[sd] || dst_used[dd])
            return pc_error_set(PC_ERR_INVALID, "%s: movedim: repeated dim in `%s` (%s)",
                                call->full_name, src_used[sd] ? "source" : "destination",
                                src_used[sd] ? fmt_ints(a, sizeof a, src->ints, src->nints)
                                             : fmt_ints(b, sizeof b, dst->ints, dst->nints));
        src_used[sd] = dst_used[dd] = true;
        order[dd] = sd;
    }
    for (int i = 0, next = 0; i < r; i++) { /* the other dims keep their order */
        if (order[i] >= 0)
            continue;
        while (src_used[next])
            next++;
        order[i] = next++;
    }
    view_spec c = *s;
    for (int i = 0; i < r; i++) {
        s->shape[i] = c.shape[order[i]];
        s->strides[i] = c.strides[order[i]];
    }
    return PC_OK;
}

static pc_status spec_flip(const pc_op_call *call, const pc_tensor *x, view_spec *s)
{
    bool seen[PC_TENSOR_MAX_DIMS] = {0};
    const pc_value *dims = &call->args[1];
    for (int i = 0; i < dims->nints; i++) {
        int d;
        pc_status st = pc_shape_wrap_dim(call, dims->ints[i], x->rank, &d);
        if (st != PC_OK)
            return st;
        if (x->rank == 0)
            continue;
        if (seen[d])
            return pc_error_set(PC_ERR_INVALID,
                                "%s: dim %d appears multiple times in the list of dims",
                                call->full_name, d);
        seen[d] = true;
        if (s->shape[d] > 0)
            s->offset += (s->shape[d] - 1) * s->strides[d];
        s->strides[d] = -s->strides[d];
    }
    return PC_OK;
}

static pc_status spec_unflatten(const pc_op_call *call, const pc_tensor *x, view_spec *s)
{
    char buf[PC_SHAPE_FORMAT_MAX];
    int d;
    pc_status st = pc_shape_wrap_dim(call, call->args[1].i, x->rank, &d);
    if (st != PC_OK)
        return st;
    const pc_value *sz = &call->args[2];
    if (x->rank == 0 || sz->nints == 0 || x->rank - 1 + sz->nints > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_INVALID, "%s: unflatten: sizes must be non-empty",
                            call->full_name);
    int64_t got[PC_TENSOR_MAX_DIMS];
    if (infer_shape(call, sz->ints, sz->nints, x->shape[d], got) != PC_OK)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: unflatten: Provided sizes %s don't multiply up to the size of "
                            "dim %d (%lld) in the input tensor",
                            call->full_name, fmt_ints(buf, sizeof buf, sz->ints, sz->nints), d,
                            (long long)x->shape[d]);
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i != d) {
            shape[r++] = x->shape[i];
            continue;
        }
        for (int k = 0; k < sz->nints; k++)
            shape[r++] = got[k];
    }
    spec_of(s, shape, r);
    return PC_OK;
}

/* Where the view op of the call places its result on x (x's contiguous layout). */
static pc_status view_spec_make(const pc_op_call *call, const pc_tensor *x, view_spec *s)
{
    spec_of(s, x->shape, x->rank);
    pc_status st = PC_OK;
    int d0, d1;
    switch ((pc_view_kind)call->op->param) {
    case PC_VIEW_TRANSPOSE:
        if ((st = pc_shape_wrap_dim(call, call->args[1].i, x->rank, &d0)) != PC_OK ||
            (st = pc_shape_wrap_dim(call, call->args[2].i, x->rank, &d1)) != PC_OK)
            return st;
        if (x->rank > 0) {
            int64_t t = s->shape[d0];
            s->shape[d0] = s->shape[d1];
            s->shape[d1] = t;
            t = s->strides[d0];
            s->strides[d0] = s->strides[d1];
            s->strides[d1] = t;
        }
        return PC_OK;
    case PC_VIEW_T:
        if (x->rank > 2)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: t() expects a tensor with <= 2 dimensions, but self is %dD",
                                call->full_name, x->rank);
        if (x->rank == 2) {
            s->shape[0] = x->shape[1];
            s->shape[1] = x->shape[0];
            s->strides[0] = 1;
            s->strides[1] = x->shape[1];
        }
        return PC_OK;
    case PC_VIEW_PERMUTE:
        return spec_permute(call, x, &call->args[1], s);
    case PC_VIEW_RESHAPE:
    case PC_VIEW_VIEW_AS: {
        int64_t shape[PC_TENSOR_MAX_DIMS];
        const int64_t *req = call->args[1].ints;
        int n = call->args[1].nints;
        if (call->op->param == PC_VIEW_VIEW_AS) {
            req = call->args[1].tensor.shape;
            n = call->args[1].tensor.rank;
        }
        if ((st = infer_shape(call, req, n, pc_tensor_numel(x), shape)) != PC_OK)
            return st;
        spec_of(s, shape, n);
        return PC_OK;
    }
    case PC_VIEW_FLATTEN:
        return spec_flatten(call, x, s);
    case PC_VIEW_UNSQUEEZE:
        if ((st = pc_shape_wrap_dim(call, call->args[1].i, x->rank + 1, &d0)) != PC_OK)
            return st;
        if (x->rank == PC_TENSOR_MAX_DIMS)
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: more than %d dimensions", call->full_name,
                                PC_TENSOR_MAX_DIMS);
        spec_insert(s, d0, 1, 1);
        return PC_OK;
    case PC_VIEW_SQUEEZE:
        if (call->args[1].kind == PC_VALUE_NONE) {
            for (int d = s->rank - 1; d >= 0; d--)
                if (s->shape[d] == 1)
                    spec_remove(s, d);
            return PC_OK;
        }
        if ((st = pc_shape_wrap_dim(call, call->args[1].i, x->rank, &d0)) != PC_OK)
            return st;
        if (x->rank > 0 && s->shape[d0] == 1)
            spec_remove(s, d0);
        return PC_OK;
    case PC_VIEW_EXPAND:
        return spec_expand(call, x, call->args[1].ints, call->args[1].nints, s);
    case PC_VIEW_EXPAND_AS:
        return spec_expand(call, x, call->args[1].tensor.shape, call->args[1].tensor.rank, s);
    case PC_VIEW_IDENTITY:
        return PC_OK;
    case PC_VIEW_NARROW:
        return spec_narrow(call, x, false, s);
    case PC_VIEW_SELECT:
        return spec_narrow(call, x, true, s);
    case PC_VIEW_REPEAT:
        return spec_repeat(call, x, s);
    case PC_VIEW_MOVEDIM:
        return spec_movedim(call, x, s);
    case PC_VIEW_FLIP:
        return spec_flip(call, x, s);
    case PC_VIEW_UNFLATTEN:
        return spec_unflatten(call, x, s);
    }
    return pc_error_set(PC_ERR_UNSUPPORTED, "%s: unknown view", call->full_name);
}

/* A new contiguous tensor with the elements the description reaches in x. */
static pc_status spec_materialise(const pc_tensor *x, const view_spec *s, pc_tensor *out)
{
    bool relabel = s->out_rank >= 0;
    pc_tensor xc = PC_TENSOR_NULL, t = PC_TENSOR_NULL;
    pc_status st = pc_tensor_contiguous(&xc, x);
    if (st == PC_OK) /* (written whole by the copy) */
        st = pc_tensor_alloc_uninit(&t, x->dtype, relabel ? s->out_shape : s->shape,
                                    relabel ? s->out_rank : s->rank);
    if (st == PC_OK) {
        int64_t dst_strides[2 * PC_TENSOR_MAX_DIMS];
        pc_shape_contiguous_strides(s->shape, s->rank, dst_strides);
        size_t sz = pc_dtype_size(x->dtype);
        const char *src = (const char *)pc_tensor_data(&xc) + s->offset * (int64_t)sz;
        pc_strided_copy(pc_tensor_data(&t), x->dtype, dst_strides, src, x->dtype, s->strides,
                        s->shape, s->rank, 0);
        *out = t;
    } else {
        pc_tensor_free(&t);
    }
    pc_tensor_free(&xc);
    return st;
}

pc_status pc_k_view_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    view_spec s;
    pc_status st = view_spec_make(call, x, &s);
    if (st == PC_OK)
        st = spec_materialise(x, &s, &out->tensors[0]);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    out->count = 1;
    return PC_OK;
}

/* The view reaches no input element twice: no dimension of more than one element has stride 0
 * (expand's and repeat's broadcasts); the others are distinct dims of the input's layout. */
static bool spec_injective(const view_spec *s)
{
    for (int d = 0; d < s->rank; d++)
        if (s->shape[d] > 1 && s->strides[d] == 0)
            return false;
    return true;
}

/* acc[offset of i] += grad element i rounded to x's dtype, for i in the view's row-major order
 * (the gradient g contiguous, converted to double a chunk at a time). */
static void spec_accumulate(const view_spec *s, const pc_tensor *g, pc_dtype xd, double *acc)
{
    enum { CHUNK = 256 };
    double buf[CHUNK];
    int64_t shape[PC_STRIDED_MAX_DIMS], dst[PC_STRIDED_MAX_DIMS], unused[PC_STRIDED_MAX_DIMS];
    int last =
        pc_strided_simplify(s->shape, s->strides, s->strides, s->rank, shape, dst, unused) - 1;
    int64_t len = shape[last], step = dst[last], n = spec_numel(s);
    int64_t idx[PC_STRIDED_MAX_DIMS] = {0};
    size_t gsz = pc_dtype_size(g->dtype);
    const char *gv = pc_tensor_data(g);
    /* a value of xd widened to double rounds back to itself, bit for bit (NaNs come quiet out
     * of the widening already) */
    bool to_xd = g->dtype != xd;
    int64_t off = s->offset;
    for (int64_t i = 0; i < n; i += len) {
        for (int64_t j0 = 0; j0 < len; j0 += CHUNK) {
            int64_t k = len - j0 < CHUNK ? len - j0 : CHUNK;
            pc_convert_buffer(buf, PC_DTYPE_F64, gv + (size_t)(i + j0) * gsz, g->dtype, (size_t)k);
            if (to_xd)
                for (int64_t e = 0; e < k; e++)
                    buf[e] = pc_round_to_dtype(buf[e], xd);
            for (int64_t e = 0; e < k; e++)
                acc[off + (j0 + e) * step] += buf[e];
        }
        for (int d = last - 1; d >= 0; d--) {
            off += dst[d];
            if (++idx[d] < shape[d])
                break;
            off -= dst[d] * shape[d];
            idx[d] = 0;
        }
    }
}

pc_status pc_k_view_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    view_spec s;
    pc_status st = view_spec_make(call, x, &s);
    if (st != PC_OK)
        return st;
    int64_t n = spec_numel(&s), xn = pc_tensor_numel(x);
    if (pc_tensor_numel(grad_out) != n)
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out), (long long)n);
    pc_tensor g = PC_TENSOR_NULL;
    if ((st = pc_tensor_contiguous(&g, grad_out)) != PC_OK)
        return st;
    pc_dtype xd = x->dtype;
    bool copy =
        grad_out->dtype == xd && spec_injective(&s) &&
        (xd == PC_DTYPE_F16 || xd == PC_DTYPE_BF16 || xd == PC_DTYPE_F32 || xd == PC_DTYPE_F64);
    if (copy) {
        /* Each input element receives at most one gradient element, already in its dtype: the
         * sum below is 0.0 + that element, i.e. the element with -0 made +0 and NaNs quiet
         * (PC_STRIDED_ADD_ZERO); the elements the view does not reach stay +0. */
        if ((st = pc_tensor_alloc(&out->grads[0], xd, x->shape, x->rank)) == PC_OK) {
            int64_t src_strides[2 * PC_TENSOR_MAX_DIMS];
            pc_shape_contiguous_strides(s.shape, s.rank, src_strides);
            size_t sz = pc_dtype_size(xd);
            char *dst = (char *)pc_tensor_data(&out->grads[0]) + s.offset * (int64_t)sz;
            pc_strided_copy(dst, xd, s.strides, pc_tensor_data(&g), xd, src_strides, s.shape,
                            s.rank, PC_STRIDED_ADD_ZERO);
        }
        pc_tensor_free(&g);
        return st;
    }
    /* autograd holds the gradient in the output's dtype (x's) before it flows back; where
     * several gradient elements reach one input element (expand), they are summed in double in
     * the output's row-major order and rounded once */
    double *acc = calloc((size_t)(xn > 0 ? xn : 1), sizeof *acc);
    if (!acc) {
        st = nomem(call);
    } else {
        if (n > 0)
            spec_accumulate(&s, &g, xd, acc);
        st = pc_shape_store(&out->grads[0], xd, x->shape, x->rank, acc);
    }
    free(acc);
    pc_tensor_free(&g);
    return st;
}

pc_status pc_k_join_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    (void)compute;
    const pc_value *list = &call->args[0];
    bool stack = call->op->param == PC_JOIN_STACK;
    int n = list->tensors.count;
    const pc_tensor *ts = list->tensors.items;
    if (n == 0)
        return PC_OK;
    pc_dtype od = PC_DTYPE_INVALID;
    int ref = -1;
    for (int i = 0; i < n; i++) {
        od = pc_promote_types(od, ts[i].dtype);
        if (ref < 0 && (stack || !(ts[i].rank == 1 && ts[i].shape[0] == 0)))
            ref = i;
    }
    if (ref < 0)
        return PC_OK; /* only empty tensors: nothing flows back */
    int dim;
    pc_status st = pc_shape_wrap_dim(call, call->args[1].i, ts[ref].rank + (stack ? 1 : 0), &dim);
    if (st != PC_OK)
        return st;
    /* autograd holds the gradient in the output's dtype before it is sliced (already there:
     * the slices are views of grad_out) */
    pc_tensor g = PC_TENSOR_NULL;
    if (grad_out->dtype == od)
        pc_tensor_share(&g, grad_out);
    else if ((st = pc_tensor_cast(&g, grad_out, od)) != PC_OK)
        return st;
    pc_tensor *items = calloc((size_t)n, sizeof *items);
    if (!items) {
        pc_tensor_free(&g);
        return nomem(call);
    }
    int64_t off = 0;
    for (int i = 0; i < n && st == PC_OK; i++) {
        const pc_tensor *t = &ts[i];
        bool empty = !stack && t->rank == 1 && t->shape[0] == 0;
        int64_t len = stack ? 1 : empty ? 0 : t->shape[dim];
        if (!pc_dtype_is_float(t->dtype)) {
            off += len;
            continue;
        }
        pc_tensor v = PC_TENSOR_NULL;
        if (empty)
            st = pc_tensor_alloc(&items[i], t->dtype, t->shape, t->rank);
        else if (stack)
            st = pc_tensor_select(&v, &g, dim, i);
        else
            st = pc_tensor_narrow(&v, &g, dim, off, len);
        if (st == PC_OK && !empty)
            st = cast_new(&items[i], &v, t->dtype);
        pc_tensor_free(&v);
        off += len;
    }
    pc_tensor_free(&g);
    if (st != PC_OK) {
        for (int i = 0; i < n; i++)
            pc_tensor_free(&items[i]);
        free(items);
        return st;
    }
    out->lists[0].items = items;
    out->lists[0].count = n;
    return PC_OK;
}

/* ---- splits: several outputs ---- */

static pc_status split_sizes_of(const pc_op_call *call, int64_t n, int dim, int64_t *sizes,
                                int *count)
{
    int param = call->op->param;
    char buf[PC_SHAPE_FORMAT_MAX];
    int64_t size = 0;
    int64_t pieces = 0;
    if (param == PC_SPLIT_CHUNK) {
        int64_t chunks = call->args[1].i;
        if (chunks <= 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: chunk expects `chunks` to be greater than 0, got: %lld",
                                call->full_name, (long long)chunks);
        size = (n + chunks - 1) / chunks;
        if (size == 0 && n == 0) { /* torch gives `chunks` empty pieces */
            pieces = chunks;
        } else {
            pieces = (n + size - 1) / size;
        }
    } else if (param == PC_SPLIT_SIZE && call->args[1].nints == 1) {
        size = call->args[1].ints[0];
        if (size < 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: split expects split_size be non-negative, but got "
                                "split_size=%lld",
                                call->full_name, (long long)size);
        if (size == 0 && n != 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: split_size can only be 0 if dimension size is 0, but got "
                                "dimension size of %lld",
                                call->full_name, (long long)n);
        pieces = size == 0 ? 1 : (n + size - 1) / size;
        if (pieces < 1)
            pieces = 1;
    } else if (param == PC_SPLIT_UNBIND) {
        pieces = n;
        size = 1;
    } else {
        const pc_value *v = &call->args[1];
        int64_t sum = 0;
        for (int i = 0; i < v->nints; i++) {
            if (v->ints[i] < 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: split_with_sizes expects split_sizes have only "
                                    "non-negative entries, but got split_sizes=%s",
                                    call->full_name, fmt_ints(buf, sizeof buf, v->ints, v->nints));
            sum += v->ints[i];
        }
        if (sum != n)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: split_with_sizes expects split_sizes to sum exactly to %lld "
                                "(input tensor's size at dimension %d), but got split_sizes=%s",
                                call->full_name, (long long)n, dim,
                                fmt_ints(buf, sizeof buf, v->ints, v->nints));
        memcpy(sizes, v->ints, sizeof(int64_t) * (size_t)v->nints);
        *count = v->nints;
        return PC_OK;
    }
    if (pieces > PC_OP_MAX_OUTPUTS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %lld outputs, precheck handles at most %d",
                            call->full_name, (long long)pieces, PC_OP_MAX_OUTPUTS);
    for (int64_t i = 0; i < pieces; i++) {
        int64_t left = n - i * size;
        sizes[i] = left < size ? (left > 0 ? left : 0) : size;
    }
    *count = (int)pieces;
    return PC_OK;
}

pc_status pc_k_split_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    int param = call->op->param;
    const pc_value *dimv = &call->args[param == PC_SPLIT_UNBIND ? 1 : 2];
    if (x->rank == 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Dimension specified as %lld but tensor has no "
                            "dimensions",
                            call->full_name, (long long)dimv->i);
    int dim;
    pc_status st = pc_shape_wrap_dim(call, dimv->i, x->rank, &dim);
    if (st != PC_OK)
        return st;
    int64_t sizes[PC_VALUE_MAX_INTS > PC_OP_MAX_OUTPUTS ? PC_VALUE_MAX_INTS : PC_OP_MAX_OUTPUTS];
    int count = 0;
    if ((st = split_sizes_of(call, x->shape[dim], dim, sizes, &count)) != PC_OK)
        return st;
    view_spec base;
    spec_of(&base, x->shape, x->rank);
    int64_t start = 0;
    for (int i = 0; i < count && st == PC_OK; i++) {
        view_spec s = base;
        s.offset = start * base.strides[dim];
        s.shape[dim] = sizes[i];
        if (param == PC_SPLIT_UNBIND)
            spec_remove(&s, dim);
        st = spec_materialise(x, &s, &out->tensors[i]);
        start += sizes[i];
        if (st == PC_OK)
            out->count = i + 1;
    }
    return st;
}

/* ---- joins ---- */

pc_status pc_k_join_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_value *list = &call->args[0];
    bool stack = call->op->param == PC_JOIN_STACK;
    int n = list->tensors.count;
    const pc_tensor *ts = list->tensors.items;
    char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
    if (n == 0)
        return pc_error_set(PC_ERR_INVALID,
                            stack ? "%s: stack expects a non-empty TensorList"
                                  : "%s: torch.cat(): expected a non-empty list of Tensors",
                            call->full_name);
    pc_dtype od = PC_DTYPE_INVALID;
    for (int i = 0; i < n; i++) {
        od = pc_promote_types(od, ts[i].dtype);
        if (pc_dtype_is_complex(ts[i].dtype))
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: complex tensors are not supported",
                                call->full_name);
    }
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int rank, dim, ref = 0;
    pc_status st;
    if (stack) {
        for (int i = 1; i < n; i++)
            if (!pc_tensor_same_shape(&ts[0], &ts[i]))
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: stack expects each tensor to be equal size, but got %s "
                                    "at entry 0 and %s at entry %d",
                                    call->full_name, fmt_ints(a, sizeof a, ts[0].shape, ts[0].rank),
                                    fmt_ints(b, sizeof b, ts[i].shape, ts[i].rank), i);
        if (ts[0].rank == PC_TENSOR_MAX_DIMS)
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: more than %d dimensions", call->full_name,
                                PC_TENSOR_MAX_DIMS);
        if ((st = pc_shape_wrap_dim(call, call->args[1].i, ts[0].rank + 1, &dim)) != PC_OK)
            return st;
        rank = ts[0].rank + 1;
        for (int d = 0, k = 0; d < rank; d++)
            shape[d] = d == dim ? n : ts[0].shape[k++];
    } else {
        /* 1-D empty tensors are skipped, as torch's legacy rule has it */
        ref = -1;
        for (int i = 0; i < n; i++) {
            if (ts[i].rank == 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: zero-dimensional tensor (at position %d) cannot be "
                                    "concatenated",
                                    call->full_name, i);
            if (ref < 0 && !(ts[i].rank == 1 && ts[i].shape[0] == 0))
                ref = i;
        }
        if (ref < 0) {
            int64_t zero = 0;
            if ((st = pc_tensor_alloc(&out->tensors[0], od, &zero, 1)) != PC_OK)
                return st;
            out->count = 1;
            return PC_OK;
        }
        rank = ts[ref].rank;
        if ((st = pc_shape_wrap_dim(call, call->args[1].i, rank, &dim)) != PC_OK)
            return st;
        memcpy(shape, ts[ref].shape, sizeof shape);
        shape[dim] = 0;
        for (int i = 0; i < n; i++) {
            const pc_tensor *t = &ts[i];
            if (t->rank == 1 && t->shape[0] == 0)
                continue;
            if (t->rank != rank)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: Tensors must have same number of dimensions: got %d "
                                    "and %d",
                                    call->full_name, rank, t->rank);
            for (int d = 0; d < rank; d++)
                if (d != dim && t->shape[d] != ts[ref].shape[d])
                    return pc_error_set(PC_ERR_INVALID,
                                        "%s: Sizes of tensors must match except in dimension %d. "
                                        "Expected size %lld but got size %lld for tensor number "
                                        "%d in the list.",
                                        call->full_name, dim, (long long)ts[ref].shape[d],
                                        (long long)t->shape[d], i);
            shape[dim] += t->shape[dim];
        }
    }
    pc_tensor r = PC_TENSOR_NULL;
    if ((st = pc_tensor_alloc(&r, od, shape, rank)) != PC_OK)
        return st;
    int64_t start = 0;
    for (int i = 0; i < n && st == PC_OK; i++) {
        const pc_tensor *t = &ts[i];
        pc_tensor dst = PC_TENSOR_NULL;
        if (stack) {
            st = pc_tensor_select(&dst, &r, dim, i);
        } else {
            if (t->rank == 1 && t->shape[0] == 0)
                continue;
            st = pc_tensor_narrow(&dst, &r, dim, start, t->shape[dim]);
            start += t->shape[dim];
        }
        if (st == PC_OK)
            st = copy_into(&dst, t);
        pc_tensor_free(&dst);
    }
    if (st != PC_OK) {
        pc_tensor_free(&r);
        return pc_error_prefix(st, "%s", call->full_name);
    }
    out->tensors[0] = r;
    out->count = 1;
    return PC_OK;
}

/* ---- tril / triu ---- */

static pc_status tri_check(const pc_op_call *call, const pc_tensor *x)
{
    int d;
    return pc_shape_wrap_dim(call, -2, x->rank, &d);
}

/* Zeroes the elements of the contiguous t outside the triangle (zero bytes are 0 in every
 * dtype). */
static void tri_mask(const pc_op_call *call, pc_tensor *t)
{
    int64_t rows = t->shape[t->rank - 2], cols = t->shape[t->rank - 1];
    int64_t k = call->args[1].i, n = pc_tensor_numel(t);
    bool lower = call->op->param == PC_TRI_LOWER;
    size_t sz = pc_dtype_size(t->dtype);
    char *p = pc_tensor_data(t);
    for (int64_t i = 0; i < n; i++) {
        int64_t col = i % cols, row = (i / cols) % rows;
        bool keep = lower ? col - row <= k : col - row >= k;
        if (!keep)
            memset(p + (size_t)i * sz, 0, sz);
    }
}

pc_status pc_k_tri_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = tri_check(call, x);
    if (st == PC_OK)
        st = pc_tensor_cast(&out->tensors[0], x, x->dtype);
    if (st != PC_OK)
        return st;
    tri_mask(call, &out->tensors[0]);
    out->count = 1;
    return PC_OK;
}

pc_status pc_k_tri_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                            pc_op_grads *out)
{
    (void)compute;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = tri_check(call, x);
    if (st != PC_OK || !pc_shape_wants_grad(call, 0))
        return st;
    if (!pc_tensor_same_shape(x, grad_out))
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient's shape is not the output's",
                            call->full_name);
    if ((st = pc_tensor_cast(&out->grads[0], grad_out, x->dtype)) != PC_OK)
        return st;
    tri_mask(call, &out->grads[0]);
    return PC_OK;
}
