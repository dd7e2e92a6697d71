/*
 * A synthetic msprobe-style dump.json for benchmarks and smoke runs, shared by gen_dump.c
 * (writes a file) and bench_dump.c (generates one when given --pairs).
 *
 * The file is what msprobe's json.dump(indent=1) writes for a statistics-mode L1 dump of
 * `pairs` calls of Functional.linear, each with its backward: forward input_args [x, weight,
 * bias], input_kwargs {}, is_recompute, output [y]; backward input [dy], output [dx, dw, db].
 * Statistics are float32 values printed as Python's repr of the double, about one tensor in
 * 41 has Infinity/-Infinity and one in 97 NaN, so the non-standard tokens are exercised.
 * About 2 kB per pair: 100,000 pairs give about 200 MB. Deterministic for a given seed.
 */
#ifndef PC_BENCH_DUMP_SYNTH_H
#define PC_BENCH_DUMP_SYNTH_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct synth_rng {
    uint64_t s;
} synth_rng;

static uint64_t synth_next(synth_rng *r)
{
    /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A float32 value in [lo, hi) widened to double, as msprobe's .item() gives. */
static double synth_f32(synth_rng *r, double lo, double hi)
{
    double u = (double)(synth_next(r) >> 11) * (1.0 / 9007199254740992.0);
    return (double)(float)(lo + (hi - lo) * u);
}

/* Python's repr(float): the shortest digits that read back the same, "1.0" for integral
 * values, exponent form below 1e-4 and from 1e16. */
static void synth_repr(char *buf, size_t size, double v)
{
    if (isnan(v)) {
        snprintf(buf, size, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, size, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, size, "%.*g", p, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".e"))
        strncat(buf, ".0", size - strlen(buf) - 1);
}

typedef struct synth_out {
    FILE *f;
    int depth;
} synth_out;

static void synth_indent(synth_out *o, int depth)
{
    fputc('\n', o->f);
    for (int i = 0; i < depth; i++)
        fputc(' ', o->f);
}

static void synth_tensor(synth_out *o, synth_rng *r, int depth, const char *dtype,
                         const long *shape, int rank, int requires_grad, long serial)
{
    char mx[40], mn[40], mean[40], norm[40];
    double scale = synth_f32(r, 0.01, 4.0);
    double vmax = synth_f32(r, 0.0, scale), vmin = -synth_f32(r, 0.0, scale);
    double vmean = synth_f32(r, -0.01, 0.01), vnorm = synth_f32(r, 1.0, 5000.0);
    if (serial % 41 == 7) {
        vmax = HUGE_VAL;
        vmin = -HUGE_VAL;
        vnorm = HUGE_VAL;
        vmean = (double)NAN;
    } else if (serial % 97 == 11) {
        vmax = vmin = vmean = vnorm = (double)NAN;
    }
    synth_repr(mx, sizeof mx, vmax);
    synth_repr(mn, sizeof mn, vmin);
    synth_repr(mean, sizeof mean, vmean);
    synth_repr(norm, sizeof norm, vnorm);
    FILE *f = o->f;
    fputc('{', f);
    synth_indent(o, depth + 1);
    fputs("\"type\": \"torch.Tensor\",", f);
    synth_indent(o, depth + 1);
    fprintf(f, "\"dtype\": \"%s\",", dtype);
    synth_indent(o, depth + 1);
    fputs("\"shape\": [", f);
    for (int i = 0; i < rank; i++) {
        synth_indent(o, depth + 2);
        fprintf(f, "%ld%s", shape[i], i + 1 < rank ? "," : "");
    }
    synth_indent(o, depth + 1);
    fputs("],", f);
    synth_indent(o, depth + 1);
    fprintf(f, "\"Max\": %s,", mx);
    synth_indent(o, depth + 1);
    fprintf(f, "\"Min\": %s,", mn);
    synth_indent(o, depth + 1);
    fprintf(f, "\"Mean\": %s,", mean);
    synth_indent(o, depth + 1);
    fprintf(f, "\"Norm\": %s,", norm);
    synth_indent(o, depth + 1);
    fprintf(f, "\"requires_grad\": %s", requires_grad ? "true" : "false");
    synth_indent(o, depth);
    fputc('}', f);
}

/* Writes the whole dump; returns 0, or -1 when writing failed. */
static int synth_dump_write(FILE *f, long pairs, uint64_t seed)
{
    synth_rng r = {seed};
    synth_out o = {f, 0};
    long serial = 0;
    fputs("{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"framework\": \"pytorch\",\n"
          " \"dump_data_dir\": null,\n \"data\": {",
          f);
    for (long k = 0; k < pairs; k++) {
        long tokens = 1 + (long)(synth_next(&r) % 4096), in = 256 << (synth_next(&r) % 4),
             out = 256 << (synth_next(&r) % 5);
        long x[2] = {tokens, in}, w[2] = {out, in}, b[1] = {out}, y[2] = {tokens, out};
        const char *dt = (k % 3) ? "torch.bfloat16" : "torch.float32";
        /* forward */
        synth_indent(&o, 2);
        fprintf(f, "\"Functional.linear.%ld.forward\": {", k);
        synth_indent(&o, 3);
        fputs("\"input_args\": [", f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, x, 2, 1, serial++);
        fputc(',', f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, w, 2, 1, serial++);
        fputc(',', f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, b, 1, 1, serial++);
        synth_indent(&o, 3);
        fputs("],", f);
        synth_indent(&o, 3);
        fputs("\"input_kwargs\": {},", f);
        synth_indent(&o, 3);
        fputs("\"is_recompute\": false,", f);
        synth_indent(&o, 3);
        fputs("\"output\": [", f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, y, 2, 1, serial++);
        synth_indent(&o, 3);
        fputc(']', f);
        synth_indent(&o, 2);
        fputs("},", f);
        /* backward */
        synth_indent(&o, 2);
        fprintf(f, "\"Functional.linear.%ld.backward\": {", k);
        synth_indent(&o, 3);
        fputs("\"input\": [", f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, y, 2, 0, serial++);
        synth_indent(&o, 3);
        fputs("],", f);
        synth_indent(&o, 3);
        fputs("\"output\": [", f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, x, 2, 0, serial++);
        fputc(',', f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, w, 2, 0, serial++);
        fputc(',', f);
        synth_indent(&o, 4);
        synth_tensor(&o, &r, 4, dt, b, 1, 0, serial++);
        synth_indent(&o, 3);
        fputc(']', f);
        synth_indent(&o, 2);
        fputc('}', f);
        if (k + 1 < pairs)
            fputc(',', f);
    }
    fputs(pairs ? "\n }\n}" : "}\n}", f);
    return ferror(f) ? -1 : 0;
}

#endif
