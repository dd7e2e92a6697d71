/*
 * precheck run_overflow_check: msprobe's flags (docs/msprobe-contract.md#command-line: -api_info,
 * -j VALUE, -d ID) plus precheck's --backend, --python and --seed, then the runner.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/inputs/inputs.h"
#include "precheck/runner/runner.h"

#define CMD "run_overflow_check"

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out,
            "usage: precheck " CMD " -api_info DUMP_JSON [-j VALUE] [-d ID]\n"
            "       %*s [--backend cpu|torch:DEVICE|faulty:...] [--python PYTHON] [--seed N]\n",
            (int)strlen(CMD), "");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out,
            "\nRuns the forward of every API of an msprobe dump on precheck's reference device in "
            "the\ndumped dtypes and on the device under test, and says per API whether the "
            "overflow\n(inf or NaN in the outputs) agrees, as msprobe's " CMD " does: log lines "
            "only,\nno files.\n\n"
            "msprobe's options:\n"
            "  -api_info, --api_info_file DUMP_JSON  the dump.json (required)\n"
            "  -j, --jit_compile VALUE      NPU compile mode on (any value, as msprobe; "
            "--backend torch:npu)\n"
            "  -d, --device ID              the device id (default 0)\n\n"
            "precheck's options:\n"
            "  --backend NAME               the device under test: cpu (the reference device "
            "itself,\n"
            "                               default: whether the inputs alone overflow), "
            "torch:DEVICE[:N]\n"
            "                               (each API through PyTorch on cpu, cuda or npu), or "
            "faulty:FAULT:OP\n"
            "  --python PYTHON              the interpreter whose PyTorch --backend torch uses "
            "(default:\n"
            "                               python3 on PATH)\n"
            "  --seed N                     seed of the generated inputs (default %d)\n"
            "  -h, --help                   this help\n\n"
            "Exit status: 0 it ran (whatever it found), 1 failed (see the log), 2 usage error.\n",
            PC_INPUTS_DEFAULT_SEED);
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

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    pc_overflow_options *o = ctx;
    const char *v = count ? values[0] : "";
    long long x;
    switch ((pc_flag)id) {
    case PC_FLAG_API_INFO:
        o->api_info = v;
        break;
    case PC_FLAG_JIT_COMPILE_VALUE:
        o->jit_compile = true; /* msprobe passes the string on: any value is true */
        break;
    case PC_FLAG_DEVICE_ONE:
        if (!parse_long(v, &x) || x < -2147483647 || x > 2147483647)
            return pc_args_usage_error(cmd, "argument -d/--device: invalid int value: '%s'", v);
        o->device_id = (int)x;
        break;
    case PC_FLAG_BACKEND:
        o->backend = v;
        break;
    case PC_FLAG_PYTHON:
        if (!*v)
            return pc_args_usage_error(cmd, "argument --python: expected an interpreter");
        o->python = v;
        break;
    case PC_FLAG_SEED:
        if (!parse_long(v, &x) || x < 0)
            return pc_args_usage_error(cmd, "argument --seed: invalid value: '%s'", v);
        o->seed = (uint64_t)x;
        break;
    default:
        break;
    }
    return PC_ARGS_RUN;
}

/* msprobe's _run_overflow_check_parser: -api_info required, -j with a value, one -d */
static const pc_args_command command = {
    .prog = "precheck " CMD,
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_API_INFO, PC_FLAG_JIT_COMPILE_VALUE,
                             PC_FLAG_DEVICE_ONE, PC_FLAG_BACKEND, PC_FLAG_PYTHON, PC_FLAG_SEED, -1},
    .required = (const int[]){PC_FLAG_API_INFO, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

int pc_cli_run_overflow_check(int argc, char **argv)
{
    pc_overflow_options o = {.seed = PC_INPUTS_DEFAULT_SEED, .progress = true};
    int rc = pc_args_parse(&command, argc, argv, take, &o, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    return pc_run_overflow_check(&o);
}
