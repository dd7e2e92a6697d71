/*
 * precheck run_overflow_check as a user runs the binary, on a statistics-mode dump written
 * here: msprobe's log lines per API (normal overflow, bool output, None outputs, the types it
 * refuses, the failure handler), nothing written, the summary; the same verdicts through the
 * user's PyTorch (--backend torch:cpu); an abnormal overflow where a faulty device disagrees
 * with the reference device; a bundled msprobe dump; usage errors and failures with their exit
 * statuses.
 */
#include "pc_test.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[512], dump_path[600], log_path[600];

#define T(dtype, shape, max, min)                                                                  \
    "{\"type\": \"torch.Tensor\", \"dtype\": \"torch." dtype "\", \"shape\": " shape               \
    ", \"Max\": " max ", \"Min\": " min ", \"Mean\": 0.5, \"Norm\": 1.0, \"requires_grad\": "      \
    "false}"
#define SCALAR(type, value) "{\"type\": \"" type "\", \"value\": " value "}"
#define ENTRY(name, args, kwargs, output)                                                          \
    "\"" name ".forward\": {\"input_args\": [" args "], \"input_kwargs\": {" kwargs                \
    "}, \"output\": [" output "]}"

/* One API of each case, in this order. */
static const char *const entries[] = {
    /* float16 exp with Max 20: exp(20) = 4.9e8 is inf in float16, on both sides */
    ENTRY("Torch.exp.0", T("float16", "[4, 8]", "20.0", "-1.0"), "",
          T("float16", "[4, 8]", "Infinity", "0.36")),
    /* bfloat16 exp with Max 100: exp(100) = 2.7e43 is inf in bfloat16 */
    ENTRY("Torch.exp.1", T("bfloat16", "[4]", "100.0", "-1.0"), "",
          T("bfloat16", "[4]", "Infinity", "0.36")),
    /* no overflow anywhere */
    ENTRY("Torch.add.0",
          T("float32", "[4, 8]", "1.0", "-1.0") ", " T("float32", "[4, 8]", "2.0", "-2.0"), "",
          T("float32", "[4, 8]", "3.0", "-3.0")),
    /* a NaN input: NaN out on both sides */
    ENTRY("Torch.add.1", T("float16", "[2, 3]", "NaN", "NaN") ", " SCALAR("float", "1.0"), "",
          T("float16", "[2, 3]", "NaN", "NaN")),
    /* a Python bool out */
    ENTRY("Torch.equal.0", T("float32", "[3]", "1.0", "0.0") ", " T("float32", "[3]", "1.0", "0.0"),
          "", SCALAR("bool", "false")),
    /* types run_overflow_check refuses */
    ENTRY("Distributed.all_reduce.0", T("float32", "[3]", "1.0", "0.0"), "", ""),
    ENTRY("NPU.npu_rms_norm.0",
          T("float16", "[2, 4]", "1.0", "0.0") ", " T("float16", "[4]", "1.0", "0.0"), "", ""),
    /* a type msprobe does not execute, and an API torch returns None for */
    ENTRY("VF.lstm.0", "", "", ""),
    ENTRY("Tensor.__setitem__.0",
          T("float32", "[3]", "1.0", "0.0") ", " SCALAR("int", "0") ", " SCALAR("float", "2.0"), "",
          ""),
    /* out=: msprobe's backward warning; an int64 output: none (msprobe's bug warns there) */
    ENTRY("Torch.add.2", T("float32", "[3]", "1.0", "0.0") ", " T("float32", "[3]", "1.0", "0.0"),
          "\"out\": " T("float32", "[3]", "1.0", "0.0"), T("float32", "[3]", "2.0", "0.0")),
    ENTRY("Torch.argmax.0", T("float32", "[3, 4]", "1.0", "0.0"), "", T("int64", "[]", "2", "2")),
    /* a 4-segment name whose run fails: msprobe's handler crashes there, precheck goes on */
    ENTRY("Torch.linalg.vector_norm.0", T("float32", "[3]", "1.0", "0.0"), "", ""),
    /* float32 softmax over a row holding 100: a device without the max subtraction gives NaN */
    ENTRY("Functional.softmax.0", T("float32", "[2, 4]", "100.0", "-1.0"),
          "\"dim\": " SCALAR("int", "-1"), T("float32", "[2, 4]", "1.0", "0.0")),
    /* zeros over float16 subnormals: 0 on the reference, 0/0 = NaN where they flush to zero */
    ENTRY("Torch.div.0",
          T("float16", "[4]", "0.0", "0.0") ", " T("float16", "[4]", "1e-06", "1e-06"), "",
          T("float16", "[4]", "0.0", "0.0")),
};
enum { ENTRY_COUNT = sizeof entries / sizeof entries[0] };

/* Writes a dump.json with the given entries at path. */
static void write_dump(const char *path, const char *const *items, size_t count)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("{\"task\": \"statistics\", \"level\": \"L1\", \"framework\": \"pytorch\", "
          "\"dump_data_dir\": null, \"data\": {\n",
          f);
    for (size_t i = 0; i < count; i++)
        fprintf(f, "%s%s\n", items[i], i + 1 < count ? "," : "");
    fputs("}}\n", f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    if (!pc_test_tmpdir(dir, sizeof dir))
        return -1;
    snprintf(dump_path, sizeof dump_path, "%s/dump.json", dir);
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    write_dump(dump_path, entries, ENTRY_COUNT);
    return 0;
}

/* Runs run_overflow_check on the dump with extra flags; returns the exit status. The log is
 * in log_path. */
static int run(const char *env, const char *extra)
{
    char args[2048];
    PC_TEST_FMT(args, "run_overflow_check -api_info '%s' %s", dump_path, extra);
    return pc_test_run_precheck(env, args, log_path);
}

/* The log without its timestamps and pids, one "[LEVEL] message" a line (malloc'ed). */
static char *messages(void)
{
    char *log = pc_test_slurp(log_path, NULL);
    char *out = malloc(strlen(log) + 1), *o = out;
    assert_non_null(out);
    for (char *line = log; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *msg = memchr(line, '[', len);
        if (msg) {
            memcpy(o, msg, len - (size_t)(msg - line));
            o += len - (size_t)(msg - line);
            *o++ = '\n';
        }
        line += len + (end ? 1 : 0);
    }
    *o = 0;
    free(log);
    return out;
}

static void expect_has(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("the log lacks '%s':\n%s", want, text);
}

static void expect_lacks(const char *text, const char *unwanted)
{
    if (strstr(text, unwanted))
        fail_msg("the log has '%s':\n%s", unwanted, text);
}

#define NORMAL(full) "[WARNING] The " full " overflow is a normal overflow.\n"
#define BOTH(full)                                                                                 \
    "[INFO] " full ": inf or NaN in the outputs of both the reference device and the device "      \
    "under test.\n"
#define BOOL_SKIP                                                                                  \
    "[WARNING] The output of Torch.equal.0 is bool type.This dtype not support overflow, so it "   \
    "will be skipped.\n"
#define NONE(full)                                                                                 \
    "[WARNING] The " full " overflow is a normal overflow, out and npu_out is None.\n"
#define OUT_WARNING                                                                                \
    "[WARNING] Torch.add.2 function with out=... arguments don't support automatic "               \
    "differentiation, skip backward.\n"

/* The verdicts both the reference device and torch's CPU give after Torch.exp.0 (torch 1.13's
 * CPU has no float16 exp: Torch.exp.0 is the one API where they differ, see test_torch_cpu). */
static const char *const verdicts_after_exp0[] = {
    NORMAL("Torch.exp.1"),
    BOTH("Torch.exp.1"),
    NORMAL("Torch.add.0"),
    NORMAL("Torch.add.1"),
    BOTH("Torch.add.1"),
    BOOL_SKIP,
    "[INFO] Distributed api is not supported for run ut. SKIP.\n",
    "[INFO] NPU api is not supported for run ut. SKIP.\n",
    NONE("VF.lstm.0"),
    NONE("Tensor.__setitem__.0"),
    OUT_WARNING,
    NORMAL("Torch.add.2"),
    NORMAL("Torch.argmax.0"),
    ("[ERROR] Run Torch.linalg.vector_norm.0 UT Error: API Torch.linalg.vector_norm is not "
     "supported by precheck yet\n"),
};

/* Asserts that the messages hold these lines, one after the other: before, the verdicts
 * above, then after (each NULL-terminated). */
static void append(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    assert_true(used + strlen(text) < size);
    memcpy(buf + used, text, strlen(text) + 1);
}

static void expect_verdicts(const char *m, const char *const *before, const char *const *after)
{
    char want[8192] = "";
    for (const char *const *p = before; *p; p++)
        append(want, sizeof want, *p);
    for (size_t i = 0; i < sizeof verdicts_after_exp0 / sizeof verdicts_after_exp0[0]; i++)
        append(want, sizeof want, verdicts_after_exp0[i]);
    for (const char *const *p = after; *p; p++)
        append(want, sizeof want, *p);
    expect_has(m, want);
}

static void test_reference_device(void **state)
{
    (void)state;
    assert_int_equal(run(NULL, ""), 0);
    char *m = messages();
    /* msprobe's lines, in dump order, after "start UT test" */
    const char *const before[] = {"[INFO] start UT test\n", NORMAL("Torch.exp.0"),
                                  BOTH("Torch.exp.0"), NULL};
    const char *const after[] = {
        NORMAL("Functional.softmax.0"),
        NORMAL("Torch.div.0"),
        ("[INFO] Overflow check of 14 API(s): 10 normal overflow (inf or NaN on both sides: 3), "
         "0 abnormal overflow, 4 skipped.\n"),
        NULL,
    };
    expect_verdicts(m, before, after);
    /* the reference device against itself says so; msprobe's bug would warn for the int64
     * output of argmax */
    expect_has(m, "[INFO] The device under test is the reference device: both sides agree by "
                  "construction, and an overflow found comes from the inputs alone.\n");
    expect_lacks(m, "Torch.argmax.0 function with out=");
    expect_lacks(m, "Distributed.all_reduce");
    free(m);
    /* log lines only: the folder holds the dump and the log */
    DIR *d = opendir(dir);
    assert_non_null(d);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    assert_int_equal(files, 2);
}

static void test_faulty_device(void **state)
{
    (void)state;
    /* a device whose softmax skips the max subtraction and which flushes subnormals */
    assert_int_equal(run(NULL, "--backend faulty:softmax_nomax:softmax,ftz:div"), 0);
    char *m = messages();
    const char *const none[] = {NULL};
    expect_verdicts(m, none, none);
    expect_has(m, "[WARNING] The Functional.softmax.0 overflow is an abnormal overflow.\n"
                  "[INFO] Functional.softmax.0: inf or NaN in the outputs of the device under "
                  "test only, not of the reference device.\n"
                  "[WARNING] The Torch.div.0 overflow is an abnormal overflow.\n"
                  "[INFO] Torch.div.0: inf or NaN in the outputs of the device under test only, "
                  "not of the reference device.\n"
                  "[INFO] Overflow check of 14 API(s): 8 normal overflow (inf or NaN on both "
                  "sides: 3), 2 abnormal overflow, 4 skipped.\n");
    free(m);
}

static void test_torch_cpu(void **state)
{
    (void)state;
    const char *python = pc_test_torch_python();
    if (!python)
        skip();
    char extra[1200];
    PC_TEST_FMT(extra, "--backend torch:cpu --python '%s'", python);
    /* Python runs in precheck's own process: LeakSanitizer cannot follow the interpreter */
    assert_int_equal(run("ASAN_OPTIONS=detect_leaks=0", extra), 0);
    char *m = messages();
    /* torch 1.13's CPU refuses float16 exp: msprobe's handler line for that (msprobe's own
     * CPU run is torch's); every other API has the reference device's verdict */
    const char *const before[] = {
        ("[WARNING] API exp not support half tensor in CPU. This API does not support overflow "
         "check, so it will be skipped.\n"),
        NULL,
    };
    const char *const after[] = {
        NORMAL("Functional.softmax.0"),
        NORMAL("Torch.div.0"),
        ("[INFO] Overflow check of 14 API(s): 9 normal overflow (inf or NaN on both sides: 2), "
         "0 abnormal overflow, 5 skipped.\n"),
        NULL,
    };
    expect_verdicts(m, before, after);
    expect_has(m, "[INFO] device under test: the CPU through PyTorch");
    free(m);
}

static void test_real_dump(void **state)
{
    (void)state;
    /* a bundled msprobe dump (tensor mode, a GPT block): the attention mask's -inf from
     * masked_fill is the one overflow, on both sides */
    char args[1200];
    PC_TEST_FMT(args,
                "run_overflow_check -api_info '%s/msprobe/dumps/gpt_tensor/step0/rank/dump.json'",
                PC_TEST_FIXTURES);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    char *m = messages();
    expect_has(m, NORMAL("Tensor.masked_fill.0") BOTH("Tensor.masked_fill.0"));
    expect_has(m, "[INFO] Overflow check of 43 API(s): 43 normal overflow (inf or NaN on both "
                  "sides: 1), 0 abnormal overflow, 0 skipped.\n");
    expect_lacks(m, "[ERROR]");
    free(m);
}

static void test_failures(void **state)
{
    (void)state;
    char args[1200];
    /* usage errors: argparse's messages, exit 2 */
    assert_int_equal(run(NULL, "-j"), 2);
    assert_true(
        pc_test_file_contains(log_path, "argument -j/--jit_compile: expected one argument"));
    assert_int_equal(run(NULL, "-j -d 0"), 2);
    assert_int_equal(run(NULL, "-d x"), 2);
    assert_true(pc_test_file_contains(log_path, "argument -d/--device: invalid int value: 'x'"));
    assert_int_equal(run(NULL, "--csv_path x"), 2);
    assert_int_equal(pc_test_run_precheck(NULL, "run_overflow_check -j 1", log_path), 2);
    assert_true(pc_test_file_contains(
        log_path, "the following arguments are required: -api_info/--api_info_file"));
    /* -j takes any value (msprobe's compile mode on); -d a negative id is msprobe's error */
    assert_int_equal(run(NULL, "-j False -d 1"), 0);
    assert_int_equal(run(NULL, "-d -1"), 1);
    assert_true(pc_test_file_contains(log_path, "Set NPU device id failed. device id is: -1"));
    /* failures: exit 1 */
    assert_int_equal(run(NULL, "--backend nosuch"), 1);
    PC_TEST_FMT(args, "run_overflow_check -api_info '%s/missing.json'", dir);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    assert_true(pc_test_file_contains(log_path, "missing.json does not exist."));
    /* a name msprobe's character check refuses ends the run there */
    char other[700];
    PC_TEST_FMT(other, "%s/unsafe.json", dir);
    const char *const unsafe[] = {ENTRY("+Torch.add.0", "", "", "")};
    write_dump(other, unsafe, 1);
    PC_TEST_FMT(args, "run_overflow_check -api_info '%s'", other);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 1);
    assert_true(
        pc_test_file_contains(log_path, "api name contains special characters, please check!"));
    /* an empty data field: msprobe's warning, nothing to do */
    PC_TEST_FMT(other, "%s/empty.json", dir);
    write_dump(other, NULL, 0);
    PC_TEST_FMT(args, "run_overflow_check -api_info '%s'", other);
    assert_int_equal(pc_test_run_precheck(NULL, args, log_path), 0);
    assert_true(pc_test_file_contains(log_path, "data field is empty, no overflow data found."));
    assert_true(pc_test_file_contains(log_path, "Overflow check of 0 API(s)"));
    assert_int_equal(pc_test_run_precheck(NULL, "run_overflow_check --help", log_path), 0);
    assert_true(pc_test_file_contains(log_path, "usage: precheck run_overflow_check"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_device), cmocka_unit_test(test_faulty_device),
        cmocka_unit_test(test_torch_cpu),        cmocka_unit_test(test_real_dump),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
