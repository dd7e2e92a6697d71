/* Row rules and aggregation of api_precision_compare: the vectors of spec compare.md §11.4. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pc_test.h"
#include "precheck/precision_compare/precision_compare.h"

/* A row with every metric cell "0", 双千指标 "0.999", Shape "(2,3)". */
static pc_pcmp_row base_row(const char *name, const char *dtype)
{
    pc_pcmp_row r;
    for (int c = 0; c < PC_PCMP_COL_COUNT; c++)
        r.cell[c] = "0";
    r.cell[PC_PCMP_COL_API_NAME] = name;
    r.cell[PC_PCMP_COL_DEVICE_DTYPE] = dtype;
    r.cell[PC_PCMP_COL_THOUSANDTH] = "0.999";
    r.cell[PC_PCMP_COL_SHAPE] = "(2,3)";
    r.cell[PC_PCMP_COL_MESSAGE] = "m";
    return r;
}

static const char *text_of(const pc_pcmp_verdict *v, int col)
{
    return v->cells[col].kind == PC_CSV_TEXT ? v->cells[col].v.text : "<not text>";
}

static void test_parse_float(void **state)
{
    (void)state;
    double x;
    assert_int_equal(pc_pcmp_parse_float("123.45", &x), PC_OK);
    pc_assert_same_f64(x, 123.45);
    assert_int_equal(pc_pcmp_parse_float("   123.0   ", &x), PC_OK);
    pc_assert_same_f64(x, 123.0);
    assert_int_equal(pc_pcmp_parse_float("    ", &x), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "ERROR: Input data is an empty string");
    assert_int_equal(pc_pcmp_parse_float("", &x), PC_OK); /* pandas: NaN */
    assert_true(isnan(x));
    assert_int_equal(pc_pcmp_parse_float("-inf", &x), PC_OK);
    assert_true(isinf(x) && x < 0);
    assert_int_equal(pc_pcmp_parse_float("1e-04", &x), PC_OK);
    pc_assert_same_f64(x, 1e-4);
    assert_int_equal(pc_pcmp_parse_float("0x10", &x), PC_ERR_INVALID);
    assert_int_equal(pc_pcmp_parse_float("abc", &x), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), "could not convert string to float: 'abc'");
}

static void test_agg(void **state)
{
    (void)state;
    const char *lists[][4] = {{"pass", "error"},  {"pass", "pass"}, {NULL},
                              {"SKIP"},           {"pass", "SKIP"}, {"SKIP", "Warning", "error"},
                              {"Warning", "pass"}};
    const char *want[] = {"error", "pass", " ", "SKIP", "pass", "error", "Warning"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pc_pcmp_agg a = PC_PCMP_AGG_INIT;
        for (int k = 0; k < 4 && lists[i][k]; k++)
            a = pc_pcmp_agg_add(a, lists[i][k]);
        assert_string_equal(pc_pcmp_agg_result(a), want[i]);
    }
}

static void test_binary(void **state)
{
    (void)state;
    const char *rates[] = {"0", "0.1", "0.0", "2.0"};
    const char *want[] = {"pass", "error", "pass", "error"};
    for (int i = 0; i < 4; i++) {
        pc_pcmp_row r = base_row("Torch.abs.0.forward.output.0", "torch.int64");
        r.cell[PC_PCMP_COL_REL_ERR] = " ";
        r.cell[PC_PCMP_COL_BINARY] = rates[i];
        pc_pcmp_verdict v;
        pc_pcmp_judge_row(&r, &r, &v);
        assert_string_equal(v.status, want[i]);
        assert_string_equal(text_of(&v, 17), rates[i]);
        assert_string_equal(v.message, i % 2 ? "ERROR: 二进制一致错误率超过阈值\n" : "");
    }
}

static void test_absolute(void **state)
{
    (void)state;
    pc_pcmp_row r = base_row("Torch.mul.0.forward.output.0", "torch.float16");
    pc_pcmp_verdict v;
    pc_pcmp_judge_row(&r, &r, &v);
    assert_string_equal(v.status, "pass");
    r.cell[PC_PCMP_COL_REL_ERR] = "0.1";
    pc_pcmp_judge_row(&r, &r, &v);
    assert_string_equal(v.status, "error");
    assert_int_equal(v.cells[13].kind, PC_CSV_F64);
    pc_assert_same_f64(v.cells[13].v.f64, 0.1);
    assert_string_equal(text_of(&v, 14), "error");
    assert_string_equal(text_of(&v, 26), "绝对阈值法");
    assert_string_equal(v.message, "ERROR: 相对误差错误率超过阈值");
}

static void test_thousandth(void **state)
{
    (void)state;
    pc_pcmp_row r = base_row("Torch.conv2d.0.forward.output.0", "torch.float32");
    r.cell[PC_PCMP_COL_REL_ERR] = " "; /* else the absolute rule wins (§9.4) */
    pc_pcmp_verdict v;
    pc_pcmp_judge_row(&r, &r, &v);
    assert_string_equal(v.status, "pass");
    assert_string_equal(v.message, "");
    r.cell[PC_PCMP_COL_THOUSANDTH] = "0.99899";
    pc_pcmp_judge_row(&r, &r, &v);
    assert_string_equal(v.status, "error");
    assert_string_equal(v.message, "ERROR: 双千指标不达标\n");
}

/* §11.4 get_api_status: a blank dtype is SKIP; with 相对误差错误率 non-blank every API goes to
 * the absolute rule and passes. */
static void test_api_status(void **state)
{
    (void)state;
    pc_pcmp_verdict v;
    pc_pcmp_row r = base_row("Torch.conv2d.0.forward.output.0", " ");
    pc_pcmp_judge_row(&r, &r, &v);
    assert_string_equal(v.status, "SKIP");
    assert_false(v.raised);
    const char *apis[] = {"conv2d", "abs", "mul", "matmul", "mean"};
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof name, "Torch.%s.0.forward.output.0", apis[i]);
        r = base_row(name, "torch.float16");
        pc_pcmp_judge_row(&r, &r, &v);
        assert_string_equal(v.status, "pass");
        assert_string_equal(text_of(&v, 26), "绝对阈值法");
    }
}

static void test_blank_number_is_skip(void **state)
{
    (void)state;
    pc_pcmp_row r = base_row("Torch.max.0.forward.output.0", "torch.int64");
    r.cell[PC_PCMP_COL_REL_ERR] = " ";
    r.cell[PC_PCMP_COL_BINARY] = " ";
    pc_pcmp_verdict v;
    pc_pcmp_judge_row(&r, &r, &v);
    assert_string_equal(v.status, "SKIP");
    assert_true(v.raised);
    assert_string_equal(text_of(&v, 27), "ERROR: Input data is an empty string");
}

/* INF consistency through the benchmark rule: (inf, inf), (inf, -inf), (inf, 1), (nan, nan),
 * (nan, 1) on 小值域错误占比. */
static void test_inf_nan_consistency(void **state)
{
    (void)state;
    const char *x[] = {"inf", "inf", "inf", "nan", "nan"},
               *y[] = {"inf", "-inf", "1.0", "nan", "1.0"};
    const bool ok[] = {true, false, false, true, false};
    for (int i = 0; i < 5; i++) {
        pc_pcmp_row n = base_row("Torch.mean.0.forward.output.0", "torch.float16");
        n.cell[PC_PCMP_COL_REL_ERR] = " ";
        pc_pcmp_row g = n;
        n.cell[PC_PCMP_COL_SMALL_VALUE] = x[i];
        g.cell[PC_PCMP_COL_SMALL_VALUE] = y[i];
        pc_pcmp_verdict v;
        pc_pcmp_judge_row(&n, &g, &v);
        assert_true(isnan(v.cells[1].v.f64));
        assert_string_equal(text_of(&v, 2), ok[i] ? "pass" : "error");
        assert_non_null(strstr(v.message, ok[i] ? "小值域错误占比同为同号inf或nan\n"
                                                : "小值域错误占比inf或nan不一致\n"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_float),
        cmocka_unit_test(test_agg),
        cmocka_unit_test(test_binary),
        cmocka_unit_test(test_absolute),
        cmocka_unit_test(test_thousandth),
        cmocka_unit_test(test_api_status),
        cmocka_unit_test(test_blank_number_is_skip),
        cmocka_unit_test(test_inf_nan_consistency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
