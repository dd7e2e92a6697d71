/*
 * precheck op_generate: msprobe's single-API script generator (msprobe -f pytorch op_generate
 * -i config_op.json -o DIR), with msprobe's config keys, defaults and refusals; the script is
 * precheck's own (repro/repro.h). --precheck-inputs (or "precheck_inputs": true) makes it
 * load the inputs run_ut computes with, saved beside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "precheck/core/log.h"
#include "precheck/inputs/inputs.h"
#include "precheck/io/json.h"
#include "precheck/io/path_check.h"
#include "precheck/repro/repro.h"

typedef struct opgen_args {
    const char *config;
    const char *out_dir;
    bool precheck_inputs;
    long long seed; /* --seed for precheck's inputs; -1: run_ut's default */
} opgen_args;

static void print_usage(FILE *out, const pc_args_command *cmd)
{
    (void)cmd;
    fprintf(out, "usage: precheck op_generate -i CONFIG_JSON -o OUT_DIR [--precheck-inputs] "
                 "[--seed N]\n");
}

static void print_help(FILE *out, const pc_args_command *cmd)
{
    print_usage(out, cmd);
    fprintf(out,
            "\nmsprobe's op_generate: writes OUT_DIR/<API full name>.<propagation>.py, a "
            "standalone script that\nruns one API of a dump on this machine's device (npu if "
            "torch_npu imports, else cuda,\nelse cpu) and on a CPU bench (float16/bfloat16 in "
            "float32, float32 in float64), and prints\nper output the shape, both dtypes, the "
            "standard, its metrics and run_ut's Status and\nMessage. It needs only torch (and "
            "torch_npu on an NPU); --csv FILE writes its rows as\nrun_ut's details CSV.\n\n"
            "CONFIG_JSON (msprobe's config_op.json):\n"
            "  dump_json_path    the dump.json; when set, the API's records are extracted from "
            "it\n"
            "  api_name          the API's full name, e.g. Functional.softmax.0 (with "
            "dump_json_path)\n"
            "  extract_api_path  where the API's records go, or are read from when "
            "dump_json_path\n"
            "                    is empty (required)\n"
            "  propagation       forward (default) or backward\n"
            "  data_mode         random_data (default: drawn from each record's Min/Max) or\n"
            "                    real_data (the dump's tensor files)\n"
            "  random_seed       random_data's seed (default 1234)\n"
            "  iter_times        random_data's draws, 1 to 1000 (default 1)\n"
            "  precheck_inputs   true: as --precheck-inputs\n\n"
            "options:\n"
            "  -i, --config_input CONFIG_JSON   the config above\n"
            "  -o, --api_output_path OUT_DIR    where the script goes (must exist)\n"
            "  --precheck-inputs                the script loads the inputs precheck run_ut "
            "computes with\n"
            "                                   (generated values of a statistics dump, the "
            "dump's tensors\n"
            "                                   otherwise), saved in "
            "OUT_DIR/<API>.<propagation>.inputs/:\n"
            "                                   it reproduces run_ut's rows (needs "
            "dump_json_path)\n"
            "  --seed N                         the run_ut seed of those inputs (default %d)\n"
            "  -h, --help                       this help\n\n"
            "Exit status: 0 written, 1 failed (see the log), 2 usage error.\n",
            PC_INPUTS_DEFAULT_SEED);
}

static int take(void *ctx, const pc_args_command *cmd, int id, char **values, int count)
{
    opgen_args *a = ctx;
    const char *v = count ? values[0] : NULL;
    if (id == PC_FLAG_CONFIG_INPUT)
        a->config = v;
    else if (id == PC_FLAG_API_OUTPUT_PATH)
        a->out_dir = v;
    else if (id == PC_FLAG_PRECHECK_INPUTS)
        a->precheck_inputs = true;
    else if (id == PC_FLAG_SEED) {
        char *end;
        long long x = strtoll(v, &end, 10);
        if (end == v || *end || x < 0)
            return pc_args_usage_error(cmd, "argument --seed: invalid value: '%s'", v);
        a->seed = x;
    }
    return PC_ARGS_RUN;
}

static const pc_args_command command = {
    .prog = "precheck op_generate",
    .table = pc_flags,
    .options = (const int[]){PC_FLAG_HELP, PC_FLAG_CONFIG_INPUT, PC_FLAG_API_OUTPUT_PATH,
                             PC_FLAG_PRECHECK_INPUTS, PC_FLAG_SEED, -1},
    .required = (const int[]){PC_FLAG_CONFIG_INPUT, PC_FLAG_API_OUTPUT_PATH, -1},
    .print_usage = print_usage,
    .print_help = print_help,
};

/* The config of op_generate, read as msprobe's CommonConfig reads it (missing keys: defaults). */
typedef struct opgen_config {
    char *dump_json_path, *api_name, *extract_api_path;
    bool backward;
    pc_repro_data_mode data_mode;
    int64_t random_seed, iter_times;
    bool precheck_inputs;
} opgen_config;

static void config_free(opgen_config *c)
{
    free(c->dump_json_path);
    free(c->api_name);
    free(c->extract_api_path);
}

static int refuse(const char *config, const char *fmt, const char *what)
{
    char msg[1024];
    snprintf(msg, sizeof msg, fmt, what ? what : "");
    pc_log_error("%s: %s", config, msg);
    return 1;
}

/* A string key: NULL when missing or null; *bad when present but not a string. */
static char *string_key(const pc_json_doc *doc, pc_json_ref root, const char *key, bool *bad)
{
    pc_json_ref v = pc_json_object_get(doc, root, key);
    if (v == PC_JSON_NONE || pc_json_is_null(doc, v))
        return NULL;
    const char *s = pc_json_string(doc, v, NULL);
    if (!s) {
        *bad = true;
        return NULL;
    }
    return s[0] ? strdup(s) : NULL;
}

/* An integer key: def when missing; false when present but not an integer (bools are not). */
static bool int_key(const pc_json_doc *doc, pc_json_ref root, const char *key, int64_t def,
                    int64_t *out)
{
    pc_json_ref v = pc_json_object_get(doc, root, key);
    *out = def;
    if (v == PC_JSON_NONE)
        return true;
    if (pc_json_type_of(doc, v) != PC_JSON_INT)
        return false;
    return pc_json_get_int64(doc, v, out) == PC_OK;
}

static int read_config(const char *path, opgen_config *c)
{
    if (pc_path_check(path, PC_PATH_FILE, PC_PATH_READ, ".json", NULL, 0) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_json_doc *doc = NULL;
    if (pc_json_parse_file(&doc, path) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        return 1;
    }
    pc_json_ref root = pc_json_root(doc);
    int rc = 0;
    bool bad = false;
    if (pc_json_type_of(doc, root) != PC_JSON_OBJECT) {
        pc_json_free(doc);
        return refuse(path,
                      "the config must be a JSON object with msprobe's keys "
                      "(dump_json_path, api_name, extract_api_path, ...)%s",
                      "");
    }
    c->dump_json_path = string_key(doc, root, "dump_json_path", &bad);
    c->api_name = string_key(doc, root, "api_name", &bad);
    c->extract_api_path = string_key(doc, root, "extract_api_path", &bad);
    char *propagation = string_key(doc, root, "propagation", &bad);
    char *data_mode = string_key(doc, root, "data_mode", &bad);
    pc_json_ref pi = pc_json_object_get(doc, root, "precheck_inputs");
    c->precheck_inputs = pi != PC_JSON_NONE && pc_json_truthy(doc, pi);
    if (bad)
        rc = refuse(path,
                    "dump_json_path, api_name, extract_api_path, propagation and "
                    "data_mode must be strings%s",
                    "");
    else if (c->api_name && strlen(c->api_name) > 300)
        rc = refuse(path, "API name %s is too long! (at most 300 characters)", c->api_name);
    else if (c->api_name && pc_dump_check_name(c->api_name) != PC_OK)
        rc = refuse(path, "%s", pc_error_message());
    else if (!c->extract_api_path)
        rc = refuse(path,
                    "extract_api_path is required: the JSON file the API's records are "
                    "written to (with dump_json_path) or read from%s",
                    "");
    else if (propagation && strcmp(propagation, "forward") != 0 &&
             strcmp(propagation, "backward") != 0)
        rc = refuse(path,
                    "propagation is invalid, it should be one of ['forward', 'backward'] "
                    "(found '%s')",
                    propagation);
    else if (data_mode && strcmp(data_mode, "random_data") != 0 &&
             strcmp(data_mode, "real_data") != 0)
        rc = refuse(path,
                    "data_mode is invalid, it should be one of ['random_data', 'real_data'] "
                    "(found '%s')",
                    data_mode);
    else if (!int_key(doc, root, "random_seed", 1234, &c->random_seed))
        rc = refuse(path, "random_seed is invalid, it should be an int%s", "");
    else if (!int_key(doc, root, "iter_times", 1, &c->iter_times))
        rc = refuse(path, "iter_times is invalid, it should be an int%s", "");
    else if (c->iter_times <= 0)
        rc = refuse(path, "iter_times should be an integer bigger than zero!%s", "");
    else if (c->iter_times > 1000)
        rc = refuse(path, "iter_times should not be greater than 1000!%s", "");
    else if (c->dump_json_path && !c->api_name)
        rc = refuse(path,
                    "api_name is required with dump_json_path: the full name of the API "
                    "to extract, e.g. Functional.softmax.0%s",
                    "");
    c->backward = propagation && strcmp(propagation, "backward") == 0;
    c->data_mode = data_mode && strcmp(data_mode, "real_data") == 0 ? PC_REPRO_REAL_DATA
                                                                    : PC_REPRO_RANDOM_DATA;
    free(propagation);
    free(data_mode);
    pc_json_free(doc);
    return rc;
}

int pc_cli_op_generate(int argc, char **argv)
{
    opgen_args a = {.seed = -1};
    /* msprobe's spelling "-f pytorch op_generate" reaches here without -f; a leading
     * "-f pytorch" after the command name is taken too */
    if (argc >= 3 && strcmp(argv[1], "-f") == 0) {
        if (strcmp(argv[2], "pytorch") != 0)
            return pc_args_usage_error(&command, "-f %s: precheck is msprobe's PyTorch side only",
                                       argv[2]);
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    int rc = pc_args_parse(&command, argc, argv, take, &a, NULL);
    if (rc != PC_ARGS_RUN)
        return rc;
    opgen_config c = {0};
    rc = read_config(a.config, &c);
    if (rc) {
        config_free(&c);
        return rc;
    }
    bool mine = a.precheck_inputs || c.precheck_inputs;
    if (c.dump_json_path) {
        if (pc_path_check(c.dump_json_path, PC_PATH_FILE, PC_PATH_READ, ".json", NULL, 0) !=
            PC_OK) {
            pc_log_error("dump_json_path: %s", pc_error_message());
            config_free(&c);
            return 1;
        }
        if (pc_repro_extract(c.dump_json_path, c.api_name, c.extract_api_path,
                             PC_REPRO_EXTRACT_MSPROBE, NULL) != PC_OK) {
            pc_log_error("%s", pc_error_message());
            config_free(&c);
            return 1;
        }
        pc_log_info("The api '%s' has been successfully extracted and saved in: %s", c.api_name,
                    c.extract_api_path);
    } else if (mine) {
        pc_log_error("%s: --precheck-inputs needs dump_json_path (the inputs are made from the "
                     "whole dump's records, as run_ut makes them)",
                     a.config);
        config_free(&c);
        return 1;
    }
    if (pc_path_check(a.out_dir, PC_PATH_DIR, PC_PATH_WRITE, NULL, NULL, 0) != PC_OK) {
        pc_log_error("-o %s: %s", a.out_dir, pc_error_message());
        config_free(&c);
        return 1;
    }
    pc_dump *dump = NULL;
    if (pc_repro_extract_read(c.extract_api_path, c.backward, &dump) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        config_free(&c);
        return 1;
    }
    rc = 1;
    const pc_dump_api *api = dump->api_count ? &dump->apis[0] : NULL;
    const char *prop = c.backward ? "backward" : "forward";
    char name[1024], script[PC_PATH_BUFFER_SIZE * 2], dir[PC_PATH_BUFFER_SIZE * 2];
    char tensor_dir[1100], json[PC_PATH_BUFFER_SIZE * 2 + 16], text[1200];
    pc_dump *inputs = NULL;
    if (!api) {
        pc_log_error("%s: Invalid forward API data in json_content! (its first entry is not a "
                     "forward entry: <API>.forward)",
                     c.extract_api_path);
        goto done;
    }
    if (!api->prefix || (strcmp(api->prefix, "Functional") != 0 &&
                         strcmp(api->prefix, "Tensor") != 0 && strcmp(api->prefix, "Torch") != 0)) {
        pc_log_error("type %s of API is not supported! (op_generate writes scripts for "
                     "Functional, Tensor and Torch APIs, as msprobe)",
                     api->prefix ? api->prefix : "?");
        goto done;
    }
    snprintf(name, sizeof name, "%s.%s", api->full_name, prop);
    snprintf(script, sizeof script, "%s/%s.py", a.out_dir, name);
    pc_repro_script_options so = {
        .dump = dump,
        .api_full_name = api->full_name,
        .backward = c.backward,
        .data_mode = c.data_mode,
        .seed = c.random_seed,
        .iter_times = c.iter_times,
        .source = c.dump_json_path ? c.dump_json_path : c.extract_api_path,
    };
    if (mine) {
        uint64_t seed = a.seed >= 0 ? (uint64_t)a.seed : PC_INPUTS_DEFAULT_SEED;
        snprintf(dir, sizeof dir, "%s/%s.inputs", a.out_dir, name);
        snprintf(json, sizeof json, "%s/dump.json", dir);
        if (access(json, F_OK) == 0) {
            pc_log_error("%s exists already: remove %s to write the inputs again", json, dir);
            goto done;
        }
        if (pc_repro_inputs(c.dump_json_path, api->full_name, dir, seed) != PC_OK ||
            pc_dump_open(&inputs, json) != PC_OK) {
            pc_log_error("%s", pc_error_message());
            goto done;
        }
        snprintf(tensor_dir, sizeof tensor_dir, "%s.inputs/dump_tensor_data", name);
        snprintf(text, sizeof text,
                 "precheck's own (run_ut --seed %llu), saved in %s.inputs/dump_tensor_data",
                 (unsigned long long)seed, name);
        so.dump = inputs;
        so.data_mode = PC_REPRO_PRECHECK_INPUTS;
        so.tensor_dir = tensor_dir;
        so.inputs_text = text;
    }
    if (pc_repro_script_write(&so, script) != PC_OK) {
        pc_log_error("%s", pc_error_message());
        goto done;
    }
    pc_log_info("Generate operator script successfully and the name is %s.", script);
    rc = 0;
done:
    pc_dump_free(inputs);
    pc_dump_free(dump);
    config_free(&c);
    return rc;
}
