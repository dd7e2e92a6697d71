/* core/hashmap: the FNV-1a values (observable: rng seeds, run digests), the map's insert, find,
 * growth, collisions, owned and borrowed keys, iteration, and injected out-of-memory. */
#include "pc_test.h"

#include "core/alloc.h"
#include "precheck/core/hashmap.h"
#include "precheck/core/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int teardown(void **state)
{
    (void)state;
    pc_alloc_fail_after(-1);
    return 0;
}

/* Values from the FNV reference (and Python: h = (h ^ b) * 0x100000001b3 mod 2^64). */
static void fnv1a64_values_are_pinned(void **state)
{
    (void)state;
    assert_true(pc_hash_fnv1a64("", 0) == 0xcbf29ce484222325ULL);
    assert_true(pc_hash_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(pc_hash_fnv1a64("foobar", 6) == 0x85944171f73967e8ULL);
    assert_true(pc_hash_fnv1a64_str("Torch.matmul.0.forward") == 0xaf144139ca704010ULL);
    assert_true(pc_hash_fnv1a64("a\0b", 3) == 0xe5d29919042666b2ULL);
    assert_true(pc_hash_fnv1a64_str(NULL) == pc_hash_fnv1a64_str(""));
    /* continuing is the same as hashing the concatenation */
    assert_true(pc_hash_fnv1a64_more(pc_hash_fnv1a64("foo", 3), "bar", 3) ==
                pc_hash_fnv1a64_str("foobar"));
}

/* The rng derives streams from names through this hash: a stream's first draws are pinned, so
 * that a change of hash (which would change every generated input) cannot go unnoticed. */
static void rng_streams_keyed_by_name_are_pinned(void **state)
{
    (void)state;
    pc_rng_stream a, b;
    pc_rng_stream_init(&a, 1234, "Torch.matmul.0.forward");
    pc_rng_stream_init(&b, 1234, "Torch.matmul.0.forward");
    assert_memory_equal(&a, &b, sizeof a);
    /* the key words follow from mix64(fnv1a64(key) ^ mix64(seed ^ golden)) */
    char got[64];
    PC_TEST_FMT(got, "%08x %08x %08x", (unsigned)a.key[0], (unsigned)a.key[1], (unsigned)a.salt);
    assert_string_equal(got, "757dee74 e2c6bc20 1757ed70");
}

static void insert_find_and_update(void **state)
{
    (void)state;
    pc_strmap m = PC_STRMAP_INIT;
    assert_null(pc_strmap_find(&m, "x", 1)); /* empty map: no slots yet */
    bool added = false;
    pc_strmap_entry *e = pc_strmap_put(&m, "alpha", 5, &added);
    assert_non_null(e);
    assert_true(added);
    assert_int_equal(e->value.index, 0); /* zero when inserted */
    e->value.index = 7;
    e = pc_strmap_put(&m, "alpha", 5, &added);
    assert_false(added);
    assert_int_equal(e->value.index, 7);
    assert_int_equal(m.count, 1);
    /* keys are bytes with a length: a prefix is another key */
    e = pc_strmap_put(&m, "alphabet", 5, &added); /* "alpha" again */
    assert_false(added);
    e = pc_strmap_put(&m, "alp", 3, &added);
    assert_true(added);
    e->value.ptr = &m;
    assert_ptr_equal(pc_strmap_find(&m, "alp", 3)->value.ptr, &m);
    assert_null(pc_strmap_find(&m, "alph", 4));
    /* the empty key and keys with NULs */
    assert_non_null(pc_strmap_put(&m, "", 0, &added));
    assert_true(added);
    assert_non_null(pc_strmap_put(&m, "a\0b", 3, &added));
    assert_true(added);
    assert_non_null(pc_strmap_find(&m, "", 0));
    assert_non_null(pc_strmap_find(&m, "a\0b", 3));
    assert_null(pc_strmap_find(&m, "a\0c", 3));
    assert_int_equal(m.count, 4);
    pc_strmap_free(&m);
    assert_int_equal(m.count, 0);
    assert_null(pc_strmap_find(&m, "alpha", 5));
}

/* Many keys: every one found with its value after all the growths, none that was not put. */
static void many_keys_survive_growth(void **state)
{
    (void)state;
    enum { N = 100000 };
    pc_strmap m;
    pc_strmap_init(&m, true);
    char key[32];
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(key, sizeof key, "Torch.api_%zu.forward", i);
        bool added;
        pc_strmap_entry *e = pc_strmap_put(&m, key, (size_t)n, &added);
        assert_non_null(e);
        assert_true(added);
        e->value.index = i;
    }
    assert_int_equal(m.count, N);
    assert_true(m.cap >= 2 * N); /* at most half full */
    assert_int_equal(m.cap & (m.cap - 1), 0);
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(key, sizeof key, "Torch.api_%zu.forward", i);
        pc_strmap_entry *e = pc_strmap_find(&m, key, (size_t)n);
        assert_non_null(e);
        assert_int_equal(e->value.index, i);
        n = snprintf(key, sizeof key, "Torch.api_%zu.backward", i);
        assert_null(pc_strmap_find(&m, key, (size_t)n));
    }
    pc_strmap_free(&m);
}

/* Keys whose hashes collide in the slot index (same hash given on purpose): probing finds each. */
static void colliding_hashes_probe_on(void **state)
{
    (void)state;
    pc_strmap m = PC_STRMAP_INIT;
    static const char *keys[] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9"};
    for (size_t i = 0; i < 10; i++) {
        bool added;
        pc_strmap_entry *e = pc_strmap_put_hashed(&m, keys[i], 2, 42, &added);
        assert_true(added);
        e->value.index = i;
    }
    for (size_t i = 0; i < 10; i++) {
        pc_strmap_entry *e = pc_strmap_find_hashed(&m, keys[i], 2, 42);
        assert_non_null(e);
        assert_int_equal(e->value.index, i);
    }
    assert_null(pc_strmap_find_hashed(&m, "kx", 2, 42));
    /* the same hash bits in the low part, different above: also collide in the slot */
    bool added;
    assert_non_null(pc_strmap_put_hashed(&m, "hi", 2, 42 | (1ULL << 63), &added));
    assert_true(added);
    assert_null(pc_strmap_find_hashed(&m, "hi", 2, 42));
    pc_strmap_free(&m);
}

/* Borrowed keys are the caller's pointers; owned keys are copies that outlive the caller's. */
static void borrowed_and_owned_keys(void **state)
{
    (void)state;
    char text[] = "borrowed";
    pc_strmap b = PC_STRMAP_INIT;
    assert_ptr_equal(pc_strmap_put(&b, text, 8, NULL)->key, text);
    pc_strmap_free(&b);

    pc_strmap o;
    pc_strmap_init(&o, true);
    char *tmp = strdup("owned-key");
    pc_strmap_entry *e = pc_strmap_put(&o, tmp, 5, NULL); /* "owned" */
    assert_ptr_not_equal(e->key, tmp);
    free(tmp);
    e = pc_strmap_find(&o, "owned", 5);
    assert_non_null(e);
    assert_string_equal(e->key, "owned"); /* NUL-terminated copy */
    assert_int_equal(e->len, 5);
    pc_strmap_free(&o);
    assert_true(o.own_keys); /* the same kind after free */
}

/* Iteration visits every entry once. */
static void iteration_visits_each_entry_once(void **state)
{
    (void)state;
    pc_strmap m;
    pc_strmap_init(&m, true);
    enum { N = 1000 };
    char key[16];
    for (size_t i = 0; i < N; i++) {
        int n = snprintf(key, sizeof key, "%zu", i);
        pc_strmap_put(&m, key, (size_t)n, NULL)->value.index = i;
    }
    unsigned char seen[N] = {0};
    size_t pos = 0, visited = 0;
    for (pc_strmap_entry *e; (e = pc_strmap_next(&m, &pos)) != NULL; visited++) {
        assert_true(e->value.index < N);
        assert_int_equal(seen[e->value.index], 0);
        seen[e->value.index] = 1;
        char want[16];
        PC_TEST_FMT(want, "%zu", e->value.index);
        assert_string_equal(e->key, want);
    }
    assert_int_equal(visited, N);
    pos = 0;
    pc_strmap empty = PC_STRMAP_INIT;
    assert_null(pc_strmap_next(&empty, &pos));
    pc_strmap_free(&m);
}

static void reserve_avoids_growth(void **state)
{
    (void)state;
    pc_strmap m = PC_STRMAP_INIT;
    assert_true(pc_strmap_reserve(&m, 1000));
    size_t cap = m.cap;
    assert_true(cap >= 2000);
    char key[16];
    for (int i = 0; i < 1000; i++) {
        int n = snprintf(key, sizeof key, "%d", i);
        assert_non_null(pc_strmap_put(&m, strdup(key), (size_t)n, NULL));
    }
    assert_int_equal(m.cap, cap);
    size_t pos = 0;
    for (pc_strmap_entry *e; (e = pc_strmap_next(&m, &pos)) != NULL;)
        free((void *)(uintptr_t)e->key);
    pc_strmap_free(&m);
}

/* An allocation failing (slots when growing, the copy of an owned key) returns NULL and leaves
 * the map as it was: every key put before is still found, and the map works again after. */
static void out_of_memory_leaves_map_intact(void **state)
{
    (void)state;
    for (long run = 0; run < 18; run++) {
        long fail_at = run / 2;
        pc_strmap m;
        pc_strmap_init(&m, run % 2 == 0);
        char key[16];
        size_t put = 0;
        pc_alloc_fail_after(fail_at);
        for (size_t i = 0; i < 2000; i++) {
            int n = snprintf(key, sizeof key, "key%zu", i);
            const char *k = m.own_keys ? key : strdup(key);
            pc_strmap_entry *e = pc_strmap_put(&m, k, (size_t)n, NULL);
            if (!e) {
                if (!m.own_keys)
                    free((void *)(uintptr_t)k);
                break;
            }
            e->value.index = i;
            put++;
        }
        pc_alloc_fail_after(-1);
        assert_true(put < 2000); /* borrowed keys: 9 growths of the slots for 2000 */
        assert_int_equal(m.count, put);
        for (size_t i = 0; i < put; i++) {
            int n = snprintf(key, sizeof key, "key%zu", i);
            pc_strmap_entry *e = pc_strmap_find(&m, key, (size_t)n);
            assert_non_null(e);
            assert_int_equal(e->value.index, i);
        }
        assert_non_null(pc_strmap_put(&m, "after", 5, NULL));
        if (!m.own_keys) {
            size_t pos = 0;
            for (pc_strmap_entry *e; (e = pc_strmap_next(&m, &pos)) != NULL;)
                if (strcmp(e->key, "after") != 0)
                    free((void *)(uintptr_t)e->key);
        }
        pc_strmap_free(&m);
    }
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(fnv1a64_values_are_pinned),        T(rng_streams_keyed_by_name_are_pinned),
        T(insert_find_and_update),           T(many_keys_survive_growth),
        T(colliding_hashes_probe_on),        T(borrowed_and_owned_keys),
        T(iteration_visits_each_entry_once), T(reserve_avoids_growth),
        T(out_of_memory_leaves_map_intact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
