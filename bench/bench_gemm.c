/*
 * GEMM and row-op throughput through the op layer, as ratios measured in the same run:
 *   - Functional.linear (float32, the cpu backend: the reference device) against a direct
 *     cblas_sgemm on the same operands; ratio = sgemm time / op time (1.0: no overhead);
 *   - Torch.matmul (float32) likewise;
 *   - softmax and layer_norm over rows of float32 as a fraction of a streaming read of the
 *     same bytes;
 *   - conv2d (im2col + sgemm) against the sgemms of the same sizes alone;
 *   - sgemm right after an OpenMP parallel region, as a ratio to sgemm alone (the pthread
 *     OpenBLAS and libgomp each keep a thread pool).
 * The op's extra work is the conversion of its operands into contiguous compute buffers and
 * of the result into the output dtype.
 *
 * usage: bench_gemm [n=512] [repeats=5]; best of the repeats. Set OPENBLAS_NUM_THREADS (and
 * OMP_NUM_THREADS) to the cores to use.
 *
 * bench_gemm --layer [--seq N] [repeats=3]: the GEMMs of the LLaMA-7B layer (bench/llama_dump.h;
 * each linear's forward, input gradient and weight gradient, sequence 512 unless given) in
 * float32 and float64, as precheck computes them (ops/blas.h: OpenBLAS on one thread, blocks of
 * the output fixed by the shape, spread over OpenMP threads; results independent of the thread
 * count) against one call on OpenBLAS's own threads; ratio = OpenBLAS's time / precheck's (1.0:
 * no cost), best of the repeats, the two timed in turn; per product and for all of a dtype's
 * products together; on all threads (against OpenBLAS's own threads: --jobs 1) and on one
 * (against one single-threaded call: --jobs = cores); beside the wall-time ratio the CPU-time
 * ratio (all threads' time: the work, without waits for a busy machine's cores).
 * OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT as precheck run_ut sets them. About
 * 2.5 GB and two minutes on 2 idle cores.
 */
#include <cblas.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/blas.h"
#include "precheck/backends/backend.h"
#include "precheck/core/threads.h"
#include "precheck/ops/exec.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint32_t rng = 12345;

static void fill(pc_tensor *t)
{
    float *x = pc_tensor_data(t);
    for (int64_t i = 0; i < pc_tensor_numel(t); i++) {
        rng = rng * 1664525u + 1013904223u;
        x[i] = (float)((double)(rng >> 8) * 0x1p-23 - 1.0);
    }
}

/* A call of the op with tensor arguments (shared) and defaults for the rest. */
static void make_call(pc_op_call *c, const char *op, const pc_tensor *const *ts, int nts)
{
    memset(c, 0, sizeof *c);
    c->op = pc_op_find(op);
    c->full_name = op;
    c->nargs = c->op->schema->nargs;
    for (int i = 0; i < c->nargs; i++) {
        c->args[i].src_pos = -1;
        c->args[i].tensor = PC_TENSOR_NULL;
        c->args[i].kind = PC_VALUE_NONE;
    }
    for (int i = 0; i < nts; i++) {
        c->args[i].kind = PC_VALUE_TENSOR;
        c->args[i].src_pos = i;
        pc_tensor_share(&c->args[i].tensor, ts[i]);
    }
}

static double time_op(const pc_backend *b, const pc_op_call *c, int repeats)
{
    double best = 1e30;
    for (int r = 0; r < repeats; r++) {
        pc_op_result out = {0};
        double t0 = now_s();
        if (pc_backend_forward(b, c, &out) != PC_OK) {
            fprintf(stderr, "bench_gemm: %s: %s\n", c->op->name, pc_error_message());
            exit(1);
        }
        double t = now_s() - t0;
        pc_op_result_free(&out);
        if (t < best)
            best = t;
    }
    return best;
}

static uint64_t stream_read(const void *a, size_t nbytes)
{
    uint64_t acc[8] = {0};
    const uint64_t *p = a;
    for (size_t i = 0; i + 8 <= nbytes / 8; i += 8)
        for (size_t j = 0; j < 8; j++)
            acc[j] ^= p[i + j];
    uint64_t r = 0;
    for (int j = 0; j < 8; j++)
        r ^= acc[j];
    return r;
}

/* ---- --layer: the ops' thread-count-independent GEMMs against OpenBLAS's own threads ---- */

typedef struct layer_gemm {
    const char *what;
    int64_t M, N, K; /* C[M,N] = op(A)[M,K] op(B)[K,N] */
    bool ta, tb;
} layer_gemm;

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The product's wall time; its CPU time (all threads) in *cpu. */
static double time_gemm(pc_dtype cd, const layer_gemm *g, bool blocks, const void *A, const void *B,
                        void *C, double *cpu)
{
    int64_t lda = g->ta ? g->M : g->K, ldb = g->tb ? g->K : g->N;
    double c0 = cpu_s(), t0 = now_s();
    if (blocks) {
        pc_blas_gemm(cd, g->ta, g->tb, g->M, g->N, g->K, 1.0, A, lda, B, ldb, 0.0, C, g->N);
    } else {
        enum CBLAS_TRANSPOSE oa = g->ta ? CblasTrans : CblasNoTrans;
        enum CBLAS_TRANSPOSE ob = g->tb ? CblasTrans : CblasNoTrans;
        if (cd == PC_DTYPE_F64)
            cblas_dgemm(CblasRowMajor, oa, ob, (blasint)g->M, (blasint)g->N, (blasint)g->K, 1.0, A,
                        (blasint)lda, B, (blasint)ldb, 0.0, C, (blasint)g->N);
        else
            cblas_sgemm(CblasRowMajor, oa, ob, (blasint)g->M, (blasint)g->N, (blasint)g->K, 1.0f, A,
                        (blasint)lda, B, (blasint)ldb, 0.0f, C, (blasint)g->N);
    }
    double t = now_s() - t0;
    *cpu = cpu_s() - c0;
    return t;
}

static void fill_n(pc_dtype cd, void *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        rng = rng * 1664525u + 1013904223u;
        double v = (double)(rng >> 8) * 0x1p-23 - 1.0;
        if (cd == PC_DTYPE_F64)
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
}

static int layer_main(int argc, char **argv)
{
    pc_threads_prefer_passive(argv); /* as precheck run_ut does (core/threads.h) */
    long seq = 512;
    int repeats = 3;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--seq") == 0 && i + 1 < argc)
            seq = atol(argv[++i]);
        else
            repeats = atoi(argv[i]);
    }
    if (seq < 1 || repeats < 1) {
        fprintf(stderr, "usage: bench_gemm --layer [--seq N] [repeats]\n");
        return 2;
    }
    /* LLaMA-7B (llama_7b() in bench/llama_dump.h): hidden 4096, FFN 11008, vocabulary 32000 */
    int64_t S = seq, h = 4096, f = 11008, v = 32000;
    const int64_t lin[5][2] = {{h, 3 * h}, {h, h}, {h, 2 * f}, {f, h}, {h, v}}; /* in, out */
    layer_gemm gs[15];
    int ng = 0;
    int64_t na = 0, nb = 0, nc = 0;
    for (int l = 0; l < 5; l++) {
        int64_t in = lin[l][0], out = lin[l][1];
        gs[ng++] = (layer_gemm){"forward  ", S, out, in, false, true};
        gs[ng++] = (layer_gemm){"grad in  ", S, in, out, false, false};
        gs[ng++] = (layer_gemm){"grad w   ", out, in, S, true, false};
    }
    for (int i = 0; i < ng; i++) {
        na = gs[i].M * gs[i].K > na ? gs[i].M * gs[i].K : na;
        nb = gs[i].K * gs[i].N > nb ? gs[i].K * gs[i].N : nb;
        nc = gs[i].M * gs[i].N > nc ? gs[i].M * gs[i].N : nc;
    }
    double *A = malloc((size_t)na * 8), *B = malloc((size_t)nb * 8), *C = malloc((size_t)nc * 8);
    if (!A || !B || !C) {
        fprintf(stderr, "bench_gemm: out of memory\n");
        return 1;
    }
    int threads = omp_get_max_threads();
    printf(
        "GEMMs of the LLaMA-7B layer at sequence %ld, best of %d: precheck's blocks (ops/blas.h) "
        "against OpenBLAS, on %d threads (OpenBLAS's own threads) and on 1 (--jobs = cores: "
        "one single-threaded call)\n",
        seq, repeats, threads);
    for (int d = 0; d < 2; d++) {
        pc_dtype cd = d ? PC_DTYPE_F64 : PC_DTYPE_F32;
        fill_n(cd, A, na);
        fill_n(cd, B, nb);
        /* [threads: all, one][wall, cpu][OpenBLAS, blocks] */
        double sum[2][2][2] = {{{0}}}, lo[2] = {1e30, 1e30}, hi[2] = {0, 0};
        for (int i = 0; i < ng; i++) {
            const layer_gemm *g = &gs[i];
            double ratio[2][2];
            for (int k = 0; k < 2; k++) {
                int nt = k ? 1 : threads;
                double best[2][2] = {{1e30, 1e30}, {1e30, 1e30}}, cpu;
                omp_set_num_threads(nt);
                openblas_set_num_threads(nt);
                time_gemm(cd, g, false, A, B, C, &cpu); /* warm-up: pages and threads */
                for (int r = 0; r < repeats; r++)
                    for (int w = 0; w < 2; w++) { /* OpenBLAS, then the blocks */
                        double t = time_gemm(cd, g, w == 1, A, B, C, &cpu);
                        best[0][w] = t < best[0][w] ? t : best[0][w];
                        best[1][w] = cpu < best[1][w] ? cpu : best[1][w];
                    }
                for (int m = 0; m < 2; m++) {
                    ratio[k][m] = best[m][0] / best[m][1];
                    sum[k][m][0] += best[m][0];
                    sum[k][m][1] += best[m][1];
                }
                lo[k] = ratio[k][0] < lo[k] ? ratio[k][0] : lo[k];
                hi[k] = ratio[k][0] > hi[k] ? ratio[k][0] : hi[k];
            }
            int64_t pm, pn;
            pc_blas_gemm_blocks(g->M, g->N, g->K, &pm, &pn);
            printf("  %s %s %5lldx%5lldx%5lld %c%c: %2lldx%-2lld blocks, ratio %.3f (CPU time "
                   "%.3f), on 1 thread %.3f (%.3f)\n",
                   d ? "float64" : "float32", g->what, (long long)g->M, (long long)g->N,
                   (long long)g->K, g->ta ? 'T' : 'N', g->tb ? 'T' : 'N', (long long)pm,
                   (long long)pn, ratio[0][0], ratio[0][1], ratio[1][0], ratio[1][1]);
            fflush(stdout);
        }
        for (int k = 0; k < 2; k++)
            printf("%s, all %d products, %d thread(s): ratio %.3f (OpenBLAS %.2f s, blocks %.2f "
                   "s; per product %.3f to %.3f), CPU time ratio %.3f\n",
                   d ? "float64" : "float32", ng, k ? 1 : threads, sum[k][0][0] / sum[k][0][1],
                   sum[k][0][0], sum[k][0][1], lo[k], hi[k], sum[k][1][0] / sum[k][1][1]);
    }
    omp_set_num_threads(threads);
    free(A);
    free(B);
    free(C);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--layer") == 0)
        return layer_main(argc, argv);
    int64_t n = argc > 1 ? atoll(argv[1]) : 512;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    pc_backend dev;
    if (pc_backend_open(&dev, pc_backend_find("cpu"), NULL, NULL) != PC_OK)
        return 1;
    pc_tensor x = PC_TENSOR_NULL, w = PC_TENSOR_NULL, c = PC_TENSOR_NULL;
    int64_t sx[2] = {n, n};
    pc_tensor_alloc(&x, PC_DTYPE_F32, sx, 2);
    pc_tensor_alloc(&w, PC_DTYPE_F32, sx, 2);
    pc_tensor_alloc(&c, PC_DTYPE_F32, sx, 2);
    fill(&x);
    fill(&w);
    double blas = 1e30;
    for (int r = -1; r < repeats; r++) { /* r = -1: a warm-up (OpenBLAS starts its threads) */
        double t0 = now_s();
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)n, (blasint)n, (blasint)n,
                    1.0f, pc_tensor_data(&x), (blasint)n, pc_tensor_data(&w), (blasint)n, 0.0f,
                    pc_tensor_data(&c), (blasint)n);
        double t = now_s() - t0;
        if (r >= 0 && t < blas)
            blas = t;
    }
    const pc_tensor *args[2] = {&x, &w};
    pc_op_call call;
    make_call(&call, "linear", args, 2);
    double tl = time_op(&dev, &call, repeats);
    pc_op_call_free(&call);
    make_call(&call, "matmul", args, 2);
    double tm = time_op(&dev, &call, repeats);
    pc_op_call_free(&call);
    double gflop = 2.0 * (double)n * (double)n * (double)n * 1e-9;
    printf("gemm %lldx%lldx%lld float32: cblas_sgemm %.2f GFLOP/s\n", (long long)n, (long long)n,
           (long long)n, gflop / blas);
    printf("  Functional.linear  %.2f GFLOP/s  ratio %.3f\n", gflop / tl, blas / tl);
    printf("  Torch.matmul       %.2f GFLOP/s  ratio %.3f\n", gflop / tm, blas / tm);

    /* softmax over rows of 1024 */
    int64_t rows = 16384, cols = 1024, ss[2] = {rows, cols};
    pc_tensor s = PC_TENSOR_NULL;
    pc_tensor_alloc(&s, PC_DTYPE_F32, ss, 2);
    fill(&s);
    const pc_tensor *sa[1] = {&s};
    make_call(&call, "softmax", sa, 1);
    call.args[1].kind = PC_VALUE_INT;
    call.args[1].i = -1;
    double ts = time_op(&dev, &call, repeats);
    pc_op_call_free(&call);
    double rd = 1e30;
    volatile uint64_t sink = 0;
    for (int r = 0; r < repeats; r++) {
        double t0 = now_s();
        sink ^= stream_read(pc_tensor_data(&s), pc_tensor_nbytes(&s));
        double t = now_s() - t0;
        if (t < rd)
            rd = t;
    }
    if (sink == 1) /* keeps the reads */
        puts("");
    double mb = (double)pc_tensor_nbytes(&s) * 1e-6;
    printf("softmax [%lld, %lld] float32: %.0f MB/s, streaming read %.0f MB/s, fraction %.3f\n",
           (long long)rows, (long long)cols, mb / ts, mb / rd, rd / ts);

    /* layer_norm over the same rows, with weight and bias */
    int64_t sc = cols;
    pc_tensor lw = PC_TENSOR_NULL, lb = PC_TENSOR_NULL;
    pc_tensor_alloc(&lw, PC_DTYPE_F32, &sc, 1);
    pc_tensor_alloc(&lb, PC_DTYPE_F32, &sc, 1);
    fill(&lw);
    fill(&lb);
    const pc_tensor *la[1] = {&s};
    make_call(&call, "layer_norm", la, 1);
    call.args[1].kind = PC_VALUE_INT_LIST;
    call.args[1].nints = 1;
    call.args[1].ints[0] = cols;
    call.args[2].kind = call.args[3].kind = PC_VALUE_TENSOR;
    pc_tensor_share(&call.args[2].tensor, &lw);
    pc_tensor_share(&call.args[3].tensor, &lb);
    call.args[4].kind = PC_VALUE_FLOAT;
    call.args[4].f = 1e-5;
    double tn = time_op(&dev, &call, repeats);
    pc_op_call_free(&call);
    printf("layer_norm [%lld, %lld] float32: %.0f MB/s, fraction of the streaming read %.3f\n",
           (long long)rows, (long long)cols, mb / tn, rd / tn);
    pc_tensor_free(&lw);
    pc_tensor_free(&lb);

    /* conv2d [4, 64, 28, 28] x [64, 64, 3, 3], padding 1, through the op (im2col + sgemm,
     * device order) against the sgemms of the same sizes alone (4 x [64, 576] x [576, 784]) */
    {
        int64_t xs[4] = {4, 64, 28, 28}, ws[4] = {64, 64, 3, 3};
        pc_tensor cx = PC_TENSOR_NULL, cw = PC_TENSOR_NULL;
        pc_tensor_alloc(&cx, PC_DTYPE_F32, xs, 4);
        pc_tensor_alloc(&cw, PC_DTYPE_F32, ws, 4);
        fill(&cx);
        fill(&cw);
        const pc_tensor *ca[2] = {&cx, &cw};
        make_call(&call, "conv2d", ca, 2);
        for (int k = 3; k <= 5; k++) { /* stride, padding, dilation */
            call.args[k].kind = PC_VALUE_INT_LIST;
            call.args[k].nints = 2;
            call.args[k].ints[0] = call.args[k].ints[1] = 1;
        }
        call.args[6].kind = PC_VALUE_INT;
        call.args[6].i = 1;
        double tc = time_op(&dev, &call, repeats);
        pc_op_call_free(&call);
        int64_t M = 64, K = 576, N = 784;
        float *a = calloc((size_t)(M * K), sizeof *a), *bb = calloc((size_t)(K * N), sizeof *bb);
        float *cc = calloc((size_t)(M * N), sizeof *cc);
        double tg = 1e30;
        for (int r = 0; r < repeats && a && bb && cc; r++) {
            double t0 = now_s();
            for (int q = 0; q < 4; q++)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (blasint)M, (blasint)N,
                            (blasint)K, 1.0f, a, (blasint)K, bb, (blasint)N, 0.0f, cc, (blasint)N);
            double t = now_s() - t0;
            if (t < tg)
                tg = t;
        }
        free(a);
        free(bb);
        free(cc);
        double cf = 2.0 * 4 * (double)M * (double)K * (double)N * 1e-9;
        printf("conv2d [4, 64, 28, 28] 3x3 float32: %.2f GFLOP/s, its sgemms alone %.2f GFLOP/s, "
               "ratio %.3f\n",
               cf / tc, cf / tg, tg / tc);
        pc_tensor_free(&cx);
        pc_tensor_free(&cw);
    }

    /* sgemm right after an OpenMP parallel region (the metrics and kernels use OpenMP): with
     * the pthread OpenBLAS the two pools alternate on the same cores */
    double mixed = 1e30;
    for (int r = 0; r < repeats; r++) {
        double t0 = now_s();
        for (int k = 0; k < 4; k++) {
            float *v = pc_tensor_data(&s);
            int64_t nn = pc_tensor_numel(&s) / 16;
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < nn; i++)
                v[i] = v[i] * 0.5f + 0.25f;
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (blasint)n, (blasint)n, (blasint)n,
                        1.0f, pc_tensor_data(&x), (blasint)n, pc_tensor_data(&w), (blasint)n, 0.0f,
                        pc_tensor_data(&c), (blasint)n);
        }
        double t = (now_s() - t0) / 4;
        if (t < mixed)
            mixed = t;
    }
    printf("sgemm after an OpenMP region: %.2f GFLOP/s (ratio to sgemm alone %.3f)\n",
           gflop / mixed, blas / mixed);
    pc_tensor_free(&x);
    pc_tensor_free(&w);
    pc_tensor_free(&c);
    pc_tensor_free(&s);
    pc_backend_close(&dev);
    return 0;
}
