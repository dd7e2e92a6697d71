/*
 * A LLaMA-shaped statistics-mode dump.json as msprobe writes it for one training step (L1: every
 * wrapped API call, forward and backward records), with a cost model of what run_ut must do for
 * each record. Shared by gen_llama.c (writes a file) and bench_e2e.c (generates, runs, and
 * compares the run with the machine's limit).
 *
 * Shape: LLaMA-7B by default (hidden 4096, 32 heads of 128, FFN 11008, vocabulary 32000,
 * sequence 2048, batch 1), N decoder layers (default 1) between the embedding and the head with
 * its cross_entropy loss. Two styles:
 *   fused (default): what a MindSpeed/torch_npu run dumps: NPU.npu_rms_norm, one fused QKV
 *     linear, NPU.npu_rotary_mul, NPU.npu_fusion_attention (SBH layout, causal
 *     mask with sparse_mode 2), NPU.npu_swiglu; activations [S, B, H];
 *   eager: what a plain Hugging Face LlamaModel dumps: RMSNorm as pow/mean/add/rsqrt/mul,
 *     rotate_half with cat, attention as matmul/div/add/softmax/matmul, SwiGLU as silu and mul;
 *     activations [B, S, H].
 * gpt (a GPT-2-small-like model, the shape of a model trained from nanoGPT-style code): token
 * and position embedding (Torch.arange, two embeddings, add), per layer a pre-LN block:
 * layer_norm, one fused QKV linear with bias, split, three head transposes and the key's,
 * matmul, divide by sqrt(head_dim), a causal mask (Torch.tril, masked_fill with -inf), softmax,
 * dropout (p 0.1), matmul, transpose back, the output linear, dropout, residual add, layer_norm,
 * linear, GELU, linear, dropout, residual add; then a final layer_norm, the LM head (no bias),
 * cross_entropy and the loss's ones_like: 23 APIs a layer and 8 more; activations [B, S, H].
 * Statistics are plausible ranges (msprobe's Max/Min drive run_ut's random inputs); values of
 * Mean/Norm do not matter to run_ut.
 *
 * Cost model per record (what the limit of bench_e2e is made of), for both sides of run_ut: the
 * device (the dump's dtypes; GEMMs in float32 opmath) and the bench (float16/bfloat16 held as
 * float32, float32 as float64; every kernel computes in double, DESIGN "two compute types"):
 *   - GEMM FLOPs of GEMM-like ops (linear, matmul, attention): forward 2*M*N*K per product,
 *     backward twice the forward (the two operand gradients), counted at the float32 rate for
 *     the device and at the float64 rate for the bench;
 *   - bytes every other stage must touch: the inputs written once per side, non-GEMM ops'
 *     inputs read and outputs written, outputs (and gradients) read once per side by the
 *     comparison, and the same for the backward's incoming gradient and input gradients.
 */
#ifndef PC_BENCH_LLAMA_DUMP_H
#define PC_BENCH_LLAMA_DUMP_H

#include <stdio.h>

typedef struct llama_cfg {
    long hidden, heads, head_dim, ffn, vocab, seq, batch;
    int layers;
    int fp32;  /* 1: float32 model, 0: bfloat16 */
    int eager; /* 1: Hugging Face eager ops, 0: torch_npu fused ops */
    int gpt;   /* 1: a GPT-2-shaped model instead (see above); eager and fp32 as given */
} llama_cfg;

static inline llama_cfg llama_7b(void)
{
    return (llama_cfg){4096, 32, 128, 11008, 32000, 2048, 1, 1, 0, 0, 0};
}

/* The GPT-2-small-like medium shape of issue #31: hidden 512, 8 heads of 64, FFN 2048,
 * vocabulary 2048, sequence 256, batch 2, 4 layers, float32. */
static inline llama_cfg llama_gpt_medium(void)
{
    return (llama_cfg){512, 8, 64, 2048, 2048, 256, 2, 4, 1, 1, 1};
}

/* What run_ut must do for the dump (sums over its records). */
typedef struct llama_cost {
    double flops32, flops64; /* GEMM FLOPs: the device's (float32), the bench's (float64) */
    double bytes;            /* bytes the other stages touch (both sides) */
    double largest;          /* the largest record's input+output bytes in the bench dtype */
    char largest_name[96];
    long records, backwards;
} llama_cost;

/* Writes the dump to f (NULL: only the cost); returns the cost. Exits the process when the
 * dump would have more than 64 API names (a generator for benches and tests). */
llama_cost llama_dump_write(FILE *f, const llama_cfg *cfg);

#endif
