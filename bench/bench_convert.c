/*
 * Conversion throughput: float32 <-> bfloat16 / float16 over 2^26 elements, against memcpy of
 * the source buffer measured in the same run. ratio = memcpy time / conversion time for the
 * same number of source bytes (1.0: as fast as copying the input; the conversion writes half
 * the bytes memcpy writes for narrowing and twice for widening).
 *
 * usage: bench_convert [log2_elements=26] [repeats=7]; best of the repeats is reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/convert_impl.h"
#include "precheck/core/convert.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef enum { F32_TO_BF16, F32_TO_F16, BF16_TO_F32, F16_TO_F32 } which;

static void run(which w, int portable, void *dst, const void *src, size_t n)
{
    switch (w) {
    case F32_TO_BF16:
        (portable ? pc_convert_f32_to_bf16_portable : pc_convert_f32_to_bf16)(dst, src, n);
        break;
    case F32_TO_F16:
        (portable ? pc_convert_f32_to_f16_portable : pc_convert_f32_to_f16)(dst, src, n);
        break;
    case BF16_TO_F32:
        (portable ? pc_convert_bf16_to_f32_portable : pc_convert_bf16_to_f32)(dst, src, n);
        break;
    case F16_TO_F32:
        (portable ? pc_convert_f16_to_f32_portable : pc_convert_f16_to_f32)(dst, src, n);
        break;
    }
}

int main(int argc, char **argv)
{
    int lg = argc > 1 ? atoi(argv[1]) : 26;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (lg < 10 || lg > 30 || reps < 1) {
        fprintf(stderr, "usage: bench_convert [log2_elements 10..30] [repeats >= 1]\n");
        return 2;
    }
    size_t n = (size_t)1 << lg;
    float *f32 = malloc(n * 4), *f32_out = malloc(n * 4), *copy = malloc(n * 4);
    uint16_t *h16 = malloc(n * 2), *copy16 = malloc(n * 2);
    if (!f32 || !f32_out || !copy || !h16 || !copy16) {
        fprintf(stderr, "bench_convert: cannot allocate %zu MiB\n", (n * 14) >> 20);
        return 1;
    }
    uint32_t s = 1;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        f32[i] = (float)(s >> 8) * 0x1p-20f - 8.0f; /* finite values of every magnitude */
    }
    memset(f32_out, 0, n * 4);
    memset(copy, 0, n * 4);
    memset(copy16, 0, n * 2);
    pc_convert_f32_to_f16(h16, f32, n);

    const char *names[] = {"f32->bf16", "f32->f16", "bf16->f32", "f16->f32"};
    printf("bench_convert: %zu elements, best of %d, kernels: %s\n", n, reps,
           pc_convert_isa() == PC_ISA_AVX2_F16C ? "AVX2+F16C" : "portable");
    printf("%-10s %10s %10s %12s %8s %14s\n", "conversion", "conv ms", "memcpy ms", "conv GB/s",
           "ratio", "portable ratio");
    for (int w = 0; w < 4; w++) {
        int narrowing = w < 2;
        const void *src = narrowing ? (const void *)f32 : (const void *)h16;
        void *dst = narrowing ? (void *)h16 : (void *)f32_out;
        size_t src_bytes = n * (narrowing ? 4 : 2);
        void *copy_dst = narrowing ? (void *)copy : (void *)copy16;
        double best_conv = 1e30, best_port = 1e30, best_copy = 1e30;
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            memcpy(copy_dst, src, src_bytes);
            double t1 = now_s();
            run((which)w, 0, dst, src, n);
            double t2 = now_s();
            run((which)w, 1, dst, src, n);
            double t3 = now_s();
            if (t1 - t0 < best_copy)
                best_copy = t1 - t0;
            if (t2 - t1 < best_conv)
                best_conv = t2 - t1;
            if (t3 - t2 < best_port)
                best_port = t3 - t2;
        }
        printf("%-10s %10.2f %10.2f %12.2f %8.2f %14.2f\n", names[w], best_conv * 1e3,
               best_copy * 1e3, (double)src_bytes / best_conv * 1e-9, best_copy / best_conv,
               best_copy / best_port);
    }
    volatile uint16_t sink = h16[n / 2] ^ copy16[n / 3];
    (void)sink;
    free(f32);
    free(f32_out);
    free(copy);
    free(h16);
    free(copy16);
    return 0;
}
