/*
 * "Rule, not device": where the NPU and GPU rows of an output are identical and msprobe's rule
 * still says error, api_precision_compare's summary (log and JSON) and the report mark the row
 * as such and rank it after the real NPU/GPU differences, and the report's expanded row shows
 * both sides' figures; the CSVs keep msprobe's rows in the NPU CSV's order.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "precheck/io/json.h"

#define CASE PC_TEST_FIXTURES "/msprobe/precision_compare/rule_not_device"
#define CSV  "accuracy_checking_details_20261202102156.csv"

static const char *json_row(const pc_json_doc *d, pc_json_ref e, const char *key)
{
    return pc_json_string(d, pc_json_object_get(d, e, key), NULL);
}

static void test_rule_not_device(void **state)
{
    (void)state;
    char dir[512], log[600], args[2048], json[1024], page[600];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log.txt", dir);
    PC_TEST_FMT(args, "api_precision_compare -npu %s/%s -gpu %s/gpu/%s -o %s", CASE, CSV, CASE, CSV,
                dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);

    /* the log: the real difference, then the rows the rule alone fails */
    char *text = pc_test_slurp(log, NULL);
    const char *real = strstr(text, "    Tensor.__mul__.2.forward.output.0  error");
    const char *head =
        strstr(text, "rows the rule fails, not the device (the NPU and GPU rows are identical): 4");
    const char *rule = strstr(text, "    Tensor.__mul__.2.backward.output.0  error");
    if (!real || !head || !rule || !(real < head && head < rule))
        fail_msg("the real NPU/GPU difference is not first:\n%s", text);
    free(text);

    /* the JSON: the same order, each row's cause */
    pc_test_find_file(dir, "api_precision_compare_summary_", json, sizeof json);
    pc_json_doc *d = NULL;
    assert_int_equal(pc_json_parse_file(&d, json), PC_OK);
    pc_json_ref root = pc_json_root(d), rows = pc_json_object_get(d, root, "rows_failed");
    assert_int_equal(pc_json_count(d, rows), 5);
    assert_true(pc_json_number(d, pc_json_object_get(d, root, "rows_rule_not_device")) == 4);
    static const char *const order[] = {
        "Tensor.__mul__.2.forward.output.0",  "Tensor.__mul__.2.backward.output.0",
        "Tensor.__mul__.2.backward.output.1", "Torch.matmul.0.backward.output.1",
        "Torch.matmul.0.forward.output.0",
    };
    size_t i = 0;
    for (pc_json_ref e = pc_json_first(d, rows); e != PC_JSON_NONE; e = pc_json_next(d, e), i++) {
        assert_string_equal(json_row(d, e, "row"), order[i]);
        assert_string_equal(json_row(d, e, "cause"), i ? "rule, not device" : "NPU/GPU difference");
        assert_int_equal(pc_json_truthy(d, pc_json_object_get(d, e, "npu_gpu_identical")), i > 0);
    }
    pc_json_free(d);

    /* the details CSV: msprobe's rows in the NPU CSV's order (Torch.matmul.0 first) */
    char details[1024];
    pc_test_find_file(dir, "api_precision_compare_details_", details, sizeof details);
    text = pc_test_slurp(details, NULL);
    const char *matmul = strstr(text, "\nTorch.matmul.0.forward.output.0,");
    const char *mul = strstr(text, "\nTensor.__mul__.2.forward.output.0,");
    assert_true(matmul && mul && matmul < mul);
    free(text);

    /* the report: the API with a real difference first, the mark, both sides' figures */
    PC_TEST_FMT(page, "%s/page.html", dir);
    PC_TEST_FMT(args, "report %s -o %s", dir, page);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    text = pc_test_slurp(page, NULL);
    const char *first = strstr(text, "<tr data-name=\"Tensor.__mul__.2\"");
    const char *second = strstr(text, "<tr data-name=\"Torch.matmul.0\"");
    assert_true(first && second && first < second);
    const char *mark = strstr(second, "rule, not device</span>");
    const char *next = strstr(second + 1, "<tr data-name=");
    assert_true(mark && (!next || mark < next)); /* on matmul's own row */
    assert_non_null(strstr(text, "Tensor.__mul__.2.backward.output.0: <b>rule, not device</b> (the "
                                 "NPU and GPU rows are identical): absolute error rate "
                                 "0.95802098950525 (NPU 0.95802098950525, GPU 0.95802098950525)"));
    assert_non_null(strstr(text, "Tensor.__mul__.2.forward.output.0: NPU against GPU: absolute "
                                 "error rate 1.00000000000000 (NPU 1.00000000000000, GPU "
                                 "0.00390625000000)"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_not_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
