/* The Python float texts in config.yaml's and config.json's messages come from core/pyrepr.h:
 * these values were printed differently from Python before (2^-24 with 17 digits, a value
 * whose shortest digits lie one unit above the nearest). */
#include "pc_test.h"

#include <stdio.h>
#include <string.h>

#include "precheck/core/status.h"
#include "precheck/io/config.h"

#define KEYS "dict_keys(['white_list', 'black_list', 'error_data_path', 'precision'])"

static bool any_api(const char *name)
{
    (void)name;
    return true;
}

static void test_yaml_key_reprs(void **state)
{
    (void)state;
    static const struct {
        const char *key, *shown;
    } keys[] = {
        {"5.9604644775390625e-08", "5.960464477539063e-08"}, /* 2^-24: was 5.9604644775390625e-08 */
        {"1.0e+15", "1000000000000000.0"},
        {"9.5367431640625e-07", "9.5367431640625e-07"}, /* 2^-20 */
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char text[128], expected[256];
        PC_TEST_FMT(text, "%s: 1\n", keys[i].key);
        PC_TEST_FMT(expected, "%s must be one of " KEYS, keys[i].shown);
        pc_config c = {0};
        pc_error_clear();
        assert_int_equal(pc_config_parse_yaml(&c, text, strlen(text), "cfg.yaml", any_api),
                         PC_ERR_INVALID);
        assert_string_equal(pc_error_message(), expected);
        pc_config_free(&c);
    }
}

static void test_json_value_reprs(void **state)
{
    (void)state;
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"{\"rank\": [5.9604644775390625e-08]}",
         "rank element 5.960464477539063e-08 must be an integer or string."},
        {"{\"rank\": [1e15]}", "rank element 1000000000000000.0 must be an integer or string."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pc_config c = {0};
        pc_error_clear();
        assert_int_equal(
            pc_config_parse_json(&c, cases[i].text, strlen(cases[i].text), "cfg.json", any_api),
            PC_ERR_INVALID);
        assert_string_equal(pc_error_message(), cases[i].message);
        pc_config_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_yaml_key_reprs),
        cmocka_unit_test(test_json_value_reprs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
