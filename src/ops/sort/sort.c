/*
 * Sorting and selection along a dimension: sort, argsort, msort, topk, kthvalue, median and
 * NPU.npu_sort_v2, forward and backward.
 *
 * Every op sees its input as slices along one dimension (outer x n x inner, contiguous) and
 * sorts the n positions of a slice by their values with one stable merge sort, NaN the largest
 * value (torch's order for sort, topk, kthvalue and median). The values out are the input's
 * own elements, copied bit for bit: the ops are exact in every compute type and dtype, and the
 * bench (float64 inputs) gives the same values. Only the order of tied values is ours: torch's
 * CPU sort without stable=True, its topk (partial sort / nth_element) and kthvalue (quick
 * select) may order ties otherwise, so an index output is torch's modulo ties (the golden test
 * compares it so). topk with sorted=False returns the sorted order, one of the orders torch may
 * give. topk with k * 8 <= n keeps the k best of a slice in a heap (one pass) instead of
 * sorting it. Memory: the outputs plus three arrays of one slice per thread.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "ops/kernel.h"
#include "ops/sort/sort_impl.h"

/* ---- the stable sort ---- */

/* Whether key a sorts strictly before key b in ascending order, NaN the largest. */
static bool before_f64(double a, double b)
{
    if (isnan(a))
        return false;
    return isnan(b) || a < b;
}

static bool goes_before(const void *keys, bool is_int, bool descending, int64_t a, int64_t b)
{
    if (is_int) {
        const int64_t *k = keys;
        return descending ? k[b] < k[a] : k[a] < k[b];
    }
    const double *k = keys;
    return descending ? before_f64(k[b], k[a]) : before_f64(k[a], k[b]);
}

/* Top-down merge sort of idx[0..n) through tmp; stable: an element of the right run is taken
 * first only when it sorts strictly before the left one. */
static void merge_sort(const void *keys, bool is_int, bool descending, int64_t *idx, int64_t *tmp,
                       int64_t n)
{
    if (n < 2)
        return;
    if (n <= 16) { /* insertion sort: stable too */
        for (int64_t i = 1; i < n; i++) {
            int64_t v = idx[i], j = i;
            while (j > 0 && goes_before(keys, is_int, descending, v, idx[j - 1])) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    int64_t h = n / 2;
    merge_sort(keys, is_int, descending, idx, tmp, h);
    merge_sort(keys, is_int, descending, idx + h, tmp, n - h);
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = goes_before(keys, is_int, descending, idx[j], idx[i]) ? idx[j++] : idx[i++];
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
}

void pc_sort_indices(const void *keys, bool is_int, bool descending, int64_t n, int64_t *idx,
                     int64_t *tmp)
{
    for (int64_t i = 0; i < n; i++)
        idx[i] = i;
    merge_sort(keys, is_int, descending, idx, tmp, n);
}

/* ---- slices ---- */

typedef struct slice_plan {
    pc_tensor xc; /* the input, contiguous (a reference) */
    int dim;      /* wrapped; 0 for a 0-dim input (one slice of one element) */
    int64_t n, outer, inner;
    bool is_int; /* keys compared as int64 (integers, bool), else as doubles */
    bool all;    /* the whole tensor is the one slice: results are 0-dim */
    size_t es;
} slice_plan;

static void plan_free(slice_plan *p)
{
    pc_tensor_free(&p->xc);
}

static pc_status need_real(const pc_op_call *call, const pc_tensor *x, const char *kernel)
{
    if (pc_dtype_is_complex(x->dtype))
        return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'", call->full_name,
                            kernel, pc_torch_type_name(x->dtype));
    if (x->dtype == PC_DTYPE_F8E4M3FN || x->dtype == PC_DTYPE_F8E5M2)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: %s of %s is not supported by precheck",
                            call->full_name, call->op->name, pc_dtype_name(x->dtype));
    return PC_OK;
}

/* topk, kthvalue, median have no bool kernel on torch's CPU. */
static pc_status need_not_bool(const pc_op_call *call, const pc_tensor *x, const char *kernel)
{
    if (x->dtype == PC_DTYPE_BOOL)
        return pc_error_set(PC_ERR_INVALID, "%s: \"%s\" not implemented for '%s'", call->full_name,
                            kernel, pc_torch_type_name(x->dtype));
    return need_real(call, x, kernel);
}

/* all: the whole tensor as one slice (median without dim). */
static pc_status plan_make(const pc_op_call *call, const pc_tensor *x, int64_t dim, bool all,
                           slice_plan *p)
{
    memset(p, 0, sizeof *p);
    p->xc = PC_TENSOR_NULL;
    p->es = pc_dtype_size(x->dtype);
    p->is_int = !pc_dtype_is_float(x->dtype);
    p->outer = p->inner = 1;
    p->all = all;
    if (all) {
        p->n = pc_tensor_numel(x);
    } else {
        pc_status st = pc_shape_wrap_dim(call, dim, x->rank, &p->dim);
        if (st != PC_OK)
            return st;
        p->n = x->rank ? x->shape[p->dim] : 1;
        for (int d = 0; d < x->rank; d++) {
            if (d < p->dim)
                p->outer *= x->shape[d];
            else if (d > p->dim)
                p->inner *= x->shape[d];
        }
    }
    return pc_tensor_contiguous(&p->xc, x);
}

static const char *elem(const slice_plan *p, int64_t o, int64_t j, int64_t i)
{
    return (const char *)pc_tensor_data(&p->xc) + (size_t)(((o * p->n + j) * p->inner + i)) * p->es;
}

/* The keys of slice (o, i): doubles or int64, as plan->is_int says. */
static void load_keys(const slice_plan *p, int64_t o, int64_t i, void *keys)
{
    for (int64_t j = 0; j < p->n; j++) {
        const char *e = elem(p, o, j, i);
        if (p->is_int) {
            ((int64_t *)keys)[j] = pc_element_load_i64(e, p->xc.dtype);
        } else {
            double re, im;
            pc_element_load(e, p->xc.dtype, &re, &im);
            ((double *)keys)[j] = re;
        }
    }
}

/* The shape of x with dimension p->dim of size k (keep) or removed. */
static int out_shape(const pc_tensor *x, const slice_plan *p, int64_t k, bool keep, int64_t *shape)
{
    int r = 0;
    for (int d = 0; d < x->rank && !p->all; d++) {
        if (d != p->dim)
            shape[r++] = x->shape[d];
        else if (keep)
            shape[r++] = k;
    }
    return r;
}

/* A binary heap of at most k positions whose root is the worst kept one: the first k positions
 * of the stable order in one pass (topk with k much smaller than n). */
static bool ranks_before(const void *keys, bool is_int, bool descending, int64_t a, int64_t b)
{
    return goes_before(keys, is_int, descending, a, b) ||
           (!goes_before(keys, is_int, descending, b, a) && a < b);
}

static void heap_down(const void *keys, bool is_int, bool descending, int64_t *h, int64_t n,
                      int64_t i)
{
    for (;;) {
        int64_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && ranks_before(keys, is_int, descending, h[w], h[l]))
            w = l;
        if (r < n && ranks_before(keys, is_int, descending, h[w], h[r]))
            w = r;
        if (w == i)
            return;
        int64_t t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* idx[0..k): the first k positions of the stable order of the n keys. */
static void first_positions(const void *keys, bool is_int, bool descending, int64_t n, int64_t k,
                            int64_t *idx, int64_t *tmp)
{
    if (k * 8 > n) {
        pc_sort_indices(keys, is_int, descending, n, idx, tmp);
        return;
    }
    for (int64_t j = 0; j < k; j++)
        idx[j] = j;
    for (int64_t i = k / 2; i-- > 0;)
        heap_down(keys, is_int, descending, idx, k, i);
    for (int64_t j = k; j < n && k > 0; j++) {
        if (ranks_before(keys, is_int, descending, j, idx[0])) {
            idx[0] = j;
            heap_down(keys, is_int, descending, idx, k, 0);
        }
    }
    /* in index order, then stably by key: ties keep their index order */
    qsort(idx, (size_t)k, sizeof *idx, cmp_i64);
    merge_sort(keys, is_int, descending, idx, tmp, k);
}

/* What a pass over the slices writes: the first k positions of the stable order (sort, topk),
 * or one position of the ascending order (kthvalue: the k-th; median: the lower middle one, or
 * the first NaN by index when there is one; nanmedian: the lower middle one of the values that
 * are not NaN, the middle NaN when all are). */
typedef struct slice_pick {
    bool one;        /* one position per slice (kthvalue, median) */
    int64_t k;       /* positions per slice (one: the k-th smallest, k >= 1, or 0: the median) */
    bool descending; /* !one */
    bool ignore_nan; /* the median of the values that are not NaN (nanmedian) */
} slice_pick;

/* The picks of every slice into values (x's dtype; may be NULL) and indices (int64; may be
 * NULL), already allocated (contiguous: k positions along the dimension, or one). Slices run in
 * parallel where the input is large; each thread has its own scratch. */
static pc_status pick_slices(const pc_op_call *call, const slice_plan *p, const slice_pick *pk,
                             pc_tensor *values, pc_tensor *indices)
{
    int64_t slices = p->outer * p->inner, width = pk->one ? 1 : pk->k;
    if (p->n == 0 || width == 0 || slices == 0)
        return PC_OK;
    char *vo = values ? pc_tensor_data(values) : NULL;
    int64_t *io = indices ? pc_tensor_data(indices) : NULL;
    size_t m = (size_t)p->n;
    bool failed = false;
#pragma omp parallel if (slices > 1 && slices * p->n > 32768)
    {
        double *keys = malloc(m * 8);
        int64_t *idx = malloc(m * sizeof *idx), *tmp = malloc(m * sizeof *tmp);
        if (!keys || !idx || !tmp) {
#pragma omp atomic write
            failed = true;
        }
#pragma omp for schedule(static)
        for (int64_t t = 0; t < slices; t++) {
            if (!keys || !idx || !tmp)
                continue;
            int64_t o = t / p->inner, i = t % p->inner;
            load_keys(p, o, i, keys);
            if (!pk->one) {
                first_positions(keys, p->is_int, pk->descending, p->n, pk->k, idx, tmp);
                for (int64_t j = 0; j < pk->k; j++) {
                    int64_t off = (o * pk->k + j) * p->inner + i;
                    if (vo)
                        memcpy(vo + (size_t)off * p->es, elem(p, o, idx[j], i), p->es);
                    if (io)
                        io[off] = idx[j];
                }
                continue;
            }
            pc_sort_indices(keys, p->is_int, false, p->n, idx, tmp);
            int64_t pos = pk->k - 1;
            if (pk->k == 0) {
                int64_t nn = p->n;
                while (!p->is_int && nn > 0 && isnan(keys[idx[nn - 1]]))
                    nn--;
                if (pk->ignore_nan)
                    pos = nn > 0 ? (nn - 1) / 2 : (p->n - 1) / 2;
                else
                    pos = nn < p->n ? nn : (p->n - 1) / 2;
            }
            int64_t off = o * p->inner + i;
            if (vo)
                memcpy(vo + (size_t)off * p->es, elem(p, o, idx[pos], i), p->es);
            if (io)
                io[off] = idx[pos];
        }
        free(keys);
        free(idx);
        free(tmp);
    }
    return failed ? pc_error_set(PC_ERR_NOMEM, "%s: out of memory", call->full_name) : PC_OK;
}

/* The first k positions of every slice sorted (descending or not) into values (x's dtype; may
 * be NULL) and indices (int64; may be NULL), both of x's shape with dimension p->dim of size
 * k. */
static pc_status sorted_prefix(const pc_op_call *call, const pc_tensor *x, const slice_plan *p,
                               int64_t k, bool descending, pc_tensor *values, pc_tensor *indices)
{
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int r = out_shape(x, p, k, true, shape);
    pc_status st = PC_OK;
    if (values)
        st = pc_tensor_alloc(values, x->dtype, shape, r);
    if (st == PC_OK && indices)
        st = pc_tensor_alloc(indices, PC_DTYPE_I64, shape, r);
    slice_pick pk = {.one = false, .k = k, .descending = descending};
    if (st == PC_OK)
        st = pick_slices(call, p, &pk, values, indices);
    return st;
}

/* For every slice, the k-th smallest (k >= 1) or the median (k == 0); values/indices (may be
 * NULL): x's shape with dimension p->dim of size 1 (keepdim) or removed. */
static pc_status select_one(const pc_op_call *call, const pc_tensor *x, const slice_plan *p,
                            int64_t k, bool keepdim, pc_tensor *values, pc_tensor *indices)
{
    int64_t shape[PC_TENSOR_MAX_DIMS];
    int r = out_shape(x, p, 1, keepdim, shape);
    pc_status st = pc_tensor_alloc(values, x->dtype, shape, r);
    if (st == PC_OK && indices)
        st = pc_tensor_alloc(indices, PC_DTYPE_I64, shape, r);
    slice_pick pk = {.one = true,
                     .k = k,
                     .descending = false,
                     .ignore_nan = k == 0 && call->op->param == PC_MEDIAN_IGNORE_NAN};
    if (st == PC_OK)
        st = pick_slices(call, p, &pk, values, indices);
    return st;
}

/* The input gradient of a selection: grad_out (the values' shape) written at the chosen
 * indices along p->dim, zero elsewhere; k positions per slice (1 for kthvalue and median). */
static pc_status scatter_grad(const pc_op_call *call, const pc_tensor *x, const slice_plan *p,
                              const pc_tensor *indices, int64_t k, const pc_tensor *grad_out,
                              pc_op_grads *out)
{
    if (pc_tensor_numel(grad_out) != pc_tensor_numel(indices))
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output %lld",
                            call->full_name, (long long)pc_tensor_numel(grad_out),
                            (long long)pc_tensor_numel(indices));
    pc_tensor g = PC_TENSOR_NULL, gx = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&g, grad_out, x->dtype);
    if (st == PC_OK)
        st = pc_tensor_alloc(&gx, x->dtype, x->shape, x->rank);
    if (st == PC_OK) {
        const int64_t *ix = pc_tensor_data(indices);
        const char *gs = pc_tensor_data(&g);
        char *gd = pc_tensor_data(&gx);
        for (int64_t o = 0; o < p->outer; o++)
            for (int64_t j = 0; j < k; j++)
                for (int64_t i = 0; i < p->inner; i++) {
                    int64_t src = (o * k + j) * p->inner + i;
                    int64_t dst = (o * p->n + ix[src]) * p->inner + i;
                    memcpy(gd + (size_t)dst * p->es, gs + (size_t)src * p->es, p->es);
                }
        out->grads[0] = gx;
        gx = PC_TENSOR_NULL;
    }
    pc_tensor_free(&g);
    pc_tensor_free(&gx);
    return st;
}

/* ---- sort, argsort, msort, npu_sort_v2 ---- */

/* The arguments of the sort family: (dim, descending, stable) by param. */
static void sort_args(const pc_op_call *call, int64_t *dim, bool *descending)
{
    *dim = call->op->param == PC_SORT_MSORT ? 0 : call->args[1].i;
    *descending = call->op->param == PC_SORT_MSORT ? false : call->args[2].b;
}

static pc_status sort_run(const pc_op_call *call, slice_plan *p, bool want_values,
                          pc_tensor *values, pc_tensor *indices)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    int64_t dim;
    bool descending;
    sort_args(call, &dim, &descending);
    pc_status st = need_real(call, x, "sort");
    if (st == PC_OK)
        st = plan_make(call, x, dim, false, p);
    if (st == PC_OK)
        st = sorted_prefix(call, x, p, p->n, descending, want_values ? values : NULL, indices);
    return st;
}

pc_status pc_k_sort_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    int param = call->op->param;
    slice_plan p;
    pc_tensor v = PC_TENSOR_NULL, ix = PC_TENSOR_NULL;
    bool want_indices = param == PC_SORT_SORT || param == PC_SORT_ARGSORT;
    pc_status st = sort_run(call, &p, param != PC_SORT_ARGSORT, &v, want_indices ? &ix : NULL);
    plan_free(&p);
    if (st != PC_OK) {
        pc_tensor_free(&v);
        pc_tensor_free(&ix);
        return st;
    }
    if (param == PC_SORT_SORT) {
        out->tensors[0] = v;
        out->tensors[1] = ix;
        out->count = 2;
    } else {
        out->tensors[0] = param == PC_SORT_ARGSORT ? ix : v;
        out->count = 1;
    }
    return PC_OK;
}

pc_status pc_k_sort_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    (void)compute;
    if (call->op->param == PC_SORT_ARGSORT || !pc_shape_wants_grad(call, 0))
        return PC_OK;
    slice_plan p;
    pc_tensor ix = PC_TENSOR_NULL;
    pc_status st = sort_run(call, &p, false, NULL, &ix);
    if (st == PC_OK)
        st = scatter_grad(call, pc_call_tensor(call, 0), &p, &ix, p.n, grad_out, out);
    pc_tensor_free(&ix);
    plan_free(&p);
    return st;
}

/* ---- topk ---- */

static pc_status topk_run(const pc_op_call *call, slice_plan *p, int64_t *k, pc_tensor *values,
                          pc_tensor *indices)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    *k = call->args[1].i;
    pc_status st = need_not_bool(call, x, "topk_cpu");
    if (st == PC_OK)
        st = plan_make(call, x, call->args[2].i, false, p);
    if (st == PC_OK && (*k < 0 || *k > p->n))
        st = pc_error_set(PC_ERR_INVALID, "%s: selected index k out of range", call->full_name);
    if (st == PC_OK)
        st = sorted_prefix(call, x, p, *k, call->args[3].b, values, indices);
    return st;
}

pc_status pc_k_topk_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    slice_plan p;
    int64_t k;
    pc_status st = topk_run(call, &p, &k, &out->tensors[0], &out->tensors[1]);
    plan_free(&p);
    if (st != PC_OK) {
        pc_tensor_free(&out->tensors[0]);
        pc_tensor_free(&out->tensors[1]);
        return st;
    }
    out->count = 2;
    return PC_OK;
}

pc_status pc_k_topk_backward(const pc_op_call *call, pc_compute compute, const pc_tensor *grad_out,
                             pc_op_grads *out)
{
    (void)compute;
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    slice_plan p;
    int64_t k;
    pc_tensor ix = PC_TENSOR_NULL;
    pc_status st = topk_run(call, &p, &k, NULL, &ix);
    if (st == PC_OK)
        st = scatter_grad(call, pc_call_tensor(call, 0), &p, &ix, k, grad_out, out);
    pc_tensor_free(&ix);
    plan_free(&p);
    return st;
}

/* ---- kthvalue, median ---- */

/* kthvalue (k >= 1, from the call) or median (k = 0) along a dim. */
static pc_status select_run(const pc_op_call *call, slice_plan *p, int64_t dim, bool keepdim,
                            int64_t k, const char *kernel, pc_tensor *values, pc_tensor *indices)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    const char *name = k ? "kthvalue" : "median";
    pc_status st = need_not_bool(call, x, kernel);
    if (st == PC_OK)
        st = plan_make(call, x, dim, false, p);
    if (st == PC_OK && p->n == 0)
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: %s(): Expected reduction dim %d to have non-zero size.",
                          call->full_name, name, p->dim);
    if (st == PC_OK && k && k > p->n)
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: kthvalue(): selected number k out of range for dimension %d",
                          call->full_name, p->dim);
    if (st == PC_OK)
        st = select_one(call, x, p, k, keepdim, values, indices);
    return st;
}

static pc_status kth_run(const pc_op_call *call, slice_plan *p, pc_tensor *values,
                         pc_tensor *indices)
{
    int64_t k = call->args[1].i;
    if (k < 1) {
        memset(p, 0, sizeof *p);
        p->xc = PC_TENSOR_NULL;
        const pc_tensor *x = pc_call_tensor(call, 0);
        int d;
        pc_status st = need_not_bool(call, x, "kthvalue_cpu");
        if (st == PC_OK)
            st = pc_shape_wrap_dim(call, call->args[2].i, x->rank, &d);
        if (st == PC_OK)
            st = pc_error_set(PC_ERR_INVALID,
                              "%s: kthvalue(): selected number k out of range for dimension %d",
                              call->full_name, d);
        return st;
    }
    return select_run(call, p, call->args[2].i, call->args[3].b, k, "kthvalue_cpu", values,
                      indices);
}

pc_status pc_k_kthvalue_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    slice_plan p;
    pc_status st = kth_run(call, &p, &out->tensors[0], &out->tensors[1]);
    plan_free(&p);
    if (st != PC_OK) {
        pc_tensor_free(&out->tensors[0]);
        pc_tensor_free(&out->tensors[1]);
        return st;
    }
    out->count = 2;
    return PC_OK;
}

pc_status pc_k_kthvalue_backward(const pc_op_call *call, pc_compute compute,
                                 const pc_tensor *grad_out, pc_op_grads *out)
{
    (void)compute;
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    slice_plan p;
    pc_tensor v = PC_TENSOR_NULL, ix = PC_TENSOR_NULL;
    pc_status st = kth_run(call, &p, &v, &ix);
    if (st == PC_OK)
        st = scatter_grad(call, pc_call_tensor(call, 0), &p, &ix, 1, grad_out, out);
    pc_tensor_free(&v);
    pc_tensor_free(&ix);
    plan_free(&p);
    return st;
}

/* median of the whole tensor: a 0-dim tensor; NaN (torch's int64 minimum for integers) when
 * the tensor is empty. */
static pc_status median_all(const pc_op_call *call, pc_tensor *value)
{
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st = need_not_bool(call, x, "median_cpu");
    if (st != PC_OK)
        return st;
    if (pc_tensor_numel(x) == 0) {
        st = pc_tensor_alloc(value, x->dtype, NULL, 0);
        if (st == PC_OK && pc_dtype_is_float(x->dtype))
            pc_element_store(pc_tensor_data(value), x->dtype, (double)NAN, 0);
        else if (st == PC_OK)
            pc_element_store_i64(pc_tensor_data(value), x->dtype, INT64_MIN);
        return st;
    }
    slice_plan p;
    st = plan_make(call, x, 0, true, &p);
    if (st == PC_OK)
        st = select_one(call, x, &p, 0, false, value, NULL);
    plan_free(&p);
    return st;
}

pc_status pc_k_median_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    (void)compute;
    pc_status st;
    if (call->args[1].kind == PC_VALUE_NONE) {
        st = median_all(call, &out->tensors[0]);
        if (st == PC_OK)
            out->count = 1;
        return st;
    }
    slice_plan p;
    st = select_run(call, &p, call->args[1].i, call->args[2].b, 0, "median_out", &out->tensors[0],
                    &out->tensors[1]);
    plan_free(&p);
    if (st != PC_OK) {
        pc_tensor_free(&out->tensors[0]);
        pc_tensor_free(&out->tensors[1]);
        return st;
    }
    out->count = 2;
    return PC_OK;
}

/* dy / count in the compute type, rounded to d (torch: grad / mask.sum() in the grad's dtype). */
static double share_of(pc_compute compute, pc_dtype d, double dy, int64_t count)
{
    if (compute == PC_COMPUTE_BENCH || d == PC_DTYPE_F64)
        return pc_round_to_dtype(dy / (double)count, d);
    return pc_round_to_dtype((double)((float)dy / (float)count), d);
}

pc_status pc_k_median_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    if (!pc_shape_wants_grad(call, 0))
        return PC_OK;
    const pc_tensor *x = pc_call_tensor(call, 0);
    pc_status st;
    if (call->args[1].kind != PC_VALUE_NONE) {
        slice_plan p;
        pc_tensor v = PC_TENSOR_NULL, ix = PC_TENSOR_NULL;
        st = select_run(call, &p, call->args[1].i, call->args[2].b, 0, "median_out", &v, &ix);
        if (st == PC_OK)
            st = scatter_grad(call, x, &p, &ix, 1, grad_out, out);
        pc_tensor_free(&v);
        pc_tensor_free(&ix);
        plan_free(&p);
        return st;
    }
    /* evenly distributed among the elements equal to the median (the NaNs when it is NaN) */
    if (pc_tensor_numel(grad_out) != 1)
        return pc_error_set(PC_ERR_INVALID, "%s: the gradient has %lld elements, the output 1",
                            call->full_name, (long long)pc_tensor_numel(grad_out));
    pc_tensor m = PC_TENSOR_NULL, xv = PC_TENSOR_NULL, gx = PC_TENSOR_NULL;
    st = median_all(call, &m);
    if (st == PC_OK)
        st = pc_tensor_cast(&xv, x, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_alloc(&gx, x->dtype, x->shape, x->rank);
    if (st == PC_OK) {
        double mv, im, dy;
        pc_element_load(pc_tensor_data(&m), m.dtype, &mv, &im);
        int64_t zero[PC_TENSOR_MAX_DIMS] = {0};
        dy = pc_tensor_get(grad_out, zero);
        const double *xs = pc_tensor_data(&xv);
        int64_t n = pc_tensor_numel(x), count = 0;
        for (int64_t i = 0; i < n; i++)
            count += isnan(mv) ? isnan(xs[i]) : xs[i] == mv;
        double share =
            count ? share_of(compute, x->dtype, pc_round_to_dtype(dy, x->dtype), count) : 0.0;
        char *gd = pc_tensor_data(&gx);
        size_t es = pc_dtype_size(x->dtype);
        for (int64_t i = 0; i < n; i++)
            if (isnan(mv) ? isnan(xs[i]) : xs[i] == mv)
                pc_element_store(gd + (size_t)i * es, x->dtype, share, 0);
        out->grads[0] = gx;
        gx = PC_TENSOR_NULL;
    }
    pc_tensor_free(&m);
    pc_tensor_free(&xv);
    pc_tensor_free(&gx);
    return st;
}
