/*
 * Private to src/ops: instantiates a kernel template twice, for float (the reference device's
 * opmath) and for double (the bench, and float64 on the device). A kernel .c file writes
 *     #define PC_TWIN_TEMPLATE "ops/<family>/<name>_kernel.inc"
 *     #include "ops/kernel_twins.h"
 * and the template, included once per type, is written over
 *     KT_T         float / double    the compute type
 *     KT_FN(name)  name_f / name_d   the names it defines (static functions of the .c file)
 *     KT_SFX       f / d             their suffix
 *     KT_LANES     8 / 4             the lanes of torch's AVX2 vectors of KT_T
 *     KT_DOUBLE    0 / 1             whether KT_T is double
 * A template that uses another one's functions includes it at its top (npu_rowsum_kernel.inc).
 * With PC_TWIN_FMA defined the suffixes are f_fma / d_fma: a second pair of the same functions,
 * for the includer to compile with the FMA instructions enabled (norm.c; fma() then is one
 * instruction instead of a call into libm, with the same result: both round once).
 * No include guard: each inclusion instantiates the template it names, then forgets it.
 */
#define KT_CAT2(a, b) a##_##b
#define KT_CAT(a, b)  KT_CAT2(a, b)
#define KT_FN(name)   KT_CAT(name, KT_SFX)

#define KT_T float
#ifdef PC_TWIN_FMA
#define KT_SFX f_fma
#else
#define KT_SFX f
#endif
#define KT_LANES  8
#define KT_DOUBLE 0
#include PC_TWIN_TEMPLATE
#undef KT_T
#undef KT_SFX
#undef KT_LANES
#undef KT_DOUBLE

#define KT_T double
#ifdef PC_TWIN_FMA
#define KT_SFX d_fma
#else
#define KT_SFX d
#endif
#define KT_LANES  4
#define KT_DOUBLE 1
#include PC_TWIN_TEMPLATE
#undef KT_T
#undef KT_SFX
#undef KT_LANES
#undef KT_DOUBLE

#undef KT_FN
#undef KT_CAT
#undef KT_CAT2
#undef PC_TWIN_TEMPLATE
