/*
 * How well run_ut --shard K/N splits a large dump: the LLaMA-7B training step (32 decoder
 * layers plus embedding, head and cross_entropy, sequence 2048, bfloat16, torch_npu fused ops;
 * llama_dump.h) split by the cost model (runner/cost.h) into N = 1..64 shards, with each
 * shard's estimated time. Prints per N the makespan (the heaviest shard) against the ideal
 * (the total / N) -- the efficiency, target >= 0.90 at 32 -- and the bound no split can beat
 * (the heaviest single API). Then, to check the model where it matters, the whole dump's
 * estimate against the generator's own count of GEMM FLOPs.
 *
 * usage: bench_shards [--layers N] [--seq N] [--fp32] [--eager]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llama_dump.h"
#include "precheck/core/log.h"
#include "precheck/dump/dump.h"
#include "precheck/runner/cost.h"

int main(int argc, char **argv)
{
    llama_cfg c = llama_7b();
    c.layers = 32;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fp32") == 0)
            c.fp32 = 1;
        else if (strcmp(argv[i], "--eager") == 0)
            c.eager = 1;
        else if (strcmp(argv[i], "--layers") == 0 && i + 1 < argc)
            c.layers = atoi(argv[++i]);
        else if (strcmp(argv[i], "--seq") == 0 && i + 1 < argc)
            c.seq = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_shards [--layers N] [--seq N] [--fp32] [--eager]\n");
            return 2;
        }
    }
    if (c.layers < 1 || c.seq < 1)
        return 2;
    pc_log_set_level(PC_LOG_WARNING);
    char path[] = "/tmp/bench_shards_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f)
        return 1;
    llama_cost k = llama_dump_write(f, &c);
    if (fclose(f) != 0)
        return 1;
    pc_dump *dump = NULL;
    if (pc_dump_open(&dump, path) != PC_OK) {
        fprintf(stderr, "bench_shards: %s\n", pc_error_message());
        unlink(path);
        return 1;
    }
    unlink(path);

    uint64_t total = 0, largest = 0, flops = 0;
    size_t heavy = 0;
    for (size_t i = 0; i < dump->api_count; i++) {
        pc_api_cost a = pc_api_cost_of(&dump->apis[i]);
        total += a.ps;
        flops += a.flops;
        if (a.ps > largest) {
            largest = a.ps;
            heavy = i;
        }
    }
    printf("LLaMA-7B step: %d layers, sequence %ld, %s%s: %zu APIs (%ld with backward), "
           "estimate %.1f s on one machine\n",
           c.layers, c.seq, c.fp32 ? "float32" : "bfloat16", c.eager ? ", eager ops" : "",
           dump->api_count, k.backwards, (double)total * 1e-12);
    printf("GEMM FLOPs (one side): cost model %.4g, the generator's count %.4g (ratio %.3f)\n",
           (double)flops, k.flops32, k.flops32 > 0 ? (double)flops / k.flops32 : 0.0);
    printf("heaviest API: %s, %.2f s\n\n", dump->apis[heavy].full_name, (double)largest * 1e-12);
    printf("%6s %12s %12s %10s %s\n", "shards", "makespan s", "ideal s", "efficiency",
           "bound (heaviest API)");
    static const uint32_t ns[] = {1, 2, 4, 8, 16, 32, 48, 64};
    uint32_t *shard_of = malloc((dump->api_count + 1) * sizeof *shard_of);
    uint64_t load[64];
    int rc = 0;
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        uint32_t n = ns[t];
        if (!shard_of || pc_shard_assign(dump, NULL, n, shard_of, load) != PC_OK) {
            rc = 1;
            break;
        }
        uint64_t makespan = 0;
        for (uint32_t s = 0; s < n; s++)
            makespan = load[s] > makespan ? load[s] : makespan;
        double ideal = (double)total / n;
        double bound = ideal > (double)largest ? ideal : (double)largest;
        printf("%6u %12.2f %12.2f %10.3f %s\n", n, (double)makespan * 1e-12, ideal * 1e-12,
               ideal / (double)makespan,
               bound > ideal ? "the heaviest API is above the ideal" : "");
    }
    free(shard_of);
    pc_dump_free(dump);
    return rc;
}
