/*
 * The LLaMA-shaped dumps of bench/llama_dump.h (what bench_e2e measures), scaled down, through
 * run_ut: every record of the fused (torch_npu) and of the eager style runs (no SKIP other than
 * msprobe's black list: Tensor.to), npu_fusion_attention gets its synthesised causal mask and
 * its backward through output 0, and the per-API statuses are the same with one and two
 * workers.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/llama_dump.h"

static llama_cfg small(int fp32, int eager)
{
    /* 4 heads of 8, FFN 48, vocabulary 100, sequence 16, two layers */
    llama_cfg c = {32, 4, 8, 48, 100, 16, 1, 2, fp32, eager};
    return c;
}

/* Counts result rows by their forward column; fails on a SKIP other than Tensor.to. */
static void check_rows(const char *result, int *rows)
{
    size_t len;
    char *text = pc_test_slurp(result, &len);
    *rows = 0;
    char *save = NULL;
    strtok_r(text, "\n", &save); /* header */
    for (char *line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        (*rows)++;
        char *c1 = strchr(line, ',');
        assert_non_null(c1);
        if (strncmp(c1 + 1, "SKIP", 4) == 0 && strncmp(line, "Tensor.to.", 10) != 0)
            fail_msg("unexpected SKIP row: %s", line);
    }
    free(text);
}

static void run_style(int fp32, int eager)
{
    char dir[512], dump[700], out1[700], out2[700], args[2048], r1[1200], r2[1200];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(dump, "%s/dump.json", dir);
    PC_TEST_FMT(out1, "%s/one", dir);
    PC_TEST_FMT(out2, "%s/two", dir);
    FILE *f = fopen(dump, "w");
    assert_non_null(f);
    llama_cfg c = small(fp32, eager);
    llama_cost k = llama_dump_write(f, &c);
    assert_int_equal(fclose(f), 0);
    assert_true(k.records > 10);
    assert_true(k.flops32 > 0 && k.flops64 == k.flops32);
    char mk[1600];
    PC_TEST_FMT(mk, "mkdir -p %s %s", out1, out2);
    assert_int_equal(system(mk), 0);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", dump, out1);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress --jobs 2", dump, out2);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(out1, "accuracy_checking_result_", r1, sizeof r1);
    pc_test_find_file(out2, "accuracy_checking_result_", r2, sizeof r2);
    int rows;
    check_rows(r1, &rows);
    assert_int_equal(rows, (int)k.records);
    size_t l1, l2;
    char *a = pc_test_slurp(r1, &l1), *b = pc_test_slurp(r2, &l2);
    assert_int_equal(l1, l2);
    assert_memory_equal(a, b, l1);
    free(a);
    free(b);
    if (!eager) {
        /* the attention's backward ran (grad_index 0) and only its output 0 was compared */
        assert_false(pc_test_file_contains(r1, "NPU.npu_fusion_attention.0,SKIP"));
        assert_false(pc_test_file_contains(r1, "NPU.npu_fusion_attention.0,pass,SKIP"));
        char details[1200];
        pc_test_find_file(out1, "accuracy_checking_details_", details, sizeof details);
        assert_true(pc_test_file_contains(details, "NPU.npu_fusion_attention.0.forward.output.0,"));
        assert_false(pc_test_file_contains(details, "NPU.npu_fusion_attention.0.forward.output.1"));
        assert_true(
            pc_test_file_contains(details, "NPU.npu_fusion_attention.0.backward.output.2,"));
    }
}

static void test_fused_bf16(void **state)
{
    (void)state;
    run_style(0, 0);
}

static void test_fused_fp32(void **state)
{
    (void)state;
    run_style(1, 0);
}

static void test_eager_bf16(void **state)
{
    (void)state;
    run_style(0, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_bf16),
        cmocka_unit_test(test_fused_fp32),
        cmocka_unit_test(test_eager_bf16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
