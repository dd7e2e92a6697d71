/*
 * run_ut's configuration (docs/msprobe-contract.md#command-line): config.yaml, read with libyaml,
 * and the run_ut section of a msprobe config.json given with -config, with msprobe's validations
 * and messages.
 *
 * config.yaml must be a mapping of exactly these four keys:
 *     white_list: []          list of API names (strings) that run_ut runs, empty for all
 *     black_list: []          list of API names that it skips
 *     error_data_path: './'   where -save_error_data writes; must exist
 *     precision: 14           decimals of float64 numbers in the details CSV, 0..20
 * Its scalars are typed the way PyYAML's safe_load types them (YAML 1.1: `yes` is a bool,
 * `012` an octal int, `1:30` a base-60 int, `1e5` a string, quoted scalars strings, explicit
 * !!tags honoured), so that a file is accepted or refused as msprobe would. The keys are
 * checked in the order they first appear (a repeated key keeps its first place and its last
 * value, as in a Python dict); the first failure is the error:
 *     "<key> must be one of dict_keys(['white_list', 'black_list', 'error_data_path',
 *      'precision'])"                                      an unknown key
 *     "<key> must be list type" / "must be str type" / "must be int type"
 *     "precision must be an integer"                       a bool (Python's bool is an int)
 *     "precision must be greater than or equal to 0 and less than 21"
 *     "All elements in <key> must be string type"
 *     "Invalid api in <key>: ['<name>', ...]"              names refused by the API check
 *     "error_data_path: <p> does not exist"                relative to the current directory
 * and, where msprobe would crash with a KeyError or an AttributeError instead:
 *     "<key> is missing in <file>: it must have white_list, black_list, error_data_path and
 *      precision"
 *     "The config file <file> must hold a mapping, found <what>."
 * A file libyaml cannot parse, or that PyYAML could not load (an unknown tag, an undefined
 * alias, a second document, an unhashable key, a bad !!int ...), gives PC_ERR_FORMAT:
 *     "Load yaml file <file> failed: <file>:<line>:<column>: <problem>"
 *
 * config.json (-config) is first checked as msprobe checks any dump config (rank, step, task,
 * dump_path, level, enable_dataloader, async_dump, precision; msprobe's messages, e.g. "task
 * is invalid, it should be one of [...]"), then its "run_ut" object (absent: {}) gives
 * white_list (default []), black_list (default []) and error_data_path (default "./"), checked
 * as above except that a list of the wrong type is "<key> must be a list type".
 *
 * Statuses: PC_ERR_INVALID for a failed validation, PC_ERR_FORMAT for unparsable input, any
 * status of pc_path_check() for the file itself, PC_ERR_NOMEM. Errors are not logged; the
 * caller logs pc_error_message(). The one warning msprobe gives ("async_dump is True, it may
 * cause OOM when dumping large tensor.") is logged with pc_log_warning().
 *
 * OWNERSHIP: a pc_config owns its strings; pc_config_free() releases them and zeroes the
 * struct. The functions that fill a pc_config free what it held before only on success; on
 * failure they leave it as it was. A zeroed pc_config is a valid empty one.
 */
#ifndef PC_IO_CONFIG_H
#define PC_IO_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "precheck/core/status.h"

/* Whether `name` may appear in white_list/black_list: msprobe's wrappable API names. The io
 * module does not know them (they belong to dump/); callers pass pc_api_is_wrappable from
 * precheck/dump/filter.h. Must not be NULL. */
typedef bool (*pc_config_api_check)(const char *name);

typedef struct pc_string_list {
    char **items; /* count NUL-terminated strings, owned */
    size_t count;
} pc_string_list;

typedef struct pc_config {
    pc_string_list white_list;
    pc_string_list black_list;
    char *error_data_path; /* as written (relative to the current directory), owned */
    int precision;         /* 0..20 */
} pc_config;

/* Defaults of msprobe's shipped config.yaml, which precheck ships as config/config.yaml. */
#define PC_CONFIG_DEFAULT_ERROR_DATA_PATH "./"
#define PC_CONFIG_DEFAULT_PRECISION       14

/* Largest number of YAML nodes (scalars, sequences, mappings) read from config.yaml; more is
 * refused with PC_ERR_FORMAT, and so is nesting deeper than PC_CONFIG_YAML_MAX_DEPTH. */
#define PC_CONFIG_YAML_MAX_NODES 1000000
#define PC_CONFIG_YAML_MAX_DEPTH 1000

/* Checks the file (pc_path_check: a readable regular file ending in ".yaml"), then reads and
 * validates it into *out. */
pc_status pc_config_load_yaml(pc_config *out, const char *path, pc_config_api_check is_api);

/* The same on bytes already in memory (size bytes, no NUL needed); name is used in messages. */
pc_status pc_config_parse_yaml(pc_config *out, const char *data, size_t size, const char *name,
                               pc_config_api_check is_api);

/* Checks the file (a readable regular file ending in ".json"), validates it as a msprobe
 * config.json and sets white_list, black_list and error_data_path of *out from its run_ut
 * section; out->precision is left alone. */
pc_status pc_config_load_json(pc_config *out, const char *path, pc_config_api_check is_api);

/* The same on bytes in memory. */
pc_status pc_config_parse_json(pc_config *out, const char *data, size_t size, const char *name,
                               pc_config_api_check is_api);

/* What run_ut uses: config.yaml at yaml_path, always read and validated; when json_path is not
 * NULL, white_list, black_list and error_data_path all come from config.json instead (its
 * defaults for what it lacks), and precision still from config.yaml. */
pc_status pc_config_load(pc_config *out, const char *yaml_path, const char *json_path,
                         pc_config_api_check is_api);

void pc_config_free(pc_config *config); /* NULL is fine */

#endif
