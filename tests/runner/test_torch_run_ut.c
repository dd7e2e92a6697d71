/*
 * run_ut and multi_run_ut with --backend torch:cpu, as a user runs the binary: each API through
 * the PyTorch of a real Python (Debian's python3-torch in CI). The statuses agree with the CSVs
 * msprobe wrote for the bundled dumps (msprobe ran them on CPU torch 1.13 too), multi_run_ut
 * writes the same bytes as run_ut, a torch error is the API's SKIP row with torch's message, and
 * every start-up problem is one clear line with exit 1 and nothing written. (The round trips
 * through api_precision_compare are in test_round_trip.c.)
 */
#include "pc_run_ut_test.h"
#include "pc_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DUMPS PC_TEST_FIXTURES "/msprobe/dumps"

static const char *python;
static char torch_args[1400]; /* --backend torch:cpu,threads=1 --python PY */

static int setup(void **state)
{
    (void)state;
    python = pc_test_torch_python();
    if (python)
        snprintf(torch_args, sizeof torch_args, "--backend torch:cpu,threads=1 --python '%s'",
                 python);
    return 0;
}

static void need_torch(void)
{
    if (!python)
        skip();
}

/* ---- conformance ---- */

#define TORCH_BUILD_BF16_WEIGHT_GRAD                                                               \
    "the weight gradient of a bfloat16 linear: msprobe's torch 1.13 (a pip build) accumulates it " \
    "in bfloat16 (ULP error max 2564.5, error), Debian's torch 1.13 in float32 (0.5, pass)"

static const pc_test_known_diff torch_diffs[] = {
    {"gpt_bf16_tensor", "Functional.linear.7", "Warning", "pass", TORCH_BUILD_BF16_WEIGHT_GRAD},
    {NULL, NULL, NULL, NULL, NULL},
};

/* The bundled dumps the torch tests run. Light (pc_test_light: the ASan+UBSan stage) the
 * plug-in's paths once each: the conformance test on gpt_bf16_tensor (bfloat16, the
 * transformer's ops forward and backward), cnn_tensor (convolutions, pooling) and
 * ew_fp16_tensor (float16), the same-bytes test on ew_fp16_tensor alone (multi_run_ut, and
 * Python in precheck's own process); gpt_tensor and gpt_stats hand the plug-in the same ops in
 * float32, which the Release stage checks whole against msprobe's statuses. */
static const char *const torch_dumps[] = {"gpt_tensor", "gpt_bf16_tensor", "cnn_tensor",
                                          "ew_fp16_tensor", "gpt_stats"};
enum { N_TORCH_DUMPS = 5 };

static int skip_dump(int i, int light_too)
{
    if (!pc_test_light() || light_too)
        return 0;
    printf("light run (PRECHECK_TEST_LIGHT=1): %s left to the whole run\n", torch_dumps[i]);
    return 1;
}

/* The folders of the conformance test's runs, each run_ut of a dump with torch_args: the
 * same-bytes test compares multi_run_ut's CSVs with them instead of running run_ut again ("" if
 * the conformance test did not run the dump). */
static char conformance_dirs[N_TORCH_DUMPS][512];

static void test_conformance(void **state)
{
    (void)state;
    need_torch();
    int same = 0, total = 0;
    for (int i = 0; i < N_TORCH_DUMPS; i++) {
        if (skip_dump(i, i == 1 || i == 2 || i == 3))
            continue;
        int n = 0;
        same += pc_test_conformance_in(NULL, torch_dumps[i], torch_args, torch_diffs, &n,
                                       conformance_dirs[i], sizeof conformance_dirs[i]);
        total += n;
    }
    printf("torch:cpu, all dumps: %d of %d APIs (%.1f%%) have msprobe's statuses\n", same, total,
           100.0 * same / total);
    assert_true(same * 100 >= total * 98);
}

/* ---- the same bytes from run_ut, multi_run_ut -n 2 and an in-process run ---- */

static void run_into(const char *env, const char *cmd, const char *dump, const char *extra,
                     char *dir, size_t size)
{
    char args[4096];
    assert_non_null(pc_test_tmpdir(dir, size));
    /* timeout: a worker that hangs (torch's OpenMP across fork) fails the test, not CI */
    PC_TEST_FMT(args, "%s -api_info %s/%s/step0/rank/dump.json -o %s %s %s --no-progress", cmd,
                DUMPS, dump, dir, torch_args, extra);
    char full_env[512];
    PC_TEST_FMT(full_env, "%s timeout 300", env ? env : "");
    assert_int_equal(pc_test_run_precheck(full_env, args, NULL), 0);
}

static void test_multi_run_ut_same_bytes(void **state)
{
    (void)state;
    need_torch();
    for (int i = 0; i < N_TORCH_DUMPS; i++) {
        /* light: the dump that also runs in process (its run_ut through workers is the
         * conformance test's) */
        if (skip_dump(i, i == 3))
            continue;
        /* run_ut's CSVs: the conformance test's run of the dump, else one of its own */
        char one[512], two[512];
        if (conformance_dirs[i][0])
            memcpy(one, conformance_dirs[i], sizeof one);
        else
            run_into(NULL, "run_ut", torch_dumps[i], "", one, sizeof one);
        run_into(NULL, "multi_run_ut", torch_dumps[i], "-n 2", two, sizeof two);
        pc_test_assert_same_csvs(one, two);
        if (i == 3) { /* Python in precheck's own process (no workers) */
            char three[512];
            run_into("ASAN_OPTIONS=detect_leaks=0", "run_ut", torch_dumps[i], "--jobs 0", three,
                     sizeof three);
            pc_test_assert_same_csvs(one, three);
        }
    }
}

/* ---- a torch error is the API's SKIP row ---- */

#define REC(dt, shape)                                                                             \
    "{\"type\":\"torch.Tensor\",\"dtype\":\"torch." dt "\",\"shape\":" shape ",\"Max\":1.0,"       \
    "\"Min\":-1.0,\"Mean\":0.0,\"Norm\":1.0,\"requires_grad\":false}"

static void write_dump(const char *dir, const char *json, char *path, size_t size)
{
    snprintf(path, size, "%s/dump.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
}

static void test_torch_error_is_skip_row(void **state)
{
    (void)state;
    need_torch();
    /* torch 1.13's CPU build has no float16 GEMM: msprobe's CPU "device" fails the same way */
    static const char json[] =
        "{\"task\":\"statistics\",\"level\":\"L1\",\"dump_data_dir\":null,\"data\":{"
        "\"Functional.linear.0.forward\":{\"input_args\":[" REC("float16", "[4,8]") "," REC(
            "float16",
            "[3,8]") "],\"input_kwargs\":{},\"output\":[" REC("float16",
                                                              "[4,3]") "]},"
                                                                       "\"Torch.add.0."
                                                                       "forward\":{\"input_"
                                                                       "args\":[" REC(
                                                                           "float32",
                                                                           "["
                                                                           "4"
                                                                           ","
                                                                           "3"
                                                                           "]") "," REC("float32",
                                                                                        "[4,3]") "]"
                                                                                                 ","
                                                                                                 "\"input_"
                                                                                                 "k"
                                                                                                 "w"
                                                                                                 "a"
                                                                                                 "r"
                                                                                                 "g"
                                                                                                 "s"
                                                                                                 "\":{"
                                                                                                 "}"
                                                                                                 ","
                                                                                                 "\"output\""
                                                                                                 ":"
                                                                                                 "[" REC(
                                                                                                     "f"
                                                                                                     "l"
                                                                                                     "o"
                                                                                                     "a"
                                                                                                     "t"
                                                                                                     "3"
                                                                                                     "2",
                                                                                                     "["
                                                                                                     "4"
                                                                                                     ","
                                                                                                     "3"
                                                                                                     "]") "]}"
                                                                                                          "}}";
    char dir[512], dump[600], out[600], log[600], args[4096], result[1024];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    write_dump(dir, json, dump, sizeof dump);
    PC_TEST_FMT(out, "%s/out", dir);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s -o %s %s --no-progress", dump, out, torch_args);
    assert_int_equal(pc_test_run_precheck(NULL, args, log), 0);
    pc_test_find_file(out, "accuracy_checking_result_", result, sizeof result);
    pc_test_status_row rows[4];
    assert_int_equal(pc_test_read_results(result, rows, 4), 2);
    assert_string_equal(rows[0].fwd, "SKIP");
    assert_non_null(strstr(rows[0].msg, "not implemented for 'Half'"));
    assert_string_equal(rows[1].fwd, "pass");
    assert_true(pc_test_file_contains(log, "Run Functional.linear.0 UT Error: "));
    assert_true(pc_test_file_contains(log, "device under test: the CPU through PyTorch "));
}

/* ---- start-up problems: one line, exit 1, no CSV ---- */

static void expect_startup_error(const char *env, const char *backend_args, const char *text)
{
    char dir[512], out[600], log[600], args[4096];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));
    PC_TEST_FMT(out, "%s/out", dir);
    PC_TEST_FMT(log, "%s/log", dir);
    PC_TEST_FMT(args, "run_ut -api_info %s/ew_fp16_tensor/step0/rank/dump.json -o %s %s", DUMPS,
                out, backend_args);
    assert_int_equal(pc_test_run_precheck(env, args, log), 1);
    if (!pc_test_file_contains(log, text)) {
        char *l = pc_test_slurp(log, NULL);
        fail_msg("the log of `%s` does not say \"%s\":\n%s", backend_args, text, l);
    }
    struct stat st;
    assert_int_not_equal(stat(out, &st), 0); /* nothing written, not even the folder */
}

static void write_script(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

static void test_startup_errors(void **state)
{
    (void)state;
    need_torch();
    char dir[512], static_py[600], no_torch_py[600], body[1200], args[2048];
    assert_non_null(pc_test_tmpdir(dir, sizeof dir));

    expect_startup_error(NULL, "--backend torch:cpu --python /nonexistent/python3",
                         "cannot run the Python interpreter '/nonexistent/python3'");

    /* an interpreter built without a shared libpython (pyenv's default) */
    PC_TEST_FMT(static_py, "%s/static-python", dir);
    write_script(static_py, "printf '3.11.4\\n/opt/static/bin/python3\\n0\\n/opt/static/lib\\n"
                            "libpython3.11.a\\n/opt/static\\n/opt/static\\n'");
    PC_TEST_FMT(args, "--backend torch:cpu --python %s", static_py);
    expect_startup_error(NULL, args, "has no shared libpython to embed");

    /* a Python without torch: the real one with its site-packages switched off */
    PC_TEST_FMT(no_torch_py, "%s/no-torch-python", dir);
    PC_TEST_FMT(body, "exec '%s' -S \"$@\"", python);
    write_script(no_torch_py, body);
    PC_TEST_FMT(args, "--backend torch:cpu --python %s", no_torch_py);
    expect_startup_error(NULL, args, "import torch failed: ModuleNotFoundError");
    expect_startup_error(NULL, args, "apt install python3-torch");

    /* devices this machine's torch does not have */
    PC_TEST_FMT(args, "--backend torch:npu --python '%s'", python);
    expect_startup_error(NULL, args, "import torch_npu failed");
    PC_TEST_FMT(args, "--backend torch:cuda --python '%s'", python);
    expect_startup_error(NULL, args, "torch.cuda.is_available() is False");

    /* options */
    PC_TEST_FMT(args, "--backend torch:gpu --python '%s'", python);
    expect_startup_error(NULL, args,
                         "backend torch: 'gpu' is not a device; use --backend torch:DEVICE");
    PC_TEST_FMT(args, "--backend torch:cpu,fast --python '%s'", python);
    expect_startup_error(NULL, args, "backend torch: unknown option 'fast'");

    /* a precheck without the plug-in */
    PC_TEST_FMT(args, "--backend torch:cpu --python '%s'", python);
    expect_startup_error("PRECHECK_PLUGIN_DIR=/nonexistent", args,
                         "the torch backend is a plug-in that this precheck was built without");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conformance),
        cmocka_unit_test(test_multi_run_ut_same_bytes),
        cmocka_unit_test(test_torch_error_is_skip_row),
        cmocka_unit_test(test_startup_errors),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
