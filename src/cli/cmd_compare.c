/*
 * precheck compare: the details row of one bench/device tensor pair, exactly as run_ut writes
 * it (header and row, CRLF, no BOM, on stdout). For checking a single output by hand, and for
 * tests that feed msprobe's saved error data through the same code as run_ut.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "precheck/compare/compare.h"
#include "precheck/io/npy.h"
#include "precheck/io/pt.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: precheck compare -bench BENCH -device DEVICE [-api_name NAME]\n"
            "                        [--bench msprobe|fp64] [-precision N] [--threads N]\n"
            "                        [--cosine-blas-order]\n\n"
            "Compares one device output with its bench output the way run_ut does and prints "
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
    const char *bench_path = NULL, *device_path = NULL, *api_name = "Torch.compare.0";
    bool fp64 = false;
    pc_compare_options opt = {0};
    int precision = 14;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if ((strcmp(a, "-bench") == 0 || strcmp(a, "--bench_path") == 0) && has_value) {
            bench_path = argv[++i];
        } else if ((strcmp(a, "-device") == 0 || strcmp(a, "--device_path") == 0) && has_value) {
            device_path = argv[++i];
        } else if ((strcmp(a, "-api_name") == 0 || strcmp(a, "--api_name") == 0) && has_value) {
            api_name = argv[++i];
        } else if (strcmp(a, "--bench") == 0 && has_value) {
            const char *v = argv[++i];
            if (strcmp(v, "fp64") == 0) {
                fp64 = true;
            } else if (strcmp(v, "msprobe") != 0) {
                fprintf(stderr, "precheck compare: --bench takes msprobe or fp64, not '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "-precision") == 0 && has_value) {
            char *end;
            long p = strtol(argv[++i], &end, 10);
            if (*end || p < 0 || p > PC_CSV_MAX_PRECISION) {
                fprintf(stderr, "precheck compare: -precision takes 0..%d\n", PC_CSV_MAX_PRECISION);
                return 2;
            }
            precision = (int)p;
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            char *end;
            long t = strtol(argv[++i], &end, 10);
            if (*end || t < 1 || t > 1024) {
                fprintf(stderr, "precheck compare: --threads takes 1..1024\n");
                return 2;
            }
            opt.threads = (int)t;
        } else if (strcmp(a, "--cosine-blas-order") == 0) {
            opt.cosine_blas_order = true;
        } else {
            fprintf(stderr, "precheck compare: unexpected argument '%s'\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!bench_path || !device_path) {
        fprintf(stderr, "precheck compare: -bench and -device are required\n\n");
        usage(stderr);
        return 2;
    }

    int rc = 1;
    pc_tensor bench = PC_TENSOR_NULL, device = PC_TENSOR_NULL;
    pc_api_result res = PC_API_RESULT_INIT;
    pc_csv_buffer out = PC_CSV_BUFFER_INIT;
    if (read_tensor(bench_path, &bench) != PC_OK || read_tensor(device_path, &device) != PC_OK) {
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
