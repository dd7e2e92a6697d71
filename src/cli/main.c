/*
 * precheck's command line: subcommand dispatch and the commands that are not a pipeline of
 * their own. Exit codes: 0 success, 1 a failure while working, 2 a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/core/convert.h"
#include "precheck/core/dtype.h"
#include "precheck/core/log.h"
#include "precheck/core/threads.h"
#include "pc_version.h"

typedef struct cli_command {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    bool kernels; /* it runs kernels: OpenMP and OpenBLAS share the cores (threads.h) */
} cli_command;

static int cmd_dtypes(int argc, char **argv);

static const cli_command commands[] = {
    {"acc_check", "msprobe's current name of run_ut", pc_cli_run_ut, true},
    {"api_precision_compare", "judge NPU run_ut details against GPU ones (msprobe's standards)",
     pc_cli_api_precision_compare, false},
    {"check_dump", "check that an msprobe dump and its tensor files are readable and agree",
     pc_cli_check_dump, false},
    {"compare", "the details row run_ut writes for one bench/device tensor pair", pc_cli_compare,
     true},
    {"diff", "what changed between two runs of one dump: newly failing, fixed, moved metrics",
     pc_cli_diff, false},
    {"dtypes", "print the dtype table with msprobe's per-dtype thresholds", cmd_dtypes, false},
    {"materialize", "save the inputs run_ut generates for a statistics dump as a tensor dump",
     pc_cli_materialize, true},
    {"merge", "join the folders of run_ut --shard K/N runs into the CSVs of one run", pc_cli_merge,
     false},
    {"multi_acc_check", "msprobe's current name of multi_run_ut", pc_cli_multi_run_ut, true},
    {"multi_run_ut", "run_ut with N worker processes (the same CSVs, row for row)",
     pc_cli_multi_run_ut, true},
    {"op_generate", "msprobe's op_generate: a standalone torch script that replays one API",
     pc_cli_op_generate, true},
    {"ops", "list the API names precheck runs: op, standard, backward", pc_cli_ops, false},
    {"report", "one self-contained HTML page of a run_ut or api_precision_compare folder",
     pc_cli_report, false},
    {"repro", "a bundle per failing API: its inputs, a torch script, this machine's rows",
     pc_cli_repro, true},
    {"run_overflow_check", "does an API's inf/NaN reproduce on the device? (log lines only)",
     pc_cli_run_overflow_check, true},
    {"run_ut", "replay a dump's APIs on the device and the bench, write the accuracy CSVs",
     pc_cli_run_ut, true},
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

static const cli_command *find_command(const char *name)
{
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck <command> [options]\n"
                 "       precheck --help | --version\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out, "\nprecheck replays the PyTorch API calls of an msprobe dump and checks their "
                 "accuracy.\n\ncommands:\n");
    for (int i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-22s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nmsprobe's spelling 'precheck -f pytorch <command> ...' is accepted too, and "
                 "so are\nmsprobe's spellings of options: --out_path=DIR, -oDIR, -d0, unique "
                 "prefixes (--out).\nRun 'precheck <command> --help' for a command's options.\n");
}

static int take_top(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    (void)count;
    if (id == PC_FLAG_VERSION) {
        printf("precheck %s (follows msprobe %s)\n", PC_VERSION_STRING, PC_MSPROBE_VERSION);
        return 0;
    }
    if (id == PC_FLAG_FRAMEWORK) {
        if (strcmp(values[0], "pytorch") != 0)
            return pc_args_usage_error(cmd,
                                       "argument -f/--framework: invalid choice: '%s' (only the "
                                       "pytorch framework is supported)",
                                       values[0]);
        *(bool *)ctx = true;
    }
    return PC_ARGS_RUN;
}

/* The top level: options before the command's name (msprobe's -f pytorch among them). */
static const pc_args_command top = {
    .prog = "precheck",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_FRAMEWORK, PC_FLAG_VERSION, -1},
    .print_usage = print_usage,
    .print_help = print_help,
    .stops_at_argument = true,
};

static void print_dtypes_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck dtypes\n");
}

static void print_dtypes_help(FILE *out, const pc_args_command *cmd)
{
    print_dtypes_usage(out, cmd);
    fprintf(out, "\nPrints every element type precheck knows: its torch name, size, float "
                 "format,\nand the thresholds msprobe's precision standards use for it as "
                 "the device dtype.\n");
}

static const pc_args_command dtypes_command = {
    .prog = "precheck dtypes",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, -1},
    .print_usage = print_dtypes_usage,
    .print_help = print_dtypes_help,
};

static int take_nothing(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    (void)ctx, (void)cmd, (void)id, (void)values, (void)count;
    return PC_ARGS_RUN;
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
    int rc = pc_args_parse(&dtypes_command, argc, argv, take_nothing, NULL, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
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

/*
 * Started with stdin, stdout or stderr closed (`>&-`, some launchers), the first file precheck
 * opens would take that number and log lines would land inside a result CSV or a summary: each
 * closed one of fds 0-2 is opened on /dev/null before anything else is opened. False when
 * /dev/null cannot be opened (nothing can safely be written then).
 */
static bool reserve_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int got = open("/dev/null", O_RDWR); /* the lowest free number: fd itself */
        if (got < 0)
            return false;
        if (got != fd) {
            int ok = dup2(got, fd);
            close(got);
            if (ok < 0)
                return false;
        }
    }
    return true;
}

int main(int argc, char **argv)
{
    if (!reserve_std_fds())
        return 1;
    /* the commands that run kernels: OpenMP and OpenBLAS share the cores, and fit an
     * address-space limit (threads.h) */
    bool kernels = false;
    for (int i = 1; i < argc && i < 4 && !kernels; i++) {
        const cli_command *c = find_command(argv[i]);
        kernels = c && c->kernels;
    }
    if (kernels)
        pc_threads_prefer_passive(argv);
    pc_log_init_from_env();
    if (kernels && pc_threads_check_limit() != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    if (kernels && pc_threads_cap() > 0)
        pc_log_info("The address space is limited to %zu MiB per process: each runs at most %d "
                    "thread(s) of matrix products (OpenBLAS reserves %zu MiB for each).",
                    pc_threads_address_limit() >> 20, pc_threads_cap(),
                    PC_THREADS_BLAS_BUFFER >> 20);
    bool framework = false;
    int next;
    int rc = pc_args_parse(&top, argc, argv, take_top, &framework, &next);
    if (rc != PC_ARGS_RUN)
        return rc;
    if (next == argc) {
        /* msprobe prints its help and exits 0 when it has fewer than 4 argv entries:
         * "msprobe -f pytorch" */
        if (framework) {
            print_help(stdout, &top);
            return 0;
        }
        print_help(stderr, &top);
        return 2;
    }
    const char *name = argv[next];
    if (strcmp(name, "help") == 0) {
        print_help(stdout, &top);
        return 0;
    }
    const cli_command *c = find_command(name);
    if (c)
        return c->run(argc - next, argv + next);
    fprintf(stderr, "precheck: unknown command '%s'\n\n", name);
    print_help(stderr, &top);
    return 2;
}
