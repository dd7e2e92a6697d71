/* precheck repro: the bundle of a named API (inputs, scripts, row, README) whose scripts give
 * the bundle's run_ut --backend torch:cpu rows on torch's CPU (a tensor dump, forward and
 * backward); without names, a bundle for each API that did not pass and for no other. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pc_test.h"
#include "repro_rows.h"

#define DUMP(name) PC_TEST_FIXTURES "/msprobe/dumps/" name "/step0/rank/dump.json"

static void expect_file(const char *dir, const char *name)
{
    char path[2048];
    PC_TEST_FMT(path, "%s/%s", dir, name);
    if (access(path, F_OK) != 0) {
        fprintf(stderr, "missing: %s\n", path);
        fail();
    }
}

static void test_bundle_reproduces_row(void **state)
{
    (void)state;
    const char *python = pc_test_torch_python();
    if (!python)
        skip();
    char dir[512], cmd[4096], api_dir[1024], details[1024], log[1024];
    pc_test_tmpdir(dir, sizeof dir);
    const char *api = "Functional.layer_norm.0";
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(cmd, "repro -api_info %s %s -o %s/b --backend torch:cpu,threads=1 --python %s",
                DUMP("gpt_tensor"), api, dir, python);
    assert_int_equal(pc_test_run_precheck(NULL, cmd, log), 0);
    PC_TEST_FMT(api_dir, "%s/b/%s", dir, api);
    expect_file(api_dir, "README.md");
    expect_file(api_dir, "inputs/dump.json");
    expect_file(api_dir, "inputs/dump_tensor_data/Functional.layer_norm.0.forward.input.0.pt");
    expect_file(api_dir, "inputs/dump_tensor_data/Functional.layer_norm.0.backward.input.0.pt");
    expect_file(api_dir, "Functional.layer_norm.0.forward.py");
    expect_file(api_dir, "Functional.layer_norm.0.backward.py");
    char row[1100], readme[1100];
    PC_TEST_FMT(row, "%s/row", api_dir);
    pc_test_find_file(row, "accuracy_checking_details_", details, sizeof details);
    PC_TEST_FMT(readme, "%s/README.md", api_dir);
    assert_true(pc_test_file_contains(readme, "forward **pass**, backward **pass**"));
    assert_true(pc_test_file_contains(readme, "python3 Functional.layer_norm.0.forward.py"));

    static const char *const dirs[] = {"forward", "backward"};
    for (int i = 0; i < 2; i++) {
        char rows[1100];
        PC_TEST_FMT(rows, "%s/rows_%s.csv", dir, dirs[i]);
        /* run from elsewhere: the script finds its inputs beside itself */
        PC_TEST_FMT(cmd, "cd / && '%s' %s/%s.%s.py --threads 1 --csv %s > %s/script.log 2>&1",
                    python, api_dir, api, dirs[i], rows, dir);
        assert_int_equal(system(cmd), 0);
        pc_test_assert_same_rows(rows, details, api);
    }
}

static void test_failing_apis(void **state)
{
    (void)state;
    char dir[512], cmd[4096], log[1024], readme[1100];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(cmd, "repro -api_info %s -o %s/b --jobs 0", DUMP("gpt_tensor"), dir);
    /* --jobs is not repro's: a usage error */
    assert_int_equal(pc_test_run_precheck(NULL, cmd, log), 2);
    PC_TEST_FMT(cmd, "repro -api_info %s -o %s/b", DUMP("gpt_tensor"), dir);
    assert_int_equal(pc_test_run_precheck(NULL, cmd, log), 0);
    /* the reference device fails Tensor.masked_fill.0 (forward error) and nothing else */
    PC_TEST_FMT(readme, "%s/b/Tensor.masked_fill.0/README.md", dir);
    assert_true(pc_test_file_contains(readme, "forward **error**"));
    PC_TEST_FMT(cmd, "ls %s/b | sort | tr '\\n' ' ' | grep -qx 'Tensor.masked_fill.0 run '", dir);
    assert_int_equal(system(cmd), 0);
    assert_true(pc_test_file_contains(log, "1 APIs did not pass"));
    /* the report of that run shows the command that makes the failing API's bundle */
    char run[1024], html[1200];
    PC_TEST_FMT(run, "%s/b/run", dir);
    PC_TEST_FMT(cmd, "report %s", run);
    assert_int_equal(pc_test_run_precheck(NULL, cmd, NULL), 0);
    pc_test_find_file(run, "precheck_report", html, sizeof html);
    assert_true(pc_test_file_contains(html, "dump.json Tensor.masked_fill.0 -o repro/</code>"));
    assert_false(pc_test_file_contains(html, "dump.json Functional.layer_norm.0 -o repro/"));
}

static void test_unknown_api(void **state)
{
    (void)state;
    char dir[512], cmd[4096], log[1024];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(cmd, "repro -api_info %s Functional.nothing.0 -o %s/b", DUMP("gpt_stats"), dir);
    assert_int_equal(pc_test_run_precheck(NULL, cmd, log), 1);
    assert_true(pc_test_file_contains(log, "API Functional.nothing.0 is not in"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bundle_reproduces_row),
        cmocka_unit_test(test_failing_apis),
        cmocka_unit_test(test_unknown_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
