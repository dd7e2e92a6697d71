/*
 * Private to core/ and its tests: the allocator that core objects go through, with a
 * fault-injection switch so that tests can make an allocation fail on purpose and check the
 * error path (SQLite's habit: out-of-memory is an input like any other).
 *
 * pc_malloc/pc_calloc never return NULL for a size of 0 (they allocate one byte instead); they
 * return NULL on failure and set no message (the caller knows what it was allocating). Memory
 * from them is freed with pc_free, never with free(), so that the live count stays right.
 */
#ifndef PC_CORE_ALLOC_H
#define PC_CORE_ALLOC_H

#include <stddef.h>

void *pc_malloc(size_t size);
void *pc_calloc(size_t count, size_t size);
void pc_free(void *p); /* NULL is fine */

/*
 * Large blocks (what big tensors' storages are made of), mapped from the kernel and kept for
 * reuse when freed: a fresh mapping costs a page fault and a page of zeroing in the kernel for
 * every 4 KB first touched, which at model scale (a GB-sized weight raised to float64, its
 * gradient, the GEMM outputs, each API after the other) was a quarter of run_ut's CPU time.
 *
 * pc_block_alloc gives at least size bytes, page-aligned, zeroed when zeroed is true (else the
 * contents are whatever a freed block held), and sets *len to what pc_block_free wants back;
 * NULL on failure (the fault-injection hook and the live count apply as for pc_malloc).
 * Freed blocks are kept (as up to 64 pieces) while the mapped total (in use + kept) stays at
 * most the most that was ever in use at once, so the cache never raises peak memory. A request
 * takes the smallest kept piece that holds it (a tail of 4 MB or more stays kept as a piece of
 * its own), else kept pieces, largest first, moved next to each other by mremap (page tables
 * move; no page is copied or faulted) in front of fresh pages for the rest. So pages once
 * faulted in serve any later size until the budget unmaps them: on a virtual machine the first
 * touch of a page the guest has not used lately costs about 2.7 s per GB.
 *
 * pc_block_min() is the size from which callers should use blocks: SIZE_MAX (never) in
 * sanitizer builds and with the environment variable PRECHECK_BLOCK_CACHE=0, so that ASan and
 * valgrind see every allocation as a heap block of its own.
 */
size_t pc_block_min(void);
void *pc_block_alloc(size_t size, int zeroed, size_t *len);
void pc_block_free(void *p, size_t len); /* NULL is fine */
/* Test hook: the bytes of blocks mapped and in use, mapped and kept, and the most ever in use. */
void pc_block_stats(size_t *live, size_t *kept, size_t *peak);

/* Test hook: the next n allocations succeed and the one after them fails (once; later ones
 * succeed again). n < 0 switches the hook off, which is the default. Thread-safe, but meant
 * for single-threaded tests: with several threads, which allocation fails is up to timing. */
void pc_alloc_fail_after(long n);

/* The hook alone, for core's containers whose memory leaves core to callers that free() it
 * (pc_strbuf_finish, the arena's chunks, the map's slots): true when the allocation about to be
 * made must fail. Such memory is not in pc_alloc_live's count. */
int pc_alloc_hook_fails(void);

/* Blocks from pc_malloc/pc_calloc not yet given to pc_free; tests check it returns to where it
 * was, which finds leaks without a sanitizer. */
long pc_alloc_live(void);

#endif
