/*
 * Metric throughput: the full metric set of one output (cosine, max abs error, dual ratios and
 * one precision standard's columns, in pc_metrics_compute's fused pass) against a plain
 * streaming read of the same two buffers, measured in the same run. ratio = read time / metric
 * time (1.0: the metrics run as fast as merely reading the bytes).
 *
 * Pairs (2^25 elements by default): float32 device vs float64 bench, bfloat16 vs float32,
 * float16 vs float32; for each, the standards benchmark, absolute, ULP and binary, on one
 * thread and on all threads. Data: a bench of varied magnitudes and a device that is the bench
 * rounded to its dtype with a small relative error, a few small values and zeros.
 *
 * usage: bench_metrics [log2_elements=25] [repeats=5] [threads=0 (all)]; best of the repeats.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "precheck/compare/metrics.h"
#include "precheck/core/convert.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reads every byte of both buffers (as 64-bit words, in 8 independent lanes so that the loop
 * is limited by memory, not by an addition chain). */
static uint64_t stream_read(const void *a, size_t na, const void *b, size_t nb)
{
    uint64_t acc[8] = {0};
    const uint64_t *p = a, *q = b;
    for (size_t i = 0; i + 8 <= na / 8; i += 8)
        for (size_t j = 0; j < 8; j++)
            acc[j] ^= p[i + j];
    for (size_t i = 0; i + 8 <= nb / 8; i += 8)
        for (size_t j = 0; j < 8; j++)
            acc[j] ^= q[i + j];
    uint64_t r = 0;
    for (int j = 0; j < 8; j++)
        r ^= acc[j];
    return r;
}

static uint32_t rng = 12345;

static double next_uniform(void)
{
    rng = rng * 1664525u + 1013904223u;
    return (double)(rng >> 8) * 0x1p-24;
}

static void fill(void *bench, pc_dtype bt, void *device, pc_dtype dt, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double u = next_uniform();
        double b = (u - 0.5) * (double)(1u << (rng % 12)); /* magnitudes up to 2^11 */
        if (rng % 97 == 0)
            b = 1e-7 * u; /* a few small values */
        if (rng % 101 == 0)
            b = 0;
        double d = b * (1 + (next_uniform() - 0.5) * 1e-3);
        pc_element_store((char *)bench + i * pc_dtype_size(bt), bt, b, 0);
        pc_element_store((char *)device + i * pc_dtype_size(dt), dt, d, 0);
    }
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 25;
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    int all_threads = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : omp_get_max_threads();
    if (lg < 10 || lg > 30 || reps < 1) {
        fprintf(stderr, "usage: bench_metrics [log2_elements 10..30] [repeats >= 1] [threads]\n");
        return 2;
    }
    size_t n = (size_t)1 << lg;
    struct {
        const char *name;
        pc_dtype bench, device, output;
    } pairs[] = {
        {"f32 dev vs f64 bench", PC_DTYPE_F64, PC_DTYPE_F32, PC_DTYPE_F32},
        {"bf16 dev vs f32 bench", PC_DTYPE_F32, PC_DTYPE_BF16, PC_DTYPE_BF16},
        {"f16 dev vs f32 bench", PC_DTYPE_F32, PC_DTYPE_F16, PC_DTYPE_F16},
    };
    struct {
        const char *name;
        pc_standard s;
    } standards[] = {
        {"benchmark", PC_STANDARD_BENCHMARK},
        {"absolute", PC_STANDARD_ABSOLUTE},
        {"ulp", PC_STANDARD_ULP},
        {"binary", PC_STANDARD_BINARY},
    };
    void *bench = malloc(n * 8), *device = malloc(n * 8);
    if (!bench || !device) {
        fprintf(stderr, "bench_metrics: cannot allocate %zu MiB\n", (n * 16) >> 20);
        return 1;
    }
    printf("bench_metrics: %zu elements, best of %d, threads 1 and %d\n", n, reps, all_threads);
    printf("%-22s %-10s %9s %9s %8s %10s %9s %8s\n", "pair", "standard", "read ms", "1T ms",
           "ratio", "1T Melem/s", "nT ms", "nT ratio");
    volatile uint64_t sink = 0;
    for (size_t pi = 0; pi < sizeof pairs / sizeof pairs[0]; pi++) {
        size_t bb = n * pc_dtype_size(pairs[pi].bench), db = n * pc_dtype_size(pairs[pi].device);
        fill(bench, pairs[pi].bench, device, pairs[pi].device, n);
        for (size_t si = 0; si < sizeof standards / sizeof standards[0]; si++) {
            double best_read = 1e30, best_1 = 1e30, best_n = 1e30;
            for (int r = 0; r < reps; r++) {
                double t0 = now_s();
                sink ^= stream_read(bench, bb, device, db);
                double t1 = now_s();
                for (int pass = 0; pass < 2; pass++) {
                    pc_metrics_input in = {
                        .bench = bench,
                        .bench_dtype = pairs[pi].bench,
                        .device = device,
                        .device_dtype = pairs[pi].device,
                        .n = (int64_t)n,
                        .output_dtype = pairs[pi].output,
                        .standard = standards[si].s,
                        .threads = pass == 0 ? 1 : all_threads,
                    };
                    pc_metrics_result res;
                    double s0 = now_s();
                    if (pc_metrics_compute(&in, &res) != PC_OK) {
                        fprintf(stderr, "bench_metrics: %s\n", pc_error_message());
                        return 1;
                    }
                    double s1 = now_s();
                    sink ^= (uint64_t)res.rel_err_ratio[1];
                    if (pass == 0 && s1 - s0 < best_1)
                        best_1 = s1 - s0;
                    if (pass == 1 && s1 - s0 < best_n)
                        best_n = s1 - s0;
                }
                if (t1 - t0 < best_read)
                    best_read = t1 - t0;
            }
            printf("%-22s %-10s %9.2f %9.2f %8.2f %10.0f %9.2f %8.2f\n", pairs[pi].name,
                   standards[si].name, best_read * 1e3, best_1 * 1e3, best_read / best_1,
                   (double)n / best_1 * 1e-6, best_n * 1e3, best_read / best_n);
        }
    }
    free(bench);
    free(device);
    if (sink == 1)
        printf("(sink %llu)\n", (unsigned long long)sink); /* keeps the work */
    return 0;
}
