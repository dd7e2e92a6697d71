/* The benches' calibration (calib.h). */
#include "calib.h"

#include <cblas.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "precheck/core/clock.h"

static double gemm_rate(int dbl)
{
    const int n = 2048;
    size_t es = dbl ? sizeof(double) : sizeof(float);
    void *a = malloc((size_t)n * (size_t)n * es), *b = malloc((size_t)n * (size_t)n * es),
         *c = malloc((size_t)n * (size_t)n * es);
    if (!a || !b || !c)
        exit(1);
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++) {
        double v = (double)((i * 2654435761u) % 1000) / 1000.0 - 0.5;
        if (dbl) {
            ((double *)a)[i] = v;
            ((double *)b)[i] = -v;
        } else {
            ((float *)a)[i] = (float)v;
            ((float *)b)[i] = (float)-v;
        }
    }
    double best = 1e30;
    for (int r = 0; r < 4; r++) { /* the first warms up */
        double t = pc_clock_seconds();
        if (dbl)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c,
                        n);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f,
                        c, n);
        t = pc_clock_seconds() - t;
        if (r > 0 && t < best)
            best = t;
    }
    free(a);
    free(b);
    free(c);
    return 2.0 * n * (double)n * n / best;
}

static double stream_rate(void)
{
    const size_t n = (size_t)32 << 20; /* doubles: 256 MB per buffer */
    double *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    if (!src || !dst)
        exit(1);
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        src[i] = (double)i;
        dst[i] = 0;
    }
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double t = pc_clock_seconds();
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i] * 1.0000001;
        t = pc_clock_seconds() - t;
        if (t < best)
            best = t;
    }
    volatile double sink = dst[n / 2];
    (void)sink;
    free(src);
    free(dst);
    return 2.0 * (double)n * sizeof(double) / best;
}

bench_calib bench_calib_measure(int threads)
{
#ifdef _OPENMP
    int omp_saved = omp_get_max_threads(), blas_saved = openblas_get_num_threads();
    if (threads > 0) {
        omp_set_num_threads(threads);
        openblas_set_num_threads(threads);
    }
#endif
    bench_calib c = {gemm_rate(0), gemm_rate(1), stream_rate()};
#ifdef _OPENMP
    omp_set_num_threads(omp_saved);
    openblas_set_num_threads(blas_saved);
#endif
    return c;
}

int bench_calib_forked(int threads, bench_calib *out)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        bench_calib c = bench_calib_measure(threads);
        _exit(write(fd[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = pid > 0 ? read(fd[0], out, sizeof *out) : -1;
    close(fd[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    return got == (ssize_t)sizeof *out && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

void bench_calib_best(bench_calib *acc, const bench_calib *c)
{
    acc->sgemm = c->sgemm > acc->sgemm ? c->sgemm : acc->sgemm;
    acc->dgemm = c->dgemm > acc->dgemm ? c->dgemm : acc->dgemm;
    acc->bandwidth = c->bandwidth > acc->bandwidth ? c->bandwidth : acc->bandwidth;
}
