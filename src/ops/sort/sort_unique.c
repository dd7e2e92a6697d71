/*
 * unique and unique_consecutive: the distinct elements of a tensor (dim=None, flattened) or its
 * distinct slices along dim, with the inverse indices and the counts when asked for. No
 * backward (torch: "the derivative for '_unique2' is not implemented").
 *
 * unique sorts the slices with one stable merge sort (lexicographic, NaN the largest value, as
 * sort.c orders them) and merges runs of equal slices; unique_consecutive merges runs in input
 * order. Equality is the dtype's ==: -0 equals 0 (the first one in input order is kept), a NaN
 * equals nothing, so every NaN is its own entry, after the numbers. The values out are input
 * elements copied bit for bit: exact in every dtype and compute type (the bench's float64
 * inputs hold the same values, so it finds the same entries).
 *
 * Deliberate difference: unique returns the sorted order also for sorted=False. That is what
 * torch's CUDA kernel returns for either value; torch 1.13's CPU kernel returns its hash set's
 * order for sorted=False (and, with NaNs among floats, a partly unsorted result for either), an
 * order that nothing else reproduces.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/sort/sort_impl.h"

/* The slices of one call: row i of rows (n rows of w elements, contiguous) is slice i. */
typedef struct uq_rows {
    pc_tensor rows; /* the input with dim moved to the front, contiguous */
    void *keys;     /* the rows' values: int64 (integers, bool) or double */
    bool is_int;
    int64_t n, w;
} uq_rows;

/* Lexicographic order of rows a and b: < 0, 0 (no element sorts before the other), > 0. */
static int row_order(const uq_rows *r, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < r->w; k++) {
        if (r->is_int) {
            int64_t x = ((const int64_t *)r->keys)[a * r->w + k];
            int64_t y = ((const int64_t *)r->keys)[b * r->w + k];
            if (x != y)
                return x < y ? -1 : 1;
        } else {
            double x = ((const double *)r->keys)[a * r->w + k];
            double y = ((const double *)r->keys)[b * r->w + k];
            if (isnan(x) != isnan(y))
                return isnan(x) ? 1 : -1;
            if (x < y)
                return -1;
            if (y < x)
                return 1;
        }
    }
    return 0;
}

/* Whether rows a and b are equal element by element (a NaN equals nothing). */
static bool rows_equal(const uq_rows *r, int64_t a, int64_t b)
{
    for (int64_t k = 0; k < r->w; k++) {
        if (r->is_int) {
            if (((const int64_t *)r->keys)[a * r->w + k] !=
                ((const int64_t *)r->keys)[b * r->w + k])
                return false;
        } else if (!(((const double *)r->keys)[a * r->w + k] ==
                     ((const double *)r->keys)[b * r->w + k])) {
            return false;
        }
    }
    return true;
}

/* Stable top-down merge sort of idx[0..n) by row_order, through tmp. */
static void sort_rows(const uq_rows *r, int64_t *idx, int64_t *tmp, int64_t n)
{
    if (n < 2)
        return;
    int64_t h = n / 2;
    sort_rows(r, idx, tmp, h);
    sort_rows(r, idx + h, tmp, n - h);
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = row_order(r, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
}

static void rows_free(uq_rows *r)
{
    pc_tensor_free(&r->rows);
    free(r->keys);
}

/* x with dim (or, for dim None, every element: w = 1) as rows, and their keys. */
static pc_status rows_make(const pc_op_call *call, const pc_tensor *x, int dim, bool flat,
                           uq_rows *r)
{
    memset(r, 0, sizeof *r);
    r->rows = PC_TENSOR_NULL;
    pc_tensor moved = PC_TENSOR_NULL;
    pc_status st;
    if (flat) {
        st = pc_tensor_contiguous(&r->rows, x);
        r->n = pc_tensor_numel(x);
        r->w = 1;
    } else {
        int perm[PC_TENSOR_MAX_DIMS];
        perm[0] = dim;
        for (int d = 0, k = 1; d < x->rank; d++)
            if (d != dim)
                perm[k++] = d;
        st = pc_tensor_permute(&moved, x, perm);
        if (st == PC_OK)
            st = pc_tensor_contiguous(&r->rows, &moved);
        pc_tensor_free(&moved);
        r->n = x->shape[dim];
        r->w = r->n ? pc_tensor_numel(x) / r->n : 0;
    }
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    int64_t total = r->n * r->w;
    r->is_int = !pc_dtype_is_float(x->dtype);
    void *keys = malloc((size_t)(total > 0 ? total : 1) * 8);
    if (!keys) {
        rows_free(r);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
    }
    const char *p = pc_tensor_data(&r->rows);
    size_t es = pc_dtype_size(x->dtype);
    for (int64_t i = 0; i < total; i++) {
        if (r->is_int)
            ((int64_t *)keys)[i] = pc_element_load_i64(p + (size_t)i * es, x->dtype);
        else
            pc_element_load(p + (size_t)i * es, x->dtype, &((double *)keys)[i], NULL);
    }
    r->keys = keys;
    return PC_OK;
}

/* The outputs of groups: first[g] is the row kept for group g (of ng), group[i] row i's group.
 * values: the kept rows, in x's layout (dim None: 1-D); inverse: x's shape (dim None) or [n];
 * counts: [ng]. */
static pc_status store_outputs(const pc_op_call *call, const pc_tensor *x, int dim, bool flat,
                               const uq_rows *r, const int64_t *first, const int64_t *group,
                               int64_t ng, bool inverse, bool counts, pc_op_result *out)
{
    size_t es = pc_dtype_size(x->dtype), row_bytes = (size_t)r->w * es;
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int rank;
    if (flat) {
        shape[0] = ng;
        rank = 1;
    } else {
        shape[0] = ng;
        for (int d = 0, k = 1; d < x->rank; d++)
            if (d != dim)
                shape[k++] = x->shape[d];
        rank = x->rank;
    }
    pc_tensor vals = PC_TENSOR_NULL;
    pc_status st = pc_tensor_alloc_uninit(&vals, x->dtype, shape, rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    const char *src = pc_tensor_data(&r->rows);
    char *dst = pc_tensor_data(&vals);
    for (int64_t g = 0; g < ng; g++)
        memcpy(dst + (size_t)g * row_bytes, src + (size_t)first[g] * row_bytes, row_bytes);
    if (!flat && dim != 0) { /* dim back in its place */
        int perm[PC_TENSOR_MAX_DIMS];
        for (int d = 0, k = 1; d < x->rank; d++)
            perm[d] = d == dim ? 0 : k++;
        pc_tensor view = PC_TENSOR_NULL, c = PC_TENSOR_NULL;
        st = pc_tensor_permute(&view, &vals, perm);
        if (st == PC_OK)
            st = pc_tensor_contiguous(&c, &view);
        pc_tensor_free(&view);
        pc_tensor_free(&vals);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        vals = c;
    }
    out->tensors[out->count++] = vals;
    if (inverse) {
        pc_tensor inv = PC_TENSOR_NULL;
        if (flat)
            st = pc_tensor_alloc_uninit(&inv, PC_DTYPE_I64, x->shape, x->rank);
        else
            st = pc_tensor_alloc_uninit(&inv, PC_DTYPE_I64, &r->n, 1);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        if (r->n > 0)
            memcpy(pc_tensor_data(&inv), group, (size_t)r->n * sizeof *group);
        out->tensors[out->count++] = inv;
    }
    if (counts) {
        pc_tensor cnt = PC_TENSOR_NULL;
        if ((st = pc_tensor_alloc(&cnt, PC_DTYPE_I64, &ng, 1)) != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        int64_t *c = pc_tensor_data(&cnt);
        for (int64_t i = 0; i < r->n; i++)
            c[group[i]]++;
        out->tensors[out->count++] = cnt;
    }
    return PC_OK;
}

/* unique(input, sorted, return_inverse, return_counts, dim) and
 * unique_consecutive(input, return_inverse, return_counts, dim). */
pc_status pc_k_unique_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    bool consecutive = call->op->param == PC_UNIQUE_CONSECUTIVE;
    int a = consecutive ? 1 : 2; /* return_inverse's position */
    const pc_tensor *x = pc_call_tensor(call, 0);
    bool inverse = call->args[a].b, counts = call->args[a + 1].b;
    const pc_value *dv = &call->args[a + 2];
    bool flat = dv->kind == PC_VALUE_NONE;
    const char *kernel = consecutive ? "unique_consecutive" : flat ? "unique" : "unique_dim";
    if (pc_dtype_is_complex(x->dtype))
        return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'", call->full_name,
                            kernel, pc_torch_type_name(x->dtype));
    if (x->dtype == PC_DTYPE_F8E4M3FN || x->dtype == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_name(x->dtype));
    int dim = 0;
    pc_status st;
    if (!flat) {
        if (x->rank == 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Dimension specified as %lld but tensor has no dimensions",
                                call->full_name, (long long)dv->i);
        if ((st = pc_shape_wrap_dim(call, dv->i, x->rank, &dim)) != PC_OK)
            return st;
        for (int d = 0; d < x->rank; d++)
            if (d != dim && x->shape[d] == 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: There are 0 sized dimensions, and they aren't "
                                    "selected, so unique cannot be applied",
                                    call->full_name);
    }
    uq_rows r;
    if ((st = rows_make(call, x, dim, flat, &r)) != PC_OK)
        return st;
    size_t nb = (size_t)(r.n > 0 ? r.n : 1) * sizeof(int64_t);
    int64_t *idx = malloc(nb), *tmp = malloc(nb), *group = malloc(nb), *first = malloc(nb);
    if (!idx || !tmp || !group || !first) {
        st = pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name);
        goto done;
    }
    for (int64_t i = 0; i < r.n; i++)
        idx[i] = i;
    if (!consecutive)
        sort_rows(&r, idx, tmp, r.n);
    int64_t ng = 0;
    for (int64_t k = 0; k < r.n; k++) {
        if (ng == 0 || !rows_equal(&r, first[ng - 1], idx[k]))
            first[ng++] = idx[k];
        group[idx[k]] = ng - 1;
    }
    out->count = 0;
    st = store_outputs(call, x, dim, flat, &r, first, group, ng, inverse, counts, out);
    if (st != PC_OK)
        pc_op_result_free(out);
done:
    free(idx);
    free(tmp);
    free(group);
    free(first);
    rows_free(&r);
    return st;
}
