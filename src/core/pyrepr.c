#include "precheck/core/pyrepr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"

/* Copies text into dst like snprintf("%s") and returns its length. */
static int put_text(char *dst, size_t size, const char *text)
{
    size_t n = strlen(text);
    if (size > 0) {
        size_t k = n < size - 1 ? n : size - 1;
        memcpy(dst, text, k);
        dst[k] = '\0';
    }
    return (int)n;
}

/* Does the decimal text read back as value, a value of type? For float16, decimal -> double
 * -> float16 rounds like decimal -> float16 for the at most 5 digits tried: such a decimal
 * never lies within half a double ulp of a float16 midpoint unless it is that midpoint, which
 * double holds exactly. */
static bool reads_back(const char *text, double value, pc_pyrepr_type type)
{
    switch (type) {
    case PC_PYREPR_F32:
        return (double)strtof(text, NULL) == value;
    case PC_PYREPR_F16:
        return (double)pc_f16_to_f32(pc_f64_to_f16(strtod(text, NULL))) == value;
    case PC_PYREPR_F64:
    default:
        return strtod(text, NULL) == value;
    }
}

static int max_digits(pc_pyrepr_type type)
{
    return type == PC_PYREPR_F16 ? 5 : type == PC_PYREPR_F32 ? 9 : 17;
}

/* Parses the digits and exponent of "%.*e" output (or sci_text's) of a positive number. */
static void parse_sci(const char *s, pc_pyrepr_digits *out)
{
    out->n = 0;
    const char *p = s;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && out->n < (int)sizeof out->d - 1)
            out->d[out->n++] = *p;
    out->exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (out->n > 1 && out->d[out->n - 1] == '0')
        out->n--;
    out->d[out->n] = '\0';
}

/* Writes "d.ddde<exp10>" of all n digits (none trimmed) into buf. */
static void sci_text(char *buf, size_t size, const char *d, int n, int exp10)
{
    if (n == 1)
        snprintf(buf, size, "%ce%d", d[0], exp10);
    else
        snprintf(buf, size, "%c.%.*se%d", d[0], n - 1, d + 1, exp10);
}

/* Adds delta (+1 or -1) in the last of the n digits of d (carrying); false when the result
 * leaves the n-digit range (it would change the exponent). */
static bool bump_digits(char *d, int n, int delta)
{
    for (int i = n - 1; i >= 0; i--) {
        int v = d[i] - '0' + delta;
        if (v >= 0 && v <= 9) {
            d[i] = (char)('0' + v);
            return !(i == 0 && v == 0);
        }
        d[i] = delta > 0 ? '0' : '9';
    }
    return false;
}

/*
 * For each length n, printf's "%.*e" gives the correctly rounded n-digit decimal (glibc rounds
 * the exact binary value, ties to even, as Gay's dtoa does). When it does not read back, a
 * neighbour one unit in the last digit away still may: at a power of two the rounding interval
 * is lopsided (half as wide below), so the nearest decimal can fall outside it while the next
 * one up lies inside (2^-24: "5.960464477539062e-08" does not read back, "...063" does). Only
 * these three can be the nearest n-digit decimal inside the interval.
 */
void pc_pyrepr_digits_of(double magnitude, pc_pyrepr_type type, pc_pyrepr_digits *out)
{
    char buf[64];
    int most = max_digits(type);
    for (int n = 1; n <= most; n++) {
        snprintf(buf, sizeof buf, "%.*e", n - 1, magnitude);
        pc_pyrepr_digits near;
        near.n = 0;
        const char *p = buf;
        for (; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9')
                near.d[near.n++] = *p;
        near.d[near.n] = '\0';
        near.exp10 = atoi(p + 1);
        char text[64];
        sci_text(text, sizeof text, near.d, near.n, near.exp10);
        if (reads_back(text, magnitude, type)) {
            parse_sci(text, out);
            return;
        }
        bool found = false;
        double best_dist = 0;
        pc_pyrepr_digits best = near;
        for (int delta = -1; delta <= 1; delta += 2) {
            pc_pyrepr_digits c = near;
            if (!bump_digits(c.d, c.n, delta))
                continue;
            sci_text(text, sizeof text, c.d, c.n, c.exp10);
            if (!reads_back(text, magnitude, type))
                continue;
            double dist = fabs(strtod(text, NULL) - magnitude);
            if (!found || dist < best_dist) {
                found = true;
                best_dist = dist;
                best = c;
            }
        }
        if (found) {
            sci_text(text, sizeof text, best.d, best.n, best.exp10);
            parse_sci(text, out);
            return;
        }
    }
    snprintf(buf, sizeof buf, "%.*e", most - 1, magnitude); /* not reached for finite values */
    parse_sci(buf, out);
}

int pc_pyrepr_layout(char *dst, size_t size, bool negative, const pc_pyrepr_digits *dg,
                     bool scientific)
{
    char out[PC_PYREPR_MAX + 8];
    size_t k = 0;
    if (negative)
        out[k++] = '-';
    if (!scientific) {
        if (dg->exp10 >= 0) {
            for (int i = 0; i <= dg->exp10; i++)
                out[k++] = i < dg->n ? dg->d[i] : '0';
            out[k++] = '.';
            if (dg->n > dg->exp10 + 1)
                for (int i = dg->exp10 + 1; i < dg->n; i++)
                    out[k++] = dg->d[i];
            else
                out[k++] = '0';
        } else {
            out[k++] = '0';
            out[k++] = '.';
            for (int i = 0; i < -dg->exp10 - 1; i++)
                out[k++] = '0';
            for (int i = 0; i < dg->n; i++)
                out[k++] = dg->d[i];
        }
        out[k] = '\0';
    } else {
        out[k++] = dg->d[0];
        if (dg->n > 1) {
            out[k++] = '.';
            for (int i = 1; i < dg->n; i++)
                out[k++] = dg->d[i];
        }
        int e = dg->exp10;
        snprintf(out + k, sizeof out - k, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    return put_text(dst, size, out);
}

/* nan, inf and zeros as Python and numpy spell them; NULL for the values that have digits. */
static const char *special_text(double x)
{
    if (isnan(x))
        return "nan";
    if (isinf(x))
        return x < 0 ? "-inf" : "inf";
    if (x == 0)
        return signbit(x) ? "-0.0" : "0.0";
    return NULL;
}

int pc_pyrepr_double(char *dst, size_t size, double x)
{
    const char *special = special_text(x);
    if (special)
        return put_text(dst, size, special);
    pc_pyrepr_digits dg;
    pc_pyrepr_digits_of(fabs(x), PC_PYREPR_F64, &dg);
    return pc_pyrepr_layout(dst, size, signbit(x) != 0, &dg, dg.exp10 < -4 || dg.exp10 >= 16);
}

static int numpy_str(char *dst, size_t size, double x, pc_pyrepr_type type)
{
    const char *special = special_text(x);
    if (special)
        return put_text(dst, size, special);
    double magnitude = fabs(x);
    pc_pyrepr_digits dg;
    pc_pyrepr_digits_of(magnitude, type, &dg);
    return pc_pyrepr_layout(dst, size, signbit(x) != 0, &dg,
                            !(magnitude < 1e16 && magnitude >= 1e-4));
}

int pc_pyrepr_numpy_f32(char *dst, size_t size, float x)
{
    return numpy_str(dst, size, (double)x, PC_PYREPR_F32);
}

int pc_pyrepr_numpy_f16(char *dst, size_t size, uint16_t bits)
{
    return numpy_str(dst, size, (double)pc_f16_to_f32(bits), PC_PYREPR_F16);
}
