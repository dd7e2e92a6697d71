/* madvise(MADV_DONTNEED) is not POSIX (posix_madvise's DONTNEED is a no-op in glibc); nor is
 * memmem. */
#define _GNU_SOURCE 1

#include "dump/dump_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Reading order: the top-level object is walked member by member with the scanner; the value
 * of "data" with a nested scanner, and each of its members (one API call) is tokenised on its
 * own into one reused document and turned into records at once. So the tokens of one entry
 * are all that exists besides the records, and the file is read in one pass. Everything is
 * checked: a file that Python's json.load refuses is refused here too.
 */

/* ---- the name map ---- */

static bool name_map_lookup(const pc_strmap *m, const char *name, uint32_t *value)
{
    const pc_strmap_entry *e = pc_strmap_find(m, name, strlen(name));
    if (!e)
        return false;
    *value = (uint32_t)e->value.index;
    return true;
}

/* ---- the reader ---- */

typedef struct reader {
    pc_dump *dump;
    pc_dump_impl *impl;
    const char *data;
    size_t size;
    const char *name;
    pc_json_doc *doc;
    size_t line_offset, line; /* the line of line_offset, advanced as entries go by */
    /* top-level values, last one wins */
    int data_state; /* 0 missing, 1 null, 2 object, 3 other */
    bool droppable; /* data is our own read-only file mapping */
    size_t dropped; /* pages before this offset have been given back */
} reader;

/* Gives the pages of the mapping that are behind us back to the kernel, every 32 MiB, so
 * that the peak memory is the records and not records + file. Pages read again later (only
 * for messages) are faulted in again from the page cache. */
static void drop_consumed(reader *r, size_t upto)
{
#ifdef MADV_DONTNEED
    enum { STEP = 32 << 20 };
    if (!r->droppable || upto < r->dropped + STEP)
        return;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return;
    size_t end = upto / (size_t)page * (size_t)page;
    if (end > r->dropped &&
        madvise((void *)(uintptr_t)(r->data + r->dropped), end - r->dropped, MADV_DONTNEED) == 0)
        r->dropped = end;
#else
    (void)r;
    (void)upto;
#endif
}

static pc_status nomem(const reader *r)
{
    return pc_error_set(PC_ERR_NOMEM, "%s: out of memory while reading the dump", r->name);
}

static size_t line_of(reader *r, size_t offset)
{
    if (offset >= r->line_offset) {
        r->line += pc_count_newlines(r->data + r->line_offset, offset - r->line_offset);
        r->line_offset = offset;
    } else {
        return 1 + pc_count_newlines(r->data, offset);
    }
    return r->line;
}

/* Resets the records of an earlier "data" member: a later "data" replaces it, as in Python. */
static void reset_records(reader *r)
{
    r->dump->api_count = 0;
    r->dump->backward_count = 0;
    r->dump->module_count = 0;
    r->dump->named_files = r->dump->module_files = r->dump->unread_files = 0;
    r->dump->unread_example = NULL;
    pc_strmap_free(&r->impl->forward_map);
    pc_strmap_free(&r->impl->backward_map);
}

static pc_status unexpected_name(const reader *r, const char *key)
{
    return pc_error_set(PC_ERR_FORMAT, "[msprobe] Unexpected name in json: %s in file %s", key,
                        r->name);
}

/* Where `pattern` must be the last dot-segment of key; the stripped name is key up to the last
 * dot (the empty string when key has no dot, as Python's '.'.join([]) gives). */
static bool last_segment_is(const char *key, size_t len, const char *pattern, size_t *strip_len)
{
    const char *dot = NULL;
    for (size_t i = len; i > 0; i--)
        if (key[i - 1] == '.') {
            dot = key + i - 1;
            break;
        }
    const char *last = dot ? dot + 1 : key;
    size_t plen = strlen(pattern);
    if ((size_t)(key + len - last) != plen || memcmp(last, pattern, plen) != 0)
        return false;
    *strip_len = dot ? (size_t)(dot - key) : 0;
    return true;
}

/* key is NUL-terminated without a NUL inside (read_data_object refuses those). */
static bool contains(const char *key, size_t len, const char *needle)
{
    (void)len;
    return strstr(key, needle) != NULL;
}

/* Fills the name fields of api from its stripped name (docs/msprobe-contract.md#dump-records). */
static bool split_name(pc_arena *arena, pc_dump_api *api, const char *full, size_t len)
{
    size_t dots[4];
    size_t ndots = 0;
    for (size_t i = 0; i < len; i++)
        if (full[i] == '.') {
            if (ndots < 4)
                dots[ndots] = i;
            ndots++;
        }
    size_t first_end = ndots ? dots[0] : len;
    api->prefix = pc_arena_strndup(arena, full, first_end);
    const char *last = full;
    for (size_t i = len; i > 0; i--)
        if (full[i - 1] == '.') {
            last = full + i;
            break;
        }
    api->call_index = pc_arena_strndup(arena, last, (size_t)(full + len - last));
    if (!api->prefix || !api->call_index)
        return false;
    api->api_type = NULL;
    api->api_name = NULL;
    if (ndots == 2 || ndots == 3) {
        api->api_type = api->prefix;
        size_t start = dots[0] + 1, end = dots[ndots - 1];
        api->api_name = pc_arena_strndup(arena, full + start, end - start);
        if (!api->api_name)
            return false;
    }
    api->unsafe_name = pc_dump_name_is_unsafe(api->full_name);
    return true;
}

/* Records naming a tensor file ("data_name" or "datapath" strings) in the tokenised value v,
 * whatever keys they sit under: what the dump names, to account for what is read. */
static size_t named_files(const pc_json_doc *doc, pc_json_ref v)
{
    size_t n = 0;
    pc_json_type t = pc_json_type_of(doc, v);
    if (t == PC_JSON_OBJECT) {
        bool names = false;
        for (pc_json_ref k = pc_json_first(doc, v); k != PC_JSON_NONE; k = pc_json_next(doc, k)) {
            const char *key = pc_json_string(doc, k, NULL);
            pc_json_ref val = pc_json_member_value(doc, k);
            if (key && (strcmp(key, "data_name") == 0 || strcmp(key, "datapath") == 0))
                names |= pc_json_type_of(doc, val) == PC_JSON_STRING;
            else
                n += named_files(doc, val);
        }
        return n + names;
    }
    if (t == PC_JSON_ARRAY)
        for (pc_json_ref e = pc_json_first(doc, v); e != PC_JSON_NONE; e = pc_json_next(doc, e))
            n += named_files(doc, e);
    return n;
}

static int count_file(void *ctx, const pc_dump_api *api, const pc_dump_arg *arg)
{
    (void)api;
    *(size_t *)ctx += pc_dump_tensor_file(arg->u.tensor) != NULL;
    return 0;
}

static size_t entry_files(const pc_dump_entry *e)
{
    size_t n = 0;
    pc_dump_visit_entry(NULL, e, count_file, &n);
    return n;
}

static void note_unread(reader *r, const char *key, size_t n)
{
    if (!n)
        return;
    r->dump->unread_files += n;
    if (!r->dump->unread_example)
        r->dump->unread_example = key; /* in the arena */
}

static pc_status add_entry(reader *r, const char *key, size_t key_len, size_t key_offset,
                           size_t value_begin, size_t *value_end)
{
    pc_dump_impl *impl = r->impl;
    pc_dump *dump = r->dump;
    pc_status st = pc_json_parse_value_at(r->doc, r->data, r->size, value_begin, value_end);
    if (st)
        return st;
    /* a cheap look first: most statistics entries name no file */
    size_t named = 0;
    if (memmem(r->data + value_begin, *value_end - value_begin, "\"data", 5))
        named = named_files(r->doc, pc_json_root(r->doc));
    dump->named_files += named;
    if (contains(key, key_len, "Module")) {
        dump->module_count++;
        dump->module_files += named;
        return PC_OK;
    }
    bool forward;
    size_t strip;
    if (contains(key, key_len, "forward")) {
        if (!last_segment_is(key, key_len, "forward", &strip))
            return unexpected_name(r, key);
        forward = true;
    } else if (contains(key, key_len, "backward")) {
        if (!last_segment_is(key, key_len, "backward", &strip))
            return unexpected_name(r, key);
        forward = false;
    } else {
        return unexpected_name(r, key);
    }

    char *full = pc_arena_strndup(&impl->arena, key, strip);
    char *key_copy = pc_arena_strndup(&impl->arena, key, key_len);
    if (!full || !key_copy)
        return nomem(r);
    pc_strmap *map = forward ? &impl->forward_map : &impl->backward_map;
    uint32_t index;
    pc_dump_entry *entry;
    /* A first guess from the file size (an entry takes 1-3 kB), so that big dumps do not
     * rehash a dozen times; at most half full. */
    if (map->cap == 0 && !pc_strmap_reserve(map, r->size / 2048))
        return nomem(r);
    bool added;
    pc_strmap_entry *slot = pc_strmap_put(map, full, strip, &added);
    if (!slot)
        return nomem(r);
    if (!added) {
        index = (uint32_t)slot->value.index;
        /* A duplicate: Python's dict keeps the first position and takes the new body. */
        entry = forward ? &impl->apis[index].forward : &impl->backwards[index].entry;
    } else {
        size_t *count = forward ? &dump->api_count : &dump->backward_count;
        size_t *cap = forward ? &impl->api_cap : &impl->backward_cap;
        size_t elem = forward ? sizeof(pc_dump_api) : sizeof(pc_dump_backward);
        void **arr = forward ? (void **)&impl->apis : (void **)&impl->backwards;
        if (*count >= UINT32_MAX - 1)
            return pc_error_set(PC_ERR_RANGE, "%s: more than %u entries", r->name, UINT32_MAX - 1);
        if (*count == *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            void *p = realloc(*arr, ncap * elem);
            if (!p)
                return nomem(r);
            *arr = p;
            *cap = ncap;
        }
        index = (uint32_t)*count;
        slot->value.index = index;
        (*count)++;
        if (forward) {
            pc_dump_api *api = &impl->apis[index];
            memset(api, 0, sizeof *api);
            api->full_name = full;
            if (!split_name(&impl->arena, api, full, strip))
                return nomem(r);
            entry = &api->forward;
        } else {
            pc_dump_backward *bw = &impl->backwards[index];
            memset(bw, 0, sizeof *bw);
            bw->full_name = full;
            entry = &bw->entry;
        }
    }
    if (entry->key) /* a key written twice: the earlier body's files are not read */
        note_unread(r, entry->key, entry_files(entry));
    memset(entry, 0, sizeof *entry);
    entry->key = key_copy;
    entry->line = line_of(r, key_offset);

    pc_entry_builder b;
    b.arena = &impl->arena;
    b.doc = r->doc;
    b.data = r->data;
    b.size = r->size;
    b.name = r->name;
    b.path_len = 0;
    b.path[0] = '\0';
    b.oom = false;
    b.last_dtype_name = NULL;
    b.last_dtype = PC_DTYPE_INVALID;
    pc_entry_build(&b, pc_json_root(r->doc), forward, entry);
    if (b.oom)
        return nomem(r);
    size_t held = entry_files(entry);
    if (named > held)
        note_unread(r, key_copy, named - held);
    return PC_OK;
}

static pc_status read_data_object(reader *r, size_t begin, size_t *end)
{
    pc_json_scanner s;
    pc_status st = pc_json_scanner_init(&s, r->data, r->size, begin, r->name);
    size_t count = 0;
    while (st == PC_OK) {
        const char *key;
        size_t key_len, key_offset, value_begin, value_end;
        bool done;
        st = pc_json_scanner_next_key(&s, &key, &key_len, &key_offset, &value_begin, &done);
        if (st || done)
            break;
        if (strlen(key) != key_len) {
            /* A key with U+0000 cannot be a C string; msprobe would reject it as a name. */
            st = pc_error_set(PC_ERR_FORMAT,
                              "[msprobe] Unexpected name in json: %s\\u0000... in file %s", key,
                              r->name);
            break;
        }
        st = add_entry(r, key, key_len, key_offset, value_begin, &value_end);
        if (st)
            break;
        pc_json_scanner_value_done(&s, value_end);
        drop_consumed(r, value_end);
        count++;
    }
    if (st == PC_OK) {
        *end = s.pos;
        r->dump->data_empty = count == 0;
    }
    pc_json_scanner_free(&s);
    return st;
}

/* A top-level member other than "data": tokenised (it must be valid JSON) and, for the keys
 * run_ut knows, remembered. */
static pc_status read_top_member(reader *r, const char *key, size_t key_len, size_t value_begin,
                                 size_t *end)
{
    pc_status st = pc_json_parse_value_at(r->doc, r->data, r->size, value_begin, end);
    if (st)
        return st;
    pc_json_ref v = pc_json_root(r->doc);
    const char **slot = NULL;
#define TOP_KEY_IS(lit) (key_len == sizeof(lit) - 1 && memcmp(key, lit, key_len) == 0)
    if (TOP_KEY_IS("task"))
        slot = &r->dump->task;
    else if (TOP_KEY_IS("level"))
        slot = &r->dump->level;
    else if (TOP_KEY_IS("framework"))
        slot = &r->dump->framework;
    else if (TOP_KEY_IS("dump_data_dir"))
        slot = &r->dump->dump_data_dir;
#undef TOP_KEY_IS
    if (!slot)
        return PC_OK;
    size_t len = 0;
    const char *s = pc_json_string(r->doc, v, &len);
    *slot = s ? pc_arena_strndup(&r->impl->arena, s, len) : NULL;
    if (s && !*slot)
        return nomem(r);
    if (slot == &r->dump->dump_data_dir) {
        /* Python truthiness, the only thing run_ut looks at. */
        pc_json_type t = pc_json_type_of(r->doc, v);
        bool b = false;
        if (t == PC_JSON_BOOL)
            pc_json_get_bool(r->doc, v, &b);
        else if (t == PC_JSON_INT || t == PC_JSON_FLOAT)
            b = pc_json_number(r->doc, v) != 0; /* NaN is truthy too */
        else if (t == PC_JSON_STRING)
            b = len != 0;
        else if (t == PC_JSON_ARRAY || t == PC_JSON_OBJECT)
            b = pc_json_count(r->doc, v) != 0;
        r->dump->has_real_data = b;
    }
    return PC_OK;
}

static pc_status read_top(reader *r)
{
    if (r->size >= 3 && memcmp(r->data, "\xEF\xBB\xBF", 3) == 0)
        return pc_error_set(PC_ERR_FORMAT,
                            "%s:1:1: unexpected UTF-8 byte order mark (Python's json refuses it "
                            "too)",
                            r->name);
    size_t pos = 0;
    while (pos < r->size && (r->data[pos] == ' ' || r->data[pos] == '\n' || r->data[pos] == '\r' ||
                             r->data[pos] == '\t'))
        pos++;
    if (pos < r->size && r->data[pos] != '{') {
        /* Not an object: validate it as JSON first, so that a syntax error wins. */
        size_t end;
        pc_status st = pc_json_parse_value_at(r->doc, r->data, r->size, pos, &end);
        if (st)
            return st;
        st = pc_json_expect_end(r->data, r->size, end, r->name);
        if (st)
            return st;
        return pc_error_set(PC_ERR_FORMAT,
                            "[msprobe] Invalid dump.json format: something wrong with dump, no "
                            "data found in dump.json (%s holds a JSON %s, not an object)",
                            r->name, pc_json_type_name(pc_json_type_of(r->doc, 0)));
    }
    pc_json_scanner s;
    pc_status st = pc_json_scanner_init(&s, r->data, r->size, pos, r->name);
    while (st == PC_OK) {
        const char *key;
        size_t key_len, key_offset, value_begin, value_end;
        bool done;
        st = pc_json_scanner_next_key(&s, &key, &key_len, &key_offset, &value_begin, &done);
        if (st || done)
            break;
        bool is_data = key_len == 4 && memcmp(key, "data", 4) == 0;
        if (is_data) {
            reset_records(r);
            if (r->data[value_begin] == '{') {
                r->data_state = 2;
                st = read_data_object(r, value_begin, &value_end);
            } else {
                st = pc_json_parse_value_at(r->doc, r->data, r->size, value_begin, &value_end);
                r->data_state = pc_json_type_of(r->doc, 0) == PC_JSON_NULL ? 1 : 3;
            }
        } else {
            st = read_top_member(r, key, key_len, value_begin, &value_end);
        }
        if (st)
            break;
        pc_json_scanner_value_done(&s, value_end);
    }
    if (st == PC_OK)
        st = pc_json_expect_end(r->data, r->size, s.pos, r->name);
    pc_json_scanner_free(&s);
    if (st)
        return st;
    if (r->data_state <= 1)
        return pc_error_set(PC_ERR_FORMAT, "[msprobe] Invalid dump.json format: something wrong "
                                           "with dump, no data found in dump.json");
    if (r->data_state == 3)
        return pc_error_set(PC_ERR_FORMAT,
                            "[msprobe] Invalid dump.json format: something wrong with dump, "
                            "\"data\" in %s is not an object",
                            r->name);
    return PC_OK;
}

/* Pairs every api with its backward entry, once all entries are in. */
static void pair_backwards(pc_dump *dump)
{
    pc_dump_impl *impl = dump->impl;
    for (size_t i = 0; i < dump->api_count; i++) {
        uint32_t j;
        impl->apis[i].backward = name_map_lookup(&impl->backward_map, impl->apis[i].full_name, &j)
                                     ? &impl->backwards[j].entry
                                     : NULL;
    }
}

void pc_dump_free(pc_dump *dump)
{
    if (!dump)
        return;
    if (dump->impl) {
        free(dump->impl->apis);
        free(dump->impl->backwards);
        pc_strmap_free(&dump->impl->forward_map);
        pc_strmap_free(&dump->impl->backward_map);
        pc_arena_free(&dump->impl->arena);
        free(dump->impl);
    }
    free(dump);
}

static pc_status parse_dump(pc_dump **out, const char *data, size_t size, const char *path,
                            bool droppable)
{
    if (!path)
        path = "dump.json";
    pc_dump *dump = calloc(1, sizeof *dump);
    pc_dump_impl *impl = calloc(1, sizeof *impl);
    if (!dump || !impl) {
        free(dump);
        free(impl);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", path);
    }
    dump->impl = impl;
    char *name = pc_arena_strndup(&impl->arena, path, strlen(path));
    if (!name) {
        pc_dump_free(dump);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", path);
    }
    dump->path = name;
    reader r = {.dump = dump,
                .impl = impl,
                .data = data ? data : "",
                .size = data ? size : 0,
                .name = name,
                .line_offset = 0,
                .line = 1,
                .droppable = droppable};
    pc_status st = pc_json_doc_new(&r.doc, name);
    if (st == PC_OK)
        st = read_top(&r);
    pc_json_free(r.doc);
    if (st) {
        pc_dump_free(dump);
        return st;
    }
    dump->apis = impl->apis;
    dump->backwards = impl->backwards;
    pair_backwards(dump);
    *out = dump;
    return PC_OK;
}

pc_status pc_dump_open(pc_dump **out, const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return pc_error_set(errno == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO, "%s: %s", path,
                            strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int err = errno;
        close(fd);
        return pc_error_set(PC_ERR_IO, "%s: %s", path, strerror(err));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return pc_error_set(PC_ERR_IO, "%s: not a regular file", path);
    }
    size_t size = (size_t)sb.st_size;
    if (size == 0) {
        close(fd);
        return parse_dump(out, "", 0, path, false);
    }
    /* Mapped, not read: the pages are the page cache's, and the records copy what they keep,
     * so the mapping goes away right after parsing. */
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
        char *buf = malloc(size);
        size_t got = 0;
        while (buf && got < size) {
            ssize_t n = read(fd, buf + got, size - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += (size_t)n;
        }
        int err = errno;
        close(fd);
        if (!buf)
            return pc_error_set(PC_ERR_NOMEM, "%s: out of memory for %zu bytes", path, size);
        if (got < size) {
            free(buf);
            return pc_error_set(PC_ERR_IO, "%s: %s", path, got ? "file shrank" : strerror(err));
        }
        pc_status st = parse_dump(out, buf, size, path, false);
        free(buf);
        return st;
    }
    close(fd);
    pc_status st = parse_dump(out, map, size, path, true);
    munmap(map, size);
    return st;
}

pc_status pc_dump_parse(pc_dump **out, const char *data, size_t size, const char *path)
{
    return parse_dump(out, data, size, path, false);
}

const pc_dump_api *pc_dump_find(const pc_dump *dump, const char *full_name)
{
    uint32_t i;
    if (!dump || !full_name || !name_map_lookup(&dump->impl->forward_map, full_name, &i))
        return NULL;
    return &dump->apis[i];
}
