/* core/arena: alignment, big blocks, chunk sizes, the limit, reuse after free, and injected
 * out-of-memory. */
#include "pc_test.h"

#include "core/alloc.h"
#include "precheck/core/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int teardown(void **state)
{
    (void)state;
    pc_alloc_fail_after(-1);
    return 0;
}

static void blocks_are_aligned_and_distinct(void **state)
{
    (void)state;
    pc_arena a = PC_ARENA_INIT;
    char *prev = NULL;
    for (size_t i = 0; i < 10000; i++) {
        size_t n = i % 37;
        char *p = pc_arena_alloc(&a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        memset(p, (int)(i & 0xff), n); /* ASan: the whole block is ours */
        assert_ptr_not_equal(p, prev);
        prev = p;
    }
    pc_arena_free(&a);
    assert_null(a.head);
    assert_int_equal(a.total, 0);
}

static void calloc_zeroes_and_refuses_overflow(void **state)
{
    (void)state;
    pc_arena a;
    pc_arena_init(&a, 4096, 0);
    unsigned char *p = pc_arena_calloc(&a, 100, 3);
    assert_non_null(p);
    for (int i = 0; i < 300; i++)
        assert_int_equal(p[i], 0);
    assert_null(pc_arena_calloc(&a, SIZE_MAX / 2, 3));
    assert_null(pc_arena_alloc(&a, SIZE_MAX));
    pc_arena_free(&a);
}

static void strings_copied(void **state)
{
    (void)state;
    pc_arena a;
    pc_arena_init(&a, 1024, 0);
    char *s = pc_arena_strndup(&a, "hello world", 5);
    assert_string_equal(s, "hello");
    assert_string_equal(pc_arena_strdup(&a, "x"), "x");
    assert_string_equal(pc_arena_strdup(&a, NULL), "");
    /* many strings over many small chunks, all intact at the end */
    char *kept[500];
    char want[32];
    for (int i = 0; i < 500; i++) {
        PC_TEST_FMT(want, "string number %d", i);
        kept[i] = pc_arena_strdup(&a, want);
        assert_non_null(kept[i]);
    }
    for (int i = 0; i < 500; i++) {
        PC_TEST_FMT(want, "string number %d", i);
        assert_string_equal(kept[i], want);
    }
    assert_string_equal(s, "hello");
    pc_arena_free(&a);
}

/* A block bigger than a quarter chunk gets a chunk of its own, and the current chunk goes on
 * being filled after it. */
static void big_blocks_get_their_own_chunk(void **state)
{
    (void)state;
    pc_arena a;
    pc_arena_init(&a, 1024, 0);
    char *small1 = pc_arena_alloc(&a, 16);
    size_t total = a.total;
    char *big = pc_arena_alloc(&a, 10000);
    assert_non_null(big);
    memset(big, 1, 10000);
    assert_int_equal(a.total, total + 10000);
    char *small2 = pc_arena_alloc(&a, 16);
    assert_ptr_equal(small2, small1 + 16); /* same chunk as before the big one */
    pc_arena_free(&a);
    /* the default arena: 4 MiB chunks */
    pc_arena d = PC_ARENA_INIT;
    assert_non_null(pc_arena_alloc(&d, 1));
    assert_true(d.total > (4u << 20) - 64 && d.total < (4u << 20));
    assert_non_null(pc_arena_alloc(&d, 5u << 20)); /* more than a chunk: its own */
    assert_true(d.total > (9u << 20) - 64 && d.total < (9u << 20));
    pc_arena_free(&d);
}

static void limit_refuses_past_it(void **state)
{
    (void)state;
    pc_arena a;
    pc_arena_init(&a, 1024, 4096);
    size_t got = 0;
    while (pc_arena_alloc(&a, 100))
        got += 100;
    assert_true(got > 2000 && got <= 4096);
    assert_true(a.total <= 4096);
    assert_null(pc_arena_alloc(&a, 5000));
    pc_arena_free(&a);
    /* after free: the same settings, and room again */
    assert_int_equal(a.limit, 4096);
    assert_int_equal(a.chunk_size, 1024);
    assert_non_null(pc_arena_alloc(&a, 100));
    pc_arena_free(&a);
}

static void out_of_memory_returns_null(void **state)
{
    (void)state;
    for (long fail_at = 0; fail_at < 4; fail_at++) {
        pc_arena a;
        pc_arena_init(&a, 512, 0);
        pc_alloc_fail_after(fail_at);
        size_t ok = 0;
        for (int i = 0; i < 100; i++) {
            char *p = pc_arena_alloc(&a, 200);
            if (!p)
                break;
            memset(p, 0, 200);
            ok++;
        }
        pc_alloc_fail_after(-1);
        assert_true(ok < 100);
        assert_non_null(pc_arena_alloc(&a, 200)); /* works again */
        pc_arena_free(&a);
    }
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(blocks_are_aligned_and_distinct),
        T(calloc_zeroes_and_refuses_overflow),
        T(strings_copied),
        T(big_blocks_get_their_own_chunk),
        T(limit_refuses_past_it),
        T(out_of_memory_returns_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
