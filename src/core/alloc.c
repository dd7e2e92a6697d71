#include "core/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

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
