/*
 * einsum (Torch.einsum), forward and backward.
 *
 * The equation is parsed as torch 1.13 does (labels A-Z before a-z, '...' right-aligned and
 * broadcast, the implicit output: the ellipsis, then the labels that occur once, sorted), and
 * contracted the way torch's einsum does it, so the arithmetic is torch's: each operand's
 * repeated labels become its diagonal, every operand is laid out over [output labels,
 * contracted labels (sorted)], dimensions whose last non-trivial operand has been reached are
 * summed, and the operands are multiplied left to right: an element-wise product when nothing
 * is contracted, a dot when everything is, else torch's sumproduct_pair, a bmm of
 * [lro, lo, sum] by [lro, sum, ro]. The bmm and the dot are the nn group's matmul kernels
 * (OpenBLAS along torch's dispatch), called on calls built here; intermediates are tensors of
 * the operands' dtype, as torch's are.
 *
 * The gradient of operand k is the einsum of the incoming gradient with the other operands onto
 * k's labels, summed over k's broadcast (size-1) labels, expanded over its labels that occur
 * nowhere else and placed on its diagonals: the same contraction machinery, not autograd's
 * sequence of ops (docs/ops.md).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ops/blas.h"
#include "ops/kernel.h"
#include "ops/linalg/linalg_impl.h"

#define EI_MAX_OPS  8
#define EI_LETTERS  52 /* 0-25 'A'-'Z', 26-51 'a'-'z' */
#define EI_MAXL     (EI_LETTERS + PC_TENSOR_MAX_DIMS)
#define EI_NO_LABEL (-1)

typedef struct ei_term {
    int n;
    int lab[PC_TENSOR_MAX_DIMS];
} ei_term;

typedef struct ei_plan {
    int nops;
    const pc_tensor *t[EI_MAX_OPS];
    ei_term in[EI_MAX_OPS];
    ei_term out;
    int64_t size[EI_MAXL]; /* broadcast size per label; -1 unused */
    pc_dtype dtype;
} ei_plan;

static char label_char(int l)
{
    return l < 26 ? (char)('A' + l) : (char)('a' + l - 26);
}

static int label_of(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    return -1;
}

/* Parses one term: letters and at most one '...' (ell: the position of its marker, or -1).
 * Labels go into lab (the marker as EI_NO_LABEL). */
static pc_status parse_term(const pc_op_call *call, const char *s, size_t len, int opi, int *lab,
                            int *n, int *ell)
{
    *n = 0;
    *ell = -1;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c == ' ')
            continue;
        if (c == '.') {
            if (i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.' || *ell >= 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: einsum(): found '.' for operand %d that is not part of "
                                    "any ellipsis",
                                    call->full_name, opi);
            *ell = *n;
            lab[(*n)++] = EI_NO_LABEL;
            i += 2;
            continue;
        }
        int l = label_of(c);
        if (l < 0)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: einsum(): invalid subscript given at index %zu in the "
                                "equation string, subscripts must be in [a-zA-Z]",
                                call->full_name, (size_t)(s - call->args[0].s) + i);
        if (*n >= PC_TENSOR_MAX_DIMS)
            return pc_error_set(PC_ERR_UNSUPPORTED, "%s: einsum(): too many subscripts",
                                call->full_name);
        lab[(*n)++] = l;
    }
    return PC_OK;
}

static pc_status ei_plan_make(const pc_op_call *call, ei_plan *p)
{
    memset(p, 0, sizeof *p);
    for (int l = 0; l < EI_MAXL; l++)
        p->size[l] = -1;
    const char *eq = call->args[0].s;
    for (int i = 1; i < call->nargs && i <= EI_MAX_OPS; i++) {
        const pc_tensor *t = pc_call_tensor(call, i);
        if (!t)
            break;
        p->t[p->nops++] = t;
    }
    if (p->nops == 0)
        return pc_error_set(PC_ERR_INVALID, "%s: einsum(): must provide at least one operand",
                            call->full_name);
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    int raw[EI_MAX_OPS][PC_TENSOR_MAX_DIMS], nraw[EI_MAX_OPS], ell[EI_MAX_OPS];
    int k = 0;
    size_t start = 0;
    for (size_t i = 0; i <= lhs_len; i++) {
        if (i < lhs_len && eq[i] != ',')
            continue;
        if (k >= p->nops)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: einsum(): fewer operands were provided than specified in the "
                                "equation",
                                call->full_name);
        pc_status st = parse_term(call, eq + start, i - start, k, raw[k], &nraw[k], &ell[k]);
        if (st != PC_OK)
            return st;
        k++;
        start = i + 1;
    }
    if (k < p->nops)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: einsum(): more operands were provided than specified in the "
                            "equation",
                            call->full_name);
    /* ellipsis dims: label EI_LETTERS + j, right-aligned over the widest ellipsis */
    int max_ell = 0, ne[EI_MAX_OPS];
    for (int i = 0; i < p->nops; i++) {
        int named = nraw[i] - (ell[i] >= 0);
        int rank = p->t[i]->rank;
        if (ell[i] < 0 && named != rank)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: einsum(): the number of subscripts in the equation (%d) does "
                                "not match the number of dimensions (%d) for operand %d and no "
                                "ellipsis was given",
                                call->full_name, named, rank, i);
        if (ell[i] >= 0 && named > rank)
            return pc_error_set(PC_ERR_INVALID,
                                "%s: einsum(): the number of subscripts in the equation (%d) is "
                                "more than the number of dimensions (%d) for operand %d",
                                call->full_name, named, rank, i);
        ne[i] = ell[i] >= 0 ? rank - named : 0;
        if (ne[i] > max_ell)
            max_ell = ne[i];
        if (p->t[i]->dtype != p->t[0]->dtype)
            return pc_error_set(PC_ERR_INVALID, "%s: expected scalar type %s but found %s",
                                call->full_name, pc_torch_type_name(p->t[0]->dtype),
                                pc_torch_type_name(p->t[i]->dtype));
    }
    p->dtype = p->t[0]->dtype;
    int count[EI_MAXL] = {0};
    for (int i = 0; i < p->nops; i++) {
        ei_term *t = &p->in[i];
        t->n = 0;
        for (int j = 0; j < nraw[i]; j++) {
            if (raw[i][j] == EI_NO_LABEL) {
                for (int e = 0; e < ne[i]; e++)
                    t->lab[t->n++] = EI_LETTERS + max_ell - ne[i] + e;
            } else {
                t->lab[t->n++] = raw[i][j];
            }
        }
        for (int d = 0; d < t->n; d++) {
            int l = t->lab[d];
            int64_t sz = p->t[i]->shape[d];
            for (int e = 0; e < d; e++)
                if (t->lab[e] == l) {
                    if (p->t[i]->shape[e] != sz)
                        return pc_error_set(PC_ERR_INVALID,
                                            "%s: einsum(): subscript %c is repeated for operand %d "
                                            "but the sizes don't match, %" PRId64 " != %" PRId64,
                                            call->full_name, label_char(l), i, p->t[i]->shape[e],
                                            sz);
                }
            count[l]++;
            if (p->size[l] < 0 || p->size[l] == 1)
                p->size[l] = sz;
            else if (sz != 1 && sz != p->size[l])
                return pc_error_set(
                    PC_ERR_INVALID,
                    "%s: einsum(): operands do not broadcast with remapped shapes "
                    "(original->remapped): subscript %c has sizes %" PRId64 " and %" PRId64,
                    call->full_name, l < EI_LETTERS ? label_char(l) : '.', p->size[l], sz);
        }
    }
    p->out.n = 0;
    if (arrow) {
        int olab[PC_TENSOR_MAX_DIMS], on, oell;
        const char *o = arrow + 2;
        pc_status st = parse_term(call, o, strlen(o), 0, olab, &on, &oell);
        if (st != PC_OK)
            return st;
        for (int j = 0; j < on; j++) {
            if (olab[j] == EI_NO_LABEL) {
                for (int e = 0; e < max_ell; e++)
                    p->out.lab[p->out.n++] = EI_LETTERS + e;
                continue;
            }
            int l = olab[j];
            for (int e = 0; e < p->out.n; e++)
                if (p->out.lab[e] == l)
                    return pc_error_set(PC_ERR_INVALID,
                                        "%s: einsum(): output subscript %c appears more than once "
                                        "in the output",
                                        call->full_name, label_char(l));
            if (p->size[l] < 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "%s: einsum(): output subscript %c does not appear in the "
                                    "equation for any input operand",
                                    call->full_name, label_char(l));
            p->out.lab[p->out.n++] = l;
        }
    } else {
        for (int e = 0; e < max_ell; e++)
            p->out.lab[p->out.n++] = EI_LETTERS + e;
        for (int l = 0; l < EI_LETTERS; l++)
            if (count[l] == 1)
                p->out.lab[p->out.n++] = l;
    }
    return PC_OK;
}

/* ---- the contraction, on tensors of one dtype ---- */

typedef struct ei_ctx {
    const pc_op_call *call;
    pc_compute compute;
    pc_dtype rd; /* rounding of element-wise steps: the dtype on the device, none on the bench */
} ei_ctx;

/* The diagonal of t over its repeated labels: *out contiguous, with the unique labels of term in
 * order of first occurrence (*u). */
static pc_status ei_diagonal(const ei_ctx *c, const pc_tensor *t, const ei_term *term,
                             pc_tensor *out, ei_term *u)
{
    int64_t sh[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS];
    u->n = 0;
    for (int d = 0; d < term->n; d++) {
        int k = -1;
        for (int e = 0; e < u->n; e++)
            if (u->lab[e] == term->lab[d])
                k = e;
        if (k < 0) {
            k = u->n++;
            u->lab[k] = term->lab[d];
            sh[k] = t->shape[d];
            sd[k] = 0;
        }
        sd[k] += t->strides[d];
    }
    pc_tensor v = PC_TENSOR_NULL;
    pc_status st = pc_tensor_view(&v, t, sh, sd, u->n, t->offset);
    if (st == PC_OK)
        st = pc_tensor_cast(out, &v, t->dtype);
    pc_tensor_free(&v);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
}

/* t (labels u) laid out over the labels P (np of them): a view of rank np (torch's permuted
 * operand, its strides kept), size 1 where t lacks the label. */
static pc_status ei_layout(const ei_ctx *c, const pc_tensor *t, const ei_term *u, const int *P,
                           int np, pc_tensor *out)
{
    int64_t sh[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < np; d++) {
        sh[d] = 1;
        sd[d] = 0;
        for (int e = 0; e < u->n; e++)
            if (u->lab[e] == P[d]) {
                sh[d] = t->shape[e];
                sd[d] = t->strides[e];
            }
    }
    pc_status st = pc_tensor_view(out, t, sh, sd, np, t->offset);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
}

/* t summed over dimension d, kept with size 1 (in double, rounded once to the dtype). */
static pc_status ei_sum_dim(const ei_ctx *c, pc_tensor *t, int d)
{
    int64_t outer = 1, n = t->shape[d], inner = 1;
    for (int i = 0; i < d; i++)
        outer *= t->shape[i];
    for (int i = d + 1; i < t->rank; i++)
        inner *= t->shape[i];
    pc_tensor x = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    pc_dtype dt = t->dtype;
    int64_t sh[PC_TENSOR_MAX_DIMS];
    memcpy(sh, t->shape, sizeof sh);
    sh[d] = 1;
    pc_status st = pc_tensor_cast(&x, t, PC_DTYPE_F64);
    if (st == PC_OK)
        st = pc_tensor_alloc(&r, PC_DTYPE_F64, sh, t->rank);
    if (st == PC_OK) {
        const double *xv = pc_tensor_data(&x);
        double *rv = pc_tensor_data(&r);
        for (int64_t o = 0; o < outer; o++)
            for (int64_t in = 0; in < inner; in++) {
                double s = 0;
                for (int64_t i = 0; i < n; i++)
                    s += xv[(o * n + i) * inner + in];
                rv[o * inner + in] = s;
            }
        pc_tensor_free(t);
        st = pc_tensor_cast(t, &r, dt);
    }
    pc_tensor_free(&x);
    pc_tensor_free(&r);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
}

/* The op named opname ("bmm" or "matmul", linalg/gemm.c) on (a, b): *out in their dtype. */
static pc_status ei_matmul(const ei_ctx *c, const char *opname, const pc_tensor *a,
                           const pc_tensor *b, pc_tensor *out)
{
    pc_op_call m;
    pc_status st = pc_op_call_of(c->call, opname, &m);
    if (st != PC_OK)
        return st;
    m.args[0].kind = m.args[1].kind = PC_VALUE_TENSOR;
    m.args[0].tensor = *a; /* borrowed: m is not freed */
    m.args[1].tensor = *b;
    pc_op_result r = {0};
    st = m.op->forward(&m, c->compute, &r);
    if (st == PC_OK) {
        *out = r.tensors[0];
        r.tensors[0] = PC_TENSOR_NULL;
    }
    pc_op_result_free(&r);
    return st;
}

/* a * b element-wise (equal ranks, sizes equal or 1), rounded to the dtype. */
static pc_status ei_mul(const ei_ctx *c, const pc_tensor *a, const pc_tensor *b, pc_tensor *out)
{
    int64_t sh[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < a->rank; d++)
        sh[d] = a->shape[d] > b->shape[d] ? a->shape[d] : b->shape[d];
    pc_tensor x = PC_TENSOR_NULL, y = PC_TENSOR_NULL, r = PC_TENSOR_NULL;
    pc_status st = pc_fn_load_f64(c->call, a, sh, a->rank, &x);
    if (st == PC_OK)
        st = pc_fn_load_f64(c->call, b, sh, a->rank, &y);
    if (st == PC_OK)
        st = pc_tensor_alloc(&r, PC_DTYPE_F64, sh, a->rank);
    if (st == PC_OK) {
        const double *xv = pc_tensor_data(&x), *yv = pc_tensor_data(&y);
        double *rv = pc_tensor_data(&r);
        for (int64_t i = 0; i < pc_tensor_numel(&r); i++)
            rv[i] = pc_fn_round(c->rd, xv[i] * yv[i]);
        st = pc_tensor_cast(out, &r, a->dtype);
    }
    pc_tensor_free(&x);
    pc_tensor_free(&y);
    pc_tensor_free(&r);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
}

/* torch's plain bmm loop below this many multiply-adds per batch (the nn group's kernel) */
#define EI_NAIVE_LIMIT 400

/* The dims dims[0..] of t (a view) taken as three groups of g[0], g[1], g[2] dims, merged into
 * three strides (out) as torch's reshape merges them without a copy; false when it would copy.
 * A group of only size-1 dims gets the stride that a contiguous layout would give it. */
static bool ei_merge(const pc_tensor *t, const int *dims, const int *g, int64_t *out)
{
    int k = 0;
    int64_t inner = 1, inner_stride = 1;
    int64_t st3[3], sz3[3];
    bool ok = true;
    for (int grp = 0; grp < 3; grp++) {
        int64_t size = 1, stride = -1, prev = -1;
        for (int i = 0; i < g[grp]; i++, k++) {
            int d = dims[k];
            if (t->shape[d] == 1)
                continue;
            if (prev >= 0 && t->strides[prev] != t->strides[d] * t->shape[d])
                ok = false;
            prev = d;
            stride = t->strides[d];
            size *= t->shape[d];
        }
        sz3[grp] = size;
        st3[grp] = stride;
    }
    for (int grp = 2; grp >= 0; grp--) {
        if (st3[grp] < 0)
            st3[grp] = inner * inner_stride;
        inner = sz3[grp];
        inner_stride = st3[grp];
        out[grp] = st3[grp];
    }
    return ok;
}

/* The dims of t in the order dims, as a contiguous tensor of shape sh3. */
static pc_status ei_gather(const ei_ctx *c, const pc_tensor *t, const int *dims, int nd,
                           const int64_t *sh3, pc_tensor *out)
{
    int64_t sh[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS];
    for (int i = 0; i < nd; i++) {
        sh[i] = t->shape[dims[i]];
        sd[i] = t->strides[dims[i]];
    }
    pc_tensor v = PC_TENSOR_NULL;
    pc_status st = pc_tensor_view(&v, t, sh, sd, nd, t->offset);
    if (st == PC_OK)
        st = pc_tensor_cast(out, &v, t->dtype);
    if (st == PC_OK)
        st = pc_tensor_reshape(out, out, sh3, 3);
    pc_tensor_free(&v);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
}

/* One matrix operand of torch's addmm_impl_cpu_: [rows, cols] with strides (s0, s1) used in
 * place when one stride is 1 and the other spans the matrix (*trans when stored transposed),
 * false when it must be copied. */
static bool ei_blas_operand(int64_t rows, int64_t cols, int64_t s0, int64_t s1, bool *trans,
                            int64_t *ld)
{
    if (s1 == 1 && s0 >= (cols > 1 ? cols : 1)) {
        *trans = false;
        *ld = s0;
        return true;
    }
    if (s0 == 1 && s1 >= (rows > 1 ? rows : 1)) {
        *trans = true;
        *ld = s1;
        return true;
    }
    return false;
}

/* torch's bmm above the plain loop's limit: one GEMM per batch (OpenBLAS), each operand in
 * place with its strides where torch's addmm takes it so (the same kernel, the same sums),
 * else a contiguous copy; in the compute dtype (float32 for the half types: torch's oneDNN
 * path accumulates in float). *out: [lro, lo, ro] in R's dtype. */
static pc_status ei_gemm(const ei_ctx *c, const pc_tensor *R, const int64_t *ls3,
                         const pc_tensor *O, const int64_t *rs3, const int *lp, int nl,
                         const int *rp, int nr, const int64_t *l3, const int64_t *r3, pc_dtype cd,
                         pc_tensor *out)
{
    int64_t nb = l3[0], M = l3[1], K = l3[2], N = r3[2];
    if (M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: matrix dimension beyond the BLAS int range",
                            c->call->full_name);
    pc_tensor A = PC_TENSOR_NULL, B = PC_TENSOR_NULL, C = PC_TENSOR_NULL;
    int64_t as[3], bs[3];
    pc_status st = PC_OK;
    bool ta = false, tb = false;
    int64_t lda = K, ldb = N;
    const pc_tensor *srcs[2] = {R, O};
    const int64_t *s3[2] = {ls3, rs3};
    pc_tensor *bufs[2] = {&A, &B};
    int64_t *ss[2] = {as, bs};
    bool *tt[2] = {&ta, &tb};
    int64_t *ld[2] = {&lda, &ldb};
    int64_t rows[2] = {M, K}, cols[2] = {K, N};
    for (int k = 0; k < 2 && st == PC_OK; k++) {
        const pc_tensor *t = srcs[k];
        if (t->dtype == cd && s3[k] &&
            ei_blas_operand(rows[k], cols[k], s3[k][1], s3[k][2], tt[k], ld[k])) {
            pc_tensor_share(bufs[k], t);
            memcpy(ss[k], s3[k], 3 * sizeof(int64_t));
            continue;
        }
        pc_tensor g = PC_TENSOR_NULL;
        st = ei_gather(c, t, k ? rp : lp, k ? nr : nl, k ? r3 : l3, &g);
        if (st == PC_OK)
            st = pc_kernel_load(c->call, &g, cd, bufs[k]);
        pc_tensor_free(&g);
        ss[k][0] = rows[k] * cols[k];
        ss[k][1] = cols[k];
        ss[k][2] = 1;
        *tt[k] = false;
        *ld[k] = cols[k] > 1 ? cols[k] : 1;
    }
    int64_t csh[3] = {nb, M, N};
    if (st == PC_OK && (st = pc_tensor_alloc(&C, cd, csh, 3)) != PC_OK)
        pc_error_prefix(st, "%s", c->call->full_name);
    if (st == PC_OK && M > 0 && N > 0) {
        size_t es = pc_dtype_size(cd);
        const char *a0 = (const char *)pc_storage_data(A.storage) + (size_t)A.offset * es;
        const char *b0 = (const char *)pc_storage_data(B.storage) + (size_t)B.offset * es;
        char *c0 = pc_tensor_data(&C);
        for (int64_t q = 0; q < nb; q++) {
            const void *ap = a0 + (size_t)(q * as[0]) * es, *bp = b0 + (size_t)(q * bs[0]) * es;
            void *cp = c0 + (size_t)(q * M * N) * es;
            pc_blas_gemm(cd, ta, tb, M, N, K, 1.0, ap, lda, bp, ldb, 0.0, cp, N);
        }
    }
    if (st == PC_OK)
        st = pc_kernel_store(c->call, &C, R->dtype, csh, 3, out);
    pc_tensor_free(&A);
    pc_tensor_free(&B);
    pc_tensor_free(&C);
    return st;
}

/* torch's sumproduct_pair over the alive dims of R and O (rank np each): *R becomes the
 * product with the sum dims reduced to size 1. */
static pc_status ei_pair(const ei_ctx *c, pc_tensor *R, pc_tensor *O, const bool *alive,
                         const bool *is_sum, int np)
{
    int lro[PC_TENSOR_MAX_DIMS], lo[PC_TENSOR_MAX_DIMS], ro[PC_TENSOR_MAX_DIMS],
        sm[PC_TENSOR_MAX_DIMS];
    int nlro = 0, nlo = 0, nro = 0, nsm = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    pc_status st = PC_OK;
    for (int d = 0; d < np && st == PC_OK; d++) {
        if (!alive[d])
            continue;
        bool sl = R->shape[d] > 1, sr = O->shape[d] > 1;
        if (is_sum[d]) {
            sm[nsm++] = d;
            if (sl && sr)
                sum_size *= R->shape[d];
            else if (sl)
                st = ei_sum_dim(c, R, d);
            else if (sr)
                st = ei_sum_dim(c, O, d);
        } else if (sl && sr) {
            lro[nlro++] = d;
            lro_size *= R->shape[d];
        } else if (sl) {
            lo[nlo++] = d;
            lo_size *= R->shape[d];
        } else {
            ro[nro++] = d;
            ro_size *= O->shape[d];
        }
    }
    if (st != PC_OK)
        return st;
    /* left as [lro, lo, sum], right as [lro, sum, ro]: the views torch reshapes */
    int lp[PC_TENSOR_MAX_DIMS], rp[PC_TENSOR_MAX_DIMS], nl = 0, nr = 0;
    for (int i = 0; i < nlro; i++)
        lp[nl++] = lro[i];
    for (int i = 0; i < nlo; i++)
        lp[nl++] = lo[i];
    for (int i = 0; i < nsm; i++)
        lp[nl++] = sm[i];
    for (int i = 0; i < nlro; i++)
        rp[nr++] = lro[i];
    for (int i = 0; i < nsm; i++)
        rp[nr++] = sm[i];
    for (int i = 0; i < nro; i++)
        rp[nr++] = ro[i];
    int64_t l3[3] = {lro_size, lo_size, sum_size}, r3[3] = {lro_size, sum_size, ro_size};
    int64_t ls3[3], rs3[3];
    bool lview = ei_merge(R, lp, (int[3]){nlro, nlo, nsm}, ls3);
    bool rview = ei_merge(O, rp, (int[3]){nlro, nsm, nro}, rs3);
    pc_tensor prod = PC_TENSOR_NULL, res = PC_TENSOR_NULL;
    pc_dtype cd = pc_kernel_compute_dtype(c->compute, R->dtype);
    if (pc_dtype_is_float(R->dtype) && lo_size * ro_size * sum_size >= EI_NAIVE_LIMIT) {
        st = ei_gemm(c, R, lview ? ls3 : NULL, O, rview ? rs3 : NULL, lp, nl, rp, nr, l3, r3, cd,
                     &prod);
    } else {
        pc_tensor lc = PC_TENSOR_NULL, rc = PC_TENSOR_NULL;
        if ((st = ei_gather(c, R, lp, nl, l3, &lc)) == PC_OK &&
            (st = ei_gather(c, O, rp, nr, r3, &rc)) == PC_OK)
            st = ei_matmul(c, "bmm", &lc, &rc, &prod);
        pc_tensor_free(&lc);
        pc_tensor_free(&rc);
    }
    if (st == PC_OK) {
        /* prod [lro, lo, ro] back onto the P layout: sum dims and dead dims size 1 */
        int64_t sh[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS];
        for (int d = 0; d < np; d++) {
            sh[d] = 1;
            sd[d] = 0;
        }
        int64_t stride = 1;
        for (int i = nro - 1; i >= 0; i--) {
            sh[ro[i]] = O->shape[ro[i]];
            sd[ro[i]] = stride;
            stride *= O->shape[ro[i]];
        }
        for (int i = nlo - 1; i >= 0; i--) {
            sh[lo[i]] = R->shape[lo[i]];
            sd[lo[i]] = stride;
            stride *= R->shape[lo[i]];
        }
        for (int i = nlro - 1; i >= 0; i--) {
            sh[lro[i]] = R->shape[lro[i]];
            sd[lro[i]] = stride;
            stride *= R->shape[lro[i]];
        }
        pc_tensor pv = PC_TENSOR_NULL;
        st = pc_tensor_view(&pv, &prod, sh, sd, np, prod.offset);
        if (st == PC_OK)
            st = pc_tensor_cast(&res, &pv, prod.dtype);
        pc_tensor_free(&pv);
    }
    pc_tensor_free(&prod);
    if (st != PC_OK) {
        pc_tensor_free(&res);
        return pc_error_prefix(st, "%s", c->call->full_name);
    }
    pc_tensor_free(R);
    *R = res;
    return PC_OK;
}

/* The einsum of the n tensors t (terms in) onto the labels out, as torch 1.13 computes it.
 * size: the broadcast size of each label. *res: contiguous, shape of out, dtype of t[0]. */
static pc_status ei_contract(const ei_ctx *c, int n, const pc_tensor *const *t, const ei_term *in,
                             const ei_term *out, const int64_t *size, pc_tensor *res)
{
    int P[EI_MAXL], np = 0;
    for (int i = 0; i < out->n; i++)
        P[np++] = out->lab[i];
    bool used[EI_MAXL] = {false};
    for (int i = 0; i < n; i++)
        for (int d = 0; d < in[i].n; d++)
            used[in[i].lab[d]] = true;
    for (int i = 0; i < out->n; i++)
        used[out->lab[i]] = false;
    for (int l = 0; l < EI_MAXL; l++)
        if (used[l])
            P[np++] = l;
    if (np > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED, "%s: einsum over more than %d labels",
                            c->call->full_name, PC_TENSOR_MAX_DIMS);
    int64_t osh[PC_TENSOR_MAX_DIMS];
    bool zero = false;
    for (int i = 0; i < out->n; i++)
        osh[i] = size[out->lab[i]];
    for (int d = 0; d < np; d++)
        zero |= size[P[d]] == 0;
    if (zero) {
        pc_status st = pc_tensor_alloc(res, t[0]->dtype, osh, out->n);
        return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
    }
    pc_tensor ops[EI_MAX_OPS + 1];
    for (int i = 0; i < n; i++)
        ops[i] = PC_TENSOR_NULL;
    pc_status st = PC_OK;
    for (int i = 0; i < n && st == PC_OK; i++) {
        pc_tensor dg = PC_TENSOR_NULL;
        ei_term u;
        st = ei_diagonal(c, t[i], &in[i], &dg, &u);
        if (st == PC_OK)
            st = ei_layout(c, &dg, &u, P, np, &ops[i]);
        pc_tensor_free(&dg);
    }
    int last[PC_TENSOR_MAX_DIMS] = {0};
    bool alive[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < np; d++) {
        alive[d] = true;
        for (int i = 1; i < n && st == PC_OK; i++)
            if (ops[i].shape[d] != 1)
                last[d] = i;
    }
    pc_tensor R = PC_TENSOR_NULL;
    if (st == PC_OK) {
        R = ops[0];
        ops[0] = PC_TENSOR_NULL;
    }
    for (int d = out->n; d < np && st == PC_OK; d++)
        if (last[d] == 0) {
            if (R.shape[d] != 1)
                st = ei_sum_dim(c, &R, d);
            alive[d] = false;
        }
    for (int i = 1; i < n && st == PC_OK; i++) {
        pc_tensor *O = &ops[i];
        bool is_sum[PC_TENSOR_MAX_DIMS] = {false};
        int nsum = 0;
        for (int d = out->n; d < np && st == PC_OK; d++) {
            if (!alive[d])
                continue;
            if (last[d] < i) {
                alive[d] = false; /* the operand's size 1, already summed out of R */
            } else if (last[d] == i) {
                if (R.shape[d] == 1) {
                    st = ei_sum_dim(c, O, d);
                    alive[d] = false;
                } else {
                    is_sum[d] = true;
                    nsum++;
                }
            }
        }
        if (st != PC_OK)
            break;
        int nalive = 0;
        for (int d = 0; d < np; d++)
            nalive += alive[d];
        pc_tensor r = PC_TENSOR_NULL;
        if (nsum == 0) {
            st = ei_mul(c, &R, O, &r);
            if (st == PC_OK) {
                pc_tensor_free(&R);
                R = r;
            }
        } else if (nsum == nalive) {
            int64_t nel = pc_tensor_numel(&R), one[PC_TENSOR_MAX_DIMS];
            pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
            for (int d = 0; d < np; d++)
                one[d] = 1;
            if ((st = pc_tensor_contiguous(&a, &R)) == PC_OK &&
                (st = pc_tensor_reshape(&a, &a, &nel, 1)) == PC_OK &&
                (st = pc_tensor_contiguous(&b, O)) == PC_OK &&
                (st = pc_tensor_reshape(&b, &b, &nel, 1)) == PC_OK &&
                (st = ei_matmul(c, "matmul", &a, &b, &r)) == PC_OK &&
                (st = pc_tensor_reshape(&r, &r, one, np)) == PC_OK) {
                pc_tensor_free(&R);
                R = r;
                r = PC_TENSOR_NULL;
            }
            pc_tensor_free(&a);
            pc_tensor_free(&b);
            pc_tensor_free(&r);
        } else {
            st = ei_pair(c, &R, O, alive, is_sum, np);
        }
        for (int d = 0; d < np; d++)
            if (is_sum[d])
                alive[d] = false;
    }
    if (st == PC_OK) {
        pc_tensor rc = PC_TENSOR_NULL;
        st = pc_tensor_cast(&rc, &R, R.dtype); /* a copy: R may be a view of an input */
        if (st == PC_OK)
            st = pc_tensor_reshape(res, &rc, osh, out->n);
        pc_tensor_free(&rc);
    }
    pc_tensor_free(&R);
    for (int i = 0; i < n; i++)
        pc_tensor_free(&ops[i]);
    return st;
}

static ei_ctx ei_ctx_make(const pc_op_call *call, pc_compute compute, pc_dtype dtype)
{
    ei_ctx c = {call, compute, pc_fn_round_dtype(compute, dtype)};
    if (!pc_dtype_is_float(dtype))
        c.rd = PC_DTYPE_F64;
    return c;
}

pc_status pc_k_einsum_forward(const pc_op_call *call, pc_compute compute, pc_op_result *out)
{
    ei_plan p;
    pc_status st = ei_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    ei_ctx c = ei_ctx_make(call, compute, p.dtype);
    pc_tensor r = PC_TENSOR_NULL;
    st = ei_contract(&c, p.nops, p.t, p.in, &p.out, p.size, &r);
    if (st == PC_OK) {
        out->tensors[0] = r;
        out->count = 1;
    }
    return st;
}

/* Places g (the gradient over k's unique labels u, sizes the broadcast ones) onto operand k:
 * summed over the labels where t has size 1, then onto t's diagonals (zeros elsewhere). */
static pc_status ei_place(const ei_ctx *c, pc_tensor *g, const ei_term *u, const pc_tensor *t,
                          const ei_term *term, pc_tensor *out)
{
    pc_status st = PC_OK;
    int64_t tsz[PC_TENSOR_MAX_DIMS];
    for (int e = 0; e < u->n; e++)
        for (int d = 0; d < term->n; d++)
            if (term->lab[d] == u->lab[e])
                tsz[e] = t->shape[d];
    for (int e = 0; e < u->n && st == PC_OK; e++)
        if (tsz[e] == 1 && g->shape[e] != 1)
            st = ei_sum_dim(c, g, e);
    if (st != PC_OK)
        return st;
    pc_tensor z = PC_TENSOR_NULL, gv = PC_TENSOR_NULL;
    if ((st = pc_tensor_alloc(&z, g->dtype, t->shape, t->rank)) != PC_OK)
        return pc_error_prefix(st, "%s", c->call->full_name);
    /* the diagonal view of z takes g's values */
    int64_t zst[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS] = {0};
    pc_shape_contiguous_strides(t->shape, t->rank, zst);
    for (int d = 0; d < term->n; d++)
        for (int e = 0; e < u->n; e++)
            if (u->lab[e] == term->lab[d])
                sd[e] += zst[d];
    st = pc_tensor_view(&gv, &z, g->shape, sd, u->n, 0);
    if (st == PC_OK)
        st = pc_tensor_copy(&gv, g);
    pc_tensor_free(&gv);
    if (st != PC_OK) {
        pc_tensor_free(&z);
        return pc_error_prefix(st, "%s", c->call->full_name);
    }
    *out = z;
    return PC_OK;
}

/* ---- the gradient of a two-operand product: autograd's replay of sumproduct_pair ---- */

/* A 3-D product A3 B3 (views) as torch's bmm computes it: *out contiguous in A3's dtype. */
static pc_status ei_bmm3(const ei_ctx *c, const pc_tensor *A3, const pc_tensor *B3, pc_tensor *out)
{
    const int d3[3] = {0, 1, 2}, g3[3] = {1, 1, 1};
    if (pc_dtype_is_float(A3->dtype) &&
        A3->shape[1] * A3->shape[2] * B3->shape[2] >= EI_NAIVE_LIMIT) {
        int64_t as[3], bs[3];
        (void)ei_merge(A3, d3, g3, as);
        (void)ei_merge(B3, d3, g3, bs);
        return ei_gemm(c, A3, as, B3, bs, d3, 3, d3, 3, A3->shape, B3->shape,
                       pc_kernel_compute_dtype(c->compute, A3->dtype), out);
    }
    pc_tensor a = PC_TENSOR_NULL, b = PC_TENSOR_NULL;
    pc_status st = pc_tensor_cast(&a, A3, A3->dtype);
    if (st == PC_OK)
        st = pc_tensor_cast(&b, B3, B3->dtype);
    if (st == PC_OK)
        st = ei_matmul(c, "bmm", &a, &b, out);
    else
        pc_error_prefix(st, "%s", c->call->full_name);
    pc_tensor_free(&a);
    pc_tensor_free(&b);
    return st;
}

/* The 3-D view torch's reshape gives of the dims of t (groups g), or a contiguous copy. */
static pc_status ei_view3(const ei_ctx *c, const pc_tensor *t, const int *dims, const int *g,
                          const int64_t *sh3, pc_tensor *out)
{
    int64_t s3[3];
    int nd = g[0] + g[1] + g[2];
    if (ei_merge(t, dims, g, s3)) {
        pc_status st = pc_tensor_view(out, t, sh3, s3, 3, t->offset);
        return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
    }
    return ei_gather(c, t, dims, nd, sh3, out);
}

/* The 3-D tensor m ([a, b, c] contiguous) seen over the P layout: its dims at P positions
 * da (na of them), then db, then dc, with the sizes of shp; every other P dim size 1 and then
 * expanded to full (stride 0) where full differs. */
static pc_status ei_unview3(const ei_ctx *c, const pc_tensor *m, const int *dims, const int *g,
                            const int64_t *shp, const int64_t *full, int np, pc_tensor *out)
{
    int64_t sh[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS];
    for (int d = 0; d < np; d++) {
        sh[d] = full[d];
        sd[d] = 0;
    }
    int nd = g[0] + g[1] + g[2];
    int64_t stride = 1;
    for (int i = nd - 1; i >= 0; i--) {
        sh[dims[i]] = shp[dims[i]];
        sd[dims[i]] = stride;
        stride *= shp[dims[i]];
    }
    pc_status st = pc_tensor_view(out, m, sh, sd, np, m->offset);
    return st == PC_OK ? st : pc_error_prefix(st, "%s", c->call->full_name);
}

/* The gradients of both operands of a two-operand einsum that torch contracts with
 * sumproduct_pair: dL = dY O^T and dO = L^T dY, the bmm backward of its product (the operands'
 * views transposed as autograd's are), then expanded over the pre-summed dims and placed on the
 * diagonals. *handled false: the call takes another path (element-wise product, dot), which
 * the generic gradient reproduces. */
static pc_status ei_backward_pair(const ei_ctx *c, const ei_plan *p, const pc_tensor *gin,
                                  pc_op_grads *out, bool *handled)
{
    *handled = false;
    int P[EI_MAXL], np = 0, nout = p->out.n;
    for (int i = 0; i < nout; i++)
        P[np++] = p->out.lab[i];
    bool used[EI_MAXL] = {false};
    for (int i = 0; i < 2; i++)
        for (int d = 0; d < p->in[i].n; d++)
            used[p->in[i].lab[d]] = true;
    for (int i = 0; i < nout; i++)
        used[p->out.lab[i]] = false;
    for (int l = 0; l < EI_MAXL; l++)
        if (used[l])
            P[np++] = l;
    if (np > PC_TENSOR_MAX_DIMS)
        return PC_OK;
    for (int d = 0; d < np; d++)
        if (p->size[P[d]] == 0)
            return PC_OK;
    pc_tensor V[2] = {PC_TENSOR_NULL, PC_TENSOR_NULL}, R = PC_TENSOR_NULL, O = PC_TENSOR_NULL;
    pc_tensor L3 = PC_TENSOR_NULL, O3 = PC_TENSOR_NULL, Y3 = PC_TENSOR_NULL, yv = PC_TENSOR_NULL;
    pc_tensor dL = PC_TENSOR_NULL, dO = PC_TENSOR_NULL;
    ei_term u[2];
    pc_status st = PC_OK;
    for (int i = 0; i < 2 && st == PC_OK; i++) {
        pc_tensor dg = PC_TENSOR_NULL;
        st = ei_diagonal(c, p->t[i], &p->in[i], &dg, &u[i]);
        if (st == PC_OK)
            st = ei_layout(c, &dg, &u[i], P, np, &V[i]);
        pc_tensor_free(&dg);
    }
    bool alive[PC_TENSOR_MAX_DIMS], is_sum[PC_TENSOR_MAX_DIMS] = {false};
    for (int d = 0; d < PC_TENSOR_MAX_DIMS; d++)
        alive[d] = true;
    int nsum = 0, nalive = 0;
    if (st == PC_OK) {
        pc_tensor_share(&R, &V[0]);
        pc_tensor_share(&O, &V[1]);
    }
    for (int d = nout; d < np && st == PC_OK; d++) {
        if (V[1].shape[d] == 1) { /* last operand 0: summed out of the left first */
            if (R.shape[d] != 1)
                st = ei_sum_dim(c, &R, d);
            alive[d] = false;
        } else if (R.shape[d] == 1) {
            st = ei_sum_dim(c, &O, d);
            alive[d] = false;
        } else {
            is_sum[d] = true;
            nsum++;
        }
    }
    for (int d = 0; d < np; d++)
        nalive += alive[d];
    if (st != PC_OK || nsum == 0 || nsum == nalive)
        goto done;
    int lro[PC_TENSOR_MAX_DIMS], lo[PC_TENSOR_MAX_DIMS], ro[PC_TENSOR_MAX_DIMS],
        sm[PC_TENSOR_MAX_DIMS];
    int nlro = 0, nlo = 0, nro = 0, nsm = 0;
    int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    for (int d = 0; d < np && st == PC_OK; d++) {
        if (!alive[d])
            continue;
        bool sl = R.shape[d] > 1, sr = O.shape[d] > 1;
        if (is_sum[d]) {
            sm[nsm++] = d;
            if (sl && sr)
                sum_size *= R.shape[d];
            else if (sl)
                st = ei_sum_dim(c, &R, d);
            else if (sr)
                st = ei_sum_dim(c, &O, d);
        } else if (sl && sr) {
            lro[nlro++] = d;
            lro_size *= R.shape[d];
        } else if (sl) {
            lo[nlo++] = d;
            lo_size *= R.shape[d];
        } else {
            ro[nro++] = d;
            ro_size *= O.shape[d];
        }
    }
    if (st != PC_OK)
        goto done;
    int lp[PC_TENSOR_MAX_DIMS], rp[PC_TENSOR_MAX_DIMS], yp[PC_TENSOR_MAX_DIMS], nl = 0, nr = 0,
                                                                                ny = 0;
    for (int i = 0; i < nlro; i++)
        lp[nl++] = rp[nr++] = yp[ny++] = lro[i];
    for (int i = 0; i < nlo; i++)
        lp[nl++] = yp[ny++] = lo[i];
    for (int i = 0; i < nsm; i++)
        lp[nl++] = rp[nr++] = sm[i];
    for (int i = 0; i < nro; i++)
        rp[nr++] = yp[ny++] = ro[i];
    int64_t l3[3] = {lro_size, lo_size, sum_size}, r3[3] = {lro_size, sum_size, ro_size},
            y3[3] = {lro_size, lo_size, ro_size};
    /* dy over the P layout: the output dims first */
    int64_t ysh[PC_TENSOR_MAX_DIMS], ysd[PC_TENSOR_MAX_DIMS], gst[PC_TENSOR_MAX_DIMS];
    pc_shape_contiguous_strides(gin->shape, gin->rank, gst);
    for (int d = 0; d < np; d++) {
        ysh[d] = d < nout ? gin->shape[d] : 1;
        ysd[d] = d < nout ? gst[d] : 0;
    }
    if ((st = pc_tensor_view(&yv, gin, ysh, ysd, np, gin->offset)) != PC_OK) {
        pc_error_prefix(st, "%s", c->call->full_name);
        goto done;
    }
    if ((st = ei_view3(c, &R, lp, (int[3]){nlro, nlo, nsm}, l3, &L3)) != PC_OK ||
        (st = ei_view3(c, &O, rp, (int[3]){nlro, nsm, nro}, r3, &O3)) != PC_OK ||
        (st = ei_view3(c, &yv, yp, (int[3]){nlro, nlo, nro}, y3, &Y3)) != PC_OK)
        goto done;
    /* the transposed views autograd hands to bmm */
    pc_tensor OT = PC_TENSOR_NULL, LT = PC_TENSOR_NULL;
    int64_t ots[3] = {lro_size, ro_size, sum_size},
            otd[3] = {O3.strides[0], O3.strides[2], O3.strides[1]};
    int64_t lts[3] = {lro_size, sum_size, lo_size},
            ltd[3] = {L3.strides[0], L3.strides[2], L3.strides[1]};
    if ((st = pc_tensor_view(&OT, &O3, ots, otd, 3, O3.offset)) == PC_OK &&
        (st = pc_tensor_view(&LT, &L3, lts, ltd, 3, L3.offset)) == PC_OK) {
        if (pc_kernel_wants_grad(c->call, 1))
            st = ei_bmm3(c, &Y3, &OT, &dL);
        if (st == PC_OK && pc_kernel_wants_grad(c->call, 2))
            st = ei_bmm3(c, &LT, &Y3, &dO);
    } else {
        pc_error_prefix(st, "%s", c->call->full_name);
    }
    pc_tensor_free(&OT);
    pc_tensor_free(&LT);
    for (int k = 0; k < 2 && st == PC_OK; k++) {
        pc_tensor *m = k ? &dO : &dL;
        if (pc_tensor_is_null(m))
            continue;
        pc_tensor full = PC_TENSOR_NULL, gu = PC_TENSOR_NULL, gc = PC_TENSOR_NULL,
                  placed = PC_TENSOR_NULL;
        int64_t shp[PC_TENSOR_MAX_DIMS];
        const pc_tensor *src = k ? &O : &R;
        for (int d = 0; d < np; d++)
            shp[d] = src->shape[d];
        for (int i = 0; i < nsm; i++)
            shp[sm[i]] = sum_size > 0 ? src->shape[sm[i]] : 0;
        st = ei_unview3(c, m, k ? rp : lp, k ? (int[3]){nlro, nsm, nro} : (int[3]){nlro, nlo, nsm},
                        shp, V[k].shape, np, &full);
        /* onto k's unique labels (the P dims it lacks have size 1) */
        int64_t ush[PC_TENSOR_MAX_DIMS], usd[PC_TENSOR_MAX_DIMS];
        for (int e = 0; e < u[k].n && st == PC_OK; e++)
            for (int d = 0; d < np; d++)
                if (P[d] == u[k].lab[e]) {
                    ush[e] = full.shape[d];
                    usd[e] = full.strides[d];
                }
        if (st == PC_OK &&
            (st = pc_tensor_view(&gu, &full, ush, usd, u[k].n, full.offset)) == PC_OK &&
            (st = pc_tensor_cast(&gc, &gu, gu.dtype)) == PC_OK)
            st = ei_place(c, &gc, &u[k], p->t[k], &p->in[k], &placed);
        else if (st != PC_OK)
            pc_error_prefix(st, "%s", c->call->full_name);
        if (st == PC_OK) {
            out->grads[k + 1] = placed;
            placed = PC_TENSOR_NULL;
        }
        pc_tensor_free(&full);
        pc_tensor_free(&gu);
        pc_tensor_free(&gc);
        pc_tensor_free(&placed);
    }
    if (st == PC_OK)
        *handled = true;
done:
    for (int i = 0; i < 2; i++)
        pc_tensor_free(&V[i]);
    pc_tensor_free(&R);
    pc_tensor_free(&O);
    pc_tensor_free(&L3);
    pc_tensor_free(&O3);
    pc_tensor_free(&Y3);
    pc_tensor_free(&yv);
    pc_tensor_free(&dL);
    pc_tensor_free(&dO);
    return st;
}

pc_status pc_k_einsum_backward(const pc_op_call *call, pc_compute compute,
                               const pc_tensor *grad_out, pc_op_grads *out)
{
    ei_plan p;
    pc_status st = ei_plan_make(call, &p);
    if (st != PC_OK)
        return st;
    ei_ctx c = ei_ctx_make(call, compute, p.dtype);
    pc_tensor gin = PC_TENSOR_NULL;
    if ((st = pc_tensor_cast(&gin, grad_out, p.dtype)) != PC_OK)
        return pc_error_prefix(st, "%s", call->full_name);
    if (p.nops == 2 && pc_dtype_is_float(p.dtype)) {
        bool handled = false;
        st = ei_backward_pair(&c, &p, &gin, out, &handled);
        if (st != PC_OK || handled) { /* else nothing was written: the generic way */
            pc_tensor_free(&gin);
            return st;
        }
    }
    for (int k = 0; k < p.nops && st == PC_OK; k++) {
        if (!pc_kernel_wants_grad(call, k + 1))
            continue;
        const pc_tensor *ts[EI_MAX_OPS];
        ei_term terms[EI_MAX_OPS];
        int n = 0;
        ts[n] = &gin;
        terms[n++] = p.out;
        bool elsewhere[EI_MAXL] = {false};
        for (int i = 0; i < p.out.n; i++)
            elsewhere[p.out.lab[i]] = true;
        for (int j = 0; j < p.nops; j++) {
            if (j == k)
                continue;
            ts[n] = p.t[j];
            terms[n++] = p.in[j];
            for (int d = 0; d < p.in[j].n; d++)
                elsewhere[p.in[j].lab[d]] = true;
        }
        /* k's unique labels; those found elsewhere are the contraction's output, the rest are
         * broadcast afterwards */
        ei_term u = {0}, want = {0};
        for (int d = 0; d < p.in[k].n; d++) {
            int l = p.in[k].lab[d];
            bool seen = false;
            for (int e = 0; e < u.n; e++)
                seen |= u.lab[e] == l;
            if (!seen)
                u.lab[u.n++] = l;
        }
        for (int e = 0; e < u.n; e++)
            if (elsewhere[u.lab[e]])
                want.lab[want.n++] = u.lab[e];
        pc_tensor g = PC_TENSOR_NULL, full = PC_TENSOR_NULL, placed = PC_TENSOR_NULL;
        st = ei_contract(&c, n, ts, terms, &want, p.size, &g);
        if (st == PC_OK) {
            /* expand over the labels only k has: g as a view of u's shape */
            int64_t sh[PC_TENSOR_MAX_DIMS], sd[PC_TENSOR_MAX_DIMS], gst[PC_TENSOR_MAX_DIMS];
            pc_shape_contiguous_strides(g.shape, g.rank, gst);
            int w = 0;
            for (int e = 0; e < u.n; e++) {
                if (w < want.n && want.lab[w] == u.lab[e]) {
                    sh[e] = g.shape[w];
                    sd[e] = gst[w];
                    w++;
                } else {
                    sh[e] = p.size[u.lab[e]];
                    sd[e] = 0;
                }
            }
            pc_tensor v = PC_TENSOR_NULL;
            st = pc_tensor_view(&v, &g, sh, sd, u.n, g.offset);
            if (st == PC_OK)
                st = pc_tensor_cast(&full, &v, g.dtype);
            pc_tensor_free(&v);
            if (st != PC_OK)
                pc_error_prefix(st, "%s", call->full_name);
        }
        if (st == PC_OK)
            st = ei_place(&c, &full, &u, p.t[k], &p.in[k], &placed);
        if (st == PC_OK) {
            out->grads[k + 1] = placed;
            placed = PC_TENSOR_NULL;
        }
        pc_tensor_free(&g);
        pc_tensor_free(&full);
        pc_tensor_free(&placed);
    }
    pc_tensor_free(&gin);
    return st;
}
