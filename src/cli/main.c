/*
 * precheck's command line: subcommand dispatch and the commands that are not a pipeline of
 * their own. Exit codes: 0 success, 1 a failure while working, 2 a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "precheck/core/convert.h"
#include "precheck/core/dtype.h"
#include "precheck/core/log.h"
#include "precheck/core/threads.h"

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_command;

static int cmd_dtypes(int argc, char **argv);

static const cli_command commands[] = {
    {"api_precision_compare", "judge NPU run_ut details against GPU ones (msprobe's standards)",
     pc_cli_api_precision_compare},
    {"check_dump", "check that an msprobe dump and its tensor files are readable and agree",
     pc_cli_check_dump},
    {"compare", "the details row run_ut writes for one bench/device tensor pair", pc_cli_compare},
    {"dtypes", "print the dtype table with msprobe's per-dtype thresholds", cmd_dtypes},
    {"materialize", "save the inputs run_ut generates for a statistics dump as a tensor dump",
     pc_cli_materialize},
    {"multi_run_ut", "run_ut with N worker processes (the same CSVs, row for row)",
     pc_cli_multi_run_ut},
    {"ops", "list the API names precheck runs: op, standard, backward", pc_cli_ops},
    {"report", "one self-contained HTML page of a run_ut or api_precision_compare folder",
     pc_cli_report},
    {"run_ut", "replay a dump's APIs on the device and the bench, write the accuracy CSVs",
     pc_cli_run_ut},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static void print_usage(FILE *out)
{
    fprintf(out, "usage: precheck <command> [options]\n"
                 "       precheck --help | --version\n\n"
                 "precheck replays the PyTorch API calls of an msprobe dump and checks their "
                 "accuracy.\n\ncommands:\n");
    for (int i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-22s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nmsprobe's spelling 'precheck -f pytorch <command> ...' is accepted too.\n"
                 "Run 'precheck <command> --help' for a command's options.\n");
}

static const char *fmt_pow2(char *buf, size_t size, double v)
{
    if (v == 0.0) {
        snprintf(buf, size, "-");
        return buf;
    }
    snprintf(buf, size, "%.10g", v);
    return buf;
}

static int cmd_dtypes(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: precheck dtypes\n\n"
                   "Prints every element type precheck knows: its torch name, size, float "
                   "format,\nand the thresholds msprobe's precision standards use for it as "
                   "the device dtype.\n");
            return 0;
        }
        fprintf(stderr, "precheck dtypes: unknown argument '%s' (try --help)\n", argv[i]);
        return 2;
    }
    printf("%-20s %4s %4s %-16s %-16s %-16s %-16s %-16s %s\n", "dtype", "size", "mant", "eps",
           "small_value", "rtol", "atol(abs)", "atol(bench)", "min_error");
    for (int d = 0; d < PC_DTYPE_COUNT; d++) {
        const pc_dtype_traits *t = pc_dtype_traits_of((pc_dtype)d);
        const pc_msprobe_thresholds *th = t->thresholds;
        char eps[32], sv[32], rt[32], aa[32], ab[32], me[32];
        printf("%-20s %4zu %4d %-16s %-16s %-16s %-16s %-16s %s\n", t->torch_name, t->size,
               t->mantissa_bits, fmt_pow2(eps, sizeof eps, t->eps),
               fmt_pow2(sv, sizeof sv, th->small_value), fmt_pow2(rt, sizeof rt, th->rtol),
               fmt_pow2(aa, sizeof aa, th->small_value_atol_abs),
               fmt_pow2(ab, sizeof ab, th->small_value_atol_bench),
               fmt_pow2(me, sizeof me, th->min_error));
    }
    printf("\nconversion kernels: %s\n",
           pc_convert_isa() == PC_ISA_AVX2_F16C ? "AVX2+F16C" : "portable C");
    return 0;
}

int main(int argc, char **argv)
{
    /* the commands that run kernels: OpenMP and OpenBLAS share the cores (threads.h) */
    for (int i = 1; i < argc && i < 4; i++)
        if (strcmp(argv[i], "run_ut") == 0 || strcmp(argv[i], "multi_run_ut") == 0 ||
            strcmp(argv[i], "compare") == 0 || strcmp(argv[i], "materialize") == 0) {
            pc_threads_prefer_passive(argv);
            break;
        }
    pc_log_init_from_env();
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    /* msprobe's spelling: msprobe -f pytorch <command> ... */
    if (argc >= 3 && (strcmp(argv[1], "-f") == 0 || strcmp(argv[1], "--framework") == 0)) {
        if (strcmp(argv[2], "pytorch") != 0) {
            fprintf(stderr, "precheck: -f %s: only the pytorch framework is supported\n", argv[2]);
            return 2;
        }
        argc -= 2;
        argv += 2;
        if (argc < 2) {
            print_usage(stderr);
            return 2;
        }
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("precheck %s\n", PC_VERSION_STRING);
        return 0;
    }
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "precheck: unknown command '%s'\n\n", cmd);
    print_usage(stderr);
    return 2;
}
