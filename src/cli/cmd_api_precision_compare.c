/*
 * precheck api_precision_compare -npu NPU.csv -gpu GPU.csv [-o DIR]: msprobe's flags, its path
 * checks, then the comparison. Exit codes: 0 done (NPU rows without a GPU match are warned about
 * and skipped, as msprobe does), 1 a failure (nothing written), 2 a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "precheck/core/log.h"
#include "precheck/io/path_check.h"
#include "precheck/precision_compare/precision_compare.h"

int pc_cli_api_precision_compare(int argc, char **argv);

static const char usage[] = "usage: precheck api_precision_compare [-h] -npu NPU_CSV_PATH -gpu "
                            "GPU_CSV_PATH [-o OUT_PATH]\n";

static void print_help(void)
{
    printf("%s\n"
           "Judges the NPU's run_ut errors against the GPU's with msprobe's precision standards.\n"
           "\noptions:\n"
           "  -h, --help            show this help message and exit\n"
           "  -npu NPU_CSV_PATH, --npu_csv_path NPU_CSV_PATH\n"
           "                        the accuracy_checking_details CSV of the NPU run\n"
           "  -gpu GPU_CSV_PATH, --gpu_csv_path GPU_CSV_PATH\n"
           "                        the accuracy_checking_details CSV of the GPU run\n"
           "  -o OUT_PATH, --out_path OUT_PATH\n"
           "                        output directory (default ./)\n"
           "\nexit status: 0 done, 1 failure (no output written), 2 usage error\n",
           usage);
}

int pc_cli_api_precision_compare(int argc, char **argv)
{
    const char *npu = NULL, *gpu = NULL, *out = "./";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_help();
            return 0;
        } else if (strcmp(a, "-npu") == 0 || strcmp(a, "--npu_csv_path") == 0) {
            dst = &npu;
        } else if (strcmp(a, "-gpu") == 0 || strcmp(a, "--gpu_csv_path") == 0) {
            dst = &gpu;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--out_path") == 0) {
            dst = &out;
        } else {
            fprintf(stderr, "%sprecheck api_precision_compare: error: unrecognized arguments: %s\n",
                    usage, a);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr,
                    "%sprecheck api_precision_compare: error: argument %s: expected one "
                    "argument\n",
                    usage, a);
            return 2;
        }
        *dst = argv[++i];
    }
    if (!npu || !gpu) {
        fprintf(stderr,
                "%sprecheck api_precision_compare: error: the following arguments are required: "
                "%s%s%s\n",
                usage, npu ? "" : "-npu/--npu_csv_path", !npu && !gpu ? ", " : "",
                gpu ? "" : "-gpu/--gpu_csv_path");
        return 2;
    }
    char npu_r[PC_PATH_BUFFER_SIZE], gpu_r[PC_PATH_BUFFER_SIZE], out_r[PC_PATH_BUFFER_SIZE];
    pc_status st =
        pc_path_check(npu, PC_PATH_FILE, PC_PATH_READ | PC_PATH_WRITE, ".csv", npu_r, sizeof npu_r);
    if (st == PC_OK)
        st = pc_path_check(gpu, PC_PATH_FILE, PC_PATH_READ | PC_PATH_WRITE, ".csv", gpu_r,
                           sizeof gpu_r);
    if (st == PC_OK)
        st = pc_path_make_dir(out);
    if (st == PC_OK)
        st = pc_path_check(out, PC_PATH_DIR, PC_PATH_WRITE, NULL, out_r, sizeof out_r);
    if (st != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_pcmp_options opt = {.npu_path = npu_r, .gpu_path = gpu_r, .out_dir = out_r};
    pc_pcmp_summary sum;
    st = pc_pcmp_run(&opt, &sum);
    if (st != PC_OK) {
        pc_log_error("%s", pc_error_message());
        pc_log_error("api_precision_compare failed; no output was written.");
        return 1;
    }
    pc_log_info("api_precision_compare: %zu NPU rows, %zu details rows, %zu APIs; wrote %s and %s",
                sum.npu_rows, sum.details_rows, sum.result_rows, sum.details_path, sum.result_path);
    return 0;
}
