/* Private to src/ops: every BLAS call of the ops (GEMM, GEMV, dot), with results that do not
 * depend on the number of threads.
 *
 * OpenBLAS's threaded routines split a product among their threads, and how they split it
 * changes which of its kernels computes an element, and so the order of its sums: the last bits
 * followed the thread count (and `--jobs N` gives each worker cores / N threads). Here OpenBLAS
 * always runs on one thread. A large GEMM is cut into blocks of the output fixed by its shape
 * alone (rows and columns only: every block sums along the whole K), each computed by one
 * single-threaded call, the blocks spread over OpenMP threads. GEMV and dot run as one
 * single-threaded call.
 *
 * For float32, a block's call computes bit for bit what one single-threaded sgemm of the whole
 * product computes for those elements (the blocks start at multiples of 64 and stay above
 * OpenBLAS's small-matrix kernels; tested in tests/ops/test_blas_threads.c): the device's
 * results are what one sgemm computes. Not with OpenBLAS's Haswell sgemm kernel (Haswell, Zen,
 * or OPENBLAS_CORETYPE=Haswell), whose tiles of 12 columns and edge code sum an element by the
 * block it is in (docs/PORTABILITY.md, "BLAS kernel sets"); the bits still do not depend on
 * the thread count. For float64 the blocks are as deterministic but need not
 * equal one dgemm bit for bit (the AVX-512 dgemm kernel sums the last rows of a tile in an order
 * that follows the blocking); only the bench computes in float64 at scale.
 *
 * Called inside an OpenMP parallel region, the functions run their blocks in the calling thread
 * (the same blocks, so the same bits) and the caller must have set OpenBLAS to one thread
 * (pc_blas_single_begin); elsewhere they set it and give the previous count back themselves.
 */
#ifndef PC_OPS_BLAS_H
#define PC_OPS_BLAS_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/core/dtype.h"

/* C[M,N] = alpha op(A) op(B) + beta C, row-major, in float64 when cd is PC_DTYPE_F64 and
 * float32 otherwise; op(A) is [M,K] (ta: A is stored [K,M]), op(B) is [K,N] (tb: stored [N,K]);
 * beta 0 never reads C. Every dimension and leading dimension within BLAS's int (callers check). */
void pc_blas_gemm(pc_dtype cd, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha,
                  const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                  int64_t ldc);

/* y[rows] = A x (trans: y[cols] = A^T x) for the row-major [rows, cols] matrix A. */
void pc_blas_gemv(pc_dtype cd, bool trans, int64_t rows, int64_t cols, const void *A, int64_t lda,
                  const void *x, void *y);

/* x . y over n contiguous elements, in float64 or float32 (returned widened). */
double pc_blas_dot(pc_dtype cd, int64_t n, const void *x, const void *y);

/* The blocks pc_blas_gemm cuts an [M,N] product over K into (1: one call): *row_parts x
 * *col_parts, each boundary a multiple of 64; for tests and benchmarks. */
int64_t pc_blas_gemm_blocks(int64_t M, int64_t N, int64_t K, int64_t *row_parts,
                            int64_t *col_parts);

/* OpenBLAS on one thread, for an OpenMP parallel region whose iterations call these functions;
 * returns the previous count, for pc_blas_single_end. */
int pc_blas_single_begin(void);
void pc_blas_single_end(int saved);

#endif
