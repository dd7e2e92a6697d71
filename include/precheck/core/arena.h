/*
 * A bump allocator: many small blocks freed all at once (the records of a pc_dump, the nodes of
 * a pickle, the strings of a report or of api_precision_compare's tables). Blocks are 8-byte
 * aligned; a request larger than a quarter of a chunk gets a chunk of its own. Not thread-safe
 * (one arena per owner). Memory comes from malloc; pc_alloc_fail_after's hook applies to it.
 */
#ifndef PC_CORE_ARENA_H
#define PC_CORE_ARENA_H

#include <stddef.h>

typedef struct pc_arena_chunk pc_arena_chunk;

typedef struct pc_arena {
    pc_arena_chunk *head; /* the chunk being filled; older ones follow its next links */
    char *cur, *end;
    size_t total;      /* bytes of all chunks, for statistics and the limit */
    size_t chunk_size; /* 0: 4 MiB chunks advised as huge pages (for hundreds of MB) */
    size_t limit;      /* the most bytes of chunks; 0: no limit */
} pc_arena;

/* An empty arena with 4 MiB chunks and no limit (what pc_arena_init(a, 0, 0) makes). */
#define PC_ARENA_INIT                                                                              \
    {                                                                                              \
        0                                                                                          \
    }

/* An empty arena whose chunks are chunk_size bytes (0: 4 MiB huge-page chunks) and whose chunks
 * together may not exceed limit bytes (0: no limit): past it, allocations return NULL. */
void pc_arena_init(pc_arena *a, size_t chunk_size, size_t limit);
/* size bytes (uninitialised), or NULL when out of memory or past the limit (no message set). */
void *pc_arena_alloc(pc_arena *a, size_t size);
/* count * size zeroed bytes; NULL on overflow, out of memory or past the limit. */
void *pc_arena_calloc(pc_arena *a, size_t count, size_t size);
/* A NUL-terminated copy of s[0, len); NULL when out of memory. */
char *pc_arena_strndup(pc_arena *a, const char *s, size_t len);
/* A copy of the string s (NULL copies as ""); NULL when out of memory. */
char *pc_arena_strdup(pc_arena *a, const char *s);
/* Frees every block at once; leaves an empty arena with the same chunk size and limit. */
void pc_arena_free(pc_arena *a);

#endif
