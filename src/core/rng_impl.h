/* Private to core/ and its tests: each instruction-set copy of the generator's fills, so that a
 * test can check every copy the CPU runs against the element-wise functions without switching
 * global state. Every copy gives the same bits as pc_rng_u64 and pc_rng_uniform. */
#ifndef PC_CORE_RNG_IMPL_H
#define PC_CORE_RNG_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/rng.h"

typedef enum pc_rng_isa {
    PC_RNG_ISA_PORTABLE, /* plain C: the compiler's vectors */
    PC_RNG_ISA_AVX2,
    PC_RNG_ISA_AVX512, /* AVX-512 F and DQ */
    PC_RNG_ISA_COUNT
} pc_rng_isa;

/* Whether this CPU runs the copy (the fills below may only be called with such an isa); the
 * public fills use the best one. */
bool pc_rng_isa_supported(pc_rng_isa isa);

/* The public fills of rng.h through one copy: pc_rng_fill_u64, pc_rng_fill_uniform_f64,
 * pc_rng_fill_uniform (bits = the dtype's mantissa bits + 1, at most 24; pc_rng_fill_uniform_f32
 * is bits 24), pc_rng_fill_affine_f32 and pc_rng_fill_affine_f64. */
void pc_rng_fill_u64_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                         uint64_t *out, size_t n);
void pc_rng_fill_uniform_f64_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                 double *out, size_t n);
void pc_rng_fill_uniform_bits_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                  int bits, float *out, size_t n);
void pc_rng_fill_affine_f32_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                float *out, size_t n, float scale, float low);
void pc_rng_fill_affine_f64_isa(pc_rng_isa isa, const pc_rng_stream *s, uint64_t first_index,
                                double *out, size_t n, double scale, double low);

#endif
