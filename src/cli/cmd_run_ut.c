/*
 * precheck run_ut / multi_run_ut: msprobe's flags (docs/msprobe-contract.md#command-line) plus
 * precheck's long options, then the runner.
 */
#include <errno.h>
#include <limits.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/backends/backend.h"
#include "precheck/core/log.h"
#include "precheck/inputs/inputs.h"
#include "precheck/report/sink.h"
#include "precheck/runner/runner.h"

/* What the usage and help texts need: the name the command was called by (run_ut, or msprobe's
 * newer acc_check) and whether it is the multi-process one. */
typedef struct command_info {
    const char *name;
    bool multi;
} command_info;

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    const command_info *c = cmd->data;
    int w = (int)strlen(c->name);
    fprintf(out,
            "usage: precheck %s -api_info DUMP_JSON [-o OUT_DIR] [-save_error_data] [-j]\n"
            "       %*s [-d ID [ID ...]] [-csv_path RESULT_CSV] [-f] [-config CONFIG_JSON]%s\n"
            "       %*s [--backend cpu|torch:DEVICE|replay|faulty:...] [--python PYTHON]\n"
            "       %*s [--bench msprobe|fp64] [--seed N] [--timeout S]\n"
            "       %*s [--jobs N] [--max-memory MB] [--config_yaml CONFIG_YAML] [--no-progress]\n"
            "       %*s [--bench-cache DIR] [--bench-cache-max SIZE] [--fail-on error|warning]\n"
            "       %*s [--progress-interval S] [--shard K/N] [--junit FILE]\n"
            "       %*s --resume DIR\n",
            c->name, w, "", c->multi ? " [-n N]" : "", w, "", w, "", w, "", w, "", w, "", w, "");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    const command_info *c = cmd->data;
    print_usage(out, cmd);
    fprintf(out,
            "\nReplays every API of an msprobe dump on the device under test and on a "
            "high-precision\nCPU benchmark, compares outputs and input gradients, and writes "
            "accuracy_checking_result_<ts>.csv\nand accuracy_checking_details_<ts>.csv under "
            "OUT_DIR, as msprobe's %s does.\n\n",
            c->multi ? "multi_run_ut" : "run_ut");
    fprintf(out,
            "msprobe's options:\n"
            "  -api_info, --api_info_file DUMP_JSON  the dump.json to replay\n"
            "  -o, --out_path DIR           where the CSVs go (default ./; created)\n"
            "  -save_error_data             save the tensors of APIs that did not pass (.pt) "
            "under\n"
            "                               <error_data_path>/ut_error_data<ts>\n"
            "  -j, --jit_compile            NPU compile mode (--backend torch:npu; no effect "
            "elsewhere)\n"
            "  -d, --device ID [ID ...]     device ids (>= 0, unique); with --backend torch:cuda "
            "or npu,\n"
            "                               one worker per id (the cpu backend uses the first)\n"
            "  -csv_path, --result_csv_path RESULT_CSV\n"
            "                               resume an interrupted run: skip the APIs already in "
            "it,\n"
            "                               append to it and to its details file\n"
            "  -f, --filter_api             run only one of near-identical calls of an API\n"
            "  -config, --config_path CONFIG_JSON\n"
            "                               white_list/black_list/error_data_path from a msprobe "
            "config.json\n");
    if (c->multi)
        fprintf(out, "  -n, --num_splits N           worker processes, 1..64 (default 8; at most "
                     "8 per device id)\n");
    fprintf(out,
            "\nprecheck's options:\n"
            "  --backend NAME               the device under test: cpu (the reference device, "
            "default),\n"
            "                               or torch:DEVICE[:N][,threads=N] (each API through "
            "PyTorch on\n"
            "                               DEVICE cpu, cuda or npu: the real device, see "
            "docs/devices.md),\n"
            "                               or replay (the results the device recorded in a "
            "tensor-mode\n"
            "                               dump: its output and gradient files; only the bench "
            "runs),\n"
            "                               or faulty:FAULT:OP[,FAULT:OP...] (the reference "
            "device with\n"
            "                               accuracy faults injected, see docs/RELIABILITY.md)\n"
            "  --python PYTHON              the interpreter whose PyTorch --backend torch uses "
            "(default:\n"
            "                               python3 on PATH); it needs a shared libpython\n"
            "  --bench msprobe|fp64         bench precision: msprobe's raising rule (default) or "
            "all float64\n"
            "  --seed N                     seed of the generated inputs (default %d); inputs "
            "depend only on\n"
            "                               (seed, API, argument), never on order or workers\n"
            "  --timeout S                  give up an API after S seconds (SKIP row), 0 = never "
            "(default);\n"
            "                               time the run was stopped (SIGSTOP, ^Z) does not count\n"
            "  --max-memory MB              an API estimated to need more is a SKIP row instead "
            "of an\n"
            "                               out-of-memory kill (default: 90%% of the available "
            "memory)\n"
            "  --jobs N                     worker processes; 0 runs in this process without "
            "crash\n"
            "                               isolation (run_ut default: one per core, or one when "
            "a single\n"
            "                               API dominates the dump or memory is short; the CSVs "
            "are the same)\n"
            "  --config_yaml FILE           msprobe's config.yaml (precision, lists, "
            "error_data_path);\n"
            "                               default: msprobe's defaults\n"
            "  --no-progress                no progress bar on stderr (nor, when stderr is "
            "not a terminal,\n"
            "                               the progress line in the log)\n"
            "  --progress-interval S        when stderr is not a terminal: a progress line in "
            "the log\n"
            "                               every S seconds (default 30)\n"
            "  --fail-on error|warning      exit %d when an API has an error (warning: an "
            "error or a\n"
            "                               Warning): a CI gate (default off: msprobe's exit "
            "codes)\n"
            "  --bench-cache DIR            keep the bench's results in DIR and reuse them where "
            "the op,\n"
            "                               its inputs and the bench policy are the same (the "
            "other\n"
            "                               machine's run on the same dump, a rerun); made if "
            "missing\n"
            "  --bench-cache-max SIZE       after the run, delete the least recently used "
            "entries\n"
            "                               until DIR holds at most SIZE (e.g. 20G; K, M, G, T "
            "are\n"
            "                               powers of 1024)\n"
            "  --shard K/N                  only shard K (1..N) of a cost-balanced split of the "
            "dump's\n"
            "                               APIs (the same on every machine); precheck merge "
            "joins the\n"
            "                               shards' folders into the CSVs one run writes\n"
            "  --junit FILE                 also write the run's JUnit XML (one testcase per "
            "API: error\n"
            "                               a failure with its metric and limit, SKIP skipped "
            "with the\n"
            "                               reason; replaced if there) for Jenkins and GitLab\n"
            "  --resume DIR                 resume the newest unfinished run in DIR (its result "
            "CSV lacks\n"
            "                               APIs its record plans) with the options it was "
            "started with,\n"
            "                               from the folder it was started in (alone: no other "
            "option)\n"
            "  -h, --help                   this help\n\n"
            "Options are spelled as msprobe's argparse takes them: --out_path=DIR, -oDIR, "
            "-d0,\n"
            "and any unambiguous prefix of a long option (--api_info, --out).\n\n"
            "Exit status: 0 done, 1 failed (see the log), 2 usage error, %d with --fail-on when "
            "an API\nfailed it, 130 interrupted (the log says how to resume with -csv_path). A "
            "crashing or\nhanging API does not stop the run: it gets a SKIP row saying what "
            "happened.\n\n"
            "Many machines: mpirun -np N precheck %s ... shares one run among N ranks (each\n"
            "with its own workers and, with --backend torch, its own device); rank 0 writes the\n"
            "CSVs one run writes (a build with MPI; docs/run_ut.md).\n",
            PC_INPUTS_DEFAULT_SEED, PC_EXIT_FAILED_CHECK, PC_EXIT_FAILED_CHECK, c->name);
}

static bool parse_long(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end)
        return false;
    *out = v;
    return true;
}

/* A size: digits, optionally one of K, M, G, T (powers of 1024; a trailing B or iB is allowed:
 * 20G, 20GB, 20GiB). */
static bool parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return false;
    int shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    case 't':
    case 'T':
        shift = 40;
        break;
    default:
        break;
    }
    if (shift)
        end++;
    if (shift && *end == 'i')
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

/* What the options give, before the run is set up from it. */
typedef struct run_args {
    pc_run_options o;
    long long num_splits;
    bool jobs_given;
    const char *resume_dir; /* --resume DIR */
    int others;             /* options other than --resume */
} run_args;

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    run_args *a = ctx;
    pc_run_options *o = &a->o;
    const char *v = count ? values[0] : NULL;
    a->others += id != PC_FLAG_RESUME;
    switch ((pc_flag)id) {
    case PC_FLAG_API_INFO:
        o->api_info = v;
        break;
    case PC_FLAG_OUT_PATH:
        o->out_path = v;
        break;
    case PC_FLAG_SAVE_ERROR_DATA:
        o->save_error_data = true;
        break;
    case PC_FLAG_JIT_COMPILE:
        o->jit_compile = true; /* NPU only */
        break;
    case PC_FLAG_DEVICE: {
        /* msprobe's -d: each value an int (argparse converts them all first), then its action
         * checks that none is there twice and none is negative; the last -d counts */
        long long ids[PC_RUN_MAX_DEVICES];
        if (count > PC_RUN_MAX_DEVICES)
            return pc_args_usage_error(cmd, "too many device ids");
        for (int k = 0; k < count; k++)
            if (!parse_long(values[k], &ids[k]))
                return pc_args_usage_error(cmd, "argument -d/--device: invalid int value: '%s'",
                                           values[k]);
        for (int k = 0; k < count; k++)
            for (int j = 0; j < k; j++)
                if (ids[j] == ids[k])
                    return pc_args_usage_error(cmd, "device id must be unique");
        for (int k = 0; k < count; k++) {
            if (ids[k] < 0)
                return pc_args_usage_error(cmd, "device id must be greater than or equal to 0");
            if (ids[k] > INT_MAX)
                return pc_args_usage_error(cmd, "argument -d/--device: invalid int value: '%s'",
                                           values[k]);
            o->device_ids[k] = (int)ids[k];
        }
        o->device_count = count;
        break;
    }
    case PC_FLAG_RESULT_CSV_PATH:
        o->csv_path = v;
        break;
    case PC_FLAG_FILTER_API:
        o->filter_api = true;
        break;
    case PC_FLAG_CONFIG_PATH:
        o->config_path = v;
        break;
    case PC_FLAG_NUM_SPLITS:
        if (!parse_long(v, &a->num_splits))
            return pc_args_usage_error(cmd, "argument -n/--num_splits: invalid int value: '%s'", v);
        if (a->num_splits < 1 || a->num_splits > 64)
            return pc_args_usage_error(cmd,
                                       "argument -n/--num_splits: invalid choice: '%s' "
                                       "(choose from 1 to 64)",
                                       v);
        break;
    case PC_FLAG_CONFIG_YAML:
        o->config_yaml = v;
        break;
    case PC_FLAG_BACKEND:
        /* an unknown name is a usage error now; its options are the backend's to judge */
        if (!pc_backend_name_known(v)) {
            char choices[256];
            pc_backend_choices(choices, sizeof choices);
            const char *meant = pc_backend_suggest(v);
            return pc_args_usage_error(
                cmd, "argument --backend: invalid choice: '%s' (choose from %s)%s%s%s", v, choices,
                meant ? "; did you mean " : "", meant ? meant : "", meant ? "?" : "");
        }
        o->backend = v;
        break;
    case PC_FLAG_PYTHON:
        if (!*v)
            return pc_args_usage_error(cmd, "argument --python: expected an interpreter");
        o->python = v;
        break;
    case PC_FLAG_BENCH:
        if (strcmp(v, "msprobe") != 0 && strcmp(v, "fp64") != 0)
            return pc_args_usage_error(cmd,
                                       "argument --bench: invalid choice: '%s' (choose from "
                                       "'msprobe', 'fp64')",
                                       v);
        o->bench_policy = v;
        break;
    case PC_FLAG_SEED: {
        long long x;
        if (!parse_long(v, &x) || x < 0)
            return pc_args_usage_error(cmd, "argument --seed: invalid value: '%s'", v);
        o->seed = (uint64_t)x;
        break;
    }
    case PC_FLAG_TIMEOUT: {
        char *end;
        double t = strtod(v, &end);
        if (end == v || *end || !(t >= 0))
            return pc_args_usage_error(cmd, "argument --timeout: invalid value: '%s'", v);
        o->timeout_s = t;
        break;
    }
    case PC_FLAG_BENCH_CACHE:
        if (!*v)
            return pc_args_usage_error(cmd, "argument --bench-cache: expected a directory");
        o->bench_cache = v;
        break;
    case PC_FLAG_BENCH_CACHE_MAX:
        if (!parse_size(v, &o->bench_cache_max) || o->bench_cache_max == 0)
            return pc_args_usage_error(cmd,
                                       "argument --bench-cache-max: invalid value: '%s' (a size "
                                       "above 0: bytes, or a number with K, M, G or T, e.g. 20G)",
                                       v);
        break;
    case PC_FLAG_MAX_MEMORY: {
        char *end;
        double mb = strtod(v, &end);
        if (end == v || *end || !(mb > 0))
            return pc_args_usage_error(cmd, "argument --max-memory: invalid value: '%s' (MB > 0)",
                                       v);
        o->max_memory_mb = mb;
        break;
    }
    case PC_FLAG_JOBS: {
        long long x;
        if (!parse_long(v, &x) || x < 0 || x > PC_RUN_MAX_WORKERS)
            return pc_args_usage_error(cmd, "argument --jobs: invalid value: '%s' (0..64)", v);
        o->workers = (int)x;
        a->jobs_given = true;
        break;
    }
    case PC_FLAG_NO_PROGRESS:
        o->progress = false;
        break;
    case PC_FLAG_PROGRESS_INTERVAL: {
        char *end;
        double t = strtod(v, &end);
        if (end == v || *end || !(t > 0))
            return pc_args_usage_error(cmd, "argument --progress-interval: invalid value: '%s'", v);
        o->progress_interval_s = t;
        break;
    }
    case PC_FLAG_SHARD: {
        unsigned k = 0, n = 0;
        int used = 0;
        if (sscanf(v, "%u/%u%n", &k, &n, &used) != 2 || v[used] || !isdigit((unsigned char)*v) ||
            n < 1 || n > 100000)
            return pc_args_usage_error(cmd,
                                       "argument --shard: invalid value: '%s' (K/N: shard K of "
                                       "N, e.g. 1/4)",
                                       v);
        if (k < 1 || k > n)
            return pc_args_usage_error(cmd,
                                       "argument --shard: shard %u of %u: shards are numbered 1 to "
                                       "%u (a 0-based array index, such as Slurm's "
                                       "SLURM_ARRAY_TASK_ID from 0: --shard $((ID + 1))/%u)",
                                       k, n, n, n);
        o->shard_index = k;
        o->shard_count = n;
        break;
    }
    case PC_FLAG_RESUME:
        if (!*v)
            return pc_args_usage_error(cmd, "argument --resume: expected a directory");
        a->resume_dir = v;
        break;
    case PC_FLAG_JUNIT:
        o->junit = v;
        break;
    case PC_FLAG_FAIL_ON:
        if (strcmp(v, "error") == 0)
            o->fail_on = PC_FAIL_ERROR;
        else if (strcmp(v, "warning") == 0)
            o->fail_on = PC_FAIL_WARNING;
        else
            return pc_args_usage_error(cmd,
                                       "argument --fail-on: invalid choice: '%s' (choose from "
                                       "'error', 'warning')",
                                       v);
        break;
    default:
        break;
    }
    return PC_ARGS_RUN;
}

static const int run_ut_flags[] = {
    PC_FLAG_HELP,
    PC_FLAG_API_INFO,
    PC_FLAG_OUT_PATH,
    PC_FLAG_SAVE_ERROR_DATA,
    PC_FLAG_JIT_COMPILE,
    PC_FLAG_DEVICE,
    PC_FLAG_RESULT_CSV_PATH,
    PC_FLAG_FILTER_API,
    PC_FLAG_CONFIG_PATH,
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
    PC_FLAG_JUNIT,
    -1,
};
/* multi_run_ut's: run_ut's with msprobe's -n after -config (derived, so that a flag added to
 * run_ut is multi_run_ut's too) */
static const int *multi_run_ut_flags(void)
{
    static int flags[sizeof run_ut_flags / sizeof run_ut_flags[0] + 1];
    static bool made;
    if (!made) {
        made = true;
        size_t n = 0;
        for (size_t i = 0; i < sizeof run_ut_flags / sizeof run_ut_flags[0]; i++) {
            flags[n++] = run_ut_flags[i];
            if (run_ut_flags[i] == PC_FLAG_CONFIG_PATH)
                flags[n++] = PC_FLAG_NUM_SPLITS;
        }
    }
    return flags;
}

static int run(int argc, char **argv, bool multi)
{
    command_info info = {argv[0], multi};
    char prog[64];
    snprintf(prog, sizeof prog, "precheck %s", argv[0]);
    pc_args_command cmd = {
        .prog = prog,
        .table = pc_flags,
        .options = multi ? multi_run_ut_flags() : run_ut_flags,
        .print_usage = print_usage,
        .print_help = print_help,
        .data = &info,
    };
    run_args a = {
        .o =
            {
                .backend = "cpu",
                .bench_policy = "msprobe",
                .seed = PC_INPUTS_DEFAULT_SEED,
                .workers = 1,
                .progress = true,
            },
        .num_splits = 8,
    };
    int rc = pc_args_parse(&cmd, argc, argv, take, &a, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    /* --resume DIR: the newest unfinished run there, with the options it was started with */
    if (a.resume_dir && a.others > 0)
        return pc_args_usage_error(&cmd, "argument --resume: not allowed with other arguments "
                                         "(the run is resumed with the options it was started "
                                         "with, from its record)");
    if (a.resume_dir)
        return pc_run_resume_dir(a.resume_dir);
    pc_run_options o = a.o;
    long long num_splits = a.num_splits;
    bool jobs_given = a.jobs_given;
    /* a real device: one worker per -d id, as msprobe's multi_run_ut gives each its own */
    if (!multi && !jobs_given && o.device_count > 1 && strncmp(o.backend, "torch:", 6) == 0)
        o.workers = o.device_count;
    /* the reference device (faulty is one too) or replay: as many workers as the dump can use
     * (run_ut.c) */
    if (!multi && !jobs_given && strncmp(o.backend, "torch:", 6) != 0)
        o.workers_auto = true;
    if (multi) {
        o.multi = true;
        int devices = o.device_count ? o.device_count : 1;
        if (num_splits > 8 * devices) {
            pc_log_warning("A device supports a maximum of 8 processes. The total number of "
                           "processes exceeds the limit, and it is set to %d.",
                           8 * devices);
            num_splits = 8 * devices;
        }
        if (!jobs_given)
            o.workers = (int)num_splits;
    }
    o.argc = argc;
    o.argv = argv;
    return pc_run_ut(&o);
}

int pc_cli_run_ut(int argc, char **argv)
{
    return run(argc, argv, false);
}

int pc_cli_multi_run_ut(int argc, char **argv)
{
    return run(argc, argv, true);
}
