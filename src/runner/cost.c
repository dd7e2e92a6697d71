/* The cost model of an API and the cost-balanced shards of a dump (precheck/runner/cost.h). */
#include "precheck/runner/cost.h"

#include <stdlib.h>
#include <string.h>

#include "precheck/core/dtype.h"

/* picoseconds per unit of work (cost.h: sgemm 50 GFLOP/s, dgemm 25 GFLOP/s, 10 GB/s) */
enum {
    PS_PER_FLOP32 = 20,
    PS_PER_FLOP64 = 40,
    PS_PER_BYTE_PASS = 100,
    /* passes over an API's bytes: generated, computed, compared, on the device and on the
     * bench at twice the width (1 + 2) */
    BYTE_PASSES = 9,
    PS_PER_API = 50000000, /* 50 us: binding, the call, the rows */
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t numel(const pc_dump_tensor *t)
{
    uint64_t n = 1;
    for (int64_t d = 0; d < t->rank; d++)
        n = sat_mul(n, t->shape[d] > 0 ? (uint64_t)t->shape[d] : 0);
    return n;
}

static uint64_t tensor_bytes(const pc_dump_tensor *t)
{
    return sat_mul(numel(t), t->dtype != PC_DTYPE_INVALID ? pc_dtype_size(t->dtype) : 4);
}

uint64_t pc_dump_arg_bytes(const pc_dump_arg *a)
{
    uint64_t sum = 0;
    if (a->kind == PC_DUMP_ARG_TENSOR) {
        sum = tensor_bytes(a->u.tensor);
    } else if (a->kind == PC_DUMP_ARG_LIST) {
        for (size_t i = 0; i < a->u.list.count; i++)
            sum = sat_add(sum, pc_dump_arg_bytes(&a->u.list.items[i]));
    } else if (a->kind == PC_DUMP_ARG_OBJECT) {
        for (size_t i = 0; i < a->u.object.count; i++)
            sum = sat_add(sum, pc_dump_arg_bytes(&a->u.object.fields[i].value));
    }
    return sum;
}

/* The tensor arguments of a record in order: positional (lists flattened one level), then the
 * keyword arguments. */
typedef struct tensors {
    const pc_dump_tensor *t[8];
    int n;
} tensors;

static void collect(tensors *ts, const pc_dump_arg *a, int depth)
{
    if (ts->n == 8)
        return;
    if (a->kind == PC_DUMP_ARG_TENSOR)
        ts->t[ts->n++] = a->u.tensor;
    else if (a->kind == PC_DUMP_ARG_LIST && depth == 0)
        for (size_t i = 0; i < a->u.list.count; i++)
            collect(ts, &a->u.list.items[i], 1);
}

static tensors inputs_of(const pc_dump_entry *e)
{
    tensors ts = {.n = 0};
    if (e->input_args.kind == PC_DUMP_ARG_LIST)
        for (size_t i = 0; i < e->input_args.u.list.count; i++)
            collect(&ts, &e->input_args.u.list.items[i], 1);
    for (size_t i = 0; i < e->kwarg_count; i++)
        collect(&ts, &e->kwargs[i].value, 1);
    return ts;
}

static const pc_dump_tensor *first_output(const pc_dump_arg *a)
{
    if (a->kind == PC_DUMP_ARG_TENSOR)
        return a->u.tensor;
    if (a->kind == PC_DUMP_ARG_LIST)
        for (size_t i = 0; i < a->u.list.count; i++) {
            const pc_dump_tensor *t = first_output(&a->u.list.items[i]);
            if (t)
                return t;
        }
    return NULL;
}

static bool name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return true;
    return false;
}

static uint64_t last_dim(const pc_dump_tensor *t)
{
    return t && t->rank > 0 && t->shape[t->rank - 1] > 0 ? (uint64_t)t->shape[t->rank - 1] : 0;
}

/* The multiply-adds x 2 of the GEMM-like APIs (0 for the others). */
static uint64_t gemm_flops(const pc_dump_api *api)
{
    static const char *const products[] = {
        "linear", "matmul", "mm",         "bmm",      "__matmul__", "__rmatmul__", "mv",
        "dot",    "inner",  "outer",      "ger",      "addmm",      "addmm_",      "baddbmm",
        "addbmm", "addmv",  "addr",       "bilinear", "tensordot",  "einsum",      "chain_matmul",
        "vdot",   "cdist",  "npu_linear", NULL};
    static const char *const convs[] = {"conv1d",           "conv2d",           "conv3d",
                                        "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                                        "npu_conv2d",       "npu_convolution",  NULL};
    static const char *const attention[] = {"scaled_dot_product_attention", "npu_fusion_attention",
                                            "npu_prompt_flash_attention",
                                            "npu_incre_flash_attention", NULL};
    const char *name = api->api_name;
    if (!name)
        return 0;
    const pc_dump_tensor *out = first_output(&api->forward.output);
    tensors in = inputs_of(&api->forward);
    if (!out || in.n == 0)
        return 0;
    uint64_t outs = numel(out);
    if (name_in(name, products)) {
        /* the contracted length: the last dimension of the first matrix operand (of the
         * second tensor for the add* forms, whose first is the addend) */
        bool addend = strncmp(name, "add", 3) == 0 || strcmp(name, "baddbmm") == 0;
        const pc_dump_tensor *a = in.t[addend && in.n > 1 ? 1 : 0];
        uint64_t k = last_dim(a);
        if (strcmp(name, "outer") == 0 || strcmp(name, "ger") == 0 || strcmp(name, "addr") == 0)
            k = 1;
        return sat_mul(sat_mul(2, outs), k ? k : 1);
    }
    if (name_in(name, convs) && in.n > 1 && in.t[1]->rank > 1 && in.t[1]->shape[0] > 0) {
        /* each output element sums weight.numel / out_channels products (the transposed forms:
         * about as many) */
        uint64_t per = numel(in.t[1]) / (uint64_t)in.t[1]->shape[0];
        return sat_mul(sat_mul(2, outs), per ? per : 1);
    }
    if (name_in(name, attention) && in.n > 1) {
        /* two products, each query row against every key: the key length is the largest
         * dimension of the key but its last (the head width) */
        const pc_dump_tensor *k = in.t[1];
        uint64_t len = 1;
        for (int64_t d = 0; d + 1 < k->rank; d++)
            if (k->shape[d] > 0 && (uint64_t)k->shape[d] > len)
                len = (uint64_t)k->shape[d];
        return sat_mul(sat_mul(4, numel(in.t[0])), len);
    }
    return 0;
}

pc_api_cost pc_api_cost_of(const pc_dump_api *api)
{
    const pc_dump_entry *e = &api->forward;
    uint64_t bytes = sat_add(pc_dump_arg_bytes(&e->input_args), pc_dump_arg_bytes(&e->output));
    for (size_t i = 0; i < e->kwarg_count; i++)
        bytes = sat_add(bytes, pc_dump_arg_bytes(&e->kwargs[i].value));
    uint64_t flops = gemm_flops(api);
    if (api->backward) {
        flops = sat_mul(flops, 3); /* the forward and a gradient of each operand */
        bytes = sat_mul(bytes, 2); /* the gradients: as many bytes again */
    }
    uint64_t ps = sat_add(sat_mul(flops, PS_PER_FLOP32 + PS_PER_FLOP64),
                          sat_mul(bytes, (uint64_t)PS_PER_BYTE_PASS * BYTE_PASSES));
    return (pc_api_cost){flops, bytes, sat_add(ps, PS_PER_API)};
}

/* ---- heaviest first ---- */

typedef struct item {
    uint64_t ps;
    size_t index;
} item;

static int heavier_first(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->ps != b->ps)
        return a->ps > b->ps ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

pc_status pc_api_order_by_cost(const pc_dump *dump, const size_t *apis, size_t count, size_t *order,
                               uint64_t *ps)
{
    item *items = malloc((count + 1) * sizeof *items);
    if (!items)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < count; k++)
        items[k] = (item){pc_api_cost_of(&dump->apis[apis ? apis[k] : k]).ps, k};
    qsort(items, count, sizeof *items, heavier_first);
    for (size_t k = 0; k < count; k++) {
        order[k] = items[k].index;
        if (ps)
            ps[items[k].index] = items[k].ps;
    }
    free(items);
    return PC_OK;
}

/* ---- shards ---- */

/* a min-heap of shards by (load, shard) */
static bool lighter(const uint64_t *load, uint32_t a, uint32_t b)
{
    return load[a] != load[b] ? load[a] < load[b] : a < b;
}

static void sift_down(uint32_t *heap, uint32_t n, const uint64_t *load, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && lighter(load, heap[l], heap[m]))
            m = l;
        if (r < n && lighter(load, heap[r], heap[m]))
            m = r;
        if (m == i)
            return;
        uint32_t t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

pc_status pc_shard_assign(const pc_dump *dump, const bool *candidate, uint32_t nshards,
                          uint32_t *shard_of, uint64_t *load_out)
{
    if (nshards == 0)
        return pc_error_set(PC_ERR_INVALID, "no shards to split the APIs into");
    size_t n = 0, cap = dump->api_count + 1;
    size_t *apis = malloc(cap * sizeof *apis), *order = malloc(cap * sizeof *order);
    uint64_t *ps = malloc(cap * sizeof *ps), *load = calloc(nshards, sizeof *load);
    uint32_t *heap = malloc(nshards * sizeof *heap);
    pc_status st =
        apis && order && ps && load && heap ? PC_OK : pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; st == PC_OK && i < dump->api_count; i++) {
        shard_of[i] = UINT32_MAX;
        if (!candidate || candidate[i])
            apis[n++] = i;
    }
    if (st == PC_OK)
        st = pc_api_order_by_cost(dump, apis, n, order, ps);
    for (uint32_t s = 0; st == PC_OK && s < nshards; s++)
        heap[s] = s; /* all loads 0: already a heap in shard order */
    for (size_t k = 0; st == PC_OK && k < n; k++) {
        uint32_t s = heap[0];
        shard_of[apis[order[k]]] = s;
        load[s] = sat_add(load[s], ps[order[k]]);
        sift_down(heap, nshards, load, 0);
    }
    if (st == PC_OK && load_out)
        memcpy(load_out, load, nshards * sizeof *load);
    free(apis);
    free(order);
    free(ps);
    free(load);
    free(heap);
    return st;
}
