/*
 * The whole pre-check, round trip: precheck run_ut on the NPU-side dump (the GPT block in
 * bfloat16) and on the GPU-side dump (the same model in float32), then precheck
 * api_precision_compare on precheck's two details CSVs; the verdicts are compared with what
 * msprobe's api_precision_compare gave for msprobe's own CSVs of the same dumps.
 *
 * With --backend replay on both sides the device values are the recorded ones, exactly what
 * msprobe's CPU rerun computed, so every forward verdict must be msprobe's; backward verdicts
 * too, except where replay cannot map the recorded gradients (a backward SKIP, see
 * docs/run_ut.md). With the reference device the verdicts may differ only where torch 1.13's
 * CPU bfloat16 kernels (msprobe's "device" there) are less accurate than the reference device:
 * those APIs are listed with the reason. With --backend torch:cpu (the GPU side alone, the NPU
 * side replayed; or both sides) the devices are msprobe's own: torch 1.13 on the CPU.
 */
#include "pc_test.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "precheck/io/csv_read.h"

#define FIX       PC_TEST_FIXTURES "/msprobe"
#define DUMPS     FIX "/dumps"
#define find_file pc_test_find_file

static void run(const char *args)
{
    assert_int_equal(pc_test_run_precheck(NULL, args, NULL), 0);
}

typedef struct verdict {
    char api[128], fwd[16], bwd[16];
} verdict;

static int read_result(const char *path, verdict *v, int max)
{
    pc_csv_reader *r = NULL;
    assert_int_equal(pc_csv_reader_open(path, &r), PC_OK);
    bool has;
    int n = 0;
    assert_int_equal(pc_csv_reader_next(r, &has), PC_OK);
    while (pc_csv_reader_next(r, &has) == PC_OK && has && n < max) {
        PC_TEST_FMT(v[n].api, "%s", pc_csv_reader_field(r, 0, NULL));
        PC_TEST_FMT(v[n].fwd, "%s", pc_csv_reader_field(r, 1, NULL));
        PC_TEST_FMT(v[n].bwd, "%s", pc_csv_reader_field(r, 2, NULL));
        n++;
    }
    pc_csv_reader_free(r);
    return n;
}

/* run_ut on the NPU-side dump with npu_args and on the GPU-side dump with gpu_args (their
 * --backend options), api_precision_compare; the result CSV's path. */
static void round_trip(const char *npu_args, const char *gpu_args, char *result, size_t size)
{
    char npu_dir[512], gpu_dir[512], out[512], args[4096], npu[1024], gpu[1024];
    assert_non_null(pc_test_tmpdir(npu_dir, sizeof npu_dir));
    assert_non_null(pc_test_tmpdir(gpu_dir, sizeof gpu_dir));
    assert_non_null(pc_test_tmpdir(out, sizeof out));
    PC_TEST_FMT(args,
                "run_ut -api_info %s/gpt_bf16_tensor/step0/rank/dump.json -o %s %s "
                "--no-progress",
                DUMPS, npu_dir, npu_args);
    run(args);
    PC_TEST_FMT(args, "run_ut -api_info %s/gpt_tensor/step0/rank/dump.json -o %s %s --no-progress",
                DUMPS, gpu_dir, gpu_args);
    run(args);
    find_file(npu_dir, "accuracy_checking_details_", npu, sizeof npu);
    find_file(gpu_dir, "accuracy_checking_details_", gpu, sizeof gpu);
    /* two dumps of one model (bf16 and fp32), as msprobe's CSVs of gpt_bf16_vs_fp32 were made:
     * different dumps on purpose */
    PC_TEST_FMT(args, "api_precision_compare -npu %s -gpu %s -o %s --allow-different-dumps", npu,
                gpu, out);
    run(args);
    find_file(out, "api_precision_compare_result_", result, size);
}

typedef struct allowed {
    const char *api;       /* a prefix when it ends in '.' */
    const char *fwd, *bwd; /* precheck's verdicts; NULL: msprobe's */
    const char *why;
} allowed;

static const allowed *find_allowed(const allowed *t, const char *api)
{
    for (; t->api; t++) {
        size_t n = strlen(t->api);
        if (t->api[n - 1] == '.' ? strncmp(t->api, api, n) == 0 : strcmp(t->api, api) == 0)
            return t;
    }
    return NULL;
}

static void check(const char *backend, const char *npu_args, const char *gpu_args,
                  const allowed *table)
{
    char ours[1024], theirs[1024];
    round_trip(npu_args, gpu_args, ours, sizeof ours);
    find_file(FIX "/precision_compare/gpt_bf16_vs_fp32", "api_precision_compare_result_", theirs,
              sizeof theirs);
    static verdict a[128], b[128];
    int na = read_result(ours, a, 128), nb = read_result(theirs, b, 128);
    assert_int_equal(na, nb);
    int same = 0, bad = 0;
    for (int i = 0; i < nb; i++) {
        assert_string_equal(a[i].api, b[i].api);
        bool eq = strcmp(a[i].fwd, b[i].fwd) == 0 && strcmp(a[i].bwd, b[i].bwd) == 0;
        const allowed *k = find_allowed(table, b[i].api);
        if (eq) {
            same++;
        } else if (k && strcmp(a[i].fwd, k->fwd ? k->fwd : b[i].fwd) == 0 &&
                   strcmp(a[i].bwd, k->bwd ? k->bwd : b[i].bwd) == 0) {
            printf("%s: %s precheck %s/%s, msprobe %s/%s: %s\n", backend, b[i].api, a[i].fwd,
                   a[i].bwd, b[i].fwd, b[i].bwd, k->why);
        } else {
            printf("FAIL %s: %s precheck %s/%s, msprobe %s/%s\n", backend, b[i].api, a[i].fwd,
                   a[i].bwd, b[i].fwd, b[i].bwd);
            bad++;
        }
    }
    printf("%s: %d of %d verdicts are msprobe's\n", backend, same, nb);
    assert_int_equal(bad, 0);
}

#define REPLAY_SKIP "replay cannot map the recorded gradients (inner autograd node)"

static const allowed replay_allowed[] = {
    {"Functional.linear.", NULL, "SKIP", REPLAY_SKIP},
    {"Torch.matmul.", NULL, "SKIP", REPLAY_SKIP},
    {"Functional.cross_entropy.", NULL, "SKIP", REPLAY_SKIP},
    {NULL, NULL, NULL, NULL},
};

static void test_replay_round_trip(void **state)
{
    (void)state;
    check("replay", "--backend replay", "--backend replay", replay_allowed);
}

#define CPU_BF16                                                                                   \
    "torch 1.13's CPU bfloat16 kernel (msprobe's device there) keeps bfloat16 intermediates; the " \
    "reference device computes in float32 and rounds once"

static const allowed cpu_allowed[] = {
    {"Functional.layer_norm.0", "pass", "error", CPU_BF16},
    {"Functional.linear.", "pass", "pass", CPU_BF16},
    {"Torch.matmul.", "pass", "pass", CPU_BF16},
    {"Torch.rsqrt.0", "pass", "error", CPU_BF16},
    {NULL, NULL, NULL, NULL},
};

static void test_reference_device_round_trip(void **state)
{
    (void)state;
    check("cpu", "--backend cpu", "--backend cpu", cpu_allowed);
}

/* The GPU side through PyTorch on the CPU (torch 1.13 on float32 data: what msprobe's rerun
 * computed), the NPU side replayed from what the "NPU" recorded. */
static void test_torch_gpu_replay_npu(void **state)
{
    (void)state;
    const char *python = pc_test_torch_python();
    if (!python)
        skip();
    char gpu[1200];
    PC_TEST_FMT(gpu, "--backend torch:cpu,threads=1 --python '%s'", python);
    check("torch:cpu + replay", "--backend replay", gpu, replay_allowed);
}

#define TORCH_BUILD_BF16                                                                           \
    "the bfloat16 weight gradients of linear: msprobe's pip build of torch 1.13 accumulates them " \
    "in bfloat16, Debian's in float32 (docs/devices.md)"

static const allowed torch_allowed[] = {
    {"Functional.linear.", "pass", "pass", TORCH_BUILD_BF16},
    {NULL, NULL, NULL, NULL},
};

/* Both sides through PyTorch on the CPU: msprobe's own setting for these dumps. */
static void test_torch_round_trip(void **state)
{
    (void)state;
    const char *python = pc_test_torch_python();
    if (!python)
        skip();
    char args[1200];
    PC_TEST_FMT(args, "--backend torch:cpu,threads=1 --python '%s'", python);
    check("torch:cpu", args, args, torch_allowed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_round_trip),
        cmocka_unit_test(test_reference_device_round_trip),
        cmocka_unit_test(test_torch_gpu_replay_npu),
        cmocka_unit_test(test_torch_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
