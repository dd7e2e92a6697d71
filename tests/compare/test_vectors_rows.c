/* compare.md §11.6: whole details and result rows of run_ut, from bench/device arrays to CSV
 * text, NPU side and GPU side, plus the single rows listed after them. */
#include "compare_test_support.h"

#define F16  PC_DTYPE_F16
#define BF16 PC_DTYPE_BF16
#define F32  PC_DTYPE_F32
#define F64  PC_DTYPE_F64

static void check_row(const char *name, pc_tensor b, pc_tensor d, const char *want_details,
                      const char *want_result)
{
    char *det, *res;
    api_csv(name, &b, &d, &det, &res);
    assert_text(det, want_details);
    if (want_result)
        assert_text(res, want_result);
    free(det);
    free(res);
    pc_tensor_free(&b);
    pc_tensor_free(&d);
}

#define MAXABS_PASS                                                                                \
    "\"\nMax abs error is less than 0.001, consider as pass, skip other check and set to "         \
    "SPACE.\n\"\r\n"

static void npu_softmax(void **state)
{
    check_row("Functional.softmax.0",
              make_tensor(F32, VALUES(0.5, -1.25, 3.0e-4, 2.0, 0.0, 100.0, 1e-8)),
              make_tensor(F16, VALUES(0.5005, -1.25, 3.1e-4, 2.0, 0.0, 100.1, 0.0)),
              "Functional.softmax.0.forward.output.0,torch.float32,torch.float16,\"(7,)\","
              "0.99999999956607,0.125,0.71428571428571, , , ,0.42857142857143,0.06250148178441,"
              "0.66666666666667,0.00125,0.00055664056, , , , , , ,error,\"\nRelative error is "
              "greater than 0.01, consider as error, skip other check and set to SPACE.\n\"\r\n",
              "Functional.softmax.0,error, \r\n");
}

static void npu_add(void **state)
{
    check_row("Torch.add.0",
              make_tensor(F32, VALUES(1.0, 70000.0, (double)NAN, 1e-4, 0.25, HUGE_VAL)),
              make_tensor(F16, VALUES(1.0, HUGE_VAL, (double)NAN, 1.2e-4, 0.2502, 65504)),
              "Torch.add.0.forward.output.0,torch.float32,torch.float16,\"(6,)\",nan, , , , , , "
              ", , , , ,0.00000000000000,0.00000000000000,1.00000000000000, , , ,error,\"Dump "
              "data has NaN when comparing with Cosine Similarity.\nCosine similarity is less "
              "than 0.99, consider as error, skip other check and set to SPACE.\n\"\r\n",
              "Torch.add.0,error, \r\n");
}

static void npu_matmul(void **state)
{
    check_row("Torch.matmul.0", make_tensor(F64, VALUES(1.0, 3.0000001, -2.5, 1e-30, 0.0)),
              make_tensor(F32, VALUES(1.0000001, 3.0000002, -2.5, 1.1e-30, 1e-45)),
              "Torch.matmul.0.forward.output.0,torch.float64,torch.float32,\"(5,)\","
              "1.00000000000000,0.00000013841858, , , , , , , , , , , , ,"
              "1063382.03372067213058,212676.72285805456340,0.20000000000000,pass," MAXABS_PASS,
              "Torch.matmul.0,pass, \r\n");
}

static void npu_sum_bf16(void **state)
{
    check_row("Tensor.sum.0", make_tensor(F32, VALUES(1.0, 3.14159, -0.001, 200.5)),
              make_tensor(BF16, VALUES(1.0, 3.140625, -0.00099945068359375, 200.0)),
              "Tensor.sum.0.forward.output.0,torch.float32,torch.bfloat16,\"(4,)\","
              "0.99999999933279,0.5,1.00000000000000,0.75000000000000, , ,0.25000000000000,"
              "0.25000983685524,0,0.002493717,0.0007281287, , , , , , ,Warning,\"\nRelative "
              "error is greater than 0.001, consider as warning, skip other check and set to "
              "SPACE.\n\"\r\n",
              "Tensor.sum.0,Warning, \r\n");
}

static void npu_test_api(void **state)
{
    check_row("Torch.test_api.0", make_tensor(F32, VALUES(0.5, 2.0, 0.75, -3.0)),
              make_tensor(F16, VALUES(0.5, 2.002, 0.7505, -3.0)),
              "Torch.test_api.0.forward.output.0,torch.float32,torch.float16,\"(4,)\","
              "0.99999990118098,0.001953125,1.00000000000000,1.00000000000000, , ,"
              "0.50000000000000, , , , ,0,0.00000000000000,0.00000000000000, , , ,pass,\"\n"
              "Relative error is less than 0.001, consider as pass, skip other check and set to "
              "SPACE.\n\"\r\n",
              "Torch.test_api.0,pass, \r\n");
}

static void npu_mean(void **state)
{
    check_row("Torch.mean.0", make_tensor(F64, VALUES(1, 2, 3)),
              make_tensor(F32, VALUES(1.0000001, 2.0, 3.0003)),
              "Torch.mean.0.forward.output.0,torch.float64,torch.float32,\"(3,)\","
              "0.99999999885327,0.00029993057251, , , , ,0.66666666666667,0.00017317078262,0,"
              "0.00009997685750,0.00003336535560, , , , , , ,pass," MAXABS_PASS,
              "Torch.mean.0,pass, \r\n");
}

static void gpu_rows(void **state)
{
    check_row("Functional.softmax.0",
              make_tensor(F32, VALUES(0.5, -1.25, 3.0e-4, 2.0, 0.0, 100.0, 1e-8)),
              make_tensor(F16, VALUES(0.5, -1.25, 3.0e-4, 2.0, 0.0, 100.0, 0.0)),
              "Functional.softmax.0.forward.output.0,torch.float32,torch.float16,\"(7,)\","
              "1.00000000000000,6.944174e-08, , , , ,0.00000000000000,0.00000000000000,"
              "0.66666666666667,0.0,0.0, , , , , , ,pass," MAXABS_PASS,
              NULL);
    check_row("Torch.add.0",
              make_tensor(F32, VALUES(1.0, 70000.0, (double)NAN, 1e-4, 0.25, HUGE_VAL)),
              make_tensor(F16, VALUES(1.0, HUGE_VAL, (double)NAN, 1.0e-4, 0.25, 65504)),
              "Torch.add.0.forward.output.0,torch.float32,torch.float16,\"(6,)\",nan, , , , , , "
              ", , , , ,0.00000000000000,0.00000000000000,0.00000000000000, , , ,error,\"Dump "
              "data has NaN when comparing with Cosine Similarity.\nCosine similarity is less "
              "than 0.99, consider as error, skip other check and set to SPACE.\n\"\r\n",
              NULL);
    check_row("Torch.matmul.0", make_tensor(F64, VALUES(1.0, 3.0000001, -2.5, 1e-30, 0.0)),
              make_tensor(F32, VALUES(1.0, 3.0000001, -2.5, 1e-30, 0.0)),
              "Torch.matmul.0.forward.output.0,torch.float64,torch.float32,\"(5,)\","
              "1.00000000000000,0.00000010000000, , , , , , , , , , , , ,0.41943039931357,"
              "0.09063021428883,0.00000000000000,pass," MAXABS_PASS,
              NULL);
    check_row("Torch.mean.0", make_tensor(F64, VALUES(1, 2, 3)), make_tensor(F32, VALUES(1, 2, 3)),
              "Torch.mean.0.forward.output.0,torch.float64,torch.float32,\"(3,)\","
              "1.00000000000000,0.00000000000000, , , , ,0.00000000000000,0.00000000000000,0,"
              "0.00000000000000,0.00000000000000, , , , , , ,pass," MAXABS_PASS,
              NULL);
}

static void single_rows(void **state)
{
    check_row("Torch.exp.0", make_tensor(F32, VALUES(100.03, 200.07, -300.11, 0.5)),
              make_tensor(F16, VALUES((double)(float)100.03, (double)(float)200.07,
                                      (double)(float)-300.11, 0.5)),
              "Torch.exp.0.forward.output.0,torch.float32,torch.float16,\"(4,)\","
              "0.99999995873756,0.10998535,1.00000000000000,1.00000000000000, , ,"
              "0.00000000000000,0.06328921581366,0,0.00036648347,0.00023531212, , , , , , ,pass,"
              "\"\nRelative error is less than 0.001, consider as pass, skip other check and set "
              "to SPACE.\n\"\r\n",
              NULL);
    check_row("Torch.log.0", make_tensor(F64, VALUES(1, 2, 3, 4)),
              make_tensor(F32, VALUES(1, 2.0005, 3, 4)),
              "Torch.log.0.forward.output.0,torch.float64,torch.float32,\"(4,)\","
              "0.99999999638965,0.00049996376038, , , , ,0.25000000000000,0.00024999125441,0,"
              "0.00024998188019,0.00006249547005, , , , , , ,pass," MAXABS_PASS,
              NULL);
    check_row("Torch.relu.1", make_tensor(F32, VALUES(0, 1.5, 0, 2.2)),
              make_tensor(F16, VALUES(0, 1.5, 0, 2.2)),
              "Torch.relu.1.forward.output.0,torch.float32,torch.float16,\"(4,)\","
              "0.99999998633204,0.0007812977, , , ,0.25000000000000, , , , , , , , , , , "
              ",pass," MAXABS_PASS,
              NULL);
    check_row("Torch.scalar.0", make_scalar(F32, 2.0), make_scalar(F16, 2.5),
              "Torch.scalar.0.forward.output.0,torch.float32,torch.float16,(), ,0.5,"
              "0.00000000000000, , , ,1.00000000000000,0.50000000249975,0,0.25000000000000,"
              "0.25000000000000, , , , , , ,error,\"All the data in device dump data is scalar. "
              "Please refer to other compare algorithms.\nRelative error is greater than 0.01, "
              "consider as error, skip other check and set to SPACE.\n\"\r\n",
              NULL);
    check_row("Torch.zeros.0", make_tensor(F32, VALUES(0, 0, 0)), make_tensor(F16, VALUES(0, 0, 0)),
              "Torch.zeros.0.forward.output.0,torch.float32,torch.float16,\"(3,)\", ,0.0, , , , ,"
              "0.00000000000000,0.00000000000000,0.00000000000000,0,0, , , , , , ,pass,\"All the "
              "data in device and bench outputs are zero.\nMax abs error is less than 0.001, "
              "consider as pass, skip other check and set to SPACE.\n\"\r\n",
              NULL);
    check_row("Torch.sin.0", make_tensor(F64, VALUES(0.1, 0.2)), make_tensor(F64, VALUES(0.1, 0.2)),
              "Torch.sin.0.forward.output.0,torch.float64,torch.float64,\"(2,)\","
              "1.00000000000000,0.00000000000000, , , , , , , , , , , , , , , ,pass,\"The data "
              "type torch.float64 is not supported for new precision standard.\nMax abs error is "
              "less than 0.001, consider as pass, skip other check and set to SPACE.\n\"\r\n",
              NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(npu_softmax),  cmocka_unit_test(npu_add),
        cmocka_unit_test(npu_matmul),   cmocka_unit_test(npu_sum_bf16),
        cmocka_unit_test(npu_test_api), cmocka_unit_test(npu_mean),
        cmocka_unit_test(gpu_rows),     cmocka_unit_test(single_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
