/*
 * Every option of every precheck command, said once: its names as msprobe's argparse declares
 * them (or precheck's, for its own options), whether it takes a value, and whether it is
 * msprobe's. A command lists the ids it takes (args.h's pc_args_command.options), so the same
 * flag has the same spellings in every command that takes it.
 */
#ifndef PC_CLI_FLAGS_H
#define PC_CLI_FLAGS_H

#include "cli/args.h"

typedef enum pc_flag {
    /* argparse's and the top level's */
    PC_FLAG_HELP,
    PC_FLAG_VERSION,
    PC_FLAG_FRAMEWORK,
    /* msprobe's run_ut and multi_run_ut (docs/msprobe-contract.md#command-line) */
    PC_FLAG_API_INFO,
    PC_FLAG_OUT_PATH,
    PC_FLAG_SAVE_ERROR_DATA,
    PC_FLAG_JIT_COMPILE,
    PC_FLAG_DEVICE,
    PC_FLAG_RESULT_CSV_PATH,
    PC_FLAG_FILTER_API,
    PC_FLAG_CONFIG_PATH,
    PC_FLAG_NUM_SPLITS,
    /* msprobe's run_overflow_check: -j takes a value, -d one id */
    PC_FLAG_JIT_COMPILE_VALUE,
    PC_FLAG_DEVICE_ONE,
    /* msprobe's api_precision_compare */
    PC_FLAG_NPU_CSV_PATH,
    PC_FLAG_GPU_CSV_PATH,
    /* precheck's own: run_ut, multi_run_ut, materialize */
    PC_FLAG_BACKEND,
    PC_FLAG_PYTHON,
    PC_FLAG_BENCH,
    PC_FLAG_SEED,
    PC_FLAG_TIMEOUT,
    PC_FLAG_MAX_MEMORY,
    PC_FLAG_JOBS,
    PC_FLAG_CONFIG_YAML,
    PC_FLAG_NO_PROGRESS,
    PC_FLAG_BENCH_CACHE,
    PC_FLAG_BENCH_CACHE_MAX,
    PC_FLAG_PROGRESS_INTERVAL,
    PC_FLAG_FAIL_ON,
    PC_FLAG_SHARD,
    PC_FLAG_RESUME,
    /* precheck's own: run_ut, api_precision_compare (diff parses its own) */
    PC_FLAG_JUNIT,
    /* precheck's own: api_precision_compare */
    PC_FLAG_ALLOW_DIFFERENT_DUMPS,
    /* precheck's own: compare */
    PC_FLAG_BENCH_PATH,
    PC_FLAG_DEVICE_PATH,
    PC_FLAG_API_NAME,
    PC_FLAG_PRECISION,
    PC_FLAG_THREADS,
    PC_FLAG_COSINE_BLAS_ORDER,
    /* precheck's own: ops */
    PC_FLAG_JSON,
    PC_FLAG_DUMP,

    PC_FLAG_CONFIG_INPUT,    /* op_generate: -i config_op.json */
    PC_FLAG_API_OUTPUT_PATH, /* op_generate: -o DIR */
    PC_FLAG_PRECHECK_INPUTS, /* op_generate: the script loads precheck's own inputs */
    PC_FLAG_API,             /* repro: an API's full name (also given bare) */
    PC_FLAG_COUNT
} pc_flag;

/* The options by pc_flag (pc_flags[f].id == f). */
extern const pc_args_option pc_flags[PC_FLAG_COUNT];

#endif
