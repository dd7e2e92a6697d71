/* madvise(MADV_HUGEPAGE) is Linux's, outside POSIX. */
#define _DEFAULT_SOURCE 1

#include "precheck/core/arena.h"

#include "core/alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* 4 MiB chunks, 2 MiB aligned and advised as transparent huge pages where the kernel has
 * them: the records of a big dump are hundreds of MB written once, and faulting them in 4 KiB
 * at a time cost about a seventh of the reading time. The waste is the unused tail of the
 * last chunk. */
enum { CHUNK_SIZE = 4 << 20, HUGE_ALIGN = 2 << 20, ALIGN = 8 };

struct pc_arena_chunk {
    pc_arena_chunk *next;
    size_t size;
    _Alignas(ALIGN) char data[];
};

void pc_arena_init(pc_arena *a, size_t chunk_size, size_t limit)
{
    memset(a, 0, sizeof *a);
    /* a chunk holds its header and at least a few blocks */
    a->chunk_size = chunk_size && chunk_size < 256 ? 256 : chunk_size;
    a->limit = limit;
}

static void *new_chunk(pc_arena *a, size_t size)
{
    size_t chunk = a->chunk_size ? a->chunk_size : CHUNK_SIZE;
    bool big = size > chunk / 4;
    pc_arena_chunk *c;
    size_t cap;
    if (size > SIZE_MAX - sizeof *c)
        return NULL;
    /* the header lives in the chunk: the usable part is a little short of the chunk size */
    cap = big ? size : chunk - sizeof *c;
    if (a->limit && (cap > a->limit || a->total > a->limit - cap))
        return NULL;
    if (pc_alloc_hook_fails())
        return NULL;
    if (big || a->chunk_size) {
        c = malloc(sizeof *c + cap);
    } else {
        c = aligned_alloc(HUGE_ALIGN, CHUNK_SIZE);
#ifdef MADV_HUGEPAGE
        if (c)
            madvise(c, CHUNK_SIZE, MADV_HUGEPAGE); /* advice only: failure is fine */
#endif
    }
    if (!c)
        return NULL;
    c->size = cap;
    a->total += cap;
    if (big && a->head) {
        /* A big block: keep filling the current chunk afterwards. */
        c->next = a->head->next;
        a->head->next = c;
        return c->data;
    }
    c->next = a->head;
    a->head = c;
    a->cur = c->data + size;
    a->end = c->data + cap;
    return c->data;
}

void *pc_arena_alloc(pc_arena *a, size_t size)
{
    if (size > SIZE_MAX - ALIGN)
        return NULL;
    size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    if (size == 0)
        size = ALIGN;
    if (a->cur && (size_t)(a->end - a->cur) >= size) {
        void *p = a->cur;
        a->cur += size;
        return p;
    }
    return new_chunk(a, size);
}

void *pc_arena_calloc(pc_arena *a, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = pc_arena_alloc(a, count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

char *pc_arena_strndup(pc_arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = pc_arena_alloc(a, len + 1);
    if (!p)
        return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *pc_arena_strdup(pc_arena *a, const char *s)
{
    if (!s)
        s = "";
    return pc_arena_strndup(a, s, strlen(s));
}

void pc_arena_free(pc_arena *a)
{
    size_t chunk_size = a->chunk_size, limit = a->limit;
    pc_arena_chunk *c = a->head;
    while (c) {
        pc_arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    pc_arena_init(a, chunk_size, limit);
}
