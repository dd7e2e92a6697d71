/*
 * precheck run_overflow_check: msprobe's flags (spec run_ut.md §1.3: -api_info, -j VALUE, -d
 * ID) plus precheck's --backend, --python and --seed, then the runner.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "precheck/inputs/inputs.h"
#include "precheck/runner/runner.h"

#define CMD "run_overflow_check"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: precheck " CMD " -api_info DUMP_JSON [-j VALUE] [-d ID]\n"
            "       %*s [--backend cpu|torch:DEVICE|faulty:...] [--python PYTHON] [--seed N]\n\n"
            "Runs the forward of every API of an msprobe dump on precheck's reference device in "
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
            (int)strlen(CMD), "", PC_INPUTS_DEFAULT_SEED);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "precheck " CMD ": error: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n");
    usage(stderr);
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

/* argparse takes the next word as an option's value unless it looks like an option ("-x"; a
 * negative number such as "-1" is a value). */
static const char *value_of(int argc, char **argv, int i)
{
    if (i + 1 >= argc)
        return NULL;
    const char *v = argv[i + 1];
    if (v[0] == '-' && v[1] && !(v[1] >= '0' && v[1] <= '9') && v[1] != '.')
        return NULL;
    return v;
}

static bool is(const char *a, const char *x, const char *y)
{
    return strcmp(a, x) == 0 || (y && strcmp(a, y) == 0);
}

/* The flag as argparse names it in messages, NULL for an unknown one (all take a value). */
static const char *flag_name(const char *a)
{
    static const char *const flags[][3] = {
        {"-api_info", "--api_info_file", "-api_info/--api_info_file"},
        {"-j", "--jit_compile", "-j/--jit_compile"},
        {"-d", "--device", "-d/--device"},
        {"--backend", "--backend", "--backend"},
        {"--python", "--python", "--python"},
        {"--seed", "--seed", "--seed"},
    };
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (is(a, flags[k][0], flags[k][1]))
            return flags[k][2];
    return NULL;
}

int pc_cli_run_overflow_check(int argc, char **argv)
{
    pc_overflow_options o = {.seed = PC_INPUTS_DEFAULT_SEED, .progress = true};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is(a, "-h", "--help")) {
            usage(stdout);
            return 0;
        }
        const char *flag = flag_name(a);
        if (!flag)
            return usage_error("unrecognized arguments: %s", a);
        const char *v = value_of(argc, argv, i++);
        if (!v)
            return usage_error("argument %s: expected one argument", flag);
        long long x;
        if (is(a, "-api_info", "--api_info_file")) {
            o.api_info = v;
        } else if (is(a, "-j", "--jit_compile")) {
            o.jit_compile = true; /* msprobe passes the string on: any value is true */
        } else if (is(a, "-d", "--device")) {
            if (!parse_long(v, &x) || x < -2147483647 || x > 2147483647)
                return usage_error("argument -d/--device: invalid int value: '%s'", v);
            o.device_id = (int)x;
        } else if (is(a, "--backend", NULL)) {
            o.backend = v;
        } else if (is(a, "--python", NULL)) {
            if (!*v)
                return usage_error("%s", "argument --python: expected an interpreter");
            o.python = v;
        } else {
            if (!parse_long(v, &x) || x < 0)
                return usage_error("argument --seed: invalid value: '%s'", v);
            o.seed = (uint64_t)x;
        }
    }
    if (!o.api_info)
        return usage_error("%s", "the following arguments are required: -api_info/--api_info_file");
    return pc_run_overflow_check(&o);
}
