/*
 * precheck repro -api_info dump.json [API...] -o DIR: one folder per API to hand to a kernel
 * team: the inputs run_ut computes with (inputs/, a one-API dump with its tensors as .pt), the
 * op_generate script of each direction loading them, this machine's rows for the API (row/,
 * run_ut on inputs/dump.json through the same runner) and a README.md. Without API names,
 * every API that did not pass a run of the whole dump (DIR/run/).
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/core/log.h"
#include "precheck/inputs/inputs.h"
#include "precheck/io/csv_read.h"
#include "precheck/io/file_out.h"
#include "precheck/io/path_check.h"
#include "precheck/repro/repro.h"

enum { REPRO_MAX_APIS = 4096 };

typedef struct repro_args {
    const char *api_info;
    const char *out_dir;
    const char *backend;
    const char *python;
    const char *bench;
    const char *seed;
    const char *apis[REPRO_MAX_APIS];
    int api_count;
} repro_args;

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck repro -api_info DUMP_JSON [API ...] -o OUT_DIR [--backend B] "
                 "[--python PY]\n                      [--bench POLICY] [--seed N]\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out,
            "\nA bundle per API to reproduce it elsewhere: OUT_DIR/<API full name>/ holds\n"
            "  inputs/          the inputs run_ut computes with (a one-API dump.json, tensors as "
            ".pt:\n"
            "                   generated values of a statistics dump, the dump's own tensors "
            "otherwise)\n"
            "  <API>.forward.py, <API>.backward.py\n"
            "                   op_generate's scripts on those inputs: run them with the user's "
            "torch on\n"
            "                   the NPU or the GPU (no precheck, no msprobe needed)\n"
            "  row/             this machine's run_ut rows for the API (details and result "
            "CSVs, log)\n"
            "  README.md        how to run it, what the verdict means\n"
            "API: full names (Functional.softmax.0), bare or with --api NAME. Without any: every "
            "API that\ndid not pass (error or Warning) in a run_ut of the whole dump, kept in "
            "OUT_DIR/run/.\n\n"
            "options:\n"
            "  -api_info, --api_info_file DUMP_JSON   the dump\n"
            "  -o, --out_path OUT_DIR                 where the bundles go (created)\n"
            "  --api NAME                             an API to bundle (repeatable; or bare)\n"
            "  --backend B, --python PY, --bench P, --seed N\n"
            "                                         as run_ut's, for the rows and the inputs\n"
            "  -h, --help                             this help\n\n"
            "Exit status: 0 written, 1 failed (see the log), 2 usage error.\n");
}

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    repro_args *a = ctx;
    const char *v = count ? values[0] : NULL;
    switch (id) {
    case PC_FLAG_API_INFO:
        a->api_info = v;
        break;
    case PC_FLAG_OUT_PATH:
        a->out_dir = v;
        break;
    case PC_FLAG_BACKEND:
        a->backend = v;
        break;
    case PC_FLAG_PYTHON:
        a->python = v;
        break;
    case PC_FLAG_BENCH:
        a->bench = v;
        break;
    case PC_FLAG_SEED:
        a->seed = v;
        break;
    case PC_FLAG_API:
        if (a->api_count >= REPRO_MAX_APIS)
            return pc_args_usage_error(cmd, "more than %d APIs", REPRO_MAX_APIS);
        a->apis[a->api_count++] = v;
        break;
    default:
        break;
    }
    return PC_ARGS_RUN;
}

static const int repro_options[] = {PC_FLAG_HELP,  PC_FLAG_API_INFO, PC_FLAG_OUT_PATH,
                                    PC_FLAG_API,   PC_FLAG_BACKEND,  PC_FLAG_PYTHON,
                                    PC_FLAG_BENCH, PC_FLAG_SEED,     -1};

static const pc_args_command command = {
    .prog = "precheck repro",
    .table = pc_flags,
    .options = repro_options,
    .required = (const int[]){PC_FLAG_API_INFO, PC_FLAG_OUT_PATH, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

/* Whether arg is one of repro's options that takes a separate value. */
static bool takes_value(const char *arg)
{
    if (strchr(arg, '='))
        return false;
    for (int i = 0; repro_options[i] >= 0; i++) {
        const pc_args_option *o = &pc_flags[repro_options[i]];
        if (o->kind != PC_ARGS_VALUE)
            continue;
        for (int k = 0; k < PC_ARGS_MAX_NAMES && o->names[k]; k++)
            if (strcmp(arg, o->names[k]) == 0)
                return true;
    }
    return false;
}

/* Runs run_ut in a child process (the same code as `precheck run_ut`) with these arguments. */
static int run_ut(const repro_args *a, const char *api_info, const char *out)
{
    char *argv[24];
    int n = 0;
    argv[n++] = "run_ut";
    argv[n++] = "-api_info";
    argv[n++] = (char *)(uintptr_t)api_info;
    argv[n++] = "-o";
    argv[n++] = (char *)(uintptr_t)out;
    argv[n++] = "--no-progress";
    if (a->backend)
        argv[n++] = "--backend", argv[n++] = (char *)(uintptr_t)a->backend;
    if (a->python)
        argv[n++] = "--python", argv[n++] = (char *)(uintptr_t)a->python;
    if (a->bench)
        argv[n++] = "--bench", argv[n++] = (char *)(uintptr_t)a->bench;
    if (a->seed)
        argv[n++] = "--seed", argv[n++] = (char *)(uintptr_t)a->seed;
    argv[n] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        pc_log_error("cannot start run_ut: %s", strerror(errno));
        return 1;
    }
    if (pid == 0)
        _exit(pc_cli_run_ut(n, argv));
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The last file of dir (by name: run_ut's names carry their time) that starts with prefix. */
static bool find_csv(const char *dir, const char *prefix, char *out, size_t size)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    char best[256] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && strstr(e->d_name, ".csv") &&
            strcmp(e->d_name, best) > 0)
            snprintf(best, sizeof best, "%s", e->d_name);
    closedir(d);
    if (!best[0])
        return false;
    snprintf(out, size, "%s/%s", dir, best);
    return true;
}

/* The result row of api in a result CSV: its forward and backward words. */
typedef struct verdict {
    char forward[32], backward[32], message[512];
} verdict;

static int read_results(const char *csv, char names[][256], verdict *v, int max, const char *only)
{
    pc_csv_reader *r = NULL;
    if (pc_csv_reader_open(csv, &r) != PC_OK)
        return -1;
    int n = 0;
    bool row = false, header = true;
    while (pc_csv_reader_next(r, &row) == PC_OK && row) {
        if (header) {
            header = false;
            continue;
        }
        if (pc_csv_reader_field_count(r) < 3 || n >= max)
            continue;
        const char *name = pc_csv_reader_field(r, 0, NULL);
        if (only && strcmp(name, only) != 0)
            continue;
        snprintf(names[n], 256, "%s", name);
        snprintf(v[n].forward, sizeof v[n].forward, "%s", pc_csv_reader_field(r, 1, NULL));
        snprintf(v[n].backward, sizeof v[n].backward, "%s", pc_csv_reader_field(r, 2, NULL));
        v[n].message[0] = 0;
        if (pc_csv_reader_field_count(r) > 3)
            snprintf(v[n].message, sizeof v[n].message, "%s", pc_csv_reader_field(r, 3, NULL));
        n++;
    }
    pc_csv_reader_free(r);
    return n;
}

static bool failed(const char *word)
{
    return strcmp(word, "error") == 0 || strcmp(word, "Warning") == 0;
}

static void write_readme(const repro_args *a, const char *dir, const char *api, const verdict *v,
                         bool has_backward)
{
    char path[PC_PATH_BUFFER_SIZE * 2];
    snprintf(path, sizeof path, "%s/README.md", dir);
    /* written whole through the one safe writer (a temporary beside it, no link followed) */
    pc_file_out out;
    if (pc_file_out_open(&out, path, PC_FILE_OUT_REPLACE | PC_FILE_OUT_NO_SYNC) != PC_OK) {
        pc_log_warning("the bundle's README is not written: %s", pc_error_message());
        return;
    }
    FILE *f = out.f;
    fprintf(f, "# %s: a reproduction bundle\n\n", api);
    fprintf(f, "Made by `precheck repro -api_info %s %s -o ...` from that dump.\n\n", a->api_info,
            api);
    fprintf(f, "## This machine's verdict\n\n");
    fprintf(f,
            "run_ut (%s, seed %s): forward **%s**, backward **%s**%s%s.\n"
            "The rows, one per output, are in `row/accuracy_checking_details_*.csv`; the "
            "log in `row/run.log`.\n\n",
            a->backend ? a->backend : "the reference device cpu", a->seed ? a->seed : "1234",
            v->forward[0] ? v->forward : "?",
            v->backward[0] && v->backward[0] != ' ' ? v->backward : "none",
            v->message[0] ? ": " : "", v->message);
    fprintf(f,
            "## Run it on the NPU or the GPU\n\n"
            "Copy this folder to the machine and run, with that machine's torch (and "
            "torch_npu on an NPU):\n\n"
            "    python3 %s.forward.py            # npu if torch_npu imports, else cuda, else "
            "cpu\n",
            api);
    if (has_backward)
        fprintf(f, "    python3 %s.backward.py\n", api);
    fprintf(f, "    python3 %s.forward.py --device cuda --csv gpu_rows.csv\n\n", api);
    fprintf(f,
            "The scripts load the inputs in `inputs/dump_tensor_data/` (the very tensors run_ut "
            "computed\nwith), run the API on the device and on a CPU bench (float16/bfloat16 in "
            "float32, float32 in\nfloat64), and print per output the shape, both dtypes, the "
            "standard, its metrics and run_ut's\nStatus with its reason. `--csv FILE` writes the "
            "rows as run_ut's details CSV. On a CPU the\nsums depend on torch's thread count: "
            "`--threads N` (row/run.log says what run_ut used).\n"
            "The same inputs run through precheck too: `precheck run_ut -api_info "
            "inputs/dump.json -o out/`.\n\n");
    fprintf(f, "## What the verdict means\n\n"
               "- **pass**: every output is close to the bench by run_ut's rule (cosine "
               "similarity above 0.99,\n  then max absolute error below 0.001 or enough "
               "elements within 0.1%%/0.01%% relative error).\n"
               "- **Warning**: close, but fewer elements within the finer relative-error bound "
               "than the rule asks.\n"
               "- **error**: an output is too far from the bench (the row's Message says which "
               "check failed).\n"
               "A device error against a CPU bench is not yet a bug: judge the NPU's rows "
               "against a GPU's\n(run the script on both, then `precheck api_precision_compare "
               "-npu npu.csv -gpu gpu.csv -o cmp/`).\n");
    if (pc_file_out_commit(&out) != PC_OK)
        pc_log_warning("the bundle's README is not written: %s", pc_error_message());
    pc_file_out_free(&out);
}

static int bundle(const repro_args *a, const char *api)
{
    char dir[PC_PATH_BUFFER_SIZE], inputs[PC_PATH_BUFFER_SIZE + 16];
    char json[PC_PATH_BUFFER_SIZE + 32], row[PC_PATH_BUFFER_SIZE + 16];
    char script[PC_PATH_BUFFER_SIZE + 512], tdir[512], text[512], csv[PC_PATH_BUFFER_SIZE * 2];
    if (pc_dump_name_is_unsafe(api) || strchr(api, '/') || api[0] == '.') {
        pc_log_error("%s: not an API full name precheck can make a folder of", api);
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/%s", a->out_dir, api);
    snprintf(inputs, sizeof inputs, "%s/inputs", dir);
    snprintf(json, sizeof json, "%s/dump.json", inputs);
    snprintf(row, sizeof row, "%s/row", dir);
    if (access(json, F_OK) == 0) {
        pc_log_error("%s exists already: give another -o, or remove %s", json, dir);
        return 1;
    }
    uint64_t seed = a->seed ? strtoull(a->seed, NULL, 10) : PC_INPUTS_DEFAULT_SEED;
    if (pc_path_make_dir(dir) != PC_OK ||
        pc_repro_inputs(a->api_info, api, inputs, seed) != PC_OK) {
        pc_log_error("%s: %s", api, pc_error_message());
        return 1;
    }
    pc_dump *dump = NULL;
    if (pc_dump_open(&dump, json) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    const pc_dump_api *rec = pc_dump_find(dump, api);
    bool has_backward = rec && rec->backward;
    snprintf(tdir, sizeof tdir, "inputs/dump_tensor_data");
    snprintf(text, sizeof text, "precheck's own (run_ut --seed %llu), in inputs/dump_tensor_data",
             (unsigned long long)seed);
    /* this machine's rows: run_ut on the one-API dump (materialize keeps them the same) */
    char log[PC_PATH_BUFFER_SIZE + 32];
    if (pc_path_make_dir(row) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        pc_dump_free(dump);
        return 1;
    }
    snprintf(log, sizeof log, "%s/run.log", row);
    fflush(NULL);
    int saved = dup(STDERR_FILENO);
    pc_file_out lf;
    bool logged = pc_file_out_open(&lf, log, PC_FILE_OUT_REPLACE | PC_FILE_OUT_NO_SYNC) == PC_OK;
    if (!logged)
        pc_log_warning("run_ut's log of the bundle goes to the terminal: %s", pc_error_message());
    else
        dup2(fileno(lf.f), STDERR_FILENO);
    int urc = run_ut(a, json, row);
    if (logged) {
        fflush(NULL);
        dup2(saved, STDERR_FILENO);
        if (pc_file_out_commit(&lf) != PC_OK)
            pc_log_warning("%s", pc_error_message());
        pc_file_out_free(&lf);
    }
    close(saved);
    verdict v;
    memset(&v, 0, sizeof v);
    char name[1][256];
    if (urc != 0 || !find_csv(row, "accuracy_checking_result_", csv, sizeof csv) ||
        read_results(csv, name, &v, 1, api) != 1)
        pc_log_warning("%s: run_ut on the bundle's inputs did not give its row (see %s)", api, log);
    char expected[700];
    snprintf(expected, sizeof expected, "run_ut (%s): forward %s, backward %s; rows in row/",
             a->backend ? a->backend : "the reference device cpu", v.forward[0] ? v.forward : "?",
             v.backward[0] && v.backward[0] != ' ' ? v.backward : "none");
    int rc = 0;
    for (int dir_i = 0; dir_i < 1 + has_backward && rc == 0; dir_i++) {
        pc_repro_script_options so = {.dump = dump,
                                      .api_full_name = api,
                                      .backward = dir_i == 1,
                                      .data_mode = PC_REPRO_PRECHECK_INPUTS,
                                      .seed = (int64_t)seed,
                                      .iter_times = 1,
                                      .tensor_dir = tdir,
                                      .inputs_text = text,
                                      .source = a->api_info,
                                      .expected = expected};
        snprintf(script, sizeof script, "%s/%s.%s.py", dir, api, dir_i ? "backward" : "forward");
        if (pc_repro_script_write(&so, script) != PC_OK) {
            pc_log_error("%s", pc_error_message());
            rc = 1;
        }
    }
    pc_dump_free(dump);
    if (rc)
        return rc;
    write_readme(a, dir, api, &v, has_backward);
    pc_log_info("%s: bundle in %s (forward %s, backward %s)", api, dir,
                v.forward[0] ? v.forward : "?", v.backward[0] ? v.backward : "?");
    return 0;
}

int pc_cli_repro(int argc, char **argv)
{
    static repro_args a;
    memset(&a, 0, sizeof a);
    /* bare API names are taken out before the options are parsed */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return 1;
    int n = 0;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-') {
            rest[n++] = argv[i];
            if (takes_value(argv[i]) && i + 1 < argc)
                rest[n++] = argv[++i];
        } else if (a.api_count < REPRO_MAX_APIS) {
            a.apis[a.api_count++] = argv[i];
        }
    }
    int rc = pc_args_parse(&command, n, rest, take, &a, NULL);
    if (rc != PC_ARGS_RUN) {
        free(rest);
        return rc;
    }
    free(rest);
    if (pc_path_check(a.api_info, PC_PATH_FILE, PC_PATH_READ, ".json", NULL, 0) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    if (pc_path_make_dir(a.out_dir) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    /* on the heap: as static arrays, their 3.4 MB were scanned by LeakSanitizer at the exit
     * of every precheck process of the ASan+UBSan tests, whatever its command */
    char(*names)[256] = calloc(REPRO_MAX_APIS, sizeof *names);
    verdict *v = calloc(REPRO_MAX_APIS, sizeof *v);
    if (!names || !v) {
        pc_log_error("repro: out of memory");
        rc = 1;
        goto out;
    }
    if (a.api_count == 0) {
        char run[PC_PATH_BUFFER_SIZE + 8], csv[PC_PATH_BUFFER_SIZE * 2];
        snprintf(run, sizeof run, "%s/run", a.out_dir);
        pc_log_info("no API named: running run_ut on the whole dump into %s to find the APIs "
                    "that did not pass",
                    run);
        if (pc_path_make_dir(run) != PC_OK) {
            pc_log_error("%s", pc_error_message());
            rc = 1;
            goto out;
        }
        int urc = run_ut(&a, a.api_info, run);
        int count = find_csv(run, "accuracy_checking_result_", csv, sizeof csv)
                        ? read_results(csv, names, v, REPRO_MAX_APIS, NULL)
                        : -1;
        if (urc != 0 || count < 0) {
            pc_log_error("run_ut on %s did not finish (exit %d): see its log above", a.api_info,
                         urc);
            rc = 1;
            goto out;
        }
        for (int i = 0; i < count; i++)
            if (failed(v[i].forward) || failed(v[i].backward))
                a.apis[a.api_count++] = names[i];
        if (a.api_count == 0) {
            pc_log_info("every API passed or was skipped: no bundle to make");
            rc = 0;
            goto out;
        }
        pc_log_info("%d APIs did not pass: one bundle each", a.api_count);
    }
    rc = 0;
    for (int i = 0; i < a.api_count; i++)
        rc |= bundle(&a, a.apis[i]);
out:
    free(names);
    free(v);
    return rc;
}
