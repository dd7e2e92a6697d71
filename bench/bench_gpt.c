/*
 * run_ut on a GPT-2-small-shaped dump (issue #31's medium dump: llama_dump.h's gpt style,
 * hidden 512, 8 heads, FFN 2048, vocabulary 2048, sequence 256, batch 2, 4 layers, 105 forward
 * APIs with backward: linear, matmul, dropout, masked_fill with -inf, softmax, layer_norm,
 * gelu, embedding, cross_entropy), as a user runs it: the precheck executable with its default
 * flags, its workers chosen from the dump.
 *
 * 1. Calibration in forked children (calib.h), on all threads and on one: the wall limit is
 *    flops32 / sgemm + flops64 / dgemm + bytes / bandwidth at the all-thread rates (the
 *    machine's shortest time for the cost model's work, llama_dump.h); the CPU limit is the
 *    same at one thread's rates (the CPU seconds that work needs).
 * 2. The dump (float32; --bf16; --tensor: materialised into real tensors by precheck
 *    materialize, as a tensor-mode dump).
 * 3. precheck run_ut with default flags, then with --jobs 1, in turns, 3 times each. While a
 *    run goes, the CPU time of its processes (precheck and its workers: every thread's
 *    /proc/PID/task/TID/schedstat) is sampled every 10 ms; the busy cores of each interval give
 *    the share of the wall time in which a second core was busy (sum over intervals of
 *    min(1, max(0, busy - 1)) dt / wall), the "both cores busy" figure.
 * Prints, for the best (fastest) default run: wall / wall limit (target <= 2), CPU / CPU limit
 * (target <= 1.5; CPU = user + system of the whole process tree), the second-core share
 * (target >= 0.8 on 2 cores), --jobs 1's wall and CPU, and whether every run wrote the same
 * CSVs (the determinism promise across --jobs).
 *
 * --precheck PATH runs another build's executable instead (an older one, for a before/after
 * figure on the same machine).
 *
 * usage: bench_gpt [--bf16] [--tensor] [--layers N] [--seq N] [--keep DIR] [--precheck PATH]
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_run.h"
#include "calib.h"
#include "llama_dump.h"
#include "precheck/core/clock.h"

#ifndef PC_BENCH_PRECHECK
#define PC_BENCH_PRECHECK "precheck"
#endif

/* Nanoseconds on a CPU of every thread of pid and of its children (recursively). */
static double tree_cpu_ns(pid_t pid, int depth)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    double ns = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char f[400];
        snprintf(f, sizeof f, "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
        FILE *s = fopen(f, "r");
        if (s) {
            unsigned long long run = 0;
            if (fscanf(s, "%llu", &run) == 1)
                ns += (double)run;
            fclose(s);
        }
        if (depth > 0) {
            snprintf(f, sizeof f, "/proc/%d/task/%s/children", (int)pid, e->d_name);
            FILE *c = fopen(f, "r");
            if (c) {
                int child;
                while (fscanf(c, "%d", &child) == 1)
                    ns += tree_cpu_ns((pid_t)child, depth - 1);
                fclose(c);
            }
        }
    }
    closedir(d);
    return ns;
}

typedef struct run_figures {
    double wall, cpu, second; /* seconds, CPU seconds, share of wall with a second core busy */
    int ok;
} run_figures;

/* Runs argv (precheck ...) with stdout and stderr to log, sampling its tree's CPU time. */
static run_figures run_sampled(char *const argv[], const char *log)
{
    run_figures f = {0};
    fflush(NULL);
    double t0 = pc_clock_seconds();
    pid_t pid = fork();
    if (pid == 0) {
        FILE *l = freopen(log, "w", stdout);
        if (!l || dup2(fileno(stdout), 2) < 0)
            _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0)
        return f;
    double last_t = t0, last_ns = 0, second = 0;
    int status = 0;
    struct rusage ru;
    for (;;) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double ns = tree_cpu_ns(pid, 2), t = pc_clock_seconds();
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid) { /* the last interval: the rest of the CPU time, from rusage */
            double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
            f.wall = t - t0;
            f.cpu = cpu;
            double busy = (cpu - last_ns * 1e-9) / (t - last_t);
            second += (busy > 2 ? 1 : busy > 1 ? busy - 1 : 0) * (t - last_t);
            break;
        }
        if (ns >= last_ns && t > last_t) {
            double busy = (ns - last_ns) * 1e-9 / (t - last_t);
            second += (busy > 2 ? 1 : busy > 1 ? busy - 1 : 0) * (t - last_t);
            last_ns = ns;
            last_t = t;
        }
    }
    f.second = f.wall > 0 ? second / f.wall : 0;
    f.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return f;
}

static int sh(const char *cmd)
{
    fflush(NULL);
    return system(cmd);
}

int main(int argc, char **argv)
{
    llama_cfg c = llama_gpt_medium();
    const char *keep = NULL, *precheck = PC_BENCH_PRECHECK;
    int tensor = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bf16") == 0)
            c.fp32 = 0;
        else if (strcmp(argv[i], "--tensor") == 0)
            tensor = 1;
        else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            c.layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seq") == 0 && i + 1 < argc)
            c.seq = atol(argv[++i]);
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = argv[++i];
        else if (strcmp(argv[i], "--precheck") == 0 && i + 1 < argc)
            precheck = argv[++i];
        else {
            fprintf(stderr, "usage: bench_gpt [--bf16] [--tensor] [--layers N] [--seq N] "
                            "[--keep DIR] [--precheck PATH]\n");
            return 2;
        }
    }
    if (c.layers < 1 || c.seq < 1)
        return 2;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    bench_calib all, one;
    if (bench_calib_forked(0, &all) != 0 || bench_calib_forked(1, &one) != 0) {
        fprintf(stderr, "bench_gpt: calibration failed\n");
        return 1;
    }
    char tmp[] = "/tmp/bench_gpt_XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    const char *dir = keep ? keep : tmp;
    char dump[1200], cmd[4000];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (sh(cmd) != 0)
        return 1;
    snprintf(dump, sizeof dump, "%s/stats.json", dir);
    FILE *f = fopen(dump, "w");
    if (!f) {
        perror(dump);
        return 1;
    }
    llama_cost k = llama_dump_write(f, &c);
    if (fclose(f) != 0)
        return 1;
    if (tensor) {
        snprintf(cmd, sizeof cmd,
                 "rm -rf '%s/tensor' && '%s' materialize -api_info '%s' -o '%s/tensor' "
                 ">'%s/materialize.log' 2>&1",
                 dir, precheck, dump, dir, dir);
        if (sh(cmd) != 0) {
            fprintf(stderr, "bench_gpt: precheck materialize failed (%s/materialize.log)\n", dir);
            return 1;
        }
        snprintf(dump, sizeof dump, "%s/tensor/dump.json", dir);
    }

    run_figures best[2] = {{1e30, 0, 0, 0}, {1e30, 0, 0, 0}};
    char first[1300] = "";
    int same = 1;
    for (int round = 0; round < 3; round++)
        for (int one_job = 0; one_job < 2; one_job++) {
            char out[1300], log[1400];
            snprintf(out, sizeof out, "%s/out_%s%d", dir, one_job ? "jobs1_" : "default_", round);
            snprintf(log, sizeof log, "%s.log", out);
            snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
            if (sh(cmd) != 0)
                return 1;
            char prog[1024];
            snprintf(prog, sizeof prog, "%s", precheck);
            char *args[] = {prog, "run_ut", "-api_info",     dump,
                            "-o", out,      "--no-progress", one_job ? "--jobs" : NULL,
                            "1",  NULL};
            run_figures r = run_sampled(args, log);
            if (!r.ok) {
                fprintf(stderr, "bench_gpt: run_ut failed (%s)\n", log);
                return 1;
            }
            if (!first[0])
                snprintf(first, sizeof first, "%s", out);
            else if (!bench_same_csvs(first, out))
                same = 0;
            if (r.wall < best[one_job].wall)
                best[one_job] = r;
        }
    bench_calib after = bench_calib_measure(0), after1 = bench_calib_measure(1);
    bench_calib_best(&all, &after);
    bench_calib_best(&one, &after1);
    double limit = k.flops32 / all.sgemm + k.flops64 / all.dgemm + k.bytes / all.bandwidth;
    double cpu_limit = k.flops32 / one.sgemm + k.flops64 / one.dgemm + k.bytes / one.bandwidth;
    printf("bench_gpt: GPT-2-shaped dump, %s, %s mode, %d layers, sequence %ld: %ld forward and "
           "%ld backward records; %ld cores; %s\n",
           c.fp32 ? "float32" : "bfloat16", tensor ? "tensor" : "statistics", c.layers, c.seq,
           k.records, k.backwards, cores, precheck);
    printf("  calibration (best of before and after): all threads SGEMM %.1f, DGEMM %.1f "
           "GFLOP/s, stream %.1f GB/s; one thread %.1f, %.1f GFLOP/s, %.1f GB/s\n",
           all.sgemm / 1e9, all.dgemm / 1e9, all.bandwidth / 1e9, one.sgemm / 1e9, one.dgemm / 1e9,
           one.bandwidth / 1e9);
    printf("  work: %.1f GFLOP float32 + %.1f GFLOP float64 GEMM, %.2f GB other traffic; wall "
           "limit %.2f s, CPU limit %.2f s\n",
           k.flops32 / 1e9, k.flops64 / 1e9, k.bytes / 1e9, limit, cpu_limit);
    const run_figures *d = &best[0], *o = &best[1];
    printf("  run_ut (default flags), best of 3: wall %.2f s, CPU %.2f s, a second core busy "
           "%.0f%% of the wall time\n",
           d->wall, d->cpu, 100 * d->second);
    printf("  run_ut --jobs 1, best of 3: wall %.2f s, CPU %.2f s (default / --jobs 1 wall = "
           "%.2f)\n",
           o->wall, o->cpu, d->wall / o->wall);
    printf("  wall / limit = %.2f (target <= 2); CPU / CPU limit = %.2f (target <= 1.5); second "
           "core busy %.2f (target >= 0.8)\n",
           d->wall / limit, d->cpu / cpu_limit, d->second);
    printf("  CSVs of the 6 runs (default and --jobs 1): %s\n", same ? "identical" : "DIFFER");
    bench_report_statuses(first, "");
    if (!keep) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
        if (sh(cmd) != 0)
            return 1;
    } else {
        rmdir(tmp);
    }
    return same ? 0 : 1;
}
