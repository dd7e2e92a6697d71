/*
 * conv1d, conv2d, conv3d and conv_transpose1d/2d/3d, forward and backward, as im2col + GEMM
 * (OpenBLAS: sgemm on the device, dgemm on the bench), over three spatial dimensions (the missing
 * leading ones of size 1, as torch views a conv1d as a conv2d of height 1).
 *
 * Convolution (torch's slow_conv2d / slow_conv3d): per image and group, the columns
 * [Cin/g k..., L] of the padded, strided, dilated input, out = W x columns, the bias added;
 * dX = col2im(W^T dY), dW = the sum over images of dY columns^T. torch's float32 calls that its
 * use_mkldnn rule sends to oneDNN are followed: the columns'
 * rows ordered (kernel position, channel), dX of stride 1 summed kernel positions outer and
 * channels inner, dW as one GEMM over all the images.
 *
 * Transposed convolution (torch's slow_conv_transpose2d / 3d, which torch 1.13's CPU takes for
 * every dtype): per image and group, columns [Cout/g k..., Lin] = W^T x X, col2im into the
 * output, the bias added; dX = W x im2col(dY), dW = the sum over images of X im2col(dY)^T.
 * The bias gradient is the sum of dY over images and positions (in double, rounded once).
 */
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/blas.h"
#include "ops/conv/conv_impl.h"
#include "ops/kernel.h"

/* The geometry of one im2col: an image of ch channels and spatial size im, the column
 * positions col, the kernel k with its stride, left padding and dilation; hwc: rows ordered
 * (kernel position, channel) instead of (channel, kernel position). */
typedef struct cnd_geom {
    int64_t ch, im[3], col[3], k[3], s[3], p[3], d[3];
    bool hwc;
} cnd_geom;

typedef struct cnd_plan {
    const pc_tensor *x, *w, *b;
    bool batched, transposed;
    int nsp;               /* the op's spatial dimensions: 1, 2 or 3 */
    int64_t N, C, O, G;    /* C: input channels, O: output channels */
    int64_t in[3], out[3]; /* spatial sizes, leading 1s */
    int64_t k[3], s[3], p[3], p2[3], d[3], op[3];
    bool onednn, hwc;
} cnd_plan;

static int64_t prod3(const int64_t *v)
{
    return v[0] * v[1] * v[2];
}

/* "[2, 3, 7]" of the first n values of v. */
static const char *fmt_dims(char *buf, size_t size, const int64_t *v, int n)
{
    size_t u = 0;
    buf[0] = 0;
    for (int i = 0; i < n && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%s%" PRId64, i ? ", " : "", v[i]);
    return buf;
}

/* "5 x 5" of the first n values of v. */
static const char *fmt_size(char *buf, size_t size, const int64_t *v, int n)
{
    size_t u = 0;
    buf[0] = 0;
    for (int i = 0; i < n && u < size; i++)
        u += (size_t)snprintf(buf + u, size - u, "%s%" PRId64, i ? " x " : "", v[i]);
    return buf;
}

/* The op's int[] argument a (nsp values, or one repeated) into the last nsp of dst; dflt for
 * the leading ones. */
static pc_status cnd_ints(const pc_op_call *call, const pc_value *a, int nsp, int64_t dflt,
                          const char *what, int64_t *dst)
{
    if (a->nints != nsp && a->nints != 1)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: expected %s to be a single integer value or a "
                            "list of %d values to match the convolution dimensions, "
                            "but got %s=[%d values]",
                            call->full_name, what, nsp, what, a->nints);
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - nsp);
        dst[i] = j < 0 ? dflt : a->ints[a->nints == 1 ? 0 : j];
    }
    return PC_OK;
}

static pc_status cnd_plan_make(const pc_op_call *call, int nsp, bool transposed, cnd_plan *p)
{
    memset(p, 0, sizeof *p);
    p->x = pc_call_tensor(call, 0);
    p->w = pc_call_tensor(call, 1);
    p->b = pc_call_tensor(call, 2);
    p->nsp = nsp;
    p->transposed = transposed;
    const char *name = call->op->name;
    const pc_value *pd = &call->args[4];
    pc_status s =
        pc_kernel_need_float(call, p->x, transposed ? "slow_conv_transpose" : "slow_conv");
    if (s != PC_OK || (s = pc_kernel_same_dtype(call, p->x, p->w)) != PC_OK ||
        (s = pc_kernel_same_dtype(call, p->x, p->b)) != PC_OK)
        return s;
    int r = p->x->rank;
    if (r != nsp + 1 && r != nsp + 2) {
        char b[PC_SHAPE_FORMAT_MAX];
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Expected %dD (unbatched) or %dD (batched) input to %s, but got "
                            "input of size: [%s]",
                            call->full_name, nsp + 1, nsp + 2, name,
                            fmt_dims(b, sizeof b, p->x->shape, r));
    }
    if (p->w->rank != nsp + 2)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: weight should have %d dimensions, but got %d-dimensional weight",
                            call->full_name, nsp + 2, p->w->rank);
    p->batched = r == nsp + 2;
    p->N = p->batched ? p->x->shape[0] : 1;
    p->C = p->x->shape[r - nsp - 1];
    p->G = call->args[6].i;
    for (int i = 0; i < 3; i++) {
        int j = i - (3 - nsp);
        p->in[i] = j < 0 ? 1 : p->x->shape[r - nsp + j];
        p->k[i] = j < 0 ? 1 : p->w->shape[2 + j];
    }
    if ((s = cnd_ints(call, &call->args[3], nsp, 1, "stride", p->s)) != PC_OK ||
        (s = cnd_ints(call, &call->args[transposed ? 7 : 5], nsp, 1, "dilation", p->d)) != PC_OK)
        return s;
    if (transposed &&
        (s = cnd_ints(call, &call->args[5], nsp, 0, "output_padding", p->op)) != PC_OK)
        return s;
    if (pd->kind == PC_VALUE_STR) {
        if (transposed)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: %s(): argument 'padding' must be tuple of ints, not str",
                                call->full_name, name);
        if (strcmp(pd->s, "valid") == 0) {
            /* no padding */
        } else if (strcmp(pd->s, "same") == 0) {
            for (int i = 0; i < 3; i++)
                if (p->s[i] != 1)
                    return pc_error_set(
                        PC_ERR_INVALID,
                        "%s: padding='same' is not supported for strided convolutions",
                        call->full_name);
            /* the odd extra on the far side (torch pads the input by it first) */
            for (int i = 0; i < 3; i++) {
                int64_t t = p->d[i] * (p->k[i] - 1);
                p->p[i] = t / 2;
                p->p2[i] = t - p->p[i];
            }
        } else {
            return pc_error_set(PC_ERR_INVALID, "%s: Invalid padding string: '%s'", call->full_name,
                                pd->s);
        }
    } else {
        if ((s = cnd_ints(call, pd, nsp, 0, "padding", p->p)) != PC_OK)
            return s;
        memcpy(p->p2, p->p, sizeof p->p);
    }
    if (p->G <= 0)
        return pc_error_set(PC_ERR_INVALID, "%s: non-positive groups is not supported",
                            call->full_name);
    for (int i = 0; i < 3; i++) {
        if (p->s[i] <= 0)
            return pc_error_set(PC_ERR_INVALID, "%s: non-positive stride is not supported",
                                call->full_name);
        if (p->p[i] < 0)
            return pc_error_set(PC_ERR_INVALID, "%s: negative padding is not supported",
                                call->full_name);
        if (p->d[i] <= 0)
            return pc_error_set(PC_ERR_INVALID, "%s: dilation should be greater than zero",
                                call->full_name);
        if (p->op[i] < 0)
            return pc_error_set(PC_ERR_INVALID, "%s: negative output_padding is not supported",
                                call->full_name);
    }
    int64_t xs[PC_TENSOR_MAX_DIMS];
    xs[0] = p->N;
    memcpy(xs + 1, p->x->shape + (p->batched ? 1 : 0), sizeof(int64_t) * (size_t)(nsp + 1));
    char wb[PC_SHAPE_FORMAT_MAX], xb[PC_SHAPE_FORMAT_MAX];
    int64_t wc = transposed ? p->w->shape[0] : p->w->shape[1] * p->G;
    if (p->C != wc || (!transposed && p->w->shape[0] % p->G != 0) ||
        (transposed && p->w->shape[0] % p->G != 0)) {
        if (transposed)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Given transposed=1, weight of size [%s], expected input[%s] "
                                "to have %" PRId64 " channels, but got %" PRId64
                                " channels instead",
                                call->full_name, fmt_dims(wb, sizeof wb, p->w->shape, nsp + 2),
                                fmt_dims(xb, sizeof xb, xs, nsp + 2), wc, p->C);
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Given groups=%" PRId64 ", weight of size [%s], expected input[%s] "
                            "to have %" PRId64 " channels, but got %" PRId64 " channels instead",
                            call->full_name, p->G, fmt_dims(wb, sizeof wb, p->w->shape, nsp + 2),
                            fmt_dims(xb, sizeof xb, xs, nsp + 2), wc, p->C);
    }
    p->O = transposed ? p->w->shape[1] * p->G : p->w->shape[0];
    if (p->b && (p->b->rank != 1 || p->b->shape[0] != p->O))
        return pc_error_set(PC_ERR_INVALID,
                            "%s: Given weight of size [%s], expected bias to be 1-dimensional "
                            "with %" PRId64 " elements, but got bias of size [%s] instead",
                            call->full_name, fmt_dims(wb, sizeof wb, p->w->shape, nsp + 2), p->O,
                            fmt_dims(xb, sizeof xb, p->b->shape, p->b->rank));
    if (transposed) {
        for (int i = 0; i < 3; i++)
            if (p->op[i] >= p->s[i] && p->op[i] >= p->d[i]) {
                /* torch's message names the dimensions of its 2-D or 3-D view */
                static const char *const dn[3] = {"depth", "height", "width"};
                char m[3][PC_SHAPE_FORMAT_MAX];
                const int64_t *v[3] = {p->op, p->s, p->d};
                const char *what[3] = {"output_padding", "stride", "dilation"};
                int first = nsp == 3 ? 0 : 1;
                for (int a = 0; a < 3; a++) {
                    size_t u = 0;
                    m[a][0] = 0;
                    for (int j = first; j < 3; j++)
                        u += (size_t)snprintf(m[a] + u, sizeof m[a] - u, "%s%s_%s: %" PRId64,
                                              u ? " " : "", what[a], dn[j], v[a][j]);
                }
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: output padding must be smaller than either stride or "
                                    "dilation, but got %s %s %s",
                                    call->full_name, m[0], m[1], m[2]);
            }
        for (int i = 0; i < 3; i++) {
            p->out[i] =
                (p->in[i] - 1) * p->s[i] - 2 * p->p[i] + p->d[i] * (p->k[i] - 1) + p->op[i] + 1;
        }
        if (p->out[0] <= 0 || p->out[1] <= 0 || p->out[2] <= 0) {
            char ib[PC_SHAPE_FORMAT_MAX], ob[PC_SHAPE_FORMAT_MAX];
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Given input size per channel: (%s). Calculated output size "
                                "per channel: (%s). Output size is too small",
                                call->full_name, fmt_size(ib, sizeof ib, p->in + 3 - nsp, nsp),
                                fmt_size(ob, sizeof ob, p->out + 3 - nsp, nsp));
        }
    } else {
        int64_t pin[3], ek[3];
        bool small = false;
        for (int i = 0; i < 3; i++) {
            pin[i] = p->in[i] + p->p[i] + p->p2[i];
            ek[i] = p->d[i] * (p->k[i] - 1) + 1;
            small = small || pin[i] < ek[i];
        }
        if (small) {
            char ib[PC_SHAPE_FORMAT_MAX], kb[PC_SHAPE_FORMAT_MAX];
            return pc_error_set(PC_ERR_INVALID,
                                "%s: Calculated padded input size per channel: (%s). Kernel size: "
                                "(%s). Kernel size can't be greater than actual input size",
                                call->full_name, fmt_size(ib, sizeof ib, pin + 3 - nsp, nsp),
                                fmt_size(kb, sizeof kb, ek + 3 - nsp, nsp));
        }
        for (int i = 0; i < 3; i++)
            p->out[i] = (pin[i] - ek[i]) / p->s[i] + 1;
    }
    int64_t kk = prod3(p->k);
    int64_t K = transposed ? (p->O / p->G) * kk : (p->C / p->G) * kk;
    int64_t L = transposed ? prod3(p->in) : prod3(p->out);
    if (K > INT_MAX || L > INT_MAX || p->O > INT_MAX || p->C > INT_MAX || prod3(p->in) > INT_MAX ||
        prod3(p->out) > INT_MAX)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: convolution beyond the BLAS int range",
                            call->full_name);
    return PC_OK;
}

/* torch 1.13's use_mkldnn for a float32 convolution (the sizes of
 * the 4-D view, multi-threaded torch); transposed ones are always slow_conv_transpose. */
static void cnd_choose(cnd_plan *p, pc_dtype cd)
{
    int64_t sz[3]; /* the spatial sizes torch convolves (an odd 'same' padded first) */
    for (int i = 0; i < 3; i++)
        sz[i] = p->in[i] + p->p2[i] - p->p[i];
    int64_t n4 = p->N * p->C * (p->nsp == 3 ? sz[0] * sz[1] : sz[1] * sz[2]);
    int64_t kh = p->k[1], kw = p->k[2];
    p->onednn = !p->transposed && cd == PC_DTYPE_F32 && p->x->dtype == PC_DTYPE_F32 &&
                (p->G > 1 || (kh > 3 && kw > 3) || p->N > 1 || n4 > 20480);
    p->hwc = p->onednn && p->G == 1;
}

/* The geometry of the plan's im2col: the input and the output positions (convolution), or
 * the output and the input positions (transposed). */
static void cnd_geom_of(const cnd_plan *p, cnd_geom *g)
{
    g->ch = p->transposed ? p->O / p->G : p->C / p->G;
    for (int i = 0; i < 3; i++) {
        g->im[i] = p->transposed ? p->out[i] : p->in[i];
        g->col[i] = p->transposed ? p->in[i] : p->out[i];
        g->k[i] = p->k[i];
        g->s[i] = p->s[i];
        g->p[i] = p->p[i];
        g->d[i] = p->d[i];
    }
    g->hwc = p->hwc;
}

static int64_t cnd_row(const cnd_geom *g, int64_t c, int64_t kp)
{
    return g->hwc ? kp * g->ch + c : c * prod3(g->k) + kp;
}

/* im2col: cols[row(c, kp), pos] = x[c, pos s - p + kpos d] (0 outside); col2im adds the
 * columns back, channels outer, kernel positions, then positions (torch's order). */
#define CND_COLS(T, SFX)                                                                           \
    static void im2col_##SFX(const cnd_geom *g, const T *x, T *cols)                               \
    {                                                                                              \
        int64_t kk = prod3(g->k), L = prod3(g->col), nrows = g->ch * kk;                           \
        int64_t W = g->im[2], HW = g->im[1] * g->im[2];                                            \
        for (int64_t rr = 0; rr < nrows; rr++) {                                                   \
            int64_t c = rr / kk, kp = rr % kk;                                                     \
            int64_t i = kp / (g->k[1] * g->k[2]), j = kp / g->k[2] % g->k[1], l = kp % g->k[2];    \
            T *row = cols + cnd_row(g, c, kp) * L;                                                 \
            int64_t off = l * g->d[2] - g->p[2], lo = 0, hi = g->col[2];                           \
            while (lo < g->col[2] && lo * g->s[2] + off < 0)                                       \
                lo++;                                                                              \
            while (hi > lo && (hi - 1) * g->s[2] + off >= W)                                       \
                hi--;                                                                              \
            for (int64_t a = 0; a < g->col[0]; a++) {                                              \
                int64_t z = a * g->s[0] - g->p[0] + i * g->d[0];                                   \
                for (int64_t b = 0; b < g->col[1]; b++) {                                          \
                    int64_t h = b * g->s[1] - g->p[1] + j * g->d[1];                               \
                    T *dst = row + (a * g->col[1] + b) * g->col[2];                                \
                    if (z < 0 || z >= g->im[0] || h < 0 || h >= g->im[1]) {                        \
                        memset(dst, 0, sizeof(T) * (size_t)g->col[2]);                             \
                        continue;                                                                  \
                    }                                                                              \
                    const T *src = x + c * g->im[0] * HW + z * HW + h * W;                         \
                    if (lo > 0)                                                                    \
                        memset(dst, 0, sizeof(T) * (size_t)lo);                                    \
                    if (g->s[2] == 1 && hi > lo)                                                   \
                        memcpy(dst + lo, src + lo + off, sizeof(T) * (size_t)(hi - lo));           \
                    else                                                                           \
                        for (int64_t q = lo; q < hi; q++)                                          \
                            dst[q] = src[q * g->s[2] + off];                                       \
                    if (hi < g->col[2])                                                            \
                        memset(dst + hi, 0, sizeof(T) * (size_t)(g->col[2] - hi));                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void col2im_##SFX(const cnd_geom *g, const T *cols, T *x)                               \
    {                                                                                              \
        int64_t kk = prod3(g->k), L = prod3(g->col);                                               \
        int64_t W = g->im[2], HW = g->im[1] * g->im[2];                                            \
        for (int64_t c = 0; c < g->ch; c++)                                                        \
            for (int64_t kp = 0; kp < kk; kp++) {                                                  \
                int64_t i = kp / (g->k[1] * g->k[2]), j = kp / g->k[2] % g->k[1];                  \
                int64_t l = kp % g->k[2];                                                          \
                const T *row = cols + cnd_row(g, c, kp) * L;                                       \
                for (int64_t a = 0; a < g->col[0]; a++) {                                          \
                    int64_t z = a * g->s[0] - g->p[0] + i * g->d[0];                               \
                    if (z < 0 || z >= g->im[0])                                                    \
                        continue;                                                                  \
                    for (int64_t b = 0; b < g->col[1]; b++) {                                      \
                        int64_t h = b * g->s[1] - g->p[1] + j * g->d[1];                           \
                        if (h < 0 || h >= g->im[1])                                                \
                            continue;                                                              \
                        const T *src = row + (a * g->col[1] + b) * g->col[2];                      \
                        T *dst = x + c * g->im[0] * HW + z * HW + h * W;                           \
                        for (int64_t q = 0; q < g->col[2]; q++) {                                  \
                            int64_t w = q * g->s[2] - g->p[2] + l * g->d[2];                       \
                            if (w >= 0 && w < W)                                                   \
                                dst[w] += src[q];                                                  \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
    }
CND_COLS(float, f)
CND_COLS(double, d)
#undef CND_COLS

static void cnd_im2col(pc_dtype cd, const cnd_geom *g, const void *x, void *cols)
{
    if (cd == PC_DTYPE_F64)
        im2col_d(g, x, cols);
    else
        im2col_f(g, x, cols);
}

static void cnd_col2im(pc_dtype cd, const cnd_geom *g, const void *cols, void *x)
{
    if (cd == PC_DTYPE_F64)
        col2im_d(g, cols, x);
    else
        col2im_f(g, cols, x);
}

static void cnd_gemm(pc_dtype cd, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                     int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc)
{
    pc_blas_gemm(cd, ta, tb, M, N, K, 1.0, A, lda, B, ldb, beta, C, ldc);
}

/* oneDNN's float32 convolution sums each output as one FMA chain in its K order. OpenBLAS's
 * sgemm does the same for large products, but its small-matrix kernels (SkylakeX: below about
 * 1e6 multiply-adds) split K from 32 on; those products run here as plain chains. */
void pc_conv_gemm_chain(bool tb, int64_t M, int64_t N, int64_t K, const float *A, int64_t lda,
                        const float *B, int64_t ldb, float *C, int64_t ldc)
{
    if ((double)M * (double)N * (double)K > 1e6) {
        cnd_gemm(PC_DTYPE_F32, false, tb, M, N, K, A, lda, B, ldb, 0.0, C, ldc);
        return;
    }
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0.0f;
            for (int64_t k = 0; k < K; k++)
                acc = fmaf(A[i * lda + k], tb ? B[j * ldb + k] : B[k * ldb + j], acc);
            C[i * ldc + j] = acc;
        }
}

/* The convolution weight [O, Cg, k...] with its rows in the columns' order (to_rows), or back. */
static void cnd_repack(pc_dtype cd, const cnd_plan *p, const cnd_geom *g, const void *src,
                       void *dst, bool to_rows)
{
    int64_t kk = prod3(p->k), K = g->ch * kk;
    size_t es = pc_dtype_size(cd);
    for (int64_t o = 0; o < p->O; o++)
        for (int64_t c = 0; c < g->ch; c++)
            for (int64_t kp = 0; kp < kk; kp++) {
                size_t a = (size_t)(o * K + c * kk + kp) * es;
                size_t b = (size_t)(o * K + cnd_row(g, c, kp)) * es;
                if (to_rows)
                    memcpy((char *)dst + b, (const char *)src + a, es);
                else
                    memcpy((char *)dst + a, (const char *)src + b, es);
            }
}

/* oneDNN's order of a float32 dX of stride 1 (over three spatial
 * dimensions): kernel positions outer, output channels inner, as one GEMM. */
static pc_status cnd_dx_onednn(const cnd_plan *p, const float *wg, const float *gy, float *xo)
{
    int64_t cg = p->C / p->G, og = p->O / p->G, kk = prod3(p->k), K = kk * og;
    int64_t HW = prod3(p->in), L = prod3(p->out);
    (void)L;
    float *wt = malloc((size_t)(cg * K + 1) * sizeof *wt);
    float *t = calloc((size_t)(K * HW + 1), sizeof *t);
    if (!wt || !t) {
        free(wt);
        free(t);
        return PC_ERR_NOMEM;
    }
    for (int64_t c = 0; c < cg; c++)
        for (int64_t kp = 0; kp < kk; kp++)
            for (int64_t o = 0; o < og; o++)
                wt[c * K + kp * og + o] = wg[(o * cg + c) * kk + kp];
    for (int64_t kp = 0; kp < kk; kp++) {
        int64_t ki[3] = {kp / (p->k[1] * p->k[2]), kp / p->k[2] % p->k[1], kp % p->k[2]};
        for (int64_t z = 0; z < p->in[0]; z++) {
            int64_t tz = z + p->p[0] - ki[0] * p->d[0];
            if (tz < 0 || tz >= p->out[0])
                continue;
            for (int64_t h = 0; h < p->in[1]; h++) {
                int64_t th = h + p->p[1] - ki[1] * p->d[1];
                if (th < 0 || th >= p->out[1])
                    continue;
                for (int64_t w = 0; w < p->in[2]; w++) {
                    int64_t tw = w + p->p[2] - ki[2] * p->d[2];
                    if (tw < 0 || tw >= p->out[2])
                        continue;
                    int64_t l = (tz * p->out[1] + th) * p->out[2] + tw;
                    int64_t pos = (z * p->in[1] + h) * p->in[2] + w;
                    for (int64_t o = 0; o < og; o++)
                        t[(kp * og + o) * HW + pos] = gy[o * prod3(p->out) + l];
                }
            }
        }
    }
    pc_conv_gemm_chain(false, cg, HW, K, wt, K, t, HW, xo, HW);
    free(wt);
    free(t);
    return PC_OK;
}

/* dW of group q over all images as one GEMM (oneDNN's fused chain); false when the
 * concatenated columns would be too large (the caller then accumulates per image). */
static bool cnd_dw_onednn(const cnd_plan *p, const cnd_geom *g, int64_t q, const float *x,
                          const float *gy, float *dwq)
{
    int64_t cg = p->C / p->G, og = p->O / p->G, K = cg * prod3(p->k), L = prod3(p->out);
    int64_t NL = p->N * L, HW = prod3(p->in);
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
        im2col_f(g, x + (n * p->C + q * cg) * HW, cols);
        for (int64_t r = 0; r < K; r++)
            memcpy(cc + r * NL + n * L, cols + r * L, (size_t)L * sizeof *cc);
        for (int64_t o = 0; o < og; o++)
            memcpy(gc + o * NL + n * L, gy + (n * p->O + q * og + o) * L, (size_t)L * sizeof *gc);
    }
    if (p->hwc)
        pc_conv_gemm_chain(true, og, K, NL, gc, NL, cc, NL, dwq, K);
    else /* oneDNN's grouped (GEMM-based) kernel: an order not reproduced (op_gaps_conv.inc) */
        cnd_gemm(PC_DTYPE_F32, false, true, og, K, NL, gc, NL, cc, NL, 0.0, dwq, K);
    free(cols);
    free(cc);
    free(gc);
    return true;
}

static int cnd_oshape(const cnd_plan *p, int64_t *s)
{
    int r = 0;
    if (p->batched)
        s[r++] = p->N;
    s[r++] = p->O;
    for (int i = 3 - p->nsp; i < 3; i++)
        s[r++] = p->out[i];
    return r;
}

/* y[n, o, :] += b[o] */
static void cnd_add_bias(pc_dtype cd, const cnd_plan *p, const pc_tensor *b, pc_tensor *y)
{
    int64_t L = prod3(p->out);
    for (int64_t n = 0; n < p->N; n++)
        for (int64_t o = 0; o < p->O; o++)
            for (int64_t l = 0; l < L; l++) {
                int64_t k = (n * p->O + o) * L + l;
                if (cd == PC_DTYPE_F64)
                    ((double *)pc_tensor_data(y))[k] += ((const double *)pc_tensor_data(b))[o];
                else
                    ((float *)pc_tensor_data(y))[k] += ((const float *)pc_tensor_data(b))[o];
            }
}

static pc_status cnd_forward(const pc_op_call *call, pc_compute compute, int nsp, bool transposed,
                             pc_op_result *out)
{
    cnd_plan p;
    pc_status st = cnd_plan_make(call, nsp, transposed, &p);
    if (st != PC_OK)
        return st;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    cnd_choose(&p, cd);
    cnd_geom g;
    cnd_geom_of(&p, &g);
    size_t es = pc_dtype_size(cd);
    int64_t cg = p.C / p.G, og = p.O / p.G, kk = prod3(p.k);
    int64_t K = g.ch * kk, L = prod3(g.col), HWi = prod3(p.in), HWo = prod3(p.out);
    pc_tensor x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, b = PC_TENSOR_NULL, y = PC_TENSOR_NULL,
              wp = PC_TENSOR_NULL;
    int64_t osh[PC_TENSOR_MAX_DIMS];
    int orank = cnd_oshape(&p, osh);
    char *cols = malloc((size_t)(K * L + 1) * es);
    if (!cols)
        return pc_kernel_nomem(call);
    if ((st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_kernel_load_ro(call, p.w, cd, &w)) != PC_OK ||
        (p.b && (st = pc_kernel_load_ro(call, p.b, cd, &b)) != PC_OK) ||
        (st = pc_tensor_alloc(&y, cd, osh, orank)) != PC_OK)
        goto done;
    const char *W = pc_tensor_data(&w);
    if (p.hwc) {
        if ((st = pc_tensor_alloc(&wp, cd, p.w->shape, p.w->rank)) != PC_OK)
            goto done;
        cnd_repack(cd, &p, &g, W, pc_tensor_data(&wp), true);
        W = pc_tensor_data(&wp);
    }
    for (int64_t n = 0; n < p.N; n++)
        for (int64_t q = 0; q < p.G; q++) {
            const char *xi =
                (const char *)pc_tensor_data(&x) + (size_t)((n * p.C + q * cg) * HWi) * es;
            char *yo = (char *)pc_tensor_data(&y) + (size_t)((n * p.O + q * og) * HWo) * es;
            if (!transposed) {
                cnd_im2col(cd, &g, xi, cols);
                if (p.onednn)
                    pc_conv_gemm_chain(false, og, L, K, (const float *)(const void *)W + q * og * K,
                                       K, (const float *)(const void *)cols, L, (float *)(void *)yo,
                                       L);
                else
                    cnd_gemm(cd, false, false, og, L, K, W + (size_t)(q * og * K) * es, K, cols, L,
                             0.0, yo, L);
            } else {
                /* cols [og k..., Lin] = W[q]^T x X[n, q], then added into the output */
                cnd_gemm(cd, true, false, K, L, cg, W + (size_t)(q * cg * K) * es, K, xi, L, 0.0,
                         cols, L);
                cnd_col2im(cd, &g, cols, yo);
            }
        }
    if (p.b)
        cnd_add_bias(cd, &p, &b, &y);
    st = pc_kernel_store(call, &y, p.x->dtype, osh, orank, &out->tensors[0]);
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

static pc_status cnd_backward(const pc_op_call *call, pc_compute compute, int nsp, bool transposed,
                              const pc_tensor *grad_out, pc_op_grads *out)
{
    cnd_plan p;
    pc_status st = cnd_plan_make(call, nsp, transposed, &p);
    if (st != PC_OK)
        return st;
    bool gx = pc_kernel_wants_grad(call, 0), gw = pc_kernel_wants_grad(call, 1),
         gb = p.b && pc_kernel_wants_grad(call, 2);
    if (!gx && !gw && !gb)
        return PC_OK;
    pc_dtype cd = pc_kernel_compute_dtype(compute, p.x->dtype);
    bool dbl = cd == PC_DTYPE_F64;
    cnd_choose(&p, cd);
    cnd_geom g;
    cnd_geom_of(&p, &g);
    size_t es = pc_dtype_size(cd);
    int64_t cg = p.C / p.G, og = p.O / p.G, kk = prod3(p.k);
    int64_t K = g.ch * kk, L = prod3(g.col), HWi = prod3(p.in), HWo = prod3(p.out);
    pc_tensor x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, gt = PC_TENSOR_NULL, dx = PC_TENSOR_NULL,
              dw = PC_TENSOR_NULL, db = PC_TENSOR_NULL, wp = PC_TENSOR_NULL, dwp = PC_TENSOR_NULL;
    char *cols = malloc((size_t)(K * L + 1) * es);
    if (!cols)
        return pc_kernel_nomem(call);
    if ((st = pc_kernel_load_ro(call, p.x, cd, &x)) != PC_OK ||
        (st = pc_kernel_load_ro(call, p.w, cd, &w)) != PC_OK ||
        (st = pc_kernel_load(call, grad_out, cd, &gt)) != PC_OK ||
        (gx && (st = pc_tensor_alloc(&dx, cd, p.x->shape, p.x->rank)) != PC_OK) ||
        (gw && (st = pc_tensor_alloc(&dw, cd, p.w->shape, p.w->rank)) != PC_OK) ||
        (gb && (st = pc_tensor_alloc(&db, cd, p.b->shape, 1)) != PC_OK) ||
        (gw && (st = pc_tensor_alloc(&dwp, cd, p.w->shape, p.w->rank)) != PC_OK))
        goto done;
    if (compute == PC_COMPUTE_DEVICE)
        pc_kernel_round(&gt, p.x->dtype);
    const char *W = pc_tensor_data(&w);
    if (p.hwc) {
        if ((st = pc_tensor_alloc(&wp, cd, p.w->shape, p.w->rank)) != PC_OK)
            goto done;
        cnd_repack(cd, &p, &g, W, pc_tensor_data(&wp), true);
        W = pc_tensor_data(&wp);
    }
    const char *X = pc_tensor_data(&x), *GY = pc_tensor_data(&gt);
    bool dw_done = false;
    if (gw && p.onednn) {
        dw_done = true;
        for (int64_t q = 0; q < p.G && dw_done; q++)
            dw_done = cnd_dw_onednn(&p, &g, q, (const float *)(const void *)X,
                                    (const float *)(const void *)GY,
                                    (float *)pc_tensor_data(&dwp) + q * og * K);
        if (!dw_done)
            memset(pc_tensor_data(&dwp), 0, pc_tensor_nbytes(&dwp));
    }
    for (int64_t n = 0; n < p.N; n++)
        for (int64_t q = 0; q < p.G; q++) {
            const char *xi = X + (size_t)((n * p.C + q * cg) * HWi) * es;
            const char *gy = GY + (size_t)((n * p.O + q * og) * HWo) * es;
            char *xo =
                gx ? (char *)pc_tensor_data(&dx) + (size_t)((n * p.C + q * cg) * HWi) * es : NULL;
            if (transposed) {
                /* the columns of dY (the output is the image) */
                cnd_im2col(cd, &g, gy, cols);
                const char *wq = W + (size_t)(q * cg * K) * es;
                if (gx) /* dX [cg, Lin] = W[q] [cg, K] x cols [K, Lin] */
                    cnd_gemm(cd, false, false, cg, L, K, wq, K, cols, L, 0.0, xo, L);
                if (gw) /* dW[q] [cg, K] += X [cg, Lin] x cols^T */
                    cnd_gemm(cd, false, true, cg, K, L, xi, L, cols, L, 1.0,
                             (char *)pc_tensor_data(&dwp) + (size_t)(q * cg * K) * es, K);
                continue;
            }
            const char *wq = W + (size_t)(q * og * K) * es;
            if (gw && !dw_done) {
                cnd_im2col(cd, &g, xi, cols);
                cnd_gemm(cd, false, true, og, K, L, gy, L, cols, L, 1.0,
                         (char *)pc_tensor_data(&dwp) + (size_t)(q * og * K) * es, K);
            }
            if (gx && p.hwc && p.s[0] == 1 && p.s[1] == 1 && p.s[2] == 1) {
                if (cnd_dx_onednn(&p, (const float *)pc_tensor_data(&w) + q * og * K,
                                  (const float *)(const void *)gy, (float *)(void *)xo) != PC_OK) {
                    st = pc_kernel_nomem(call);
                    goto done;
                }
            } else if (gx) {
                cnd_gemm(cd, true, false, K, L, og, wq, K, gy, L, 0.0, cols, L);
                cnd_col2im(cd, &g, cols, xo);
            }
        }
    if (gb)
        for (int64_t o = 0; o < p.O; o++) {
            double s = 0;
            for (int64_t n = 0; n < p.N; n++)
                for (int64_t l = 0; l < HWo; l++) {
                    int64_t k = (n * p.O + o) * HWo + l;
                    s += dbl ? ((const double *)pc_tensor_data(&gt))[k]
                             : (double)((const float *)pc_tensor_data(&gt))[k];
                }
            if (dbl)
                ((double *)pc_tensor_data(&db))[o] = s;
            else
                ((float *)pc_tensor_data(&db))[o] = (float)s;
        }
    if (gx && (st = pc_kernel_store(call, &dx, p.x->dtype, p.x->shape, p.x->rank,
                                    &out->grads[0])) != PC_OK)
        goto done;
    if (gw) {
        if (p.hwc)
            cnd_repack(cd, &p, &g, pc_tensor_data(&dwp), pc_tensor_data(&dw), false);
        else
            memcpy(pc_tensor_data(&dw), pc_tensor_data(&dwp), pc_tensor_nbytes(&dw));
        if ((st = pc_kernel_store(call, &dw, p.w->dtype, p.w->shape, p.w->rank, &out->grads[1])) !=
            PC_OK)
            goto done;
    }
    if (gb)
        st = pc_kernel_store(call, &db, p.b->dtype, p.b->shape, 1, &out->grads[2]);
done:
    free(cols);
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    pc_tensor_free(&gt);
    pc_tensor_free(&dx);
    pc_tensor_free(&dw);
    pc_tensor_free(&db);
    pc_tensor_free(&wp);
    pc_tensor_free(&dwp);
    return st;
}

/* op param: the spatial dimensions, plus PC_CONV_TRANSPOSED */
pc_status pc_k_convnd_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    int prm = call->op->param;
    return cnd_forward(call, compute, prm & 3, (prm & PC_CONV_TRANSPOSED) != 0, out);
}

pc_status pc_k_convnd_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    int prm = call->op->param;
    return cnd_backward(call, compute, prm & 3, (prm & PC_CONV_TRANSPOSED) != 0, grad_out, out);
}
