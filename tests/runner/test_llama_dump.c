/*
 * The LLaMA-shaped dumps of bench/llama_dump.h (what bench_e2e measures), scaled down, through
 * run_ut: every record of the fused (torch_npu), the eager and the GPT-2 style runs (no SKIP
 * other than msprobe's black list: Tensor.to), npu_fusion_attention gets its synthesised causal
 * mask and its backward through output 0, and the per-API statuses are the same with one and
 * two workers. The GPT-2 style's dump, materialised into a tensor-mode dump, gives the same
 * CSVs as the statistics dump it came from.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/llama_dump.h"

static llama_cfg small(int fp32, int eager, int gpt)
{
    /* 4 heads of 8, FFN 48, vocabulary 100, sequence 16, two layers */
    llama_cfg c = {32, 4, 8, 48, 100, 16, 1, 2, fp32, eager, gpt};
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

static void run_style(int fp32, int eager, int gpt)
{
    char dir[512], dump[700], out1[700], out2[700], args[2048], r1[1200], r2[1200];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(dump, "%s/dump.json", dir);
    PC_TEST_FMT(out1, "%s/one", dir);
    PC_TEST_FMT(out2, "%s/two", dir);
    FILE *f = fopen(dump, "w");
    assert_non_null(f);
    llama_cfg c = small(fp32, eager, gpt);
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
    if (gpt) {
        /* each layer: 24 records, masked_fill with -inf among them; 9 around the layers */
        assert_int_equal(k.records, 24 * c.layers + 9);
        assert_true(pc_test_file_contains(r1, "Tensor.masked_fill.1,"));
        assert_true(pc_test_file_contains(r1, "Functional.dropout.6,"));
        assert_true(pc_test_file_contains(r1, "Functional.gelu.1,"));
        /* tensor mode: the same inputs as files, the same CSVs */
        char mat[700], out3[700], r3[1200], d1[1200], d3[1200];
        PC_TEST_FMT(mat, "%s/tensor", dir);
        PC_TEST_FMT(out3, "%s/three", dir);
        PC_TEST_FMT(args, "materialize -api_info %s -o %s", dump, mat);
        assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
        PC_TEST_FMT(mk, "mkdir -p %s", out3);
        assert_int_equal(system(mk), 0);
        PC_TEST_FMT(args, "run_ut -api_info %s/dump.json -o %s --no-progress", mat, out3);
        assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
        pc_test_find_file(out3, "accuracy_checking_result_", r3, sizeof r3);
        pc_test_find_file(out1, "accuracy_checking_details_", d1, sizeof d1);
        pc_test_find_file(out3, "accuracy_checking_details_", d3, sizeof d3);
        size_t l3, ld1, ld3;
        char *x = pc_test_slurp(r1, &l1), *y = pc_test_slurp(r3, &l3);
        assert_int_equal(l1, l3);
        assert_memory_equal(x, y, l1);
        free(x);
        free(y);
        x = pc_test_slurp(d1, &ld1);
        y = pc_test_slurp(d3, &ld3);
        assert_int_equal(ld1, ld3);
        assert_memory_equal(x, y, ld1);
        free(x);
        free(y);
    }
    if (!eager && !gpt) {
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
    run_style(0, 0, 0);
}

static void test_fused_fp32(void **state)
{
    (void)state;
    run_style(1, 0, 0);
}

static void test_eager_bf16(void **state)
{
    (void)state;
    run_style(0, 1, 0);
}

static void test_gpt_fp32(void **state)
{
    (void)state;
    run_style(1, 1, 1);
}

static void test_gpt_bf16(void **state)
{
    (void)state;
    run_style(0, 1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_bf16), cmocka_unit_test(test_fused_fp32),
        cmocka_unit_test(test_eager_bf16), cmocka_unit_test(test_gpt_fp32),
        cmocka_unit_test(test_gpt_bf16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
