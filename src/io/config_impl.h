/* io/config's private parts, shared by config.c (what both validators use), yaml11.c (the
 * PyYAML 1.1 reader), config_yaml.c and config_json.c (the two validators). */
#ifndef PC_IO_CONFIG_IMPL_H
#define PC_IO_CONFIG_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "precheck/core/status.h"
#include "precheck/core/strbuf.h"
#include "precheck/io/config.h"

/* Messages are cut at PC_ERROR_MESSAGE_MAX anyway; building more than this is wasted work
 * (a list of a million bad names must not cost a million appends). */
enum { TEXT_LIMIT = 4 * PC_ERROR_MESSAGE_MAX };

/* Messages are built in a pc_strbuf cut at TEXT_LIMIT bytes. */
#define TEXT_INIT                                                                                  \
    {                                                                                              \
        .max = TEXT_LIMIT                                                                          \
    }

/* Python's repr() of a str (n bytes) and of a float, appended to t. */
void pc_config_repr_str(pc_strbuf *t, const char *s, size_t n);
void pc_config_repr_float(pc_strbuf *t, double x);

/* int(s, base) for base 2, 8, 10 or 16: surrounding whitespace, a sign, the base's 0b/0o/0x
 * prefix (not for 10), single underscores between digits. A value beyond int64 saturates and
 * sets *big. */
bool pc_config_py_int(const char *s, size_t n, int base, int64_t *out, bool *big);
/* float(s): whitespace, a sign, inf/infinity/nan (any case), or decimal digits with an
 * optional point and exponent. */
bool pc_config_py_float(const char *s, size_t n, double *out);

void pc_config_list_free(pc_string_list *list);
/* Room for `count` strings; list->count grows as they are set with pc_config_list_push(). */
bool pc_config_list_reserve(pc_string_list *list, size_t count);
bool pc_config_list_push(pc_string_list *list, const char *s, size_t n);

/* os.path.exists of the len bytes at path (a NUL inside: false, as Python says). */
bool pc_config_path_exists(const char *path, size_t len);
pc_status pc_config_out_of_memory(void);
/* pc_config_parse_yaml or pc_config_parse_json. */
typedef pc_status (*pc_config_parse_fn)(pc_config *out, const char *data, size_t size,
                                        const char *name, pc_config_api_check is_api);
/* Loads the config file at path, whose kind what ("yaml", "json") is also its extension: the
 * path checked (a readable file, not a link), read whole and given to parse under its real
 * path. */
pc_status pc_config_load_file(pc_config *out, const char *path, const char *what,
                              pc_config_parse_fn parse, pc_config_api_check is_api);

/* check_filter_list_config's element checks on a list whose items are strings (or not). */
typedef struct str_items {
    size_t count;
    const char *(*get)(const void *ctx, size_t i, size_t *len); /* NULL: not a string */
    const void *ctx;
} str_items;

pc_status pc_config_check_api_list(const char *key, const str_items *items,
                                   pc_config_api_check is_api, pc_string_list *out);
/* Frees what a validator built before it failed. */
void pc_config_release_parts(pc_string_list *white, pc_string_list *black, char *path);

#endif
