/* api_precision_compare on real msprobe inputs: both outputs byte for byte msprobe's, except
 * the documented deviations, each checked by its own test. */
#include <glob.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_test.h"
#include "precheck/precision_compare/precision_compare.h"

#define FIX PC_TEST_FIXTURES "/msprobe"

/* The single file matching pattern, copied to buf. */
static const char *one(const char *pattern, char *buf, size_t size)
{
    glob_t g;
    assert_int_equal(glob(pattern, 0, NULL, &g), 0);
    assert_int_equal(g.gl_pathc, 1);
    snprintf(buf, size, "%s", g.gl_pathv[0]);
    globfree(&g);
    return buf;
}

static void assert_same_file(const char *got_path, const char *want_path)
{
    size_t gl = 0, wl = 0;
    char *got = pc_test_slurp(got_path, &gl), *want = pc_test_slurp(want_path, &wl);
    assert_non_null(got);
    assert_non_null(want);
    if (gl != wl || memcmp(got, want, gl) != 0) {
        size_t i = 0;
        while (i < gl && i < wl && got[i] == want[i])
            i++;
        size_t s = i > 200 ? i - 200 : 0;
        fprintf(stderr, "differ at byte %zu\n--- got:\n%.*s\n--- want:\n%.*s\n", i,
                (int)(gl - s < 400 ? gl - s : 400), got + s, (int)(wl - s < 400 ? wl - s : 400),
                want + s);
    }
    assert_int_equal(gl, wl);
    assert_memory_equal(got, want, gl);
    free(got);
    free(want);
}

static void run_pair(const char *npu_glob, const char *gpu_glob, const char *want_dir,
                     bool streamed)
{
    char npu[4096], gpu[4096], dir[4096], want[4096];
    pc_test_tmpdir(dir, sizeof dir);
    pc_pcmp_options opt = {.npu_path = one(npu_glob, npu, sizeof npu),
                           .gpu_path = one(gpu_glob, gpu, sizeof gpu),
                           .out_dir = dir,
                           .timestamp = "20260101000000"};
    pc_pcmp_summary sum;
    pc_status st = pc_pcmp_run(&opt, &sum);
    if (st != PC_OK)
        fprintf(stderr, "%s\n", pc_error_message());
    assert_int_equal(st, PC_OK);
    assert_int_equal(sum.streamed, streamed);
    char pat[4200];
    snprintf(pat, sizeof pat, "%s/api_precision_compare_details_*.csv", want_dir);
    assert_same_file(sum.details_path, one(pat, want, sizeof want));
    snprintf(pat, sizeof pat, "%s/api_precision_compare_result_*.csv", want_dir);
    assert_same_file(sum.result_path, one(pat, want, sizeof want));
}

static void test_gpt_bf16_vs_fp32(void **state)
{
    (void)state;
    run_pair(FIX "/run_ut/gpt_bf16_tensor/accuracy_checking_details_*.csv",
             FIX "/run_ut/gpt_tensor/accuracy_checking_details_*.csv",
             FIX "/precision_compare/gpt_bf16_vs_fp32", true);
}

/* The GPU rows in reverse order: the streaming pass gives up at the first row, the indexed
 * pass gives msprobe's bytes all the same. */
static void test_gpt_bf16_vs_fp32_gpu_reversed(void **state)
{
    (void)state;
    char gpu[4096], dir[4096], path[4200];
    one(FIX "/run_ut/gpt_tensor/accuracy_checking_details_*.csv", gpu, sizeof gpu);
    FILE *f = fopen(gpu, "rb");
    assert_non_null(f);
    static char data[1 << 20];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    assert_true(n < sizeof data);
    data[n] = 0;
    /* records end in CRLF; messages hold bare LFs only */
    char *rec[4096] = {0};
    int nrec = 0;
    for (char *p = data; *p && nrec < 4096;) {
        rec[nrec++] = p;
        char *e = strstr(p, "\r\n");
        assert_non_null(e);
        p = e + 2;
    }
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/accuracy_checking_details_20260101000000.csv", dir);
    f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(rec[0], 1, (size_t)(rec[1] - rec[0]), f); /* BOM and header first */
    for (int i = nrec - 1; i >= 1; i--) {
        char *end = i + 1 < nrec ? rec[i + 1] : data + n;
        fwrite(rec[i], 1, (size_t)(end - rec[i]), f);
    }
    fclose(f);
    run_pair(FIX "/run_ut/gpt_bf16_tensor/accuracy_checking_details_*.csv", path,
             FIX "/precision_compare/gpt_bf16_vs_fp32", false);
}

static void test_gpt_fp32_same_twice(void **state)
{
    (void)state;
    run_pair(FIX "/run_ut/gpt_tensor/accuracy_checking_details_*.csv",
             FIX "/run_ut/gpt_tensor_rerun/accuracy_checking_details_*.csv",
             FIX "/precision_compare/gpt_fp32_same_twice", true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt_bf16_vs_fp32),
        cmocka_unit_test(test_gpt_fp32_same_twice),
        cmocka_unit_test(test_gpt_bf16_vs_fp32_gpu_reversed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
