#define _GNU_SOURCE /* mremap */
#include "core/alloc.h"

#include <limits.h>
#include <malloc.h>
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

int pc_alloc_hook_fails(void)
{
    return injected_failure();
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
#define BLOCK_KEPT 64                /* kept pieces at most */
#define BLOCK_SEGS 16                /* pieces one block may be made of */
#define BLOCK_COMP 64                /* blocks made of several pieces in use at once, at most */

/* A kept piece of memory: always inside one kernel mapping (VMA), so that mremap can move it
 * (mremap refuses a range over several). */
typedef struct kept_block {
    void *p;
    size_t len;
} kept_block;

/* A block in use made of pieces moved next to each other (each its own mapping): where they
 * end, so that freeing it keeps them as the pieces they are. */
typedef struct composite {
    void *p;
    int nseg;
    size_t end[BLOCK_SEGS]; /* end offset of each piece; the last is the block's length */
} composite;

static struct {
    pthread_mutex_t lock;
    kept_block kept[BLOCK_KEPT];
    int nkept;
    composite comp[BLOCK_COMP];
    int ncomp;
    size_t live, cached, peak; /* bytes mapped in use, kept, most ever in use */
} blocks = {.lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_once_t block_once = PTHREAD_ONCE_INIT;
static size_t block_min = SIZE_MAX;
static size_t page_size = 4096;

/* A fork while another thread holds the lock would leave it held in the child; the child also
 * forgets the kept pieces (their pages are shared copy-on-write with the parent, so reusing
 * them would copy every page): it unmaps them. */
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

/* The heap's side of the same: glibc gives the top of its heap back to the kernel once 128 KB
 * are free there and maps allocations from 128 KB on (a threshold that grows to 32 MB at
 * most), so every API's storages below BLOCK_MIN and its kernels' scratch were faulted in and
 * zeroed again by the next API: on a dump of 207 medium APIs (bench_e2e --medium) 1.0 s of
 * system time in a 2.0 s run. Allocations below BLOCK_MIN now come from the heap, which keeps
 * what is freed (within its most ever in use, as the block cache does). A user's own glibc
 * malloc settings are kept. */
static void heap_keep_freed(void)
{
    if (getenv("GLIBC_TUNABLES") || getenv("MALLOC_TRIM_THRESHOLD_") ||
        getenv("MALLOC_MMAP_THRESHOLD_"))
        return;
    mallopt(M_MMAP_THRESHOLD, (int)BLOCK_MIN);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
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
    heap_keep_freed();
}

size_t pc_block_min(void)
{
    pthread_once(&block_once, block_init);
    return block_min;
}

static void kept_remove(int i)
{
    blocks.cached -= blocks.kept[i].len;
    blocks.kept[i] = blocks.kept[--blocks.nkept];
}

/* Keeps a piece, or unmaps it when BLOCK_KEPT are kept and it is smaller than all of them
 * (else the smallest kept one goes). Called with the lock held. */
static void kept_add(void *p, size_t len)
{
    if (blocks.nkept == BLOCK_KEPT) {
        int small = 0;
        for (int i = 1; i < blocks.nkept; i++)
            if (blocks.kept[i].len < blocks.kept[small].len)
                small = i;
        if (blocks.kept[small].len >= len) {
            munmap(p, len);
            return;
        }
        munmap(blocks.kept[small].p, blocks.kept[small].len);
        kept_remove(small);
    }
    blocks.kept[blocks.nkept++] = (kept_block){p, len};
    blocks.cached += len;
}

/* Unmaps kept pieces until the mapped total is back within the peak in use: each time the
 * smallest piece that covers the excess, else the largest. Called with the lock held. */
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
        kept_remove(v);
    }
}

/* A block of want bytes made of kept pieces, largest first, moved (mremap: page tables move,
 * no page is copied or faulted) into a fresh mapping of want bytes, whose pages are left where
 * the pieces do not reach. *reused: the bytes that came from pieces. NULL when the mapping
 * cannot be made or too many blocks are made of pieces already. Called with the lock held. */
static void *block_compose(size_t want, size_t *reused)
{
    if (blocks.ncomp == BLOCK_COMP)
        return NULL;
    void *q = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        return NULL;
    composite c = {.p = q, .nseg = 0};
    size_t off = 0;
    *reused = 0;
    while (off < want && blocks.nkept > 0 && c.nseg + 2 < BLOCK_SEGS) {
        int big = 0;
        for (int i = 1; i < blocks.nkept; i++)
            if (blocks.kept[i].len > blocks.kept[big].len)
                big = i;
        kept_block k = blocks.kept[big];
        size_t mv = k.len < want - off ? k.len : want - off;
        if (mremap(k.p, mv, mv, MREMAP_MAYMOVE | MREMAP_FIXED, (char *)q + off) == MAP_FAILED)
            break;
        kept_remove(big);
        if (mv < k.len) /* the piece's tail stays kept where it is */
            kept_add((char *)k.p + mv, k.len - mv);
        off += mv;
        *reused += mv;
        c.end[c.nseg++] = off;
    }
    if (off < want)
        c.end[c.nseg++] = want; /* the rest: pages of the fresh mapping */
    if (c.nseg > 1)
        blocks.comp[blocks.ncomp++] = c;
    return q;
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
    /* The smallest kept piece that holds want, its tail (when BLOCK_MIN or more) kept as a
     * piece of its own; else a block made of kept pieces; else a fresh mapping. Pages once
     * faulted in are unmapped only by block_trim. */
    int pick = -1;
    for (int i = 0; i < blocks.nkept; i++)
        if (blocks.kept[i].len >= want && (pick < 0 || blocks.kept[i].len < blocks.kept[pick].len))
            pick = i;
    void *p = NULL;
    size_t got = want, reused = 0; /* bytes mapped; of them, bytes kept pieces held */
    if (pick >= 0) {
        kept_block k = blocks.kept[pick];
        kept_remove(pick);
        if (k.len >= want + BLOCK_MIN)
            kept_add((char *)k.p + want, k.len - want);
        else
            got = k.len;
        p = k.p;
        reused = want;
    } else if (blocks.nkept > 0) {
        p = block_compose(want, &reused);
    }
    if (!p) {
        pthread_mutex_unlock(&blocks.lock);
        void *q = mmap(NULL, want, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (q == MAP_FAILED)
            return NULL;
        pthread_mutex_lock(&blocks.lock);
        p = q;
    }
    blocks.live += got;
    if (blocks.live > blocks.peak)
        blocks.peak = blocks.live;
    block_trim();
    pthread_mutex_unlock(&blocks.lock);
    if (zeroed && reused) /* composed blocks: the pieces come first */
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
    int c = -1;
    for (int i = 0; i < blocks.ncomp && c < 0; i++)
        if (blocks.comp[i].p == p)
            c = i;
    if (c < 0) {
        kept_add(p, len);
    } else { /* kept as the pieces it is made of */
        size_t start = 0;
        for (int k = 0; k < blocks.comp[c].nseg; k++) {
            kept_add((char *)p + start, blocks.comp[c].end[k] - start);
            start = blocks.comp[c].end[k];
        }
        blocks.comp[c] = blocks.comp[--blocks.ncomp];
    }
    pthread_mutex_unlock(&blocks.lock);
}

void pc_block_stats(size_t *live, size_t *kept, size_t *peak)
{
    pthread_mutex_lock(&blocks.lock);
    *live = blocks.live;
    *kept = blocks.cached;
    *peak = blocks.peak;
    pthread_mutex_unlock(&blocks.lock);
}
