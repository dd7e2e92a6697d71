/*
 * The torch backend's cost: run_ut on a LLaMA-7B-shaped layer (llama_dump.h) with the reference
 * device (--backend cpu) and with PyTorch on the CPU (--backend torch:cpu), in this process, one
 * after the other, and
 *   - the bridge's overhead per call: the torch backend's forward and backward as a whole minus
 *     the time inside torch's own calls (the API, its autograd), over the calls -- building the
 *     arguments from the record, DLPack, the grad copies, seeding, the results back; target
 *     <= 20 us per call plus the result copies (none on the CPU: results are wrapped);
 *   - the whole run with torch:cpu against the whole run with cpu, and the device stage of each;
 *   - starting Python and importing torch (once per worker).
 * Statuses of both runs are printed (a SKIP would make a run look fast).
 *
 * usage: bench_torch [--python PY] [--bf16] [--fused] [--seq N] [--layers N] [--small N]
 *                    [--keep DIR]
 * --small N: instead of the layer, N each of three small APIs (add and linear with their
 * backward, a slice), where torch's own time is microseconds and the bridge's cost shows.
 * Defaults: float32, eager ops (torch_npu's fused ops have no torch implementation on a CPU:
 * the torch backend hands them to the reference device), sequence 512, Debian's python3.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"
#include "llama_dump.h"
#include "precheck/backends/torch_stats.h"
#include "precheck/core/clock.h"
#include "precheck/core/log.h"
#include "precheck/core/threads.h"
#include "precheck/runner/runner.h"

/* --small N: N calls each of three small APIs with their backward (torch's own time is a few
 * microseconds there, so the bridge's cost per call shows plainly). */
static void small_dump(FILE *f, long n)
{
#define SMALL_T(shape, rg)                                                                         \
    "{\"type\":\"torch.Tensor\",\"dtype\":\"torch.float32\",\"shape\":" shape                      \
    ",\"Max\":1.0,\"Min\":-1.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":" rg "}"
    fprintf(f, "{\"task\":\"statistics\",\"level\":\"L1\",\"dump_data_dir\":null,\"data\":{");
    for (long i = 0; i < n; i++) {
        fprintf(
            f,
            "%s\"Torch.add.%ld.forward\":{\"input_args\":[" SMALL_T("[16,16]", "true") "," SMALL_T("[16,16]", "true") "],\"input_kwargs\":{},\"output\":[" SMALL_T(
                "[16,16]",
                "true") "]},"
                        "\"Torch.add.%ld.backward\":{\"input\":[" SMALL_T(
                            "[16,16]",
                            "false") "]},"
                                     "\"Functional.linear.%ld.forward\":{\"input_args\":"
                                     "[" SMALL_T("[8,32]", "true") "," SMALL_T(
                                         "[16,32]",
                                         "tru"
                                         "e") "," SMALL_T("[16]",
                                                          "true") "],\"input_kwargs\":{},"
                                                                  "\"output\":[" SMALL_T(
                                                                      "[8,16]",
                                                                      "true") "]},"
                                                                              "\"Functional.linear."
                                                                              "%ld."
                                                                              "backward\":{"
                                                                              "\"input\":[" SMALL_T(
                                                                                  "[8,16]",
                                                                                  "false") "]},"
                                                                                           "\"Tenso"
                                                                                           "r.__"
                                                                                           "getitem"
                                                                                           "__"
                                                                                           ".%ld."
                                                                                           "forward"
                                                                                           "\":{"
                                                                                           "\"input"
                                                                                           "_args\""
                                                                                           ":"
                                                                                           "[" SMALL_T(
                                                                                               "[16"
                                                                                               ",16"
                                                                                               "]",
                                                                                               "fal"
                                                                                               "se") ","
                                                                                                     "{\"type"
                                                                                                     "\":"
                                                                                                     "\"slice"
                                                                                                     "\","
                                                                                                     "\"value"
                                                                                                     "\":[1,"
                                                                                                     "9,2]}],"
                                                                                                     "\"input"
                                                                                                     "_kwargs"
                                                                                                     "\":{},"
                                                                                                     "\"outpu"
                                                                                                     "t\":"
                                                                                                     "[" SMALL_T(
                                                                                                         "[4,"
                                                                                                         "16"
                                                                                                         "]",
                                                                                                         "fal"
                                                                                                         "se") "]}",
            i ? "," : "", i, i, i, i, i);
    }
    fprintf(f, "}}\n");
}

int main(int argc, char **argv)
{
    pc_threads_prefer_passive(argv); /* as precheck run_ut does (core/threads.h) */
    llama_cfg c = llama_7b();
    c.fp32 = 1;
    c.eager = 1;
    c.seq = 512;
    const char *python = "/usr/bin/python3", *keep = NULL;
    long small = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bf16") == 0)
            c.fp32 = 0;
        else if (strcmp(argv[i], "--fused") == 0)
            c.eager = 0;
        else if (strcmp(argv[i], "--seq") == 0 && i + 1 < argc)
            c.seq = atol(argv[++i]);
        else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            c.layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--small") == 0 && i + 1 < argc)
            small = atol(argv[++i]);
        else if (strcmp(argv[i], "--python") == 0 && i + 1 < argc)
            python = argv[++i];
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = argv[++i];
        else {
            fprintf(stderr, "usage: bench_torch [--python PY] [--bf16] [--fused] [--seq N] "
                            "[--layers N] [--small N] [--keep DIR]\n");
            return 2;
        }
    }
    if (c.seq < 1 || c.layers < 1)
        return 2;
    pc_log_set_level(PC_LOG_WARNING);
    /* the plug-in sits beside precheck, in the build directory above this one */
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 16);
    if (n <= 0)
        return 1;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    snprintf(slash ? slash : exe, 16, "/..");
    setenv("PRECHECK_PLUGIN_DIR", exe, 0);
    char tmp[] = "/tmp/bench_torch_XXXXXX";
    if (!keep && !mkdtemp(tmp))
        return 1;
    const char *dir = keep ? keep : tmp;
    char dump[1200], out_cpu[1200], out_torch[1200];
    snprintf(dump, sizeof dump, "%s/dump.json", dir);
    snprintf(out_cpu, sizeof out_cpu, "%s/cpu", dir);
    snprintf(out_torch, sizeof out_torch, "%s/torch", dir);
    FILE *f = fopen(dump, "w");
    if (!f)
        return 1;
    llama_cost k = {0};
    if (small > 0) {
        small_dump(f, small);
        k.records = k.backwards = 3 * small;
    } else {
        k = llama_dump_write(f, &c);
    }
    if (fclose(f) != 0)
        return 1;

    /* the reference device first: Python must not be running when anything forks */
    pc_run_timing tc = {0}, tt = {0};
    double wall_cpu = bench_run_ut(dump, out_cpu, "cpu", NULL, NULL, &tc);
    double wall_torch =
        wall_cpu < 0 ? -1 : bench_run_ut(dump, out_torch, "torch:cpu", python, NULL, &tt);
    if (wall_torch < 0) {
        fprintf(stderr, "bench_torch: run_ut failed (is torch importable by %s?)\n", python);
        return 1;
    }
    /* the plug-in's own measurements, from the loaded plug-in */
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/precheck-backend-torch.so", getenv("PRECHECK_PLUGIN_DIR"));
    void *dl = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    void *sym = dl ? dlsym(dl, PC_TORCH_STATS_ENTRY) : NULL;
    pc_torch_stats_fn stats_of;
    memcpy(&stats_of, &sym, sizeof stats_of);
    if (!stats_of) {
        fprintf(stderr, "bench_torch: the plug-in's statistics are not reachable (%s)\n", path);
        return 1;
    }
    const pc_torch_stats *st = stats_of();
    double torch_s = st->torch_seconds, bridge_s = st->bridge_seconds, out_s = st->out_seconds,
           free_s = st->free_seconds, start_s = st->start_seconds;
    long calls = st->calls;
    double per = calls ? 1e6 / (double)calls : 0;
    double overhead_us = (bridge_s - torch_s - out_s - free_s) * per;
    double out_us = out_s * per, free_us = free_s * per;

    if (small > 0)
        printf("bench_torch: %ld small APIs (add, linear, getitem: float32, 16x16-sized), %ld "
               "with a backward; torch through %s\n",
               k.records, 2 * small, python);
    else
        printf("bench_torch: LLaMA-7B-shaped dump, %s, %s ops, %d layer(s), sequence %ld: %ld "
               "forward and %ld backward records; torch through %s\n",
               c.fp32 ? "float32" : "bfloat16", c.eager ? "eager" : "fused", c.layers, c.seq,
               k.records, k.backwards, python);
    printf("  --backend cpu:       wall %7.2f s; device %6.2f s, bench %6.2f s, inputs %5.2f s, "
           "compare %5.2f s\n",
           wall_cpu, tc.device, tc.bench, tc.inputs, tc.compare);
    printf("  --backend torch:cpu: wall %7.2f s; device %6.2f s, bench %6.2f s, inputs %5.2f s, "
           "compare %5.2f s\n",
           wall_torch, tt.device, tt.bench, tt.inputs, tt.compare);
    printf("  torch:cpu device stage: %.3f s inside torch's calls, %.3f s in the backend once "
           "Python ran, over %ld forward and backward calls; Python + import torch %.2f s\n",
           torch_s, bridge_s, calls, start_s);
    printf("  bridge overhead per call (the backend's time minus torch's calls, the results' way "
           "back and freeing torch's objects): %.1f us (target <= 20 us)\n",
           overhead_us);
    printf("  per call besides: results back %.1f us (copies of non-contiguous ones), freeing the "
           "API's torch objects %.1f us (torch's own memory)\n",
           out_us, free_us);
    printf("  ratios: whole run torch:cpu / cpu %.2f; device stage torch:cpu / cpu %.2f\n",
           wall_torch / wall_cpu, tc.device > 0 ? tt.device / tc.device : 0);
    bench_report_statuses(out_cpu, "cpu: ");
    bench_report_statuses(out_torch, "torch:cpu: ");
    if (!keep) {
        char rm[1300];
        snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
        if (system(rm) != 0)
            return 1;
    }
    return 0;
}
