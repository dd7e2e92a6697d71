/*
 * run_ut on a LLaMA-7B-shaped layer against the machine's limit for the same work.
 *
 * 1. Calibration, in a forked child (this process must not run OpenMP or BLAS before run_ut
 *    forks workers): the float32 and float64 GEMM rates that OpenBLAS reaches here (square
 *    2048 products, all threads, best of 3), and the streaming bandwidth (a threaded copy of
 *    256 MB, read + write bytes, best of 5); once more after the run, in this process, and the
 *    higher of the two rates of each kind used.
 * 2. The dump: llama_dump.h (one decoder layer of LLaMA-7B plus embedding, head and
 *    cross_entropy, statistics mode, forward and backward records; bfloat16 or --fp32; the
 *    torch_npu fused ops or --eager ones), and the cost model it carries: the GEMM FLOPs of the
 *    GEMM-like ops per side and rate, and the bytes every other stage must touch.
 * 3. run_ut on it in this process (as one worker: all threads for each API), with the time
 *    per stage, and the peak resident memory.
 * It prints wall time, the stages, limit = flops32 / sgemm + flops64 / dgemm + bytes /
 * bandwidth, and wall / limit (target <= 1.5); peak memory against 3 x the largest record's
 * input+output bytes in the bench dtype + 64 MB; and the statuses of the run's APIs (a SKIP for
 * a missing op would make the run look faster than the limit, so they are listed).
 *
 * With --cache, two more runs with --bench-cache: the first fills the cache, the second (as the
 * other machine's run on the same dump would) reads it; it prints both walls, the speed-up of
 * the second over the plain run, and whether all three runs wrote the same CSVs.
 *
 * With --medium, a dump of many medium APIs instead (the case the 7B layer's big GEMMs hide):
 * the same generator at hidden 512, 8 heads, FFN 1376, vocabulary 2048, sequence 256, batch
 * 2, 4 layers, float32, eager ops (207 APIs with backward), run as run_ut runs it by default
 * (its workers chosen from the dump: runner/run_ut.c) and with --jobs 1, both against the limit
 * (target <= 2); the stages are not timed then (they are per process).
 *
 * usage: bench_e2e [--fp32] [--eager] [--layers N] [--seq N] [--cache] [--keep DIR] [--medium]
 */
#include <cblas.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bench_run.h"
#include "calib.h"
#include "llama_dump.h"
#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/core/threads.h"
#include "precheck/runner/runner.h"

static double run_into(const char *dump, const char *out, const char *cache)
{
    return bench_run_ut(dump, out, "cpu", NULL, cache, NULL);
}

static int cache_runs(const char *dir, const char *dump, const char *plain, double wall)
{
    char cache[1200], fill[1200], reuse[1200];
    snprintf(cache, sizeof cache, "%s/bench_cache", dir);
    snprintf(fill, sizeof fill, "%s/out_fill", dir);
    snprintf(reuse, sizeof reuse, "%s/out_reuse", dir);
    double t1 = run_into(dump, fill, cache);
    double t2 = t1 < 0 ? -1 : run_into(dump, reuse, cache);
    if (t2 < 0) {
        fprintf(stderr, "bench_e2e: run_ut with --bench-cache failed\n");
        return -1;
    }
    char du[1400];
    snprintf(du, sizeof du, "du -sm '%s' | cut -f1", cache);
    FILE *p = popen(du, "r");
    int mb = -1;
    if (p) {
        if (fscanf(p, "%d", &mb) != 1)
            mb = -1;
        pclose(p);
    }
    printf("  --bench-cache: filling run %.2f s, reusing run %.2f s: %.2fx faster than the plain "
           "run; cache %d MB; CSVs of the three runs %s\n",
           t1, t2, wall / t2, mb,
           bench_same_csvs(plain, fill) && bench_same_csvs(plain, reuse) ? "identical" : "DIFFER");
    return 0;
}

int main(int argc, char **argv)
{
    pc_threads_prefer_passive(argv); /* as precheck run_ut does (core/threads.h) */
    llama_cfg c = llama_7b();
    const char *keep = NULL;
    int cache = 0, medium = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fp32") == 0)
            c.fp32 = 1;
        else if (strcmp(argv[i], "--eager") == 0)
            c.eager = 1;
        else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            c.layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seq") == 0 && i + 1 < argc)
            c.seq = atol(argv[++i]);
        else if (strcmp(argv[i], "--cache") == 0)
            cache = 1;
        else if (strcmp(argv[i], "--medium") == 0) {
            medium = 1;
            c = (llama_cfg){512, 8, 64, 1376, 2048, 256, 2, 4, 1, 1, 0};
        } else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = argv[++i];
        else {
            fprintf(stderr, "usage: bench_e2e [--fp32] [--eager] [--layers N] [--seq N] "
                            "[--cache] [--keep DIR] [--medium]\n");
            return 2;
        }
    }
    if (c.layers < 1 || c.seq < 1)
        return 2;
    pc_log_set_level(PC_LOG_WARNING);
    fflush(stdout);
    bench_calib cal;
    if (bench_calib_forked(0, &cal) != 0) {
        fprintf(stderr, "bench_e2e: calibration failed\n");
        return 1;
    }
    char tmp[] = "/tmp/bench_e2e_XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    const char *dir = keep ? keep : tmp;
    char dump[1200], out[1200];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    FILE *f = fopen(dump, "w");
    if (!f) {
        perror(dump);
        return 1;
    }
    llama_cost k = llama_dump_write(f, &c);
    if (fclose(f) != 0)
        return 1;

    pc_run_timing tm = {0};
    pc_run_options o = {
        .api_info = dump,
        .out_path = out,
        .backend = "cpu",
        .bench_policy = "msprobe",
        .seed = 1234,
        .workers = 0,
        .timing = &tm,
    };
    char mk[1400];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", out);
    if (system(mk) != 0)
        return 1;
    double wall = 0, wall_one = 0;
    int workers = 0;
    if (medium) {
        /* as run_ut's default (workers chosen), then --jobs 1, in turns, best of 3 each */
        wall = wall_one = 1e30;
        for (int round = 0; round < 3; round++)
            for (int one = 0; one < 2; one++) {
                char sub[1250];
                snprintf(sub, sizeof sub, "%s/%s%d", out, one ? "one" : "auto", round);
                pc_run_options m = o;
                m.out_path = sub;
                m.timing = NULL;
                m.workers = 1;
                m.workers_auto = !one;
                snprintf(mk, sizeof mk, "mkdir -p '%s'", sub);
                double t = pc_clock_seconds();
                if (system(mk) != 0 || pc_run_ut(&m) != 0) {
                    fprintf(stderr, "bench_e2e: run_ut failed\n");
                    return 1;
                }
                t = pc_clock_seconds() - t;
                double *best = one ? &wall_one : &wall;
                *best = t < *best ? t : *best;
            }
        /* once more in this process, for the stages (one worker's view: all threads for
         * each API) */
        char in_process[1300];
        snprintf(in_process, sizeof in_process, "%s/in_process", out);
        o.out_path = in_process;
        snprintf(mk, sizeof mk, "mkdir -p '%s'", in_process);
        if (system(mk) != 0 || pc_run_ut(&o) != 0) {
            fprintf(stderr, "bench_e2e: run_ut failed\n");
            return 1;
        }
        memmove(out, in_process, strlen(in_process) + 1); /* for the statuses below */
        workers = -1;
    } else {
        wall = pc_clock_seconds();
        int rc = pc_run_ut(&o);
        wall = pc_clock_seconds() - wall;
        if (rc != 0) {
            fprintf(stderr, "bench_e2e: run_ut failed (%d)\n", rc);
            return 1;
        }
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double peak = (double)ru.ru_maxrss * 1024.0;
    /* calibrated again after the run (here: the process is done with forking), and the best
     * of the two kept: the machine's rates drift by 10-20% over minutes, and the faster rate
     * gives the smaller (stricter) limit */
    bench_calib before = cal, after = bench_calib_measure(0);
    bench_calib_best(&cal, &after);

    double t_gemm = k.flops32 / cal.sgemm + k.flops64 / cal.dgemm;
    double t_mem = k.bytes / cal.bandwidth;
    double limit = t_gemm + t_mem;
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    printf("bench_e2e: LLaMA-%s-shaped dump, %s, %s ops, %d layer%s, sequence %ld: %ld forward "
           "and %ld backward records; %d threads\n",
           medium ? "medium (hidden 512)" : "7B", c.fp32 ? "float32" : "bfloat16",
           c.eager ? "eager" : "fused", c.layers, c.layers == 1 ? "" : "s", c.seq, k.records,
           k.backwards, threads);
    printf("  calibration (best of before and after the run): SGEMM %.1f GFLOP/s (%.1f, %.1f), "
           "DGEMM %.1f GFLOP/s (%.1f, %.1f), stream %.1f GB/s (%.1f, %.1f)\n",
           cal.sgemm / 1e9, before.sgemm / 1e9, after.sgemm / 1e9, cal.dgemm / 1e9,
           before.dgemm / 1e9, after.dgemm / 1e9, cal.bandwidth / 1e9, before.bandwidth / 1e9,
           after.bandwidth / 1e9);
    if (workers < 0)
        printf("  wall, best of 3: %.2f s as run_ut's default (workers chosen from the dump), "
               "%.2f s with --jobs 1 (default / --jobs 1 = %.2f); in this process: parse "
               "%.2f, inputs %.2f, device %.2f, bench %.2f, compare %.2f, write %.3f\n",
               wall, wall_one, wall / wall_one, tm.parse, tm.inputs, tm.device, tm.bench,
               tm.compare, tm.write);
    else
        printf("  wall %.2f s: parse %.2f, inputs %.2f, device %.2f, bench %.2f, compare %.2f, "
               "write %.3f\n",
               wall, tm.parse, tm.inputs, tm.device, tm.bench, tm.compare, tm.write);
    printf("  limit %.2f s = GEMM %.2f s (%.0f GFLOP float32, %.0f GFLOP float64) + memory "
           "%.2f s (%.1f GB)\n",
           limit, t_gemm, k.flops32 / 1e9, k.flops64 / 1e9, t_mem, k.bytes / 1e9);
    printf("  wall / limit = %.2f (target <= %s)\n", wall / limit, medium ? "2" : "1.5");
    if (medium) { /* the work ran in worker processes: this process's peak says nothing */
        bench_report_statuses(out, "");
        return 0;
    }
    double target = 3.0 * k.largest + 64.0 * 1048576;
    printf("  peak RSS %.0f MB; largest record %s %.0f MB in+out in the bench dtype; 3x + 64 MB "
           "= %.0f MB: peak / target %.2f (target <= 1)\n",
           peak / 1048576, k.largest_name, k.largest / 1048576, target / 1048576, peak / target);
    bench_report_statuses(out, "");
    if (cache && cache_runs(dir, dump, out, wall) != 0)
        return 1;
    if (!keep) {
        char cmd[200];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            return 1;
    } else {
        rmdir(tmp);
    }
    return 0;
}
