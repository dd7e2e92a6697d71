/*
 * run_ut and multi_run_ut (docs/msprobe-contract.md#replay): the per-API pipeline and the whole
 * run; and run_overflow_check, which shares the per-API preparation (below, at its section).
 *
 * Per API (pc_api_run): msprobe's SKIP rules (unsupported prefixes, unsplittable names, black
 * and white lists), the inputs (inputs/inputs.h), the bound call (ops/call.h), the bench run
 * and the device run, the backward run with the incoming gradient of the backward record's
 * input[0], the comparison (compare/compare.h), and -save_error_data. Any failure inside an
 * API becomes that API's SKIP record with a message saying what happened; only running out
 * of memory is an error of the run.
 *
 * The run (pc_run_ut): configuration, paths, CSV files, resume, and the worker processes.
 * APIs run in forked worker processes; the parent process alone writes the CSVs, whole APIs
 * at a time and in dump order, so the files of any number of workers are the same. A worker
 * that dies (any signal) or overruns the per-API timeout is replaced, and its API gets a SKIP
 * record naming the signal or the timeout. SIGINT/SIGTERM stop the run after flushing every
 * finished API; the message tells how to resume. Resuming with -csv_path skips the APIs the
 * result CSV holds and first cuts off what an interrupted run left half-written (a partial
 * last record, details rows of an API without its result row).
 */
#ifndef PC_RUNNER_RUNNER_H
#define PC_RUNNER_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "precheck/backends/backend.h"
#include "precheck/compare/compare.h"
#include "precheck/dump/dump.h"
#include "precheck/dump/filter.h"
#include "precheck/ops/exec.h"

/* ---- one API ---- */

/* Seconds spent per stage, summed over APIs (bench/bench_run_ut.c prints them). Filled only
 * where the APIs run in the calling process (pc_run_options.workers == 0). */
typedef struct pc_run_timing {
    double parse;   /* reading dump.json */
    double inputs;  /* binding: real tensors loaded or random ones generated */
    double bench;   /* the bench's forward and backward */
    double device;  /* the device's forward and backward */
    double compare; /* metrics, statuses and rows */
    double write;   /* CSV text and files */
    size_t apis;
} pc_run_timing;

typedef struct pc_api_runner {
    const pc_dump *dump;
    const pc_backend *device;
    const pc_backend *bench;
    pc_bench_policy policy; /* the bench's, for the saved backward input */
    uint64_t seed;
    const pc_api_lists *lists;  /* NULL: no configured lists (the built-in black list applies) */
    const char *error_data_dir; /* NULL: -save_error_data is off */
    size_t max_tensor_bytes;    /* 0: the core limit */
    /* An API whose estimated memory (pc_api_memory_estimate) is above this becomes a SKIP
     * instead of an out-of-memory kill; 0: no limit. */
    size_t max_api_bytes;
    pc_compare_options compare;
    pc_run_timing *timing; /* NULL: not measured */
    /* --bench-cache: the directory of stored bench results (bench_cache.c), NULL: none;
     * bench_key names the bench and its policy in the keys. */
    const char *bench_cache;
    const char *bench_key;
} pc_api_runner;

/* The memory an API needs, estimated from its records before anything is made: its tensor
 * inputs and outputs (a tensor of the dump's outputs, or of its inputs when the dump has no
 * outputs), each on the device and once more on the bench at twice the width (the bench
 * raises float16/bfloat16 to float32 and float32 to float64), twice over when a backward runs
 * (incoming gradient and input gradients), plus the comparison's 8-byte-wide scratch. */
size_t pc_api_memory_estimate(const pc_dump_api *api);

/* msprobe's API types (the T rows of src/dump/api_rules.def): the ones run_ut refuses outright
 * (Distributed, MindSpeed: "not support for run ut"), and the ones it executes (Functional,
 * Tensor, Torch, Aten, NPU; any other type, such as VF, gives None outputs). */
bool pc_api_prefix_refused(const char *prefix);
bool pc_api_type_executed(const char *api_type);

/*
 * Why run_ut does not run api, or PC_RUNS: the one answer for the run's rows (api.c) and for
 * `precheck ops --dump`, checked in the order the run checks (docs/msprobe-contract.md#replay).
 * lists: the configured white/black lists (NULL: only msprobe's built-in black list);
 * max_api_bytes: --max-memory's limit (0: none). What each reason writes into the CSVs is said
 * beside it; pc_no_run_text gives the short reason `precheck ops` prints.
 */
typedef enum pc_no_run {
    PC_RUNS = 0,
    PC_NO_RUN_UNSAFE_NAME,  /* a character msprobe forbids: the run stops before this API */
    PC_NO_RUN_TYPE_REFUSED, /* Distributed, MindSpeed: SKIP "API <full> not support for run ut." */
    PC_NO_RUN_NAME_UNSPLIT, /* not Type.api.index: the same SKIP */
    PC_NO_RUN_LISTED,       /* black-listed, or not in a white list: SKIP "... in black list ..." */
    PC_NO_RUN_BAD_RECORD,   /* a record of its forward entry precheck cannot read: SKIP naming it */
    PC_NO_RUN_TOO_BIG,      /* more memory than --max-memory allows: SKIP saying so */
    PC_NO_RUN_NOT_EXECUTED, /* a type msprobe executes nothing for (VF, ...): outputs None */
    PC_NO_RUN_NO_OP,        /* no op in precheck's table, or no bench function in msprobe: SKIP */
} pc_no_run;

pc_no_run pc_api_why_not_run(const pc_dump_api *api, const pc_api_lists *lists,
                             size_t max_api_bytes);
/* The reason as `precheck ops` prints it (it judges with the built-in lists only): "" for
 * PC_RUNS, "not supported by precheck yet" for PC_NO_RUN_NO_OP (the one reason that is
 * precheck's, not msprobe's). */
const char *pc_no_run_text(pc_no_run why);

/* Runs api and fills res (a compared API or a SKIP record). PC_ERR_NOMEM only. */
pc_status pc_api_run(const pc_api_runner *r, const pc_dump_api *api, pc_api_result *res);

/* The SKIPs pc_api_run decides before anything is made (msprobe's refused types, names it
 * cannot split, the black and white lists, unreadable records, the memory guard): *decided
 * and res filled when api is one of them, *decided false (res untouched) otherwise. Cheap
 * and free of side effects but its log line, so the parent decides them without a worker. */
pc_status pc_api_run_early(const pc_api_runner *r, const pc_dump_api *api, pc_api_result *res,
                           bool *decided);

/* ---- the whole run ---- */

#define PC_RUN_MAX_DEVICES 64
#define PC_RUN_MAX_WORKERS 64

typedef struct pc_run_options {
    const char *api_info;    /* -api_info */
    const char *out_path;    /* -o; NULL or "": "./" */
    const char *csv_path;    /* -csv_path: resume; NULL: a new run */
    const char *config_path; /* -config config.json; NULL: none */
    const char *config_yaml; /* config.yaml; NULL: msprobe's defaults */
    bool save_error_data;    /* -save_error_data */
    bool filter_api;         /* -f */
    bool multi;              /* multi_run_ut (its log lines and the -n rules) */
    int device_ids[PC_RUN_MAX_DEVICES];
    int device_count; /* -d; 0: [0] */
    int workers;      /* worker processes; 0: run in this process (no isolation) */
    /* run_ut without --jobs on the reference device or replay: workers is chosen from the
     * dump (one per core, or one when a single API dominates or memory is short; run_ut.c) */
    bool workers_auto;
    const char *backend;      /* --backend NAME[:OPTIONS] (backends/backend.h) */
    const char *python;       /* --python: the interpreter of the torch backend; NULL: python3 */
    bool jit_compile;         /* -j */
    const char *bench_policy; /* "msprobe" / "fp64" */
    uint64_t seed;
    double timeout_s;           /* per API, 0: none */
    double max_memory_mb;       /* per API (see pc_api_memory_estimate), 0: 90% of MemAvailable */
    bool progress;              /* the progress bar on stderr; when stderr is not a terminal, an
                                   INFO line every progress_interval_s seconds instead */
    double progress_interval_s; /* 0: 30 s */
    pc_run_timing *timing;      /* NULL, or filled (with workers == 0) */
    /* --bench-cache DIR: the bench's results are read from DIR where an earlier run (of any
     * machine) stored them for the same op, inputs and bench policy, and stored there
     * otherwise; NULL: no cache */
    const char *bench_cache;
    /* --bench-cache-max SIZE: after the run, the oldest entries (by last use) are deleted until
     * the directory's entries take at most this many bytes; 0: no bound */
    uint64_t bench_cache_max;
    /* The command's arguments as the user gave them (after "precheck": "run_ut -api_info
     * ..."), for the command that resumes an interrupted run and the run's record; argc 0:
     * unknown (a resume command is then built from api_info alone). */
    int argc;
    char *const *argv;
    /* --fail-on: exit PC_EXIT_FAILED_CHECK when an API's verdict is at or above this level
     * (pc_fail_level of report/sink.h: 0 never, the default, as msprobe) */
    int fail_on;
    /* --shard K/N: only the APIs of shard K (1..N) of the dump's cost-balanced split
     * (runner/cost.h); shard_count 0 or 1: the whole dump. precheck merge joins the shards'
     * CSVs into what one run writes. */
    uint32_t shard_index, shard_count;
    /* --junit FILE: the run's JUnit XML (report/diff.h, pc_report_junit_write), written after
     * the CSVs; NULL: none */
    const char *junit;
} pc_run_options;

/* ---- precheck merge DIR... -o OUT (merge.c) ----
 * The folders of run_ut --shard K/N runs of one dump (each holding its run record and CSVs;
 * a record file names one run where a folder holds several) joined into the two CSVs that one
 * run_ut of the whole dump writes, byte for byte, and their run record. Refuses shards of
 * different dumps or settings, a missing or repeated shard, and a shard that did not finish
 * (naming the command that resumes it). Returns the exit status: 0 merged, 1 failed (logged). */
typedef struct pc_merge_options {
    const char *const *inputs;
    size_t input_count;
    const char *out_path; /* NULL or "": "./" */
    const char *api_info; /* the dump, when it is no longer where the records say; NULL */
    int argc;             /* the command's arguments, for the merged run's record */
    char *const *argv;
} pc_merge_options;

int pc_merge(const pc_merge_options *o);

/* The exit status of a run that completed and found what --fail-on names. */
#define PC_EXIT_FAILED_CHECK 3

/* The exit status of the run: 0 done, 1 failed (a message was logged), 130 interrupted. */
int pc_run_ut(const pc_run_options *opt);

/* run_ut --resume DIR: the newest run in DIR whose result CSV lacks APIs its record
 * (precheck_run_<ts>.json) plans, resumed with the arguments it was started with, from the
 * folder it was started in, plus -csv_path <its result CSV>: this process becomes that
 * command (exec). Returns only on failure: 1, with the message logged (no unfinished run in
 * DIR, a record without its command). */
int pc_run_resume_dir(const char *dir);

/* ---- run_overflow_check (docs/msprobe-contract.md#formats) ----
 *
 * Per API, the forward on the reference device in the dumped dtypes (msprobe's CPU run: no
 * bench upcast, no autocast, no gradients) and on the device under test (msprobe: the NPU),
 * and whether the overflow agrees: inf or NaN in the outputs of both sides, or of neither.
 * msprobe reads the NPU's side from torch_npu's overflow check; precheck reads every side from
 * its outputs (pc_overflow_in_tensor). Results are log lines only, msprobe's:
 *   WARNING "The <full> overflow is a normal overflow." / "... is an abnormal overflow.",
 *   WARNING "The <full> overflow is a normal overflow, out and npu_out is None.",
 *   WARNING "The output of <full> is bool type.This dtype not support overflow, so it will be
 *            skipped.",
 *   INFO "<Type> api is not supported for run ut. SKIP." (Distributed, MindSpeed, NPU),
 *   and the failure lines of pc_api_log_failure's overflow-check handler;
 * plus precheck's INFO line naming the side(s) with inf/NaN where there are any, and the
 * summary line of the run.
 */

typedef enum pc_overflow_verdict {
    PC_OVERFLOW_NORMAL,   /* the sides agree (both overflow, neither does, both are None) */
    PC_OVERFLOW_ABNORMAL, /* one side overflows and the other does not */
    PC_OVERFLOW_SKIPPED,  /* not checked: a type msprobe refuses, a bool output, a failure */
} pc_overflow_verdict;

typedef struct pc_overflow_result {
    pc_overflow_verdict verdict;
    bool reference_overflow; /* inf or NaN in the reference device's outputs */
    bool device_overflow;    /* inf or NaN in the device's outputs */
} pc_overflow_result;

typedef struct pc_overflow_runner {
    const pc_dump *dump;
    const pc_backend *reference; /* the reference device (the cpu backend) */
    /* the device under test; the reference itself when they are the same device (then the
     * API runs once and serves both sides) */
    const pc_backend *device;
    uint64_t seed;
    size_t max_tensor_bytes; /* 0: the core limit */
} pc_overflow_runner;

/* Checks one API (in this process), logs msprobe's lines for it and fills res. Failures of
 * the API are its SKIPPED result; PC_ERR_NOMEM only. */
pc_status pc_overflow_check_api(const pc_overflow_runner *r, const pc_dump_api *api,
                                pc_overflow_result *res);

/* Whether t holds an overflow as msprobe's CPU check sees it: a non-empty tensor that is not
 * bool whose max or min, as a float32, is infinite or NaN (so a float64 beyond float32's range
 * counts too); integers never do. */
bool pc_overflow_in_tensor(const pc_tensor *t);

typedef struct pc_overflow_options {
    const char *api_info; /* -api_info */
    bool jit_compile;     /* -j VALUE was given (msprobe turns JIT on for any value) */
    int device_id;        /* -d */
    const char *backend;  /* --backend NAME[:OPTIONS]; NULL: cpu */
    const char *python;   /* --python; NULL: python3 */
    uint64_t seed;
    bool progress; /* the progress bar on stderr (drawn on a terminal only) */
} pc_overflow_options;

/* The whole run_overflow_check, APIs in this process: 0 done (whatever it found), 1 failed
 * (a message was logged: the dump, the backend, an API name msprobe refuses). */
int pc_run_overflow_check(const pc_overflow_options *opt);

/* Logs the next step after a run that wrote its outputs into dir (the -o folder as the user
 * gave it): one INFO line "next: precheck report DIR", DIR shell-quoted so that it can be
 * pasted. */
void pc_run_log_next_step(const char *dir);

/* Test hook: when the environment variable PRECHECK_TEST_FAULT is "crash:<full name>" or
 * "hang:<full name>", the worker running that API kills itself with SIGSEGV or sleeps forever;
 * "delay:<ms>" makes every API take ms milliseconds longer (< 1000), slept in 10 ms steps (a
 * stopped process still has the rest to do afterwards). Used by the isolation and
 * interruption tests; never set it otherwise. */
#define PC_RUN_FAULT_ENV "PRECHECK_TEST_FAULT"

#endif
