/* The large-block cache of core/alloc.c: freed blocks come back for later requests (whole,
 * cut with the tail kept, or several pieces moved into one block), zeroed when asked for, never
 * more mapped than the most ever in use, and a forked child starts with none kept; the storages and
 * tensors made on blocks behave as heap ones. In sanitizer builds (where the cache is off) the
 * tests that need it are skipped. */
#include "pc_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/alloc.h"
#include "precheck/core/tensor.h"

#define MB ((size_t)1 << 20)

static long live_at_start;

static int setup(void **state)
{
    (void)state;
    live_at_start = pc_alloc_live();
    pc_alloc_fail_after(-1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pc_alloc_fail_after(-1);
    if (pc_alloc_live() != live_at_start) {
        print_error("leak: %ld blocks allocated and not freed\n", pc_alloc_live() - live_at_start);
        return -1;
    }
    return 0;
}

static void skip_without_cache(void)
{
    if (pc_block_min() == SIZE_MAX)
        skip();
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* The budget: mapped bytes (in use + kept) never above the most ever in use. */
static void assert_within_peak(void)
{
    size_t live, kept, peak;
    pc_block_stats(&live, &kept, &peak);
    assert_true(live + kept <= peak);
}

static void freed_block_comes_back_zeroed(void **state)
{
    (void)state;
    skip_without_cache();
    size_t len;
    unsigned char *p = pc_block_alloc(8 * MB, 1, &len);
    assert_non_null(p);
    assert_true(len >= 8 * MB);
    assert_true(all_zero(p, 8 * MB));
    memset(p, 0xab, 8 * MB);
    pc_block_free(p, len);
    size_t len2;
    unsigned char *q = pc_block_alloc(8 * MB, 1, &len2);
    assert_ptr_equal(q, p); /* the same pages */
    assert_true(all_zero(q, 8 * MB));
    memset(q, 0xcd, 8 * MB);
    pc_block_free(q, len2);
    /* not zeroed: the bytes are whatever the block held */
    unsigned char *r = pc_block_alloc(8 * MB - 100, 0, &len2);
    assert_ptr_equal(r, p);
    assert_int_equal(r[0], 0xcd);
    assert_int_equal(r[8 * MB - 101], 0xcd);
    pc_block_free(r, len2);
    assert_within_peak();
}

static void large_block_cut_and_its_tail_kept(void **state)
{
    (void)state;
    skip_without_cache();
    size_t len;
    unsigned char *p = pc_block_alloc(64 * MB, 0, &len);
    assert_non_null(p);
    memset(p, 1, 64 * MB);
    pc_block_free(p, len);
    /* two requests that fit in it come from its pages (it may have been made of pieces) */
    size_t la, lb;
    unsigned char *a = pc_block_alloc(16 * MB, 1, &la);
    unsigned char *b = pc_block_alloc(40 * MB, 1, &lb);
    assert_true(a >= p && a + 16 * MB <= p + 64 * MB);
    assert_true(b >= p && b + 40 * MB <= p + 64 * MB);
    assert_true(a + 16 * MB <= b || b + 40 * MB <= a);
    assert_true(all_zero(a, 16 * MB));
    assert_true(all_zero(b, 40 * MB));
    memset(a, 2, 16 * MB);
    memset(b, 3, 40 * MB);
    pc_block_free(a, la);
    pc_block_free(b, lb);
    assert_within_peak();
}

/* In a child (which starts with nothing kept): a request larger than every kept piece is
 * made of them, without new pages; freed, it is kept as its pieces, which serve again. */
static int composed_in_child(void)
{
    size_t la, lb, lc, ld, live, kept, peak;
    unsigned char *a = pc_block_alloc(16 * MB, 0, &la), *b = pc_block_alloc(24 * MB, 0, &lb);
    if (!a || !b)
        return 1;
    memset(a, 5, 16 * MB);
    memset(b, 6, 24 * MB);
    pc_block_free(a, la);
    pc_block_free(b, lb);
    pc_block_stats(&live, &kept, &peak);
    size_t mapped = live + kept;
    unsigned char *c = pc_block_alloc(36 * MB, 1, &lc);
    if (!c || lc != 36 * MB || !all_zero(c, 36 * MB))
        return 2;
    pc_block_stats(&live, &kept, &peak);
    if (live + kept != mapped || kept != 4 * MB) /* no new pages; a's last 4 MB still kept */
        return 3;
    memset(c, 7, 36 * MB);
    pc_block_free(c, lc);
    unsigned char *d = pc_block_alloc(40 * MB, 0, &ld);
    if (!d)
        return 4;
    pc_block_stats(&live, &kept, &peak);
    if (live != 40 * MB || kept != 0 || live + kept != mapped)
        return 5;
    memset(d, 8, 40 * MB); /* every page writable */
    pc_block_free(d, ld);
    pc_block_stats(&live, &kept, &peak);
    return live == 0 && kept == mapped ? 0 : 6;
}

/* Runs fn in a forked child; its exit status (0: all well) must be 0. */
static void in_child(int (*fn)(void))
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(fn());
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void pieces_make_a_larger_block(void **state)
{
    (void)state;
    skip_without_cache();
    in_child(composed_in_child);
}

static void larger_than_all_kept_is_zeroed(void **state)
{
    (void)state;
    skip_without_cache();
    /* after the tests above, whatever is kept is at most the peak; ask for more than all of it */
    size_t live, kept, peak;
    pc_block_stats(&live, &kept, &peak);
    size_t big = peak + 24 * MB, len;
    unsigned char *p = pc_block_alloc(big, 1, &len);
    assert_non_null(p);
    assert_true(len >= big);
    assert_true(all_zero(p, big));
    memset(p, 7, big);
    pc_block_free(p, len);
    pc_block_stats(&live, &kept, &peak);
    assert_true(peak >= big);
    assert_within_peak();
}

static void mapped_total_stays_within_peak(void **state)
{
    (void)state;
    skip_without_cache();
    /* many sizes in and out; the budget holds after every step */
    void *p[12] = {0};
    size_t len[12] = {0};
    uint32_t x = 12345;
    for (int step = 0; step < 400; step++) {
        x = x * 1664525u + 1013904223u;
        int k = (int)(x >> 28) % 12;
        if (p[k]) {
            pc_block_free(p[k], len[k]);
            p[k] = NULL;
        } else {
            size_t size = (size_t)(4 + (x >> 8) % 60) * MB + (x & 4095);
            p[k] = pc_block_alloc(size, (x >> 4) & 1, &len[k]);
            assert_non_null(p[k]);
            assert_true(len[k] >= size);
            memset(p[k], k, size); /* every page usable */
        }
        assert_within_peak();
    }
    for (int k = 0; k < 12; k++)
        pc_block_free(p[k], len[k]);
    assert_within_peak();
}

/* The child's side: nothing kept from the parent; a new block is zeroed. */
static int fresh_in_child(void)
{
    size_t live, kept, peak, len;
    pc_block_stats(&live, &kept, &peak);
    if (kept != 0)
        return 1;
    unsigned char *q = pc_block_alloc(8 * MB, 1, &len);
    if (!q || !all_zero(q, 8 * MB))
        return 2;
    pc_block_free(q, len);
    return 0;
}

static void child_after_fork_keeps_nothing(void **state)
{
    (void)state;
    skip_without_cache();
    size_t len;
    void *p = pc_block_alloc(8 * MB, 0, &len);
    assert_non_null(p);
    pc_block_free(p, len); /* kept in this process */
    in_child(fresh_in_child);
}

static void injected_failure_fails_a_block(void **state)
{
    (void)state;
    skip_without_cache();
    size_t len = 0;
    pc_alloc_fail_after(0);
    assert_null(pc_block_alloc(8 * MB, 1, &len));
    pc_alloc_fail_after(-1);
    pc_tensor t;
    pc_alloc_fail_after(1); /* the storage header succeeds, its block fails */
    assert_int_equal(pc_tensor_alloc(&t, PC_DTYPE_F32, (const int64_t[]){4 * (int64_t)MB}, 1),
                     PC_ERR_NOMEM);
    pc_alloc_fail_after(-1);
}

/* Tensors on blocks and on the heap: zeroed by pc_tensor_alloc after the block held other
 * bytes, writable whole when uninitialised, freed through their storage. */
static void tensors_on_blocks(void **state)
{
    (void)state;
    const int64_t sizes[] = {1000, 3 * (int64_t)MB}; /* heap, block (12 MB of float32) */
    for (int k = 0; k < 2; k++) {
        pc_tensor u;
        assert_int_equal(pc_tensor_alloc_uninit(&u, PC_DTYPE_F32, &sizes[k], 1), PC_OK);
        float *f = pc_tensor_data(&u);
        for (int64_t i = 0; i < sizes[k]; i++)
            f[i] = 1.5f;
        pc_tensor_free(&u);
        pc_tensor z;
        assert_int_equal(pc_tensor_alloc(&z, PC_DTYPE_F32, &sizes[k], 1), PC_OK);
        assert_true(all_zero(pc_tensor_data(&z), (size_t)sizes[k] * 4));
        pc_tensor v;
        pc_tensor_share(&v, &z); /* a second reference keeps the block */
        pc_tensor_free(&z);
        ((float *)pc_tensor_data(&v))[sizes[k] - 1] = 2;
        pc_tensor_free(&v);
    }
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(freed_block_comes_back_zeroed),  T(large_block_cut_and_its_tail_kept),
        T(pieces_make_a_larger_block),     T(larger_than_all_kept_is_zeroed),
        T(mapped_total_stays_within_peak), T(child_after_fork_keeps_nothing),
        T(injected_failure_fails_a_block), T(tensors_on_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
