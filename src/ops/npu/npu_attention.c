/*
 * npu_fusion_attention as msprobe's CPU bench computes it (docs/msprobe-contract.md#replay): q, k,
 * v in one of the layouts BSH, SBH, BSND, BNSD (TND refused), GQA (query head n uses kv head n /
 * (N1 / N2)), x = (q k^T + pse) * scale with scale 1/sqrt(D) unless given, masked positions +
 * -40000, softmax by max, exp, sum and division, O = P v; outputs (O in the layout, softmax_max and
 * softmax_sum [B, N1, S1, 8]). keep_prob is ignored (forced to 1), padding_mask, prefix and
 * actual_seq_* too.
 *
 * Memory: unlike the bench (several float64 [B, N1, S1, S2] tensors), the work goes a block
 * of query rows of one (batch, head) at a time; the only S2-sized scratch is the block's
 * scores (and their gradient and a row scratch), about FA_BLOCK elements each, so LLaMA-7B's
 * B=1, N=32, S=2048 needs the inputs, the outputs and a few MiB. A block's row loops run in
 * parallel (OpenMP), its products through BLAS. The mask is never materialised: the
 * sparse modes' masks are computed per position, a given mask is read through broadcast
 * strides. The backward recomputes the block's probabilities.
 *
 * The device computes float16/bfloat16/float32 in float32 (GEMMs through BLAS, like the
 * rest), float64 in double; the output is rounded once to the query's dtype; softmax_max
 * and softmax_sum are float32 (the NPU op's) on the device, float64 on the bench.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ops/blas.h"
#include "ops/kernel.h"
#include "ops/npu/npu_impl.h"

/* argument indices of the schema */
enum {
    A_Q,
    A_K,
    A_V,
    A_HEADS,
    A_LAYOUT,
    A_PSE,
    A_PADDING,
    A_MASK,
    A_SCALE,
    A_KEEP,
    A_PRE,
    A_NEXT,
    A_INNER,
    A_PREFIX,
    A_QLEN,
    A_KVLEN,
    A_SPARSE
};

typedef enum fa_layout { FA_BSH, FA_SBH, FA_BSND, FA_BNSD } fa_layout;
typedef enum fa_mask_kind {
    FA_MASK_NONE, /* nothing masked */
    FA_MASK_BAND, /* j - i > next or i - j > pre (sparse modes 0 and 4) */
    FA_MASK_TRIU, /* j - i >= triu_k (modes 2 and 3) */
    FA_MASK_TENSOR,
} fa_mask_kind;

typedef struct fa_plan {
    fa_layout layout;
    int64_t B, S1, S2, N1, N2, D;
    double scale;
    /* (batch, head, row) strides of the contiguous q (and O, dO, dq), k (dk), v (dv) buffers;
     * the last dimension is contiguous */
    int64_t qs[3], ks[3], vs[3];
    int64_t ps[4]; /* pse's (b, n, i, j) broadcast strides */
    fa_mask_kind mask;
    int64_t pre, next, triu_k;
    const uint8_t *mdata; /* FA_MASK_TENSOR: the mask as bool, with (b, n, i, j) strides */
    int64_t ms[4];
    pc_dtype od, cd;
    int64_t rows; /* query rows per block */
    int threads;  /* threads working on heads at once (fa_threads), 1: one head at a time */
    bool naive;   /* S1 S2 D < 400: the products as torch's bmm does small ones */
} fa_plan;

/* Scores per block: 8 MB in double, so that a block's products are GEMMs of several hundred rows
 * more at LLaMA sizes (S2 = 2048: 128 rows) and its row loops are worth threads. */
#define FA_BLOCK (32 * PC_KERNEL_BLOCK)
/* Rows loops of a block run in parallel above this many scores (each row is independent, so
 * the results do not depend on the thread count). */
#define FA_PARALLEL 65536

/* Above this many scores per call, heads are worked on in parallel (one thread a head, each
 * with its own block scratch and single-threaded BLAS calls); below it one head at a time with
 * threaded BLAS and row loops. Either way each head's arithmetic is the same. */
#define FA_HEADS_PARALLEL ((int64_t)1 << 22)

#define PC_TWIN_TEMPLATE "ops/npu/npu_attention_kernel.inc"
#include "ops/kernel_twins.h"

/* (batch, head, row) strides of a contiguous tensor of the layout with N heads of D. */
static void layout_strides(fa_layout l, int64_t B, int64_t S, int64_t N, int64_t D, int64_t *st)
{
    switch (l) {
    case FA_BSH:
    case FA_BSND:
        st[0] = S * N * D, st[1] = D, st[2] = N * D;
        break;
    case FA_SBH:
        st[0] = N * D, st[1] = D, st[2] = B * N * D;
        break;
    default:
        st[0] = N * S * D, st[1] = S * D, st[2] = D;
        break;
    }
}

/* Strides reading t (contiguous, rank <= 4) broadcast to [B, N1, S1, S2], right-aligned. */
static pc_status bcast_strides(const pc_op_call *call, const char *what, const pc_tensor *t,
                               const int64_t *target, int64_t *st)
{
    if (t->rank > 4)
        return pc_error_set(PC_ERR_INVALID, "%s: %s of rank %d, expected at most 4",
                            call->full_name, what, t->rank);
    int64_t cs[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(t->shape, t->rank, cs);
    for (int d = 0; d < 4; d++) {
        int sd = t->rank - 4 + d;
        if (sd < 0 || (t->shape[sd] == 1 && target[d] != 1)) {
            st[d] = 0;
        } else if (t->shape[sd] == target[d]) {
            st[d] = cs[sd];
        } else {
            return pc_error_set(PC_ERR_INVALID,
                                "%s: The size of tensor a (%" PRId64
                                ") must match the size of tensor b (%" PRId64
                                ") at non-singleton dimension %d",
                                call->full_name, target[d], t->shape[sd], d);
        }
    }
    return PC_OK;
}

/* Whether the mask is the 2048 x 2048 "compressed" mask triu(ones, 1). */
static bool compressed_mask(const pc_tensor *m)
{
    if (m->rank != 2 || m->shape[0] != 2048 || m->shape[1] != 2048)
        return false;
    const uint8_t *v = pc_tensor_data(m);
    for (int64_t i = 0; i < 2048; i++)
        for (int64_t j = 0; j < 2048; j++)
            if ((v[i * 2048 + j] != 0) != (j > i))
                return false;
    return true;
}

static pc_status fa_parse(const pc_op_call *call, pc_compute compute, fa_plan *p)
{
    memset(p, 0, sizeof *p);
    const pc_tensor *q = pc_call_tensor(call, A_Q), *k = pc_call_tensor(call, A_K),
                    *v = pc_call_tensor(call, A_V);
    const char *lay = call->args[A_LAYOUT].s;
    int64_t n1 = call->args[A_HEADS].i;
    pc_status st = pc_kernel_need_float(call, q, "npu_fusion_attention");
    if (st == PC_OK)
        st = pc_kernel_same_dtype(call, q, k);
    if (st == PC_OK)
        st = pc_kernel_same_dtype(call, q, v);
    if (st != PC_OK)
        return st;
    if (strcmp(lay, "TND") == 0)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: input_layout TND does not supported for now.",
                            call->full_name);
    int rank = strcmp(lay, "BSH") == 0 || strcmp(lay, "SBH") == 0 ? 3 : 4;
    if (strcmp(lay, "BSH") == 0)
        p->layout = FA_BSH;
    else if (strcmp(lay, "SBH") == 0)
        p->layout = FA_SBH;
    else if (strcmp(lay, "BSND") == 0)
        p->layout = FA_BSND;
    else if (strcmp(lay, "BNSD") == 0)
        p->layout = FA_BNSD;
    else
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Invalid input_layout arg which must be one of ['BSH', 'SBH', "
                            "'BSND', 'BNSD', 'TND'].",
                            call->full_name);
    if (q->rank != rank || k->rank != rank || !pc_tensor_same_shape(k, v))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: query, key and value must be %d-dimensional (%s) with key and "
                            "value of the same shape",
                            call->full_name, rank, lay);
    int64_t h1, h2;
    switch (p->layout) {
    case FA_BSH:
    case FA_SBH: {
        int bi = p->layout == FA_BSH ? 0 : 1;
        p->B = q->shape[bi];
        p->S1 = q->shape[1 - bi];
        p->S2 = k->shape[1 - bi];
        h1 = q->shape[2];
        h2 = k->shape[2];
        if (n1 <= 0)
            return pc_error_set(PC_ERR_INVALID, "%s: head_num must be positive, got %" PRId64,
                                call->full_name, n1);
        p->N1 = n1;
        p->D = h1 / n1;
        if (p->D == 0)
            return pc_error_set(PC_ERR_INVALID, "%s: Value d must be non-zero.", call->full_name);
        p->N2 = h2 / p->D;
        if (h1 % n1 != 0 || h2 % p->D != 0 || k->shape[bi] != p->B)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: query.shape and key.shape do not split into heads of %" PRId64
                                " (head_num %" PRId64 ")",
                                call->full_name, p->D, n1);
        break;
    }
    case FA_BSND:
        p->B = q->shape[0], p->S1 = q->shape[1], p->N1 = q->shape[2], p->D = q->shape[3];
        p->S2 = k->shape[1], p->N2 = k->shape[2];
        break;
    default:
        p->B = q->shape[0], p->N1 = q->shape[1], p->S1 = q->shape[2], p->D = q->shape[3];
        p->N2 = k->shape[1], p->S2 = k->shape[2];
        break;
    }
    if (p->layout == FA_BSND || p->layout == FA_BNSD) {
        if (p->D == 0)
            return pc_error_set(PC_ERR_INVALID, "%s: Value d must be non-zero.", call->full_name);
        if (k->shape[0] != p->B || k->shape[3] != p->D)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: key must have query's batch and head size (%s)",
                                call->full_name, lay);
    }
    if (p->N2 <= 0 || p->N1 % p->N2 != 0 || p->N1 < p->N2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: N1与N2不匹配,请检查: n1 = %" PRId64 ", n2 = %" PRId64 ".",
                            call->full_name, p->N1, p->N2);
    const pc_value *sv = &call->args[A_SCALE];
    p->scale = sv->kind == PC_VALUE_NONE ? 1.0 / sqrt((double)p->D) : sv->f;
    layout_strides(p->layout, p->B, p->S1, p->N1, p->D, p->qs);
    layout_strides(p->layout, p->B, p->S2, p->N2, p->D, p->ks);
    memcpy(p->vs, p->ks, sizeof p->vs);
    p->pre = call->args[A_PRE].i;
    p->next = call->args[A_NEXT].i;
    p->od = q->dtype;
    p->cd = pc_kernel_compute_dtype(compute, q->dtype);
    p->rows = p->S2 > 0 && p->S2 < FA_BLOCK ? FA_BLOCK / p->S2 : 1;
    p->naive = p->S1 * p->S2 * p->D < 400;
    if (p->rows > p->S1)
        p->rows = p->S1 > 0 ? p->S1 : 1;
    return PC_OK;
}

/* The mask (generate_atten_mask): *mbuf holds a given mask as bool. */
static pc_status fa_mask(const pc_op_call *call, fa_plan *p, pc_tensor *mbuf)
{
    const pc_tensor *m = pc_call_tensor(call, A_MASK);
    int64_t mode = call->args[A_SPARSE].i;
    bool sparse = mode == 2 || mode == 3 || mode == 4;
    if (m) {
        pc_status st = pc_tensor_cast(mbuf, m, PC_DTYPE_BOOL);
        if (st != PC_OK)
            return pc_error_prefix(st, "%s", call->full_name);
        if (!(sparse && compressed_mask(mbuf))) {
            int64_t target[4] = {p->B, p->N1, p->S1, p->S2};
            p->mask = FA_MASK_TENSOR;
            p->mdata = pc_tensor_data(mbuf);
            return bcast_strides(call, "atten_mask", mbuf, target, p->ms);
        }
    } else if (!(mode >= 0 && mode <= 4)) {
        return pc_error_set(PC_ERR_INVALID, "%s: 'NoneType' object has no attribute 'to'",
                            call->full_name);
    }
    switch (mode) {
    case 0:
    case 4:
        p->mask = FA_MASK_BAND;
        break;
    case 1:
        p->mask = FA_MASK_NONE;
        break;
    case 2:
        p->mask = FA_MASK_TRIU;
        p->triu_k = 1;
        break;
    default:
        p->mask = FA_MASK_TRIU;
        p->triu_k = p->S2 - p->S1 + 1;
        break;
    }
    return PC_OK;
}

static int fa_threads(const fa_plan *p)
{
#ifdef _OPENMP
    int64_t heads = p->B * p->N2; /* the backward's unit: a kv head and its query heads */
    if (p->B * p->N1 * p->S1 * p->S2 <= FA_HEADS_PARALLEL || heads < 2)
        return 1;
    int nt = omp_get_max_threads();
    return nt > heads ? (int)heads : nt > 1 ? nt : 1;
#else
    (void)p;
    return 1;
#endif
}

static int fa_thread_num(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* OpenBLAS on one thread while heads run in parallel (blas.h: each call then runs in its
 * caller's thread); returns what to restore. */
static int fa_blas_single(const fa_plan *p)
{
    return p->threads > 1 ? pc_blas_single_begin() : 1;
}

static void fa_blas_restore(const fa_plan *p, int saved)
{
    if (p->threads > 1)
        pc_blas_single_end(saved);
}

typedef struct fa_bufs {
    pc_tensor q, k, v, pse, mask;
    pc_tensor S, dP, mx, sm, am, tmp;
} fa_bufs;

static void fa_bufs_free(fa_bufs *b)
{
    pc_tensor *all[] = {&b->q,  &b->k,  &b->v,  &b->pse, &b->mask, &b->S,
                        &b->dP, &b->mx, &b->sm, &b->am,  &b->tmp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        pc_tensor_free(all[i]);
}

static void fa_bufs_init(fa_bufs *b)
{
    pc_tensor *all[] = {&b->q,  &b->k,  &b->v,  &b->pse, &b->mask, &b->S,
                        &b->dP, &b->mx, &b->sm, &b->am,  &b->tmp};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        *all[i] = PC_TENSOR_NULL;
}

static pc_status fa_prepare(const pc_op_call *call, pc_compute compute, fa_plan *p, fa_bufs *b,
                            bool backward)
{
    fa_bufs_init(b);
    pc_status st = fa_parse(call, compute, p);
    if (st == PC_OK)
        st = fa_mask(call, p, &b->mask);
    if (st != PC_OK)
        return st;
    const pc_tensor *pse = pc_call_tensor(call, A_PSE);
    if (pse && pse->rank > 0) {
        int64_t target[4] = {p->B, p->N1, p->S1, p->S2};
        if ((st = pc_kernel_load_ro(call, pse, p->cd, &b->pse)) != PC_OK ||
            (st = bcast_strides(call, "pse", &b->pse, target, p->ps)) != PC_OK)
            return st;
    }
    /* one set of block scratch per thread that works on heads (fa_threads) */
    p->threads = fa_threads(p);
    int64_t blk[2] = {p->threads * p->rows, p->S2 > 0 ? p->S2 : 1}, r1[1] = {p->threads * p->rows};
    /* read only: the inputs themselves when they already are contiguous in the compute dtype */
    if ((st = pc_kernel_load_ro(call, pc_call_tensor(call, A_Q), p->cd, &b->q)) != PC_OK ||
        (st = pc_kernel_load_ro(call, pc_call_tensor(call, A_K), p->cd, &b->k)) != PC_OK ||
        (st = pc_kernel_load_ro(call, pc_call_tensor(call, A_V), p->cd, &b->v)) != PC_OK ||
        (st = pc_tensor_alloc(&b->S, p->cd, blk, 2)) != PC_OK ||
        (backward && (st = pc_tensor_alloc(&b->dP, p->cd, blk, 2)) != PC_OK) ||
        (backward && (st = pc_tensor_alloc(&b->tmp, p->cd, blk, 2)) != PC_OK) ||
        (st = pc_tensor_alloc(&b->mx, p->cd, r1, 1)) != PC_OK ||
        (st = pc_tensor_alloc(&b->sm, p->cd, r1, 1)) != PC_OK ||
        (st = pc_tensor_alloc(&b->am, PC_DTYPE_I64, r1, 1)) != PC_OK)
        return st == PC_ERR_NOMEM ? pc_kernel_nomem(call) : st;
    return PC_OK;
}

static const void *data_or_null(const pc_tensor *t)
{
    return pc_tensor_is_null(t) ? NULL : pc_tensor_data(t);
}

pc_status pc_k_npu_fusion_attention_forward(const pc_op_call *call, pc_compute compute,
                                            pc_op_result *out)
{
    fa_plan p;
    fa_bufs b;
    pc_status st = fa_prepare(call, compute, &p, &b, false);
    const pc_tensor *q = pc_call_tensor(call, A_Q);
    int64_t sshape[4] = {p.B, p.N1, p.S1, 8};
    pc_tensor o = PC_TENSOR_NULL, om = PC_TENSOR_NULL, os = PC_TENSOR_NULL;
    if (st == PC_OK && ((st = pc_tensor_alloc(&o, p.cd, q->shape, q->rank)) != PC_OK ||
                        (st = pc_tensor_alloc(&om, p.cd, sshape, 4)) != PC_OK ||
                        (st = pc_tensor_alloc(&os, p.cd, sshape, 4)) != PC_OK))
        st = pc_kernel_nomem(call);
    if (st == PC_OK) {
        int saved = fa_blas_single(&p);
        size_t es = pc_dtype_size(p.cd);
#pragma omp parallel for schedule(dynamic) num_threads(p.threads) if (p.threads > 1)
        for (int64_t w = 0; w < p.B * p.N1; w++) {
            int64_t bi = w / p.N1, n = w % p.N1, t = fa_thread_num();
            char *S = (char *)pc_tensor_data(&b.S) + (size_t)(t * p.rows * p.S2) * es;
            char *mx = (char *)pc_tensor_data(&b.mx) + (size_t)(t * p.rows) * es;
            char *sm = (char *)pc_tensor_data(&b.sm) + (size_t)(t * p.rows) * es;
            int64_t *am = (int64_t *)pc_tensor_data(&b.am) + t * p.rows;
            for (int64_t i0 = 0; i0 < p.S1; i0 += p.rows) {
                int64_t R = p.S1 - i0 < p.rows ? p.S1 - i0 : p.rows;
                if (p.cd == PC_DTYPE_F64)
                    fa_forward_block_d(
                        &p, pc_tensor_data(&b.q), pc_tensor_data(&b.k), pc_tensor_data(&b.v),
                        data_or_null(&b.pse), bi, n, i0, R, (double *)S, (double *)mx, am,
                        (double *)sm, pc_tensor_data(&o), pc_tensor_data(&om), pc_tensor_data(&os));
                else
                    fa_forward_block_f(&p, pc_tensor_data(&b.q), pc_tensor_data(&b.k),
                                       pc_tensor_data(&b.v), data_or_null(&b.pse), bi, n, i0, R,
                                       (float *)S, (float *)mx, am, (float *)sm, pc_tensor_data(&o),
                                       pc_tensor_data(&om), pc_tensor_data(&os));
            }
        }
        fa_blas_restore(&p, saved);
        st = pc_kernel_store(call, &o, p.od, q->shape, q->rank, &out->tensors[0]);
        if (st == PC_OK) {
            out->tensors[1] = om;
            out->tensors[2] = os;
            om = os = PC_TENSOR_NULL;
            out->count = 3;
        }
    }
    pc_tensor_free(&o);
    pc_tensor_free(&om);
    pc_tensor_free(&os);
    fa_bufs_free(&b);
    return st;
}

pc_status pc_k_npu_fusion_attention_backward(const pc_op_call *call, pc_compute compute,
                                             const pc_tensor *grad_out, pc_op_grads *out)
{
    fa_plan p;
    fa_bufs b;
    pc_status st = fa_prepare(call, compute, &p, &b, true);
    bool want[3];
    const pc_tensor *in[3];
    for (int i = 0; i < 3; i++) {
        want[i] = pc_kernel_wants_grad(call, i);
        in[i] = pc_call_tensor(call, i);
    }
    pc_tensor g = PC_TENSOR_NULL, d[3] = {PC_TENSOR_NULL, PC_TENSOR_NULL, PC_TENSOR_NULL};
    if (st == PC_OK && !want[0] && !want[1] && !want[2]) {
        fa_bufs_free(&b);
        return PC_OK;
    }
    if (st == PC_OK && !pc_tensor_same_shape(grad_out, in[0]))
        st = pc_error_set(PC_ERR_INVALID,
                          "%s: the gradient of attention_out must have query's "
                          "shape",
                          call->full_name);
    if (st == PC_OK)
        st = pc_kernel_load_ro(call, grad_out, p.cd, &g);
    for (int i = 0; i < 3 && st == PC_OK; i++)
        if (pc_tensor_alloc(&d[i], p.cd, in[i]->shape, in[i]->rank) != PC_OK)
            st = pc_kernel_nomem(call);
    if (st == PC_OK) {
        int64_t grp = p.N1 / p.N2;
        int saved = fa_blas_single(&p);
        size_t es = pc_dtype_size(p.cd);
        /* a unit of work is a kv head with its grp query heads, in order: its dk and dv sums
         * are its own */
#pragma omp parallel for schedule(dynamic) num_threads(p.threads) if (p.threads > 1)
        for (int64_t w = 0; w < p.B * p.N2; w++) {
            int64_t bi = w / p.N2, t = fa_thread_num();
            size_t blk = (size_t)(t * p.rows * p.S2) * es, row = (size_t)(t * p.rows) * es;
            char *S = (char *)pc_tensor_data(&b.S) + blk, *dP = (char *)pc_tensor_data(&b.dP) + blk;
            char *tmp = (char *)pc_tensor_data(&b.tmp) + blk;
            char *mx = (char *)pc_tensor_data(&b.mx) + row,
                 *sm = (char *)pc_tensor_data(&b.sm) + row;
            int64_t *am = (int64_t *)pc_tensor_data(&b.am) + t * p.rows;
            for (int64_t n = (w % p.N2) * grp; n < (w % p.N2 + 1) * grp; n++)
                for (int64_t i0 = 0; i0 < p.S1; i0 += p.rows) {
                    int64_t R = p.S1 - i0 < p.rows ? p.S1 - i0 : p.rows;
                    bool first = n % grp == 0 && i0 == 0;
                    if (p.cd == PC_DTYPE_F64)
                        fa_backward_block_d(
                            &p, pc_tensor_data(&b.q), pc_tensor_data(&b.k), pc_tensor_data(&b.v),
                            data_or_null(&b.pse), pc_tensor_data(&g), bi, n, i0, R, (double *)S,
                            (double *)dP, (double *)mx, am, (double *)sm, (double *)tmp,
                            pc_tensor_data(&d[0]), pc_tensor_data(&d[1]), pc_tensor_data(&d[2]),
                            first ? 0.0 : 1.0);
                    else
                        fa_backward_block_f(&p, pc_tensor_data(&b.q), pc_tensor_data(&b.k),
                                            pc_tensor_data(&b.v), data_or_null(&b.pse),
                                            pc_tensor_data(&g), bi, n, i0, R, (float *)S,
                                            (float *)dP, (float *)mx, am, (float *)sm, (float *)tmp,
                                            pc_tensor_data(&d[0]), pc_tensor_data(&d[1]),
                                            pc_tensor_data(&d[2]), first ? 0.0f : 1.0f);
                }
        }
        fa_blas_restore(&p, saved);
        /* S1 = 0: no block ran; the sums of dk and dv are zeros (alloc zeroes) */
        for (int i = 0; i < 3 && st == PC_OK; i++)
            if (want[i])
                st = pc_kernel_store(call, &d[i], in[i]->dtype, in[i]->shape, in[i]->rank,
                                     &out->grads[i]);
    }
    for (int i = 0; i < 3; i++)
        pc_tensor_free(&d[i]);
    pc_tensor_free(&g);
    fa_bufs_free(&b);
    return st;
}
