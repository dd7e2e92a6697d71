/*
 * precheck compare: the details row of one bench/device tensor pair, exactly as run_ut writes
 * it (header and row, CRLF, no BOM, on stdout). For checking a single output by hand, and for
 * tests that feed msprobe's saved error data through the same code as run_ut.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/compare/compare.h"
#include "precheck/io/npy.h"
#include "precheck/io/path_check.h"
#include "precheck/io/pt.h"

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck compare -bench BENCH -device DEVICE [-api_name NAME]\n"
                 "                        [--bench msprobe|fp64] [-precision N] [--threads N]\n"
                 "                        [--cosine-blas-order]\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out,
            "\nCompares one device output with its bench output the way run_ut does and prints "
            "the\ndetails CSV header and the row run_ut would write for it.\n\n"
            "options:\n"
            "  -bench, --bench_path FILE     the bench tensor (.pt or .npy)\n"
            "  -device, --device_path FILE   the device tensor (.pt or .npy)\n"
            "  -api_name NAME                the API the output belongs to, as run_ut names it\n"
            "                                (Torch.matmul.0; picks the precision standard;\n"
            "                                default Torch.compare.0, the benchmark standard)\n"
            "  --bench msprobe|fp64          the bench dtype run_ut would have: msprobe raises\n"
            "                                float16/bfloat16 outputs' benches to float32 and\n"
            "                                float32 to float64; fp64 raises every float bench to\n"
            "                                float64. A bench is never lowered. Default msprobe.\n"
            "  -precision N                  decimals of float64 cells (default 14)\n"
            "  --threads N                   threads for the metrics (default: all)\n"
            "  --cosine-blas-order           sum the cosine as numpy with the reference BLAS does\n"
            "  -h, --help                    this help\n\n"
            "Exit status: 0 when the row was printed, 1 when a file cannot be read, 2 for a usage\n"
            "error.\n");
}

typedef struct compare_args {
    const char *bench_path, *device_path, *api_name;
    bool fp64;
    int precision;
    pc_compare_options opt;
} compare_args;

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    compare_args *a = ctx;
    const char *v = count ? values[0] : NULL;
    char *end;
    switch ((pc_flag)id) {
    case PC_FLAG_BENCH_PATH:
        a->bench_path = v;
        break;
    case PC_FLAG_DEVICE_PATH:
        a->device_path = v;
        break;
    case PC_FLAG_API_NAME:
        a->api_name = v;
        break;
    case PC_FLAG_BENCH:
        if (strcmp(v, "fp64") != 0 && strcmp(v, "msprobe") != 0)
            return pc_args_usage_error(cmd, "--bench takes msprobe or fp64, not '%s'", v);
        a->fp64 = strcmp(v, "fp64") == 0;
        break;
    case PC_FLAG_PRECISION: {
        long p = strtol(v, &end, 10);
        if (end == v || *end || p < 0 || p > PC_CSV_MAX_PRECISION)
            return pc_args_usage_error(cmd, "-precision takes 0..%d", PC_CSV_MAX_PRECISION);
        a->precision = (int)p;
        break;
    }
    case PC_FLAG_THREADS: {
        long t = strtol(v, &end, 10);
        if (end == v || *end || t < 1 || t > 1024)
            return pc_args_usage_error(cmd, "--threads takes 1..1024");
        a->opt.threads = (int)t;
        break;
    }
    case PC_FLAG_COSINE_BLAS_ORDER:
        a->opt.cosine_blas_order = true;
        break;
    default:
        break;
    }
    return PC_ARGS_RUN;
}

static const pc_args_command command = {
    .prog = "precheck compare",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_BENCH_PATH, PC_FLAG_DEVICE_PATH,
                             PC_FLAG_API_NAME, PC_FLAG_BENCH, PC_FLAG_PRECISION, PC_FLAG_THREADS,
                             PC_FLAG_COSINE_BLAS_ORDER, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static pc_status read_tensor(const char *path, pc_tensor *out)
{
    if (ends_with(path, ".npy"))
        return pc_npy_read_file(path, out, NULL);
    return pc_pt_read_file(path, out, NULL);
}

/* The bench dtype run_ut would have next to a device output of dtype device. */
static pc_dtype policy_bench_dtype(bool fp64, pc_dtype device, pc_dtype bench)
{
    if (!pc_dtype_is_float(bench))
        return bench;
    pc_dtype want = bench;
    if (fp64)
        want = PC_DTYPE_F64;
    else if (device == PC_DTYPE_F16 || device == PC_DTYPE_BF16)
        want = PC_DTYPE_F32;
    else if (device == PC_DTYPE_F32)
        want = PC_DTYPE_F64;
    /* raise only: a wider bench keeps its values */
    if (pc_dtype_size(want) <= pc_dtype_size(bench) && bench != PC_DTYPE_BF16 &&
        bench != PC_DTYPE_F8E4M3FN && bench != PC_DTYPE_F8E5M2)
        return bench;
    return want;
}

int pc_cli_compare(int argc, char **argv)
{
    compare_args a = {.api_name = "Torch.compare.0", .precision = 14};
    int parsed = pc_args_parse(&command, argc, argv, take, &a, NULL);
    if (parsed != PC_ARGS_RUN)
        return parsed;
    if (!a.bench_path || !a.device_path)
        return pc_args_usage_error(&command, "-bench and -device are required");
    const char *bench_path = a.bench_path, *device_path = a.device_path, *api_name = a.api_name;
    bool fp64 = a.fp64;
    pc_compare_options opt = a.opt;
    int precision = a.precision;

    int rc = 1;
    pc_tensor bench = PC_TENSOR_NULL, device = PC_TENSOR_NULL;
    pc_api_result res = PC_API_RESULT_INIT;
    pc_csv_buffer out = PC_CSV_BUFFER_INIT;
    /* run_ut's link rule for what it reads */
    if (pc_path_check_not_link(bench_path) != PC_OK ||
        pc_path_check_not_link(device_path) != PC_OK || read_tensor(bench_path, &bench) != PC_OK ||
        read_tensor(device_path, &device) != PC_OK) {
        fprintf(stderr, "precheck compare: %s\n", pc_error_message());
        goto done;
    }
    pc_dtype want = policy_bench_dtype(fp64, device.dtype, bench.dtype);
    if (want != bench.dtype && pc_tensor_cast(&bench, &bench, want) != PC_OK) {
        fprintf(stderr, "precheck compare: %s\n", pc_error_message());
        goto done;
    }
    pc_cmp_value b = pc_cmp_tensor(&bench), d = pc_cmp_tensor(&device);
    pc_api_outputs outputs = {.bench_output = &b, .device_output = &d};
    if (pc_compare_api(&res, api_name, &outputs, &opt) != PC_OK ||
        pc_details_header_append(&out) != PC_OK ||
        pc_api_result_append_csv(&res, &out, NULL, precision) != PC_OK) {
        fprintf(stderr, "precheck compare: %s\n", pc_error_message());
        goto done;
    }
    if (out.len > 0 && fwrite(out.data, 1, out.len, stdout) != out.len) {
        fprintf(stderr, "precheck compare: cannot write the output\n");
        goto done;
    }
    rc = fflush(stdout) == 0 ? 0 : 1;
done:
    pc_csv_buffer_free(&out);
    pc_api_result_free(&res);
    pc_tensor_free(&bench);
    pc_tensor_free(&device);
    return rc;
}
