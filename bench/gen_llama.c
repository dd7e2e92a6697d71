/*
 * Writes a LLaMA-shaped (or, with --gpt, GPT-2-shaped) statistics-mode dump.json (see
 * llama_dump.h) and prints what run_ut must compute for it.
 *
 * usage: gen_llama OUT.json [--gpt] [--fp32 | --bf16] [--eager] [--layers N] [--seq N]
 *                  [--batch N] [--hidden N --heads N --ffn N --vocab N]
 *   defaults: LLaMA-7B (hidden 4096, 32 heads, FFN 11008, vocabulary 32000), sequence 2048,
 *   batch 1, bfloat16, one decoder layer, torch_npu fused ops;
 *   with --gpt (anywhere): GPT-2-small-like, hidden 512, 8 heads, FFN 2048, vocabulary
 *   2048, sequence 256, batch 2, 4 layers, float32 (issue #31's medium dump: 101 forward APIs).
 * A tensor-mode dump of the same: precheck materialize -api_info OUT.json -o DIR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama_dump.h"

static int parse_args(int argc, char **argv, llama_cfg *c, const char **out)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long *num = NULL;
        if (strcmp(a, "--gpt") == 0) /* taken before the others (main) */
            continue;
        if (strcmp(a, "--fp32") == 0 || strcmp(a, "--bf16") == 0) {
            c->fp32 = strcmp(a, "--fp32") == 0;
            continue;
        }
        if (strcmp(a, "--eager") == 0) {
            c->eager = 1;
            continue;
        }
        if (strcmp(a, "--seq") == 0)
            num = &c->seq;
        else if (strcmp(a, "--hidden") == 0)
            num = &c->hidden;
        else if (strcmp(a, "--heads") == 0)
            num = &c->heads;
        else if (strcmp(a, "--ffn") == 0)
            num = &c->ffn;
        else if (strcmp(a, "--vocab") == 0)
            num = &c->vocab;
        else if (strcmp(a, "--batch") == 0)
            num = &c->batch;
        if (num || strcmp(a, "--layers") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "gen_llama: %s needs a value\n", a);
                return -1;
            }
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "gen_llama: %s: bad value '%s'\n", a, argv[i]);
                return -1;
            }
            if (num)
                *num = v;
            else
                c->layers = (int)v;
            continue;
        }
        if (a[0] == '-' || *out) {
            fprintf(stderr, "gen_llama: unknown argument '%s'\n", a);
            return -1;
        }
        *out = a;
    }
    if (!*out || c->hidden % c->heads != 0) {
        fprintf(stderr,
                "usage: gen_llama OUT.json [--gpt] [--fp32 | --bf16] [--eager] [--layers N] "
                "[--seq N] [--batch N] [--hidden N --heads N --ffn N --vocab N] (hidden a "
                "multiple of heads)\n");
        return -1;
    }
    c->head_dim = c->hidden / c->heads;
    return 0;
}

int main(int argc, char **argv)
{
    llama_cfg c = llama_7b();
    for (int i = 1; i < argc; i++) /* --gpt sets the defaults the other flags change */
        if (strcmp(argv[i], "--gpt") == 0)
            c = llama_gpt_medium();
    const char *out = NULL;
    if (parse_args(argc, argv, &c, &out) != 0)
        return 2;
    FILE *f = fopen(out, "w");
    if (!f) {
        perror(out);
        return 1;
    }
    llama_cost k = llama_dump_write(f, &c);
    if (fclose(f) != 0) {
        perror(out);
        return 1;
    }
    printf("%s: %ld forward records, %ld backward records (%s, %s, %d layer%s, sequence %ld)\n",
           out, k.records, k.backwards, c.fp32 ? "float32" : "bfloat16",
           c.gpt     ? "GPT-2-shaped"
           : c.eager ? "eager"
                     : "fused",
           c.layers, c.layers == 1 ? "" : "s", c.seq);
    printf("run_ut must do: %.1f GFLOP of float32 GEMM, %.1f GFLOP of float64 GEMM, %.2f GB of "
           "other memory traffic; largest record %s: %.0f MB in+out in the bench dtype\n",
           k.flops32 / 1e9, k.flops64 / 1e9, k.bytes / 1e9, k.largest_name, k.largest / 1048576);
    return 0;
}
