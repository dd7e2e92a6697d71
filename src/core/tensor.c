#include "precheck/core/tensor.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "precheck/core/convert.h"
#include "precheck/core/strided_copy.h"

/* ---------------------------------------------------------------------------------------- */
/* Storage                                                                                  */
/* ---------------------------------------------------------------------------------------- */

struct pc_storage {
    atomic_long refcount;
    void *data;
    size_t nbytes;
    pc_storage_release_fn release; /* NULL for inline data and for borrowed memory */
    void *release_ctx;
    void *release_data; /* what the caller gave to pc_storage_wrap (data may be a stand-in) */
    size_t block_len;   /* data is a pc_block_alloc block of this length; 0: it is not */
};

/* A stand-in address for wrapped storages of 0 bytes given as NULL, so that pointer arithmetic
 * on tensor data never starts from NULL. */
static unsigned char empty_storage_byte;

/* A storage of nbytes bytes, zeroed or not: large ones on a block of their own (core/alloc.h),
 * others as one heap block, the header and then the data at the next aligned address. */
static pc_status storage_alloc(pc_storage **out, size_t nbytes, bool zeroed)
{
    if (nbytes > (size_t)PC_TENSOR_MAX_BYTES)
        return pc_error_set(
            PC_ERR_RANGE, "storage of %zu bytes is more than precheck's limit of %" PRId64 " bytes",
            nbytes, PC_TENSOR_MAX_BYTES);
    pc_storage *s;
    if (nbytes >= pc_block_min()) {
        s = pc_calloc(1, sizeof *s);
        size_t len = 0;
        void *data = s ? pc_block_alloc(nbytes, zeroed, &len) : NULL;
        if (!data) {
            pc_free(s);
            return pc_error_set(PC_ERR_NOMEM, "out of memory allocating a storage of %zu bytes",
                                nbytes);
        }
        s->data = data;
        s->block_len = len;
    } else {
        /* calloc (not malloc + memset) lets the heap hand out fresh zero pages as they are */
        size_t total = sizeof(pc_storage) + PC_STORAGE_ALIGN - 1 + nbytes;
        unsigned char *block = zeroed ? pc_calloc(1, total) : pc_malloc(total);
        if (!block)
            return pc_error_set(PC_ERR_NOMEM, "out of memory allocating a storage of %zu bytes",
                                nbytes);
        s = (pc_storage *)block;
        memset(s, 0, sizeof *s);
        uintptr_t data = (uintptr_t)(block + sizeof(pc_storage));
        data = (data + PC_STORAGE_ALIGN - 1) & ~(uintptr_t)(PC_STORAGE_ALIGN - 1);
        s->data = (void *)data;
    }
    atomic_init(&s->refcount, 1);
    s->nbytes = nbytes;
    *out = s;
    return PC_OK;
}

pc_status pc_storage_alloc(pc_storage **out, size_t nbytes)
{
    return storage_alloc(out, nbytes, true);
}

pc_status pc_storage_alloc_uninit(pc_storage **out, size_t nbytes)
{
    return storage_alloc(out, nbytes, false);
}

pc_status pc_storage_wrap(pc_storage **out, void *data, size_t nbytes,
                          pc_storage_release_fn release, void *ctx)
{
    if (!data && nbytes > 0) {
        if (release)
            release(ctx, data, nbytes);
        return pc_error_set(PC_ERR_INVALID, "cannot wrap a NULL pointer as %zu bytes", nbytes);
    }
    pc_storage *s = pc_calloc(1, sizeof *s);
    if (!s) {
        if (release)
            release(ctx, data, nbytes);
        return pc_error_set(PC_ERR_NOMEM, "out of memory wrapping %zu bytes as a storage", nbytes);
    }
    atomic_init(&s->refcount, 1);
    s->data = data ? data : &empty_storage_byte;
    s->nbytes = nbytes;
    s->release = release;
    s->release_ctx = ctx;
    s->release_data = data;
    *out = s;
    return PC_OK;
}

pc_storage *pc_storage_ref(pc_storage *storage)
{
    atomic_fetch_add_explicit(&storage->refcount, 1, memory_order_relaxed);
    return storage;
}

void pc_storage_unref(pc_storage *storage)
{
    if (!storage)
        return;
    /* release ordering on the decrement and acquire before freeing: every write another
     * owner made to the data happens before the release callback sees it. */
    if (atomic_fetch_sub_explicit(&storage->refcount, 1, memory_order_release) != 1)
        return;
    atomic_thread_fence(memory_order_acquire);
    if (storage->release)
        storage->release(storage->release_ctx, storage->release_data, storage->nbytes);
    if (storage->block_len)
        pc_block_free(storage->data, storage->block_len);
    pc_free(storage);
}

void *pc_storage_data(const pc_storage *storage)
{
    return storage->data;
}

size_t pc_storage_nbytes(const pc_storage *storage)
{
    return storage->nbytes;
}

long pc_storage_refcount(const pc_storage *storage)
{
    /* only read: the cast drops const for stdatomic, whose load takes a non-const pointer */
    return atomic_load_explicit(&((pc_storage *)(uintptr_t)storage)->refcount,
                                memory_order_relaxed);
}

/* ---------------------------------------------------------------------------------------- */
/* Shapes                                                                                   */
/* ---------------------------------------------------------------------------------------- */

int pc_shape_format(char *dst, size_t size, const int64_t *shape, int rank)
{
    /* len counts the whole text; writing stops at the buffer's end, as snprintf does. */
    size_t len = 0;
    char piece[32];
    if (rank < 0)
        rank = 0;
    if (size > 0)
        dst[0] = '\0';
    for (int i = -1; i <= rank; i++) {
        int n;
        if (i == -1)
            n = snprintf(piece, sizeof piece, "[");
        else if (i == rank)
            n = snprintf(piece, sizeof piece, "]");
        else
            n = snprintf(piece, sizeof piece, "%s%" PRId64, i ? ", " : "", shape[i]);
        if (len < size) {
            size_t room = size - len - 1;
            size_t k = (size_t)n < room ? (size_t)n : room;
            memcpy(dst + len, piece, k);
            dst[len + k] = '\0';
        }
        len += (size_t)n;
    }
    return (int)len;
}

void pc_shape_contiguous_strides(const int64_t *shape, int rank, int64_t *strides)
{
    int64_t step = 1;
    for (int i = rank - 1; i >= 0; i--) {
        strides[i] = step;
        step *= shape[i] > 1 ? shape[i] : 1;
    }
}

/* Text of "tensor of shape [..] dtype ..", the subject of most messages here. */
typedef struct subject {
    char text[PC_SHAPE_FORMAT_MAX + 64];
} subject;

static subject describe(const int64_t *shape, int rank, pc_dtype dtype)
{
    subject s;
    char buf[PC_SHAPE_FORMAT_MAX];
    pc_shape_format(buf, sizeof buf, shape, rank > PC_TENSOR_MAX_DIMS ? 0 : rank);
    snprintf(s.text, sizeof s.text, "tensor of shape %s dtype %s", buf, pc_dtype_name(dtype));
    return s;
}

static pc_status check_rank(int rank)
{
    if (rank < 0)
        return pc_error_set(PC_ERR_INVALID, "negative tensor rank %d", rank);
    if (rank > PC_TENSOR_MAX_DIMS)
        return pc_error_set(PC_ERR_UNSUPPORTED,
                            "tensor rank %d exceeds precheck's limit of %d dimensions", rank,
                            PC_TENSOR_MAX_DIMS);
    return PC_OK;
}

pc_status pc_tensor_check_shape(pc_dtype dtype, const int64_t *shape, int rank, int64_t *numel,
                                size_t *nbytes)
{
    if ((unsigned)dtype >= PC_DTYPE_COUNT)
        return pc_error_set(PC_ERR_INVALID, "invalid dtype %d", (int)dtype);
    pc_status st = check_rank(rank);
    if (st != PC_OK)
        return st;
    if (rank > 0 && !shape)
        return pc_error_set(PC_ERR_INVALID, "no shape given for a tensor of rank %d", rank);
    for (int i = 0; i < rank; i++)
        if (shape[i] < 0)
            return pc_error_set(PC_ERR_INVALID, "%s has a negative dimension %" PRId64,
                                describe(shape, rank, dtype).text, shape[i]);
    /* The product of the non-zero dimensions must fit too, even when a zero makes the count 0:
     * contiguous strides are built from it. */
    int64_t extent = 1;
    bool empty = false;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 0)
            empty = true;
        else if (__builtin_mul_overflow(extent, shape[i], &extent))
            return pc_error_set(PC_ERR_RANGE, "%s has more elements than fit in 64 bits",
                                describe(shape, rank, dtype).text);
    }
    int64_t count = empty ? 0 : extent;
    uint64_t bytes;
    if (__builtin_mul_overflow((uint64_t)count, (uint64_t)pc_dtype_size(dtype), &bytes))
        return pc_error_set(PC_ERR_RANGE,
                            "%s needs more than 2^64 bytes, more than precheck's limit of %" PRId64
                            " bytes",
                            describe(shape, rank, dtype).text, PC_TENSOR_MAX_BYTES);
    if (bytes > (uint64_t)PC_TENSOR_MAX_BYTES)
        return pc_error_set(PC_ERR_RANGE,
                            "%s needs %" PRIu64 " bytes, more than precheck's limit of %" PRId64
                            " bytes",
                            describe(shape, rank, dtype).text, bytes, PC_TENSOR_MAX_BYTES);
    if (numel)
        *numel = count;
    if (nbytes)
        *nbytes = (size_t)bytes;
    return PC_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Making tensors                                                                           */
/* ---------------------------------------------------------------------------------------- */

static pc_status null_tensor_error(const char *what)
{
    return pc_error_set(PC_ERR_INVALID, "%s: the tensor is null (freed or never made)", what);
}

/* Checks that shape/strides/offset is a valid layout of dtype inside a storage of nbytes and
 * writes it to *t (storage left to the caller). */
static pc_status make_layout(pc_tensor *t, size_t storage_nbytes, pc_dtype dtype,
                             const int64_t *shape, const int64_t *strides, int rank, int64_t offset)
{
    int64_t numel;
    pc_status st = pc_tensor_check_shape(dtype, shape, rank, &numel, NULL);
    if (st != PC_OK)
        return st;
    int64_t contiguous[PC_TENSOR_MAX_DIMS];
    if (!strides) {
        pc_shape_contiguous_strides(shape, rank, contiguous);
        strides = contiguous;
    }
    for (int i = 0; i < rank; i++)
        if (strides[i] < 0)
            return pc_error_set(PC_ERR_UNSUPPORTED,
                                "%s: negative stride %" PRId64
                                " in dimension %d; precheck does not support negative strides",
                                describe(shape, rank, dtype).text, strides[i], i);
    if (offset < 0)
        return pc_error_set(PC_ERR_RANGE, "%s: negative storage offset %" PRId64,
                            describe(shape, rank, dtype).text, offset);

    /* The last element reached is offset + sum (shape[i] - 1) * strides[i]; a tensor without
     * elements reaches none, but its data address (offset) must still lie inside or just past
     * the storage. */
    uint64_t size = pc_dtype_size(dtype);
    uint64_t end_elems = (uint64_t)offset;
    bool overflow = false;
    if (numel > 0) {
        for (int i = 0; i < rank; i++) {
            uint64_t step;
            overflow |=
                __builtin_mul_overflow((uint64_t)(shape[i] - 1), (uint64_t)strides[i], &step);
            overflow |= __builtin_add_overflow(end_elems, step, &end_elems);
        }
        overflow |= __builtin_add_overflow(end_elems, 1, &end_elems);
    }
    uint64_t end_bytes;
    overflow |= __builtin_mul_overflow(end_elems, size, &end_bytes);
    if (overflow || end_bytes > storage_nbytes) {
        char sbuf[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(sbuf, sizeof sbuf, strides, rank);
        if (overflow)
            return pc_error_set(PC_ERR_RANGE,
                                "%s with strides %s and offset %" PRId64
                                " reaches beyond 2^64 bytes, outside its storage of %zu bytes",
                                describe(shape, rank, dtype).text, sbuf, offset, storage_nbytes);
        return pc_error_set(PC_ERR_RANGE,
                            "%s with strides %s and offset %" PRId64 " needs %" PRIu64
                            " bytes of storage, which has %zu",
                            describe(shape, rank, dtype).text, sbuf, offset, end_bytes,
                            storage_nbytes);
    }

    memset(t, 0, sizeof *t);
    t->dtype = dtype;
    t->rank = rank;
    for (int i = 0; i < rank; i++) {
        t->shape[i] = shape[i];
        t->strides[i] = strides[i];
    }
    t->offset = offset;
    return PC_OK;
}

/* Finishes a view: checks the layout against src's storage, takes a reference, and stores the
 * result in *out (dropping src's reference when out is src). */
static pc_status finish_view(pc_tensor *out, const pc_tensor *src, const int64_t *shape,
                             const int64_t *strides, int rank, int64_t offset)
{
    pc_tensor t;
    pc_status st = make_layout(&t, src->storage->nbytes, src->dtype, shape, strides, rank, offset);
    if (st != PC_OK)
        return st;
    t.storage = pc_storage_ref(src->storage);
    if (out == src)
        pc_tensor_free(out);
    *out = t;
    return PC_OK;
}

static pc_status tensor_alloc(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank,
                              bool zeroed)
{
    size_t nbytes;
    pc_status st = pc_tensor_check_shape(dtype, shape, rank, NULL, &nbytes);
    if (st != PC_OK)
        return st;
    pc_storage *s = NULL;
    st = storage_alloc(&s, nbytes, zeroed);
    if (st != PC_OK)
        return pc_error_set(st, "out of memory allocating %zu bytes for a %s", nbytes,
                            describe(shape, rank, dtype).text);
    pc_tensor t;
    st = make_layout(&t, nbytes, dtype, shape, NULL, rank, 0);
    if (st != PC_OK) { /* cannot happen after the checks above; kept for safety */
        pc_storage_unref(s);
        return st;
    }
    t.storage = s;
    *out = t;
    return PC_OK;
}

pc_status pc_tensor_alloc(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank)
{
    return tensor_alloc(out, dtype, shape, rank, true);
}

pc_status pc_tensor_alloc_uninit(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank)
{
    return tensor_alloc(out, dtype, shape, rank, false);
}

pc_status pc_tensor_alloc_like(pc_tensor *out, const pc_tensor *like, pc_dtype dtype)
{
    if (pc_tensor_is_null(like))
        return null_tensor_error("pc_tensor_alloc_like");
    return pc_tensor_alloc(out, dtype, like->shape, like->rank);
}

pc_status pc_tensor_from_storage(pc_tensor *out, pc_storage *storage, pc_dtype dtype,
                                 const int64_t *shape, const int64_t *strides, int rank,
                                 int64_t offset)
{
    if (!storage)
        return pc_error_set(PC_ERR_INVALID, "pc_tensor_from_storage: no storage given");
    pc_tensor t;
    pc_status st = make_layout(&t, storage->nbytes, dtype, shape, strides, rank, offset);
    if (st != PC_OK)
        return st;
    t.storage = pc_storage_ref(storage);
    *out = t;
    return PC_OK;
}

pc_status pc_tensor_wrap(pc_tensor *out, pc_dtype dtype, const int64_t *shape, int rank, void *data,
                         size_t nbytes, pc_storage_release_fn release, void *ctx)
{
    pc_storage *s = NULL;
    pc_status st = pc_storage_wrap(&s, data, nbytes, release, ctx);
    if (st != PC_OK)
        return st;
    st = pc_tensor_from_storage(out, s, dtype, shape, NULL, rank, 0);
    pc_storage_unref(s); /* the tensor has its own reference, or the storage goes now */
    return st;
}

void pc_tensor_free(pc_tensor *t)
{
    if (!t)
        return;
    pc_storage_unref(t->storage);
    *t = PC_TENSOR_NULL;
}

void pc_tensor_share(pc_tensor *out, const pc_tensor *src)
{
    pc_tensor t = *src;
    if (t.storage)
        pc_storage_ref(t.storage);
    if (out == src)
        pc_tensor_free(out);
    *out = t;
}

/* ---------------------------------------------------------------------------------------- */
/* Queries                                                                                  */
/* ---------------------------------------------------------------------------------------- */

bool pc_tensor_is_null(const pc_tensor *t)
{
    return !t || !t->storage;
}

int64_t pc_tensor_numel(const pc_tensor *t)
{
    if (pc_tensor_is_null(t))
        return 0;
    int64_t n = 1; /* cannot overflow: every tensor passed pc_tensor_check_shape */
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

size_t pc_tensor_nbytes(const pc_tensor *t)
{
    if (pc_tensor_is_null(t))
        return 0;
    return (size_t)pc_tensor_numel(t) * pc_dtype_size(t->dtype);
}

bool pc_tensor_is_contiguous(const pc_tensor *t)
{
    if (pc_tensor_is_null(t))
        return false;
    if (pc_tensor_numel(t) == 0)
        return true;
    int64_t expected = 1;
    for (int i = t->rank - 1; i >= 0; i--) {
        if (t->shape[i] == 1)
            continue;
        if (t->strides[i] != expected)
            return false;
        expected *= t->shape[i];
    }
    return true;
}

bool pc_tensor_same_shape(const pc_tensor *a, const pc_tensor *b)
{
    if (a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; i++)
        if (a->shape[i] != b->shape[i])
            return false;
    return true;
}

void *pc_tensor_data(const pc_tensor *t)
{
    if (pc_tensor_is_null(t))
        return NULL;
    return (unsigned char *)t->storage->data + (size_t)t->offset * pc_dtype_size(t->dtype);
}

void *pc_tensor_element_ptr(const pc_tensor *t, const int64_t *index)
{
    if (pc_tensor_is_null(t) || (t->rank > 0 && !index))
        return NULL;
    int64_t at = t->offset;
    for (int i = 0; i < t->rank; i++) {
        if (index[i] < 0 || index[i] >= t->shape[i])
            return NULL;
        at += index[i] * t->strides[i]; /* inside the storage: the layout was checked */
    }
    return (unsigned char *)t->storage->data + (size_t)at * pc_dtype_size(t->dtype);
}

/* ---------------------------------------------------------------------------------------- */
/* Views                                                                                    */
/* ---------------------------------------------------------------------------------------- */

/* torch's dimension wrapping: -rank..rank-1 (a 0-dim tensor accepts -1 and 0). */
static bool wrap_dim(int dim, int rank, int *wrapped)
{
    int r = rank > 0 ? rank : 1;
    if (dim < -r || dim >= r)
        return false;
    *wrapped = dim < 0 ? dim + r : dim;
    return true;
}

static pc_status dim_error(const char *what, int dim, const pc_tensor *t)
{
    int r = t->rank > 0 ? t->rank : 1;
    return pc_error_set(PC_ERR_RANGE,
                        "%s: dimension %d out of range (expected to be in range of [%d, %d]) "
                        "for a %s",
                        what, dim, -r, r - 1, describe(t->shape, t->rank, t->dtype).text);
}

pc_status pc_tensor_view(pc_tensor *out, const pc_tensor *src, const int64_t *shape,
                         const int64_t *strides, int rank, int64_t offset)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_view");
    return finish_view(out, src, shape, strides, rank, offset);
}

pc_status pc_tensor_reshape(pc_tensor *out, const pc_tensor *src, const int64_t *shape, int rank)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_reshape");
    pc_status st = check_rank(rank);
    if (st != PC_OK)
        return st;
    int64_t numel = pc_tensor_numel(src);
    int64_t resolved[PC_TENSOR_MAX_DIMS];
    int infer = -1;
    int64_t known = 1;
    char want[PC_SHAPE_FORMAT_MAX];
    pc_shape_format(want, sizeof want, shape, rank);
    for (int i = 0; i < rank; i++) {
        resolved[i] = shape[i];
        if (shape[i] == -1) {
            if (infer >= 0)
                return pc_error_set(PC_ERR_INVALID, "reshape to %s: only one dimension can be -1",
                                    want);
            infer = i;
        } else if (shape[i] < 0) {
            return pc_error_set(PC_ERR_INVALID, "reshape to %s: invalid dimension %" PRId64, want,
                                shape[i]);
        } else if (__builtin_mul_overflow(known, shape[i], &known)) {
            return pc_error_set(PC_ERR_RANGE, "reshape to %s: more elements than fit in 64 bits",
                                want);
        }
    }
    if (infer >= 0) {
        if (known == 0)
            return pc_error_set(PC_ERR_INVALID,
                                "cannot reshape a tensor of %" PRId64
                                " elements into shape %s because the unspecified dimension "
                                "size -1 can be any value and is ambiguous",
                                numel, want);
        resolved[infer] = numel / known;
        known *= resolved[infer];
    }
    if (known != numel)
        return pc_error_set(PC_ERR_INVALID, "shape %s is invalid for input of size %" PRId64, want,
                            numel);
    if (!pc_tensor_is_contiguous(src))
        return pc_error_set(PC_ERR_INVALID,
                            "reshape to %s: the %s is not contiguous (call pc_tensor_contiguous "
                            "first)",
                            want, describe(src->shape, src->rank, src->dtype).text);
    return finish_view(out, src, resolved, NULL, rank, src->offset);
}

pc_status pc_tensor_permute(pc_tensor *out, const pc_tensor *src, const int *dims)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_permute");
    int64_t shape[PC_TENSOR_MAX_DIMS], strides[PC_TENSOR_MAX_DIMS];
    bool seen[PC_TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < src->rank; i++) {
        int d;
        if (!wrap_dim(dims[i], src->rank, &d))
            return dim_error("pc_tensor_permute", dims[i], src);
        if (seen[d])
            return pc_error_set(PC_ERR_INVALID, "pc_tensor_permute: dimension %d repeats", dims[i]);
        seen[d] = true;
        shape[i] = src->shape[d];
        strides[i] = src->strides[d];
    }
    return finish_view(out, src, shape, strides, src->rank, src->offset);
}

pc_status pc_tensor_transpose(pc_tensor *out, const pc_tensor *src, int dim0, int dim1)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_transpose");
    int d0, d1;
    if (!wrap_dim(dim0, src->rank, &d0))
        return dim_error("pc_tensor_transpose", dim0, src);
    if (!wrap_dim(dim1, src->rank, &d1))
        return dim_error("pc_tensor_transpose", dim1, src);
    int64_t shape[PC_TENSOR_MAX_DIMS], strides[PC_TENSOR_MAX_DIMS];
    memcpy(shape, src->shape, sizeof shape);
    memcpy(strides, src->strides, sizeof strides);
    if (src->rank > 0) {
        shape[d0] = src->shape[d1];
        shape[d1] = src->shape[d0];
        strides[d0] = src->strides[d1];
        strides[d1] = src->strides[d0];
    }
    return finish_view(out, src, shape, strides, src->rank, src->offset);
}

pc_status pc_tensor_select(pc_tensor *out, const pc_tensor *src, int dim, int64_t index)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_select");
    if (src->rank == 0)
        return pc_error_set(PC_ERR_INVALID, "select() cannot be applied to a 0-dim tensor");
    int d;
    if (!wrap_dim(dim, src->rank, &d))
        return dim_error("pc_tensor_select", dim, src);
    int64_t size = src->shape[d];
    if (index < -size || index >= size)
        return pc_error_set(PC_ERR_RANGE,
                            "select(): index %" PRId64 " out of range for tensor of size %" PRId64
                            " at dimension %d",
                            index, size, d);
    if (index < 0)
        index += size;
    int64_t shape[PC_TENSOR_MAX_DIMS], strides[PC_TENSOR_MAX_DIMS];
    int r = 0;
    for (int i = 0; i < src->rank; i++) {
        if (i == d)
            continue;
        shape[r] = src->shape[i];
        strides[r] = src->strides[i];
        r++;
    }
    /* With no elements left, keep the offset: advancing it could point past the storage. */
    int64_t offset = src->offset;
    if (pc_tensor_numel(src) > 0)
        offset += index * src->strides[d];
    return finish_view(out, src, shape, strides, r, offset);
}

pc_status pc_tensor_narrow(pc_tensor *out, const pc_tensor *src, int dim, int64_t start,
                           int64_t length)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_narrow");
    if (src->rank == 0)
        return pc_error_set(PC_ERR_INVALID, "narrow() cannot be applied to a 0-dim tensor");
    int d;
    if (!wrap_dim(dim, src->rank, &d))
        return dim_error("pc_tensor_narrow", dim, src);
    int64_t size = src->shape[d];
    if (start < -size || start > size)
        return pc_error_set(PC_ERR_RANGE,
                            "narrow(): start %" PRId64 " out of range for tensor of size %" PRId64
                            " at dimension %d",
                            start, size, d);
    if (start < 0)
        start += size;
    if (length < 0 || length > size - start)
        return pc_error_set(PC_ERR_RANGE,
                            "narrow(): start (%" PRId64 ") + length (%" PRId64
                            ") exceeds dimension size (%" PRId64 ")",
                            start, length, size);
    int64_t shape[PC_TENSOR_MAX_DIMS];
    memcpy(shape, src->shape, sizeof shape);
    shape[d] = length;
    int64_t offset = src->offset;
    bool empty = length == 0;
    for (int i = 0; i < src->rank; i++)
        empty |= shape[i] == 0;
    if (!empty)
        offset += start * src->strides[d];
    return finish_view(out, src, shape, src->strides, src->rank, offset);
}

pc_status pc_tensor_expand(pc_tensor *out, const pc_tensor *src, const int64_t *shape, int rank)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_expand");
    pc_status st = check_rank(rank);
    if (st != PC_OK)
        return st;
    char want[PC_SHAPE_FORMAT_MAX];
    pc_shape_format(want, sizeof want, shape, rank);
    if (rank < src->rank)
        return pc_error_set(PC_ERR_INVALID,
                            "expand to %s: the number of sizes provided (%d) must be greater or "
                            "equal to the number of dimensions in the tensor (%d)",
                            want, rank, src->rank);
    int64_t new_shape[PC_TENSOR_MAX_DIMS], new_strides[PC_TENSOR_MAX_DIMS];
    int lead = rank - src->rank;
    for (int i = 0; i < rank; i++) {
        int j = i - lead;
        if (j < 0) {
            if (shape[i] < 0)
                return pc_error_set(PC_ERR_INVALID,
                                    "expand to %s: the expanded size %" PRId64
                                    " is not allowed in a leading, non-existing dimension %d",
                                    want, shape[i], i);
            new_shape[i] = shape[i];
            new_strides[i] = 0;
        } else if (shape[i] == -1 || shape[i] == src->shape[j]) {
            new_shape[i] = src->shape[j];
            new_strides[i] = src->strides[j];
        } else if (src->shape[j] == 1 && shape[i] >= 0) {
            new_shape[i] = shape[i];
            new_strides[i] = 0;
        } else {
            return pc_error_set(
                PC_ERR_INVALID,
                "expand to %s: the expanded size %" PRId64 " must match the existing size %" PRId64
                " at non-singleton dimension %d of the %s",
                want, shape[i], src->shape[j], i, describe(src->shape, src->rank, src->dtype).text);
        }
    }
    return finish_view(out, src, new_shape, new_strides, rank, src->offset);
}

/* Elements of up to this size (complex128) are filled from a stack buffer. */
enum { MAX_ELEM = 16 };

/* dst[i] = src[i] for every index of shape (core/strided_copy.h). */
static void copy_strided(unsigned char *dst, pc_dtype dd, const int64_t *dst_strides,
                         const unsigned char *src, pc_dtype sd, const int64_t *src_strides,
                         const int64_t *shape, int rank)
{
    pc_strided_copy(dst, dd, dst_strides, src, sd, src_strides, shape, rank, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* Copies                                                                                   */
/* ---------------------------------------------------------------------------------------- */

pc_status pc_tensor_copy(pc_tensor *dst, const pc_tensor *src)
{
    if (pc_tensor_is_null(dst) || pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_copy");
    if (!pc_tensor_same_shape(dst, src)) {
        char a[PC_SHAPE_FORMAT_MAX], b[PC_SHAPE_FORMAT_MAX];
        pc_shape_format(a, sizeof a, src->shape, src->rank);
        pc_shape_format(b, sizeof b, dst->shape, dst->rank);
        return pc_error_set(PC_ERR_INVALID, "pc_tensor_copy: source shape %s differs from %s", a,
                            b);
    }
    copy_strided(pc_tensor_data(dst), dst->dtype, dst->strides, pc_tensor_data(src), src->dtype,
                 src->strides, src->shape, src->rank);
    return PC_OK;
}

pc_status pc_tensor_cast(pc_tensor *out, const pc_tensor *src, pc_dtype dtype)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_cast");
    pc_tensor t; /* every element is written below */
    pc_status st = pc_tensor_alloc_uninit(&t, dtype, src->shape, src->rank);
    if (st != PC_OK)
        return st;
    copy_strided(pc_tensor_data(&t), t.dtype, t.strides, pc_tensor_data(src), src->dtype,
                 src->strides, src->shape, src->rank);
    if (out == src)
        pc_tensor_free(out);
    *out = t;
    return PC_OK;
}

pc_status pc_tensor_contiguous(pc_tensor *out, const pc_tensor *src)
{
    if (pc_tensor_is_null(src))
        return null_tensor_error("pc_tensor_contiguous");
    if (pc_tensor_is_contiguous(src)) {
        pc_tensor_share(out, src);
        return PC_OK;
    }
    return pc_tensor_cast(out, src, src->dtype);
}

/* ---------------------------------------------------------------------------------------- */
/* Values                                                                                   */
/* ---------------------------------------------------------------------------------------- */

static void fill_element(pc_tensor *t, double re, double im)
{
    if (pc_tensor_is_null(t))
        return;
    /* One converted element, copied everywhere by the engine through a source whose strides
     * are all 0. */
    _Alignas(16) unsigned char elem[MAX_ELEM];
    pc_element_store(elem, t->dtype, re, im);
    static const int64_t zero_strides[PC_TENSOR_MAX_DIMS];
    copy_strided(pc_tensor_data(t), t->dtype, t->strides, elem, t->dtype, zero_strides, t->shape,
                 t->rank);
}

void pc_tensor_fill(pc_tensor *t, double value)
{
    fill_element(t, value, 0.0);
}

pc_status pc_tensor_fill_complex(pc_tensor *t, double re, double im)
{
    if (pc_tensor_is_null(t))
        return null_tensor_error("pc_tensor_fill_complex");
    if (im != 0.0 && !pc_dtype_is_complex(t->dtype))
        return pc_error_set(PC_ERR_INVALID,
                            "fill: value (%g%+gj) cannot be converted to type %s without "
                            "overflow",
                            re, im, pc_dtype_name(t->dtype));
    fill_element(t, re, im);
    return PC_OK;
}

/* Element access by index is for tests and small code: a bad index is the caller's bug. */
static void *element_or_abort(const pc_tensor *t, const int64_t *index, const char *what)
{
    void *p = pc_tensor_element_ptr(t, index);
    if (p)
        return p;
    char ib[PC_SHAPE_FORMAT_MAX] = "(none)", sb[PC_SHAPE_FORMAT_MAX] = "(null tensor)";
    if (!pc_tensor_is_null(t)) {
        pc_shape_format(sb, sizeof sb, t->shape, t->rank);
        if (index || t->rank == 0)
            pc_shape_format(ib, sizeof ib, index, t->rank);
    }
    fprintf(stderr, "precheck: internal error: %s: index %s out of range for shape %s\n", what, ib,
            sb);
    abort();
}

double pc_tensor_get(const pc_tensor *t, const int64_t *index)
{
    double re, im;
    pc_element_load(element_or_abort(t, index, "pc_tensor_get"), t->dtype, &re, &im);
    return re;
}

void pc_tensor_get_complex(const pc_tensor *t, const int64_t *index, double *re, double *im)
{
    pc_element_load(element_or_abort(t, index, "pc_tensor_get_complex"), t->dtype, re, im);
}

void pc_tensor_set(pc_tensor *t, const int64_t *index, double value)
{
    pc_element_store(element_or_abort(t, index, "pc_tensor_set"), t->dtype, value, 0.0);
}

void pc_tensor_set_complex(pc_tensor *t, const int64_t *index, double re, double im)
{
    pc_element_store(element_or_abort(t, index, "pc_tensor_set_complex"), t->dtype, re, im);
}
