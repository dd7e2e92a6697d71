/*
 * Element type conversions: the narrow float formats (float16, bfloat16, the two float8s),
 * msprobe's HF32 rounding, whole-buffer conversion between any two dtypes, and element access
 * through double for code that must handle every dtype in one loop.
 *
 * Rounding is IEEE round-to-nearest-even everywhere, done once from the source value (float64
 * sources do not pass through float32). Overflow: float16, bfloat16 and float8_e5m2 go to
 * infinity as IEEE says; float8_e4m3fn has no infinity and saturates to +-448 (infinities
 * too). NaN stays NaN with the sign kept, the quiet bit set and the leading payload bits kept.
 *
 * Whole-buffer conversions use F16C/AVX2 when the CPU has them (chosen at run time once) and a
 * portable path otherwise; both give the same bits. No function here allocates memory.
 */
#ifndef PC_CORE_CONVERT_H
#define PC_CORE_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "precheck/core/dtype.h"
#include "precheck/core/status.h"

/* ---- scalars ---- */
float pc_f16_to_f32(uint16_t h);
uint16_t pc_f32_to_f16(float f);
uint16_t pc_f64_to_f16(double d);

float pc_bf16_to_f32(uint16_t b);
uint16_t pc_f32_to_bf16(float f);
uint16_t pc_f64_to_bf16(double d);

float pc_f8e4m3fn_to_f32(uint8_t x);
uint8_t pc_f64_to_f8e4m3fn(double d); /* saturating: |d| beyond 448 (after rounding) -> 448 */
float pc_f8e5m2_to_f32(uint8_t x);
uint8_t pc_f64_to_f8e5m2(double d);

/* msprobe's HF32 emulation for conv1d/conv2d inputs: keeps 11 explicit mantissa bits, rounding
 * the magnitude half away from zero on the bit pattern. */
float pc_hf32_round(float f);

/* v rounded once (nearest even) to a float dtype and widened back: float16, bfloat16, float32,
 * the float8 formats; any other dtype returns v unchanged. */
double pc_round_to_dtype(double v, pc_dtype dtype);
void pc_hf32_round_buffer(float *data, size_t n);

/* ---- whole buffers (contiguous, dst and src must not overlap) ---- */
void pc_convert_f32_to_f16(uint16_t *dst, const float *src, size_t n);
void pc_convert_f16_to_f32(float *dst, const uint16_t *src, size_t n);
void pc_convert_f32_to_bf16(uint16_t *dst, const float *src, size_t n);
void pc_convert_bf16_to_f32(float *dst, const uint16_t *src, size_t n);

/*
 * Converts n elements between any two dtypes (torch's casting rules): float -> integer
 * truncates toward zero and wraps modulo the target width like torch on x86 (NaN, infinities
 * and out-of-range values become INT64_MIN for int64 targets and INT32_MIN, then wrapped, for
 * the narrower ones, as torch's 64- and 32-bit conversions give); anything -> bool is "!= 0"
 * (NaN is true);
 * complex -> real keeps the real part; integers convert exactly between integer types.
 * Returns PC_ERR_INVALID for a bad dtype.
 */
pc_status pc_convert_buffer(void *dst, pc_dtype dst_dtype, const void *src, pc_dtype src_dtype,
                            size_t n);

/* ---- one element through double (im is 0 for real dtypes; may be NULL on load) ---- */
void pc_element_load(const void *p, pc_dtype dtype, double *re, double *im);
void pc_element_store(void *p, pc_dtype dtype, double re, double im);
/* Integer element access without the trip through double (exact for all of int64): a store
 * keeps the low bytes of v in an integer dtype (bool: v != 0) and converts it for a float
 * dtype; a load reads integers and bool exactly and converts floats as torch does (truncation,
 * the "integer indefinite" minimum for NaN and out-of-range values). */
int64_t pc_element_load_i64(const void *p, pc_dtype dtype);
void pc_element_store_i64(void *p, pc_dtype dtype, int64_t v);

/* ---- SIMD dispatch, for tests and benchmarks ---- */
typedef enum pc_isa { PC_ISA_PORTABLE = 0, PC_ISA_AVX2_F16C = 1 } pc_isa;
pc_isa pc_convert_isa(void);      /* the path in use */
pc_isa pc_convert_best_isa(void); /* the best path this CPU supports */
/* Forces a path (tests compare them); asking for one the CPU lacks selects the portable one.
 * Returns the path now in use. Not thread-safe against concurrent conversions. */
pc_isa pc_convert_set_isa(pc_isa isa);

#endif
