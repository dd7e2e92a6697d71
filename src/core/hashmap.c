#include "precheck/core/hashmap.h"

#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

void pc_strmap_init(pc_strmap *m, bool own_keys)
{
    memset(m, 0, sizeof *m);
    m->own_keys = own_keys;
}

/* The slot of key: its entry, or the empty slot where it would go. cap must be > 0. */
static pc_strmap_entry *probe(const pc_strmap *m, const char *key, size_t len, uint64_t hash)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)hash & mask;
    for (;;) {
        pc_strmap_entry *e = &m->slots[i];
        if (!e->key ||
            (e->hash == hash && e->len == len && (len == 0 || memcmp(e->key, key, len) == 0)))
            return e;
        i = (i + 1) & mask;
    }
}

static bool grow_to(pc_strmap *m, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(pc_strmap_entry) || pc_alloc_hook_fails())
        return false;
    pc_strmap_entry *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return false;
    size_t mask = cap - 1;
    for (size_t k = 0; k < m->cap; k++) {
        if (!m->slots[k].key)
            continue;
        size_t i = (size_t)m->slots[k].hash & mask;
        while (slots[i].key)
            i = (i + 1) & mask;
        slots[i] = m->slots[k];
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return true;
}

bool pc_strmap_reserve(pc_strmap *m, size_t count)
{
    if (count > SIZE_MAX / 4)
        return false;
    /* at most half full */
    size_t cap = m->cap ? m->cap : 16;
    while (cap < count * 2)
        cap *= 2;
    return cap == m->cap || grow_to(m, cap);
}

pc_strmap_entry *pc_strmap_find_hashed(const pc_strmap *m, const char *key, size_t len,
                                       uint64_t hash)
{
    if (!m->cap)
        return NULL;
    pc_strmap_entry *e = probe(m, key, len, hash);
    return e->key ? e : NULL;
}

pc_strmap_entry *pc_strmap_find(const pc_strmap *m, const char *key, size_t len)
{
    return pc_strmap_find_hashed(m, key, len, pc_hash_fnv1a64(key, len));
}

pc_strmap_entry *pc_strmap_put_hashed(pc_strmap *m, const char *key, size_t len, uint64_t hash,
                                      bool *added)
{
    if (m->cap) {
        pc_strmap_entry *e = probe(m, key, len, hash);
        if (e->key) {
            if (added)
                *added = false;
            return e;
        }
    }
    if (m->count == SIZE_MAX || !pc_strmap_reserve(m, m->count + 1))
        return NULL;
    const char *stored = key;
    if (m->own_keys) {
        char *copy = (len == SIZE_MAX || pc_alloc_hook_fails()) ? NULL : malloc(len + 1);
        if (!copy)
            return NULL;
        if (len)
            memcpy(copy, key, len);
        copy[len] = '\0';
        stored = copy;
    } else if (!stored) {
        stored = ""; /* a NULL key of length 0: the slot still needs a non-NULL marker */
    }
    pc_strmap_entry *e = probe(m, key, len, hash);
    e->key = stored;
    e->len = len;
    e->hash = hash;
    m->count++;
    if (added)
        *added = true;
    return e;
}

pc_strmap_entry *pc_strmap_put(pc_strmap *m, const char *key, size_t len, bool *added)
{
    return pc_strmap_put_hashed(m, key, len, pc_hash_fnv1a64(key, len), added);
}

pc_strmap_entry *pc_strmap_next(const pc_strmap *m, size_t *pos)
{
    for (; *pos < m->cap; (*pos)++)
        if (m->slots[*pos].key)
            return &m->slots[(*pos)++];
    return NULL;
}

void pc_strmap_free(pc_strmap *m)
{
    if (m->own_keys)
        for (size_t i = 0; i < m->cap; i++)
            free((void *)(uintptr_t)m->slots[i].key);
    free(m->slots);
    pc_strmap_init(m, m->own_keys);
}
