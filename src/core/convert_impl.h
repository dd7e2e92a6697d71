/* Private to core/ and its tests: the individual conversion paths behind the dispatcher, so
 * that tests can check each one against the reference without switching global state. */
#ifndef PC_CORE_CONVERT_IMPL_H
#define PC_CORE_CONVERT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Portable whole-buffer paths (plain loops over the scalar functions). */
void pc_convert_f32_to_f16_portable(uint16_t *dst, const float *src, size_t n);
void pc_convert_f16_to_f32_portable(float *dst, const uint16_t *src, size_t n);
void pc_convert_f32_to_bf16_portable(uint16_t *dst, const float *src, size_t n);
void pc_convert_bf16_to_f32_portable(float *dst, const uint16_t *src, size_t n);

/* AVX2 + F16C paths; only call them when pc_convert_best_isa() says the CPU has them. */
void pc_convert_f32_to_f16_avx2(uint16_t *dst, const float *src, size_t n);
void pc_convert_f16_to_f32_avx2(float *dst, const uint16_t *src, size_t n);
void pc_convert_f32_to_bf16_avx2(uint16_t *dst, const float *src, size_t n);
void pc_convert_bf16_to_f32_avx2(float *dst, const uint16_t *src, size_t n);

/* Rounds a double once into a binary format with `mant` fraction bits and minimum normal
 * exponent `emin`; returns the encoded magnitude with the sign in bit (total_bits - 1).
 * Exposed for the float8 tests. */
typedef struct pc_small_format {
    int total_bits;
    int mant;
    int emin;
    int bias;
    uint32_t max_finite_bits; /* encoded magnitude of the largest finite value */
    uint32_t inf_bits;        /* encoded magnitude of infinity; 0 when there is none */
    bool only_one_nan;        /* float8_e4m3fn: S.1111.111 is the only NaN */
} pc_small_format;

extern const pc_small_format pc_format_f16, pc_format_bf16, pc_format_e4m3fn, pc_format_e5m2;

uint32_t pc_round_f64_to_format(double d, const pc_small_format *fmt);

#endif
