/* msprobe's "info type must be int or float" message shows the statistics as Python's repr:
 * a float through core/pyrepr.h (1e15 was printed "1e+15", 2^-24 with 17 digits before). */
#include "pc_test.h"

#include <string.h>

#include "precheck/core/status.h"
#include "precheck/core/tensor.h"
#include "precheck/inputs/inputs.h"

static void refused_with(double max, const char *message)
{
    int64_t shape[] = {4};
    pc_dump_tensor r = {0};
    r.dtype = PC_DTYPE_F32;
    r.dtype_name = pc_dtype_torch_name(PC_DTYPE_F32);
    r.has_shape = true;
    r.rank = 1;
    r.shape = shape;
    r.min = (pc_dump_value){.kind = PC_DUMP_VALUE_NULL};
    r.max = (pc_dump_value){.kind = PC_DUMP_VALUE_FLOAT, .u.f = max};
    pc_tensor t = {0};
    pc_error_clear();
    assert_int_equal(pc_inputs_random(&r, PC_DTYPE_F32, false, 7, "e", &t), PC_ERR_INVALID);
    assert_string_equal(pc_error_message(), message);
    pc_tensor_free(&t);
}

static void test_statistic_reprs(void **state)
{
    (void)state;
    refused_with(1e15, "Data info Min: None , Max: 1000000000000000.0, info type must be int or "
                       "float.");
    refused_with(0x1p-24, "Data info Min: None , Max: 5.960464477539063e-08, info type must be "
                          "int or float.");
    refused_with(1e16, "Data info Min: None , Max: 1e+16, info type must be int or float.");
    refused_with(1e-5, "Data info Min: None , Max: 1e-05, info type must be int or float.");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statistic_reprs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
