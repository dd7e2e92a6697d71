/*
 * conv2d, forward and backward, as im2col + GEMM (OpenBLAS; sgemm on the device, dgemm on
 * the bench), the way torch's slow_conv2d computes float64: per image and group, the columns
 * [Cin/g kH kW, Ho Wo] of the padded, strided, dilated input, then
 * out = W [Cout/g, Cin/g kH kW] x columns, then the bias added. Backward: dX = col2im(W^T dY),
 * dW = sum over images of dY columns^T, db = the sum of dY over images and positions.
 * The device's float32 follows torch's float32 CPU convolution (oneDNN) instead: the columns'
 * rows ordered (kH, kW, Cin) and the gradients' sums in oneDNN's order (see conv_dx_onednn;
 * with a stride oneDNN's backward-data kernel sums otherwise, and col2im is as close). Those
 * float32 products run through pc_conv_gemm_chain (conv_nd.c): one FMA chain per output, as
 * oneDNN sums, where OpenBLAS's small-matrix sgemm would split K.
 */
#include <cblas.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "conv_impl.h"
#include "nn_impl.h"

typedef struct conv_plan {
    const pc_tensor *x, *w, *b;
    bool batched;
    int64_t N, C, H, W, O, kh, kw, Ho, Wo, G;
    int64_t sh, sw, ph, pw, dh, dw;
    int64_t ph2, pw2; /* bottom and right padding: ph, pw but for an odd padding='same' */
    /* torch runs this float32 call through oneDNN (onednn), whose direct kernel sums the
     * columns' rows in (kh, kw, c) order instead of (c, kh, kw) (hwc) */
    bool onednn, hwc;
} conv_plan;

static pc_status conv_plan_make(const pc_op_call *call, conv_plan *p)
{
    p->x = pc_call_tensor(call, 0);
    p->w = pc_call_tensor(call, 1);
    p->b = pc_call_tensor(call, 2);
    const pc_value *st = &call->args[3], *pd = &call->args[4], *dl = &call->args[5];
    pc_status s = pc_nn_need_float(call, p->x, "slow_conv2d_cpu");
    if (s != PC_OK || (s = pc_nn_same_dtype(call, p->x, p->w)) != PC_OK ||
        (s = pc_nn_same_dtype(call, p->x, p->b)) != PC_OK)
        return s;
    if (st->nints != 2 || (pd->kind != PC_VALUE_STR && pd->nints != 2) || dl->nints != 2)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "%s: conv2d needs 2 values of stride, padding and dilation",
                            call->full_name);
    int r = p->x->rank;
    if ((r != 3 && r != 4) || p->w->rank != 4)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected 3D (unbatched) or 4D (batched) input to conv2d, but "
                            "got input of size: [%d-D]",
                            call->full_name, r);
    p->batched = r == 4;
    p->N = p->batched ? p->x->shape[0] : 1;
    p->C = p->x->shape[r - 3];
    p->H = p->x->shape[r - 2];
    p->W = p->x->shape[r - 1];
    p->O = p->w->shape[0];
    p->kh = p->w->shape[2];
    p->kw = p->w->shape[3];
    p->G = call->args[6].i;
    p->sh = st->ints[0];
    p->sw = st->ints[1];
    p->dh = dl->ints[0];
    p->dw = dl->ints[1];
    if (pd->kind == PC_VALUE_STR) {
        /* 'valid': none; 'same': the output keeps the input's size, the odd extra on the
         * bottom/right (torch pads the input by it first) */
        if (strcmp(pd->s, "valid") == 0) {
            p->ph = p->pw = p->ph2 = p->pw2 = 0;
        } else if (strcmp(pd->s, "same") == 0) {
            if (p->sh != 1 || p->sw != 1)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: padding='same' is not supported for strided convolutions",
                                    call->full_name);
            int64_t th = p->dh * (p->kh - 1), tw = p->dw * (p->kw - 1);
            p->ph = th / 2;
            p->ph2 = th - p->ph;
            p->pw = tw / 2;
            p->pw2 = tw - p->pw;
        } else {
            return pc_error_set(PC_ERR_INVALID, "%s: Invalid padding string: '%s'", call->full_name,
                                pd->s);
        }
    } else {
        p->ph = p->ph2 = pd->ints[0];
        p->pw = p->pw2 = pd->ints[1];
    }
    if (p->G <= 0)
        return pc_error_set(PC_ERR_INVALID, "%s: non-positive groups is not supported",
                            call->full_name);
    if (p->sh <= 0 || p->sw <= 0)
        return pc_error_set(PC_ERR_INVALID, "%s: non-positive stride is not supported",
                            call->full_name);
    if (p->ph < 0 || p->pw < 0)
        return pc_error_set(PC_ERR_INVALID, "%s: negative padding is not supported",
                            call->full_name);
    if (p->dh <= 0 || p->dw <= 0)
        return pc_error_set(PC_ERR_INVALID, "%s: dilation should be greater than zero",
                            call->full_name);
    if (p->C != p->w->shape[1] * p->G || p->O % p->G != 0)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Given groups=%" PRId64 ", weight of size [%" PRId64 ", %" PRId64
                            ", %" PRId64 ", %" PRId64 "], expected input[%" PRId64 ", %" PRId64
                            ", %" PRId64 ", %" PRId64 "] to have %" PRId64
                            " channels, but got %" PRId64 " channels instead",
                            call->full_name, p->G, p->O, p->w->shape[1], p->kh, p->kw, p->N, p->C,
                            p->H, p->W, p->w->shape[1] * p->G, p->C);
    if (p->b && (p->b->rank != 1 || p->b->shape[0] != p->O))
        return pc_error_set(PC_ERR_INVALID, "%s: bias must have %" PRId64 " elements",
                            call->full_name, p->O);
    int64_t eh = p->dh * (p->kh - 1) + 1, ew = p->dw * (p->kw - 1) + 1;
    int64_t hp = p->H + p->ph + p->ph2, wpd = p->W + p->pw + p->pw2;
    if (hp < eh || wpd < ew)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Calculated padded input size per channel: (%" PRId64 " x %" PRId64
                            "). Kernel size: (%" PRId64 " x %" PRId64
                            "). Kernel size can't be greater than actual input size",
                            call->full_name, hp, wpd, eh, ew);
    p->Ho = (hp - eh) / p->sh + 1;
    p->Wo = (wpd - ew) / p->sw + 1;
    int64_t K = (p->C / p->G) * p->kh * p->kw;
    if (K > INT_MAX || p->Ho * p->Wo > INT_MAX || p->O > INT_MAX)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: convolution beyond the BLAS int range",
                            call->full_name);
    return PC_OK;
}

/* Whether torch 1.13's CPU convolution of this float32 call is oneDNN's (its use_mkldnn
 * rule, with torch running multi-threaded); otherwise it is slow_conv2d (im2col + sgemm,
 * channels outer), as float64 always is. Sets onednn and hwc: oneDNN's direct kernel sums
 * kernel positions outer and channels inner; grouped convolutions take its GEMM-based kernel,
 * channels outer. */
static void conv_choose(conv_plan *p, pc_dtype cd)
{
    p->onednn =
        cd == PC_DTYPE_F32 && p->x->dtype == PC_DTYPE_F32 &&
        (p->G > 1 || (p->kh > 3 && p->kw > 3) || p->N > 1 || p->N * p->C * p->H * p->W > 20480);
    p->hwc = p->onednn && p->G == 1;
}

/* The row of (c, i, j) in the columns and in a repacked weight row. */
static int64_t conv_row(const conv_plan *p, int64_t c, int64_t i, int64_t j)
{
    return p->hwc ? (i * p->kw + j) * (p->C / p->G) + c : (c * p->kh + i) * p->kw + j;
}

/* im2col / col2im of one image and group: cols[(c, i, j), (oh, ow)] = x[c, oh s - p + i d, ...]
 * (0 outside the input); col2im adds the columns back. Typed for float and double. Single
 * threaded on purpose: an OpenMP region right before sgemm leaves libgomp's threads spinning
 * while OpenBLAS's want the cores (bench_gemm: the conv at 0.03-0.07 of its sgemms that way on
 * 2 cores). */
#define CONV_COLS(T, SFX)                                                                          \
    static void im2col_##SFX(const conv_plan *p, const T *x, T *cols)                              \
    {                                                                                              \
        int64_t cg = p->C / p->G, L = p->Ho * p->Wo, nrows = cg * p->kh * p->kw;                   \
        for (int64_t rr = 0; rr < nrows; rr++) {                                                   \
            int64_t c = rr / (p->kh * p->kw), i = rr / p->kw % p->kh, j = rr % p->kw;              \
            T *row = cols + conv_row(p, c, i, j) * L;                                              \
            /* the outputs whose input column lies inside: [lo, hi) */                             \
            int64_t off = j * p->dw - p->pw, lo = 0, hi = p->Wo;                                   \
            while (lo < p->Wo && lo * p->sw + off < 0)                                             \
                lo++;                                                                              \
            while (hi > lo && (hi - 1) * p->sw + off >= p->W)                                      \
                hi--;                                                                              \
            for (int64_t oh = 0; oh < p->Ho; oh++) {                                               \
                int64_t h = oh * p->sh - p->ph + i * p->dh;                                        \
                T *dst = row + oh * p->Wo;                                                         \
                if (h < 0 || h >= p->H) {                                                          \
                    memset(dst, 0, sizeof(T) * (size_t)p->Wo);                                     \
                    continue;                                                                      \
                }                                                                                  \
                const T *src = x + (c * p->H + h) * p->W; /* ow reads ow s + off */                \
                if (lo > 0)                                                                        \
                    memset(dst, 0, sizeof(T) * (size_t)lo);                                        \
                if (p->sw == 1 && hi > lo)                                                         \
                    memcpy(dst + lo, src + lo + off, sizeof(T) * (size_t)(hi - lo));               \
                else                                                                               \
                    for (int64_t ow = lo; ow < hi; ow++)                                           \
                        dst[ow] = src[ow * p->sw + off];                                           \
                if (hi < p->Wo)                                                                    \
                    memset(dst + hi, 0, sizeof(T) * (size_t)(p->Wo - hi));                         \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void col2im_##SFX(const conv_plan *p, const T *cols, T *x)                              \
    {                                                                                              \
        int64_t cg = p->C / p->G, L = p->Ho * p->Wo;                                               \
        for (int64_t c = 0; c < cg; c++)                                                           \
            for (int64_t i = 0; i < p->kh; i++)                                                    \
                for (int64_t j = 0; j < p->kw; j++) {                                              \
                    const T *row = cols + conv_row(p, c, i, j) * L;                                \
                    for (int64_t oh = 0; oh < p->Ho; oh++) {                                       \
                        int64_t h = oh * p->sh - p->ph + i * p->dh;                                \
                        if (h < 0 || h >= p->H)                                                    \
                            continue;                                                              \
                        for (int64_t ow = 0; ow < p->Wo; ow++) {                                   \
                            int64_t w = ow * p->sw - p->pw + j * p->dw;                            \
                            if (w >= 0 && w < p->W)                                                \
                                x[(c * p->H + h) * p->W + w] += row[oh * p->Wo + ow];              \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
    }
CONV_COLS(float, f)
CONV_COLS(double, d)
#undef CONV_COLS

static void conv_gemm(pc_dtype cd, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                      int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
    if (M == 0 || N == 0 || K == 0)
        return;
    enum CBLAS_TRANSPOSE oa = ta ? CblasTrans : CblasNoTrans, ob = tb ? CblasTrans : CblasNoTrans;
    if (cd == PC_DTYPE_F64)
        cblas_dgemm(CblasRowMajor, oa, ob, (blasint)M, (blasint)N, (blasint)K, 1.0, A, (blasint)lda,
                    B, (blasint)ldb, beta, C, (blasint)ldc);
    else
        cblas_sgemm(CblasRowMajor, oa, ob, (blasint)M, (blasint)N, (blasint)K, 1.0f, A,
                    (blasint)lda, B, (blasint)ldb, (float)beta, C, (blasint)ldc);
}

static void conv_im2col(pc_dtype cd, const conv_plan *p, const void *x, void *cols)
{
    if (cd == PC_DTYPE_F64)
        im2col_d(p, x, cols);
    else
        im2col_f(p, x, cols);
}

/* The weight [O, Cg, kh, kw] in the columns' row order (to_rows) or back. */
static void conv_repack(pc_dtype cd, const conv_plan *p, const void *src, void *dst, bool to_rows)
{
    int64_t cg = p->C / p->G, K = cg * p->kh * p->kw;
    size_t es = pc_dtype_size(cd);
    for (int64_t o = 0; o < p->O; o++)
        for (int64_t c = 0; c < cg; c++)
            for (int64_t i = 0; i < p->kh; i++)
                for (int64_t j = 0; j < p->kw; j++) {
                    size_t a = (size_t)(((o * cg + c) * p->kh + i) * p->kw + j) * es;
                    size_t b = (size_t)(o * K + conv_row(p, c, i, j)) * es;
                    if (to_rows)
                        memcpy((char *)dst + b, (const char *)src + a, es);
                    else
                        memcpy((char *)dst + a, (const char *)src + b, es);
                }
}

/* The weight as the GEMM reads it: w itself, or a repacked copy in *tmp. */
static pc_status conv_weight(const pc_op_call *call, pc_dtype cd, const conv_plan *p,
                             const pc_tensor *w, pc_tensor *tmp, const void **out)
{
    if (!p->hwc) {
        *out = pc_tensor_data(w);
        return PC_OK;
    }
    pc_status st = pc_tensor_alloc(tmp, cd, w->shape, w->rank);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    conv_repack(cd, p, pc_tensor_data(w), pc_tensor_data(tmp), true);
    *out = pc_tensor_data(tmp);
    return PC_OK;
}

/* oneDNN's order for the float32 gradients (device): dX[c, h, w] sums over (kh, kw) outer and
 * output channels inner, dW[o, c, i, j] over images and positions in one fused chain. Both as
 * one GEMM whose K dimension runs in that order (zeros where a kernel position reaches no
 * output: adding them changes nothing). */
static pc_status conv_dx_onednn(const conv_plan *p, const float *wg, const float *gy, float *xo)
{
    int64_t cg = p->C / p->G, og = p->O / p->G, K = p->kh * p->kw * og, HW = p->H * p->W;
    float *wt = malloc((size_t)(cg * K + 1) * sizeof *wt);
    float *t = calloc((size_t)(K * HW + 1), sizeof *t);
    if (!wt || !t) {
        free(wt);
        free(t);
        return PC_ERR_NOMEM;
    }
    for (int64_t c = 0; c < cg; c++)
        for (int64_t i = 0; i < p->kh; i++)
            for (int64_t j = 0; j < p->kw; j++)
                for (int64_t o = 0; o < og; o++)
                    wt[c * K + (i * p->kw + j) * og + o] =
                        wg[((o * cg + c) * p->kh + i) * p->kw + j];
    for (int64_t i = 0; i < p->kh; i++)
        for (int64_t j = 0; j < p->kw; j++)
            for (int64_t h = 0; h < p->H; h++) {
                int64_t th = h + p->ph - i * p->dh;
                if (th < 0 || th % p->sh || th / p->sh >= p->Ho)
                    continue;
                for (int64_t w = 0; w < p->W; w++) {
                    int64_t tw = w + p->pw - j * p->dw;
                    if (tw < 0 || tw % p->sw || tw / p->sw >= p->Wo)
                        continue;
                    int64_t l = (th / p->sh) * p->Wo + tw / p->sw;
                    for (int64_t o = 0; o < og; o++)
                        t[((i * p->kw + j) * og + o) * HW + h * p->W + w] =
                            gy[o * p->Ho * p->Wo + l];
                }
            }
    pc_conv_gemm_chain(false, cg, HW, K, wt, K, t, HW, xo, HW);
    free(wt);
    free(t);
    return PC_OK;
}

/* dW of group q over all images as one GEMM (rows in the columns' order); false when the
 * concatenated columns would be too large (the caller then accumulates per image). */
static bool conv_dw_onednn(const conv_plan *p, int64_t q, const float *x, const float *g,
                           float *dwq)
{
    int64_t cg = p->C / p->G, og = p->O / p->G, K = cg * p->kh * p->kw, L = p->Ho * p->Wo;
    int64_t NL = p->N * L;
    if (K * NL > ((int64_t)1 << 24) || NL > INT_MAX)
        return false;
    float *cols = malloc((size_t)(K * L + 1) * sizeof *cols);
    float *cc = malloc((size_t)(K * NL + 1) * sizeof *cc);
    float *gc = malloc((size_t)(og * NL + 1) * sizeof *gc);
    if (!cols || !cc || !gc) {
        free(cols);
        free(cc);
        free(gc);
        return false;
    }
    for (int64_t n = 0; n < p->N; n++) {
        im2col_f(p, x + (n * p->C + q * cg) * p->H * p->W, cols);
        for (int64_t r = 0; r < K; r++)
            memcpy(cc + r * NL + n * L, cols + r * L, (size_t)L * sizeof *cc);
        for (int64_t o = 0; o < og; o++)
            memcpy(gc + o * NL + n * L, g + (n * p->O + q * og + o) * L, (size_t)L * sizeof *gc);
    }
    if (p->hwc)
        pc_conv_gemm_chain(true, og, K, NL, gc, NL, cc, NL, dwq, K);
    else /* oneDNN's grouped (GEMM-based) kernel: an order not reproduced */
        conv_gemm(PC_DTYPE_F32, false, true, og, K, NL, gc, NL, cc, NL, 0.0, dwq, K);
    free(cols);
    free(cc);
    free(gc);
    return true;
}

static void conv_oshape(const conv_plan *p, int64_t *s, int *rank)
{
    int r = 0;
    if (p->batched)
        s[r++] = p->N;
    s[r++] = p->O;
    s[r++] = p->Ho;
    s[r++] = p->Wo;
    *rank = r;
}

pc_status pc_k_conv2d_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    conv_plan p;
    pc_status st = conv_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_nn_compute_dtype(compute, p.x->dtype);
    conv_choose(&p, cd);
    size_t es = pc_dtype_size(cd);
    int64_t cg = p.C / p.G, og = p.O / p.G, K = cg * p.kh * p.kw, L = p.Ho * p.Wo;
    pc_tensor x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, b = PC_TENSOR_NULL, y = PC_TENSOR_NULL,
              wp = PC_TENSOR_NULL;
    const void *W = NULL;
    int64_t osh[4];
    int orank;
    conv_oshape(&p, osh, &orank);
    char *cols = malloc((size_t)(K * L + 1) * es);
    if (!cols)
        return pc_nn_nomem(call);
    if ((st = pc_nn_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_nn_load_ro(call, p.w, cd, &w)) != PC_OK ||
        (p.b && (st = pc_nn_load_ro(call, p.b, cd, &b)) != PC_OK) ||
        (st = pc_tensor_alloc(&y, cd, osh, orank)) != PC_OK ||
        (st = conv_weight(call, cd, &p, &w, &wp, &W)) != PC_OK)
        goto done;
    for (int64_t n = 0; n < p.N; n++)
        for (int64_t g = 0; g < p.G; g++) {
            const char *xi =
                (const char *)pc_tensor_data(&x) + (size_t)((n * p.C + g * cg) * p.H * p.W) * es;
            char *yo = (char *)pc_tensor_data(&y) + (size_t)((n * p.O + g * og) * L) * es;
            conv_im2col(cd, &p, xi, cols);
            if (p.onednn) /* oneDNN: one FMA chain per output (pc_conv_gemm_chain) */
                pc_conv_gemm_chain(false, og, L, K, (const float *)W + g * og * K, K,
                                   (const float *)(const void *)cols, L, (float *)(void *)yo, L);
            else
                conv_gemm(cd, false, false, og, L, K, (const char *)W + (size_t)(g * og * K) * es,
                          K, cols, L, 0.0, yo, L);
        }
    if (p.b) {
        for (int64_t n = 0; n < p.N; n++)
            for (int64_t o = 0; o < p.O; o++)
                for (int64_t l = 0; l < L; l++) {
                    int64_t k = (n * p.O + o) * L + l;
                    if (cd == PC_DTYPE_F64)
                        ((double *)pc_tensor_data(&y))[k] +=
                            ((const double *)pc_tensor_data(&b))[o];
                    else
                        ((float *)pc_tensor_data(&y))[k] += ((const float *)pc_tensor_data(&b))[o];
                }
    }
    st = pc_nn_store(call, &y, p.x->dtype, osh, orank, &out->tensors[0]);
    if (st == PC_OK)
        out->count = 1;
done:
    free(cols);
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    pc_tensor_free(&b);
    pc_tensor_free(&y);
    pc_tensor_free(&wp);
    return st;
}

pc_status pc_k_conv2d_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    conv_plan p;
    pc_status st = conv_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    bool gx = pc_nn_wants_grad(call, 0), gw = pc_nn_wants_grad(call, 1),
         gb = p.b && pc_nn_wants_grad(call, 2);
    if (!gx && !gw && !gb)
        return PC_OK;
    pc_dtype cd = pc_nn_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    conv_choose(&p, cd);
    size_t es = pc_dtype_size(cd);
    int64_t cg = p.C / p.G, og = p.O / p.G, K = cg * p.kh * p.kw, L = p.Ho * p.Wo;
    pc_tensor x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, g = PC_TENSOR_NULL, dx = PC_TENSOR_NULL,
              dw = PC_TENSOR_NULL, db = PC_TENSOR_NULL, wp = PC_TENSOR_NULL, dwp = PC_TENSOR_NULL;
    const void *W = NULL;
    char *cols = malloc((size_t)(K * L + 1) * es);
    if (!cols)
        return pc_nn_nomem(call);
    if ((st = pc_nn_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_nn_load_ro(call, p.w, cd, &w)) != PC_OK ||
        (st = pc_nn_load(call, grad_out, cd, &g)) != PC_OK ||
        (gx && (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) != PC_OK) ||
        (gw && (st = pc_tensor_alloc(&dw, cd, p.w->shape, 4)) != PC_OK) ||
        (gb && (st = pc_tensor_alloc(&db, cd, p.b->shape, 1)) != PC_OK) ||
        (gw && (st = pc_tensor_alloc(&dwp, cd, p.w->shape, 4)) != PC_OK) ||
        (st = conv_weight(call, cd, &p, &w, &wp, &W)) != PC_OK)
        goto done;
    if (compute == PC_COMPUTE_DEVICE)
        pc_nn_round(&g, p.x->dtype);
    bool dw_done[1] = {false};
    if (gw && p.onednn) {
        dw_done[0] = true;
        for (int64_t q = 0; q < p.G && dw_done[0]; q++)
            dw_done[0] = conv_dw_onednn(&p, q, pc_tensor_data(&x), pc_tensor_data(&g),
                                        (float *)pc_tensor_data(&dwp) + q * og * K);
        if (!dw_done[0])
            memset(pc_tensor_data(&dwp), 0, pc_tensor_nbytes(&dwp));
    }
    for (int64_t n = 0; n < p.N; n++)
        for (int64_t q = 0; q < p.G; q++) {
            const char *gy =
                (const char *)pc_tensor_data(&g) + (size_t)((n * p.O + q * og) * L) * es;
            const char *wq = (const char *)W + (size_t)(q * og * K) * es;
            if (gw && !dw_done[0]) {
                const char *xi = (const char *)pc_tensor_data(&x) +
                                 (size_t)((n * p.C + q * cg) * p.H * p.W) * es;
                conv_im2col(cd, &p, xi, cols);
                /* dW[q] += dY[n, q] [og, L] x cols^T [L, K], accumulated over the images */
                conv_gemm(cd, false, true, og, K, L, gy, L, cols, L, 1.0,
                          (char *)pc_tensor_data(&dwp) + (size_t)(q * og * K) * es, K);
            }
            if (gx && p.hwc && p.sh == 1 && p.sw == 1) {
                float *xo = (float *)pc_tensor_data(&dx) + (n * p.C + q * cg) * p.H * p.W;
                if (conv_dx_onednn(&p, (const float *)pc_tensor_data(&w) + q * og * K,
                                   (const float *)(const void *)gy, xo) != PC_OK) {
                    st = pc_nn_nomem(call);
                    goto done;
                }
            } else if (gx) {
                /* cols = W[q]^T [K, og] x dY [og, L], then col2im */
                memset(cols, 0, (size_t)(K * L) * es);
                conv_gemm(cd, true, false, K, L, og, wq, K, gy, L, 0.0, cols, L);
                char *xo =
                    (char *)pc_tensor_data(&dx) + (size_t)((n * p.C + q * cg) * p.H * p.W) * es;
                if (dbl)
                    col2im_d(&p, (const double *)(const void *)cols, (double *)(void *)xo);
                else
                    col2im_f(&p, (const float *)(const void *)cols, (float *)(void *)xo);
            }
        }
    if (gb)
        for (int64_t o = 0; o < p.O; o++) {
            double s = 0;
            for (int64_t n = 0; n < p.N; n++)
                for (int64_t l = 0; l < L; l++) {
                    int64_t k = (n * p.O + o) * L + l;
                    s += dbl ? ((const double *)pc_tensor_data(&g))[k]
                             : (double)((const float *)pc_tensor_data(&g))[k];
                }
            if (dbl)
                ((double *)pc_tensor_data(&db))[o] = s;
            else
                ((float *)pc_tensor_data(&db))[o] = (float)s;
        }
    if (gx &&
        (st = pc_nn_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank, &out->grads[0])) != PC_OK)
        goto done;
    if (gw) {
        /* dW was formed in the columns' row order */
        if (p.hwc)
            conv_repack(cd, &p, pc_tensor_data(&dwp), pc_tensor_data(&dw), false);
        else
            memcpy(pc_tensor_data(&dw), pc_tensor_data(&dwp), pc_tensor_nbytes(&dw));
        if ((st = pc_nn_store(call, &dw, p.w->dtype, p.w->shape, 4, &out->grads[1])) != PC_OK)
            goto done;
    }
    if (gb)
        st = pc_nn_store(call, &db, p.b->dtype, p.b->shape, 1, &out->grads[2]);
done:
    free(cols);
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    pc_tensor_free(&g);
    pc_tensor_free(&dx);
    pc_tensor_free(&dw);
    pc_tensor_free(&db);
    pc_tensor_free(&wp);
    pc_tensor_free(&dwp);
    return st;
}
