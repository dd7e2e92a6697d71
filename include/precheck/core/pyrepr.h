/*
 * The one float formatter: the shortest decimal digits that read back as a value, laid out the
 * way Python prints it. Python's repr(float) (and str, and json.dumps, which call it), numpy's
 * str() of a float32/float16 scalar, and every message that shows such a value use it.
 *
 * The digits are those of David Gay's shortest conversion, which Python's repr uses: the fewest
 * significant digits whose decimal value reads back (correctly rounded) as the same value of
 * the value's type, and among those the nearest to the value (ties to even).
 *
 * The layout is Python's: positional with at least one fraction digit ("1.0", "0.0001",
 * "1000000000000000.0"), or scientific with the fraction trimmed and a signed exponent of at
 * least two digits ("1e-05", "1e+16", "5.960464477539063e-08"). Python chooses scientific when
 * the first digit's decimal exponent is < -4 or >= 16; numpy's str() chooses it from the
 * magnitude (< 1e-4 or >= 1e16), which differs for a float32 such as 1e-4f (numpy: "1e-04").
 *
 * Nothing is allocated and nothing fails; every function writes into the caller's buffer like
 * snprintf (always NUL-terminated when size > 0) and returns the length of the whole text.
 */
#ifndef PC_CORE_PYREPR_H
#define PC_CORE_PYREPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    /* room for the longest text of any function here, NUL included
     * ("-2.2250738585072014e-308" is 24 characters) */
    PC_PYREPR_MAX = 32,
};

/* The binary type a value's digits must read back as. */
typedef enum pc_pyrepr_type {
    PC_PYREPR_F64, /* 17 significant digits at most */
    PC_PYREPR_F32, /* 9 */
    PC_PYREPR_F16, /* 5 */
} pc_pyrepr_type;

/* Shortest digits: the value is d[0].d[1]d[2]... * 10^exp10. */
typedef struct pc_pyrepr_digits {
    char d[24]; /* significant digits, NUL-terminated, no trailing zeros, at least one */
    int n;      /* strlen(d) */
    int exp10;  /* decimal exponent of d[0] */
} pc_pyrepr_digits;

/* The shortest digits of a finite, nonzero magnitude (> 0) that is a value of type. */
void pc_pyrepr_digits_of(double magnitude, pc_pyrepr_type type, pc_pyrepr_digits *out);

/* Lays out "-"(when negative) and the digits, positional or scientific as asked. */
int pc_pyrepr_layout(char *dst, size_t size, bool negative, const pc_pyrepr_digits *dg,
                     bool scientific);

/* Python's repr(x) of a float: "nan", "inf", "-inf", "0.0", "-0.0", "1e-05", "0.1",
 * "1000000000000000.0", "1e+16". */
int pc_pyrepr_double(char *dst, size_t size, double x);

/* numpy's str() of a float32 / float16 scalar (float16 given by its bits): "nan", "inf",
 * "-inf", "0.0", "-0.0", else the type's shortest digits, scientific when the magnitude is
 * < 1e-4 or >= 1e16. */
int pc_pyrepr_numpy_f32(char *dst, size_t size, float x);
int pc_pyrepr_numpy_f16(char *dst, size_t size, uint16_t bits);

#endif
