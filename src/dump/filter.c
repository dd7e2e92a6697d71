#include "precheck/dump/filter.h"

#include <math.h>
#include "precheck/core/hashmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/dump_impl.h"

/* ---- -filter_api (msprobe's preprocess_forward_content) ---- */

static size_t base_len_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name); /* rsplit('.', 1)[0] */
}

pc_status pc_dump_filter_dedup(const pc_dump *dump, bool *keep, size_t *kept_count)
{
    size_t n = dump->api_count;
    if (kept_count)
        *kept_count = 0;
    /* Groups by base name (the full name without its last ".<segment>": keys borrowed from the
     * dump, with a length), numbered as met; for each group its first and last kept api, and
     * for each kept api the next kept api of the same base, so that the variants are a chain. */
    pc_strmap groups = PC_STRMAP_INIT;
    size_t *next_kept = malloc((n ? n : 1) * sizeof *next_kept);
    size_t *first_kept = malloc((n ? n : 1) * sizeof *first_kept);
    size_t *last_kept = malloc((n ? n : 1) * sizeof *last_kept);
    if (!pc_strmap_reserve(&groups, n) || !next_kept || !first_kept || !last_kept) {
        pc_strmap_free(&groups);
        free(next_kept);
        free(first_kept);
        free(last_kept);
        return pc_error_set(PC_ERR_NOMEM, "-filter_api: out of memory");
    }
    pc_status st = PC_OK;
    size_t kept = 0, n_groups = 0;
    for (size_t i = 0; i < n; i++) {
        const pc_dump_api *api = &dump->apis[i];
        st = pc_dump_check_name(api->full_name);
        if (st)
            break;
        if (api->forward.filter_error) {
            st = pc_error_set(PC_ERR_FORMAT, "%s", api->forward.filter_error);
            break;
        }
        bool added;
        pc_strmap_entry *group =
            pc_strmap_put(&groups, api->full_name, base_len_of(api->full_name), &added);
        if (!group) { /* reserved for n groups: not expected */
            st = pc_error_set(PC_ERR_NOMEM, "-filter_api: out of memory");
            break;
        }
        bool is_new = true;
        if (added) {
            group->value.index = n_groups;
            first_kept[n_groups++] = i;
        } else {
            size_t g = group->value.index;
            for (size_t j = first_kept[g]; j != SIZE_MAX; j = next_kept[j]) {
                const uint64_t *a = dump->apis[j].forward.signature;
                const uint64_t *b = api->forward.signature;
                if (a[0] == b[0] && a[1] == b[1]) {
                    is_new = false;
                    break;
                }
            }
            if (is_new)
                next_kept[last_kept[g]] = i;
        }
        keep[i] = is_new;
        if (is_new) {
            next_kept[i] = SIZE_MAX;
            last_kept[group->value.index] = i;
            kept++;
        }
    }
    pc_strmap_free(&groups);
    free(next_kept);
    free(first_kept);
    free(last_kept);
    if (st == PC_OK && kept_count)
        *kept_count = kept;
    return st;
}

/* ---- the -filter_api signature ----
 * A 128-bit digest that is equal for values Python's == finds equal: numbers by value across
 * bool/int/float (NaN equal to NaN: json hands out one NaN object, and == on containers tries
 * identity first), strings by bytes, lists in order, dicts regardless of order. */

typedef struct sig {
    uint64_t a, b;
} sig;

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static inline void sig_add(sig *h, uint64_t x)
{
    h->a = mix64(h->a ^ x) + 0x9e3779b97f4a7c15ULL;
    h->b = mix64(h->b + x * 0xff51afd7ed558ccdULL) ^ 0xc4ceb9fe1a85ec53ULL;
}

static void sig_bytes(sig *h, const char *s, size_t n)
{
    sig_add(h, n);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        sig_add(h, w);
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, s, n);
    sig_add(h, w);
}

enum {
    SIG_NULL = 1,
    SIG_NUM_INT,
    SIG_NUM_FLOAT,
    SIG_NAN,
    SIG_BIG_INT,
    SIG_STR,
    SIG_LIST,
    SIG_DICT
};

static void sig_number(sig *h, double d, bool is_int, int64_t i)
{
    if (!is_int) {
        if (isnan(d)) {
            sig_add(h, SIG_NAN);
            return;
        }
        if (d == floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
            is_int = true;
            i = (int64_t)d;
        }
    }
    if (is_int) {
        sig_add(h, SIG_NUM_INT);
        sig_add(h, (uint64_t)i);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &d, 8);
    sig_add(h, SIG_NUM_FLOAT);
    sig_add(h, bits);
}

static bool sig_value(pc_entry_builder *b, pc_json_ref v, sig *h, bool drop_max_min);

/* An integer literal outside int64: Python compares it exactly. Equal to a float only when the
 * double holds exactly that integer (then it is hashed as that float); otherwise by its
 * digits, so that two different big integers stay different. */
static void sig_big_integer(pc_entry_builder *b, pc_json_ref v, sig *h)
{
    double d = pc_json_number(b->doc, v);
    size_t pos = pc_json_offset(b->doc, v), end = pos;
    if (end < b->size && b->data[end] == '-')
        end++;
    while (end < b->size && b->data[end] >= '0' && b->data[end] <= '9')
        end++;
    char exact[400];
    int n = isfinite(d) ? snprintf(exact, sizeof exact, "%.0f", d) : -1;
    if (n > 0 && (size_t)n == end - pos && memcmp(exact, b->data + pos, (size_t)n) == 0) {
        sig_number(h, d, false, 0);
        return;
    }
    sig_add(h, SIG_BIG_INT);
    sig_bytes(h, b->data + pos, end - pos);
}

/* Adds the digest of one member (key k, value v) to *sum. */
static bool sig_member(pc_entry_builder *b, const char *k, size_t len, pc_json_ref v, sig *sum)
{
    sig m = {0x51afd7ed558ccd1ULL, 0x2545f4914f6cdd1dULL};
    sig_bytes(&m, k, len);
    if (!sig_value(b, v, &m, false))
        return false;
    sum->a += mix64(m.a);
    sum->b += mix64(m.b ^ 0x9e3779b97f4a7c15ULL);
    return true;
}

static bool is_max_or_min(const char *k, size_t len)
{
    return len == 3 && (memcmp(k, "Max", 3) == 0 || memcmp(k, "Min", 3) == 0);
}

static bool sig_dict(pc_entry_builder *b, pc_json_ref v, sig *h, bool drop_max_min)
{
    /* Order-free: the sum of the members' own digests. Duplicate keys (only the last counts)
     * are rare, so they are looked for among small objects by length and first bytes before
     * the general, sorting pc_entry_dict_view is used. */
    const pc_json_doc *doc = b->doc;
    sig sum = {0, 0};
    size_t n = 0;
    size_t count = pc_json_count(doc, v);
    bool dup = count > 16;
    if (!dup) {
        const char *keys[16];
        size_t lens[16];
        size_t i = 0;
        for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
            keys[i] = pc_json_string(doc, k, &lens[i]);
            for (size_t j = 0; j < i && !dup; j++)
                dup = lens[j] == lens[i] && memcmp(keys[j], keys[i], lens[i]) == 0;
            i++;
        }
        if (!dup) {
            i = 0;
            for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE;
                 k = pc_json_next(doc, k), i++) {
                if (drop_max_min && is_max_or_min(keys[i], lens[i]))
                    continue;
                if (!sig_member(b, keys[i], lens[i], pc_json_member_value(doc, k), &sum))
                    return false;
                n++;
            }
        }
    }
    if (dup) {
        pc_entry_dict_view view;
        if (!pc_entry_dict_view_init(b, v, &view))
            return false;
        for (size_t i = 0; i < view.count; i++) {
            size_t len;
            const char *k = pc_json_string(doc, view.items[i].key, &len);
            if (drop_max_min && is_max_or_min(k, len))
                continue;
            if (!sig_member(b, k, len, view.items[i].value, &sum)) {
                pc_entry_dict_view_free(&view);
                return false;
            }
            n++;
        }
        pc_entry_dict_view_free(&view);
    }
    sig_add(h, SIG_DICT);
    sig_add(h, n);
    sig_add(h, sum.a);
    sig_add(h, sum.b);
    return true;
}

static bool sig_value(pc_entry_builder *b, pc_json_ref v, sig *h, bool drop_max_min)
{
    const pc_json_doc *doc = b->doc;
    switch (pc_json_type_of(doc, v)) {
    case PC_JSON_NULL:
        sig_add(h, SIG_NULL);
        return true;
    case PC_JSON_BOOL: {
        bool x = false;
        pc_json_get_bool(doc, v, &x);
        sig_number(h, 0, true, x);
        return true;
    }
    case PC_JSON_INT: {
        int64_t x = 0;
        pc_json_get_int64(doc, v, &x);
        sig_number(h, 0, true, x);
        return true;
    }
    case PC_JSON_FLOAT:
        if (pc_json_is_big_integer(doc, v))
            sig_big_integer(b, v, h);
        else
            sig_number(h, pc_json_number(doc, v), false, 0);
        return true;
    case PC_JSON_STRING: {
        size_t len;
        const char *s = pc_json_string(doc, v, &len);
        sig_add(h, SIG_STR);
        sig_bytes(h, s, len);
        return true;
    }
    case PC_JSON_ARRAY:
        sig_add(h, SIG_LIST);
        sig_add(h, pc_json_count(doc, v));
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE; e = pc_json_next(doc, e))
            if (!sig_value(b, e, h, false))
                return false;
        return true;
    case PC_JSON_OBJECT:
        return sig_dict(b, v, h, drop_max_min);
    default:
        sig_add(h, 0);
        return true;
    }
}

void pc_dump_filter_signature(pc_entry_builder *b, pc_json_ref body, pc_dump_entry *e)
{
    const pc_json_doc *doc = b->doc;
    char what[256];
    if (pc_json_type_of(doc, body) != PC_JSON_OBJECT) {
        snprintf(what, sizeof what, "-filter_api: the entry %.80s is not an object", e->key);
        e->filter_error = pc_entry_error_at(b, body, what);
        return;
    }
    pc_json_ref args = pc_json_object_get(doc, body, "input_args");
    pc_json_ref kwargs = pc_json_object_get(doc, body, "input_kwargs");
    if (args == PC_JSON_NONE || kwargs == PC_JSON_NONE) {
        snprintf(what, sizeof what, "-filter_api: the entry %.80s has no \"%s\"", e->key,
                 args == PC_JSON_NONE ? "input_args" : "input_kwargs");
        e->filter_error = pc_entry_error_at(b, body, what);
        return;
    }
    sig h = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
    /* input_args: [dict minus Max/Min for each dict element]. Iterating a string or a dict
     * (its keys) yields no dicts; null, numbers and bools are not iterable in Python. */
    pc_json_type at = pc_json_type_of(doc, args);
    sig_add(&h, SIG_LIST);
    if (at == PC_JSON_ARRAY) {
        size_t n = 0;
        for (pc_json_ref a = pc_json_first(doc, args); a != PC_JSON_NONE; a = pc_json_next(doc, a))
            n += pc_json_type_of(doc, a) == PC_JSON_OBJECT;
        sig_add(&h, n);
        for (pc_json_ref a = pc_json_first(doc, args); a != PC_JSON_NONE; a = pc_json_next(doc, a))
            if (pc_json_type_of(doc, a) == PC_JSON_OBJECT && !sig_dict(b, a, &h, true))
                return;
    } else if (at == PC_JSON_STRING || at == PC_JSON_OBJECT) {
        sig_add(&h, 0);
    } else {
        snprintf(what, sizeof what, "-filter_api: \"input_args\" of %.80s must be a list, found %s",
                 e->key, pc_entry_found_name(doc, args));
        e->filter_error = pc_entry_error_at(b, args, what);
        return;
    }
    if (!sig_value(b, kwargs, &h, false))
        return;
    e->signature[0] = mix64(h.a);
    e->signature[1] = mix64(h.b);
}

/* ---- white and black lists ---- */

const char *const pc_api_builtin_black_list[] = {
    "to",
    "empty",
    "empty_like",
    "empty_strided",
    "new_empty",
    "new_empty_strided",
    "empty_with_format",
};
const size_t pc_api_builtin_black_list_count =
    sizeof pc_api_builtin_black_list / sizeof pc_api_builtin_black_list[0];

static bool in_names(const char *const *names, size_t count, const char *name)
{
    for (size_t i = 0; i < count; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return true;
    return false;
}

bool pc_api_lists_skip(const pc_api_lists *lists, const char *api_name)
{
    if (!api_name)
        return false;
    if (in_names(pc_api_builtin_black_list, pc_api_builtin_black_list_count, api_name))
        return true;
    if (!lists)
        return false;
    if (in_names(lists->black, lists->black_count, api_name))
        return true;
    return lists->white_count > 0 && !in_names(lists->white, lists->white_count, api_name);
}

int pc_api_lists_skip_message(const char *api_name, char *buf, size_t size)
{
    return snprintf(buf, size, "API %s in black list or not in white list. SKIP.",
                    api_name ? api_name : "None");
}
