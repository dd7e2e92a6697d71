/* config.json (msprobe's common config): its validator, on io/json.h's reading of the file. */
#include "precheck/io/config.h"

#include "config_impl.h"
#include "precheck/core/log.h"
#include "precheck/io/json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* msprobe's limits on rank/step lists and their elements. */
enum { STEP_RANK_MAX = 1000000 };

/* ---------------------------------------------------------------------------------------------
 * config.json
 * ------------------------------------------------------------------------------------------- */

typedef struct jctx {
    const pc_json_doc *doc;
    const char *data; /* the bytes parsed, for the digits of big integers */
    size_t size;
} jctx;

/* Python's str() of a value json.loads made (repr for values inside containers). */
static void json_str(pc_strbuf *t, const jctx *j, pc_json_ref v, bool top, int depth)
{
    const pc_json_doc *doc = j->doc;
    if (depth > PC_JSON_MAX_DEPTH || t->len >= TEXT_LIMIT)
        return;
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_NULL:
        pc_strbuf_appends(t, "None");
        break;
    case PC_JSON_BOOL: {
        bool b = false;
        pc_json_get_bool(doc, v, &b);
        pc_strbuf_appends(t, b ? "True" : "False");
        break;
    }
    case PC_JSON_INT: {
        int64_t i = 0;
        pc_json_get_int64(doc, v, &i);
        pc_strbuf_printf(t, "%lld", (long long)i);
        break;
    }
    case PC_JSON_FLOAT:
        if (pc_json_is_big_integer(doc, v)) {
            size_t at = pc_json_offset(doc, v), end = at;
            while (end < j->size &&
                   (j->data[end] == '-' || (j->data[end] >= '0' && j->data[end] <= '9')))
                end++;
            pc_strbuf_append(t, j->data + at, end - at);
        } else {
            pc_config_repr_float(t, pc_json_number(doc, v));
        }
        break;
    case PC_JSON_STRING: {
        size_t len;
        const char *s = pc_json_string(doc, v, &len);
        if (top)
            pc_strbuf_append(t, s, len);
        else
            pc_config_repr_str(t, s, len);
        break;
    }
    case PC_JSON_ARRAY: {
        pc_strbuf_appends(t, "[");
        bool first = true;
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE && t->len < TEXT_LIMIT;
             e = pc_json_next(doc, e)) {
            if (!first)
                pc_strbuf_appends(t, ", ");
            first = false;
            json_str(t, j, e, false, depth + 1);
        }
        pc_strbuf_appends(t, "]");
        break;
    }
    case PC_JSON_OBJECT: {
        /* A dict: each key once, at its first place, with its last value. */
        pc_strbuf_appends(t, "{");
        bool first = true;
        for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE && t->len < TEXT_LIMIT;
             k = pc_json_next(doc, k)) {
            size_t klen;
            const char *key = pc_json_string(doc, k, &klen);
            bool earlier = false;
            for (pc_json_ref e = pc_json_first(doc, v); e != k && !earlier;
                 e = pc_json_next(doc, e)) {
                size_t elen;
                const char *other = pc_json_string(doc, e, &elen);
                earlier = elen == klen && memcmp(other, key, klen) == 0;
            }
            if (earlier)
                continue;
            pc_json_ref value = pc_json_member_value(doc, k);
            for (pc_json_ref e = pc_json_next(doc, k); e != PC_JSON_NONE;
                 e = pc_json_next(doc, e)) {
                size_t elen;
                const char *other = pc_json_string(doc, e, &elen);
                if (elen == klen && memcmp(other, key, klen) == 0)
                    value = pc_json_member_value(doc, e);
            }
            if (!first)
                pc_strbuf_appends(t, ", ");
            first = false;
            pc_config_repr_str(t, key, klen);
            pc_strbuf_appends(t, ": ");
            json_str(t, j, value, false, depth + 1);
        }
        pc_strbuf_appends(t, "}");
        break;
    }
    default:
        break;
    }
}

/* Whether v is a string equal to one of words. */
static bool json_in(const pc_json_doc *doc, pc_json_ref v, const char *const *words, size_t n)
{
    size_t len;
    const char *s = pc_json_string(doc, v, &len);
    for (size_t i = 0; s && i < n; i++)
        if (strlen(words[i]) == len && memcmp(s, words[i], len) == 0)
            return true;
    return false;
}

static void python_list(pc_strbuf *t, const char *const *words, size_t n)
{
    pc_strbuf_appends(t, "[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            pc_strbuf_appends(t, ", ");
        pc_config_repr_str(t, words[i], strlen(words[i]));
    }
    pc_strbuf_appends(t, "]");
}

static pc_status fail_not_one_of(const char *what, const char *const *words, size_t n)
{
    pc_strbuf t = TEXT_INIT;
    python_list(&t, words, n);
    pc_status s = pc_strbuf_error(&t) == PC_STRBUF_NOMEM
                      ? pc_config_out_of_memory()
                      : pc_error_set(PC_ERR_INVALID, "%s is invalid, it should be one of %s", what,
                                     pc_strbuf_str(&t));
    pc_strbuf_reset(&t);
    return s;
}

/* One "a-b" string of a rank or step list (get_step_or_rank_from_string). */
static pc_status check_step_range(const char *obj, const char *s, size_t len)
{
    const char *dash = memchr(s, '-', len);
    if (!dash || memchr(dash + 1, '-', len - (size_t)(dash + 1 - s)))
        return pc_error_set(PC_ERR_INVALID,
                            "The string parameter for %s only supports formats like \"3-5\". "
                            "Now string parameter for %s is \"%s\".",
                            obj, obj, s);
    int64_t a, b;
    bool abig, bbig;
    if (!pc_config_py_int(s, (size_t)(dash - s), 10, &a, &abig) ||
        !pc_config_py_int(dash + 1, len - (size_t)(dash + 1 - s), 10, &b, &bbig))
        return pc_error_set(PC_ERR_INVALID,
                            "The hyphen(-) must start and end with decimal numbers.");
    if (abig || bbig || a < 0 || a > STEP_RANK_MAX || b < 0 || b > STEP_RANK_MAX)
        return pc_error_set(PC_ERR_INVALID, "The boundaries must fall within the range of [0, %d].",
                            STEP_RANK_MAX);
    if (a > b)
        return pc_error_set(PC_ERR_INVALID,
                            "For the hyphen(-) in %s, the left boundary (%lld) cannot be greater "
                            "than the right boundary (%lld).",
                            obj, (long long)a, (long long)b);
    return PC_OK;
}

/* get_real_step_or_rank, without building the list (run_ut does not use it). */
static pc_status check_step_or_rank(const jctx *j, pc_json_ref list, const char *obj)
{
    const pc_json_doc *doc = j->doc;
    pc_json_type type = pc_json_type_of(doc, list);
    if (type == PC_JSON_INVALID || type == PC_JSON_NULL)
        return PC_OK;
    if (type != PC_JSON_ARRAY)
        return pc_error_set(PC_ERR_INVALID, "%s is invalid, it should be a list", obj);
    if (pc_json_count(doc, list) > STEP_RANK_MAX)
        return pc_error_set(PC_ERR_INVALID, "%s is invalid, its length cannot exceed %d", obj,
                            STEP_RANK_MAX);
    for (pc_json_ref e = pc_json_first(doc, list); e != PC_JSON_NONE; e = pc_json_next(doc, e)) {
        pc_json_type et = pc_json_type_of(doc, e);
        bool is_int = et == PC_JSON_INT || pc_json_is_big_integer(doc, e);
        if (!is_int && et != PC_JSON_STRING) {
            pc_strbuf t = TEXT_INIT;
            json_str(&t, j, e, true, 0);
            pc_status s =
                pc_strbuf_error(&t) == PC_STRBUF_NOMEM
                    ? pc_config_out_of_memory()
                    : pc_error_set(PC_ERR_INVALID, "%s element %s must be an integer or string.",
                                   obj, pc_strbuf_str(&t));
            pc_strbuf_reset(&t);
            return s;
        }
        if (is_int) {
            int64_t value = 0;
            bool in_range = et == PC_JSON_INT && pc_json_get_int64(doc, e, &value) == PC_OK &&
                            value >= 0 && value <= STEP_RANK_MAX;
            if (!in_range) {
                pc_strbuf t = TEXT_INIT;
                json_str(&t, j, e, true, 0);
                pc_status s = pc_strbuf_error(&t) == PC_STRBUF_NOMEM
                                  ? pc_config_out_of_memory()
                                  : pc_error_set(PC_ERR_INVALID,
                                                 "Each element of %s must be between 0 and "
                                                 "%d, currently it is %s.",
                                                 obj, STEP_RANK_MAX, pc_strbuf_str(&t));
                pc_strbuf_reset(&t);
                return s;
            }
            continue;
        }
        size_t len;
        const char *s = pc_json_string(doc, e, &len);
        pc_status st = check_step_range(obj, s, len);
        if (st != PC_OK)
            return st;
    }
    return PC_OK;
}

/* msprobe's CommonConfig checks, in its order. */
static pc_status check_common_config(const jctx *j, pc_json_ref root)
{
    static const char *const tasks[] = {"tensor", "statistics", "overflow_check", "free_benchmark",
                                        "run_ut", "grad_probe", "structure",      "exception_dump"};
    static const char *const levels[] = {"L0", "L1", "L2", "mix", "debug"};
    static const char *const precisions[] = {"low", "high"};
    const pc_json_doc *doc = j->doc;
    pc_status s = check_step_or_rank(j, pc_json_object_get(doc, root, "rank"), "rank");
    if (s == PC_OK)
        s = check_step_or_rank(j, pc_json_object_get(doc, root, "step"), "step");
    if (s != PC_OK)
        return s;
    pc_json_ref task = pc_json_object_get(doc, root, "task");
    if (pc_json_truthy(doc, task) && !json_in(doc, task, tasks, 8))
        return fail_not_one_of("task", tasks, 8);
    pc_json_ref dump_path = pc_json_object_get(doc, root, "dump_path");
    pc_json_type dump_type = pc_json_type_of(doc, dump_path);
    if (dump_type != PC_JSON_INVALID && dump_type != PC_JSON_NULL && dump_type != PC_JSON_STRING)
        return pc_error_set(PC_ERR_INVALID, "dump_path is invalid, it should be a string");
    pc_json_ref level = pc_json_object_get(doc, root, "level");
    if (pc_json_truthy(doc, level) && !json_in(doc, level, levels, 5))
        return fail_not_one_of("level", levels, 5);
    pc_json_ref loader = pc_json_object_get(doc, root, "enable_dataloader");
    if (loader != PC_JSON_NONE && pc_json_type_of(doc, loader) != PC_JSON_BOOL)
        return pc_error_set(PC_ERR_INVALID, "enable_dataloader is invalid, it should be a boolean");
    pc_json_ref async = pc_json_object_get(doc, root, "async_dump");
    if (async != PC_JSON_NONE && pc_json_type_of(doc, async) != PC_JSON_BOOL)
        return pc_error_set(PC_ERR_INVALID, "async_dump is invalid, it should be a boolean");
    if (pc_json_truthy(doc, async))
        pc_log_warning("async_dump is True, it may cause OOM when dumping large tensor.");
    pc_json_ref precision = pc_json_object_get(doc, root, "precision");
    if (precision != PC_JSON_NONE && !json_in(doc, precision, precisions, 2))
        return fail_not_one_of("precision", precisions, 2);
    return PC_OK;
}

typedef struct json_list_ctx {
    const pc_json_doc *doc;
    pc_json_ref *items;
} json_list_ctx;

static const char *json_list_get(const void *ctx, size_t i, size_t *len)
{
    const json_list_ctx *c = ctx;
    return pc_json_string(c->doc, c->items[i], len);
}

static pc_status json_api_list(const pc_json_doc *doc, pc_json_ref run_ut, const char *key,
                               pc_config_api_check is_api, pc_string_list *out)
{
    pc_json_ref list = pc_json_object_get(doc, run_ut, key);
    if (list == PC_JSON_NONE)
        return pc_config_list_reserve(out, 0) ? PC_OK : pc_config_out_of_memory();
    if (pc_json_type_of(doc, list) != PC_JSON_ARRAY)
        return pc_error_set(PC_ERR_INVALID, "%s must be a list type", key);
    size_t n = pc_json_count(doc, list);
    pc_json_ref *items = malloc((n ? n : 1) * sizeof *items);
    if (!items)
        return pc_config_out_of_memory();
    size_t i = 0;
    for (pc_json_ref e = pc_json_first(doc, list); e != PC_JSON_NONE; e = pc_json_next(doc, e))
        items[i++] = e;
    json_list_ctx ctx = {doc, items};
    str_items view = {n, json_list_get, &ctx};
    pc_status s = pc_config_check_api_list(key, &view, is_api, out);
    free(items);
    return s;
}

pc_status pc_config_parse_json(pc_config *out, const char *data, size_t size, const char *name,
                               pc_config_api_check is_api)
{
    if (!out || (!data && size) || !is_api)
        return pc_error_set(PC_ERR_INVALID, "pc_config_parse_json: missing argument");
    name = name ? name : "<json>";
    pc_json_doc *doc = NULL;
    pc_status s = pc_json_parse(&doc, data ? data : "", size, name);
    if (s != PC_OK)
        return pc_error_prefix(s, "Load json file %s failed", name);
    jctx j = {doc, data, size};
    pc_json_ref root = pc_json_root(doc);
    pc_string_list white = {0}, black = {0};
    char *path = NULL;
    if (pc_json_type_of(doc, root) != PC_JSON_OBJECT) {
        s = pc_error_set(PC_ERR_INVALID, "The config file %s must hold a JSON object, found %s.",
                         name, pc_json_type_name(pc_json_type_of(doc, root)));
        goto done;
    }
    s = check_common_config(&j, root);
    if (s != PC_OK)
        goto done;
    pc_json_ref run_ut = pc_json_object_get(doc, root, "run_ut");
    if (run_ut != PC_JSON_NONE && pc_json_type_of(doc, run_ut) != PC_JSON_OBJECT) {
        s = pc_error_set(PC_ERR_INVALID, "run_ut in %s must be a JSON object, found %s.", name,
                         pc_json_type_name(pc_json_type_of(doc, run_ut)));
        goto done;
    }
    s = json_api_list(doc, run_ut, "white_list", is_api, &white);
    if (s == PC_OK)
        s = json_api_list(doc, run_ut, "black_list", is_api, &black);
    if (s != PC_OK)
        goto done;
    pc_json_ref edp = pc_json_object_get(doc, run_ut, "error_data_path");
    size_t len = strlen(PC_CONFIG_DEFAULT_ERROR_DATA_PATH);
    const char *p = PC_CONFIG_DEFAULT_ERROR_DATA_PATH;
    if (edp != PC_JSON_NONE && !(p = pc_json_string(doc, edp, &len))) {
        s = pc_error_set(PC_ERR_INVALID, "error_data_path must be str type");
    } else if (!pc_config_path_exists(p, len)) {
        s = pc_error_set(PC_ERR_INVALID, "error_data_path: %s does not exist", p);
    } else if (!(path = strdup(p))) {
        s = pc_config_out_of_memory();
    }
done:
    pc_json_free(doc);
    if (s != PC_OK) {
        pc_config_release_parts(&white, &black, path);
        return s;
    }
    pc_config_list_free(&out->white_list);
    pc_config_list_free(&out->black_list);
    free(out->error_data_path);
    out->white_list = white;
    out->black_list = black;
    out->error_data_path = path;
    return PC_OK;
}

pc_status pc_config_load_json(pc_config *out, const char *path, pc_config_api_check is_api)
{
    return pc_config_load_file(out, path, "json", pc_config_parse_json, is_api);
}

pc_status pc_config_load(pc_config *out, const char *yaml_path, const char *json_path,
                         pc_config_api_check is_api)
{
    if (!out)
        return pc_error_set(PC_ERR_INVALID, "pc_config_load: missing argument");
    pc_config merged = {0};
    pc_status s = pc_config_load_yaml(&merged, yaml_path, is_api);
    if (s == PC_OK && json_path)
        s = pc_config_load_json(&merged, json_path, is_api);
    if (s != PC_OK) {
        pc_config_free(&merged);
        return s;
    }
    pc_config_free(out);
    *out = merged;
    return PC_OK;
}
