/*
 * The ops' BLAS calls, with results independent of the thread count (blas.h).
 *
 * Why blocks of the output and not OpenBLAS's threads: OpenBLAS's threaded GEMM driver cuts some
 * lengths of K into other chunks than its single-threaded one (the partial sums are added in
 * another grouping: [100, 700] x [700, 100] in float32 differs in 66% of its elements between 1
 * and 2 threads), and gives the elements at the edge of each thread's share of a float64
 * product to other kernel code; both follow the thread count, and so did the bits
 * (Functional.linear.3 of the float32 LLaMA layer at sequence 512 differed between --jobs 1
 * and 2). Cutting K would change the sums themselves, so only rows and columns are cut.
 *
 * Why these blocks keep sgemm's bits: every block starts at a multiple of BLAS_ALIGN (64, a
 * multiple of the x86-64 kernels' tiles of 16 rows at most), so its tiles are the whole
 * product's and the only ragged ones, the whole product's, fall in the last block; every block
 * has BLAS_BLOCK_MIN multiply-adds at least, far above the size where OpenBLAS switches to its
 * small-matrix kernels (M N K <= 1e6 on AVX-512, which cut K differently); K is never cut. The
 * rest is measured, not derived (tests/ops/test_blas_threads.c, and a thousand random shapes,
 * transposes, alphas and betas while writing this): OpenBLAS 0.3.21's sgemm kernels sum each
 * element in the same order whatever panel of the output they are handed (its Haswell sgemm
 * kernel, which Zen shares and OPENBLAS_CORETYPE=Haswell forces, does not: docs/PORTABILITY.md,
 * "BLAS kernel sets"), its AVX-512 dgemm kernel not for the last one to three rows of a tile.
 * Float64 results are as deterministic, but not always one dgemm's bits.
 *
 * The calls use OpenBLAS's column-major interface (C^T = op(B)^T op(A)^T, the same operation):
 * the row-major interface converts to exactly that in OpenBLAS 0.3.21, and later versions can
 * route a row-major product to a "direct" sgemm kernel depending on the thread count; torch's
 * own calls are column-major (the Fortran sgemm_).
 */
#include "ops/blas.h"

#include <assert.h>
#include <cblas.h>

#ifdef _OPENMP
#include <omp.h>
#endif

enum {
    BLAS_ALIGN = 64,       /* block boundaries are multiples of this */
    BLAS_ROWS = 512,       /* rows of a block, when the output has 1024 rows or more */
    BLAS_COLS = 1024,      /* columns of a block, when the rows are not cut */
    BLAS_ROWS_LEAST = 128, /* the fewest rows and columns of a block cut for more blocks */
    BLAS_COLS_LEAST = 256,
    BLAS_BLOCKS = 4, /* blocks wanted, while they stay large enough */
};
/* Below this many multiply-adds (2^23) a product is one call; a block has half at least. */
#define BLAS_SPLIT_MIN 8388608.0
#define BLAS_BLOCK_MIN 4194304.0

static bool in_parallel(void)
{
#ifdef _OPENMP
    return omp_in_parallel() != 0;
#else
    return false;
#endif
}

int pc_blas_single_begin(void)
{
    int saved = openblas_get_num_threads();
    if (saved != 1)
        openblas_set_num_threads(1);
    return saved;
}

void pc_blas_single_end(int saved)
{
    if (saved != 1)
        openblas_set_num_threads(saved);
}

/* Where part i of p parts of a dimension d starts (i = p: d): the multiples of BLAS_ALIGN in d
 * shared out evenly, the rest (d mod BLAS_ALIGN) to the last part. */
static int64_t part_start(int64_t d, int64_t p, int64_t i)
{
    return i >= p ? d : i * (d / BLAS_ALIGN) / p * BLAS_ALIGN;
}

/* The shortest of p parts of d. */
static int64_t part_least(int64_t d, int64_t p)
{
    return p == 1 ? d : d / BLAS_ALIGN / p * BLAS_ALIGN;
}

/* Parts of about side each: 1, 2 or a multiple of 4 of them (so that 2 or 4 threads share
 * them evenly), none narrower than BLAS_ALIGN. */
static int64_t parts(int64_t d, int64_t side)
{
    int64_t p = d / side;
    if (p >= 3)
        p = (p + 3) / 4 * 4;
    if (p > d / BLAS_ALIGN)
        p = d / BLAS_ALIGN;
    return p < 1 ? 1 : p;
}

static double least_block(int64_t M, int64_t N, int64_t K, int64_t pm, int64_t pn)
{
    return (double)part_least(M, pm) * (double)part_least(N, pn) * (double)K;
}

/*
 * Rows are cut first: a block of whole rows repacks the other operand, which OpenBLAS packs
 * for each panel of rows anyway, while cutting columns repacks the rows' operand for each
 * block (bench_gemm --layer, one thread: 8 blocks of 512 rows cost 0-3%, 8 blocks of 512
 * columns 2-15%). An output of fewer rows is cut in columns of about BLAS_COLS; a small output
 * in more, smaller blocks; a short K in fewer, larger ones.
 */
int64_t pc_blas_gemm_blocks(int64_t M, int64_t N, int64_t K, int64_t *row_parts, int64_t *col_parts)
{
    int64_t pm = 1, pn = 1;
    if ((double)M * (double)N * (double)K >= BLAS_SPLIT_MIN) {
        if (M >= 2 * BLAS_ROWS)
            pm = parts(M, BLAS_ROWS);
        else
            pn = parts(N, BLAS_COLS);
        while (pm * pn < BLAS_BLOCKS) {
            if (N / (2 * pn) >= BLAS_COLS_LEAST &&
                least_block(M, N, K, pm, 2 * pn) >= BLAS_BLOCK_MIN)
                pn *= 2;
            else if (M / (2 * pm) >= BLAS_ROWS_LEAST &&
                     least_block(M, N, K, 2 * pm, pn) >= BLAS_BLOCK_MIN)
                pm *= 2;
            else
                break;
        }
        while (pm * pn > 1 && least_block(M, N, K, pm, pn) < BLAS_BLOCK_MIN) {
            if (pm > 1)
                pm = (pm + 1) / 2;
            else
                pn = (pn + 1) / 2;
        }
    }
    *row_parts = pm;
    *col_parts = pn;
    return pm * pn;
}

/* One call on OpenBLAS's current thread count: the row-major product in column-major form. */
static void gemm_call(pc_dtype cd, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha,
                      const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                      int64_t ldc)
{
    enum CBLAS_TRANSPOSE oa = ta ? CblasTrans : CblasNoTrans, ob = tb ? CblasTrans : CblasNoTrans;
    if (cd == PC_DTYPE_F64)
        cblas_dgemm(CblasColMajor, ob, oa, (blasint)N, (blasint)M, (blasint)K, alpha, B,
                    (blasint)ldb, A, (blasint)lda, beta, C, (blasint)ldc);
    else
        cblas_sgemm(CblasColMajor, ob, oa, (blasint)N, (blasint)M, (blasint)K, (float)alpha, B,
                    (blasint)ldb, A, (blasint)lda, (float)beta, C, (blasint)ldc);
}

void pc_blas_gemm(pc_dtype cd, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha,
                  const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                  int64_t ldc)
{
    if (M == 0 || N == 0)
        return;
    if (K == 0) {
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                if (cd == PC_DTYPE_F64) {
                    double *c = (double *)C + i * ldc + j;
                    *c = beta == 0 ? 0 : beta * *c;
                } else {
                    float *c = (float *)C + i * ldc + j;
                    *c = beta == 0 ? 0 : (float)beta * *c;
                }
            }
        return;
    }
    int64_t pm, pn, nb = pc_blas_gemm_blocks(M, N, K, &pm, &pn);
    size_t es = cd == PC_DTYPE_F64 ? sizeof(double) : sizeof(float);
    bool outer = !in_parallel();
    assert(outer || openblas_get_num_threads() == 1);
    int saved = outer ? pc_blas_single_begin() : 1;
#pragma omp parallel for schedule(dynamic, 1) if (outer && nb > 1)
    for (int64_t b = 0; b < nb; b++) {
        int64_t i0 = part_start(M, pm, b / pn), i1 = part_start(M, pm, b / pn + 1);
        int64_t j0 = part_start(N, pn, b % pn), j1 = part_start(N, pn, b % pn + 1);
        const char *a = (const char *)A + (size_t)(ta ? i0 : i0 * lda) * es;
        const char *bb = (const char *)B + (size_t)(tb ? j0 * ldb : j0) * es;
        char *c = (char *)C + (size_t)(i0 * ldc + j0) * es;
        gemm_call(cd, ta, tb, i1 - i0, j1 - j0, K, alpha, a, lda, bb, ldb, beta, c, ldc);
    }
    if (outer)
        pc_blas_single_end(saved);
}

void pc_blas_gemv(pc_dtype cd, bool trans, int64_t rows, int64_t cols, const void *A, int64_t lda,
                  const void *x, void *y)
{
    bool outer = !in_parallel();
    int saved = outer ? pc_blas_single_begin() : 1;
    enum CBLAS_TRANSPOSE t = trans ? CblasTrans : CblasNoTrans;
    if (cd == PC_DTYPE_F64)
        cblas_dgemv(CblasRowMajor, t, (blasint)rows, (blasint)cols, 1.0, A, (blasint)lda, x, 1, 0.0,
                    y, 1);
    else
        cblas_sgemv(CblasRowMajor, t, (blasint)rows, (blasint)cols, 1.0f, A, (blasint)lda, x, 1,
                    0.0f, y, 1);
    if (outer)
        pc_blas_single_end(saved);
}

double pc_blas_dot(pc_dtype cd, int64_t n, const void *x, const void *y)
{
    bool outer = !in_parallel();
    int saved = outer ? pc_blas_single_begin() : 1;
    double r = cd == PC_DTYPE_F64 ? cblas_ddot((blasint)n, x, 1, y, 1)
                                  : (double)cblas_sdot((blasint)n, x, 1, y, 1);
    if (outer)
        pc_blas_single_end(saved);
    return r;
}
