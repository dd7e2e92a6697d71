/* api_precision_compare on the vectors of spec compare.md §11.7 and on msprobe's own unit-test
 * tables, where precheck deviates on purpose (each deviation is one test), and on bad input. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pc_test.h"
#include "precision_compare/pcmp_impl.h"
#include "precheck/precision_compare/precision_compare.h"

#define VEC PC_TEST_FIXTURES "/../precision_compare/vectors"
#define UT  PC_TEST_FIXTURES "/msprobe/precision_compare/msprobe_unit_test_inputs"
#define BOM "\xEF\xBB\xBF"

static pc_status run(const char *npu, const char *gpu, char *dir, size_t size, pc_pcmp_summary *sum)
{
    pc_test_tmpdir(dir, size);
    pc_pcmp_options opt = {
        .npu_path = npu, .gpu_path = gpu, .out_dir = dir, .timestamp = "20260101000000"};
    return pc_pcmp_run(&opt, sum);
}

static void assert_text(const char *path, const char *want)
{
    char *got = pc_test_slurp(path, NULL);
    if (strcmp(got, want) != 0)
        fprintf(stderr, "--- got:\n%s\n--- want:\n%s\n", got, want);
    assert_string_equal(got, want);
    free(got);
}

/* Both outputs of a run against the expected files. */
static void assert_outputs(const pc_pcmp_summary *sum, const char *want_details,
                           const char *want_result)
{
    char *want = pc_test_slurp(want_details, NULL);
    assert_text(sum->details_path, want);
    free(want);
    want = pc_test_slurp(want_result, NULL);
    assert_text(sum->result_path, want);
    free(want);
}

static void assert_no_outputs(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/api_precision_compare_details_20260101000000.csv", dir);
    assert_int_not_equal(access(p, F_OK), 0);
    snprintf(p, sizeof p, "%s/api_precision_compare_result_20260101000000.csv", dir);
    assert_int_not_equal(access(p, F_OK), 0);
    /* nor a temporary (io/file_out.h: <final>.XXXXXX.partial) */
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n >= 8 && strcmp(e->d_name + n - 8, ".partial") == 0)
            fail_msg("%s/%s was left behind", dir, e->d_name);
    }
    closedir(d);
}

/* §11.7 (a): the run_ut details rows of §11.6 on both sides. */
static void test_spec_11_7_a(void **state)
{
    (void)state;
    char dir[4096];
    pc_pcmp_summary sum;
    assert_int_equal(run(VEC "/e2e_npu.csv", VEC "/e2e_gpu.csv", dir, sizeof dir, &sum), PC_OK);
    assert_outputs(&sum, VEC "/e2e_want_details.csv", VEC "/e2e_want_result.csv");
}

/* §11.7 (b): the synthetic rows. The details CSV is msprobe's byte for byte, and so is the
 * result CSV up to the grouping deviation (msprobe's own is synth_msprobe_result.csv: a second
 * Torch.mean.0 row at the end). The invalid-name row comes before the pending Torch.exp.0, as
 * in msprobe. */
static void test_spec_11_7_b(void **state)
{
    (void)state;
    char dir[4096];
    pc_pcmp_summary sum;
    assert_int_equal(run(VEC "/synth_npu.csv", VEC "/synth_gpu.csv", dir, sizeof dir, &sum), PC_OK);
    assert_int_equal(sum.unmatched_rows, 1); /* Torch.tan.0 */
    assert_outputs(&sum, VEC "/synth_want_details.csv", VEC "/synth_want_result.csv");
}

#define DETAILS_HEADER                                                                                                                  \
    BOM "API Name,小值域错误比值,小值域判定结果,均方根误差比值,均方根误差判定结果,相对误差最大值"  \
        "比值,相对误差最大值判定结果,相对误差平均值比值,相对误差平均值判定结果,误差均衡性比值," \
        "误差均衡性判定结果,inf/nan错误率,inf/nan判定结果,相对误差错误率,相对误差判定结果,绝对误"     \
        "差错误率,绝对误差判定结果,二进制一致错误率,二进制一致错误率判定结果,ULP误差平均值,ULP误" \
        "差大于阈值占比,ULP误差大于阈值占比比值,ULP误差判定结果,双千指标,双千指标判定结果,比对结" \
        "果,比对算法,Message\r\n"
#define RESULT_HEADER BOM "API Name,Forward Test Success,Backward Test Success,Message\r\n"
#define ABS_PASS                                                                                   \
    " , , , , , , , , , ,0.00000000000000,pass,0.00000000000000,pass,"                             \
    "0.00000000000000,pass, , , , , , , , ,pass,绝对阈值法,\r\n"

/* Deviation: msprobe reads the all-numeric 相对误差错误率 column as numbers and then fails on
 * every row ("'int' object has no attribute 'isspace'"); precheck reads cells as text, so the
 * row gets its verdict. */
static void test_deviation_all_numeric_column(void **state)
{
    (void)state;
    char dir[4096];
    pc_pcmp_summary sum;
    assert_int_equal(run(UT "/test_data_npu.csv", UT "/test_data_gpu.csv", dir, sizeof dir, &sum),
                     PC_OK);
    assert_text(sum.details_path, DETAILS_HEADER "torch.abs.0.forward.output.0," ABS_PASS);
    assert_text(sum.result_path, RESULT_HEADER "torch.abs.0,pass, ,\r\n");
}

/* Deviation: without a Shape column msprobe fails every non-SKIP row with KeyError 'Shape';
 * Shape is not a required column, so precheck judges the rows without it. */
static void test_deviation_missing_shape_column(void **state)
{
    (void)state;
    char dir[4096];
    pc_pcmp_summary sum;
    assert_int_equal(
        run(UT "/test_data_2_npu.csv", UT "/test_data_2_gpu.csv", dir, sizeof dir, &sum), PC_OK);
    assert_text(sum.details_path, DETAILS_HEADER
                "torch.abs.0.forward.output.0," ABS_PASS "torch.matmul.0.forward.output.0," ABS_PASS
                "torch.matmul.0.backward.output.0," ABS_PASS
                "torch.add.0.forward.output.0, , , , , , , , , , , , , , , , , , , "
                ", , , , , ,SKIP, ,pass\r\n");
    assert_text(sum.result_path, RESULT_HEADER
                "torch.abs.0,pass, ,\r\ntorch.matmul.0,pass,pass,\r\n"
                "torch.add.0,SKIP,SKIP,This data type does not support benchmark compare.\r\n");
}

#define RUN_UT_HEADER                                                                                                                    \
    BOM "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,双百指标,双千指标,双万"                    \
        "指标,二进制一致错误率,误差均衡性,均方根误差,小值域错误占比,相对误差最大值,相对误差平均" \
        "值,inf/nan错误率,相对误差错误率,绝对误差错误率,ULP误差最大值,ULP误差平均值,ULP误差大于"         \
        "阈值占比,Status,Message\r\n"
/* a binary-rule row: 二进制一致错误率 = rate */
#define BIN_ROW(name, rate)                                                                        \
    name ",torch.int64,torch.int64,\"(8,)\", , , , , ," rate ", , , , , , , , , , , ,pass,x\r\n"

/* Deviation: msprobe groups an API's rows only while they are consecutive (two result rows for
 * Torch.max.0 here); precheck gives one row per API, at its first appearance. */
static void test_deviation_grouping_not_consecutive(void **state)
{
    (void)state;
    char dir[4096], npu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    pc_test_write_file(npu, RUN_UT_HEADER BIN_ROW("Torch.max.0.forward.output.0", "0")
                                BIN_ROW("Torch.min.0.forward.output.0", "0")
                                    BIN_ROW("Torch.max.0.backward.output.0", "0.5"));
    pc_pcmp_summary sum;
    char out[4096];
    assert_int_equal(run(npu, npu, out, sizeof out, &sum), PC_OK);
    assert_text(sum.result_path,
                RESULT_HEADER "Torch.max.0,pass,error,\r\nTorch.min.0,pass, ,\r\n");
    assert_int_equal(sum.result_rows, 2);
    assert_false(sum.streamed); /* found out after the streaming pass, and indexed */
}

/* n consecutive APIs (rows in one run each) and, when repeat, the first API once more at the
 * end; the result text of the run. */
static char *many_apis(const char *dir, int n, bool repeat, pc_pcmp_summary *sum)
{
    char npu[4200];
    snprintf(npu, sizeof npu, "%s/many.csv", dir);
    FILE *f = fopen(npu, "wb");
    assert_non_null(f);
    fputs(RUN_UT_HEADER, f);
    for (int i = 0; i < n; i++) {
        fprintf(f, BIN_ROW("Torch.op%d.0.forward.output.0", "0"), i);
        fprintf(f, BIN_ROW("Torch.op%d.0.backward.output.0", "0"), i);
    }
    if (repeat)
        fputs(BIN_ROW("Torch.op0.0.forward.output.1", "0.5"), f);
    fclose(f);
    char out[4096];
    pc_status st = run(npu, npu, out, sizeof out, sum);
    if (st != PC_OK)
        print_error("%s\n", pc_error_message());
    assert_int_equal(st, PC_OK);
    return pc_test_slurp(sum->result_path, NULL);
}

/* The consecutive-rows check keeps no set of names: a small filter (false positives on most
 * names) changes nothing in the outputs, repeats are still found, and too many candidates to
 * check mean the indexed pass, with the same outputs. */
static void test_consecutive_check_is_exact(void **state)
{
    (void)state;
    char dir[4096];
    pc_test_tmpdir(dir, sizeof dir);
    pc_pcmp_summary sum;
    char *want = many_apis(dir, 300, false, &sum);
    assert_true(sum.streamed);
    assert_int_equal(sum.result_rows, 300);
    char *want_rep = many_apis(dir, 300, true, &sum);
    assert_false(sum.streamed);
    assert_int_equal(sum.result_rows, 300);
    pc_pcmp_test_seen_bits(6); /* 64 bits: nearly every name a candidate */
    char *got = many_apis(dir, 300, false, &sum);
    assert_true(sum.streamed);
    assert_string_equal(got, want);
    free(got);
    got = many_apis(dir, 300, true, &sum);
    assert_false(sum.streamed);
    assert_string_equal(got, want_rep);
    free(got);
    char *want_big = NULL;
    pc_pcmp_test_seen_bits(0);
    want_big = many_apis(dir, 5000, false, &sum);
    assert_true(sum.streamed);
    pc_pcmp_test_seen_bits(6); /* more candidates than are checked: indexed */
    got = many_apis(dir, 5000, false, &sum);
    assert_false(sum.streamed);
    assert_string_equal(got, want_big);
    pc_pcmp_test_seen_bits(0);
    free(got);
    free(want_big);
    free(want);
    free(want_rep);
}

/* Copies the CSV src to dst record by record (records end in CRLF; messages hold bare LFs
 * only): the header first, then the data records in reverse order when reverse, without those
 * that start with drop (when not NULL). */
static void copy_records(const char *src, const char *dst, bool reverse, const char *drop)
{
    char *data = pc_test_slurp(src, NULL);
    char *rec[256];
    int n = 0;
    for (char *p = data; *p;) {
        assert_true(n < 256);
        rec[n++] = p;
        char *e = strstr(p, "\r\n");
        assert_non_null(e);
        p = e + 2;
    }
    FILE *f = fopen(dst, "wb");
    assert_non_null(f);
    for (int k = 0; k < n; k++) {
        int i = k == 0 || !reverse ? k : n - k;
        if (i > 0 && drop && strncmp(rec[i], drop, strlen(drop)) == 0)
            continue;
        fwrite(rec[i], 1, (size_t)(strstr(rec[i], "\r\n") + 2 - rec[i]), f);
    }
    fclose(f);
    free(data);
}

/* Runs npu against gpu and checks both outputs against the files of vectors/gpu_skip/. */
static void assert_gpu_skip_outputs(const char *npu, const char *gpu, bool streamed,
                                    size_t unmatched)
{
    char out[4096];
    pc_pcmp_summary sum;
    assert_int_equal(run(npu, gpu, out, sizeof out, &sum), PC_OK);
    assert_int_equal(sum.streamed, streamed);
    assert_int_equal(sum.unmatched_rows, unmatched);
    assert_int_equal(sum.details_rows, 9);
    assert_int_equal(sum.result_rows, 3);
    assert_outputs(&sum, VEC "/gpu_skip/want_details.csv", VEC "/gpu_skip/want_result.csv");
}

/* An API the GPU side could not run (its GPU row SKIP with blank cells) between two APIs with
 * forward and backward rows: judging its NPU row raises, and its SKIP result row comes at once,
 * ahead of the row of the API before it, which is written when the next API's row has been
 * judged (msprobe's order; vectors/gpu_skip/README.md derives every row). The same bytes by
 * the indexed pass (the NPU CSV as it is: its gelu backward row has no GPU row) and by the
 * streaming pass (without that row), and indexed again with the GPU rows in reverse order. */
static void test_gpu_skip_row_order(void **state)
{
    (void)state;
    assert_gpu_skip_outputs(VEC "/gpu_skip/npu_details.csv", VEC "/gpu_skip/gpu_details.csv", false,
                            1);
    char dir[4096], npu[4200], gpu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.csv", dir);
    copy_records(VEC "/gpu_skip/npu_details.csv", npu, false,
                 "Functional.gelu.0.backward.output.0,");
    assert_gpu_skip_outputs(npu, VEC "/gpu_skip/gpu_details.csv", true, 0);
    copy_records(VEC "/gpu_skip/gpu_details.csv", gpu, true, NULL);
    assert_gpu_skip_outputs(npu, gpu, false, 0);
}

/* Rows whose verdict raises (a blank 二进制一致错误率, as run_ut leaves it for unequal builtin
 * outputs) and an invalid name: each result row comes at once, ahead of the row of the API
 * still open -- also when the raised row belongs to that API (Torch.max.0 aggregates its other
 * rows and keeps one row) -- and never opens an API (Torch.min.0's row comes when Torch.sum.0's
 * row is judged, with only its backward). Streamed and indexed alike. */
static void test_raised_rows_do_not_close_the_open_api(void **state)
{
    (void)state;
    char dir[4096], npu[4200], gpu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.csv", dir);
    pc_test_write_file(npu, RUN_UT_HEADER BIN_ROW("Torch.max.0.forward.output.0", "0")
                                BIN_ROW("Torch.max.0.backward.output.0", " ")
                                    BIN_ROW("Torch.max.0.backward.output.1", "0.5")
                                        BIN_ROW("Torch.min.0.forward.output.0", " ")
                                            BIN_ROW("Torch.min.0.backward.output.0", "0")
                                                BIN_ROW("Torch.sum.0.forward.output.0", "0")
                                                    BIN_ROW("Torch.bad.forward.output.0", "0"));
    copy_records(npu, gpu, true, NULL);
    const char *want = RESULT_HEADER
        "Torch.max.0.backward.output.0,SKIP,SKIP,ERROR: Input data is an empty string\r\n"
        "Torch.min.0.forward.output.0,SKIP,SKIP,ERROR: Input data is an empty string\r\n"
        "Torch.max.0,pass,error,\r\n"
        "Torch.min.0, ,pass,\r\n"
        "Torch.bad.forward.output.0,SKIP,SKIP,The API name Torch.bad.forward.output.0 is "
        "invalid.\r\n"
        "Torch.sum.0,pass, ,\r\n";
    const char *gpus[2] = {npu, gpu};
    for (int k = 0; k < 2; k++) {
        char out[4096];
        pc_pcmp_summary sum;
        assert_int_equal(run(npu, gpus[k], out, sizeof out, &sum), PC_OK);
        assert_int_equal(sum.streamed, k == 0);
        assert_int_equal(sum.details_rows, 7);
        assert_int_equal(sum.result_rows, 6);
        assert_text(sum.result_path, want);
    }
}

static void test_unmatched_rows_are_counted(void **state)
{
    (void)state;
    char dir[4096], npu[4200], gpu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.csv", dir);
    pc_test_write_file(npu, RUN_UT_HEADER BIN_ROW("Torch.max.0.forward.output.0", "0")
                                BIN_ROW("Torch.tan.0.forward.output.0", "0"));
    pc_test_write_file(gpu, RUN_UT_HEADER BIN_ROW("Torch.max.0.forward.output.0", "0"));
    pc_pcmp_summary sum;
    char out[4096];
    assert_int_equal(run(npu, gpu, out, sizeof out, &sum), PC_OK);
    assert_int_equal(sum.unmatched_rows, 1);
    assert_int_equal(sum.details_rows, 1);
    assert_text(sum.result_path, RESULT_HEADER "Torch.max.0,pass, ,\r\n");
}

static void test_duplicate_gpu_rows_fail_without_output(void **state)
{
    (void)state;
    char dir[4096], npu[4200], gpu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.csv", dir);
    pc_test_write_file(npu, RUN_UT_HEADER BIN_ROW("Torch.max.0.forward.output.0", "0"));
    pc_test_write_file(gpu, RUN_UT_HEADER BIN_ROW("Torch.max.0.forward.output.0", "0")
                                BIN_ROW("Torch.max.0.forward.output.0", "0"));
    pc_pcmp_summary sum;
    char out[4096];
    assert_int_equal(run(npu, gpu, out, sizeof out, &sum), PC_ERR_INVALID);
    assert_non_null(
        strstr(pc_error_message(), "This API : Torch.max.0.forward.output.0 has multiple records"));
    assert_no_outputs(out);
}

static void test_missing_columns(void **state)
{
    (void)state;
    char dir[4096], npu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    pc_test_write_file(npu,
                       BOM "API Name,DEVICE Dtype,Shape\r\nTorch.max.0.forward.output.0,x,y\r\n");
    pc_pcmp_summary sum;
    char out[4096];
    assert_int_equal(run(npu, VEC "/e2e_gpu.csv", out, sizeof out, &sum), PC_ERR_FORMAT);
    assert_non_null(strstr(pc_error_message(), "The following columns {'小值域错误占比', "));
    assert_non_null(strstr(pc_error_message(), "'双千指标'} are missing in npu_csv ("));
    assert_no_outputs(out);
}

static void test_result_csv_given(void **state)
{
    (void)state;
    char dir[4096], gpu[4200];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(gpu, sizeof gpu, "%s/gpu.csv", dir);
    pc_test_write_file(gpu, RESULT_HEADER "Torch.max.0,pass, \r\n");
    pc_pcmp_summary sum;
    char out[4096];
    assert_int_equal(run(VEC "/e2e_npu.csv", gpu, out, sizeof out, &sum), PC_ERR_FORMAT);
    /* the hint comes first, the list of missing columns after it */
    const char *m = pc_error_message();
    assert_ptr_equal(strstr(m, "gpu_csv ("), m);
    assert_non_null(strstr(m, ") is an accuracy_checking_result CSV: pass the "
                              "accuracy_checking_details CSV of the same run"));
    assert_non_null(strstr(m, "are missing in gpu_csv)"));
    assert_no_outputs(out);
}

static void test_empty_and_missing_file(void **state)
{
    (void)state;
    char dir[4096], npu[4200], out[4096];
    pc_test_tmpdir(dir, sizeof dir);
    snprintf(npu, sizeof npu, "%s/npu.csv", dir);
    pc_test_write_file(npu, "");
    pc_pcmp_summary sum;
    assert_int_equal(run(npu, VEC "/e2e_gpu.csv", out, sizeof out, &sum), PC_ERR_FORMAT);
    assert_non_null(strstr(pc_error_message(), "is empty"));
    snprintf(npu, sizeof npu, "%s/none.csv", dir);
    assert_int_equal(run(npu, VEC "/e2e_gpu.csv", out, sizeof out, &sum), PC_ERR_NOT_FOUND);
    assert_no_outputs(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_11_7_a),
        cmocka_unit_test(test_spec_11_7_b),
        cmocka_unit_test(test_deviation_all_numeric_column),
        cmocka_unit_test(test_deviation_missing_shape_column),
        cmocka_unit_test(test_deviation_grouping_not_consecutive),
        cmocka_unit_test(test_consecutive_check_is_exact),
        cmocka_unit_test(test_gpu_skip_row_order),
        cmocka_unit_test(test_raised_rows_do_not_close_the_open_api),
        cmocka_unit_test(test_unmatched_rows_are_counted),
        cmocka_unit_test(test_duplicate_gpu_rows_fail_without_output),
        cmocka_unit_test(test_missing_columns),
        cmocka_unit_test(test_result_csv_given),
        cmocka_unit_test(test_empty_and_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
