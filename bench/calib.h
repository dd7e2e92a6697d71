/*
 * The machine's rates for the benches' cost-model limits: the float32 and float64 GEMM rates
 * OpenBLAS reaches here (square 2048 products, best of 3 after a warm-up) and the streaming
 * bandwidth (a copy of 256 MB, read + write bytes, best of 5), on a given number of threads.
 */
#ifndef PC_BENCH_CALIB_H
#define PC_BENCH_CALIB_H

typedef struct bench_calib {
    double sgemm, dgemm, bandwidth; /* FLOP/s, FLOP/s, bytes/s */
} bench_calib;

/* The rates in this process on `threads` threads (0: all), which runs OpenBLAS and OpenMP
 * here: a process that forks workers afterwards (run_ut in process) uses bench_calib_forked. */
bench_calib bench_calib_measure(int threads);

/* The same in a forked child; 0, or -1 when the child failed. */
int bench_calib_forked(int threads, bench_calib *out);

/* acc = the faster of acc and c, rate by rate (the machine's rates drift by 10-20% over
 * minutes; the faster rate gives the smaller, stricter, limit). */
void bench_calib_best(bench_calib *acc, const bench_calib *c);

#endif
