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

/* Test hook: the next n allocations succeed and the one after them fails (once; later ones
 * succeed again). n < 0 switches the hook off, which is the default. Thread-safe, but meant
 * for single-threaded tests: with several threads, which allocation fails is up to timing. */
void pc_alloc_fail_after(long n);

/* Blocks from pc_malloc/pc_calloc not yet given to pc_free; tests check it returns to where it
 * was, which finds leaks without a sanitizer. */
long pc_alloc_live(void);

#endif
