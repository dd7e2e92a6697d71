#define _GNU_SOURCE /* mremap */
#include "core/alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Relaxed atomics: the counters must not tear or race under threads, but nothing orders
 * other memory through them. */
static atomic_long fail_countdown = -1;
static atomic_long live_blocks = 0;

/* True when the hook says this allocation fails. The countdown is decremented only while it
 * is armed, so that the common path is one relaxed load. */
static int injected_failure(void)
{
    if (atomic_load_explicit(&fail_countdown, memory_order_relaxed) < 0)
        return 0;
    return atomic_fetch_sub_explicit(&fail_countdown, 1, memory_order_relaxed) == 0;
}

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add_explicit(&live_blocks, 1, memory_order_relaxed);
    return p;
}

void *pc_malloc(size_t size)
{
    if (injected_failure())
        return NULL;
    return counted(malloc(size ? size : 1));
}

void *pc_calloc(size_t count, size_t size)
{
    if (injected_failure())
        return NULL;
    if (count == 0 || size == 0)
        count = size = 1;
    return counted(calloc(count, size));
}

void pc_free(void *p)
{
    if (!p)
        return;
    atomic_fetch_sub_explicit(&live_blocks, 1, memory_order_relaxed);
    free(p);
}

void pc_alloc_fail_after(long n)
{
    atomic_store_explicit(&fail_countdown, n < 0 ? -1 : n, memory_order_relaxed);
}

long pc_alloc_live(void)
{
    return atomic_load_explicit(&live_blocks, memory_order_relaxed);
}

/* ---- large blocks ---- */

#if defined(__SANITIZE_ADDRESS__)
#define PC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define PC_SANITIZED 1
#endif
#endif
#ifndef PC_SANITIZED
#define PC_SANITIZED 0
#endif

#define BLOCK_MIN  ((size_t)4 << 20) /* smaller requests are heap blocks */
#define BLOCK_KEPT 32                /* freed blocks kept at most */

typedef struct kept_block {
    void *p;
    size_t len;
} kept_block;

static struct {
    pthread_mutex_t lock;
    kept_block kept[BLOCK_KEPT];
    int nkept;
    size_t live, cached, peak; /* bytes mapped in use, kept, most ever in use */
} blocks = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t block_once = PTHREAD_ONCE_INIT;
static size_t block_min = SIZE_MAX;
static size_t page_size = 4096;

/* A fork while another thread holds the lock would leave it held in the child; the child also
 * forgets the kept blocks' bookkeeping (their pages are shared copy-on-write with the parent,
 * so reusing them would copy every page): it unmaps them. */
static void block_prepare(void)
{
    pthread_mutex_lock(&blocks.lock);
}

static void block_parent(void)
{
    pthread_mutex_unlock(&blocks.lock);
}

static void block_child(void)
{
    for (int i = 0; i < blocks.nkept; i++)
        munmap(blocks.kept[i].p, blocks.kept[i].len);
    blocks.nkept = 0;
    blocks.cached = 0;
    blocks.peak = blocks.live;
    pthread_mutex_unlock(&blocks.lock);
}

static void block_init(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0)
        page_size = (size_t)ps;
    const char *env = getenv("PRECHECK_BLOCK_CACHE");
    if (PC_SANITIZED || (env && strcmp(env, "0") == 0))
        return;
    if (pthread_atfork(block_prepare, block_parent, block_child) != 0)
        return;
    block_min = BLOCK_MIN;
}

size_t pc_block_min(void)
{
    pthread_once(&block_once, block_init);
    return block_min;
}

/* Unmaps kept blocks until the mapped total is back within the peak in use: each time the
 * smallest block that covers the excess, else the largest. Called with the lock held. */
static void block_trim(void)
{
    while (blocks.nkept > 0 && blocks.live + blocks.cached > blocks.peak) {
        size_t excess = blocks.live + blocks.cached - blocks.peak;
        int v = -1;
        for (int i = 0; i < blocks.nkept; i++) {
            size_t l = blocks.kept[i].len, lv = v < 0 ? 0 : blocks.kept[v].len;
            if (v < 0 || (l >= excess ? lv < excess || l < lv : lv < excess && l > lv))
                v = i;
        }
        munmap(blocks.kept[v].p, blocks.kept[v].len);
        blocks.cached -= blocks.kept[v].len;
        blocks.kept[v] = blocks.kept[--blocks.nkept];
    }
}

void *pc_block_alloc(size_t size, int zeroed, size_t *len)
{
    pthread_once(&block_once, block_init);
    if (injected_failure())
        return NULL;
    if (size > SIZE_MAX - page_size)
        return NULL;
    size_t want = (size + page_size - 1) & ~(page_size - 1);
    if (want == 0)
        want = page_size;
    pthread_mutex_lock(&blocks.lock);
    /* The smallest kept block that holds want, its tail (when BLOCK_MIN or more) kept as a block
     * of its own; else the largest, grown (mremap moves its pages, the new tail is fresh). Pages
     * of freed blocks are only unmapped by block_trim. */
    int pick = -1;
    for (int i = 0; i < blocks.nkept; i++)
        if (blocks.kept[i].len >= want && (pick < 0 || blocks.kept[i].len < blocks.kept[pick].len))
            pick = i;
    if (pick < 0)
        for (int i = 0; i < blocks.nkept; i++)
            if (pick < 0 || blocks.kept[i].len > blocks.kept[pick].len)
                pick = i;
    void *p = NULL;
    size_t got = 0, reused = 0; /* bytes mapped; of them, bytes a freed block held */
    if (pick >= 0) {
        kept_block k = blocks.kept[pick];
        blocks.kept[pick] = blocks.kept[--blocks.nkept];
        blocks.cached -= k.len;
        if (k.len >= want + BLOCK_MIN) {
            blocks.kept[blocks.nkept++] = (kept_block){(char *)k.p + want, k.len - want};
            blocks.cached += k.len - want;
            p = k.p, got = want, reused = want;
        } else if (k.len >= want) {
            p = k.p, got = k.len, reused = want;
        } else {
            void *q = mremap(k.p, k.len, want, MREMAP_MAYMOVE);
            if (q == MAP_FAILED)
                munmap(k.p, k.len);
            else
                p = q, got = want, reused = k.len; /* the new tail is fresh, zero pages */
        }
    }
    if (!p) {
        pthread_mutex_unlock(&blocks.lock);
        void *q = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED)
            return NULL;
        pthread_mutex_lock(&blocks.lock);
        p = q, got = want, reused = 0;
    }
    blocks.live += got;
    if (blocks.live > blocks.peak)
        blocks.peak = blocks.live;
    block_trim();
    pthread_mutex_unlock(&blocks.lock);
    if (zeroed && reused)
        memset(p, 0, reused < size ? reused : size);
    atomic_fetch_add_explicit(&live_blocks, 1, memory_order_relaxed);
    *len = got;
    return p;
}

void pc_block_free(void *p, size_t len)
{
    if (!p)
        return;
    atomic_fetch_sub_explicit(&live_blocks, 1, memory_order_relaxed);
    pthread_mutex_lock(&blocks.lock);
    blocks.live -= len;
    if (blocks.nkept < BLOCK_KEPT) {
        blocks.kept[blocks.nkept++] = (kept_block){p, len};
        blocks.cached += len;
        p = NULL;
    }
    pthread_mutex_unlock(&blocks.lock);
    if (p)
        munmap(p, len);
}

void pc_block_stats(size_t *live, size_t *kept, size_t *peak)
{
    pthread_mutex_lock(&blocks.lock);
    *live = blocks.live;
    *kept = blocks.cached;
    *peak = blocks.peak;
    pthread_mutex_unlock(&blocks.lock);
}
