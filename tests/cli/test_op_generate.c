/* precheck op_generate: msprobe's config refusals, a script Python compiles, and, on torch's
 * CPU, the --precheck-inputs script reproducing run_ut --backend torch:cpu's details rows (a
 * statistics dump, forward and backward). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pc_test.h"
#include "repro_rows.h"

#define DUMP(name) PC_TEST_FIXTURES "/msprobe/dumps/" name "/step0/rank/dump.json"

/* Writes dir/c.json with body (a JSON object's members) and runs op_generate on it; returns
 * the exit status, the log in dir/log. */
static int opgen(const char *dir, const char *body, const char *extra)
{
    char path[1024], args[4096], log[1024];
    PC_TEST_FMT(path, "%s/c.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "{%s}\n", body);
    fclose(f);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(args, "op_generate -i %s -o %s/out %s", path, dir, extra ? extra : "");
    return pc_test_run_precheck(NULL, args, log);
}

static void expect_refusal(const char *body, const char *text)
{
    char dir[512], log[1024], out[1024];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(out, "mkdir -p %s/out", dir);
    assert_int_equal(system(out), 0);
    int rc = opgen(dir, body, NULL);
    PC_TEST_FMT(log, "%s/log", dir);
    if (rc != 1 || !pc_test_file_contains(log, text)) {
        char *l = pc_test_slurp(log, NULL);
        fprintf(stderr, "config {%s}: exit %d, want 1 and \"%s\" in:\n%s\n", body, rc, text, l);
        free(l);
        fail();
    }
}

#define STATS "\"dump_json_path\": \"" DUMP("gpt_stats") "\", "

static void test_refusals(void **state)
{
    (void)state;
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\", \"extract_api_path\": "
                         "\"/tmp/x.json\", \"propagation\": \"sideways\"",
                   "propagation is invalid, it should be one of ['forward', 'backward']");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\", \"extract_api_path\": "
                         "\"/tmp/x.json\", \"data_mode\": \"fake\"",
                   "data_mode is invalid, it should be one of ['random_data', 'real_data']");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\", \"extract_api_path\": "
                         "\"/tmp/x.json\", \"iter_times\": 1001",
                   "iter_times should not be greater than 1000!");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\", \"extract_api_path\": "
                         "\"/tmp/x.json\", \"iter_times\": 0",
                   "iter_times should be an integer bigger than zero!");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\", \"extract_api_path\": "
                         "\"/tmp/x.json\", \"random_seed\": \"7\"",
                   "random_seed is invalid, it should be an int");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\"", "extract_api_path is required");
    expect_refusal(STATS "\"extract_api_path\": \"/tmp/x.json\"", "api_name is required");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.99\", \"extract_api_path\": "
                         "\"/tmp/pc_opgen_x.json\"",
                   "API Functional.softmax.99 is not in");
    expect_refusal(STATS "\"api_name\": \"Torch.arange.0\", \"extract_api_path\": "
                         "\"/tmp/pc_opgen_arange.json\", \"propagation\": \"backward\"",
                   "Backward propagation requires contains forward and backward info!");
    expect_refusal(STATS "\"api_name\": \"Functional.softmax.0\", \"extract_api_path\": "
                         "\"/tmp/pc_opgen_sm.json\", \"data_mode\": \"real_data\"",
                   "names no file, so data_mode real_data cannot load it");
    expect_refusal("\"extract_api_path\": \"/nonexistent/e.json\"", "/nonexistent/e.json");
}

/* The script of a random_data config compiles, msprobe's spelling "-f pytorch" is taken, and
 * the extract is msprobe's flat object of the API's entries. */
static void test_script_compiles(void **state)
{
    (void)state;
    char dir[512], cmd[2048], body[2048], path[1024];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(cmd, "mkdir -p %s/out", dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(body,
                "\"dump_json_path\": \"%s\", \"api_name\": \"Tensor.masked_fill.0\", "
                "\"extract_api_path\": \"%s/e.json\", \"propagation\": \"backward\"",
                DUMP("gpt_tensor"), dir);
    assert_int_equal(opgen(dir, body, NULL), 0);
    PC_TEST_FMT(path, "%s/out/Tensor.masked_fill.0.backward.py", dir);
    PC_TEST_FMT(cmd, "/usr/bin/python3 -m py_compile %s", path);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(path, "%s/e.json", dir);
    assert_true(pc_test_file_contains(path, "\"Tensor.masked_fill.0.forward\": {"));
    assert_true(pc_test_file_contains(path, "\"Tensor.masked_fill.0.backward\": {"));
    assert_false(pc_test_file_contains(path, "Tensor.__add__"));
    assert_true(pc_test_file_contains(path, "/dump_tensor_data/Tensor.masked_fill.0.forward"));

    /* msprobe's spelling, on the extract alone (no dump_json_path), real_data */
    PC_TEST_FMT(cmd, "rm -rf %s/out && mkdir -p %s/out", dir, dir);
    assert_int_equal(system(cmd), 0);
    PC_TEST_FMT(body, "\"extract_api_path\": \"%s/e.json\", \"data_mode\": \"real_data\"", dir);
    PC_TEST_FMT(cmd, "%s/c.json", dir);
    FILE *f = fopen(cmd, "w");
    assert_non_null(f);
    fprintf(f, "{%s}\n", body);
    fclose(f);
    PC_TEST_FMT(cmd, "-f pytorch op_generate -i %s/c.json -o %s/out", dir, dir);
    assert_int_equal(pc_test_run_precheck(NULL, cmd, NULL), 0);
    PC_TEST_FMT(path, "%s/out/Tensor.masked_fill.0.forward.py", dir);
    assert_true(pc_test_file_contains(path, "DATA_MODE = \"real_data\""));
    PC_TEST_FMT(cmd, "/usr/bin/python3 -m py_compile %s", path);
    assert_int_equal(system(cmd), 0);
}

/* The shared part of every script is script_body.py as embedded (tools/embed_script.sh). */
static void test_body_embedded(void **state)
{
    (void)state;
    char dir[512], cmd[2048];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(cmd,
                "sh %s/../../tools/embed_script.sh %s/body.inc && cmp %s/body.inc "
                "%s/../../src/repro/script_body.inc",
                PC_TEST_FIXTURES, dir, dir, PC_TEST_FIXTURES);
    assert_int_equal(system(cmd), 0);
}

/* On torch's CPU: the --precheck-inputs script gives run_ut --backend torch:cpu's rows. */
static void test_reproduces_run_ut(void **state)
{
    (void)state;
    const char *python = pc_test_torch_python();
    if (!python)
        skip();
    char dir[512], cmd[4096], body[2048], run[1024], details[1024];
    pc_test_tmpdir(dir, sizeof dir);
    PC_TEST_FMT(run, "%s/run", dir);
    PC_TEST_FMT(cmd,
                "run_ut -api_info %s -o %s --backend torch:cpu,threads=1 --python %s "
                "--no-progress",
                DUMP("gpt_stats"), run, python);
    assert_int_equal(pc_test_run_precheck(NULL, cmd, NULL), 0);
    pc_test_find_file(run, "accuracy_checking_details_", details, sizeof details);
    static const char *const cases[][2] = {{"Functional.layer_norm.0", "backward"},
                                           {"Functional.gelu.0", "forward"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        PC_TEST_FMT(cmd, "rm -rf %s/out && mkdir -p %s/out", dir, dir);
        assert_int_equal(system(cmd), 0);
        PC_TEST_FMT(body,
                    "\"dump_json_path\": \"%s\", \"api_name\": \"%s\", \"extract_api_path\": "
                    "\"%s/e.json\", \"propagation\": \"%s\"",
                    DUMP("gpt_stats"), cases[i][0], dir, cases[i][1]);
        assert_int_equal(opgen(dir, body, "--precheck-inputs"), 0);
        char script[1024], rows[1024];
        PC_TEST_FMT(script, "%s/out/%s.%s.py", dir, cases[i][0], cases[i][1]);
        PC_TEST_FMT(rows, "%s/rows_%zu.csv", dir, i);
        PC_TEST_FMT(cmd, "'%s' %s --threads 1 --csv %s > %s/script_%zu.log 2>&1", python, script,
                    rows, dir, i);
        assert_int_equal(system(cmd), 0);
        pc_test_assert_same_rows(rows, details, cases[i][0]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_script_compiles),
        cmocka_unit_test(test_body_embedded),
        cmocka_unit_test(test_reproduces_run_ut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
