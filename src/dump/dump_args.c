#include "dump/dump_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- locations and messages ---- */

size_t pc_count_newlines(const char *data, size_t n)
{
    /* Eight bytes at a time: t has 0x80 exactly in the bytes of y that are zero, i.e. where
     * the input byte is '\n'. */
    const uint64_t ones7 = 0x7F7F7F7F7F7F7F7FULL, nl = 0x0A0A0A0A0A0A0A0AULL;
    size_t count = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, data + i, 8);
        uint64_t y = w ^ nl;
        uint64_t t = ~(((y & ones7) + ones7) | y | ones7);
        count += (size_t)(((t >> 7) * 0x0101010101010101ULL) >> 56); /* sum of the 0/1 bytes */
    }
    for (; i < n; i++)
        count += data[i] == '\n';
    return count;
}

void pc_entry_location(const pc_entry_builder *b, size_t offset, size_t *line, size_t *column)
{
    /* The document is tokenised over the whole file, so its locator knows the file's lines
     * (counting back to the line's start here cost a whole line per message: the whole file
     * when it is written on one line). */
    pc_json_doc_offset_location(b->doc, offset, line, column);
}

static char *arena_printf(pc_entry_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static char *arena_printf(pc_entry_builder *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *s = pc_arena_alloc(b->arena, (size_t)n + 1);
    if (!s) {
        b->oom = true;
        return NULL;
    }
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* "<path>: <what> (<file>:<line>:<col>)", the position being that of token at; without
 * "<path>: " for the entry itself. */
const char *pc_entry_error_at(pc_entry_builder *b, pc_json_ref at, const char *what)
{
    size_t line, col;
    pc_entry_location(b, pc_json_offset(b->doc, at), &line, &col);
    if (!b->path_len)
        return arena_printf(b, "%s (%s:%zu:%zu)", what, b->name, line, col);
    return arena_printf(b, "%s: %s (%s:%zu:%zu)", b->path, what, b->name, line, col);
}

const char *pc_entry_found_name(const pc_json_doc *doc, pc_json_ref v)
{
    if (pc_json_is_big_integer(doc, v))
        return "an integer outside the 64-bit range";
    return pc_json_type_name(pc_json_type_of(doc, v));
}

/* Appends to the path; returns the old length to restore. */
static size_t path_push(pc_entry_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static size_t path_push(pc_entry_builder *b, const char *fmt, ...)
{
    size_t old = b->path_len;
    if (old + 4 >= sizeof b->path)
        return old;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->path + old, sizeof b->path - old, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (old + (size_t)n >= sizeof b->path) {
        memcpy(b->path + sizeof b->path - 4, "...", 4);
        b->path_len = sizeof b->path - 1;
    } else {
        b->path_len = old + (size_t)n;
    }
    return old;
}

/* path_push(b, "[%zu]", i) without printf: this runs for every list element. */
static size_t path_push_index(pc_entry_builder *b, size_t i)
{
    size_t old = b->path_len;
    char digits[24];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + i % 10);
        i /= 10;
    } while (i);
    if (old + n + 3 >= sizeof b->path)
        return path_push(b, "%s", "[...]");
    char *p = b->path + old;
    *p++ = '[';
    while (n)
        *p++ = digits[--n];
    *p++ = ']';
    *p = '\0';
    b->path_len = (size_t)(p - b->path);
    return old;
}

static void path_pop(pc_entry_builder *b, size_t old)
{
    b->path_len = old;
    b->path[old] = '\0';
}

static char *copy_string(pc_entry_builder *b, const char *s, size_t len)
{
    char *p = pc_arena_strndup(b->arena, s, len);
    if (!p)
        b->oom = true;
    return p;
}

/* ---- Python dict order over an object with duplicate keys ----
 * json.loads keeps the position of a key's first occurrence and the value of its last. The
 * members to emit are written to out as (first key, last value) pairs; returns their count. */

static int keys_equal(const pc_json_doc *doc, pc_json_ref a, pc_json_ref b)
{
    size_t la, lb;
    const char *sa = pc_json_string(doc, a, &la), *sb = pc_json_string(doc, b, &lb);
    return la == lb && memcmp(sa, sb, la) == 0;
}

typedef struct sort_item {
    const char *s;
    size_t len;
    size_t pos;
} sort_item;

static int compare_sort_item(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->s, b->s, n);
    if (c)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* out has room for pc_json_count(obj) members. Returns (size_t)-1 when out of memory. */
static size_t dict_members(const pc_json_doc *doc, pc_json_ref obj, pc_entry_dict_member *out)
{
    size_t n = 0;
    for (pc_json_ref k = pc_json_first(doc, obj); k != PC_JSON_NONE; k = pc_json_next(doc, k))
        out[n++] = (pc_entry_dict_member){k, pc_json_member_value(doc, k)};
    if (n < 2)
        return n;
    if (n <= 16) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            size_t j;
            for (j = 0; j < m; j++)
                if (keys_equal(doc, out[j].key, out[i].key))
                    break;
            if (j < m)
                out[j].value = out[i].value; /* a later duplicate: its value wins */
            else
                out[m++] = out[i];
        }
        return m;
    }
    /* Large objects (hostile input): sort by (key, position) so that it stays O(n log n). */
    sort_item *items = malloc(n * sizeof *items);
    size_t *last = malloc(n * sizeof *last);
    if (!items || !last) {
        free(items);
        free(last);
        return (size_t)-1;
    }
    for (size_t i = 0; i < n; i++) {
        items[i].s = pc_json_string(doc, out[i].key, &items[i].len);
        items[i].pos = i;
        last[i] = SIZE_MAX; /* SIZE_MAX: not the first of its key */
    }
    qsort(items, n, sizeof *items, compare_sort_item);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && items[j + 1].len == items[i].len &&
               memcmp(items[j + 1].s, items[i].s, items[i].len) == 0)
            j++;
        last[items[i].pos] = items[j].pos;
        i = j + 1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (last[i] != SIZE_MAX)
            out[m++] = (pc_entry_dict_member){out[i].key, out[last[i]].value};
    free(items);
    free(last);
    return m;
}

bool pc_entry_dict_view_init(pc_entry_builder *b, pc_json_ref obj, pc_entry_dict_view *v)
{
    size_t n = pc_json_count(b->doc, obj);
    v->items = n <= 16 ? v->small : malloc(n * sizeof *v->items);
    if (!v->items) {
        b->oom = true;
        v->count = 0;
        return false;
    }
    v->count = dict_members(b->doc, obj, v->items);
    if (v->count == (size_t)-1) {
        b->oom = true;
        v->count = 0;
        return false;
    }
    return true;
}

void pc_entry_dict_view_free(pc_entry_dict_view *v)
{
    if (v->items != v->small)
        free(v->items);
}

/* ---- values ---- */

static void build_value(pc_entry_builder *b, pc_json_ref v, pc_dump_value *out)
{
    const pc_json_doc *doc = b->doc;
    memset(out, 0, sizeof *out);
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_NULL:
        out->kind = PC_DUMP_VALUE_NULL;
        break;
    case PC_JSON_BOOL: {
        bool x = false;
        pc_json_get_bool(doc, v, &x);
        out->kind = PC_DUMP_VALUE_BOOL;
        out->u.b = x;
        break;
    }
    case PC_JSON_INT: {
        int64_t x = 0;
        pc_json_get_int64(doc, v, &x);
        out->kind = PC_DUMP_VALUE_INT;
        out->u.i = x;
        break;
    }
    case PC_JSON_FLOAT:
        out->kind = PC_DUMP_VALUE_FLOAT;
        out->big_int = pc_json_is_big_integer(doc, v);
        out->u.f = pc_json_number(doc, v);
        break;
    case PC_JSON_STRING: {
        size_t len;
        const char *s = pc_json_string(doc, v, &len);
        out->kind = PC_DUMP_VALUE_STR;
        out->count = (uint32_t)len;
        out->u.s = copy_string(b, s, len);
        break;
    }
    case PC_JSON_ARRAY: {
        size_t n = pc_json_count(doc, v);
        pc_dump_value *items = pc_arena_alloc(b->arena, (n ? n : 1) * sizeof *items);
        if (!items) {
            b->oom = true;
            return;
        }
        size_t i = 0;
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE; e = pc_json_next(doc, e))
            build_value(b, e, &items[i++]);
        out->kind = PC_DUMP_VALUE_LIST;
        out->count = (uint32_t)n;
        out->u.items = items;
        break;
    }
    case PC_JSON_OBJECT: {
        pc_entry_dict_view view;
        if (!pc_entry_dict_view_init(b, v, &view))
            return;
        pc_dump_value_member *members =
            pc_arena_alloc(b->arena, (view.count ? view.count : 1) * sizeof *members);
        if (!members) {
            b->oom = true;
            pc_entry_dict_view_free(&view);
            return;
        }
        for (size_t i = 0; i < view.count; i++) {
            size_t len;
            const char *k = pc_json_string(doc, view.items[i].key, &len);
            members[i].key = copy_string(b, k, len);
            build_value(b, view.items[i].value, &members[i].value);
        }
        out->kind = PC_DUMP_VALUE_OBJECT;
        out->count = (uint32_t)view.count;
        out->u.members = members;
        pc_entry_dict_view_free(&view);
        break;
    }
    default:
        break;
    }
}

/* ---- record types ---- */

typedef struct type_row {
    const char *name;
    pc_dump_arg_kind kind;
} type_row;

static const type_row known_types[] = {
    {"torch.Tensor", PC_DUMP_ARG_TENSOR},
    {"torch.nn.parameter.Parameter", PC_DUMP_ARG_TENSOR},
    {"int", PC_DUMP_ARG_INT},
    {"float", PC_DUMP_ARG_FLOAT},
    {"bool", PC_DUMP_ARG_BOOL},
    {"str", PC_DUMP_ARG_STR},
    {"slice", PC_DUMP_ARG_SLICE},
    {"ellipsis", PC_DUMP_ARG_ELLIPSIS},
    {"torch.Size", PC_DUMP_ARG_SIZE},
    {"torch.dtype", PC_DUMP_ARG_DTYPE},
    {"torch.device", PC_DUMP_ARG_DEVICE},
};

/* numpy scalar class names as the dumper writes them (type(x).__name__), numpy 1.x and 2.x. */
static const char *const numpy_bare_names[] = {
    "int8",       "int16",       "int32",       "int64",   "uint8",    "uint16",     "uint32",
    "uint64",     "float16",     "float32",     "float64", "float128", "longdouble", "complex64",
    "complex128", "complex256",  "clongdouble", "bool_",   "str_",     "bytes_",     "longlong",
    "ulonglong",  "intc",        "uintc",       "intp",    "uintp",    "short",      "ushort",
    "byte",       "ubyte",       "half",        "single",  "double",   "csingle",    "cdouble",
    "datetime64", "timedelta64", "void",
};

/* The numpy types msprobe's gen_data accepts with the "numpy." prefix. */
static const char *const numpy_msprobe_names[] = {
    "numpy.int8",    "numpy.int16",    "numpy.int32",     "numpy.int64",      "numpy.uint8",
    "numpy.uint16",  "numpy.uint32",   "numpy.uint64",    "numpy.float16",    "numpy.float32",
    "numpy.float64", "numpy.float128", "numpy.complex64", "numpy.complex128", "numpy.complex256",
    "numpy.bool_",   "numpy.string_",  "numpy.bytes_",    "numpy.unicode_",
};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static bool in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

/* The kind of a record with type string t, and a static copy of t when there is one (so the
 * 10^6 "torch.Tensor" strings of a big dump are not copied). */
static pc_dump_arg_kind classify_type(const char *t, const char **static_name)
{
    for (size_t i = 0; i < COUNT_OF(known_types); i++)
        if (strcmp(t, known_types[i].name) == 0) {
            *static_name = known_types[i].name;
            return known_types[i].kind;
        }
    *static_name = NULL;
    if (strncmp(t, "numpy.", 6) == 0)
        return PC_DUMP_ARG_NUMPY;
    if (in_list(t, numpy_bare_names, COUNT_OF(numpy_bare_names)))
        return PC_DUMP_ARG_NUMPY;
    return PC_DUMP_ARG_OTHER;
}

/* ---- tensors ---- */

static bool key_is(const char *k, size_t len, const char *lit, size_t litlen)
{
    return len == litlen && memcmp(k, lit, litlen) == 0;
}
#define KEY_IS(k, len, lit) key_is((k), (len), (lit), sizeof(lit) - 1)

/* A string field ("data_name", "datapath", "md5"): NULL for null; an error for other types. */
static const char *string_field(pc_entry_builder *b, pc_json_ref v, const char *key,
                                pc_dump_arg *arg)
{
    pc_json_type t = pc_json_type_of(b->doc, v);
    if (t == PC_JSON_STRING) {
        size_t len;
        const char *s = pc_json_string(b->doc, v, &len);
        return copy_string(b, s, len);
    }
    if (t != PC_JSON_NULL && !arg->error) {
        char what[96];
        snprintf(what, sizeof what, "\"%s\" must be a string, found %s", key,
                 pc_entry_found_name(b->doc, v));
        arg->error = pc_entry_error_at(b, v, what);
    }
    return NULL;
}

static void build_tensor(pc_entry_builder *b, pc_json_ref obj, pc_dump_arg *arg)
{
    const pc_json_doc *doc = b->doc;
    pc_dump_tensor *t = pc_arena_calloc(b->arena, 1, sizeof *t);
    if (!t) {
        b->oom = true;
        return;
    }
    t->dtype = PC_DTYPE_INVALID;
    arg->u.tensor = t;
    /* In file order, so that a duplicated key ends with its last value, as in Python. */
    for (pc_json_ref k = pc_json_first(doc, obj); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
        size_t len;
        const char *key = pc_json_string(doc, k, &len);
        pc_json_ref v = pc_json_member_value(doc, k);
        pc_json_type vt = pc_json_type_of(doc, v);
        switch (key[0]) {
        case 'd':
            if (KEY_IS(key, len, "dtype")) {
                t->dtype_name = NULL;
                t->dtype = PC_DTYPE_INVALID;
                if (vt == PC_JSON_STRING) {
                    size_t sl;
                    const char *s = pc_json_string(doc, v, &sl);
                    const char *canon = b->last_dtype_name;
                    if (canon && strlen(canon) == sl && memcmp(canon, s, sl) == 0) {
                        /* the same dtype as the tensor before: most are */
                        t->dtype = b->last_dtype;
                        t->dtype_name = canon;
                        break;
                    }
                    t->dtype = strlen(s) == sl ? pc_dtype_from_torch_name(s) : PC_DTYPE_INVALID;
                    if (t->dtype != PC_DTYPE_INVALID &&
                        strcmp(s, pc_dtype_torch_name(t->dtype)) == 0) {
                        t->dtype_name = pc_dtype_torch_name(t->dtype);
                        b->last_dtype_name = t->dtype_name;
                        b->last_dtype = t->dtype;
                    } else {
                        t->dtype_name = copy_string(b, s, sl);
                    }
                } else if (vt != PC_JSON_NULL && !arg->error) {
                    char what[96];
                    snprintf(what, sizeof what, "\"dtype\" must be a string, found %s",
                             pc_entry_found_name(doc, v));
                    arg->error = pc_entry_error_at(b, v, what);
                }
            } else if (KEY_IS(key, len, "data_name")) {
                t->data_name = string_field(b, v, "data_name", arg);
            } else if (KEY_IS(key, len, "datapath")) {
                t->datapath = string_field(b, v, "datapath", arg);
            }
            break;
        case 's':
            if (KEY_IS(key, len, "shape")) {
                t->has_shape = false;
                t->rank = 0;
                t->shape = NULL;
                if (vt != PC_JSON_ARRAY) {
                    if (!arg->error) {
                        char what[96];
                        snprintf(what, sizeof what,
                                 "\"shape\" must be a list of integers, found %s",
                                 pc_entry_found_name(doc, v));
                        arg->error = pc_entry_error_at(b, v, what);
                    }
                    break;
                }
                size_t n = pc_json_count(doc, v);
                int64_t *dims = pc_arena_alloc(b->arena, (n ? n : 1) * sizeof *dims);
                if (!dims) {
                    b->oom = true;
                    return;
                }
                size_t i = 0;
                bool ok = true;
                for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE;
                     e = pc_json_next(doc, e), i++) {
                    if (pc_json_get_int64(doc, e, &dims[i]) != PC_OK) {
                        if (!arg->error) {
                            char what[128];
                            snprintf(what, sizeof what,
                                     "\"shape\" must be a list of integers, found %s at index "
                                     "%zu",
                                     pc_entry_found_name(doc, e), i);
                            arg->error = pc_entry_error_at(b, e, what);
                        }
                        ok = false;
                        break;
                    }
                }
                pc_error_clear();
                if (ok) {
                    t->has_shape = true;
                    t->rank = (int64_t)n;
                    t->shape = dims;
                }
            }
            break;
        case 'M':
            if (KEY_IS(key, len, "Max"))
                build_value(b, v, &t->max);
            else if (KEY_IS(key, len, "Min"))
                build_value(b, v, &t->min);
            else if (KEY_IS(key, len, "Mean"))
                build_value(b, v, &t->mean);
            else if (KEY_IS(key, len, "Max_except_inf_nan"))
                build_value(b, v, &t->max_except_inf_nan);
            else if (KEY_IS(key, len, "Min_except_inf_nan"))
                build_value(b, v, &t->min_except_inf_nan);
            break;
        case 'N':
            if (KEY_IS(key, len, "Norm"))
                build_value(b, v, &t->norm);
            break;
        case 'r':
            if (KEY_IS(key, len, "requires_grad"))
                t->requires_grad = pc_json_truthy(doc, v);
            break;
        case 'm':
            if (KEY_IS(key, len, "md5"))
                t->md5 = string_field(b, v, "md5", arg);
            break;
        default:
            break;
        }
    }
}

/* ---- arguments ---- */

static void build_arg(pc_entry_builder *b, pc_json_ref v, pc_dump_arg *arg, int depth);

static void set_error(pc_entry_builder *b, pc_dump_arg *arg, pc_json_ref at, const char *what)
{
    if (!arg->error)
        arg->error = pc_entry_error_at(b, at, what);
}

static void build_list(pc_entry_builder *b, pc_json_ref v, pc_dump_arg *arg, int depth)
{
    size_t n = pc_json_count(b->doc, v);
    pc_dump_arg *items = pc_arena_alloc(b->arena, (n ? n : 1) * sizeof *items); /* build_arg
                                                                                    zeroes */
    if (!items) {
        b->oom = true;
        return;
    }
    arg->kind = PC_DUMP_ARG_LIST;
    arg->u.list.items = items;
    arg->u.list.count = n;
    size_t i = 0;
    for (pc_json_ref e = pc_json_first(b->doc, v); e != PC_JSON_NONE && !b->oom;
         e = pc_json_next(b->doc, e), i++) {
        size_t old = path_push_index(b, i);
        build_arg(b, e, &items[i], depth + 1);
        path_pop(b, old);
    }
}

/* Fields of an object in Python dict order, each an argument. */
static void build_fields(pc_entry_builder *b, pc_json_ref v, const pc_dump_field **out,
                         size_t *count, int depth, bool kwargs_style)
{
    pc_entry_dict_view view;
    *out = NULL;
    *count = 0;
    if (!pc_entry_dict_view_init(b, v, &view))
        return;
    pc_dump_field *fields = pc_arena_calloc(b->arena, view.count ? view.count : 1, sizeof *fields);
    if (!fields) {
        b->oom = true;
        pc_entry_dict_view_free(&view);
        return;
    }
    for (size_t i = 0; i < view.count && !b->oom; i++) {
        size_t len;
        const char *k = pc_json_string(b->doc, view.items[i].key, &len);
        fields[i].key = copy_string(b, k, len);
        size_t old = kwargs_style ? path_push(b, "[\"%s\"]", k) : path_push(b, ".%s", k);
        build_arg(b, view.items[i].value, &fields[i].value, depth + 1);
        path_pop(b, old);
    }
    *out = fields;
    *count = view.count;
    pc_entry_dict_view_free(&view);
}

static void check_value(pc_entry_builder *b, pc_json_ref obj, pc_json_ref val, pc_dump_arg *arg)
{
    const pc_json_doc *doc = b->doc;
    pc_json_type vt = pc_json_type_of(doc, val);
    char what[256];
    const char *rec = arg->type;
    if (val == PC_JSON_NONE) {
        /* Records that are nothing without their value; an ellipsis, a device (replaced by
         * the run's device) and unknown types are kept as they are. */
        switch (arg->kind) {
        case PC_DUMP_ARG_INT:
        case PC_DUMP_ARG_FLOAT:
        case PC_DUMP_ARG_BOOL:
        case PC_DUMP_ARG_STR:
        case PC_DUMP_ARG_SLICE:
        case PC_DUMP_ARG_SIZE:
        case PC_DUMP_ARG_DTYPE:
            snprintf(what, sizeof what, "a \"%s\" record without \"value\"", rec);
            set_error(b, arg, obj, what);
            if (arg->kind == PC_DUMP_ARG_DTYPE)
                arg->u.dtype = PC_DTYPE_INVALID;
            return;
        default:
            return;
        }
    }
    switch (arg->kind) {
    case PC_DUMP_ARG_INT:
        if (vt == PC_JSON_INT)
            return;
        snprintf(what, sizeof what, "\"value\" of an int record must be an integer, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    case PC_DUMP_ARG_FLOAT:
        if (vt == PC_JSON_INT || vt == PC_JSON_FLOAT)
            return;
        snprintf(what, sizeof what, "\"value\" of a float record must be a number, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    case PC_DUMP_ARG_BOOL:
        if (vt == PC_JSON_BOOL)
            return;
        snprintf(what, sizeof what, "\"value\" of a bool record must be true or false, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    case PC_DUMP_ARG_STR:
        if (vt == PC_JSON_STRING)
            return;
        snprintf(what, sizeof what, "\"value\" of a str record must be a string, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    case PC_DUMP_ARG_SLICE: {
        if (vt == PC_JSON_ARRAY && pc_json_count(doc, val) == 3) {
            int64_t *dst[3] = {&arg->u.slice.start, &arg->u.slice.stop, &arg->u.slice.step};
            bool *has[3] = {&arg->u.slice.has_start, &arg->u.slice.has_stop,
                            &arg->u.slice.has_step};
            pc_json_ref e = pc_json_first(doc, val);
            for (int i = 0; i < 3; i++, e = pc_json_next(doc, e)) {
                if (pc_json_type_of(doc, e) == PC_JSON_NULL)
                    continue;
                if (pc_json_type_of(doc, e) != PC_JSON_INT) {
                    snprintf(what, sizeof what,
                             "\"value\" of a slice record must be [start, stop, step] of "
                             "integers or null, found %s at index %d",
                             pc_entry_found_name(doc, e), i);
                    set_error(b, arg, e, what);
                    return;
                }
                pc_json_get_int64(doc, e, dst[i]);
                *has[i] = true;
            }
            return;
        }
        snprintf(what, sizeof what,
                 "\"value\" of a slice record must be [start, stop, step], found %s%s",
                 vt == PC_JSON_ARRAY ? "a list of length " : pc_entry_found_name(doc, val),
                 vt == PC_JSON_ARRAY ? (pc_json_count(doc, val) < 3 ? "< 3" : "> 3") : "");
        set_error(b, arg, val, what);
        return;
    }
    case PC_DUMP_ARG_SIZE: {
        if (vt == PC_JSON_ARRAY) {
            size_t n = pc_json_count(doc, val);
            int64_t *dims = pc_arena_alloc(b->arena, (n ? n : 1) * sizeof *dims);
            if (!dims) {
                b->oom = true;
                return;
            }
            size_t i = 0;
            for (pc_json_ref e = pc_json_first(doc, val); e != PC_JSON_NONE;
                 e = pc_json_next(doc, e), i++) {
                if (pc_json_type_of(doc, e) != PC_JSON_INT) {
                    snprintf(what, sizeof what,
                             "\"value\" of a torch.Size record must be a list of integers, "
                             "found %s at index %zu",
                             pc_entry_found_name(doc, e), i);
                    set_error(b, arg, e, what);
                    return;
                }
                pc_json_get_int64(doc, e, &dims[i]);
            }
            arg->u.size.dims = dims;
            arg->u.size.rank = n;
            return;
        }
        snprintf(what, sizeof what,
                 "\"value\" of a torch.Size record must be a list of integers, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    }
    case PC_DUMP_ARG_DTYPE:
        if (vt == PC_JSON_STRING) {
            size_t len;
            const char *s = pc_json_string(doc, val, &len);
            arg->u.dtype = strlen(s) == len ? pc_dtype_from_torch_name(s) : PC_DTYPE_INVALID;
            return;
        }
        arg->u.dtype = PC_DTYPE_INVALID;
        snprintf(what, sizeof what, "\"value\" of a torch.dtype record must be a string, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    case PC_DUMP_ARG_DEVICE:
        if (vt == PC_JSON_STRING || vt == PC_JSON_INT)
            return;
        snprintf(what, sizeof what,
                 "\"value\" of a torch.device record must be a string or an integer, found %s",
                 pc_entry_found_name(doc, val));
        set_error(b, arg, val, what);
        return;
    default:
        return;
    }
}

static void build_record(pc_entry_builder *b, pc_json_ref v, pc_dump_arg *arg, int depth)
{
    const pc_json_doc *doc = b->doc;
    pc_json_ref type_ref = pc_json_object_get(doc, v, "type");
    if (type_ref == PC_JSON_NONE) {
        arg->kind = PC_DUMP_ARG_OBJECT;
        build_fields(b, v, &arg->u.object.fields, &arg->u.object.count, depth, false);
        return;
    }
    if (pc_json_type_of(doc, type_ref) != PC_JSON_STRING) {
        char what[96];
        arg->kind = PC_DUMP_ARG_OTHER;
        snprintf(what, sizeof what, "\"type\" must be a string, found %s",
                 pc_entry_found_name(doc, type_ref));
        set_error(b, arg, type_ref, what);
        build_value(b, pc_json_object_get(doc, v, "value"), &arg->value);
        return;
    }
    size_t tlen;
    const char *tname = pc_json_string(doc, type_ref, &tlen);
    const char *static_name = NULL;
    arg->kind = strlen(tname) == tlen ? classify_type(tname, &static_name) : PC_DUMP_ARG_OTHER;
    arg->type = static_name ? static_name : copy_string(b, tname, tlen);
    if (arg->kind == PC_DUMP_ARG_TENSOR) {
        build_tensor(b, v, arg);
        return;
    }
    pc_json_ref val = pc_json_object_get(doc, v, "value");
    build_value(b, val, &arg->value);
    if (arg->kind == PC_DUMP_ARG_NUMPY) {
        arg->u.numpy_prefixed = strncmp(tname, "numpy.", 6) == 0;
        if (arg->u.numpy_prefixed &&
            !in_list(tname, numpy_msprobe_names, COUNT_OF(numpy_msprobe_names))) {
            char what[256];
            snprintf(what, sizeof what, "%.100s is not supported now", tname); /* msprobe's */
            set_error(b, arg, type_ref, what);
        }
        return;
    }
    check_value(b, v, val, arg);
}

static void build_arg(pc_entry_builder *b, pc_json_ref v, pc_dump_arg *arg, int depth)
{
    memset(arg, 0, sizeof *arg);
    if (depth > PC_DUMP_MAX_ARG_DEPTH) {
        /* msprobe's gen_args gives up at this depth too; keep nothing below. */
        arg->kind = PC_DUMP_ARG_NULL;
        set_error(b, arg, v, "arguments nested deeper than 400 levels");
        return;
    }
    switch (pc_json_type_of(b->doc, v)) {
    case PC_JSON_NULL:
        arg->kind = PC_DUMP_ARG_NULL;
        return;
    case PC_JSON_ARRAY:
        build_list(b, v, arg, depth);
        return;
    case PC_JSON_OBJECT:
        build_record(b, v, arg, depth);
        return;
    case PC_JSON_INVALID:
        arg->kind = PC_DUMP_ARG_ABSENT;
        return;
    default: {
        char what[96];
        arg->kind = PC_DUMP_ARG_RAW;
        build_value(b, v, &arg->value);
        snprintf(what, sizeof what, "a bare %s where an argument record was expected",
                 pc_entry_found_name(b->doc, v));
        set_error(b, arg, v, what);
        return;
    }
    }
}

/* ---- entries ---- */

static bool is_falsy_container_or_null(const pc_json_doc *doc, pc_json_ref v)
{
    return !pc_json_truthy(doc, v);
}

/* msprobe 1.0.x (until August 2024) spelled a backward entry's lists after the hook's
 * arguments: "grad_output" (the gradients of the forward outputs, files
 * <api>.backward.input.<i>.pt) is today's "input", "grad_input" (the gradients of the forward
 * inputs, files .backward.output.<i>.pt) is today's "output". The new spelling wins when an
 * entry has both. */
static pc_json_ref backward_list(const pc_json_doc *doc, pc_json_ref entry, const char *key,
                                 const char *legacy)
{
    pc_json_ref v = pc_json_object_get(doc, entry, key);
    return v != PC_JSON_NONE ? v : pc_json_object_get(doc, entry, legacy);
}

void pc_entry_build(pc_entry_builder *b, pc_json_ref ref, bool forward, pc_dump_entry *e)
{
    const pc_json_doc *doc = b->doc;
    char what[256];
    b->path_len = 0;
    b->path[0] = '\0';
    if (forward)
        pc_dump_filter_signature(b, ref, e);
    if (pc_json_type_of(doc, ref) != PC_JSON_OBJECT) {
        snprintf(what, sizeof what, "the entry must be an object, found %s",
                 pc_entry_found_name(doc, ref));
        e->error = pc_entry_error_at(b, ref, what);
        return;
    }
    for (pc_json_ref k = pc_json_first(doc, ref); k != PC_JSON_NONE && !b->oom;
         k = pc_json_next(doc, k)) {
        size_t len;
        const char *key = pc_json_string(doc, k, &len);
        pc_json_ref v = pc_json_member_value(doc, k);
        pc_dump_arg *target = NULL;
        if (forward && KEY_IS(key, len, "input_args"))
            target = &e->input_args;
        else if (KEY_IS(key, len, "output"))
            target = &e->output;
        else if (!forward && KEY_IS(key, len, "input"))
            target = &e->input;
        else if (!forward && KEY_IS(key, len, "grad_output") &&
                 pc_json_object_get(doc, ref, "input") == PC_JSON_NONE)
            target = &e->input;
        else if (!forward && KEY_IS(key, len, "grad_input") &&
                 pc_json_object_get(doc, ref, "output") == PC_JSON_NONE)
            target = &e->output;
        if (target) {
            size_t old = path_push(b, "%s%s", forward ? "" : "backward ", key);
            build_arg(b, v, target, 0);
            path_pop(b, old);
            continue;
        }
        if (forward && KEY_IS(key, len, "input_kwargs")) {
            e->has_kwargs = true;
            e->kwargs = NULL;
            e->kwarg_count = 0;
            if (pc_json_type_of(doc, v) == PC_JSON_OBJECT) {
                size_t old = path_push(b, "input_kwargs");
                build_fields(b, v, &e->kwargs, &e->kwarg_count, 0, true);
                path_pop(b, old);
            }
            continue;
        }
        if (forward && KEY_IS(key, len, "is_recompute"))
            build_value(b, v, &e->is_recompute);
    }
    if (b->oom)
        return;
    /* Problems that make the whole entry unusable, last key of each name deciding. */
    if (forward) {
        pc_json_ref kw = pc_json_object_get(doc, ref, "input_kwargs");
        pc_json_ref args = pc_json_object_get(doc, ref, "input_args");
        if (kw != PC_JSON_NONE && pc_json_type_of(doc, kw) != PC_JSON_OBJECT) {
            snprintf(what, sizeof what, "\"input_kwargs\" must be an object, found %s",
                     pc_entry_found_name(doc, kw));
            e->error = pc_entry_error_at(b, kw, what);
        } else if (args != PC_JSON_NONE && pc_json_type_of(doc, args) != PC_JSON_ARRAY &&
                   !is_falsy_container_or_null(doc, args)) {
            snprintf(what, sizeof what, "\"input_args\" must be a list, found %s",
                     pc_entry_found_name(doc, args));
            e->error = pc_entry_error_at(b, args, what);
        }
    } else {
        pc_json_ref in = backward_list(doc, ref, "input", "grad_output");
        if (in != PC_JSON_NONE && pc_json_type_of(doc, in) != PC_JSON_ARRAY &&
            pc_json_type_of(doc, in) != PC_JSON_NULL) {
            bool legacy = pc_json_object_get(doc, ref, "input") == PC_JSON_NONE;
            snprintf(what, sizeof what, "\"%s\" must be a list, found %s",
                     legacy ? "grad_output" : "input", pc_entry_found_name(doc, in));
            e->error = pc_entry_error_at(b, in, what);
        }
    }
}
