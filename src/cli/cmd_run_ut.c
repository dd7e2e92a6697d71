/*
 * precheck run_ut / multi_run_ut: msprobe's flags (spec run_ut.md §1.2) plus precheck's long
 * options, then the runner.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "precheck/core/log.h"
#include "precheck/inputs/inputs.h"
#include "precheck/report/sink.h"
#include "precheck/runner/runner.h"

static void usage(FILE *out, bool multi)
{
    const char *cmd = multi ? "multi_run_ut" : "run_ut";
    fprintf(out,
            "usage: precheck %s -api_info DUMP_JSON [-o OUT_DIR] [-save_error_data] [-j]\n"
            "       %*s [-d ID [ID ...]] [-csv_path RESULT_CSV] [-f] [-config CONFIG_JSON]%s\n"
            "       %*s [--backend cpu|torch:DEVICE|replay|faulty:...] [--python PYTHON]\n"
            "       %*s [--bench msprobe|fp64] [--seed N] [--timeout S]\n"
            "       %*s [--jobs N] [--max-memory MB] [--config_yaml CONFIG_YAML] [--no-progress]\n"
            "       %*s [--bench-cache DIR]\n\n",
            cmd, (int)strlen(cmd), "", multi ? " [-n N]" : "", (int)strlen(cmd), "",
            (int)strlen(cmd), "", (int)strlen(cmd), "", (int)strlen(cmd), "");
    fprintf(out,
            "Replays every API of an msprobe dump on the device under test and on a "
            "high-precision\nCPU benchmark, compares outputs and input gradients, and writes "
            "accuracy_checking_result_<ts>.csv\nand accuracy_checking_details_<ts>.csv under "
            "OUT_DIR, as msprobe's %s does.\n\n",
            cmd);
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
    if (multi)
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
            "(default)\n"
            "  --max-memory MB              an API estimated to need more is a SKIP row instead "
            "of an\n"
            "                               out-of-memory kill (default: 90%% of the available "
            "memory)\n"
            "  --jobs N                     worker processes (run_ut default 1; 0 runs in this "
            "process\n"
            "                               without crash isolation)\n"
            "  --config_yaml FILE           msprobe's config.yaml (precision, lists, "
            "error_data_path);\n"
            "                               default: msprobe's defaults\n"
            "  --no-progress                no progress bar on stderr (nor, when stderr is "
            "not a terminal,\n"
            "                               the progress line in the log)\n"
            "  --fail-on error|warning      exit %d when an API has an error (warning: an "
            "error or a\n"
            "                               Warning): a CI gate (default off: msprobe's exit "
            "codes)\n"
            "  --progress-interval S        when stderr is not a terminal: a progress line in "
            "the log\n"
            "                               every S seconds (default 30)\n"
            "  --bench-cache DIR            keep the bench's results in DIR and reuse them where "
            "the op,\n"
            "                               its inputs and the bench policy are the same (the "
            "other\n"
            "                               machine's run on the same dump, a rerun); made if "
            "missing\n"
            "  -h, --help                   this help\n\n"
            "Exit status: 0 done, 1 failed (see the log), 2 usage error, 130 interrupted (the "
            "log says\nhow to resume with -csv_path). A crashing or hanging API does not stop "
            "the run: it gets\na SKIP row saying what happened.\n",
            PC_INPUTS_DEFAULT_SEED, PC_EXIT_FAILED_CHECK);
}

static int usage_error(bool multi, const char *fmt, const char *arg)
{
    fprintf(stderr, "precheck %s: error: ", multi ? "multi_run_ut" : "run_ut");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n");
    usage(stderr, multi);
    return 2;
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

static bool is(const char *a, const char *x, const char *y)
{
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

static int run(int argc, char **argv, bool multi)
{
    pc_run_options o = {
        .backend = "cpu",
        .bench_policy = "msprobe",
        .seed = PC_INPUTS_DEFAULT_SEED,
        .workers = 1,
        .progress = true,
    };
    long long num_splits = 8;
    bool jobs_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (is(a, "-h", "--help")) {
            usage(stdout, multi);
            return 0;
        }
        if (is(a, "-save_error_data", NULL)) {
            o.save_error_data = true;
        } else if (is(a, "-j", "--jit_compile")) {
            o.jit_compile = true; /* NPU only */
        } else if (is(a, "-f", "--filter_api")) {
            o.filter_api = true;
        } else if (is(a, "--no-progress", NULL)) {
            o.progress = false;
        } else if (is(a, "-d", "--device")) {
            int n = 0;
            while (i + 1 < argc &&
                   (argv[i + 1][0] != '-' || (argv[i + 1][1] >= '0' && argv[i + 1][1] <= '9'))) {
                long long id;
                if (!parse_long(argv[i + 1], &id))
                    return usage_error(multi, "argument -d/--device: invalid int value: '%s'",
                                       argv[i + 1]);
                if (id < 0)
                    return usage_error(multi, "%s", "device id must be greater than or equal to 0");
                for (int k = 0; k < n; k++)
                    if (o.device_ids[k] == id)
                        return usage_error(multi, "%s", "device id must be unique");
                if (n == PC_RUN_MAX_DEVICES)
                    return usage_error(multi, "%s", "too many device ids");
                o.device_ids[n++] = (int)id;
                i++;
            }
            if (n == 0)
                return usage_error(multi, "%s",
                                   "argument -d/--device: expected at least one argument");
            o.device_count = n;
        } else if (!v) {
            return usage_error(multi, "unrecognized or incomplete argument: %s", a);
        } else if (is(a, "-api_info", "--api_info_file")) {
            o.api_info = v, i++;
        } else if (is(a, "-o", "--out_path")) {
            o.out_path = v, i++;
        } else if (is(a, "-csv_path", "--result_csv_path")) {
            o.csv_path = v, i++;
        } else if (is(a, "-config", "--config_path")) {
            o.config_path = v, i++;
        } else if (is(a, "--config_yaml", NULL)) {
            o.config_yaml = v, i++;
        } else if (is(a, "--backend", NULL)) {
            o.backend = v, i++;
        } else if (is(a, "--python", NULL)) {
            if (!*v)
                return usage_error(multi, "%s", "argument --python: expected an interpreter");
            o.python = v, i++;
        } else if (is(a, "--bench", NULL)) {
            if (strcmp(v, "msprobe") != 0 && strcmp(v, "fp64") != 0)
                return usage_error(multi,
                                   "argument --bench: invalid choice: '%s' (choose from "
                                   "'msprobe', 'fp64')",
                                   v);
            o.bench_policy = v, i++;
        } else if (is(a, "--seed", NULL)) {
            long long x;
            if (!parse_long(v, &x) || x < 0)
                return usage_error(multi, "argument --seed: invalid value: '%s'", v);
            o.seed = (uint64_t)x, i++;
        } else if (is(a, "--timeout", NULL)) {
            char *end;
            double t = strtod(v, &end);
            if (end == v || *end || !(t >= 0))
                return usage_error(multi, "argument --timeout: invalid value: '%s'", v);
            o.timeout_s = t, i++;
        } else if (is(a, "--bench-cache", NULL)) {
            if (!*v)
                return usage_error(multi, "%s", "argument --bench-cache: expected a directory");
            o.bench_cache = v, i++;
        } else if (is(a, "--fail-on", NULL)) {
            if (strcmp(v, "error") == 0)
                o.fail_on = PC_FAIL_ERROR;
            else if (strcmp(v, "warning") == 0)
                o.fail_on = PC_FAIL_WARNING;
            else
                return usage_error(multi,
                                   "argument --fail-on: invalid choice: '%s' (choose from "
                                   "'error', 'warning')",
                                   v);
            i++;
        } else if (is(a, "--progress-interval", NULL)) {
            char *end;
            double t = strtod(v, &end);
            if (end == v || *end || !(t > 0))
                return usage_error(multi, "argument --progress-interval: invalid value: '%s'", v);
            o.progress_interval_s = t, i++;
        } else if (is(a, "--max-memory", NULL)) {
            char *end;
            double mb = strtod(v, &end);
            if (end == v || *end || !(mb > 0))
                return usage_error(multi, "argument --max-memory: invalid value: '%s' (MB > 0)", v);
            o.max_memory_mb = mb, i++;
        } else if (is(a, "--jobs", NULL)) {
            long long x;
            if (!parse_long(v, &x) || x < 0 || x > PC_RUN_MAX_WORKERS)
                return usage_error(multi, "argument --jobs: invalid value: '%s' (0..64)", v);
            o.workers = (int)x, jobs_given = true, i++;
        } else if (multi && is(a, "-n", "--num_splits")) {
            if (!parse_long(v, &num_splits) || num_splits < 1 || num_splits > 64)
                return usage_error(multi,
                                   "argument -n/--num_splits: invalid choice: '%s' "
                                   "(choose from 1 to 64)",
                                   v);
            i++;
        } else {
            return usage_error(multi, "unrecognized arguments: %s", a);
        }
    }
    /* a real device: one worker per -d id, as msprobe's multi_run_ut gives each its own */
    if (!multi && !jobs_given && o.device_count > 1 && strncmp(o.backend, "torch:", 6) == 0)
        o.workers = o.device_count;
    o.argc = argc;
    o.argv = argv;
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
