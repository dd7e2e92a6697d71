/*
 * One API's records out of a dump.json: msprobe op_generate's extract_api_path, and a one-API
 * dump of its own with its tensor files (precheck repro and op_generate's precheck inputs
 * materialise it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "precheck/dump/dump_write.h"
#include "precheck/io/file_out.h"
#include "precheck/io/json.h"
#include "precheck/io/path_check.h"
#include "precheck/repro/repro.h"

typedef struct extract {
    const pc_json_doc *doc;
    pc_repro_extract_form form;
    char src_dir[PC_PATH_BUFFER_SIZE]; /* <dump folder>/dump_tensor_data */
    char dst_dir[PC_PATH_BUFFER_SIZE]; /* DUMP form: <out folder>/dump_tensor_data */
    bool dst_made;
} extract;

static bool key_is(const pc_json_doc *doc, pc_json_ref k, const char *name)
{
    size_t len;
    const char *s = pc_json_string(doc, k, &len);
    return s && len == strlen(name) && memcmp(s, name, len) == 0;
}

/* The key matches msprobe's ^<api>\..+ */
static bool key_of_api(const char *key, size_t len, const char *api)
{
    size_t n = strlen(api);
    return len > n + 1 && memcmp(key, api, n) == 0 && key[n] == '.';
}

/* A file named by a record, linked (or copied) into the one-API dump's dump_tensor_data. */
static pc_status bring_file(extract *x, const char *name)
{
    if (!pc_path_chars_valid(name, false) || strchr(name, '/') || name[0] == '.')
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "the tensor file %s is not a plain file name under dump_tensor_data",
                            name);
    if (!x->dst_made) {
        pc_status st = pc_path_make_dir(x->dst_dir);
        if (st != PC_OK)
            return st;
        x->dst_made = true;
    }
    char src[2 * PC_PATH_BUFFER_SIZE], dst[2 * PC_PATH_BUFFER_SIZE];
    snprintf(src, sizeof src, "%s/%s", x->src_dir, name);
    snprintf(dst, sizeof dst, "%s/%s", x->dst_dir, name);
    if (access(dst, F_OK) == 0)
        return PC_OK;
    pc_status st = pc_path_check(src, PC_PATH_FILE, PC_PATH_READ, NULL, NULL, 0);
    if (st != PC_OK)
        return pc_error_prefix(st, "a tensor file of the API");
    if (link(src, dst) == 0)
        return PC_OK;
    /* another file system: a copy */
    FILE *in = fopen(src, "rb");
    if (!in)
        return pc_error_set(PC_ERR_IO, "cannot open %s: %s", src, strerror(errno));
    pc_file_out fo;
    st = pc_file_out_open(&fo, dst, PC_FILE_OUT_NO_SYNC);
    if (st == PC_OK) {
        char buf[1 << 16];
        size_t r;
        while ((r = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, r, fo.f);
        st = ferror(in) ? pc_error_set(PC_ERR_IO, "cannot read %s", src) : pc_file_out_commit(&fo);
        pc_file_out_free(&fo);
    }
    fclose(in);
    return st;
}

/* Python's os.path.join(dir, name) */
static void join(char *buf, size_t size, const char *dir, const char *name)
{
    if (name[0] == '/')
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "%s/%s", dir, name);
}

/* Writes v; in MSPROBE form a data_name under one of msprobe's parameters becomes its path, in
 * DUMP form every named file is brought along. */
static pc_status write_value(extract *x, pc_json_writer *w, pc_json_ref v, bool paths)
{
    const pc_json_doc *doc = x->doc;
    pc_json_type t = pc_json_type_of(doc, v);
    if (t == PC_JSON_ARRAY) {
        pc_json_write_begin_array(w);
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE; e = pc_json_next(doc, e)) {
            pc_status st = write_value(x, w, e, paths);
            if (st != PC_OK)
                return st;
        }
        pc_json_write_end_array(w);
        return PC_OK;
    }
    if (t != PC_JSON_OBJECT) {
        pc_json_write_copy(w, doc, v, NULL, 0);
        return PC_OK;
    }
    pc_json_write_begin_object(w);
    for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
        size_t len;
        const char *key = pc_json_string(doc, k, &len);
        pc_json_ref val = pc_json_member_value(doc, k);
        pc_json_write_key(w, key, len);
        const char *s = pc_json_string(doc, val, NULL);
        bool file_key = key_is(doc, k, "data_name") || key_is(doc, k, "datapath");
        if (file_key && s && x->form == PC_REPRO_EXTRACT_DUMP) {
            pc_status st = bring_file(x, s);
            if (st != PC_OK)
                return st;
        }
        if (key_is(doc, k, "data_name") && s && paths) {
            char path[2 * PC_PATH_BUFFER_SIZE];
            join(path, sizeof path, x->src_dir, s);
            pc_json_write_string(w, path, strlen(path));
            continue;
        }
        bool sub = paths;
        if (x->form == PC_REPRO_EXTRACT_MSPROBE && !paths)
            sub = key_is(doc, k, "input_args") || key_is(doc, k, "input") ||
                  key_is(doc, k, "output") || key_is(doc, k, "grad_input") ||
                  key_is(doc, k, "grad_output");
        pc_status st = write_value(x, w, val, sub);
        if (st != PC_OK)
            return st;
    }
    pc_json_write_end_object(w);
    return PC_OK;
}

pc_status pc_repro_extract(const char *dump_json, const char *api_full_name, const char *out_path,
                           pc_repro_extract_form form, size_t *entries)
{
    pc_json_doc *doc = NULL;
    pc_status st = pc_json_parse_file(&doc, dump_json);
    if (st != PC_OK)
        return st;
    extract x = {.doc = doc, .form = form};
    const char *slash = strrchr(dump_json, '/');
    int dirlen = slash ? (int)(slash - dump_json) : 1;
    snprintf(x.src_dir, sizeof x.src_dir, "%.*s/dump_tensor_data", dirlen, slash ? dump_json : ".");
    const char *oslash = strrchr(out_path, '/');
    int odirlen = oslash ? (int)(oslash - out_path) : 1;
    snprintf(x.dst_dir, sizeof x.dst_dir, "%.*s/dump_tensor_data", odirlen,
             oslash ? out_path : ".");

    pc_json_ref root = pc_json_root(doc);
    pc_json_ref data = pc_json_object_get(doc, root, "data");
    size_t found = 0;
    for (pc_json_ref k = pc_json_first(doc, data); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
        size_t len;
        const char *key = pc_json_string(doc, k, &len);
        found += key_of_api(key, len, api_full_name);
    }
    if (pc_json_type_of(doc, root) != PC_JSON_OBJECT || found == 0) {
        pc_json_free(doc);
        return pc_error_set(PC_ERR_NOT_FOUND,
                            "API %s is not in %s (no key %s.forward or %s.backward under "
                            "\"data\"); give a full name from it, e.g. Functional.softmax.0",
                            api_full_name, dump_json, api_full_name, api_full_name);
    }

    pc_file_out fo;
    st = pc_file_out_open(&fo, out_path, PC_FILE_OUT_REPLACE);
    if (st != PC_OK) {
        pc_json_free(doc);
        return st;
    }
    pc_json_writer w;
    pc_json_writer_init(&w, fo.f, form == PC_REPRO_EXTRACT_MSPROBE ? 4 : 1, PC_JSON_ENSURE_ASCII);
    pc_json_write_begin_object(&w);
    if (form == PC_REPRO_EXTRACT_DUMP)
        for (pc_json_ref k = pc_json_first(doc, root); k != PC_JSON_NONE;
             k = pc_json_next(doc, k)) {
            if (key_is(doc, k, "data"))
                break;
            size_t len;
            const char *key = pc_json_string(doc, k, &len);
            pc_json_write_key(&w, key, len);
            pc_json_write_copy(&w, doc, pc_json_member_value(doc, k), NULL, 0);
        }
    if (form == PC_REPRO_EXTRACT_DUMP) {
        pc_json_write_key(&w, "data", 4);
        pc_json_write_begin_object(&w);
    }
    for (pc_json_ref k = pc_json_first(doc, data); k != PC_JSON_NONE && st == PC_OK;
         k = pc_json_next(doc, k)) {
        size_t len;
        const char *key = pc_json_string(doc, k, &len);
        if (!key_of_api(key, len, api_full_name))
            continue;
        pc_json_write_key(&w, key, len);
        st = write_value(&x, &w, pc_json_member_value(doc, k), false);
    }
    if (form == PC_REPRO_EXTRACT_DUMP)
        pc_json_write_end_object(&w);
    pc_json_write_end_object(&w);
    if (st == PC_OK)
        st = pc_json_writer_finish(&w);
    if (st == PC_OK)
        st = pc_file_out_commit(&fo);
    pc_file_out_free(&fo);
    pc_json_free(doc);
    if (st == PC_OK && entries)
        *entries = found;
    return st;
}

static char *read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

pc_status pc_repro_extract_read(const char *path, bool backward, pc_dump **out)
{
    pc_status st = pc_path_check(path, PC_PATH_FILE, PC_PATH_READ, ".json", NULL, 0);
    if (st != PC_OK)
        return st;
    pc_json_doc *doc = NULL;
    st = pc_json_parse_file(&doc, path);
    if (st != PC_OK)
        return st;
    pc_json_ref root = pc_json_root(doc);
    const char *why = NULL;
    size_t n = pc_json_count(doc, root);
    pc_json_ref first = pc_json_first(doc, root);
    if (!pc_json_truthy(doc, root))
        why = "json file is empty!";
    else if (pc_json_type_of(doc, root) != PC_JSON_OBJECT)
        why = "content of json file is not a dict!";
    else if (n > 2)
        why = "json file has more than one API, the API only contains forward and backward info";
    else if (pc_json_type_of(doc, pc_json_member_value(doc, first)) != PC_JSON_OBJECT ||
             !pc_json_truthy(doc, pc_json_member_value(doc, first)))
        why = "Invalid forward API data in json_content!";
    else if (backward && n < 2)
        why = "Backward propagation requires contains forward and backward info!";
    else if (backward) {
        pc_json_ref second = pc_json_next(doc, first);
        pc_json_ref v = pc_json_member_value(doc, second);
        if (pc_json_type_of(doc, v) != PC_JSON_OBJECT || !pc_json_truthy(doc, v))
            why = "Invalid backward API data in json_content!";
    }
    pc_json_free(doc);
    if (why)
        return pc_error_set(PC_ERR_INVALID,
                            "%s: %s (extract_api_path must hold one API's forward entry, and its "
                            "backward entry for propagation backward: give dump_json_path and "
                            "api_name to have it written)",
                            path, why);
    size_t size = 0;
    char *text = read_whole(path, &size);
    if (!text)
        return pc_error_set(PC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    static const char head[] = "{\"task\": \"tensor\", \"level\": \"L1\", \"dump_data_dir\": "
                               "null, \"data\": ";
    size_t total = sizeof head - 1 + size + 2;
    char *wrapped = malloc(total);
    if (!wrapped) {
        free(text);
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    }
    memcpy(wrapped, head, sizeof head - 1);
    memcpy(wrapped + sizeof head - 1, text, size);
    memcpy(wrapped + sizeof head - 1 + size, "\n}", 2);
    free(text);
    st = pc_dump_parse(out, wrapped, total, path);
    free(wrapped);
    return st;
}
