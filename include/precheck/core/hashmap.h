/*
 * One hash and one string-keyed hash map (SQLite's hash.h, Redis's dict).
 *
 * The hash is 64-bit FNV-1a over bytes. Its values are observable (seeds of random streams are
 * derived from API names, digests are written into run records): they must never change, and
 * tests pin some.
 *
 * The map is open addressing with linear probing, at most half full, over keys that are byte
 * strings with a length (not NUL-terminated; NULs allowed). Each entry holds its key, the key's
 * hash (kept, so that a probe compares bytes only on a likely match and growing does not hash
 * again) and a value, a pointer or an index, that the caller sets. Keys are borrowed (they must
 * outlive the map, e.g. in an arena) or owned (copied into the map at insertion; freed with it),
 * as chosen at init. No removal. Iteration visits the entries in slot order, which depends on
 * the keys and the map's history, not on insertion order: callers that need an order keep it.
 *
 * Memory: slots and owned keys come from malloc (pc_alloc_fail_after's hook applies); every
 * insertion may move the entries, so an entry pointer is valid until the next insertion.
 */
#ifndef PC_CORE_HASHMAP_H
#define PC_CORE_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_HASH_FNV1A64_BASIS 0xcbf29ce484222325ULL
#define PC_HASH_FNV1A64_PRIME 0x100000001b3ULL

/* FNV-1a 64 of data[0, len), continuing from h (PC_HASH_FNV1A64_BASIS to start). */
static inline uint64_t pc_hash_fnv1a64_more(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * PC_HASH_FNV1A64_PRIME;
    return h;
}

static inline uint64_t pc_hash_fnv1a64(const void *data, size_t len)
{
    return pc_hash_fnv1a64_more(PC_HASH_FNV1A64_BASIS, data, len);
}

/* Of the bytes of s before its NUL (NULL hashes as ""). */
static inline uint64_t pc_hash_fnv1a64_str(const char *s)
{
    uint64_t h = PC_HASH_FNV1A64_BASIS;
    if (s)
        for (; *s; s++)
            h = (h ^ (unsigned char)*s) * PC_HASH_FNV1A64_PRIME;
    return h;
}

typedef struct pc_strmap_entry {
    const char *key; /* NULL in an empty slot */
    size_t len;
    uint64_t hash; /* pc_hash_fnv1a64(key, len) */
    union {
        void *ptr;
        size_t index;
    } value; /* zero when inserted */
} pc_strmap_entry;

typedef struct pc_strmap {
    pc_strmap_entry *slots; /* cap of them; NULL while cap is 0 */
    size_t cap;             /* 0 or a power of two */
    size_t count;           /* entries in use */
    bool own_keys;
} pc_strmap;

/* An empty map that borrows its keys (what pc_strmap_init(m, false) makes). */
#define PC_STRMAP_INIT                                                                             \
    {                                                                                              \
        0                                                                                          \
    }

/* An empty map; own_keys: insertions copy their key (freed by pc_strmap_free). */
void pc_strmap_init(pc_strmap *m, bool own_keys);
/* Room for count entries in all without growing; false when out of memory (m unchanged). */
bool pc_strmap_reserve(pc_strmap *m, size_t count);

/* The entry of key, or NULL. */
pc_strmap_entry *pc_strmap_find(const pc_strmap *m, const char *key, size_t len);
/* The same, with hash = pc_hash_fnv1a64(key, len) computed by the caller. */
pc_strmap_entry *pc_strmap_find_hashed(const pc_strmap *m, const char *key, size_t len,
                                       uint64_t hash);

/*
 * The entry of key, inserted (value zero) when absent; *added (when not NULL) says which.
 * NULL when out of memory (m unchanged). Invalidates entry pointers got before it.
 */
pc_strmap_entry *pc_strmap_put(pc_strmap *m, const char *key, size_t len, bool *added);
pc_strmap_entry *pc_strmap_put_hashed(pc_strmap *m, const char *key, size_t len, uint64_t hash,
                                      bool *added);

/* Iteration: *pos starts at 0; each call gives the next entry in slot order, NULL at the end. */
pc_strmap_entry *pc_strmap_next(const pc_strmap *m, size_t *pos);

/* Frees the slots (and owned keys); leaves an empty map of the same kind. */
void pc_strmap_free(pc_strmap *m);

#endif
