/* core/pyrepr.h against Python itself: repr() of >= 300,000 doubles (random bit patterns and
 * random values in the ranges precheck meets) and numpy's str() of float32/float16, computed
 * by the python3 on PATH in the same run, plus the edge cases written out (the random values a
 * tenth as many under PRECHECK_TEST_LIGHT, the ASan+UBSan stage). */
#include "pc_test.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/core/convert.h"
#include "precheck/core/pyrepr.h"

static char *repr_of(double x, char *buf)
{
    int n = pc_pyrepr_double(buf, PC_PYREPR_MAX, x);
    assert_true(n > 0 && n < PC_PYREPR_MAX);
    return buf;
}

/* The cases that tell a correct repr from the near misses precheck had (a plain "%.*e" loop
 * missed 2^-24; a "%.*g" loop printed 1e15 as "1e+15"). */
static void test_edge_cases(void **state)
{
    (void)state;
    static const struct {
        double x;
        const char *text;
    } cases[] = {
        {0.0, "0.0"},
        {-0.0, "-0.0"},
        {1.0, "1.0"},
        {-2.5, "-2.5"},
        {0.1, "0.1"},
        {1.0 / 3, "0.3333333333333333"},
        {1e-4, "0.0001"},
        {1e-5, "1e-05"},
        {1.5e-5, "1.5e-05"},
        {0.00012, "0.00012"},
        {1e15, "1000000000000000.0"},
        {1e16, "1e+16"},
        {9007199254740993.0, "9007199254740992.0"},
        {1234567890123456.7, "1234567890123456.8"},
        {12345678901234567.0, "1.2345678901234568e+16"},
        {1e22, "1e+22"},
        {1e23, "1e+23"},
        {0x1p-24, "5.960464477539063e-08"},
        {0x1p-1074, "5e-324"},
        {-0x1p-1074, "-5e-324"},
        {0x1p-1022, "2.2250738585072014e-308"},
        {-0x1p-1022, "-2.2250738585072014e-308"},
        {0x0.fffffffffffffp-1022, "2.225073858507201e-308"},
        {0x1.fffffffffffffp+1023, "1.7976931348623157e+308"},
        {5e-324 * 3, "1.5e-323"},
        {123456789.0, "123456789.0"},
        {0.30000000000000004, "0.30000000000000004"},
        {100.0, "100.0"},
        {1e-7, "1e-07"},
        {9999999999999998.0, "9999999999999998.0"},
    };
    char buf[PC_PYREPR_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_string_equal(repr_of(cases[i].x, buf), cases[i].text);
    assert_string_equal(repr_of((double)NAN, buf), "nan");
    assert_string_equal(repr_of(-(double)NAN, buf), "nan");
    assert_string_equal(repr_of(HUGE_VAL, buf), "inf");
    assert_string_equal(repr_of(-HUGE_VAL, buf), "-inf");

    /* like snprintf: the full length back, a truncated NUL-terminated text in a short buffer */
    char small[5];
    assert_int_equal(pc_pyrepr_double(small, sizeof small, 0.30000000000000004), 19);
    assert_string_equal(small, "0.30");
    assert_int_equal(pc_pyrepr_double(NULL, 0, 1e16), 5);

    /* numpy's str(): scientific by magnitude (float32 1e-4 lies below 1e-4) */
    assert_int_equal(pc_pyrepr_numpy_f32(buf, sizeof buf, 1e-4f), 5);
    assert_string_equal(buf, "1e-04");
    pc_pyrepr_numpy_f32(buf, sizeof buf, 0.1f);
    assert_string_equal(buf, "0.1");
    pc_pyrepr_numpy_f32(buf, sizeof buf, -0.0f);
    assert_string_equal(buf, "-0.0");
    pc_pyrepr_numpy_f16(buf, sizeof buf, 0x7bff); /* 65504 */
    assert_string_equal(buf, "65500.0");
    pc_pyrepr_numpy_f16(buf, sizeof buf, 0x7c00);
    assert_string_equal(buf, "inf");
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static double double_of(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* The doubles tested against Python: random bit patterns, and random values where precheck's
 * numbers live (thresholds, statistics, errors, integers held as floats, float32 values
 * widened), every power of two with its neighbours, and the edge cases. Under the sanitizers
 * (pc_test_light) a tenth of the random ones: the same paths, and Python's side, which checks
 * nothing new there, a tenth as long. */
static size_t make_doubles(uint64_t **out)
{
    enum { N = 330000 };
    const int d = pc_test_light() ? 10 : 1;
    uint64_t *v = malloc(N * sizeof *v);
    assert_non_null(v);
    size_t n = 0;
    uint64_t s = 27;
    for (int i = 0; i < 130000 / d; i++) /* any bit pattern: subnormals, nan, inf included */
        v[n++] = splitmix64(&s);
    for (int i = 0; i < 50000 / d; i++) { /* uniform in (-1, 1) */
        double u = (double)(splitmix64(&s) >> 11) * 0x1p-53;
        v[n++] = bits_of(i % 2 ? -u : u);
    }
    for (int i = 0; i < 50000 / d; i++) { /* [1, 10) times 10^-30 .. 10^30 */
        double u = 1 + 9 * (double)(splitmix64(&s) >> 11) * 0x1p-53;
        v[n++] = bits_of(u * pow(10, (double)(int)(splitmix64(&s) % 61) - 30));
    }
    for (int i = 0; i < 40000 / d; i++) { /* short decimals: k / 10^j */
        double k = (double)(splitmix64(&s) % 10000000);
        v[n++] = bits_of(k / pow(10, (double)(splitmix64(&s) % 12)));
    }
    for (int i = 0; i < 20000 / d; i++) { /* integers around 1e15 .. 1e17 */
        uint64_t k = 500000000000000u + splitmix64(&s) % 199500000000000000u;
        v[n++] = bits_of((double)k);
    }
    for (int i = 0; i < 30000 / d; i++) { /* float32 values */
        uint32_t b = (uint32_t)splitmix64(&s);
        float f;
        memcpy(&f, &b, sizeof f);
        v[n++] = bits_of((double)f);
    }
    for (int e = -1074; e <= 1023; e++) { /* powers of two and their neighbours */
        double p = ldexp(1, e);
        v[n++] = bits_of(p);
        v[n++] = bits_of(nextafter(p, 0));
        v[n++] = bits_of(nextafter(p, HUGE_VAL));
    }
    const double edges[] = {0.0,       -0.0,        1e15,    1e16,     0x1p-24,
                            0x1p-1074, 0x1p-1022,   DBL_MAX, -DBL_MAX, HUGE_VAL,
                            -HUGE_VAL, (double)NAN, 1e-4,    1e-5,     9999999999999998.0};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        v[n++] = bits_of(edges[i]);
    assert_true(n <= N);
    *out = v;
    return n;
}

/* Runs python3 with script on the numbers in input (one a line), its lines into output. */
static int run_python(const char *python, const char *script, const char *input, const char *output)
{
    char cmd[4096];
    PC_TEST_FMT(cmd, "%s -c \"%s\" <'%s' >'%s' 2>/dev/null", python, script, input, output);
    return system(cmd);
}

/* Compares each value's text with the line Python printed for it; shows the first misses. */
static size_t count_mismatches(const char *path, const uint64_t *v, size_t n,
                               int (*format)(char *, size_t, uint64_t))
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[128], ours[PC_PYREPR_MAX];
    size_t bad = 0, i = 0;
    for (; i < n && fgets(line, sizeof line, f); i++) {
        line[strcspn(line, "\n")] = '\0';
        format(ours, sizeof ours, v[i]);
        if (strcmp(ours, line) != 0 && bad++ < 10)
            print_message("bits 0x%016" PRIx64 ": Python \"%s\", ours \"%s\"\n", v[i], line, ours);
    }
    fclose(f);
    assert_int_equal(i, n); /* Python printed a line for every value */
    return bad;
}

static int format_f64(char *dst, size_t size, uint64_t b)
{
    return pc_pyrepr_double(dst, size, double_of(b));
}

static void write_numbers(const char *path, const uint64_t *v, size_t n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%" PRIu64 "\n", v[i]);
    assert_int_equal(fclose(f), 0);
}

static void test_against_python_repr(void **state)
{
    (void)state;
    if (system("python3 -c '' >/dev/null 2>&1") != 0) {
        print_message("python3 is not on PATH: Python's repr cannot be asked\n");
        skip();
    }
    char dir[1024], in[1100], out[1100];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(in, "%s/bits.txt", dir);
    PC_TEST_FMT(out, "%s/repr.txt", dir);
    uint64_t *v = NULL;
    size_t n = make_doubles(&v);
    assert_true(n >= (pc_test_light() ? 30000u : 300000u));
    write_numbers(in, v, n);
    assert_int_equal(run_python("python3",
                                "import struct,sys\n"
                                "w=sys.stdout.write\n"
                                "for l in sys.stdin: "
                                "w(repr(struct.unpack('<d',struct.pack('<Q',int(l)))[0])+'\\n')",
                                in, out),
                     0);
    size_t bad = count_mismatches(out, v, n, format_f64);
    print_message("%zu doubles, %zu differ from Python's repr\n", n, bad);
    assert_int_equal(bad, 0);
    free(v);
}

static int format_f32(char *dst, size_t size, uint64_t b)
{
    uint32_t b32 = (uint32_t)b;
    float f;
    memcpy(&f, &b32, sizeof f);
    return pc_pyrepr_numpy_f32(dst, size, f);
}

static int format_f16(char *dst, size_t size, uint64_t b)
{
    return pc_pyrepr_numpy_f16(dst, size, (uint16_t)b);
}

/* A python3 that imports numpy: the one on PATH, else the torch tests' Python. */
static const char *numpy_python(void)
{
    if (system("python3 -c 'import numpy' >/dev/null 2>&1") == 0)
        return "python3";
    return pc_test_torch_python();
}

static void test_against_numpy_str(void **state)
{
    (void)state;
    const char *python = numpy_python();
    if (!python) {
        print_message("no python3 with numpy: numpy's str cannot be asked\n");
        skip();
    }
    char dir[1024], in[1100], out[1100];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(in, "%s/bits.txt", dir);
    PC_TEST_FMT(out, "%s/str.txt", dir);
    enum { N32_FULL = 60000 };
    const int N32 = pc_test_light() ? N32_FULL / 10 : N32_FULL; /* (see make_doubles) */
    uint64_t *v = malloc((N32_FULL + 65536) * sizeof *v);
    assert_non_null(v);
    uint64_t s = 32;
    for (int i = 0; i < N32; i++)
        v[i] = (uint32_t)splitmix64(&s);
    write_numbers(in, v, (size_t)N32);
    assert_int_equal(run_python(python,
                                "import numpy,struct,sys\n"
                                "w=sys.stdout.write\n"
                                "for l in sys.stdin: w(str(numpy.frombuffer("
                                "struct.pack('<I',int(l)),dtype=numpy.float32)[0])+'\\n')",
                                in, out),
                     0);
    size_t bad = count_mismatches(out, v, (size_t)N32, format_f32);
    print_message("%d float32, %zu differ from numpy's str\n", N32, bad);
    assert_int_equal(bad, 0);

    for (uint64_t b = 0; b < 65536; b++) /* every float16 */
        v[b] = b;
    write_numbers(in, v, 65536);
    assert_int_equal(run_python(python,
                                "import numpy,struct,sys\n"
                                "w=sys.stdout.write\n"
                                "for l in sys.stdin: w(str(numpy.frombuffer("
                                "struct.pack('<H',int(l)),dtype=numpy.float16)[0])+'\\n')",
                                in, out),
                     0);
    bad = count_mismatches(out, v, 65536, format_f16);
    print_message("65536 float16, %zu differ from numpy's str\n", bad);
    assert_int_equal(bad, 0);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_against_python_repr),
        cmocka_unit_test(test_against_numpy_str),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
