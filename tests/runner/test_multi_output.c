/*
 * Outputs that are not one tensor, through run_ut: topk's backward runs through output 0
 * (msprobe's grad_index, run_ut.md §5.6) while sort's, a tuple without one, is "Multiple
 * backward is not supported."; torch.equal's Python bool is compared as a bool (Dtype
 * <class 'bool'>, error rate 0), not as a tensor; Tensor.__setitem__, which returns None, is
 * None against None as in msprobe (a SKIP details row, forward pass); an NPU op msprobe has no
 * bench function for (NPU.fast_gelu: only npu_fast_gelu has one) is msprobe's SKIP.
 */
#include "pc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char dump_json[] =
    "{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", \"dump_data_dir\": "
    "null, \"data\": {\n"
    "\"Torch.topk.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 50], \"Max\": 3.0, \"Min\": -3.0, \"Mean\": 0.0, \"Norm\": "
    "10.0, \"requires_grad\": true}, {\"type\": \"int\", \"value\": 5}], \"input_kwargs\": {}, "
    "\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4, 5], "
    "\"Max\": 3.0, \"Min\": 1.0, \"Mean\": 2.0, \"Norm\": 5.0, \"requires_grad\": true}, "
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.int64\", \"shape\": [4, 5], \"Max\": 49, "
    "\"Min\": 0, \"Mean\": 20.0, \"Norm\": 50.0, \"requires_grad\": false}]},\n"
    "\"Torch.topk.0.backward\": {\"input\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 5], \"Max\": 0.1, \"Min\": -0.1, \"Mean\": 0.0, \"Norm\": "
    "0.2, \"requires_grad\": false}, null], \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 50], \"Max\": 0.1, \"Min\": -0.1, \"Mean\": 0.0, \"Norm\": "
    "0.2, \"requires_grad\": false}, null]},\n"
    "\"Torch.sort.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 50], \"Max\": 3.0, \"Min\": -3.0, \"Mean\": 0.0, \"Norm\": "
    "10.0, \"requires_grad\": true}], \"input_kwargs\": {}, \"output\": [{\"type\": "
    "\"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4, 50], \"Max\": 3.0, \"Min\": "
    "-3.0, \"Mean\": 0.0, \"Norm\": 10.0, \"requires_grad\": true}, {\"type\": \"torch.Tensor\", "
    "\"dtype\": \"torch.int64\", \"shape\": [4, 50], \"Max\": 49, \"Min\": 0, \"Mean\": 20.0, "
    "\"Norm\": 50.0, \"requires_grad\": false}]},\n"
    "\"Torch.sort.0.backward\": {\"input\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 50], \"Max\": 0.1, \"Min\": -0.1, \"Mean\": 0.0, \"Norm\": "
    "0.2, \"requires_grad\": false}, null], \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 50], \"Max\": 0.1, \"Min\": -0.1, \"Mean\": 0.0, \"Norm\": "
    "0.2, \"requires_grad\": false}]},\n"
    "\"Tensor.__setitem__.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 8], \"Max\": 0.0, \"Min\": -3.0, \"Mean\": -1.0, \"Norm\": "
    "5.0, \"requires_grad\": false}, [{\"type\": \"ellipsis\", \"value\": \"...\"}, {\"type\": "
    "\"slice\", \"value\": [null, 4, null]}], {\"type\": \"float\", \"value\": -Infinity}], "
    "\"input_kwargs\": {}, \"output\": [null]},\n"
    "\"NPU.fast_gelu.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 8], \"Max\": 1.0, \"Min\": -1.0, \"Mean\": 0.0, \"Norm\": "
    "2.0, \"requires_grad\": false}], \"input_kwargs\": {}, \"output\": [{\"type\": "
    "\"torch.Tensor\", "
    "\"dtype\": \"torch.float32\", \"shape\": [4, 8], \"Max\": 1.0, \"Min\": -0.2, \"Mean\": 0.1, "
    "\"Norm\": 2.0, \"requires_grad\": false}]},\n"
    "\"Torch.equal.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
    "\"torch.float32\", \"shape\": [4, 5], \"Max\": 3.0, \"Min\": -3.0, \"Mean\": 0.0, \"Norm\": "
    "10.0, \"requires_grad\": false}, {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
    "\"shape\": [4, 5], \"Max\": 3.0, \"Min\": -3.0, \"Mean\": 0.0, \"Norm\": 10.0, "
    "\"requires_grad\": false}], \"input_kwargs\": {}, \"output\": [{\"type\": \"bool\", "
    "\"value\": false}]}\n"
    "}}\n";

static void test_multi_outputs(void **state)
{
    (void)state;
    char dir[512], dump[700], out[700], args[2048], result[1200], details[1200];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(dump, "%s/dump.json", dir);
    PC_TEST_FMT(out, "%s", dir);
    FILE *f = fopen(dump, "w");
    assert_non_null(f);
    assert_int_equal(fputs(dump_json, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s --no-progress", dump, out);
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
    pc_test_find_file(dir, "accuracy_checking_result_", result, sizeof result);
    pc_test_find_file(dir, "accuracy_checking_details_", details, sizeof details);
    assert_true(pc_test_file_contains(result, "Torch.topk.0,pass,pass\r\n"));
    assert_true(pc_test_file_contains(
        result, "Torch.sort.0,pass,SKIP,Multiple backward is not supported."));
    assert_true(pc_test_file_contains(result, "Torch.equal.0,pass, \r\n"));
    assert_true(pc_test_file_contains(result, "Tensor.__setitem__.0,pass, \r\n"));
    assert_true(pc_test_file_contains(result, "NPU.fast_gelu.0,SKIP,SKIP,There is not bench "
                                              "function fast_gelu\r\n"));
    assert_true(pc_test_file_contains(details, "Tensor.__setitem__.0.forward.output.0, , , , , , , "
                                               ", , , , , , , , , , , , , ,SKIP,\"Bench output is "
                                               "None, skip this test.\""));
    /* topk: its values' gradient compared; sort's backward row says why there is none */
    assert_true(pc_test_file_contains(details, "Torch.topk.0.backward.output.0,torch.float64,"
                                               "torch.float32,\"(4, 50)\""));
    assert_true(pc_test_file_contains(details, "Torch.topk.0.forward.output.1,torch.int64,"));
    assert_true(pc_test_file_contains(details, "Torch.sort.0.backward.output.0, , , , , , , , , , "
                                               ", , , , , , , , , , ,SKIP,Multiple backward is not "
                                               "supported."));
    assert_true(pc_test_file_contains(details, "Torch.equal.0.forward.output.0,<class 'bool'>,"
                                               "<class 'bool'>, , , , , , ,0,"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_outputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
