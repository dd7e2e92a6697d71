/*
 * Private to the tensor-file readers and writers of io/ (pt.c, npy.c, zip.c, pickle.c): the
 * pieces they share, all small enough to live here as static functions.
 *
 *   - little-endian loads and stores of fixed-width integers at any address;
 *   - checked size arithmetic;
 *   - a whole file mapped copy-on-write (MAP_PRIVATE, readable and writable), so that tensors
 *     can use their bytes in place, callers may write to those tensors without touching the
 *     file, and big-endian data can be swapped in place;
 *   - the release callback that unmaps such a file when the last storage on it goes away;
 *   - byte swapping of element buffers;
 *   - a growable memory buffer and a file sink for the writers.
 *
 * A mapped file can still change under us if another process truncates it: reads past the new
 * end then raise SIGBUS. That is the price of mapping; the files precheck reads are dump files
 * nobody rewrites while it runs.
 */
#ifndef PC_IO_TENSOR_FILE_H
#define PC_IO_TENSOR_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "precheck/core/dtype.h"
#include "precheck/core/strbuf.h"
#include "precheck/core/status.h"
#include "precheck/core/tensor.h"

/* ---- little-endian access ---- */

static inline uint16_t pc_le16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t pc_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t pc_le64(const unsigned char *p)
{
    return (uint64_t)pc_le32(p) | (uint64_t)pc_le32(p + 4) << 32;
}

static inline void pc_put_le16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static inline void pc_put_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline void pc_put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* ---- checked arithmetic ---- */

/* a * b into *out; false when it does not fit in 64 bits (unsigned). */
static inline bool pc_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* ---- byte order ---- */

/* Reverses the bytes of each of the n items of width bytes (2, 4 or 8) in place. */
static inline void pc_swap_items(void *data, size_t n, size_t width)
{
    unsigned char *p = data;
    for (size_t i = 0; i < n; i++, p += width)
        for (size_t a = 0, b = width - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* Converts n elements of dtype between big- and little-endian in place (each part of a complex
 * number on its own; 1-byte types need nothing). */
static inline void pc_swap_elements(void *data, size_t n, pc_dtype dtype)
{
    const pc_dtype_traits *t = pc_dtype_traits_of(dtype);
    size_t width = t->size;
    if (t->kind == PC_KIND_COMPLEX) {
        width /= 2;
        n *= 2;
    }
    if (width > 1)
        pc_swap_items(data, n, width);
}

/* ---- mapped files ---- */

typedef struct pc_file_map {
    void *base;  /* the mapping (copy-on-write); NULL for an empty file */
    size_t size; /* bytes of the file */
} pc_file_map;

/* Maps the regular file at path as a whole. Messages name the path; an empty file is
 * PC_ERR_FORMAT with what_empty ("an empty file is not a .pt file"). */
static inline pc_status pc_file_map_open(pc_file_map *map, const char *path, const char *what)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return pc_error_set(e == ENOENT ? PC_ERR_NOT_FOUND : PC_ERR_IO, "%s: cannot open: %s", path,
                            strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return pc_error_set(PC_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return pc_error_set(PC_ERR_INVALID, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return pc_error_set(PC_ERR_FORMAT, "%s: the file is empty, so it is not %s", path, what);
    }
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        close(fd);
        return pc_error_set(PC_ERR_RANGE, "%s: the file is too big to map", path);
    }
    size_t size = (size_t)st.st_size;
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (base == MAP_FAILED)
        return pc_error_set(e == ENOMEM ? PC_ERR_NOMEM : PC_ERR_IO, "%s: cannot map %zu bytes: %s",
                            path, size, strerror(e));
    map->base = base;
    map->size = size;
    return PC_OK;
}

static inline void pc_file_map_close(pc_file_map *map)
{
    if (map->base)
        munmap(map->base, map->size);
    map->base = NULL;
    map->size = 0;
}

/* pc_storage_release_fn for a storage inside a mapping: ctx is a malloc'ed pc_file_map. */
static inline void pc_file_map_release(void *ctx, void *data, size_t nbytes)
{
    (void)data;
    (void)nbytes;
    pc_file_map *map = ctx;
    pc_file_map_close(map);
    free(map);
}

/* Whether nbytes of dtype data at offset of a mapping can be used in place: not empty, and
 * aligned for the element (component) type. */
static inline bool pc_file_map_can_wrap(size_t offset, size_t nbytes, pc_dtype dtype)
{
    size_t align = pc_dtype_traits_of(pc_dtype_traits_of(dtype)->component)->size;
    return nbytes > 0 && offset % align == 0;
}

/* A storage over nbytes at offset of the mapping, used in place; the storage takes the
 * mapping over, also on failure (then it is unmapped). With swap, nelem elements of dtype are
 * byte-swapped first: the mapping is private, so this changes only our pages. */
static inline pc_status pc_file_map_wrap(pc_file_map *map, size_t offset, size_t nbytes, bool swap,
                                         size_t nelem, pc_dtype dtype, const char *path,
                                         pc_storage **out)
{
    unsigned char *at = (unsigned char *)map->base + offset;
    if (swap)
        pc_swap_elements(at, nelem, dtype);
    pc_file_map *ctx = malloc(sizeof *ctx);
    if (!ctx) {
        pc_file_map_close(map);
        return pc_error_set(PC_ERR_NOMEM, "%s: out of memory", path);
    }
    *ctx = *map;
    pc_status st = pc_storage_wrap(out, at, nbytes, pc_file_map_release, ctx);
    if (st != PC_OK)
        return pc_error_prefix(st, "%s", path); /* the release has unmapped it */
    return PC_OK;
}

/* ---- output sinks for the writers ---- */

/* Bytes written so far go either into a growable memory buffer (fd < 0) or to a file (not
 * report/sink.h's pc_sink, which takes run_ut's results). */
typedef struct pc_byte_sink {
    int fd;
    const char *origin; /* for messages */
    pc_strbuf mem;      /* memory sink: the bytes, owned by the sink until taken (finish) */
    uint64_t offset;    /* bytes written so far */
} pc_byte_sink;

static inline pc_status pc_byte_sink_write(pc_byte_sink *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    if (s->fd < 0) {
        pc_strbuf_append(&s->mem, p, n);
        if (pc_strbuf_error(&s->mem))
            return pc_error_set(PC_ERR_NOMEM, "%s: out of memory growing the output past %zu bytes",
                                s->origin, pc_strbuf_len(&s->mem));
    } else {
        size_t done = 0;
        while (done < n) {
            size_t chunk = n - done < ((size_t)1 << 30) ? n - done : ((size_t)1 << 30);
            ssize_t w = write(s->fd, p + done, chunk);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return pc_error_set(PC_ERR_IO, "%s: write failed: %s", s->origin,
                                    w < 0 ? strerror(errno) : "no progress");
            done += (size_t)w;
        }
    }
    s->offset += n;
    return PC_OK;
}

static inline pc_status pc_byte_sink_zeros(pc_byte_sink *s, size_t n)
{
    static const unsigned char zeros[64];
    while (n > 0) {
        size_t k = n < sizeof zeros ? n : sizeof zeros;
        pc_status st = pc_byte_sink_write(s, zeros, k);
        if (st != PC_OK)
            return st;
        n -= k;
    }
    return PC_OK;
}

#endif
