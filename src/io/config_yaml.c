/* config.yaml for run_ut: msprobe's validator of its four keys, on PyYAML 1.1's reading of
 * the file (yaml11.c). */
#include "precheck/io/config.h"

#include "config_impl.h"
#include "yaml11_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The four keys, in the order msprobe's validator dict lists them (its error message prints
 * them in this order). */
enum { KEY_WHITE_LIST, KEY_BLACK_LIST, KEY_ERROR_DATA_PATH, KEY_PRECISION, KEY_COUNT };
static const char *const key_names[KEY_COUNT] = {
    [KEY_WHITE_LIST] = "white_list",
    [KEY_BLACK_LIST] = "black_list",
    [KEY_ERROR_DATA_PATH] = "error_data_path",
    [KEY_PRECISION] = "precision",
};
#define KEYS_AS_PYTHON "dict_keys(['white_list', 'black_list', 'error_data_path', 'precision'])"

enum { PRECISION_MAX = 20 };

/* ---- validation of the top-level mapping ---- */

/* str(key) as Python prints it in "<key> must be one of ...". */
static void key_display(pc_strbuf *t, const ynode *key)
{
    switch (key->kind) {
    case YK_NULL:
        pc_strbuf_appends(t, "None");
        break;
    case YK_BOOL:
        pc_strbuf_appends(t, key->bval ? "True" : "False");
        break;
    case YK_INT:
        if (key->big)
            pc_strbuf_appends(t, key->str); /* beyond int64: the text as written */
        else
            pc_strbuf_printf(t, "%lld", (long long)key->ival);
        break;
    case YK_FLOAT:
        pc_config_repr_float(t, key->fval);
        break;
    default:
        pc_strbuf_append(t, key->str ? key->str : "", key->str ? strlen(key->str) : 0);
        break;
    }
}

static int key_index(const ynode *key)
{
    if (key->kind != YK_STR)
        return -1;
    for (int k = 0; k < KEY_COUNT; k++)
        if (strlen(key_names[k]) == key->len && memcmp(key->str, key_names[k], key->len) == 0)
            return k;
    return -1;
}

typedef struct yaml_list_ctx {
    const ydoc *doc;
    const ynode *list;
} yaml_list_ctx;

static const char *yaml_list_get(const void *ctx, size_t i, size_t *len)
{
    const yaml_list_ctx *c = ctx;
    const ynode *item = &c->doc->nodes[c->list->kids[i]];
    if (item->kind != YK_STR)
        return NULL;
    *len = item->len;
    return item->str;
}

static pc_status validate_yaml(const ydoc *d, pc_config_api_check is_api, pc_config *out)
{
    if (!d->has_root || d->nodes[d->root].kind != YK_MAP)
        return pc_error_set(PC_ERR_INVALID, "The config file %s must hold a mapping, found %s.",
                            d->name,
                            d->has_root ? pc_yaml11_kind_what(d->nodes[d->root].kind) : "nothing");
    const ynode *map = &d->nodes[d->root];
    /* Python's dict: the first occurrence of a key fixes its place, the last its value. */
    size_t value_of[KEY_COUNT] = {0};
    bool seen[KEY_COUNT] = {0};
    for (size_t i = 0; i + 1 < map->kid_count; i += 2) {
        int k = key_index(&d->nodes[map->kids[i]]);
        if (k >= 0)
            value_of[k] = map->kids[i + 1];
    }
    pc_string_list white = {0}, black = {0};
    char *path = NULL;
    int precision = 0;
    pc_status s = PC_OK;
    for (size_t i = 0; i + 1 < map->kid_count && s == PC_OK; i += 2) {
        const ynode *key = &d->nodes[map->kids[i]];
        int k = key_index(key);
        if (k < 0) {
            /* an unknown key; repeated unknown keys fail at their first place just the same */
            pc_strbuf t = TEXT_INIT;
            key_display(&t, key);
            s = pc_strbuf_error(&t) == PC_STRBUF_NOMEM
                    ? pc_config_out_of_memory()
                    : pc_error_set(PC_ERR_INVALID, "%s must be one of " KEYS_AS_PYTHON,
                                   pc_strbuf_str(&t));
            pc_strbuf_reset(&t);
            break;
        }
        if (seen[k])
            continue;
        seen[k] = true;
        const ynode *value = &d->nodes[value_of[k]];
        switch (k) {
        case KEY_WHITE_LIST:
        case KEY_BLACK_LIST: {
            if (value->kind != YK_SEQ && value->kind != YK_PAIRS) {
                s = pc_error_set(PC_ERR_INVALID, "%s must be list type", key_names[k]);
                break;
            }
            yaml_list_ctx ctx = {d, value};
            str_items items = {value->kid_count, yaml_list_get, &ctx};
            s = pc_config_check_api_list(key_names[k], &items, is_api,
                                         k == KEY_WHITE_LIST ? &white : &black);
            break;
        }
        case KEY_ERROR_DATA_PATH:
            if (value->kind != YK_STR) {
                s = pc_error_set(PC_ERR_INVALID, "error_data_path must be str type");
            } else if (!pc_config_path_exists(value->str, value->len)) {
                s = pc_error_set(PC_ERR_INVALID, "error_data_path: %s does not exist", value->str);
            } else if (!(path = strdup(value->str))) {
                s = pc_config_out_of_memory();
            }
            break;
        default: /* KEY_PRECISION */
            if (value->kind != YK_INT && value->kind != YK_BOOL)
                s = pc_error_set(PC_ERR_INVALID, "precision must be int type");
            else if (value->kind == YK_BOOL)
                s = pc_error_set(PC_ERR_INVALID, "precision must be an integer");
            else if (value->big || value->ival < 0 || value->ival > PRECISION_MAX)
                s = pc_error_set(PC_ERR_INVALID,
                                 "precision must be greater than or equal to 0 and less than 21");
            else
                precision = (int)value->ival;
            break;
        }
    }
    for (int k = 0; k < KEY_COUNT && s == PC_OK; k++)
        if (!seen[k])
            s = pc_error_set(PC_ERR_INVALID,
                             "%s is missing in %s: it must have white_list, black_list, "
                             "error_data_path and precision",
                             key_names[k], d->name);
    if (s != PC_OK) {
        pc_config_release_parts(&white, &black, path);
        return s;
    }
    pc_config_free(out);
    out->white_list = white;
    out->black_list = black;
    out->error_data_path = path;
    out->precision = precision;
    return PC_OK;
}

pc_status pc_config_parse_yaml(pc_config *out, const char *data, size_t size, const char *name,
                               pc_config_api_check is_api)
{
    if (!out || (!data && size) || !is_api)
        return pc_error_set(PC_ERR_INVALID, "pc_config_parse_yaml: missing argument");
    ydoc d = {0};
    d.name = name ? name : "<yaml>";
    pc_status s = pc_yaml11_parse(&d, data ? data : "", size);
    if (s == PC_OK)
        s = validate_yaml(&d, is_api, out);
    pc_yaml11_free(&d);
    return s;
}

pc_status pc_config_load_yaml(pc_config *out, const char *path, pc_config_api_check is_api)
{
    return pc_config_load_file(out, path, "yaml", pc_config_parse_yaml, is_api);
}
