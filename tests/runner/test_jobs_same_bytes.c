/*
 * The same CSVs, byte for byte, with any number of workers: a LLaMA-shaped dump (bench/
 * llama_dump.h) whose GEMMs are large enough for OpenBLAS to thread them (hidden 256, FFN 688,
 * vocabulary 1000, sequence 128: the FFN's down projection is [128, 688] x [688, 256]), in
 * float32 and bfloat16, with the fused (torch_npu) and the eager ops, through run_ut --jobs 1,
 * --jobs 2 and multi_run_ut -n 2. Each worker of --jobs N runs cores / N threads; before the
 * GEMMs were cut into blocks fixed by their shapes (src/ops/blas.c), OpenBLAS's threaded
 * products changed metrics of Functional.linear rows between --jobs 1 and 2 in every style.
 */
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../bench/llama_dump.h"
#include "pc_run_ut_test.h"

static void run_into(const char *dir, const char *cmd, const char *dump, const char *out)
{
    char mk[1200], args[2048];
    PC_TEST_FMT(mk, "mkdir -p %s/%s", dir, out);
    assert_int_equal(system(mk), 0);
    PC_TEST_FMT(args, "%s -api_info %s -o %s/%s --no-progress", cmd, dump, dir, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
}

static void assert_same_csvs(const char *dir, const char *a, const char *b)
{
    static const char *const kinds[] = {"accuracy_checking_details_", "accuracy_checking_result_"};
    for (int k = 0; k < 2; k++) {
        char da[1200], db[1200], fa[1600], fb[1600];
        PC_TEST_FMT(da, "%s/%s", dir, a);
        PC_TEST_FMT(db, "%s/%s", dir, b);
        pc_test_find_file(da, kinds[k], fa, sizeof fa);
        pc_test_find_file(db, kinds[k], fb, sizeof fb);
        pc_test_assert_same_file(fa, fb);
    }
}

static void check_style(int fp32, int eager, bool multi)
{
    char dir[512], dump[700];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(dump, "%s/dump.json", dir);
    FILE *f = fopen(dump, "w");
    assert_non_null(f);
    llama_cfg c = {256, 4, 64, 688, 1000, 128, 1, 1, fp32, eager, 0};
    llama_cost k = llama_dump_write(f, &c);
    assert_int_equal(fclose(f), 0);
    assert_true(k.records > 10);
    run_into(dir, "run_ut --jobs 1", dump, "one");
    run_into(dir, "run_ut --jobs 2", dump, "two");
    assert_same_csvs(dir, "one", "two");
    if (multi) {
        run_into(dir, "multi_run_ut -n 2", dump, "multi");
        assert_same_csvs(dir, "one", "multi");
    }
}

static void test_fused_fp32(void **state)
{
    (void)state;
    check_style(1, 0, true);
}

static void test_fused_bf16(void **state)
{
    (void)state;
    check_style(0, 0, false);
}

static void test_eager_fp32(void **state)
{
    (void)state;
    check_style(1, 1, false);
}

static void test_eager_bf16(void **state)
{
    (void)state;
    check_style(0, 1, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fused_fp32),
        cmocka_unit_test(test_fused_bf16),
        cmocka_unit_test(test_eager_fp32),
        cmocka_unit_test(test_eager_bf16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
