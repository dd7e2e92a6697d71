/*
 * Private to dump/: a bump allocator that owns every record of a pc_dump, freed all at once.
 * Blocks are 8-byte aligned; a request larger than a chunk gets a chunk of its own. Not
 * thread-safe (one arena per reader).
 */
#ifndef PC_DUMP_ARENA_H
#define PC_DUMP_ARENA_H

#include <stddef.h>

typedef struct pc_arena_chunk pc_arena_chunk;

typedef struct pc_arena {
    pc_arena_chunk *head; /* the chunk being filled; older ones follow its next links */
    char *cur, *end;
    size_t total; /* bytes of all chunks, for statistics */
} pc_arena;

#define PC_ARENA_INIT                                                                              \
    {                                                                                              \
        0                                                                                          \
    }

/* size bytes (uninitialised), or NULL when out of memory (no message set). */
void *pc_arena_alloc(pc_arena *a, size_t size);
/* count * size zeroed bytes; NULL on overflow or out of memory. */
void *pc_arena_calloc(pc_arena *a, size_t count, size_t size);
/* A NUL-terminated copy of s[0, len); NULL when out of memory. */
char *pc_arena_strndup(pc_arena *a, const char *s, size_t len);
void pc_arena_free(pc_arena *a); /* leaves an empty arena behind */

#endif
