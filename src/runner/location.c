/*
 * stack.json and construct.json of a dump's folder, for where each API sits in the user's
 * model (runner/location.h). Both files are parsed whole (they are small beside dump.json:
 * one stack per name, or per group of names from msprobe 8.1.1 on); the names are then sorted
 * for look-ups by binary search.
 */
#include "precheck/runner/location.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "precheck/core/log.h"
#include "precheck/io/json.h"

/* Deepest module chain followed in construct.json (a cycle in a damaged file stops here). */
#define MODULE_DEPTH_MAX 64

typedef struct stack {
    pc_frame *frames;
    char **texts; /* each frame's own copy, taken apart in place */
    size_t n;
    const pc_frame *user;
} stack;

typedef struct named {
    const char *name;   /* in the owning document */
    size_t index;       /* stack: into stacks[]; construct: unused */
    const char *parent; /* construct: the parent module, NULL for null */
} named;

struct pc_locations {
    pc_json_doc *stack_doc, *construct_doc;
    stack *stacks;
    size_t n_stacks;
    named *by_stack; /* sorted by name */
    size_t n_by_stack;
    named *by_module; /* sorted by name */
    size_t n_by_module;
    /* module chains handed out by pc_locations_find, built once per name at load */
    const char **chains; /* n_by_module chains of chain_len[i] names, outermost first */
    size_t *chain_start, *chain_len;
};

static int by_name(const void *a, const void *b)
{
    return strcmp(((const named *)a)->name, ((const named *)b)->name);
}

static const named *find_named(const named *list, size_t n, const char *name)
{
    named key = {.name = name};
    return n ? bsearch(&key, list, n, sizeof *list, by_name) : NULL;
}

bool pc_location_frame_is_library(const char *file)
{
    if (!file || !*file || *file == '<')
        return true;
    static const char *const parts[] = {
        "site-packages", "dist-packages", "torch", "torch_npu", "msprobe",
    };
    /* a folder of the path with one of these names */
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t n = strlen(parts[i]);
        for (const char *p = strstr(file, parts[i]); p; p = strstr(p + 1, parts[i])) {
            bool starts = p == file || p[-1] == '/' || p[-1] == '\\';
            bool ends = p[n] == '/' || p[n] == '\\';
            if (starts && ends)
                return true;
        }
    }
    /* Python's own library: .../lib/python3.10/..., .../lib64/python3.9/... */
    static const char *const libs[] = {"/lib/python", "/lib64/python", "\\Lib\\"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        for (const char *p = strstr(file, libs[i]); p; p = strstr(p + 1, libs[i])) {
            const char *v = p + strlen(libs[i]);
            if (i == 2 || (*v >= '0' && *v <= '9'))
                return true;
        }
    return false;
}

/* Takes "File <file>, line <n>, in <function>, \n <code>" apart in text (modified in place). */
static void frame_parse(pc_frame *f, char *text, const char *original)
{
    *f = (pc_frame){.text = original, .file = text, .line = 0, .function = "", .code = ""};
    if (strncmp(text, "File ", 5) != 0)
        return;
    char *line = strstr(text, ", line ");
    if (!line)
        return;
    char *end;
    long n = strtol(line + 7, &end, 10);
    if (end == line + 7)
        return;
    *line = 0;
    f->file = text + 5;
    f->line = n;
    if (strncmp(end, ", in ", 5) == 0) {
        char *fn = end + 5;
        size_t len = strcspn(fn, ",\n");
        char *rest = fn + len;
        bool more = *rest != 0;
        *rest = 0;
        f->function = fn;
        if (more) {
            char *nl = strchr(rest + 1, '\n');
            if (nl) {
                char *code = nl + 1;
                while (*code == ' ' || *code == '\t')
                    code++;
                size_t cl = strlen(code);
                while (cl && (code[cl - 1] == ' ' || code[cl - 1] == '\n' || code[cl - 1] == '\r'))
                    code[--cl] = 0;
                f->code = code;
            }
        }
    }
}

/* The frames of a JSON array of strings into a new stack; false when it is not one. */
static pc_status stack_add(pc_locations *l, const pc_json_doc *d, pc_json_ref frames, bool *ok)
{
    *ok = pc_json_type_of(d, frames) == PC_JSON_ARRAY;
    if (!*ok)
        return PC_OK;
    size_t n = pc_json_count(d, frames);
    stack *grown = realloc(l->stacks, (l->n_stacks + 1) * sizeof *grown);
    if (!grown)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    l->stacks = grown;
    stack *s = &l->stacks[l->n_stacks++];
    *s = (stack){0};
    s->frames = calloc(n ? n : 1, sizeof *s->frames);
    s->texts = calloc(n ? n : 1, sizeof *s->texts);
    if (!s->frames || !s->texts)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    for (pc_json_ref v = pc_json_first(d, frames); v != PC_JSON_NONE; v = pc_json_next(d, v)) {
        const char *t = pc_json_string(d, v, NULL);
        if (!t) {
            *ok = false;
            return PC_OK;
        }
        size_t len = strlen(t);
        char *copy = malloc(len + 1);
        if (!copy)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        memcpy(copy, t, len + 1);
        s->texts[s->n] = copy;
        frame_parse(&s->frames[s->n], copy, t);
        if (!s->user && !pc_location_frame_is_library(s->frames[s->n].file))
            s->user = &s->frames[s->n];
        s->n++;
    }
    return PC_OK;
}

static pc_status name_add(named **list, size_t *n, size_t *cap, named item)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        named *g = realloc(*list, c * sizeof *g);
        if (!g)
            return pc_error_set(PC_ERR_NOMEM, "out of memory");
        *list = g;
        *cap = c;
    }
    (*list)[(*n)++] = item;
    return PC_OK;
}

/* A file of the dump's folder, parsed; NULL (and no message) when it is not there, NULL with a
 * WARNING when it is there and cannot be read or parsed. */
static pc_json_doc *read_json(const char *dir, const char *file)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : ".", file);
    struct stat sb;
    if (n < 0 || (size_t)n >= sizeof path || stat(path, &sb) != 0)
        return NULL;
    pc_json_doc *d = NULL;
    if (pc_json_parse_file(&d, path) != PC_OK) {
        pc_log_warning("%s is left out: %s. The APIs' places in the model are not shown.", file,
                       pc_error_message());
        return NULL;
    }
    return d;
}

static void malformed(const pc_json_doc *d, pc_json_ref v, const char *file, const char *what)
{
    size_t line, col;
    pc_json_location(d, v, &line, &col);
    pc_log_warning("%s is left out: %s:%zu:%zu: %s (msprobe's layouts: docs/guide.md). The APIs' "
                   "places in the model are not shown.",
                   file, pc_json_doc_name(d), line, col, what);
}

/* stack.json, both layouts; false (after a WARNING) when it is neither. */
static pc_status load_stacks(pc_locations *l, bool *ok)
{
    const pc_json_doc *d = l->stack_doc;
    pc_json_ref root = pc_json_root(d);
    size_t cap = 0;
    *ok = pc_json_type_of(d, root) == PC_JSON_OBJECT;
    if (!*ok) {
        malformed(d, root, "stack.json", "expected an object");
        return PC_OK;
    }
    for (pc_json_ref k = pc_json_first(d, root); k != PC_JSON_NONE; k = pc_json_next(d, k)) {
        pc_json_ref v = pc_json_member_value(d, k);
        pc_json_ref names = PC_JSON_NONE, frames = v;
        /* from 8.1.1: [[names], [frames]] */
        pc_json_ref first = pc_json_first(d, v);
        if (pc_json_type_of(d, v) == PC_JSON_ARRAY && pc_json_count(d, v) == 2 &&
            pc_json_type_of(d, first) == PC_JSON_ARRAY) {
            names = first;
            frames = pc_json_next(d, first);
        }
        pc_status st = stack_add(l, d, frames, ok);
        if (st != PC_OK)
            return st;
        if (!*ok) {
            malformed(d, v, "stack.json", "expected a list of frames (strings)");
            return PC_OK;
        }
        size_t index = l->n_stacks - 1;
        if (names == PC_JSON_NONE) {
            st = name_add(&l->by_stack, &l->n_by_stack, &cap,
                          (named){pc_json_string(d, k, NULL), index, NULL});
        } else {
            for (pc_json_ref nm = pc_json_first(d, names); nm != PC_JSON_NONE && st == PC_OK;
                 nm = pc_json_next(d, nm)) {
                const char *s = pc_json_string(d, nm, NULL);
                if (!s) {
                    malformed(d, nm, "stack.json", "expected an API name (a string)");
                    *ok = false;
                    return PC_OK;
                }
                st = name_add(&l->by_stack, &l->n_by_stack, &cap, (named){s, index, NULL});
            }
        }
        if (st != PC_OK)
            return st;
    }
    if (l->n_by_stack > 1)
        qsort(l->by_stack, l->n_by_stack, sizeof *l->by_stack, by_name);
    return PC_OK;
}

/* construct.json: name -> parent module (or null); false (after a WARNING) when it is not. */
static pc_status load_modules(pc_locations *l, bool *ok)
{
    const pc_json_doc *d = l->construct_doc;
    pc_json_ref root = pc_json_root(d);
    size_t cap = 0;
    *ok = pc_json_type_of(d, root) == PC_JSON_OBJECT;
    if (!*ok) {
        malformed(d, root, "construct.json", "expected an object");
        return PC_OK;
    }
    for (pc_json_ref k = pc_json_first(d, root); k != PC_JSON_NONE; k = pc_json_next(d, k)) {
        pc_json_ref v = pc_json_member_value(d, k);
        pc_json_type t = pc_json_type_of(d, v);
        if (t != PC_JSON_STRING && t != PC_JSON_NULL) {
            malformed(d, v, "construct.json", "expected a module name or null");
            *ok = false;
            return PC_OK;
        }
        pc_status st = name_add(&l->by_module, &l->n_by_module, &cap,
                                (named){pc_json_string(d, k, NULL), 0, pc_json_string(d, v, NULL)});
        if (st != PC_OK)
            return st;
    }
    if (l->n_by_module > 1)
        qsort(l->by_module, l->n_by_module, sizeof *l->by_module, by_name);
    /* each name's chain of modules, outermost first */
    l->chain_start = calloc(l->n_by_module ? l->n_by_module : 1, sizeof *l->chain_start);
    l->chain_len = calloc(l->n_by_module ? l->n_by_module : 1, sizeof *l->chain_len);
    if (!l->chain_start || !l->chain_len)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    size_t used = 0, chain_cap = 0;
    for (size_t i = 0; i < l->n_by_module; i++) {
        const char *up[MODULE_DEPTH_MAX];
        size_t depth = 0;
        for (const char *p = l->by_module[i].parent; p && depth < MODULE_DEPTH_MAX;) {
            up[depth++] = p;
            const named *m = find_named(l->by_module, l->n_by_module, p);
            p = m ? m->parent : NULL;
        }
        if (used + depth > chain_cap) {
            size_t c = chain_cap ? 2 * chain_cap : 256;
            while (c < used + depth)
                c *= 2;
            const char **g = realloc(l->chains, c * sizeof *g);
            if (!g)
                return pc_error_set(PC_ERR_NOMEM, "out of memory");
            l->chains = g;
            chain_cap = c;
        }
        l->chain_start[i] = used;
        l->chain_len[i] = depth;
        for (size_t j = 0; j < depth; j++)
            l->chains[used + j] = up[depth - 1 - j];
        used += depth;
    }
    return PC_OK;
}

static void stacks_free(pc_locations *l)
{
    for (size_t i = 0; i < l->n_stacks; i++) {
        for (size_t j = 0; l->stacks[i].texts && j < l->stacks[i].n; j++)
            free(l->stacks[i].texts[j]);
        free(l->stacks[i].texts);
        free(l->stacks[i].frames);
    }
    free(l->stacks);
    free(l->by_stack);
    l->stacks = NULL;
    l->by_stack = NULL;
    l->n_stacks = l->n_by_stack = 0;
}

pc_status pc_locations_load(pc_locations **out, const char *dump_dir)
{
    *out = NULL;
    pc_locations *l = calloc(1, sizeof *l);
    if (!l)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    pc_status st = PC_OK;
    bool ok = true;
    l->stack_doc = read_json(dump_dir, "stack.json");
    if (l->stack_doc && (st = load_stacks(l, &ok)) == PC_OK && !ok)
        stacks_free(l); /* a malformed stack.json: none of it */
    l->construct_doc = st == PC_OK ? read_json(dump_dir, "construct.json") : NULL;
    if (l->construct_doc && (st = load_modules(l, &ok)) == PC_OK && !ok) {
        free(l->by_module);
        free(l->chains);
        free(l->chain_start);
        free(l->chain_len);
        l->by_module = NULL;
        l->chains = NULL;
        l->chain_start = l->chain_len = NULL;
        l->n_by_module = 0;
    }
    if (st != PC_OK) {
        pc_locations_free(l);
        return st;
    }
    *out = l;
    return PC_OK;
}

pc_status pc_locations_load_for_dump(pc_locations **out, const char *dump_json_path)
{
    const char *slash = dump_json_path ? strrchr(dump_json_path, '/') : NULL;
    if (!slash)
        return pc_locations_load(out, ".");
    size_t n = (size_t)(slash - dump_json_path);
    char *dir = malloc(n + 2);
    if (!dir)
        return pc_error_set(PC_ERR_NOMEM, "out of memory");
    memcpy(dir, dump_json_path, n);
    dir[n] = 0;
    if (n == 0) /* "/dump.json" */
        memcpy(dir, "/", 2);
    pc_status st = pc_locations_load(out, dir);
    free(dir);
    return st;
}

size_t pc_locations_count(const pc_locations *l)
{
    return l ? l->n_by_stack + l->n_by_module : 0;
}

bool pc_locations_find(const pc_locations *l, const char *full_name, pc_location *out)
{
    *out = (pc_location){0};
    if (!l || !full_name)
        return false;
    static const char *const directions[] = {".forward", ".backward"};
    char key[1024];
    bool found = false;
    for (size_t i = 0; i < 2 && !found; i++) {
        int n = snprintf(key, sizeof key, "%s%s", full_name, directions[i]);
        if (n < 0 || (size_t)n >= sizeof key)
            return false;
        const named *s = find_named(l->by_stack, l->n_by_stack, key);
        if (s && !out->frames) {
            const stack *st = &l->stacks[s->index];
            out->frames = st->frames;
            out->n_frames = st->n;
            out->user = st->user;
        }
        const named *m = find_named(l->by_module, l->n_by_module, key);
        if (m && !out->n_modules) {
            size_t at = (size_t)(m - l->by_module);
            out->modules = l->chains + l->chain_start[at];
            out->n_modules = l->chain_len[at];
        }
        found = out->frames || out->n_modules;
    }
    return found;
}

void pc_locations_free(pc_locations *l)
{
    if (!l)
        return;
    stacks_free(l);
    free(l->by_module);
    free(l->chains);
    free(l->chain_start);
    free(l->chain_len);
    pc_json_free(l->stack_doc);
    pc_json_free(l->construct_doc);
    free(l);
}
