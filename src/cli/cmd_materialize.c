/*
 * precheck materialize: writes a tensor-mode copy of a statistics-mode dump whose input files
 * hold the tensors run_ut generates for it (inputs/materialize.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/core/log.h"
#include "precheck/inputs/inputs.h"
#include "precheck/inputs/materialize.h"
#include "precheck/io/path_check.h"

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck materialize -api_info DUMP_JSON -o OUT_DIR [--seed N]\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out,
            "\nWrites OUT_DIR/dump.json and OUT_DIR/dump_tensor_data/*.pt: the dump with every "
            "input tensor\nthat run_ut generates from statistics saved as a file, named as "
            "msprobe names them\n(Functional.linear.0.forward.input.0.pt, "
            "...forward.kwargs.<key>.pt, ...backward.input.0.pt).\nrun_ut on OUT_DIR/dump.json "
            "computes with exactly the inputs run_ut --seed N generates for\nDUMP_JSON, on any "
            "machine and with msprobe's own run_ut too.\n\n"
            "Filled: forward input_args and input_kwargs (through lists) and the backward "
            "record's input.\nForward and backward outputs stay statistics-only records "
            "(run_ut does not read them),\nand so does a record whose tensor cannot be generated "
            "(a WARNING says why; run_ut meets\nthe same failure). Statistics of filled records "
            "are recomputed from the written data.\nRecords that already name a file are kept, "
            "and their files copied.\n\n"
            "options:\n"
            "  -api_info, --api_info_file DUMP_JSON\n"
            "                                    the dump.json to materialise\n"
            "  -o, --out_path OUT_DIR            where the new dump goes (created; must not hold "
            "a dump.json,\n"
            "                                    its dump_tensor_data must be empty)\n"
            "  --seed N                          the seed run_ut would use (default %d, "
            "run_ut's default)\n"
            "  -h, --help                        this help\n\n"
            "Exit status: 0 written, 1 failed (see the log), 2 usage error.\n",
            PC_INPUTS_DEFAULT_SEED);
}

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    pc_materialize_options *o = ctx;
    const char *v = count ? values[0] : NULL; /* every option of materialize takes a value */
    if (id == PC_FLAG_API_INFO) {
        o->api_info = v;
    } else if (id == PC_FLAG_OUT_PATH) {
        o->out_dir = v;
    } else if (id == PC_FLAG_SEED) {
        char *end;
        errno = 0;
        long long x = strtoll(v, &end, 10);
        if (errno || end == v || *end || x < 0)
            return pc_args_usage_error(cmd, "argument --seed: invalid value: '%s'", v);
        o->seed = (uint64_t)x;
    }
    return PC_ARGS_RUN;
}

static const pc_args_command command = {
    .prog = "precheck materialize",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_API_INFO, PC_FLAG_OUT_PATH, PC_FLAG_SEED, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

int pc_cli_materialize(int argc, char **argv)
{
    pc_materialize_options o = {.seed = PC_INPUTS_DEFAULT_SEED,
                                .max_bytes = pc_inputs_default_max_bytes()};
    int rc = pc_args_parse(&command, argc, argv, take, &o, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    if (!o.api_info)
        return pc_args_usage_error(&command, "-api_info DUMP_JSON is required");
    if (!o.out_dir)
        return pc_args_usage_error(&command, "-o OUT_DIR is required");
    if (pc_path_check(o.api_info, PC_PATH_FILE, PC_PATH_READ, ".json", NULL, 0)) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_materialize_stats s;
    if (pc_materialize(&o, &s) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_log_info("%s/dump.json written: %zu input tensors generated (seed %llu), %zu tensor files "
                "copied from the input, %zu records kept as statistics, %llu bytes of tensor "
                "files",
                o.out_dir, s.generated, (unsigned long long)o.seed, s.copied, s.kept,
                (unsigned long long)s.bytes);
    return 0;
}
