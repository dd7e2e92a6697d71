/*
 * precheck merge DIR [DIR ...] [-o OUT] [-api_info DUMP]: the folders of run_ut --shard K/N
 * runs of one dump joined into the two CSVs one run_ut of the whole dump writes (runner.h,
 * pc_merge). Exit codes: 0 merged, 1 a failure (shards of different runs, a missing or
 * unfinished shard, I/O), 2 a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "precheck/runner/runner.h"

static const char usage[] = "usage: precheck merge [-h] DIR [DIR ...] [-o OUT] [-api_info DUMP]\n";

static void print_help(void)
{
    printf("%s\n"
           "Joins the output folders of `run_ut --shard K/N` runs of one dump (K = 1..N, run\n"
           "anywhere: a Slurm job array, Kubernetes Jobs, a shell loop) into the two CSVs that\n"
           "one run_ut of the whole dump writes, byte for byte, with their run record. The\n"
           "shards must be of one dump and the same settings, every shard given once and\n"
           "finished; merge names what is missing or different.\n"
           "\narguments:\n"
           "  DIR                   the -o folder of a shard's run (or its precheck_run_<ts>.json\n"
           "                        when the folder holds several runs)\n"
           "\noptions:\n"
           "  -h, --help            show this help message and exit\n"
           "  -o OUT, --out_path OUT\n"
           "                        where the merged CSVs go (default ./; made if missing)\n"
           "  -api_info DUMP, --api_info_file DUMP\n"
           "                        the dump, when it is no longer where the shards' records\n"
           "                        say (its content must be the same)\n"
           "\nexample:\n"
           "  for k in 1 2 3 4; do precheck run_ut -api_info dump.json --shard $k/4 -o s$k; done\n"
           "  precheck merge s1 s2 s3 s4 -o merged\n"
           "\nexit status: 0 merged, 1 failure, 2 usage error\n",
           usage);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%sprecheck merge: error: %s%s\n", usage, what, arg ? arg : "");
    return 2;
}

int pc_cli_merge(int argc, char **argv)
{
    pc_merge_options o = {.argc = argc, .argv = argv};
    const char **inputs = calloc((size_t)argc + 1, sizeof *inputs);
    if (!inputs)
        return 1;
    size_t n = 0;
    int rc = -1;
    for (int i = 1; i < argc && rc < 0; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_help();
            rc = 0;
            break;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--out_path") == 0 ||
                   strcmp(a, "--output") == 0) {
            dst = &o.out_path;
        } else if (strcmp(a, "-api_info") == 0 || strcmp(a, "--api_info_file") == 0) {
            dst = &o.api_info;
        } else if (a[0] == '-' && a[1]) {
            static const char *const names[] = {"--out_path", "--api_info_file", "--help", NULL};
            const char *meant = pc_args_suggest(a, names);
            if (meant) {
                fprintf(stderr,
                        "%sprecheck merge: error: unrecognized arguments: %s (did you "
                        "mean %s?)\n",
                        usage, a, meant);
                rc = 2;
            } else {
                rc = usage_error("unrecognized arguments: ", a);
            }
            break;
        } else {
            inputs[n++] = a;
            continue;
        }
        if (i + 1 >= argc) {
            rc = usage_error("this option expects one argument: ", a);
            break;
        }
        *dst = argv[++i];
    }
    if (rc < 0 && n == 0)
        rc = usage_error("the following arguments are required: DIR (the folder of each shard's "
                         "run)",
                         NULL);
    if (rc < 0) {
        o.inputs = inputs;
        o.input_count = n;
        rc = pc_merge(&o);
    }
    free(inputs);
    return rc;
}
