#!/usr/bin/env python3
"""Golden values for precheck's compare and CSV tests, from numpy 1.x (run with numpy >= 1.23,
< 2.0, the versions msprobe supports; the committed files were made with numpy 1.24.2).

Writes into tests/fixtures/compare/:
  f32_repr.txt     numpy's str() of float32 values: "<hex bits> <text>" per line
  f16_repr.txt     numpy's str() of every positive finite float16, one per line, in bit order
  fixed14.txt      Python's "{:.14f}" of float64 values: "<hex bits> <text>"
  numpy_sums.txt   np.sum / np.mean of float32 and float64 arrays made by the LCG below:
                   "<dtype> <n> <seed> <sum hex bits> <mean hex bits>"

CI never runs this script; rerun it only to extend the fixtures.
usage: gen_compare_golden.py [output_dir]
"""
import os
import struct
import sys

import numpy as np

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "compare")


def lcg_values(n, seed, dtype):
    """The test's generator: x = (state >> 8) * 2^-24 * 2^(e) * sign, deterministic in C too."""
    state = seed & 0xFFFFFFFF
    out = np.empty(n, dtype=dtype)
    for i in range(n):
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        mant = (state >> 8) / 16777216.0
        e = (state & 0xF) - 8
        sign = -1.0 if state & 0x10 else 1.0
        out[i] = dtype(sign * (1.0 + mant) * 2.0 ** e)
    return out


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64_bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20240601)

    # float32 reprs: random bit patterns over every exponent, plus the edges numpy's rules have
    vals = set()
    for b in rng.integers(0, 1 << 32, 6000, dtype=np.uint64):
        vals.add(int(b))
    specials = [0.0, -0.0, 1.0, 0.1, 0.125, 100.0, 1e-4, 1e-5, 1.5e-5, 6.944174e-08, 0.0009765625,
                1e16, 9.999999e15, 1e15, 123456789.0, 3.4028235e38, 1.4e-45, 1.17549435e-38,
                0.33333334, 65504.0, 0.002493717, 0.00055664056, 2.0 ** -24, 2.0 ** 24, 1e-4 * 1.0000001]
    for x in specials:
        vals.add(f32_bits(np.float32(x)))
        vals.add(f32_bits(np.float32(-x)))
    for e in range(-149, 128):
        vals.add(f32_bits(np.float32(2.0 ** e)))
    # around the 1e-4 and 1e16 switch between positional and scientific
    for c in (np.float32(1e-4), np.float32(1e16)):
        b = f32_bits(c)
        for k in range(-3, 4):
            vals.add(b + k)
    with open(os.path.join(OUT, "f32_repr.txt"), "w") as f:
        for b in sorted(vals):
            x = np.frombuffer(struct.pack("<I", b), dtype=np.float32)[0]
            if not np.isfinite(x):
                continue
            f.write("%08x %s\n" % (b, str(x)))

    # every positive finite float16
    with open(os.path.join(OUT, "f16_repr.txt"), "w") as f:
        for b in range(0, 0x7C00):
            x = np.frombuffer(struct.pack("<H", b), dtype=np.float16)[0]
            f.write("%s\n" % str(x))

    # Python's fixed formatting of float64
    with open(os.path.join(OUT, "fixed14.txt"), "w") as f:
        xs = list(rng.standard_normal(500) * 10.0 ** rng.integers(-20, 20, 500))
        xs += [0.5 + 1e-15, 0.99999999999999, 1.00000000000000, 1063382.033720672, 2.5e-15, 5e-15,
               0.125, 1e300, -1e-300, 123456.78901234567, 0.999999999999995, 0.000000000000005]
        for x in xs:
            x = float(x)
            f.write("%016x %s\n" % (f64_bits(x), "{:.14f}".format(x)))

    # numpy's blocked pairwise sums and means
    with open(os.path.join(OUT, "numpy_sums.txt"), "w") as f:
        sizes = [1, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 1000, 4095, 8191,
                 8192, 8193, 12345, 16384, 16385, 40000, 100003]
        for dtype, name in ((np.float32, "float32"), (np.float64, "float64")):
            for i, n in enumerate(sizes):
                seed = 1000 + i
                a = lcg_values(n, seed, dtype)
                s = np.sum(a)
                m = np.mean(a)
                if dtype is np.float32:
                    f.write("%s %d %d %08x %08x\n" % (name, n, seed, f32_bits(s), f32_bits(m)))
                else:
                    f.write("%s %d %d %016x %016x\n" % (name, n, seed, f64_bits(s), f64_bits(m)))


if __name__ == "__main__":
    main()
