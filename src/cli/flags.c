/* The table of flags.h. msprobe's names keep msprobe's order (the order argparse lists them in
 * its messages: "-api_info/--api_info_file"). */
#include "cli/flags.h"

#define MSPROBE(flag, kind, ...)                                                                   \
    [PC_FLAG_##flag] = {PC_FLAG_##flag, {__VA_ARGS__}, PC_ARGS_##kind, false}
#define PRECHECK(flag, kind, ...)                                                                  \
    [PC_FLAG_##flag] = {PC_FLAG_##flag, {__VA_ARGS__}, PC_ARGS_##kind, true}

const pc_args_option pc_flags[PC_FLAG_COUNT] = {
    MSPROBE(HELP, HELP, "-h", "--help"),
    PRECHECK(VERSION, SWITCH, "--version", "-V"),
    MSPROBE(FRAMEWORK, VALUE, "-f", "--framework"),

    MSPROBE(API_INFO, VALUE, "-api_info", "--api_info_file"),
    MSPROBE(OUT_PATH, VALUE, "-o", "--out_path"),
    MSPROBE(SAVE_ERROR_DATA, SWITCH, "-save_error_data"),
    MSPROBE(JIT_COMPILE, SWITCH, "-j", "--jit_compile"),
    MSPROBE(DEVICE, VALUES, "-d", "--device"),
    MSPROBE(RESULT_CSV_PATH, VALUE, "-csv_path", "--result_csv_path"),
    MSPROBE(FILTER_API, SWITCH, "-f", "--filter_api"),
    MSPROBE(CONFIG_PATH, VALUE, "-config", "--config_path"),
    MSPROBE(NUM_SPLITS, VALUE, "-n", "--num_splits"),
    MSPROBE(JIT_COMPILE_VALUE, VALUE, "-j", "--jit_compile"),
    MSPROBE(DEVICE_ONE, VALUE, "-d", "--device"),

    MSPROBE(NPU_CSV_PATH, VALUE, "-npu", "--npu_csv_path"),
    MSPROBE(GPU_CSV_PATH, VALUE, "-gpu", "--gpu_csv_path"),

    PRECHECK(BACKEND, VALUE, "--backend"),
    PRECHECK(PYTHON, VALUE, "--python"),
    PRECHECK(BENCH, VALUE, "--bench"),
    PRECHECK(SEED, VALUE, "--seed"),
    PRECHECK(TIMEOUT, VALUE, "--timeout"),
    PRECHECK(MAX_MEMORY, VALUE, "--max-memory"),
    PRECHECK(JOBS, VALUE, "--jobs"),
    PRECHECK(CONFIG_YAML, VALUE, "--config_yaml"),
    PRECHECK(NO_PROGRESS, SWITCH, "--no-progress"),
    PRECHECK(BENCH_CACHE, VALUE, "--bench-cache"),
    PRECHECK(BENCH_CACHE_MAX, VALUE, "--bench-cache-max"),
    PRECHECK(PROGRESS_INTERVAL, VALUE, "--progress-interval"),
    PRECHECK(FAIL_ON, VALUE, "--fail-on"),
    PRECHECK(SHARD, VALUE, "--shard"),
    PRECHECK(RESUME, VALUE, "--resume"),
    PRECHECK(JUNIT, VALUE, "--junit"),
    PRECHECK(ALLOW_DIFFERENT_DUMPS, SWITCH, "--allow-different-dumps"),

    PRECHECK(BENCH_PATH, VALUE, "-bench", "--bench_path"),
    PRECHECK(DEVICE_PATH, VALUE, "-device", "--device_path"),
    PRECHECK(API_NAME, VALUE, "-api_name", "--api_name"),
    PRECHECK(PRECISION, VALUE, "-precision"),
    PRECHECK(THREADS, VALUE, "--threads"),
    PRECHECK(COSINE_BLAS_ORDER, SWITCH, "--cosine-blas-order"),

    PRECHECK(JSON, SWITCH, "--json", "-json"),
    PRECHECK(DUMP, VALUE, "--dump"),

    MSPROBE(CONFIG_INPUT, VALUE, "-i", "--config_input"),
    MSPROBE(API_OUTPUT_PATH, VALUE, "-o", "--api_output_path"),
    PRECHECK(PRECHECK_INPUTS, SWITCH, "--precheck-inputs"),
    PRECHECK(API, VALUE, "--api"),
};
